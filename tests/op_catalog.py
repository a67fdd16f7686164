"""One catalogue of differentiable ops. Each row drives a float64 gradient check, a second-order
check, a float32 forward check against a NumPy reference and a float16 forward check (see
test_ops.py); adding an op is one ``row(...)`` call.

A row: (id, function of tensors, input shapes, value domain), plus a NumPy reference kept in
``REFERENCE`` under the same id (``SAME``: the function itself also works on NumPy arrays).
Binary ops are listed once in ``BINARY`` and expanded into same-shape, broadcast (both ways),
0-dim and Python-scalar rows. Domains: "real" (standard normal), "positive" (0.5..2), "nonzero"
(|x| in 0.5..2, random sign), "unit" (-0.9..0.9), "distinct" (a permutation, so max/maximum have
no ties).
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path

import numpy as np

import tinygrad_lite as tl
from tinygrad_lite.nn.functional import pad

CATALOG: list[tuple[str, object, list[tuple], str]] = []
REFERENCE: dict[str, object] = {}
SAME = "same"  # the row's function applied to NumPy arrays is its own reference
NO_FLOAT16: set[str] = set()  # rows PyTorch refuses in float16 (linear algebra): must raise
BASIC_INDEX = (slice(None, None, 2), -1)


def row(name: str, fn, shapes: list[tuple], domain: str, reference=SAME) -> None:
    """Add one op (or variant) to the catalogue, with its NumPy reference."""
    assert name not in REFERENCE, f"duplicate catalogue id {name}"
    CATALOG.append((name, fn, shapes, domain))
    REFERENCE[name] = reference


# -- binary elementwise: every op gets the same family of shape variants ------------------------
BINARY = {
    # name: (tensor function, domain, NumPy reference)
    "add": (lambda a, b: a + b, "real", np.add),
    "sub": (lambda a, b: a - b, "real", np.subtract),
    "mul": (lambda a, b: a * b, "real", np.multiply),
    "div": (lambda a, b: a / b, "nonzero", np.divide),
    "pow": (lambda a, b: a ** b, "positive", np.power),
    "maximum": (tl.maximum, "distinct", np.maximum),
    "minimum": (tl.minimum, "distinct", np.minimum),
    "add-alpha": (lambda a, b: tl.add(a, b, alpha=0.5), "real", lambda a, b: a + 0.5 * b),
    "sub-alpha": (lambda a, b: tl.sub(a, b, alpha=2), "real", lambda a, b: a - 2 * b),
    "lerp-scalar-weight": (lambda a, b: tl.lerp(a, b, 0.3), "real", lambda a, b: a + 0.3 * (b - a)),
    "lerp-tensor-weight": (lambda a, w: tl.lerp(a, a * 2, w), "real", lambda a, w: a + w * a),
    "where": (lambda a, b: tl.where(a > 0, a, b), "nonzero", lambda a, b: np.where(a > 0, a, b)),
    "max-binary": (tl.max, "distinct", np.maximum),
    "min-binary": (lambda a, b: a.min(b), "distinct", np.minimum),
    "atan2": (tl.atan2, "nonzero", np.arctan2),
    "hypot": (tl.hypot, "nonzero", np.hypot),
    "clamp-tensor-bounds": (lambda a, b: a.clamp(b, b + 1.5), "distinct",
                            lambda a, b: np.minimum(np.maximum(a, b), b + 1.5)),
}
BINARY_SHAPES = {
    "same": [(3, 4), (3, 4)],
    "broadcast": [(2, 3, 4), (3, 1)],
    "broadcast-both": [(4, 1), (1, 5)],
    "broadcast-left": [(4,), (3, 4)],
    "0dim": [(), (2, 3)],
}
for _name, (_fn, _domain, _ref) in BINARY.items():
    for _variant, _shapes in BINARY_SHAPES.items():
        row(f"{_name}-{_variant}", _fn, _shapes, _domain, _ref)
# Python scalars on either side (PyTorch's weak scalar typing keeps the tensor's dtype)
row("add-scalar-right", lambda a: a + 2.5, [(3,)], "real")
row("add-scalar-left", lambda a: 2.5 + a, [(3,)], "real")
row("sub-scalar-left", lambda a: 1.0 - a, [(2, 3)], "real")
row("mul-scalar", lambda a: 3 * a * 0.5, [(4,)], "real")
row("div-scalar-left", lambda a: 2.0 / a, [(5,)], "nonzero")
row("div-scalar-right", lambda a: a / 4, [(5,)], "real")
row("pow-scalar-exponent", lambda a: a ** 3, [(3, 4)], "real")
row("pow-fractional-exponent", lambda a: a ** 0.5, [(3, 4)], "positive")
row("pow-negative-exponent", lambda a: a ** -2, [(3, 4)], "nonzero")
row("pow-scalar-base", lambda a: 2.0 ** a, [(3, 4)], "real")
row("maximum-scalar", lambda a: tl.maximum(a, tl.tensor(0.25, dtype=a.dtype)), [(3, 4)],
    "distinct", lambda a: np.maximum(a, 0.25))
row("where-scalar", lambda a: tl.where(a > 0, a, 0.0), [(3, 4)], "nonzero",
    lambda a: np.where(a > 0, a, 0.0))

# -- unary elementwise ---------------------------------------------------------------------------
UNARY = {
    # name: (tensor function, domain, NumPy reference)
    "neg": (lambda a: -a, "real", np.negative),
    "exp": (tl.exp, "real", np.exp),
    "exp2": (tl.exp2, "real", np.exp2),
    "expm1": (tl.expm1, "unit", np.expm1),
    "log": (tl.log, "positive", np.log),
    "log2": (tl.log2, "positive", np.log2),
    "log10": (tl.log10, "positive", np.log10),
    "log1p": (tl.log1p, "unit", np.log1p),
    "sin": (tl.sin, "real", np.sin),
    "cos": (tl.cos, "real", np.cos),
    "tan": (tl.tan, "unit", np.tan),
    "tanh": (tl.tanh, "real", np.tanh),
    "sigmoid": (tl.sigmoid, "real", lambda a: 1 / (1 + np.exp(-a))),
    "relu": (tl.relu, "nonzero", lambda a: np.maximum(a, 0)),
    "sqrt": (tl.sqrt, "positive", np.sqrt),
    "rsqrt": (tl.rsqrt, "positive", lambda a: 1 / np.sqrt(a)),
    "square": (tl.square, "real", np.square),
    "reciprocal": (tl.reciprocal, "nonzero", np.reciprocal),
    "abs": (tl.abs, "nonzero", np.abs),
    "sign": (tl.sign, "nonzero", np.sign),
    "floor": (tl.floor, "real", np.floor),
    "ceil": (tl.ceil, "real", np.ceil),
    "round": (tl.round, "real", np.round),
    "round-decimals": (lambda a: tl.round(a, decimals=1), "real", lambda a: np.round(a, 1)),
    "trunc": (tl.trunc, "real", np.trunc),
    "clamp": (lambda a: a.clamp(-0.5, 0.5), "real", lambda a: np.clip(a, -0.5, 0.5)),
    "clamp-min": (lambda a: a.clamp(min=0.1), "real", lambda a: np.maximum(a, 0.1)),
    "clip-max": (lambda a: tl.clip(a, max=0.3), "real", lambda a: np.minimum(a, 0.3)),
    "softmax": (lambda a: a.softmax(-1), "real",
                lambda a: np.exp(a) / np.exp(a).sum(-1, keepdims=True)),
    "log_softmax": (lambda a: a.log_softmax(0), "real",
                    lambda a: a - np.log(np.exp(a).sum(0, keepdims=True))),
}
for _name, (_fn, _domain, _ref) in UNARY.items():
    row(_name, _fn, [(3, 4)], _domain, _ref)
row("exp-0dim", tl.exp, [()], "real", np.exp)

# -- reductions ----------------------------------------------------------------------------------
row("sum-all", lambda a: a.sum(), [(3, 4)], "real", np.sum)
row("sum-dim", lambda a: a.sum(1), [(3, 4)], "real", lambda a: a.sum(1))
row("sum-dims-keepdim", lambda a: a.sum((0, 2), keepdim=True), [(2, 3, 4)], "real",
    lambda a: a.sum((0, 2), keepdims=True))
row("sum-negative-dim", lambda a: a.sum(-1), [(2, 3, 4)], "real", lambda a: a.sum(-1))
row("mean-all", lambda a: a.mean(), [(3, 4)], "real", np.mean)
row("mean-dim", lambda a: a.mean(0, keepdim=True), [(3, 4)], "real",
    lambda a: a.mean(0, keepdims=True))
row("prod-all", lambda a: a.prod(), [(3, 4)], "nonzero", np.prod)
row("prod-dim", lambda a: a.prod(1), [(3, 4)], "nonzero", lambda a: a.prod(1))
row("prod-keepdim-with-zero", lambda a: (a * tl.tensor([1.0, 0, 1, 1], dtype=a.dtype)).prod(
    1, keepdim=True), [(3, 4)], "nonzero", lambda a: (a * [1, 0, 1, 1]).prod(1, keepdims=True))
row("cumsum", lambda a: a.cumsum(1), [(3, 4)], "real", lambda a: np.cumsum(a, 1))
row("cumsum-negative-dim", lambda a: tl.cumsum(a, -3), [(2, 3, 2)], "real",
    lambda a: np.cumsum(a, 0))
row("cumprod", lambda a: a.cumprod(0), [(3, 4)], "nonzero", lambda a: np.cumprod(a, 0))
row("max-all", lambda a: a.max(), [(3, 4)], "distinct", np.max)
row("max-dim-values", lambda a: a.max(1).values, [(3, 4)], "distinct", lambda a: a.max(1))
row("max-dim-keepdim", lambda a: a.max(0, keepdim=True)[0], [(3, 4)], "distinct",
    lambda a: a.max(0, keepdims=True))
row("min-all", lambda a: a.min(), [(3, 4)], "distinct", np.min)
row("min-dim-values", lambda a: tl.min(a, -1).values, [(3, 4)], "distinct", lambda a: a.min(-1))
row("amax-dims", lambda a: a.amax((0, 2)), [(2, 3, 4)], "distinct", lambda a: a.max((0, 2)))
row("amin-dim-keepdim", lambda a: a.amin(1, keepdim=True), [(2, 3, 4)], "distinct",
    lambda a: a.min(1, keepdims=True))
row("var", lambda a: a.var(1), [(3, 4)], "real", lambda a: a.var(1, ddof=1))
row("var-unbiased-false", lambda a: a.var(unbiased=False), [(3, 4)], "real", np.var)
row("var-correction-keepdim", lambda a: tl.var(a, (0, 2), keepdim=True, correction=2),
    [(3, 2, 4)], "real", lambda a: a.var((0, 2), ddof=2, keepdims=True))
row("std", lambda a: a.std(0), [(3, 4)], "real", lambda a: a.std(0, ddof=1))
row("std-all", lambda a: tl.std(a), [(3, 4)], "real", lambda a: a.std(ddof=1))
row("logsumexp", lambda a: a.logsumexp(1), [(3, 4)], "real",
    lambda a: np.log(np.exp(a).sum(1)))
row("logsumexp-dims-keepdim", lambda a: tl.logsumexp(a, (0, 1), keepdim=True), [(2, 3, 2)],
    "real", lambda a: np.log(np.exp(a).sum((0, 1), keepdims=True)))
row("norm-fro", lambda a: a.norm(), [(3, 4)], "real", np.linalg.norm)
row("norm-2-dim", lambda a: a.norm(2, dim=1), [(3, 4)], "real",
    lambda a: np.sqrt((a * a).sum(1)))
row("norm-1", lambda a: tl.norm(a, 1), [(3, 4)], "nonzero", lambda a: np.abs(a).sum())
row("norm-inf-dim", lambda a: a.norm(math.inf, dim=0, keepdim=True), [(3, 4)], "distinct",
    lambda a: np.abs(a).max(0, keepdims=True))
row("norm-p3", lambda a: a.norm(3, dim=-1), [(3, 4)], "nonzero",
    lambda a: (np.abs(a) ** 3).sum(-1) ** (1 / 3))

# -- linear algebra -------------------------------------------------------------------------------
row("matmul-2d", lambda a, b: a @ b, [(3, 4), (4, 5)], "real")
row("matmul-batched", lambda a, b: a @ b, [(2, 3, 4), (2, 4, 5)], "real")
row("matmul-batch-broadcast", lambda a, b: a @ b, [(2, 1, 3, 4), (3, 4, 2)], "real")
row("matmul-1d-left", lambda a, b: a @ b, [(4,), (4, 5)], "real")
row("matmul-1d-right", lambda a, b: a @ b, [(3, 4), (4,)], "real")
row("matmul-1d-1d", lambda a, b: a @ b, [(4,), (4,)], "real")
row("matmul-1d-batched", lambda a, b: a @ b, [(4,), (2, 4, 3)], "real")
row("matmul-batched-1d", lambda a, b: tl.matmul(a, b), [(2, 3, 4), (4,)], "real", np.matmul)
row("mm", tl.mm, [(3, 4), (4, 2)], "real", np.matmul)
row("bmm", tl.bmm, [(2, 3, 4), (2, 4, 2)], "real", np.matmul)
row("mv", tl.mv, [(3, 4), (4,)], "real", np.matmul)
row("dot", tl.dot, [(4,), (4,)], "real", np.dot)
row("outer", tl.outer, [(3,), (4,)], "real", np.outer)
for _eq, _shapes in [("ij,jk->ik", [(3, 4), (4, 2)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
                     ("ii", [(3, 3)]), ("ii->i", [(3, 3)]), ("ij->ji", [(3, 4)]),
                     ("i,j->ij", [(3,), (2,)]), ("...ij,...jk", [(2, 2, 3), (3, 4)]),
                     ("ij,k->i", [(3, 2), (4,)]), ("ijk,ikj->i", [(2, 3, 3), (2, 3, 3)]),
                     ("bhqd,bhkd->bhqk", [(1, 2, 3, 2), (1, 2, 4, 2)])]:
    row(f"einsum-{_eq}", lambda *xs, _eq=_eq: tl.einsum(_eq, *xs), _shapes, "real",
        lambda *xs, _eq=_eq: np.einsum(_eq, *xs))

# -- shape and movement ---------------------------------------------------------------------------
row("reshape", lambda a: a.reshape(4, -1), [(2, 3, 2)], "real")
row("view", lambda a: a.view(6), [(2, 3)], "real", lambda a: a.reshape(6))
row("view_as", lambda a, b: a.view_as(b) * b, [(2, 3), (6,)], "real",
    lambda a, b: a.reshape(6) * b)
row("permute", lambda a: a.permute(2, 0, 1), [(2, 3, 4)], "real",
    lambda a: a.transpose(2, 0, 1))
row("transpose", lambda a: a.transpose(0, -1), [(2, 3, 4)], "real",
    lambda a: a.swapaxes(0, -1))
row("T", lambda a: a.T, [(3, 4)], "real")
row("mT", lambda a: a.mT, [(2, 3, 4)], "real", lambda a: a.swapaxes(-1, -2))
row("movedim", lambda a: a.movedim(0, 2), [(2, 3, 4)], "real", lambda a: np.moveaxis(a, 0, 2))
row("movedim_dims", lambda a: a.movedim((0, 2), (2, 0)), [(2, 3, 4)], "real",
    lambda a: np.moveaxis(a, (0, 2), (2, 0)))
row("expand", lambda a: a.expand(2, 3, 4), [(3, 1)], "real",
    lambda a: np.broadcast_to(a, (2, 3, 4)))
row("expand-keep", lambda a: a.expand(-1, 5), [(3, 1)], "real",
    lambda a: np.broadcast_to(a, (3, 5)))
row("expand_as", lambda a, b: a.expand_as(b) * b, [(1, 4), (3, 4)], "real",
    lambda a, b: np.broadcast_to(a, b.shape) * b)
row("broadcast_to", lambda a: tl.broadcast_to(a, (2, 3)), [(3,)], "real",
    lambda a: np.broadcast_to(a, (2, 3)))
row("squeeze-unsqueeze", lambda a: a.squeeze(1).unsqueeze(0), [(3, 1, 2)], "real",
    lambda a: a.squeeze(1)[None])
row("flatten", lambda a: a.flatten(1), [(2, 3, 4)], "real", lambda a: a.reshape(2, 12))
row("unflatten", lambda a: a.unflatten(1, (2, -1)), [(3, 4)], "real",
    lambda a: a.reshape(3, 2, 2))
row("repeat", lambda a: a.repeat(2, 1, 3), [(2, 3)], "real", lambda a: np.tile(a, (2, 1, 3)))
row("tile", lambda a: a.tile((2,)), [(2, 3)], "real", lambda a: np.tile(a, 2))
row("flip", lambda a: a.flip(0, 1), [(3, 4)], "real", lambda a: a[::-1, ::-1])
row("roll", lambda a: a.roll((1, -1), (0, 1)), [(3, 4)], "real",
    lambda a: np.roll(a, (1, -1), (0, 1)))
row("roll-flat", lambda a: tl.roll(a, 5), [(3, 4)], "real", lambda a: np.roll(a, 5))
row("cat", lambda a, b: tl.cat([a, b], 1), [(2, 3), (2, 2)], "real",
    lambda a, b: np.concatenate([a, b], 1))
row("concatenate-three", lambda a, b, c: tl.concatenate((a, b, c)), [(1, 2), (2, 2), (3, 2)],
    "real", lambda a, b, c: np.concatenate([a, b, c]))
row("stack", lambda a, b: tl.stack([a, b], -1), [(2, 3), (2, 3)], "real",
    lambda a, b: np.stack([a, b], -1))
row("split-size", lambda a: tl.split(a, 2, 1)[1] * 2 + a.split(2, 1)[2].sum(), [(3, 5)],
    "real", lambda a: a[:, 2:4] * 2 + a[:, 4:].sum())
row("split-sections", lambda a: a.split([1, 3], 1)[1], [(3, 4)], "real", lambda a: a[:, 1:])
row("chunk", lambda a: a.chunk(3, 0)[-1], [(5, 2)], "real", lambda a: a[4:])
row("unbind", lambda a: a.unbind(1)[2] - a.unbind(1)[0], [(3, 4)], "real",
    lambda a: a[:, 2] - a[:, 0])
row("narrow", lambda a: a.narrow(1, 1, 2), [(3, 4)], "real", lambda a: a[:, 1:3])
row("select", lambda a: a.select(1, -1), [(3, 4)], "real", lambda a: a[:, -1])
row("tril", lambda a: a.tril(), [(3, 4)], "real", np.tril)
row("triu-offset", lambda a: tl.triu(a, -1), [(2, 3, 4)], "real", lambda a: np.triu(a, -1))
row("diagonal", lambda a: a.diagonal(), [(3, 4)], "real", np.diagonal)
row("diagonal-offset-dims", lambda a: a.diagonal(-1, 2, 0), [(3, 2, 4)], "real",
    lambda a: np.diagonal(a, -1, 2, 0))
row("contiguous", lambda a: a.T.contiguous(), [(3, 4)], "real", lambda a: a.T)
row("pad-constant", lambda a: pad(a, (1, 2), value=0.5), [(3, 4)], "real",
    lambda a: np.pad(a, ((0, 0), (1, 2)), constant_values=0.5))
row("pad-constant-crop", lambda a: pad(a, (0, -1, 1, 0)), [(3, 4)], "real",
    lambda a: np.pad(a[:, :3], ((1, 0), (0, 0))))
row("pad-reflect", lambda a: pad(a, (2, 1, 1, 1), mode="reflect"), [(1, 3, 4)], "real",
    lambda a: np.pad(a, ((0, 0), (1, 1), (2, 1)), mode="reflect"))
row("pad-replicate", lambda a: pad(a, (2, 3), mode="replicate"), [(2, 3)], "real",
    lambda a: np.pad(a, ((0, 0), (2, 3)), mode="edge"))
row("pad-circular", lambda a: pad(a, (1, 2), mode="circular"), [(2, 3)], "real",
    lambda a: np.pad(a, ((0, 0), (1, 2)), mode="wrap"))

# -- indexing --------------------------------------------------------------------------------------
_IDX = np.array([[0, 0], [1, 3], [2, 1]])
_MASK = np.array([True, False, True, False])


def _np_scatter(a, b, add=False, index=((0, 1), (1, 3), (2, 1))):
    out = a.copy()
    rows = np.arange(3)[:, None]
    if add:
        np.add.at(out, (rows, _IDX), b[:, :2])
    else:
        out[rows, np.array(index)] = b[:, :2]
    return out


row("getitem-int", lambda a: a[1], [(3, 4)], "real")
row("getitem-slices", lambda a: a[::2, 1:-1], [(5, 4)], "real")
row("getitem-negative-step", lambda a: a[::-2, -1:0:-1], [(5, 4)], "real")
row("getitem-ellipsis-none", lambda a: a[..., None, 0], [(2, 3, 4)], "real")
row("getitem-negative", lambda a: a[BASIC_INDEX], [(5, 4)], "real")
row("getitem-int-array-repeated", lambda a: a[tl.tensor([0, 2, 0, 0])], [(3, 4)], "real",
    lambda a: a[[0, 2, 0, 0]])
row("getitem-mixed", lambda a: a[1:, [0, 0, 3]], [(3, 4)], "real")
row("getitem-two-arrays", lambda a: a[[0, 2, 2], [1, 1, 3]], [(3, 4)], "real")
row("getitem-bool-mask", lambda a: a[tl.tensor([True, False, True])], [(3, 4)], "real",
    lambda a: a[[True, False, True]])
row("getitem-bool-mask-2d", lambda a: a[tl.tensor(_MASK[None] | _MASK[:, None][:3])],
    [(3, 4)], "real", lambda a: a[_MASK[None] | _MASK[:, None][:3]])
row("gather", lambda a: a.gather(1, tl.tensor(_IDX)), [(3, 4)], "real",
    lambda a: np.take_along_axis(a, _IDX, 1))
row("gather-dim0-small-index", lambda a: tl.gather(a, 0, tl.tensor([[2, 0]])), [(3, 4)], "real",
    lambda a: np.take_along_axis(a[:, :2], np.array([[2, 0]]), 0))
row("scatter", lambda a, b: a.scatter(1, tl.tensor([[0, 1], [1, 3], [2, 1]]), b),
    [(3, 4), (3, 3)], "real", _np_scatter)
row("scatter-value", lambda a: a.scatter(1, tl.tensor(_IDX), value=2.0), [(3, 4)], "real",
    lambda a: _np_scatter(a, np.full((3, 2), 2.0), index=_IDX))
row("scatter_add-repeated", lambda a, b: a.scatter_add(1, tl.tensor(_IDX), b),
    [(3, 4), (3, 2)], "real", lambda a, b: _np_scatter(a, b, add=True))
row("scatter-reduce-add", lambda a, b: a.scatter(1, tl.tensor(_IDX), b, reduce="add"),
    [(3, 4), (3, 2)], "real", lambda a, b: _np_scatter(a, b, add=True))
row("index_select-repeated", lambda a: a.index_select(1, tl.tensor([3, 0, 3])), [(3, 4)],
    "real", lambda a: a[:, [3, 0, 3]])
row("masked_fill", lambda a: a.masked_fill(tl.tensor(_MASK), 2.0), [(3, 4)], "real",
    lambda a: np.where(_MASK, 2.0, a))
row("masked_fill-tensor-value", lambda a, v: tl.masked_fill(a, tl.tensor(_MASK), v),
    [(3, 4), ()], "real", lambda a, v: np.where(_MASK, v, a))
row("masked_select", lambda a: a.masked_select(tl.tensor(_MASK)), [(3, 4)], "real",
    lambda a: a[np.broadcast_to(_MASK, a.shape)])
row("take_along_dim", lambda a: a.take_along_dim(tl.tensor([[0], [2]]), 1), [(2, 4)], "real",
    lambda a: np.take_along_axis(a, np.array([[0], [2]]), 1))
row("take_along_dim-flat", lambda a: tl.take_along_dim(a, tl.tensor([5, 0, 5])), [(2, 4)],
    "real", lambda a: a.reshape(-1)[[5, 0, 5]])


# -- in-place ops and setitem on non-leaf tensors (differentiable through the graph rebase) -------
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


row("inplace-arithmetic-chain", _inplace_chain, [(3, 4), (4,)], "nonzero", _np_inplace_chain)
row("setitem", _setitem, [(3, 4), (4,)], "real", _np_setitem)
row("setitem-advanced-repeated-value-broadcast",
    lambda a, v: _put(a, (tl.tensor([0, 2]), slice(None)), v), [(3, 4), (4,)], "real",
    lambda a, v: np.concatenate([v[None], a[1:2], v[None]]))
row("setitem-value-only", lambda v: _put(tl.zeros(2, 3, dtype=v.dtype), (..., 1), v), [(2,)],
    "real", lambda v: np.stack([np.zeros(2), v, np.zeros(2)], 1))
row("fill-zero-copy", _fill_copy, [(3, 4), ()], "real",
    lambda a, v: a.sum(0) - a[0] + v + 3 * 3 * a[0] + v)


def _put(x, index, value):
    y = x * 1
    y[index] = value
    return y


# composites
row("linear", lambda x, w, b: tl.nn.functional.linear(x, w, b), [(5, 3), (4, 3), (4,)], "real",
    lambda x, w, b: x @ w.T + b)
row("linear-batched-no-bias", lambda x, w: tl.nn.functional.linear(x, w), [(2, 5, 3), (4, 3)],
    "real", lambda x, w: x @ w.T)
row("linear-1d-input", lambda x, w, b: tl.nn.functional.linear(x, w, b), [(3,), (4, 3), (4,)],
    "real", lambda x, w, b: x @ w.T + b)
row("t-method", lambda a: a.t() * 2, [(3, 4)], "real", lambda a: a.T * 2)
row("t-1d", lambda a: tl.t(a) * 2, [(4,)], "real", lambda a: a * 2)
_TARGET = np.array([0, 2, 1, 2])


def _np_cross_entropy(x, reduce=np.mean):
    z = x - x.max(1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    return reduce(-logp[np.arange(len(_TARGET)), _TARGET])


row("cross-entropy-fused-mean", lambda x: tl.nn.functional.cross_entropy(x, tl.tensor(_TARGET)),
    [(4, 3)], "real", _np_cross_entropy)
row("cross-entropy-fused-sum",
    lambda x: tl.nn.functional.cross_entropy(x, tl.tensor(_TARGET), reduction="sum"),
    [(4, 3)], "real", lambda x: _np_cross_entropy(x, np.sum))
row("mlp-layer", lambda x, w, b: (x @ w.T + b).relu().sum(1), [(5, 3), (4, 3), (4,)], "nonzero",
    lambda x, w, b: np.maximum(x @ w.T + b, 0).sum(1))


# Rows kept in their own files by area (``tests/op_catalog_<area>.py``, e.g. linalg, sorting):
# each such module defines ``add_rows(row)`` and calls ``row(...)`` as above, so that areas grow
# without editing this file.
for _part in sorted(Path(__file__).parent.glob("op_catalog_*.py")):
    importlib.import_module(_part.stem).add_rows(row)


def make_inputs(shapes: list[tuple], domain: str, seed: int = 0) -> list[np.ndarray]:
    """Random float64 inputs of ``shapes`` drawn from ``domain``."""
    rng = np.random.default_rng(seed)
    arrays = []
    for shape in shapes:
        size = int(np.prod(shape, dtype=np.int64))
        if domain == "positive":
            a = rng.uniform(0.5, 2.0, size)
        elif domain == "nonzero":
            a = rng.uniform(0.5, 2.0, size) * rng.choice([-1.0, 1.0], size)
        elif domain == "unit":
            a = rng.uniform(-0.9, 0.9, size)
        elif domain == "distinct":
            a = rng.permutation(size).astype(np.float64) * 0.25 - size / 8 + 0.1 * len(arrays)
        else:
            a = rng.standard_normal(size)
        arrays.append(a.reshape(shape))
    return arrays
