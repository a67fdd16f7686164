"""Movement and indexing primitives: reshape, permute, expand, getitem and its adjoint.

Results share memory with the input where NumPy can (views), and then also share its version
counter, so an in-place change through either one is seen by a backward that saved the other.
"""

from __future__ import annotations

import math

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import (
    SMALL,
    array_sum,
    is_array,
    normalize_dims,
    sum_to,
    take_at,
    ufunc_at,
    wrap,
)


def memory_root(array: np.ndarray) -> np.ndarray:
    """The array at the root of a chain of views: the one owning the memory (a tensor's storage,
    as a PyTorch view's is its base's). Views made by ``as_strided`` hold their base through
    NumPy's ``DummyArray``, which is looked through."""
    while True:
        base = array.base
        if not isinstance(base, np.ndarray):
            base = getattr(base, "base", None)  # (a DummyArray, or not a view)
            if not isinstance(base, np.ndarray):
                return array
        array = base


def _view(out: np.ndarray, x: TensorBase, node: Node | None,
          how: tuple | None = None) -> TensorBase:
    result = wrap(out, node)
    result._version_counter = x._version_counter
    if how is not None:
        # (source tensor, kind, argument): lets an in-place op on this view rebase the graph of
        # the tensor it views (see ops/inplace.py), as PyTorch's view tracking does
        result._view_of = (x, *how)
    return result


class ViewBackward0(Node):
    input_shape: tuple[int, ...]

    def backward(self, grad):
        return (grad.reshape(self.input_shape),)


def reshape(x: TensorBase, shape: tuple, node_class: type[ViewBackward0] | None = None
            ) -> TensorBase:
    """``x`` with a new shape holding the same number of elements; one entry may be -1.
    ``node_class``: PyTorch's name for the op that reshapes (``squeeze``, ``unsqueeze``)."""
    try:
        out = x._data.reshape(shape)
    except (ValueError, TypeError):
        raise _reshape_error(x._data, shape) from None
    how = ("reshape", out.shape)
    if not (grad_state.enabled and x._requires_grad):
        return _view(out, x, None, how)
    node = (node_class or ViewBackward0)(x)
    node.input_shape = x._data.shape
    return _view(out, x, node, how)


def _reshape_error(data: np.ndarray, shape: tuple) -> Exception:
    """Why ``data`` cannot take ``shape``, in PyTorch's terms (its exception types)."""
    for i, n in enumerate(shape):
        if isinstance(n, bool) or not hasattr(n, "__index__"):
            return TypeError(f"reshape(): argument 'shape' must be tuple of ints, but found "
                             f"element of type {type(n).__name__} at pos {i}")
    if list(shape).count(-1) > 1:
        return RuntimeError(f"reshape: only one dimension can be inferred (shape {list(shape)})")
    if -1 in shape and data.size == 0 and 0 in shape:
        return RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} "
                            "because the unspecified dimension size -1 can be any value and is "
                            "ambiguous")
    return RuntimeError(f"reshape: shape {list(shape)} is invalid for input of shape "
                        f"{data.shape} (size {data.size})")


class PermuteBackward0(Node):
    dims: tuple[int, ...]

    def backward(self, grad):
        return (permute_rule(grad, tuple(int(i) for i in np.argsort(self.dims))),)


def permute(x: TensorBase, dims: tuple, node_class: type[PermuteBackward0] | None = None
            ) -> TensorBase:
    """``x`` with its dimensions reordered by ``dims``. ``node_class``: PyTorch's name for the
    op that permutes (``t``, ``transpose``)."""
    ndim = x._data.ndim
    if len(dims) != ndim or sorted(int(d) % max(ndim, 1) for d in dims
                                   if -ndim <= d < max(ndim, 1)) != list(range(ndim)):
        if len(dims) != ndim:
            raise RuntimeError(
                f"permute: number of dimensions in the tensor input does not match the length "
                f"of the desired ordering of dimensions i.e. input.dim() = {ndim} is not equal "
                f"to len(dims) = {len(dims)} (dims {tuple(dims)} are not a permutation of the "
                f"dims of a tensor of shape {x._data.shape})")
        for d in dims:  # PyTorch's IndexError for a dim out of range
            normalize_dims(d, ndim, "permute")
        raise RuntimeError(
            f"permute(): duplicate dims are not allowed: dims {tuple(dims)} are not a "
            f"permutation of the {ndim} dims of a tensor of shape {x._data.shape}"
        )
    dims = tuple(int(d) % ndim for d in dims) if ndim else ()
    out = x._data.transpose(dims)
    if not (grad_state.enabled and x._requires_grad):
        return _view(out, x, None, ("permute", dims))
    node = (node_class or PermuteBackward0)(x)
    node.dims = dims
    return _view(out, x, node, ("permute", dims))


# PyTorch's names for the shape ops recorded as a reshape or a permute (their rules are the base
# class's; ``reshape`` and ``permute`` take one as ``node_class``)


class TBackward0(PermuteBackward0):
    """``t``: the permute (1, 0) of a matrix."""


class TransposeBackward0(PermuteBackward0):
    """``transpose``/``swapaxes``/``mT``: a permute swapping two dims."""


class SqueezeBackward0(ViewBackward0):
    """``squeeze()``: a reshape dropping every size-1 dim."""


class SqueezeBackward1(ViewBackward0):
    """``squeeze(dim)``: a reshape dropping one dim if its size is 1."""


class SqueezeBackward2(ViewBackward0):
    """``squeeze(dims)``: a reshape dropping those of ``dims`` that have size 1."""


class UnsqueezeReshapeBackward0(ViewBackward0):
    """``unsqueeze``: a reshape adding a size-1 dim (an index with None records
    ``UnsqueezeBackward0`` itself)."""

    def name(self) -> str:
        """PyTorch's name, that of ``UnsqueezeBackward0``."""
        return "UnsqueezeBackward0"


class ExpandBackward0(Node):
    input_shape: tuple[int, ...]

    def backward(self, grad):
        return (sum_to(grad, self.input_shape),)


def expand(x: TensorBase, shape: tuple) -> TensorBase:
    """A broadcast view of ``x`` with ``shape`` (-1 keeps a size); no memory is copied."""
    lead = len(shape) - x._data.ndim
    if lead < 0:
        raise RuntimeError(
            f"expand: the number of sizes provided ({len(shape)}) must be greater or equal to "
            f"the number of dimensions in the tensor ({x._data.ndim})"
        )
    target = tuple(x._data.shape[i - lead] if n == -1 and i >= lead else n
                   for i, n in enumerate(shape))
    shared = any(n > 1 and (i < lead or x._data.shape[i - lead] == 1)  # elements repeated
                 for i, n in enumerate(target))
    try:
        if math.prod(target) == x._data.size and not shared:
            # nothing repeated (the same shape, or new leading 1s): a plain view, writable as in
            # PyTorch
            out = x._data.reshape(target)
        elif math.prod(target) <= SMALL:
            out = np.empty(target, x._data.dtype)  # see SMALL: a small copy beats a view
            out[...] = x._data
        else:
            out = np.broadcast_to(x._data, target)
    except ValueError:
        raise RuntimeError(_expand_error(x._data.shape, shape, lead)) from None
    node = None
    if grad_state.enabled and x._requires_grad:
        node = ExpandBackward0(x)
        node.input_shape = x._data.shape
    # a view of ``x``, as PyTorch's (in-place ops on it, detach_() and view() see that)
    result = _view(out, x, node, ("expand", x._data.shape) if shared else ("reshape", target))
    if shared and out.flags.writeable:  # the small copy: refuse writes as a broadcast view does
        result._expanded = True
    return result


def _expand_error(have: tuple, shape: tuple, lead: int) -> str:
    """Why ``expand`` cannot take a tensor of shape ``have`` to ``shape`` (with PyTorch's
    text)."""
    why = "only dimensions of size 1 can be expanded"
    for i, n in enumerate(shape):
        if i < lead and n < 0:
            why = (f"the expanded size of the tensor ({n}) isn't allowed in a leading, "
                   f"non-existing dimension {i}")
            break
        if i >= lead and n != -1 and have[i - lead] != 1 and n != have[i - lead]:
            why = (f"the expanded size of the tensor ({n}) must match the existing size "
                   f"({have[i - lead]}) at non-singleton dimension {i}.  Target sizes: "
                   f"{list(shape)}.  Tensor sizes: {list(have)}")
            break
    return f"expand: a tensor of shape {have} cannot be expanded to {tuple(shape)}: {why}"


class RepeatInterleaveBackward0(Node):
    input_shape: tuple[int, ...]
    dim: int
    repeats: int

    def backward(self, grad):
        d, r, shape = self.dim, self.repeats, self.input_shape
        if r == 0:
            return (np.zeros(shape, grad.dtype) if is_array(grad) else grad.new_zeros(shape),)
        folded = grad.reshape(shape[:d + 1] + (r,) + shape[d + 1:])  # the copies side by side
        return (array_sum(folded, d + 1) if is_array(grad) else folded.sum(d + 1),)


def repeat_interleave(x: TensorBase, repeats: int, dim: int) -> TensorBase:
    """Each slice of ``x`` along ``dim`` repeated ``repeats`` times in place (``np.repeat``;
    a broadcast copy with the same layout is 3x slower in NumPy)."""
    out = np.repeat(x._data, repeats, axis=dim)
    node = None
    if grad_state.enabled and x._requires_grad:
        node = RepeatInterleaveBackward0(x)
        node.input_shape, node.dim, node.repeats = x._data.shape, dim, repeats
    return wrap(out, node)


# getitem and "scatter the gradient into zeros" are each other's backward.


def is_basic_index(index: tuple) -> bool:
    """Basic indexing (ints, slices, None, ...) picks each element at most once and gives a view."""
    return all(isinstance(i, (int, np.integer, slice)) or i is None or i is Ellipsis
               for i in index)


# the dtypes PyTorch takes for an index tensor as they are (see _unusual_tensor_index)
_INDEX_DTYPES = frozenset(np.dtype(t) for t in (np.int64, np.int32, np.bool_))


def _sequence_as_tuple(index: list) -> bool:
    """PyTorch's (and old NumPy's) rule for a list index: one holding a sequence, a tensor, a
    slice, None or ``...`` (and shorter than 32) means the tuple of its items, so
    ``x[[[0, 1], [1, 0]]]`` is ``x[[0, 1], [1, 0]]``; any other list is one index array."""
    return len(index) < 32 and any(
        i is None or i is Ellipsis or isinstance(i, (list, tuple, slice, TensorBase, np.ndarray))
        for i in index)


def _unusual_tensor_index(i: np.ndarray):
    """A tensor index that is not a plain int64/int32/bool array, as PyTorch reads it: a 0-d
    integer tensor is an int (a select: a view, and no advanced-index reordering), a uint8
    tensor a (deprecated) bool mask; other dtypes are refused."""
    if i.dtype == np.uint8:
        return i.astype(np.bool_)
    if i.dtype.kind in "iu" and i.ndim == 0:
        return int(i)
    if i.dtype in _INDEX_DTYPES:
        return i  # a 0-d bool tensor: a mask, as in NumPy
    raise IndexError(f"getitem: tensors used as indices must be long, int or bool tensors (or "
                     f"byte, read as a mask), not {i.dtype}")


def normalize_index(index) -> tuple:
    """An index as a tuple of ints, slices, None, Ellipsis and arrays (tensors become arrays),
    read as PyTorch reads it (see _sequence_as_tuple, _unusual_tensor_index)."""
    if not isinstance(index, tuple):
        index = tuple(index) if type(index) is list and _sequence_as_tuple(index) else (index,)
    out = []
    for i in index:
        if isinstance(i, TensorBase):
            i = i._data
            if i.ndim == 0 or i.dtype not in _INDEX_DTYPES:
                i = _unusual_tensor_index(i)
        elif isinstance(i, (list, tuple)) or (hasattr(i, "__array__") and not isinstance(
                i, (np.ndarray, np.generic))):
            # (other array libraries' arrays too: PyTorch's rules apply); an empty list is an
            # empty int64 index, as in PyTorch (NumPy would make it float64)
            i = np.asarray(i) if not isinstance(i, (list, tuple)) or len(i) else \
                np.zeros(0, np.int64)
            if i.dtype == object:
                raise RuntimeError(f"getitem: could not infer the dtype of the index {index!r}: "
                                   "a list index holds only ints, bools or tensors")
        if isinstance(i, np.ndarray) and i.dtype.kind not in "biu":
            raise IndexError(
                f"getitem: tensors used as indices must be long, int or bool, not {i.dtype}"
            )
        out.append(i)
    return tuple(out)


def torch_order(index: tuple) -> tuple[tuple, tuple] | None:
    """PyTorch applies an integer index as a select before any tensor index: ``x[1, :, t]`` is
    ``x[1][:, t]``, whose ``t`` dims stay in place, where NumPy (counting 1 as an advanced index
    too, apart from ``t``) would put them first. For an index that mixes integers and arrays,
    the (basic, advanced) pair whose two steps give PyTorch's result; None for any other."""
    ints = [isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))
            for i in index]
    if not any(ints) or not any(isinstance(i, np.ndarray) for i in index):
        return None
    first: list = []
    then: list = []
    for i, is_int in zip(index, ints):
        if is_int:
            first.append(i)  # the dim is gone after the first step
        elif isinstance(i, np.ndarray):
            first.extend([slice(None)] * (i.ndim if i.dtype == np.bool_ else 1))
            then.append(i)
        elif i is Ellipsis:
            first.append(i)
            then.append(i)
        else:  # a slice, or None (a new dim): applied in the first step, kept whole after it
            first.append(i)
            then.append(slice(None))
    return tuple(first), tuple(then)


def read_at(data: np.ndarray, index: tuple) -> np.ndarray:
    """``data[index]`` for an advanced index, with PyTorch's integer-first order."""
    order = torch_order(index)
    if order is None:
        return take_at(data, index)
    return take_at(data[order[0]], order[1])


def add_at(out: np.ndarray, index: tuple, values) -> None:
    """``out[index] += values`` for an advanced index (repeats add up), with PyTorch's
    integer-first order."""
    order = torch_order(index)
    if order is None:
        ufunc_at(np.add, out, index, values)
    else:
        ufunc_at(np.add, out[order[0]], order[1], values)  # the first step is a view of out


def put_at(out: np.ndarray, index: tuple, values) -> None:
    """``out[index] = values``, with PyTorch's integer-first order for an advanced index."""
    order = None if is_basic_index(index) else torch_order(index)
    if order is None:
        out[index] = values
    else:
        out[order[0]][order[1]] = values  # the first step is a view of out


class IndexBackward0(Node):
    index: tuple  # normalized, see normalize_index
    input_shape: tuple[int, ...]

    def backward(self, grad):
        return (scatter(grad, self.index, self.input_shape),)


class SliceBackward0(IndexBackward0):
    """Backward of a basic index whose last step is a slice (PyTorch's name for it)."""


class SelectBackward0(IndexBackward0):
    """Backward of a basic index whose last step is an integer."""


class UnsqueezeBackward0(IndexBackward0):
    """Backward of a basic index whose last step is ``None``."""


class AliasBackward0(IndexBackward0):
    """Backward of a basic index that selects everything (``x[:]``, ``x[...]``)."""


def _basic_node(index: tuple, shape: tuple) -> type[IndexBackward0]:
    """The node PyTorch records for a basic index: that of its last non-trivial step."""
    node: type[IndexBackward0] = AliasBackward0
    dim, used = 0, sum(i is not None and i is not Ellipsis for i in index)
    for i in index:
        if i is Ellipsis:
            dim += len(shape) - used
        elif i is None:
            node = UnsqueezeBackward0
        elif isinstance(i, slice):
            if dim < len(shape) and i.indices(shape[dim]) != (0, shape[dim], 1):
                node = SliceBackward0
            dim += 1
        else:
            node, dim = SelectBackward0, dim + 1
    return node


def getitem(x: TensorBase, index) -> TensorBase:
    """``x[index]``: ints, slices with steps, None, ..., integer arrays and bool masks."""
    index = normalize_index(index)
    basic = is_basic_index(index)
    if basic and not any(i is Ellipsis for i in index):
        index += (Ellipsis,)  # makes NumPy return a 0-d view, not a copy, for a single element
    try:
        out = x._data[index] if basic else read_at(x._data, index)
    except IndexError as err:
        raise IndexError(f"getitem: {err} (indexing a tensor of shape {x._data.shape})") from None
    out = np.asarray(out)  # a single element comes back from NumPy as a scalar
    node = None
    if grad_state.enabled and x._requires_grad:
        node = (_basic_node(index, x._data.shape) if basic else IndexBackward0)(x)
        node.index, node.input_shape = index, x._data.shape
    if basic:
        return _view(out, x, node, ("getitem", index))
    return wrap(out, node)


class DiagonalBackward0(IndexBackward0):
    """Backward of ``diagonal_view``: the gradient scattered back onto the diagonal."""


def diagonal_view(x: TensorBase, offset: int) -> TensorBase:
    """The diagonal of the last two dims of ``x`` (shifted by ``offset``) as a new last dim:
    a view sharing ``x``'s memory, as PyTorch's diagonal is (writing through it writes ``x``),
    recorded as the advanced index ``x[..., i, i + offset]`` for its gradient and for in-place
    ops on it (ops/inplace.py)."""
    rows, cols = x._data.shape[-2:]
    first_row, first_col = max(-offset, 0), max(offset, 0)
    length = max(min(rows - first_row, cols - first_col), 0)
    i = np.arange(length) + first_row
    index = (Ellipsis, i, i + offset)
    corner = x._data[..., first_row:, first_col:]  # a view starting at the first element
    strides = corner.strides
    out = np.lib.stride_tricks.as_strided(corner, corner.shape[:-2] + (length,),
                                          strides[:-2] + (strides[-2] + strides[-1],))
    node = None
    if grad_state.enabled and x._requires_grad:
        node = DiagonalBackward0(x)
        node.index, node.input_shape = index, x._data.shape
    return _view(out, x, node, ("getitem", index))


class UnfoldBackward0(IndexBackward0):
    """Backward of ``unfold_view``: each window's gradient added back where it was read."""


def unfold_view(x: TensorBase, dim: int, size: int, step: int) -> TensorBase:
    """``Tensor.unfold``: the windows of ``size`` elements every ``step`` along ``dim`` (which
    becomes the window count), each along a new last dim. A view sharing ``x``'s memory, as
    PyTorch's (read-only where windows overlap: PyTorch refuses writes there too), recorded as
    the advanced index ``x[..., windows]`` followed by a permute, for its gradient and for
    in-place ops on it (ops/inplace.py)."""
    data = x._data
    count = (data.shape[dim] - size) // step + 1
    windows = np.arange(count)[:, None] * step + np.arange(size)[None, :]
    index = (slice(None),) * dim + (windows,)
    shape = data.shape[:dim] + (count, size) + data.shape[dim + 1:]
    strides = data.strides[:dim] + (data.strides[dim] * step, data.strides[dim]) + \
        data.strides[dim + 1:]
    overlap = step < size and count > 1
    out = np.lib.stride_tricks.as_strided(data, shape, strides, writeable=not overlap)
    node = None
    if grad_state.enabled and x._requires_grad:
        node = UnfoldBackward0(x)
        node.index, node.input_shape = index, data.shape
    picked = _view(out, x, node, ("getitem", index))  # (..., count, size, ...)
    order = tuple(i for i in range(len(shape)) if i != dim + 1) + (dim + 1,)
    return permute(picked, order)


def indexed_view(x: TensorBase, index: tuple, out: np.ndarray) -> TensorBase:
    """``out``, a view of ``x``'s memory holding ``x[index]`` for an advanced ``index`` (as
    ``as_strided`` makes): recorded as that indexing, for its gradient and for in-place ops on
    it (ops/inplace.py), and sharing ``x``'s version counter."""
    node = None
    if grad_state.enabled and x._requires_grad:
        node = IndexBackward0(x)
        node.index, node.input_shape = index, x._data.shape
    return _view(out, x, node, ("getitem", index))


def gathered(x: TensorBase, index: tuple, out: np.ndarray) -> TensorBase:
    """``out``, which the caller has already read as ``x._data[index]`` (sorted values, a
    running maximum), recorded as that indexing: its gradient goes back to ``index``."""
    node = None
    if grad_state.enabled and x._requires_grad:
        node = IndexBackward0(x)
        node.index, node.input_shape = index, x._data.shape
    return wrap(out, node)


class ScatterBackward0(Node):
    index: tuple

    def backward(self, grad):
        return (read_at(grad, self.index) if is_array(grad) else grad[self.index],)


def scatter_into_zeros(values: TensorBase, index: tuple, shape: tuple) -> TensorBase:
    """Zeros of ``shape`` with ``values`` added at ``index``; repeated indices accumulate."""
    out = np.zeros(shape, dtype=values._data.dtype)
    if is_basic_index(index):
        out[index] = values._data
    else:
        add_at(out, index, values._data)
    if not (grad_state.enabled and values._requires_grad):
        return wrap(out)
    node = ScatterBackward0(values)
    node.index = index
    return wrap(out, node)


# -- backward-rule helpers that build on the ops above (arrays in a plain backward, tensors
# under create_graph; see common.py) --------------------------------------------------------

def broadcast_to(grad, shape: tuple):
    """``grad`` broadcast to ``shape`` (the adjoint of a sum)."""
    if not is_array(grad):
        return expand(grad, shape)
    if math.prod(shape) > SMALL:
        return np.broadcast_to(grad, shape)
    out = np.empty(shape, grad.dtype)  # see SMALL: a small copy beats np.broadcast_to
    out[...] = grad
    return out


def permute_rule(x, dims: tuple):
    """``x`` with its dimensions reordered."""
    if is_array(x):
        return x.transpose(dims)
    return permute(x, dims)


def scatter(values, index: tuple, shape: tuple):
    """Zeros of ``shape`` with ``values`` added at ``index`` (the adjoint of indexing)."""
    if not is_array(values):
        return scatter_into_zeros(values, index, shape)
    out = np.zeros(shape, dtype=values.dtype)
    if is_basic_index(index):
        out[index] = values
    else:
        add_at(out, index, values)
    return out
