"""Engine observers: objects told about every step of a backward (anomaly mode, explain mode and
``viz.record`` are the three). The engine pays one check per backward while none is active."""

from __future__ import annotations

from typing import Any

__all__ = ["EngineObserver", "add_observer", "remove_observer", "active_observers"]


class EngineObserver:
    """Base class of engine observers: override the steps you care about; each does nothing
    here. Register an instance with ``add_observer`` (and remove it with ``remove_observer``)."""

    def start(self, roots: Any, root_grads: Any, deps: dict) -> None:
        """A backward starts from ``roots`` seeded with ``root_grads``; ``deps`` counts the
        edges into each node it will run."""

    def before_node(self, node: Any, grads: list) -> None:
        """``grads`` (one per output, None where nothing arrived) are about to flow into
        ``node``."""

    def after_node(self, node: Any, input_grads: tuple) -> None:
        """``node`` ran and returned ``input_grads`` (one per input)."""

    def hook_ran(self, owner: Any, hook: Any, grad: Any, result: Any) -> None:
        """``hook`` ran on the gradient of ``owner`` (a node's output or a leaf) and returned
        ``result``; post-accumulate hooks report ``grad`` and ``result`` as None."""

    def accumulated(self, leaf: Any, grad: Any, before: Any) -> None:
        """``grad`` was added into ``leaf.grad``, which held ``before`` (an array copy or None)."""

    def finish(self) -> None:
        """The backward is over (also after an error)."""


class _Registry:
    """The observers in force, as a tuple: the engine reads it once per backward."""

    observers: tuple = ()


_registry = _Registry()


def active_observers() -> tuple:
    """The observers in force, in registration order."""
    return _registry.observers


def add_observer(observer: EngineObserver) -> None:
    """Tell ``observer`` about every backward from now on (once, however often it is added)."""
    if observer not in _registry.observers:
        _registry.observers = _registry.observers + (observer,)


def remove_observer(observer: EngineObserver) -> None:
    """Stop telling ``observer``; removing one that is not registered does nothing."""
    _registry.observers = tuple(o for o in _registry.observers if o is not observer)
