"""Stage records: every pipeline step declares itself once, and the recipe, its checks, the step runner,
`pipelines/README.md`'s key table and the CLI options are read from the records.

A stage is one module that calls `register_stage(Stage(...))` when imported (`lotdata/clean/stage.py` is
one): a parameters dataclass whose fields are `param(default, help, ...)` (name, type, default, help and
checks in one place), what it reads and writes, and `run(ctx, params)`, which does the step inside a recipe
run. The built-in stages are the modules named `stage.py` or `*_stage.py` in lotdata's stage folders, found
and imported the first time the registry (`STAGE_REGISTRY`, a `lotdata.registry.Registry`) is read, so this
layer imports none of the stages above it and a new stage is one new module (a plug-in's: the `lotdata.stages`
entry-point group); `tests/test_stage_conformance.py` checks every one.
"""

from __future__ import annotations

import json
import types
import typing
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any, Callable

from lotdata.errors import InputError, must_exist
from lotdata.exec import ExecSettings, fingerprint
from lotdata.io import MANIFEST_NAME, sha256_file, write_text
from lotdata.registry import Registry
from lotdata.resources import resolve_input

DONE_DIR = ".done"
#: the recipe's keys above the step tables
TOP_LEVEL = {
    "name": "free text",
    "version": "free text",
    "description": "free text",
    "out": "default output folder",
    "stories": "a stories Parquet path or a list of them",
}


# ---------------------------------------------------------------------------------------------
# parameters: a dataclass field with its help and checks


def param(
    default: Any = MISSING,
    help: str = "",
    *,
    check: str | None = None,
    choices: tuple[Any, ...] | Callable[[], list[Any]] | None = None,
    path: str | None = None,
    flag: str | None = None,
    cli: bool = True,
    recipe: bool = True,
    meaning: str | None = None,
    required: bool = False,
) -> Any:
    """A stage parameter. `check`: ">0", ">=0" or "share" (a number in (0, 1]); `choices`: the allowed
    values (or a function giving them, read when checked); `path`: "input" or "file" for a path checked
    before any step runs ("step" also takes an earlier step's out name); `flag`: the CLI spelling
    (default --name-with-dashes); `cli`/`recipe`: False keeps the parameter out of the command / recipe;
    `meaning`: the README's wording where it differs from the CLI help; `required`: a recipe must give it
    (the default then serves the library, e.g. `inputs=()` given apart)."""
    metadata = {
        "help": help,
        "check": check,
        "choices": choices,
        "path": path,
        "flag": flag,
        "cli": cli,
        "recipe": recipe,
        "meaning": meaning,
        "required": required,
    }
    return field(default=default, metadata=metadata)


@dataclass(frozen=True)
class ParamInfo:
    """One parameter as the recipe, the CLI and the README see it."""

    name: str
    kind: str  # "str", "int", "num", "bool", "list", "str|list", "table"
    default: Any  # MISSING: required
    help: str
    check: str | None
    choices: Any
    path: str | None
    flag: str
    cli: bool
    recipe: bool
    meaning: str | None
    optional: bool  # None is a value (the annotation allows it)
    must: bool = False  # required in a recipe though it has a default

    @property
    def required(self) -> bool:
        return self.must or self.default is MISSING

    def allowed(self) -> list[Any] | None:
        return None if self.choices is None else list(self.choices() if callable(self.choices) else self.choices)


def _kind(annotation: Any) -> tuple[str, bool]:
    """The recipe type of an annotation, and whether it allows None."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    optional = len(args) < len(typing.get_args(annotation))
    is_union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    if is_union and len(args) == 1:
        return _kind(args[0])[0], optional
    if is_union and set(map(_kind_name, args)) == {"str", "list"}:
        return "str|list", optional
    return _kind_name(annotation), optional


def _kind_name(annotation: Any) -> str:
    origin = typing.get_origin(annotation) or annotation
    names = {str: "str", int: "int", float: "num", bool: "bool", list: "list", tuple: "list", dict: "table"}
    if origin not in names:
        raise TypeError(f"a stage parameter must be str, int, float, bool, list[str] or dict, not {annotation!r}")
    return names[origin]


def params_of(cls: type) -> list[ParamInfo]:
    """The parameters of a stage's dataclass, in declaration order."""
    hints = typing.get_type_hints(cls)
    found = []
    for f in fields(cls):
        kind, optional = _kind(hints[f.name])
        meta = f.metadata
        default = (
            f.default
            if f.default is not MISSING
            else (f.default_factory() if f.default_factory is not MISSING else MISSING)
        )
        found.append(
            ParamInfo(
                name=f.name,
                kind=kind,
                default=default,
                help=meta.get("help", ""),
                check=meta.get("check"),
                choices=meta.get("choices"),
                path=meta.get("path"),
                flag=meta.get("flag") or "--" + f.name.replace("_", "-"),
                cli=meta.get("cli", True),
                recipe=meta.get("recipe", True),
                meaning=meta.get("meaning"),
                optional=optional,
                must=meta.get("required", False),
            )
        )
    return found


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_str_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


_KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "str": (lambda v: isinstance(v, str), "a string"),
    "int": (_is_int, "an integer"),
    "num": (_is_num, "a number"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "list": (_is_str_list, 'a list of strings, e.g. ["a", "b"]'),
    "str|list": (lambda v: isinstance(v, str) or _is_str_list(v), "a string or a list of strings"),
    "table": (lambda v: isinstance(v, dict), "a table, e.g. { key = 1 }"),
}
_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    ">0": (lambda v: v > 0, "> 0"),
    ">=0": (lambda v: v >= 0, ">= 0"),
    "share": (lambda v: 0 < v <= 1, "in (0, 1]"),
}


def in_range(check: str | None, value: Any) -> bool:
    """Whether the number `value` meets `check` (">0", ">=0", "share"; None: any)."""
    return check is None or _CHECKS[check][0](value)


def expected(info: ParamInfo) -> str:
    """What a value of `info` must be, in words ("an integer > 0")."""
    allowed = info.allowed() if not callable(info.choices) else None
    if allowed is not None:
        return " or ".join(json.dumps(v) for v in allowed)
    words = _KINDS[info.kind][1]
    return f"{words} {_CHECKS[info.check][1]}" if info.check else words


def check_value(info: ParamInfo, value: Any, where: str) -> None:
    """One value against its parameter's type, range and choices; InputError naming `where` and the key."""
    if value is None and info.optional:
        return
    ok, _ = _KINDS[info.kind]
    if not ok(value) or (info.check and not _CHECKS[info.check][0](value)):
        raise InputError(f"{where}: '{info.name}' must be {expected(info)}, not {value!r}")
    allowed = info.allowed()
    if allowed is not None and value not in allowed:
        raise InputError(f"{where}: '{info.name}' must be one of {allowed}, not {value!r}")


# ---------------------------------------------------------------------------------------------
# the records


@dataclass(frozen=True)
class Stage:
    """A pipeline step. `name` is its recipe table and step kind; `many`: the recipe holds it as an array of
    tables ([[build]]) rather than one ([read]); `order` places it among the steps (lower runs first);
    `params` is its dataclass of `param` fields; `executes`: it runs on the executor and takes
    `ExecSettings`' keys (workers, executor, ray_address) too. `run(ctx, params, table, index)` does the
    step in a recipe run (`table` is the recipe's table as written, `index` its number among [[steps]]).
    `runs_when(recipe)` says whether a recipe runs it (default: its table is there); `check(params)` raises
    ValueError for parameters that do not go together; `output_name(table)`: the name a later step may give
    for what this one wrote (a [[build]] out). `summary`/`output` are README's words. `source`: the step makes
    stories from outside (crawl, extract, read): a recipe needs one such step or a top-level `stories`.
    `tables`: other top-level tables of the recipe the step reads (crawl: `sites`, `defaults`).

    A step whose work is a command runs it through its record (`StepContext.command_step`), so it gets the
    command's guarantees (outputs checked against inputs, a lock per output, atomic publication, the exit
    codes) and its fingerprint."""

    name: str
    params: type
    run: Callable[..., None]
    order: int
    summary: str
    output: str
    many: bool = False
    executes: bool = False
    runs_when: Callable[[dict[str, Any]], bool] | None = None
    check: Callable[[Any], None] | None = None
    output_name: Callable[[dict[str, Any]], str] | None = None
    table: str | None = None  # README's words for the table(s), where not just [name] / [[name]]
    check_recipe: Callable[[dict[str, Any], Path], None] | None = None  # once, before any step (a recipe holding it)
    needs: tuple[tuple[str, str], ...] = ()  # optional (module, extra) pairs, checked before a recipe's first step
    where: Callable[[Any, dict[str, Any]], str | None] | None = None  # what it writes, under the run's folder
    source: bool = False  # makes stories from outside the recipe's run (a recipe needs a source)
    tables: tuple[str, ...] = ()  # other top-level recipe tables it reads

    def writes(self, params: Any, table: dict[str, Any]) -> str | None:
        """The file or folder the step writes, relative to the run's folder (None: nothing there): `where`,
        else its `out` parameter, else its `output_name`."""
        if self.where is not None:
            return self.where(params, table)
        out = getattr(params, "out", None)
        if out is not None:
            return str(out)
        return self.output_name(table) if self.output_name is not None else None

    def keys(self) -> list[ParamInfo]:
        """The recipe keys of the stage, its own then the executor's."""
        own = [p for p in params_of(self.params) if p.recipe]
        own = [p for p in own if p.required] + [p for p in own if not p.required]
        return own + (exec_params() if self.executes else [])

    def present(self, recipe: dict[str, Any]) -> bool:
        return self.runs_when(recipe) if self.runs_when is not None else self.name in recipe

    def parse(self, table: dict[str, Any], where: str) -> tuple[Any, ExecSettings]:
        """The table checked (unknown keys, types, ranges, choices, combinations) into its parameters."""
        known = {p.name: p for p in self.keys()}
        unknown = sorted(set(table) - set(known))
        if unknown:
            raise InputError(f"{where} has unknown key(s) {unknown}; known: {sorted(known)}")
        for info in known.values():
            if info.name in table:
                check_value(info, table[info.name], where)
            elif info.required:
                raise InputError(f"{where} needs the key '{info.name}' ({expected(info)})")
        own = {p.name for p in params_of(self.params)}
        params = self.params(**{k: v for k, v in table.items() if k in own})
        execution = exec_settings({k: v for k, v in table.items() if k not in own})
        if self.check is not None:
            try:
                self.check(params)
            except ValueError as exc:
                raise InputError(f"{where}: {exc}") from None
        return params, execution


def exec_params() -> list[ParamInfo]:
    return params_of(ExecSettings)


def exec_settings(values: dict[str, Any]) -> ExecSettings:
    return ExecSettings(**values)


#: every stage, in the order a recipe runs them; the built-in ones are the modules `lotdata/<folder>/stage.py`
#: and `lotdata/<folder>/*_stage.py`, a plug-in's come from the `lotdata.stages` entry-point group
STAGE_REGISTRY: Registry[Stage] = Registry(
    "stage",
    modules=("*/stage.py", "*/*_stage.py"),
    order=lambda stage: stage.order,
    check=lambda stage: params_of(stage.params),  # an unsupported annotation fails here, at registration
)


def register_stage(stage: Stage) -> Stage:
    """Add a stage (a module calls it when imported); a name another record holds is a RegistryError."""
    return STAGE_REGISTRY.register(stage, stacklevel=2)


def unregister_stage(name: str) -> None:
    """Forget a stage registered at run time (a test's made-up one)."""
    STAGE_REGISTRY.unregister(name)


def builtin_stage_modules() -> list[str]:
    """The modules of the built-in stages: `lotdata/<folder>/stage.py` and `lotdata/<folder>/*_stage.py`."""
    return list(STAGE_REGISTRY.builtin_modules())


def stages() -> list[Stage]:
    """Every registered stage in the order a recipe runs them (the built-in ones imported on first use)."""
    return STAGE_REGISTRY.all()


def source_stages() -> list[Stage]:
    """The stages that make stories from outside a recipe's run (`Stage.source`), in the order they run."""
    return [stage for stage in stages() if stage.source]


def source_words() -> str:
    """How a recipe asks for a source, in words: each source stage's table, or a top-level `stories` path."""
    tables = [f"[[{s.tables[0]}]] ({s.name})" if s.tables else f"[{s.name}]" for s in source_stages()]
    return ", ".join(tables) + (" or " if tables else "") + "a top-level stories = '...' path"


def builtin_stages() -> list[Stage]:
    """The stages lotdata ships (a stage registered elsewhere, e.g. by a test or a plug-in, is not one)."""
    return STAGE_REGISTRY.builtins()


def get_stage(name: str) -> Stage:
    """The stage `name` (RegistryError naming the stages when there is none)."""
    return STAGE_REGISTRY.get(name)


def recipe_schema() -> dict[str, dict[str, ParamInfo]]:
    """table -> key -> parameter, derived from the records (the recipe's whole vocabulary)."""
    return {stage.name: {p.name: p for p in stage.keys()} for stage in stages()}


# ---------------------------------------------------------------------------------------------
# a step inside a recipe run


@dataclass
class StepResult:
    name: str
    outputs: list[Path]
    skipped: bool
    summary: dict[str, Any] = field(default_factory=dict)


@dataclass
class StepContext:
    """What a step sees of the run: the recipe (`path`, the tables), the output folder `root`, the stories
    tables so far (`stories`, which a step may replace), the folders earlier steps wrote by name (`built`),
    and the caller's callbacks."""

    recipe: dict[str, Any]
    path: Path
    root: Path
    force: bool = False
    on_step: Callable[[StepResult], None] | None = None
    progress_factory: Callable[[str], tuple[Callable[[int], None], Callable[[int], None]]] | None = None
    on_page: Callable[[dict[str, Any]], None] | None = None
    on_warning: Callable[[str], None] | None = None
    results: list[StepResult] = field(default_factory=list)
    built: dict[str, Path] = field(default_factory=dict)
    stories: list[Path] = field(default_factory=list)

    @property
    def command(self) -> str:
        return f"lotdata run {self.path} --out {self.root}"

    def relative(self, value: str | Path) -> Path:
        """A path as the recipe gives it: absolute, existing where the run is, else beside the recipe;
        `lotdata:sample` is the embedded corpus."""
        if str(value) == "lotdata:sample":
            return resolve_input(value)
        candidate = Path(value)
        if candidate.is_absolute() or candidate.exists():
            return candidate
        return self.path.parent / candidate

    def step_input(self, value: str) -> Path:
        """A [[build]] out name (a folder of this run) or a path relative to the recipe."""
        built = self.root / value
        return built if built.exists() else self.relative(value)

    def finish(self, result: StepResult) -> None:
        self.results.append(result)
        if self.on_step:
            self.on_step(result)

    def cached(self, name: str, payload: dict[str, Any], inputs: list[Path], outputs: list[Path]) -> str | None:
        """The fingerprint of a step that has no command record, or None when it is done already (then reported
        as skipped). The rule is the commands' (`lotdata.exec.fingerprint`): execution settings
        (`ExecSettings`' keys: workers, executor, ray_address) change how a step runs, never what it makes, so
        they are dropped from `payload` (at any depth); the input files are hashed."""
        return self._unless_done(name, fingerprint(name, payload, inputs), outputs)

    def command_step(
        self,
        name: str,
        command: Any,
        params: Any,
        outputs: list[Path],
        *,
        hooks: dict[str, Any] | None = None,
        summary: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> dict[str, Any] | None:
        """Run a step as its command (`command`, a `lotdata.command.Command` record, with its `params`): through
        the one runner, so the step gets what the command gets on the command line (its parameters checked,
        outputs against inputs, a lock per output, the outputs built beside their targets and swapped in whole,
        the exit codes). Done already (the marker holds `command.fingerprint(params)` and `outputs` still hold
        the sha256 recorded): skipped, None. Else the command's summary (the marker keeps `summary(it)`)."""
        fp = self._unless_done(name, command.fingerprint(params), outputs)
        if fp is None:
            return None
        result = command.run(params, hooks={"command": self.command, **(hooks or {})})
        self.done(name, fp, summary(result) if summary is not None else result, outputs)
        return result

    def _unless_done(self, name: str, fp: str, outputs: list[Path]) -> str | None:
        if not self.force and is_done(self.root, name, fp, outputs):
            self.finish(StepResult(name, outputs, skipped=True))
            return None
        return fp

    def done(self, name: str, fp: str, summary: dict[str, Any], outputs: list[Path]) -> None:
        record = {"fingerprint": fp, "summary": summary, "outputs": output_hashes(outputs)}
        write_text(json.dumps(record, indent=2, default=str), self.root / DONE_DIR / f"{name}.json")
        self.finish(StepResult(name, outputs, skipped=False, summary=summary))


def output_hashes(outputs: list[Path]) -> dict[str, str | None]:
    """sha256 of every output file on disk (None: missing): a file output itself, or each file a dataset
    folder's manifest lists (its splits and LOT files)."""
    files: list[Path] = []
    for output in outputs:
        if output.name == MANIFEST_NAME:
            manifest = json.loads(output.read_text(encoding="utf-8"))
            files += [output.parent / entry["file"] for entry in (manifest.get("splits") or {}).values()]
            files += [output.parent / rel for rel in (manifest.get("lot_files") or {})]
        else:
            files.append(output)
    return {str(f): sha256_file(f) if f.is_file() else None for f in files}


def is_done(root: Path, name: str, fp: str, outputs: list[Path]) -> bool:
    """Done: the marker's fingerprint matches and every output file is there with the sha256 recorded for it."""
    marker = root / DONE_DIR / f"{name}.json"
    if not marker.exists() or not all(p.exists() for p in outputs):
        return False
    try:
        done = json.loads(marker.read_text())
        if done.get("fingerprint") != fp or not done.get("outputs"):
            return False
        current = output_hashes(outputs)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    return None not in current.values() and current == done["outputs"]


def command_params(
    command: Any,
    params: Any,
    execution: ExecSettings | None = None,
    /,
    *,
    given_apart: tuple[str, ...] = (),
    **given: Any,
) -> Any:
    """A step's parameters as its command's (`command.params`, the record's dataclass, which extends the
    stage's): every field they share, the executor's settings, then `given` (the paths the step resolved: inputs
    beside the recipe, outputs under the run's folder; any name, `params` too). A None the step leaves unset
    takes the command's default. A parameter of the step that the command lacks, set to other than its default,
    is a ValueError (it would be ignored) unless the step handles it apart (`given_apart`)."""
    cls = command.params
    names = {f.name: f for f in fields(cls)}
    values = {}
    for f in fields(params):
        value = getattr(params, f.name)
        if f.name in names:
            if value is not None or names[f.name].default is None or names[f.name].default is MISSING:
                values[f.name] = value
        elif f.name not in given and f.name not in given_apart and value != _default_of(f):
            raise ValueError(f"'{f.name}' does not apply to `lotdata {command.name}`")
    if execution is not None:
        values.update({f.name: getattr(execution, f.name) for f in fields(execution) if f.name in names})
    values.update(given)
    return cls(**values)


def _default_of(f: Any) -> Any:
    return f.default_factory() if f.default_factory is not MISSING else f.default


def files_of(path: Path | None, any_suffix: bool = False) -> list[Path]:
    """The data files of an input: the file itself, or the Parquet/jsonl/json files under a folder."""
    if path is None or not path.exists():
        return []
    suffixes = (".parquet", ".jsonl", ".json")
    return (
        [path]
        if path.is_file()
        else sorted(p for p in path.rglob("*") if p.is_file() and (any_suffix or p.suffix in suffixes))
    )


def check_input(ctx: StepContext, value: str, info: ParamInfo, where: str, earlier: set[str]) -> None:
    """A path parameter names something that exists (exit 1, naming the recipe and key), or, for a
    `path="step"` parameter, an earlier step's out name."""
    if info.path == "step" and value in earlier:
        return
    what = "file" if info.path == "file" else "input"
    must_exist(ctx.relative(value), what, hint=f" ({where} {info.name})")


# ---------------------------------------------------------------------------------------------
# pipelines/README.md's key table


def _default_words(info: ParamInfo) -> str:
    if info.required:
        return " (required)"
    if info.default in (None, (), [], {}) or info.kind == "table":
        return ""
    value = (
        json.dumps(info.default)
        if isinstance(info.default, (bool, str))
        else f"{info.default:,}"
        if _is_num(info.default)
        else str(info.default)
    )
    return f" (`{value}`)"


def _type_words(info: ParamInfo) -> str:
    allowed = None if callable(info.choices) else info.allowed()
    if allowed is not None:
        return " / ".join(f"`{v}`" for v in allowed)
    if callable(info.choices):
        return "name"
    words = {
        "str": "path" if info.path else "string",
        "int": "integer",
        "num": "number",
        "bool": "bool",
        "list": "list of paths" if info.path else "list of strings",
        "str|list": "string or list",
        "table": "table",
    }[info.kind]
    return words + (f" {_CHECKS[info.check][1]}" if info.check else "")


def _documented() -> list[Stage]:
    """The built-in stages (a stage registered elsewhere, e.g. by a test, is not in the shipped README)."""
    return builtin_stages()


def keys_table() -> str:
    """The Markdown table of every recipe key (pipelines/README.md, "Keys"), from the records."""
    lines = ["| table | key | type (default) | meaning |", "| --- | --- | --- | --- |"]
    for stage in _documented():
        table = f"`[[{stage.name}]]`" if stage.many else f"`[{stage.name}]`"
        for i, info in enumerate(stage.keys()):
            meaning = (info.meaning or info.help).replace("|", "\\|").replace("\n", " ")
            lines.append(
                f"| {table if i == 0 else ''} | `{info.name}` | {_type_words(info)}{_default_words(info)} | {meaning} |"
            )
    return "\n".join(lines) + "\n"


def steps_table() -> str:
    """The Markdown table of the step kinds in the order they run (pipelines/README.md, "Steps")."""
    lines = [
        "| step | table | what it does | output (under `--out`, or the recipe's `out`) |",
        "| --- | --- | --- | --- |",
    ]
    for stage in _documented():
        table = stage.table or (f"`[[{stage.name}]]`" if stage.many else f"`[{stage.name}]`")
        lines.append(f"| {stage.name} | {table} | {stage.summary} | {stage.output} |")
    return "\n".join(lines) + "\n"


def render_readme(text: str) -> str:
    """`text` (pipelines/README.md) with the tables between its `<!-- stages:NAME -->` and
    `<!-- /stages:NAME -->` markers made again from the records (NAME: steps, keys)."""
    for name, table in (("steps", steps_table()), ("keys", keys_table())):
        start, end = f"<!-- stages:{name} -->\n", f"<!-- /stages:{name} -->"
        if start not in text or end not in text:
            raise ValueError(f"no {start.strip()} ... {end} markers in the text")
        head, rest = text.split(start, 1)
        text = head + start + table + end + rest.split(end, 1)[1]
    return text


if __name__ == "__main__":  # python -m lotdata.stage pipelines/README.md: write the tables again
    import sys

    from lotdata.stage import render_readme as render  # the registry lives in the imported module, not __main__

    readme = Path(sys.argv[1])
    readme.write_text(render(readme.read_text(encoding="utf-8")), encoding="utf-8")
