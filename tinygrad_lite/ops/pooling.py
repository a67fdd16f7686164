"""2-d max and average pooling as single nodes running the compiled ``pooling`` kernels.

``nn.functional``'s pooling builds these from sliding-window views and reductions (the NumPy
reference); with the kernels there, a 2-d float32/float64 pooling is one pass over the input
forward and one over the gradient backward instead (see ``_kernels/source/pooling.py``). The
backward of an array gradient scatters with the kernel (or ``np.add.at`` if the backend was
switched to NumPy in between); under ``create_graph`` it is the same scatter as a recorded
``index_put`` with accumulation, linear in the gradient, so it differentiates again. Each
kernel call is a function of plain arrays that returns fresh ones, run through
``kernel_choice.run_kernels``: while ``tl.compile`` traces, it is recorded as one op that the
replay calls again, so compiled steps pool with the kernels too.
"""

from __future__ import annotations

import numpy as np

from .. import _kernels
from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import is_array, wrap
from .indexing import index_put
from .kernel_choice import run_kernels

__all__ = ["pooling_kernels", "max_pool2d", "avg_pool2d"]

_KERNEL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def pooling_kernels(x: TensorBase):
    """The compiled pooling kernels when they can pool ``x`` (N, C, H, W) of float32/float64,
    else None."""
    data = x._data
    if data.ndim != 4 or data.dtype not in _KERNEL_DTYPES:
        return None
    return _kernels.family("pooling")


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
            return (run_kernels(_max_backward, kernels, grad, self.index, self.shape),)
        return (_scatter(grad, self.index.reshape(planes, -1), self.shape),)


def _max_forward(kernels, x: np.ndarray, geometry: tuple, out_sizes: tuple
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Max pooling's kernel on (N, C, H, W) ``x``: (values, flat positions of the maxima),
    both (N * C, OH, OW)."""
    n, c, h, w = x.shape
    planes = np.ascontiguousarray(x).reshape(n * c, h, w)
    out = np.empty((n * c,) + tuple(out_sizes), x.dtype)
    index = np.empty(out.shape, np.int64)
    kernels.max_pool2d_forward(planes, out, index, *geometry)
    return out, index


def _max_backward(kernels, grad: np.ndarray, index: np.ndarray, shape: tuple) -> np.ndarray:
    """Max pooling's gradient kernel: ``grad`` added at the maxima of (N, C, H, W) zeros."""
    n, c, h, w = shape
    out = np.zeros((index.shape[0], h * w), grad.dtype)
    kernels.max_pool2d_backward(np.ascontiguousarray(grad).reshape(index.shape), index, out)
    return out.reshape(shape)


def max_pool2d(x: TensorBase, kernel: tuple, stride: tuple, pads: tuple, dilation: tuple,
               out_sizes: tuple, kernels) -> tuple[TensorBase, np.ndarray]:
    """(values, flat input position of each maximum (N, C, OH, OW) int64) with the kernels."""
    n, c, h, w = x._data.shape
    geometry = (kernel[0], kernel[1], stride[0], stride[1], pads[0], pads[1], dilation[0],
                dilation[1])
    out, index = run_kernels(_max_forward, kernels, x._data, geometry, tuple(out_sizes))
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
            return (run_kernels(_avg_backward, kernels, grad, self.geometry, self.shape),)
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


def _avg_forward(kernels, x: np.ndarray, geometry: tuple, out_sizes: tuple) -> np.ndarray:
    """Average pooling's kernel on (N, C, H, W) ``x``: (N * C, OH, OW) means."""
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (ph, pw), include_pad, override = geometry
    out = np.empty((n * c,) + tuple(out_sizes), x.dtype)
    kernels.avg_pool2d_forward(np.ascontiguousarray(x).reshape(n * c, h, w), out, kh, kw, sh,
                               sw, ph, pw, include_pad, override, x.dtype.type(0),
                               np.empty(1, x.dtype))
    return out


def _avg_backward(kernels, grad: np.ndarray, geometry: tuple, shape: tuple) -> np.ndarray:
    """Average pooling's gradient kernel: each output's gradient over its divisor, added to
    its window of (N, C, H, W) zeros."""
    n, c, h, w = shape
    (kh, kw), (sh, sw), (ph, pw), include_pad, override = geometry
    out = np.zeros((n * c, h, w), grad.dtype)
    kernels.avg_pool2d_backward(np.ascontiguousarray(grad).reshape((n * c,) + grad.shape[2:]),
                                out, kh, kw, sh, sw, ph, pw, include_pad, override,
                                np.empty(1, grad.dtype))
    return out.reshape(shape)


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
    geometry = (tuple(kernel), tuple(stride), tuple(pads), bool(include_pad), int(override or 0))
    out = run_kernels(_avg_forward, kernels, x._data, geometry, tuple(out_sizes))
    values = out.reshape((n, c) + tuple(out_sizes))
    if not (grad_state.enabled and x._requires_grad):
        return wrap(values)
    node = AvgPool2dKernelBackward(x)
    node.geometry, node.shape = geometry, (n, c, h, w)
    return wrap(values, node)
