"""Primitives owned by ``nn``: im2col (unfold) and its adjoint col2im (fold). They
follow the ops/ design: NumPy forward, backward rules that run on arrays in a plain backward
and on Tensors under ``create_graph`` (unfold and fold are each other's backward).

Why primitives: unfold as a composite would be one getitem per kernel offset plus a concatenation
(not available yet); as a primitive it is one zero-copy ``sliding_window_view`` forward and a
loop over the kh*kw kernel offsets (never over pixels) backward.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from ..dtypes import is_float_dtype
from .common import is_array, masked_bits, wrap
from .movement import permute_rule

__all__ = ["unfold", "fold", "max_pool_blocks"]


# -- im2col / col2im --------------------------------------------------------------------------


def _unfold_array(x: np.ndarray, kernel: tuple, stride: tuple, dilation: tuple) -> np.ndarray:
    k = len(kernel)
    window = tuple((kk - 1) * d + 1 for kk, d in zip(kernel, dilation))
    axes = tuple(range(x.ndim - k, x.ndim))
    view = np.lib.stride_tricks.sliding_window_view(x, window, axis=axes)
    index = ((slice(None),) * (x.ndim - k) + tuple(slice(None, None, s) for s in stride)
             + tuple(slice(None, None, d) for d in dilation))
    return view[index]


def _fold_array(cols: np.ndarray, spatial: tuple, kernel: tuple, stride: tuple,
                dilation: tuple) -> np.ndarray:
    k = len(kernel)
    lead = cols.shape[: cols.ndim - 2 * k]
    out_sizes = cols.shape[cols.ndim - 2 * k: cols.ndim - k]
    out = np.zeros(lead + tuple(spatial), dtype=cols.dtype)
    for offs in itertools.product(*(range(kk) for kk in kernel)):
        target = tuple(slice(o * d, o * d + s * (n - 1) + 1, s)
                       for o, d, s, n in zip(offs, dilation, stride, out_sizes))
        out[(Ellipsis,) + target] += cols[(Ellipsis,) + offs]
    return out


def _unfold_rule(x, kernel, stride, dilation):
    return _unfold_array(x, kernel, stride, dilation) if is_array(x) else \
        unfold(x, kernel, stride, dilation)


def _fold_rule(cols, spatial, kernel, stride, dilation):
    return _fold_array(cols, spatial, kernel, stride, dilation) if is_array(cols) else \
        fold(cols, spatial, kernel, stride, dilation)


class Im2ColBackward0(Node):
    spatial: tuple
    kernel: tuple
    stride: tuple
    dilation: tuple

    def backward(self, grad):
        return (_fold_rule(grad, self.spatial, self.kernel, self.stride, self.dilation),)


class Col2ImBackward0(Node):
    kernel: tuple
    stride: tuple
    dilation: tuple

    def backward(self, grad):
        return (_unfold_rule(grad, self.kernel, self.stride, self.dilation),)


def unfold(x: TensorBase, kernel: tuple, stride: tuple, dilation: tuple) -> TensorBase:
    """Sliding windows over the last ``len(kernel)`` dims: shape ``lead + out + kernel``.

    The result is a read-only strided view of ``x`` (no copy); the window dims come last.
    """
    k = len(kernel)
    spatial = x._data.shape[x._data.ndim - k:]
    for n, kk, d in zip(spatial, kernel, dilation):
        if (kk - 1) * d + 1 > n:
            raise RuntimeError(
                f"unfold: kernel {tuple(kernel)} with dilation {tuple(dilation)} is larger than "
                f"the (padded) input of spatial size {tuple(spatial)}"
            )
    out = _unfold_array(x._data, tuple(kernel), tuple(stride), tuple(dilation))
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = Im2ColBackward0(x)
    node.spatial, node.kernel, node.stride, node.dilation = spatial, kernel, stride, dilation
    return wrap(out, node)


def fold(cols: TensorBase, spatial: tuple, kernel: tuple, stride: tuple,
         dilation: tuple) -> TensorBase:
    """The adjoint of ``unfold``: sums windows ``lead + out + kernel`` back into ``lead +
    spatial`` (overlapping windows add up)."""
    out = _fold_array(cols._data, tuple(spatial), tuple(kernel), tuple(stride), tuple(dilation))
    if not (grad_state.enabled and cols._requires_grad):
        return wrap(out)
    node = Col2ImBackward0(cols)
    node.kernel, node.stride, node.dilation = kernel, stride, dilation
    return wrap(out, node)


# -- max pooling over non-overlapping windows ------------------------------------------------


def _interleave(nlead: int, nd: int) -> tuple:
    """Axis order taking (lead, o1, k1, o2, k2, ...) to (lead, o1, o2, ..., k1, k2, ...)."""
    return tuple(range(nlead)) + tuple(nlead + 2 * i for i in range(nd)) + \
        tuple(nlead + 2 * i + 1 for i in range(nd))


def _offset_views(a: np.ndarray, kernel: tuple) -> list:
    """The strided views of ``a`` holding, for each window offset in row-major order, that
    element of every non-overlapping window over the last ``len(kernel)`` dims."""
    lead = (slice(None),) * (a.ndim - len(kernel))
    return [a[lead + tuple(slice(o, None, k) for o, k in zip(offsets, kernel))]
            for offsets in itertools.product(*(range(k) for k in kernel))]


def _first_offset(views: list, differs: Any) -> np.ndarray:
    """For each window, the index of the first view where ``differs(view)`` is False: the number
    of views passed while it held."""
    count = np.zeros(views[0].shape, np.int8 if len(views) < 128 else np.int64)
    still = differs(views[0])
    for view in views[1:]:
        count += still
        still &= differs(view)
    return count


_MAX_POOL_NAMES = {2: "MaxPool2DWithIndicesBackward0", 3: "MaxPool3DWithIndicesBackward0"}


class MaxPoolBlocksBackward0(Node):
    kernel: tuple
    argmax: np.ndarray  # (lead, *out): the flat window offset of each maximum

    def name(self) -> str:
        """PyTorch's name for its 2-d and 3-d max pooling node (its 1-d pooling is a 2-d one
        between an unsqueeze and a squeeze: no node of its own to match)."""
        return _MAX_POOL_NAMES.get(len(self.kernel), "MaxPoolBlocksBackward0")

    def backward(self, grad):
        kernel, nd = self.kernel, len(self.kernel)
        if is_array(grad):  # each window offset's positions written once, strided
            lead_out = self.argmax.shape
            out = np.empty(lead_out[:len(lead_out) - nd] + tuple(
                o * k for o, k in zip(lead_out[len(lead_out) - nd:], kernel)), grad.dtype)
            views = _offset_views(out, kernel)
            for index, view in enumerate(views):
                # the gradient where this offset holds the maximum, +0.0 elsewhere, exactly
                # (an inf or NaN gradient gives 0 where it is not the maximum, as in PyTorch)
                if masked_bits(grad, self.argmax == index, out=view) is None:
                    np.copyto(view, 0)
                    np.copyto(view, grad, where=self.argmax == index)
            return (out,)
        nlead = self.argmax.ndim - nd
        # create_graph: the gradient as a product with a one-hot mask, recorded (linear in grad)
        onehot = self.argmax[..., None] == np.arange(int(np.prod(kernel)))
        windows = grad.unsqueeze(-1) * wrap(onehot.astype(grad._data.dtype))
        outs = tuple(self.argmax.shape[nlead:])
        lead = tuple(self.argmax.shape[:nlead])
        windows = windows.reshape(lead + outs + kernel)
        # the inverse of the forward's interleave, then the blocks back into the spatial dims
        inverse = tuple(np.argsort(_interleave(nlead, nd)))
        spatial = tuple(o * k for o, k in zip(outs, kernel))
        return (permute_rule(windows, inverse).reshape(lead + spatial),)


def max_pool_blocks(x: TensorBase, kernel: tuple) -> tuple[TensorBase, np.ndarray]:
    """Max pooling with stride == kernel over spatial dims that are multiples of the kernel:
    (values, flat window offset of each maximum). The strided view of each window offset is
    copied once into a contiguous stack: the maximum is one reduction over the offsets, the
    offset of the first maximum the count of offsets passed before it (no argmax over a short
    last axis: 8x faster); backward writes each offset's gradients through strided views of the
    result instead of ``np.add.at``. The first
    maximum of a window wins, and NaN counts as the maximum, as in PyTorch."""
    a = x._data
    # one de-interleaving copy (offset, lead, *out): the passes below then run on contiguous
    # arrays, several times faster than on the strided views
    stacked = np.stack(_offset_views(a, tuple(kernel)))
    views = [stacked[i] for i in range(stacked.shape[0])]
    values = stacked.max(axis=0)  # NaN propagates, as PyTorch's max does
    argmax = _first_offset(views, lambda v: v != values)
    if is_float_dtype(a.dtype):
        nan_windows = np.isnan(values)
        # there the first NaN is the maximum (while tl.compile traces, reading ``any()`` records
        # a check: a replay where it goes the other way runs eagerly)
        if nan_windows.any():
            first_nan = _first_offset(views, lambda v: ~np.isnan(v))
            argmax = np.where(nan_windows, first_nan, argmax)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(values), argmax
    node = MaxPoolBlocksBackward0(x)
    node.kernel, node.argmax = tuple(kernel), argmax
    return wrap(values, node), argmax
