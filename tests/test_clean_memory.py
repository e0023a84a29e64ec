"""What keeps `clean`'s memory down: a worker never imports jieba (about 116 MiB with its POS tables), and a
shard decodes only its rows, whatever the row groups of the input (the outputs stay byte-identical)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from lotdata.clean.dedup import DedupParams
from lotdata.clean.files import clean_files, plan_clean_shards
from lotdata.clean.step import CleanParams
from lotdata.exec import ExecSettings
from lotdata.io import write_parquet
from lotdata.schema import STORIES, table_from_rows
from lotdata.sources.story import make_story_row

REPO = Path(__file__).resolve().parents[1]
OPENINGS = ["从前有一只小狐狸住在山脚下。", "新房子一天，小羊和小猴一起在树林里玩。", "小熊想给妈妈做一个生日蛋糕。"]
MIDDLE = (
    "它每天早上都去河边喝水，看见河里的小鱼游来游去。有一天，它想学游泳，结果掉进了水里，幸好一只老乌龟把它驮上了岸。"
)
PARAMS = CleanParams(min_chars=30, dedup=DedupParams(cluster_threshold=0.3, reject_threshold=0.7))


def _rows() -> list[dict]:
    rows = []
    for i in range(40):
        text = OPENINGS[i % 3] + MIDDLE[i % 7 :] + f"第{i}天它又去了。" * (1 + i % 4)
        rows.append(make_story_row(text, source=f"s{i % 3}", lang="zh", url=f"u#{i}"))
    return rows


def test_a_clean_shard_imports_no_jieba(tmp_path: Path) -> None:
    stories = tmp_path / "stories.parquet"
    write_parquet(table_from_rows(_rows(), STORIES), stories)
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from lotdata.clean.files import clean_shard, plan_clean_shards\n"
        "from lotdata.clean.step import CleanParams\n"
        f"shard = plan_clean_shards([{str(stories)!r}], 10)[1]\n"
        f"stats = clean_shard(shard, Path({str(tmp_path / 'part.arrow')!r}), CleanParams(min_chars=30))\n"
        "print(json.dumps({'stats': stats, 'modules': sorted({m.split('.')[0] for m in sys.modules}),\n"
        "                  'rjieba_package': 'rjieba' in sys.modules}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["stats"]["stories"] == 10
    assert "rjieba" in report["modules"]  # the POS tagger ran (glued_title) ...
    assert "jieba" not in report["modules"]  # ... without jieba
    assert not report["rjieba_package"]  # nor rjieba's default dictionary (its extension module alone)
    flags = pa.ipc.open_file(tmp_path / "part.arrow").read_all().column("flags").to_pylist()
    assert any("title_glued" in f for f in flags)  # 新房子|一天，


def test_row_groups_of_the_input_change_nothing(tmp_path: Path) -> None:
    table = table_from_rows(_rows(), STORIES)
    one, many = tmp_path / "one.parquet", tmp_path / "many.parquet"
    write_parquet(table, one)
    pq.write_table(table, many, row_group_size=6)  # shards of 7 rows cut across these groups
    assert pq.ParquetFile(many).metadata.num_row_groups == 7
    # a row group larger than a shard: the file is staged as Arrow IPC, whose shards slice their rows
    staged = plan_clean_shards([one], 7, stage=tmp_path / "stage")
    assert {Path(s.path).suffix for s in staged} == {".arrow"} and len(staged) == 6
    assert {s.path for s in plan_clean_shards([many], 7, stage=tmp_path / "stage")} == {str(many)}
    names = ("stories.parquet", "quarantine.parquet", "summary.parquet")
    outputs = {}
    for path, workers in ((one, 1), (many, 1), (many, 2)):
        out = tmp_path / f"{path.stem}-{workers}"
        result = clean_files(
            [path], out, PARAMS, execution=ExecSettings(workers=workers), rows_per_shard=7, progress=False
        )
        outputs[(path.stem, workers)] = [(out / name).read_bytes() for name in names]
        assert result.counts["stories_in"] == 40
    assert outputs[("many", 1)] == outputs[("one", 1)] and outputs[("many", 2)] == outputs[("one", 1)]
    kept = pq.read_table(tmp_path / "one-1" / "stories.parquet").to_pylist()
    assert 0 < len(kept) < 40  # the near-copies went: the comparison covers both outputs


def test_clean_builds_its_tables_as_table_from_rows_does_and_never_imports_pandas(tmp_path: Path) -> None:
    from lotdata.clean.columns import table_of
    from lotdata.clean.files import _PART

    rows = [
        {
            **row,
            "_rule": None if i % 3 else "length_min",
            "_evidence": None,
            "_len": len(row["text"]),
            "_sig": None if i % 2 else bytes(range(i)),
            "paragraph_breaks": [1, 2] if i == 4 else None,
            "http_status": 200 if i == 5 else None,
            "title": None if i == 6 else "t",
        }
        for i, row in enumerate(_rows())
    ]
    assert table_of(rows, _PART).equals(table_from_rows(rows, _PART))
    assert table_of([], _PART).equals(table_from_rows([], _PART))
    stories = tmp_path / "stories.parquet"
    write_parquet(table_from_rows(_rows(), STORIES), stories)
    script = (  # a whole run, driver and shards in one process: pyarrow imports pandas (~55 MiB) on a pa.array
        "import sys\n"
        "from lotdata.clean.files import clean_files\n"
        "from lotdata.clean.step import CleanParams\n"
        f"clean_files([{str(stories)!r}], {str(tmp_path / 'out')!r}, CleanParams(min_chars=30), progress=False)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'jieba', 'rjieba', 'rensa'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)
    assert done.stdout.strip().splitlines()[-1] == "['rensa', 'rjieba']"


def test_a_one_worker_clean_frees_the_tagger_and_the_language_model(tmp_path: Path) -> None:
    """Phase 1 in this process loads the part-of-speech tagger (about 25 MiB) and the language model; the later phases
    never use them, so the run frees them (a later tag builds the tagger again, with the same words)."""
    from lotdata.text import langid, postag

    stories = tmp_path / "stories.parquet"
    rows = _rows() + [make_story_row("This story is written in English, not in Chinese. " * 3, source="en", lang="zh")]
    write_parquet(table_from_rows(rows, STORIES), stories)
    clean_files([stories], tmp_path / "out", PARAMS, execution=ExecSettings(workers=1), progress=False)
    kept = pq.read_table(tmp_path / "out" / "stories.parquet", columns=["flags"]).column("flags").to_pylist()
    quarantine = pq.read_table(tmp_path / "out" / "quarantine.parquet", columns=["rule", "evidence"]).to_pylist()
    assert any("title_glued" in f for f in kept)  # the tagger ran (新房子|一天，) ...
    assert any(r["rule"] == "language" and "(en, model" in r["evidence"] for r in quarantine)  # the model ran
    assert postag._tagger.cache_info().currsize == 0 and langid._detector.cache_info().currsize == 0  # ... both freed
    assert postag.pos_words_nohmm("小猫钓鱼") == [("小猫", "n"), ("钓鱼", "n")]  # built again


def test_a_parquet_stories_file_named_arrow_is_read_as_parquet(tmp_path: Path) -> None:
    # the staged copies are Arrow IPC files named *.arrow: an input is told apart by its bytes, not its name
    path = tmp_path / "stories.arrow"
    pq.write_table(table_from_rows(_rows(), STORIES), path, row_group_size=6)
    result = clean_files(
        [path], tmp_path / "out", PARAMS, execution=ExecSettings(workers=1), rows_per_shard=7, progress=False
    )
    assert result.counts["stories_in"] == 40
