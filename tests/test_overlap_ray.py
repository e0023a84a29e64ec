"""The same overlap run on a local Ray instance (started here) equals the local process-pool run."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import write_stories

from lotdata.exec import ExecSettings
from lotdata.overlap import TokenSpec, load_test_set, measure_overlap

ray = pytest.importorskip("ray", reason="the ray extra is part of the test extra")


def test_ray_run_equals_local_run(tmp_path: Path) -> None:
    # test stories and a reference in which some of their sentences recur (text written for this test)
    sentences = [f"第{i}天，小猫在花园里追着一只黄色的蝴蝶跑了{i}圈，最后累得躺在草地上睡着了。" for i in range(40)]
    write_stories(tmp_path / "test.parquet", ["".join(sentences[i : i + 3]) for i in range(0, 39, 3)])
    (tmp_path / "ref.txt").write_text(
        "".join(sentences[i] + "无关的话。\n" for i in range(0, 40, 4)) * 3, encoding="utf-8"
    )
    test_set = load_test_set(tmp_path / "test.parquet")
    spec = TokenSpec(n=6)
    kwargs = dict(spec=spec, shard_bytes=700)
    local = measure_overlap(
        test_set, [str(tmp_path / "ref.txt")], tmp_path / "local", execution=ExecSettings(workers=2), **kwargs
    )
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = measure_overlap(
            test_set,
            [str(tmp_path / "ref.txt")],
            tmp_path / "ray",
            execution=ExecSettings(executor="ray", workers=2),
            **kwargs,
        )
    finally:
        ray.shutdown()
    assert local.scan["shards"] > 2 and local.summary[0]["examples"] > 0
    assert remote.summary == local.summary
    assert remote.examples == local.examples  # spans and their first reference document too
