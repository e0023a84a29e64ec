"""story_reorder's measures (ROCStories §3.3, Table 3), fed orderings built to give the paper's figures."""

from __future__ import annotations

import pytest

from lotdata.annotate.reorder import kendall_tau, longest_in_order, majority_ordering, seeded_order, table3

IDENTITY = (0, 1, 2, 3, 4)
# non-perfect orderings (ordering, how many): a solution of Table 3's counts (found with scipy's milp, kept here)
GOOD_WRONG = [
    ((0, 1, 2, 4, 3), 1),
    ((0, 3, 1, 2, 4), 6),  # one sentence moved
    ((0, 1, 4, 3, 2), 2),
    ((3, 1, 0, 2, 4), 2),
    ((3, 1, 2, 0, 4), 1),
]  # more
RANDOM_WRONG = [
    ((0, 1, 3, 2, 4), 4),
    ((0, 2, 1, 3, 4), 21),
    ((0, 4, 1, 2, 3), 8),
    ((1, 0, 2, 3, 4), 1),
    ((3, 0, 2, 1, 4), 5),
    ((3, 1, 2, 0, 4), 5),
]


def _stories(wrong: list[tuple[tuple[int, ...], int]], unordered_stories: int) -> dict[str, list[list[int]]]:
    """50 stories x 5 orderings: `unordered_stories` stories get 3 wrong orderings each, the rest at most 2."""
    pool = [list(o) for o, k in wrong for _ in range(k)]
    stories = {f"s{i:02d}": [] for i in range(50)}
    names = list(stories)
    for name in names[:unordered_stories]:
        stories[name] += [pool.pop() for _ in range(3)]
    k = unordered_stories
    while pool:
        name = names[k % 50]
        if len(stories[name]) < 2:
            stories[name].append(pool.pop())
        k += 1
    for found in stories.values():
        found += [list(IDENTITY)] * (5 - len(found))
    return stories


def test_table3_good_stories_exactly():
    report = table3(_stories(GOOD_WRONG, 0))
    assert report["stories"] == 50 and report["orderings"] == 250
    assert report["majority_perfect"] == 1.0
    assert report["each_perfect"] == 0.952
    assert report["at_most_one_misplaced"] == 0.98
    assert report["position_correct"] == {"1": 0.988, "2": 0.976, "3": 0.96, "4": 0.96, "5": 0.988}
    assert report["unorderable"] == []


def test_table3_random_stories_exactly():
    report = table3(_stories(RANDOM_WRONG, 7))
    assert report["majority_perfect"] == 0.86
    assert report["each_perfect"] == 0.824
    assert report["at_most_one_misplaced"] == 0.96
    assert report["position_correct"] == {"1": 0.956, "2": 0.86, "3": 0.868, "4": 0.912, "5": 0.968}
    assert len(report["unorderable"]) == 7


def test_kendall_tau_and_one_move():
    assert kendall_tau(IDENTITY) == pytest.approx(1.0)
    assert kendall_tau((4, 3, 2, 1, 0)) == pytest.approx(-1.0)
    assert kendall_tau((1, 0, 2, 3, 4)) == pytest.approx(0.8)
    assert longest_in_order((0, 3, 1, 2, 4)) == 4  # sentence 4 moved: one misplaced
    assert longest_in_order((1, 0, 3, 2, 4)) == 3  # two swaps: two misplaced
    assert majority_ordering([IDENTITY, IDENTITY, (1, 0, 2, 3, 4), (1, 0, 2, 3, 4)]) is None


def test_seeded_shuffle_is_stable_and_never_the_original():
    orders = [seeded_order(f"story{i}", 5, seed=3) for i in range(200)]
    assert orders == [seeded_order(f"story{i}", 5, seed=3) for i in range(200)]
    assert all(sorted(o) == list(IDENTITY) and tuple(o) != IDENTITY for o in orders)
    assert orders != [seeded_order(f"story{i}", 5, seed=4) for i in range(200)]


def test_with_a_team_each_story_goes_to_exactly_its_k_raters():
    """ROCStories 3.3: five workers reorder each story. A team of six pushes story_reorder with --raters 5: each
    story to five of them (every rater got every story before), loads balanced."""
    from collections import Counter

    from lotdata.annotate.assign import extend_assignment
    from lotdata.annotate.jobs import get_job

    job = get_job("story_reorder")
    stories = [
        {"story_id": f"st{i}", "sentences": [f"Sentence {k} of story {i}." for k in range(5)]} for i in range(12)
    ]
    tasks = job.to_tasks(stories, seed=0)
    versions = [(t["data"]["uid"], job.case_key(t["hidden"])) for t in tasks]
    given = extend_assignment({}, versions, ["a", "b", "c", "d", "e", "f"], 5, seed="s")
    per_story = Counter(token for tokens in given.values() for token in tokens)
    assert set(per_story.values()) == {5} and len(per_story) == 12
    assert max(map(len, given.values())) - min(map(len, given.values())) <= 1


def test_gated_sct_write_gives_each_story_to_one_writer():
    """With a quiz gate every ending writer has a project of their own: each story goes to one of them (every writer
    wrote endings for every story before, and the pull kept one case per story)."""
    from collections import Counter

    from lotdata.annotate.assign import extend_assignment
    from lotdata.annotate.jobs import get_job

    job = get_job("sct_write")
    stories = [
        {
            "story_id": f"st{i}",
            "sentences": [f"Sentence {k} of story {i}." for k in range(5)],
            "split": "test",
            "lang": "en",
        }
        for i in range(12)
    ]
    tasks = job.to_tasks(stories, seed=0)
    given = extend_assignment(
        {}, [(t["data"]["uid"], job.case_key(t["hidden"])) for t in tasks], ["a", "b", "c"], job.raters, seed="s"
    )
    assert Counter(token for tokens in given.values() for token in tokens) == Counter(
        {t["data"]["uid"]: 1 for t in tasks}
    )
    assert sorted(map(len, given.values())) == [4, 4, 4]
