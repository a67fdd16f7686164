"""PyTorch's ``torch.nn.modules.utils``: the argument helpers layers use (``_pair(3)`` is
``(3, 3)``), and the prefix stripping of a state dict saved from a wrapped model."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import repeat
from typing import Any

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple]:
    """A parser: a sequence as a tuple, anything else repeated ``n`` times."""
    def parse(x: Any) -> tuple:
        if isinstance(x, Iterable):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: Any, n: int) -> tuple:
    """Each element of ``t``, reversed, repeated ``n`` times in a row (``F.pad``'s order from
    a per-dim padding: ``(1, 2), 2`` -> ``(2, 2, 1, 1)``)."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size: Any, defaults: list[int]) -> Any:
    """An adaptive pool's output size with ``None`` entries taken from the input's sizes (an
    int as it is)."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d
            for v, d in zip(out_size, defaults[-len(out_size):])]


def consume_prefix_in_state_dict_if_present(state_dict: Any, prefix: str) -> None:
    """Strip ``prefix`` from the keys of ``state_dict`` that have it, in place (and from its
    ``_metadata``): loads a checkpoint saved from ``DataParallel``/DDP ("module.")."""
    for key in [k for k in state_dict if k.startswith(prefix)]:
        state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata):
            if len(key) == 0:
                continue
            if key == prefix.replace(".", "") or key.startswith(prefix):
                metadata[key[len(prefix):]] = metadata.pop(key)
