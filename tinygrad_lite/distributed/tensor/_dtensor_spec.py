"""The sharding spec of a local tensor: which mesh it is spread over, its placement there and
the shape of the whole tensor. Here tensors stay ordinary local tensors (no DTensor class); a
spec rides along as an attribute of the parameters that tensor parallelism shards (so that a
full state dict can be gathered) and of the activations a parallel style hands on with
``use_local_output=False`` (so that the next parallelized module knows their layout)."""

from __future__ import annotations

from typing import Any

__all__ = ["DTensorSpec", "spec_of", "attach_spec"]

_ATTRIBUTE = "_dtensor_spec"


class DTensorSpec:
    """``mesh`` (a 1-D DeviceMesh), ``placements`` (one per mesh dimension) and ``shape`` (the
    whole tensor's)."""

    def __init__(self, mesh: Any, placements: tuple, shape: tuple[int, ...]) -> None:
        self.mesh = mesh
        self.placements = tuple(placements)
        self.shape = tuple(int(s) for s in shape)

    @property
    def placement(self) -> Any:
        """The one placement of a 1-D mesh."""
        return self.placements[0]

    def __repr__(self) -> str:
        return f"DTensorSpec({self.mesh!r}, {self.placements}, shape={self.shape})"


def spec_of(tensor: Any) -> DTensorSpec | None:
    """The spec attached to ``tensor`` (None for an ordinary tensor)."""
    return getattr(tensor, _ATTRIBUTE, None)


def attach_spec(tensor: Any, spec: DTensorSpec | None) -> Any:
    """Attach ``spec`` to ``tensor`` (None removes it); returns the tensor."""
    setattr(tensor, _ATTRIBUTE, spec)
    return tensor
