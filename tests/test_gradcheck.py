"""gradcheck and gradgradcheck."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.autograd import GradcheckError, gradcheck, gradgradcheck


def f64(values):
    return tl.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


class GoodMul(tl.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * a


class WrongMul(tl.autograd.Function):
    """Deliberately wrong: the gradient for b is off by one at every element."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * (a + 1)


def test_gradcheck_passes_on_correct_ops():
    rng = np.random.default_rng(0)
    a, b = f64(rng.standard_normal((2, 3))), f64(rng.standard_normal((2, 3)))
    assert gradcheck(GoodMul.apply, (a, b))
    assert gradcheck(lambda x, y: (x.tanh() * y).sum(1), (a, b), eps=1e-6, atol=1e-5)
    assert gradgradcheck(GoodMul.apply, (a, b))
    assert gradgradcheck(lambda x: (x ** 3).sin(), (a,))


def test_gradcheck_failure_message_names_input_element_values_and_function():
    a, b = f64([[1.0, 2.0], [3.0, 4.0]]), f64([[0.5, -1.0], [2.0, 0.25]])
    with pytest.raises(GradcheckError) as info:
        gradcheck(WrongMul.apply, (a, b))
    message = str(info.value)
    assert "with respect to input 1 of WrongMul.apply (grad_fn WrongMulBackward)" in message
    # d out[i] / d b[i] = a[i] numerically, a[i] + 1 analytically; worst is any element (all
    # differ by exactly 1): the first one, where numeric is 1 and analytic 2
    assert "worst element at input index (0, 0), output index (0, 0)" in message
    assert "analytic 2, numeric 1 (|difference| 1 > atol 1e-05" in message
    assert gradcheck(WrongMul.apply, (a, b), raise_exception=False) is False


def test_gradcheck_ignores_inputs_without_grad_and_non_tensors():
    a = f64([1.0, 2.0])
    k = tl.tensor([3.0, 4.0], dtype=tl.float64)
    assert gradcheck(lambda x, y, s: x * y * s, (a, k, 2.0))


def test_gradgradcheck_detects_wrong_second_derivative():
    class BadSquare(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x.detach() + 0 * x  # right value, wrong derivative (drops 2)

    x = f64([1.0, -2.0])
    assert gradcheck(BadSquare.apply, (x,))
    with pytest.raises(GradcheckError, match=r"the gradient of BadSquare\.apply"):
        gradgradcheck(BadSquare.apply, (x,))


def test_gradcheck_warns_for_float32():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="not float64"):
        gradcheck(lambda t: t * 2, (x,), eps=1e-2, atol=1e-2)
