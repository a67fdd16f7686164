"""Property-based tests (hypothesis): random broadcast shapes for binary ops, random dim/keepdim
for reductions and random index expressions, each checked against NumPy and gradient-checked by
central differences (float64)."""

import math

import numpy as np
from helpers import check_grads
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes
from op_catalog import BINARY, make_inputs

import tinygrad_lite as tl

# Small shapes keep each example around a millisecond, so the suite runs thousands of them fast.
FAST = settings(max_examples=700, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _as_tensors(arrays):
    return [tl.tensor(a) for a in arrays]


@FAST
@given(op=st.sampled_from(sorted(BINARY)),
       shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
       seed=st.integers(0, 2**16))
def test_binary_ops_broadcast_like_numpy_with_correct_gradients(op, shapes, seed):
    fn, domain, reference = BINARY[op]
    arrays = make_inputs(list(shapes.input_shapes), domain, seed)
    out = fn(*_as_tensors(arrays))
    assert out.shape == shapes.result_shape
    np.testing.assert_allclose(out.numpy(), reference(*arrays), rtol=1e-12, atol=1e-12)
    check_grads(fn, *arrays)


def _np_logsumexp(a, axis, keepdims):
    return np.log(np.exp(a).sum(axis=axis, keepdims=keepdims))


# name: (tensor op (x, dim, keepdim), NumPy reference (a, axis, keepdims), which dims it takes)
REDUCTIONS = {
    "sum": (lambda x, d, k: x.sum(d, k), lambda a, d, k: a.sum(d, keepdims=k), "many"),
    "mean": (lambda x, d, k: x.mean(d, k), lambda a, d, k: a.mean(d, keepdims=k), "many"),
    "amax": (lambda x, d, k: x.amax(() if d is None else d, k),
             lambda a, d, k: a.max(d, keepdims=k), "many"),
    "amin": (lambda x, d, k: tl.amin(x, () if d is None else d, k),
             lambda a, d, k: a.min(d, keepdims=k), "many"),
    "logsumexp": (lambda x, d, k: x.logsumexp(tuple(range(x.ndim)) if d is None else d, k),
                  _np_logsumexp, "many"),
    "var": (lambda x, d, k: x.var(d, keepdim=k, correction=0),
            lambda a, d, k: a.var(d, keepdims=k), "many"),
    "std": (lambda x, d, k: x.std(d, keepdim=k), lambda a, d, k: a.std(d, ddof=1, keepdims=k),
            "many"),
    "norm-2": (lambda x, d, k: x.norm(2, d, k),
               lambda a, d, k: np.sqrt((a * a).sum(d, keepdims=k)), "many"),
    "norm-1": (lambda x, d, k: x.norm(1, d, k), lambda a, d, k: np.abs(a).sum(d, keepdims=k),
               "many"),
    "norm-inf": (lambda x, d, k: x.norm(math.inf, d, k),
                 lambda a, d, k: np.abs(a).max(d, keepdims=k), "many"),
    "prod": (lambda x, d, k: x.prod(d, k), lambda a, d, k: a.prod(d, keepdims=k), "one"),
    "max-values": (lambda x, d, k: x.max(d, k).values, lambda a, d, k: a.max(d, keepdims=k),
                   "int"),
    "min-values": (lambda x, d, k: x.min(d, k)[0], lambda a, d, k: a.min(d, keepdims=k), "int"),
    "cumsum": (lambda x, d, k: x.cumsum(d), lambda a, d, k: np.cumsum(a, d), "int"),
    "cumprod": (lambda x, d, k: x.cumprod(d), lambda a, d, k: np.cumprod(a, d), "int"),
    "softmax": (lambda x, d, k: x.softmax(d),
                lambda a, d, k: np.exp(a) / np.exp(a).sum(d, keepdims=True), "int"),
}


@st.composite
def reduction_case(draw):
    name = draw(st.sampled_from(sorted(REDUCTIONS)))
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    ndim = len(shape)
    kind = REDUCTIONS[name][2]
    choices = [st.integers(-ndim, ndim - 1)]
    if kind != "int":
        choices.append(st.none())
    if kind == "many":
        choices.append(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim,
                                unique=True).map(tuple))
    dim = draw(st.one_of(*choices))
    return name, shape, dim, draw(st.booleans()), draw(st.integers(0, 2**16))


@FAST
@given(case=reduction_case())
def test_reductions_over_random_dims(case):
    name, shape, dim, keepdim, seed = case
    fn, reference, _ = REDUCTIONS[name]
    (a,) = make_inputs([shape], "distinct", seed)  # no ties, so max/norm-inf are smooth
    a = a + 0.05  # and no exact zeros (prod, norm-1)
    count = a.size if dim is None else int(np.prod([shape[d] for d in np.atleast_1d(dim)]))
    assume(name != "std" or count > 1)
    out = fn(tl.tensor(a), dim, keepdim)
    np.testing.assert_allclose(out.numpy(), reference(a, dim, keepdim), rtol=1e-10, atol=1e-12)
    check_grads(lambda x: fn(x, dim, keepdim), a)


@st.composite
def index_case(draw):
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    ellipsis_first = draw(st.booleans())
    count = draw(st.integers(1, len(shape)))
    dims = shape[len(shape) - count:] if ellipsis_first else shape[:count]
    advanced = draw(st.sampled_from(["none", "arrays", "mask"]))
    length = draw(st.integers(1, 4))
    mask_used = False
    items = [Ellipsis] if ellipsis_first else []
    for n in dims:
        kinds = ["int", "slice", "none-slice"]
        if advanced == "arrays":
            kinds.append("array")
        if advanced == "mask" and not mask_used:
            kinds.append("mask")
        kind = draw(st.sampled_from(kinds))
        if kind == "int":
            items.append(draw(st.integers(-n, n - 1)))
        elif kind in ("slice", "none-slice"):
            start = draw(st.none() | st.integers(-n - 1, n))
            stop = draw(st.none() | st.integers(-n - 1, n))
            step = draw(st.none() | st.sampled_from([-3, -2, -1, 1, 2, 3]))
            if kind == "none-slice":
                items.append(None)
            items.append(slice(start, stop, step))
        elif kind == "array":
            items.append(np.array(draw(st.lists(st.integers(-n, n - 1), min_size=length,
                                                max_size=length))))
        else:
            mask_used = True
            items.append(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))))
    return shape, tuple(items), draw(st.integers(0, 2**16))


def _tensor_index(index):
    return tuple(tl.tensor(i) if isinstance(i, np.ndarray) else i for i in index)


def _two_steps(index):
    """PyTorch's reading of an index: NumPy's, except that integers mixed with arrays are
    applied first, as selects (``a[0, :, m]`` is ``a[0][:, m]``). The index as (basic step,
    advanced step) for NumPy; (index, None) when NumPy's one step already means the same."""
    ints = [isinstance(i, int) and not isinstance(i, bool) for i in index]
    if not any(ints) or not any(isinstance(i, np.ndarray) for i in index):
        return index, None
    first, then = [], []
    for i, is_int in zip(index, ints):
        if is_int:
            first.append(i)
        elif isinstance(i, np.ndarray):
            first += [slice(None)] * (i.ndim if i.dtype == bool else 1)
            then.append(i)
        elif i is Ellipsis:
            first.append(i)
            then.append(i)
        else:
            first.append(i)
            then.append(slice(None))
    return tuple(first), tuple(then)


def _read(a, index):
    """``a[index]`` as PyTorch reads it (see _two_steps)."""
    first, then = _two_steps(index)
    return a[first] if then is None else a[first][then]


def _write(a, index, value):
    """``a[index] = value`` as PyTorch writes it (the first step is a view of ``a``)."""
    first, then = _two_steps(index)
    if then is None:
        a[first] = value
    else:
        a[first][then] = value


@FAST
@given(case=index_case())
def test_random_index_expressions_read_like_pytorch(case):
    shape, index, seed = case
    (a,) = make_inputs([shape], "real", seed)
    np.testing.assert_array_equal(tl.tensor(a)[_tensor_index(index)].numpy(), _read(a, index))
    check_grads(lambda x: x[_tensor_index(index)] * 2, a)


@settings(max_examples=400, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=index_case())
def test_random_index_expressions_write_like_pytorch(case):
    shape, index, seed = case
    hits = np.zeros(shape, dtype=int)
    np.add.at(hits, index, 1)
    assume(hits.max(initial=0) <= 1)  # repeated writes are order-dependent (as in PyTorch)
    a, v = make_inputs([shape, np.shape(_read(np.zeros(shape), index))], "real", seed)
    expected = a.copy()
    _write(expected, index, v)

    def write(x, value):
        y = x * 1
        y[_tensor_index(index)] = value
        return y

    np.testing.assert_array_equal(write(tl.tensor(a), tl.tensor(v)).numpy(), expected)
    check_grads(write, a, v)
