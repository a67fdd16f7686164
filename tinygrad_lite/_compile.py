"""``tl.compile``: PyTorch's ``torch.compile`` entry point, running the model eagerly.

Programs written for PyTorch 2 wrap their model or training step in ``torch.compile`` for
speed; here that call returns what it was given, so those programs run unchanged with the same
results (what PyTorch itself does with ``backend="eager"``). It does not trace or speed anything
up: a tracing compiler that replays a step as straight-line NumPy is a separate piece of work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["compile"]


def compile(model: Callable | None = None, *, fullgraph: bool = False,  # noqa: A001
            dynamic: bool | None = None, backend: str | Callable | None = None,
            mode: str | None = None, options: dict | None = None, name: str | None = None,
            disable: bool = False, **kwargs: Any) -> Any:
    """``model`` itself (a Module or function), run eagerly; without ``model``, a decorator
    that does the same. PyTorch's options are accepted and change nothing here."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if model is None:
        return lambda fn: fn
    if not callable(model):
        raise RuntimeError("torch.compile: model must be callable, got "
                           f"{type(model).__name__}")
    return model
