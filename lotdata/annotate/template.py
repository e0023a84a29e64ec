"""Label Studio labeling configs as data: which controls a template has, and results checked against them.

Label Studio stores whatever result a client sends (it does not check results against the config),
so every annotation we pull is validated here before it is used.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from lotdata.resources import asset_dir

CONTROL_TAGS = {
    "Choices": "choices",
    "TextArea": "textarea",
    "Number": "number",
    "Rating": "rating",
    "Ranker": "ranker",
}


class InvalidResult(ValueError):
    """An annotation result that does not match its template; the message is the quarantine reason."""


@dataclass(frozen=True)
class Control:
    name: str
    kind: str  # choices | textarea | number | rating
    to_name: str
    multiple: bool = False
    required: bool = False
    conditional: bool = False  # shown only when another control has a value (visibleWhen)
    choices: tuple[str, ...] = ()
    dynamic_choices: str | None = None  # task data field holding the choices ($field)
    min: float | None = None
    max: float | None = None


@dataclass(frozen=True)
class Template:
    name: str
    xml: str
    controls: Mapping[str, Control] = field(default_factory=dict)

    def parse(self, result: Any, data: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """{control name: value} from a Label Studio result list; raises InvalidResult when it does not fit."""
        if not isinstance(result, list):
            raise InvalidResult(f"result is {type(result).__name__}, expected a list of regions")
        values: dict[str, Any] = {}
        for i, item in enumerate(result):
            if not isinstance(item, Mapping):
                raise InvalidResult(f"result[{i}] is not an object")
            name = item.get("from_name")
            control = self.controls.get(name)
            if control is None:
                raise InvalidResult(
                    f"result[{i}]: unknown control {name!r} (template {self.name} has {sorted(self.controls)})"
                )
            if item.get("type") != control.kind:
                raise InvalidResult(f"{name}: type {item.get('type')!r}, expected {control.kind!r}")
            if item.get("to_name") != control.to_name:
                raise InvalidResult(f"{name}: to_name {item.get('to_name')!r}, expected {control.to_name!r}")
            if name in values:
                raise InvalidResult(f"{name}: answered twice")
            values[name] = _value(control, item.get("value"), data or {})
        for control in self.controls.values():
            if control.required and not control.conditional and control.name not in values:
                raise InvalidResult(f"{control.name}: required but missing")
        return values


def _value(control: Control, value: Any, data: Mapping[str, Any]) -> Any:
    if not isinstance(value, Mapping):
        raise InvalidResult(f"{control.name}: value is not an object")
    if control.kind == "choices":
        chosen = value.get("choices")
        if not isinstance(chosen, list) or not chosen or not all(isinstance(c, str) for c in chosen):
            raise InvalidResult(f"{control.name}: 'choices' must be a non-empty list of strings")
        allowed = control.choices or _dynamic(control, data)
        bad = [c for c in chosen if c not in allowed]
        if bad:
            raise InvalidResult(f"{control.name}: {bad} not among the choices {list(allowed)}")
        if not control.multiple:
            if len(chosen) != 1:
                raise InvalidResult(f"{control.name}: single choice, got {len(chosen)}")
            return chosen[0]
        return sorted(set(chosen), key=allowed.index)
    if control.kind == "textarea":
        text = value.get("text")
        if isinstance(text, str):
            text = [text]
        if not isinstance(text, list) or not all(isinstance(t, str) for t in text):
            raise InvalidResult(f"{control.name}: 'text' must be a list of strings")
        return "\n".join(text).strip()
    if control.kind == "ranker":
        return _ranked(control, value)
    key = "number" if control.kind == "number" else "rating"
    number = value.get(key)
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        raise InvalidResult(f"{control.name}: {key!r} must be a number, got {number!r}")
    if (control.min is not None and number < control.min) or (control.max is not None and number > control.max):
        raise InvalidResult(f"{control.name}: {number} outside [{control.min}, {control.max}]")
    return number


def _ranked(control: Control, value: Mapping[str, Any]) -> list[str]:
    """A List + Ranker result without buckets: `{"ranker": {LIST_NAME: [item ids in the rater's order]}}`."""
    ranker = value.get("ranker")
    if not isinstance(ranker, Mapping) or len(ranker) != 1:
        raise InvalidResult(f"{control.name}: 'ranker' must hold one list of item ids")
    (order,) = ranker.values()
    if not isinstance(order, list) or not all(isinstance(i, str) for i in order):
        raise InvalidResult(f"{control.name}: the ranked ids must be a list of strings")
    return order


def _dynamic(control: Control, data: Mapping[str, Any]) -> tuple[str, ...]:
    items = data.get(control.dynamic_choices or "", [])
    return tuple(str(item["value"]) if isinstance(item, Mapping) else str(item) for item in items)


def parse_template(name: str, xml: str) -> Template:
    root = ET.fromstring(xml)
    controls: dict[str, Control] = {}

    def walk(node: ET.Element, conditional: bool) -> None:
        conditional = conditional or "visibleWhen" in node.attrib
        kind = CONTROL_TAGS.get(node.tag)
        if kind:
            attr = node.attrib
            dynamic = attr.get("value", "")
            controls[attr["name"]] = Control(
                name=attr["name"],
                kind=kind,
                to_name=attr["toName"],
                multiple=attr.get("choice") == "multiple",
                required=attr.get("required") == "true",
                conditional=conditional,
                choices=tuple(c.attrib.get("alias", c.attrib["value"]) for c in node.iter("Choice")),
                dynamic_choices=dynamic[1:] if dynamic.startswith("$") else None,
                min=float(attr["min"]) if "min" in attr else None,
                max=float(attr["max"]) if "max" in attr else None,
            )
        for child in node:
            walk(child, conditional)

    walk(root, False)
    return Template(name=name, xml=xml, controls=controls)


@lru_cache(maxsize=None)
def load_template(name: str) -> Template:
    """A shipped template from `annotation_templates/NAME.xml`."""
    path = Path(asset_dir("annotation_templates")) / f"{name}.xml"
    if not path.exists():
        raise FileNotFoundError(f"no annotation template {name!r} in {path.parent}")
    return parse_template(name, path.read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def load_template_file(path: Path) -> Template:
    """A template from any XML file (a job outside the package names its own)."""
    if not path.exists():
        raise FileNotFoundError(f"no annotation template at {path}")
    return parse_template(path.stem, path.read_text(encoding="utf-8"))
