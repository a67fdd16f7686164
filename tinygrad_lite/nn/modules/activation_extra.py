"""More activation layers (re-exported by ``nn/modules/activation.py``, PyTorch's path): each
holds its arguments and calls the ``nn.functional`` function of the same name."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtypes
from ..._core.tensor_base import TensorBase
from ..._core.warnings import warn
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from ..parameter import Parameter
from .module import Module

__all__ = ["ReLU6", "Hardtanh", "Hardswish", "Hardsigmoid", "Hardshrink", "Softshrink", "Mish",
           "LogSigmoid", "Softsign", "Tanhshrink", "Threshold", "GLU", "CELU", "SELU", "RReLU",
           "Softmin", "Softmax2d", "PReLU"]


def _inplace(flag: bool) -> str:
    return ", inplace=True" if flag else ""


class Hardtanh(Module):
    """``x`` clamped to ``[min_val, max_val]``."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None) -> None:
        super().__init__()
        # PyTorch's older keyword spellings, still accepted with its deprecation warning
        if min_value is not None:
            warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                 FutureWarning)
            min_val = min_value
        if max_value is not None:
            warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                 FutureWarning)
            max_val = max_value
        if not max_val > min_val:
            raise AssertionError(f"Hardtanh: max_val ({max_val}) must be greater than min_val "
                                 f"({min_val})")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input: TensorBase) -> TensorBase:
        """Hardtanh of the input."""
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        """The bounds."""
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace(self.inplace)}"


class ReLU6(Hardtanh):
    """``min(max(x, 0), 6)``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        """``inplace=True`` when set."""
        return "inplace=True" if self.inplace else ""


class _Simple(Module):
    """An activation with an optional ``inplace`` flag and no other state."""

    fn: Any = None

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: TensorBase) -> TensorBase:
        """The activation of the input."""
        return type(self).fn(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        """``inplace=True`` when set."""
        return "inplace=True" if self.inplace else ""


class Hardswish(_Simple):
    """``x * relu6(x + 3) / 6``."""

    fn = staticmethod(F.hardswish)


class Hardsigmoid(_Simple):
    """``relu6(x + 3) / 6``."""

    fn = staticmethod(F.hardsigmoid)


class Mish(_Simple):
    """``x * tanh(softplus(x))``."""

    fn = staticmethod(F.mish)


class SELU(_Simple):
    """Scaled ELU with self-normalising constants."""

    fn = staticmethod(F.selu)


class _Stateless(Module):
    """An activation without arguments."""

    fn: Any = None

    def forward(self, input: TensorBase) -> TensorBase:
        """The activation of the input."""
        return type(self).fn(input)


class LogSigmoid(_Stateless):
    """``log(sigmoid(x))``."""

    fn = staticmethod(F.logsigmoid)


class Softsign(_Stateless):
    """``x / (1 + |x|)``."""

    fn = staticmethod(F.softsign)


class Tanhshrink(_Stateless):
    """``x - tanh(x)``."""

    fn = staticmethod(F.tanhshrink)


class Hardshrink(Module):
    """``x`` where ``|x| > lambd``, else 0."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: TensorBase) -> TensorBase:
        """Hardshrink of the input."""
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        """The threshold."""
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """``x -+ lambd`` outside ``[-lambd, lambd]``, else 0."""

    def forward(self, input: TensorBase) -> TensorBase:
        """Softshrink of the input."""
        return F.softshrink(input, self.lambd)


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value``."""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: TensorBase) -> TensorBase:
        """Threshold of the input."""
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        """Threshold and value."""
        return f"threshold={self.threshold}, value={self.value}{_inplace(self.inplace)}"


class GLU(Module):
    """Gated linear unit over ``dim``."""

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: TensorBase) -> TensorBase:
        """GLU of the input."""
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        """The dim."""
        return f"dim={self.dim}"


class CELU(Module):
    """Continuously differentiable ELU."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: TensorBase) -> TensorBase:
        """CELU of the input."""
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        """Alpha."""
        return f"alpha={self.alpha}{_inplace(self.inplace)}"


class RReLU(Module):
    """Leaky ReLU with a random slope while training, the mean slope in eval mode."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                 inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: TensorBase) -> TensorBase:
        """RReLU of the input."""
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        """The slope range."""
        return f"lower={self.lower}, upper={self.upper}{_inplace(self.inplace)}"


class Softmin(Module):
    """``softmax(-x)`` over ``dim``."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: TensorBase) -> TensorBase:
        """Softmin of the input."""
        return F.softmin(input, self.dim)

    def extra_repr(self) -> str:
        """The dim."""
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Softmax over the channels of (N, C, H, W) or (C, H, W) input."""

    def forward(self, input: TensorBase) -> TensorBase:
        """Softmax over dim -3."""
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input of 3 or 4 dimensions, got "
                             f"{input.ndim}")
        return F.softmax(input, -3)


class PReLU(Module):
    """Leaky ReLU with learned slopes: one, or one per channel (``num_parameters``)."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = Parameter(np.full(num_parameters, init, dtypes.default_float_np(dtype)))

    def forward(self, input: TensorBase) -> TensorBase:
        """PReLU of the input."""
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        """The number of slopes."""
        return f"num_parameters={self.num_parameters}"
