"""CrossMapLRN2d (Lua Torch's cross-channel local response normalisation) against PyTorch:
values, gradients and errors."""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("size", [2, 3, 4, 5])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_map_lrn2d_matches_pytorch(size, dtype):
    rng = np.random.default_rng(size)
    x = rng.standard_normal((2, 7, 3, 4)).astype(dtype) * 3
    g = rng.standard_normal(x.shape).astype(dtype)
    ours = tl.nn.CrossMapLRN2d(size, alpha=0.2, beta=0.6, k=1.5)
    ref = torch.nn.CrossMapLRN2d(size, alpha=0.2, beta=0.6, k=1.5)
    assert repr(ours) == repr(ref)
    xo, xt = tl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    yo, yt = ours(xo), ref(xt)
    tol = 1e-12 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(_np(yo), _np(yt), rtol=tol, atol=tol)
    yo.backward(tl.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=tol, atol=tol)
    with pytest.raises(ValueError, match="Expected input to be 4D, got 3D instead"):
        ours(tl.randn(2, 3, 4))
