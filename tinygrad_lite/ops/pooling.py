"""2-d max and average pooling as single nodes running the compiled ``pooling`` kernels.

``nn.functional``'s pooling builds these from sliding-window views and reductions (the NumPy
reference); with the kernels there, a 2-d float32/float64 pooling is one pass over the input
forward and one over the gradient backward instead (see ``_kernels/source/pooling.py``). The
backward of an array gradient scatters with the kernel (or ``np.add.at`` if the backend was
switched to NumPy in between); under ``create_graph`` it is the same scatter as a recorded
``index_put`` with accumulation, linear in the gradient, so it differentiates again.
"""

from __future__ import annotations

import numpy as np

from .. import _kernels
from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .._core.tracing import tracing_state
from .common import is_array, wrap
from .indexing import index_put

__all__ = ["pooling_kernels", "max_pool2d", "avg_pool2d"]

_KERNEL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def pooling_kernels(x: TensorBase):
    """The compiled pooling kernels when they can pool ``x`` (N, C, H, W) of float32/float64
    (not while tl.compile traces: a replay records NumPy calls), else None."""
    data = x._data
    if data.ndim != 4 or data.dtype not in _KERNEL_DTYPES or tracing_state.active:
        return None
    return _kernels.family("pooling")


def _planes(x: TensorBase) -> np.ndarray:
    n, c, h, w = x._data.shape
    return np.ascontiguousarray(x._data).reshape(n * c, h, w)


def _scatter(grad, index: np.ndarray, shape: tuple):
    """``grad`` (N, C, OH, OW) (array or tensor) added at the flat positions ``index``
    (P, M, or M for every plane) of (N, C, H, W) zeros, as a recorded op for a tensor."""
    n, c, h, w = shape
    planes = n * c
    rows = np.arange(planes)[:, None]
    if is_array(grad):
        out = np.zeros((planes, h * w), grad.dtype)
        np.add.at(out, (rows, index), grad.reshape(planes, -1))
        return out.reshape(shape)
    zeros = wrap(np.zeros((planes, h * w), grad._data.dtype))
    return index_put(zeros, (rows, index), grad.reshape(planes, -1), accumulate=True
                     ).reshape(shape)


class MaxPool2dKernelBackward(Node):
    """Backward of ``max_pool2d``: each output's gradient to its maximum."""

    index: np.ndarray  # (P, OH, OW) flat positions of the maxima
    shape: tuple

    def name(self) -> str:
        """The node's name in graphs and errors."""
        return "MaxPool2DWithIndicesBackward0"

    def backward(self, grad):
        planes = self.index.shape[0]
        kernels = _kernels.family("pooling")
        if is_array(grad) and kernels is not None:
            n, c, h, w = self.shape
            out = np.zeros((planes, h * w), grad.dtype)
            kernels.max_pool2d_backward(
                np.ascontiguousarray(grad).reshape(self.index.shape), self.index, out)
            return (out.reshape(self.shape),)
        return (_scatter(grad, self.index.reshape(planes, -1), self.shape),)


def max_pool2d(x: TensorBase, kernel: tuple, stride: tuple, pads: tuple, dilation: tuple,
               out_sizes: tuple, kernels) -> tuple[TensorBase, np.ndarray]:
    """(values, flat input position of each maximum (N, C, OH, OW) int64) with the kernels."""
    n, c, h, w = x._data.shape
    planes = _planes(x)
    out = np.empty((n * c,) + tuple(out_sizes), x._data.dtype)
    index = np.empty(out.shape, np.int64)
    kernels.max_pool2d_forward(planes, out, index, kernel[0], kernel[1], stride[0], stride[1],
                               pads[0], pads[1], dilation[0], dilation[1])
    values = out.reshape((n, c) + tuple(out_sizes))
    positions = index.reshape(values.shape)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(values), positions
    node = MaxPool2dKernelBackward(x)
    node.index, node.shape = index, (n, c, h, w)
    return wrap(values, node), positions


class AvgPool2dKernelBackward(Node):
    """Backward of ``avg_pool2d``: each output's gradient over its divisor to its window."""

    geometry: tuple  # (kernel, stride, pads, include_pad, override)
    shape: tuple

    def name(self) -> str:
        """The node's name in graphs and errors."""
        return "AvgPool2DBackward0"

    def backward(self, grad):
        (kh, kw), (sh, sw), (ph, pw), include_pad, override = self.geometry
        n, c, h, w = self.shape
        kernels = _kernels.family("pooling")
        if is_array(grad) and kernels is not None:
            out = np.zeros((n * c, h, w), grad.dtype)
            kernels.avg_pool2d_backward(
                np.ascontiguousarray(grad).reshape((n * c,) + grad.shape[2:]), out, kh, kw, sh,
                sw, ph, pw, include_pad, override, np.empty(1, grad.dtype))
            return (out.reshape(self.shape),)
        # every (window, position) pair, as flat indices; the gradient over the divisors
        out_h, out_w = (grad.shape[2], grad.shape[3])
        h0 = np.arange(out_h)[:, None] * sh - ph
        w0 = np.arange(out_w)[None, :] * sw - pw
        divisor = _divisors(h0, w0, self.geometry, h, w)
        pairs_out, pairs_in = [], []
        for i in range(kh):
            for j in range(kw):
                hh, ww = np.broadcast_arrays(h0 + i, w0 + j)
                ok = (hh >= 0) & (hh < h) & (ww >= 0) & (ww < w)
                pairs_out.append(np.flatnonzero(ok))
                pairs_in.append((hh * w + ww)[ok])
        dt = grad.dtype if is_array(grad) else grad._data.dtype
        scaled = grad / (divisor.astype(dt) if is_array(grad) else wrap(divisor.astype(dt)))
        flat = scaled.reshape(n * c, out_h * out_w)
        picked = flat[:, np.concatenate(pairs_out)]
        return (_scatter(picked, np.concatenate(pairs_in), self.shape),)


def _divisors(h0: np.ndarray, w0: np.ndarray, geometry: tuple, h: int, w: int) -> np.ndarray:
    """Each window's divisor (OH, OW), the kernel's rule in NumPy."""
    (kh, kw), _, (ph, pw), include_pad, override = geometry
    if override > 0:
        return np.full(np.broadcast_shapes(h0.shape, w0.shape), override)
    h1, w1 = np.minimum(h0 + kh, h + ph), np.minimum(w0 + kw, w + pw)
    if include_pad:
        return (h1 - h0) * (w1 - w0)
    return (np.minimum(h1, h) - np.maximum(h0, 0)) * (np.minimum(w1, w) - np.maximum(w0, 0))


def avg_pool2d(x: TensorBase, kernel: tuple, stride: tuple, pads: tuple, out_sizes: tuple,
               include_pad: bool, override: int | None, kernels) -> TensorBase:
    """2-d average pooling of (N, C, H, W) ``x`` with the kernels (``override``: PyTorch's
    ``divisor_override``, never 0 here)."""
    n, c, h, w = x._data.shape
    dt = x._data.dtype
    out = np.empty((n * c,) + tuple(out_sizes), dt)
    geometry = (tuple(kernel), tuple(stride), tuple(pads), bool(include_pad), int(override or 0))
    kernels.avg_pool2d_forward(_planes(x), out, kernel[0], kernel[1], stride[0], stride[1],
                               pads[0], pads[1], geometry[3], geometry[4], dt.type(0),
                               np.empty(1, dt))
    values = out.reshape((n, c) + tuple(out_sizes))
    if not (grad_state.enabled and x._requires_grad):
        return wrap(values)
    node = AvgPool2dKernelBackward(x)
    node.geometry, node.shape = geometry, (n, c, h, w)
    return wrap(values, node)
