"""``tl._inductor``: ``torch._inductor.config``, which programs tune before ``torch.compile``
(``coordinate_descent_tuning``, ``triton.unique_kernel_names``, ``fx_graph_cache``, ...).
``tl.compile`` generates NumPy, not Inductor kernels: every setting is accepted and kept, and
changes nothing."""

from __future__ import annotations

from typing import Any

__all__ = ["config"]


class _Settings:
    """Settings set as attributes, read back as set; an unknown name reads as a nested group
    (``config.triton.cudagraphs = False``), as the setting did not exist before it was set."""

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_values", {})

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        values = object.__getattribute__(self, "_values")
        if name not in values:
            values[name] = _Settings(f"{object.__getattribute__(self, '_name')}.{name}")
        return values[name]

    def __setattr__(self, name: str, value: Any) -> None:
        object.__getattribute__(self, "_values")[name] = value

    def __repr__(self) -> str:
        return f"<settings {object.__getattribute__(self, '_name')}>"


config = _Settings("torch._inductor.config")
