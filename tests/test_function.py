"""Custom differentiable ops: tl.autograd.Function and its ctx."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.autograd.function import once_differentiable


def f64(values, requires_grad=True):
    return tl.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


class MyExp(tl.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)  # saves its own output
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


class MulScaledSplit(tl.autograd.Function):
    """Two tensor inputs, a float argument; returns (a*b*scale, a+b) and a non-diff mask."""

    @staticmethod
    def forward(ctx, a, b, scale):
        ctx.save_for_backward(a, b)
        ctx.scale = scale
        mask = a > b
        ctx.mark_non_differentiable(mask)
        return a * b * scale, a + b, mask

    @staticmethod
    def backward(ctx, g_prod, g_sum, g_mask):
        a, b = ctx.saved_tensors
        ctx.seen = (ctx.needs_input_grad, g_mask.tolist())
        ga = g_prod * b * ctx.scale + g_sum if ctx.needs_input_grad[0] else None
        gb = g_prod * a * ctx.scale + g_sum if ctx.needs_input_grad[1] else None
        return ga, gb, None


def test_grad_fn_is_named_after_the_function():
    x = f64([0.5, 1.0])
    y = MyExp.apply(x)
    assert y.grad_fn.name() == "MyExpBackward" and "MyExpBackward" in repr(y.grad_fn)
    (acc, _), = y.grad_fn.next_functions
    assert acc.variable is x
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.5, 1.0]))


def test_two_inputs_two_outputs_non_diff_output_and_non_tensor_arg():
    a, b = f64([1.0, 4.0]), f64([2.0, 3.0])
    prod, total, mask = MulScaledSplit.apply(a, b, 3.0)
    assert mask.tolist() == [False, True] and not mask.requires_grad
    assert prod._output_nr == 0 and total._output_nr == 1 and prod.grad_fn is total.grad_fn
    assert prod.grad_fn.n_outputs == 3
    (prod.sum() * 2 + total.sum()).backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * 3.0 * b.detach().numpy() + 1)
    np.testing.assert_allclose(b.grad.numpy(), 2 * 3.0 * a.detach().numpy() + 1)
    needs, g_mask = prod.grad_fn.seen
    assert needs == (True, True, False) and g_mask == [0.0, 0.0]  # materialized zeros


def test_needs_input_grad_honoured():
    a, b = f64([1.0, 2.0]), f64([3.0, 4.0], requires_grad=False)
    prod, _, _ = MulScaledSplit.apply(a, b, 1.0)
    prod.sum().backward()
    assert prod.grad_fn.seen[0] == (True, False, False)
    assert b.grad is None and a.grad.tolist() == [3.0, 4.0]


def test_only_one_output_used_gets_zero_or_none_for_the_other():
    class Two(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x, materialize):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            ctx.got = g2
            return (g1 * 2 if g1 is not None else 0) + (g2 * 3 if g2 is not None else 0), None

    for materialize in (True, False):
        x = f64([1.0, 2.0])
        y1, _ = Two.apply(x, materialize)
        y1.sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]
        got = y1.grad_fn.got
        assert (got.tolist() == [0.0, 0.0]) if materialize else got is None


def test_no_graph_when_nothing_requires_grad_or_under_no_grad():
    y = MyExp.apply(f64([1.0], requires_grad=False))
    assert y.grad_fn is None and not y.requires_grad
    with tl.no_grad():
        y = MyExp.apply(f64([1.0]))
    assert y.grad_fn is None


def test_double_backward_through_custom_op():
    x = f64([0.3, -1.2])
    (g,) = tl.autograd.grad(MyExp.apply(x * x).sum(), x, create_graph=True)
    xs = x.detach().numpy()
    np.testing.assert_allclose(g.detach().numpy(), 2 * xs * np.exp(xs**2))
    (h,) = tl.autograd.grad(g.sum(), x)
    expected = (2 + 4 * x.detach().numpy() ** 2) * np.exp(x.detach().numpy() ** 2)
    np.testing.assert_allclose(h.numpy(), expected)
    assert tl.autograd.gradgradcheck(MyExp.apply, (f64([0.1, 0.7]),))


def test_once_differentiable_raises_on_second_differentiation():
    class NumpyExp(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return tl.tensor(np.exp(x.detach().numpy()))

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return tl.tensor(grad.detach().numpy() * np.exp(x.detach().numpy()))

    x = f64([0.5, 1.0])
    y = NumpyExp.apply(x)
    y.sum().backward(retain_graph=True)  # first order works
    np.testing.assert_allclose(x.grad.numpy(), np.exp(x.detach().numpy()))
    (g,) = tl.autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), np.exp(x.detach().numpy()))
    with pytest.raises(
        RuntimeError,
        match=r"differentiate twice.*once_differentiable.*"
        r"NumpyExp\.backward",
    ):
        g.sum().backward()


def test_wrong_number_of_gradients_names_the_function():
    class TooFew(tl.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, grad):
            return grad

    y = TooFew.apply(f64([1.0]), f64([2.0]))
    with pytest.raises(
        RuntimeError,
        match=r"function TooFewBackward returned an incorrect number of "
        r"gradients \(expected 2, got 1\)",
    ):
        y.sum().backward()


def test_wrong_gradient_shape_names_function_and_input_index():
    class BadShape(tl.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, grad):
            return grad, grad.sum()

    y = BadShape.apply(f64([1.0, 2.0]), f64([3.0, 4.0]))
    with pytest.raises(
        RuntimeError,
        match=r"Function BadShapeBackward returned an invalid gradient at "
        r"index 1 - got \[\] but expected shape compatible with \[2\]",
    ):
        y.sum().backward()


def test_gradient_for_non_tensor_argument_is_an_error():
    class Scale(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, grad):
            return grad * 2, grad

    with pytest.raises(RuntimeError, match=r"Scale\.backward.*position 1.*not a Tensor"):
        Scale.apply(f64([1.0]), 2.0).sum().backward()


def test_saved_tensor_modified_in_place_is_detected():
    class Square(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    x = f64([1.0, 2.0])
    h = x * 1.0
    y = Square.apply(h)
    h._version_counter[0] += 1  # what an in-place op does
    with pytest.raises(
        RuntimeError,
        match=r"SquareBackward: one of the tensors it saved.*"
        r"version 0 when saved and is now at version 1",
    ):
        y.sum().backward()


def test_mark_dirty_rebases_the_modified_input():
    class AddOneInplace(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.data += 1
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    leaf = f64([1.0, 2.0])
    h = leaf * 2
    version = h._version
    out = AddOneInplace.apply(h)
    assert out is h and h.grad_fn.name() == "AddOneInplaceBackward" and h._version == version + 1
    assert h.tolist() == [3.0, 5.0]
    (h * h).sum().backward()
    assert leaf.grad.tolist() == [2 * 2 * 3.0, 2 * 2 * 5.0]
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        AddOneInplace.apply(f64([1.0]))


def test_setup_context_style():
    class Cube(tl.autograd.Function):
        @staticmethod
        def forward(x):
            return x**3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x * x * grad

    x = f64([2.0])
    Cube.apply(x).sum().backward()
    assert x.grad.tolist() == [12.0]


def test_custom_graph_released_after_backward():
    x = f64([1.0])
    y = MyExp.apply(x).sum()
    y.backward()
    with pytest.raises(
        RuntimeError,
        match=r"MyExpBackward: trying to backward through the graph "
        r"a second time.*detect_anomaly",
    ):
        y.backward()
