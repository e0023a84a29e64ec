"""How often the Story Cloze `shared_character` check (`lotdata.annotate.checks.shared_character`: each ending
names a character of the first four sentences, ROCStories §4.2) fires on real, published Story Cloze cases, and
how often it catches a planted ending that names nobody of the story.

Sets, kept apart (the role lexicon and the inflection rules were chosen by reading flags of the tuning sets only):

- tuning: the Story Cloze Test spring 2016 val + test (both endings of 3,742 cases) and the 5,000 ROCStories
  (the fifth sentence as the ending);
- held out: the winter 2018 (v1.5) val + test cases whose four sentences appear in neither spring set.

Planted violations (recall): for each held-out case, a real ending of another held-out case that refers to one
person or animal only, by a name or a role noun, and to nobody by a pronoun, put under a story that names neither
(the ending then names a new character and nobody of the story).

    .venv/bin/python benchmarks/shared_character_rate.py ../shared/data [--show 30] [--seed 0]
"""

from __future__ import annotations

import csv
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lotdata.annotate.checks import CheckOptions, shared_character
from lotdata.text.characters import new_entities, references_en

Case = dict


def _cases(path: Path, source: str) -> list[Case]:
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return [
        {
            "id": f"{source}#{i + 1}",
            "context": [row[f"InputSentence{k}"] for k in range(1, 5)],
            "right_ending": row["RandomFifthSentenceQuiz1"],
            "wrong_ending": row["RandomFifthSentenceQuiz2"],
            "lang": "en",
        }
        for i, row in enumerate(rows)
    ]


def _rocstories(path: Path) -> list[Case]:
    from lotdata.annotate.submissions import read_submissions, story_sentences

    cases = []
    for row in read_submissions(path):
        sentences = story_sentences(row, "en")
        if len(sentences) == 5:
            cases.append(
                {"id": f"roc#{row['id']}", "context": sentences[:4], "right_ending": sentences[4], "lang": "en"}
            )
    return cases


def splits(data: Path) -> dict[str, list[Case]]:
    """The tuning and held-out sets by name."""
    spring = _cases(data / "storycloze_spring2016_labeled/val.csv", "spring-val")
    spring += _cases(data / "storycloze_spring2016_labeled/test.csv", "spring-test")
    seen = {tuple(case["context"]) for case in spring}
    winter = _cases(data / "storycloze_rocstories/val.csv", "winter-val")
    winter += _cases(data / "storycloze_rocstories/test.csv", "winter-test")
    held_out = [case for case in winter if tuple(case["context"]) not in seen]
    roc = _rocstories(data / "rocstories_diffusionlm_valid5k/datasets/ROCstory/roc_valid.json")
    return {"tuning: Story Cloze spring 2016": spring, "tuning: ROCStories 5k": roc, "held out: winter 2018": held_out}


def flags(cases: list[Case]) -> list[tuple[Case, str]]:
    """(case, ending) for every ending the rule flags."""
    found = []
    options = CheckOptions(lang="en")
    for case in cases:
        for problem in shared_character(case, options):
            found.append((case, case["right_ending" if problem.startswith("right") else "wrong_ending"]))
    return found


def planted(cases: list[Case], seed: int = 0) -> list[Case]:
    """Held-out stories given another case's ending that names one new person or animal and no pronoun."""
    donors = []
    for case in cases:
        for role in ("right_ending", "wrong_ending"):
            refs = references_en(case.get(role) or "")
            if len(refs) == 1 and next(iter(refs))[0] != "pronoun":
                donors.append((next(iter(refs)), case[role]))
    rng = random.Random(seed)
    out = []
    for case in cases:
        context = references_en(" ".join(case["context"]))
        for _ in range(20):
            ref, ending = rng.choice(donors)
            if ref not in context and ("role", ref[1]) not in context and ("role+", ref[1]) not in context:
                out.append({**case, "right_ending": ending, "wrong_ending": ending, "planted": ref})
                break
    return out


def middle_entities(cases: list[Case]) -> tuple[int, list[tuple[str, list[str]]]]:
    """LOT 2.2a on English (`new_entities`): how often a real middle sentence (2 to 4 of the five, ClozeT never masks
    the first) names a role, an animal or a name the rest of the story does not; (sentence, new words) per flag."""
    total, flagged = 0, []
    for case in cases:
        story = [*case["context"], case["right_ending"]]
        for i in range(1, 4):
            total += 1
            new = new_entities(story[i], " ".join(story[:i] + story[i + 1 :]), "en")
            if new:
                flagged.append((story[i], new))
    return total, flagged


def story_names(cases: list[Case]) -> list[str]:
    """The protagonists' names of a set: the first word of a story that the story capitalises again further on
    (Tom ... Tom), no opener, pronoun or stopword: real names, as the set's writers chose them."""
    from lotdata.text.characters import PRONOUNS_EN, STOPWORDS_EN
    from lotdata.text.story_split import OPENERS_EN

    names = []
    for case in cases:
        first = (case["context"][0].split() or [""])[0].strip(".,'’")
        rest = " ".join([*case["context"][1:], case.get("right_ending") or ""])
        low = first.lower()
        if first[:1].isupper() and first.isalpha() and f" {first}" in f" {rest}" and low not in OPENERS_EN:
            if low not in PRONOUNS_EN and low not in STOPWORDS_EN:
                names.append(first)
    return names


def planted_names(cases: list[Case], seed: int = 0) -> tuple[int, int]:
    """LOT 2.2a in English: a real protagonist's name (`story_names`, from the same set) brought into a middle
    sentence of a story that does not have it, at the sentence's start ("Tom was there too.", where the capital
    says least) and inside one ("... with Tom."): (planted, caught by `new_entities`)."""
    rng = random.Random(seed)
    names = story_names(cases)
    planted = caught = 0
    for case in cases:
        story = [*case["context"], case["right_ending"]]
        name = rng.choice(names)
        if name.lower() in " ".join(story).lower():
            continue
        i = rng.randrange(1, 4)
        given = " ".join(story[:i] + story[i + 1 :])
        for candidate in (f"{name} was there too.", story[i].rstrip(".!?") + f" with {name}."):
            planted += 1
            caught += name in new_entities(candidate, given, "en")
    return planted, caught


def main(data: Path, show: int = 30, seed: int = 0) -> None:
    sets = splits(data)
    for name, cases in sets.items():
        found = flags(cases)
        endings = sum(bool(c.get("right_ending")) + bool(c.get("wrong_ending")) for c in cases)
        flagged_cases = len({c["id"] for c, _ in found})
        print(
            f"{name}: {flagged_cases}/{len(cases)} cases flagged ({flagged_cases / max(len(cases), 1):.1%}); "
            f"{len(found)}/{endings} endings"
        )
    for name, cases in sets.items():
        total, flagged = middle_entities(cases)
        print(f"2.2a on {name}: {len(flagged)}/{total} middle sentences flagged ({len(flagged) / max(total, 1):.1%})")
    for name, cases in sets.items():
        n, caught = planted_names(cases, seed)
        print(f"2.2a planted names on {name}: {caught}/{n} caught ({caught / max(n, 1):.1%})")
    held_out = sets["held out: winter 2018"]
    plants = planted(held_out, seed)
    caught = sum(bool(shared_character(case, CheckOptions(lang="en"))) for case in plants)
    print(f"planted (held out): {caught}/{len(plants)} caught ({caught / max(len(plants), 1):.1%})")
    if show:
        found = flags(held_out)
        print(f"\n{min(show, len(found))} held-out flags drawn at random (seed {seed}), to read by hand:")
        for case, ending in random.Random(seed).sample(found, min(show, len(found))):
            print(f"- [{case['id']}] {' '.join(case['context'])} || {ending}")
        _, entity_flags = middle_entities(held_out)
        print(f"\n{min(show, len(entity_flags))} held-out 2.2a flags drawn at random (seed {seed}), to read by hand:")
        for sentence, new in random.Random(seed).sample(entity_flags, min(show, len(entity_flags))):
            print(f"- {'/'.join(new)}: {sentence}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(
        Path(args[0]),
        int(args[args.index("--show") + 1]) if "--show" in args else 30,
        int(args[args.index("--seed") + 1]) if "--seed" in args else 0,
    )
