"""The names added for API coverage (tests/test_api_coverage.py) match PyTorch's results."""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4)).astype(np.float32)
B = RNG.standard_normal((3, 4)).astype(np.float32)
C = np.abs(RNG.standard_normal((3, 4))).astype(np.float32) + 0.5
NAN = np.array([1.0, np.nan, 3.0, np.nan, -1.0], np.float32)
NAN2 = np.array([np.nan, 2.0, 0.5, np.nan, -1.0], np.float32)
INT = np.array([[12, -18, 0], [7, 9, 100]], np.int64)
INT2 = np.array([[8, 12, 5], [21, 0, 75]], np.int64)


def both(fn, *arrays, **kw):
    """fn applied to tinygrad_lite tensors and to torch tensors, as NumPy results."""
    got = fn(tl, *(tl.tensor(a) for a in arrays), **kw)
    want = fn(torch, *(torch.tensor(a) for a in arrays), **kw)
    return got, want


def check(got, want):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w)
        return
    if isinstance(want, torch.Size):
        assert tuple(got) == tuple(want)
        return
    if not isinstance(want, torch.Tensor):
        assert got == want
        return
    g, w = got.numpy(), want.numpy()
    assert g.shape == w.shape and str(g.dtype) == str(w.dtype).replace("torch.", ""), (g, w)
    np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, equal_nan=True)


CASES = {
    "arctan2": (lambda m, a, b: m.arctan2(a, b), A, B),
    "greater": (lambda m, a, b: m.greater(a, b), A, B),
    "greater_equal": (lambda m, a, b: a.greater_equal(b), A, A),
    "less": (lambda m, a, b: m.less(a, b), A, B),
    "less_equal": (lambda m, a, b: a.less_equal(b), A, A),
    "not_equal": (lambda m, a, b: m.not_equal(a, b), A, A),
    "multiply": (lambda m, a, b: m.multiply(a, b), A, B),
    "subtract-alpha": (lambda m, a, b: m.subtract(a, b, alpha=2), A, B),
    "rsub": (lambda m, a, b: m.rsub(a, b, alpha=3), A, B),
    "rsub-scalar": (lambda m, a: m.rsub(a, 2.0), A),
    "clamp_min": (lambda m, a: m.clamp_min(a, 0.1), A),
    "clamp_max": (lambda m, a: a.clamp_max(-0.2), A),
    "fmax": (lambda m, a, b: m.fmax(a, b), NAN, NAN2),
    "fmin": (lambda m, a, b: a.fmin(b), NAN, NAN2),
    "addcmul": (lambda m, a, b, c: m.addcmul(a, b, c, value=0.5), A, B, C),
    "addcdiv": (lambda m, a, b, c: a.addcdiv(b, c, value=-2), A, B, C),
    "gcd": (lambda m, a, b: m.gcd(a, b), INT, INT2),
    "lcm": (lambda m, a, b: a.lcm(b), INT, INT2),
    "nextafter": (lambda m, a, b: m.nextafter(a, b), A, B),
    "isin": (lambda m, a, b: m.isin(a, b), INT, INT2),
    "isin-invert": (lambda m, a, b: m.isin(a, b, invert=True), INT, INT2),
    "mvlgamma": (lambda m, a: m.mvlgamma(a + 2, 3), C),
    "ldexp": (lambda m, a, b: m.ldexp(a, b), A, np.array([[1, -2, 0, 3]] * 3)),
    "conj": (lambda m, a: m.conj(a), A),
    "resolve_conj": (lambda m, a: a.resolve_conj(), A),
    "resolve_neg": (lambda m, a: m.resolve_neg(a), A),
    "is_conj": (lambda m, a: m.is_conj(a), A),
    "is_neg": (lambda m, a: a.is_neg(), A),
    "is_nonzero": (lambda m, a: m.is_nonzero(a[:1, :1]), A),
    "is_same_size": (lambda m, a, b: m.is_same_size(a, b), A, B),
    "aminmax": (lambda m, a: tuple(m.aminmax(a)), A),
    "aminmax-dim": (lambda m, a: tuple(a.aminmax(dim=1, keepdim=True)), A),
    "var_mean": (lambda m, a: m.var_mean(a, 1), A),
    "var_mean-all": (lambda m, a: m.var_mean(a, correction=0), A),
    "std_mean-keepdim": (lambda m, a: m.std_mean(a, 0, keepdim=True), A),
    "std_mean-all-keepdim": (lambda m, a: m.std_mean(a, keepdim=True), A),
    "dist": (lambda m, a, b: m.dist(a, b), A, B),
    "dist-p1": (lambda m, a, b: a.dist(b, 1), A, B),
    "ravel": (lambda m, a: m.ravel(a.t()), A),
    "split_with_sizes": (lambda m, a: a.split_with_sizes([1, 3], 1), A),
    "argwhere": (lambda m, a: m.argwhere(a > 0), A),
    "adjoint": (lambda m, a: m.adjoint(a[None]), A),
    "broadcast_shapes": (lambda m: m.broadcast_shapes((3, 1), (4,), 1),),
    "broadcast_tensors": (lambda m, a, b: m.broadcast_tensors(a[:, :1], b[0]), A, B),
    "byte": (lambda m, a: (a * 3).abs().byte(), A),
    "char": (lambda m, a: (a * 3).char(), A),
    "short": (lambda m, a: (a * 3).short(), A),
    "sum_to_size": (lambda m, a: a.expand(2, 3, 4).sum_to_size(3, 1), A),
    "sum_to_size-tuple": (lambda m, a: a.sum_to_size((1, 4)), A),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, *arrays = CASES[name]
    check(*both(fn, *arrays))


INPLACE = ["arcsin", "arctan", "arcsinh", "absolute", "greater", "less_equal", "not_equal",
           "multiply", "subtract", "divide", "true_divide", "sinc", "clamp_min", "clamp_max",
           "addcmul", "addcdiv", "nextafter", "arctan2", "heaviside", "ldexp"]
_UNARY = {"arcsin", "arctan", "arcsinh", "absolute", "sinc"}
_INPLACE_ARGS = {"clamp_min": lambda m, b: (0.0,), "clamp_max": lambda m, b: (0.0,),
                 "addcmul": lambda m, b: (b, b), "addcdiv": lambda m, b: (b, b + 3),
                 "ldexp": lambda m, b: (m.tensor([1, 2, 3, 4]),)}


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_matches_torch(name):
    def run(m):
        x = m.tensor(np.tanh(A))
        args = () if name in _UNARY else _INPLACE_ARGS.get(name, lambda m, b: (b,))(
            m, m.tensor(np.tanh(B)))
        out = getattr(x, name + "_")(*args)
        assert out is x
        return x

    check(run(tl), run(torch))


def test_is_cpu_and_errors():
    assert tl.randn(2).is_cpu
    with pytest.raises(RuntimeError):
        tl.is_nonzero(tl.ones(2))
    with pytest.raises(RuntimeError):
        tl.ones(2, 3).sum_to_size(2)
    with pytest.raises(RuntimeError):
        tl.split_with_sizes(tl.ones(4), [1, 2])
    with pytest.raises(RuntimeError):
        tl.gcd(tl.ones(2), tl.ones(2))


def test_gradients_match_torch():
    def grads(m):
        a, b, c = (m.tensor(x.astype(np.float64), requires_grad=True) for x in (A, B, C))
        y = (m.addcdiv(a, b, c, value=0.3) * m.fmax(a, b) + m.dist(a, b)
             + m.mvlgamma(c + 2, 2).sum() * m.ldexp(a, m.tensor(2)).sum()
             + m.std_mean(c, 1)[0].sum() + m.rsub(a, c).sum())
        y.sum().backward()
        return [t.grad.numpy() for t in (a, b, c)]

    for g, w in zip(grads(tl), grads(torch)):
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-9)
