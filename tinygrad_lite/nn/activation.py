"""Activation layers, each a thin Module over ``nn.functional``."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F  # noqa: N812 - PyTorch's conventional alias
from .module import Module

__all__ = ["ReLU", "LeakyReLU", "GELU", "SiLU", "ELU", "Sigmoid", "Tanh", "Softplus", "Softmax",
           "LogSoftmax"]


class ReLU(Module):
    """``max(x, 0)``. With ``inplace=True`` the input is overwritten when in-place ops are
    available; otherwise the result is computed out of place (same values and gradients)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        """ReLU of the input."""
        return F.relu_(input) if self.inplace else F.relu(input)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """``x`` for positive x, ``negative_slope * x`` otherwise."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input: Tensor) -> Tensor:
        """Leaky ReLU of the input."""
        return F.leaky_relu(input, self.negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """Gaussian error linear unit; ``approximate='tanh'`` for the tanh approximation."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        """GELU of the input."""
        return F.gelu(input, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate='{self.approximate}'"


class SiLU(Module):
    """``x * sigmoid(x)``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        """SiLU of the input."""
        return F.silu(input)


class ELU(Module):
    """``x`` for positive x, ``alpha * (exp(x) - 1)`` otherwise."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        """ELU of the input."""
        return F.elu(input, self.alpha)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Sigmoid(Module):
    """``1 / (1 + exp(-x))``."""

    def forward(self, input: Tensor) -> Tensor:
        """Sigmoid of the input."""
        return F.sigmoid(input)


class Tanh(Module):
    """Hyperbolic tangent."""

    def forward(self, input: Tensor) -> Tensor:
        """Tanh of the input."""
        return F.tanh(input)


class Softplus(Module):
    """``log(1 + exp(beta x)) / beta``, linear above ``threshold``."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:
        """Softplus of the input."""
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Softmax(Module):
    """Softmax over ``dim``."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        """Softmax of the input (dim None: 0 for 0/1/3-D input, else 1, as in PyTorch)."""
        dim = self.dim if self.dim is not None else (0 if input.ndim in (0, 1, 3) else 1)
        return F.softmax(input, dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """Log-softmax over ``dim``."""

    def forward(self, input: Tensor) -> Tensor:
        """Log-softmax of the input."""
        dim = self.dim if self.dim is not None else (0 if input.ndim in (0, 1, 3) else 1)
        return F.log_softmax(input, dim)
