"""The registry kernel (`lotdata.registry`): one duplicate policy, one unknown-name error, one discovery (built-in
modules, then the `lotdata.<kind>s` entry points of installed packages) for every extension kind."""

from __future__ import annotations

import importlib
import re
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.annotate.checks import (
    CHECK_RULE_REGISTRY,
    CheckOptions,
    get_check_rule,
    jobs_with_checks,
    register_check_rule,
    run_checks,
    unregister_check_rule,
)
from lotdata.annotate.jobs.base import JOB_REGISTRY, all_jobs, job_names, register_job
from lotdata.audit.baselines import BASELINE_REGISTRY, register_baseline
from lotdata.audit.items import CANDIDATES
from lotdata.clean.rules import CLEAN_RULE_REGISTRY, register_clean_rule
from lotdata.cli import app
from lotdata.datasets.formats import FORMAT_REGISTRY, detect_format, register_format
from lotdata.datasets.registry import TASK_REGISTRY, register_task
from lotdata.errors import LotdataError
from lotdata.registry import RegistryError, registries
from lotdata.stage import STAGE_REGISTRY, get_stage, register_stage
from lotdata.text.tokenize import TOKENIZER_REGISTRY, register_tokenizer

#: kind -> (its registry, its public register function, a built-in name, a change that makes another record)
KINDS = {
    "stage": (STAGE_REGISTRY, register_stage, "read", lambda r: replace(r, summary="another")),
    "task": (TASK_REGISTRY, register_task, "clozet", lambda r: replace(r, card_description="another")),
    "format": (FORMAT_REGISTRY, register_format, "txt", lambda r: replace(r, description="another")),
    "annotation_job": (JOB_REGISTRY, register_job, "story_write", lambda r: replace(r, summary="another")),
    "baseline": (BASELINE_REGISTRY, register_baseline, "length", lambda r: replace(r, shapes=(CANDIDATES,))),
    "check_rule": (CHECK_RULE_REGISTRY, register_check_rule, "title", lambda r: replace(r, description="another")),
    "clean_rule": (CLEAN_RULE_REGISTRY, register_clean_rule, "too_short", lambda r: replace(r, description="x")),
    "tokenizer": (
        TOKENIZER_REGISTRY,
        lambda spec: register_tokenizer(spec.name, spec.factory),
        "jieba",
        lambda r: replace(r, factory=lambda: str.split),
    ),
}


def test_every_extension_kind_has_one_registry_of_the_kernel():
    kinds = {reg.kind: reg for reg in registries()}
    assert set(KINDS) <= set(kinds)
    for kind, (reg, _, builtin, _) in KINDS.items():
        assert kinds[kind] is reg and reg.group == f"lotdata.{kind}s"
        assert builtin in [reg._name_of(r) for r in reg.builtins()]  # found by the package scan
        assert reg.builtin_modules() and all(m.startswith("lotdata.") for m in reg.builtin_modules())
    assert STAGE_REGISTRY.builtin_modules() == tuple(sorted(STAGE_REGISTRY.builtin_modules()))
    # a folder's helper modules are not imported as built-ins: only those that call the register function
    assert "lotdata.tasks.outline" not in TASK_REGISTRY.builtin_modules()
    assert set(TASK_REGISTRY.builtin_modules()) == {
        f"lotdata.tasks.{t}" for t in ("clozet", "senpos", "plotcom", "outgen")
    }


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_name_held_by_another_record_is_an_error_naming_both_modules(kind):
    reg, register, name, change = KINDS[kind]
    held = reg.get(name)
    with pytest.raises(RegistryError) as caught:
        register(change(held))
    message = str(caught.value)
    assert "registered twice" in message
    assert reg.module_of(name) in message and reg.module_of(name).startswith("lotdata.")  # the built-in's module
    assert __name__ in message  # and this test's, the module that tried
    assert isinstance(caught.value, LotdataError) and caught.value.exit_code == 1
    assert reg.get(name) is held  # nothing replaced


def test_the_stage_read_is_no_longer_silently_replaced():
    read = get_stage("read")
    with pytest.raises(RegistryError, match="lotdata.sources.read_stage"):
        register_stage(replace(read, order=read.order + 1))
    assert get_stage("read") is read


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_same_record_twice_is_one_record(kind):
    reg, register, name, _ = KINDS[kind]
    before = reg.names()
    held = reg.get(name)
    assert register(held) is held  # the tokenizer's wrapper even makes a new, equal record: still no-op
    assert reg.names() == before and reg.get(name) is held


def test_a_record_from_a_second_import_of_its_module_is_the_same_record(tmp_path: Path, monkeypatch):
    """A module imported again makes new objects (new functions): still the same record, not a duplicate."""
    source = """
        from lotdata.annotate.checks import Rule, register_check_rule

        MADE = Rule("reimported_rule", "no letter x", row=lambda row, options: ["an x"] if "x" in row.get("text", "") else [])
        RULE = register_check_rule(MADE)
    """
    (tmp_path / "lotdata_reimport_demo.py").write_text(textwrap.dedent(source), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        module = importlib.import_module("lotdata_reimport_demo")
        first = module.RULE
        module = importlib.reload(module)
        assert module.MADE is not first and module.MADE.row is not first.row  # really another object
        assert module.RULE is first and get_check_rule("reimported_rule") is first
        assert CHECK_RULE_REGISTRY.module_of("reimported_rule") == "lotdata_reimport_demo"
        # the same name from another module is a duplicate, naming both
        other = tmp_path / "lotdata_reimport_other.py"
        other.write_text(textwrap.dedent(source).replace('"no letter x"', '"no x at all"'), encoding="utf-8")
        with pytest.raises(RegistryError, match="by lotdata_reimport_demo and by lotdata_reimport_other"):
            importlib.import_module("lotdata_reimport_other")
    finally:
        unregister_check_rule("reimported_rule")
        sys.modules.pop("lotdata_reimport_demo", None)
        sys.modules.pop("lotdata_reimport_other", None)
    assert "reimported_rule" not in CHECK_RULE_REGISTRY


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_an_unknown_name_is_an_error_listing_the_known_names(kind):
    reg = KINDS[kind][0]
    with pytest.raises(RegistryError) as caught:
        reg.get("no-such-record")
    message = str(caught.value)
    assert message.startswith(f"unknown {kind.replace('_', ' ')} 'no-such-record'; known: ")
    assert message.endswith(", ".join(reg.names())) and len(reg.names()) >= 2
    assert caught.value.exit_code == 1 and isinstance(caught.value, ValueError)


def test_a_built_in_record_cannot_be_unregistered_but_can_be_swapped_for_a_test():
    held = CHECK_RULE_REGISTRY.get("title")
    with pytest.raises(RegistryError, match="built in"):
        CHECK_RULE_REGISTRY.unregister("title")
    with CHECK_RULE_REGISTRY.override(replace(held, description="swapped")) as swapped:
        assert CHECK_RULE_REGISTRY.get("title") is swapped
        assert CHECK_RULE_REGISTRY.names() == [r.name for r in CHECK_RULE_REGISTRY.all()]
    assert CHECK_RULE_REGISTRY.get("title") is held and held in CHECK_RULE_REGISTRY.builtins()


# ---------------------------------------------------------------------------------------------
# a plug-in in another installed package: a module file and its dist-info on sys.path, no lotdata file edited

PLUGIN = """
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lotdata.annotate.checks import Rule, register_check_rule
from lotdata.annotate.jobs.base import JobSpec
from lotdata.datasets.formats import InputFormat, Record
from lotdata.stage import Stage, param, register_stage

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class DemoParams:
    k: int = param(3, "Stories kept.", check=">0")


def run(ctx, params, execution, table, index):
    pass


# an entry point naming this module: importing it registers the stage
STAGE = register_stage(Stage(name="demo_head", params=DemoParams, run=run, order=45, summary="demo", output="-"))


def parse_tales(path):
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        story_id, _, text = line.partition("\\t")
        yield Record(row=n, raw=line, text=text, source_id=story_id)


# an entry point naming a record: the registry registers it
TALES = InputFormat(
    name="demo_tales", description="id<TAB>story lines", detect=lambda p: p.suffix == ".demotales", parse=parse_tales
)


# an entry point naming a callable: calling it registers
def register_rules():
    register_check_rule(
        Rule("demo_no_x", "no letter x", row=lambda row, options: ["an x"] if "x" in row.get("text", "") else [])
    )


# an entry point naming a callable that returns the record
def job():
    (HERE / "demo_job.en.xml").write_text(
        '<View><Text name="sentence" value="$sentence"/>'
        '<Choices name="ok" toName="sentence" choice="single" required="true"><Choice value="yes"/>'
        '<Choice value="no"/></Choices></View>',
        encoding="utf-8",
    )
    return JobSpec(
        name="demo_job",
        summary="is a sentence fine",
        input_help="jsonl of id, text",
        load=lambda path, splits: [],
        to_tasks=lambda rows, *, seed=0, lang="en": [],
        check=lambda values, data, hidden: dict(values),
        votes=lambda v: [("ok", v["ok"])],
        assemble=lambda anns: {"stats": {}},
        write=lambda assembled, output: {},
        demo_rows=lambda: [],
        simulate=lambda task, rater: [],
        templates={"en": HERE / "demo_job.en.xml"},
        lang="en",
        checks=("demo_no_x",),
    )
"""

ENTRY_POINTS = """
[lotdata.stages]
demo_head = lotdata_demo_plugin

[lotdata.formats]
demo_tales = lotdata_demo_plugin:TALES

[lotdata.check_rules]
demo_no_x = lotdata_demo_plugin:register_rules

[lotdata.annotation_jobs]
demo_job = lotdata_demo_plugin:job
"""

PLUGIN_RECORDS = {
    STAGE_REGISTRY: "demo_head",
    FORMAT_REGISTRY: "demo_tales",
    CHECK_RULE_REGISTRY: "demo_no_x",
    JOB_REGISTRY: "demo_job",
}


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    (site / "lotdata_demo_plugin.py").write_text(PLUGIN, encoding="utf-8")
    dist = site / "lotdata_demo_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: lotdata-demo-plugin\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    for reg in PLUGIN_RECORDS:
        reg.discover()  # read before the package is installed, as in a running program
        assert PLUGIN_RECORDS[reg] not in reg
    monkeypatch.syspath_prepend(str(site))
    yield site
    for reg, name in PLUGIN_RECORDS.items():
        reg.unregister(name)
    sys.modules.pop("lotdata_demo_plugin", None)
    monkeypatch.undo()
    for reg in registries():
        reg.discover(refresh=True)  # the package is gone again


def test_an_installed_plugin_registers_a_stage_a_format_a_check_rule_and_a_job(plugin: Path, tmp_path: Path):
    for reg in registries():
        reg.discover(refresh=True)  # a package installed since the first read
    for reg, name in PLUGIN_RECORDS.items():
        assert name in reg.names(), reg
        assert reg.module_of(name) == "lotdata_demo_plugin"
        assert name not in [reg._name_of(r) for r in reg.builtins()]
    # each works where lotdata asks its registry
    assert get_stage("demo_head").order == 45 and "demo_head" in [s.name for s in STAGE_REGISTRY.all()]
    tales = tmp_path / "corpus.demotales"
    tales.write_text("t1\tA fox ran home.\n", encoding="utf-8")
    assert detect_format(tales) == "demo_tales"
    result = run_checks([{"id": "1", "text": "a box"}, {"id": "2", "text": "a cat"}], ["demo_no_x"], CheckOptions())
    assert result.counts == {"demo_no_x": 1} and result.flags[0]["id"] == "1"
    assert "demo_job" in job_names() and "demo_job" in jobs_with_checks()
    from lotdata.annotate.commands import _checks_help

    assert "demo_job (demo_no_x)" in _checks_help()


def test_a_plugin_that_fails_to_load_is_named(tmp_path: Path, monkeypatch):
    site = tmp_path / "site"
    dist = site / "lotdata_broken_plugin-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: lotdata-broken-plugin\nVersion: 0.1\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text("[lotdata.check_rules]\nbroken = lotdata_no_such_module\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    try:
        with pytest.raises(RegistryError, match="lotdata.check_rules entry point broken = lotdata_no_such_module"):
            CHECK_RULE_REGISTRY.discover(refresh=True)
    finally:
        monkeypatch.undo()
        CHECK_RULE_REGISTRY.discover(refresh=True)
    assert "title" in CHECK_RULE_REGISTRY.names()


# ---------------------------------------------------------------------------------------------
# help texts derived from the registry


def test_annotate_check_help_names_every_job_with_checks():
    result = CliRunner().invoke(app, ["annotate", "check", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = " ".join(re.sub("[│╭╮╰╯─]", " ", result.output).split())  # rich's box drawn round the help
    with_checks = {job.name for job in all_jobs() if job.checks}
    assert {"story_write", "sct_write", "story_filter", "clozet_write"} <= with_checks
    named = {name for name in job_names() if re.search(rf"\b{re.escape(name)}\b", text)}
    assert named == with_checks
    for job in all_jobs():  # each with the rules it runs
        if job.checks:
            assert f"{job.name} ({' '.join(job.checks)})" in text
