"""Memory formats: ``channels_last`` (NHWC memory behind an NCHW tensor) and
``channels_last_3d`` as NumPy strides, as PyTorch lays them out. NumPy's elementwise ops keep
an operand's layout, as PyTorch's do, so a channels-last tensor stays channels-last through
them; the shape, values and gradients never depend on the format."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["format_name", "in_format", "is_in_format", "keeps_channels_last"]

# the memory order of each format's dims, by rank
_ORDERS = {"channels_last": (4, (0, 2, 3, 1)), "channels_last_3d": (5, (0, 2, 3, 4, 1))}
_NAMES = ("contiguous_format", "preserve_format", *_ORDERS)


def format_name(fmt: Any) -> str | None:
    """The name of a memory format (``tl.channels_last``, its name, or None)."""
    if fmt is None:
        return None
    name = fmt if isinstance(fmt, str) else getattr(fmt, "name", None)
    name = name[len("torch."):] if isinstance(name, str) and name.startswith("torch.") else name
    if name not in _NAMES:
        raise TypeError(f"memory_format must be one of tl.contiguous_format, tl.channels_last, "
                        f"tl.channels_last_3d or tl.preserve_format, got {fmt!r}")
    return name


def _order(name: str, ndim: int) -> tuple[int, ...]:
    rank, order = _ORDERS[name]
    if ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {name} format (got a tensor "
                           f"with {ndim} dims)")
    return order


def is_in_format(a: np.ndarray, fmt: Any) -> bool:
    """Whether ``a``'s memory is dense in that format's order (C order for None)."""
    name = format_name(fmt)
    if name in (None, "contiguous_format", "preserve_format"):
        return bool(a.flags.c_contiguous)
    rank, order = _ORDERS[name]
    return a.ndim == rank and bool(a.transpose(order).flags.c_contiguous)


def _dense(a: np.ndarray) -> bool:
    """Whether ``a``'s elements fill its memory without gaps or overlaps in some order of its
    dims (e.g. a transpose): PyTorch's "non-overlapping and dense"."""
    step = a.itemsize
    for stride, size in sorted((s, n) for s, n in zip(a.strides, a.shape) if n != 1):
        if stride != step:
            return False
        step *= size
    return a.size > 0


def in_format(a: np.ndarray, fmt: Any) -> np.ndarray:
    """A copy of ``a`` laid out in that format (``preserve_format`` keeps the strides of a dense
    tensor, such as a transpose, and a channels-last layout; else C order)."""
    name = format_name(fmt)
    if name == "preserve_format":
        if a.flags.c_contiguous:
            return a.copy()
        if _dense(a):
            return np.array(a, order="K", copy=True)  # PyTorch keeps a dense tensor's strides
        name = next((n for n, (rank, _) in _ORDERS.items()
                     if a.ndim == rank and is_in_format(a, n)), None)
    if name in (None, "contiguous_format", "preserve_format"):
        return np.array(a, order="C", copy=True)
    order = _order(name, a.ndim)
    inverse = tuple(int(i) for i in np.argsort(order))
    return np.array(a.transpose(order), order="C", copy=True).transpose(inverse)


def _channels_last_only(a: Any) -> bool:
    return (isinstance(a, np.ndarray) and a.ndim == 4 and not a.flags.c_contiguous
            and is_in_format(a, "channels_last"))


def keeps_channels_last(fn: Callable) -> Callable:
    """Decorate a layer function whose first argument is the input: a channels-last input
    gives a channels-last result, as PyTorch's batch norm and pooling do (the result's array
    is laid out anew; a tuple result's first element)."""

    @functools.wraps(fn)
    def run(input: Any, *args: Any, **kwargs: Any) -> Any:
        result = fn(input, *args, **kwargs)
        if _channels_last_only(getattr(input, "_data", None)):
            first = result[0] if isinstance(result, tuple) else result
            data = first._data
            if data.ndim == 4 and not is_in_format(data, "channels_last"):
                first._data = in_format(data, "channels_last")
        return result
    return run
