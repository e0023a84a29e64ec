"""Licences: the terms of the corpora lotdata knows by name, and what a dataset card says of a licence string.

`read` stores a licence with every story: the one `--license` gives, else the terms of a known corpus recognised by
its source name (the format's corpus: `cmrc2017`, `cft`, `rocstories`, `storycloze`; or `--source c3`, `lot`). A
licence string that names a known corpus or an SPDX-like licence (`CC BY-SA 4.0`, `cc-by-sa-4.0`) is recognised by
`terms_of`; any other string is kept as given, with the Hugging Face tag `other`. Nothing here is a legal opinion:
each entry repeats what the corpus's own release says (the SOURCE.md of each folder of `../shared/data`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Terms:
    """A licence as a card states it: `name` (what lotdata stores), the Hugging Face `tag`, a `url` where the terms
    are (None when the corpus publishes none), and one line saying what they allow."""

    name: str
    tag: str
    url: str | None
    note: str


CC_BY_SA_4 = Terms(
    "CC-BY-SA-4.0",
    "cc-by-sa-4.0",
    "https://creativecommons.org/licenses/by-sa/4.0/",
    "Creative Commons Attribution-ShareAlike 4.0: share and adapt with attribution, under the same licence",
)
C3_TERMS = Terms(
    "C3 non-commercial research",
    "other",
    "https://github.com/nlpdata/c3",
    "C3's license.txt: intended for non-commercial research purpose only",
)
STORYCLOZE_TERMS = Terms(
    "Story Cloze / ROCStories terms",
    "other",
    "https://cs.rochester.edu/nlp/rocstories/",
    "no open data licence stated: the ROCStories corpus and the Story Cloze Test are distributed by the University "
    "of Rochester on request, under the terms of that request",
)
LOT_TERMS = Terms(
    "LOT terms",
    "other",
    "https://github.com/thu-coai/LOT-LongLM",
    "no licence stated for the LOT data: research use, cite Guan et al. (TACL 2022)",
)

#: corpora recognised by their source name (a format's corpus name, or `--source`) or a licence string naming them
KNOWN_CORPORA: dict[str, Terms] = {
    "cmrc2017": CC_BY_SA_4,
    "cmrc": CC_BY_SA_4,
    "cft": CC_BY_SA_4,
    "c3": C3_TERMS,
    "rocstories": STORYCLOZE_TERMS,
    "storycloze": STORYCLOZE_TERMS,
    "story cloze": STORYCLOZE_TERMS,
    "lot": LOT_TERMS,
}

#: licence strings recognised by their SPDX-like name (lower case, spaces and underscores as dashes)
_OPEN = {
    "cc-by-sa-4.0": CC_BY_SA_4,
    "cc-by-4.0": Terms("CC-BY-4.0", "cc-by-4.0", "https://creativecommons.org/licenses/by/4.0/", "Attribution 4.0"),
    "cc-by-nc-4.0": Terms(
        "CC-BY-NC-4.0", "cc-by-nc-4.0", "https://creativecommons.org/licenses/by-nc/4.0/", "Attribution, non-commercial"
    ),
    "cc-by-nc-sa-4.0": Terms(
        "CC-BY-NC-SA-4.0",
        "cc-by-nc-sa-4.0",
        "https://creativecommons.org/licenses/by-nc-sa/4.0/",
        "Attribution, non-commercial, share-alike",
    ),
    "cc-by-nd-4.0": Terms(
        "CC-BY-ND-4.0", "cc-by-nd-4.0", "https://creativecommons.org/licenses/by-nd/4.0/", "Attribution, no derivatives"
    ),
    "cc0-1.0": Terms("CC0-1.0", "cc0-1.0", "https://creativecommons.org/publicdomain/zero/1.0/", "public domain"),
    "cc0": Terms("CC0-1.0", "cc0-1.0", "https://creativecommons.org/publicdomain/zero/1.0/", "public domain"),
    "apache-2.0": Terms("Apache-2.0", "apache-2.0", "https://www.apache.org/licenses/LICENSE-2.0", "Apache 2.0"),
    "mit": Terms("MIT", "mit", "https://opensource.org/license/mit", "MIT"),
}


def _key(text: str) -> str:
    return re.sub(r"[\s_]+", "-", text.strip().lower())


def corpus_terms(source: str | None) -> Terms | None:
    """The terms of a corpus lotdata knows by its source name (`cmrc2017`, `cft`, `c3`, `rocstories`, ...)."""
    return KNOWN_CORPORA.get((source or "").strip().lower()) if source else None


def corpus_license(source: str | None) -> str | None:
    """The licence `read` stores for a known corpus read without `--license` (None for any other source)."""
    terms = corpus_terms(source)
    return terms.name if terms else None


def terms_of(license: str | None) -> Terms | None:
    """What a stored licence string means: a known corpus's terms, an open licence, or (any other string) the
    string itself with the tag `other`; None for no licence."""
    if not license or not license.strip():
        return None
    text = license.strip()
    for terms in {*KNOWN_CORPORA.values(), *_OPEN.values()}:
        if text == terms.name:
            return terms
    return (
        _OPEN.get(_key(text))
        or corpus_terms(text)
        or Terms(text, "other", None, "as stated by the source (lotdata does not know these terms)")
    )


def license_tag(licenses: list[str]) -> str:
    """The card's `license:` tag: the one tag all licences share, `other` for a mix or an unknown string,
    `unknown` when no source recorded one."""
    tags = {t.tag for t in (terms_of(lic) for lic in licenses) if t is not None}
    if not tags:
        return "unknown"
    return tags.pop() if len(tags) == 1 else "other"
