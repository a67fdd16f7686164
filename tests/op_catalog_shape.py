"""Catalogue rows of the shape and indexing extras (functions/shape_extra.py) and
Tensor.unfold: gradients flow through the cat/reshape/index ops they are made of."""

import numpy as np

import tinygrad_lite as tl

_IDX = np.array([0, 2, 0])


def _index_add(a, b):
    out = a.copy()
    np.add.at(out, (slice(None), _IDX), b)
    return out


def add_rows(row) -> None:
    row("meshgrid-xy", lambda a, b: tl.stack(tl.meshgrid(a, b, indexing="xy")), [(3,), (2,)],
        "real", lambda a, b: np.stack(np.meshgrid(a, b, indexing="xy")))
    row("hstack", lambda a, b: tl.hstack([a, b]), [(3, 2), (3, 4)], "real",
        lambda a, b: np.hstack([a, b]))
    row("vstack", lambda a, b: tl.vstack([a, b]), [(4,), (2, 4)], "real",
        lambda a, b: np.vstack([a, b]))
    row("dstack", lambda a, b: tl.dstack([a, b]), [(3, 2), (3, 2)], "real",
        lambda a, b: np.dstack([a, b]))
    row("column_stack", lambda a, b: tl.column_stack([a, b]), [(3,), (3, 2)], "real",
        lambda a, b: np.column_stack([a, b]))
    row("repeat_interleave", lambda a: tl.repeat_interleave(a, tl.tensor([2, 0, 1]), dim=0),
        [(3, 2)], "real", lambda a: np.repeat(a, [2, 0, 1], axis=0))
    row("repeat_interleave-int", lambda a: tl.repeat_interleave(a, 3, dim=1), [(2, 3, 2)],
        "real", lambda a: np.repeat(a, 3, axis=1))
    row("repeat_interleave-flat", lambda a: a.repeat_interleave(tl.tensor(2)), [(2, 3)],
        "real", lambda a: np.repeat(a, 2))
    row("rot90", lambda a: tl.rot90(a, 1, (0, 1)), [(3, 4)], "real", lambda a: np.rot90(a))
    row("rot90-k3", lambda a: tl.rot90(a, 3, (1, 2)), [(2, 3, 4)], "real",
        lambda a: np.rot90(a, 3, (1, 2)))
    row("take", lambda a: tl.take(a, tl.tensor([[0, 5], [11, 5]])), [(3, 4)], "real",
        lambda a: np.take(a, [[0, 5], [11, 5]]))
    row("index_add", lambda a, b: tl.index_add(a, 1, tl.tensor(_IDX), b, alpha=1.0),
        [(2, 4), (2, 3)], "real", _index_add)
    row("index_copy", lambda a, b: tl.index_copy(a, 0, tl.tensor([2, 0]), b),
        [(3, 4), (2, 4)], "real", lambda a, b: np.concatenate([b[1:], a[1:2], b[:1]]))
    row("scatter_reduce-mean", lambda a, b: tl.scatter_reduce(
        a, 1, tl.tensor([[0, 1, 0], [2, 2, 1]]), b, "mean"), [(2, 3), (2, 3)], "real",
        _np_scatter_mean)
    for reduce, ufunc in (("prod", np.multiply), ("amax", np.maximum), ("amin", np.minimum)):
        for include_self in (True, False):
            row(f"scatter_reduce-{reduce}" + ("" if include_self else "-exclude-self"),
                lambda a, b, r=reduce, i=include_self: tl.scatter_reduce(
                    a, 1, tl.tensor(_SCATTER_IDX), b, r, include_self=i),
                [(2, 3), (2, 3)], "distinct",
                lambda a, b, u=ufunc, i=include_self: _np_scatter_reduce(a, b, u, i))
    row("block_diag", lambda a, b: tl.block_diag(a, b), [(2, 2), (1, 3)], "real",
        lambda a, b: np.block([[a, np.zeros((2, 3))], [np.zeros((1, 2)), b]]))
    row("cartesian_prod", lambda a, b: tl.cartesian_prod(a, b), [(3,), (2,)], "real",
        lambda a, b: np.stack(np.meshgrid(a, b, indexing="ij"), -1).reshape(-1, 2))
    row("combinations", lambda a: tl.combinations(a, 2), [(4,)], "real",
        lambda a: np.array([[a[i], a[j]] for i in range(4) for j in range(i + 1, 4)]))
    row("tensor-unfold", lambda a: a.unfold(1, 2, 1), [(3, 4)], "real",
        lambda a: np.stack([a[:, i:i + 2] for i in range(3)], 1))
    row("tensor_split-cat", lambda a: tl.cat(tl.tensor_split(a, 3, dim=1)[::-1], 1),
        [(2, 5)], "real", lambda a: np.concatenate(np.array_split(a, 3, axis=1)[::-1], 1))


def _np_scatter_mean(a, b):
    idx = np.array([[0, 1, 0], [2, 2, 1]])
    total, count = a.copy(), np.ones_like(a)
    for r in range(2):
        for c in range(3):
            total[r, idx[r, c]] += b[r, c]
            count[r, idx[r, c]] += 1
    return total / count


_SCATTER_IDX = np.array([[0, 1, 0], [2, 2, 1]])


def _np_scatter_reduce(a, b, ufunc, include_self):
    out = a.copy()
    if not include_self:  # the scattered-to places start from the first value written there
        seen = np.zeros(a.shape, bool)
        for r in range(2):
            for c in range(3):
                place = (r, _SCATTER_IDX[r, c])
                out[place] = b[r, c] if not seen[place] else ufunc(out[place], b[r, c])
                seen[place] = True
        return out
    for r in range(2):
        for c in range(3):
            out[r, _SCATTER_IDX[r, c]] = ufunc(out[r, _SCATTER_IDX[r, c]], b[r, c])
    return out
