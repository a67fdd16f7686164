"""The functional API, shape and movement: joining (hstack & co, block_diag),
splitting (tensor_split & co, unsafe_split), repeating, flipping, padding, meshgrid,
broadcasting and index grids (tril_indices, cartesian_prod, combinations).

All composites of reshape/expand/permute, getitem (slices and index arrays) and cat, so their
gradients come from those primitives.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from .. import ops
from .._core.memory_format import format_name, is_in_format
from .._core.size import Size, sizes_or_keyword
from .._core.tensor_base import TensorBase, wrap
from .._core.warnings import warn
from ..ops import shape as ops_shape
from ..ops.elementwise import CloneBackward0, WhereBackward0
from ..ops.linalg.inverse import torch_dtype_name
from ..ops.movement import diagonal_view
from ..ops.shape import cat, pad_constant
from .basic import transpose
from .creation import tensor as _tensor
from .indexing import index_select
from .registry import declare, public

__all__ = ["unflatten", "broadcast_to", "repeat", "tile", "flip", "roll", "cat", "concatenate",
           "concat", "stack", "split", "chunk", "unbind", "narrow", "tril", "triu", "diagonal",
           "contiguous", "select", "movedim", "meshgrid", "hstack", "vstack", "dstack",
           "column_stack", "row_stack", "repeat_interleave", "moveaxis", "swapaxes", "swapdims",
           "rot90", "block_diag", "cartesian_prod", "combinations", "tril_indices", "triu_indices",
           "atleast_1d", "atleast_2d", "atleast_3d", "tensor_split", "hsplit", "vsplit", "dsplit",
           "fliplr", "flipud", "narrow_copy", "ravel", "split_with_sizes", "argwhere", "adjoint",
           "broadcast_shapes", "broadcast_tensors", "unsafe_chunk", "unsafe_split",
           "unsafe_split_with_sizes"]

declare("cat", method=False, out=True)

concatenate = concat = cat
declare("concat", "concatenate", method=False, out=True)


def _dim(dim: int, ndim: int, op: str) -> int:
    return ops.normalize_dims(dim, ndim, op)[0]


def _along(dim: int, index: Any) -> tuple:
    """An index applying ``index`` to dimension ``dim`` and taking everything elsewhere."""
    return (slice(None),) * dim + (index,)


def unflatten(input: TensorBase, dim: int, sizes: Any) -> TensorBase:
    """Split dimension ``dim`` into ``sizes`` (one entry may be -1)."""
    shape = input._data.shape
    if not shape:
        raise RuntimeError("unflatten: cannot unflatten a 0-dim tensor")
    d = _dim(dim, len(shape), "unflatten")
    sizes = given = tuple(int(n) for n in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) > 1:
        raise RuntimeError(f"unflatten: only one dimension can be inferred, got sizes "
                           f"{list(sizes)}")
    known = math.prod(n for n in sizes if n != -1)
    if -1 in sizes:  # inferred from the dim's own size (a reshape's -1 would be ambiguous when
        # another dim is 0)
        if not known:
            raise RuntimeError(f"unflatten: the size -1 in {list(sizes)} can be any value and "
                               f"is ambiguous for dim {d} of size {shape[d]}")
        sizes = tuple(shape[d] // known if n == -1 else n for n in sizes)
    if math.prod(sizes) != shape[d] or min(sizes) < 0:
        raise RuntimeError(f"unflatten: Provided sizes {list(given)} don't "
                           f"multiply up to the size of dim {d} ({shape[d]}) in the input tensor")
    return ops.reshape(input, shape[:d] + sizes + shape[d + 1:])


def broadcast_to(input: TensorBase, *sizes: Any, size: Any = None) -> TensorBase:
    """``input`` broadcast to ``size`` (a view; see expand). The method also takes the sizes
    one by one, as PyTorch's."""
    sizes = sizes_or_keyword(sizes, size, "broadcast_to", "size")
    if len(sizes) == 1 and not isinstance(sizes[0], (int, np.integer)):
        sizes = tuple(sizes[0])
    return ops.expand(input, tuple(sizes))


def repeat(input: TensorBase, *sizes: Any, repeats: Any = None) -> TensorBase:
    """Tile ``input`` ``sizes[i]`` times along each dim (PyTorch's ``Tensor.repeat``)."""
    sizes = sizes_or_keyword(sizes, repeats, "repeat", "repeats")
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    if len(sizes) < input._data.ndim:
        raise RuntimeError(
            f"repeat: number of repeat dims ({len(sizes)}) can not be smaller than number of "
            f"dimensions of tensor ({input._data.ndim}, shape {input._data.shape})"
        )
    shape = (1,) * (len(sizes) - input._data.ndim) + input._data.shape
    if any(r < 0 for r in sizes):
        out_shape = [r * s for r, s in zip(sizes, shape)]
        raise RuntimeError(f"repeat: Trying to create tensor with negative dimension "
                           f"{min(out_shape)}: {out_shape} (repeats {list(sizes)})")
    # interleave a size-1 dim before every dim, expand it to the repeat count, then merge
    pairs = [n for s in shape for n in (1, s)]
    wide = [n for r, s in zip(sizes, shape) for n in (r, s)]
    # materialised before the merge: PyTorch's repeat returns new memory, writable in place
    out = ops.clone(ops.expand(ops.reshape(input, tuple(pairs)), tuple(wide)))
    return ops.reshape(out, tuple(r * s for r, s in zip(sizes, shape)))


def tile(input: TensorBase, dims: Any) -> TensorBase:
    """Like repeat, but fewer ``dims`` than tensor dims are padded with 1s in front."""
    dims = tuple(dims)
    return repeat(input, (1,) * (input._data.ndim - len(dims)) + dims)


def flip(input: TensorBase, dims: Any) -> TensorBase:
    """Reverse the order of elements along ``dims``."""
    axes = ops.normalize_dims(dims, input._data.ndim, "flip")
    index = tuple(slice(None, None, -1) if i in axes else slice(None)
                  for i in range(input._data.ndim))
    # a copy, as PyTorch's flip: an in-place op on the result must not write into ``input``
    return FlipBackward0.rename(ops.clone(ops.getitem(input, index)))


class FlipBackward0(CloneBackward0):
    """``flip``: a copy of the reversed view (PyTorch's name)."""


def narrow(input: TensorBase, dim: int, start: int, length: int) -> TensorBase:
    """The slice ``start:start + length`` of dimension ``dim`` (a view)."""
    if input._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, input._data.ndim, "narrow")
    n = input._data.shape[d]
    start = int(start)  # (a 0-d integer tensor too)
    if not -n <= start <= n:
        raise IndexError(f"narrow: start out of range (expected to be in range of [{-n}, {n}], "
                         f"but got {start})")
    if start < 0:
        start += n
    if length < 0:
        raise RuntimeError(f"narrow(): length must be non-negative. (got {length})")
    if not (0 <= start <= n and start + length <= n):
        raise RuntimeError(f"narrow: start ({start}) + length ({length}) exceeds dimension size "
                         f"({n}) of dimension {d} of a tensor of shape {input._data.shape}")
    return ops.getitem(input, _along(d, slice(start, start + length)))


def select(input: TensorBase, dim: int, index: int) -> TensorBase:
    """The slice at ``index`` of dimension ``dim``, which is removed."""
    if input._data.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, input._data.ndim, "select")
    n = input._data.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input._data.shape)} at dimension {d}")
    return ops.getitem(input, _along(d, index))


def roll(input: TensorBase, shifts: Any, dims: Any = None) -> TensorBase:
    """Rotate elements along ``dims`` by ``shifts`` (the flattened tensor when dims is None)."""
    one = (int, np.integer)
    shifts = (shifts,) if isinstance(shifts, one) else tuple(shifts)
    if not shifts:
        raise RuntimeError("roll: `shifts` required")
    if dims is None or (not isinstance(dims, one) and not len(dims)):  # the flattened tensor
        if len(shifts) != 1:
            raise RuntimeError(f"roll: shifts and dimensions must align. shifts: {len(shifts)}, "
                               "dims:0")
        return ops.reshape(roll(ops.reshape(input, (-1,)), shifts, 0), input._data.shape)
    dims = (dims,) if isinstance(dims, one) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"roll: shifts and dimensions must align, got shifts={shifts} and "
                           f"dims={dims}")
    out = input
    for shift, dim in zip(shifts, dims):
        d = _dim(dim, input._data.ndim, "roll")
        n = input._data.shape[d]
        s = shift % n if n else 0
        if s:
            out = cat([ops.getitem(out, _along(d, slice(n - s, None))),
                       ops.getitem(out, _along(d, slice(0, n - s)))], d)
    return out


@public(method=False, out=True)
def stack(tensors: Any, dim: int = 0) -> TensorBase:
    """Join same-shaped tensors along a new dim ``dim``."""
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack: expected a non-empty list of tensors")
    shape = tensors[0]._data.shape
    for i, t in enumerate(tensors[1:], 1):
        if t._data.shape != shape:
            raise RuntimeError(f"stack: expects each tensor to be equal size, but got {shape} "
                               f"at entry 0 and {t._data.shape} at entry {i}")
    d = _dim(dim, len(shape) + 1, "stack")
    new_shape = shape[:d] + (1,) + shape[d:]
    return cat([ops.reshape(t, new_shape) for t in tensors], d)


def split(tensor: TensorBase, split_size_or_sections: Any = None, dim: int = 0, *,
          split_size: Any = None) -> tuple:
    """Split into chunks of one size (the last may be smaller) or of the listed sizes
    (``split_size=``: the method's keyword in PyTorch)."""
    if split_size is not None:
        split_size_or_sections = split_size
    if tensor._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _dim(dim, tensor._data.ndim, "split")
    n = tensor._data.shape[d]
    if isinstance(split_size_or_sections, TensorBase) and split_size_or_sections.ndim == 0:
        split_size_or_sections = int(split_size_or_sections)
    if isinstance(split_size_or_sections, (int, np.integer)):
        size = int(split_size_or_sections)
        if size < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got "
                               f"split_size={size}")
        if size == 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {n}")
        sizes = [min(size, n - s) for s in range(0, n, size)] if n else [0]
    else:
        sizes = [int(k) for k in split_size_or_sections]
        if any(k < 0 for k in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={sizes}")
        if sum(sizes) != n:
            raise RuntimeError(f"split: split_with_sizes expects split_sizes to sum exactly to "
                               f"{n} (size of dimension {d} of shape {tensor._data.shape}), but "
                               f"got split_sizes={sizes}")
    return ops_shape.split(tensor, d, sizes)


def chunk(input: TensorBase, chunks: int, dim: int = 0) -> tuple:
    """Split into ``chunks`` pieces of equal size (the last may be smaller; maybe fewer)."""
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk: chunks must be greater than 0, got {chunks}")
    d = _dim(dim, input._data.ndim, "chunk")
    n = input._data.shape[d]
    if n == 0:  # an empty dim gives ``chunks`` empty pieces, as in PyTorch
        return ops_shape.split(input, d, [0] * chunks)
    return split(input, math.ceil(n / chunks), d)


def unbind(input: TensorBase, dim: int = 0) -> tuple:
    """The slices along ``dim``, with that dim removed."""
    if input._data.ndim == 0:
        raise IndexError(f"unbind: dimension specified as {dim} but tensor has no dimensions")
    d = _dim(dim, input._data.ndim, "unbind")
    shape = input._data.shape[:d] + input._data.shape[d + 1:]
    return tuple(piece.reshape(shape) for piece in
                 ops_shape.split(input, d, [1] * input._data.shape[d]))


def movedim(input: TensorBase, source: Any, destination: Any) -> TensorBase:
    """Move dimension(s) ``source`` to position(s) ``destination`` (ints or equal-length
    sequences); the other dims keep their order, as in PyTorch."""
    ndim = input._data.ndim
    src: list[Any] = [source] if isinstance(source, (int, np.integer)) else list(source)
    dst: list[Any] = ([destination] if isinstance(destination, (int, np.integer))
                      else list(destination))
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")
    if ndim == 0:  # dims 0 and -1 only; the tensor as a view of itself
        ops.normalize_dims(src, 0, "movedim")
        ops.normalize_dims(dst, 0, "movedim")
        return ops.permute(input, ())
    moved = [int(_dim(d, ndim, "movedim")) for d in src]
    places = [int(_dim(d, ndim, "movedim")) for d in dst]
    for name, dims in (("source", moved), ("destination", places)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({dims})")
    order: list[int | None] = [None] * ndim
    for s, t in zip(moved, places):
        order[t] = s
    rest = iter(i for i in range(ndim) if i not in moved)
    return ops.permute(input, tuple(o if o is not None else next(rest) for o in order))


def _triangle(input: TensorBase, diagonal: int, lower: bool, op: str) -> TensorBase:
    if input._data.ndim < 2:
        raise RuntimeError(f"{op}: input tensor must have at least 2 dimensions, got shape "
                           f"{input._data.shape}")
    rows, cols = input._data.shape[-2:]
    make = np.tril if lower else np.triu
    mask = make(np.ones((rows, cols), dtype=bool), diagonal)
    zero = False if input._data.dtype == np.bool_ else 0
    node = TrilBackward0 if lower else TriuBackward0
    return node.rename(ops.where(wrap(mask), input, zero))


class TrilBackward0(WhereBackward0):
    """``tril``: a where against the lower triangle's mask (PyTorch's name)."""


class TriuBackward0(WhereBackward0):
    """``triu``."""


@public(out=True, inplace=True)
def tril(input: TensorBase, diagonal: int = 0) -> TensorBase:
    """The lower triangle of the last two dims (on and below ``diagonal``); zeros elsewhere."""
    return _triangle(input, diagonal, True, "tril")


@public(out=True, inplace=True)
def triu(input: TensorBase, diagonal: int = 0) -> TensorBase:
    """The upper triangle of the last two dims (on and above ``diagonal``); zeros elsewhere."""
    return _triangle(input, diagonal, False, "triu")


def diagonal(input: TensorBase, offset: int = 0, dim1: int = 0, dim2: int = 1) -> TensorBase:
    """The diagonal of dims ``dim1``/``dim2`` (shifted by ``offset``), as a new last dim."""
    ndim = input._data.ndim
    # (a dim beyond a 0-d/1-D tensor's range is PyTorch's IndexError, from the dim check)
    d1, d2 = _dim(dim1, ndim, "diagonal"), _dim(dim2, ndim, "diagonal")
    if ndim < 2:
        raise RuntimeError(f"diagonal: expected a tensor with at least 2 dimensions, got shape "
                           f"{input._data.shape}")
    if d1 == d2:
        raise RuntimeError(f"diagonal: dimensions cannot be identical {dim1}, {dim2}")
    order = [i for i in range(ndim) if i not in (d1, d2)] + [d1, d2]
    # a view of a view, as PyTorch's: writing through the diagonal writes ``input``
    return diagonal_view(ops.permute(input, tuple(order)), offset)


def contiguous(input: TensorBase, memory_format: Any = None) -> TensorBase:
    """``input`` itself when its memory is dense in row-major order (or in ``memory_format``'s,
    e.g. ``tl.channels_last``), else a copy laid out so (also for a small expand() result,
    which is stored densely but counts as a broadcast view)."""
    layout = format_name(memory_format)
    if is_in_format(input._data, layout) and not input._expanded:
        return input
    if layout == "preserve_format":  # (only once the tensor is not contiguous, as PyTorch)
        raise RuntimeError("contiguous: preserve memory format is unsupported by the "
                           "contiguous operator")
    return ops.clone(input, layout)


def pad(input: TensorBase, pad: Any, mode: str = "constant",
        value: float | None = None) -> TensorBase:
    """Pad the last ``len(pad) // 2`` dims: ``pad = (left_last, right_last, left_prev, ...)``.
    Modes: constant (``value``, default 0; negative pads crop), reflect, replicate, circular."""
    for i, p in enumerate(pad):  # ints (or integer scalars), as PyTorch's argument parser
        if isinstance(p, bool) or not hasattr(p, "__index__"):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but "
                            f"found element of type {type(p).__name__} at pos {i}")
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2 or len(pad) // 2 > input._data.ndim:
        raise RuntimeError(f"pad: padding length must be even and at most twice the number of "
                           f"dims ({input._data.ndim}), got {len(pad)} for shape "
                           f"{input._data.shape}")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"pad: mode '{mode}' is not supported (constant, reflect, "
                                  "replicate, circular)")
    dims = len(pad) // 2
    if mode != "constant" and not (dims <= 3 and dims + 1 <= input._data.ndim <= dims + 2):
        # PyTorch pads 1-3 trailing dims of a (batched) input only: (C, *S) or (N, C, *S)
        raise NotImplementedError(
            f"pad: padding size {len(pad)} is not supported for {input._data.ndim}D input "
            f"tensor (shape {input._data.shape}, mode '{mode}'). Supported combinations for "
            "non-constant padding: 2D or 3D input, padding size 2 (the last dimension); 3D or "
            "4D input, padding size 4 (the last 2); 4D or 5D input, padding size 6 (the last 3)")
    if mode != "constant" and value:  # (an explicit 0 is accepted, as in PyTorch)
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if mode in ("reflect", "replicate"):
        _check_reflect_replicate_sizes(input._data.shape, pad)
    out = input
    for k in range(len(pad) // 2):
        d = input._data.ndim - 1 - k
        left, right = pad[2 * k], pad[2 * k + 1]
        n = out._data.shape[d]
        if mode == "constant":
            out = _pad_constant(out, d, left, right, 0.0 if value is None else value)
            continue
        if mode == "circular" and (left < 0 or right < 0):
            # PyTorch's circular padding crops first, then wraps around what is left (reflect
            # and replicate read the uncropped input, as the positions below do)
            out = ops.getitem(out, _along(d, slice(max(-left, 0), n - max(-right, 0))))
            left, right, n = max(left, 0), max(right, 0), out._data.shape[d]
        if mode == "circular" and (left > n or right > n):
            raise RuntimeError(f"pad: padding value causes wrapping around more than once: "
                               f"padding ({left}, {right}) at dimension {d} of input of shape "
                               f"{input._data.shape} (circular padding is at most the size)")
        if mode == "reflect" and (left >= n or right >= n):
            raise RuntimeError(f"pad: padding size should be less than the corresponding input "
                               f"dimension, but got padding ({left}, {right}) at dimension {d} "
                               f"of input of shape {input._data.shape}")
        positions = np.arange(-left, n + right)
        if mode == "reflect":
            period = 2 * (n - 1)
            positions = np.abs((positions + period) % period if period else positions * 0)
            positions = np.where(positions >= n, period - positions, positions)
        elif mode == "replicate":
            positions = np.clip(positions, 0, n - 1)
        else:
            positions = positions % n
        out = ops.getitem(out, _along(d, positions))
    return out


def _check_reflect_replicate_sizes(shape: tuple[int, ...], pad: tuple[int, ...]) -> None:
    """PyTorch's checks of reflect and replicate padding: every dim but the batch dim is
    non-empty, and every padded dim keeps at least one element (negative pads crop)."""
    dims = len(pad) // 2
    batch = 1 if len(shape) == dims + 2 else 0
    if any(n == 0 for n in shape[batch:]):
        raise RuntimeError(f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with "
                           f"possibly 0 batch size and other non-zero dimensions for input, but "
                           f"got: {list(shape)}")
    for k, name in zip(range(dims), "WHD"):
        n = shape[len(shape) - 1 - k]
        if n + pad[2 * k] + pad[2 * k + 1] < 1:
            raise RuntimeError(f"input ({name}: {n}) is too small. Calculated output {name}: "
                               f"{n + pad[2 * k] + pad[2 * k + 1]}")


def _pad_constant(x: TensorBase, d: int, left: int, right: int, value: float) -> TensorBase:
    """Pad dim ``d`` with ``value``; negative widths crop instead, as in PyTorch (down to an
    empty dim, not beyond)."""
    n = x._data.shape[d]
    if n + left + right < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if left < 0 or right < 0:
        x = ops.getitem(x, _along(d, slice(max(-left, 0), n - max(-right, 0))))
        left, right = max(left, 0), max(right, 0)
    if not (left or right):
        return x
    widths = tuple((left, right) if i == d else (0, 0) for i in range(x._data.ndim))
    return pad_constant(x, widths, value)


def _tensor_list(tensors: Any, op: str) -> list[TensorBase]:
    """The tensors of a joining op's sequence argument, refused as PyTorch's argument parser
    refuses them (a tensor itself, an element that is not a tensor)."""
    if isinstance(tensors, TensorBase):
        raise TypeError(f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        "Tensor")
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, TensorBase):
            raise TypeError(f"{op}: expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    return tensors


def _joined(tensors: Any, op: str) -> list[TensorBase]:
    """``_tensor_list`` for hstack & co, which refuse an empty sequence."""
    tensors = _tensor_list(tensors, op)
    if not tensors:
        raise RuntimeError(f"{op} expects a non-empty TensorList")
    return tensors


def _seq(tensors: Any) -> list[TensorBase]:
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0])
    return list(tensors)


def meshgrid(*tensors: Any, indexing: str = "ij") -> tuple:
    """Coordinate grids from 1-D tensors: ``ij`` (matrix) or ``xy`` (Cartesian) indexing."""
    ts = _seq(tensors)
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    if any(t.ndim > 1 for t in ts):
        raise RuntimeError("meshgrid: expects 0- or 1-dimensional tensors")
    ts = [t.reshape(-1) for t in ts]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.shape[0] for t in ts)
    grids = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        grids.append(t.reshape(*view).expand(*shape))
    if swap:  # xy: the grids of the swapped inputs, handed back in the callers' order
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def _each(tensors: tuple, make: Any) -> Any:
    """``make`` of each tensor: one tensor for one tensor argument, else a tuple (also for a
    list or tuple holding one tensor, as in PyTorch)."""
    out = tuple(make(t) for t in _seq(tensors))
    listed = len(tensors) == 1 and isinstance(tensors[0], (list, tuple))
    return out[0] if len(out) == 1 and not listed else out


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least one dimension."""
    return _each(tensors, lambda t: t.reshape(1) if t.ndim == 0 else t)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least two dimensions (a vector becomes a row)."""
    return _each(tensors, lambda t: t.reshape(1, -1) if t.ndim < 2 else t)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least three dimensions (as NumPy's atleast_3d)."""
    return _each(tensors, lambda t: t.reshape(1, 1, 1) if t.ndim == 0 else t.reshape(1, -1, 1)
                 if t.ndim == 1 else t.unsqueeze(-1) if t.ndim == 2 else t)


@public(out=True)
def hstack(tensors: Any) -> TensorBase:
    """Concatenate column-wise (along dim 1; dim 0 for 1-D tensors)."""
    ts = [atleast_1d(t) for t in _joined(tensors, "hstack")]
    return cat(ts, 0 if ts[0].ndim == 1 else 1)


@public(out=True)
def vstack(tensors: Any) -> TensorBase:
    """Concatenate row-wise, 1-D tensors as rows."""
    return cat([atleast_2d(t) for t in _joined(tensors, "vstack")], 0)


row_stack = vstack
declare("row_stack", out=True)


@public(out=True)
def dstack(tensors: Any) -> TensorBase:
    """Concatenate along the third dimension."""
    return cat([atleast_3d(t) for t in _joined(tensors, "dstack")], 2)


@public(out=True)
def column_stack(tensors: Any) -> TensorBase:
    """Stack 1-D tensors as columns (2-D tensors are concatenated as they are)."""
    return cat([t.reshape(-1, 1) if t.ndim < 2 else t for t in _joined(tensors, "column_stack")],
               1)


def repeat_interleave(input: Any, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> TensorBase:
    """Each element (or slice along ``dim``) repeated ``repeats`` times (an int or one count per
    element); with a single integer tensor argument, the indices ``i`` repeated ``input[i]``
    times (in its dtype)."""
    if repeats is None:
        counts = _repeat_counts(input._data, "repeat_interleave only accept 1D vector as "
                                             "repeat")
        out = np.repeat(np.arange(len(counts), dtype=counts.dtype), counts)
        _check_output_size(out.shape[0], output_size)
        return wrap(out)
    x = input if dim is not None else input.reshape(-1)
    if x.ndim == 0:  # (with dim=None it is flattened above)
        raise IndexError(f"repeat_interleave: Dimension specified as {dim} but tensor has no "
                         "dimensions")
    d = 0 if dim is None else ops.normalize_dims(dim, x.ndim, "repeat_interleave")[0]
    n = x.shape[d]
    if isinstance(repeats, TensorBase):
        counts = _repeat_counts(repeats._data, "repeat_interleave: repeats must be 0-dim or "
                                               "1-dim tensor")
        if counts.size not in (1, n):
            raise RuntimeError(f"repeat_interleave: repeats must have the same size as input "
                               f"along dim, but got repeats.size(0) = {counts.size} and "
                               f"input.size({d}) = {n}")
    else:
        counts = np.asarray(repeats)
        if counts.ndim == 0 and counts < 0:
            raise RuntimeError(f"repeat_interleave: Repeats must be non-negative, got {repeats}")
    if counts.size == 1:  # one count for every slice: no index needed
        r = int(counts.reshape(-1)[0])
        if output_size is not None and output_size != n * r:
            raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {n * r} but "
                               f"got {output_size}")
        return ops.movement.repeat_interleave(x, r, d)
    index = np.repeat(np.arange(n), np.broadcast_to(counts.reshape(-1), (n,)))
    _check_output_size(index.size, output_size)
    return index_select(x, d, wrap(index))


def _repeat_counts(counts: np.ndarray, not_1d: str) -> np.ndarray:
    """The counts of a ``repeat_interleave`` given as a tensor, checked as PyTorch does."""
    if counts.dtype.kind not in "iu":
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                  f"'{torch_dtype_name(counts.dtype)}' (repeats must be an "
                                  "integer tensor)")
    if counts.ndim > 1:
        raise RuntimeError(f"{not_1d}, got a tensor of shape {tuple(counts.shape)}")
    if (counts < 0).any():
        raise RuntimeError("repeat_interleave: repeats can not be negative")
    return counts.reshape(-1)


def _check_output_size(size: int, output_size: int | None) -> None:
    if output_size is not None and output_size != size:
        raise RuntimeError(f"repeat_interleave: allocated size does not match required size "
                           f"(output_size={output_size}, but the repeats add up to {size})")


def moveaxis(input: TensorBase, source: Any, destination: Any) -> TensorBase:
    """``movedim`` (NumPy's name)."""
    return movedim(input, source, destination)


@public(inplace='shape')
def swapaxes(input: TensorBase, axis0: int, axis1: int) -> TensorBase:
    """``transpose`` (NumPy's name)."""
    return transpose(input, axis0, axis1)


swapdims = swapaxes
declare("swapdims", inplace='shape')


def rot90(input: TensorBase, k: int = 1, dims: Any = (0, 1)) -> TensorBase:
    """Rotated by 90 degrees ``k`` times in the plane ``dims`` (from the first axis towards
    the second)."""
    if len(dims) != 2:
        raise RuntimeError(f"rot90: expected total rotation dims == 2, but got dims = "
                           f"{len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"rot90: expected total dims >= 2, but got total dims = {input.ndim}")
    a, b = (_dim(d, input.ndim, "rot90") for d in dims)
    if a == b:
        raise RuntimeError(f"rot90: expected rotation dims to be different, but got dim0 = "
                           f"{dims[0]} and dim1 = {dims[1]}")
    k %= 4
    if k == 1:
        return transpose(flip(input, (b,)), a, b)
    if k == 2:
        return flip(input, (a, b))
    if k == 3:
        return flip(transpose(input, a, b), (b,))
    return input


def block_diag(*tensors: TensorBase) -> TensorBase:
    """A block-diagonal matrix of the given matrices (vectors as rows, scalars as 1x1)."""
    blocks = [t.reshape(1, 1) if t.ndim == 0 else t.reshape(1, -1) if t.ndim == 1 else t
              for t in tensors]
    cols = sum(b.shape[1] for b in blocks)
    rows, start = [], 0
    for b in blocks:
        left = start
        right = cols - start - b.shape[1]
        rows.append(ops.shape.pad_constant(b, ((0, 0), (left, right)), 0.0))
        start += b.shape[1]
    return cat(rows, 0)


def cartesian_prod(*tensors: TensorBase) -> TensorBase:
    """All combinations of one element from each 1-D tensor, as rows."""
    for t in tensors:
        if t._data.ndim != 1:
            raise RuntimeError(f"cartesian_prod: Expect a 1D vector, but got shape "
                               f"{list(t._data.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def combinations(input: TensorBase, r: int = 2, with_replacement: bool = False) -> TensorBase:
    """The length-``r`` combinations of a 1-D tensor's elements, as rows (as itertools)."""
    if r == 0:  # PyTorch's result: an empty 1-D tensor, outside the graph
        return input.new_zeros(0)
    n = input.shape[0]
    chooser = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    picks = np.array(list(chooser(range(n), r)), np.int64).reshape(-1, r)
    return input[wrap(picks)]  # (none: a (0, r) gather, in the graph as PyTorch's)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None,
                 device: Any = None, layout: Any = None) -> TensorBase:
    """The (2, N) indices of the lower triangle of a ``row x col`` matrix."""
    return _tensor(np.stack(np.tril_indices(row, offset, col)), dtype=dtype)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None,
                 device: Any = None, layout: Any = None) -> TensorBase:
    """The (2, N) indices of the upper triangle of a ``row x col`` matrix."""
    return _tensor(np.stack(np.triu_indices(row, offset, col)), dtype=dtype)


def tensor_split(input: TensorBase, indices_or_sections: Any = None, dim: int = 0, *,
                 sections: Any = None, indices: Any = None,
                 tensor_indices_or_sections: Any = None) -> tuple:
    """Split into ``n`` nearly equal parts (the first ones one longer), or at the given
    indices (each piece is the slice from one index to the next, as Python slices them)."""
    for named in (sections, indices, tensor_indices_or_sections):  # PyTorch's keyword forms
        if named is not None:
            indices_or_sections = named
    if input._data.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = _dim(dim, input._data.ndim, "tensor_split")
    n = input._data.shape[d]
    if isinstance(indices_or_sections, TensorBase):
        given = indices_or_sections._data
        if given.dtype != np.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype "
                               f"of long, but got {torch_dtype_name(given.dtype)}")
        if given.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                               "zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {given.ndim} dims")
        indices_or_sections = given.tolist()
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise RuntimeError(f"tensor_split: number of sections must be larger than 0, got {k}")
        return split(input, [n // k + (1 if i < n % k else 0) for i in range(k)], d)
    cuts = [int(i) for i in indices_or_sections]
    bounds = [slice(a, b).indices(n)[:2] for a, b in zip([0, *cuts], [*cuts, None])]
    if all(a <= b for a, b in bounds) and all(  # consecutive pieces: one split
            a == b for (_, a), (b, _) in zip(bounds, bounds[1:])):
        return split(input, [b - a for a, b in bounds], d)
    return tuple(ops.getitem(input, _along(d, slice(a, max(a, b)))) for a, b in bounds)


def _split_dims(input: TensorBase, indices_or_sections: Any, dim: int, least: int,
                op: str) -> tuple:
    """``hsplit``/``vsplit``/``dsplit``: ``tensor_split`` along ``dim`` of a tensor with at
    least ``least`` dims, into equal parts only for a number of sections."""
    if input._data.ndim < least:
        raise RuntimeError(f"torch.{op} requires a tensor with at least {least} dimension, but "
                           f"got a tensor with {input._data.ndim} dimensions!")
    if isinstance(indices_or_sections, (int, np.integer)):
        n = input._data.shape[dim]
        if indices_or_sections == 0 or n % indices_or_sections:
            raise RuntimeError(f"torch.{op} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {n} is not divisible by the split_size "
                               f"{indices_or_sections}!")
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input: TensorBase, indices_or_sections: Any = None, *, sections: Any = None,
           indices: Any = None) -> tuple:
    """``tensor_split`` along dim 1 (dim 0 for 1-D), requiring equal parts for an int."""
    how = next((a for a in (sections, indices) if a is not None), indices_or_sections)
    return _split_dims(input, how, 1 if input.ndim > 1 else 0, 1, "hsplit")


def vsplit(input: TensorBase, indices_or_sections: Any = None, *, sections: Any = None,
           indices: Any = None) -> tuple:
    """``tensor_split`` along dim 0 of a tensor with at least 2 dims."""
    how = next((a for a in (sections, indices) if a is not None), indices_or_sections)
    return _split_dims(input, how, 0, 2, "vsplit")


def dsplit(input: TensorBase, indices_or_sections: Any = None, *, sections: Any = None,
           indices: Any = None) -> tuple:
    """``tensor_split`` along dim 2 of a tensor with at least 3 dims."""
    how = next((a for a in (sections, indices) if a is not None), indices_or_sections)
    return _split_dims(input, how, 2, 3, "dsplit")


def fliplr(input: TensorBase) -> TensorBase:
    """Columns reversed (dim 1)."""
    if input._data.ndim < 2:
        raise RuntimeError(f"fliplr: Input must be >= 2-d, got shape {tuple(input._data.shape)}")
    return flip(input, (1,))


def flipud(input: TensorBase) -> TensorBase:
    """Rows reversed (dim 0)."""
    if input._data.ndim < 1:
        raise RuntimeError("flipud: Input must be >= 1-d, got a 0-dim tensor")
    return flip(input, (0,))


@public(out=True)
def narrow_copy(input: TensorBase, dim: int, start: int, length: int) -> TensorBase:
    """``narrow`` as a copy (of a sparse tensor too)."""
    if getattr(input, "is_sparse", False) is True:
        return input.narrow_copy(dim, start, length)
    return input.narrow(dim, start, length).clone()


def ravel(input: TensorBase) -> TensorBase:
    """The elements as a 1-D tensor, in row-major order."""
    return ops.reshape(input, (-1,))


def split_with_sizes(input: TensorBase, split_sizes: Any, dim: int = 0) -> tuple:
    """``split`` into pieces of exactly ``split_sizes`` (which must add up to the dim)."""
    sizes = [int(n) for n in split_sizes]
    d = ops.normalize_dims(dim, input._data.ndim, "split_with_sizes")[0]
    if sum(sizes) != input._data.shape[d]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to "
                           f"{input._data.shape[d]} (input tensor's size at dimension {dim}), "
                           f"but got split_sizes={sizes}")
    return split(input, sizes, dim)


def argwhere(input: TensorBase) -> TensorBase:
    """The indices of the nonzero elements, one row per element: ``(count, ndim)`` int64."""
    return wrap(np.argwhere(input._data).astype(np.int64, copy=False))


def adjoint(input: TensorBase) -> TensorBase:
    """The conjugate transpose of the last two dims (the transpose: tensors are real)."""
    if input._data.ndim == 0:  # PyTorch still returns it, with a deprecation warning
        warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj().")
        return input
    if input._data.ndim < 2:
        raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of "
                           f"matrices. Got {input._data.ndim}-D tensor.")
    return transpose(input, -2, -1)


@public(method=False)
def broadcast_shapes(*shapes: Any) -> Any:
    """The shape that tensors of these shapes broadcast to (a ``Size``)."""
    norm = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    try:
        return Size(np.broadcast_shapes(*norm))
    except ValueError:
        raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape; "
                           f"got {norm}") from None


@public(method=False)
def broadcast_tensors(*tensors: Any) -> tuple:
    """Each tensor expanded to the common broadcast shape (views, sharing the gradient)."""
    seq = _seq(tensors)
    shape = tuple(broadcast_shapes(*(t._data.shape for t in seq)))
    return tuple(t if t._data.shape == shape else ops.expand(t, shape) for t in seq)


def unsafe_chunk(input: TensorBase, chunks: int, dim: int = 0) -> tuple:
    """``chunk`` (PyTorch's variant without view tracking; the same pieces here)."""
    return chunk(input, chunks, dim)


def unsafe_split(input: TensorBase, split_size: int, dim: int = 0) -> tuple:
    """``split`` into pieces of ``split_size`` (without view tracking in PyTorch)."""
    return split(input, split_size, dim)


def unsafe_split_with_sizes(input: TensorBase, split_sizes: Any, dim: int = 0) -> tuple:
    """``split_with_sizes`` (without view tracking in PyTorch)."""
    return split_with_sizes(input, split_sizes, dim)
