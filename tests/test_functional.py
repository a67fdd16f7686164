"""tl.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp against analytic answers."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.autograd import functional as F  # noqa: N812 - the usual alias

rng = np.random.default_rng(0)
A = rng.standard_normal((3, 4))
X0 = rng.standard_normal(4)


def t64(values, requires_grad=False):
    return tl.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


def f(x):  # R^4 -> R^3: tanh(A x)
    return (t64(A) @ x).tanh()


def jac_f(x):
    return (1 - np.tanh(A @ x) ** 2)[:, None] * A


def scalar(x):  # sum(x^3) + (x . A^T A x) / 2
    return (x ** 3).sum() + 0.5 * (x @ (t64(A.T @ A) @ x))


def hess_scalar(x):
    return np.diag(6 * x) + A.T @ A


def test_jacobian_single_and_tuple():
    x = t64(X0)
    J = F.jacobian(f, x)
    assert J.shape == (3, 4) and not J.requires_grad
    np.testing.assert_allclose(J.numpy(), jac_f(X0), rtol=1e-12)
    y = t64([1.0, 2.0])
    (jx, jy), = [F.jacobian(lambda a, b: (a * b).sum(0, keepdim=True), (t64([[3.0, 4.0]]), y))]
    assert jx.shape == (1, 2, 1, 2) and jy.shape == (1, 2, 2)
    np.testing.assert_allclose(jy.numpy(), [[[3.0, 0.0], [0.0, 4.0]]])
    np.testing.assert_allclose(jx.numpy(), [[[[1.0, 0.0]], [[0.0, 2.0]]]])


def test_jacobian_of_unused_input_is_zero_or_strict_error():
    x, y = t64([1.0, 2.0]), t64([3.0])
    jx, jy = F.jacobian(lambda a, b: a * 2, (x, y))
    assert jy.numpy().tolist() == [[0.0], [0.0]]
    with pytest.raises(RuntimeError, match="independent of input 1"):
        F.jacobian(lambda a, b: a * 2, (x, y), strict=True)


def test_hessian_matches_analytic():
    H = F.hessian(scalar, t64(X0))
    np.testing.assert_allclose(H.numpy(), hess_scalar(X0), rtol=1e-10)
    blocks = F.hessian(lambda a, b: (a * a * b).sum(), (t64([1.0, 2.0]), t64([3.0, 4.0])))
    np.testing.assert_allclose(blocks[0][0].numpy(), np.diag([6.0, 8.0]))
    np.testing.assert_allclose(blocks[0][1].numpy(), np.diag([2.0, 4.0]))
    np.testing.assert_allclose(blocks[1][1].numpy(), np.zeros((2, 2)))


def test_vjp_and_jvp():
    v_out, v_in = rng.standard_normal(3), rng.standard_normal(4)
    out, vjp = F.vjp(f, t64(X0), t64(v_out))
    np.testing.assert_allclose(out.numpy(), np.tanh(A @ X0))
    np.testing.assert_allclose(vjp.numpy(), v_out @ jac_f(X0), rtol=1e-12)
    out, jvp = F.jvp(f, t64(X0), t64(v_in))
    np.testing.assert_allclose(jvp.numpy(), jac_f(X0) @ v_in, rtol=1e-12)
    with pytest.raises(RuntimeError, match="v can only be None"):
        F.vjp(f, t64(X0))


def test_hvp_and_vhp():
    v = rng.standard_normal(4)
    value, hv = F.hvp(scalar, t64(X0), t64(v))
    np.testing.assert_allclose(value.item(), (X0 ** 3).sum() + 0.5 * X0 @ A.T @ A @ X0)
    np.testing.assert_allclose(hv.numpy(), hess_scalar(X0) @ v, rtol=1e-10)
    _, vh = F.vhp(scalar, t64(X0), t64(v))
    np.testing.assert_allclose(vh.numpy(), v @ hess_scalar(X0), rtol=1e-10)


def test_create_graph_keeps_results_differentiable():
    x = t64([0.5, 1.5], requires_grad=True)
    J = F.jacobian(lambda a: a ** 3, x, create_graph=True)
    assert J.requires_grad
    J.sum().backward()  # d/dx sum(diag(3x^2)) = 6x
    np.testing.assert_allclose(x.grad.numpy(), 6 * x.detach().numpy())
    x_plain = t64([0.5, 1.5], requires_grad=True)
    J = F.jacobian(lambda a: a ** 3, x_plain)
    assert not J.requires_grad and x_plain.grad is None
