"""The real and planted sets that measure language identification (benchmarks/bench_langid.py, and the tests of
tests/test_langid.py): read from ../shared/data at run time, never copied into the project.

Tuning sets (the thresholds of lotdata.text.langid were chosen on them) and held-out sets (nobody looked at them
while tuning) are kept apart by name:

* English, tuning: Story Cloze spring 2016 (val + test, 3,742 cases), ROCStories 5k (5,000 stories);
  held-out: Story Cloze winter 2018 (v1.5 val + blind test, 3,142 cases).
* Chinese, tuning: CMRC 2017 (validation cloze + user documents), C3 train;
  held-out: CFT (human + auto), C3 dev + test, LOT OutGen dev (111 stories).

Planted violations are made from the real rows of the same side (tuning plants from tuning rows, held-out plants
from held-out rows) and from the foreign sentences below, written for this benchmark (each list is split in two
halves, one per side).
"""

from __future__ import annotations

import csv
import json
import os
import random
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("LOTDATA_SHARED_DATA") or REPO.parent / "shared" / "data")

# ---------------------------------------------------------------- foreign sentences, written for this benchmark

RUSSIAN = [
    "Маша проснулась рано и пошла в лес за грибами.",
    "Её брат остался дома и читал новую книгу.",
    "В лесу было тихо, только птицы пели на деревьях.",
    "Она нашла большую корзину белых грибов.",
    "Вечером вся семья ела горячий суп.",
    "Старый рыбак каждый день ходил к морю.",
    "Однажды он поймал маленькую золотую рыбку.",
    "Мальчик потерял свою собаку в парке.",
    "Соседи помогли ему искать её до самой ночи.",
    "Утром собака сама вернулась домой.",
    "Учитель рассказал детям сказку о медведе.",
    "Зимой в деревне выпало много снега.",
    "Дедушка построил для внуков снежную крепость.",
    "Анна купила на рынке свежий хлеб и молоко.",
    "Кошка спала на тёплом окне весь день.",
    "Мы долго ждали поезд на холодной станции.",
    "Папа подарил сыну новый велосипед.",
    "Сын катался на нём до самого вечера.",
    "Девочка нарисовала маме красивую открытку.",
    "После дождя на небе появилась радуга.",
    "Бабушка испекла пирог с яблоками.",
    "Друзья решили поехать летом на озеро.",
    "Ночью в лесу кто-то громко кричал.",
    "Лиса хитро посмотрела на ворону.",
]
JAPANESE = [
    "太郎は朝早く起きて、公園へ走りに行きました。",
    "雨が降ってきたので、彼は急いで家に帰りました。",
    "母は台所でおいしいカレーを作っていました。",
    "花子は友だちと一緒に図書館で本を読みました。",
    "その本はとても面白かったので、もう一度借りました。",
    "猫が窓のそばで気持ちよさそうに寝ています。",
    "おじいさんは山へしばかりに行きました。",
    "おばあさんは川へせんたくに行きました。",
    "夏休みに家族で海へ行くことにしました。",
    "弟は砂浜で大きなお城を作りました。",
    "先生は子どもたちに昔話をしてくれました。",
    "駅で電車を待っていると、雪が降り始めました。",
    "私は新しい自転車で学校に通っています。",
    "犬が公園でボールを追いかけて遊んでいます。",
    "誕生日に父からきれいな時計をもらいました。",
    "隣の人が道に迷った子どもを助けてくれました。",
    "夜になると、空にたくさんの星が見えました。",
    "彼女は毎朝コーヒーを飲みながら新聞を読みます。",
    "私たちは山の上でお弁当を食べました。",
    "試合に負けて、みんなはとても悔しがりました。",
    "春になって、桜の花がきれいに咲きました。",
    "兄はギターを弾くのがとても上手です。",
    "小さな村に、やさしいおばあさんが住んでいました。",
    "ある日、きつねがたぬきに話しかけました。",
]
FRENCH = [
    "Marie est allée au marché pour acheter des pommes.",
    "Son petit frère est resté à la maison avec le chat.",
    "Il pleuvait depuis le matin et la rue était vide.",
    "Le boulanger lui a donné un croissant encore chaud.",
    "Elle est rentrée chez elle en chantant une chanson.",
    "Le vieux pêcheur attendait son bateau sur le quai.",
    "Les enfants ont construit une cabane dans le jardin.",
    "Leur mère leur a préparé une tarte aux fraises.",
    "Nous avons perdu notre chien dans la forêt hier soir.",
    "Le lendemain, il est revenu tout seul à la maison.",
    "Paul a oublié ses clés dans le train ce matin.",
    "Une voisine les a trouvées et les lui a rapportées.",
    "Le professeur a lu une histoire de loup aux élèves.",
    "Après la pluie, un bel arc-en-ciel est apparu.",
    "Ma grand-mère tricote une écharpe pour chaque hiver.",
    "Ils ont décidé de partir en vacances à la montagne.",
]
GERMAN = [
    "Anna ging am Morgen mit ihrem Hund in den Park.",
    "Der Hund lief einem kleinen Eichhörnchen hinterher.",
    "Am Abend kochte die ganze Familie zusammen Suppe.",
    "Mein Bruder hat sein neues Fahrrad im Regen stehen lassen.",
    "Der alte Lehrer erzählte den Kindern eine Geschichte.",
    "Im Winter fiel im Dorf sehr viel Schnee.",
    "Wir warteten lange auf den Zug am kalten Bahnhof.",
    "Die Katze schlief den ganzen Tag auf dem warmen Fenster.",
    "Peter hat seinen Schlüssel im Büro vergessen.",
    "Seine Nachbarin hat ihm zum Glück die Tür geöffnet.",
    "Die Kinder bauten am Strand eine große Sandburg.",
    "Nach dem Regen erschien ein schöner Regenbogen.",
    "Der Bäcker schenkte ihr ein warmes Brötchen.",
    "Sie wollten im Sommer an einen See fahren.",
    "Oma backte für alle einen Apfelkuchen.",
    "Der Junge half dem verlorenen Mädchen nach Hause.",
]
FOREIGN = {"ru": RUSSIAN, "ja": JAPANESE, "fr": FRENCH, "de": GERMAN}


def foreign(lang: str, side: str) -> list[str]:
    """The first half of a foreign list for the tuning side, the second for the held-out side."""
    sentences = FOREIGN[lang]
    half = len(sentences) // 2
    return sentences[:half] if side == "tuning" else sentences[half:]


# ---------------------------------------------------------------- the real corpora


def _storycloze(folder: str, names: tuple[str, ...]) -> list[dict]:
    """Story Cloze cases as ending-writing submissions (a blind test csv: ending 1 taken as the right one, which
    the language rule never uses)."""
    cases = []
    for name in names:
        with open(SHARED / folder / name, encoding="utf-8", newline="") as handle:
            for n, rec in enumerate(csv.DictReader(handle), 1):
                right = 2 if (rec.get("AnswerRightEnding") or "1").strip() == "2" else 1
                cases.append(
                    {
                        "id": rec.get("InputStoryid") or f"{name}:{n}",
                        "context": [rec[f"InputSentence{k}"] for k in range(1, 5)],
                        "right_ending": rec[f"RandomFifthSentenceQuiz{right}"],
                        "wrong_ending": rec[f"RandomFifthSentenceQuiz{3 - right}"],
                    }
                )
    return cases


def _rocstories_5k() -> list[str]:
    path = SHARED / "rocstories_diffusionlm_valid5k" / "datasets" / "ROCstory" / "roc_valid.json"
    return [json.loads(line)[0] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _cmrc_family(paths: list[Path]) -> list[str]:
    """CMRC 2017 / CFT documents restored (the blank filled) by lotdata's own reader of the format."""
    from lotdata.sources.readers import get_format

    parse = get_format("cmrc").parse
    return [r.text for p in paths for r in parse(p) if r.reason is None and r.text]


def _c3(names: tuple[str, ...]) -> list[str]:
    folder = SHARED / "c3_mixed_genre" / "data"
    return ["".join(item[0]) for n in names for item in json.loads((folder / n).read_text(encoding="utf-8"))]


def _lot_outgen_dev() -> list[str]:
    lines = (SHARED / "lot_outgen_dev" / "dev.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["story"] for line in lines if line.strip()]


@dataclass
class RealSet:
    """One real corpus: its side (tuning / held-out), language, whole stories, and the submissions made of it."""

    name: str
    side: str
    lang: str
    texts: list[str]  # whole stories, as `read` sees them
    stories: list[dict] = field(default_factory=list)  # story_write submissions (title, five sentences)
    endings: list[dict] = field(default_factory=list)  # sct_write submissions (two endings)


def _english(name: str, side: str, cases: list[dict], texts: list[str] | None = None) -> RealSet:
    stories = [{"id": c["id"], "sentences": [*c["context"], c["right_ending"]]} for c in cases]
    stories += [{"id": f"roc:{i}", "text": t} for i, t in enumerate(texts or [])]
    whole = [" ".join(s.get("sentences") or []) or s["text"] for s in stories]
    return RealSet(name, side, "en", whole, stories, cases)


def _chinese(name: str, side: str, raw: list[str]) -> RealSet:
    """Whole stories (normalised), and the first five sentences of each as a story_write submission, its last
    two as the endings of an sct_write one."""
    from lotdata.text import normalize_text, split_sentences

    texts = [t for t in (normalize_text(r, "zh") for r in raw) if t]
    stories, endings = [], []
    for i, text in enumerate(texts):
        five = split_sentences(text, "zh")[:5]
        stories.append({"id": f"{name}:{i}", "sentences": five})
        if len(five) >= 2:
            endings.append(
                {"id": f"{name}:{i}", "context": five[:-2], "right_ending": five[-1], "wrong_ending": five[-2]}
            )
    return RealSet(name, side, "zh", texts, stories, endings)


@lru_cache(maxsize=1)
def real_sets() -> tuple[RealSet, ...]:
    cmrc = SHARED / "cmrc2017_children_stories" / "validation"
    cft = SHARED / "cft_children_fairy_tale" / "children_fairy_tale" / "cft.zip"
    return (
        _english(
            "Story Cloze spring 2016 (val+test)",
            "tuning",
            _storycloze("storycloze_spring2016_labeled", ("val.csv", "test.csv")),
        ),
        _english("ROCStories 5k", "tuning", [], _rocstories_5k()),
        _chinese(
            "CMRC 2017 (validation)",
            "tuning",
            _cmrc_family([cmrc / "cloze.valid.doc_query", cmrc / "user.valid.doc_query"]),
        ),
        _chinese("C3 train", "tuning", _c3(("c3-m-train.json",))),
        _english(
            "Story Cloze winter 2018 (val+test)",
            "held-out",
            _storycloze("storycloze_rocstories", ("val.csv", "test.csv")),
        ),
        _chinese("CFT (human+auto)", "held-out", _cmrc_family([cft])),
        _chinese("C3 dev+test", "held-out", _c3(("c3-m-dev.json", "c3-m-test.json"))),
        _chinese("LOT OutGen dev", "held-out", _lot_outgen_dev()),
    )


# ---------------------------------------------------------------- planted violations


@dataclass
class Planted:
    """Planted violations of one kind: submissions (checked as `lang`) or whole texts (read)."""

    kind: str
    side: str
    lang: str  # the job's language the plant is checked against
    rows: list[dict] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)


def _punctuation_only(text: str) -> str:
    kept = "".join(ch for ch in text if not ch.isalpha())
    return kept if kept.strip() else "..."


def _fields_of(row: dict) -> list[str]:
    return list(row.get("sentences") or []) or [row.get("text") or ""]


def _side_rows(side: str, lang: str, what: str) -> list[dict]:
    return [r for s in real_sets() if s.side == side and s.lang == lang for r in getattr(s, what)]


def _side_texts(side: str, lang: str) -> list[str]:
    return [t for s in real_sets() if s.side == side and s.lang == lang for t in s.texts]


def planted(side: str, n: int = 300, seed: int = 0) -> list[Planted]:
    """Every planted kind of `side`, at most `n` of each (a seeded sample of the real rows of that side)."""
    rng = random.Random(seed)
    found: list[Planted] = []
    for job, other in (("en", "zh"), ("zh", "en")):
        stories = rng.sample(_side_rows(side, job, "stories"), n)
        endings = rng.sample(_side_rows(side, job, "endings"), n)
        other_stories = rng.sample(_side_rows(side, other, "stories"), n)
        other_endings = rng.sample(_side_rows(side, other, "endings"), n)
        other_sentences = [s for r in other_stories for s in _fields_of(r)]
        name = "Chinese" if other == "zh" else "English"
        found.append(Planted(f"{name} story in a {job} job", side, job, rows=other_stories))
        found.append(Planted(f"{name} endings in a {job} job", side, job, rows=other_endings))
        found.append(
            Planted(
                f"one {name} sentence in a {job} story", side, job, rows=_one_replaced(stories, other_sentences, rng)
            )
        )
        found.append(
            Planted(
                f"one {name} ending in a {job} case", side, job, rows=_ending_replaced(endings, other_sentences, rng)
            )
        )
        for lang in ("ru", "ja", *(("fr", "de") if job == "en" else ())):
            pool = foreign(lang, side)
            found.append(Planted(f"{lang} story in a {job} job", side, job, rows=_foreign_stories(pool, n, rng)))
            found.append(Planted(f"{lang} endings in a {job} job", side, job, rows=_foreign_endings(pool, n, rng)))
            if lang in ("ru", "ja"):
                found.append(
                    Planted(f"one {lang} sentence in a {job} story", side, job, rows=_one_replaced(stories, pool, rng))
                )
                found.append(
                    Planted(f"one {lang} ending in a {job} case", side, job, rows=_ending_replaced(endings, pool, rng))
                )
        found.append(
            Planted(f"punctuation only ({job} job)", side, job, rows=[_punctuated(r) for r in stories + endings])
        )
    found += _planted_texts(side, n, rng)
    return found


def _one_replaced(rows: list[dict], pool: list[str], rng: random.Random) -> list[dict]:
    out = []
    for row in rows:
        fields = _fields_of(row)
        if row.get("text") is not None:  # a story given as one text: split it as the rule does
            from lotdata.text.story_split import split_submission

            fields = split_submission(row["text"], "en")
        k = rng.randrange(len(fields))
        out.append({"id": row["id"], "sentences": [*fields[:k], rng.choice(pool), *fields[k + 1 :]]})
    return out


def _ending_replaced(rows: list[dict], pool: list[str], rng: random.Random) -> list[dict]:
    which = ("right_ending", "wrong_ending")
    return [{**row, rng.choice(which): rng.choice(pool)} for row in rows]


def _foreign_stories(pool: list[str], n: int, rng: random.Random) -> list[dict]:
    return [{"id": f"f{i}", "sentences": rng.sample(pool, 5)} for i in range(n)]


def _foreign_endings(pool: list[str], n: int, rng: random.Random) -> list[dict]:
    return [dict(zip(("id", "right_ending", "wrong_ending"), (f"f{i}", *rng.sample(pool, 2)))) for i in range(n)]


def _punctuated(row: dict) -> dict:
    if "right_ending" in row:
        return {
            **row,
            "right_ending": _punctuation_only(row["right_ending"]),
            "wrong_ending": _punctuation_only(row["wrong_ending"]),
        }
    return {"id": row["id"], "sentences": [_punctuation_only(s) for s in _fields_of(row)]}


def _planted_texts(side: str, n: int, rng: random.Random) -> list[Planted]:
    """Whole texts for `read`: none of them may become a zh or en story."""
    zh = rng.sample(_side_texts(side, "zh"), n)
    en = rng.sample(_side_texts(side, "en"), n)
    from lotdata.text import split_sentences

    def interleave(text: str, pool: list[str]) -> str:
        sentences = split_sentences(text, "zh")
        return "".join(s + (rng.choice(pool) if k % 2 == 0 else "") for k, s in enumerate(sentences))

    ru, ja = foreign("ru", side), foreign("ja", side)
    return [
        Planted("read: punctuation only", side, "", texts=[_punctuation_only(t) for t in zh[: n // 2] + en[: n // 2]]),
        Planted("read: Chinese mixed with Russian", side, "", texts=[interleave(t, ru) for t in zh]),
        Planted("read: Russian story", side, "", texts=[" ".join(rng.sample(ru, 5)) for _ in range(n)]),
        Planted("read: Japanese story", side, "", texts=["".join(rng.sample(ja, 5)) for _ in range(n)]),
        Planted("read: French story", side, "", texts=[" ".join(rng.sample(foreign("fr", side), 5)) for _ in range(n)]),
    ]
