"""Edge cases of indexing, gather/scatter and masked ops against PyTorch: how an index is read
(a list as a tuple, 0-d integer tensors as ints, uint8 masks, refused dtypes), 0-d inputs and
indices, index ranges (negative entries and the exception types of each op), fill values that
overflow, and the diagonal as a view."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
from tests.oracle import same, same_error

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
X4 = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)


def _convert(lib, a):
    return lib.tensor(a) if isinstance(a, np.ndarray) else a


def check(fn, *arrays, grad=()):
    """``fn(lib, *tensors)`` in both libraries: same values, dtype and shape, and (for the
    float64 arrays at positions ``grad``) the same gradients under one upstream."""
    results = []
    for lib in (tl, torch):
        tensors = [lib.tensor(a, requires_grad=True) if k in grad else _convert(lib, a)
                   for k, a in enumerate(arrays)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch's deprecation warnings (uint8 masks...)
            out = fn(lib, *tensors)
            if grad:
                upstream = np.arange(out.numel()).reshape(tuple(out.shape)) % 3 + 1.0
                (out * lib.tensor(upstream)).sum().backward()
        results.append((out, [tensors[k].grad.numpy() for k in grad]))
    (ours, ours_grads), (theirs, their_grads) = results
    same(ours, theirs)
    for a, b in zip(ours_grads, their_grads, strict=True):
        np.testing.assert_allclose(a, b)
    return ours


def both_raise(fn, *arrays):
    """``fn`` raises the same exception type in both libraries."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda: fn(tl, *[_convert(tl, a) for a in arrays]),
                   lambda: fn(torch, *[_convert(torch, a) for a in arrays]))


# -- how an index is read ------------------------------------------------------------------------
def test_a_list_holding_sequences_or_tensors_is_a_tuple_of_indices():
    check(lambda lib, t: t[[[0, 1], [1, 0]]], X4, grad=(0,))  # x[[0, 1], [1, 0]]
    check(lambda lib, t: t[[[0, 1]]], X4, grad=(0,))
    check(lambda lib, t, i, j: t[[i, j]], X4, np.array([1, 0]), np.array([1, 2]), grad=(0,))
    check(lambda lib, t: t[[0, slice(None), None]], X4, grad=(0,))
    check(lambda lib, t: t[[0, 1, 1]], X4, grad=(0,))  # ints only: one index array
    check(lambda lib, t: t[[0] * 40], X4, grad=(0,))  # 32 or more items: an index array


def test_an_empty_list_is_an_empty_int64_index():
    assert tuple(check(lambda lib, t: t[[]], X4).shape) == (0, 3, 4, 5)
    check(lambda lib, t: t[:, []], X4, grad=(0,))


def test_a_uint8_index_tensor_is_a_mask_and_small_int_dtypes_are_refused():
    check(lambda lib, t, m: t[m], X4, np.array([1, 0], np.uint8), grad=(0,))
    for dtype in (np.int8, np.int16, np.uint16):
        both_raise(lambda lib, t, i: t[i], X4, np.array([1, 0], dtype))
    with pytest.raises(IndexError, match="must be long, int or bool"):
        tl.ones(3)[tl.tensor([0], dtype=tl.int16)]


def test_a_list_index_holding_a_slice_is_a_runtime_error():
    both_raise(lambda lib, t: t[[0, slice(None)],], X4)  # a list inside the tuple


@pytest.mark.parametrize("index", [
    lambda i: (i, slice(None), [0, 1]),  # the advanced dims stay in place, as with an int
    lambda i: (slice(None), i, [1, 2]),
    lambda i: ([0, 1], i, slice(None), [1, 2]),
    lambda i: (i,),
])
def test_a_0d_integer_tensor_index_is_an_int(index):
    check(lambda lib, t, i: t[index(i)], X4, np.array(1), grad=(0,))
    check(lambda lib, t, i: t[index(i)], X4, np.array(-1, np.int32), grad=(0,))


def test_a_0d_integer_tensor_index_gives_a_view_and_writes_like_an_int():
    for lib in (tl, torch):
        x = lib.zeros(3, 4)
        row = x[lib.tensor(1)]
        row[0] = 5.0  # writes x[1, 0]
        x[lib.tensor(2)] = 7.0
        x[lib.tensor(0), lib.tensor([1, 2])] = 9.0
        np.testing.assert_array_equal(x.numpy(), [[0, 9, 9, 0], [5, 0, 0, 0], [7, 7, 7, 7]])
    x = tl.zeros(2, 3, 4)
    values = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    x[tl.tensor(0), :, tl.tensor([1, 3])] = tl.tensor(values)
    np.testing.assert_array_equal(x[0, :, [1, 3]].numpy(), np.arange(6.0).reshape(3, 2))


# -- gather / scatter ------------------------------------------------------------------------------
INDEX = np.array([[0, 1, 2, 0], [1, 1, 0, 2], [2, 0, 0, 1]])


@pytest.mark.parametrize("op", [
    lambda lib, t, i: t.gather(0, i),
    lambda lib, t, i: t.scatter(0, i, 1.0),
    lambda lib, t, i: t.scatter(0, i, t, reduce="add"),
    lambda lib, t, i: t.scatter_add(0, i, t),
    lambda lib, t, i: t.scatter_reduce(0, i, t, "amax"),
    lambda lib, t, i: t.scatter_reduce(0, i, t, "sum", include_self=False),
])
def test_gather_and_scatter_refuse_negative_and_too_large_indices(op):
    both_raise(op, X, -INDEX - 1)  # PyTorch does not count negatives from the end here
    both_raise(op, X, INDEX + 1)
    with pytest.raises(RuntimeError, match="out of bounds for dimension 0 with size 3"):
        op(tl, tl.tensor(X), tl.tensor(INDEX + 1))


def test_scatter_reduce_checks_its_index_like_scatter():
    both_raise(lambda lib, t, i: t.scatter_reduce(0, i, t, "sum"), X, INDEX.astype(np.float64))
    both_raise(lambda lib, t, i: t.scatter_reduce(0, i, t, "sum"), X, INDEX[0])
    both_raise(lambda lib, t, i: t.scatter_reduce(2, i, t, "sum"), X, INDEX)


@pytest.mark.parametrize("shapes", [((), ()), ((), (2,)), ((3,), ())])
def test_gather_reads_a_0d_input_or_index_as_1d(shapes):
    data = RNG.standard_normal(shapes[0])
    check(lambda lib, t, i: t.gather(0, i), data, np.zeros(shapes[1], np.int64), grad=(0,))
    check(lambda lib, t, i: lib.gather(t, -1, i, sparse_grad=False), data,
          np.zeros(shapes[1], np.int64), grad=(0,))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatters_take_a_0d_input_index_and_source(reduce, include_self):
    zero = np.array(0)
    check(lambda lib, t, i, s: t.scatter_reduce(0, i, s, reduce, include_self=include_self),
          np.array(2.0), zero, np.array(3.0), grad=(0, 2))
    check(lambda lib, t, i, s: t.scatter(0, i, s), np.array(2.0), zero, np.array(3.0),
          grad=(0, 2))
    check(lambda lib, t, i, s: t.scatter_add(-1, i, s), np.array(2.0), zero, np.array(3.0),
          grad=(0, 2))
    check(lambda lib, t, i, s: t.scatter(0, i, s), np.arange(3.0), zero, np.array([5.0]),
          grad=(0,))  # (PyTorch's gradient of this source has the wrong shape)


def test_scatter_with_a_source_larger_than_the_index_differentiates_the_used_block():
    """PyTorch's own backward fails here (a gradient of the index's shape for a larger source);
    the gradient is the upstream read at the index for the used block, zero elsewhere."""
    index = np.array([[0, 0, 3, 1], [2, 1, 1, 1]])
    src = tl.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    x = tl.tensor(X, requires_grad=True)
    out = x.scatter_add(1, tl.tensor(index), src)
    reference = torch.tensor(X).scatter_add(1, torch.tensor(index),
                                            torch.tensor(src.detach().numpy()))
    same(out, reference)
    upstream = RNG.standard_normal((3, 4))
    out.backward(tl.tensor(upstream))
    expected = np.zeros((3, 4))
    expected[:2] = np.take_along_axis(upstream[:2], index, 1)
    np.testing.assert_allclose(src.grad.numpy(), expected)
    np.testing.assert_allclose(x.grad.numpy(), upstream)


# -- take, take_along_dim, index_select ------------------------------------------------------------
def test_take_and_take_along_dim_want_int64_indices():
    both_raise(lambda lib, t, i: t.take(i), X, np.array([1], np.int32))
    both_raise(lambda lib, t, i: t.take(i), X, np.ones((3, 4), bool))
    both_raise(lambda lib, t, i: t.take_along_dim(i, 1), X, np.array([[0]], np.int32))
    check(lambda lib, t, i: t.take(i), X, np.array([[0, 11], [-1, -12]]), grad=(0,))


def test_take_along_dim_counts_negative_indices_from_the_end_along_a_dim():
    check(lambda lib, t, i: t.take_along_dim(i, 1), X, np.array([[-1, 3, -4]]), grad=(0,))
    both_raise(lambda lib, t, i: t.take_along_dim(i), X, np.array([-1]))  # flattened: no


def test_index_select_index_checks():
    both_raise(lambda lib, t, i: t.index_select(0, i), X, np.array([-1]))
    both_raise(lambda lib, t, i: t.index_select(0, i), X, np.array([3]))
    both_raise(lambda lib, t, i: t.index_select(0, i), X, np.array([0], np.int16))
    both_raise(lambda lib, t, i: t.index_select(0, i), X, np.array([[0]]))
    both_raise(lambda lib, t, i: t.index_select(0, i), np.array(1.0), np.array([0, 0]))
    check(lambda lib, t, i: t.index_select(0, i), np.array(3.0), np.array([0]), grad=(0,))
    check(lambda lib, t, i: t.index_select(0, i), np.array(3.0), np.array(0), grad=(0,))
    check(lambda lib, t, i: t.index_select(-1, i), X, np.array([3, 3, 0], np.int32), grad=(0,))


# -- index_add, index_copy, index_fill -------------------------------------------------------------
SOURCE = RNG.standard_normal((3, 2))


@pytest.mark.parametrize("index,source", [
    (np.array([-1, 0]), SOURCE),  # negative
    (np.array([4, 0]), SOURCE),  # past the end
    (np.array([0, 1, 2]), SOURCE),  # one index per source slice
    (np.array([0, 1]), SOURCE.T),  # the other dims must match
    (np.array([0, 1]), SOURCE[None]),
    (np.array([[0, 1]]), SOURCE),  # a vector
    (np.array([0.0, 1.0]), SOURCE),
    (np.array([0, 1], np.int16), SOURCE),
])
@pytest.mark.parametrize("op", ["index_add", "index_copy"])
def test_index_add_and_copy_refuse_what_pytorch_refuses(op, index, source):
    both_raise(lambda lib, t, i, s: getattr(t, op)(1, i, s), X, index, source)


def test_index_copy_wants_int64_and_index_add_takes_int32():
    index = np.array([3, 0], np.int32)
    both_raise(lambda lib, t, i, s: t.index_copy(1, i, s), X, index, SOURCE)
    check(lambda lib, t, i, s: t.index_add(1, i, s, alpha=2.5), X, index, SOURCE, grad=(0, 2))


@pytest.mark.parametrize("op,row", [
    (lambda lib, t, i, s: t.index_add(0, i, s, alpha=-2), X[:1]),
    (lambda lib, t, i, s: t.index_copy(0, i, s), X[:1]),
    (lambda lib, t, i, s: t.index_fill(0, i, s), np.array(2.0)),
])
def test_index_writes_take_0d_inputs_and_indices(op, row):
    check(op, np.array(1.0), np.array([0]), np.array(2.0), grad=(0, 2))
    check(op, np.array(1.0), np.array(0), np.array(2.0), grad=(0, 2))
    check(op, X, np.array(2), row, grad=(0, 2))  # a 0-d index: one slice


def test_index_fill_index_and_value_rules():
    check(lambda lib, t, i: t.index_fill(1, i, -2.0), X, np.array([-1, 0, -4]), grad=(0,))
    both_raise(lambda lib, t, i: t.index_fill(1, i, 1.0), X, np.array([-5]))
    both_raise(lambda lib, t, i: t.index_fill(1, i, 1.0), X, np.array([4]))
    both_raise(lambda lib, t, i: t.index_fill(1, i, 1.0), X, np.array([1], np.int32))
    both_raise(lambda lib, t, i: t.index_fill(1, i, 1.0), X, np.array([1.0]))
    both_raise(lambda lib, t, i: t.index_fill(1, i, 1.0), X, np.array([[1]]))
    both_raise(lambda lib, t, i, v: t.index_fill(1, i, v), X, np.array([1]), np.array([3.0]))
    check(lambda lib, t, i: t.index_fill(0, i, -1), np.zeros(3, np.uint8), np.array([1]))
    check(lambda lib, t, i: t.index_fill(0, i, 2.7), np.zeros(3, np.int64), np.array([1]))


# -- masked ops and where --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype,value", [
    (np.int64, float("-inf")), (np.int64, float("nan")), (np.int32, 2 ** 40), (np.uint8, 256),
    (np.int8, -129), (np.float16, 1e6), (np.float32, 1e300), (np.float32, 1 + 1j),
])
def test_a_fill_value_the_dtype_cannot_hold_is_an_error(dtype, value):
    mask = np.array([True, False, True])
    both_raise(lambda lib, t, m: t.masked_fill(m, value), np.zeros(3, dtype), mask)
    both_raise(lambda lib, t, i: t.index_fill(0, i, value), np.zeros(3, dtype), np.array([1]))


@pytest.mark.parametrize("dtype,value", [
    (np.uint8, -1), (np.int64, 2.7), (np.float32, float("-inf")), (np.float16, float("nan")),
    (np.bool_, 2), (np.int8, 127),
])
def test_a_fill_value_the_dtype_can_hold_is_converted(dtype, value):
    mask = np.array([True, False, True])
    check(lambda lib, t, m: t.masked_fill(m, value), np.zeros(3, dtype), mask)
    check(lambda lib, t, i: t.index_fill(0, i, value), np.zeros(3, dtype), np.array([1]))


def test_masked_scatter_refuses_a_uint8_mask_and_takes_a_0d_input():
    both_raise(lambda lib, t, m, s: t.masked_scatter(m, s), X, (X > 0).astype(np.uint8),
               np.arange(12.0))
    check(lambda lib, t, m, s: t.masked_scatter(m, s), np.array(1.0), np.array(True),
          np.array([4.0, 5.0]), grad=(0, 2))
    check(lambda lib, t, m, s: t.masked_scatter(m, s), X, X > 0, np.arange(24.0).reshape(4, 6),
          grad=(0, 2))


def test_where_takes_a_uint8_condition_and_refuses_others():
    check(lambda lib, c, a: lib.where(c, a, 0.0), (X > 0).astype(np.uint8), X, grad=(1,))
    both_raise(lambda lib, c, a: lib.where(c, a, 0.0), X, X)
    with pytest.raises(RuntimeError, match="condition must be a bool tensor"):
        tl.where(tl.ones(2), tl.ones(2), tl.ones(2))


# -- views: diagonal, narrow -----------------------------------------------------------------------
def test_diagonal_is_a_view_of_its_input():
    results = []
    for lib in (tl, torch):
        x = lib.zeros(2, 3, 4)
        x.diagonal(0, 1, 2).add_(1)  # each write lands in x
        x.diagonal(1, -1, 0)[0] = 5.0
        x.diagonal()[:, 0] = 7.0
        results.append(x.numpy())
    np.testing.assert_array_equal(results[0], results[1])
    assert results[0][1, 0, 0] == 5.0 and (results[0][0, 0] == 7.0).all()


@pytest.mark.parametrize("fn", [
    lambda lib, y: (y.diagonal(0, 1, 2).fill_(0), y)[1],
    lambda lib, y: (y.diagonal(-1, 1, 2).mul_(3), y.diagonal(-1, 1, 2) * y.sum())[1],
    lambda lib, y: (y.diagonal(0, 0, 2).__setitem__(0, 7.0), y)[1],
    lambda lib, y: y.transpose(1, 2).diagonal(0, 1, 2).diagonal() ** 2,
])
def test_gradients_flow_through_in_place_writes_to_a_diagonal(fn):
    check(lambda lib, x: fn(lib, x * 2), RNG.standard_normal((3, 3, 4)), grad=(0,))


def test_diagonal_second_order_and_errors():
    for lib in (tl, torch):
        x = lib.tensor(X, requires_grad=True)
        (g,) = lib.autograd.grad((x.diagonal(1) ** 3).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        if lib is tl:
            ours = g.detach().numpy(), gg.numpy()
    np.testing.assert_allclose(ours[0], g.detach().numpy())
    np.testing.assert_allclose(ours[1], gg.numpy())
    both_raise(lambda lib, t: t.diagonal(), X[0])  # dim 1 of a 1-D tensor: IndexError


def test_narrow_start_checks():
    both_raise(lambda lib, t: t.narrow(1, 5, 0), X)
    both_raise(lambda lib, t: t.narrow(1, -5, 1), X)
    both_raise(lambda lib, t: t.narrow(0, 0, 1), np.array(1.0))
    check(lambda lib, t: t.narrow(1, 4, 0), X, grad=(0,))
    check(lambda lib, t: t.narrow(-1, -3, 2), X, grad=(0,))
    check(lambda lib, t, s: t.narrow(1, s, 2), X, np.array(1), grad=(0,))
