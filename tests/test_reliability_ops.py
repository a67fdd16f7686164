"""Primitive ops at the points where a gradient rule is easy to get silently wrong: NaN inputs to
relu/maximum, 0 ** 0, norms and std at exact zeros, prod/cumprod with zeros under create_graph.
Each test states the exact expected values (so it means something without PyTorch) and compares
with PyTorch where it is installed. No NumPy RuntimeWarning may leak at these points."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.autograd import gradcheck, gradgradcheck
from tinygrad_lite.autograd.functional import hessian

NAN = float("nan")


def f64(values, requires_grad=True):
    return tl.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


def grad_of(fn, values):
    """The gradient of ``fn(x).sum()`` at ``values`` (float64), with warnings as errors."""
    x = f64(values)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fn(x).sum().backward()
    return x.grad.numpy()


def torch_grad_of(fn, values):
    torch = pytest.importorskip("torch")
    x = torch.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)
    fn(x).sum().backward()
    return x.grad.numpy()


def torch_hessian(fn, values):
    torch = pytest.importorskip("torch")
    x = torch.tensor(np.asarray(values, dtype=np.float64))
    return torch.autograd.functional.hessian(fn, x).numpy()


def our_hessian(fn, values):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return hessian(fn, f64(values, requires_grad=False)).numpy()


# -- 1. relu / maximum / minimum at NaN: the gradient passes, as in PyTorch ----------------------

RELU_POINTS = [NAN, -1.0, 0.0, 2.0]


@pytest.mark.parametrize("size", [4, 4096])  # both of ReluBackward0's paths (np.where, multiply)
def test_relu_passes_the_gradient_at_nan(size):
    values = np.resize(np.asarray(RELU_POINTS), size)
    expected = np.resize(np.asarray([1.0, 0.0, 0.0, 1.0]), size)
    np.testing.assert_array_equal(grad_of(tl.relu, values), expected)


def test_relu_nan_matches_torch():
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(grad_of(tl.relu, RELU_POINTS),
                                  torch_grad_of(torch.relu, RELU_POINTS))


def test_relu_nan_under_create_graph():
    x = f64(RELU_POINTS)
    (g,) = tl.autograd.grad(tl.relu(x).sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [1.0, 0.0, 0.0, 1.0])


# (a, b) -> d max(a, b)/da, d max(a, b)/db; PyTorch: ties split, a NaN on either side passes
# the whole gradient to both operands.
MAX_CASES = [(NAN, 0.0, 1.0, 1.0), (0.0, NAN, 1.0, 1.0), (NAN, NAN, 1.0, 1.0),
             (1.0, 0.0, 1.0, 0.0), (0.0, 1.0, 0.0, 1.0), (2.0, 2.0, 0.5, 0.5)]


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_at_nan_and_ties(name):
    a_vals = [c[0] for c in MAX_CASES]
    b_vals = [c[1] for c in MAX_CASES]
    a, b = f64(a_vals), f64(b_vals)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(tl, name)(a, b).sum().backward()
    ga = np.asarray([c[2] for c in MAX_CASES])
    gb = np.asarray([c[3] for c in MAX_CASES])
    if name == "minimum":  # the smaller operand wins: swap the non-tie, non-NaN cases
        ga = np.asarray([1.0, 1.0, 1.0, 0.0, 1.0, 0.5])
        gb = np.asarray([1.0, 1.0, 1.0, 1.0, 0.0, 0.5])
    np.testing.assert_array_equal(a.grad.numpy(), ga)
    np.testing.assert_array_equal(b.grad.numpy(), gb)
    torch = pytest.importorskip("torch")
    ta = torch.tensor(a_vals, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(b_vals, dtype=torch.float64, requires_grad=True)
    getattr(torch, name)(ta, tb).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), ta.grad.numpy())
    np.testing.assert_array_equal(b.grad.numpy(), tb.grad.numpy())


def test_maximum_broadcast_nan_under_create_graph():
    a = f64([[NAN, 1.0], [-1.0, 0.0]])
    b = f64([0.0, 0.0])
    ga, gb = tl.autograd.grad(tl.maximum(a, b).sum(), (a, b), create_graph=True)
    np.testing.assert_array_equal(ga.detach().numpy(), [[1.0, 1.0], [0.0, 0.5]])
    np.testing.assert_array_equal(gb.detach().numpy(), [1.0 + 1.0, 0.0 + 0.5])


# -- 2. pow at a zero base ---------------------------------------------------------------------

POW_POINTS = [0.0, 1.0, 2.0]


@pytest.mark.parametrize("exponent,expected", [
    (0.0, [0.0, 0.0, 0.0]), (0.5, [np.inf, 0.5, 0.5 / np.sqrt(2.0)]), (1.0, [1.0, 1.0, 1.0]),
    (2.0, [0.0, 2.0, 4.0]), (-1.0, [-np.inf, -1.0, -0.25]),
])
def test_pow_scalar_exponent_at_zero_base(exponent, expected):
    ours = grad_of(lambda x: x ** exponent, POW_POINTS)
    np.testing.assert_allclose(ours, expected, rtol=1e-15)
    np.testing.assert_allclose(ours, torch_grad_of(lambda x: x ** exponent, POW_POINTS),
                               rtol=1e-15)


def test_pow_tensor_exponent_at_zero_base():
    exps = [0.0, 0.5, 1.0, 2.0]
    a, b = f64([0.0] * 4), f64(exps)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (a ** b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [0.0, np.inf, 1.0, 0.0])
    np.testing.assert_array_equal(b.grad.numpy(), [0.0, 0.0, 0.0, 0.0])
    torch = pytest.importorskip("torch")
    ta = torch.zeros(4, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(exps, dtype=torch.float64, requires_grad=True)
    (ta ** tb).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), ta.grad.numpy())
    np.testing.assert_array_equal(b.grad.numpy(), tb.grad.numpy())


def test_pow_zero_exponent_under_create_graph():
    x = f64([0.0, 3.0])
    (g,) = tl.autograd.grad((x ** 0.0).sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [0.0, 0.0])


def test_pow_smooth_gradcheck():
    x = f64([0.7, 1.3, 2.1])
    y = f64([0.5, 2.0, -1.5])
    assert gradcheck(lambda a, b: a ** b, (x, y))
    assert gradgradcheck(lambda a, b: a ** b, (x, y))
    assert gradcheck(lambda a: a ** 0.5, (x,))
    assert gradgradcheck(lambda a: a ** 0.5, (x,))
    assert gradgradcheck(lambda a: a ** 3, (x,))


# -- 3. norm / std / var at exact zeros ----------------------------------------------------------

def test_norm_of_zero_vector_has_zero_gradient():
    np.testing.assert_array_equal(grad_of(tl.norm, [0.0, 0.0, 0.0]), [0.0, 0.0, 0.0])
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(grad_of(tl.norm, [0.0, 0.0, 0.0]),
                                  torch_grad_of(torch.norm, [0.0, 0.0, 0.0]))
    np.testing.assert_array_equal(
        grad_of(tl.norm, [0.0, 0.0, 0.0]),
        torch_grad_of(torch.linalg.vector_norm, [0.0, 0.0, 0.0]))


def test_norm_of_zero_row_has_zero_gradient():
    values = [[0.0, 0.0], [3.0, 4.0]]
    ours = grad_of(lambda x: tl.norm(x, dim=1), values)
    np.testing.assert_allclose(ours, [[0.0, 0.0], [0.6, 0.8]], rtol=1e-15)
    assert np.isfinite(ours).all()
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(ours, torch_grad_of(lambda x: torch.norm(x, dim=1), values),
                               rtol=1e-15)
    ours_keep = grad_of(lambda x: tl.norm(x, 2, 1, True), values)
    np.testing.assert_allclose(ours_keep, ours, rtol=1e-15)


def test_var_std_of_constant_input():
    values = [[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]]
    np.testing.assert_array_equal(grad_of(tl.var, [2.0, 2.0, 2.0]), [0.0, 0.0, 0.0])
    std_all = grad_of(tl.std, [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(std_all, [0.0, 0.0, 0.0])
    std_rows = grad_of(lambda x: tl.std(x, dim=1), values)
    assert np.isfinite(std_rows).all()
    np.testing.assert_array_equal(std_rows[0], [0.0, 0.0, 0.0])
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(std_all, torch_grad_of(torch.std, [2.0, 2.0, 2.0]))
    np.testing.assert_allclose(std_rows, torch_grad_of(lambda x: torch.std(x, dim=1), values),
                               rtol=1e-14)
    np.testing.assert_array_equal(grad_of(lambda x: tl.var(x, dim=1), values)[0], [0.0] * 3)


def test_norm_std_smooth_gradcheck():
    x = f64([[0.3, -1.2, 0.8], [1.5, 0.4, -0.9]])
    assert gradcheck(lambda a: tl.norm(a), (x,))
    assert gradgradcheck(lambda a: tl.norm(a, dim=1), (x,))
    assert gradgradcheck(lambda a: tl.std(a, dim=1), (x,))
    assert gradgradcheck(lambda a: tl.var(a), (x,))


# -- 4. prod / cumprod with zeros, to second order -------------------------------------------------

def test_prod_with_zero_hessian():
    ours = our_hessian(lambda x: x.prod(), [2.0, 0.0, 3.0])
    np.testing.assert_array_equal(ours, [[0.0, 3.0, 0.0], [3.0, 0.0, 2.0], [0.0, 2.0, 0.0]])
    np.testing.assert_array_equal(ours, torch_hessian(lambda x: x.prod(), [2.0, 0.0, 3.0]))


def test_prod_dim_with_zero_hessian():
    values = [2.0, 0.0, 3.0, 1.0, 2.0, 3.0]
    ours = our_hessian(lambda x: x.reshape(2, 3).prod(1).sum(), values)
    assert ours[1].tolist() == [3.0, 0.0, 2.0, 0.0, 0.0, 0.0]
    ours0 = our_hessian(lambda x: x.reshape(3, 2).prod(0).sum(), [2.0, 0.0, 0.0, 1.0, 3.0, 2.0])
    np.testing.assert_array_equal(ours, torch_hessian(lambda x: x.reshape(2, 3).prod(1).sum(),
                                                      values))
    np.testing.assert_array_equal(ours0, torch_hessian(lambda x: x.reshape(3, 2).prod(0).sum(),
                                                       [2.0, 0.0, 0.0, 1.0, 3.0, 2.0]))


def test_prod_first_derivative_requires_grad_with_zero():
    x = f64([2.0, 0.0, 3.0])
    (g,) = tl.autograd.grad(x.prod(), x, create_graph=True)
    assert g.requires_grad
    np.testing.assert_array_equal(g.detach().numpy(), [0.0, 6.0, 0.0])


WEIGHTS = [1.0, 2.0, 3.0, 4.0]



@pytest.mark.parametrize("values", [[2.0, 0.0, 3.0, 5.0], [0.0, 0.0, 3.0, 5.0],
                                    [2.0, 3.0, 5.0, 0.0]])
def test_cumprod_with_zero_hessian(values):
    weights = tl.tensor(WEIGHTS, dtype=tl.float64)
    ours = our_hessian(lambda x: (x.cumprod(0) * weights).sum(), values)
    if values == [2.0, 0.0, 3.0, 5.0]:
        np.testing.assert_array_equal(ours, [[0.0, 71.0, 0.0, 0.0], [71.0, 0.0, 46.0, 24.0],
                                             [0.0, 46.0, 0.0, 0.0], [0.0, 24.0, 0.0, 0.0]])
    torch = pytest.importorskip("torch")
    tw = torch.tensor(WEIGHTS, dtype=torch.float64)
    np.testing.assert_array_equal(ours, torch_hessian(lambda x: (x.cumprod(0) * tw).sum(),
                                                      values))


def test_cumprod_2d_with_zero_create_graph():
    values = [[2.0, 0.0, 3.0], [0.5, 4.0, 0.0]]
    for dim in (0, 1):
        x = f64(values)
        w = tl.tensor(np.arange(6.0).reshape(2, 3) + 1)
        (g,) = tl.autograd.grad((x.cumprod(dim) * w).sum(), x, create_graph=True)
        assert g.requires_grad
        x2 = f64(values)
        (x2.cumprod(dim) * w).sum().backward()
        np.testing.assert_array_equal(g.detach().numpy(), x2.grad.numpy())
        (gg,) = tl.autograd.grad((g * g).sum(), x)
        torch = pytest.importorskip("torch")
        tx = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        tw = torch.arange(6.0, dtype=torch.float64).reshape(2, 3) + 1
        (tg,) = torch.autograd.grad((tx.cumprod(dim) * tw).sum(), tx, create_graph=True)
        (tgg,) = torch.autograd.grad((tg * tg).sum(), tx)
        np.testing.assert_allclose(gg.numpy(), tgg.numpy(), rtol=1e-14)


def test_prod_cumprod_smooth_gradcheck():
    x = f64([[0.7, -1.3, 2.1], [1.1, 0.4, -0.6]])
    assert gradgradcheck(lambda a: a.prod(), (x,))
    assert gradgradcheck(lambda a: a.prod(1), (x,))
    assert gradgradcheck(lambda a: a.cumprod(1), (x,))
    assert gradgradcheck(lambda a: a.cumprod(0), (x,))


def test_relu_maximum_smooth_gradcheck():
    x = f64([[0.7, -1.3, 2.1], [-1.1, 0.4, -0.6]])
    y = f64([0.2, -0.5, 1.0])
    assert gradcheck(tl.relu, (x,))
    assert gradgradcheck(tl.relu, (x,))
    assert gradcheck(tl.maximum, (x, y))
    assert gradgradcheck(tl.maximum, (x, y))
    assert gradcheck(tl.minimum, (x, y))


def test_prod_third_derivative_with_zeros():
    # d3 prod(x) / dx0 dx1 dx2 = x3 and d3 / dx1 dx2 dx3 = x0 at x = [2, 0, 0, 5]
    x = f64([2.0, 0.0, 0.0, 5.0])
    (g,) = tl.autograd.grad(x.prod(), x, create_graph=True)
    (h1,) = tl.autograd.grad(g[1], x, create_graph=True)
    (h12,) = tl.autograd.grad(h1[2], x)
    np.testing.assert_array_equal(h12.numpy(), [5.0, 0.0, 0.0, 2.0])
    (c,) = tl.autograd.grad(x.cumprod(0).sum(), x, create_graph=True)
    (c1,) = tl.autograd.grad(c[1], x, create_graph=True)
    (c12,) = tl.autograd.grad(c1[2], x)
    # cumprod terms containing x1 x2: x0 x1 x2 and x0 x1 x2 x3
    np.testing.assert_array_equal(c12.numpy(), [1.0 + 5.0, 0.0, 0.0, 2.0])


def test_pow_exponent_gradient_at_zero_base_matches_pytorch():
    """d(0^b)/db: 0 for b >= 0 (PyTorch's limit), -inf for b < 0 (was NaN)."""
    for exponent, expected in ((-1.0, -np.inf), (-0.5, -np.inf), (0.0, 0.0), (2.0, 0.0)):
        base = tl.zeros(1, requires_grad=True)
        power = tl.tensor([exponent], requires_grad=True)
        (base ** power).sum().backward()
        assert power.grad.item() == expected, exponent
