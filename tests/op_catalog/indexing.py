"""Catalogue rows of indexing: getitem in every index kind, gather/take, the scatters and their
reductions, index_add/copy/put/reduce, put, masked ops and the diagonal/slice/select/strided
scatters; gradients flow to the elements selected (and repeated indices accumulate)."""

import numpy as np

import tinygrad_lite as tl
from op_catalog.registry import row

_IDX = np.array([[0, 0], [1, 3], [2, 1]])


_MASK = np.array([True, False, True, False])


BASIC_INDEX = (slice(None, None, 2), -1)


def _np_scatter(a, b, add=False, index=((0, 1), (1, 3), (2, 1))):
    out = a.copy()
    rows = np.arange(3)[:, None]
    if add:
        np.add.at(out, (rows, _IDX), b[:, :2])
    else:
        out[rows, np.array(index)] = b[:, :2]
    return out


_ADD_INDEX = np.array([0, 2, 0])


def _index_add(a, b):
    out = a.copy()
    np.add.at(out, (slice(None), _ADD_INDEX), b)
    return out


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


_ROWS, _COLS = np.array([0, 2, 0, 1]), np.array([1, 3, 1, 0])  # (0, 1) twice: duplicates


def _np_index_put(a, v, accumulate):
    out = a.copy()
    if accumulate:
        np.add.at(out, (_ROWS, _COLS), v)
    else:
        out[_ROWS[1:], _COLS[1:]] = v[1:]
    return out


def _np_fill_diagonal(a):
    out = a * 1
    np.fill_diagonal(out, 2.0, wrap=True)
    return out


def _np_diagonal_scatter(a, s):
    out = a.copy()
    for i in range(2):
        out[:, i, i + 1] = s[:, i]
    return out


def _np_slice_scatter(a, s):
    out = a.copy()
    out[:, 1:4:2] = s
    return out


def _np_select_scatter(a, s):
    out = a.copy()
    out[:, -1] = s
    return out


_PUT = np.array([0, 4, -1, 2, 4])  # the last repeats 4: only for accumulate


_REDUCE_INDEX = np.array([0, 2, 0, 3, 0])


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
    for target in np.unique(_REDUCE_INDEX):
        members = src[_REDUCE_INDEX == target]
        if include_self:
            members = np.concatenate([base[target:target + 1], members])
        out[target] = fn(members, axis=0)
    return out


def _np_strided_scatter(a, s):
    out = a.copy().reshape(-1)
    out[1 + np.array([[0, 2], [1, 3]])] = s
    return out.reshape(a.shape)


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
row("take", lambda a: tl.take(a, tl.tensor([[0, 5], [11, 5]])), [(3, 4)], "real",
    lambda a: np.take(a, [[0, 5], [11, 5]]))
row("index_add", lambda a, b: tl.index_add(a, 1, tl.tensor(_ADD_INDEX), b, alpha=1.0),
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
for accumulate in (False, True):
    row(f"index_put-accumulate-{accumulate}",
        lambda a, v, acc=accumulate: tl.index_put(
            a, (tl.tensor(_ROWS[not acc:]), tl.tensor(_COLS[not acc:])), v[int(not acc):],
            accumulate=acc),
        [(3, 4), (4,)], "real", lambda a, v, acc=accumulate: _np_index_put(a, v, acc))
row("index_put_-mask", lambda a, v: (a * 1).index_put_((a > 0,), v.sum()), [(3, 4), (2,)],
    "real", lambda a, v: np.where(a > 0, v.sum(), a))
row("fill_diagonal_-wrap", lambda a: (a * 1).fill_diagonal_(2.0, wrap=True), [(7, 3)],
    "real", _np_fill_diagonal)
row("diagonal_scatter", lambda a, s: tl.diagonal_scatter(a, s, 1, 1, 2),
    [(2, 3, 3), (2, 2)], "real", _np_diagonal_scatter)
row("slice_scatter", lambda a, s: tl.slice_scatter(a, s, 1, 1, 4, 2), [(3, 5), (3, 2)],
    "real", _np_slice_scatter)
row("select_scatter", lambda a, s: a.select_scatter(s, 1, -1), [(3, 4), (3,)], "real",
    _np_select_scatter)
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
row("as_strided_scatter", lambda a, s: tl.as_strided_scatter(a, s, (2, 2), (1, 2), 1),
    [(12,), (2, 2)], "real", _np_strided_scatter)
