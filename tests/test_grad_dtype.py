"""Tensor.grad_dtype: the dtype the engine keeps a leaf's ``.grad`` in, as PyTorch's."""

import numpy as np
import pytest

import tinygrad_lite as tl


def test_default_is_the_tensors_dtype_and_non_leaves_refuse() -> None:
    """Leaves report their dtype; reading or setting it on a non-leaf is a RuntimeError."""
    x = tl.ones(3, requires_grad=True, dtype=tl.float16)
    assert x.grad_dtype == tl.float16
    y = x * 2
    with pytest.raises(RuntimeError, match="only be accessed on leaf tensors"):
        _ = y.grad_dtype
    with pytest.raises(RuntimeError, match="only be set on leaf tensors"):
        y.grad_dtype = tl.float32
    plain = tl.ones(2)
    plain.grad_dtype = "float64"  # any dtype spelling .to() accepts
    assert plain.grad_dtype == tl.float64


def test_incoming_gradients_are_cast_and_accumulate_in_that_dtype() -> None:
    """A float16 leaf with grad_dtype float32 gets float32 gradients that add up in float32."""
    x = tl.full((4,), 1.0, dtype=tl.float16, requires_grad=True)
    x.grad_dtype = tl.float32
    for _ in range(3):
        (x * 1e-4).sum().backward()
    assert x.grad.dtype == tl.float32
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.float32(np.float16(1e-4)), rtol=1e-6)
    x.grad = None
    (x * 3).sum().backward(create_graph=True)
    assert x.grad.dtype == tl.float32


def test_none_keeps_the_gradients_own_dtype() -> None:
    """grad_dtype None: no cast, and any dtype may be assigned to .grad."""
    x = tl.ones(3, requires_grad=True)
    x.grad_dtype = None
    assert x.grad_dtype is None
    x.grad = tl.ones(3, dtype=tl.float64)
    assert x.grad.dtype == tl.float64
    x.grad = None
    (x * 2).sum().backward()  # the multiply's gradient arrives in float32
    assert x.grad.dtype == tl.float32


def test_assigning_a_grad_of_another_dtype_raises() -> None:
    """.grad must match grad_dtype (the tensor's dtype by default)."""
    x = tl.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad_dtype"):
        x.grad = tl.ones(3, dtype=tl.float64)
    x.grad_dtype = tl.float64
    x.grad = tl.ones(3, dtype=tl.float64)
    with pytest.raises(RuntimeError, match="grad_dtype"):
        x.grad = tl.ones(3)


def test_matches_pytorch() -> None:
    """The same dtypes and values as PyTorch for a cast, an accumulation and None."""
    torch = pytest.importorskip("torch")
    for chosen in (tl.float64, None):
        ours = tl.ones(3, requires_grad=True)
        theirs = torch.ones(3, requires_grad=True)
        ours.grad_dtype = chosen
        theirs.grad_dtype = None if chosen is None else torch.float64
        for _ in range(2):
            (ours * 2).sum().backward()
            (theirs * 2).sum().backward()
        assert str(ours.grad.dtype).split(".")[-1] == str(theirs.grad.dtype).split(".")[-1]
        np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())
