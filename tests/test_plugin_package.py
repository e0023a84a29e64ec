"""A plug-in in another package, as a user would ship one: a module and its `mypkg-0.1.dist-info/` (METADATA,
entry_points.txt) on sys.path, registering through entry points only (no file of lotdata edited) a command, a
stage, a task, an annotation job, an input format, an audit baseline and a check rule; each passes its
`lotdata.testing` check, as it would in the plug-in's own CI, and is gone again afterwards."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from lotdata.annotate.checks import CHECK_RULE_REGISTRY
from lotdata.annotate.jobs.base import JOB_REGISTRY
from lotdata.audit.baselines import BASELINE_REGISTRY
from lotdata.command import COMMAND_REGISTRY
from lotdata.datasets.formats import FORMAT_REGISTRY
from lotdata.datasets.registry import TASK_REGISTRY
from lotdata.registry import Registry
from lotdata.stage import STAGE_REGISTRY
from lotdata.testing import (
    check_baseline,
    check_check_rule,
    check_command,
    check_format,
    check_job,
    check_stage,
    check_task,
)

MODULE = "mypkg"

PLUGIN = '''
"""mypkg: a plug-in of lotdata, one record of every kind."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from lotdata.annotate.checks import Rule
from lotdata.annotate.jobs.base import JobSpec, by_uid, choice
from lotdata.audit.baselines import Baseline, BaselineSpec
from lotdata.audit.items import CANDIDATES
from lotdata.command import Command, Output
from lotdata.datasets.formats import FormatSample, InputFormat, Record, bad
from lotdata.datasets.lotformat import lot_row_base
from lotdata.datasets.registry import Builder, GenerationInput, TaskSpec
from lotdata.datasets.stats import avg, input_stats
from lotdata.stage import Stage, param, register_stage
from lotdata.tasks.common import StoryOutcome

HERE = Path(__file__).resolve().parent


# ---- a command (entry point: the record)


@dataclass(frozen=True, kw_only=True)
class UpperParams:
    source: str = param(help="A text file.", path="input")
    out: str = param(help="The file to write.")
    times: int = param(1, help="Copies of the text.", check=">0")


def _upper(run):
    p = run.params
    text = Path(p.source).read_text(encoding="utf-8").upper() * p.times
    run.out("--out").write_text(text, encoding="utf-8")
    return {"characters": len(text)}


def _upper_sample(folder):
    (folder / "in.txt").write_text("the fox ran home.\\n", encoding="utf-8")
    return [str(folder / "in.txt"), "--out", str(folder / "upper.txt"), "--times", "2"]


UPPER = Command(
    name="mypkg-upper",
    params=UpperParams,
    execute=_upper,
    inputs=lambda p: {"SOURCE": p.source},
    outputs=lambda p: [Output("--out", Path(p.out))],
    summary="Write a text file in upper case.",
    arguments=("source",),
    sample=_upper_sample,
)


# ---- a stage (entry point: this module, which registers it when imported)


@dataclass(frozen=True)
class HeadParams:
    k: int = param(3, "Stories kept.", check=">0")
    out: str = param("head.parquet", "stories table", cli=False)


def _run_head(ctx, params, execution, table, index):
    pass


STAGE = register_stage(
    Stage(name="mypkg_head", params=HeadParams, run=_run_head, order=45, summary="the first K", output="-")
)


# ---- a task (entry point: a callable that returns the record)

ENDING_SCHEMA = pa.schema(
    [
        pa.field("example_id", pa.string(), nullable=False),
        pa.field("story_id", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("context", pa.string(), nullable=False),
        pa.field("ending", pa.string(), nullable=False),
        pa.field("lang", pa.string(), nullable=False),
    ],
    metadata={"lotdata.table": "mypkg_ending", "lotdata.schema_version": "1"},
)


@dataclass(frozen=True)
class EndingParams:
    min_sentences: int = 3


def _ending_examples(story, params, seed, tokenizer=None):
    sentences = story["sentences"]
    if len(sentences) < params.min_sentences:
        return StoryOutcome(dropped="too_few_sentences")
    row = {
        "example_id": f"mypkg_ending-{story['story_id']}-0",
        "story_id": story["story_id"],
        "context": "".join(sentences[:-1]),
        "ending": sentences[-1],
        "lang": story["lang"],
    }
    return StoryOutcome(examples=[row])


def _ending_from_lot(record, *, split, index):
    full = record["story"] + record["ending"]
    base = lot_row_base("mypkg_ending", record, split=split, index=index, full_text=full)
    return {
        "example_id": base["example_id"],
        "story_id": base["story_id"],
        "split": split,
        "context": record["story"],
        "ending": record["ending"],
        "lang": base["lang"],
    }


def _ending_stats(rows, vocab):
    result = input_stats([(r["context"], r["lang"]) for r in rows], vocab)
    result["avg_words_output"] = avg([len(vocab.words_of(r["ending"], r["lang"])) for r in rows])
    return result


def task():
    return TaskSpec(
        name="mypkg_ending",
        schema=ENDING_SCHEMA,
        mask_token=None,
        lot_fields=(("story", "ending"), ()),
        to_lot=lambda row: {"story": row["context"], "ending": row["ending"]},
        from_lot=_ending_from_lot,
        stats=_ending_stats,
        text_fields=("context", "ending"),
        metric_family="generation",
        prediction_field="ending",
        prediction_type=str,
        card_category="text-generation",
        card_description="Ending: write the last sentence of the story",
        builder=Builder(_ending_examples, EndingParams),
        lot_metrics=("bleu-1", "bleu-2", "distinct-1", "distinct-2"),
        generation_input=GenerationInput(source=("context",), target="ending", short_target=True),
    )


# ---- an annotation job (entry point: a callable that returns the record)

TEMPLATE = """<View>
  <Header value="{header}"/>
  <Text name="sentence" value="$sentence"/>
  <Choices name="length" toName="sentence" choice="single" required="true">
    <Choice value="{short}" alias="short" hotkey="1"/>
    <Choice value="{long}" alias="long" hotkey="2"/>
  </Choices>
</View>
"""


def _assemble(anns):
    decided = {
        uid: Counter(a.values["length"] for a in group).most_common(1)[0][0] for uid, group in by_uid(anns).items()
    }
    return {"lengths": decided, "stats": {"items": len(decided)}}


def _write(assembled, output):
    (output.folder / "lengths.json").write_text(json.dumps(assembled["lengths"], sort_keys=True), encoding="utf-8")
    return {"lengths": len(assembled["lengths"])}


def job():
    screens = {"zh": ("这句话长吗？", "短", "长"), "en": ("Is this sentence long?", "short", "long")}
    templates = {}
    for lang, (header, short, long) in screens.items():
        templates[lang] = HERE / f"mypkg_length.{lang}.xml"
        templates[lang].write_text(TEMPLATE.format(header=header, short=short, long=long), encoding="utf-8")
    return JobSpec(
        name="mypkg_length",
        summary="is a sentence long",
        input_help="jsonl of id, text",
        load=lambda path, splits: [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()],
        to_tasks=lambda rows, *, seed=0, lang="en": [
            {"data": {"uid": f"len-{r['id']}", "sentence": r["text"]}, "hidden": {"words": len(r["text"].split())}}
            for r in rows
        ],
        check=lambda values, data, hidden: {"length": values["length"]},
        votes=lambda v: [("length", v["length"])],
        assemble=_assemble,
        write=_write,
        demo_rows=lambda: [{"id": 1, "text": "a b c d e f g h"}, {"id": 2, "text": "short"}],
        simulate=lambda task, rater: [
            choice("length", "sentence", ["long" if len(task["data"]["sentence"]) > 6 else "short"])
        ],
        templates=templates,
        lang="en",
        checks=("mypkg_no_digits",),
    )


# ---- an input format (entry point: the record)


def _parse_tales(path):
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if "\\t" not in line:
            yield bad(number, "no tab between id and story", line)
            continue
        story_id, text = line.split("\\t", 1)
        yield Record(row=number, raw=line, text=text, source_id=story_id)


def _tales_sample(folder):
    path = folder / "corpus.mypkgtales"
    lines = ["t1\\t狐狸跑回了家。外面下着雨。", "broken line", "t2\\tThe owl woke up. It went hunting."]
    path.write_text("\\n".join(lines) + "\\n", encoding="utf-8")
    return FormatSample(path, good=2, bad_row=2)


TALES = InputFormat(
    name="mypkg_tales",
    description="an `id<TAB>story` line (.mypkgtales)",
    detect=lambda probe: probe.suffix == ".mypkgtales",
    parse=_parse_tales,
    default_source="tales-corpus",
    sample=_tales_sample,
)


# ---- an audit baseline (entry point: a list of records)


class Shortest(Baseline):
    langs = None

    def scores(self, items):
        return [[-float(len(it.option_text(o))) for o in range(it.n_options)] for it in items]


BASELINES = [BaselineSpec("mypkg_shortest", Shortest, shapes=(CANDIDATES,))]


# ---- a check rule (entry point: the record)


def _no_digits(row, options):
    found = sorted({c for c in str(row.get("text") or "") if c.isdigit()})
    return [f"digits {''.join(found)}"] if found else []


NO_DIGITS = Rule(
    "mypkg_no_digits",
    "no digits in the story",
    row=_no_digits,
    sample=lambda: {
        "bad": [{"id": "b", "lang": "en", "text": "Tom had 3 cats."}],
        "good": [{"id": "g", "lang": "en", "text": "Tom had three cats."}],
    },
)
'''

ENTRY_POINTS = """
[lotdata.commands]
upper = mypkg:UPPER

[lotdata.stages]
head = mypkg

[lotdata.tasks]
ending = mypkg:task

[lotdata.annotation_jobs]
length = mypkg:job

[lotdata.formats]
tales = mypkg:TALES

[lotdata.baselines]
shortest = mypkg:BASELINES

[lotdata.check_rules]
no_digits = mypkg:NO_DIGITS
"""

#: kind -> (its registry, the plug-in's record, its check in lotdata.testing)
KINDS: dict[str, tuple[Registry, str, object]] = {
    "command": (COMMAND_REGISTRY, "mypkg-upper", check_command),
    "stage": (STAGE_REGISTRY, "mypkg_head", check_stage),
    "task": (TASK_REGISTRY, "mypkg_ending", check_task),
    "annotation_job": (JOB_REGISTRY, "mypkg_length", check_job),
    "format": (FORMAT_REGISTRY, "mypkg_tales", check_format),
    "baseline": (BASELINE_REGISTRY, "mypkg_shortest", check_baseline),
    "check_rule": (CHECK_RULE_REGISTRY, "mypkg_no_digits", check_check_rule),
}


def _refresh() -> None:
    for reg, _, _ in KINDS.values():
        reg.discover(refresh=True)


@contextmanager
def installed(site: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """mypkg installed in `site` (its module and dist-info on sys.path), every registry read again; afterwards its
    records unregistered, the module forgotten and the registries read again without it."""
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{MODULE}.py").write_text(PLUGIN, encoding="utf-8")
    dist = site / "mypkg-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mypkg\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    try:
        _refresh()
        yield site
    finally:
        for reg, name, _ in KINDS.values():
            reg.unregister(name)
        sys.modules.pop(MODULE, None)
        monkeypatch.undo()
        _refresh()


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for reg, name, _ in KINDS.values():
        reg.discover()  # read before the package is installed, as in a running program
        assert name not in reg, (reg, name)
    with installed(tmp_path / "site", monkeypatch) as site:
        yield site


def test_the_plugin_registers_one_record_of_every_kind_through_its_entry_points(plugin: Path):
    for kind, (reg, name, _) in KINDS.items():
        assert reg.group == f"lotdata.{kind}s"
        assert name in reg.names(), (kind, name)
        assert reg.module_of(name) == MODULE, (kind, reg.module_of(name))
        assert name not in [reg._name_of(r) for r in reg.builtins()]
        assert [e.value.split(":")[0] for e in reg.entry_points() if e.value.startswith(MODULE)] == [MODULE]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_plugin_record_passes_its_lotdata_testing_check(plugin: Path, kind: str, tmp_path: Path):
    reg, name, check = KINDS[kind]
    if kind == "task":
        pytest.importorskip("nltk")  # the task checks score the rows with `evaluate` (the metrics extra)
    check(reg.get(name), tmp_path / "checks")  # type: ignore[operator]


def test_the_plugin_is_gone_afterwards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    with installed(tmp_path / "site", monkeypatch):
        assert all(name in reg for reg, name, _ in KINDS.values())
    for kind, (reg, name, _) in KINDS.items():
        assert name not in reg.names(), kind
        assert not any(e.value.startswith(MODULE) for e in reg.entry_points()), kind
    assert MODULE not in sys.modules
