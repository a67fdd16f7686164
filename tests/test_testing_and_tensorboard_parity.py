"""``tinygrad_lite.testing`` and ``utils.tensorboard`` against PyTorch: assert_close's exception
types and messages (tolerances per dtype, equal_nan, check_* flags, msg, nested containers,
scalars), make_tensor's attributes, value ranges, errors and warnings, and SummaryWriter's event
files read back with TensorBoard's EventAccumulator (scalars, new-style scalars, histograms with
any ``bins`` and ``max_bins``, images' decoded pixels for every dataformats, purge_step)."""

import io
import math
import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")
PIL_Image = pytest.importorskip("PIL.Image")

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
from torch.utils.tensorboard import SummaryWriter as TorchWriter  # noqa: E402

from tinygrad_lite.utils.tensorboard import SummaryWriter  # noqa: E402


def _outcome(lib, fn):
    """``fn(lib)``'s exception type and message (the library's name made 'torch'), or None;
    with the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(lib)
            error = None
        except Exception as exc:  # noqa: BLE001 - the type is what is compared
            result, error = None, (type(exc), str(exc).replace("tinygrad_lite", "torch"))
    texts = [(w.category, str(w.message).replace("tinygrad_lite", "torch")) for w in caught]
    return result, error, texts


def _same_outcome(fn):
    ours, theirs = _outcome(tl, fn), _outcome(torch, fn)
    assert ours[1:] == theirs[1:]
    return ours[0], theirs[0]


# -- assert_close ---------------------------------------------------------------------------------

_F32 = np.array([1.0, 2.0, 3.0], np.float32)
_GRID = np.arange(1000.0).reshape(10, 100)


def _t(lib, x):
    return lib.tensor(x)


_ASSERT_CLOSE_CASES = {
    "f32 within default tolerance": lambda lib: lib.testing.assert_close(
        _t(lib, _F32), _t(lib, _F32 + np.float32(1e-6))),
    "f32 mismatch": lambda lib: lib.testing.assert_close(
        _t(lib, _F32), _t(lib, np.array([1.0, 2.5, 3.1], np.float32))),
    "f64 2-d index": lambda lib: lib.testing.assert_close(
        _t(lib, np.eye(2)), _t(lib, np.eye(2) + [[0, 0.5], [0, 0]])),
    "f16 tolerance": lambda lib: lib.testing.assert_close(
        _t(lib, np.array([1.0, 2.0], np.float16)), _t(lib, np.array([1.0, 2.01], np.float16))),
    "bf16 tolerance": lambda lib: lib.testing.assert_close(
        lib.tensor([1.0, 2.0], dtype=lib.bfloat16), lib.tensor([1.0, 2.02], dtype=lib.bfloat16)),
    "int equality": lambda lib: lib.testing.assert_close(lib.tensor([1, 2, 3]),
                                                         lib.tensor([1, 5, 0])),
    "uint8": lambda lib: lib.testing.assert_close(_t(lib, np.array([1, 200], np.uint8)),
                                              _t(lib, np.array([1, 2], np.uint8))),
    "bool": lambda lib: lib.testing.assert_close(lib.tensor([True, False]),
                                                 lib.tensor([True, True])),
    "many mismatches": lambda lib: lib.testing.assert_close(
        _t(lib, _GRID), _t(lib, _GRID + (np.arange(1000).reshape(10, 100) % 7 == 0))),
    "dtype": lambda lib: lib.testing.assert_close(_t(lib, _F32), _t(lib, _F32.astype(np.float64))),
    "mixed dtypes unchecked": lambda lib: lib.testing.assert_close(
        lib.tensor([1, 2]), lib.tensor([1.0, 2.5]), check_dtype=False),
    "f32 vs f64 unchecked": lambda lib: lib.testing.assert_close(
        lib.tensor([1.0], dtype=lib.float32), lib.tensor([1.000002]), check_dtype=False),
    "shape": lambda lib: lib.testing.assert_close(lib.zeros(2), lib.zeros(3)),
    "0-d vs 1-d": lambda lib: lib.testing.assert_close(lib.tensor(1.0), lib.tensor([1.0])),
    "stride checked": lambda lib: lib.testing.assert_close(lib.zeros(3, 2).t(), lib.zeros(2, 3),
                                                       check_stride=True),
    "stride unchecked": lambda lib: lib.testing.assert_close(lib.zeros(3, 2).t(), lib.zeros(2, 3)),
    "device": lambda lib: lib.testing.assert_close(lib.zeros(2), lib.zeros(2, device="meta")),
    "sparse layout": lambda lib: lib.testing.assert_close(lib.eye(2).to_sparse(), lib.eye(2)),
    "nan unequal": lambda lib: lib.testing.assert_close(lib.tensor([1.0, math.nan]),
                                                    lib.tensor([1.0, math.nan])),
    "nan equal": lambda lib: lib.testing.assert_close(lib.tensor([1.0, math.nan]),
                                                  lib.tensor([1.0, math.nan]), equal_nan=True),
    "inf vs -inf": lambda lib: lib.testing.assert_close(lib.tensor([math.inf]),
                                                        lib.tensor([-math.inf])),
    "0-d message": lambda lib: lib.testing.assert_close(lib.tensor(1.0), lib.tensor(2.0)),
    "0-d int message": lambda lib: lib.testing.assert_close(lib.tensor(1), lib.tensor(2)),
    "empty": lambda lib: lib.testing.assert_close(lib.zeros(0, 3), lib.zeros(0, 3)),
    "relative to zero": lambda lib: lib.testing.assert_close(lib.tensor([1.0, 0.0]),
                                                         lib.tensor([1.0, 1e-30])),
    "rtol without atol": lambda lib: lib.testing.assert_close(lib.ones(1), lib.ones(1), rtol=1e-3),
    "atol without rtol": lambda lib: lib.testing.assert_close(lib.ones(1), lib.ones(1), atol=1e-3),
    "explicit tolerances": lambda lib: lib.testing.assert_close(
        lib.tensor([1.0, 3.0]), lib.tensor([1.1, 2.0]), rtol=0.01, atol=0.02),
    "zero tolerances": lambda lib: lib.testing.assert_close(
        lib.tensor([1.0, 3.0]), lib.tensor([1.1, 2.0]), rtol=0, atol=0),
    "msg string": lambda lib: lib.testing.assert_close(lib.ones(1), lib.zeros(1), msg="custom"),
    "msg callable": lambda lib: lib.testing.assert_close(lib.ones(1), lib.zeros(1),
                                                     msg=lambda m: "X" + m),
    "nested list": lambda lib: lib.testing.assert_close([lib.ones(1), lib.ones(1)],
                                                    [lib.ones(1), lib.zeros(1)]),
    "nested dict": lambda lib: lib.testing.assert_close({"a": lib.ones(1), "b": [lib.ones(1)]},
                                                    {"a": lib.ones(1), "b": [lib.zeros(1)]}),
    "dict keys": lambda lib: lib.testing.assert_close({"a": 1}, {"b": 1}),
    "sequence length": lambda lib: lib.testing.assert_close([1], [1, 2]),
    "list vs tuple": lambda lib: lib.testing.assert_close([1.0, 2.0], (1.0, 2.5)),
    "python floats": lambda lib: lib.testing.assert_close(1.0, 1.1),
    "int vs float": lambda lib: lib.testing.assert_close(1, 1.0),
    "int vs float unchecked": lambda lib: lib.testing.assert_close(1, 1.0, check_dtype=False),
    "numpy scalars": lambda lib: lib.testing.assert_close(np.float32(1.0), np.float32(1.5)),
    "complex": lambda lib: lib.testing.assert_close(1 + 1j, 1 + 2j),
    "booleans": lambda lib: lib.testing.assert_close(True, False),
    "none": lambda lib: lib.testing.assert_close(None, 1),
    "scalar vs tensor": lambda lib: lib.testing.assert_close(1.0, lib.tensor(1.0)),
    "tensor vs list": lambda lib: lib.testing.assert_close(lib.tensor([1.0]), [1.0]),
    "strings": lambda lib: lib.testing.assert_close("a", "a"),
    "type error keeps text with msg": lambda lib: lib.testing.assert_close("a", 1, msg="zz"),
    "numpy arrays": lambda lib: lib.testing.assert_close(np.array([1.0, 2.0]),
                                                         np.array([1.0, 3.0])),
    "tensor vs numpy": lambda lib: lib.testing.assert_close(lib.tensor([1.0]), np.array([1.0])),
    "parameter vs tensor": lambda lib: lib.testing.assert_close(lib.nn.Parameter(lib.zeros(2)),
                                                            lib.zeros(2)),
    "subclasses refused": lambda lib: lib.testing.assert_close(
        lib.nn.Parameter(lib.zeros(2)), lib.zeros(2), allow_subclasses=False),
    "requires_grad ignored": lambda lib: lib.testing.assert_close(
        lib.ones(2, requires_grad=True) * 2, lib.ones(2) * 2),
    "big ints": lambda lib: lib.testing.assert_close(lib.tensor([2 ** 40]),
                                                     lib.tensor([2 ** 40 + 1])),
    "assert_allclose": lambda lib: lib.testing.assert_allclose(lib.tensor([1.0, 2.0]),
                                                           lib.tensor([1.0, 2.1])),
    "assert_allclose nan": lambda lib: lib.testing.assert_allclose(lib.tensor([math.nan]),
                                                               lib.tensor([math.nan])),
}


@pytest.mark.parametrize("case", list(_ASSERT_CLOSE_CASES))
def test_assert_close_raises_what_pytorch_raises(case):
    _same_outcome(_ASSERT_CLOSE_CASES[case])


# -- make_tensor ----------------------------------------------------------------------------------

_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
           "uint8", "bool"]


def _attributes(t):
    return (tuple(t.shape), str(t.dtype).split(".")[-1], t.requires_grad, t.is_contiguous(),
            tuple(t.stride()), t.is_leaf)


def _make(lib, *shape, **kwargs):
    return _attributes(lib.testing.make_tensor(*shape, **{"device": "cpu", **kwargs}))


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("kwargs", [
    {}, {"noncontiguous": True}, {"requires_grad": True}, {"low": 3, "high": 3},
    {"low": 5, "high": 3}, {"low": math.nan}, {"low": 1e300, "high": 1e301},
    {"exclude_zero": True}, {"low": -math.inf, "high": math.inf}, {"low": 50},
])
def test_make_tensor_attributes_errors_and_warnings_match(dtype, kwargs):
    ours, theirs = _same_outcome(lambda lib: _make(lib, 2, 3, dtype=getattr(lib, dtype), **kwargs))
    assert ours == theirs


@pytest.mark.parametrize("shape, kwargs", [
    ((0, 3), {"noncontiguous": True}), ((), {}), ((), {"noncontiguous": True}),
    (([2, 3],), {}), ((2, 3, 4, 5), {"memory_format": "channels_last"}),
    ((2, 3, 4, 5), {"memory_format": "channels_last", "noncontiguous": True}),
])
def test_make_tensor_shapes_layouts_and_bad_sizes_match(shape, kwargs):
    def make(lib):
        extra = dict(kwargs)
        if "memory_format" in extra:
            extra["memory_format"] = getattr(lib, extra["memory_format"])
        return _make(lib, *shape, dtype=lib.float32, **extra)
    ours, theirs = _same_outcome(make)
    assert ours == theirs


@pytest.mark.parametrize("shape, kind", [((2.0,), "float"), ((np.float64(2.0), 3), "numpy.float64"),
                                         (((2.0, 3),), "float")])
def test_make_tensor_refuses_float_sizes_as_pytorch(shape, kind):
    for lib in (tl, torch):  # PyTorch's text names empty(), ours make_tensor()
        with pytest.raises(TypeError, match=f"argument 'size' .*must be tuple of ints, but "
                                            f"found element of type {kind} at pos 0"):
            lib.testing.make_tensor(*shape, dtype=lib.float32, device="cpu")


@pytest.mark.parametrize("dtype, kwargs, lowest, highest", [
    ("float32", {}, -9, 9), ("int64", {}, -9, 9), ("uint8", {}, 0, 9), ("bool", {}, 0, 1),
    ("int64", {"low": -2.5, "high": 2.5}, -2, 2), ("uint8", {"low": -5, "high": 3}, 0, 2),
    ("float64", {"low": 0.5, "high": 0.7}, 0.5, 0.7),
])
def test_make_tensor_draws_in_pytorchs_ranges(dtype, kwargs, lowest, highest):
    for lib in (tl, torch):
        t = lib.testing.make_tensor(4000, dtype=getattr(lib, dtype), device="cpu", **kwargs)
        values = t.numpy().astype(np.float64)
        assert values.min() >= lowest and values.max() <= highest
        if not dtype.startswith("float"):  # every integer of the range is drawn
            assert (values.min(), values.max()) == (lowest, highest)


def test_make_tensor_exclude_zero_leaves_no_zero():
    for lib in (tl, torch):
        ints = lib.testing.make_tensor(4000, dtype=lib.int64, device="cpu", low=-1, high=1,
                                     exclude_zero=True)
        halves = lib.testing.make_tensor(4000, dtype=lib.float16, device="cpu", low=-1e-4,
                                       high=1e-4, exclude_zero=True)
        assert bool((ints != 0).all()) and bool((halves != 0).all())


# -- SummaryWriter --------------------------------------------------------------------------------

_RNG = np.random.default_rng(0)
_VALUES = _RNG.standard_normal(100)
_IMAGE = _RNG.random((3, 8, 10)).astype(np.float32)


def _both(tmp_path, write):
    """Run ``write(lib, writer)`` with each library's SummaryWriter; both logs, reloaded."""
    logs = []
    for lib, writer_type in ((tl, SummaryWriter), (torch, TorchWriter)):
        log_dir = tmp_path / lib.__name__
        with writer_type(log_dir) as writer:
            write(lib, writer)
        events = EventAccumulator(str(log_dir), size_guidance={"images": 0, "tensors": 0})
        events.Reload()
        logs.append(events)
    return logs


def test_scalars_and_new_style_scalars_match(tmp_path):
    def write(lib, w):
        w.add_scalar("a/b", 1.5, 3)
        w.add_scalar("a/b", lib.tensor(2.5), 4)
        w.add_scalar("a/b", np.float64(3.0), 5, walltime=123.0)
        w.add_scalar("one", lib.tensor([7.0]), 0)
        w.add_scalar("float", 0.1, 1, new_style=True)
        w.add_scalar("double", 0.1, 2, new_style=True, double_precision=True)
    ours, theirs = _both(tmp_path, write)
    assert ours.Tags()["scalars"] == theirs.Tags()["scalars"]
    for tag in ours.Tags()["scalars"]:
        assert [(e.step, e.value) for e in ours.Scalars(tag)] == \
            [(e.step, e.value) for e in theirs.Scalars(tag)]
    assert ours.Scalars("a/b")[-1].wall_time == 123.0
    for tag in ("float", "double"):  # new_style: tensors of the scalars plugin
        mine, reference = ours.Tensors(tag)[0], theirs.Tensors(tag)[0]
        assert mine.step == reference.step
        assert mine.tensor_proto == reference.tensor_proto
        assert ours.SummaryMetadata(tag).plugin_data.plugin_name == "scalars"
    assert ours.Tensors("double")[0].tensor_proto.double_val == [0.1]


@pytest.mark.parametrize("values, kwargs", [
    (_VALUES, {}),
    (_VALUES.astype(np.float32), {"bins": "auto"}),
    (_VALUES, {"bins": "fd"}),
    (np.arange(10.0), {"bins": 5}),
    (np.arange(10), {}),
    (_VALUES, {"bins": 10, "max_bins": 5}),
    (_VALUES, {"bins": 11, "max_bins": 3}),
    (np.array([0.0, 0.0, 5.0]), {"bins": [-1, 1, 2, 3, 4, 6, 7]}),
])
def test_histograms_match_bucket_for_bucket(tmp_path, values, kwargs):
    ours, theirs = _both(tmp_path, lambda lib, w: w.add_histogram("h", lib.tensor(values), 1,
                                                                **kwargs))
    mine, reference = ours.Histograms("h")[0], theirs.Histograms("h")[0]
    assert mine.step == reference.step
    assert mine.histogram_value == reference.histogram_value


def test_histogram_errors(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(ValueError, match="no element"):
            writer.add_histogram("h", np.zeros(0))
        with pytest.raises(ValueError, match="empty"):
            writer.add_histogram("h", np.array([10.0, 11.0]), bins=[0, 1, 2])


def _pixels(events, tag):
    image = events.Images(tag)[0]
    decoded = np.asarray(PIL_Image.open(io.BytesIO(image.encoded_image_string)))
    return image.step, image.height, image.width, decoded


@pytest.mark.parametrize("method, image, dataformats", [
    ("add_image", _IMAGE, "CHW"),
    ("add_image", _IMAGE.transpose(1, 2, 0), "HWC"),
    ("add_image", _IMAGE.transpose(1, 2, 0), "hwc"),
    ("add_image", _IMAGE[0], "HW"),
    ("add_image", _IMAGE[:1], "CHW"),  # grey: written as RGB
    ("add_image", np.concatenate([_IMAGE, _IMAGE[:1]]), "CHW"),  # RGBA
    ("add_image", (_IMAGE * 255).astype(np.uint8), "CHW"),
    ("add_image", _IMAGE * 4 - 2, "CHW"),  # clipped
    ("add_image", np.stack([_IMAGE] * 3), "NCHW"),
    ("add_images", np.stack([_IMAGE] * 11), "NCHW"),
    ("add_images", np.stack([_IMAGE.transpose(1, 2, 0)] * 3), "NHWC"),
    ("add_images", np.stack([_IMAGE[:1]] * 3), "NCHW"),
    ("add_images", _IMAGE, "CHW"),
])
def test_images_decode_to_pytorchs_pixels(tmp_path, method, image, dataformats):
    ours, theirs = _both(tmp_path, lambda lib, w: getattr(w, method)(
        "i", lib.tensor(image), 1, dataformats=dataformats))
    mine, reference = _pixels(ours, "i"), _pixels(theirs, "i")
    assert mine[:3] == reference[:3]
    np.testing.assert_array_equal(mine[3], reference[3])


def test_image_with_boxes_and_text_match(tmp_path):
    def write(lib, w):
        w.add_image_with_boxes("b", lib.tensor(_IMAGE), lib.tensor([[1.0, 1.0, 5.0, 5.0]]), 1)
        w.add_text("t", "hello **x**", 2)
    ours, theirs = _both(tmp_path, write)
    mine, reference = _pixels(ours, "b"), _pixels(theirs, "b")
    assert mine[:3] == reference[:3]
    np.testing.assert_array_equal(mine[3], reference[3])
    text, text_ref = ours.Tensors("t/text_summary")[0], theirs.Tensors("t/text_summary")[0]
    assert (text.step, text.tensor_proto) == (text_ref.step, text_ref.tensor_proto)


def test_purge_step_drops_the_later_points_as_pytorch(tmp_path):
    logs = []
    for lib, writer_type in ((tl, SummaryWriter), (torch, TorchWriter)):
        log_dir = tmp_path / lib.__name__
        with writer_type(log_dir) as writer:
            for step in range(5):
                writer.add_scalar("a", float(step), step)
        with writer_type(log_dir, purge_step=2) as writer:
            writer.add_scalar("a", 10.0, 2)
        events = EventAccumulator(str(log_dir))
        events.Reload()
        logs.append([(e.step, e.value) for e in events.Scalars("a")])
    assert logs[0] == logs[1] == [(0, 0.0), (1, 1.0), (2, 10.0)]
