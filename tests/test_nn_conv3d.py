"""The 3-d convolutions and transposed convolutions and the lazy convolutions against PyTorch
(float64 values, input and weight gradients, reprs), plus float64 gradient checks to second
order."""

import numpy as np
import pytest
from helpers import check_grads, check_second_order

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812
from tests.oracle import compare, rng
from tinygrad_lite import nn

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _copy_params(ours, theirs):
    for name, p in theirs.named_parameters():
        getattr(ours, name).data = tl.tensor(p.detach().numpy().copy())


@pytest.mark.parametrize("kw", [
    dict(), dict(stride=2, padding=1),
    dict(stride=(1, 2, 1), padding=(0, 1, 2), dilation=(2, 1, 1)),
    dict(groups=2, padding="same", dilation=(1, 2, 1)), dict(padding="valid", stride=(2, 1, 3))])
def test_conv3d_matches_torch(kw):
    r = rng(1)
    x, w, b = r.standard_normal((2, 4, 5, 6, 7)), r.standard_normal((6, 4 // kw.get("groups", 1),
                                                                     3, 2, 3)), r.standard_normal(6)
    compare(lambda *t: F.conv3d(*t, **kw), lambda *t: TF.conv3d(*t, **kw), x, w, b)
    compare(lambda *t: F.conv3d(*t, **kw), lambda *t: TF.conv3d(*t, **kw), x[0], w)  # unbatched


@pytest.mark.parametrize("kw", [
    dict(), dict(stride=2, padding=1, output_padding=1),
    dict(stride=(2, 1, 3), padding=(1, 0, 1), output_padding=(1, 0, 2), groups=2),
    dict(stride=2, dilation=(2, 1, 1), output_padding=(1, 0, 1))])
def test_conv_transpose3d_matches_torch(kw):
    r = rng(2)
    x, w, b = r.standard_normal((2, 4, 3, 4, 3)), r.standard_normal((4, 3, 3, 2, 3)), None
    b = r.standard_normal(3 * kw.get("groups", 1))
    compare(lambda *t: F.conv_transpose3d(*t, **kw), lambda *t: TF.conv_transpose3d(*t, **kw),
             x, w, b)
    compare(lambda *t: F.conv_transpose3d(*t, **kw), lambda *t: TF.conv_transpose3d(*t, **kw),
             x[1], w)


@pytest.mark.parametrize("make", [
    lambda m: m.Conv3d(4, 6, (3, 2, 3), stride=(1, 2, 1), padding=1, groups=2),
    lambda m: m.Conv3d(4, 2, 2, bias=False, dilation=2),
    lambda m: m.ConvTranspose3d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
    lambda m: m.ConvTranspose3d(4, 2, (2, 3, 2), bias=False)])
def test_conv3d_modules_match_torch(make):
    ours, theirs = make(nn), make(torch.nn).double()
    assert repr(ours) == repr(theirs)
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape)
    _copy_params(ours, theirs)
    x = rng(3).standard_normal((2, 4, 5, 6, 5))
    got = ours(tl.tensor(x)).detach().numpy()
    np.testing.assert_allclose(got, theirs(torch.tensor(x)).detach().numpy(), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("name,args,shape", [
    ("LazyConv1d", (4, 3), (2, 3, 9)), ("LazyConv2d", (4, 3, 2, 1, 1, 1, False), (2, 6, 7, 8)),
    ("LazyConv3d", (4, 2), (3, 4, 5, 6)), ("LazyConvTranspose1d", (5, 3, 2), (2, 3, 6)),
    ("LazyConvTranspose2d", (4, 3, 2, 1, 1, 2), (2, 4, 5, 4)),
    ("LazyConvTranspose3d", (2, 2), (3, 3, 4, 3))])
def test_lazy_convs_infer_in_channels_like_torch(name, args, shape):
    ours = getattr(nn, name)(*args, dtype=tl.float64)
    theirs = getattr(torch.nn, name)(*args, dtype=torch.float64)
    assert repr(ours) == repr(theirs)
    assert ours.has_uninitialized_params()
    assert len(list(ours.parameters())) == len(list(theirs.parameters()))  # uninitialized
    x = rng(4).standard_normal(shape)
    out = ours(tl.tensor(x))
    ref = theirs(torch.tensor(x))
    assert type(ours).__name__ == type(theirs).__name__ == name[4:]
    assert repr(ours) == repr(theirs) and ours.in_channels == theirs.in_channels
    assert [tuple(p.shape) for p in ours.parameters()] == \
        [tuple(p.shape) for p in theirs.parameters()]
    assert tuple(out.shape) == tuple(ref.shape)
    _copy_params(ours, theirs)
    np.testing.assert_allclose(ours(tl.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-10, atol=1e-12)
    with pytest.raises(RuntimeError, match="Expected"):
        getattr(nn, name)(*args)(tl.randn(*(2,) * (len(shape) + 2)))


def test_lazy_conv_trains_with_an_optimizer_built_first_and_loads_state():
    lazy = nn.LazyConv2d(4, 3)
    opt = tl.optim.SGD(lazy.parameters(), lr=0.1)  # before the first forward, as PyTorch allows
    lazy(tl.randn(2, 3, 6, 6)).sum().backward()
    before = lazy.weight.detach().numpy().copy()
    opt.step()
    assert type(lazy) is nn.Conv2d and (lazy.weight.detach().numpy() != before).any()
    fresh = nn.LazyConv2d(4, 3)
    fresh.load_state_dict(lazy.state_dict())
    x = tl.randn(1, 3, 6, 6)
    np.testing.assert_array_equal(fresh(x).detach().numpy(), lazy(x).detach().numpy())
    assert fresh.in_channels == 3 and type(fresh) is nn.Conv2d


def test_conv3d_gradients_to_second_order():
    r = rng(5)
    x, w = r.standard_normal((1, 2, 3, 4, 3)), r.standard_normal((2, 2, 2, 2, 2))
    check_grads(lambda a, c: F.conv3d(a, c, stride=(1, 2, 1), padding=1), x, w)
    check_second_order(lambda a, c: F.conv3d(a, c, padding=(1, 0, 1)) ** 2, x, w)
    check_grads(lambda a, c: F.conv_transpose3d(a, c, stride=2, output_padding=1), x,
                r.standard_normal((2, 1, 2, 2, 2)))
    check_second_order(lambda a, c: F.conv_transpose3d(a, c, stride=2) ** 2, x,
                       r.standard_normal((2, 1, 2, 2, 2)))
