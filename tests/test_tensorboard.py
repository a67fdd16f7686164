"""SummaryWriter writes event files that TensorBoard's own reader loads back: scalars,
grouped scalars, histograms, images (PNG), text; and a clear error without tensorboard."""

import io
import subprocess
import sys

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.utils.tensorboard import SummaryWriter

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import (  # noqa: E402
    EventAccumulator,
)


def load(path):
    events = EventAccumulator(str(path), size_guidance={"images": 0, "histograms": 0,
                                                        "scalars": 0, "tensors": 0})
    events.Reload()
    return events


def test_scalars_histograms_images_and_text_round_trip(tmp_path):
    with SummaryWriter(log_dir=tmp_path) as writer:
        assert writer.get_logdir() == str(tmp_path)
        for step in range(5):
            writer.add_scalar("loss", tl.tensor(1.0 / (step + 1)), step)
        writer.add_scalar("lr", 0.1, global_step=0)
        writer.add_histogram("weights", tl.randn(1000), 3)
        writer.add_histogram("counts", np.arange(10.0), 4, bins=5)
        writer.add_image("digit", tl.rand(3, 8, 6), 1)
        writer.add_image("grey", np.full((5, 7), 200, np.uint8), 2, dataformats="HW")
        writer.add_images("batch", tl.rand(10, 1, 4, 4), 0)
        writer.add_text("note", "**hello** from tinygrad_lite", 7)
    events = load(tmp_path)
    loss = events.Scalars("loss")
    assert [e.step for e in loss] == [0, 1, 2, 3, 4]
    np.testing.assert_allclose([e.value for e in loss], [1, 1 / 2, 1 / 3, 1 / 4, 1 / 5],
                               rtol=1e-6)
    histogram = events.Histograms("weights")[0].histogram_value
    assert histogram.num == 1000 and sum(histogram.bucket) == 1000
    assert events.Histograms("counts")[0].histogram_value.bucket == [2, 2, 2, 2, 2]
    image = events.Images("digit")[0]
    assert (image.height, image.width, image.step) == (8, 6, 1)
    assert image.encoded_image_string.startswith(b"\x89PNG")
    assert (events.Images("grey")[0].height, events.Images("grey")[0].width) == (5, 7)
    assert (events.Images("batch")[0].height, events.Images("batch")[0].width) == (8, 32)
    text = events.Tensors("note/text_summary")[0]
    assert text.step == 7 and b"hello" in text.tensor_proto.string_val[0]


def test_png_pixels_survive_the_encoder(tmp_path):
    pil = pytest.importorskip("PIL.Image")
    pixels = np.random.default_rng(0).integers(0, 256, (3, 5, 4)).astype(np.uint8)
    with SummaryWriter(tmp_path) as writer:
        writer.add_image("exact", pixels, 0)
    decoded = np.asarray(pil.open(io.BytesIO(load(tmp_path).Images("exact")[0]
                                             .encoded_image_string)))
    np.testing.assert_array_equal(decoded, pixels.transpose(1, 2, 0))


def test_add_scalars_writes_one_run_per_curve(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        for step in range(3):
            writer.add_scalars("loss", {"train": 1.0 - step * 0.1, "val": 2.0}, step)
    train = load(tmp_path / "loss_train").Scalars("loss")
    assert [round(e.value, 5) for e in train] == [1.0, 0.9, 0.8]
    assert [e.value for e in load(tmp_path / "loss_val").Scalars("loss")] == [2.0] * 3


def test_bad_arguments_are_named(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(ValueError, match="one-element"):
            writer.add_scalar("x", tl.ones(3))
        with pytest.raises(ValueError, match="dataformats"):
            writer.add_image("x", np.zeros((2, 3, 4, 5)))


def test_default_log_dir_is_runs_time_host(tmp_path):
    code = ("from tinygrad_lite.utils.tensorboard import SummaryWriter; "
            "w = SummaryWriter(comment='_exp'); print(w.get_logdir()); w.close()")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out.startswith("runs/") and out.endswith("_exp")
    assert (tmp_path / out).is_dir()


def test_missing_tensorboard_says_how_to_install(tmp_path):
    code = ("import sys; sys.modules['tensorboard'] = None\n"
            "from tinygrad_lite.utils.tensorboard import SummaryWriter\n"
            "try:\n    SummaryWriter('x')\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout
    assert "pip install tensorboard" in out


def test_add_graph_writes_the_recorded_graph_scoped_by_module(tmp_path):
    class Net(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = tl.nn.Sequential(tl.nn.Linear(3, 4), tl.nn.ReLU())
            self.head = tl.nn.Linear(4, 2)

        def forward(self, x):
            return self.head(self.body(x)).softmax(-1)

    with SummaryWriter(tmp_path) as writer:
        writer.add_graph(Net(), tl.randn(5, 3))
    graph = load(tmp_path).Graph()
    nodes = {n.name: n for n in graph.node}
    ops = sorted(n.op for n in graph.node)
    assert ops.count("Parameter") == 4 and ops.count("IO Node") == 2  # input and output
    assert "Net/body.0.weight" in nodes and "input/input.0" in nodes
    relu = next(n for n in graph.node if n.op == "Relu")
    assert relu.name.startswith("Net/Sequential[body]/ReLU[1]/")
    first = nodes[relu.input[0]]  # the first linear's op, inside its own scope
    assert first.name.startswith("Net/Sequential[body]/Linear[0]/")
    assert "Net/body.0.weight" in first.input and "input/input.0" in first.input
    last = nodes[nodes["output/output.0"].input[0]]  # softmax, in the root's own forward
    assert last.name.startswith("Net/") and "Linear[head]" not in last.name
    assert all(source in nodes for n in graph.node for source in n.input)
