"""tl.testing.make_tensor: PyTorch's value ranges per dtype, clamping, layout options, errors."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.testing import make_tensor

# (dtype, default low inclusive, default high exclusive), as PyTorch documents them
RANGES = [(tl.bool, 0, 2), (tl.uint8, 0, 10), (tl.uint16, 0, 10), (tl.uint64, 0, 10),
          (tl.int8, -9, 10), (tl.int16, -9, 10), (tl.int32, -9, 10), (tl.int64, -9, 10),
          (tl.float16, -9, 9), (tl.float32, -9, 9), (tl.float64, -9, 9)]


@pytest.mark.parametrize("dtype,low,high", RANGES, ids=lambda v: getattr(v, "name", str(v)))
def test_default_ranges(dtype, low, high):
    x = make_tensor(2000, dtype=dtype, device="cpu")
    assert x.dtype is dtype and tuple(x.shape) == (2000,) and not x.requires_grad
    values = x.numpy().astype(np.float64)
    # (float16: a draw just below ``high`` can round to it, in PyTorch as here)
    assert values.min() >= low and (values.max() < high or dtype is tl.float16
                                    and values.max() == high)
    if dtype.is_floating_point:
        assert values.min() < low + 1 and values.max() > high - 1  # spread over the range
    else:
        assert set(np.unique(values)) == set(range(low, high))  # every integer drawn


def test_shape_forms_and_low_high():
    assert tuple(make_tensor(2, 3, dtype=tl.float32, device="cpu").shape) == (2, 3)
    assert tuple(make_tensor((2, 3), dtype=tl.float32, device="cpu").shape) == (2, 3)
    assert tuple(make_tensor([4], dtype=tl.float32, device=tl.device("cpu")).shape) == (4,)
    assert tuple(make_tensor(dtype=tl.float32, device="cpu").shape) == ()
    x = make_tensor(1000, dtype=tl.float32, device="cpu", low=-1, high=1)
    assert x.min().item() >= -1 and x.max().item() < 1
    x = make_tensor(1000, dtype=tl.int64, device="cpu", low=0.5, high=2.5)  # rounded up: [1, 3)
    assert set(x.tolist()) == {1, 2}
    x = make_tensor(100, dtype=tl.float16, device="cpu", low=-1e6, high=1e6)  # clamped
    assert np.isfinite(x.numpy()).all()
    x = make_tensor(100, dtype=tl.uint8, device="cpu", low=-5, high=1000)
    assert x.numpy().min() >= 0


def test_seeded_repeatably():
    tl.manual_seed(0)
    a = make_tensor(5, dtype=tl.float32, device="cpu")
    tl.manual_seed(0)
    assert np.array_equal(a.numpy(), make_tensor(5, dtype=tl.float32, device="cpu").numpy())


def test_requires_grad_noncontiguous_exclude_zero():
    x = make_tensor(3, 4, dtype=tl.float64, device="cpu", requires_grad=True)
    assert x.requires_grad and x.is_leaf
    x = make_tensor(3, 4, dtype=tl.float32, device="cpu", noncontiguous=True)
    assert tuple(x.shape) == (3, 4) and not x.is_contiguous()
    assert make_tensor(1, dtype=tl.float32, device="cpu", noncontiguous=True).is_contiguous()
    x = make_tensor(500, dtype=tl.int64, device="cpu", low=-1, high=2, exclude_zero=True)
    assert (x != 0).all().item() and set(x.tolist()) <= {-1, 1}
    x = make_tensor(50, dtype=tl.float32, device="cpu", low=0, high=1e-30, exclude_zero=True)
    assert (x != 0).all().item()
    x = make_tensor(2, 3, dtype=tl.float32, device="cpu", memory_format=tl.contiguous_format)
    assert x.is_contiguous()


def test_errors():
    with pytest.raises(ValueError, match="`requires_grad=True` is not supported for boolean"):
        make_tensor(2, dtype=tl.int64, device="cpu", requires_grad=True)
    with pytest.raises(ValueError, match="`low` must be less than `high`, but got 2 >= 1"):
        make_tensor(2, dtype=tl.float32, device="cpu", low=2, high=1)
    with pytest.raises(ValueError, match="cannot be NaN"):
        make_tensor(2, dtype=tl.float32, device="cpu", low=float("nan"))
    with pytest.raises(ValueError, match=r"is \[300, 400\), but tinygrad_lite.uint8 only "
                                         r"supports \[0, 256\)"):
        make_tensor(2, dtype=tl.uint8, device="cpu", low=300, high=400)
    with pytest.raises(ValueError, match="mutually exclusive"):
        make_tensor(2, dtype=tl.float32, device="cpu", noncontiguous=True,
                    memory_format=tl.contiguous_format)
    with pytest.raises(TypeError, match="not supported by tinygrad_lite.testing.make_tensor"):
        make_tensor(2, dtype="float32", device="cpu")
    with pytest.raises(TypeError, match="device"):
        make_tensor(2, dtype=tl.float32)  # device is required, as in PyTorch
    with pytest.warns(FutureWarning, match="low==high"):
        x = make_tensor(3, dtype=tl.float32, device="cpu", low=1, high=1)
    assert x.tolist() == [1.0, 1.0, 1.0]


def test_bfloat16_when_available():
    try:
        dtype_np = tl.bfloat16.np if tl.bfloat16.np is not None else tl.zeros(1).to(
            tl.bfloat16).numpy().dtype
    except (TypeError, RuntimeError, ImportError):
        pytest.skip("bfloat16 needs ml_dtypes")
    x = make_tensor(200, dtype=tl.bfloat16, device="cpu")
    assert x.dtype is tl.bfloat16 and x.numpy().dtype == dtype_np
    values = x.float().numpy()
    assert values.min() >= -9 and values.max() <= 9


def test_ranges_and_errors_match_torch():
    torch = pytest.importorskip("torch")
    from torch.testing import make_tensor as torch_make_tensor

    for kwargs in (dict(low=2, high=1), dict(low=300, high=400), dict(low=float("nan"))):
        outcomes = []
        for lib, fn in ((torch, torch_make_tensor), (tl, make_tensor)):
            with pytest.raises(ValueError) as info:
                fn(2, dtype=lib.uint8, device="cpu", **kwargs)
            outcomes.append(str(info.value).replace("torch.", "tinygrad_lite."))
        assert outcomes[0] == outcomes[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        for dtype in ("int8", "int64", "uint8", "float16", "float32", "bool"):
            ours = make_tensor(3000, dtype=getattr(tl, dtype), device="cpu").numpy()
            theirs = torch_make_tensor(3000, dtype=getattr(torch, dtype), device="cpu").numpy()
            assert ours.dtype == theirs.dtype
            assert ours.min() == pytest.approx(theirs.min(), abs=0.05)
            assert ours.max() == pytest.approx(theirs.max(), abs=0.05)
