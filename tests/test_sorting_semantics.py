"""Sorting, selection, set and histogram ops against PyTorch: NaN and integer-extreme ordering,
which index a NaN or a tie yields, quantile's rank/lerp arithmetic and gradients, unique's NaN
and empty-dimension rules, searchsorted's binary search, histc/histogram binning, bincount's
dtypes, and the exception types PyTorch raises for inputs it refuses."""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

NAN = float("nan")


def _pair(data, dtype=None, requires_grad=False):
    """The same data as a tinygrad_lite and a torch tensor."""
    a = np.asarray(data) if dtype is None else np.asarray(data, dtype=dtype)
    return (tl.tensor(a, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def _same(ours, theirs):
    """Same shape, dtype and values (NaN equal to NaN)."""
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())


def _raises_like(fn):
    """``fn(lib)`` raises in both libraries, the same exception type."""
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(type(theirs.value)):
        fn(tl)


# -- sort / topk ---------------------------------------------------------------------------------

@pytest.mark.parametrize("stable", [False, True])
def test_descending_sort_of_int64_extremes_does_not_overflow(stable):
    data = [np.iinfo(np.int64).min, 0, np.iinfo(np.int64).max, -1]
    x, y = _pair(data, np.int64)
    ours, theirs = x.sort(descending=True, stable=stable), y.sort(descending=True, stable=stable)
    _same(ours.values, theirs.values)
    _same(ours.indices, theirs.indices)
    _same(tl.topk(x, 2).indices, torch.topk(y, 2).indices)


def test_descending_sort_puts_nan_before_inf_wherever_it_stands():
    x, y = _pair([np.inf, 1.0, NAN, -np.inf, np.inf, NAN], requires_grad=True)
    ours, theirs = x.sort(descending=True, stable=True), y.sort(descending=True, stable=True)
    _same(ours.values, theirs.values)
    _same(ours.indices, theirs.indices)
    _same(tl.topk(x, 3).values, torch.topk(y, 3).values)  # (tied indices: unspecified)
    g = np.arange(6.0)
    ours.values.backward(tl.tensor(g))
    theirs.values.backward(torch.tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), y.grad.numpy())


def test_topk_refuses_bool():
    _raises_like(lambda lib: lib.topk(lib.tensor([True, False]), 1))


@pytest.mark.parametrize("fn", [
    lambda lib, x: lib.kthvalue(x, 1), lambda lib, x: lib.median(x),
    lambda lib, x: lib.median(x, 0), lambda lib, x: lib.nanmedian(x),
    lambda lib, x: lib.argmax(x), lambda lib, x: lib.argmin(x, 0),
    lambda lib, x: lib.isin(x, lib.tensor([True])),
    lambda lib, x: lib.bincount(x),
], ids=["kthvalue", "median", "median-dim", "nanmedian", "argmax", "argmin", "isin",
        "bincount"])
def test_bool_input_is_refused_with_pytorchs_exception_type(fn):
    _raises_like(lambda lib: fn(lib, lib.tensor([True, False, True])))


def test_median_dim_is_checked_before_the_bool_dtype():
    _raises_like(lambda lib: lib.median(lib.tensor([True, False]), 4))


# -- median / mode -------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", ["median", "nanmedian"])
def test_median_with_dim_returns_the_first_nan_index(fn):
    data = [[3.0, NAN, 1.0, NAN], [NAN, NAN, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0]]
    x, y = _pair(data, requires_grad=True)
    ours, theirs = getattr(tl, fn)(x, 1), getattr(torch, fn)(y, 1)
    _same(ours.values, theirs.values)
    _same(ours.indices, theirs.indices)
    ours.values.sum().backward()
    theirs.values.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.grad.numpy())


def test_median_of_an_empty_float_tensor_is_nan_and_differentiable():
    x, y = _pair(np.zeros(0), requires_grad=True)
    ours, theirs = tl.median(x), torch.median(y)
    assert np.isnan(ours.item()) and np.isnan(theirs.item())
    assert ours.requires_grad == theirs.requires_grad


@pytest.mark.parametrize("data", [
    [[3.0, NAN, 1.0, 2.0], [NAN, NAN, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0]],
    [[NAN, NAN], [NAN, 1.0]],
    [[3.0, NAN, 1.0, NAN, -np.inf, np.inf, 0.0, 1.0]],
])
def test_mode_of_rows_with_nan_matches_pytorch(data):
    x, y = _pair(data)
    ours, theirs = tl.mode(x), torch.mode(y)
    _same(ours.values, theirs.values)
    _same(ours.indices, theirs.indices)


# -- quantile ------------------------------------------------------------------------------------

@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("q", [0.0, 0.3, 0.5, 1.0])
def test_quantile_with_infinities_uses_pytorchs_lerp(interpolation, q):
    x, y = _pair([-np.inf, 1.0, np.inf])
    _same(tl.quantile(x, q, interpolation=interpolation),
          torch.quantile(y, q, interpolation=interpolation))


@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
@pytest.mark.parametrize("interpolation", ["linear", "midpoint", "nearest"])
def test_quantile_gradient_goes_to_the_nan_it_returns(fn, interpolation):
    data = [[3.0, NAN, 1.0, 2.0], [NAN, NAN, NAN, NAN], [1.0, 2.0, 3.0, 4.0]]
    x, y = _pair(data, requires_grad=True)
    ours = getattr(tl, fn)(x, 0.4, dim=1, interpolation=interpolation)
    theirs = getattr(torch, fn)(y, 0.4, dim=1, interpolation=interpolation)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), equal_nan=True)
    g = np.array([1.0, 2.0, 3.0])
    ours.backward(tl.tensor(g))
    theirs.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy())


def test_quantile_ranks_in_the_input_dtype():
    data = np.random.default_rng(0).standard_normal(6).astype(np.float32)
    x, y = _pair(data)
    q = [0.2, 0.75]
    _same(tl.quantile(x, tl.tensor(q), interpolation="higher"),
          torch.quantile(y, torch.tensor(q), interpolation="higher"))


@pytest.mark.parametrize("q", [[0.5], 1.5, -0.1, NAN])
def test_quantile_q_errors(q):
    _raises_like(lambda lib: lib.quantile(lib.tensor([1.0, 2.0]), q))


def test_quantile_refuses_bad_interpolation_and_takes_out():
    _raises_like(lambda lib: lib.quantile(lib.tensor([1, 2]), 0.5))
    _raises_like(lambda lib: lib.quantile(lib.tensor([1.0]), 0.5, interpolation="foo"))
    out = tl.empty(2, dtype=tl.float64)
    tl.nanquantile(tl.tensor([1.0, NAN, 3.0], dtype=tl.float64),
                   tl.tensor([0.5, 1.0], dtype=tl.float64), out=out)
    np.testing.assert_array_equal(out.numpy(), [2.0, 3.0])
    assert tl.quantile(tl.tensor([1.0, 4.0]), True).item() == 4.0  # a bool q is a number


# -- unique / unique_consecutive -----------------------------------------------------------------

def test_unique_counts_every_nan_separately():
    x, y = _pair([3.0, NAN, 1.0, NAN, 1.0])
    for s in (True, False):
        for ours, theirs in zip(tl.unique(x, sorted=s, return_inverse=True, return_counts=True),
                                torch.unique(y, sorted=s, return_inverse=True,
                                             return_counts=True), strict=True):
            _same(ours, theirs)


@pytest.mark.parametrize("fn", ["unique", "unique_consecutive"])
def test_unique_dim_errors(fn):
    _raises_like(lambda lib: getattr(lib, fn)(lib.zeros(2, 0), dim=0))
    _raises_like(lambda lib: getattr(lib, fn)(lib.tensor(7), dim=0))


@pytest.mark.parametrize("shape,dim", [((0,), 0), ((2, 0), 1), ((0, 3), 0)])
def test_unique_consecutive_along_an_empty_dim(shape, dim):
    x, y = _pair(np.zeros(shape))
    for ours, theirs in zip(
            tl.unique_consecutive(x, return_inverse=True, return_counts=True, dim=dim),
            torch.unique_consecutive(y, return_inverse=True, return_counts=True, dim=dim),
            strict=True):
        _same(ours, theirs)


def test_unique_consecutive_dim_treats_nan_rows_as_distinct():
    x, y = _pair([[NAN, 1.0], [NAN, 1.0], [2.0, 2.0], [2.0, 2.0]])
    for ours, theirs in zip(tl.unique_consecutive(x, return_counts=True, dim=0),
                            torch.unique_consecutive(y, return_counts=True, dim=0), strict=True):
        _same(ours, theirs)


# -- searchsorted / bucketize --------------------------------------------------------------------

@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_with_nan_boundaries_follows_pytorchs_search(right):
    seq, tseq = _pair([1.0, 2.0, NAN])
    values, tvalues = _pair([0.0, 2.0, 2.5, 6.0, NAN])
    _same(tl.searchsorted(seq, values, right=right), torch.searchsorted(tseq, tvalues, right=right))


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_batched_and_empty(right):
    seq, tseq = _pair(np.arange(24.0).reshape(2, 3, 4))
    values, tvalues = _pair(np.arange(6.0).reshape(2, 3, 1) * 3)
    _same(tl.searchsorted(seq, values, right=right), torch.searchsorted(tseq, tvalues, right=right))
    _same(tl.searchsorted(tl.zeros(2, 0), tl.zeros(2, 3)),
          torch.searchsorted(torch.zeros(2, 0), torch.zeros(2, 3)))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.searchsorted(lib.tensor(1.0), lib.zeros(2)),
    lambda lib: lib.searchsorted(lib.tensor([1.0, 2]), lib.tensor([1.0]),
                                 sorter=lib.tensor([0, 1], dtype=lib.int32)),
    lambda lib: lib.searchsorted(lib.tensor([1.0, 2]), lib.tensor([1.0]),
                                 sorter=lib.tensor([0, 1, 2])),
    lambda lib: lib.searchsorted(lib.tensor([1.0, 2]), lib.tensor([1.0]),
                                 sorter=lib.tensor([0, 5])),
    lambda lib: lib.bucketize(lib.tensor([1.0]), lib.tensor(1.0)),
], ids=["0-d-boundaries", "int32-sorter", "sorter-size", "sorter-range", "bucketize-0-d"])
def test_searchsorted_errors(fn):
    _raises_like(fn)


# -- histc / histogram ---------------------------------------------------------------------------

@pytest.mark.parametrize("low,high", [(3, 3), (0, 0), (1, 2), (-1, 5)])
def test_histc_takes_the_data_range_when_min_equals_max(low, high):
    x, y = _pair([1.0, 2, 1, 2.5, 4, 0.5])
    _same(tl.histc(x, 4, low, high), torch.histc(y, 4, low, high))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.histc(lib.tensor([1.0, 2.0]), 0),
    lambda lib: lib.histc(lib.tensor([1.0, 2.0]), 4, 2, 1),
    lambda lib: lib.histc(lib.tensor([1.0, float("inf")]), 4),
    lambda lib: lib.histc(lib.tensor([1.0, float("nan")]), 4, 3, 3),
    lambda lib: lib.histc(lib.tensor([1, 2]), 4),
    lambda lib: lib.histogram(lib.tensor([1.0, 2.0]).half(), 4),
    lambda lib: lib.histogram(lib.tensor([1.0, 2.0]), 3, range=(0.0, float("inf"))),
    lambda lib: lib.histogram(lib.tensor([1.0, 2.0]), 3, range=(2.0, 1.0)),
    lambda lib: lib.histogram(lib.tensor([1.0, 2.0]), lib.tensor([0.0, 1, 2],
                                                                 dtype=lib.float64)),
    lambda lib: lib.histogram(lib.tensor([1.0, 2.0]), 3, weight=lib.ones(2, dtype=lib.float64)),
], ids=["bins-0", "min-above-max", "inf-data", "nan-data", "int", "histogram-half",
        "histogram-inf-range", "histogram-reversed-range", "histogram-edge-dtype",
        "histogram-weight-dtype"])
def test_histogram_errors(fn):
    _raises_like(fn)


def test_histogram_of_empty_input_spans_zero_to_one():
    for ours, theirs in zip(tl.histogram(tl.zeros(0), 4), torch.histogram(torch.zeros(0), 4),
                            strict=True):
        _same(ours, theirs)


@pytest.mark.parametrize("density", [False, True])
def test_histogram_with_unsorted_edges_searches_as_pytorch(density):
    x, y = _pair([0.0, 1, 2, 3, 10])
    ours = tl.histogram(x, tl.tensor([0.0, 2, 1], dtype=tl.float64), density=density)
    theirs = torch.histogram(y, torch.tensor([0.0, 2, 1], dtype=torch.float64), density=density)
    _same(ours.hist, theirs.hist)
    _same(ours.bin_edges, theirs.bin_edges)


# -- bincount / count_nonzero / isin -------------------------------------------------------------

@pytest.mark.parametrize("wdtype", ["float16", "float32", "float64", "int32", "bool"])
@pytest.mark.parametrize("data", [[0, 1, 1, 3], []])
def test_bincount_weighted_dtype(wdtype, data):
    x, y = _pair(data, np.int64)
    ours = tl.bincount(x, tl.ones(len(data), dtype=getattr(tl, wdtype)), 2)
    theirs = torch.bincount(y, torch.ones(len(data), dtype=getattr(torch, wdtype)), 2)
    _same(ours, theirs)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.bincount(lib.tensor([1.0, 2.0])),
    lambda lib: lib.bincount(lib.tensor([1, 2]), minlength=-1),
    lambda lib: lib.bincount(lib.tensor([1, 2]), lib.ones(3)),
    lambda lib: lib.bincount(lib.tensor([[1, 2]])),
], ids=["float", "negative-minlength", "weights-length", "2-d"])
def test_bincount_errors(fn):
    _raises_like(fn)


def test_count_nonzero_dims():
    x, y = _pair([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]])
    _same(tl.count_nonzero(x, dim=()), torch.count_nonzero(y, dim=()))
    _same(tl.count_nonzero(x, dim=(-1, 0)), torch.count_nonzero(y, dim=(-1, 0)))
    _raises_like(lambda lib: lib.count_nonzero(lib.ones(2, 3), dim=(0, 0)))
    _raises_like(lambda lib: lib.count_nonzero(lib.ones(2, 3), dim=2))


def test_isin_takes_out():
    out = tl.empty(3, dtype=tl.bool)
    tl.isin(tl.tensor([1, 2, 3]), tl.tensor([2, 3]), out=out)
    np.testing.assert_array_equal(out.numpy(), [False, True, True])
