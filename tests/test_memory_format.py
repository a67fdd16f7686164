"""``channels_last`` as PyTorch lays it out: NHWC memory behind an NCHW tensor, through
``to``/``contiguous``/``clone``/``empty``/``Module.to``, kept by elementwise ops and
convolution; values and gradients never depend on the layout."""

import numpy as np
import pytest

import tinygrad_lite as tl


def test_channels_last_strides_and_contiguity():
    x = tl.randn(2, 3, 4, 5, requires_grad=True)
    y = x.to(memory_format=tl.channels_last)
    assert y.stride() == (60, 1, 15, 3)
    assert not y.is_contiguous() and y.is_contiguous(memory_format=tl.channels_last)
    assert np.array_equal(y.detach().numpy(), x.detach().numpy())
    assert (y * 2).relu().stride() == (60, 1, 15, 3)  # elementwise ops keep the layout
    assert y.clone().stride() == (60, 1, 15, 3)  # preserve_format
    assert y.contiguous().stride() == (60, 20, 5, 1)
    assert y.contiguous(memory_format=tl.channels_last) is y
    assert x.contiguous(memory_format=tl.channels_last).stride() == (60, 1, 15, 3)
    assert tl.empty(2, 3, 4, 5, memory_format=tl.channels_last).stride() == (60, 1, 15, 3)
    assert tl.randn(2, 3, 4, 5, 6).to(memory_format=tl.channels_last_3d).stride() == \
        (360, 1, 90, 18, 3)
    y.sum().backward()
    assert np.array_equal(x.grad.numpy(), np.ones((2, 3, 4, 5)))
    with pytest.raises(RuntimeError, match="rank 4"):
        tl.randn(2, 3).to(memory_format=tl.channels_last)
    with pytest.raises(RuntimeError, match="preserve"):
        y.contiguous(memory_format=tl.preserve_format)  # (a contiguous x returns itself)


def test_channels_last_model_gives_the_same_results():
    tl.manual_seed(0)
    model = tl.nn.Sequential(tl.nn.Conv2d(3, 4, 3, padding=1), tl.nn.BatchNorm2d(4),
                             tl.nn.ReLU(), tl.nn.Conv2d(4, 2, 3, stride=2))
    x = tl.randn(2, 3, 8, 8)
    expected = model(x)
    expected.sum().backward()
    grads = [p.grad.numpy().copy() for p in model.parameters()]
    model.zero_grad()
    model.to(memory_format=tl.channels_last)
    assert model[0].weight.is_contiguous(memory_format=tl.channels_last)
    out = model(x.to(memory_format=tl.channels_last))
    assert out.is_contiguous(memory_format=tl.channels_last)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    out.sum().backward()
    for p, g in zip(model.parameters(), grads):
        np.testing.assert_allclose(p.grad.numpy(), g, rtol=1e-4, atol=1e-5)


def test_strides_match_pytorch():
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)
    for make in (lambda lib, t: t.to(memory_format=lib.channels_last),
                 lambda lib, t: t.contiguous(memory_format=lib.channels_last).clone(),
                 lambda lib, t: t.to(memory_format=lib.channels_last).contiguous(),
                 lambda lib, t: t.to(memory_format=lib.channels_last) + 1,
                 lambda lib, t: lib.nn.functional.conv2d(
                     t.to(memory_format=lib.channels_last), lib.ones(4, 3, 3, 3))):
        ours = make(tl, tl.tensor(data))
        theirs = make(torch, torch.tensor(data))
        assert ours.stride() == theirs.stride()
        assert ours.is_contiguous() == theirs.is_contiguous()
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)
