"""``grad_fn._saved_*`` and ``grad_fn._raw_saved_*.register_hooks``: what PyTorch's autograd
tutorials read off a node (the saved inputs and output) and hook into (one saved tensor)."""

import numpy as np
import pytest

import tinygrad_lite as tl


def test_saved_inputs_and_result_are_the_tensors_pytorch_names():
    a = tl.randn(5, requires_grad=True)
    b = tl.randn(5, requires_grad=True)
    square = a.pow(2)
    assert square.grad_fn._saved_self is a and square.grad_fn._saved_exponent == 2
    product = a * b
    assert product.grad_fn._saved_self is a and product.grad_fn._saved_other is b
    constant = tl.randn(5)
    scaled = a * constant  # an input with no gradient is found by position
    assert scaled.grad_fn._saved_other is constant and scaled.grad_fn._saved_self is a
    assert a.sin().grad_fn._saved_self is a
    e = a.exp()
    assert np.array_equal(e.grad_fn._saved_result.detach().numpy(), e.detach().numpy())
    with pytest.raises(AttributeError, match="_saved_nothing"):
        _ = e.grad_fn._saved_nothing
    with pytest.raises(AttributeError):
        _ = e.grad_fn.not_an_attribute
    e.sum().backward()
    with pytest.raises(RuntimeError, match="second time"):
        _ = e.grad_fn._saved_result


def test_raw_saved_tensor_hooks_run_at_pack_and_unpack():
    a = tl.randn(4, requires_grad=True)
    b = tl.randn(4, requires_grad=True)
    events = []

    def pack(t):
        events.append("pack")
        return t * 2  # backward sees what unpack makes of this

    def unpack(t):
        events.append("unpack")
        return t / 2

    product = a * b
    product.grad_fn._raw_saved_self.register_hooks(pack, unpack)
    assert events == ["pack"]
    product.sum().backward()
    assert events == ["pack", "unpack"]
    np.testing.assert_allclose(b.grad.numpy(), a.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(a.grad.numpy(), b.detach().numpy(), rtol=1e-6)
    x = tl.randn(3, requires_grad=True)
    y = x.exp()
    y.grad_fn._raw_saved_result.register_hooks(lambda t: t.detach().numpy(), tl.from_numpy)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy(), rtol=1e-6)


def test_saved_values_match_pytorch():
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(0).standard_normal((2, 3))
    for lib in (tl, torch):
        a = lib.tensor(data, requires_grad=True)
        b = lib.tensor(data * 3, requires_grad=True)
        assert (a * b).grad_fn._saved_self is a
        assert (a * b).grad_fn._saved_other is b
        assert a.pow(3).grad_fn._saved_exponent == 3
        assert a.pow(3).grad_fn._saved_self is a


def test_clamp_nodes_are_named_as_pytorch_names_them():
    x = tl.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    names = [x.clamp_min(0).grad_fn.name(), tl.clamp_min(x, 0).grad_fn.name(),
             x.clamp_max(1).grad_fn.name(), x.clamp(0, 1).grad_fn.name(),
             tl.clamp(x, min=0).grad_fn.name(), x.clip(max=1).grad_fn.name()]
    assert names == ["ClampMinBackward0", "ClampMinBackward0", "ClampMaxBackward0",
                     "ClampBackward1", "ClampBackward1", "ClampBackward1"]
    x.clamp_min(0).sum().backward()  # the same gradient whatever the name
    assert x.grad.tolist() == [0.0, 1.0, 1.0]
