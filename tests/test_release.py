"""Issue 38: a release a reviewer accepts. On real builds of the shared corpora (a SenPos build of CMRC 2017, a Story
Cloze import, a SenPos refinement pulled from a real Label Studio): `croissant.json` validates with mlcroissant with no
error, holds the Responsible-AI fields with the figures of lotdata's own manifests and reports, and loads every split
with the row counts `datasets.load_dataset` gets; the card's YAML holds the Hugging Face fields; `card --check` exits
1 on a card whose licence was removed; every unknown is an `AUTHORS:` answer, never a guess."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.datasets.licenses import corpus_license, license_tag, terms_of
from lotdata.datasets.release import TO_FILL, card_yaml, check_release
from lotdata.io import sha256_file
from lotdata.schema import SENPOS

CMRC = "cmrc2017_children_stories/validation/cloze.valid.doc_query"
SCT = "storycloze_spring2016_labeled"
HF_FIELDS = (
    "annotations_creators",
    "language_creators",
    "multilinguality",
    "source_datasets",
    "task_ids",
    "paperswithcode_id",
    "dataset_info",
    "license",
    "configs",
)


def run(*args: str) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def croissant(folder: Path) -> dict:
    return json.loads((folder / "croissant.json").read_text(encoding="utf-8"))


def mlcroissant_rows(folder: Path) -> dict[str, int]:
    """Every RecordSet of the folder's croissant.json loaded by mlcroissant itself (raises on a validation error)."""
    import mlcroissant as mlc

    logging.getLogger("absl").setLevel(logging.ERROR)
    dataset = mlc.Dataset(jsonld=str(folder / "croissant.json"))
    return {rs.name: sum(1 for _ in dataset.records(record_set=rs.uuid)) for rs in dataset.metadata.record_sets}


def hf_rows(folder: Path) -> dict[str, int]:
    import datasets

    loaded = datasets.load_dataset(str(folder))
    return {split: table.num_rows for split, table in loaded.items()}


def assert_loads_everywhere(folder: Path) -> dict[str, int]:
    """mlcroissant and datasets load the same non-empty splits, with the manifest's row counts."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    expected = {s: e["rows"] for s, e in manifest["splits"].items() if e["rows"]}
    assert mlcroissant_rows(folder) == expected == hf_rows(folder)
    report = check_release(folder)
    assert report["errors"] == [] and report["rows"] == expected
    return expected


def assert_nothing_invented(doc: dict) -> None:
    """What lotdata cannot know is absent or an AUTHORS: answer; the core fields the authors give are not there."""
    for key in ("url", "creator", "datePublished", "version"):
        assert key not in doc
    assert doc["citeAs"].startswith(TO_FILL) and doc["rai:dataSocialImpact"].startswith(TO_FILL)
    assert doc["rai:dataReleaseMaintenancePlan"].startswith(TO_FILL)


@pytest.fixture(scope="module")
def senpos_build(tmp_path_factory, shared_data: Path) -> Path:
    """CMRC 2017 validation read (no --license: its terms are recognised), cleaned, SenPos built, overlap measured
    against LOT's OutGen dev stories, and the card written with that overlap."""
    root = tmp_path_factory.mktemp("release-senpos")
    run("read", shared_data / CMRC, "--out", root / "stories.parquet")
    run("clean", root / "stories.parquet", "--out", root / "clean")
    run("build", "senpos", "--stories", root / "clean", "--out", root / "senpos")
    ref = shared_data / "lot_outgen_dev" / "dev.jsonl"
    run("overlap", root / "senpos", "-r", ref, "--out", root / "overlap", "--write-filtered", root / "filtered")
    run("card", root / "senpos", "--overlap", root / "overlap")
    return root


def test_licences_are_recognised_by_name():
    assert terms_of("CC BY-SA 4.0").tag == terms_of("cc-by-sa-4.0").tag == "cc-by-sa-4.0"
    assert corpus_license("cmrc2017") == corpus_license("cft") == "CC-BY-SA-4.0"
    assert "non-commercial" in terms_of(corpus_license("c3")).note
    assert terms_of(corpus_license("storycloze")).tag == "other" and terms_of("lot").tag == "other"
    assert corpus_license("my_site") is None and terms_of(None) is None
    assert terms_of("Some EULA").name == "Some EULA" and terms_of("Some EULA").tag == "other"  # kept as given
    assert license_tag([]) == "unknown" and license_tag(["CC-BY-SA-4.0", "cc by-sa 4.0"]) == "cc-by-sa-4.0"
    assert license_tag(["CC-BY-SA-4.0", "CC0"]) == "other"


def test_read_carries_the_known_corpus_terms_and_the_given_license(tmp_path: Path, shared_data: Path):
    import pyarrow.parquet as pq

    run("read", shared_data / CMRC, "--out", tmp_path / "a.parquet")
    assert set(pq.read_table(tmp_path / "a.parquet").column("license").to_pylist()) == {"CC-BY-SA-4.0"}
    cft = shared_data / "cft_children_fairy_tale" / "children_fairy_tale" / "cft.zip"
    run("read", cft, "--out", tmp_path / "b.parquet")
    assert set(pq.read_table(tmp_path / "b.parquet").column("license").to_pylist()) == {"CC-BY-SA-4.0"}
    run("read", shared_data / CMRC, "--license", "CC0", "--out", tmp_path / "c.parquet")
    assert set(pq.read_table(tmp_path / "c.parquet").column("license").to_pylist()) == {"CC0"}  # --license wins


def test_a_senpos_build_of_cmrc_gives_a_croissant_with_lotdatas_own_figures(senpos_build: Path):
    folder = senpos_build / "senpos"
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    clean = json.loads((senpos_build / "clean" / "manifest.json").read_text(encoding="utf-8"))
    overlap = json.loads((senpos_build / "overlap" / "summary.json").read_text(encoding="utf-8"))
    rows = assert_loads_everywhere(folder)
    assert rows == {"train": 917, "val": 114, "test": 114}
    doc = croissant(folder)
    assert doc["conformsTo"] == ["http://mlcommons.org/croissant/1.0", "http://mlcommons.org/croissant/RAI/1.0"]
    # the files with their sha256, a RecordSet per split with the schema's fields and types
    assert {f["contentUrl"]: f["sha256"] for f in doc["distribution"]} == {
        e["file"]: sha256_file(folder / e["file"]) for e in manifest["splits"].values()
    }
    for record_set in doc["recordSet"]:
        fields = {f["name"]: f for f in record_set["field"]}
        assert list(fields) == SENPOS.names
        assert fields["label"]["dataType"] == "sc:Integer" and fields["refined"]["dataType"] == "sc:Boolean"
        assert fields["sentences"]["repeated"] is True and fields["removed"]["dataType"] == "sc:Text"
    # licence: CMRC 2017's terms, recognised by name when read
    assert doc["license"] == [
        {"@type": "sc:CreativeWork", "name": "CC-BY-SA-4.0", "url": "https://creativecommons.org/licenses/by-sa/4.0/"}
    ]
    # collection: the sources per split, as the build counted them
    for split, entries in manifest["sources"].items():
        assert entries == [
            {"source": "cmrc2017", "stories": rows[split], "licenses": {"CC-BY-SA-4.0": rows[split]}, "fetched": None}
        ]
        assert f"{split}: cmrc2017: {rows[split]} stories, licence CC-BY-SA-4.0" in doc["rai:dataCollection"]
    # preprocessing: the clean step's counts and rules, the build's drops
    steps = "\n".join(doc["rai:dataPreprocessingProtocol"])
    stats = clean["stats"]
    assert f"{stats['stories_in']} stories in, {stats['kept']} kept, {stats['removed']} removed" in steps
    assert f"near_duplicate (removed): {stats['removed']}" in steps
    assert (
        f"`lotdata clean` removed {stats['removed']} stories: near_duplicate." in doc["rai:dataCollectionMissingData"]
    )
    dropped = manifest["stats"]["stories_dropped"]
    assert all(f"Dropped {n} stories: {reason}" in steps for reason, n in dropped.items())
    # annotation: none, said so; biases: the overlap summary's own figures, with the reference named
    assert doc["rai:annotationsPerItem"] == "0 (automatic construction)"
    assert doc["rai:dataAnnotationPlatform"] == ["none (automatic construction)"]
    test = next(s for s in overlap["splits"] if s["split"] == "val")
    line = next(b for b in doc["rai:dataBiases"] if b.startswith("overlap of val with "))
    assert overlap["references"][0] in line and f"{100 * test['percent']:.1f}% of its n-grams" in line
    assert f"{test['examples']} examples share one, {test['examples_over']} above 0.1" in line
    # the clean step's pii rule (issue 37): what it looked for and what it found, from the clean manifest
    assert any("looked for personal information" in p for p in doc["rai:personalSensitiveInformation"])
    assert any(b.startswith(f"{TO_FILL} no audit was given") for b in doc["rai:dataBiases"])
    assert any("not refined by annotators" in text for text in doc["rai:dataLimitations"])
    assert_nothing_invented(doc)


def test_the_senpos_card_holds_the_hugging_face_fields_and_a_datasheet(senpos_build: Path):
    folder = senpos_build / "senpos"
    meta = card_yaml(folder / "README.md")
    assert all(key in meta for key in HF_FIELDS)
    assert meta["license"] == "cc-by-sa-4.0" and meta["language"] == ["zh"]
    assert meta["annotations_creators"] == ["machine-generated"] and meta["language_creators"] == ["found"]
    assert meta["multilinguality"] == "monolingual" and meta["source_datasets"] == ["extended|cmrc2017"]
    assert meta["task_ids"] == ["multiple-choice-qa"] and meta["paperswithcode_id"] is None
    info = meta["dataset_info"]
    assert {f["name"] for f in info["features"]} == set(SENPOS.names)
    assert {"name": "sentences", "list": "string"} in info["features"]
    assert {s["name"]: s["num_examples"] for s in info["splits"]} == {"train": 917, "val": 114, "test": 114}
    card = (folder / "README.md").read_text(encoding="utf-8")
    for heading in (
        "## 许可 License",
        "## 数据说明书 Datasheet",
        "### 动机 Motivation",
        "### 收集过程 Collection process",
    ):
        assert heading in card
    assert "| train | cmrc2017 | 917 | CC-BY-SA-4.0 |" in card and "mixes licences" not in card
    check = CliRunner().invoke(app, ["card", "--check", str(folder)], env={"COLUMNS": "200"})
    assert check.exit_code == 0, check.output
    assert "errors (0)" in check.output and "AUTHORS: the dataset's possible social impact" in check.output
    assert "croissant.json loads: train 917, val 114, test 114" in check.output


def test_card_check_exits_1_on_a_card_whose_license_was_removed(senpos_build: Path, tmp_path: Path):
    import shutil

    folder = shutil.copytree(senpos_build / "senpos", tmp_path / "senpos")
    card = folder / "README.md"
    card.write_text(
        "".join(line for line in card.read_text().splitlines(keepends=True) if not line.startswith("license:"))
    )
    check = CliRunner().invoke(app, ["card", "--check", str(folder)], env={"COLUMNS": "200"})
    assert check.exit_code == 1 and "README.md YAML: `license` is missing" in check.output
    (folder / "croissant.json").unlink()
    run("card", folder)  # written again: licence back, croissant.json back
    assert CliRunner().invoke(app, ["card", "--check", str(folder)]).exit_code == 0
    doc = croissant(folder)
    del doc["license"], doc["distribution"]
    (folder / "croissant.json").write_text(json.dumps(doc))
    check = CliRunner().invoke(app, ["card", "--check", str(folder)], env={"COLUMNS": "200"})
    assert check.exit_code == 1 and "croissant.json (mlcroissant)" in check.output


def test_the_authors_answers_fill_the_marked_fields(senpos_build: Path, tmp_path: Path):
    import shutil

    folder = shutil.copytree(senpos_build / "senpos", tmp_path / "senpos")
    answers = tmp_path / "authors.toml"
    answers.write_text(
        'name = "cmrc-senpos"\nurl = "https://example.org/cmrc-senpos"\ncreators = ["A. Author"]\n'
        'version = "1.0.0"\ndate_published = "2026-12-01"\ncite_as = "@misc{cmrcsenpos}"\n'
    )
    run("card", folder, "--authors", answers)
    doc = croissant(folder)
    assert doc["url"] == "https://example.org/cmrc-senpos" and doc["version"] == "1.0.0"
    assert doc["creator"] == [{"@type": "sc:Person", "name": "A. Author"}] and doc["citeAs"] == "@misc{cmrcsenpos}"
    report = check_release(folder)
    assert report["errors"] == [] and not any("`url` is absent" in t for t in report["to_fill"])
    assert mlcroissant_rows(folder) == {"train": 917, "val": 114, "test": 114}
    answers.write_text('homepage = "x"\n')
    refused = CliRunner().invoke(app, ["card", str(folder), "--authors", str(answers)])
    assert refused.exit_code == 3 and "unknown keys ['homepage']" in refused.output


def test_a_dataset_mixing_licences_says_so_per_split(tmp_path: Path, shared_data: Path):
    run("read", "lotdata:sample", "--license", "CC0", "--out", tmp_path / "sample.parquet")
    run("read", shared_data / CMRC, "--out", tmp_path / "cmrc.parquet")
    run("clean", tmp_path / "sample.parquet", tmp_path / "cmrc.parquet", "--out", tmp_path / "clean")
    run("build", "senpos", "--stories", tmp_path / "clean", "--out", tmp_path / "senpos")
    folder = tmp_path / "senpos"
    meta = card_yaml(folder / "README.md")
    assert meta["license"] == "other" and meta["license_name"] == "CC-BY-SA-4.0 + CC0-1.0"
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert "This dataset mixes licences: train (CC-BY-SA-4.0, CC0-1.0)" in card
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    train = {e["source"]: e for e in manifest["sources"]["train"]}
    assert set(train) == {"cmrc2017", "sample_stories"}
    assert train["sample_stories"]["licenses"] == {"CC0": train["sample_stories"]["stories"]}
    assert f"| train | sample_stories | {train['sample_stories']['stories']} | CC0-1.0 |" in card
    assert len(croissant(folder)["license"]) == 2
    assert_loads_everywhere(folder)


def test_a_story_cloze_import_with_its_audit(tmp_path: Path, shared_data: Path):
    folder, audit = tmp_path / "sct", tmp_path / "audit"
    run("import", "storycloze", "--val", shared_data / SCT / "val.csv", "--test", shared_data / SCT / "test.csv",
        "--out", folder)  # fmt: skip
    run("audit-bias", folder, "--out", audit, "--train-split", "val", "--baseline", "constant_first",
        "--baseline", "length", "--baseline", "ending_only")  # fmt: skip
    run("card", folder, "--audit", audit)
    assert assert_loads_everywhere(folder) == {"val": 1871, "test": 1871}
    doc = croissant(folder)
    results = json.loads((audit / "results.json").read_text(encoding="utf-8"))
    scan = json.loads((audit / "scan.json").read_text(encoding="utf-8"))
    ending = next(r for r in results if r["id"] == "ending_only/test")
    assert ending["verdict"] == "leaks"
    line = next(b for b in doc["rai:dataBiases"] if b.startswith("audit-bias ending_only/test"))
    assert f"accuracy {100 * ending['accuracy']:.1f}%" in line and f"on {ending['n']} cases" in line
    assert any(
        b.startswith(f"{scan['significant']} of {scan['tested_tokens']} tested tokens") for b in doc["rai:dataBiases"]
    )
    assert any("ending_only/test" in text for text in doc["rai:dataLimitations"])
    # the Story Cloze terms, recognised by name; the import's annotation is the source's, marked for the authors
    assert doc["license"][0]["name"] == "Story Cloze / ROCStories terms"
    assert doc["rai:annotationsPerItem"].startswith(TO_FILL)
    assert "Imported with `lotdata import storycloze`" in doc["rai:dataCollection"]
    meta = card_yaml(folder / "README.md")
    assert meta["license"] == "other" and meta["license_name"] == "Story Cloze / ROCStories terms"
    assert meta["annotations_creators"] == ["found"] and meta["language"] == ["en"]
    assert {s["name"]: s["num_examples"] for s in meta["dataset_info"]["splits"]} == {"val": 1871, "test": 1871}
    assert_nothing_invented(doc)


def test_a_folder_without_croissant_fails_the_check(tmp_path: Path):
    from lotdata.datasets.commands import sample_dataset

    folder = sample_dataset(tmp_path / "outgen")
    (folder / "croissant.json").unlink()
    check = CliRunner().invoke(app, ["card", "--check", str(folder)], env={"COLUMNS": "200"})
    assert check.exit_code == 1 and "croissant.json: missing" in check.output
    assert "`license` is unknown" in check.output  # lotdata's own sample corpus: no licence recorded


def test_a_senpos_refinement_pulled_from_label_studio(label_studio, conn, annotators, shared_data, tmp_path):
    """A SenPos build of CMRC 2017 refined on a real Label Studio by two raters: the pulled dataset (written by the
    same writer as every build) carries Label Studio, raters per item and the agreement of its own pull."""
    from labelstudio_support import annotate, choice, lotdata, tasks_by_uid

    run("read", shared_data / CMRC, "--out", tmp_path / "stories.parquet")
    senpos = tmp_path / "senpos"
    run("build", "senpos", "--stories", tmp_path / "stories.parquet", "--out", senpos, "--n", "20",
        "--split", "train=0.6,val=0.2,test=0.2")  # fmt: skip
    pushed = lotdata(label_studio, "annotate", "push", "senpos_refine", "--input", str(senpos), "--project", "release")
    assert pushed.exit_code == 0, pushed.output
    tasks = tasks_by_uid(conn, "release")
    raters = [annotators["ann1"], annotators["ann2"]]
    items = sorted(tasks.values(), key=lambda t: t["data"]["uid"])
    for n, task in enumerate(items):
        gap = str(task["hidden"]["original_gap"])
        for rater in raters:
            if n == 0 and rater == raters[1]:  # one disagreement
                annotate(conn, task, rater, [choice("verdict", "story", ["reject"])])
            else:
                annotate(conn, task, rater, [choice("gaps", "story", [gap]), choice("verdict", "story", ["keep"])])
    out = tmp_path / "refined"
    pulled = lotdata(label_studio, "annotate", "pull", "senpos_refine", "--project", "release", "--out", str(out))
    assert pulled.exit_code == 0, pulled.output
    folder = out / "senpos"
    rows = assert_loads_everywhere(folder)
    assert sum(rows.values()) >= 1
    agreement = json.loads((out / "agreement.json").read_text(encoding="utf-8"))
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    doc = croissant(folder)
    assert doc["rai:dataAnnotationPlatform"] == ["Label Studio"]
    assert doc["rai:annotationsPerItem"] == f"2 (min 2, max 2, over {len(items)} items)"
    gaps = agreement["questions"]["gaps"]  # what senpos_refine measures agreement on
    assert gaps["multi_rated"] == len(items) and gaps["fleiss_kappa"] is not None
    line = next(a for a in doc["rai:dataAnnotationAnalysis"] if a.startswith("gaps:"))
    assert f"Fleiss' kappa {gaps['fleiss_kappa']} over {gaps['multi_rated']} items" in line
    alpha = gaps["krippendorff_alpha"]  # alpha with its bootstrap interval, as the pull measured it
    assert (
        f"Krippendorff's alpha (nominal) {alpha['alpha']}, 95% interval {alpha['ci95'][0]}–{alpha['ci95'][1]}" in line
    )
    assert f"Label Studio job `senpos_refine`: {len(items)} items, 2 raters" in doc["rai:dataAnnotationProtocol"][0]
    assert manifest["annotation"]["raters_per_item"] == {"min": 2, "median": 2, "max": 2}
    assert (
        "qualification quiz (`lotdata annotate qualify`): none was given for this job"
        in (doc["rai:dataAnnotationProtocol"][1])
    )
    assert doc["license"][0]["name"] == "CC-BY-SA-4.0"  # carried from the build through the push
    assert doc["rai:annotatorDemographics"][0].startswith(TO_FILL)
    meta = card_yaml(folder / "README.md")
    assert meta["annotations_creators"] == ["other"] and meta["license"] == "cc-by-sa-4.0"
    assert_nothing_invented(doc)


def test_an_import_of_lots_own_outgen_stories_names_lots_terms(tmp_path: Path, shared_data: Path):
    folder = tmp_path / "outgen"
    dev = shared_data / "lot_outgen_dev" / "dev.jsonl"
    run("import", "lot", dev, "--task", "outgen", "--split", "val", "--license", "lot", "--out", folder)
    assert assert_loads_everywhere(folder) == {"val": 111}
    doc = croissant(folder)
    assert doc["license"] == [
        {"@type": "sc:CreativeWork", "name": "LOT terms", "url": "https://github.com/thu-coai/LOT-LongLM"}
    ]
    assert "from LOT jsonl: " in doc["rai:dataCollection"] and str(dev) in doc["rai:dataCollection"]
    meta = card_yaml(folder / "README.md")
    assert (
        meta["license"] == "other" and meta["license_name"] == "LOT terms" and meta["source_datasets"] == ["extended"]
    )
    assert meta["task_ids"] == ["language-modeling"] and meta["annotations_creators"] == ["found"]
    assert_nothing_invented(doc)


def test_the_w_o_overlap_set_keeps_its_inputs_licence_and_says_it_adds_no_annotation(senpos_build: Path):
    folder = senpos_build / "filtered"
    overlap = json.loads((senpos_build / "overlap" / "summary.json").read_text(encoding="utf-8"))
    rows = assert_loads_everywhere(folder)
    assert rows == {s["split"]: s["n_examples"] - s["examples_over"] for s in overlap["splits"]}
    doc = croissant(folder)
    assert doc["license"][0]["name"] == "CC-BY-SA-4.0" and card_yaml(folder / "README.md")["license"] == "cc-by-sa-4.0"
    assert (
        doc["rai:dataAnnotationProtocol"][0].startswith("Derived with `")
        and "added no annotation" in (doc["rai:dataAnnotationProtocol"][0])
    )
    removed = {s["split"]: s["examples_over"] for s in overlap["splits"]}
    assert f"over the threshold, per split: {json.dumps(removed)}" in "\n".join(doc["rai:dataPreprocessingProtocol"])
    assert doc["rai:annotationsPerItem"].startswith(TO_FILL)
