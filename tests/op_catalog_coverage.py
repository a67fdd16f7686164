"""Catalogue rows of the composites added for API coverage (tests/test_api_coverage.py): the
differentiable ones; see op_catalog.py for what a row drives."""

import math

import numpy as np

import tinygrad_lite as tl

_lgamma = np.vectorize(math.lgamma)


def _product(x, y):
    assert x.shape == y.shape
    return x * y


def add_rows(row) -> None:
    row("fmax", tl.fmax, [(3, 4), (3, 4)], "distinct", np.fmax)
    row("fmin-broadcast", tl.fmin, [(3, 4), (4,)], "distinct", np.fmin)
    row("clamp_min", lambda a: tl.clamp_min(a, 0.1), [(3, 4)], "distinct",
        lambda a: np.maximum(a, 0.1))
    row("clamp_max", lambda a: a.clamp_max(-0.1), [(3, 4)], "distinct",
        lambda a: np.minimum(a, -0.1))
    row("addcmul", lambda a, b, c: tl.addcmul(a, b, c, value=0.5), [(3, 4), (3, 4), (4,)],
        "real", lambda a, b, c: a + 0.5 * b * c)
    row("addcdiv", lambda a, b, c: a.addcdiv(b, c, value=-2), [(3, 4), (3, 1), (3, 4)],
        "nonzero", lambda a, b, c: a - 2 * b / c)
    row("rsub", lambda a, b: tl.rsub(a, b, alpha=2), [(3, 4), (3, 4)], "real",
        lambda a, b: b - 2 * a)
    row("mvlgamma", lambda a: tl.mvlgamma(a + 1.5, 3), [(3, 4)], "positive",
        lambda a: sum(_lgamma(a + 1.5 - i / 2) for i in range(3)) + 1.5 * math.log(math.pi))
    row("ldexp", lambda a: tl.ldexp(a, tl.tensor([1, -2, 0, 3])), [(3, 4)], "real",
        lambda a: a * np.array([2.0, 0.25, 1.0, 8.0]))
    row("dist", lambda a, b: tl.dist(a, b), [(3, 4), (4,)], "real",
        lambda a, b: np.sqrt(((a - b) ** 2).sum()))
    row("dist-p3", lambda a, b: a.dist(b, 3), [(3, 4), (3, 4)], "distinct",
        lambda a, b: (np.abs(a - b) ** 3).sum() ** (1 / 3))
    row("var_mean-var", lambda a: tl.var_mean(a, 1)[0], [(3, 4)], "real",
        lambda a: a.var(1, ddof=1))
    row("std_mean-mean", lambda a: tl.std_mean(a, 0, keepdim=True)[1], [(3, 4)], "real",
        lambda a: a.mean(0, keepdims=True))
    row("std_mean-std", lambda a: tl.std_mean(a)[0], [(3, 4)], "real", lambda a: a.std(ddof=1))
    row("aminmax-min", lambda a: tl.aminmax(a, dim=1).min, [(3, 4)], "distinct",
        lambda a: a.min(1))
    row("aminmax-max", lambda a: a.aminmax().max, [(3, 4)], "distinct", lambda a: a.max())
    row("ravel", lambda a: tl.ravel(a.t()), [(3, 4)], "real", lambda a: a.T.ravel())
    row("split_with_sizes", lambda a: a.split_with_sizes([1, 3], 1)[1], [(3, 4)], "real",
        lambda a: a[:, 1:])
    row("adjoint", tl.adjoint, [(2, 3, 4)], "real", lambda a: np.swapaxes(a, -2, -1))
    row("broadcast_tensors", lambda a, b: _product(*tl.broadcast_tensors(a, b)), [(3, 1), (4,)],
        "real", lambda a, b: a * b)
    row("sum_to_size", lambda a: a.sum_to_size(3, 1), [(2, 3, 4)], "real",
        lambda a: a.sum((0, 2))[:, None])
