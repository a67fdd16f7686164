"""Indexing: every index form against NumPy, writes (setitem, scatter), gather and friends."""

import numpy as np
import pytest

import tinygrad_lite as tl

A = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
MIXED = (1, slice(None), [0, 0])  # an integer apart from an array: PyTorch applies it first
INDICES = [
    1, -1, (1, 2), (-1, -2, -3), slice(None, None, 2), slice(None, None, -1),
    (slice(1, None), slice(None, None, -2)), (Ellipsis, 0), (None, 1), (0, None, Ellipsis, None),
    np.array([0, 2, 0]), (np.array([0, 2]), np.array([1, 3])), (slice(None), [3, 3, 0]),
    np.array([True, False, True]), (Ellipsis, np.array([1, 4, 1])), MIXED,
    A > 30, (A > 30)[:, :, 0], (np.array([[0], [2]]), np.array([[1, 2]])),
]


def _numpy_read(index):
    """``A[index]`` as PyTorch reads it: NumPy's, except that integers mixed with arrays are
    applied first (``A[1, :, [0, 0]]`` is ``A[1][:, [0, 0]]``; see test_index_semantics.py)."""
    if index is MIXED:
        return A[1][:, [0, 0]]
    return A[index]


@pytest.mark.parametrize("index", INDICES, ids=[str(i)[:30] for i in range(len(INDICES))])
def test_getitem_matches_numpy(index):
    t = tl.tensor(A)
    tensor_index = tuple(tl.tensor(i) if isinstance(i, np.ndarray) else i
                         for i in (index if isinstance(index, tuple) else (index,)))
    want = _numpy_read(index) if isinstance(index, tuple) else A[index]
    np.testing.assert_array_equal(t[tensor_index].numpy(), want)
    np.testing.assert_array_equal(t[index].numpy(), want)


@pytest.mark.parametrize("index", INDICES, ids=[str(i)[:30] for i in range(len(INDICES))])
def test_setitem_matches_numpy_and_gradient_is_complementary(index):
    expected = A.copy()
    expected[index] = -1.0
    t = tl.tensor(A.copy())
    t[index] = -1.0
    np.testing.assert_array_equal(t.numpy(), expected)
    x = tl.tensor(A.astype(np.float64), requires_grad=True)
    v = tl.tensor(2.0, dtype=tl.float64, requires_grad=True)
    y = x * 1
    y[index] = v
    y.sum().backward()
    written = np.zeros(A.shape, dtype=bool)
    written[index] = True
    np.testing.assert_array_equal(x.grad.numpy(), (~written).astype(np.float64))
    assert v.grad.item() == np.ones(A.shape)[index].size


def test_getitem_basic_index_is_a_view_sharing_the_version_counter():
    t = tl.zeros(3, 4)
    row = t[1]
    t[1, 2] = 5.0
    assert row.tolist() == [0.0, 0.0, 5.0, 0.0] and row._version == t._version == 1


def test_setitem_with_tensor_value_broadcasts_and_casts():
    t = tl.zeros(2, 3, dtype=tl.int64)
    t[:, 1:] = tl.tensor([7.9, 8.2])
    assert t.tolist() == [[0, 7, 8], [0, 7, 8]] and t.dtype == tl.int64


def test_gather_scatter_and_friends_match_numpy():
    x = np.arange(12.0).reshape(3, 4)
    idx = np.array([[3, 0], [1, 1], [0, 2]])
    t = tl.tensor(x)
    np.testing.assert_array_equal(t.gather(1, tl.tensor(idx)).numpy(),
                                  np.take_along_axis(x, idx, 1))
    np.testing.assert_array_equal(t.take_along_dim(tl.tensor(idx), 1).numpy(),
                                  np.take_along_axis(x, idx, 1))
    added = x.copy()
    np.add.at(added, (np.arange(3)[:, None], idx), 1.0)
    np.testing.assert_array_equal(t.scatter_add(1, tl.tensor(idx), tl.ones(3, 2, dtype=tl.float64))
                                  .numpy(), added)
    written = x.copy()
    written[np.arange(3)[:, None], idx] = -1
    np.testing.assert_array_equal(t.scatter(1, tl.tensor(idx), value=-1.0).numpy(), written)
    np.testing.assert_array_equal(t.index_select(0, tl.tensor([2, 0, 2])).numpy(), x[[2, 0, 2]])
    assert t.masked_select(t > 8).tolist() == [9.0, 10.0, 11.0]
    assert t.masked_fill(t > 8, 0.0).sum().item() == x[x <= 8].sum()


def test_nonzero_as_matrix_and_tuple():
    t = tl.tensor([[0, 1, 0], [2, 0, 3]])
    assert t.nonzero().tolist() == [[0, 1], [1, 0], [1, 2]] and t.nonzero().dtype == tl.int64
    rows, cols = tl.nonzero(t, as_tuple=True)
    assert rows.tolist() == [0, 1, 1] and cols.tolist() == [1, 0, 2]


def test_repeated_indices_accumulate_in_gather_and_index_select_gradients():
    x = tl.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    (x.gather(1, tl.tensor([[2, 2, 0]])).sum() + x.index_select(1, tl.tensor([2])).sum()
     ).backward()
    assert x.grad.tolist() == [[1.0, 0.0, 3.0]]
