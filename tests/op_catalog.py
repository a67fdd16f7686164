"""One catalogue of differentiable ops. Each row drives a float64 gradient check (and the
broadcast and scalar-operand variants are rows of their own); adding an op is one row.

A row: (id, function of tensors, input shapes, value domain). Domains: "real" (standard
normal), "positive" (0.5..2), "nonzero" (|x| in 0.5..2, random sign), "distinct" (a
permutation, so max/maximum have no ties).
"""

from __future__ import annotations

import numpy as np

import tinygrad_lite as tl

BASIC_INDEX = (slice(None, None, 2), -1)

CATALOG: list[tuple[str, object, list[tuple], str]] = [
    # binary elementwise, same shape, broadcast and Python scalars on either side
    ("add", lambda a, b: a + b, [(3, 4), (3, 4)], "real"),
    ("add-broadcast", lambda a, b: a + b, [(2, 3, 4), (3, 1)], "real"),
    ("add-scalar-right", lambda a: a + 2.5, [(3,)], "real"),
    ("add-scalar-left", lambda a: 2.5 + a, [(3,)], "real"),
    ("sub", lambda a, b: a - b, [(3, 4), (4,)], "real"),
    ("sub-scalar-left", lambda a: 1.0 - a, [(2, 3)], "real"),
    ("mul", lambda a, b: a * b, [(3, 4), (3, 4)], "real"),
    ("mul-broadcast", lambda a, b: a * b, [(4, 1), (1, 5)], "real"),
    ("mul-0dim", lambda a, b: a * b, [(), (2, 3)], "real"),
    ("mul-scalar", lambda a: 3 * a * 0.5, [(4,)], "real"),
    ("div", lambda a, b: a / b, [(3, 4), (3, 4)], "nonzero"),
    ("div-broadcast", lambda a, b: a / b, [(2, 3), (3,)], "nonzero"),
    ("div-scalar-left", lambda a: 2.0 / a, [(5,)], "nonzero"),
    ("pow-tensor-tensor", lambda a, b: a ** b, [(3, 4), (3, 4)], "positive"),
    ("pow-broadcast", lambda a, b: a ** b, [(3, 4), (4,)], "positive"),
    ("pow-scalar-exponent", lambda a: a ** 3, [(3, 4)], "real"),
    ("pow-fractional-exponent", lambda a: a ** 0.5, [(3, 4)], "positive"),
    ("pow-scalar-base", lambda a: 2.0 ** a, [(3, 4)], "real"),
    ("maximum", lambda a, b: tl.maximum(a, b), [(3, 4), (3, 4)], "distinct"),
    ("maximum-broadcast", lambda a, b: tl.maximum(a, b), [(3, 4), (4,)], "distinct"),
    ("where", lambda a, b: tl.where(tl.tensor([[True, False, True, False]]), a, b),
     [(3, 4), (3, 1)], "real"),
    # unary elementwise
    ("neg", lambda a: -a, [(3, 4)], "real"),
    ("exp", lambda a: a.exp(), [(3, 4)], "real"),
    ("log", lambda a: a.log(), [(3, 4)], "positive"),
    ("sin", lambda a: a.sin(), [(3, 4)], "real"),
    ("cos", lambda a: a.cos(), [(3, 4)], "real"),
    ("relu", lambda a: a.relu(), [(3, 4)], "nonzero"),
    ("tanh", lambda a: a.tanh(), [(3, 4)], "real"),
    ("sigmoid", lambda a: a.sigmoid(), [(3, 4)], "real"),
    ("sqrt", lambda a: a.sqrt(), [(3, 4)], "positive"),
    # reductions
    ("sum-all", lambda a: a.sum(), [(3, 4)], "real"),
    ("sum-dim", lambda a: a.sum(1), [(3, 4)], "real"),
    ("sum-dims-keepdim", lambda a: a.sum((0, 2), keepdim=True), [(2, 3, 4)], "real"),
    ("sum-negative-dim", lambda a: a.sum(-1), [(2, 3, 4)], "real"),
    ("mean-all", lambda a: a.mean(), [(3, 4)], "real"),
    ("mean-dim", lambda a: a.mean(0, keepdim=True), [(3, 4)], "real"),
    ("max-all", lambda a: a.max(), [(3, 4)], "distinct"),
    ("max-dim-values", lambda a: a.max(1).values, [(3, 4)], "distinct"),
    ("max-dim-keepdim", lambda a: a.max(0, keepdim=True)[0], [(3, 4)], "distinct"),
    ("amax-dims", lambda a: a.amax((0, 2)), [(2, 3, 4)], "distinct"),
    # linear algebra
    ("matmul-2d", lambda a, b: a @ b, [(3, 4), (4, 5)], "real"),
    ("matmul-batched", lambda a, b: a @ b, [(2, 3, 4), (2, 4, 5)], "real"),
    ("matmul-batch-broadcast", lambda a, b: a @ b, [(2, 1, 3, 4), (3, 4, 2)], "real"),
    ("matmul-1d-left", lambda a, b: a @ b, [(4,), (4, 5)], "real"),
    ("matmul-1d-right", lambda a, b: a @ b, [(3, 4), (4,)], "real"),
    ("matmul-1d-1d", lambda a, b: a @ b, [(4,), (4,)], "real"),
    ("matmul-1d-batched", lambda a, b: a @ b, [(4,), (2, 4, 3)], "real"),
    # movement
    ("reshape", lambda a: a.reshape(4, -1), [(2, 3, 2)], "real"),
    ("view", lambda a: a.view(6), [(2, 3)], "real"),
    ("permute", lambda a: a.permute(2, 0, 1), [(2, 3, 4)], "real"),
    ("transpose", lambda a: a.transpose(0, -1), [(2, 3, 4)], "real"),
    ("T", lambda a: a.T, [(3, 4)], "real"),
    ("expand", lambda a: a.expand(2, 3, 4), [(3, 1)], "real"),
    ("expand-keep", lambda a: a.expand(-1, 5), [(3, 1)], "real"),
    ("squeeze-unsqueeze", lambda a: a.squeeze(1).unsqueeze(0), [(3, 1, 2)], "real"),
    ("flatten", lambda a: a.flatten(1), [(2, 3, 4)], "real"),
    # indexing
    ("getitem-int", lambda a: a[1], [(3, 4)], "real"),
    ("getitem-slices", lambda a: a[::2, 1:-1], [(5, 4)], "real"),
    ("getitem-ellipsis-none", lambda a: a[..., None, 0], [(2, 3, 4)], "real"),
    ("getitem-negative", lambda a: a[BASIC_INDEX], [(5, 4)], "real"),
    ("getitem-int-array-repeated", lambda a: a[tl.tensor([0, 2, 0, 0])], [(3, 4)], "real"),
    ("getitem-mixed", lambda a: a[1:, [0, 0, 3]], [(3, 4)], "real"),
    ("getitem-bool-mask", lambda a: a[tl.tensor([True, False, True])], [(3, 4)], "real"),
    # composites
    ("softmax", lambda a: a.softmax(-1), [(3, 4)], "real"),
    ("log_softmax", lambda a: a.log_softmax(0), [(3, 4)], "real"),
    ("mlp-layer", lambda x, w, b: (x @ w.T + b).relu().sum(1), [(5, 3), (4, 3), (4,)], "nonzero"),
]


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
        elif domain == "distinct":
            a = rng.permutation(size).astype(np.float64) * 0.25 - size / 8 + 0.1 * len(arrays)
        else:
            a = rng.standard_normal(size)
        arrays.append(a.reshape(shape))
    return arrays
