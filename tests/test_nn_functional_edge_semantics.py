"""Edge semantics of ``nn.functional`` losses, resampling and padding against PyTorch: the
argument checks PyTorch makes (types and messages), its warnings, antialiased and 3-D area
interpolation, the gradients of masked terms, and dtype rules of the losses."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
from tests.oracle import compare, same_error

torch = pytest.importorskip("torch")
R = np.random.default_rng(11)
X = R.standard_normal((4, 5))
Y = R.standard_normal((4, 5))
Z = R.standard_normal((4, 5))
IMG = R.standard_normal((2, 3, 9, 11))


def _both(fn):
    return fn(tl), fn(torch)


# -- losses ---------------------------------------------------------------------------------

@pytest.mark.parametrize("smoothing", [-0.2, 0.0])
def test_cross_entropy_negative_label_smoothing_smooths_nothing(smoothing):
    t = np.array([0, 3, 1, 4])
    compare(lambda x: tl.nn.functional.cross_entropy(x, tl.tensor(t), label_smoothing=smoothing),
            lambda x: torch.nn.functional.cross_entropy(x, torch.tensor(t),
                                                        label_smoothing=smoothing), X)


def test_cross_entropy_label_smoothing_above_one_is_a_runtime_error():
    t = np.array([0, 3, 1, 4])
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0"):
            lib.nn.functional.cross_entropy(lib.tensor(X), lib.tensor(t), label_smoothing=1.5)


@pytest.mark.parametrize("op", ["cross_entropy", "nll_loss"])
def test_class_weight_of_another_dtype_is_an_error(op):
    t = np.array([0, 3, 1, 4])
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
            getattr(lib.nn.functional, op)(lib.tensor(X), lib.tensor(t),
                                           weight=lib.ones(5, dtype=lib.float32))


def test_huber_delta_and_smooth_l1_beta_are_checked():
    for lib in (tl, torch):
        x, y = lib.tensor(X), lib.tensor(Y)
        for delta in (0.0, -1.0):
            with pytest.raises(RuntimeError, match="huber_loss does not support non-positive"):
                lib.nn.functional.huber_loss(x, y, delta=delta)
        with pytest.raises(RuntimeError, match="huber_loss does not support non-positive"):
            lib.nn.HuberLoss(delta=0.0)(x, y)
        with pytest.raises(RuntimeError, match="smooth_l1_loss does not support negative"):
            lib.nn.functional.smooth_l1_loss(x, y, beta=-0.5)
    # beta = 0 is allowed: the L1 loss
    compare(lambda a, b: tl.nn.functional.smooth_l1_loss(a, b, beta=0.0),
            lambda a, b: torch.nn.functional.smooth_l1_loss(a, b, beta=0.0), X, Y)


def test_kl_div_mean_warns_as_pytorch_but_not_batchmean_or_legacy_flags():
    x, t = np.log(np.full((2, 3), 1 / 3)), np.full((2, 3), 1 / 3)
    for lib in (tl, torch):
        with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
            lib.nn.functional.kl_div(lib.tensor(x), lib.tensor(t), reduction="mean")
        with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
            lib.nn.KLDivLoss()(lib.tensor(x), lib.tensor(t))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            lib.nn.functional.kl_div(lib.tensor(x), lib.tensor(t), reduction="batchmean")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.kl_div(lib.tensor(x), lib.tensor(t), size_average=True)
        assert not any("batchmean" in str(w.message) for w in caught)


def test_poisson_nll_full_target_gradient_is_pytorchs_nan_at_zero():
    x = R.standard_normal(6)
    t = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 7.0])
    for log in (True, False):
        xi = x if log else np.abs(x) + 0.1
        compare(lambda a, b, log=log: tl.nn.functional.poisson_nll_loss(
                    a, b, log_input=log, full=True, reduction="sum"),
                lambda a, b, log=log: torch.nn.functional.poisson_nll_loss(
                    a, b, log_input=log, full=True, reduction="sum"),
                xi, t, rtol=1e-9)


def test_poisson_nll_invalid_reduction_is_a_value_error():
    same_error(lambda: tl.nn.functional.poisson_nll_loss(tl.tensor(X), tl.tensor(Y), reduction="x"),
               lambda: torch.nn.functional.poisson_nll_loss(torch.tensor(X), torch.tensor(Y),
                                                            reduction="x"))


@pytest.mark.parametrize("var_shape", [(1, 5), (4, 1), (4,), (4, 5)])
def test_gaussian_nll_var_broadcasting_follows_pytorch(var_shape):
    v = np.abs(R.standard_normal(var_shape)) + 0.1
    compare(lambda a, b, c: tl.nn.functional.gaussian_nll_loss(a, b, c, full=True),
            lambda a, b, c: torch.nn.functional.gaussian_nll_loss(a, b, c, full=True), X, Y, v)


def test_gaussian_nll_float_var_keeps_the_input_dtype_and_is_checked():
    out = compare(lambda a, b: tl.nn.functional.gaussian_nll_loss(a, b, 0.3, reduction="none"),
                  lambda a, b: torch.nn.functional.gaussian_nll_loss(a, b, 0.3, reduction="none"),
                  X, Y, rtol=1e-12)
    assert out.dtype == tl.float64
    for lib in (tl, torch):
        with pytest.raises(ValueError, match="var has negative entry"):
            lib.nn.functional.gaussian_nll_loss(lib.tensor(X), lib.tensor(Y), -1.0)
        with pytest.raises(ValueError, match="var is of incorrect size"):
            lib.nn.functional.gaussian_nll_loss(lib.tensor(X), lib.tensor(Y), lib.ones(1, 1))


def test_binary_cross_entropy_target_of_another_dtype_is_an_error():
    p = 1 / (1 + np.exp(-X))
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
            lib.nn.functional.binary_cross_entropy(lib.tensor(p, dtype=lib.float32),
                                                   lib.tensor(p))


@pytest.mark.parametrize("loss", ["mse_loss", "binary_cross_entropy",
                                  "binary_cross_entropy_with_logits", "smooth_l1_loss"])
def test_mean_of_an_empty_batch_is_nan_without_a_warning(loss):
    x = tl.zeros(0, 3, dtype=tl.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = getattr(tl.nn.functional, loss)(x, tl.zeros(0, 3, dtype=tl.float64))
    assert np.isnan(out.item())
    out.backward()
    assert x.grad.shape == (0, 3)


@pytest.mark.parametrize("margin", [0.0, -1.0])
def test_triplet_margin_must_be_positive(margin):
    a = np.ones((2, 3))
    for lib in (tl, torch):
        t = lib.tensor(a)
        with pytest.raises(ValueError, match="margin must be greater than 0"):
            lib.nn.functional.triplet_margin_loss(t, t, t, margin=margin)
        with pytest.raises(ValueError, match="margin must be greater than 0"):
            lib.nn.functional.triplet_margin_with_distance_loss(t, t, t, margin=margin)
        with pytest.raises(ValueError, match="TripletMarginLoss: expected margin"):
            lib.nn.TripletMarginLoss(margin=margin)
        with pytest.raises(ValueError, match="TripletMarginWithDistanceLoss: expected margin"):
            lib.nn.TripletMarginWithDistanceLoss(margin=margin)


def test_triplet_inputs_of_different_ranks_are_an_error():
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="anchor 2D, positive 1D, and negative 2D"):
            lib.nn.functional.triplet_margin_loss(lib.tensor(X), lib.tensor(Y[0]), lib.tensor(Z))


def test_cosine_embedding_multi_target_is_an_error():
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="0D or 1D target tensor expected"):
            lib.nn.functional.cosine_embedding_loss(lib.tensor(X), lib.tensor(Y), lib.ones(4, 1))


def test_multi_margin_weight_checks():
    t = np.array([0, 1, 2, 3])
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="inconsistent weight size, expected 5 but got"):
            lib.nn.functional.multi_margin_loss(lib.tensor(X), lib.tensor(t), weight=lib.ones(3))
        with pytest.raises(ValueError, match="weight must be one-dimensional"):
            lib.nn.functional.multi_margin_loss(lib.tensor(X), lib.tensor(t),
                                                weight=lib.ones(1, 5))


@pytest.mark.parametrize("shape", [(2, 2, 5), (0,), (3, 0)])
def test_multi_class_margin_losses_take_vectors_or_matrices(shape):
    for lib in (tl, torch):
        x, t = lib.zeros(shape), lib.zeros(shape, dtype=lib.int64)
        with pytest.raises(RuntimeError, match="Expected non-empty vector or matrix"):
            lib.nn.functional.multilabel_margin_loss(x, t)
        with pytest.raises(RuntimeError, match="Expected non-empty vector or matrix"):
            lib.nn.functional.multi_margin_loss(x, t.reshape(-1)[:1])


def test_multi_class_margin_losses_of_a_scalar():
    compare(lambda x: tl.nn.functional.multilabel_margin_loss(x, tl.tensor(0)),
            lambda x: torch.nn.functional.multilabel_margin_loss(x, torch.tensor(0)),
            np.array(0.3))
    compare(lambda x: tl.nn.functional.multi_margin_loss(x, tl.tensor(0)),
            lambda x: torch.nn.functional.multi_margin_loss(x, torch.tensor(0)), np.array(0.3))


# -- interpolate ----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(4, 5), (2, 11), (1, 3), (9, 11), (14, 20)])
def test_interpolate_antialias(mode, align_corners, size):
    compare(lambda x: tl.nn.functional.interpolate(x, size=size, mode=mode, antialias=True,
                                                   align_corners=align_corners),
            lambda x: torch.nn.functional.interpolate(x, size=size, mode=mode, antialias=True,
                                                      align_corners=align_corners), IMG)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("scale", [0.3, (0.5, 0.25), 1.7])
@pytest.mark.parametrize("recompute", [None, True])
def test_interpolate_antialias_scale_factor(mode, scale, recompute):
    kw = dict(scale_factor=scale, mode=mode, antialias=True, recompute_scale_factor=recompute)
    compare(lambda x: tl.nn.functional.interpolate(x, **kw),
            lambda x: torch.nn.functional.interpolate(x, **kw), IMG)


def test_interpolate_antialias_second_order_and_float32():
    x = tl.tensor(IMG, requires_grad=True)
    xt = torch.tensor(IMG, requires_grad=True)
    grads = []
    for lib, t in ((tl, x), (torch, xt)):
        out = lib.nn.functional.interpolate(t, size=(4, 3), mode="bicubic", antialias=True)
        (g,) = lib.autograd.grad((out * out).sum(), t, create_graph=True)
        (g2,) = lib.autograd.grad((g * g).sum(), t)
        grads.append(g2.detach().numpy())
    np.testing.assert_allclose(*grads, rtol=1e-9, atol=1e-12)
    out = tl.nn.functional.interpolate(tl.tensor(IMG, dtype=tl.float32), size=(4, 3),
                                       mode="bilinear", antialias=True)
    ref = torch.nn.functional.interpolate(torch.tensor(IMG, dtype=torch.float32), size=(4, 3),
                                          mode="bilinear", antialias=True)
    assert out.dtype == tl.float32
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode,ndim", [("nearest", 4), ("linear", 3), ("trilinear", 5)])
def test_interpolate_antialias_other_modes_is_a_value_error(mode, ndim):
    x = np.zeros((1, 1) + (4,) * (ndim - 2))
    for lib in (tl, torch):
        with pytest.raises(ValueError, match="Anti-alias option is restricted"):
            lib.nn.functional.interpolate(lib.tensor(x), scale_factor=0.5, mode=mode,
                                          antialias=True)


@pytest.mark.parametrize("kw", [dict(size=(2, 3, 5)), dict(size=(7, 9, 4)),
                                dict(scale_factor=(0.5, 1.5, 2.0))])
def test_interpolate_area_3d(kw):
    x = R.standard_normal((2, 2, 4, 6, 3))
    compare(lambda t: tl.nn.functional.interpolate(t, mode="area", **kw),
            lambda t: torch.nn.functional.interpolate(t, mode="area", **kw), x)


def test_interpolate_argument_checks():
    x = np.zeros((1, 2, 5))
    same_error(lambda: tl.nn.functional.interpolate(tl.tensor(x), size=3,
                                                    recompute_scale_factor=True),
               lambda: torch.nn.functional.interpolate(torch.tensor(x), size=3,
                                                       recompute_scale_factor=True))
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match=r"greater than 0, but got input \(W: 0\)"):
            lib.nn.functional.interpolate(lib.zeros(1, 2, 0), size=3, mode="linear")


# -- pad ------------------------------------------------------------------------------------

def test_pad_elements_must_be_ints():
    x = np.zeros((2, 3, 4))
    for bad in [(1.0, 1), (True, 1)]:
        for lib in (tl, torch):
            with pytest.raises(TypeError, match="must be tuple of ints"):
                lib.nn.functional.pad(lib.tensor(x), bad)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_non_constant_mode_rejects_a_value(mode):
    x = np.ones((1, 2, 4))
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match=f'Padding mode "{mode}" doesn\'t take in value'):
            lib.nn.functional.pad(lib.tensor(x), (1, 1), mode=mode, value=2.0)
    out = compare(lambda t: tl.nn.functional.pad(t, (1, 2), mode=mode, value=0.0),
                  lambda t: torch.nn.functional.pad(t, (1, 2), mode=mode, value=0.0), x)
    assert tuple(out.shape) == (1, 2, 7)


@pytest.mark.parametrize("mode,pads", [("constant", (-5, 0)), ("constant", (1, 1, -3, -1)),
                                       ("replicate", (-5, 1)), ("reflect", (-3, -1)),
                                       ("replicate", (-4, 0))])
def test_pad_cropping_past_empty_is_an_error(mode, pads):
    x = np.zeros((2, 3, 4))
    same_error(lambda: tl.nn.functional.pad(tl.tensor(x), pads, mode=mode),
               lambda: torch.nn.functional.pad(torch.tensor(x), pads, mode=mode))


@pytest.mark.parametrize("shape", [(2, 3, 0), (2, 0, 3)])
@pytest.mark.parametrize("mode", ["replicate", "reflect"])
def test_pad_replicate_reflect_of_empty_dims_is_an_error(shape, mode):
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="possibly 0 batch size and other non-zero"):
            lib.nn.functional.pad(lib.zeros(shape), (1, 1), mode=mode)
    out = tl.nn.functional.pad(tl.zeros(0, 2, 3), (1, 1), mode=mode)  # an empty batch is fine
    assert tuple(out.shape) == (0, 2, 5)


# -- one_hot, cdist, affine_grid ------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int32", "uint8", "int16"])
def test_one_hot_takes_int64_only(dtype):
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="only applicable to index tensor of type Long"):
            lib.nn.functional.one_hot(lib.tensor([0, 1], dtype=getattr(lib, dtype)), 3)


def test_one_hot_of_an_empty_tensor():
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="Can not infer total number of classes"):
            lib.nn.functional.one_hot(lib.zeros(0, dtype=lib.int64))
    ours, theirs = _both(lambda lib: lib.nn.functional.one_hot(lib.zeros(0, dtype=lib.int64), 3))
    assert tuple(ours.shape) == tuple(theirs.shape) == (0, 3) and ours.dtype == tl.int64


def test_cdist_checks_rank_and_dtype():
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="at least 2D tensors, X1 got: 1D"):
            lib.cdist(lib.ones(4), lib.ones(3, 4))
        with pytest.raises(RuntimeError, match="at least 2D tensors, X2 got: 1D"):
            lib.cdist(lib.ones(3, 4), lib.ones(4))
        with pytest.raises(RuntimeError, match="floating-point dtypes, X1 got: Long"):
            lib.cdist(lib.ones(3, 4, dtype=lib.int64), lib.ones(2, 4, dtype=lib.int64))


def test_affine_grid_batch_mismatch_is_a_runtime_error():
    theta = np.zeros((2, 2, 3))
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="first two dimensions of batch2"):
            lib.nn.functional.affine_grid(lib.tensor(theta), (3, 1, 4, 5), align_corners=False)


@pytest.mark.parametrize("mode,antialias,align_corners", [
    ("bilinear", False, None), ("bilinear", False, True), ("bilinear", True, None),
    ("bicubic", False, None), ("bicubic", False, True), ("bicubic", True, None)])
@pytest.mark.parametrize("resize", [{"size": (5, 7)}, {"size": (20, 3)}, {"scale_factor": 1.7},
                                    {"scale_factor": (0.5, 2.0)}])
def test_interpolate_resizes_uint8_images_as_pytorch(mode, antialias, align_corners, resize):
    """uint8 images (torchvision's resize) go through PyTorch's fixed-point kernel: bilinear and
    antialiased bicubic give its bytes exactly, plain bicubic within 1 (the weights' last bit).
    They were mostly zeros: the float weights had been cast to uint8."""
    image = np.random.default_rng(1).integers(0, 256, (2, 3, 17, 9)).astype(np.uint8)
    theirs = torch.nn.functional.interpolate(torch.tensor(image), mode=mode, antialias=antialias,
                                             align_corners=align_corners, **resize).numpy()
    ours = tl.nn.functional.interpolate(tl.tensor(image), mode=mode, antialias=antialias,
                                        align_corners=align_corners, **resize)
    assert ours.dtype == tl.uint8 and tuple(ours.shape) == theirs.shape
    gap = np.abs(ours.numpy().astype(int) - theirs.astype(int))
    assert gap.max() <= (1 if mode == "bicubic" and not antialias else 0)


@pytest.mark.parametrize("dtype,mode", [("int32", "bilinear"), ("uint8", "linear"),
                                        ("int64", "bicubic"), ("uint8", "area")])
def test_interpolate_refuses_integer_input_it_cannot_resample(dtype, mode):
    shape = (1, 2, 6) if mode == "linear" else (1, 2, 6, 6)
    with pytest.raises(NotImplementedError):
        torch.nn.functional.interpolate(torch.zeros(shape, dtype=getattr(torch, dtype)),
                                        scale_factor=2, mode=mode)
    with pytest.raises(NotImplementedError, match="interpolate"):
        tl.nn.functional.interpolate(tl.zeros(shape, dtype=getattr(tl, dtype)), scale_factor=2,
                                     mode=mode)


# -- activations ------------------------------------------------------------------------------

def test_hardtanh_of_integers_stays_integer_with_truncated_limits():
    x = np.array([-3, -1, 0, 1, 3])
    for call in (lambda lib, t: lib.nn.functional.hardtanh(t, -0.5, 1.5),
                 lambda lib, t: lib.nn.functional.relu6(t * 3),
                 lambda lib, t: lib.nn.functional.hardtanh(t.to(lib.uint8), 0, 2)):
        ours, theirs = call(tl, tl.tensor(x)), call(torch, torch.tensor(x))
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        assert ours.tolist() == theirs.tolist()
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="Bool inputs not supported for hardtanh"):
            lib.nn.functional.hardtanh(lib.tensor(x) > 0)
        with pytest.raises(RuntimeError, match="unsigned type with negative limits"):
            lib.nn.functional.hardtanh(lib.tensor(x).to(lib.uint8))
        with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
            lib.nn.functional.gelu(lib.tensor(X), approximate="x")


# -- convolutions ---------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda lib, x, w: lib.nn.functional.conv2d(x, w, padding="same", stride=2),
    lambda lib, x, w: lib.nn.functional.conv2d(x, w, padding="foo"),
    lambda lib, x, w: lib.nn.functional.conv_transpose2d(x, w.transpose(0, 1), stride=2,
                                                         output_padding=2),
])
def test_convolution_argument_errors_are_runtime_errors(call):
    x, w = R.standard_normal((1, 3, 6, 6)), R.standard_normal((4, 3, 3, 3))
    for lib in (tl, torch):
        with pytest.raises(RuntimeError):
            call(lib, lib.tensor(x), lib.tensor(w))


def test_conv_modules_check_padding_strings_when_built():
    for lib in (tl, torch):
        with pytest.raises(ValueError, match="Invalid padding string 'foo'"):
            lib.nn.Conv2d(4, 6, 3, padding="foo")
        with pytest.raises(ValueError, match="padding='same' is not supported for strided"):
            lib.nn.Conv1d(4, 6, 3, padding="same", stride=2)
