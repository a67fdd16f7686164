"""Catalogue rows of functions/math_more.py, indexing_more.py, inplace_more.py and
torch_only.py: i0, igamma/igammac (in x), angle, hardshrink, prelu, conj_physical, put,
index_reduce (prod/mean/amax/amin), as_strided(_scatter), gradient, fill and the in-place
addmm_ family; see op_catalog.py for what a row drives."""

import numpy as np

import tinygrad_lite as tl

_A = np.array([1.0, 2.0, 3.0, 2.0])  # igamma's a, per column: P(a, x) has a closed form
_PUT = np.array([0, 4, -1, 2, 4])  # the last repeats 4: only for accumulate
_REDUCE_INDEX = np.array([0, 2, 0, 3, 0])
_COORDS = np.array([0.0, 1.0, 3.0, 4.0, 7.5])


def _np_igamma(x):
    """P(a, x) for a = 1, 2, 3: ``1 - e^-x sum_{k<a} x^k / k!``."""
    partial = [1 + 0 * x, 1 + x, 1 + x + x * x / 2]
    series = np.choose((_A - 1).astype(int) + 0 * x.astype(int), partial)
    return 1 - np.exp(-x) * series


def _np_put(a, v, accumulate):
    out = a.copy().reshape(-1)
    index = _PUT % out.size
    if accumulate:
        np.add.at(out, index, v.reshape(-1))
    else:
        out[index[:-1]] = v.reshape(-1)[:-1]
    return out.reshape(a.shape)


def _np_index_reduce(base, src, reduce, include_self):
    out = base.copy()
    fn = {"prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}[reduce]
    for row in np.unique(_REDUCE_INDEX):
        members = src[_REDUCE_INDEX == row]
        if include_self:
            members = np.concatenate([base[row:row + 1], members])
        out[row] = fn(members, axis=0)
    return out


def _np_strided(a, size, stride, offset):
    index = offset + sum(np.arange(n).reshape([-1 if j == k else 1 for j in range(len(size))])
                         * s for k, (n, s) in enumerate(zip(size, stride, strict=True)))
    return a.reshape(-1)[index]


def _np_strided_scatter(a, s):
    out = a.copy().reshape(-1)
    out[1 + np.array([[0, 2], [1, 3]])] = s
    return out.reshape(a.shape)


def add_rows(row) -> None:
    row("i0", tl.i0, [(3, 4)], "real", np.i0)
    row("i0_-inplace", lambda a: (a * 2).i0_(), [(3, 4)], "real", lambda a: np.i0(a * 2))
    row("igamma-x", lambda x: tl.igamma(tl.tensor(_A, dtype=x.dtype), x), [(3, 4)], "positive",
        _np_igamma)
    row("igammac-x-method", lambda x: tl.tensor(_A, dtype=x.dtype).igammac(x), [(3, 4)],
        "positive", lambda x: 1 - _np_igamma(x))
    row("angle", lambda a: tl.angle(a) + a, [(3, 4)], "nonzero",
        lambda a: np.where(a < 0, np.pi, 0.0) + a)
    row("hardshrink", lambda a: a.hardshrink(0.5), [(3, 4)], "nonzero",
        lambda a: np.where(np.abs(a) > 0.5, a, 0.0))
    row("prelu-per-channel", lambda a, w: tl.prelu(a, w), [(2, 3, 4), (3,)], "nonzero",
        lambda a, w: np.where(a > 0, a, a * w[:, None]))
    row("conj_physical", lambda a: tl.conj_physical(a) * 2, [(3,)], "real", lambda a: a * 2)
    for accumulate in (False, True):
        row(f"put-accumulate-{accumulate}",
            lambda a, v, acc=accumulate: tl.put(
                a, tl.tensor(_PUT if acc else _PUT[:-1]), v if acc else v[:-1], acc),
            [(2, 3), (5,)], "real", lambda a, v, acc=accumulate: _np_put(a, v, acc))
    for reduce in ("prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            row(f"index_reduce-{reduce}-self-{include_self}",
                lambda a, s, r=reduce, inc=include_self: a.index_reduce(
                    0, tl.tensor(_REDUCE_INDEX), s, r, include_self=inc),
                [(4, 3), (5, 3)], "distinct",
                lambda a, s, r=reduce, inc=include_self: _np_index_reduce(a, s, r, inc))
    row("as_strided-overlapping-windows", lambda a: a.as_strided((3, 3), (1, 1)), [(6,)], "real",
        lambda a: _np_strided(a, (3, 3), (1, 1), 0))
    row("as_strided-offset", lambda a: tl.as_strided(a, (2, 2), (1, 3), 2), [(3, 4)], "real",
        lambda a: _np_strided(a, (2, 2), (1, 3), 2))
    row("as_strided_scatter", lambda a, s: tl.as_strided_scatter(a, s, (2, 2), (1, 2), 1),
        [(12,), (2, 2)], "real", _np_strided_scatter)
    row("gradient-dim1", lambda a: tl.gradient(a, dim=1)[0], [(3, 5)], "real",
        lambda a: np.gradient(a, axis=1))
    row("gradient-coords-edge2",
        lambda a: tl.gradient(a, spacing=(tl.tensor(_COORDS),), dim=1, edge_order=2)[0],
        [(3, 5)], "real", lambda a: np.gradient(a, _COORDS, axis=1, edge_order=2))
    row("gradient-all-dims-sum", lambda a: sum(tl.gradient(a, spacing=[0.5, 2.0])), [(4, 3)],
        "real", lambda a: sum(np.gradient(a, 0.5, 2.0)))
    row("fill-tensor-value", lambda a, v: tl.fill(a, v) * a, [(3, 4), ()], "real",
        lambda a, v: np.full_like(a, v) * a)
    row("addmm_-inplace", lambda a, b, c: (a * 1).addmm_(b, c, beta=0.5, alpha=2.0),
        [(3, 4), (3, 2), (2, 4)], "real", lambda a, b, c: 0.5 * a + 2.0 * (b @ c))
    row("baddbmm_-inplace", lambda a, b, c: (a * 1).baddbmm_(b, c, alpha=-1.0),
        [(2, 3, 4), (2, 3, 2), (2, 2, 4)], "real", lambda a, b, c: a - b @ c)
    row("addr_-inplace", lambda a, b, c: (a * 1).addr_(b, c), [(3, 4), (3,), (4,)], "real",
        lambda a, b, c: a + np.outer(b, c))
