"""tl.amp.GradScaler (and the autocast context's state): PyTorch's call sequence, skipped steps
on inf/NaN, scale backoff and growth, errors, state_dict, and agreement with PyTorch's CPU
GradScaler over a run with injected overflows."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.amp import GradScaler


def setup(lr=0.1):
    p = tl.nn.Parameter(tl.tensor([1.0, -2.0, 3.0]))
    return p, tl.optim.SGD([p], lr=lr)


def test_documented_sequence_scales_unscales_and_steps():
    p, opt = setup()
    scaler = GradScaler("cpu", init_scale=1024.0)
    loss = (p * p).sum()
    scaler.scale(loss).backward()
    np.testing.assert_allclose(p.grad.numpy(), 1024 * 2 * np.array([1.0, -2.0, 3.0]))
    scaler.unscale_(opt)  # clipping now sees true gradients
    np.testing.assert_allclose(p.grad.numpy(), [2.0, -4.0, 6.0])
    tl.nn.utils.clip_grad_norm_([p], 1.0)
    assert scaler.step(opt) is None or True
    scaler.update()
    assert scaler.get_scale() == 1024.0
    assert np.linalg.norm(np.array([1.0, -2.0, 3.0]) - p.detach().numpy()) == pytest.approx(0.1)


def test_inf_or_nan_skips_the_step_and_backs_off():
    p, opt = setup()
    scaler = GradScaler("cpu", init_scale=8.0, backoff_factor=0.25)
    for bad in (np.inf, np.nan):
        opt.zero_grad()
        scaler.scale((p * p).sum()).backward()
        p.grad._data[1] = bad
        before = p.detach().numpy().copy()
        assert scaler.step(opt) is None
        scaler.update()
        np.testing.assert_array_equal(p.detach().numpy(), before)
    assert scaler.get_scale() == 8.0 * 0.25 * 0.25


def test_scale_grows_after_growth_interval_clean_steps():
    p, opt = setup(lr=0.0)
    scaler = GradScaler("cpu", init_scale=2.0, growth_factor=3.0, growth_interval=3)
    scales = []
    for _ in range(7):
        opt.zero_grad()
        scaler.scale(p.sum()).backward()
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
    assert scales == [2.0, 2.0, 6.0, 6.0, 6.0, 18.0, 18.0]


def test_misuse_raises_like_pytorch():
    p, opt = setup()
    scaler = GradScaler("cpu")
    scaler.scale(p.sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="already been called on this optimizer"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: 0)
    scaler.update()
    with pytest.raises(AssertionError, match="No inf checks"):
        scaler.update()
    with pytest.raises(ValueError, match="growth factor"):
        GradScaler("cpu", growth_factor=0.5)
    half = tl.nn.Parameter(tl.ones(2, dtype=tl.float16))
    half_opt = tl.optim.SGD([half], lr=0.1)
    half.grad = tl.ones(2, dtype=tl.float16)
    with pytest.raises(ValueError, match="unscale FP16 gradients"):
        GradScaler("cpu").unscale_(half_opt)


def test_default_device_is_cuda_and_disables_itself_here_as_pytorch_does():
    p, opt = setup()
    with pytest.warns(UserWarning, match="CUDA is not available"):
        scaler = GradScaler()
    loss = p.sum()
    assert scaler.scale(loss) is loss and not scaler.is_enabled() and scaler.get_scale() == 1.0
    loss.backward()
    scaler.step(opt)  # a plain optimizer step
    scaler.update()
    np.testing.assert_allclose(p.detach().numpy(), [0.9, -2.1, 2.9])
    assert scaler.state_dict() == {}


def test_state_dict_round_trip():
    scaler = GradScaler("cpu", init_scale=32.0, growth_interval=5)
    p, opt = setup()
    scaler.scale(p.sum()).backward()
    scaler.step(opt)
    scaler.update()
    other = GradScaler("cpu")
    other.load_state_dict(scaler.state_dict())
    assert other.state_dict() == scaler.state_dict()
    assert other.state_dict()["_growth_tracker"] == 1


def test_scale_of_nested_outputs():
    scaler = GradScaler("cpu", init_scale=4.0)
    a, b = tl.ones(2), tl.ones(1)
    out = scaler.scale([a, (b, a)])
    assert isinstance(out, list) and isinstance(out[1], tuple)
    np.testing.assert_array_equal(out[1][0].numpy(), [4.0])


def test_trajectory_matches_pytorch_cpu_gradscaler():
    torch = pytest.importorskip("torch")
    w0 = np.array([0.5, -1.5, 2.0], np.float32)
    ours_p = tl.nn.Parameter(tl.tensor(w0))
    ours_opt = tl.optim.SGD([ours_p], lr=0.05, momentum=0.9)
    ours = GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=2)
    theirs_p = torch.nn.Parameter(torch.tensor(w0))
    theirs_opt = torch.optim.SGD([theirs_p], lr=0.05, momentum=0.9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=2)
    for step in range(9):
        for p, opt, scaler, lib in ((ours_p, ours_opt, ours, tl), (theirs_p, theirs_opt, theirs,
                                                                   torch)):
            opt.zero_grad()
            scaler.scale((p * p * p).sum()).backward()
            if step in (3, 6):  # an overflow, as a too-large scale would cause
                with lib.no_grad():
                    p.grad[0] = float("inf")
            scaler.step(opt)
            scaler.update()
        assert ours.get_scale() == theirs.get_scale()
        np.testing.assert_allclose(ours_p.detach().numpy(), theirs_p.detach().numpy(),
                                   rtol=1e-6)


def _train(mode: str, steps: int = 40) -> tuple[list, float]:
    """A 8-16-1 MLP on a loss scaled down by 1e-7 (its gradients ~1e-8: below float16's
    smallest subnormal, 6e-8): "fp32", "fp16" (autocast alone) or "scaled" (autocast +
    GradScaler). Returns the parameters and the fraction of zero weight-gradient entries."""
    tl.manual_seed(0)
    model = tl.nn.Sequential(tl.nn.Linear(8, 16), tl.nn.Tanh(), tl.nn.Linear(16, 1))
    opt = tl.optim.SGD(model.parameters(), lr=2e5)
    scaler = GradScaler("cpu", init_scale=2.0 ** 16) if mode == "scaled" else None
    rng = np.random.default_rng(0)
    x = tl.tensor(rng.standard_normal((32, 8)).astype(np.float32))
    y = tl.tensor(rng.standard_normal((32, 1)).astype(np.float32))
    zero_fraction = 0.0
    for _ in range(steps):
        opt.zero_grad()
        with tl.autocast("cpu", dtype=tl.float16, enabled=(mode != "fp32")):
            out = model(x)
        loss = 1e-7 * (out.float() - y).square().mean()
        if scaler is None:
            loss.backward()
        else:
            scaler.scale(loss).backward()
        zero_fraction = float((model[0].weight.grad.numpy() == 0).mean())
        if scaler is None:
            opt.step()
        else:
            scaler.step(opt)
            scaler.update()
    return [p.detach().numpy().copy() for p in model.parameters()], zero_fraction


def test_autocast_runs_linear_in_float16_and_keeps_float32_master_weights():
    layer = tl.nn.Linear(3, 2)
    with tl.autocast("cpu", dtype=tl.float16):
        assert tl.amp.is_autocast_enabled() and tl.amp.get_autocast_dtype() == tl.float16
        out = layer(tl.randn(4, 3))
        assert out.dtype == tl.float16
        with tl.autocast("cpu", enabled=False):
            assert layer(tl.randn(4, 3)).dtype == tl.float32
    out.float().sum().backward()
    assert layer.weight.dtype == tl.float32 and layer.weight.grad.dtype == tl.float32
    with pytest.warns(UserWarning, match="CUDA is not available|not available"):
        with tl.autocast("cuda"):
            assert layer(tl.randn(1, 3)).dtype == tl.float32


def test_grad_scaler_rescues_float16_gradients_that_underflow():
    reference, _ = _train("fp32")
    plain, zeros_plain = _train("fp16")
    scaled, zeros_scaled = _train("scaled")
    assert zeros_plain > 0.9           # without scaling the float16 gradients vanish ...
    for p0, p in zip(reference, plain):
        if p.ndim == 2:
            assert np.abs(p - p0).max() > 1e-3  # ... so plain float16 training goes nowhere
    assert zeros_scaled < 0.1          # with it they survive, and training follows float32
    for p0, p in zip(reference, scaled):
        np.testing.assert_allclose(p, p0, rtol=2e-2, atol=2e-3)


def test_cpu_autocast_op_lists_follow_pytorch():
    """Convolutions run low (bias included), losses in float32, softmax and norms keep the
    low dtype, as PyTorch's CPU autocast does; gradients reach float32 parameters."""
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    image = np.random.default_rng(1).standard_normal((1, 1, 5, 5)).astype(np.float32)

    def dtypes_under(lib):
        lin, conv = lib.nn.Linear(8, 3), lib.nn.Conv2d(1, 2, 3)
        with lib.autocast("cpu", dtype=lib.float16):
            y = lin(lib.tensor(x))
            c = conv(lib.tensor(image))
            target = lib.tensor([0, 1, 2, 0])
            results = [y, lib.softmax(y, -1), lib.nn.functional.layer_norm(y, (3,)),
                       lib.nn.functional.cross_entropy(y, target),
                       lib.nn.functional.mse_loss(y, y.detach().float()), c,
                       lib.nn.functional.conv_transpose2d(c, conv.weight)]
        c.float().sum().backward()
        return [str(r.dtype).split(".")[-1] for r in results] + \
            [str(conv.weight.grad.dtype).split(".")[-1]]
    assert dtypes_under(tl) == dtypes_under(torch)


def test_autocast_refuses_unknown_device_types():
    with pytest.raises(RuntimeError, match="foo"):
        tl.autocast("foo")
