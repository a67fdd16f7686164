"""Convolutions with padding_mode reflect / replicate / circular: the input padded in that mode,
then convolved without padding, as PyTorch does; values, gradients and repr against PyTorch."""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("cls", ["Conv1d", "Conv2d", "Conv3d"])
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("padding,stride,dilation", [(1, 1, 1), (2, 2, 1), ("same", 1, 2),
                                                     ((1, 2, 0), 1, 1), ("valid", 1, 1)])
def test_padding_modes_match_pytorch(cls, mode, padding, stride, dilation):
    nd = int(cls[-2])
    if isinstance(padding, tuple):
        padding = padding[:nd]
    rng = np.random.default_rng(nd)
    x = rng.standard_normal((2, 3) + (7,) * nd)
    ref = getattr(torch.nn, cls)(3, 4, 3, stride=stride, padding=padding, dilation=dilation,
                                 padding_mode=mode).double()
    mine = getattr(tl.nn, cls)(3, 4, 3, stride=stride, padding=padding, dilation=dilation,
                               padding_mode=mode).double()
    mine.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    xt, xr = tl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, want = mine(xt), ref(xr)
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    g = rng.standard_normal(want.shape)
    out.backward(tl.tensor(g))
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(xt.grad.numpy(), xr.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mine.weight.grad.numpy(), ref.weight.grad.numpy(), rtol=1e-10,
                               atol=1e-12)
    assert repr(mine) == repr(ref)


def test_padding_mode_gradcheck_and_refusals():
    conv = tl.nn.Conv2d(2, 2, 3, padding=1, padding_mode="circular").double()
    x = tl.randn(1, 2, 4, 5, dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradcheck(lambda t: conv(t), (x,))
    assert tl.autograd.gradgradcheck(lambda t: conv(t), (x,))
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        tl.nn.Conv2d(1, 1, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported'):
        tl.nn.ConvTranspose2d(1, 1, 3, padding_mode="reflect")
