"""SummaryWriter writes event files that TensorBoard's own reader loads back: scalars,
grouped scalars, histograms, images (PNG), text; and a clear error without tensorboard."""

import inspect
import io
import os
import subprocess
import sys
import types
import wave

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
    # an empty bucket first carries the leftmost limit, as PyTorch writes it
    assert events.Histograms("counts")[0].histogram_value.bucket == [0, 2, 2, 2, 2, 2]
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


# --- PyTorch parity: reopening, and the plugin methods --------------------------------------

def summaries(path):
    """(step, Summary.Value) of every summary in the event files directly in ``path``."""
    from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader

    values = []
    for name in sorted(os.listdir(path)):
        if name.startswith("events.out.tfevents"):
            for event in LegacyEventFileLoader(str(path / name)).Load():
                if event.HasField("summary"):
                    values.extend((event.step, value) for value in event.summary.value)
    return values


def both(tmp_path, write):
    """Run ``write(writer, as_tensor)`` with our writer and PyTorch's; their log dirs."""
    torch = pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    with SummaryWriter(tmp_path / "ours") as ours:
        # tinygrad_lite has no complex dtype: complex arrays go in as NumPy arrays
        write(ours, lambda a: np.asarray(a) if np.iscomplexobj(a) else tl.tensor(np.asarray(a)))
    with TorchWriter(str(tmp_path / "torch")) as theirs:
        write(theirs, lambda a: torch.from_numpy(np.asarray(a)))
    return tmp_path / "ours", tmp_path / "torch"


def event_files(path):
    return [n for n in os.listdir(path) if n.startswith("events.out.tfevents")]


def scalars_in_files(folder, tag):
    """Sorted (step, value) pairs of ``tag`` over every event file in ``folder``."""
    from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
    from tensorboard.compat.proto.event_pb2 import Event

    found = []
    for name in event_files(folder):
        for record in RawEventFileLoader(os.path.join(folder, name)).Load():
            event = Event.FromString(record)
            found += [(event.step, value.simple_value) for value in event.summary.value
                      if value.tag == tag]
    return sorted(found)


def test_writer_reopens_a_new_event_file_after_close(tmp_path):
    writer = SummaryWriter(tmp_path, purge_step=0)
    writer.add_scalar("loss", 1.0, 0)
    writer.add_scalars("pair", {"a": 1.0}, 0)
    writer.close()
    writer.close()  # twice, and flush after close: no error
    writer.flush()
    writer.add_scalar("loss", 2.0, 1)  # PyTorch reopens here; so do we
    writer.add_scalars("pair", {"a": 3.0}, 1)
    writer.close()
    assert len(event_files(tmp_path)) == 2 and len(event_files(tmp_path / "pair_a")) == 2
    # each file read on its own: two files made in the same second can come back out of step
    # order, and TensorBoard's accumulator then purges the "restarted" steps
    assert scalars_in_files(tmp_path, "loss") == [(0, 1.0), (1, 2.0)]
    assert scalars_in_files(tmp_path / "pair_a", "pair") == [(0, 1.0), (1, 3.0)]
    assert writer.purge_step is None  # the purge marker goes into the first file only


def test_every_public_method_is_documented_with_pytorchs_signature():
    torch_writer = pytest.importorskip("torch.utils.tensorboard.writer")
    ours = {n: getattr(SummaryWriter, n) for n in dir(SummaryWriter) if not n.startswith("_")}
    assert all(method.__doc__ and method.__doc__.strip() for method in ours.values())
    for name in dir(torch_writer.SummaryWriter):
        if not name.startswith("_"):
            theirs = inspect.signature(getattr(torch_writer.SummaryWriter, name)).parameters
            mine = inspect.signature(ours[name]).parameters
            assert [(p.name, p.default) for p in mine.values()] == \
                [(p.name, p.default) for p in theirs.values()], name


def test_add_hparams_writes_the_hparams_plugin_run_as_pytorch(tmp_path):
    from tensorboard.plugins.hparams import metadata

    def write(writer, as_tensor):
        writer.add_hparams({"lr": 0.1, "bs": 32, "opt": "adam", "flag": True, "skip": None,
                            "t": as_tensor(np.float32([0.5]))}, {"hparam/acc": 0.75},
                           hparam_domain_discrete={"opt": ["adam", "sgd"]}, run_name="run",
                           global_step=3)

    ours, theirs = both(tmp_path, write)
    assert summaries(ours / "run") == summaries(theirs / "run")
    events = load(ours / "run")
    content = events.PluginTagToContent("hparams")
    start = metadata.parse_session_start_info_plugin_data(
        content[metadata.SESSION_START_INFO_TAG])
    assert start.hparams["opt"].string_value == "adam" and start.hparams["t"].number_value == 0.5
    assert "skip" not in start.hparams
    experiment = metadata.parse_experiment_plugin_data(content[metadata.EXPERIMENT_TAG])
    assert [m.name.tag for m in experiment.metric_infos] == ["hparam/acc"]
    assert [(e.step, e.value) for e in events.Scalars("hparam/acc")] == [(3, 0.75)]
    with SummaryWriter(tmp_path / "x") as writer, pytest.raises(TypeError):
        writer.add_hparams([("lr", 0.1)], {})


def test_add_embedding_writes_pytorchs_projector_files(tmp_path):
    pil = pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(0)
    mat, images = rng.standard_normal((5, 3)).astype(np.float32), rng.random((5, 1, 4, 3))
    rows = [[f"w{i}", i % 2] for i in range(5)]

    def write(writer, as_tensor):
        writer.add_embedding(as_tensor(mat), metadata=list("abcde"), label_img=as_tensor(images))
        writer.add_embedding(as_tensor(mat * 2), metadata=rows, global_step=2, tag="a/b",
                             metadata_header=["word", "parity"])

    ours, theirs = both(tmp_path, write)
    for name in ["projector_config.pbtxt", "00000/default/tensors.tsv",
                 "00000/default/metadata.tsv", "00002/a%2fb/tensors.tsv",
                 "00002/a%2fb/metadata.tsv"]:
        assert (ours / name).read_text() == (theirs / name).read_text(), name
    assert (ours / "00002/a%2fb/metadata.tsv").read_text().startswith("word\tparity\nw0\t0\n")
    sprite = [np.asarray(pil.open(d / "00000/default/sprite.png")) for d in (ours, theirs)]
    assert sprite[0].shape == (9, 9, 3)
    np.testing.assert_array_equal(*sprite)


def test_pr_curves_histogram_raw_and_tensors_match_pytorch(tmp_path):
    rng = np.random.default_rng(1)
    labels, predictions = rng.integers(0, 2, 50), rng.random(50).astype(np.float32)
    counts = [rng.integers(0, 9, 4).astype(np.float32) for _ in range(6)]
    arrays = [np.arange(6, dtype=np.float32).reshape(2, 3), np.array([[1, -2]], np.int64),
              np.array([0.5, 1.5]), np.array([True, False]), np.arange(3, dtype=np.uint8),
              np.array([1.5, -2.0], np.float16), np.array([1 + 2j], np.complex64)]

    def write(writer, as_tensor):
        writer.add_pr_curve("pr", as_tensor(labels), as_tensor(predictions), 1)
        writer.add_pr_curve("pr_weighted", labels, predictions, 2, num_thresholds=200,
                            weights=np.linspace(0, 1, 50))
        writer.add_pr_curve_raw("raw", *counts, global_step=3, num_thresholds=4)
        writer.add_histogram_raw("hist", min=0.0, max=3.0, num=6, sum=9.0, sum_squares=19.0,
                                 bucket_limits=[1.0, 2.0, 3.0], bucket_counts=[1, 2, 3],
                                 global_step=4)
        for index, array in enumerate(arrays):
            writer.add_tensor(f"tensor{index}", as_tensor(array), 5)

    ours, theirs = both(tmp_path, write)
    assert summaries(ours) == summaries(theirs)
    events = load(ours)
    assert events.PluginTagToContent("pr_curves").keys() == {"pr", "pr_weighted", "raw"}
    curve = events.Tensors("pr")[0].tensor_proto
    assert [d.size for d in curve.tensor_shape.dim] == [6, 127]
    # row 0 is the true positives, row 1 the false positives, at each threshold
    assert (curve.float_val[0], curve.float_val[127]) == (labels.sum(), 50 - labels.sum())
    assert events.Histograms("hist")[0].histogram_value.bucket == [1, 2, 3]
    from tensorboard.util import tensor_util
    np.testing.assert_array_equal(tensor_util.make_ndarray(events.Tensors("tensor0")[0]
                                                           .tensor_proto), arrays[0])


def test_custom_scalars_match_pytorch(tmp_path):
    from tensorboard.plugins.custom_scalar import layout_pb2

    def write(writer, as_tensor):
        writer.add_custom_scalars({"Losses": {"both": ["Multiline", ["loss/a", "loss/b"]]},
                                   "Bands": {"acc": ["Margin", ["acc", "low", "high"]]}})
        writer.add_custom_scalars_multilinechart(["x", "y"], title="xy")
        writer.add_custom_scalars_marginchart(["m", "lo", "hi"], category="c")

    ours, theirs = both(tmp_path, write)
    assert summaries(ours) == summaries(theirs)
    layout = layout_pb2.Layout.FromString(summaries(ours)[0][1].tensor.string_val[0])
    assert [c.title for c in layout.category] == ["Losses", "Bands"]
    assert layout.category[1].chart[0].margin.series[0].upper == "high"
    with SummaryWriter(tmp_path / "x") as writer, pytest.raises(AssertionError):
        writer.add_custom_scalars_marginchart(["only", "two"])


def test_add_image_with_boxes_draws_pils_pixels(tmp_path):
    pil = pytest.importorskip("PIL.Image")
    image = np.random.default_rng(2).random((3, 20, 24)).astype(np.float32)
    boxes = np.array([[2, 3, 10, 12], [5.5, 1.2, 20.7, 18.9], [-3, 4, 30, 25]], np.float32)

    def write(writer, as_tensor):
        writer.add_image_with_boxes("boxes", as_tensor(image), as_tensor(boxes), 0,
                                    labels=["cat", "dog", "x"])
        writer.add_image_with_boxes("grey", as_tensor(image[0]), as_tensor(boxes[:1]), 1,
                                    dataformats="HW", rescale=2)

    ours, theirs = both(tmp_path, write)
    for (_, mine), (_, reference) in zip(summaries(ours), summaries(theirs), strict=True):
        assert (mine.tag, mine.image.height, mine.image.width, mine.image.colorspace) == \
            (reference.tag, reference.image.height, reference.image.width,
             reference.image.colorspace)
        decoded = [np.asarray(pil.open(io.BytesIO(v.image.encoded_image_string)))
                   for v in (mine, reference)]
        np.testing.assert_array_equal(*decoded)


def test_image_boxes_are_drawn_without_pil(tmp_path, monkeypatch):
    for name in ["PIL", "PIL.Image", "PIL.ImageDraw", "PIL.ImageFont"]:  # as if not installed
        monkeypatch.setitem(sys.modules, name, None)
    with SummaryWriter(tmp_path) as writer:
        writer.add_image_with_boxes("b", np.zeros((8, 10, 3), np.uint8), [[1, 1, 6, 5]],
                                    dataformats="HWC", labels="box", rescale=2)
    image = load(tmp_path).Images("b")[0]
    assert (image.height, image.width) == (8, 10)  # as PyTorch: the size before rescaling
    monkeypatch.undo()
    pixels = np.asarray(pytest.importorskip("PIL.Image").open(io.BytesIO(
        image.encoded_image_string)))
    assert pixels.shape == (16, 20, 3)
    red = (pixels == (255, 0, 0)).all(-1)[::2, ::2]
    assert red[1, 1:7].all() and red[1:6, 1].all() and not red[3, 3]


def test_add_audio_and_mesh_match_pytorch(tmp_path):
    sound = np.sin(np.linspace(0, 20, 400)).astype(np.float32)[None]
    vertices = np.array([[[1, 1, 1], [-1, -1, 1], [1, -1, -1], [-1, 1, -1]]], np.float32)
    colors = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 0, 255]]], np.int32)
    faces = np.array([[[0, 2, 3], [0, 3, 1], [0, 1, 2], [1, 3, 2]]], np.int32)

    def write(writer, as_tensor):
        writer.add_audio("sine", as_tensor(sound), 1, sample_rate=8000)
        writer.add_mesh("mesh", as_tensor(vertices), as_tensor(colors), as_tensor(faces),
                        {"camera": {"fov": 75}}, global_step=2)
        writer.add_mesh("cloud", as_tensor(vertices))

    ours, theirs = both(tmp_path, write)
    assert summaries(ours) == summaries(theirs)
    audio = summaries(ours)[0][1].audio
    with wave.open(io.BytesIO(audio.encoded_audio_string)) as wav:
        assert (wav.getframerate(), wav.getnframes(), wav.getsampwidth()) == (8000, 400, 2)
    assert [v.tag for _, v in summaries(ours)[1:]] == ["mesh_VERTEX", "mesh_FACE", "mesh_COLOR",
                                                       "cloud_VERTEX"]
    assert all(v.metadata.plugin_data.plugin_name == "mesh" for _, v in summaries(ours)[1:])


def test_add_video_needs_moviepy_and_tiles_like_pytorch(tmp_path, monkeypatch):
    video = np.random.default_rng(3).random((3, 2, 3, 4, 5)).astype(np.float32)
    monkeypatch.setitem(sys.modules, "moviepy", None)
    with SummaryWriter(tmp_path / "none") as writer, pytest.raises(ImportError, match="moviepy"):
        writer.add_video("v", video)
    written = {}

    class Clip:  # moviepy 2's ImageSequenceClip, recording what it is given
        def __init__(self, frames, fps):
            written.update(frames=np.stack(frames), fps=fps)

        def write_gif(self, path, logger=None):
            with open(path, "wb") as file:
                file.write(b"GIF89a")

    monkeypatch.setitem(sys.modules, "moviepy", types.SimpleNamespace(ImageSequenceClip=Clip))
    with SummaryWriter(tmp_path / "fake") as writer:
        writer.add_video("v", tl.tensor(video), 1, fps=8)
    image = load(tmp_path / "fake").Images("v")[0]
    assert image.encoded_image_string == b"GIF89a" and written["fps"] == 8
    assert written["frames"].shape == (2, 4, 20, 3) and (image.height, image.width) == (4, 20)
    _utils = pytest.importorskip("torch.utils.tensorboard._utils")
    expected = (_utils._prepare_video(video) * 255).clip(0, 255).astype(np.uint8)
    np.testing.assert_array_equal(written["frames"], expected)


def test_add_onnx_graph_needs_onnx_and_builds_pytorchs_graph(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)
    with SummaryWriter(tmp_path / "none") as writer, pytest.raises(ImportError, match="onnx"):
        writer.add_onnx_graph("model.onnx")
    shape = types.SimpleNamespace(dim=[types.SimpleNamespace(dim_value=3)])
    tensor_type = types.SimpleNamespace(elem_type=1, shape=shape)
    value = lambda name: types.SimpleNamespace(name=name, type=types.SimpleNamespace(
        tensor_type=tensor_type))
    attribute = types.SimpleNamespace(ListFields=lambda: [(None, "alpha"), (None, 0.5)])
    node = types.SimpleNamespace(output=["y"], op_type="LeakyRelu", input=["x"],
                                 attribute=[attribute])
    graph = types.SimpleNamespace(input=[value("x")], output=[value("y")], node=[node])
    monkeypatch.setitem(sys.modules, "onnx", types.SimpleNamespace(
        load=lambda path: types.SimpleNamespace(graph=graph)))
    with SummaryWriter(tmp_path / "fake") as writer:
        writer.add_onnx_graph("model.onnx")
    ours = load(tmp_path / "fake").Graph()
    assert [(n.name, n.op) for n in ours.node] == [("x", "Variable"), ("y", "Variable"),
                                                   ("y", "LeakyRelu")]
    assert ours.node[2].attr["parameters"].s == b"alpha = 0.5"
    onnx_graph = pytest.importorskip("torch.utils.tensorboard._onnx_graph")
    assert ours == onnx_graph.load_onnx_graph("model.onnx")
