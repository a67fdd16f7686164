"""Smoke tests: every example runs end to end with few steps and does what it claims."""

import importlib.util
import shutil
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mlp_moons_learns_and_draws(tmp_path, capsys):
    pytest.importorskip("tqdm")
    pytest.importorskip("matplotlib")
    pytest.importorskip("graphviz")
    accuracy = load("mlp_moons").main(["--steps", "150", "--out", str(tmp_path)])
    assert accuracy > 0.9
    assert "final loss" in capsys.readouterr().out
    assert (tmp_path / "moons_boundary.png").read_bytes()[:4] == b"\x89PNG"
    if shutil.which("dot"):
        svg = (tmp_path / "moons_graph.svg").read_text()
        assert "AddmmBackward0" in svg and "0.weight" in svg and "gradient norm" in svg


def test_mlp_digits_reaches_accuracy_and_reloads(capsys):
    pytest.importorskip("sklearn")
    pytest.importorskip("safetensors")
    accuracy = load("mlp_digits").main(["--epochs", "4"])
    assert accuracy > 0.9
    assert "after tl.save/tl.load" in capsys.readouterr().out


def test_custom_op_checks_and_compares(capsys):
    ratio = load("custom_op").main(["--batch", "32", "--classes", "50", "--repeat", "2"])
    assert ratio > 0
    out = capsys.readouterr().out
    assert "gradcheck passed" in out and "fused" in out and "composed" in out
    stable = out.split("float32 logits ~200: ")[1].splitlines()[0]
    assert "naive nan" in stable and "fused nan" not in stable and "composed nan" not in stable
    kept = {line.split()[0]: float(line.split("keeps")[1].split()[0])
            for line in out.splitlines() if "keeps" in line}
    assert kept["naive"] > 1.5 * kept["composed"]  # what the example claims about memory


def test_hooks_clip_and_saliency(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    clipped = load("hooks").main(["--epochs", "1", "--out", str(tmp_path)])
    assert 0 < clipped < 1
    assert (tmp_path / "guided_backprop.png").read_bytes()[:4] == b"\x89PNG"


def test_higher_order_matches_finite_differences():
    assert load("higher_order").main([]) < 1e-6


def test_draw_graph_writes_every_view(tmp_path):
    pytest.importorskip("graphviz")
    paths = load("draw_graph").main(["--out", str(tmp_path)])
    assert [Path(p).stem for p in paths] == ["cnn_forward", "cnn_grads", "cnn_folded",
                                             "nan_grads"]
    for p in paths:
        assert Path(p).stat().st_size > 0


def test_char_rnn_learns_and_samples(capsys):
    first, last = load("char_rnn").main(["--steps", "60", "--hidden", "64", "--sample", "40"])
    assert last < 0.8 * first
    out = capsys.readouterr().out
    sample = out.split("sample: ")[1]
    assert sample.startswith("The river ") and len(sample.strip()) >= 40


def test_fit_bigger_trains_the_same_model_both_ways():
    # the memory saving shows at the example's own sizes (see the README); this small run
    # checks that the three switches together train the same model as the plain run
    runs = load("fit_bigger").main(["--steps", "3", "--layers", "2", "--width", "32"])
    plain, fitted = runs["plain float32"], runs["autocast + checkpoint + blocked"]
    assert fitted["losses"][-1] < fitted["losses"][0]
    np.testing.assert_allclose(fitted["losses"], plain["losses"], rtol=1e-2)  # float16 noise


def test_compiled_training_matches_eager_and_prints_the_ir(capsys):
    assert load("compiled_training").main(["--steps", "40", "--code"])
    out = capsys.readouterr().out
    assert "identical to eager: True" in out and "38 replays" in out
    assert "np.matmul" in out and "model.0.weight" in out and "def replay(A):" in out
