"""Model baselines on CPU with tiny models built from configs (no downloads)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import torch  # the `models` extra is part of `test`
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.models import baseline as bl
from lotdata.models.backbone import specials_of
from lotdata.models.choice import Encoder
from lotdata.models.config import BaselineConfig, GenerateSettings, TrainSettings, load_config
from lotdata.models.vocab import build_tokenizer

torch.set_num_threads(1)  # tiny models: one thread is faster than two fighting over a shared 2-core machine

runner = CliRunner()
WORDS = "今天 我们 小明 妈妈 学校 公园 下雨 太阳 朋友 跑步 吃饭 睡觉 老师 书本 小狗 河边".split()
TINY = {
    "num_hidden_layers": 1,
    "hidden_size": 32,
    "num_attention_heads": 2,
    "intermediate_size": 64,
    "max_position_embeddings": 256,
}


def _phrase(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(WORDS) for _ in range(n))


def clozet_rows(n: int, split: str, seed: int) -> list[dict]:
    """The right candidate ends in 很好, the wrong one in 不好: an obvious signal."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        label = rng.randint(0, 1)
        good, bad = _phrase(rng, 2) + "很好。", _phrase(rng, 2) + "不好。"
        rows.append(
            dict(
                example_id=f"{split}{i}",
                story_id=f"{split}{i}",
                split=split,
                lang="zh",
                label=label,
                context=f"{_phrase(rng, 4)}。<mask>{_phrase(rng, 4)}。",
                candidates=[good, bad] if label == 0 else [bad, good],
            )
        )
    return rows


def senpos_rows(n: int, split: str, seed: int) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        sentences = [_phrase(rng, 3) + "。" for _ in range(rng.randint(3, 5))]
        label = rng.randint(1, len(sentences) - 1)
        rows.append(
            dict(
                example_id=f"{split}{i}",
                story_id=f"{split}{i}",
                split=split,
                lang="zh",
                sentences=sentences,
                removed=_phrase(rng, 3) + "。",
                label=label,
                n_candidates=len(sentences) - 1,
                refined=False,
            )
        )
    return rows


def tiny_config(architecture: str = "bert", epochs: int = 2, lr: float = 2e-3, **model) -> BaselineConfig:
    return BaselineConfig(
        name=f"tiny-{architecture}",
        architecture=architecture,
        model={**TINY, **model},
        vocab_size=500,
        train=TrainSettings(batch_size=8, max_length=96, learning_rate=lr, epochs=epochs, seed=0, patience=5),
        generate=GenerateSettings(max_new_tokens=12, batch_size=8),
    )


def test_shipped_configs_load_with_the_papers_settings():
    names = ["vanilla_transformer", "bert", "roberta", "gpt2", "mt5", "longlm"]
    for name in names:
        config = load_config(Path(__file__).resolve().parents[1] / "baselines" / f"{name}.toml")
        assert (config.train.batch_size, config.train.max_length, config.train.learning_rate) == (12, 512, 3e-5), name
        assert (config.generate.top_k, config.generate.temperature) == (40, 0.7), name
        assert config.train.gpu_batch_size == config.generate.gpu_batch_size == "auto", (
            name
        )  # a GPU batch in every config
    vanilla = load_config(Path(__file__).resolve().parents[1] / "baselines" / "vanilla_transformer.toml")
    assert vanilla.model["num_hidden_layers"] == 3 and vanilla.model["hidden_size"] == 768


def test_senpos_layout_keeps_every_gap_when_truncated(tmp_path):
    tokenizer = build_tokenizer(["".join(WORDS) + "。"], tmp_path / "tok")
    sp = specials_of(tokenizer)
    row = senpos_rows(1, "train", 0)[0]
    row["sentences"] = [s * 20 for s in row["sentences"]]  # far longer than max_length
    for variant in ("full", "wo_context", "wo_long"):
        encoded = Encoder(tokenizer, sp, "senpos", variant, max_length=64)(row)
        assert len(encoded.cands) == len(row["sentences"]) - 1
        assert all(len(seq) <= 64 for seq in encoded.seqs)
        assert all(encoded.seqs[s][c] == sp.marker for s, c, _ in encoded.cands), variant
        assert encoded.label == row["label"] - 1


def _dataset(tmp_path: Path, task: str, splits: dict[str, list[dict]]) -> Path:
    """Write LOT jsonl files and import them with the CLI, as a user would."""
    from lotdata.datasets.lotformat import to_lot

    src = tmp_path / f"{task}_lot"
    src.mkdir()
    for split, rows in splits.items():
        (src / f"{split}.jsonl").write_text(
            "".join(json.dumps(to_lot(task, r), ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
        )
    out = tmp_path / task
    result = runner.invoke(app, ["import", "lot", str(src), "--task", task, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_clozet_learns_an_obvious_signal_and_round_trips(tmp_path):
    data = _dataset(
        tmp_path,
        "clozet",
        {"train": clozet_rows(160, "train", 5), "val": clozet_rows(24, "val", 6), "test": clozet_rows(40, "test", 7)},
    )
    config = tiny_config(epochs=5, lr=3e-3, hidden_size=64, intermediate_size=128)
    results = bl_train(config, data, tmp_path / "run")
    losses = [h["train_loss"] for h in results["history"]]
    assert losses[-1] < losses[0]  # loss goes down
    assert results["scores"]["test"]["accuracy"] >= 0.8  # chance is 0.5
    # save -> load -> the same predictions, written in LOT format and scored by `lotdata evaluate`
    pred = tmp_path / "pred.jsonl"
    result = runner.invoke(
        app,
        [
            "baseline",
            "predict",
            "--run",
            str(tmp_path / "run"),
            "--data",
            str(data),
            "--out",
            str(pred),
            "--device",
            "cpu",
            "--batch-size",
            "3",
        ],
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in pred.read_text(encoding="utf-8").splitlines()]
    assert all(r["label"] in ("0", "1") and set(r) == {"story", "plot0", "plot1", "label"} for r in records)
    reloaded = bl.load(tmp_path / "run", device="cpu")
    test_rows = clozet_rows(40, "test", 7)
    assert [str(p) for p in reloaded.predict(test_rows)] == [r["label"] for r in records]
    scored = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert scored["scores"]["test"]["accuracy"] == pytest.approx(results["scores"]["test"]["accuracy"])
    table = runner.invoke(app, ["baseline", "table", str(tmp_path / "run")])
    assert table.exit_code == 0 and "| Models | #P | ClozeT | SenPos | Overall |" in table.output
    assert f"| tiny-bert | 57K | {100 * results['scores']['test']['accuracy']:.2f} | – | – |" in table.output
    ev = runner.invoke(
        app, ["evaluate", "clozet", "--pred", str(pred), "--gold", str(data / "test.parquet"), "--json", "-"]
    )
    assert ev.exit_code == 0, ev.output
    assert json.loads(ev.output)["accuracy"] == pytest.approx(results["scores"]["test"]["accuracy"])


def bl_train(config, data, out, **kwargs):
    from lotdata.models.runs import train_run

    return train_run(config, data, out, device="cpu", **kwargs)


def test_training_resumes_from_the_last_epoch(tmp_path):
    data = _dataset(tmp_path, "senpos", {"train": senpos_rows(16, "train", 1), "val": senpos_rows(8, "val", 2)})
    first = bl_train(tiny_config(epochs=1), data, tmp_path / "run")
    assert first["epochs_run"] == 1 and first["resumed_from_epoch"] is None
    second = bl_train(tiny_config(epochs=2), data, tmp_path / "run")
    assert second["resumed_from_epoch"] == 0 and [h["epoch"] for h in second["history"]] == [1, 2]
    assert second["history"][0] == first["history"][0]


def test_encoder_decoder_understanding_reads_decoder_states(tmp_path):
    config = tiny_config(
        "t5", epochs=1, num_hidden_layers=1, hidden_size=32, num_attention_heads=2, intermediate_size=64
    )
    model = bl.ChoiceBaseline(config, "clozet", device="cpu").fit(clozet_rows(16, "train", 1))
    assert model.model.encoder_decoder
    assert set(model.predict(clozet_rows(6, "test", 2))) <= {0, 1}


def outgen_rows(n: int, split: str, seed: int) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        outline = [_phrase(rng, 1) for _ in range(3)]
        rows.append(
            dict(
                example_id=f"{split}{i}",
                story_id=f"{split}{i}",
                split=split,
                lang="zh",
                title=_phrase(rng, 1),
                outline=outline,
                story="".join(p + "了。" for p in outline),
            )
        )
    return rows


@pytest.mark.parametrize("architecture", ["gpt2", "bart"])
def test_generation_baselines_train_and_write_lot_format(tmp_path, architecture):
    data = _dataset(
        tmp_path,
        "outgen",
        {"train": outgen_rows(48, "train", 1), "val": outgen_rows(8, "val", 2), "test": outgen_rows(6, "test", 3)},
    )
    config = tiny_config(architecture, epochs=3, lr=3e-3)
    results = bl_train(config, data, tmp_path / "run")
    losses = [h["train_loss"] for h in results["history"]]
    assert losses[-1] < losses[0]
    pred = tmp_path / "pred.jsonl"
    result = runner.invoke(
        app,
        [
            "baseline",
            "predict",
            "--run",
            str(tmp_path / "run"),
            "--data",
            str(data),
            "--out",
            str(pred),
            "--device",
            "cpu",
        ],
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in pred.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 6 and all(isinstance(r["story"], str) and r["outline"] for r in records)
    assert all(" " not in r["story"] for r in records)  # Chinese output without tokenizer spaces
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert set(results["scores"]["test"]) == {
        "bleu-1",
        "bleu-2",
        "distinct-1",
        "distinct-2",
        "coverage",
        "order",
    }  # LOT's
    assert "nlpcc2021_overall" in results["scores_nlpcc2021"]["test"]


def test_learning_curve_png(tmp_path):
    from lotdata.models.runs import learning_curve

    data = _dataset(tmp_path, "clozet", {"train": clozet_rows(24, "train", 1), "test": clozet_rows(8, "test", 2)})
    curve = learning_curve(tiny_config(epochs=1), data, tmp_path / "curve", sizes=[0.5, 1.0], device="cpu")
    assert [p["train_examples"] for p in curve["points"]] == [12, 24]
    png = tmp_path / "curve" / "curve.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_missing_checkpoint_is_a_clear_error(tmp_path):
    data = _dataset(tmp_path, "clozet", {"train": clozet_rows(4, "train", 1)})
    result = runner.invoke(
        app,
        [
            "baseline",
            "train",
            "--config",
            "bert",
            "--data",
            str(data),
            "--out",
            str(tmp_path / "r"),
            "--checkpoint",
            str(tmp_path / "nowhere"),
        ],
    )
    assert result.exit_code == 1 and "checkpoint folder not found" in result.output  # a missing path: exit 1
    missing = runner.invoke(
        app,
        [
            "baseline",
            "train",
            "--config",
            str(tmp_path / "nope.toml"),
            "--data",
            str(data),
            "--out",
            str(tmp_path / "r"),
        ],
    )
    assert missing.exit_code == 1 and "nope.toml" in missing.stderr and "not found" in missing.stderr
    no_run = runner.invoke(
        app,
        [
            "baseline",
            "predict",
            "--run",
            str(tmp_path / "no-run"),
            "--data",
            str(data),
            "--out",
            str(tmp_path / "p.jsonl"),
        ],
    )
    assert no_run.exit_code == 1 and "no-run" in no_run.stderr and "not found" in no_run.stderr
    no_table = runner.invoke(app, ["baseline", "table", str(tmp_path / "no-run")])
    assert no_table.exit_code == 1 and "not found" in no_table.stderr


@pytest.mark.parametrize(
    "key,value",
    [("batch_size", '"twelve"'), ("learning_rate", '"fast"'), ("mixed_precision", "1"), ("gpu_batch_size", '"big"')],
)
def test_a_config_value_of_the_wrong_type_is_exit_1_naming_file_and_key(tmp_path, key, value):
    config = tmp_path / "mine.toml"
    config.write_text(f'name = "mine"\narchitecture = "bert"\n[train]\n{key} = {value}\n', encoding="utf-8")
    data = _dataset(tmp_path, "clozet", {"train": clozet_rows(4, "train", 1)})
    result = runner.invoke(
        app, ["baseline", "train", "--config", str(config), "--data", str(data), "--out", str(tmp_path / "r")]
    )
    assert result.exit_code == 1, result.output
    assert "mine.toml" in result.stderr and f"{key} = " in result.stderr and "Traceback" not in result.output


def test_train_from_a_local_checkpoint_folder_with_the_cli(tmp_path):
    """A user with a checkpoint on disk (tokenizer + weights, e.g. bert-base-chinese) runs one command."""
    from lotdata.models.backbone import load_backbone

    rows = clozet_rows(16, "train", 1)
    model, tokenizer = load_backbone(
        tiny_config(), "encoder", texts=bl._texts("clozet", rows), workdir=tmp_path / "scratch"
    )
    checkpoint = tmp_path / "my-bert"
    model.save_pretrained(str(checkpoint))
    tokenizer.save_pretrained(str(checkpoint))
    data = _dataset(tmp_path, "clozet", {"train": rows, "test": clozet_rows(6, "test", 2)})
    result = runner.invoke(
        app,
        [
            "baseline",
            "train",
            "--config",
            "bert",
            "--checkpoint",
            str(checkpoint),
            "--data",
            str(data),
            "--out",
            str(tmp_path / "run"),
            "--epochs",
            "1",
            "--batch-size",
            "8",
            "--max-length",
            "64",
            "--device",
            "cpu",
        ],
    )
    assert result.exit_code == 0, result.output
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert results["model"] == "bert" and results["parameters"] == sum(p.numel() for p in model.parameters())
    assert 0.0 <= results["scores"]["test"]["accuracy"] <= 1.0


def test_generation_without_val_keeps_the_lowest_training_loss(tmp_path):
    model = bl.GenBaseline(tiny_config("gpt2", epochs=3, lr=3e-3), "outgen", device="cpu")
    model.fit(outgen_rows(16, "train", 1), out=tmp_path / "run")
    losses = [h["train_loss"] for h in model.fit_result.history]
    assert model.fit_result.best_epoch == 1 + losses.index(min(losses))


# ----------------------------------------------------------------------------- speed paths, checked on CPU


def test_length_batches_group_by_length_and_cover_every_index():
    from lotdata.models.trainer import length_batches

    batches = length_batches([3, 9, 1, 7, 5], 2)
    assert batches == [[1, 3], [4, 0], [2]]
    assert sorted(i for b in batches for i in b) == list(range(5))


def test_understanding_predictions_do_not_depend_on_batching(tmp_path):
    rows = clozet_rows(24, "train", 1)
    model = bl.ChoiceBaseline(tiny_config(epochs=1), "clozet", device="cpu").fit(rows)
    test = clozet_rows(13, "test", 2)
    for i, row in enumerate(test):  # lengths that differ, so length batching reorders
        row["context"] = row["context"] + "今天" * (i % 5)
    one = model.predict(test, batch_size=1)
    assert model.predict(test, batch_size=5) == one == model.predict(test)
    probs_one = [model.gold_probabilities(model.encode_rows([r]))[0][0] for r in test[:4]]
    assert model.gold_probabilities(model.encode_rows(test[:4]))[0] == pytest.approx(probs_one, abs=1e-5)


def test_generation_does_not_depend_on_batching_when_greedy(tmp_path):
    config = tiny_config("gpt2", epochs=2, lr=3e-3)
    model = bl.GenBaseline(config.with_generate(top_k=1), "outgen", device="cpu")
    model.fit(outgen_rows(16, "train", 1))
    test = outgen_rows(7, "test", 2)
    for i, row in enumerate(test):
        row["outline"] = row["outline"][: 1 + i % 3]
    assert model.generate(test, batch_size=1) == model.generate(test, batch_size=4)


def test_rows_are_tokenised_once_and_a_curve_builds_its_model_once(tmp_path, monkeypatch):
    from lotdata.models import baseline as baseline_module
    from lotdata.models import choice
    from lotdata.models.runs import learning_curve

    model = bl.ChoiceBaseline(tiny_config(epochs=1), "clozet", device="cpu").prepare(
        clozet_rows(8, "train", 1), tmp_path / "w"
    )
    rows = clozet_rows(8, "train", 1)
    calls = []
    real = choice.Encoder.__call__
    monkeypatch.setattr(
        choice.Encoder, "__call__", lambda self, row: calls.append(row["example_id"]) or real(self, row)
    )
    first = model.encode_rows(rows)
    assert model.encode_rows(rows) == first and len(calls) == 8
    builds = []
    real_load = baseline_module.load_backbone
    monkeypatch.setattr(baseline_module, "load_backbone", lambda *a, **k: builds.append(1) or real_load(*a, **k))
    data = _dataset(tmp_path, "clozet", {"train": clozet_rows(24, "train", 1), "test": clozet_rows(8, "test", 2)})
    calls.clear()
    curve = learning_curve(tiny_config(epochs=1), data, tmp_path / "curve", sizes=[0.5, 1.0], device="cpu")
    assert len(curve["points"]) == 2
    assert len(builds) == 1  # built once for both points, never reloaded from disk
    assert len(calls) == 24 + 8  # every train and test row tokenised once


def test_training_reads_the_loss_once_per_epoch_not_per_step(tmp_path, monkeypatch):
    """No per-step synchronisation: the loss is summed on the device and read at the end of the epoch."""
    import sys

    reads = []

    import os

    import lotdata

    # lotdata's own modules by their folder, not by a name: a checkout named `lotdata` holds torch in lotdata/.venv
    package = os.path.realpath(os.path.dirname(lotdata.__file__)) + os.sep

    def ours() -> bool:  # a read made by lotdata's loop (torch's optimizer reads its CPU step counter itself)
        return os.path.realpath(sys._getframe(2).f_code.co_filename).startswith(package)

    real_float, real_item, real_tolist = torch.Tensor.__float__, torch.Tensor.item, torch.Tensor.tolist
    monkeypatch.setattr(torch.Tensor, "__float__", lambda self: (ours() and reads.append("float")) or real_float(self))
    monkeypatch.setattr(torch.Tensor, "item", lambda self: (ours() and reads.append("item")) or real_item(self))
    monkeypatch.setattr(torch.Tensor, "tolist", lambda self: (ours() and reads.append("tolist")) or real_tolist(self))
    config = tiny_config(epochs=2)
    model = bl.ChoiceBaseline(
        BaselineConfig(
            **{**config.__dict__, "train": TrainSettings(batch_size=2, max_length=96, epochs=2, patience=5)}
        ),
        "clozet",
        device="cpu",
    )
    model.fit(clozet_rows(16, "train", 1), out=tmp_path / "run")  # 8 steps per epoch
    # per epoch: the shuffled order (a CPU tensor) and the summed loss; 16 steps would read 16 times
    assert sorted(reads) == ["float", "float", "tolist", "tolist"], reads


def test_autocast_is_a_no_op_on_cpu_and_batch_size_for_cpu_ignores_the_gpu_batch():
    import contextlib

    from lotdata.models.trainer import autocast, batch_size_for

    assert isinstance(autocast("cpu", True), contextlib.nullcontext)
    settings = TrainSettings(batch_size=12, gpu_batch_size="auto")
    assert batch_size_for(settings, "cpu") == 12
    assert batch_size_for(TrainSettings(batch_size=12, gpu_batch_size=64), "cuda") == 64


def test_the_automatic_batch_never_searches_past_the_items_there_are():
    from lotdata.models.config import TrainSettings
    from lotdata.models.trainer import batch_size_for

    tried = []
    auto = TrainSettings(batch_size=12, gpu_batch_size="auto")
    assert batch_size_for(auto, "cuda", probe=tried.append, most=30) == 24 and tried == [12, 24]
    tried.clear()
    assert batch_size_for(auto, "cuda", probe=tried.append) == 384 and tried == [12, 24, 48, 96, 192, 384]


def test_auto_batch_size_stops_below_out_of_memory():
    from lotdata.models.trainer import auto_batch_size

    def probe(n):
        if n > 100:
            raise torch.cuda.OutOfMemoryError("fake")

    assert auto_batch_size(probe, 12) == 48  # 12, 24, 48, 96 fit, 192 does not: half of 96 for headroom
    assert auto_batch_size(lambda n: None, 12, limit=50) == 48


# ----------------------------------------------------------------------------- the same paths on CUDA

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device: the GPU paths were not run")


@cuda
def test_cuda_training_under_autocast_with_an_auto_batch_predicts_like_cpu(tmp_path):
    rows, test = clozet_rows(64, "train", 1), clozet_rows(16, "test", 2)
    config = tiny_config(epochs=2)
    config = config.with_train(gpu_batch_size="auto")
    gpu = bl.ChoiceBaseline(config, "clozet", device="cuda").fit(rows)
    assert next(gpu.model.parameters()).is_cuda
    preds = gpu.predict(test)
    assert gpu.predict(test, batch_size=1) == preds
    gpu.model.to("cpu")
    gpu.device = "cpu"
    same = sum(a == b for a, b in zip(gpu.predict(test), preds))
    assert same >= 0.9 * len(test)  # bf16/fp16 autocast picks the fp32 candidates, near-ties aside


@cuda
def test_cuda_generation_batched_by_length_under_autocast(tmp_path):
    model = bl.GenBaseline(
        tiny_config("gpt2", epochs=1).with_generate(top_k=1, gpu_batch_size="auto"), "outgen", device="cuda"
    )
    model.fit(outgen_rows(16, "train", 1))
    test = outgen_rows(6, "test", 2)
    texts = model.generate(test)  # "auto" batch, autocast
    assert len(texts) == 6 and all(isinstance(t, str) for t in texts)
    model.config = model.config.with_train(mixed_precision=False)  # fp32: batching must not change greedy output
    assert model.generate(test, batch_size=1) == model.generate(test, batch_size=6)


# ----------------------------------------------------------------------------- Tables 10 / 11, cartography, SCT


def _fake_run(path: Path, model: str, task: str, scores: dict, split: str = "test", params: int = 102_000_000) -> Path:
    """A run folder's results.json as `baseline train` / `predict` write it."""
    path.mkdir(parents=True)
    (path / "results.json").write_text(
        json.dumps({"model": model, "task": task, "parameters": params, "scores": {split: scores}})
    )
    return path


def test_table_gives_lots_overall_with_the_papers_weights_or_a_named_baseline(tmp_path):
    from lotdata import metrics

    runs = [
        _fake_run(tmp_path / "a", "mine", "clozet", {"accuracy": 0.7}),
        _fake_run(tmp_path / "b", "mine", "senpos", {"accuracy": 0.5}),
        _fake_run(tmp_path / "c", "ref", "clozet", {"accuracy": 0.6}),
        _fake_run(tmp_path / "d", "ref", "senpos", {"accuracy": 0.4}),
    ]
    result = runner.invoke(app, ["baseline", "table", *map(str, runs), "--paper"])
    assert result.exit_code == 0, result.output
    w = metrics.paper_weights("understanding", "test")
    expected = 100 * (0.7 * w[("clozet", "accuracy")] + 0.5 * w[("senpos", "accuracy")])
    assert f"| mine | 102M | 70.00 | 50.00 | {expected:.2f} |" in result.output
    assert (
        "| BERT (paper) | – | 69.39 | 43.68 | 53.74 |" in result.output
        and "| w_i | – | 0.39 | 0.61 | 1.00 |" in result.output
    )
    human = tmp_path / "human.json"
    human.write_text(json.dumps({"clozet": {"accuracy": 0.9, "fleiss_kappa": 0.8}, "senpos": {"accuracy": 0.8}}))
    named = runner.invoke(
        app, ["baseline", "table", *map(str, runs), "--human", str(human), "--understanding-baseline", "ref"]
    )
    assert named.exit_code == 0, named.output
    w1, w2 = 0.9 / 0.6, 0.8 / 0.4
    own = 100 * (0.7 * w1 + 0.5 * w2) / (w1 + w2)
    assert f"| mine | 102M | 70.00 | 50.00 | {own:.2f} |" in named.output and "B_i: run ref" in named.output
    unknown = runner.invoke(app, ["baseline", "table", *map(str, runs), "--understanding-baseline", "bert"])
    assert unknown.exit_code == 1 and "'bert'" in unknown.stderr


def test_table_nlpcc2021_shows_the_scripts_score_under_its_own_name(tmp_path):
    run = _fake_run(tmp_path / "g", "gpt", "outgen", {"bleu-1": 0.3})
    results = json.loads((run / "results.json").read_text())
    results["scores_nlpcc2021"] = {"test": {"bleu-1": 0.2, "nlpcc2021_overall": 0.25}}
    (run / "results.json").write_text(json.dumps(results))
    lot = runner.invoke(app, ["baseline", "table", str(run)])
    assert lot.exit_code == 0 and "NLPCC" not in lot.output and "| gpt | 102M | – | – | – | – | 30.00 |" in lot.output
    nlpcc = runner.invoke(app, ["baseline", "table", str(run), "--definition", "nlpcc2021"])
    assert nlpcc.exit_code == 0 and "OutGen NLPCC 2021 score" in nlpcc.output and "| 20.00 |" in nlpcc.output
    assert "Overall" not in nlpcc.output.replace("not LOT's Overall", "")


def test_cartography_writes_the_map_and_the_regions(tmp_path):
    import pyarrow.parquet as pq

    data = _dataset(tmp_path, "clozet", {"train": clozet_rows(30, "train", 1)})
    config = tmp_path / "c.toml"
    config.write_text(
        'name = "tiny"\narchitecture = "bert"\nvocab_size = 500\n[model]\nnum_hidden_layers = 1\nhidden_size = 32\n'
        "num_attention_heads = 2\nintermediate_size = 64\nmax_position_embeddings = 128\n"
        "[train]\nbatch_size = 8\nmax_length = 96\nlearning_rate = 0.003\nepochs = 3\n",
        encoding="utf-8",
    )
    result = runner.invoke(
        app,
        [
            "baseline",
            "cartography",
            "--config",
            str(config),
            "--data",
            str(data),
            "--out",
            str(tmp_path / "map"),
            "--device",
            "cpu",
        ],
    )
    assert result.exit_code == 0, result.output
    table = pq.read_table(tmp_path / "map" / "cartography.parquet").to_pylist()
    assert len(table) == 30 and all(len(r["gold_probs"]) == 3 for r in table)
    for r in table:
        assert r["confidence"] == pytest.approx(sum(r["gold_probs"]) / 3)
        assert 0 <= r["variability"] <= 0.5 and r["correctness"] in (0, 1 / 3, 2 / 3, 1)
    regions = [r["region"] for r in table]
    assert regions.count("ambiguous") == regions.count("hard") == regions.count("easy") == 10
    amb = min(r["variability"] for r in table if r["region"] == "ambiguous")
    assert all(r["variability"] <= amb for r in table if r["region"] != "ambiguous")
    assert max(r["confidence"] for r in table if r["region"] == "hard") <= min(
        r["confidence"] for r in table if r["region"] == "easy"
    )
    assert (tmp_path / "map" / "cartography.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    gen = _dataset(tmp_path, "outgen", {"train": outgen_rows(4, "train", 1)})
    bad = runner.invoke(
        app, ["baseline", "cartography", "--config", str(config), "--data", str(gen), "--out", str(tmp_path / "m2")]
    )
    assert bad.exit_code == 1 and "understanding" in bad.stderr


def test_storycloze_can_train_on_val(tmp_path):
    import csv

    import pyarrow.parquet as pq

    header = [
        "InputStoryid",
        "InputSentence1",
        "InputSentence2",
        "InputSentence3",
        "InputSentence4",
        "RandomFifthSentenceQuiz1",
        "RandomFifthSentenceQuiz2",
        "AnswerRightEnding",
    ]
    for name, n in (("val.csv", 20), ("test.csv", 6)):
        with open(tmp_path / name, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(header)
            for i in range(n):
                writer.writerow(
                    [
                        f"{name}{i}",
                        f"Tom woke up {i} ({name}).",
                        "He was hungry.",
                        "He went out.",
                        "He saw a shop.",
                        "He bought bread.",
                        "He flew to the moon.",
                        str(1 + i % 2),
                    ]
                )
    out = tmp_path / "sct"
    result = runner.invoke(
        app,
        [
            "import",
            "storycloze",
            "--val",
            str(tmp_path / "val.csv"),
            "--test",
            str(tmp_path / "test.csv"),
            "--out",
            str(out),
            "--train-from",
            "val",
            "--val-share",
            "0.25",
        ],
    )
    assert result.exit_code == 0, result.output
    train, val, test = (pq.read_table(out / f"{s}.parquet").to_pylist() for s in ("train", "val", "test"))
    assert (len(train), len(val), len(test)) == (15, 5, 6)
    assert {r["split"] for r in train} == {"train"} and not {r["example_id"] for r in train} & {
        r["example_id"] for r in val
    }
    bad = runner.invoke(
        app,
        [
            "import",
            "storycloze",
            "--val",
            str(tmp_path / "val.csv"),
            "--out",
            str(tmp_path / "x"),
            "--train-from",
            "test",
        ],
    )
    assert bad.exit_code == 1 and "--train-from" in bad.stderr


def test_generation_on_a_gpu_leaves_out_cudnn_attention_only():
    """cuDNN's SDPA plans every new key length (18 s of CPU on a first pass at batch 96, bench/gpu.md): generation on
    a GPU runs with the other backends; the flags come back afterwards, and a CPU run changes nothing."""
    torch = pytest.importorskip("torch")
    from lotdata.models.generation import _attention_without_cudnn

    before = torch.backends.cuda.cudnn_sdp_enabled()
    with _attention_without_cudnn("cuda:0"):
        assert not torch.backends.cuda.cudnn_sdp_enabled()
        assert torch.backends.cuda.flash_sdp_enabled() and torch.backends.cuda.mem_efficient_sdp_enabled()
        assert torch.backends.cuda.math_sdp_enabled()
    assert torch.backends.cuda.cudnn_sdp_enabled() == before
    with _attention_without_cudnn("cpu"):
        assert torch.backends.cuda.cudnn_sdp_enabled() == before
