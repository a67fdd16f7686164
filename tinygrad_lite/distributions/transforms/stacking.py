"""Transforms applied piecewise along a dim (``torch.distributions.transforms``): one transform
per block (``CatTransform``) or per index (``StackTransform``)."""

from __future__ import annotations

from typing import Any

from ... import functions as _fn
from ..._core.tensor_base import TensorBase
from .. import constraints
from .base import Transform, _sum_rightmost

__all__ = ["CatTransform", "StackTransform"]


def _check_dim(value: TensorBase, dim: int, size: int, name: str, label: str) -> None:
    if not -value.ndim <= dim < value.ndim:
        raise AssertionError(f"dim {dim} out of range for tensor with {value.ndim} dimensions")
    if value.shape[dim] != size:
        raise AssertionError(f"{name}.size({dim}) = {value.shape[dim]} must equal {label} "
                             f"{size}")


class CatTransform(Transform):
    """``tseq[i]`` on the i-th block of ``lengths[i]`` entries (1 by default) along ``dim``."""

    def __init__(self, tseq: Any, dim: int = 0, lengths: Any = None,
                 cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")
        self.dim = dim

    @property
    def event_dim(self) -> int:
        """The largest event any part spans."""
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        """The total size along ``dim``."""
        return sum(self.lengths)

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same blocks, caching."""
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _blocks(self, value: TensorBase, name: str) -> list:
        _check_dim(value, self.dim, self.length, name, "length")
        out, start = [], 0
        for length in self.lengths:
            out.append(value.narrow(self.dim, start, length))
            start += length
        return out

    def _call(self, x: TensorBase) -> TensorBase:
        parts = self._blocks(x, "x")
        return _fn.cat([t(p) for t, p in zip(self.transforms, parts)], self.dim)

    def _inverse(self, y: TensorBase) -> TensorBase:
        parts = self._blocks(y, "y")
        return _fn.cat([t.inv(p) for t, p in zip(self.transforms, parts)], self.dim)

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """The blocks' log-Jacobians, concatenated (or summed once ``dim`` is an event dim)."""
        pieces = []
        for t, xs, ys in zip(self.transforms, self._blocks(x, "x"), self._blocks(y, "y")):
            value = t.log_abs_det_jacobian(xs, ys)
            if t.event_dim < self.event_dim:
                value = _sum_rightmost(value, self.event_dim - t.event_dim)
            pieces.append(value)
        dim = self.dim - x.ndim if self.dim >= 0 else self.dim
        dim += self.event_dim
        if dim < 0:
            return _fn.cat(pieces, dim)
        total = pieces[0]
        for piece in pieces[1:]:
            total = total + piece
        return total

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether every part is."""
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self) -> Any:
        """The parts' domains, block by block."""
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self) -> Any:
        """The parts' codomains, block by block."""
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """``tseq[i]`` on the i-th slice along ``dim``."""

    def __init__(self, tseq: Any, dim: int = 0, cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same slices, caching."""
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z: TensorBase, name: str) -> list:
        _check_dim(z, self.dim, len(self.transforms), name, "len(transforms)")
        return [z.select(self.dim, i) for i in range(z.shape[self.dim])]

    def _call(self, x: TensorBase) -> TensorBase:
        return _fn.stack([t(s) for t, s in zip(self.transforms, self._slice(x, "x"))],
                         self.dim)

    def _inverse(self, y: TensorBase) -> TensorBase:
        return _fn.stack([t.inv(s) for t, s in zip(self.transforms, self._slice(y, "y"))],
                         self.dim)

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """The slices' log-Jacobians, stacked along ``dim``."""
        return _fn.stack([t.log_abs_det_jacobian(xs, ys) for t, xs, ys in
                          zip(self.transforms, self._slice(x, "x"), self._slice(y, "y"))],
                         self.dim)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether every part is."""
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self) -> Any:
        """The parts' domains, slice by slice."""
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self) -> Any:
        """The parts' codomains, slice by slice."""
        return constraints.stack([t.codomain for t in self.transforms], self.dim)
