"""tl.special's orthogonal polynomials (``special/polynomials.py``) against torch.special: tensor
and number degrees, degree truncation and promotion, Hermite's degree limit, argument errors."""

import math

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

POLY = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
        "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
        "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
        "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
        "laguerre_polynomial_l", "legendre_polynomial_p"]



def _close(ours, theirs, rtol, atol):
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    same = (np.isnan(ours) & np.isnan(theirs)) | (ours == theirs)
    return bool(np.all(same | np.isclose(ours, theirs, rtol=rtol, atol=atol)))



X_POLY = np.concatenate([np.linspace(-1.4, 1.4, 57), [-1.0, 1.0, 0.0, 0.5, 1.0 - 1e-12]])

N_POLY = np.array([-3, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 25, 60])



@pytest.mark.parametrize("name", POLY)
def test_polynomials_match_torch_with_tensor_degrees(name):
    xs, ns = np.meshgrid(X_POLY, N_POLY)
    ours = getattr(tl.special, name)(tl.tensor(xs.ravel()), tl.tensor(ns.ravel()))
    theirs = getattr(torch.special, name)(torch.tensor(xs.ravel()), torch.tensor(ns.ravel()))
    assert ours.dtype == tl.float64 and ours.grad_fn is None
    assert _close(ours.numpy(), theirs.numpy(), 1e-10, 1e-10)
    x32 = X_POLY.astype(np.float32)
    for n in (0, 3, 10):  # int degree, float32 input
        ours = getattr(tl.special, name)(tl.tensor(x32), n)
        theirs = getattr(torch.special, name)(torch.tensor(x32), n)
        assert ours.dtype == tl.float32
        assert _close(ours.numpy(), theirs.numpy(), 1e-4, 1e-4)



def test_polynomial_degree_handling_and_promotion():
    x = tl.tensor([0.3, -0.7])
    xt = torch.tensor([0.3, -0.7])
    f, ft = tl.special.chebyshev_polynomial_t, torch.special.chebyshev_polynomial_t
    # a float degree is truncated; NaN and infinite degrees give the zero polynomial
    for n in (2.7, -0.5, float("nan"), float("inf")):
        assert _close(f(x, n).numpy(), ft(xt, n).numpy(), 1e-6, 1e-7), n
    assert f(tl.tensor([1, 2]), 3).dtype == tl.float32
    assert f(x, tl.tensor([3.0], dtype=tl.float64)).dtype == tl.float64
    assert f(x, tl.tensor([3])).dtype == tl.float32
    scalar_x = f(0.5, tl.tensor([3, 4]))
    assert scalar_x.dtype == tl.float32
    np.testing.assert_allclose(scalar_x.numpy(), ft(0.5, torch.tensor([3, 4])).numpy())
    # broadcasting of x against n
    got = tl.special.legendre_polynomial_p(tl.tensor([[0.1], [0.2]]), tl.tensor([1, 2, 3]))
    assert got.shape == (2, 3)
    np.testing.assert_allclose(got.numpy(), torch.special.legendre_polynomial_p(
        torch.tensor([[0.1], [0.2]]), torch.tensor([1, 2, 3])).numpy(), rtol=1e-6)



def test_hermite_degree_limit_and_overflow():
    # PyTorch returns NaN above degree 128 (float32) / 512 (float64)
    for dtype, limit in ((tl.float32, 128), (tl.float64, 512)):
        got = tl.special.hermite_polynomial_h(tl.tensor([0.5], dtype=dtype), limit + 1)
        assert math.isnan(got.item())
        at_limit = tl.special.hermite_polynomial_he(tl.tensor([0.1, 3.0], dtype=dtype), limit)
        expected = torch.special.hermite_polynomial_he(
            torch.tensor([0.1, 3.0], dtype=getattr(torch, str(dtype).split(".")[-1])), limit)
        assert _close(at_limit.numpy(), expected.numpy(), 1e-4, 0)
    # a recurrence that overflows float32 turns into NaN, as in PyTorch's float loop
    big = tl.special.chebyshev_polynomial_t(tl.tensor([3.0]), 200).item()
    assert math.isnan(big) == math.isnan(
        torch.special.chebyshev_polynomial_t(torch.tensor([3.0]), 200).item())



def test_argument_errors():
    with pytest.raises(TypeError, match="bessel_j0"):
        tl.special.bessel_j0("1.0")
    with pytest.raises(TypeError, match="legendre_polynomial_p"):
        tl.special.legendre_polynomial_p(tl.tensor([0.5]), [1, 2])
