"""The settings of ``torch._dynamo.config`` that mean something to ``tl.compile``.

Programs set them as attributes (``tl._dynamo.config.cache_size_limit = 16``) or for a block
(``with tl._dynamo.config.patch(suppress_errors=True): ...``). Other names PyTorch has are
accepted and kept, with nothing to change here.
"""

from __future__ import annotations

import contextlib
from typing import Any

from .._core.flags import set_flags

__all__ = ["Config", "config"]


class Config:
    """Attribute settings; ``recompile_limit`` is PyTorch's newer name of
    ``cache_size_limit``."""

    def __init__(self) -> None:
        self.cache_size_limit = 8  # specialisations kept per compiled function
        self.suppress_errors = False  # a compiler failure runs eagerly even with fullgraph=True
        self.verbose = False
        # compile loop kernels on a background thread, the replays running their NumPy ops until
        # each is ready, instead of in the call that traced (see loop_kernels)
        self.kernels_in_background = False

    @property
    def recompile_limit(self) -> int:
        """Specialisations kept per compiled function (``cache_size_limit``)."""
        return self.cache_size_limit

    @recompile_limit.setter
    def recompile_limit(self, value: int) -> None:
        self.cache_size_limit = value

    def patch(self, changes: dict[str, Any] | None = None, **more: Any
              ) -> contextlib.AbstractContextManager[None]:
        """Set some settings for a ``with`` block, then put them back."""
        return set_flags(self, **{**(changes or {}), **more})


config = Config()
