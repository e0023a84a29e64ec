"""A dataset release a reviewer accepts: `croissant.json` (Croissant 1.0 with the Responsible-AI fields), the
card's extra Hugging Face YAML fields and its datasheet (Gebru et al.), all answered from what lotdata recorded.

One set of answers (`release_facts`) feeds the three: every figure comes from the dataset's manifest (and, when
`lotdata card` is given them, an `audit-bias` report and `overlap` summaries); what lotdata cannot know is an
answer that starts with `AUTHORS:` (`TO_FILL`), never a guess. An authors' file (`lotdata card --authors FILE`,
JSON or TOML) answers those questions; `lotdata card --check DIR` (`check_release`) validates the Croissant file
with `mlcroissant` and the card's YAML against the Hugging Face card fields, and lists what is still to fill.

What the manifests hold for this (written by the builders, imports and pulls):
- `sources`: per split, per source (corpus or site) the stories used, their licence and fetch dates
  (`sources_by_split`);
- `upstream`: the manifests of the folders a build read (a `clean` folder with its rule counts, a `crawl` folder
  with its robots.txt counts), `upstream_of`;
- `annotation`: for a pulled Label Studio job, the job, raters per item, agreement and the gold-task report.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import pyarrow as pa

from lotdata.datasets.licenses import license_tag, terms_of

CROISSANT_NAME = "croissant.json"
#: every answer lotdata cannot give starts with this
TO_FILL = "AUTHORS:"
CROISSANT_1_0 = "http://mlcommons.org/croissant/1.0"
RAI_1_0 = "http://mlcommons.org/croissant/RAI/1.0"

#: the questions only the authors can answer: key -> (question, where it goes)
AUTHOR_QUESTIONS: dict[str, str] = {
    "name": "the dataset's public name",
    "url": "the dataset's home page (where it is published)",
    "creators": "who made the dataset (names or organisations)",
    "cite_as": "the BibTeX to cite the dataset",
    "version": "the release version (e.g. 1.0.0)",
    "date_published": "the publication date (YYYY-MM-DD)",
    "funding": "who funded the work",
    "annotator_demographics": "who the raters were (language background, expertise, how they were recruited)",
    "annotator_pay": "how the raters were paid",
    "social_impact": "the dataset's possible social impact",
    "out_of_scope_uses": "uses the dataset must not be put to",
    "maintenance": "who maintains the dataset and how errata are published",
    "personal_information": "whether the stories name real people or hold personal data, and what was done about it",
}


def to_fill(key: str) -> str:
    return f"{TO_FILL} {AUTHOR_QUESTIONS[key]}"


# ---------------------------------------------------------------------------------------------------------------
# what the writers record


def sources_by_split(
    stories: Iterable[Mapping[str, Any]], by_split: Mapping[str, Sequence[Mapping[str, Any]]]
) -> dict[str, list[dict[str, Any]]]:
    """Per split, per source: the stories its examples came from, their licence(s) and fetch dates (a story
    whose row was not read, e.g. a ClozeT case's, counts under `source: null`)."""
    story_of = {s["story_id"]: s for s in stories}
    out: dict[str, list[dict[str, Any]]] = {}
    for split, rows in by_split.items():
        groups: dict[str | None, dict[str, Any]] = {}
        for story_id in sorted({r["story_id"] for r in rows}):
            story = story_of.get(story_id) or {}
            entry = groups.setdefault(
                story.get("source"), {"source": story.get("source"), "stories": 0, "licenses": Counter(), "dates": []}
            )
            entry["stories"] += 1
            entry["licenses"][story.get("license") or "not recorded"] += 1
            if story.get("fetched_at"):
                entry["dates"].append(story["fetched_at"])
        out[split] = [
            {
                "source": g["source"],
                "stories": g["stories"],
                "licenses": dict(sorted(g["licenses"].items())),
                "fetched": [min(g["dates"]), max(g["dates"])] if g["dates"] else None,
            }
            for g in sorted(groups.values(), key=lambda g: (g["source"] is None, g["source"] or ""))
        ]
    return out


def upstream_of(files: Iterable[str | Path]) -> list[dict[str, Any]]:
    """What made the files a dataset was written from: the manifest of each one's folder (a `clean` or `crawl`
    output), with a clean folder's rule counts (`summary.parquet`). Files without one give nothing."""
    found: list[dict[str, Any]] = []
    seen: set[Path] = set()
    for file in files:
        folder = Path(file).parent
        manifest_path = folder / "manifest.json"
        if folder in seen or not manifest_path.is_file():
            continue
        seen.add(folder)
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(manifest, dict) or manifest.get("kind") not in ("clean", "crawl", "stories-splits"):
            continue
        entry = {k: manifest.get(k) for k in ("kind", "command", "params", "stats", "created_at")}
        entry["folder"] = str(folder)
        entry["inputs"] = [i.get("path") for i in manifest.get("inputs") or [] if isinstance(i, dict)]
        summary = folder / "summary.parquet"
        if manifest.get("kind") == "clean" and summary.is_file():
            import pyarrow.parquet as pq

            entry["rules"] = pq.read_table(summary).to_pylist()
        found.append(entry)
    return found


def _pii_checked(up: dict[str, Any]) -> list[str]:
    """What `lotdata clean`'s `pii` rule did (its manifest's stats), in the card's words; nothing for a clean run
    made before the rule (issue 37)."""
    pii = (up.get("stats") or {}).get("pii")
    if not isinstance(pii, dict):
        return []
    actions = pii.get("actions") or {}
    found = pii.get("found") or {}
    done = ", ".join(f"{kind} {action}" for kind, action in actions.items())
    counts = ", ".join(f"{kind} {n['values']} values in {n['stories']} stories" for kind, n in found.items())
    return [
        f"`lotdata clean` looked for personal information (phone numbers, Chinese resident ID numbers, e-mail "
        f"addresses, QQ and WeChat ids, street addresses; actions: {done}): " + (counts or "none found") + "; names of "
        "people are not looked for (bench/pii.md measures the rule)"
    ]


def licenses_of_inputs(files: Iterable[str | Path]) -> list[str]:
    """The licences recorded by the dataset folders whose split files were read (a filtered or derived dataset keeps
    its input's licences)."""
    found: set[str] = set()
    for folder in {Path(f).parent for f in files}:
        try:
            manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(manifest, dict) and manifest.get("kind") == "dataset":
            found.update(lic for lic in manifest.get("licenses") or [] if isinstance(lic, str))
    return sorted(found)


def annotation_record(
    job: str,
    votes_by_item: Mapping[Any, set[str]],
    agreement: Mapping[str, Any],
    gold: Mapping[str, Any],
    *,
    qualification: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """What a pulled job's dataset card says of its annotation: raters per item, raters, agreement, gold tasks and
    where each rater stands with the qualification quiz (None: the job had none)."""
    counts = [len(raters) for raters in votes_by_item.values()]
    raters = sorted({r for rs in votes_by_item.values() for r in rs})
    median = statistics.median(counts) if counts else None
    median = int(median) if median is not None and median == int(median) else median
    return {
        "job": job,
        "platform": "Label Studio",
        "items": len(counts),
        "raters": len(raters),
        "raters_per_item": ({"min": min(counts), "median": median, "max": max(counts)} if counts else None),
        "agreement": dict(agreement.get("questions") or {}),
        "gold": {k: gold.get(k) for k in ("min_accuracy", "flagged", "raters", "dropped") if k in gold},
        "qualification": dict(qualification) if qualification else None,
        "aggregation": {k: (agreement.get("aggregation") or {}).get(k) for k in ("method", "near_chance")}
        if agreement.get("aggregation")
        else None,
    }


# ---------------------------------------------------------------------------------------------------------------
# the answers


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _sources_text(sources: Mapping[str, list[Mapping[str, Any]]]) -> list[str]:
    lines = []
    for split, entries in sources.items():
        parts = []
        for e in entries:
            licences = ", ".join(f"{lic} ({n})" for lic, n in e["licenses"].items())
            dates = f", fetched {e['fetched'][0]} to {e['fetched'][1]}" if e.get("fetched") else ""
            parts.append(f"{e['source'] or 'source not recorded'}: {e['stories']} stories, licence {licences}{dates}")
        lines.append(f"{split}: " + "; ".join(parts))
    return lines


def _origin(manifest: Mapping[str, Any]) -> str:
    if manifest.get("annotation"):
        return "annotation"
    if str(manifest.get("command", "")).startswith("lotdata import") or "examples_imported" in (
        manifest.get("stats") or {}
    ):
        return "import"
    if "environment" in manifest or manifest.get("sources"):
        return "build"
    return "derived"  # made from another dataset (overlap --write-filtered, an export): no annotation of its own


def _collection(manifest: Mapping[str, Any], origin: str) -> tuple[str, list[str], list[str]]:
    """rai:dataCollection, rai:dataCollectionType and the raw data (inputs with their sha256)."""
    parts, kinds = [], []
    inputs = [f"{i['path']} (sha256 {i['sha256']})" for i in manifest.get("inputs") or []]
    for up in manifest.get("upstream") or []:
        stats = {k: v for k, v in (up.get("stats") or {}).items() if not any(t in k for t in ("second", "phase"))}
        if up.get("kind") == "crawl":
            kinds.append("Web Scraping")
            params = up.get("params") or {}
            parts.append(
                f"Crawled with `{up.get('command')}` (sites {', '.join(params.get('sites') or [])}, recipe "
                f"{params.get('recipe')}): robots.txt fetched per host and obeyed for the "
                "crawler's user agent (RFC 9309; a 5xx or unreachable robots.txt forbids the host), a rate limit per "
                f"host; the crawl's counts: {json.dumps(stats, ensure_ascii=False)}."
            )
        elif up.get("kind") == "clean":
            parts.append(
                f"Read from {', '.join(up.get('inputs') or []) or 'a stories table'} and cleaned with "
                f"`{up.get('command')}`."
            )
    sources = manifest.get("sources") or {}
    if sources:
        parts.append("Stories per split and source: " + " | ".join(_sources_text(sources)) + ".")
        if any(e.get("fetched") for entries in sources.values() for e in entries):
            kinds.append("Web Scraping")
        if any(not e.get("fetched") and e.get("source") for entries in sources.values() for e in entries):
            kinds.append("Secondary Data Analysis")
    if origin == "import":
        kinds.append("Secondary Data Analysis")
        parts.append(
            f"Imported with `{manifest.get('command')}` from {manifest.get('source_format') or 'files'}: "
            + ", ".join(i["path"] for i in manifest.get("inputs") or [])
            + ". How the source corpus itself was collected is told by its authors, not recorded by lotdata."
        )
    if origin == "annotation":
        ann = manifest["annotation"]
        kinds.append("Manual Human Curation")
        parts.append(
            f"Annotated on {ann.get('platform', 'Label Studio')} (job `{ann.get('job')}`) and pulled with "
            f"`{manifest.get('command')}`; the items came from {', '.join(ann.get('sources') or []) or 'the pushed input'}."
        )
    parts.append(f"Written by lotdata {manifest.get('lotdata_version', '')} (the date: dateCreated).")
    return " ".join(parts), sorted(set(kinds)) or ["Secondary Data Analysis"], inputs


def _preprocessing(manifest: Mapping[str, Any]) -> list[str]:
    lines = []
    for up in manifest.get("upstream") or []:
        if up.get("kind") != "clean":
            continue
        params, stats = up.get("params") or {}, up.get("stats") or {}
        lines.append(
            f"`{up.get('command')}`: {stats.get('stories_in')} stories in, {stats.get('kept')} kept, "
            f"{stats.get('removed')} removed; parameters {json.dumps(params, ensure_ascii=False)}."
        )
        by_rule: dict[tuple[str, str], int] = defaultdict(int)
        for row in up.get("rules") or []:
            by_rule[(row["rule"], row["action"])] += row["stories"]
        if by_rule:
            lines.append(
                "Cleaning rules (stories per rule): "
                + "; ".join(f"{rule} ({action}): {n}" for (rule, action), n in sorted(by_rule.items()))
                + "."
            )
    stats, rules = manifest.get("stats") or {}, manifest.get("drop_rules") or {}
    for unit, key in (
        ("stories", "stories_dropped"),
        ("paragraphs", "paragraphs_dropped"),
        ("annotated items", "annotation_dropped"),
    ):
        for reason, count in (stats.get(key) or {}).items():
            rule = f" ({rules[reason]})" if reason in rules else ""
            lines.append(f"Dropped {count} {unit}: {reason}{rule}.")
    if stats.get("removed_over_threshold"):
        lines.append(
            "Removed the examples whose n-gram overlap with the references is over the threshold, per split: "
            f"{json.dumps(stats['removed_over_threshold'])}."
        )
    if "quarantined" in stats:
        lines.append(f"{stats['quarantined']} record(s) of the input could not be read and were quarantined.")
    lines.append(
        f"`{manifest.get('command')}` with parameters {json.dumps(manifest.get('params') or {}, ensure_ascii=False)}"
        f" (seed {manifest.get('seed')})."
    )
    return lines


def _missing(manifest: Mapping[str, Any]) -> str:
    """rai:dataCollectionMissingData: what was left out and why (clean's removals, the build's drops, quarantine)."""
    removed: Counter = Counter()
    for up in manifest.get("upstream") or []:
        for row in up.get("rules") or []:
            if row.get("action") == "removed":
                removed[row["rule"]] += row["stories"]
    lines = [f"`lotdata clean` removed {n} stories: {rule}." for rule, n in sorted(removed.items())]
    lines += [line for line in _preprocessing(manifest) if line.startswith("Dropped") or "quarantined" in line]
    return " ".join(lines) or "no row was recorded as left out"


def _alpha_text(q: Mapping[str, Any]) -> str:
    """Krippendorff's alpha of a question with its 95% bootstrap interval, as the pull's agreement.json holds it."""
    alpha = q.get("krippendorff_alpha")
    if not alpha:
        return "Krippendorff's alpha and its interval: not measured by this pull"
    ci = alpha.get("ci95")
    boot = alpha.get("bootstrap") or {}
    return f"Krippendorff's alpha ({alpha.get('level')}) {alpha.get('alpha')}, 95% interval " + (
        f"{ci[0]}–{ci[1]} ({boot.get('resamples')} bootstrap resamples of the items)" if ci else "not measurable"
    )


def _annotation(manifest: Mapping[str, Any], origin: str, task: str) -> dict[str, Any]:
    """rai:dataAnnotationProtocol, Platform, Analysis, annotationsPerItem, machineAnnotationTools."""
    if origin == "annotation":
        ann = manifest["annotation"]
        rpi = ann.get("raters_per_item") or {}
        analysis = []
        for question, q in (ann.get("agreement") or {}).items():
            analysis.append(
                f"{question}: Fleiss' kappa {q.get('fleiss_kappa')} over {q.get('multi_rated')} items rated by two or "
                f"more raters ({q.get('items')} items, {q.get('majority')} with a majority); " + _alpha_text(q)
            )
        aggregation = ann.get("aggregation") or {}
        if aggregation:
            analysis.append(
                f"aggregation estimate ({aggregation.get('method')}): raters near chance: "
                + (", ".join(map(str, aggregation.get("near_chance") or [])) or "none")
            )
        gold = ann.get("gold") or {}
        protocol = [
            f"Label Studio job `{ann.get('job')}`: {ann.get('items')} items, {ann.get('raters')} raters; the job's "
            f"assembly decided the items ({json.dumps(manifest.get('stats') or {}, ensure_ascii=False)}).",
            "Gold tasks: " + (json.dumps(gold, ensure_ascii=False) if gold else "none recorded") + "; qualification "
            "quiz (`lotdata annotate qualify`): "
            + (
                "; ".join(f"{name}: {how}" for name, how in ann["qualification"].items())
                if ann.get("qualification")
                else "none was given for this job"
            ),
        ]
        per_item = (
            f"{rpi.get('median')} (min {rpi.get('min')}, max {rpi.get('max')}, over {ann.get('items')} items)"
            if rpi
            else "not recorded"
        )
        return {
            "protocol": protocol,
            "platform": [ann.get("platform", "Label Studio")],
            "analysis": analysis or ["no item was rated by two raters: agreement not measured"],
            "per_item": per_item,
            "tools": [f"lotdata {manifest.get('lotdata_version', '')} (Label Studio templates, assembly rules)"],
        }
    if origin == "import":
        return {
            "protocol": [
                f"Labels as published by the imported corpus ({manifest.get('source_format') or 'files'}); lotdata "
                f"added no annotation. {TO_FILL} how the source corpus was annotated (see its paper)."
            ],
            "platform": [f"{TO_FILL} the platform the source corpus was annotated on"],
            "analysis": [f"{TO_FILL} the source corpus's agreement, if its authors report one"],
            "per_item": f"{TO_FILL} raters per item in the source corpus (not recorded by lotdata)",
            "tools": [f"lotdata {manifest.get('lotdata_version', '')} (import only)"],
        }
    if origin == "derived":
        return {
            "protocol": [
                f"Derived with `{manifest.get('command')}` from "
                + (", ".join(i["path"] for i in manifest.get("inputs") or []) or "another dataset")
                + f": this step added no annotation. {TO_FILL} how the input was annotated (see the input's card)."
            ],
            "platform": [f"{TO_FILL} the input's annotation platform (see the input's card)"],
            "analysis": [f"{TO_FILL} the input's agreement (see the input's card)"],
            "per_item": f"{TO_FILL} raters per item of the input (see the input's card)",
            "tools": [f"lotdata {manifest.get('lotdata_version', '')}"],
        }
    return {
        "protocol": [
            f"No human annotation: every example was made automatically by `{manifest.get('command')}` "
            f"(lotdata's {task} builder)."
        ],
        "platform": ["none (automatic construction)"],
        "analysis": ["none: no human annotation"],
        "per_item": "0 (automatic construction)",
        "tools": [
            f"lotdata {manifest.get('lotdata_version', '')} build {task}; tokenizer "
            f"{(manifest.get('environment') or {}).get('tokenizer', 'n/a')}"
        ],
    }


def _audit_lines(audit: Mapping[str, Any] | None) -> list[str]:
    if not audit:
        return []
    lines = []
    results = audit.get("results") or []
    leaks = [r for r in results if r.get("verdict") == "leaks"]
    for r in leaks:
        lines.append(
            f"audit-bias {r['id']}: accuracy {_pct(r['accuracy'])} ({_pct(r['ci_low'])}–{_pct(r['ci_high'])}) "
            f"against chance {_pct(r['chance'])} on {r['n']} cases, Holm p {r['p_holm']:.2g}: leaks"
        )
    if results:
        lines.append(
            f"audit-bias: {len(leaks)} of {len(results)} baseline results leak the label; the others are near chance"
        )
    scan = audit.get("scan") or {}
    tokens = [t for t in scan.get("tokens") or [] if t.get("significant")]
    if tokens:
        shown = ", ".join(f"{t['token']} -> {t['label']} ({t['k']}/{t['n']})" for t in tokens[:15])
        lines.append(
            f"{scan.get('significant', len(tokens))} of {scan.get('tested_tokens')} tested tokens predict the label "
            f"(z > {scan.get('z_critical', 0):.2f}, alpha {scan.get('alpha')}); the strongest: {shown}"
        )
    return lines


def _leak_limitations(audit: Mapping[str, Any] | None) -> list[str]:
    """The audit's summary and its strongest leak, as limitations."""
    results = (audit or {}).get("results") or []
    leaks = [r for r in results if r.get("verdict") == "leaks"]
    if not leaks:
        return [f"audit-bias: none of {len(results)} baseline results leaks the label"] if results else []
    top = max(leaks, key=lambda r: r["accuracy"])
    return [
        f"audit-bias: {len(leaks)} of {len(results)} baseline results leak the label; the strongest, {top['id']}, "
        f"reaches {_pct(top['accuracy'])} against chance {_pct(top['chance'])}"
    ]


def _overlap_lines(overlaps: Sequence[Mapping[str, Any]]) -> list[str]:
    lines = []
    for summary in overlaps:
        refs = ", ".join(summary.get("references") or []) or "an index"
        params = summary.get("params") or {}
        for s in summary.get("splits") or []:
            lines.append(
                f"overlap of {s['split']} with {refs} ({params.get('n')}-grams): {_pct(s['percent'])} of its n-grams, "
                f"{s['examples']} examples share one, {s['examples_over']} above {params.get('threshold')}, "
                f"max {_pct(s['max_percent'])}"
            )
    return lines


def release_facts(
    manifest: Mapping[str, Any],
    *,
    limitations: Sequence[str] = (),
    audit: Mapping[str, Any] | None = None,
    overlaps: Sequence[Mapping[str, Any]] = (),
    authors: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The answers every release file gives, from the manifest (+ an audit report, overlap summaries and the
    authors' answers); each unknown is a `TO_FILL` string."""
    from lotdata.datasets.registry import get_task

    task = manifest["task"]
    spec = get_task(task)
    origin = _origin(manifest)
    authors = dict(authors or {})
    known = {k: authors[k] for k in AUTHOR_QUESTIONS if authors.get(k) not in (None, "", [])}
    collection, kinds, raw = _collection(manifest, origin)
    biases = _audit_lines(audit) + _overlap_lines(overlaps)
    sources = manifest.get("sources") or {}
    shares = Counter()
    for entries in sources.values():
        for e in entries:
            shares[e["source"] or "not recorded"] += e["stories"]
    if shares:
        total = sum(shares.values())
        biases.append("stories by source: " + ", ".join(f"{s} {_pct(n / total)}" for s, n in shares.most_common()))
    if not audit:
        biases.append(
            f"{TO_FILL} no audit was given: run `lotdata audit-bias DIR --out AUDIT` and `lotdata card DIR --audit "
            "AUDIT` to state the label leaks"
        )
    if not overlaps:
        biases.append(
            f"{TO_FILL} no overlap report was given: run `lotdata overlap DIR -r REFERENCE --out O` and `lotdata "
            "card DIR --overlap O` to state the overlap with pretraining text"
        )
    checked = []
    for up in manifest.get("upstream") or []:
        if up.get("kind") == "clean":
            rules = Counter()
            for row in up.get("rules") or []:
                rules[row["rule"]] += row["stories"]
            lexicon = {k: v for k, v in rules.items() if "lexicon" in k}
            checked.append(
                f"`lotdata clean` rejected the stories holding a term of its lexicon of unsuitable content "
                f"({(up.get('params') or {}).get('lexicon_terms')} terms; a content filter, not a detector of "
                "personal information): "
                + (", ".join(f"{k} {v} stories" for k, v in lexicon.items()) or "none matched")
            )
    pii = [line for up in manifest.get("upstream") or [] if up.get("kind") == "clean" for line in _pii_checked(up)]
    checked += pii or ["lotdata ran no detector of personal information (names, addresses, identifiers) on the text"]
    checked.append(known.get("personal_information") or to_fill("personal_information"))
    licences = manifest.get("licenses") or []
    return {
        "task": task,
        "origin": origin,
        "name": known.get("name") or f"lotdata-{task}",
        "description": f"{spec.card_description}. Built with lotdata the way the LOT benchmark (Guan et al., 2022) "
        "built its tasks.",
        "license_tag": license_tag(licences),
        "licenses": licences,
        "collection": collection,
        "collection_types": kinds,
        "raw_data": raw,
        "timeframe": _timeframe(sources),
        "preprocessing": _preprocessing(manifest),
        "missing": _missing(manifest),
        "annotation": _annotation(manifest, origin, task),
        "biases": biases,
        "limitations": list(limitations) + _leak_limitations(audit),
        "use_cases": [
            f"Evaluating models on LOT's {task} task: {spec.card_description}.",
            "Out of scope: " + str(known.get("out_of_scope_uses") or to_fill("out_of_scope_uses")),
        ],
        "personal": checked,
        **{k: known.get(k) for k in ("url", "creators", "version", "date_published", "funding")},
        "cite_as": known.get("cite_as") or to_fill("cite_as"),
        "annotator_demographics": known.get("annotator_demographics")
        or (to_fill("annotator_demographics") if origin != "build" else "none: no human annotation"),
        "annotator_pay": known.get("annotator_pay")
        or (to_fill("annotator_pay") if origin != "build" else "none: no human annotation"),
        "social_impact": known.get("social_impact") or to_fill("social_impact"),
        "maintenance": known.get("maintenance") or to_fill("maintenance"),
    }


def _timeframe(sources: Mapping[str, list[Mapping[str, Any]]]) -> list[str]:
    dates = [d for entries in sources.values() for e in entries if e.get("fetched") for d in e["fetched"]]
    return [min(dates), max(dates)] if dates else []


# ---------------------------------------------------------------------------------------------------------------
# croissant.json

_CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}


def _croissant_type(dtype: pa.DataType) -> tuple[str, bool]:
    """The Croissant dataType of an Arrow type, and whether the field repeats (a list)."""
    if pa.types.is_list(dtype) or pa.types.is_large_list(dtype):
        return _croissant_type(dtype.value_type)[0], True
    if pa.types.is_boolean(dtype):
        return "sc:Boolean", False
    if pa.types.is_integer(dtype):
        return "sc:Integer", False
    if pa.types.is_floating(dtype):
        return "sc:Float", False
    return "sc:Text", False


def _hf_feature(field: pa.Field) -> dict[str, Any]:
    """A `dataset_info.features` entry of the Hugging Face card for an Arrow field."""
    names = {"double": "float64", "float": "float32", "halffloat": "float16", "large_string": "large_string"}
    dtype = field.type
    if pa.types.is_list(dtype) or pa.types.is_large_list(dtype):
        return {"name": field.name, "list": names.get(str(dtype.value_type), str(dtype.value_type))}
    return {"name": field.name, "dtype": names.get(str(dtype), str(dtype))}


def croissant_dict(
    manifest: Mapping[str, Any], facts: Mapping[str, Any], schema: pa.Schema, splits: Sequence[str]
) -> dict[str, Any]:
    """The Croissant 1.0 document (with the RAI 1.0 fields) of a dataset folder: its split files with their sha256
    and a RecordSet per (non-empty) split with the task schema's fields."""
    entries = manifest.get("splits") or {}
    distribution, record_sets = [], []
    for split in splits:
        entry = entries[split]
        distribution.append(
            {
                "@type": "cr:FileObject",
                "@id": entry["file"],
                "name": entry["file"],
                "description": f"The {split} split ({entry['rows']} examples), Parquet.",
                "contentUrl": entry["file"],
                "encodingFormat": "application/x-parquet",
                "sha256": entry["sha256"],
            }
        )
        fields = []
        for field in schema:
            dtype, repeated = _croissant_type(field.type)
            item = {
                "@type": "cr:Field",
                "@id": f"{split}/{field.name}",
                "name": field.name,
                "dataType": dtype,
                "source": {"fileObject": {"@id": entry["file"]}, "extract": {"column": field.name}},
            }
            if repeated:
                item["repeated"] = True
            fields.append(item)
        record_sets.append(
            {
                "@type": "cr:RecordSet",
                "@id": split,
                "name": split,
                "description": f"{split}: {entry['rows']} {manifest['task']} examples.",
                "field": fields,
            }
        )
    licences = [terms_of(lic) for lic in facts["licenses"]]
    ann = facts["annotation"]
    doc: dict[str, Any] = {
        "@context": _CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": [CROISSANT_1_0, RAI_1_0],
        "name": facts["name"],
        "description": facts["description"],
        "license": [
            {"@type": "sc:CreativeWork", "name": t.name, **({"url": t.url} if t.url else {})}
            for t in licences
            if t is not None
        ]
        or [f"{TO_FILL} no source recorded a licence: the dataset's licence"],
        "citeAs": facts["cite_as"],
        "dateCreated": manifest.get("created_at"),
        "inLanguage": manifest.get("languages") or [],
        "keywords": ["lot", "story", manifest["task"]],
        "distribution": distribution,
        "recordSet": record_sets,
        "rai:dataCollection": facts["collection"],
        "rai:dataCollectionType": facts["collection_types"],
        "rai:dataCollectionRawData": "; ".join(facts["raw_data"]) or "not recorded",
        "rai:dataCollectionMissingData": facts["missing"],
        "rai:dataImputationProtocol": "none: lotdata fills in no missing value (a row it cannot use is left out and "
        "counted, see rai:dataCollectionMissingData)",
        "rai:dataPreprocessingProtocol": facts["preprocessing"],
        "rai:dataAnnotationProtocol": ann["protocol"],
        "rai:dataAnnotationPlatform": ann["platform"],
        "rai:dataAnnotationAnalysis": ann["analysis"],
        "rai:annotationsPerItem": ann["per_item"],
        "rai:annotatorDemographics": [facts["annotator_demographics"]],
        "rai:machineAnnotationTools": ann["tools"],
        "rai:dataBiases": facts["biases"],
        "rai:dataLimitations": facts["limitations"] or ["none recorded"],
        "rai:dataUseCases": facts["use_cases"],
        "rai:dataSocialImpact": facts["social_impact"],
        "rai:personalSensitiveInformation": facts["personal"],
        "rai:dataReleaseMaintenancePlan": facts["maintenance"],
    }
    if facts["timeframe"]:
        doc["rai:dataCollectionTimeframe"] = facts["timeframe"]
    for key, prop in (("url", "url"), ("version", "version"), ("date_published", "datePublished")):
        if facts.get(key):
            doc[prop] = facts[key]
    if facts.get("creators"):
        creators = facts["creators"] if isinstance(facts["creators"], list) else [facts["creators"]]
        doc["creator"] = [{"@type": "sc:Person", "name": str(c)} for c in creators]
    return doc


def write_croissant(folder: str | Path, doc: Mapping[str, Any], path: str | Path | None = None) -> Path:
    from lotdata.io import write_text

    return write_text(
        json.dumps(doc, ensure_ascii=False, indent=1) + "\n", Path(path) if path else Path(folder) / CROISSANT_NAME
    )


# ---------------------------------------------------------------------------------------------------------------
# the card: YAML fields and the datasheet


def _q(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML string


#: the jobs whose raters write text that goes into the dataset (a story, a wrong candidate, an ending)
WRITING_JOBS = ("story_write", "clozet_write", "sct_write")


def _language_creators(manifest: Mapping[str, Any]) -> list[str]:
    """`found` text; plus `other` where raters of a writing job wrote some of it (who they were: the authors')."""
    return ["found", "other"] if (manifest.get("annotation") or {}).get("job") in WRITING_JOBS else ["found"]


def yaml_fields(
    folder: Path, manifest: Mapping[str, Any], facts: Mapping[str, Any], schema: pa.Schema, splits: Sequence[str]
) -> list[str]:
    """The Hugging Face card fields lotdata used to leave out: annotations/language creators, source datasets,
    task ids, multilinguality, paperswithcode_id and dataset_info (features; per split its examples and its size in
    memory as Arrow, `num_bytes`; the Parquet files' bytes, `download_size`)."""
    import pyarrow.parquet as pq

    from lotdata.datasets.registry import get_task

    origin = facts["origin"]
    annotations = {"annotation": "other", "import": "found", "derived": "found", "build": "machine-generated"}[origin]
    crawled = any(up.get("kind") == "crawl" for up in manifest.get("upstream") or [])
    sources = sorted(
        {e["source"] for entries in (manifest.get("sources") or {}).values() for e in entries if e.get("source")}
    )
    if crawled:
        source_datasets = ["original"]
    elif sources:
        source_datasets = [f"extended|{s}" for s in sources]
    else:  # read, imported or annotated from data whose corpus the manifest does not name
        source_datasets = ["original"] if origin == "build" else ["extended"]
    languages = manifest.get("languages") or []
    category = get_task(manifest["task"]).card_category
    task_id = {"multiple-choice": "multiple-choice-qa", "text-generation": "language-modeling"}.get(category)
    lines = [
        "annotations_creators:",
        f"- {annotations}",
        "language_creators:",
        *[f"- {c}" for c in _language_creators(manifest)],
        f"multilinguality: {'multilingual' if len(languages) > 1 else 'monolingual'}",
        "source_datasets:",
        *[f"- {_q(s)}" for s in source_datasets],
        "task_ids:",
        *([f"- {task_id}"] if task_id else []),
        "paperswithcode_id: null",
    ]
    if facts["license_tag"] == "other":
        names = sorted({t.name for t in (terms_of(lic) for lic in facts["licenses"]) if t is not None})
        lines += [f"license_name: {_q(' + '.join(names))}"]
        links = sorted({t.url for t in (terms_of(lic) for lic in facts["licenses"]) if t is not None and t.url})
        if len(links) == 1:
            lines += [f"license_link: {_q(links[0])}"]
    lines += ["dataset_info:", "  features:"]
    for field in schema:
        feature = _hf_feature(field)
        key = "list" if "list" in feature else "dtype"
        lines += [f"  - name: {feature['name']}", f"    {key}: {feature[key]}"]
    lines += ["  splits:"]
    sizes = {s: pq.read_table(folder / manifest["splits"][s]["file"]).nbytes for s in splits}
    for split in splits:
        lines += [
            f"  - name: {split}",
            f"    num_bytes: {sizes[split]}",
            f"    num_examples: {manifest['splits'][split]['rows']}",
        ]
    files = sum((folder / manifest["splits"][s]["file"]).stat().st_size for s in splits)
    return lines + [f"  download_size: {files}", f"  dataset_size: {sum(sizes.values())}"]


def license_section(manifest: Mapping[str, Any]) -> list[str]:
    """`## 许可 License`: per split, the sources and their licences; a mix is said so."""
    sources = manifest.get("sources") or {}
    licences = manifest.get("licenses") or []
    lines = ["## 许可 License", ""]
    if not sources:
        terms = [terms_of(lic) for lic in licences]
        if not licences:
            return lines + [f"{TO_FILL} no source recorded a licence: state the dataset's licence.", ""]
        return lines + [f"- {t.name}: {t.note}" + (f" ({t.url})" if t.url else "") for t in terms if t] + [""]
    lines += ["| split | source | stories | licence | terms |", "| --- | --- | ---: | --- | --- |"]
    mixed = []
    for split, entries in sources.items():
        names = set()
        for e in entries:
            for lic, n in e["licenses"].items():
                t = terms_of(lic) if lic != "not recorded" else None
                names.add(t.name if t else "not recorded")
                terms = f"{t.note}" + (f" ({t.url})" if t and t.url else "") if t else f"{TO_FILL} the licence"
                lines.append(f"| {split} | {e['source'] or 'not recorded'} | {n} | {t.name if t else lic} | {terms} |")
        if len(names) > 1:
            mixed.append(f"{split} ({', '.join(sorted(names))})")
    lines.append("")
    if mixed:
        lines += [f"This dataset mixes licences: {'; '.join(mixed)}. Each story keeps its source's licence.", ""]
    return lines


def datasheet(facts: Mapping[str, Any]) -> list[str]:
    """The datasheet (Gebru et al., 2021), its questions answered from the facts; English, with Chinese headings."""
    ann = facts["annotation"]

    def bullets(items: Iterable[str]) -> list[str]:
        return [f"- {item}" for item in items]

    creators = facts.get("creators")
    return [
        "## 数据说明书 Datasheet (Gebru et al.)",
        "",
        "Answers marked `AUTHORS:` are what lotdata cannot know; `lotdata card --check DIR` lists them.",
        "",
        "### 动机 Motivation",
        "",
        f"- Purpose: {facts['use_cases'][0]}",
        f"- Creators: {', '.join(creators) if isinstance(creators, list) else creators or to_fill('creators')}",
        f"- Funding: {facts.get('funding') or to_fill('funding')}",
        "",
        "### 组成 Composition",
        "",
        f"- Sources and licences: {facts['license_tag']} ({', '.join(facts['licenses']) or 'none recorded'}); "
        "see 许可 License.",
        *bullets(f"Known limitation: {text}" for text in facts["limitations"]),
        *bullets(f"Personal information: {text}" for text in facts["personal"]),
        "",
        "### 收集过程 Collection process",
        "",
        f"- {facts['collection']}",
        f"- Collection type: {', '.join(facts['collection_types'])}",
        *(
            [f"- Time frame of the fetched pages: {facts['timeframe'][0]} to {facts['timeframe'][1]}"]
            if facts["timeframe"]
            else []
        ),
        "",
        "### 预处理与标注 Preprocessing, cleaning, labelling",
        "",
        *bullets(facts["preprocessing"]),
        *bullets(ann["protocol"]),
        f"- Platform: {', '.join(ann['platform'])}; annotations per item: {ann['per_item']}",
        *bullets(f"Agreement: {a}" for a in ann["analysis"]),
        f"- Raters: {facts['annotator_demographics']}",
        f"- Pay: {facts['annotator_pay']}",
        "",
        "### 偏差 Biases",
        "",
        *bullets(facts["biases"]),
        "",
        "### 用途 Uses",
        "",
        *bullets(facts["use_cases"]),
        f"- Social impact: {facts['social_impact']}",
        "",
        "### 发布与维护 Distribution and maintenance",
        "",
        f"- Home page: {facts.get('url') or to_fill('url')}; version: {facts.get('version') or to_fill('version')}; "
        f"published: {facts.get('date_published') or to_fill('date_published')}",
        f"- Maintenance: {facts['maintenance']}",
        f"- Citation: {facts['cite_as']}",
        "- `croissant.json` holds the same answers as Croissant 1.0 with the Responsible-AI fields.",
        "",
    ]


# ---------------------------------------------------------------------------------------------------------------
# inputs of `lotdata card`


def read_audit(folder: str | Path) -> dict[str, Any]:
    """An `audit-bias` report folder: its results.json (verdicts) and scan.json (leaking tokens)."""
    from lotdata.errors import InputError

    folder = Path(folder)
    try:
        results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
        scan_path = folder / "scan.json"
        scan = json.loads(scan_path.read_text(encoding="utf-8")) if scan_path.is_file() else {}
    except (OSError, ValueError) as exc:
        raise InputError(f"not an audit-bias report folder (results.json: {exc})", path=str(folder)) from None
    return {"results": results, "scan": scan}


def read_overlap(folder: str | Path) -> dict[str, Any]:
    """An `overlap` output folder's summary.json."""
    from lotdata.errors import InputError

    path = Path(folder) / "summary.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"not an overlap output folder ({exc})", path=str(folder)) from None


def read_authors(path: str | Path) -> dict[str, Any]:
    """The authors' answers (JSON or TOML): keys of `AUTHOR_QUESTIONS`; an unknown key is refused (exit 3)."""
    import tomllib

    from lotdata.errors import InputError

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the authors' answers ({exc})", path=str(path)) from None
    unknown = sorted(set(data) - set(AUTHOR_QUESTIONS))
    if unknown:
        raise InputError(
            f"unknown keys {unknown}; the authors' answers are: {', '.join(AUTHOR_QUESTIONS)}", path=str(path)
        )
    return data


# ---------------------------------------------------------------------------------------------------------------
# lotdata card --check

#: the Hugging Face dataset card fields a release needs (huggingface_hub.DatasetCardData's, plus configs and
#: dataset_info that `datasets` reads)
HF_REQUIRED = (
    "pretty_name",
    "license",
    "language",
    "annotations_creators",
    "language_creators",
    "multilinguality",
    "size_categories",
    "source_datasets",
    "task_categories",
    "task_ids",
    "configs",
    "dataset_info",
)
_HF_VALUES = {
    "annotations_creators": {
        "found",
        "crowdsourced",
        "expert-generated",
        "machine-generated",
        "no-annotation",
        "other",
    },
    "language_creators": {"found", "crowdsourced", "expert-generated", "machine-generated", "other"},
    "multilinguality": {"monolingual", "multilingual", "translation", "other"},
}


def card_yaml(card: Path) -> dict[str, Any]:
    import yaml

    text = card.read_text(encoding="utf-8")
    if not text.startswith("---\n") or "\n---" not in text[4:]:
        return {}
    header = text[4 : text.index("\n---", 4)]
    data = yaml.safe_load(header)
    return data if isinstance(data, dict) else {}


def _markers(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        return [f"{where}: {value[value.index(TO_FILL) :]}"] if TO_FILL in value else []
    if isinstance(value, list):
        return [m for i, v in enumerate(value) for m in _markers(v, f"{where}[{i}]")]
    if isinstance(value, dict):
        return [m for k, v in value.items() for m in _markers(v, f"{where}.{k}" if where else k)]
    return []


def _check_card(card: Path, errors: list[str]) -> list[str]:
    """The card's YAML against the Hugging Face fields (problems go to `errors`); the answers still to fill."""
    if not card.is_file():
        errors.append("README.md: missing (run `lotdata card DIR`)")
        return []
    meta = card_yaml(card)
    for key in HF_REQUIRED:
        if key not in meta or (meta[key] in (None, "", []) and key != "task_ids"):
            errors.append(f"README.md YAML: `{key}` is missing")
    if meta.get("license") == "unknown":
        errors.append("README.md YAML: `license` is unknown (pass --license to `read`, or the crawl recipe's license)")
    for key, allowed in _HF_VALUES.items():
        values = meta.get(key) if isinstance(meta.get(key), list) else [meta.get(key)]
        bad = [v for v in values if v is not None and v not in allowed]
        if bad:
            errors.append(f"README.md YAML: `{key}` has {bad}, not one of {sorted(allowed)}")
    lines = [line.strip() for line in card.read_text(encoding="utf-8").splitlines()]
    return _markers(meta, "README.md YAML") + [
        f"README.md: {line[line.index(TO_FILL) :]}"
        for line in lines
        if TO_FILL in line and "are what lotdata cannot know" not in line
    ]


def _check_croissant(path: Path, manifest: Mapping[str, Any], report: dict[str, Any]) -> None:
    """Validate the Croissant file with mlcroissant and load every RecordSet (rows compared with the manifest)."""
    from lotdata.errors import require

    doc = json.loads(path.read_text(encoding="utf-8"))
    report["to_fill"] += _markers(doc, CROISSANT_NAME)
    for key in ("url", "creator", "datePublished", "version"):
        if key not in doc:
            report["to_fill"].append(
                f"{CROISSANT_NAME}: `{key}` is absent ({TO_FILL} give it in `lotdata card --authors FILE`)"
            )
    mlc = require("mlcroissant", "release")
    import logging

    logging.getLogger("absl").setLevel(logging.ERROR)
    try:
        dataset = mlc.Dataset(jsonld=str(path))
    except mlc.ValidationError as exc:
        report["errors"] += [
            f"{CROISSANT_NAME} (mlcroissant): {line}" for line in str(exc).splitlines() if line.strip()
        ]
        return
    report["warnings"] += [f"{CROISSANT_NAME} (mlcroissant): {w}" for w in sorted(dataset.metadata.ctx.issues.warnings)]
    for record_set in dataset.metadata.record_sets:
        name = record_set.name
        rows = report["rows"][name] = sum(1 for _ in dataset.records(record_set=record_set.uuid))
        expected = (manifest.get("splits") or {}).get(name, {}).get("rows")
        if rows != expected:
            report["errors"].append(
                f"{CROISSANT_NAME}: record set {name!r} loads {rows} records, the manifest says {expected}"
            )


def check_release(folder: str | Path) -> dict[str, Any]:
    """Validate `croissant.json` with mlcroissant (offline: the split files are local) and load every RecordSet,
    comparing its rows with the manifest; check the card's YAML against the Hugging Face fields. Returns
    {"errors": [...], "to_fill": [...], "warnings": [...], "rows": {split: n}}; errors mean exit 1."""
    folder = Path(folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    errors: list[str] = []
    report: dict[str, Any] = {"errors": errors, "to_fill": [], "warnings": [], "rows": {}}
    report["to_fill"] = _check_card(folder / "README.md", errors)
    croissant = folder / CROISSANT_NAME
    if not croissant.is_file():
        errors.append(f"{CROISSANT_NAME}: missing (run `lotdata card DIR`)")
    else:
        _check_croissant(croissant, manifest, report)
    return report
