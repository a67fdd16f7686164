"""The ``tl.*`` function forms of Tensor methods: ``tl.is_signed(t)``, ``tl.get_device(t)``,
``tl.is_inference(t)``, ``tl.is_distributed(t)``, ``tl.detach_(t)``, ``tl.real(t)`` and
``tl.imag(t)``."""

from __future__ import annotations

from .tensor import Tensor

__all__ = ["get_device", "is_signed", "is_inference", "is_distributed", "detach_", "real",
           "imag"]


def get_device(input: Tensor) -> int:
    """-1: tensors are in CPU memory (``Tensor.get_device``)."""
    return int(input.get_device())


def is_signed(input: Tensor) -> bool:
    """Whether the dtype holds negative values (``Tensor.is_signed``)."""
    return bool(input.is_signed())


def is_inference(input: Tensor) -> bool:
    """``Tensor.is_inference``: False here (see there)."""
    return bool(input.is_inference())


def is_distributed(input: Tensor) -> bool:
    """False: a tensor is never split across processes."""
    return False


def detach_(input: Tensor) -> Tensor:
    """In place: ``input`` leaves the graph (``Tensor.detach_``)."""
    return input.detach_()


def real(input: Tensor) -> Tensor:
    """The real part: a real tensor itself."""
    return input


def imag(input: Tensor) -> Tensor:
    """The imaginary part, which real tensors lack: always refused, as PyTorch refuses it."""
    raise RuntimeError(f"imag is not implemented for tensors with non-complex dtypes (got "
                       f"{input.dtype}, shape {tuple(input.shape)})")
