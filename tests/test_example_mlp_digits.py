"""examples/mlp_digits.py's training-loop features: TensorBoard logs that tensorboard's own
reader opens, reproducible runs with two seeded DataLoader workers, and the schedule."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import tinygrad_lite as tl

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mlp_digits.py"


def load_example():
    """The example as a module."""
    spec = importlib.util.spec_from_file_location("mlp_digits_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tensorboard_logs_and_reproducible_workers(tmp_path, capsys):
    pytest.importorskip("sklearn")
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    example = load_example()
    first = example.main(["--epochs", "2", "--tensorboard", str(tmp_path)])
    out = capsys.readouterr().out
    assert "io.BytesIO" in out and "TensorBoard logs in" in out
    events = EventAccumulator(str(tmp_path))
    events.Reload()
    tags = events.Tags()
    assert {"train/loss", "train/lr", "test/accuracy"} <= set(tags["scalars"])
    assert "0.weight" in tags["histograms"]
    lrs = [e.value for e in events.Scalars("train/lr")]
    steps_per_epoch = len(lrs) // 2
    peak = example.PEAK_LR
    # warm-up rises linearly to the peak over the first epoch, then the cosine falls to 1 %
    assert lrs[0] == pytest.approx(peak * (0.1 + 0.9 / steps_per_epoch), rel=1e-5)
    assert max(lrs) == pytest.approx(peak, rel=1e-5)
    assert lrs.index(max(lrs)) == steps_per_epoch - 1
    assert lrs[-1] == pytest.approx(peak / 100, rel=1e-5)
    assert len(events.Scalars("test/accuracy")) == 2
    # the same seed with two worker processes gives the same model
    assert example.main(["--epochs", "2"]) == first


def test_schedule_is_warmup_then_cosine():
    example = load_example()
    model = example.make_model()
    optimizer, scheduler = example.make_training(model, 4, 12)
    lrs = []
    for _ in range(12):
        optimizer.step()
        scheduler.step()
        lrs.append(optimizer.param_groups[0]["lr"])
    peak = example.PEAK_LR
    assert lrs[:4] == pytest.approx([peak * f for f in (0.325, 0.55, 0.775, 1.0)])
    assert all(a > b for a, b in zip(lrs[3:], lrs[4:]))
    assert lrs[-1] == pytest.approx(peak / 100)
    assert isinstance(optimizer, tl.optim.Adam)
