"""``tl.backends``: the switches PyTorch programs set for their backends (``cudnn.benchmark``,
``cuda.matmul.allow_tf32``, ...). They are accepted and remembered, and change nothing: NumPy
and its BLAS do the work here. ``mps.is_available()`` is False."""

from __future__ import annotations

from types import SimpleNamespace

__all__ = ["cudnn", "cuda", "mps", "mkldnn", "openmp", "mkl", "opt_einsum"]

cudnn = SimpleNamespace(enabled=True, benchmark=False, deterministic=False, allow_tf32=True,
                        is_available=lambda: False, version=lambda: None)
cuda = SimpleNamespace(matmul=SimpleNamespace(allow_tf32=False,
                                              allow_fp16_reduced_precision_reduction=True,
                                              allow_bf16_reduced_precision_reduction=True),
                       is_built=lambda: False, flash_sdp_enabled=lambda: False,
                       enable_flash_sdp=lambda enabled: None,
                       enable_mem_efficient_sdp=lambda enabled: None,
                       enable_math_sdp=lambda enabled: None)
mps = SimpleNamespace(is_available=lambda: False, is_built=lambda: False)
mkldnn = SimpleNamespace(enabled=True, is_available=lambda: False)
mkl = SimpleNamespace(is_available=lambda: False)
openmp = SimpleNamespace(is_available=lambda: False)
opt_einsum = SimpleNamespace(enabled=False, is_available=lambda: False, strategy=None)
