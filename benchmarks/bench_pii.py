"""The `pii` clean rule measured (issue 37): planted values inside real stories masked, and real stories changed.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_pii.py            # writes bench/pii.md

Sets, read from ../shared/data at run time (never copied into the project), kept apart by name:

* tuning (the patterns and the unit list were adjusted while looking at these): CMRC 2017 validation (Chinese),
  ROCStories 5k, first half (English);
* held-out (looked at once, for this table): CFT human + auto, C3 dev + test (Chinese; C3 mixes in expository
  texts full of figures), ROCStories 5k, second half, Story Cloze winter 2018 val + test (English).

Planted values are made here, seeded, per side: tuning plants use the tuning carriers and formats below, held-out
plants the held-out ones (other sentences, other spellings of a number), so the held-out recall is not a recall on
the phrasings the patterns were written against. One value is planted per story, after a random sentence.

Measured on each story as `clean` sees it (normalised), by the rule's own function (`apply_pii` with every kind
masked): recall per kind (the planted value gone and its placeholder in its place), precision (of the spans the
rule masks in planted stories, the share that is the planted value) and false alarms (real stories, nothing
planted, that the rule changes; the numbers in them are ages, years, sums and counts). In `clean` the `email` strip
rule removes e-mail addresses before the `pii` rule sees the text; both are counted here as the `pii` rule's.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from langid_sets import SHARED, _c3, _cmrc_family, _rocstories_5k, _storycloze  # noqa: E402

from lotdata.clean.pii import KINDS, PLACEHOLDERS, apply_pii, find_pii, parse_pii_actions  # noqa: E402
from lotdata.text import normalize_text, split_sentences  # noqa: E402

MASK = parse_pii_actions("mask")
PER_KIND = 200  # planted values per kind, language and side

# ---------------------------------------------------------------- carriers (written for this benchmark)

CARRIERS = {
    ("zh", "tuning"): {
        "phone": ["有事请打电话{}。", "他的手机号是{}。", "联系电话：{}。"],
        "id": ["身份证号码{}。", "他的身份证号是{}。"],
        "email": ["来信请寄{}。", "邮箱：{}。"],
        "qq": ["我的QQ：{}。", "QQ号{}，欢迎交流。"],
        "wechat": ["微信号：{}。", "加我微信{}。"],
        "address": ["他家住在{}。", "地址：{}。"],
    },
    ("zh", "held-out"): {
        "phone": ["如有疑问，可拨打{}咨询。", "手机{}，随时联系。", "报名电话为{}。"],
        "id": ["证件号{}已登记。", "公民身份号码：{}"],
        "email": ["投稿邮箱为{}，欢迎来稿。", "请发邮件到{}。"],
        "qq": ["读者交流扣扣{}。", "作者QQ是{}。"],
        "wechat": ["作者微信：{}，欢迎添加。", "有兴趣的加vx：{}。"],
        "address": ["寄往{}，收件人王老师。", "活动地点在{}。"],
    },
    ("en", "tuning"): {
        "phone": ["Call me at {}.", "My number is {}."],
        "id": ["His ID number is {}."],
        "email": ["Email me at {}.", "Write to {} for details."],
        "qq": ["My QQ: {}."],
        "wechat": ["Add me on WeChat: {}."],
        "address": ["She lives at {}.", "Send it to {}."],
    },
    ("en", "held-out"): {
        "phone": ["For tickets, phone {} today.", "Reach the office on {}."],
        "id": ["The card read {}."],
        "email": ["Questions go to {} anytime.", "Contact: {}"],
        "qq": ["Find me on QQ {}."],
        "wechat": ["WeChat ID: {}."],
        "address": ["The party is at {} tonight.", "Mail the form to {}."],
    },
}

MOBILE_PREFIXES = ("134", "135", "136", "137", "138", "139", "150", "151", "152", "158", "159", "186", "187", "189")
AREA_CODES = ("010", "021", "020", "0755", "0571", "028", "027", "025")
US_AREAS = ("212", "415", "312", "617", "206", "303", "512", "713")
REGIONS = ("110105", "310104", "440305", "510107", "330106", "420106", "320102", "500103")
DOMAINS = ("qq.com", "163.com", "gmail.com", "126.com", "example.org", "sina.com")
ZH_PLACES = (
    ("北京市", "朝阳区"),
    ("上海市", "徐汇区"),
    ("广州市", "天河区"),
    ("杭州市", "西湖区"),
    ("成都市", "武侯区"),
)
ZH_ROADS = ("建国路", "人民路", "解放街", "文三路", "体育西路", "中山北路", "南京东路", "幸福里")
EN_NAMES = ("Maple", "Oak", "Baker", "Washington", "Elm", "Sunset", "Lincoln", "Cedar Hill")
EN_TYPES = ("Street", "Avenue", "Road", "Drive", "Lane", "Blvd.", "Court")


def _id_number(rng: random.Random) -> str:
    body = f"{rng.choice(REGIONS)}{rng.randint(1950, 2010)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"
    body += f"{rng.randint(0, 999):03d}"
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    return body + "10X98765432"[sum(int(d) * w for d, w in zip(body, weights)) % 11]


def _phone(rng: random.Random, lang: str, side: str) -> str:
    digits = lambda n: "".join(str(rng.randint(0, 9)) for _ in range(n))  # noqa: E731
    if lang == "zh":
        mobile = rng.choice(MOBILE_PREFIXES) + digits(8)
        land = (rng.choice(AREA_CODES), str(rng.randint(2, 8)) + digits(7))
        forms = (
            [mobile, f"{land[0]}-{land[1]}", f"{mobile[:3]}-{mobile[3:7]}-{mobile[7:]}"]
            if side == "tuning"
            else [f"+86 {mobile}", f"({land[0]}){land[1]}", f"{mobile[:3]} {mobile[3:7]} {mobile[7:]}", mobile]
        )
    else:
        area, exchange = rng.choice(US_AREAS), str(rng.randint(2, 9)) + digits(2)
        line = digits(4)
        forms = (
            [f"({area}) {exchange}-{line}", f"{area}-{exchange}-{line}"]
            if side == "tuning"
            else [f"+1 {area} {exchange} {line}", f"{area}.{exchange}.{line}", f"+44 20 7946 {digits(4)}"]
        )
    return rng.choice(forms)


def _value(kind: str, lang: str, side: str, rng: random.Random) -> str:
    letters = "abcdefghijklmnopqrstuvwxyz"
    word = "".join(rng.choice(letters) for _ in range(rng.randint(4, 8)))
    if kind == "phone":
        return _phone(rng, lang, side)
    if kind == "id":
        return _id_number(rng)
    if kind == "email":
        return f"{word}{rng.choice(['', '.', '_'])}{rng.randint(1, 999)}@{rng.choice(DOMAINS)}"
    if kind == "qq":
        return str(rng.randint(10_000, 3_999_999_999))
    if kind == "wechat":
        return f"{word}{rng.choice(['_', '-', ''])}{rng.randint(10, 9999)}"
    if lang == "en":
        apt = rng.choice(["", f", Apt {rng.randint(1, 20)}{rng.choice('AB')}"]) if side == "held-out" else ""
        return f"{rng.randint(1, 9999)} {rng.choice(EN_NAMES)} {rng.choice(EN_TYPES)}{apt}"
    city, district = rng.choice(ZH_PLACES)
    road, number = rng.choice(ZH_ROADS), rng.randint(1, 999)
    forms = [f"{city}{district}{road}{number}号", f"{road}{number}号"]
    if side == "held-out":
        forms += [
            f"{city}{district}{road}{number}号{rng.randint(1, 30)}栋{rng.randint(1, 3)}单元{rng.randint(101, 2801)}室"
        ]
    return rng.choice(forms)


# ---------------------------------------------------------------- sets


def real_sets() -> list[tuple[str, str, str, list[str]]]:
    """(name, side, lang, stories as `clean` sees them)."""
    cmrc = SHARED / "cmrc2017_children_stories" / "validation"
    cft = SHARED / "cft_children_fairy_tale" / "children_fairy_tale" / "cft.zip"
    roc = _rocstories_5k()
    half = len(roc) // 2
    winter = _storycloze("storycloze_rocstories", ("val.csv", "test.csv"))
    raw = [
        (
            "CMRC 2017 validation",
            "tuning",
            "zh",
            _cmrc_family([cmrc / "cloze.valid.doc_query", cmrc / "user.valid.doc_query"]),
        ),
        ("ROCStories 5k, first half", "tuning", "en", roc[:half]),
        ("CFT human+auto", "held-out", "zh", _cmrc_family([cft])),
        ("C3 dev+test", "held-out", "zh", _c3(("c3-m-dev.json", "c3-m-test.json"))),
        ("ROCStories 5k, second half", "held-out", "en", roc[half:]),
        (
            "Story Cloze winter 2018 val+test",
            "held-out",
            "en",
            [" ".join([*c["context"], c["right_ending"]]) for c in winter],
        ),
    ]
    return [
        (name, side, lang, [t for t in (normalize_text(x, lang) for x in texts) if t])
        for name, side, lang, texts in raw
    ]


def plant(text: str, lang: str, carrier: str, value: str, rng: random.Random) -> tuple[str, int, int]:
    """`text` with `carrier` (holding `value`) inserted after a random sentence; the value's span."""
    sentences = split_sentences(text, lang) or [text]
    at = rng.randint(0, len(sentences))
    sentence = carrier.format(value)
    joiner = "" if lang == "zh" else " "
    before = joiner.join(sentences[:at])
    prefix = before + (joiner if before else "")
    start = len(prefix) + carrier.index("{}")
    return (
        prefix + sentence + (joiner if at < len(sentences) else "") + joiner.join(sentences[at:]),
        start,
        start + len(value),
    )


def measure_planted(side: str, lang: str, stories: list[str], seed: int) -> dict[str, dict[str, int]]:
    rng = random.Random(seed)
    out: dict[str, dict[str, int]] = {}
    for kind in KINDS:
        hit = masks = right = 0
        for _ in range(PER_KIND):
            value = _value(kind, lang, side, rng)
            text, start, end = plant(rng.choice(stories), lang, rng.choice(CARRIERS[(lang, side)][kind]), value, rng)
            found = find_pii(text, lang)
            masked = apply_pii(text, lang, MASK).text
            covering = [f for f in found if f.start <= start and f.end >= end]
            ok = any(f.kind == kind for f in covering) and value not in masked and PLACEHOLDERS[kind] in masked
            hit += ok
            masks += len(found)
            right += sum(1 for f in found if f.kind == kind and f.start < end and f.end > start)
        out[kind] = {"planted": PER_KIND, "masked": hit, "masks": masks, "right": right}
    return out


def measure_real(lang: str, stories: list[str]) -> tuple[int, Counter, float]:
    changed, kinds = 0, Counter()
    started = time.perf_counter()
    for text in stories:
        found = find_pii(text, lang)
        if found:
            changed += 1
            kinds.update(f.kind for f in found)
    return changed, kinds, time.perf_counter() - started


def main() -> None:
    sets = real_sets()
    lines = [
        "# The `pii` clean rule: planted personal information and real stories",
        "",
        "`PYTHONPATH=. .venv/bin/python benchmarks/bench_pii.py` (the sets and how values are planted: the script's"
        " docstring). Tuning sets: CMRC 2017 validation, ROCStories 5k first half; held-out: CFT, C3 dev+test,"
        " ROCStories 5k second half, Story Cloze winter 2018. Every kind masked (`--pii mask`, the default).",
        "",
        "## False alarms: real stories the rule changes (nothing planted)",
        "",
        "| set | side | lang | stories | changed | share | kinds found | µs / story |",
        "| --- | --- | --- | ---: | ---: | ---: | --- | ---: |",
    ]
    for name, side, lang, stories in sets:
        changed, kinds, seconds = measure_real(lang, stories)
        found = ", ".join(f"{k} {n}" for k, n in kinds.most_common()) or "none"
        lines.append(
            f"| {name} | {side} | {lang} | {len(stories)} | {changed} | {changed / len(stories):.2%} | {found} |"
            f" {1e6 * seconds / len(stories):.0f} |"
        )
    lines += [
        "",
        f"## Planted values ({PER_KIND} per kind, language and side; one per story)",
        "",
        "Recall: the planted value gone and its placeholder there. Precision: of the spans masked in the planted"
        " stories, the share that is the planted value of the planted kind.",
        "",
        "| side | lang | stories from | kind | recall | precision |",
        "| --- | --- | --- | --- | ---: | ---: |",
    ]
    by_side: dict[tuple[str, str], list[str]] = {}
    names: dict[tuple[str, str], list[str]] = {}
    for name, side, lang, stories in sets:
        by_side.setdefault((side, lang), []).extend(stories)
        names.setdefault((side, lang), []).append(name)
    for (side, lang), stories in sorted(by_side.items(), key=lambda kv: (kv[0][0] != "tuning", kv[0][1])):
        for kind, m in measure_planted(side, lang, stories, seed=37 if side == "tuning" else 3737).items():
            precision = m["right"] / m["masks"] if m["masks"] else float("nan")
            lines.append(
                f"| {side} | {lang} | {' + '.join(names[(side, lang)])} | {kind} | {m['masked'] / m['planted']:.1%}"
                f" ({m['masked']}/{m['planted']}) | {precision:.1%} ({m['right']}/{m['masks']}) |"
            )
    lines += [
        "",
        "## Notes",
        "",
        "- C3 dev+test's changed stories are not false alarms: read one by one, every value found there is real"
        " contact information in a notice or an advertisement (mobile and landline numbers, an e-mail address, a QQ"
        " number), which is what the rule is for. One address there (a 小区 with a building and room, no road) is"
        " missed: the Chinese address pattern needs a road, street, lane or alley and a 号.",
        "- The held-out Chinese address recall was 87.5% (175/200) at the first look: a city whose name holds 都"
        " (成都市) lost its city, because 都 was among the function characters an address may not hold. 都 and 和"
        " were taken out of that list after that look, so for addresses the held-out figure above is no longer"
        " unseen; the tuning side showed the same miss (91.5%).",
        "- Precision here is on planted stories; the false-alarm table is the precision that matters on real data:"
        " no story of the tuning or held-out story corpora (ages, years, dates, sums, counts) is changed.",
    ]
    out = REPO / "bench" / "pii.md"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
