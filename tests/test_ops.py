"""Catalogue-driven gradient checks of every differentiable op, and op-level behaviour."""

import numpy as np
import pytest
from helpers import check_grads, check_second_order
from op_catalog import CATALOG, NO_FLOAT16, REFERENCE, SAME, make_inputs

import tinygrad_lite as tl


@pytest.mark.parametrize("name,fn,shapes,domain", CATALOG, ids=[row[0] for row in CATALOG])
def test_gradient_matches_central_differences(name, fn, shapes, domain):
    check_grads(fn, *make_inputs(shapes, domain))


@pytest.mark.parametrize("name,fn,shapes,domain", CATALOG, ids=[row[0] for row in CATALOG])
def test_second_order_gradient_matches_central_differences(name, fn, shapes, domain):
    check_second_order(fn, *make_inputs(shapes, domain))


@pytest.mark.parametrize("name,fn,shapes,domain", CATALOG, ids=[row[0] for row in CATALOG])
def test_float32_forward_and_grad_keep_float32(name, fn, shapes, domain):
    inputs = [tl.tensor(a.astype(np.float32), requires_grad=True)
              for a in make_inputs(shapes, domain)]
    out = fn(*inputs)
    assert out.dtype == tl.float32
    out.sum().backward()
    for t in inputs:
        assert t.grad is not None and t.grad.dtype == tl.float32 and t.grad.shape == t.shape


def _reference(name, fn, arrays):
    ref = REFERENCE[name]
    return np.asarray((fn if ref == SAME else ref)(*[a.copy() for a in arrays]), np.float64)


@pytest.mark.parametrize("name,fn,shapes,domain", CATALOG, ids=[row[0] for row in CATALOG])
def test_float32_forward_matches_numpy_reference(name, fn, shapes, domain):
    arrays = [a.astype(np.float32) for a in make_inputs(shapes, domain)]
    out = fn(*[tl.tensor(a) for a in arrays])
    assert out.dtype == tl.float32
    expected = _reference(name, fn, [a.astype(np.float64) for a in arrays])
    assert out.shape == expected.shape
    np.testing.assert_allclose(out.numpy(), expected, rtol=2e-5, atol=2e-6)


# float16 keeps ~3 significant digits; these rows amplify rounding beyond a plain tolerance
FLOAT16_TOLERANCE = {"round-decimals": 0.1, "pow-broadcast-left": 0.05, "pow-0dim": 0.05,
                     "norm-p3": 0.05}


@pytest.mark.parametrize("name,fn,shapes,domain", CATALOG, ids=[row[0] for row in CATALOG])
def test_float16_forward_within_float16_tolerance(name, fn, shapes, domain):
    arrays = [a.astype(np.float16) for a in make_inputs(shapes, domain)]
    if name in NO_FLOAT16:  # refused as PyTorch refuses it
        with pytest.raises(RuntimeError, match="Low precision dtypes not supported"):
            fn(*[tl.tensor(a) for a in arrays])
        return
    out = fn(*[tl.tensor(a) for a in arrays])
    assert out.dtype == tl.float16
    expected = _reference(name, fn, [a.astype(np.float64) for a in arrays])
    tol = FLOAT16_TOLERANCE.get(name, 1e-2)
    np.testing.assert_allclose(out.numpy().astype(np.float64), expected, rtol=tol, atol=tol)


# bfloat16 keeps ~2-3 significant digits (8 bits); rows that amplify rounding get more room
BFLOAT16_TOLERANCE = {"round-decimals": 0.2, "pow-broadcast-left": 0.1, "pow-0dim": 0.1,
                      "norm-p3": 0.1}


def _bf16(x):
    """``x`` rounded to bfloat16, as float64."""
    return tl.tensor(x).to(tl.bfloat16).double().numpy()


# rows whose reference must round as bfloat16 does: fmod jumps by its period when a*3 rounds
# across a multiple of the divisor (the scalar 1.3 is a bfloat16 too, as in PyTorch)
BFLOAT16_REFERENCE = {"fmod": lambda a: np.fmod(_bf16(a * 3), _bf16(1.3))}


@pytest.mark.parametrize("name,fn,shapes,domain", CATALOG, ids=[row[0] for row in CATALOG])
def test_bfloat16_forward_and_grad_within_bfloat16_tolerance(name, fn, shapes, domain):
    pytest.importorskip("ml_dtypes")
    arrays = [tl.tensor(a).to(tl.bfloat16).float().numpy()  # values bfloat16 can hold
              for a in make_inputs(shapes, domain)]
    inputs = [tl.tensor(a).to(tl.bfloat16).requires_grad_() for a in arrays]
    if name in NO_FLOAT16:  # refused as PyTorch refuses it
        with pytest.raises(RuntimeError, match="Low precision dtypes not supported"):
            fn(*inputs)
        return
    out = fn(*inputs)
    assert out.dtype == tl.bfloat16
    if name in BFLOAT16_REFERENCE:
        expected = BFLOAT16_REFERENCE[name](*[a.astype(np.float64) for a in arrays])
    else:
        expected = _reference(name, fn, [a.astype(np.float64) for a in arrays])
    tol = BFLOAT16_TOLERANCE.get(name, 5e-2)
    np.testing.assert_allclose(out.detach().float().numpy().astype(np.float64), expected,
                               rtol=tol, atol=tol)
    out.float().sum().backward()
    for t in inputs:
        assert t.grad is not None and t.grad.dtype == tl.bfloat16 and t.grad.shape == t.shape


def test_catalogue_rows_have_numpy_references_and_unique_ids():
    ids = [row[0] for row in CATALOG]
    assert len(ids) == len(set(ids)) == len(REFERENCE)
    assert all(REFERENCE[i] == SAME or callable(REFERENCE[i]) for i in ids)


def test_forward_values_match_numpy():
    a, b = np.random.randn(3, 4).astype(np.float32), np.random.randn(4).astype(np.float32)
    ta, tb = tl.tensor(a), tl.tensor(b)
    np.testing.assert_allclose((ta * tb + ta / 2).numpy(), a * b + a / 2, rtol=1e-6)
    np.testing.assert_allclose(ta.relu().numpy(), np.maximum(a, 0))
    np.testing.assert_allclose(ta.sum(1).numpy(), a.sum(1), rtol=1e-6)
    np.testing.assert_allclose((ta @ tb).numpy(), a @ b, rtol=1e-5)
    np.testing.assert_allclose(ta.softmax(1).numpy().sum(1), np.ones(3), rtol=1e-6)
    np.testing.assert_allclose(ta.sigmoid().numpy(), 1 / (1 + np.exp(-a)), rtol=1e-6)


def test_softmax_is_stable_for_huge_logits():
    x = tl.tensor([[1e4, 0.0, -1e4]], requires_grad=True)
    p = x.softmax(-1)
    np.testing.assert_allclose(p.detach().numpy(), [[1.0, 0.0, 0.0]])
    assert np.isfinite(x.log_softmax(-1).detach().numpy()).all()
    (p[0, 0] * 1.0).backward()
    assert np.isfinite(x.grad.numpy()).all()


def test_sigmoid_does_not_overflow():
    x = tl.tensor([-1000.0, 0.0, 1000.0], dtype=tl.float64)
    np.testing.assert_allclose(x.sigmoid().numpy(), [0.0, 0.5, 1.0])


def test_max_with_dim_returns_values_and_indices():
    x = tl.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 7.0]], requires_grad=True)
    values, indices = x.max(1)
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    assert x.max(1).indices.dtype == tl.int64
    values.sum().backward()
    # with a dim, the gradient goes to the selected index only (PyTorch's rule)
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]


def test_max_and_amax_split_gradient_evenly_between_ties():
    x = tl.tensor([[3.0, 1.0, 3.0], [2.0, 2.0, 2.0]], requires_grad=True)
    x.max().backward()
    assert x.grad.tolist() == [[0.5, 0.0, 0.5], [0.0, 0.0, 0.0]]
    y = tl.tensor([[3.0, 1.0, 3.0], [2.0, 2.0, 2.0]], requires_grad=True)
    y.amax(1).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [[0.5, 0, 0.5], [1 / 3, 1 / 3, 1 / 3]])


def test_maximum_splits_gradient_on_ties():
    a = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = tl.tensor([2.0, 2.0, 2.0], requires_grad=True)
    tl.maximum(a, b).sum().backward()
    assert a.grad.tolist() == [0.0, 0.5, 1.0] and b.grad.tolist() == [1.0, 0.5, 0.0]


def test_relu_gradient_at_zero_is_zero():
    x = tl.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    x.relu().sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0]


def test_comparisons_return_bool_without_grad():
    a = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for result in (a < 2, a <= 2, a > 2, a >= 2, a == 2, a != 2, 2 < a):
        assert result.dtype == tl.bool and not result.requires_grad and result.grad_fn is None
    assert (a > 1.5).tolist() == [False, True, True]


def test_getitem_repeated_indices_accumulate_gradient():
    x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[tl.tensor([0, 0, 2, 0])].sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 1.0]


def test_reflected_operators_with_numpy_arrays():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = np.array([3.0, 4.0], dtype=np.float32) * x
    assert isinstance(y, tl.Tensor) and y.tolist() == [3.0, 8.0]


def test_integer_ops_compute_in_float_where_pytorch_does():
    i = tl.tensor([1, 2, 3])
    assert i.exp().dtype == tl.float32
    assert (i / 2).dtype == tl.float32
    assert i.sum().dtype == tl.int64
    assert tl.tensor([True, False]).sum().item() == 1


@pytest.mark.parametrize("fn,message", [
    (lambda: tl.ones(2, 3) + tl.ones(4),
     "size of tensor a (3) must match the size of tensor b (4)"),
    (lambda: tl.ones(2, 3) * tl.ones(3, 2), "mul: shapes (2, 3) and (3, 2)"),
    (lambda: tl.ones(2, 3) @ tl.ones(4, 5), "a.shape[-1] (3) must equal b.shape[-2] (4)"),
    (lambda: tl.ones(3) @ tl.ones(4), "matmul: shapes (3,) and (4,)"),
    (lambda: tl.tensor(2.0) @ tl.ones(2), "at least 1 dimension"),
    (lambda: tl.ones(2, 3).reshape(4, 2), "shape [4, 2] is invalid for input of shape (2, 3)"),
    (lambda: tl.ones(2, 3).sum(2),
     "dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda: tl.ones(2, 3).permute(0, 0), "not a permutation"),
    (lambda: tl.ones(2, 3).expand(4, 3), "cannot be expanded to (4, 3)"),
    (lambda: tl.ones(3)[5], "getitem: index 5 is out of bounds"),
    (lambda: tl.ones(3)[tl.tensor([0.5])], "must be long, int or bool"),
    (lambda: tl.tensor([1, 2]) ** -1, "Integers to negative integer powers"),
    (lambda: tl.tensor([1, 2]).mean(), "mean: input dtype must be floating point"),
    (lambda: tl.where(tl.ones(2), tl.ones(2), tl.ones(2)), "condition must be a bool tensor"),
    (lambda: tl.ones(2, 3).max(1.5), "dim must be an int"),
    (lambda: tl.tensor([1, 2], requires_grad=True), "floating point dtype can require gradients"),
    (lambda: tl.ones(3).item(), "a tensor with 3 elements cannot be converted"),
    (lambda: bool(tl.ones(3)), "ambiguous"),
    (lambda: tl.tensor("abc"), "unsupported data of dtype"),
])
def test_bad_input_raises_clear_error(fn, message):
    with pytest.raises((RuntimeError, TypeError, IndexError, ValueError)) as info:
        fn()
    assert message in str(info.value)


def test_min_amin_ties_follow_pytorch_rules():
    x = tl.tensor([[1.0, 3.0, 1.0], [2.0, 2.0, 2.0]], requires_grad=True)
    x.min().backward()  # no dim: split evenly among ties
    assert x.grad.tolist() == [[0.5, 0.0, 0.5], [0.0, 0.0, 0.0]]
    y = tl.tensor([[1.0, 3.0, 1.0], [2.0, 2.0, 2.0]], requires_grad=True)
    y.amin(1).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [[0.5, 0, 0.5], [1 / 3, 1 / 3, 1 / 3]])
    z = tl.tensor([[1.0, 3.0, 1.0], [2.0, 2.0, 2.0]], requires_grad=True)
    values, indices = z.min(1)
    assert indices.tolist() == [0, 0] and values.tolist() == [1.0, 2.0]
    values.sum().backward()  # with a dim: only the selected index
    assert z.grad.tolist() == [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    assert type(z.min(1)).__name__ == "min" and z.min(1, keepdim=True).values.shape == (2, 1)


def test_norm_inf_and_minimum_ties_split():
    x = tl.tensor([3.0, -3.0, 1.0], requires_grad=True)
    x.norm(float("inf")).backward()
    assert x.grad.tolist() == [0.5, -0.5, 0.0]
    a = tl.tensor([1.0, 2.0], requires_grad=True)
    b = tl.tensor([1.0, 1.0], requires_grad=True)
    tl.minimum(a, b).sum().backward()
    assert a.grad.tolist() == [0.5, 0.0] and b.grad.tolist() == [0.5, 1.0]


def test_comparison_logical_and_predicate_functions_return_bool():
    a, b = tl.tensor([1.0, 2.0, 3.0]), tl.tensor([3.0, 2.0, 1.0])
    assert tl.eq(a, b).tolist() == [False, True, False] and a.ne(b).tolist() == [True, False, True]
    assert tl.lt(a, b).tolist() == [True, False, False] and a.le(2).tolist() == [True, True, False]
    assert tl.gt(a, b).tolist() == [False, False, True] and a.ge(b).tolist() == [False, True, True]
    p, q = tl.tensor([True, True, False]), tl.tensor([True, False, False])
    assert tl.logical_and(p, q).tolist() == [True, False, False]
    assert tl.logical_or(p, q).tolist() == [True, True, False]
    assert tl.logical_xor(p, q).tolist() == [False, True, False]
    assert tl.logical_not(p).tolist() == [False, False, True]
    assert (p & q).tolist() == [True, False, False] and (~p).tolist() == [False, False, True]
    assert tl.logical_and(a, tl.tensor([0.0, 1.0, 2.0])).tolist() == [False, True, True]
    c = tl.tensor([1.0, float("nan"), float("inf"), -float("inf")])
    assert c.isnan().tolist() == [False, True, False, False]
    assert tl.isinf(c).tolist() == [False, False, True, True]
    assert c.isfinite().tolist() == [True, False, False, False]
    for t in (tl.eq(a, b), c.isnan(), tl.logical_not(p)):
        assert t.dtype == tl.bool and not t.requires_grad


def test_argmax_argmin_all_any():
    x = tl.tensor([[1.0, 5.0, 5.0], [7.0, 0.0, -1.0]])
    assert x.argmax().item() == 3 and x.argmin().item() == 5
    assert x.argmax(1).tolist() == [1, 0] and x.argmin(0, keepdim=True).tolist() == [[0, 1, 1]]
    assert x.argmax(dim=1).dtype == tl.int64
    assert (x > 0).all().item() is False and (x > -2).all().item() is True
    assert (x > 6).any(1).tolist() == [False, True]
    assert tl.any(x > 6, 0, keepdim=True).shape == (1, 3)


def test_rounding_ops_have_zero_gradient_and_keep_grad_fn():
    x = tl.tensor([-1.5, 0.5, 2.5, 1.7], requires_grad=True)
    assert tl.round(x).tolist() == [-2.0, 0.0, 2.0, 2.0]  # half to even, as in PyTorch
    assert x.floor().tolist() == [-2.0, 0.0, 2.0, 1.0] and x.trunc().tolist() == [-1, 0, 2, 1]
    (x.floor() + x.ceil() + x.round() + x.trunc() + x.sign()).sum().backward()
    assert x.grad.tolist() == [0.0] * 4
    assert x.floor().grad_fn.name() == "FloorBackward0"


def test_clamp_gradient_passes_at_the_bounds_like_pytorch():
    x = tl.tensor([-2.0, -1.0, 0.0, 1.0, 2.0], requires_grad=True)
    x.clamp(-1.0, 1.0).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]
    assert tl.tensor([1, 5, 9]).clamp(2, 6).tolist() == [2, 5, 6]


def test_logsumexp_and_log_softmax_are_stable_for_huge_values():
    x = tl.tensor([[1e4, 0.0, -1e4], [-1e4, -1e4, -1e4]], requires_grad=True)
    np.testing.assert_allclose(x.logsumexp(1).detach().numpy(),
                               [1e4, -1e4 + np.log(3)], rtol=1e-6)
    x.logsumexp(1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[1, 0, 0], [1 / 3, 1 / 3, 1 / 3]], atol=1e-7)
    assert tl.logsumexp(tl.tensor([-float("inf")] * 2), 0).item() == -float("inf")
    lsm = tl.tensor([[1e4, -1e4]]).log_softmax(1)
    np.testing.assert_allclose(lsm.numpy(), [[0.0, -2e4]])


def test_var_std_arguments_follow_pytorch():
    a = np.array([[1.0, 2.0, 4.0], [3.0, 3.0, 9.0]])
    t = tl.tensor(a)
    np.testing.assert_allclose(t.var().item(), a.var(ddof=1))
    np.testing.assert_allclose(t.var(False).item(), a.var())  # legacy var(input, unbiased)
    np.testing.assert_allclose(t.var(1, unbiased=False).numpy(), a.var(1))
    np.testing.assert_allclose(tl.std(t, 0, correction=0).numpy(), a.std(0))
    np.testing.assert_allclose(t.std(dim=1, keepdim=True).numpy(), a.std(1, ddof=1, keepdims=True))


def test_shape_ops_return_pytorch_shapes():
    x = tl.arange(24).reshape(2, 3, 4)
    assert [p.shape for p in x.split(2, 2)] == [(2, 3, 2), (2, 3, 2)]
    assert [p.shape for p in x.chunk(2, 1)] == [(2, 2, 4), (2, 1, 4)]
    assert [p.shape for p in tl.split(x, [1, 3], -1)] == [(2, 3, 1), (2, 3, 3)]
    assert len(x.unbind(2)) == 4 and x.unbind(2)[0].shape == (2, 3)
    assert tl.stack([x, x], 1).shape == (2, 2, 3, 4) and tl.cat([x, x], -1).shape == (2, 3, 8)
    assert x.repeat(1, 2, 1, 1).shape == (1, 4, 3, 4) and x.tile((2,)).shape == (2, 3, 8)
    assert x.diagonal(0, 1, 2).shape == (2, 3) and x.movedim(2, 0).shape == (4, 2, 3)
    assert x.unflatten(2, (2, 2)).shape == (2, 3, 2, 2) and x.mT.shape == (2, 4, 3)
    assert x.flip(0).tolist() == x.numpy()[::-1].tolist()
    assert x.roll(1, 2).tolist() == np.roll(x.numpy(), 1, 2).tolist()
    assert x.narrow(2, 1, 2).tolist() == x.numpy()[:, :, 1:3].tolist()
    assert x.T.shape == (4, 3, 2) and x.contiguous() is x and x.mT.contiguous().shape == (2, 4, 3)
    assert tl.cat([tl.ones(2, dtype=tl.int64), tl.ones(1)]).dtype == tl.float32  # promotion


def test_einsum_matches_numpy_for_assorted_equations():
    rng = np.random.default_rng(0)
    a, b, c = rng.standard_normal((2, 3)), rng.standard_normal((3, 4)), rng.standard_normal(4)
    for eq, ops in [("ij,jk,k->i", (a, b, c)), ("ij->", (a,)), ("ji", (a,)),
                    ("ij,ij->ij", (a, a)), ("i,i", (c, c)), ("...j,jk->...k", (a, b))]:
        out = tl.einsum(eq, *[tl.tensor(o) for o in ops])
        np.testing.assert_allclose(out.numpy(), np.einsum(eq, *ops), rtol=1e-12)
    assert tl.einsum("ij,jk", [tl.tensor(a), tl.tensor(b)]).shape == (2, 4)  # list form


def test_pad_modes_match_numpy():
    x = np.arange(12.0).reshape(1, 3, 4)
    t = tl.tensor(x)
    from tinygrad_lite.nn.functional import pad

    np.testing.assert_array_equal(pad(t, (1, 1, 2, 0)).numpy(),
                                  np.pad(x, ((0, 0), (2, 0), (1, 1))))
    np.testing.assert_array_equal(pad(t, (3, 2), mode="reflect").numpy(),
                                  np.pad(x, ((0, 0), (0, 0), (3, 2)), mode="reflect"))
    np.testing.assert_array_equal(pad(t, (1, 2, 2, 1), mode="replicate").numpy(),
                                  np.pad(x, ((0, 0), (2, 1), (1, 2)), mode="edge"))


def test_mixed_dtype_ops_promote_like_pytorch():
    i, f = tl.tensor([1, 2]), tl.tensor([0.5, 1.5])
    assert tl.minimum(i, f).dtype == tl.float32 and tl.minimum(i, 1).dtype == tl.int64
    assert i.prod().dtype == tl.int64 and i.cumsum(0).dtype == tl.int64
    assert i.abs().dtype == tl.int64 and i.square().dtype == tl.int64
    assert i.sqrt().dtype == tl.float32 and i.reciprocal().dtype == tl.float32
    assert tl.tensor([2.0], dtype=tl.float16).exp2().dtype == tl.float16


def test_relu_backward_zeroes_nonfinite_gradients_where_input_is_not_positive():
    x = tl.tensor([-1.0, -2.0, 3.0, 4.0], requires_grad=True)
    x.relu().backward(tl.tensor([float("nan"), float("inf"), 2.0, float("inf")]))
    assert x.grad.tolist()[:3] == [0.0, 0.0, 2.0] and x.grad.tolist()[3] == float("inf")


def test_sigmoid_tails_are_exact():
    x = tl.tensor([-1e4, -30.0, 30.0, 1e4], dtype=tl.float64)
    expected = [0.0, 1 / (1 + np.exp(30.0)), 1 / (1 + np.exp(-30.0)), 1.0]  # sigmoid(-1e4) = 0
    np.testing.assert_allclose(x.sigmoid().numpy(), expected, rtol=1e-15, atol=0)


def test_cumprod_with_zeros_exact_first_order_also_under_create_graph():
    x = tl.tensor([2.0, 0.0, 3.0], dtype=tl.float64, requires_grad=True)
    x.cumprod(0).sum().backward()
    assert x.grad.tolist() == [1.0, 2.0 + 6.0, 0.0]  # d/dx of x0 + x0x1 + x0x1x2 at x1 = 0
    (g,) = tl.autograd.grad(x.cumprod(0).sum(), x, create_graph=True)
    assert g.requires_grad and g.detach().tolist() == [1.0, 8.0, 0.0]
