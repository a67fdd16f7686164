"""xlogy at 0 * log(NaN) and with Python-number operands: values, gradients and dtypes as
PyTorch's (0 * log(NaN) is NaN there, not 0)."""

import math

import numpy as np
import pytest

import tinygrad_lite as tl


def test_zero_times_log_nan_is_nan_with_nan_gradients():
    x = tl.tensor([0.0, 0.0, 1.0, 2.0], requires_grad=True)
    y = tl.tensor([math.nan, 0.0, math.nan, 0.0], requires_grad=True)
    out = tl.xlogy(x, y)
    np.testing.assert_array_equal(out.detach().numpy(), [math.nan, 0.0, math.nan, -math.inf])
    out[:2].sum().backward()
    assert math.isnan(x.grad[0].item()) and math.isnan(y.grad[0].item())
    # 0 * log(0): no gradient in x; in y PyTorch's rule x / y gives 0 / 0, NaN (and every y
    # gradient here is NaN: 0 * (1 / NaN), 0 * (2 / 0) as in PyTorch)
    np.testing.assert_array_equal(x.grad.numpy(), [math.nan, 0.0, math.nan, 0.0])
    assert np.isnan(y.grad.numpy()).all()


def test_python_numbers_take_the_tensors_dtype():
    assert tl.xlogy(tl.tensor([0.0, 1.0]), 2.0).dtype == tl.float32
    assert tl.xlogy(2.0, tl.tensor([3.0, 1.0])).dtype == tl.float32
    assert tl.xlogy(tl.tensor([1.0], dtype=tl.float64), 3).dtype == tl.float64


@pytest.mark.parametrize("make", [
    lambda lib: lib.xlogy(lib.tensor([0.0, 1.0, 0.0]), lib.tensor([math.nan, math.nan, -1.0])),
    lambda lib: lib.xlogy(lib.tensor([0.0, 1.0]), 2.0),
    lambda lib: lib.xlogy(0, lib.tensor([math.nan, 1.0])),
    lambda lib: lib.xlogy(2.0, lib.tensor([3.0, 1.0])),
    lambda lib: lib.xlogy(lib.tensor([0, 2]), lib.tensor([0.0, 3.0])),
])
def test_matches_pytorch(make):
    torch = pytest.importorskip("torch")
    mine, theirs = make(tl), make(torch)
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
