"""Catalogue rows of in-place ops and setitem on non-leaf tensors: differentiable through the
graph rebase (arithmetic chains, setitem, fill/zero/copy and the in-place addmm_ family)."""

import numpy as np

import tinygrad_lite as tl
from op_catalog.registry import row


def _inplace_chain(a, b):
    y = a * 1
    y.mul_(b)
    y += b
    y.sub_(0.5, alpha=2)
    y /= 2
    y.pow_(2)
    y.clamp_(-1, 1)
    y.masked_fill_(b > 0, 0.5)
    return y


def _np_inplace_chain(a, b):
    y = np.clip(((a * b + b - 1) / 2) ** 2, -1, 1)
    return np.where(b > 0, 0.5, y)


def _setitem(a, b):
    y = a * 1
    y[1] = b
    y[0, 1:3] = b[:2] * 2
    y[y.detach() > 1.5] = 0.0
    return y


def _np_setitem(a, b):
    y = a * 1
    y[1] = b
    y[0, 1:3] = b[:2] * 2
    y[y > 1.5] = 0.0
    return y


def _fill_copy(a, v):
    y = a.clone()
    y[0].fill_(v)  # a view: the write lands in y's memory
    z = a.clone().zero_()
    z.copy_(a[0] * 3)
    w = a * 2
    w.fill_(v)
    return y.sum(0) + z.sum(0) + w[1]


def _put(x, index, value):
    y = x * 1
    y[index] = value
    return y


row("inplace-arithmetic-chain", _inplace_chain, [(3, 4), (4,)], "nonzero", _np_inplace_chain)
row("setitem", _setitem, [(3, 4), (4,)], "real", _np_setitem)
row("setitem-advanced-repeated-value-broadcast",
    lambda a, v: _put(a, (tl.tensor([0, 2]), slice(None)), v), [(3, 4), (4,)], "real",
    lambda a, v: np.concatenate([v[None], a[1:2], v[None]]))
row("setitem-value-only", lambda v: _put(tl.zeros(2, 3, dtype=v.dtype), (..., 1), v), [(2,)],
    "real", lambda v: np.stack([np.zeros(2), v, np.zeros(2)], 1))
row("fill-zero-copy", _fill_copy, [(3, 4), ()], "real",
    lambda a, v: a.sum(0) - a[0] + v + 3 * 3 * a[0] + v)
row("fill-tensor-value", lambda a, v: tl.fill(a, v) * a, [(3, 4), ()], "real",
    lambda a, v: np.full_like(a, v) * a)
row("addmm_-inplace", lambda a, b, c: (a * 1).addmm_(b, c, beta=0.5, alpha=2.0),
    [(3, 4), (3, 2), (2, 4)], "real", lambda a, b, c: 0.5 * a + 2.0 * (b @ c))
row("baddbmm_-inplace", lambda a, b, c: (a * 1).baddbmm_(b, c, alpha=-1.0),
    [(2, 3, 4), (2, 3, 2), (2, 2, 4)], "real", lambda a, b, c: a - b @ c)
row("addr_-inplace", lambda a, b, c: (a * 1).addr_(b, c), [(3, 4), (3,), (4,)], "real",
    lambda a, b, c: a + np.outer(b, c))
