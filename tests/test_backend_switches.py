"""What programs do with PyTorch's backend and export modules: the cuDNN/oneDNN/CUDA switches
(set, read back, scoped by ``flags``/``sdp_kernel``), ``torch.cpu.amp``, ``torch.onnx``'s clear
refusal, ``torch.nn.attention.sdpa_kernel`` and ``torch.nn.grad``'s convolution gradients
(against autograd, and PyTorch where installed)."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.backends.cudnn as cudnn
from tinygrad_lite.nn.attention import SDPBackend, sdpa_kernel


def test_cudnn_switches_are_remembered_and_scoped_by_flags():
    before = (cudnn.benchmark, cudnn.deterministic, cudnn.enabled)
    try:
        cudnn.benchmark = True
        cudnn.deterministic = True
        assert tl.backends.cudnn.benchmark and tl.backends.cudnn.deterministic
        with cudnn.flags(enabled=False):  # PyTorch's flags set every switch they name
            assert not cudnn.enabled and not cudnn.benchmark and not cudnn.deterministic
        assert cudnn.enabled and cudnn.benchmark and cudnn.deterministic
        assert not cudnn.is_available() and cudnn.version() is None
        with tl.backends.mkldnn.flags(enabled=False):
            assert not tl.backends.mkldnn.enabled
        assert tl.backends.mkldnn.enabled
    finally:
        cudnn.benchmark, cudnn.deterministic, cudnn.enabled = before


def test_cuda_attention_switches_and_device_queries():
    cuda = tl.backends.cuda
    assert not cuda.is_built() and not tl.backends.mps.is_available()
    assert cuda.flash_sdp_enabled() and cuda.math_sdp_enabled()
    with cuda.sdp_kernel(enable_flash=False):
        assert not cuda.flash_sdp_enabled() and cuda.math_sdp_enabled()
    assert cuda.flash_sdp_enabled()
    cuda.enable_mem_efficient_sdp(False)
    assert not cuda.mem_efficient_sdp_enabled()
    cuda.enable_mem_efficient_sdp(True)
    cuda.matmul.allow_tf32 = True
    assert tl.backends.cuda.matmul.allow_tf32
    cuda.matmul.allow_tf32 = False
    assert tl.backends.cpu.get_cpu_capability() in ("DEFAULT", "AVX2", "AVX512")


def test_cpu_amp_warns_as_deprecated_and_autocasts_to_bfloat16():
    with pytest.warns(FutureWarning, match="torch.cpu.amp.autocast"):
        context = tl.cpu.amp.autocast()
    with context:
        out = tl.randn(3, 4) @ tl.randn(4, 2)
    assert out.dtype == tl.bfloat16
    with pytest.warns(FutureWarning, match="torch.cpu.amp.GradScaler"):
        scaler = tl.cpu.amp.GradScaler()
    assert scaler.is_enabled()


def test_onnx_export_refuses_clearly_and_mode_selection_restores():
    model = tl.nn.Linear(2, 3)
    assert not tl.onnx.is_in_onnx_export()
    with pytest.raises(tl.onnx.OnnxExporterError, match="does not export ONNX.*Linear"):
        tl.onnx.export(model, (tl.randn(1, 2),), "model.onnx")
    with tl.onnx.select_model_mode_for_export(model, tl.onnx.TrainingMode.EVAL):
        assert not model.training
    assert model.training


def test_sdpa_kernel_checks_its_backends_and_attention_runs_inside():
    q = tl.randn(1, 2, 4, 8)
    reference = tl.nn.functional.scaled_dot_product_attention(q, q, q)
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH], set_priority=True):
        assert tl.nn.attention.enabled_backends() == [SDPBackend.FLASH_ATTENTION,
                                                      SDPBackend.MATH]
        inside = tl.nn.functional.scaled_dot_product_attention(q, q, q)
    assert len(tl.nn.attention.enabled_backends()) == 5
    np.testing.assert_array_equal(inside.numpy(), reference.numpy())
    with pytest.raises(TypeError, match="SDPBackend"):
        with sdpa_kernel(["math"]):
            pass


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_nn_grad_convolution_gradients_match_autograd(nd):
    rng = np.random.default_rng(nd)
    spatial = (7, 6, 5)[:nd]
    x = tl.tensor(rng.standard_normal((2, 4) + spatial), requires_grad=True)
    w = tl.tensor(rng.standard_normal((6, 2) + (3, 2, 2)[:nd]), requires_grad=True)
    conv = getattr(tl.nn.functional, f"conv{nd}d")
    y = conv(x, w, None, 2, 1, 1, 2)
    g = tl.tensor(rng.standard_normal(y.shape))
    y.backward(g)
    grad_input = getattr(tl.nn.grad, f"conv{nd}d_input")(x.shape, w, g, 2, 1, 1, 2)
    grad_weight = getattr(tl.nn.grad, f"conv{nd}d_weight")(x, w.shape, g, 2, 1, 1, 2)
    np.testing.assert_allclose(grad_input.detach().numpy(), x.grad.numpy(), atol=1e-12)
    np.testing.assert_allclose(grad_weight.detach().numpy(), w.grad.numpy(), atol=1e-12)
    # differentiable again with respect to the weight, as PyTorch's are
    assert grad_input.requires_grad
    with pytest.raises(ValueError, match="input_size"):
        getattr(tl.nn.grad, f"conv{nd}d_input")((2, 4), w, g)


def test_nn_grad_matches_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 4, 7, 6)), rng.standard_normal((6, 2, 3, 2))
    g = rng.standard_normal((2, 6, 4, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.nn.grad.conv2d_weight(torch.tensor(x), w.shape, torch.tensor(g), 2, 1, 1, 2)
    got = tl.nn.grad.conv2d_weight(tl.tensor(x), w.shape, tl.tensor(g), 2, 1, 1, 2)
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-12)
