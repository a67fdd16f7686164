"""``tl.nn.attention``: PyTorch's switch for which kernel ``F.scaled_dot_product_attention``
runs. tinygrad_lite has one kernel for every backend name (NumPy products and a softmax, the
"math" kernel; ``attention_blocks`` tiles it), so ``sdpa_kernel`` checks its arguments and
remembers the choice, and the results are the same whichever is chosen.

``tl.nn.attention.bias`` holds the causal masks ``F.scaled_dot_product_attention`` takes as
``attn_mask`` (``causal_upper_left``, ``causal_lower_right``)."""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterable, Iterator

__all__ = ["SDPBackend", "sdpa_kernel", "enabled_backends"]


class SDPBackend(enum.IntEnum):
    """The attention kernels PyTorch can pick from (``ERROR``: none applies)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_ALL = tuple(b for b in SDPBackend if b is not SDPBackend.ERROR)
_enabled: list[SDPBackend] = list(_ALL)


def enabled_backends() -> list[SDPBackend]:
    """The backends the innermost ``sdpa_kernel`` allows (all outside one), in priority order."""
    return list(_enabled)


@contextlib.contextmanager
def sdpa_kernel(backends: SDPBackend | Iterable[SDPBackend], set_priority: bool = False
                ) -> Iterator[None]:
    """Within the block, ``scaled_dot_product_attention`` may use only ``backends`` (with
    ``set_priority``, in that order of preference). Every name runs the same kernel here."""
    chosen = [backends] if isinstance(backends, SDPBackend) else list(backends)
    if not chosen:
        raise ValueError("sdpa_kernel: expected at least one backend, got an empty list")
    for backend in chosen:
        if not isinstance(backend, SDPBackend):
            raise TypeError(f"sdpa_kernel: expected SDPBackend values, got {backend!r} "
                            f"({type(backend).__name__})")
    before = list(_enabled)
    _enabled[:] = chosen if set_priority else [b for b in _ALL if b in chosen]
    try:
        yield
    finally:
        _enabled[:] = before
