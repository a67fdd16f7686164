"""The window functions against PyTorch: every length class (0, 1, even, odd), periodic and
symmetric, their parameters, dtypes, and the refusals."""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")
NAMES = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("length", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_pytorch(name, length, periodic):
    ours, theirs = getattr(tl, name)(length, periodic), getattr(torch, name)(length, periodic)
    assert ours.dtype == tl.float32 and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-6)


def test_window_parameters_dtype_and_errors():
    np.testing.assert_allclose(tl.hamming_window(7, False, alpha=0.5, beta=0.5).numpy(),
                               torch.hamming_window(7, False, alpha=0.5, beta=0.5).numpy(),
                               atol=1e-6)
    np.testing.assert_allclose(tl.kaiser_window(9, True, 5.0).numpy(),
                               torch.kaiser_window(9, True, 5.0).numpy(), atol=1e-6)
    assert tl.hann_window(4, dtype=tl.float64).dtype == tl.float64
    assert tl.hann_window(4, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="non-negative"):
        tl.hann_window(-1)
    with pytest.raises(RuntimeError, match="floating point"):
        tl.hann_window(4, dtype=tl.int64)
    assert not hasattr(tl.Tensor, "hann_window")
