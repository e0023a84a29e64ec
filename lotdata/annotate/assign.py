"""Which rater gets which task when a job's tasks come in cases of several versions (cloze_verify: one story with the
right sentence, one with the wrong one) that a rater must judge apart, as the Story Cloze Test's verification did.

With at least (versions x raters per task) raters, no rater gets two versions of one case; with fewer, a rater gets as
few as can be and their versions stand as far apart as the list allows: the first versions of those cases open the
rater's list, the second ones close it, everything else in between. Every draw is seeded, loads are balanced, and an
assignment is only ever extended (a push adds tasks, never moves one already given).
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from typing import Iterable, Mapping, Sequence

#: (task token, case id or None): a task with no case (a gold task) goes to every rater
Versioned = tuple[str, "str | None"]


def _rank(*parts: object) -> str:
    return hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()


def extend_assignment(
    current: dict[str, list[str]],
    tasks: Sequence[Versioned],
    raters: Sequence[str],
    per_task: int,
    seed: str,
    avoid: Mapping[str, str] | None = None,
) -> dict[str, list[str]]:
    """`current` (rater -> tokens in the order they see them) with the `tasks` not given yet added to it. `avoid`:
    token -> the rater who must not get it (a review task's writer); a task only they could take is given to nobody,
    and one that fewer raters than asked could take goes to those: each is topped up at a later push (a rater added
    since), never given to its writer."""
    avoid = avoid or {}
    raters = sorted(raters)
    new, holders = _to_give(current, tasks, max(1, min(per_task, len(raters))), avoid)
    out = {rater: list(current.get(rater, [])) for rater in raters}
    out.update({rater: list(tokens) for rater, tokens in current.items() if rater not in out})
    if not new or not raters:
        return out
    load = Counter({rater: len(out[rater]) for rater in raters})
    per_task = max(1, min(per_task, len(raters)))
    cases: dict[str, list[str]] = defaultdict(list)
    received: dict[str, list[str]] = defaultdict(list)  # rater -> new tokens
    for token, case in new:
        if case is None:
            for rater in raters:
                received[rater].append(token)
        else:
            cases[case].append(token)
    of_case: dict[str, list[str]] = defaultdict(list)  # every task of a case, given or not
    for token, case in tasks:
        if case in cases:
            of_case[case].append(token)
    case_order = sorted(cases, key=lambda case: _rank(seed, "case", case))
    by_case: dict[str, dict[str, list[str]]] = {}
    for case in case_order:
        versions = sorted(cases[case], key=lambda token: _rank(seed, "version", token))
        prior = {r: [t for t in of_case[case] if r in holders[t]] for r in raters}
        by_case[case] = _give_versions(case, versions, raters, per_task, load, seed, avoid, prior)
        for rater, tokens in by_case[case].items():
            received[rater].extend(tokens)
    for rater, tokens in received.items():
        out[rater].extend(_spaced(tokens, {c: by_case[c].get(rater, []) for c in case_order}, case_order))
    return out


def _to_give(
    current: Mapping[str, list[str]], tasks: Sequence[Versioned], wanted: int, avoid: Mapping[str, str]
) -> tuple[list[Versioned], dict[str, set[str]]]:
    """The tasks to give now: those nobody holds, and those short of `wanted` raters because their writer could not
    take them (topped up when the team has grown); and who holds each task already."""
    holders: dict[str, set[str]] = defaultdict(set)
    for rater, tokens in current.items():
        for token in tokens:
            holders[token].add(rater)
    new = [
        (token, case)
        for token, case in tasks
        if not holders[token] or (token in avoid and case is not None and len(holders[token]) < wanted)
    ]
    return new, holders


def _give_versions(
    case: str,
    versions: list[str],
    raters: list[str],
    per_task: int,
    load: Counter,
    seed: str,
    avoid: Mapping[str, str],
    prior: Mapping[str, list[str]],
) -> dict[str, list[str]]:
    """rater -> the versions of `case` they get: each version to `per_task` raters (less those who hold it already:
    `prior`, rater -> the case's versions given before), never to the rater `avoid` names for it, preferring a rater
    without another version of this case, then the least loaded, then a seeded draw."""
    holds: dict[str, list[str]] = defaultdict(list, {r: list(v) for r, v in prior.items() if v})
    given: dict[str, list[str]] = defaultdict(list)
    for version in versions:
        had = {r for r, held in holds.items() if version in held}
        allowed = [r for r in raters if r != avoid.get(version) and r not in had]
        order = sorted(allowed, key=lambda r: (len(holds[r]), load[r], _rank(seed, case, version, r)))
        for rater in order[: per_task - len(had)]:
            holds[rater].append(version)
            given[rater].append(version)
            load[rater] += 1
    return dict(given)


def _spaced(tokens: list[str], per_case: dict[str, list[str]], case_order: list[str]) -> list[str]:
    """One rater's new tokens in order: for each case they hold twice or more, its first version at the start and the
    others at the end (the same case order), every other task in between."""
    doubled = [case for case in case_order if len(per_case.get(case, [])) > 1]
    openers = [per_case[case][0] for case in doubled]
    closers = [token for case in doubled for token in per_case[case][1:]]
    placed = set(openers) | set(closers)
    return (
        openers + sorted(t for t in tokens if t not in placed) + closers
    )  # tokens are salted hashes: sorted is shuffled


def raters_with_two_versions(assignment: dict[str, list[str]], case_of: dict[str, str | None]) -> list[str]:
    """The raters given two versions of some case."""
    return sorted(rater for rater, tokens in assignment.items() if _doubled(tokens, case_of))


def _doubled(tokens: Iterable[str], case_of: dict[str, str | None]) -> bool:
    seen = Counter(case_of.get(t) for t in tokens)
    return any(n > 1 for case, n in seen.items() if case is not None)
