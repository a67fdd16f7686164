"""PyTorch's ``torch.nn.modules.linear``: Identity, Linear, Bilinear, LazyLinear."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import dtypes
from ..._core.grad_mode import no_grad
from ..._core.tensor_base import TensorBase
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear", "LazyLinear"]


def _empty(shape: tuple, dtype: Any) -> Parameter:
    dt = dtypes.default_float_np(dtype)
    if any(n < 0 for n in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: "
                           f"{list(shape)}")
    return Parameter(np.empty(shape, dt))


class Identity(Module):
    """Returns its input unchanged (arguments are accepted and ignored)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: TensorBase) -> TensorBase:
        """The input itself."""
        return input


class Linear(Module):
    """``y = x W^T + b`` with W of shape (out_features, in_features), initialised from
    U(-1/sqrt(in_features), 1/sqrt(in_features)) as in PyTorch."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = _empty((out_features, in_features), dtype)
        if bias:
            self.bias = _empty((out_features,), dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default initialisation."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: TensorBase) -> TensorBase:
        """``input @ weight.T + bias``."""
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        """``in_features``, ``out_features`` and whether there is a bias."""
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """PyTorch's name for the output projection of MultiheadAttention (a plain Linear)."""


class Bilinear(Module):
    """``y = x1^T A x2 + b`` with A of shape (out_features, in1_features, in2_features)."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        self.weight = _empty((out_features, in1_features, in2_features), dtype)
        if bias:
            self.bias = _empty((out_features,), dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """U(-1/sqrt(in1_features), 1/sqrt(in1_features)) for weight and bias."""
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: TensorBase, input2: TensorBase) -> TensorBase:
        """The bilinear form of the two inputs."""
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        """The feature sizes and whether there is a bias."""
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(LazyModuleMixin, Linear):
    """``Linear`` whose ``in_features`` is inferred from ``input.shape[-1]`` at the first
    forward."""

    cls_to_become = Linear
    weight: Any
    bias: Any

    def __init__(self, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self) -> None:
        """Linear's initialisation, once the parameters exist."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: TensorBase) -> None:
        """``in_features`` from the input's last dim; allocate and initialise."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = int(input.shape[-1])
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # materialized by load_state_dict
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} "
                                     "is not equal to in_features from self.weight: "
                                     f"{self.weight.shape[-1]}")
            self.in_features = int(input.shape[-1])
