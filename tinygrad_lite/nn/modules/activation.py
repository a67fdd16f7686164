"""PyTorch's ``torch.nn.modules.activation``: the activation layers and MultiheadAttention;
each activation holds its arguments and calls the ``nn.functional`` function of the same name."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtypes
from ..._core.tensor_base import TensorBase
from ..._core.warnings import warn
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .. import init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["ReLU", "LeakyReLU", "GELU", "SiLU", "ELU", "Sigmoid", "Tanh", "Softplus", "Softmax",
           "LogSoftmax", "MultiheadAttention", "ReLU6", "Hardtanh", "Hardswish", "Hardsigmoid",
           "Hardshrink", "Softshrink", "Mish", "LogSigmoid", "Softsign", "Tanhshrink", "Threshold",
           "GLU", "CELU", "SELU", "RReLU", "Softmin", "Softmax2d", "PReLU"]


class ReLU(Module):
    """``max(x, 0)``; with ``inplace=True`` the input itself is overwritten."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: TensorBase) -> TensorBase:
        """ReLU of the input."""
        return F.relu(input, self.inplace)

    def extra_repr(self) -> str:
        """``inplace=True`` when set."""
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """``x`` for positive x, ``negative_slope * x`` otherwise."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input: TensorBase) -> TensorBase:
        """Leaky ReLU of the input."""
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        """``negative_slope`` and ``inplace``."""
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """Gaussian error linear unit; ``approximate='tanh'`` for the tanh approximation."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: TensorBase) -> TensorBase:
        """GELU of the input."""
        return F.gelu(input, self.approximate)

    def extra_repr(self) -> str:
        """``approximate``."""
        return f"approximate='{self.approximate}'"


class SiLU(Module):
    """``x * sigmoid(x)``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: TensorBase) -> TensorBase:
        """SiLU of the input."""
        return F.silu(input, self.inplace)

    def extra_repr(self) -> str:
        """``inplace=True`` when set."""
        return "inplace=True" if self.inplace else ""


class ELU(Module):
    """``x`` for positive x, ``alpha * (exp(x) - 1)`` otherwise."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: TensorBase) -> TensorBase:
        """ELU of the input."""
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        """``alpha`` and ``inplace``."""
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Sigmoid(Module):
    """``1 / (1 + exp(-x))``."""

    def forward(self, input: TensorBase) -> TensorBase:
        """Sigmoid of the input."""
        return F.sigmoid(input)


class Tanh(Module):
    """Hyperbolic tangent."""

    def forward(self, input: TensorBase) -> TensorBase:
        """Tanh of the input."""
        return F.tanh(input)


class Softplus(Module):
    """``log(1 + exp(beta x)) / beta``, linear above ``threshold``."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: TensorBase) -> TensorBase:
        """Softplus of the input."""
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        """``beta`` and ``threshold``."""
        return f"beta={self.beta}, threshold={self.threshold}"


class Softmax(Module):
    """Softmax over ``dim``."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: TensorBase) -> TensorBase:
        """Softmax of the input (dim None: 0 for 0/1/3-D input, else 1, as in PyTorch)."""
        dim = self.dim if self.dim is not None else (0 if input.ndim in (0, 1, 3) else 1)
        return F.softmax(input, dim)

    def extra_repr(self) -> str:
        """``dim``."""
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """Log-softmax over ``dim``."""

    def forward(self, input: TensorBase) -> TensorBase:
        """Log-softmax of the input."""
        dim = self.dim if self.dim is not None else (0 if input.ndim in (0, 1, 3) else 1)
        return F.log_softmax(input, dim)


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

    def extra_repr(self) -> str:
        """Nothing: PyTorch does not show this layer's ``inplace`` flag."""
        return ""


class Hardsigmoid(_Simple):
    """``relu6(x + 3) / 6``."""

    fn = staticmethod(F.hardsigmoid)

    def extra_repr(self) -> str:
        """Nothing: PyTorch does not show this layer's ``inplace`` flag."""
        return ""


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
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(np.full(num_parameters, init, dtypes.default_float_np(dtype)))

    def reset_parameters(self) -> None:
        """Every slope back to ``init``."""
        init.constant_(self.weight, self.init)

    def forward(self, input: TensorBase) -> TensorBase:
        """PReLU of the input."""
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        """The number of slopes."""
        return f"num_parameters={self.num_parameters}"


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of size ``embed_dim // num_heads``. Inputs are
    (L, N, E), or (N, L, E) with ``batch_first``; bool masks mark positions NOT attended."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False,
                 kdim: int | None = None, vdim: int | None = None, batch_first: bool = False,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        if embed_dim % num_heads:
            raise AssertionError("embed_dim must be divisible by num_heads")
        dt = dtypes.default_float_np(dtype)
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.batch_first, self.head_dim = batch_first, embed_dim // num_heads
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(np.empty((3 * embed_dim, embed_dim), dt))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(np.empty((embed_dim, embed_dim), dt))
            self.k_proj_weight = Parameter(np.empty((embed_dim, self.kdim), dt))
            self.v_proj_weight = Parameter(np.empty((embed_dim, self.vdim), dt))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(np.empty(3 * embed_dim, dt))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        self.bias_k: Parameter | None
        self.bias_v: Parameter | None
        if add_bias_kv:  # one learned key and value appended to every sequence
            self.bias_k = Parameter(np.empty((1, 1, embed_dim), dt))
            self.bias_v = Parameter(np.empty((1, 1, embed_dim), dt))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None and self.bias_v is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def forward(self, query: TensorBase, key: TensorBase, value: TensorBase,
                key_padding_mask: TensorBase | None = None, need_weights: bool = True,
                attn_mask: TensorBase | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[TensorBase, TensorBase | None]:
        """``(attn_output, attn_weights)``; weights averaged over heads unless
        ``average_attn_weights=False``, None unless ``need_weights``."""
        batch_first = self.batch_first and query.ndim == 3
        if batch_first:  # the functional form takes (L, N, E); self-attention: one transpose
            if query is key and key is value:
                query = key = value = query.transpose(0, 1)
            elif key is value:
                query, key = query.transpose(0, 1), key.transpose(0, 1)
                value = key
            else:
                query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        return (out.transpose(0, 1) if batch_first else out), weights

    def extra_repr(self) -> str:
        """Nothing (the submodule ``out_proj`` is shown)."""
        return ""
