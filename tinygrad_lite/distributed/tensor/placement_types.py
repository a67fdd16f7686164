"""Placements: how a tensor that is spread over the ranks of a mesh dimension relates to the
whole (logical) tensor, with ``torch.distributed.tensor``'s names: ``Shard(dim)`` (each rank
holds one equal chunk along ``dim``), ``Replicate()`` (each rank holds all of it) and
``Partial()`` (each rank holds a summand; the whole is their sum)."""

from __future__ import annotations

__all__ = ["Placement", "Shard", "Replicate", "Partial"]


class Placement:
    """Base class of the placements."""

    def is_shard(self, dim: int | None = None) -> bool:
        """Whether this is ``Shard`` (along ``dim``, when given)."""
        return False

    def is_replicate(self) -> bool:
        """Whether this is ``Replicate``."""
        return False

    def is_partial(self, reduce_op: str | None = None) -> bool:
        """Whether this is ``Partial`` (with ``reduce_op``, when given)."""
        return False


class Shard(Placement):
    """Each rank holds the chunk of index (its rank in the mesh dimension) along ``dim``."""

    def __init__(self, dim: int = 0) -> None:
        self.dim = int(dim)

    def is_shard(self, dim: int | None = None) -> bool:
        return dim is None or int(dim) == self.dim

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Shard) and other.dim == self.dim

    def __hash__(self) -> int:
        return hash(("shard", self.dim))

    def __repr__(self) -> str:
        return f"Shard(dim={self.dim})"

    def __str__(self) -> str:
        return f"S({self.dim})"


class Replicate(Placement):
    """Each rank holds the whole tensor."""

    def is_replicate(self) -> bool:
        return True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Replicate)

    def __hash__(self) -> int:
        return -1  # every Replicate is the same placement

    def __repr__(self) -> str:
        return "Replicate()"

    def __str__(self) -> str:
        return "R"


class Partial(Placement):
    """Each rank holds a summand of the whole (``reduce_op`` "sum", the one supported here):
    what a matrix product with the contracted dimension sharded gives before its all-reduce."""

    def __init__(self, reduce_op: str = "sum") -> None:
        if reduce_op != "sum":
            raise NotImplementedError(f"Partial: reduce_op {reduce_op!r} is not supported; only "
                                      "'sum'")
        self.reduce_op = reduce_op

    def is_partial(self, reduce_op: str | None = None) -> bool:
        return reduce_op is None or reduce_op == self.reduce_op

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Partial) and other.reduce_op == self.reduce_op

    def __hash__(self) -> int:
        return 1 + hash(self.reduce_op)

    def __repr__(self) -> str:
        return f"Partial({self.reduce_op})"

    def __str__(self) -> str:
        return f"P({self.reduce_op})"
