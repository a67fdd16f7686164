"""Joining and padding primitives: cat (stack, split and friends are composites of it) and
constant padding (``F.pad``'s constant mode, convolution and pooling padding)."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import normalize_dims, wrap
from .elementwise import cast


class CatBackward0(Node):
    dim: int
    sizes: list[int | None]  # of each input along dim (None: a skipped 1-D empty input)

    def backward(self, grad):
        lead = (slice(None),) * self.dim
        out, start = [], 0
        for edge, size in zip(self.next_edges, self.sizes):
            if size is None:  # PyTorch's legacy empty input: an empty gradient
                out.append(grad[lead + (slice(0, 0),)].reshape(0) if edge else None)
                continue
            out.append(grad[lead + (slice(start, start + size),)] if edge else None)
            start += size
        return tuple(out)


def cat(tensors, dim: int = 0) -> TensorBase:
    """Join tensors along an existing dim ``dim``; all other sizes must match. Dtypes promote.
    As in PyTorch, a 1-D empty tensor joins any tensor (it is skipped, but counts for the
    dtype)."""
    if isinstance(tensors, TensorBase):
        raise TypeError("cat(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        "Tensor")
    tensors = list(tensors)
    if not tensors:
        raise ValueError("cat: expected a non-empty list of tensors")
    legacy_empty = False
    for i, t in enumerate(tensors):
        if not isinstance(t, TensorBase):
            raise TypeError(f"cat: expected a sequence of Tensors, but element {i} is "
                            f"{type(t).__name__}")
        shape = t._data.shape
        if not shape:
            raise RuntimeError(f"cat: zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
        legacy_empty = legacy_empty or shape == (0,)
    skipped = [t._data.shape == (0,) for t in tensors] if legacy_empty else None
    if skipped is not None and all(skipped):
        skipped = None
    kept = tensors if skipped is None else [t for t, skip in zip(tensors, skipped) if not skip]
    first = kept[0]._data
    (d,) = normalize_dims(dim, first.ndim, "cat")
    dt, mixed = first.dtype, False
    for i, t in enumerate(tensors):
        a = t._data
        if a.shape != first.shape and not (skipped is not None and skipped[i]):
            _check_cat_shape(first.shape, a.shape, d, i)
        mixed = mixed or a.dtype != dt
    if mixed:  # (the skipped empty tensors count for the dtype too)
        dt = dtypes.result_type(*[t._data for t in tensors])
        tensors = [cast(t, dt) for t in tensors]
        kept = tensors if skipped is None else [t for t, s in zip(tensors, skipped) if not s]
    out = np.concatenate([t._data for t in kept], axis=d)
    if not (grad_state.enabled and any(t._requires_grad for t in tensors)):
        return wrap(out)
    node = CatBackward0(*tensors)
    node.dim = d
    node.sizes = [t._data.shape[d] for t in tensors] if skipped is None else \
        [None if skip else t._data.shape[d] for t, skip in zip(tensors, skipped)]
    return wrap(out, node)


def _check_cat_shape(first: tuple, shape: tuple, d: int, i: int) -> None:
    """PyTorch's errors for a tensor ``i`` of ``shape`` that cannot join ``first`` along
    ``d``."""
    if len(shape) != len(first):
        raise RuntimeError(f"cat: Tensors must have same number of dimensions: got "
                           f"{len(first)} and {len(shape)} (shapes {first} and {shape})")
    if any(a != b for k, (a, b) in enumerate(zip(shape, first)) if k != d):
        raise RuntimeError(f"cat: sizes of tensors must match except in dimension {d}: tensor "
                           f"0 has shape {first} but tensor {i} has shape {shape}")


class ConstantPadNdBackward0(Node):
    crop: tuple[slice, ...]  # the input's region of the output

    def backward(self, grad):
        return (grad[self.crop],)


def pad_constant(x: TensorBase, widths: tuple, value: float = 0.0) -> TensorBase:
    """``x`` padded with ``value``; ``widths`` holds (before, after) pairs, one per dim of x,
    all non-negative."""
    if any(b < 0 or a < 0 for b, a in widths):
        raise ValueError(f"pad: negative widths {widths} are not supported (input {x.shape})")
    out = np.pad(x._data, widths, mode="constant", constant_values=value)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = ConstantPadNdBackward0(x)
    node.crop = tuple(slice(b, b + n) for (b, _), n in zip(widths, x._data.shape))
    return wrap(out, node)


class SplitBackward0(Node):
    """One node for all the pieces of a split: backward concatenates their gradients (zeros
    for pieces that got none) in one pass, instead of one full-size scatter per piece."""

    _direct = False  # several outputs: the engine's general path
    dim: int
    sizes: list[int]
    input_shape: tuple[int, ...]
    input_dtype: np.dtype

    def backward(self, *grads):
        live = next((g for g in grads if g is not None), None)
        parts = []
        for g, size in zip(grads, self.sizes):
            if g is None:
                shape = list(self.input_shape)
                shape[self.dim] = size
                zero = np.zeros(shape, self.input_dtype)
                g = zero if live is None or not isinstance(live, TensorBase) else wrap(zero)
            parts.append(g)
        if isinstance(live, TensorBase):
            return (cat(parts, self.dim),)
        return (np.concatenate(parts, self.dim),)


def split(x: TensorBase, dim: int, sizes: list[int]) -> tuple:
    """``x`` cut along ``dim`` into consecutive pieces of ``sizes`` (views of its memory)."""
    bounds = np.cumsum([0, *sizes])
    index = [slice(None)] * x._data.ndim
    pieces = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        index[dim] = slice(int(a), int(b))
        pieces.append(x._data[tuple(index)])
    if not (grad_state.enabled and x._requires_grad):
        outs = [wrap(p) for p in pieces]
    else:
        node = SplitBackward0(x)
        node.n_outputs = len(sizes)
        node.dim, node.sizes = dim, list(sizes)
        node.input_shape, node.input_dtype = x._data.shape, x._data.dtype
        outs = []
        for i, p in enumerate(pieces):
            t = wrap(p, node)
            t._output_nr = i
            outs.append(t)
    for t in outs:
        t._version_counter = x._version_counter  # views: in-place changes are seen by both
    return tuple(outs)
