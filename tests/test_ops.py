"""Catalogue-driven gradient checks of every differentiable op, and op-level behaviour."""

import numpy as np
import pytest
from helpers import check_grads, check_second_order
from op_catalog import CATALOG, make_inputs

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
    (lambda: tl.tensor([1, 2]) ** -1, "integers to negative integer powers"),
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
