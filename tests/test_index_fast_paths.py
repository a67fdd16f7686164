"""The large-index fast paths (``ops/common.py``: ``take_at`` and ``ufunc_at``) agree with NumPy's
own indexing and ``np.add.at``: values, gradients, negative indices and errors.

The op catalogue runs on small arrays, below the sizes where these paths switch on, so the
sizes here are chosen above them (``SMALL`` elements written, ``4 * SMALL`` read)."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.ops.common import SMALL, take_at, ufunc_at

RNG = np.random.default_rng(11)
N = 160  # N * N = 25,600 elements: above both thresholds


def _index_forms(shape: tuple) -> list:
    """Advanced indexes of every form the fast paths accept, and some they pass on."""
    n0, n1, n2 = shape
    return [
        (RNG.integers(-n0, n0, 30000),),  # one array, trailing dims whole
        (RNG.integers(0, n0, 30000), slice(None)),  # ... spelled with ':'
        (RNG.integers(0, n0, (150, 200)), Ellipsis),
        (RNG.integers(0, n0, (200, 1, 1)), RNG.integers(-n1, n1, (1, 150, 1)),
         RNG.integers(0, n2, (1, 1, n2))),  # a full grid with negative entries
        (np.arange(n0)[:, None], RNG.integers(0, n1, (n0, 120))),  # two of three dims
        (slice(None), RNG.integers(0, n1, 5000)),  # a leading slice: NumPy's own path
        (RNG.integers(0, n0, 5000).astype(np.int32), RNG.integers(0, n1, 5000).astype(np.uint8)),
    ]


@pytest.mark.parametrize("form", range(7))
def test_take_at_and_ufunc_at_match_numpy(form: int) -> None:
    """Reads equal ``a[index]``; ``np.add`` and ``np.maximum`` accumulate as ``ufunc.at``."""
    # the index arrays stay above the fast paths' thresholds; the trailing dims are small, so
    # that a read of 30,000 rows is 900,000 values (NumPy's ufunc.at, the reference, is slow)
    shape = (40, 6, 5)
    a = RNG.standard_normal(shape)
    index = _index_forms(shape)[form]
    want = a[index]
    assert np.array_equal(take_at(a, index), want)
    assert np.array_equal(take_at(np.asfortranarray(a), index), want)  # any layout
    values = RNG.standard_normal(want.shape)
    for ufunc in (np.add, np.maximum):
        expected, got = a.copy(), a.copy()
        ufunc.at(expected, index, values)
        ufunc_at(ufunc, got, index, values)
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-13)
    got = a.copy()
    ufunc_at(np.add, got, index, 1.0)  # a broadcast scalar
    expected = a.copy()
    np.add.at(expected, index, 1.0)
    np.testing.assert_allclose(got, expected, rtol=1e-13)


def test_out_of_range_index_raises_numpy_index_error() -> None:
    """An index out of range is NumPy's IndexError naming the axis, never a wrapped read."""
    a = np.zeros((N, N))
    rows = np.arange(N)[:, None]
    cols = RNG.integers(0, N, (N, N))
    cols[3, 4] = N  # one past the end: a flat position still inside the array
    with pytest.raises(IndexError, match="axis 1"):
        take_at(a, (rows, cols))
    with pytest.raises(IndexError, match="axis 1"):
        ufunc_at(np.add, a, (rows, cols), np.ones((N, N)))
    with pytest.raises(IndexError):
        take_at(a, (np.array([N]),))


def test_threshold_is_above_small() -> None:
    """The sizes here really take the fast paths."""
    assert N * N >= 4 * SMALL


def test_large_gather_and_scatter_gradients() -> None:
    """gather / take_along_dim / scatter_add / index_add / index_put at a size above the
    thresholds: values and gradients against NumPy's np.add.at."""
    a = RNG.standard_normal((N, N))
    src = RNG.standard_normal((N, N))
    g = RNG.standard_normal((N, N))
    idx = RNG.integers(0, N, (N, N))
    rows = np.arange(N)[:, None]

    x = tl.tensor(a, requires_grad=True)
    y = x.gather(1, tl.tensor(idx))
    np.testing.assert_array_equal(y.detach().numpy(), np.take_along_axis(a, idx, 1))
    y.backward(tl.tensor(g))
    want = np.zeros_like(a)
    np.add.at(want, (rows, idx), g)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12, atol=1e-12)

    x.grad = None
    tl.take_along_dim(x, tl.tensor(idx - N), 1).backward(tl.tensor(g))  # negative indices
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12, atol=1e-12)

    x.grad = None
    s = tl.tensor(src, requires_grad=True)
    out = x.scatter_add(1, tl.tensor(idx), s)
    expected = a.copy()
    np.add.at(expected, (rows, idx), src)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12)
    out.backward(tl.tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), g)
    np.testing.assert_array_equal(s.grad.numpy(), np.take_along_axis(g, idx, 1))

    picks = RNG.integers(-N, N, 3 * N)
    part = RNG.standard_normal((3 * N, N))
    expected = a.copy()
    np.add.at(expected, picks, part)
    got = tl.tensor(a).index_add(0, tl.tensor(picks % N), tl.tensor(part))
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)
    got = tl.tensor(a).index_put((tl.tensor(picks),), tl.tensor(part), accumulate=True)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)


def test_large_row_lookup_gradient_accumulates_repeats() -> None:
    """``x[rows]`` (an embedding lookup) with many repeated rows: the gradient adds them up."""
    table = tl.tensor(RNG.standard_normal((50, 64)), requires_grad=True)
    rows = RNG.integers(-50, 50, (40, 30))
    out = table[tl.tensor(rows)]
    np.testing.assert_array_equal(out.detach().numpy(), table.detach().numpy()[rows])
    g = RNG.standard_normal(out.shape)
    out.backward(tl.tensor(g))
    want = np.zeros((50, 64))
    np.add.at(want, rows, g)
    np.testing.assert_allclose(table.grad.numpy(), want, rtol=1e-12, atol=1e-12)


def test_large_sort_and_cummax_values_indices_and_gradients() -> None:
    """sort (ties re-sorted stably) and cummax read their values on the way: the same values,
    indices and gradients as NumPy's stable argsort and a running maximum."""
    a = RNG.integers(0, 50, (N, N)).astype(np.float64)  # many ties
    x = tl.tensor(a, requires_grad=True)
    values, indices = x.sort(1)
    order = np.argsort(a, 1, kind="stable")
    np.testing.assert_array_equal(indices.numpy(), order)
    np.testing.assert_array_equal(values.detach().numpy(), np.take_along_axis(a, order, 1))
    g = RNG.standard_normal((N, N))
    values.backward(tl.tensor(g))
    want = np.zeros_like(a)
    np.put_along_axis(want, order, g, 1)
    np.testing.assert_array_equal(x.grad.numpy(), want)

    x.grad = None
    running, where = x.cummax(0)
    np.testing.assert_array_equal(running.detach().numpy(), np.maximum.accumulate(a, 0))
    hit = np.where(a == np.maximum.accumulate(a, 0), np.arange(N)[:, None], 0)
    np.testing.assert_array_equal(where.numpy(), np.maximum.accumulate(hit, 0))
    running.backward(tl.tensor(g))
    want = np.zeros_like(a)
    np.add.at(want, (where.numpy(), np.arange(N)[None, :]), g)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12, atol=1e-12)


def test_uniform_repeat_interleave_matches_numpy_and_sums_gradient() -> None:
    """An integer ``repeats`` is NumPy's repeat; its gradient sums each group of copies."""
    a = RNG.standard_normal((4, 5, 6))
    for dim in (0, 1, 2, -1):
        x = tl.tensor(a, requires_grad=True)
        y = x.repeat_interleave(3, dim)
        np.testing.assert_array_equal(y.detach().numpy(), np.repeat(a, 3, dim))
        g = RNG.standard_normal(y.shape)
        y.backward(tl.tensor(g))
        d = dim % 3
        folded = g.reshape(a.shape[:d + 1] + (3,) + a.shape[d + 1:])
        np.testing.assert_allclose(x.grad.numpy(), folded.sum(d + 1), rtol=1e-13)
