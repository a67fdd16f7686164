"""index_put: writing values at an index, out of place (the primitive behind ``x[idx] = v``,
scatter and masked writes). One primitive with a two-sided backward: the gradient of ``x`` is
zero where it was overwritten, and ``values`` gets the gradient read back at the index."""

from __future__ import annotations

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import as_tensor, constant, is_array, sum_to, wrap
from .elementwise import cast
from .elementwise import where_rule as where
from .movement import add_at, normalize_index, put_at, read_at


class IndexPutBackward0(Node):
    index: tuple  # normalized, see normalize_index
    accumulate: bool
    values_shape: tuple[int, ...]
    written: np.ndarray  # bool mask of the overwritten elements (not accumulate)

    def backward(self, grad):
        ex, ev = self.next_edges
        grad_x = grad_v = None
        if ex:
            grad_x = grad if self.accumulate else where(constant(self.written, grad), 0.0, grad)
        if ev:
            picked = read_at(grad, self.index) if is_array(grad) else grad[self.index]
            grad_v = sum_to(picked, self.values_shape)
        return grad_x, grad_v


def index_put(x: TensorBase, index, values, accumulate: bool = False,
              op: str = "index_put") -> TensorBase:
    """A copy of ``x`` with ``values`` (broadcast) written at ``index``, or added there when
    ``accumulate`` (repeated indices then add up)."""
    index = normalize_index(index)
    values = as_tensor(values, x)
    if values._data.dtype != x._data.dtype:
        values = cast(values, x._data.dtype)
    out = x._data.copy()
    try:
        if accumulate:
            add_at(out, index, values._data)
        else:
            put_at(out, index, values._data)
    except IndexError as err:
        raise IndexError(f"{op}: {err} (indexing a tensor of shape {x._data.shape})") from None
    except ValueError:
        raise RuntimeError(
            f"{op}: shape mismatch: value tensor of shape {values._data.shape} cannot be broadcast "
            f"to indexing result of shape {np.shape(x._data[index])}"
        ) from None
    if not (grad_state.enabled and (x._requires_grad or values._requires_grad)):
        return wrap(out)
    node = IndexPutBackward0(x, values)
    node.index, node.accumulate, node.values_shape = index, accumulate, values._data.shape
    if x._requires_grad and not accumulate:
        written = np.zeros(x._data.shape, dtype=bool)
        put_at(written, index, True)
        node.written = written
    return wrap(out, node)
