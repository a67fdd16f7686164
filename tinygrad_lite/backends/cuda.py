"""``tl.backends.cuda``: CUDA's matmul and attention switches. There is no GPU: the switches
are remembered, ``is_built()`` is False, and ``scaled_dot_product_attention`` always runs its
one (math) kernel whatever they say."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

__all__ = ["matmul", "is_built", "flash_sdp_enabled", "enable_flash_sdp",
           "mem_efficient_sdp_enabled", "enable_mem_efficient_sdp", "math_sdp_enabled",
           "enable_math_sdp", "cudnn_sdp_enabled", "enable_cudnn_sdp", "sdp_kernel",
           "preferred_linalg_library"]


class _MatmulSwitches:
    """``torch.backends.cuda.matmul``: reduced-precision switches of cuBLAS."""

    def __init__(self) -> None:
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True
        self.fp32_precision = "ieee"


matmul = _MatmulSwitches()
# which scaled_dot_product_attention kernels a CUDA run may use (all, by default)
_SDP = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def is_built() -> bool:
    """False: not built with CUDA."""
    return False


def flash_sdp_enabled() -> bool:
    """Whether the flash attention kernel is allowed (a remembered switch)."""
    return _SDP["flash"]


def enable_flash_sdp(enabled: bool) -> None:
    """Allow or forbid the flash attention kernel (remembered only)."""
    _SDP["flash"] = bool(enabled)


def mem_efficient_sdp_enabled() -> bool:
    """Whether the memory-efficient attention kernel is allowed (a remembered switch)."""
    return _SDP["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    """Allow or forbid the memory-efficient attention kernel (remembered only)."""
    _SDP["mem_efficient"] = bool(enabled)


def math_sdp_enabled() -> bool:
    """Whether the math attention kernel is allowed (a remembered switch)."""
    return _SDP["math"]


def enable_math_sdp(enabled: bool) -> None:
    """Allow or forbid the math attention kernel (remembered only)."""
    _SDP["math"] = bool(enabled)


def cudnn_sdp_enabled() -> bool:
    """Whether the cuDNN attention kernel is allowed (a remembered switch)."""
    return _SDP["cudnn"]


def enable_cudnn_sdp(enabled: bool) -> None:
    """Allow or forbid the cuDNN attention kernel (remembered only)."""
    _SDP["cudnn"] = bool(enabled)


@contextlib.contextmanager
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True,
               enable_mem_efficient: bool = True, enable_cudnn: bool = True) -> Iterator[None]:
    """Set the attention switches for a block (PyTorch's deprecated spelling of
    ``tl.nn.attention.sdpa_kernel``)."""
    before = dict(_SDP)
    _SDP.update(flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient,
                cudnn=enable_cudnn)
    try:
        yield
    finally:
        _SDP.update(before)


def preferred_linalg_library(backend: str | None = None) -> str:
    """The linear algebra library CUDA ops would prefer: remembered only; "Default"."""
    return "Default"
