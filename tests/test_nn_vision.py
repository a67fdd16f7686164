"""Resampling, rearranging, padding, channel dropout and instance normalisation layers against
PyTorch (values and gradients in float64), plus their module arguments and reprs."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.autograd import gradcheck, gradgradcheck

F = tl.nn.functional
torch = pytest.importorskip("torch")
TF = torch.nn.functional
rng = np.random.default_rng(0)


def compare(ours, theirs, shape, atol=1e-10):
    """Forward values and input gradients (for a random output gradient) agree."""
    x = rng.standard_normal(shape)
    a, b = tl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ya, yb = ours(a), theirs(b)
    assert tuple(ya.shape) == tuple(yb.shape)
    g = rng.standard_normal(tuple(yb.shape))
    (ya * tl.tensor(g)).sum().backward()
    (yb * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), atol=atol)
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=atol)


MODES = [("nearest", (2, 3, 5)), ("nearest", (2, 3, 5, 7)), ("nearest", (1, 2, 3, 4, 5)),
         ("nearest-exact", (2, 3, 5, 7)), ("linear", (2, 3, 5)), ("bilinear", (2, 3, 5, 7)),
         ("bicubic", (2, 3, 5, 7)), ("trilinear", (1, 2, 3, 4, 5)), ("area", (2, 3, 6, 8)),
         ("area", (2, 3, 7))]
RESIZES = [dict(scale_factor=2), dict(scale_factor=0.5), dict(scale_factor=1.7),
           dict(size=9), dict(size=3), dict(size=1),
           dict(scale_factor=1.7, recompute_scale_factor=True)]


@pytest.mark.parametrize("mode,shape", MODES, ids=[f"{m}-{len(s)}d" for m, s in MODES])
@pytest.mark.parametrize("resize", RESIZES, ids=lambda r: "-".join(f"{k}{v}" for k, v in
                                                                    r.items()))
def test_interpolate_matches_pytorch(mode, shape, resize):
    corners = [None] if mode in ("nearest", "nearest-exact", "area") else [False, True]
    for align in corners:
        compare(lambda x, a=align: F.interpolate(x, mode=mode, align_corners=a, **resize),
                lambda x, a=align: TF.interpolate(x, mode=mode, align_corners=a, **resize),
                shape)


def test_interpolate_per_dim_scale_and_size_and_second_order():
    compare(lambda x: F.interpolate(x, scale_factor=(2.5, 1.5), mode="bilinear"),
            lambda x: TF.interpolate(x, scale_factor=(2.5, 1.5), mode="bilinear"), (1, 2, 4, 5))
    compare(lambda x: F.interpolate(x, size=(3, 8), mode="bicubic", align_corners=True),
            lambda x: TF.interpolate(x, size=(3, 8), mode="bicubic", align_corners=True),
            (1, 2, 4, 5))
    x = tl.tensor(rng.standard_normal((1, 1, 3, 4)), requires_grad=True)
    assert gradgradcheck(lambda t: F.interpolate(t, scale_factor=2, mode="bilinear") ** 2, (x,))


def test_interpolate_errors_like_pytorch():
    x = tl.randn(1, 1, 4, 4)
    with pytest.raises(ValueError, match="align_corners option can only be set"):
        F.interpolate(x, scale_factor=2, mode="nearest", align_corners=True)
    with pytest.raises(NotImplementedError, match="linear mode needs 3D input"):
        F.interpolate(x, scale_factor=2, mode="linear")
    with pytest.raises(ValueError, match="size or scale_factor"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="size or scale_factor"):
        F.interpolate(x, size=3, scale_factor=2)


def test_upsample_modules():
    up = tl.nn.Upsample(scale_factor=2, mode="bilinear")
    assert repr(up) == "Upsample(scale_factor=2.0, mode='bilinear')"
    assert repr(tl.nn.Upsample(size=(4, 4))) == repr(torch.nn.Upsample(size=(4, 4)))
    x = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    for ours, theirs in [(up, torch.nn.Upsample(scale_factor=2, mode="bilinear")),
                         (tl.nn.UpsamplingNearest2d(scale_factor=3),
                          torch.nn.UpsamplingNearest2d(scale_factor=3)),
                         (tl.nn.UpsamplingBilinear2d(size=(5, 7)),
                          torch.nn.UpsamplingBilinear2d(size=(5, 7)))]:
        np.testing.assert_allclose(ours(tl.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy(),
                                   atol=1e-6)


@pytest.mark.parametrize("kw", [dict(kernel_size=3),
                                dict(kernel_size=(2, 3), stride=2, padding=1, dilation=(1, 2)),
                                dict(kernel_size=2, stride=2)])
def test_unfold_and_fold_match_pytorch(kw):
    compare(lambda x: F.unfold(x, **kw), lambda x: TF.unfold(x, **kw), (2, 3, 7, 8))
    compare(lambda x: tl.nn.Unfold(**kw)(x), lambda x: torch.nn.Unfold(**kw)(x), (3, 7, 8))
    blocks = tuple(TF.unfold(torch.zeros(2, 3, 7, 8), **kw).shape)
    compare(lambda x: F.fold(x, (7, 8), **kw), lambda x: TF.fold(x, (7, 8), **kw), blocks)
    compare(lambda x: tl.nn.Fold((7, 8), **kw)(x), lambda x: torch.nn.Fold((7, 8), **kw)(x),
            blocks[1:])
    with pytest.raises(RuntimeError, match="fold: expected input of shape"):
        F.fold(tl.randn(2, 5, 4), (7, 8), **kw)


def test_pixel_and_channel_shuffles_match_pytorch():
    compare(lambda x: F.pixel_shuffle(x, 2), lambda x: TF.pixel_shuffle(x, 2), (2, 8, 3, 4))
    compare(lambda x: tl.nn.PixelShuffle(3)(x), lambda x: torch.nn.PixelShuffle(3)(x), (9, 3, 4))
    compare(lambda x: tl.nn.PixelUnshuffle(2)(x), lambda x: torch.nn.PixelUnshuffle(2)(x),
            (2, 3, 4, 6))
    compare(lambda x: tl.nn.ChannelShuffle(3)(x), lambda x: torch.nn.ChannelShuffle(3)(x),
            (2, 6, 3, 4))
    with pytest.raises(RuntimeError, match="divisible by the square of upscale_factor"):
        F.pixel_shuffle(tl.randn(1, 3, 2, 2), 2)


PADS = [("ZeroPad1d", (2, 1), (2, 3, 5)), ("ZeroPad2d", 1, (2, 3, 4, 5)),
        ("ZeroPad3d", (1, 0, 2, 1, 0, 1), (1, 2, 3, 4, 5)), ("ReflectionPad1d", 2, (2, 3, 5)),
        ("ReflectionPad2d", (1, 2, 0, 3), (3, 4, 5)), ("ReflectionPad3d", 1, (1, 2, 3, 4, 5)),
        ("ReplicationPad1d", (3, 1), (2, 3, 5)), ("ReplicationPad2d", 2, (1, 3, 4, 5)),
        ("ReplicationPad3d", 1, (2, 3, 4, 5)), ("CircularPad1d", (2, 1), (2, 3, 5)),
        ("CircularPad2d", 1, (1, 3, 4, 5)), ("CircularPad3d", 1, (1, 2, 3, 4, 5))]


@pytest.mark.parametrize("name,padding,shape", PADS, ids=[p[0] for p in PADS])
def test_padding_layers_match_pytorch(name, padding, shape):
    ours, theirs = getattr(tl.nn, name)(padding), getattr(torch.nn, name)(padding)
    assert repr(ours) == repr(theirs)
    compare(ours, theirs, shape)


def test_constant_pad_layers():
    for nd, shape in ((1, (2, 3, 5)), (2, (2, 3, 4, 5)), (3, (1, 2, 3, 4, 5))):
        ours, theirs = getattr(tl.nn, f"ConstantPad{nd}d"), getattr(torch.nn, f"ConstantPad{nd}d")
        assert repr(ours(2, 3.5)) == repr(theirs(2, 3.5))
        compare(ours(2, 3.5), theirs(2, 3.5), shape)
    with pytest.raises(ValueError, match="expected 3D or 4D input"):
        tl.nn.ReflectionPad2d(1)(tl.randn(4, 5))


@pytest.mark.parametrize("cls,shape,lead", [
    ("Dropout1d", (4, 6, 5), 2), ("Dropout1d", (6, 5), 1), ("Dropout2d", (4, 6, 3, 5), 2),
    ("Dropout2d", (6, 3, 5), 2), ("Dropout3d", (2, 6, 2, 3, 4), 2)])
def test_channel_dropout_zeroes_whole_channels(cls, shape, lead):
    tl.manual_seed(0)
    layer = getattr(tl.nn, cls)(p=0.5)
    assert repr(layer) == repr(getattr(torch.nn, cls)(p=0.5))
    seen = set()
    for _ in range(8):  # (a few channels: one draw may keep them all)
        with warnings.catch_warnings():  # 3-D input to Dropout2d: read as (N, C, L), warned
            warnings.simplefilter("ignore")
            out = layer(tl.ones(*shape)).numpy()
        per_channel = out.reshape(int(np.prod(shape[:lead])), -1)  # a row per (sample, channel)
        assert all(len(set(row)) == 1 for row in per_channel)  # kept or dropped as a whole
        seen |= set(np.unique(per_channel).tolist())
    assert seen == {0.0, 2.0}
    layer.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.array_equal(layer(tl.ones(*shape)).numpy(), np.ones(shape))


def test_alpha_dropout_keeps_selu_statistics():
    tl.manual_seed(0)
    x = tl.randn(200_000)
    out = tl.nn.AlphaDropout(0.2).train()(tl.nn.functional.selu(x)).numpy()
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1.0) < 0.02
    feature = tl.nn.FeatureAlphaDropout(0.5)(tl.randn(8, 16, 4)).numpy()
    assert all(len(np.unique(row)) in (1, 4) for row in feature.reshape(128, 4))
    assert np.array_equal(tl.nn.AlphaDropout(0.2).eval()(x).numpy(), x.numpy())


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_instance_norm_layers_match_pytorch(nd):
    shape = (3, 4) + (5, 4, 3)[:nd]
    for kwargs in (dict(), dict(affine=True), dict(affine=True, track_running_stats=True)):
        ours = getattr(tl.nn, f"InstanceNorm{nd}d")(4, **kwargs).double()
        theirs = getattr(torch.nn, f"InstanceNorm{nd}d")(4, **kwargs).double()
        assert repr(ours) == repr(theirs)
        if kwargs.get("affine"):
            ours.weight.data = tl.tensor(rng.standard_normal(4))
            theirs.weight.data = torch.tensor(ours.weight.data.numpy())
        compare(ours, theirs, shape)
        if kwargs.get("track_running_stats"):
            np.testing.assert_allclose(ours.running_var.numpy(), theirs.running_var.numpy())
            ours.eval(), theirs.eval()
            compare(ours, theirs, shape)
    compare(lambda x: getattr(tl.nn, f"InstanceNorm{nd}d")(4)(x),
            lambda x: getattr(torch.nn, f"InstanceNorm{nd}d")(4)(x), shape[1:])  # unbatched


def test_local_response_norm_and_batchnorm3d_match_pytorch():
    compare(tl.nn.LocalResponseNorm(3), torch.nn.LocalResponseNorm(3), (2, 5, 4, 3))
    compare(tl.nn.LocalResponseNorm(4, 0.1, 0.5, 2.0),
            torch.nn.LocalResponseNorm(4, 0.1, 0.5, 2.0), (2, 6, 7))
    compare(tl.nn.BatchNorm3d(3).double(), torch.nn.BatchNorm3d(3).double(), (2, 3, 2, 3, 4))
    with pytest.raises(ValueError, match="expected 5D input"):
        tl.nn.BatchNorm3d(3)(tl.randn(2, 3, 4, 4))


def test_resampling_gradients_are_exact():
    x = tl.tensor(rng.standard_normal((1, 2, 3, 3)), requires_grad=True)
    assert gradcheck(lambda t: F.interpolate(t, size=(4, 5), mode="bicubic"), (x,))
    assert gradcheck(lambda t: F.fold(F.unfold(t, 2), (3, 3), 2), (x,))
    assert gradcheck(lambda t: F.local_response_norm(t, 2), (x,))
