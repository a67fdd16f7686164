"""``Tensor.data`` as in PyTorch: a detached Tensor sharing memory, outside version counting, and
assignable (``w.data = ...`` swaps the storage)."""

from __future__ import annotations

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite import nn


def test_data_is_a_detached_tensor_sharing_memory():
    w = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    d = w.data
    assert isinstance(d, tl.Tensor) and not isinstance(d, nn.Parameter)
    assert d.requires_grad is False and d.is_leaf and d.grad_fn is None
    assert d.dtype == w.dtype and d.shape == w.shape
    d[0] = 10.0
    np.testing.assert_array_equal(w.detach().numpy(), [10.0, 2.0, 3.0])


def test_parameter_data_is_a_plain_tensor():
    p = nn.Parameter(tl.ones(2, 2))
    assert type(p.data) is tl.Tensor and not p.data.requires_grad


def test_inplace_on_data_is_not_recorded_and_not_versioned():
    w = tl.tensor([1.0, 2.0], requires_grad=True)
    y = (w * w).sum()  # saves w for backward
    version = w._version
    w.data.add_(1.0)  # PyTorch: allowed, invisible to autograd
    assert w._version == version
    assert w.grad_fn is None and w.requires_grad
    y.backward()  # no "modified by an inplace operation" error; uses the new values
    np.testing.assert_allclose(w.grad.numpy(), [4.0, 6.0])


def test_inplace_through_detach_is_versioned():
    """The contrast: ``detach()`` shares the version counter, so autograd catches the write."""
    w = tl.tensor([1.0, 2.0], requires_grad=True)
    y = (w * w).sum()
    w.detach().add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.backward()


def test_data_methods_and_reductions():
    x = tl.tensor([[3.0, 4.0]], requires_grad=True)
    assert x.data.norm().item() == pytest.approx(5.0)
    assert x.data.sum().requires_grad is False
    np.testing.assert_array_equal((x.data * 2).numpy(), [[6.0, 8.0]])


def test_assigning_data_swaps_storage():
    w = tl.tensor([1.0, 2.0], requires_grad=True)
    w.data = w.data * 2
    np.testing.assert_array_equal(w.detach().numpy(), [2.0, 4.0])
    assert w.requires_grad and w.is_leaf
    w.data = tl.zeros(3, 2)  # any shape, as in PyTorch
    assert w.shape == (3, 2)
    (w.sum()).backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.ones((3, 2)))


def test_assigning_data_rejects_non_tensors():
    w = tl.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="has to be a tensor"):
        w.data = np.array([1.0, 2.0])


def test_optimizer_style_update_through_data():
    model = nn.Linear(3, 2)
    before = model.weight.detach().numpy().copy()
    model(tl.ones(4, 3)).sum().backward()
    for p in model.parameters():
        p.data.add_(p.grad.data, alpha=-0.1)
    np.testing.assert_allclose(model.weight.detach().numpy(),
                               before - 0.1 * model.weight.grad.numpy(), rtol=1e-6)


def test_data_matches_torch():
    torch = pytest.importorskip("torch")
    values = np.array([1.0, -2.0, 0.5])
    for lib in (torch, tl):
        w = lib.tensor(values, requires_grad=True)
        y = (w * w).sum()
        w.data.mul_(2)
        y.backward()
        w.data = w.data * 2
        if lib is torch:
            theirs = (w.detach().numpy().copy(), w.grad.numpy().copy(), w.data.requires_grad,
                      w.data.norm().item(), w._version)
        else:
            ours = (w.detach().numpy().copy(), w.grad.numpy().copy(), w.data.requires_grad,
                    w.data.norm().item(), w._version)
    np.testing.assert_allclose(ours[0], theirs[0])
    np.testing.assert_allclose(ours[1], theirs[1])
    assert ours[2] == theirs[2] is False
    assert ours[3] == pytest.approx(theirs[3])
    assert ours[4] == theirs[4]
