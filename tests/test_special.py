"""tl.special: values and gradients against PyTorch where installed, the NumPy fallbacks used
without SciPy against the SciPy-backed values, gradients (first and second order) against
central differences, and the incomplete gamma's refusal to differentiate in ``a``."""

import numpy as np
import pytest
from helpers import check_grads, check_second_order

import tinygrad_lite as tl
import tinygrad_lite.ops.special as ops_special
import tinygrad_lite.special as special

RNG = np.random.default_rng(0)
REAL = RNG.uniform(-3, 3, 40)
POSITIVE = RNG.uniform(0.05, 4, 40)
CASES = {
    "ndtr": (REAL,), "ndtri": (RNG.uniform(0.01, 0.99, 40),),
    "log_ndtr": (np.concatenate([REAL, [-10.0, -19.5, -20.5, -40.0]]),),
    "entr": (np.concatenate([POSITIVE, [0.0, -1.0]]),),
    "erfcx": (np.concatenate([REAL, [6.0, 20.0, 100.0]]),),
    "i0": (REAL * 5,), "i0e": (REAL * 5,), "i1": (REAL * 5,), "i1e": (REAL * 5,),
    "expit": (REAL,), "gammaln": (POSITIVE,), "psi": (POSITIVE,), "exp2": (REAL,),
    "xlog1py": (np.concatenate([REAL, [0.0, 0.0, 0.0]]),
                np.concatenate([POSITIVE, [3.0, -1.0, -2.0]])),
    "gammainc": (POSITIVE, POSITIVE[::-1].copy()), "gammaincc": (POSITIVE, POSITIVE[::-1].copy()),
    "zeta": (POSITIVE + 1.5, POSITIVE),
}


def _close(ours, theirs, rtol=1e-10):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert (np.isnan(ours) == np.isnan(theirs)).all()
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=1e-300)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_pytorch(name):
    torch = pytest.importorskip("torch")
    args = CASES[name]
    grad_inputs = [] if name == "zeta" else [1] if name.startswith("gammainc") else \
        list(range(len(args)))  # zeta has no gradient, gammainc none in a (PyTorch neither)
    ours = [tl.tensor(a, requires_grad=i in grad_inputs) for i, a in enumerate(args)]
    theirs = [torch.tensor(a, requires_grad=i in grad_inputs) for i, a in enumerate(args)]
    out, ref = getattr(special, name)(*ours), getattr(torch.special, name)(*theirs)
    _close(out.detach().numpy(), ref.detach().numpy())
    if not grad_inputs:
        return
    out.sum().backward()
    ref.sum().backward()
    for i in grad_inputs:
        expected = theirs[i].grad.numpy()
        # xlog1py's y-gradient at x = 0, y = -1 is 0/0 in PyTorch (NaN), 0 here
        defined = ~np.isnan(expected) if name == "xlog1py" else slice(None)
        _close(ours[i].grad.numpy()[defined], expected[defined], rtol=1e-8)


def test_fallbacks_without_scipy_match(monkeypatch):
    pytest.importorskip("scipy")
    expected = {name: getattr(special, name)(*[tl.tensor(a) for a in args]).numpy()
                for name, args in CASES.items()}
    monkeypatch.setattr(ops_special, "scipy_special", lambda: None)
    for name, args in CASES.items():
        got = getattr(special, name)(*[tl.tensor(a) for a in args]).numpy()
        _close(got, expected[name], rtol=1e-8 if name != "zeta" else 1e-7)
    a = np.array([0.5, 5.0, 50.0, 500.0, 1000.0])
    x = np.array([0.1, 7.0, 40.0, 520.0, 900.0])
    monkeypatch.undo()
    reference = special.gammainc(tl.tensor(a), tl.tensor(x)).numpy()
    monkeypatch.setattr(ops_special, "scipy_special", lambda: None)
    _close(special.gammainc(tl.tensor(a), tl.tensor(x)).numpy(), reference, rtol=1e-9)


@pytest.mark.parametrize("name", ["ndtr", "log_ndtr", "entr", "erfcx", "i0", "i1e", "xlog1py"])
def test_composites_have_second_order_gradients(name):
    args = [np.abs(a[:6]) + 0.1 if name == "entr" else a[:6] for a in CASES[name]]
    fn = getattr(special, name)
    check_grads(fn, *args)
    check_second_order(fn, *args)


def test_incomplete_gamma_gradient_in_x_only():
    a, x = POSITIVE[:5] + 0.5, POSITIVE[5:10] + 0.1
    check_grads(lambda t: special.gammainc(tl.tensor(a), t), x)
    check_second_order(lambda t: special.gammaincc(tl.tensor(a), t), x)
    at = tl.tensor(a, requires_grad=True)
    with pytest.raises(NotImplementedError, match="first argument"):
        special.gammainc(at, tl.tensor(x)).sum().backward()
    assert np.allclose((special.gammainc(a, x) + special.gammaincc(a, x)).numpy(), 1.0)


def test_gamma_and_chi2_cdf():
    torch = pytest.importorskip("torch")
    value = np.array([0.3, 1.0, 2.5])
    ours = tl.distributions.Gamma(tl.tensor(2.0), tl.tensor(1.5, requires_grad=True))
    theirs = torch.distributions.Gamma(torch.tensor(2.0, dtype=torch.float64),
                                       torch.tensor(1.5, dtype=torch.float64,
                                                    requires_grad=True))
    got, ref = ours.cdf(tl.tensor(value)), theirs.cdf(torch.tensor(value))
    _close(got.detach().numpy(), ref.detach().numpy(), rtol=1e-7)
    got.sum().backward()
    ref.sum().backward()
    _close(ours.rate.grad.numpy(), theirs.rate.grad.numpy(), rtol=1e-6)
    chi2 = tl.distributions.Chi2(tl.tensor(3.0)).cdf(tl.tensor(value)).numpy()
    _close(chi2, torch.distributions.Chi2(torch.tensor(3.0)).cdf(torch.tensor(value)).numpy(),
           rtol=1e-6)


def test_multigammaln_and_aliases():
    torch = pytest.importorskip("torch")
    x = POSITIVE + 2
    _close(special.multigammaln(tl.tensor(x), 3).numpy(),
           torch.special.multigammaln(torch.tensor(x), 3).numpy())
    # outside the domain (x <= (p-1)/2): the sum of the lgamma terms, as PyTorch 2.13's (no
    # error any more): inf where a term hits a pole
    edge = np.array([0.5, 1.0, 0.75, -2.5])
    _close(special.multigammaln(tl.tensor(edge), 2).numpy(),
           torch.special.multigammaln(torch.tensor(edge), 2).numpy())
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        special.multigammaln(tl.tensor([2.0]), 0)
    assert special.expit is tl.sigmoid and special.gammaln is tl.lgamma


def test_log_ndtr_keeps_both_tails_in_float64_and_float32():
    # above 0: log1p(-ndtr(-x)), so log_ndtr(6) keeps its last digits and log_ndtr(20) is
    # -2.75e-89, not 0; below, erfcx: no underflow in float32 at -20 (it was -inf there), and
    # no asymptotic series (1.5e-11 off at -20.5)
    torch = pytest.importorskip("torch")
    points = [-40.0, -20.5, -20.0, -10.5, -10.0, -5.0, 0.0, 6.0, 20.0, 40.0]
    x = tl.tensor(points, dtype=tl.float64, requires_grad=True)
    y = special.log_ndtr(x)
    y.sum().backward()
    tx = torch.tensor(points, dtype=torch.float64, requires_grad=True)
    ty = torch.special.log_ndtr(tx)
    ty.sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=0)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=0)
    x32 = tl.tensor(points, dtype=tl.float32, requires_grad=True)
    y32 = special.log_ndtr(x32)
    y32.sum().backward()
    assert np.isfinite(y32.detach().numpy()).all() and np.isfinite(x32.grad.numpy()).all()
    # (float32 erfc is a few ulps off in the upper tail: 2.5e-6 relative at 6, PyTorch's
    # float32 1.6e-6; log_ndtr(20) is -2.75e-89 in float64, -0.0 in float32)
    np.testing.assert_allclose(y32.detach().numpy(), ty.detach().numpy(), rtol=5e-6,
                               atol=1e-37)
    np.testing.assert_allclose(x32.grad.numpy(), tx.grad.numpy(), rtol=2e-5, atol=1e-37)


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e"])
def test_bessel_functions_take_nan_and_huge_arguments(name):
    # the number of series terms comes from the finite arguments (NaN raised ValueError, inf
    # OverflowError, and 1e308 would have summed 5e307 terms)
    x = tl.tensor([float("nan"), 2.0, -3.0], dtype=tl.float64)
    out = getattr(special, name)(x).numpy()
    assert np.isnan(out[0]) and np.isfinite(out[1:]).all()
    huge = getattr(special, name)(tl.tensor([1e308, float("inf")], dtype=tl.float64)).numpy()
    assert huge.shape == (2,)
