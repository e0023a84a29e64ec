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
from lotdata.models.bias import make_bias_model
from lotdata.models.choice import Encoder
from lotdata.models.config import BaselineConfig, GenerateSettings, TrainSettings, load_config
from lotdata.models.vocab import build_tokenizer
from lotdata.schema import CLOZET, SENPOS, table_from_rows

torch.set_num_threads(1)  # tiny models: one thread is faster than two fighting over a shared 2-core machine

runner = CliRunner()
WORDS = "今天 我们 小明 妈妈 学校 公园 下雨 太阳 朋友 跑步 吃饭 睡觉 老师 书本 小狗 河边".split()
TINY = {"num_hidden_layers": 1, "hidden_size": 32, "num_attention_heads": 2, "intermediate_size": 64, "max_position_embeddings": 256}


def _phrase(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(WORDS) for _ in range(n))


def clozet_rows(n: int, split: str, seed: int) -> list[dict]:
    """The right candidate ends in 很好, the wrong one in 不好: an obvious signal."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        label = rng.randint(0, 1)
        good, bad = _phrase(rng, 2) + "很好。", _phrase(rng, 2) + "不好。"
        rows.append(dict(example_id=f"{split}{i}", story_id=f"{split}{i}", split=split, lang="zh", label=label,
                         context=f"{_phrase(rng, 4)}。<mask>{_phrase(rng, 4)}。", candidates=[good, bad] if label == 0 else [bad, good]))
    return rows


def senpos_rows(n: int, split: str, seed: int) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        sentences = [_phrase(rng, 3) + "。" for _ in range(rng.randint(3, 5))]
        label = rng.randint(1, len(sentences) - 1)
        rows.append(dict(example_id=f"{split}{i}", story_id=f"{split}{i}", split=split, lang="zh", sentences=sentences,
                         removed=_phrase(rng, 3) + "。", label=label, n_candidates=len(sentences) - 1, refined=False))
    return rows


def tiny_config(architecture: str = "bert", epochs: int = 2, lr: float = 2e-3, **model) -> BaselineConfig:
    return BaselineConfig(name=f"tiny-{architecture}", architecture=architecture, model={**TINY, **model}, vocab_size=500,
                          train=TrainSettings(batch_size=8, max_length=96, learning_rate=lr, epochs=epochs, seed=0, patience=5),
                          generate=GenerateSettings(max_new_tokens=12, batch_size=8))


def test_shipped_configs_load_with_the_papers_settings():
    names = ["vanilla_transformer", "bert", "roberta", "gpt2", "mt5", "longlm"]
    for name in names:
        config = load_config(Path(__file__).resolve().parents[1] / "baselines" / f"{name}.toml")
        assert (config.train.batch_size, config.train.max_length, config.train.learning_rate) == (12, 512, 3e-5), name
        assert (config.generate.top_k, config.generate.temperature) == (40, 0.7), name
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


@pytest.mark.parametrize("name", ["bert_wo_context", "bert_wo_long"])
@pytest.mark.parametrize("task", ["clozet", "senpos"])
def test_bias_models_fit_predict_and_are_seeded(name, task):
    rows = clozet_rows(24, "train", 1) if task == "clozet" else senpos_rows(24, "train", 1)
    test = clozet_rows(10, "test", 2) if task == "clozet" else senpos_rows(10, "test", 2)
    schema = CLOZET if task == "clozet" else SENPOS
    train_t, test_t = table_from_rows(rows, schema), table_from_rows(test, schema)
    kwargs = dict(epochs=1, batch_size=8, max_length=64, seed=3, device="cpu")
    model = make_bias_model(name, task, **kwargs)
    assert model.fit(train_t) is model
    preds = model.predict(test_t)
    assert len(preds) == test_t.num_rows and all(isinstance(p, int) for p in preds)
    if task == "clozet":
        assert set(preds) <= {0, 1}
    else:
        assert all(1 <= p <= r["n_candidates"] for p, r in zip(preds, test))
    again = make_bias_model(name, task, **kwargs).fit(train_t).predict(test_t)
    assert again == preds


def test_bias_model_rejects_unknown_names():
    with pytest.raises(ValueError):
        make_bias_model("bert_wo_everything", "clozet")
    with pytest.raises(ValueError):
        make_bias_model("bert_wo_long", "outgen")


def _dataset(tmp_path: Path, task: str, splits: dict[str, list[dict]]) -> Path:
    """Write LOT jsonl files and import them with the CLI, as a user would."""
    from lotdata.datasets.lotformat import to_lot

    src = tmp_path / f"{task}_lot"
    src.mkdir()
    for split, rows in splits.items():
        (src / f"{split}.jsonl").write_text("".join(json.dumps(to_lot(task, r), ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / task
    result = runner.invoke(app, ["import", "lot", str(src), "--task", task, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_clozet_learns_an_obvious_signal_and_round_trips(tmp_path):
    data = _dataset(tmp_path, "clozet", {"train": clozet_rows(160, "train", 5), "val": clozet_rows(24, "val", 6), "test": clozet_rows(40, "test", 7)})
    config = tiny_config(epochs=5, lr=3e-3, hidden_size=64, intermediate_size=128)
    results = bl_train(config, data, tmp_path / "run")
    losses = [h["train_loss"] for h in results["history"]]
    assert losses[-1] < losses[0]  # loss goes down
    assert results["scores"]["test"]["accuracy"] >= 0.8  # chance is 0.5
    # save -> load -> the same predictions, written in LOT format and scored by `lotdata evaluate`
    pred = tmp_path / "pred.jsonl"
    result = runner.invoke(app, ["baseline", "predict", "--run", str(tmp_path / "run"), "--data", str(data), "--out", str(pred), "--device", "cpu"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in pred.read_text(encoding="utf-8").splitlines()]
    assert all(r["label"] in ("0", "1") and set(r) == {"story", "plot0", "plot1", "label"} for r in records)
    reloaded = bl.load(tmp_path / "run", device="cpu")
    test_rows = clozet_rows(40, "test", 7)
    assert [str(p) for p in reloaded.predict(test_rows)] == [r["label"] for r in records]
    scored = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert scored["scores"]["test"]["accuracy"] == pytest.approx(results["scores"]["test"]["accuracy"])
    table = runner.invoke(app, ["baseline", "table", str(tmp_path / "run")])
    assert table.exit_code == 0 and "clozet Acc" in table.output and "tiny-bert" in table.output
    ev = runner.invoke(app, ["evaluate", "clozet", "--pred", str(pred), "--gold", str(data / "test.parquet"), "--json", "-"])
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
    config = tiny_config("t5", epochs=1, num_hidden_layers=1, hidden_size=32, num_attention_heads=2, intermediate_size=64)
    model = bl.ChoiceBaseline(config, "clozet", device="cpu").fit(clozet_rows(16, "train", 1))
    assert model.model.encoder_decoder
    assert set(model.predict(clozet_rows(6, "test", 2))) <= {0, 1}


def outgen_rows(n: int, split: str, seed: int) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        outline = [_phrase(rng, 1) for _ in range(3)]
        rows.append(dict(example_id=f"{split}{i}", story_id=f"{split}{i}", split=split, lang="zh", title=_phrase(rng, 1),
                         outline=outline, story="".join(p + "了。" for p in outline)))
    return rows


@pytest.mark.parametrize("architecture", ["gpt2", "bart"])
def test_generation_baselines_train_and_write_lot_format(tmp_path, architecture):
    data = _dataset(tmp_path, "outgen", {"train": outgen_rows(48, "train", 1), "val": outgen_rows(8, "val", 2), "test": outgen_rows(6, "test", 3)})
    config = tiny_config(architecture, epochs=3, lr=3e-3)
    results = bl_train(config, data, tmp_path / "run")
    losses = [h["train_loss"] for h in results["history"]]
    assert losses[-1] < losses[0]
    pred = tmp_path / "pred.jsonl"
    result = runner.invoke(app, ["baseline", "predict", "--run", str(tmp_path / "run"), "--data", str(data), "--out", str(pred), "--device", "cpu"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in pred.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 6 and all(isinstance(r["story"], str) and r["outline"] for r in records)
    assert all(" " not in r["story"] for r in records)  # Chinese output without tokenizer spaces
    scores = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))["scores"]["test"]
    assert {"bleu-1", "coverage", "order", "overall"} <= set(scores)


def test_learning_curve_png(tmp_path):
    from lotdata.models.runs import learning_curve

    data = _dataset(tmp_path, "clozet", {"train": clozet_rows(24, "train", 1), "test": clozet_rows(8, "test", 2)})
    curve = learning_curve(tiny_config(epochs=1), data, tmp_path / "curve", sizes=[0.5, 1.0], device="cpu")
    assert [p["train_examples"] for p in curve["points"]] == [12, 24]
    png = tmp_path / "curve" / "curve.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_missing_checkpoint_is_a_clear_error(tmp_path):
    data = _dataset(tmp_path, "clozet", {"train": clozet_rows(4, "train", 1)})
    result = runner.invoke(app, ["baseline", "train", "--config", "bert", "--data", str(data), "--out", str(tmp_path / "r"),
                                 "--checkpoint", str(tmp_path / "nowhere")])
    assert result.exit_code == 1 and "checkpoint folder not found" in result.output  # a missing path: exit 1


def test_train_from_a_local_checkpoint_folder_with_the_cli(tmp_path):
    """A user with a checkpoint on disk (tokenizer + weights, e.g. bert-base-chinese) runs one command."""
    from lotdata.models.backbone import load_backbone

    rows = clozet_rows(16, "train", 1)
    model, tokenizer = load_backbone(tiny_config(), "encoder", texts=bl._texts("clozet", rows), workdir=tmp_path / "scratch")
    checkpoint = tmp_path / "my-bert"
    model.save_pretrained(str(checkpoint))
    tokenizer.save_pretrained(str(checkpoint))
    data = _dataset(tmp_path, "clozet", {"train": rows, "test": clozet_rows(6, "test", 2)})
    result = runner.invoke(app, ["baseline", "train", "--config", "bert", "--checkpoint", str(checkpoint), "--data", str(data),
                                 "--out", str(tmp_path / "run"), "--epochs", "1", "--batch-size", "8", "--max-length", "64", "--device", "cpu"])
    assert result.exit_code == 0, result.output
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert results["model"] == "bert" and results["parameters"] == sum(p.numel() for p in model.parameters())
    assert 0.0 <= results["scores"]["test"]["accuracy"] <= 1.0


def test_generation_without_val_keeps_the_lowest_training_loss(tmp_path):
    model = bl.GenBaseline(tiny_config("gpt2", epochs=3, lr=3e-3), "outgen", device="cpu")
    model.fit(outgen_rows(16, "train", 1), out=tmp_path / "run")
    losses = [h["train_loss"] for h in model.fit_result.history]
    assert model.fit_result.best_epoch == 1 + losses.index(min(losses))
