"""Microbatches: splitting a batch's arguments into chunks and merging the chunks' outputs back,
as ``torch.distributed.pipelining.microbatch`` does.

A tensor argument is split along its chunk dimension (dim 0 unless a ``TensorChunkSpec`` says
otherwise) with ``tensor_split``, so a batch of 10 rows in 4 chunks gives 3, 3, 2 and 2 rows;
anything that is not a tensor, and any argument whose spec is ``_Replicate``, goes to every chunk
unchanged. Outputs merge by concatenation along the same dimension.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...functions.shape import tensor_split
from ...ops.shape import cat
from ...tensor import Tensor

__all__ = ["TensorChunkSpec", "split_args_kwargs_into_chunks", "merge_chunks"]


class TensorChunkSpec:
    """Split (and merge) a tensor argument along ``split_dim``."""

    def __init__(self, split_dim: int) -> None:
        self.split_dim = split_dim

    def __repr__(self) -> str:
        return f"TensorChunkSpec({self.split_dim})"

    __str__ = __repr__

    @staticmethod
    def from_tuple(chunk_dims: tuple[int, ...]) -> tuple[TensorChunkSpec, ...]:
        """One spec per positional argument, from their split dimensions."""
        return tuple(TensorChunkSpec(d) for d in chunk_dims)

    @staticmethod
    def from_dict(chunk_dims: dict[str, int]) -> dict[str, TensorChunkSpec]:
        """One spec per keyword argument, from their split dimensions."""
        return {k: TensorChunkSpec(d) for k, d in chunk_dims.items()}


class _Replicate:
    """Give the argument to every microbatch whole (PyTorch's marker class)."""


def _split_value(value: Any, spec: Any, chunks: int, name: str) -> list[Any]:
    if not isinstance(value, Tensor) or spec is _Replicate or isinstance(spec, _Replicate):
        return [value] * chunks
    dim = spec.split_dim if isinstance(spec, TensorChunkSpec) else 0
    size = value.shape[dim] if value.dim() else 0
    if size < chunks:
        raise ValueError(f"split_args_kwargs_into_chunks: {name} has size {size} on its chunking "
                         f"dimension {dim}, smaller than the number of chunks {chunks}; use "
                         "fewer microbatches or a bigger batch")
    return list(tensor_split(value, chunks, dim))


def split_args_kwargs_into_chunks(
    args: tuple[Any, ...], kwargs: dict[str, Any] | None, chunks: int,
    args_chunk_spec: tuple[Any, ...] | None = None,
    kwargs_chunk_spec: dict[str, Any] | None = None,
) -> tuple[list[tuple[Any, ...]], list[dict[str, Any]]]:
    """``chunks`` microbatches of ``args`` and ``kwargs``: a list of argument tuples and a list
    of keyword dicts, one per microbatch."""
    if chunks < 1:
        raise ValueError(f"split_args_kwargs_into_chunks: chunks must be positive, got {chunks}")
    kwargs = kwargs or {}
    if args_chunk_spec is not None and len(args_chunk_spec) != len(args):
        raise ValueError(f"split_args_kwargs_into_chunks: args_chunk_spec has "
                         f"{len(args_chunk_spec)} entries for {len(args)} positional arguments")
    arg_parts = [_split_value(a, None if args_chunk_spec is None else args_chunk_spec[i], chunks,
                              f"positional argument {i}") for i, a in enumerate(args)]
    kwarg_parts = {k: _split_value(v, (kwargs_chunk_spec or {}).get(k), chunks,
                                   f"keyword argument {k!r}") for k, v in kwargs.items()}
    arg_chunks = [tuple(parts[c] for parts in arg_parts) for c in range(chunks)]
    kwarg_chunks = [{k: parts[c] for k, parts in kwarg_parts.items()} for c in range(chunks)]
    return arg_chunks, kwarg_chunks


def merge_chunks(chunks: Sequence[Any], chunk_spec: Any = None) -> Any:
    """The microbatch outputs ``chunks`` joined back into one batch: tensors concatenated along
    dim 0 (or their ``TensorChunkSpec``'s dim), tuples, lists and dicts merged entry by entry,
    anything else taken from the first chunk."""
    if not chunks:
        raise ValueError("merge_chunks: no chunks to merge")
    first = chunks[0]
    if isinstance(first, Tensor):
        if chunk_spec is _Replicate or isinstance(chunk_spec, _Replicate) or first.dim() == 0:
            return first
        dim = chunk_spec.split_dim if isinstance(chunk_spec, TensorChunkSpec) else 0
        return cat(list(chunks), dim)
    if isinstance(first, (tuple, list)):
        specs = chunk_spec if isinstance(chunk_spec, (tuple, list)) else [chunk_spec] * len(first)
        merged = [merge_chunks([c[i] for c in chunks], specs[i]) for i in range(len(first))]
        return type(first)(merged) if isinstance(first, list) else tuple(merged)
    if isinstance(first, dict):
        named = chunk_spec if isinstance(chunk_spec, dict) else {}
        return {k: merge_chunks([c[k] for c in chunks], named.get(k)) for k in first}
    return first
