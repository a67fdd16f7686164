"""Automatic differentiation, the user's side: ``backward``, ``grad``, grad-mode control, custom
``Function``s, gradient checks, ``functional`` (jacobian, hessian, ...), anomaly and explain mode.

The machinery underneath (graph nodes, grad mode, the engine) lives in ``tinygrad_lite._core``;
this package re-exports what PyTorch users import from ``torch.autograd``.
"""

from .._core.backward import backward
from .._core.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from .._core.graph import Node, RemovableHandle
from ..overrides import is_tensor_like
from . import forward_ad, function, functional, grad_mode, graph, profiler, profiler_util
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .explain import explain
from .function import Function, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .gradients import grad
from .variable import Variable

__all__ = [
    "backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "Node",
    "RemovableHandle", "Function", "once_differentiable", "function", "functional", "gradcheck",
    "gradgradcheck", "GradcheckError", "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
    "explain", "grad_mode", "graph", "profiler", "profiler_util", "Variable", "inference_mode",
    "set_multithreading_enabled", "forward_ad", "is_tensor_like",
]


class set_multithreading_enabled:  # noqa: N801 - PyTorch's name
    """Accepted (context manager or call): backward runs in the calling thread here."""

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
