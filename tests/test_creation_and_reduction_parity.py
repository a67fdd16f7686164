"""Tensor creation compared with PyTorch bit for bit: ``arange``/``linspace``/``logspace``
values (PyTorch's FMA-rounded kernels), ``arange``'s integer-dtype and error rules, ``full``'s
dtype inference, the copy-construct warning, ``from_numpy`` with negative strides, and the
samplers' refusal of integer dtypes."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

ARANGE_CASES = [(0, 1, 0.1), (1, 0, -0.1), (-1, 1, 0.2), (0, 100, 0.1), (-3.3, 30.3, 1.1),
                (0.123, 50, 0.0731), (5, -5, -0.37), (1e-3, 7, 0.013), (0, 2.5, 0.5),
                (1, 10, 1.5), (0, 3, 0.7), (-0.5, 3, 1), (0.5, -3, -1)]


@pytest.mark.parametrize("args", ARANGE_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int16"])
def test_arange_values_bit_exact(args, dtype):
    ours = tl.arange(*args, dtype=getattr(tl, dtype)).numpy()
    theirs = torch.arange(*args, dtype=getattr(torch, dtype)).numpy()
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


def test_arange_minus_one_to_one_middle_value():
    # NumPy's arange gives -2.2e-16 here; PyTorch's fused multiply-add gives 5.55e-17
    assert tl.arange(-1, 1, 0.2, dtype=tl.float64)[5].item() == \
        torch.arange(-1, 1, 0.2, dtype=torch.float64)[5].item() == 5.551115123125783e-17


def test_arange_int64_truncates_step():
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        tl.arange(0, 2.5, 0.5, dtype=tl.int64)
    assert tl.arange(0, 5, 1.5, dtype=tl.int64).tolist() == [0, 1, 2, 3, 4]
    assert tl.arange(0, 2.5, 0.5, dtype=tl.int32).tolist() == [0, 0, 0, 0, 0]


def test_arange_zero_dim_tensor_bounds_keep_integer_dtype():
    assert tl.arange(tl.tensor(3)).dtype == tl.int64
    assert tl.arange(tl.tensor(3.5)).dtype == tl.float32


@pytest.mark.parametrize("args, message", [
    ((0, -1), "upper bound and lower bound inconsistent with step sign"),
    ((0, 1, -1), "upper bound and lower bound inconsistent with step sign"),
    ((0, float("nan")), "unsupported range: 0 -> nan"),
    ((0, float("inf")), "unsupported range"),
    ((0, 3, 0), "step must be nonzero"),
])
def test_arange_errors(args, message):
    with pytest.raises(RuntimeError, match=message):
        tl.arange(*args)
    with pytest.raises(RuntimeError):
        torch.arange(*args)


def test_arange_bool_not_implemented():
    with pytest.raises(NotImplementedError, match="arange_cpu"):
        tl.arange(3, dtype=tl.bool)


LINSPACE_CASES = [(0, 1, 11), (0, 1, 7), (0, 1, 100), (-5.5, 7.3, 33), (0.1, 0.9, 9),
                  (3, -3, 7), (1, 2, 1), (1, 2, 0), (0, 10, 5)]


@pytest.mark.parametrize("args", LINSPACE_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_linspace_values_bit_exact(args, dtype):
    ours = tl.linspace(*args, dtype=getattr(tl, dtype)).numpy()
    theirs = torch.linspace(*args, dtype=getattr(torch, dtype)).numpy()
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


def test_linspace_uint8_converts_bounds_first():
    # -1 becomes 255 before the step is computed, as in PyTorch
    assert tl.linspace(-1, 1, 5, dtype=tl.uint8).tolist() == \
        torch.linspace(-1, 1, 5, dtype=torch.uint8).tolist() == [255, 191, 128, 64, 1]


@pytest.mark.parametrize("args", LINSPACE_CASES)
@pytest.mark.parametrize("base", [10.0, 2.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logspace_values_bit_exact(args, base, dtype):
    ours = tl.logspace(*args, base=base, dtype=getattr(tl, dtype)).numpy()
    theirs = torch.logspace(*args, base=base, dtype=getattr(torch, dtype)).numpy()
    np.testing.assert_array_equal(ours, theirs)


def test_logspace_integer_dtype():
    assert tl.logspace(-1, 1, 5, base=2, dtype=tl.int64).tolist() == \
        torch.logspace(-1, 1, 5, base=2, dtype=torch.int64).tolist()


@pytest.mark.parametrize("value", [np.float16(2), np.int32(3), np.float64(2.5), np.bool_(True)])
def test_full_numpy_scalar_dtype(value):
    assert str(tl.full((2,), value).dtype) == str(torch.full((2,), value).dtype).replace(
        "torch", "tinygrad_lite")


@pytest.mark.parametrize("value", [float("inf"), float("nan")])
def test_full_non_finite_into_int_is_error(value):
    with pytest.raises(RuntimeError, match="without overflow"):
        tl.full((2,), value, dtype=tl.int64)


def test_tensor_from_tensor_warns():
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        t = tl.tensor(tl.ones(2))
    assert t.tolist() == [1.0, 1.0]


def test_tensor_from_list_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tl.tensor([1.0, 2.0])


def test_from_numpy_negative_stride_is_value_error():
    with pytest.raises(ValueError, match="negative"):
        tl.from_numpy(np.arange(3.0)[::-1])


@pytest.mark.parametrize("make, kernel", [
    (lambda lib: lib.rand(2, dtype=lib.int64), "check_uniform_bounds"),
    (lambda lib: lib.randn(2, dtype=lib.int64), "normal_kernel_cpu"),
    (lambda lib: lib.rand_like(lib.zeros(2, dtype=lib.int64)), "check_uniform_bounds"),
    (lambda lib: lib.randn_like(lib.zeros(2, dtype=lib.int64)), "normal_kernel_cpu"),
    (lambda lib: lib.normal(lib.zeros(3, dtype=lib.int64), 1.0), "normal_kernel_cpu"),
])
def test_float_samplers_refuse_integer_dtypes(make, kernel):
    with pytest.raises(NotImplementedError, match=kernel):
        make(tl)
    with pytest.raises(NotImplementedError, match=kernel):
        make(torch)


@pytest.mark.parametrize("data", [
    [1.0, np.float64(2.0)], [np.float32(1.0), 2.0], [np.float16(1.5), 2], [np.float64(1.0)],
    [[np.float64(1.0)], [2.0]], [np.int32(1), 2.5], [np.uint8(1), 2], [np.bool_(True), 2.0],
    [np.int64(3), np.float32(1)], [[1.0, 2], [3, 4]], [True, 1]])
def test_tensor_of_a_list_with_numpy_scalars_promotes_their_dtypes(data):
    """PyTorch promotes the items' own dtypes (a NumPy scalar keeps its dtype, a Python float
    is the default): ``tensor([np.mean(x), np.std(x)])`` is float64; it was float32 here."""
    ours, theirs = tl.tensor(data), torch.tensor(data)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_tensor_of_a_list_of_one_element_tensors_reads_them_as_scalars():
    for lib in (tl, torch):
        assert tuple(lib.tensor([lib.tensor([1.0]), lib.tensor([2.0])]).shape) == (2,)
        assert tuple(lib.tensor([[lib.tensor(1.0), 2.0]]).shape) == (1, 2)
        assert lib.tensor([lib.tensor(1.0, dtype=lib.float64), 2.0]).dtype == lib.float64
        with pytest.raises(ValueError, match="only one element tensors"):
            lib.tensor([lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])])


def test_as_tensor_of_a_tensor_with_a_dtype_converts_in_the_graph():
    """torch.as_tensor(t, dtype=...) is t.to(dtype): no copy-construction warning, and the
    result stays in the graph."""
    for lib in (tl, torch):
        x = lib.ones(2, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y = lib.as_tensor(x, dtype=lib.float64)
        assert y.requires_grad and type(y.grad_fn).__name__ == "ToCopyBackward0"
        assert lib.as_tensor(x, dtype=lib.float32) is x
