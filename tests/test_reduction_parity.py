"""Statistical reductions against PyTorch: var/std and their degrees-of-freedom warning, empty
``dim`` tuples, nanmean's dtype errors, prod/mean with ``dtype=``, logsumexp, diff, trapezoid,
cov/corrcoef, the legacy ``norm`` forms and ``dist``: values, shapes, dtypes, warnings, errors."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

_X = np.random.default_rng(0).standard_normal((3, 4, 5))


def _pair(data, requires_grad=False):
    return (tl.tensor(data, requires_grad=requires_grad),
            torch.tensor(data, requires_grad=requires_grad))


def _messages(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in caught]


def _close(ours, ref, rtol=1e-12):
    assert tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=rtol,
                               atol=1e-12, equal_nan=True)


# -- var / std -----------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("data, kwargs", [
    (np.array([1.5]), {}),
    (np.array(2.0), {"dim": 0}),
    (np.array([[1.0, 2.0]]), {"dim": 0}),
    (np.array([1.0, 2.0]), {"correction": 2}),
    (np.zeros((0, 3)), {"dim": 1, "correction": 0}),  # empty output: PyTorch still warns
])
def test_degrees_of_freedom_warning_names_the_op(op, data, kwargs):
    a, b = _pair(data)
    ours, got = _messages(lambda: getattr(tl, op)(a, **kwargs))
    ref, expected = _messages(lambda: getattr(torch, op)(b, **kwargs))
    assert len(got) == len(expected) == 1
    assert got[0].startswith(f"{op}(): degrees of freedom is <= 0. Correction should be "
                             "strictly less than the reduction factor")
    for o, r in zip(ours if isinstance(ours, tuple) else (ours,),
                    ref if isinstance(ref, tuple) else (ref,), strict=True):
        _close(o, r)


def test_var_with_enough_degrees_of_freedom_does_not_warn():
    a = tl.tensor(_X)
    _, got = _messages(lambda: (a.var(), a.std(0, correction=2), tl.var_mean(a, (0, 1))))
    assert got == []


@pytest.mark.parametrize("dim", [(), []])
@pytest.mark.parametrize("op", ["var", "std", "sum", "mean", "nansum", "nanmean"])
def test_empty_dim_reduces_every_dim(op, dim):
    a, b = _pair(_X, requires_grad=True)
    for keepdim in (False, True):
        ours = getattr(tl, op)(a, dim, keepdim=keepdim)
        ref = getattr(torch, op)(b, dim, keepdim=keepdim)
        _close(ours, ref)
    if op in ("sum", "mean"):  # PyTorch's var backward for dim=() disagrees with its forward
        getattr(tl, op)(a, dim).backward()
        getattr(torch, op)(b, dim).backward()
        _close(a.grad, b.grad)


@pytest.mark.parametrize("op", ["var_mean", "std_mean"])
def test_var_mean_empty_dim(op):
    a, b = _pair(_X)
    for o, r in zip(getattr(tl, op)(a, (), keepdim=True), getattr(torch, op)(b, (), keepdim=True),
                    strict=True):
        _close(o, r)


@pytest.mark.parametrize("op", ["var", "std", "var_mean", "std_mean"])
def test_var_of_integers_raises_pytorchs_error(op):
    with pytest.raises(RuntimeError) as ref:
        getattr(torch, op)(torch.tensor([1, 2, 3]))
    with pytest.raises(RuntimeError, match=str(ref.value)):
        getattr(tl, op)(tl.tensor([1, 2, 3]))


# -- sum / mean / prod / nanmean with dtype= -----------------------------------------------------


@pytest.mark.parametrize("dim", [None, 0])
def test_prod_dtype_int32_stays_int32(dim):
    data = np.array([[1, 2, 3], [4, 5, 6]])
    ours = tl.prod(tl.tensor(data), dim, dtype=tl.int32) if dim is not None else \
        tl.prod(tl.tensor(data), dtype=tl.int32)
    ref = torch.prod(torch.tensor(data), dim, dtype=torch.int32) if dim is not None else \
        torch.prod(torch.tensor(data), dtype=torch.int32)
    assert ours.dtype == tl.int32 and ref.dtype == torch.int32
    np.testing.assert_array_equal(ours.numpy(), ref.numpy())


@pytest.mark.parametrize("src", ["float64", "float32", "int64"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_mean_into_half_dtype_rounds_once(src, dtype):
    data = np.random.default_rng(1).standard_normal((300, 5)) * 3
    ours = tl.mean(tl.tensor(data).to(getattr(tl, src)), 0, dtype=getattr(tl, dtype))
    ref = torch.mean(torch.tensor(data).to(getattr(torch, src)), 0, dtype=getattr(torch, dtype))
    assert ours.dtype == getattr(tl, dtype)
    np.testing.assert_array_equal(ours.float().numpy(), ref.float().numpy())


def test_nanmean_rejects_integer_input_even_with_float_dtype():
    with pytest.raises(RuntimeError, match=r"nanmean\(\): expected input to have floating "
                                           r"point or complex dtype but got Long"):
        tl.nanmean(tl.tensor([1, 2]), dtype=tl.float32)
    with pytest.raises(RuntimeError, match="expected input to have floating point"):
        torch.nanmean(torch.tensor([1, 2]), dtype=torch.float32)


def test_nanmean_rejects_integer_dtype():
    with pytest.raises(RuntimeError, match=r"nanmean\(\): could not infer output dtype. Optional "
                                           r"dtype must be either a floating point or complex "
                                           r"dtype. Got: Long"):
        tl.nanmean(tl.tensor([1.0, float("nan")]), dtype=tl.int64)
    with pytest.raises(RuntimeError, match="could not infer output dtype"):
        torch.nanmean(torch.tensor([1.0, float("nan")]), dtype=torch.int64)


# -- logsumexp / logcumsumexp -------------------------------------------------------------------


def test_logsumexp_empty_dim_follows_pytorch():
    a, b = _pair(_X)
    _close(tl.logsumexp(a, (), keepdim=True), torch.logsumexp(b, (), keepdim=True))
    _close(tl.logsumexp(a[0, 0, 0], ()), torch.logsumexp(b[0, 0, 0], ()))
    with pytest.raises(RuntimeError, match=r"output with shape \[\] doesn't match the "
                                           r"broadcast shape \[1, 1, 1\]"):
        tl.logsumexp(a, ())
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        torch.logsumexp(b, ())


def test_logcumsumexp_of_infinities_is_silent():
    data = np.array([[-np.inf, -np.inf, 1.0, np.inf, np.inf]])
    a, b = _pair(data)
    ours, got = _messages(lambda: tl.logcumsumexp(a, 1))
    _close(ours, torch.logcumsumexp(b, 1))
    assert got == []


# -- diff / trapezoid ---------------------------------------------------------------------------


def test_diff_errors():
    with pytest.raises(RuntimeError, match="diff expects input to be at least one-dimensional"):
        tl.diff(tl.tensor(1.0))
    with pytest.raises(RuntimeError, match="order must be non-negative but got -1"):
        tl.diff(tl.tensor([1.0, 2.0]), -1)
    with pytest.raises(RuntimeError, match="order must be non-negative but got -1"):
        torch.diff(torch.tensor([1.0, 2.0]), -1)


def test_trapezoid_over_an_empty_dim_gives_zeros_outside_the_graph():
    for dtype in ("float64", "int64"):
        a = tl.zeros(3, 0, dtype=getattr(tl, dtype))
        b = torch.zeros(3, 0, dtype=getattr(torch, dtype))
        ours, ref = tl.trapezoid(a), torch.trapezoid(b)
        assert ours.dtype == getattr(tl, dtype)
        np.testing.assert_array_equal(ours.numpy(), ref.numpy())
    a = tl.zeros(3, 0, dtype=tl.float64, requires_grad=True)
    assert not tl.trapezoid(a).requires_grad
    assert not torch.trapezoid(torch.zeros(3, 0, requires_grad=True)).requires_grad


@pytest.mark.parametrize("op", ["trapezoid", "cumulative_trapezoid"])
def test_trapezoid_positional_number_is_a_type_error(op):
    with pytest.raises(TypeError, match=f"{op}\\(\\) received an invalid combination"):
        getattr(tl, op)(tl.ones(3), 2.0)
    with pytest.raises(TypeError):
        getattr(torch, op)(torch.ones(3), 2.0)


# -- cov / corrcoef -----------------------------------------------------------------------------


@pytest.mark.parametrize("op, data, kwargs", [
    ("cov", np.array(2.0), {}),
    ("cov", _X[0, :, :1], {}),
    ("cov", np.zeros((2, 0)), {}),
    ("cov", _X[0], {"correction": 5}),
    ("corrcoef", _X[0, :, :1], {}),
])
def test_cov_degrees_of_freedom_warning(op, data, kwargs):
    a, b = _pair(data)
    ours, got = _messages(lambda: getattr(tl, op)(a, **kwargs))
    ref, expected = _messages(lambda: getattr(torch, op)(b, **kwargs))
    assert len(got) == len(expected) == 1
    assert got[0] == ("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.")
    _close(ours, ref)


def test_cov_of_one_variable_is_squeezed():
    a, b = _pair(_X[0, :1], requires_grad=True)
    ours, ref = tl.cov(a), torch.cov(b)
    assert ours.shape == () and ref.shape == ()
    _close(ours, ref)
    ours.backward()
    ref.backward()
    _close(a.grad, b.grad)
    _close(tl.corrcoef(a.detach()), torch.corrcoef(b.detach()))


def test_cov_weights_summing_to_zero_raise():
    a, b = _pair(_X[0])
    with pytest.raises(RuntimeError, match="cov\\(\\): weights sum to zero, can't be normalized"):
        tl.cov(a, fweights=tl.zeros(5, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="weights sum to zero"):
        torch.cov(b, fweights=torch.zeros(5, dtype=torch.int64))


# -- norm (legacy) and dist ---------------------------------------------------------------------


@pytest.mark.parametrize("dim", [1, -1])
def test_norm_nuc_with_int_dim_raises_pytorchs_error(dim):
    x = np.ones((2, 3, 4))
    with pytest.raises(RuntimeError) as ref:
        torch.norm(torch.tensor(x), "nuc", dim)
    with pytest.raises(RuntimeError, match=str(ref.value)):
        tl.norm(tl.tensor(x), "nuc", dim)


@pytest.mark.parametrize("p, dim", [("nuc", None), ("fro", (0, 1, 2))])
def test_norm_matrix_forms_reject_three_dims(p, dim):
    x = np.ones((2, 3, 4))
    with pytest.raises(RuntimeError) as ref:
        torch.norm(torch.tensor(x), p, dim)
    with pytest.raises(RuntimeError, match=str(ref.value)):
        tl.norm(tl.tensor(x), p, dim)


def test_norm_nuc_of_a_matrix_without_dim():
    a, b = _pair(_X[0], requires_grad=True)
    ours, ref = tl.norm(a, "nuc"), torch.norm(b, "nuc")
    _close(ours, ref)
    ours.backward()
    ref.backward()
    _close(a.grad, b.grad, rtol=1e-10)


@pytest.mark.parametrize("p", ["fro", 2, 1, 3, float("inf")])
@pytest.mark.parametrize("dim", [(), []])
def test_norm_empty_dim_reduces_every_dim(p, dim):
    a, b = _pair(_X, requires_grad=True)
    ours, ref = tl.norm(a, p, dim), torch.norm(b, p, dim)
    _close(ours, ref)
    ours.backward()
    ref.backward()
    _close(a.grad, b.grad)


@pytest.mark.parametrize("p, dim", [(float("inf"), 0), (float("-inf"), 0), (-1, 0),
                                    (float("inf"), None), (-1, None)])
def test_norm_without_identity_on_empty_dims_raises(p, dim):
    with pytest.raises(RuntimeError) as ref:
        torch.norm(torch.zeros(0, 3), p, dim)
    with pytest.raises(RuntimeError, match=str(ref.value)):
        tl.norm(tl.zeros(0, 3), p, dim)


@pytest.mark.parametrize("dim", [None, 1])
def test_norm_p0_stays_in_the_graph_without_a_gradient(dim):
    a, b = _pair(np.array([[0.0, 1.5, -2.0], [3.0, 0.0, 0.0]]), requires_grad=True)
    ours, ref = tl.norm(a, 0, dim), torch.norm(b, 0, dim)
    _close(ours, ref)
    assert ours.requires_grad and ref.requires_grad
    d = tl.dist(a, tl.zeros(3, dtype=tl.float64), 0)
    assert d.requires_grad and float(d) == 3.0


def test_dist_needs_a_tensor_other():
    with pytest.raises(TypeError, match=r"dist\(\): argument 'other' \(position 2\) must be "
                                        r"Tensor, not float"):
        tl.dist(tl.ones(2), 1.0)
    with pytest.raises(TypeError, match="must be Tensor, not float"):
        torch.dist(torch.ones(2), 1.0)
