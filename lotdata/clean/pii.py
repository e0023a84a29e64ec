"""Personal information in a story (the `pii` clean rule): phone numbers, Chinese resident ID numbers, e-mail
addresses, QQ and WeChat ids, street addresses. Each kind is masked with a typed placeholder (``[PHONE]``) or sends
the story to the quarantine, as `lotdata clean --pii` says per kind.

What decides, kind by kind (measured in bench/pii.md, explained in docs/how-to/personal-information.md):

* **phone**: a run of digits shaped like a Chinese mobile (1[3-9]…, 11 digits), a Chinese landline (0 + area code +
  7-8 digits), an international number (+country code) or a North American one ((212) 555-0123), then validated by
  Google's libphonenumber (the ``phonenumbers`` package: the number plan of every country) — never by a digit count
  alone. A number followed by a unit (元, 万, 年, 人, km, dollars …) is a sum or a count, not a phone;
* **id**: 18 characters (17 digits and a digit or X) whose region code, date of birth and ISO 7064 MOD 11-2 check
  character hold (GB 11643-1999); a random 18-digit number passes the checksum once in eleven, the date and region
  leave about one in 400;
* **email**: the `email` strip rule's pattern (which removes addresses first; what it leaves, once normalisation
  has made a full-width ＠ an @, is found here);
* **qq** / **wechat**: only in context, a QQ number (5-12 digits) after "QQ", "扣扣", "Q号"; a WeChat id (a letter,
  then 5-19 letters, digits, _ or -, or a phone number) after "微信", "微信号", "vx", "WeChat". A bare number is never
  taken for a QQ id;
* **address**: Chinese, a road, street, lane or alley name then a house number and 号 ("中山路128号", "幸福里3弄
  5号"), with the province, city, district before it and the building, unit and room after it; English, a house
  number, one to three capitalised words and a street type ("221 Baker Street"). A heuristic: no kept library finds
  a Chinese address inside running text (pyap and usaddress parse English addresses only, and pyap needs a whole
  address with city and state).

The values that remain are a story's own numbers: ages, years, dates, sums, counts, page and room numbers without
a street. Those must survive, and bench/pii.md counts the stories of real corpora the rule changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from lotdata.clean.rules import EMAIL

#: the kinds of personal information, in the order they are looked for (a span found by an earlier kind is not
#: looked at again), and the placeholder each is masked with
KINDS = ("email", "id", "phone", "qq", "wechat", "address")
PLACEHOLDERS = {
    "email": "[EMAIL]",
    "id": "[ID]",
    "phone": "[PHONE]",
    "qq": "[QQ]",
    "wechat": "[WECHAT]",
    "address": "[ADDRESS]",
}
#: what the rule does with a kind: mask it in the text, quarantine the story, or nothing
ACTIONS = ("mask", "quarantine", "off")
DEFAULT_PII = "mask"

# --------------------------------------------------------------------------------------------
# the patterns (compiled once)

_NOT_DIGIT_BEFORE = r"(?<![\d.,])"
_NOT_DIGIT_AFTER = r"(?![\d])"
#: a unit after a number makes it a sum, a count, a year or a measure ("15000000000元", "13800000000人")
_UNIT_AFTER = re.compile(
    r"\s?(?:[元块角分万亿千百岁年月日号人个只次米里斤克吨天倍位名件头条张本%％]|"
    r"(?:dollars?|yuan|years?|people|km|kg|miles?|meters?|times)\b)",
    re.I,
)
_PHONE = re.compile(
    _NOT_DIGIT_BEFORE
    + r"(?:"
    + r"(?:\+|00)\d{1,3}[\s\-.]?(?:\(\d{1,4}\)[\s\-.]?)?\d{1,4}(?:[\s\-.]?\d{2,4}){1,4}"  # international
    + r"|(?:\(?0\d{2,3}\)?[\s\-]?)\d{3,4}[\s\-]?\d{4}"  # Chinese landline with its area code
    + r"|1[3-9]\d[\s\-]?\d{4}[\s\-]?\d{4}"  # Chinese mobile
    + r"|\(\d{3}\)\s?\d{3}[\s\-.]\d{4}|\d{3}[\-.]\d{3}[\-.]\d{4}"  # North American
    + r")"
    + _NOT_DIGIT_AFTER
)
_ID = re.compile(r"(?<![\dA-Za-z])[1-8]\d{5}(?:18|19|20)\d{2}[01]\d[0-3]\d\d{3}[\dXx](?![\dA-Za-z])")
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"
_QQ = re.compile(r"(?:QQ|qq|Qq|扣扣|Q号|企鹅号)\s*(?:号码|号)?\s*(?:[:：是为]|\s)?\s*(?P<v>[1-9]\d{4,11})(?!\d)")
_WECHAT = re.compile(
    r"(?:微信|(?<![A-Za-z])(?:weixin|WeChat|wechat|Wechat|WECHAT|VX|vx|Vx|v信|V信|wx|WX))\s*(?:号码|号|ID|id)?\s*"
    r"(?P<sep>[:：是为]?)\s*(?P<v>[A-Za-z][A-Za-z0-9_\-]{5,19}|1[3-9]\d{9})(?![A-Za-z0-9_\-])"
)
#: a WeChat id after no colon (微信abc_123, WeChat fox2020) holds a digit, _ or -: "WeChat account" is no id
_ID_LIKE = re.compile(r"[\d_\-]")
_HAN = "\u4e00-\u9fff"
#: characters a Chinese place name does not hold (function words, verbs of going and living)
_NOT_NAME = "的了在是住到从往向与着去回过把被给对说我你他她它们这那就也又还很走搬进寄"
_NAME = f"(?:(?![{_NOT_NAME}])[{_HAN}])"
_NUM = r"(?:\d{1,5}|[一二三四五六七八九十百零]{1,5})"
_ADDRESS_ZH = re.compile(
    rf"(?:{_NAME}{{2,7}}(?:省|自治区))?(?:{_NAME}{{2,7}}市)?(?:{_NAME}{{1,7}}(?:区|县|镇))?"
    rf"{_NAME}{{1,6}}(?:路|街|大街|大道|巷|弄|胡同|里)(?:{_NUM}(?:巷|弄|支路|号院))?{_NUM}号"
    rf"(?:(?:院)?{_NUM}(?:号楼|栋|幢|座|单元|楼|层|室|号))*"
)
_ADDRESS_EN = re.compile(
    r"\b\d{1,5}[A-Za-z]?\s+(?:(?:[NSEW]\.?|North|South|East|West)\s+)?(?:[A-Z][a-z]+\s+){1,3}"
    r"(?:Street|St\.?|Avenue|Ave\.?|Road|Rd\.?|Boulevard|Blvd\.?|Lane|Ln\.?|Drive|Dr\.?|Court|Ct\.?|"
    r"Place|Pl\.?|Way|Terrace|Parkway|Pkwy\.?|Highway|Hwy\.?|Circle|Square|Sq\.?)"
    r"(?:,?\s+(?:Apt\.?|Apartment|Suite|Unit|#)\s*\d+[A-Za-z]?)?(?![A-Za-z])"
)
#: a story with none of these characters holds no personal information the rule finds: the one cheap test that
#: lets most stories through without running the patterns above
_MAYBE = re.compile(r"\d|@|号|微信|[Ww]e[Cc]hat|weixin|[vV]信|vx|VX|wx|WX")


@dataclass(frozen=True)
class Found:
    kind: str
    start: int
    end: int


def id_number_valid(value: str) -> bool:
    """A Chinese resident ID number (GB 11643-1999): 17 digits (region, birth date, sequence) and a check
    character that the ISO 7064 MOD 11-2 sum of the 17 digits gives."""
    if len(value) != 18 or not value[:17].isdigit():
        return False
    try:
        born = date(int(value[6:10]), int(value[10:12]), int(value[12:14]))
    except ValueError:
        return False
    if not date(1900, 1, 1) <= born <= date(2100, 1, 1):
        return False
    total = sum(int(d) * w for d, w in zip(value[:17], _ID_WEIGHTS))
    return _ID_CHECK[total % 11] == value[17].upper()


@lru_cache(maxsize=1)
def _phonenumbers():
    from lotdata.errors import require

    return require("phonenumbers", "sources")


def phone_valid(value: str, lang: str = "zh") -> bool:
    """Whether libphonenumber takes `value` for a valid number (a Chinese one by default for Chinese text, a US one
    for English text, any country's with a +country code)."""
    pn = _phonenumbers()
    region = "CN" if lang == "zh" else "US"
    try:
        number = pn.parse(value.replace("(", " ").replace(")", " ") if value.startswith("(0") else value, region)
    except pn.NumberParseException:
        return False
    return pn.is_valid_number(number)


def _phones(text: str, lang: str) -> list[tuple[int, int]]:
    spans = []
    for m in _PHONE.finditer(text):
        value = m.group(0)
        if _UNIT_AFTER.match(text, m.end()) or re.search(r"(\d)\1{5}", re.sub(r"\D", "", value)):
            continue  # a sum, a count or a measure; six equal digits in a row: a round figure, not a phone
        if phone_valid(value.strip(), lang):
            spans.append((m.start(), m.end()))
    return spans


def _emails(text: str, lang: str) -> list[tuple[int, int]]:
    return [m.span() for m in EMAIL.finditer(text)] if "@" in text else []


def _ids(text: str, lang: str) -> list[tuple[int, int]]:
    return [m.span() for m in _ID.finditer(text) if id_number_valid(m.group(0))]


def _qqs(text: str, lang: str) -> list[tuple[int, int]]:
    return [m.span("v") for m in _QQ.finditer(text)]


def _wechats(text: str, lang: str) -> list[tuple[int, int]]:
    return [m.span("v") for m in _WECHAT.finditer(text) if m.group("sep") or _ID_LIKE.search(m.group("v"))]


def _addresses(text: str, lang: str) -> list[tuple[int, int]]:
    spans = [m.span() for m in _ADDRESS_ZH.finditer(text)] if lang == "zh" and "号" in text else []
    return spans + [m.span() for m in _ADDRESS_EN.finditer(text)]  # an English one in a Chinese story too


#: kind -> its finder (text, lang) -> spans, in the order of KINDS
_FINDERS = {"email": _emails, "id": _ids, "phone": _phones, "qq": _qqs, "wechat": _wechats, "address": _addresses}


def find_pii(text: str, lang: str = "zh", kinds: tuple[str, ...] = KINDS) -> list[Found]:
    """The personal information in `text`, by kind, as spans that do not overlap (in text order; where two kinds
    claim one span, the kind earlier in KINDS keeps it)."""
    if not _MAYBE.search(text):
        return []
    taken: list[Found] = []
    for kind in KINDS:
        if kind in kinds:
            for start, end in _FINDERS[kind](text, lang):
                if all(end <= f.start or start >= f.end for f in taken):
                    taken.append(Found(kind, start, end))
    return sorted(taken, key=lambda f: f.start)


@dataclass(frozen=True)
class PiiOutcome:
    text: str  # the text with every masked kind replaced by its placeholder
    counts: dict[str, int]  # kind -> values found (masked or not)
    quarantine: tuple[str, ...]  # the kinds found whose action is quarantine


def parse_pii_actions(spec: str) -> dict[str, str]:
    """`--pii` in words -> kind -> action (:func:`pii_actions`; parsed once per spec)."""
    return dict(_parse(spec))


@lru_cache(maxsize=16)
def _parse(spec: str) -> tuple[tuple[str, str], ...]:
    """`--pii` in words -> kind -> action. ``mask`` (every kind masked), ``off``, ``quarantine``, or
    ``phone=mask,id=quarantine,...`` (one action for everything, then per kind; kinds left out keep the first
    word's action, or mask). ValueError naming the kinds and actions for anything else."""
    actions = dict.fromkeys(KINDS, DEFAULT_PII)
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        kind, _, action = part.rpartition("=")
        if action not in ACTIONS:
            raise ValueError(f"pii: action {action!r} is not one of {', '.join(ACTIONS)} (in {spec!r})")
        if not kind:
            actions = dict.fromkeys(KINDS, action)
        elif kind in actions:
            actions[kind] = action
        else:
            raise ValueError(f"pii: kind {kind!r} is not one of {', '.join(KINDS)} (in {spec!r})")
    return tuple(actions.items())


def apply_pii(text: str, lang: str, actions: dict[str, str]) -> PiiOutcome:
    """Find the personal information of the kinds `actions` does not turn off; mask those whose action is mask,
    name those whose action is quarantine."""
    kinds = tuple(k for k in KINDS if actions.get(k, "off") != "off")
    found = find_pii(text, lang, kinds) if kinds else []
    if not found:
        return PiiOutcome(text, {}, ())
    counts: dict[str, int] = {}
    pieces, last = [], 0
    for f in found:
        counts[f.kind] = counts.get(f.kind, 0) + 1
        if actions[f.kind] == "mask":
            pieces += [text[last : f.start], PLACEHOLDERS[f.kind]]
            last = f.end
    pieces.append(text[last:])
    quarantine = tuple(k for k in counts if actions[k] == "quarantine")
    return PiiOutcome("".join(pieces), counts, quarantine)
