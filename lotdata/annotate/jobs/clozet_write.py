"""clozet_write (LOT appendix 2, Figure 2): choose a sentence that follows from its context and common sense, write a
wrong one; ClozeT and PlotCom datasets.

The appendix's mechanical rules (empty, identical, length, off topic, negation only) refuse an answer at pull. The
job's check rules (`CHECKS`: 2.2a's roles and places, 2.2d's antonym swap) flag the chosen wrong candidate instead: a
flag of level "refuse" holds the case out of `clozet/` for review (`held.jsonl`; `lotdata annotate push review`), a
"warn" flag is counted and the case goes on. A case the reviewer refuses comes back to its rater (`revisions.jsonl` of
the review pull, pushed to clozet_write again); the rater's new answer replaces their old one."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any, Hashable, Mapping, Sequence

from lotdata.annotate.agreement import majority_vote
from lotdata.annotate.checks import RULES, CheckOptions, new_entities
from lotdata.annotate.jobs.base import (
    Annotation,
    JobSpec,
    Output,
    Row,
    Task,
    by_uid,
    choice,
    kept_by_vote,
    load_stories,
    numbers,
    prediction,
    read_revisions,
    register_job,
    seeded_rank,
    textarea,
    voters_for,
)
from lotdata.annotate.template import InvalidResult
from lotdata.schema import MASK_TOKENS, SPLITS
from lotdata.text import join_sentences, normalize_text, tokenize

#: words that mark a consequence, reaction or intention: sentences with them follow from context
_INFERABLE = re.compile("于是|所以|因此|终于|结果|只好|便|决定|就|后来|最后|so |then |finally|decided|because")
#: a wrong candidate that differs from the original only by these is a negation-only edit (appendix 2.2 d)
_NEGATIONS = re.compile("不是|没有|并不|并没有|从不|从没|不|没|未|别|无|非|not |no |never |n't")


def mask_guess(sentences: Sequence[str]) -> int:
    """The sentence (0-based) a heuristic would mask: a middle one (LOT aimed at the middle; never the first or the
    last), the one with most consequence markers, ties to the one nearest the centre. Two sentences: the second."""
    if len(sentences) < 3:
        return len(sentences) - 1
    centre = (len(sentences) - 1) / 2
    return max(
        range(1, len(sentences) - 1), key=lambda i: (len(_INFERABLE.findall(sentences[i])), -abs(i - centre), -i)
    )


def _numbered(sentences: Sequence[str]) -> str:
    """The story one sentence per line, numbered [1], [2]... from the second sentence to the last: the marked
    sentence "may appear at the end or middle of the story" (LOT appendix 2), never at the beginning, so the first
    carries no number that a hotkey could pick."""
    rest = [f"[{k}] {s}" for k, s in enumerate(sentences[1:], 1)]
    return "\n".join([f"· {sentences[0]}", *rest])


def _sentence_index(number: int, data: Mapping[str, Any]) -> int:
    """The 0-based sentence a chosen number means. Choices offered from 1 (sentence 2; to n-1, the last sentence, or
    n-2 on a task pushed while the last could not be chosen); a task pushed by an older lotdata offered 2..n (the
    sentence numbers), which its first choice tells."""
    offered = data.get("sentence_choices") or [{"value": "1"}]
    first = int(offered[0]["value"] if isinstance(offered[0], Mapping) else offered[0])
    return number - first + 1


def _content_words(text: str, lang: str) -> set[str]:
    return {w for w in tokenize(text, lang) if len(w) >= 2 and any(ch.isalnum() for ch in w)}


#: the check rules the job declares (`annotate check clozet_write`); at pull they flag, they do not refuse
CHECKS = ("context_entities", "antonym_swap")


def wrong_candidate_problem(
    wrong: str, original: str, context: Sequence[str], lang: str, *, entities: bool = True
) -> str | None:
    """Which of the appendix's mechanical rules (Figure 2, 2.2) a wrong candidate breaks, or None.

    Not empty; not the original; 1/2 to 2 times the original's length (characters); on topic: it shares a content
    word (jieba, two characters or more) with the story; every role (person, animal) and place it names appears in the
    story or the original sentence (2.2a; things are left to the reviewers: `checks.new_entities`); not the original
    with only negation words added or removed. `entities=False`: 2.2a is left to the check rules (`candidate_flags`).
    """
    if not wrong:
        return "empty"
    if wrong == original:
        return "identical to the masked sentence"
    if not len(original) / 2 <= len(wrong) <= 2 * len(original):
        return f"{len(wrong)} characters, outside 1/2 to 2 times the original's {len(original)}"
    if not _content_words(wrong, lang) & _content_words(join_sentences([*context, original], lang), lang):
        return "shares no content word with the story (off topic)"
    new = new_entities(wrong, join_sentences([*context, original], lang), lang) if entities else []
    if new:
        return f"names {', '.join(new)}, which the story does not (every role and place must appear in it: LOT 2.2a)"
    if negation_only_edit(original, wrong):
        return "differs from the original only by negation words (rewrite it another way)"
    return None


def candidate_flags(wrong: str, sentences: Sequence[str], index: int, lang: str) -> list[dict[str, str]]:
    """The flags of the job's check rules (`CHECKS`) on a wrong candidate of sentence `index`: rule, detail, level."""
    row = {
        "candidate": wrong,
        "original": sentences[index],
        "context": [*sentences[:index], *sentences[index + 1 :]],
        "lang": lang,
    }
    return [
        {"rule": name, "detail": detail, "level": RULES[name].level}
        for name in CHECKS
        for detail in RULES[name].row(row, CheckOptions(lang=lang))
    ]


def negation_only_edit(original: str, wrong: str) -> bool:
    """True when every change from `original` to `wrong` puts in or takes out a negation word (at most one other
    character replaced by it, as 很 -> 不)."""
    import difflib

    changes = [
        op for op in difflib.SequenceMatcher(None, original, wrong, autojunk=False).get_opcodes() if op[0] != "equal"
    ]
    for _tag, i1, i2, j1, j2 in changes:
        added, removed = wrong[j1:j2], original[i1:i2]
        negation_in = bool(added) and not _NEGATIONS.sub("", added)
        negation_out = bool(removed) and not _NEGATIONS.sub("", removed)
        if not ((negation_in and len(removed) <= 1) or (negation_out and len(added) <= 1)):
            return False
    return bool(changes)


#: LOT appendix 2: "given a story of about 50-500 words"; the stories story_filter kept (accepted or rewritten)
STORY_WORDS = (50, 500)
FILTERED_STATUSES = ("accepted", "rewritten")


def writable_stories(stories: Sequence[Row], words: tuple[int, int] = STORY_WORDS) -> list[Row]:
    """The stories a ClozeT case is written on (LOT §3, appendix Figure 2): those story filtering kept, when the table
    holds any (raw and cleaned rows of a mixed table are left out; a table never filtered gives every story not
    rejected), of `words` words (jieba; 0 for no bound), with three sentences or more. Sentences are LOT's own: no
    short ones merged (that is a SenPos rule)."""
    from lotdata.text import count_words

    filtered = [s for s in stories if s["status"] in FILTERED_STATUSES]
    pool = filtered or [s for s in stories if s["status"] != "rejected"]
    low, high = words
    kept = []
    for story in pool:
        n = count_words(story["text"], story["lang"])
        if n >= low and (not high or n <= high) and len(story["sentences"]) >= 3:
            kept.append(story)
    return kept


def load(path: Path, splits: Sequence[str] | None, *, words: tuple[int, int] = STORY_WORDS) -> list[Row]:
    """Stories for ClozeT writing (`writable_stories`), each given a split, grouped by story and seeded.

    Plain names (`val,test`) share the stories evenly in seeded order; ratios (`train=0.5,val=0.25,test=0.25`)
    use the builders' split assignment.
    """
    from lotdata.datasets.splits import assign_splits, parse_split_spec, story_order_key

    if path.suffix == ".jsonl":  # the revisions.jsonl of a review pull: refused cases back to their raters
        return _revisions(path)
    splits = list(splits or ("val", "test"))
    stories = writable_stories(load_stories(path, None), words)
    if any("=" in s for s in splits):
        assigned = assign_splits([s["story_id"] for s in stories], parse_split_spec(",".join(splits)), 0)
    else:
        unknown = [s for s in splits if s not in SPLITS]
        if unknown:
            raise ValueError(f"unknown split(s) {unknown}; splits: {', '.join(SPLITS)}")
        rank = {
            s["story_id"]: i for i, s in enumerate(sorted(stories, key=lambda s: story_order_key(s["story_id"], 0)))
        }
        assigned = [splits[rank[s["story_id"]] % len(splits)] for s in stories]
    for story, split in zip(stories, assigned):
        story["split"] = split
        story["sentences"] = attach_speech_tags(story["sentences"], story["lang"])
    return [s for s in stories if s["split"]]


#: a Chinese speech tag standing alone after quoted speech (“……。”小渔说。): a speaker of a few characters, a verb of
#: saying, maybe an adverb before it, and nothing else
_SPEECH_TAG = re.compile(
    r"^[^“”‘’「」，。！？]{0,8}(说|道|问|喊|叫|答|回答|嘀咕|嘟囔|补充|解释|笑道|叹道|大喊|大叫)(着|了|道)?[。！？]$"
)


def attach_speech_tags(sentences: Sequence[str], lang: str) -> list[str]:
    """The story's sentences with a speech tag that the splitter left alone after quoted speech (“……。”小渔说。) put
    back at the end of that speech: a rater is never offered “小渔说。” as a sentence to rewrite. Lossless: the joined
    text is unchanged."""
    if lang != "zh":
        return list(sentences)
    out: list[str] = []
    for sentence in sentences:
        if out and out[-1].endswith(("”", "」", "’")) and _SPEECH_TAG.match(sentence):
            out[-1] += sentence
        else:
            out.append(sentence)
    return out


def _revisions(path: Path) -> list[Row]:
    """The refused work of a review pull (`revisions.jsonl`), each back to its writer as a new version."""
    return read_revisions(path, REVISION_FIELDS, "clozet_write")


REVISION_FIELDS = ("story_id", "split", "lang", "sentences", "writer", "feedback", "previous", "version")
FEEDBACK = {
    "zh": "审核人退回给你（{writer}）：{feedback}\n你上次选的句子：{sentence}\n你上次写的错误句子：{wrong}",
    "en": "Sent back to you ({writer}) by the reviewer: {feedback}\nThe sentence you chose: {sentence}\n"
    "Your wrong sentence: {wrong}",
}


#: what Label Studio names the pre-selected answer (a prediction's model_version) on the rater's screen
PRESELECTED = {"zh": "预选（可修改）", "en": "pre-selected (change it freely)"}


def to_tasks(rows: list[Row], *, seed: int = 0, lang: str = "zh") -> list[Task]:
    tasks = []
    for row in rows:
        guess = mask_guess(row["sentences"])
        revision = "feedback" in row  # a case the reviewer refused, back to its rater
        version = int(row.get("version") or 1)
        data = {
            "uid": f"clozet-{row['story_id']}" + (f"-v{version}" if revision else ""),
            "numbered": _numbered(row["sentences"]),
            "sentence_choices": numbers(1, len(row["sentences"]) - 1),
            "feedback": FEEDBACK.get(lang, FEEDBACK["en"]).format(**row, **row["previous"]) if revision else "",
        }
        hidden = {
            "story_id": row["story_id"],
            "split": row["split"],
            "lang": row["lang"],
            "sentences": list(row["sentences"]),
            "license": row.get("license"),
            "version": version,
        }
        if revision:
            hidden["writer"] = row["writer"]  # per rater, the task goes to its rater only
        guesses = [choice("decision", "story", ["write"]), choice("mask_sentence", "story", [str(guess)])]
        # the screen shows the pre-selection's name: words for the rater, no internal name
        tasks.append({"data": data, "hidden": hidden, "predictions": prediction(PRESELECTED[lang], guesses)})
    return tasks


def check(values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
    if values.get("decision") == "reject":
        return {"rejected": True}
    sentences = hidden["sentences"]
    number = values.get("mask_sentence")
    if number is None:
        raise InvalidResult("mask_sentence: missing")
    index = _sentence_index(int(number), data)
    if not 1 <= index <= len(sentences) - 1:
        raise InvalidResult(f"mask_sentence: {number} is not a sentence that may be chosen (never the first)")
    wrong = normalize_text(values.get("wrong_candidate", ""), hidden["lang"])
    problem = wrong_candidate_problem(
        wrong, sentences[index], sentences[:index] + sentences[index + 1 :], hidden["lang"], entities=False
    )
    if problem:
        raise InvalidResult(f"wrong_candidate: {problem}")
    if "policy" not in values:
        raise InvalidResult("policy: missing")
    flags = candidate_flags(wrong, sentences, index, hidden["lang"])  # flagged, not refused: a reviewer decides
    return {"rejected": False, "index": index, "wrong": wrong, "policy": values["policy"], "flags": flags}


def votes(values: dict[str, Any]) -> list[tuple[str, Hashable]]:
    return [("mask_sentence", "reject" if values["rejected"] else values["index"] + 1)]


def balance_labels(examples: list[Row]) -> list[Row]:
    """Put the right candidate first in half of each split and second in the other half (seeded by example id)."""
    by_split: dict[str, list[Row]] = {}
    for ex in examples:
        by_split.setdefault(ex["split"], []).append(ex)
    out = []
    for rows in by_split.values():
        for rank, ex in enumerate(sorted(rows, key=lambda r: seeded_rank(r["example_id"]))):
            right, wrong = ex.pop("_right"), ex.pop("_wrong")
            label = rank % 2
            out.append({**ex, "candidates": [right, wrong] if label == 0 else [wrong, right], "label": label})
    return sorted(out, key=lambda r: r["example_id"])


def assemble(annotations: list[Annotation]) -> dict[str, Any]:
    """Per story, a vote: the sentence most raters chose (or "reject"); then, among the raters who chose it, the
    wrong candidate most of them wrote, else a seeded pick among theirs (never simply the earliest)."""
    examples, policies, dropped, how = [], Counter(), Counter(), Counter()
    held, flags, warned = [], [], Counter()
    for uid, anns in sorted(latest_per_story(annotations).items()):
        outcome = kept_by_vote(anns, "index", dropped)
        if outcome is None:
            continue
        voters = voters_for(anns, "index", outcome)
        wrong = majority_vote(a.values["wrong"] for a in voters)
        how["wrong_by_majority" if wrong is not None else "wrong_by_seeded_pick"] += 1
        if wrong is None:
            wrong = min((a.values["wrong"] for a in voters), key=lambda w: seeded_rank(f"{uid}:{w}"))
        ann = next(a for a in voters if a.values["wrong"] == wrong)
        policies[ann.values["policy"]] += 1
        case = case_of(uid, ann, outcome)
        warned.update(f["rule"] for f in case["flag_rows"] if f["level"] != "refuse")
        flags += [{"id": case["id"], **flag} for flag in case["flag_rows"]]
        if any(f["level"] == "refuse" for f in case["flag_rows"]):
            held.append(case)  # not dropped: it waits for a reviewer (`held.jsonl`)
        else:
            examples.append(example_of(case))
    stats = {"policies": dict(policies), "dropped": dict(dropped), "vote": dict(how), "held_for_review": len(held)}
    if warned:
        stats["warned"] = dict(warned)
    return {"clozet": balance_labels(examples), "held": held, "flags": flags, "stats": stats}


def latest_per_story(annotations: list[Annotation]) -> dict[str, list[Annotation]]:
    """Each story's answers (its first task's and its revision tasks'), each rater's latest only (a revision replaces
    the answer a reviewer refused), under the first task's uid."""
    groups: dict[str, dict[str, Annotation]] = {}
    for uid, anns in sorted(by_uid(annotations).items()):
        for ann in anns:
            groups.setdefault(f"clozet-{ann.hidden.get('story_id') or uid}", {})
    for ann in sorted(annotations, key=lambda a: (a.created_at, a.annotation_id)):
        groups[f"clozet-{ann.hidden.get('story_id') or ann.uid}"][ann.annotator] = ann
    return {uid: sorted(last.values(), key=lambda a: (a.created_at, a.annotation_id)) for uid, last in groups.items()}


def case_of(uid: str, ann: Annotation, index: int) -> Row:
    """The case a chosen answer makes, with its flags (what `held.jsonl` and the review job read)."""
    hidden = ann.hidden
    return {
        "id": f"{hidden['story_id']}-{ann.annotation_id}",
        "example_id": uid,
        "story_id": hidden["story_id"],
        "split": hidden["split"],
        "lang": hidden["lang"],
        "sentences": list(hidden["sentences"]),
        "index": index,
        "wrong": ann.values["wrong"],
        "policy": ann.values["policy"],
        "writer": ann.annotator,
        "annotation_id": str(ann.annotation_id),
        "version": int(hidden.get("version") or 1),
        "license": hidden.get("license"),
        # each flag at its rule's level now (the level decides whether the case waits for review)
        "flag_rows": [
            {**f, "level": RULES[f["rule"]].level if f["rule"] in RULES else f["level"]}
            for f in ann.values.get("flags") or []
        ],
    }


def example_of(case: Row) -> Row:
    """A ClozeT row of a case (its candidates ordered later by `balance_labels`)."""
    sentences, index = case["sentences"], case["index"]
    return {
        "example_id": case["example_id"],
        "story_id": case["story_id"],
        "split": case["split"],
        "context": join_sentences(sentences[:index] + [MASK_TOKENS["clozet"]] + sentences[index + 1 :], case["lang"]),
        "_right": sentences[index],
        "_wrong": case["wrong"],
        "mask_sentence_index": index,
        "annotator": case["writer"],
        "annotation_id": case["annotation_id"],
        "lang": case["lang"],
    }


def write(assembled: dict[str, Any], output: Output) -> dict[str, Any]:
    """`held.jsonl` (cases a refuse flag holds for review), `flags.parquet` (the chosen candidates' flags, warn ones
    too: id, rule, detail, level) and the ClozeT and PlotCom datasets of the others."""
    from lotdata.io import write_jsonl, write_parquet
    from lotdata.schema import CHECK_FLAGS, table_from_rows

    output.folder.mkdir(parents=True, exist_ok=True)
    held = assembled.get("held", [])
    write_jsonl(held, output.folder / "held.jsonl")
    write_parquet(table_from_rows(assembled.get("flags", []), CHECK_FLAGS), output.folder / "flags.parquet")
    return {**write_clozet(assembled, output), "held_for_review": len(held)}


def write_clozet(assembled: dict[str, Any], output: Output) -> dict[str, Any]:
    """The ClozeT dataset folder and the PlotCom one made from it (LOT 3.3)."""
    from lotdata.tasks.plotcom import plotcom_from_clozet

    return {
        "clozet": output.dataset("clozet", assembled["clozet"]),
        "plotcom": output.dataset("plotcom", plotcom_from_clozet(assembled["clozet"])),
    }


DEMO_STORY = ["小明养了一只猫。", "猫每天都抓老鼠。", "小明很喜欢他的猫。", "他们是好朋友。"]


def demo_rows() -> list[Row]:
    return [
        {
            "story_id": f"demo{i}",
            "split": split,
            "lang": "zh",
            "sentences": DEMO_STORY[i:] + DEMO_STORY[:i],
            "license": "CC0",
        }
        for i, split in enumerate(("val", "test"))
    ]


def simulate(task: Task, rater: int) -> list[dict[str, Any]]:
    sentences = task["hidden"]["sentences"]
    index = sentences.index("小明很喜欢他的猫。")
    return [
        choice("decision", "story", ["write"]),
        choice("mask_sentence", "story", [str(index)]),
        textarea("wrong_candidate", "story", "小明想把他的猫卖掉。"),
        choice("policy", "story", ["reaction_intention"]),
    ]


SPEC = register_job(
    JobSpec(
        name="clozet_write",
        order=2,
        summary="choose a sentence and write a wrong one: ClozeT + PlotCom (LOT appendix 2)",
        input_help="stories Parquet (the stories story_filter kept; 50-500 words: --words)",
        load=load,
        load_options=("words",),
        to_tasks=to_tasks,
        check=check,
        votes=votes,
        assemble=assemble,
        write=write,
        demo_rows=demo_rows,
        simulate=simulate,
        default_splits=("val", "test"),
        templates={"zh": "clozet_write", "en": "en/clozet_write"},
        checks=CHECKS,
        descriptions={
            "zh": "改写故事中的一句（LOT 附录图 2）：在故事中选一句能根据上下文和常识推断出来的句子（中间或结尾，第一句除外），把它改写成违背常识的句子。每个故事一个任务。",
            "en": "ClozeT writing (LOT appendix, Figure 2): in each story choose a sentence that follows from its context and common sense (in the middle or at the end, never the first) and rewrite it so that it breaks common sense. One task per story.",
        },
    )
)
