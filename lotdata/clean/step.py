"""`lotdata clean`: normalise and strip noise, flag what annotators judge, reject by rule, remove
exact and near-duplicates across sources, and write the kept stories, a quarantine table (the
story, the rule, the evidence) and a summary per source and rule.

The rules are the records of the clean-rule registry (`lotdata.clean.rules.clean_rules()`: name, action and
when), in the order they apply: noise stripped from the text (a ``stripped_*`` flag on the story), then the
first rejection wins (length, lexicon; a rejected story is not compared for duplicates), then exact and near
duplicates; flags never remove a story.

The best copy of a duplicate group has the fewest judgement flags, then the longest text, then
the smallest (source, url, story_id): the choice never depends on row order.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from lotdata.clean.dedup import DedupParams, NearDuplicates, find_near_duplicates
from lotdata.clean.pii import DEFAULT_PII, PiiOutcome, apply_pii, parse_pii_actions
from lotdata.clean.rules import (
    JUDGEMENT_FLAGS,
    dialogue_share,
    glued_title,
    is_classical,
    narrative_score,
    strip_noise,
    to_simplified,
)
from lotdata.errors import InputError, must_exist
from lotdata.sources.story import story_id_for
from lotdata.text import normalize_text, split_sentences
from lotdata.text.langid import language_problem

DEFAULT_LEXICON = Path(__file__).resolve().parents[1] / "data" / "clean_lexicon_zh.txt"
EVIDENCE_LIMIT = 300
#: the optional modules a clean needs (MinHash signatures, traditional -> simplified Chinese), checked first
CLEAN_NEEDS = (("rensa", "sources"), ("opencc", "sources"), ("phonenumbers", "sources"))


@dataclass(frozen=True)
class CleanParams:
    t2s: bool = False  # traditional -> simplified with OpenCC
    min_chars: int = 50
    max_chars: int = 20_000
    short_chars: int = 100
    long_chars: int = 1_500  # LOT's paragraphs stay under 500 words (about 800-1000 characters)
    dialogue_share: float = 0.3
    non_narrative_below: float = -1.0  # tuned on 29 hand-labelled C3 dev documents (bench/sources.md)
    lexicon: tuple[str, ...] = ()
    dedup: DedupParams = field(default_factory=DedupParams)
    pii: str = DEFAULT_PII  # per kind: mask, quarantine or off (lotdata.clean.pii.parse_pii_actions)
    language_check: bool = True  # reject a story whose cleaned text is not in its `lang` or mixes scripts


def load_lexicon(path: str | Path | None = None) -> tuple[str, ...]:
    """Terms of a lexicon file (one a line, # comments); the shipped default when `path` is None."""
    path = must_exist(path if path else DEFAULT_LEXICON, "lexicon file")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text, not a lexicon (byte {exc.start}: {exc.reason})", path=str(path)) from exc
    return tuple(t.strip() for t in lines if t.strip() and not t.lstrip().startswith("#"))


@dataclass
class CleanResult:
    kept: list[dict[str, Any]]
    quarantine: list[dict[str, Any]]
    summary: list[dict[str, Any]]
    counts: dict[str, Any]


def clean_story(
    row: Mapping[str, Any], params: CleanParams, pii_counts: Counter | None = None
) -> tuple[dict[str, Any], str | None, str | None]:
    """Clean one story: (new row, rejecting rule or None, evidence). `pii_counts` (when given) gains, per kind of
    personal information found, ``(kind, "values")`` and ``(kind, "stories")``."""
    lang = row.get("lang") or "zh"
    text = row["text"] or ""
    if len(text) > 4 * params.max_chars:  # no cleaning shrinks a text that much: skip the work
        return dict(row), "length_max", f"{len(text)} characters > {params.max_chars} (before cleaning)"
    title = row.get("title")
    if params.t2s and lang == "zh":
        text, title = to_simplified(text), (to_simplified(title) if title else title)
    stripped = strip_noise(text, lang)
    text = normalize_text(stripped.text, lang)
    pii = apply_pii(text, lang, parse_pii_actions(params.pii))
    if pii.counts:
        text = pii.text
        stripped.note("pii", [kind for kind in pii.counts if kind not in pii.quarantine])
        _count_pii(pii_counts, pii.counts)
    flags = [
        f
        for f in row.get("flags") or []
        if not f.startswith("stripped_") and f not in JUDGEMENT_FLAGS and f not in ("has_dialogue", "fixed_punct")
    ]
    flags += [f"stripped_{rule}" if rule != "repeated_punct" else "fixed_punct" for rule in stripped.removed]
    sentences = stripped.split[1] if stripped.split and stripped.split[0] == text else _split(text, lang)
    new = {
        **row,
        "text": text,
        "title": title,
        "sentences": sentences,
        # paragraph breaks index the sentences: they hold while cleaning left the sentences as they were
        "paragraph_breaks": row.get("paragraph_breaks") if sentences == list(row.get("sentences") or []) else None,
        "story_id": story_id_for(text),
        "cluster_id": None,
        # an annotator's verdict (accepted, rejected, rewritten) outlives a re-clean
        "status": "clean" if row.get("status") in (None, "raw", "clean") else row["status"],
    }
    new["flags"] = flags + story_flags(text, title, lang, params)
    return (new, *rejection(text, lang, params, pii))


def rejection(text: str, lang: str, params: CleanParams, pii: PiiOutcome) -> tuple[str | None, str | None]:
    """The first rule that rejects the cleaned `text` and its evidence, in the clean-rule registry's order:
    length, lexicon, language, personal information to quarantine; (None, None) when none does."""
    n = len(text)
    if n < params.min_chars:
        return "length_min", f"{n} characters < {params.min_chars}"
    if n > params.max_chars:
        return "length_max", f"{n} characters > {params.max_chars}"
    hits = [term for term in params.lexicon if term in text]
    if hits:
        return "lexicon", "、".join(hits)
    problem = language_problem(text, lang) if params.language_check else None
    if problem:  # lotdata.text.langid: the one identifier read, clean and the check rules share
        return "language", problem
    if pii.quarantine:  # the kinds and how many, never the values
        return "pii_quarantine", ", ".join(f"{kind} {pii.counts[kind]}" for kind in pii.quarantine)
    return None, None


def _split(text: str, lang: str) -> list[str]:
    return split_sentences(text, lang) if text else []


def story_flags(text: str, title: str | None, lang: str, params: CleanParams) -> list[str]:
    """The flags annotators judge (none removes a story), in the order of the clean-rule registry."""
    n = len(text)
    flags = []
    share = dialogue_share(text)
    if share > 0:
        flags.append("has_dialogue")
    if share >= params.dialogue_share:
        flags.append("dialogue_heavy")
    if lang == "zh" and is_classical(text):
        flags.append("classical")
    if lang == "zh" and n and narrative_score(text) < params.non_narrative_below:
        flags.append("non_narrative")
    if n < params.short_chars:
        flags.append("too_short")
    if n > params.long_chars:
        flags.append("too_long")
    if lang == "zh" and text and glued_title(text, title):
        flags.append("title_glued")
    return flags


def _count_pii(counts: Counter | None, found: Mapping[str, int]) -> None:
    if counts is not None:
        for kind, values in found.items():
            counts[(kind, "values")] += values
            counts[(kind, "stories")] += 1


def pii_stats(counts: Counter, params: CleanParams) -> dict[str, Any]:
    """What the manifest says of the `pii` rule: the action per kind, values and stories found per kind."""
    actions = parse_pii_actions(params.pii)
    return {
        "actions": actions,
        "found": {
            kind: {"values": counts[(kind, "values")], "stories": counts[(kind, "stories")]}
            for kind in actions
            if counts[(kind, "stories")]
        },
    }


def count_story(summary: Counter, source: str, flags: Sequence[str], rule: str | None) -> None:
    """Add one cleaned story to the (source, rule, action) counts of the summary table."""
    for flag in flags:
        action = "stripped" if flag.startswith("stripped_") or flag == "fixed_punct" else "flagged"
        summary[(source, flag.removeprefix("stripped_"), action)] += 1
    if rule:
        summary[(source, rule, "removed")] += 1


def summary_rows(summary: Counter) -> list[dict[str, Any]]:
    return [{"source": s, "rule": r, "action": a, "stories": c} for (s, r, a), c in sorted(summary.items())]


def rank_key(
    flags: Sequence[str], length: int, source: str | None, url: str | None, story_id: str, titled: bool = False
) -> tuple:
    """The order of copies: fewest judgement flags, a separate title, longest text, smallest (source, url, story_id).

    A separate title comes before length: a copy whose title was glued into its first sentence is longer by the
    title, and used to win (CFT: 283 times), so glued titles reached the outputs ("鹿和狮子清澈...")."""
    return (
        sum(1 for f in flags if f in JUDGEMENT_FLAGS),
        0 if titled else 1,
        -length,
        source or "",
        url or "",
        story_id,
    )


def where(story_id: str, source: str | None, url: str | None) -> str:
    """How the evidence of a duplicate names the copy that stays."""
    return f"{story_id} ({source}, {url})"


@dataclass
class StoryKeys:
    """Per story (by position), what deduplication ranks and names copies by."""

    ids: Sequence[str]
    flags: Sequence[Sequence[str]]
    lengths: Sequence[int]
    sources: Sequence[str | None]
    urls: Sequence[str | None]
    titled: Sequence[bool]  # has a separate title

    def rank(self, g: int) -> tuple:
        return rank_key(self.flags[g], self.lengths[g], self.sources[g], self.urls[g], self.ids[g], self.titled[g])

    def where(self, g: int) -> str:
        return where(self.ids[g], self.sources[g], self.urls[g])


@dataclass
class Deduplicated:
    kept: list[int]  # positions of the kept stories, in output order
    cluster_ids: list[str | None]  # of each kept story
    rejected: list[tuple[int, str, str]]  # (position, rule, evidence) of each copy removed
    clusters: int


NearFinder = Callable[[list[int], Callable[[int], tuple]], NearDuplicates]


def deduplicate(keys: StoryKeys, candidates: Iterable[int], find_near: NearFinder, summary: Counter) -> Deduplicated:
    """Exact then near duplicates among the `candidates` (positions no rule rejected), counted in `summary`.

    Exact copies (same story_id) keep their best copy; the unique stories, in rank order (never in row
    order), go to `find_near(unique, rank_of_index)`, which finds near duplicates among them (in memory,
    or sharded on the executor); a copy is rejected against its better copy, kept stories of one cluster
    get its root's story_id as `cluster_id`."""
    by_id: dict[str, list[int]] = {}
    for g in candidates:
        by_id.setdefault(keys.ids[g], []).append(g)
    unique: list[int] = []
    rejected: list[tuple[int, str, str]] = []
    for copies in by_id.values():
        copies.sort(key=keys.rank)
        unique.append(copies[0])
        for dup in copies[1:]:
            rejected.append((dup, "exact_duplicate", f"same text as {keys.where(copies[0])}"))
            summary[(keys.sources[dup] or "", "exact_duplicate", "removed")] += 1
    unique.sort(key=keys.rank)
    near = find_near(unique, lambda i: keys.rank(unique[i]))
    cluster_sizes = Counter(near.cluster_of[i] for i in range(len(unique)) if near.duplicate_of[i] is None)
    kept: list[int] = []
    cluster_ids: list[str | None] = []
    for i, g in enumerate(unique):
        better = near.duplicate_of[i]
        if better is not None:
            rejected.append((g, "near_duplicate", f"jaccard {near.similarity[i]} with {keys.where(unique[better])}"))
            summary[(keys.sources[g] or "", "near_duplicate", "removed")] += 1
            continue
        root = near.cluster_of[i]
        cluster_ids.append(keys.ids[unique[root]] if cluster_sizes[root] > 1 else None)
        if cluster_sizes[root] > 1:
            summary[(keys.sources[g] or "", "near_duplicate_cluster", "flagged")] += 1
        kept.append(g)
    return Deduplicated(kept, cluster_ids, rejected, sum(1 for size in cluster_sizes.values() if size > 1))


def clean_rows(rows: Iterable[Mapping[str, Any]], params: CleanParams = CleanParams()) -> CleanResult:
    """Clean stories rows (pure: no files); the same rules and deduplication as `clean_files`."""
    started = time.perf_counter()
    cleaned: list[dict[str, Any]] = []
    outcomes: list[tuple[str | None, str | None]] = []
    summary: Counter = Counter()
    pii: Counter = Counter()
    for row in rows:
        new, rule, evidence = clean_story(row, params, pii)
        count_story(summary, new.get("source") or "", new["flags"], rule)
        cleaned.append(new)
        outcomes.append((rule, evidence))
    keys = StoryKeys(
        [r["story_id"] for r in cleaned],
        [r["flags"] for r in cleaned],
        [len(r["text"]) for r in cleaned],
        [r.get("source") for r in cleaned],
        [r.get("url") for r in cleaned],
        [bool((r.get("title") or "").strip()) for r in cleaned],
    )

    def find_near(unique: list[int], rank: Callable[[int], tuple]) -> NearDuplicates:
        texts = [cleaned[g]["text"] for g in unique]
        return find_near_duplicates(texts, [cleaned[g]["lang"] for g in unique], rank, params.dedup)

    candidates = [g for g, (rule, _) in enumerate(outcomes) if rule is None]
    dedup = deduplicate(keys, candidates, find_near, summary)
    rejected = [(g, rule, evidence) for g, (rule, evidence) in enumerate(outcomes) if rule] + dedup.rejected
    quarantine = [
        {**cleaned[g], "status": "rejected", "rule": rule, "evidence": (evidence or "")[:EVIDENCE_LIMIT]}
        for g, rule, evidence in rejected
    ]
    kept = [{**cleaned[g], "cluster_id": cluster_id} for g, cluster_id in zip(dedup.kept, dedup.cluster_ids)]
    seconds = time.perf_counter() - started
    counts = {
        "stories_in": len(cleaned),
        "kept": len(kept),
        "removed": len(quarantine),
        "clusters": dedup.clusters,
        "seconds": round(seconds, 3),
        "stories_per_second": round(len(cleaned) / seconds, 1) if seconds else None,
        "pii": pii_stats(pii, params),
    }
    return CleanResult(kept, quarantine, summary_rows(summary), counts)
