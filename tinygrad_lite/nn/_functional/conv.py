"""Convolutions of ``nn.functional``: argument checking around the convolution primitive
(``ops/conv.py``: im2col and one GEMM, one node); transposed convolutions through ``fold``, the
adjoint of im2col. No loops over pixels."""

from __future__ import annotations

import math
from typing import Any

from ..._core.autocast_state import autocast_state
from ..._core.tensor_base import TensorBase
from ...ops.conv import convolution
from ...ops.elementwise import autocast_lower
from ...ops.nn import fold
from ...ops.reduce import require_same_dtype
from ._utils import batched, ntuple

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d"]


def _convnd(input: TensorBase, weight: TensorBase, bias: TensorBase | None, stride: Any,
            padding: Any, dilation: Any, groups: int, nd: int, op: str) -> TensorBase:
    x, added = batched(input, nd, op)
    if autocast_state.dtype is not None:  # PyTorch's CPU autocast runs convolutions low
        x, weight, bias = autocast_lower(x, weight, bias)
    stride, dilation = ntuple(stride, nd, "stride"), ntuple(dilation, nd, "dilation")
    _check_conv_arguments(op, x, weight, bias, stride, dilation, groups, nd)
    o = weight.shape[0]
    kernel = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0),) * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError(f"{op}: padding='same' is not supported for strided "
                                   f"convolutions")
            totals = [d * (k - 1) for d, k in zip(dilation, kernel)]
            pads = tuple((t // 2, t - t // 2) for t in totals)  # the extra one goes right
        else:
            raise RuntimeError(f"{op}: Invalid padding string: {padding!r} (use 'same' or "
                               f"'valid')")
    else:
        pads = tuple((p, p) for p in ntuple(padding, nd, "padding"))
        if any(p < 0 for p, _ in pads):
            raise RuntimeError(f"{op}: negative padding is not supported, got padding={padding}")
    padded = tuple(size + before + after for size, (before, after) in zip(x.shape[2:], pads))
    spans = tuple(d * (kk - 1) + 1 for d, kk in zip(dilation, kernel))
    if any(span > size for span, size in zip(spans, padded)):
        raise RuntimeError(
            f"{op}: calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, spans))}). Kernel size can't be greater than "
            f"actual input size (input of shape {tuple(input.shape)})")
    if bias is not None and tuple(bias.shape) != (o,):
        raise RuntimeError(f"{op}: bias of shape {tuple(bias.shape)} does not match "
                           f"out_channels ({o})")
    out = convolution(x, weight, bias, stride, pads, dilation, groups)  # one node: ops/conv.py
    return out.squeeze(0) if added else out


def _check_conv_arguments(op: str, x: TensorBase, weight: TensorBase, bias: TensorBase | None,
                          stride: tuple, dilation: tuple, groups: int, nd: int) -> None:
    """PyTorch's refusals, worded to say what was expected and what came."""
    if not isinstance(weight, TensorBase):
        raise TypeError(f"{op}(): argument 'weight' must be Tensor, not {type(weight).__name__}")
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"{op}: non-positive stride is not supported, got stride={stride}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"{op}: dilation should be greater than zero, got {dilation}")
    if not isinstance(groups, int) or groups <= 0:
        raise RuntimeError(f"{op}: non-positive groups is not supported, got groups={groups}")
    if weight.ndim != nd + 2:
        raise RuntimeError(f"{op}: expected a {nd + 2}-D weight (out_channels, in_channels / "
                           f"groups, *kernel), got weight of shape {tuple(weight.shape)}")
    c, (o, cg) = x.shape[1], weight.shape[:2]
    if c != cg * groups:
        raise RuntimeError(
            f"{op}: given groups={groups}, weight of size {list(weight.shape)}, expected "
            f"input{list(x.shape)} to have {cg * groups} channels, but got {c} channels instead")
    if o % groups:
        raise RuntimeError(f"{op}: out_channels ({o}) must be divisible by groups ({groups})")
    require_same_dtype(op, x, weight, bias)


def conv1d(input: TensorBase, weight: TensorBase, bias: TensorBase | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> TensorBase:
    """1-D convolution (cross-correlation) of (N, C, L) input with (O, C/groups, k) weight."""
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input: TensorBase, weight: TensorBase, bias: TensorBase | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> TensorBase:
    """2-D convolution (cross-correlation) of (N, C, H, W) input with (O, C/groups, kh, kw)
    weight; ``padding`` may be an int, a pair, 'valid' or 'same'."""
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input: TensorBase, weight: TensorBase, bias: TensorBase | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> TensorBase:
    """3-D convolution (cross-correlation) of (N, C, D, H, W) input with (O, C/groups, kd, kh,
    kw) weight; ``padding`` may be an int, a triple, 'valid' or 'same'."""
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _conv_transposend(input: TensorBase, weight: TensorBase, bias: TensorBase | None, stride: Any,
                      padding: Any, output_padding: Any, groups: int, dilation: Any, nd: int,
                      op: str) -> TensorBase:
    x, added = batched(input, nd, op)
    if autocast_state.dtype is not None:
        x, weight, bias = autocast_lower(x, weight, bias)
    stride, dilation = ntuple(stride, nd, "stride"), ntuple(dilation, nd, "dilation")
    padding = ntuple(padding, nd, "padding")
    output_padding = ntuple(output_padding, nd, "output_padding")
    n, c = x.shape[:2]
    in_sizes = tuple(x.shape[2:])
    kernel = tuple(weight.shape[2:])
    if weight.ndim != nd + 2 or weight.shape[0] != c or c % groups:
        raise RuntimeError(
            f"{op}: input of shape {tuple(input.shape)} and weight of shape {tuple(weight.shape)}"
            f" with groups={groups} do not match: expected weight (in_channels={c}, out_channels"
            " / groups, *kernel)"
        )
    for op_, s, d in zip(output_padding, stride, dilation):
        if op_ >= max(s, d):
            raise RuntimeError(f"{op}: output padding must be smaller than either stride or "
                               f"dilation, but got output_padding {output_padding}, stride "
                               f"{stride}, dilation {dilation}")
    g, cg, og = groups, c // groups, weight.shape[1]
    p, k = math.prod(in_sizes), math.prod(kernel)
    xr = x.reshape(n, g, cg, p).permute(0, 1, 3, 2)  # (N, G, P, Cg)
    cols = xr @ weight.reshape(g, cg, og * k)  # (N, G, P, Og*K)
    cols = cols.reshape(n, g, *in_sizes, og, *kernel)
    order = (0, 1, 2 + nd) + tuple(range(2, 2 + nd)) + tuple(range(3 + nd, 3 + 2 * nd))
    cols = cols.permute(*order).reshape(n, g * og, *in_sizes, *kernel)
    full = tuple((i - 1) * s + d * (kk - 1) + 1 + extra
                 for i, s, d, kk, extra in zip(in_sizes, stride, dilation, kernel, output_padding))
    out = fold(cols, full, kernel, stride, dilation)
    if any(padding):
        crop = (Ellipsis, *(slice(pp, f - pp) for pp, f in zip(padding, full)))
        out = out[crop]
    if bias is not None:
        out = out + bias.reshape((1, g * og) + (1,) * nd)
    return out.squeeze(0) if added else out


def conv_transpose1d(input: TensorBase, weight: TensorBase, bias: TensorBase | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> TensorBase:
    """1-D transposed convolution (the gradient of conv1d with respect to its input)."""
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 1, "conv_transpose1d")


def conv_transpose2d(input: TensorBase, weight: TensorBase, bias: TensorBase | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> TensorBase:
    """2-D transposed convolution with weight (C_in, C_out / groups, kh, kw)."""
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 2, "conv_transpose2d")


def conv_transpose3d(input: TensorBase, weight: TensorBase, bias: TensorBase | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> TensorBase:
    """3-D transposed convolution with weight (C_in, C_out / groups, kd, kh, kw)."""
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 3, "conv_transpose3d")
