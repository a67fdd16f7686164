"""Batch and layer normalisation as one primitive each (``NativeBatchNormBackward0``,
``NativeLayerNormBackward0``, PyTorch's names).

Composed from mean, subtract, variance, sqrt, divide, scale and shift, a normalisation records
about ten nodes, each a pass over the activation, and its backward as many again. Here the
forward makes the statistics once and saves the normalised input and ``1 / std``; the backward
is the closed form

    dx = rstd * (g' - mean(g') - xhat * mean(g' * xhat)),   g' = grad * weight,

with the weight and bias gradients as sums of ``grad * xhat`` and ``grad``. Under
``create_graph`` the same formula runs on tensors recomputed from the input, so it is recorded
and differentiates again.

With the compiled kernels on (family ``normalization``), layer norm over trailing dims, RMS norm
and batch norm (training and eval) of contiguous float32/float64 inputs run a kernel per row or
channel instead: statistics and output in two or three passes over data in cache, and the
backward likewise. Under ``create_graph`` the recorded rules run as before.
"""

from __future__ import annotations

import math

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import EINSUM_MAX_TERMS, FAST_FLOATS, array_of, is_array, last_axis_dot, sum_to, wrap
from .kernel_choice import kernels_for, run, run_kernels

__all__ = ["normalize_affine", "batch_norm_training", "batch_norm_eval", "batch_norm_fast_ok",
           "rms_norm"]


def _param(a: np.ndarray | None, dtype: np.dtype) -> tuple[np.ndarray, bool]:
    """An optional weight or bias as a flat array for the kernels, and whether it is there."""
    if a is None:
        return np.empty(0, dtype), False
    return np.ascontiguousarray(a).reshape(-1), True


def _array_or_none(t) -> np.ndarray | None:
    return None if t is None else array_of(t)


# -- the kernel paths: plain arrays in, fresh arrays out (see kernel_choice.run_kernels) ----------


def _layer_norm_path(kern, data: np.ndarray, weight: np.ndarray | None,
                     bias: np.ndarray | None, rows: tuple, eps: float) -> tuple:
    """(xhat, out, mean, variance, rstd) of layer norm over (rows, length); statistics (rows,)."""
    dt = data.dtype
    w, has_w = _param(weight, dt)
    b, has_b = _param(bias, dt)
    xhat, out = np.empty_like(data), np.empty_like(data)
    mean, variance, rstd = (np.empty(rows[0], dt) for _ in range(3))
    run(kern, "layer_norm_forward", data.size, data.reshape(rows), w, b, has_w, has_b,
        dt.type(eps), dt.type(1), xhat.reshape(rows), out.reshape(rows), mean, variance, rstd)
    return xhat, out, mean, variance, rstd


def _layer_norm_grad_path(kern, grad: np.ndarray, weight: np.ndarray | None, xhat: np.ndarray,
                          rstd: np.ndarray, rows: tuple) -> tuple:
    """(dx, dw, db) of layer norm, the parameter gradients (length,) in float64."""
    w, has_w = _param(weight, grad.dtype)
    dx = np.empty_like(grad)
    dw, db = np.zeros(rows[1]), np.zeros(rows[1])
    run(kern, "layer_norm_backward", grad.size, grad.reshape(rows), w, has_w,
        xhat.reshape(rows), rstd.reshape(-1), dx.reshape(rows), dw, db)
    return dx, dw, db


def _rms_norm_path(kern, data: np.ndarray, weight: np.ndarray | None, rows: tuple,
                   eps: float) -> tuple:
    """(out, rstd) of RMS norm over (rows, length); rstd (rows,)."""
    dt = data.dtype
    w, has_w = _param(weight, dt)
    out, rstd = np.empty_like(data), np.empty(rows[0], dt)
    run(kern, "rms_norm_forward", data.size, data.reshape(rows), w, has_w, dt.type(eps),
        dt.type(1), out.reshape(rows), rstd)
    return out, rstd


def _rms_norm_grad_path(kern, grad: np.ndarray, x: np.ndarray, weight: np.ndarray | None,
                        rstd: np.ndarray, rows: tuple) -> tuple:
    """(dx, dw) of RMS norm, the weight's gradient (length,) in float64."""
    w, has_w = _param(weight, x.dtype)
    dx, dw = np.empty_like(x), np.zeros(rows[1])
    run(kern, "rms_norm_backward", x.size, grad.reshape(rows), x.reshape(rows), w, has_w,
        rstd.reshape(-1), dx.reshape(rows), dw)
    return dx, dw


def _batch_norm_path(kern, d3: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None,
                     eps: float) -> tuple:
    """(out, mean, variance, rstd) of training-mode batch norm of (N, C, L); statistics (C,)."""
    dt, c = d3.dtype, d3.shape[1]
    w, has_w = _param(weight, dt)
    b, has_b = _param(bias, dt)
    out = np.empty_like(d3)
    mean, variance, rstd = (np.empty(c, dt) for _ in range(3))
    run(kern, "batch_norm_forward", d3.size, d3, w, b, has_w, has_b, dt.type(eps), dt.type(1),
        out, mean, variance, rstd)
    return out, mean, variance, rstd


def _batch_norm_grad_path(kern, g: np.ndarray, x3: np.ndarray, mean: np.ndarray,
                          rstd: np.ndarray, scale: np.ndarray, count: int, want_dx: bool
                          ) -> tuple:
    """(dx or an empty array, sum(g), sum(g * (x - mean))) per channel of (N, C, L)."""
    dt = g.dtype
    dx = np.empty_like(g) if want_dx else np.empty((0, 0, 0), dt)
    grad_sum, dot = np.empty(g.shape[1], dt), np.empty(g.shape[1], dt)
    run(kern, "batch_norm_backward", g.size, g, x3, mean, rstd, scale, dt.type(count),
        want_dx, dx, grad_sum, dot)
    return dx, grad_sum, dot


def _channel_affine_path(kern, d3: np.ndarray, scale: np.ndarray, shift: np.ndarray
                         ) -> np.ndarray:
    """``d3 * scale + shift`` per channel of (N, C, L)."""
    out = np.empty_like(d3)
    run(kern, "channel_affine", d3.size, d3, scale, shift, out)
    return out


def _mean(v, dims: tuple):
    """The mean over ``dims`` keeping them, for arrays and (recorded) tensors alike."""
    if is_array(v):
        return v.mean(axis=dims, keepdims=True)
    return v.mean(dims, keepdim=True)


def _trailing_rows(a: np.ndarray, dims: tuple) -> tuple[int, int] | None:
    """(rows, row length) when ``dims`` are the trailing dims of the array ``a`` (layer norm);
    else None."""
    k = len(dims)
    if not k or sorted(d % a.ndim for d in dims) != list(range(a.ndim - k, a.ndim)):
        return None
    length = math.prod(a.shape[a.ndim - k:])
    return (a.size // length, length) if length else None


def _mean_of_product(a: np.ndarray, b: np.ndarray, dims: tuple) -> np.ndarray:
    """``mean(a * b)`` over ``dims``, keeping them (for layer norm's trailing rows one einsum
    pass with no product array, ``last_axis_dot``)."""
    # (16-bit floats: NumPy's mean accumulates them in float32)
    rows = _trailing_rows(a, dims) if a.shape == b.shape and a.dtype in FAST_FLOATS else None
    if rows is None:
        return np.multiply(a, b).mean(axis=dims, keepdims=True)
    dot = last_axis_dot(a.reshape(rows), b.reshape(rows))
    dot /= rows[1]
    return dot.reshape(tuple(n if i < a.ndim - len(dims) else 1 for i, n in enumerate(a.shape)))


def _sum_of_product_to(a: np.ndarray, b: np.ndarray, shape: tuple) -> np.ndarray:
    """``sum_to(a * b, shape)``: for a ``shape`` that is the trailing shape of contiguous
    ``a`` and ``b`` (layer norm's weight), one einsum pass with no product array."""
    n = math.prod(shape)
    rows = a.size // n if n else 0
    if (a.shape == b.shape and a.flags.c_contiguous and b.flags.c_contiguous
            and 0 < rows <= EINSUM_MAX_TERMS and a.dtype in FAST_FLOATS and a.dtype == b.dtype
            and a.shape[a.ndim - len(shape):] == tuple(shape)):
        return np.einsum("ij,ij->j", a.reshape(rows, n), b.reshape(rows, n)).reshape(shape)
    return sum_to(a * b, shape)


def _statistics(x, dims: tuple, eps: float):
    """``(x - mean) * rstd`` and ``rstd`` (arrays, or tensors under create_graph)."""
    centred = x - _mean(x, dims)
    variance = _mean(centred * centred, dims)
    rstd = (variance + eps) ** -0.5
    return centred * rstd, rstd


def _constant_over(shape: tuple, dims: tuple, ndim: int) -> bool:
    """Whether an array of ``shape``, broadcast (right-aligned) against ``ndim`` dims, has size
    1 along every one of ``dims``."""
    offset = ndim - len(shape)
    return all(d % ndim - offset < 0 or shape[d % ndim - offset] == 1 for d in dims)


class NormalizeBackward(Node):
    """The backward of batch and layer normalisation (named after the op that made it)."""

    label: str
    dims: tuple
    eps: float
    has_weight: bool
    has_bias: bool

    def name(self) -> str:
        """PyTorch's node name for the op."""
        return self.label

    def backward(self, grad):
        saved = self.saved_tensors
        x, xhat, rstd = saved[0], saved[1], saved[2]
        weight = saved[3] if self.has_weight else None
        if is_array(x) and is_array(grad) and grad.shape == x.shape:
            kern = None
            if self.label == "NativeLayerNormBackward0":
                rows = _layer_norm_rows(x, self.dims, weight, None)
                kern = kernels_for("normalization", grad, xhat) if rows is not None else None
            if kern is not None and rows is not None:
                return self._backward_kernel(kern, grad, xhat, rstd, weight, rows)
        if not is_array(x):  # create_graph: rebuild the statistics as recorded tensor ops
            xhat, rstd = _statistics(x, self.dims, self.eps)
        elif weight is None or _constant_over(weight.shape, self.dims, x.ndim):
            return self._backward_per_channel(grad, xhat, rstd, weight)
        edges = self.next_edges
        scaled = grad if weight is None else grad * weight
        if is_array(grad):  # arrays: the same formula in one buffer, the row dots by einsum
            return self._backward_arrays(grad, scaled, xhat, rstd, weight, edges)
        grad_x = None
        if edges[0]:
            grad_x = rstd * (scaled - _mean(scaled, self.dims)
                             - xhat * _mean(scaled * xhat, self.dims))
        results = [grad_x]
        if self.has_weight:
            results.append(sum_to(grad * xhat, weight.shape) if edges[1] else None)
        if self.has_bias:
            results.append(sum_to(grad, self.bias_shape) if edges[-1] else None)
        return tuple(results)

    bias_shape: tuple

    def _backward_kernel(self, kern, grad: np.ndarray, xhat: np.ndarray, rstd: np.ndarray,
                         weight: np.ndarray | None, rows: tuple[int, int]) -> tuple:
        """Layer norm's three gradients by the kernel (one pass over the rows)."""
        dt = grad.dtype
        dx, dw, db = run_kernels(_layer_norm_grad_path, kern, grad, weight, xhat, rstd, rows)
        edges = self.next_edges
        results = [dx if edges[0] else None]
        if weight is not None:
            results.append(dw.astype(dt).reshape(weight.shape) if edges[1] else None)
        if self.has_bias:
            results.append(db.astype(dt).reshape(self.bias_shape) if edges[-1] else None)
        return tuple(results)

    def _backward_arrays(self, grad: np.ndarray, scaled: np.ndarray, xhat: np.ndarray,
                         rstd: np.ndarray, weight: np.ndarray | None, edges: tuple) -> tuple:
        """``rstd * (scaled - mean(scaled) - xhat * mean(scaled * xhat))`` on arrays with one
        fresh buffer (``scaled`` is the gradient itself without a weight: only read)."""
        grad_x = None
        if edges[0]:
            grad_x = np.multiply(xhat, _mean_of_product(scaled, xhat, self.dims))
            np.subtract(scaled, grad_x, out=grad_x)
            grad_x -= scaled.mean(axis=self.dims, keepdims=True)
            grad_x *= rstd
        results = [grad_x]
        if weight is not None:
            results.append(_sum_of_product_to(grad, xhat, weight.shape) if edges[1] else None)
        if self.has_bias:
            results.append(sum_to(grad, self.bias_shape) if edges[-1] else None)
        return tuple(results)

    def _backward_per_channel(self, grad: np.ndarray, xhat: np.ndarray, rstd: np.ndarray,
                              weight: np.ndarray | None) -> tuple:
        """The same formula on arrays when the weight is constant over the normalised dims
        (batch norm): it factors out of the means, and the two sums the input gradient needs
        are the bias and weight gradients, so seven passes over the activation instead of
        eleven."""
        dims, edges = self.dims, self.next_edges
        count = grad.size // max(rstd.size, 1)  # (an empty input: no statistics, no count)
        grad_sum = grad.sum(axis=dims, keepdims=True)
        product = grad * xhat
        product_sum = product.sum(axis=dims, keepdims=True)
        grad_x = None
        if edges[0]:
            scale = rstd if weight is None else rstd * weight
            grad_x = grad - grad_sum / count
            np.multiply(xhat, product_sum / count, out=product)
            grad_x -= product
            grad_x *= scale
        results = [grad_x]
        if weight is not None:
            results.append(sum_to(product_sum, weight.shape) if edges[1] else None)
        if self.has_bias:
            results.append(sum_to(grad_sum, self.bias_shape) if edges[-1] else None)
        return tuple(results)


def _layer_norm_rows(data: np.ndarray, dims: tuple, weight, bias) -> tuple[int, int] | None:
    """(rows, row length) when ``dims`` are ``data``'s trailing dims and the weight and bias
    (when given) have exactly their shape and ``data``'s dtype: the layer-norm kernels' case."""
    rows = _trailing_rows(data, dims) if data.ndim else None
    if rows is None:
        return None
    trailing = data.shape[data.ndim - len(dims):]
    for t in (weight, bias):
        if t is not None and (array_of(t).shape != trailing or array_of(t).dtype != data.dtype):
            return None
    return rows


def _kept_shape(data: np.ndarray, dims: tuple) -> tuple:
    """``data``'s shape with ``dims`` (trailing) kept as size 1: the statistics' shape."""
    return data.shape[:data.ndim - len(dims)] + (1,) * len(dims)


def _layer_norm_kernel(kern, data: np.ndarray, rows: tuple[int, int], dims: tuple, weight,
                       bias, eps: float) -> tuple:
    """(xhat, out, mean, variance, rstd) of layer norm by the kernel, the statistics with
    ``dims`` kept as size 1."""
    xhat, out, mean, variance, rstd = run_kernels(
        _layer_norm_path, kern, data, _array_or_none(weight), _array_or_none(bias), rows, eps)
    kept = _kept_shape(data, dims)
    return xhat, out, mean.reshape(kept), variance.reshape(kept), rstd.reshape(kept)


def normalize_affine(x: TensorBase, dims: tuple, weight: TensorBase | None,
                     bias: TensorBase | None, eps: float, label: str
                     ) -> tuple[TensorBase, np.ndarray, np.ndarray]:
    """``(x - mean) / sqrt(var + eps) * weight + bias`` with the statistics over ``dims``
    (``weight`` and ``bias`` already shaped to broadcast against ``x``); also returns the
    batch mean and biased variance (arrays, for running statistics)."""
    data = x._data
    rows = _layer_norm_rows(data, dims, weight, bias)
    kern = kernels_for("normalization", data) if rows is not None else None
    if kern is not None and rows is not None:
        xhat, out, mean, variance, rstd = _layer_norm_kernel(kern, data, rows, dims, weight,
                                                             bias, eps)
    else:
        mean = data.mean(axis=dims, keepdims=True)
        centred = data - mean
        variance = _mean_of_product(centred, centred, dims)
        rstd = np.reciprocal(np.sqrt(variance + eps))
        xhat = centred
        xhat *= rstd
        out = xhat * weight._data if weight is not None else xhat.copy()
        if bias is not None:
            out += bias._data
    inputs = [t for t in (x, weight, bias) if t is not None]
    if not (grad_state.enabled and any(t._requires_grad for t in inputs)):
        return wrap(out), mean, variance
    node = NormalizeBackward(*inputs)
    node.label, node.dims, node.eps = label, dims, eps
    node.has_weight, node.has_bias = weight is not None, bias is not None
    if bias is not None:
        node.bias_shape = bias._data.shape
    node.save_for_backward(x, wrap(xhat), wrap(rstd), *([weight] if weight is not None else []))
    return wrap(out, node), mean, variance


# -- batch normalisation over (N, C, *spatial), per channel --------------------------------------


def batch_norm_fast_ok(x: TensorBase, weight: TensorBase | None,
                       bias: TensorBase | None) -> bool:
    """Whether ``batch_norm_training`` / ``batch_norm_eval`` take ``x`` (single or double
    precision, the affine parameters of the same dtype; other dtypes keep the general rule)."""
    dt = x._data.dtype
    return dt in FAST_FLOATS and all(t is None or t._data.dtype == dt for t in (weight, bias))


def _channel_rows(a: np.ndarray, n: int, c: int) -> np.ndarray:
    """``a`` (N, C, *S) as a contiguous (N, C, L) array (a view when it is contiguous)."""
    return np.ascontiguousarray(a).reshape(n, c, -1)


def _spread(vec: np.ndarray, length: int) -> np.ndarray:
    """A per-channel vector (C,) as a (C, L) block, each value repeated over its channel's L
    positions: an (N, C, L) operand against it runs NumPy's contiguous loops (about twice as
    fast as broadcasting a (C, 1) column)."""
    return np.repeat(vec, length).reshape(vec.shape[0], length)


def _channel_sum(a3: np.ndarray) -> np.ndarray:
    """Per-channel sum of an (N, C, L) array: one pass (blocked accumulation, as accurate as
    ``sum`` here)."""
    return np.einsum("ncl->c", a3)


def _channel_dot(a3: np.ndarray, b3: np.ndarray) -> np.ndarray:
    """Per-channel ``sum(a * b)`` of two (N, C, L) arrays, one pass and no temporary."""
    return np.einsum("ncl,ncl->c", a3, b3)


class BatchNormBackward(NormalizeBackward):
    """The backward of training-mode batch norm; saves the centred input (N, C, L) (the kernels:
    the per-channel mean instead) and the per-channel ``1 / std``. Under ``create_graph`` it
    runs the general recorded rule."""

    count: int

    def backward(self, grad):
        saved = self.saved_tensors
        x = saved[0]
        if not is_array(x):  # create_graph: the general rule, recorded
            return super().backward(grad)
        # (N, C, L) centred input, or with the kernels' forward the mean (C,); rstd (C,)
        centred, rstd = saved[1], saved[2]
        weight = saved[3].reshape(-1) if self.has_weight else None
        edges = self.next_edges
        n, c = x.shape[:2]
        g = _channel_rows(grad, n, c)
        count = self.count
        if self.kept_mean:
            x3 = _channel_rows(x, n, c)
            kern = kernels_for("normalization", g, x3)
            if kern is not None:
                return self._channel_kernel(kern, g, x3, centred, rstd, weight, x.shape)
            centred = np.subtract(x3, _spread(centred, x3.shape[2]))
        else:
            kern = kernels_for("normalization", g, centred)
            if kern is not None:  # the centred input is x - 0
                return self._channel_kernel(kern, g, centred, np.zeros_like(rstd), rstd,
                                           weight, x.shape)
        grad_sum = _channel_sum(g)  # the bias gradient
        dot = _channel_dot(g, centred)  # sum(g * xhat) = rstd * dot: the weight gradient
        grad_x = None
        if edges[0]:
            # dx = w * rstd * (g - sum(g) / M - xhat * sum(g * xhat) / M), with xhat = centred *
            # rstd: the two per-channel sums once, then three passes on one fresh buffer
            scale = rstd if weight is None else rstd * weight
            length = centred.shape[2]
            grad_x = np.multiply(centred, _spread(rstd * rstd * dot / count, length))
            grad_x += _spread(grad_sum / count, length)
            np.subtract(g, grad_x, out=grad_x)
            grad_x *= _spread(scale, length)
            grad_x = grad_x.reshape(x.shape)
        results = [grad_x]
        if self.has_weight:
            results.append((dot * rstd).reshape(self.weight_shape) if edges[1] else None)
        if self.has_bias:
            results.append(grad_sum.reshape(self.bias_shape) if edges[-1] else None)
        return tuple(results)

    weight_shape: tuple

    kept_mean: bool  # whether saved[1] is the mean (the kernels' forward) or the centred input

    def _channel_kernel(self, kern, g: np.ndarray, x3: np.ndarray, mean: np.ndarray,
                        rstd: np.ndarray, weight: np.ndarray | None, shape: tuple) -> tuple:
        """The three gradients by the kernel: per channel the two sums, then the input
        gradient in one more pass (``x3 - mean`` is the centred input)."""
        edges = self.next_edges
        scale = rstd if weight is None else rstd * weight
        dx, grad_sum, dot = run_kernels(_batch_norm_grad_path, kern, g, x3, mean, rstd, scale,
                                        self.count, bool(edges[0]))
        results = [dx.reshape(shape) if edges[0] else None]
        if self.has_weight:
            results.append((dot * rstd).reshape(self.weight_shape) if edges[1] else None)
        if self.has_bias:
            results.append(grad_sum.reshape(self.bias_shape) if edges[-1] else None)
        return tuple(results)


def batch_norm_training(x: TensorBase, weight: TensorBase | None, bias: TensorBase | None,
                        eps: float) -> tuple[TensorBase, np.ndarray, np.ndarray]:
    """Training-mode batch norm of ``x`` (N, C, *S) over all dims but 1 (``weight`` and
    ``bias`` shaped (1, C, 1, ...)), for ``batch_norm_fast_ok`` inputs; also returns the batch
    mean and biased variance, shape (C,). Forward: a sum for the mean, the centred copy, a
    dot for the variance, then ``centred * (w * rstd) + b`` (two passes); only the centred copy
    and ``rstd`` are kept for backward."""
    data = x._data
    n, c = data.shape[:2]
    d3 = _channel_rows(data, n, c)
    count = d3.size // c
    length = d3.shape[2]
    inputs = [t for t in (x, weight, bias) if t is not None]
    needs_grad = grad_state.enabled and any(t._requires_grad for t in inputs)
    kern = kernels_for("normalization", d3)
    if kern is not None:
        out, mean, variance, rstd = run_kernels(
            _batch_norm_path, kern, d3, _array_or_none(weight), _array_or_none(bias), eps)
        centred = mean  # what the backward keeps: the mean, not a centred copy
    else:
        mean = _channel_sum(d3) / count
        centred = np.subtract(d3, _spread(mean, length))
        variance = _channel_dot(centred, centred) / count
        rstd = np.reciprocal(np.sqrt(variance + eps))
        scale = rstd if weight is None else rstd * weight._data.reshape(-1)
        # without a backward the centred copy is not kept: the result is written over it
        out = np.multiply(centred, _spread(scale, length), out=None if needs_grad else centred)
        if bias is not None:
            out += _spread(bias._data.reshape(-1), length)
    out = out.reshape(data.shape)
    if not needs_grad:
        return wrap(out), mean, variance
    node = BatchNormBackward(*inputs)
    node.label, node.dims, node.eps = ("NativeBatchNormBackward0",
                                       (0,) + tuple(range(2, data.ndim)), eps)
    node.has_weight, node.has_bias, node.count = weight is not None, bias is not None, count
    node.kept_mean = kern is not None
    if weight is not None:
        node.weight_shape = weight._data.shape
    if bias is not None:
        node.bias_shape = bias._data.shape
    node.save_for_backward(x, wrap(centred), wrap(rstd),
                           *([weight] if weight is not None else []))
    return wrap(out, node), mean, variance


class BatchNormEvalBackward(Node):
    """The backward of batch norm with fixed statistics: ``x * scale + shift`` per channel."""

    mean: np.ndarray  # (C,) copies of the statistics the forward used
    rstd: np.ndarray
    has_weight: bool
    has_bias: bool

    def name(self) -> str:
        """PyTorch's node name for the op."""
        return "NativeBatchNormBackward0"

    def backward(self, grad):
        saved = self.saved_tensors
        x = saved[0]
        weight = saved[1] if self.has_weight else None
        edges = self.next_edges
        bshape = (1, -1) + (1,) * (x.ndim - 2)
        mean, rstd = self.mean.reshape(bshape), self.rstd.reshape(bshape)
        dims = (0,) + tuple(range(2, x.ndim))
        results = []
        if not is_array(x):  # create_graph: recorded tensor ops, differentiable again
            xhat = (x - wrap(mean)) * wrap(rstd)
            results.append((grad * (wrap(rstd) if weight is None else weight * wrap(rstd)))
                           if edges[0] else None)
            if self.has_weight:
                results.append(sum_to(grad * xhat, weight.shape) if edges[1] else None)
            if self.has_bias:
                results.append(sum_to(grad, self.bias_shape) if edges[-1] else None)
            return tuple(results)
        scale = rstd if weight is None else rstd * weight
        results.append(np.multiply(grad, scale) if edges[0] else None)
        if self.has_weight:
            gw = None
            if edges[1]:
                n, c = x.shape[:2]
                x3 = _channel_rows(x, n, c)
                centred = x3 - _spread(self.mean, x3.shape[2])
                gw = (_channel_dot(_channel_rows(grad, n, c), centred) * self.rstd
                      ).reshape(weight.shape)
            results.append(gw)
        if self.has_bias:
            results.append(grad.sum(axis=dims).reshape(self.bias_shape) if edges[-1] else None)
        return tuple(results)

    bias_shape: tuple


def batch_norm_eval(x: TensorBase, mean: np.ndarray, var: np.ndarray,
                    weight: TensorBase | None, bias: TensorBase | None, eps: float
                    ) -> TensorBase:
    """Batch norm with fixed per-channel statistics ``mean`` and ``var`` (C,) as one affine
    map, PyTorch's ``x * alpha + beta`` with ``alpha = weight / sqrt(var + eps)`` and ``beta =
    bias - mean * alpha`` (two passes); ``weight`` and ``bias`` shaped (1, C, 1, ...)."""
    data = x._data
    dt = data.dtype
    bshape = (1, -1) + (1,) * (data.ndim - 2)
    mean = np.array(mean, dt).reshape(-1)  # copies: the running statistics change in place
    rstd = np.reciprocal(np.sqrt(np.asarray(var, dt).reshape(-1) + eps))
    scale = rstd if weight is None else rstd * weight._data.reshape(-1)
    shift = -mean * scale
    if bias is not None:
        shift += bias._data.reshape(-1)
    kern = kernels_for("normalization", data) if data.ndim >= 2 and data.shape[1] else None
    if kern is not None:  # one pass: x * scale + shift per channel
        d3 = data.reshape(data.shape[0], scale.shape[0], -1)
        out = run_kernels(_channel_affine_path, kern, d3, scale, shift).reshape(data.shape)
    elif data.flags.c_contiguous:  # per-channel blocks: NumPy's contiguous loops
        d3 = data.reshape(data.shape[0], scale.shape[0], -1)
        out = np.multiply(d3, _spread(scale, d3.shape[2]))
        out += _spread(shift, d3.shape[2])
        out = out.reshape(data.shape)
    else:
        out = np.multiply(data, scale.reshape(bshape))
        out += shift.reshape(bshape)
    inputs = [t for t in (x, weight, bias) if t is not None]
    if not (grad_state.enabled and any(t._requires_grad for t in inputs)):
        return wrap(out)
    node = BatchNormEvalBackward(*inputs)
    node.mean, node.rstd = mean, rstd
    node.has_weight, node.has_bias = weight is not None, bias is not None
    if bias is not None:
        node.bias_shape = bias._data.shape
    node.save_for_backward(x, *([weight] if weight is not None else []))
    return wrap(out, node)


# -- RMS normalisation over trailing dims (the kernel path of nn.functional.rms_norm) -----------


class RmsNormBackward(Node):
    """The backward of ``x * rstd * weight``, ``rstd = 1 / sqrt(mean(x^2) + eps)`` over the
    trailing ``dims``: ``dx = rstd * (g' - xhat * mean(g' * xhat))``, ``g' = grad * weight``,
    ``xhat = x * rstd``; the weight's gradient is ``sum(grad * xhat)`` over the rows."""

    dims: tuple
    eps: float
    has_weight: bool

    def name(self) -> str:
        """PyTorch's CPU ``rms_norm`` is a composite ending in a product: its node's name."""
        return "MulBackward0"

    def backward(self, grad):
        saved = self.saved_tensors
        x, rstd = saved[0], saved[1]
        weight = saved[2] if self.has_weight else None
        edges, dims = self.next_edges, self.dims
        if not is_array(x):  # create_graph: the same rule in recorded tensor ops
            rstd = ((x * x).mean(dims, keepdim=True) + self.eps) ** -0.5
            xhat = x * rstd
            scaled = grad if weight is None else grad * weight
            grad_x = rstd * (scaled - xhat * (scaled * xhat).mean(dims, keepdim=True))
            grad_w = sum_to(grad * xhat, weight.shape) if weight is not None else None
            return (grad_x if edges[0] else None,) + ((grad_w if edges[1] else None,)
                                                     if self.has_weight else ())
        rows = _layer_norm_rows(x, dims, weight, None)
        kern = None
        if rows is not None and is_array(grad) and grad.shape == x.shape:
            kern = kernels_for("normalization", grad, x)
        if kern is not None and rows is not None:
            grad_x, grad_w64 = run_kernels(_rms_norm_grad_path, kern, grad, x, weight, rstd,
                                           rows)
            grad_w = None if weight is None else grad_w64.astype(x.dtype).reshape(weight.shape)
        else:
            xhat = x * rstd
            scaled = grad if weight is None else grad * weight
            grad_x = np.multiply(xhat, _mean_of_product(scaled, xhat, dims))
            np.subtract(scaled, grad_x, out=grad_x)
            grad_x *= rstd
            grad_w = None
            if weight is not None and edges[1]:
                grad_w = _sum_of_product_to(grad, xhat, weight.shape)
        return (grad_x if edges[0] else None,) + ((grad_w if edges[1] else None,)
                                                 if self.has_weight else ())


def rms_norm(x: TensorBase, dims: tuple, weight: TensorBase | None, eps: float
             ) -> TensorBase | None:
    """``x * rstd * weight`` over the trailing ``dims`` as one node, by the kernel, for inputs
    that take it (contiguous float32/float64, the weight of the trailing shape and dtype);
    None otherwise (the caller's composite runs)."""
    data = x._data
    rows = _layer_norm_rows(data, dims, weight, None)
    kern = kernels_for("normalization", data) if rows is not None else None
    if kern is None or rows is None:
        return None
    out, rstd = run_kernels(_rms_norm_path, kern, data, _array_or_none(weight), rows, eps)
    inputs = [t for t in (x, weight) if t is not None]
    if not (grad_state.enabled and any(t._requires_grad for t in inputs)):
        return wrap(out)
    node = RmsNormBackward(*inputs)
    node.dims, node.eps, node.has_weight = dims, eps, weight is not None
    node.save_for_backward(x, wrap(rstd.reshape(_kept_shape(data, dims))),
                           *([weight] if weight is not None else []))
    return wrap(out, node)
