"""quantile / nanquantile / cov / corrcoef against PyTorch: every interpolation, q as a
number or a vector, dim None or given, keepdim, NaN handling, weights; values and gradients."""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)
PLAIN = RNG.standard_normal((4, 7))
WITH_NAN = PLAIN.copy()
WITH_NAN[1, 2] = np.nan
WITH_NAN[3, :] = np.nan


@pytest.mark.parametrize("data", [PLAIN, WITH_NAN], ids=["plain", "nan"])
@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
@pytest.mark.parametrize("mode", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantiles_match_pytorch(data, fn, mode):
    for q in (0.3, [0.1, 0.5, 1.0], 0.0):
        for dim in (None, 0, -1):
            for keepdim in (False, True):
                ours_x = tl.tensor(data, requires_grad=True)
                theirs_x = torch.tensor(data, requires_grad=True)
                qs = tl.tensor(q, dtype=tl.float64) if isinstance(q, list) else q
                qt = torch.tensor(q, dtype=torch.float64) if isinstance(q, list) else q
                ours = getattr(tl, fn)(ours_x, qs, dim, keepdim, interpolation=mode)
                theirs = getattr(torch, fn)(theirs_x, qt, dim, keepdim, interpolation=mode)
                assert tuple(ours.shape) == tuple(theirs.shape)
                np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(),
                                           equal_nan=True)
                g = np.where(np.isfinite(theirs.detach().numpy()),
                             RNG.standard_normal(theirs.shape), 0.0)
                (ours * tl.tensor(g)).sum().backward()
                (theirs * torch.tensor(g)).sum().backward()
                np.testing.assert_allclose(np.nan_to_num(ours_x.grad.numpy()),
                                           np.nan_to_num(theirs_x.grad.numpy()), atol=1e-12)


def test_quantile_errors_match_pytorch():
    x = tl.randn(3, 4)
    for bad, message in ((lambda: tl.quantile(x, 1.5), "range"),
                         (lambda: tl.quantile(tl.tensor([1, 2]), 0.5), "float or double"),
                         (lambda: tl.quantile(x, 0.5, interpolation="cubic"), "interpolation"),
                         (lambda: tl.quantile(x, tl.tensor([0.5], dtype=tl.float64)), "dtype")):
        with pytest.raises(RuntimeError, match=message):
            bad()


@pytest.mark.parametrize("weights", ["none", "correction0", "fweights", "aweights", "both"])
def test_cov_and_corrcoef_match_pytorch(weights):
    x = RNG.standard_normal((3, 6))
    fw, aw = np.array([1, 2, 1, 3, 1, 1]), RNG.random(6)
    kwargs = {"none": {}, "correction0": {"correction": 0}, "fweights": {"fweights": fw},
              "aweights": {"aweights": aw}, "both": {"fweights": fw, "aweights": aw}}[weights]
    ours_x, theirs_x = tl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ours = tl.cov(ours_x, **{k: tl.tensor(v) if isinstance(v, np.ndarray) else v
                             for k, v in kwargs.items()})
    theirs = torch.cov(theirs_x, **{k: torch.tensor(v) if isinstance(v, np.ndarray) else v
                                    for k, v in kwargs.items()})
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(ours_x.grad.numpy(), theirs_x.grad.numpy(), rtol=1e-8,
                               atol=1e-12)
    np.testing.assert_allclose(tl.corrcoef(tl.tensor(x)).numpy(),
                               torch.corrcoef(torch.tensor(x)).numpy(), rtol=1e-10)
    np.testing.assert_allclose(tl.cov(tl.tensor(x[0])).numpy(),
                               torch.cov(torch.tensor(x[0])).numpy())
