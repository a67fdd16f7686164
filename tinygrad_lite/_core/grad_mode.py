"""Grad mode: whether ops record a graph. Thread-local, like PyTorch's."""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from .tensor_base import track_inference_tensors

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]

F = TypeVar("F", bound=Callable[..., Any])


class _GradState(threading.local):
    enabled = True  # class default: every new thread starts with grad mode on


grad_state = _GradState()  # ops read ``grad_state.enabled`` directly: it is on the hot path


def is_grad_enabled() -> bool:
    """True when operations on tensors that require grad are being recorded."""
    return grad_state.enabled


class _GradModeContext:
    """Base of the grad-mode managers: usable as a ``with`` block and as a function decorator."""

    mode = True

    def __enter__(self) -> None:
        self._prev = grad_state.enabled
        grad_state.enabled = self.mode

    def __exit__(self, *exc: object) -> None:
        grad_state.enabled = self._prev

    def __call__(self, func: F) -> F:
        mode = self.mode
        if inspect.isgeneratorfunction(func):
            return _wrap_generator(self.clone, func)

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            prev = grad_state.enabled  # a local, so recursive calls restore correctly
            grad_state.enabled = mode
            try:
                return func(*args, **kwargs)
            finally:
                grad_state.enabled = prev

        return wrapper  # type: ignore[return-value]

    def clone(self) -> Any:
        """A fresh manager with the same setting (PyTorch's ``_DecoratorContextManager.clone``)."""
        return self.__class__()


def _wrap_generator(make_context: Callable[[], Any], func: F) -> F:
    """Decorate a generator function: the mode holds while the generator's own code runs (each
    resume), not while the caller runs between two ``yield``\\s, as in PyTorch."""

    @functools.wraps(func)
    def generator_wrapper(*args: Any, **kwargs: Any) -> Any:
        gen = func(*args, **kwargs)
        try:
            with make_context():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_context():
                        gen.close()
                    raise
                except BaseException as exc:  # thrown in by the caller: deliver it in the mode
                    with make_context():
                        response = gen.throw(exc)
                else:
                    with make_context():
                        response = gen.send(request)
        except StopIteration as e:
            return e.value

    return generator_wrapper  # type: ignore[return-value]


class _NoArgGradMode(_GradModeContext):
    """A mode manager that also works as a bare decorator: ``@no_grad`` and ``@no_grad()``."""

    def __new__(cls, func: Callable[..., Any] | None = None) -> Any:
        self = super().__new__(cls)
        return self if func is None else self(func)

    def __init__(self, func: Callable[..., Any] | None = None) -> None:
        pass


class no_grad(_NoArgGradMode):  # noqa: N801 - PyTorch's name
    """Disable graph recording inside a ``with`` block or a decorated function."""

    mode = False


class enable_grad(_NoArgGradMode):  # noqa: N801 - PyTorch's name
    """Re-enable graph recording, for example inside a ``no_grad`` block."""

    mode = True


class set_grad_enabled(_GradModeContext):  # noqa: N801 - PyTorch's name
    """Set grad mode now; as a ``with`` block or decorator, restore the previous mode afterwards."""

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):  # PyTorch's argument parser takes a bool only
            raise TypeError("set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                            f"not {type(mode).__name__}")
        self._prev = grad_state.enabled
        self.mode = mode
        grad_state.enabled = self.mode  # takes effect immediately, as a plain call

    def __enter__(self) -> None:
        grad_state.enabled = self.mode

    def __exit__(self, *exc: object) -> None:
        grad_state.enabled = self._prev

    def __call__(self, func: F) -> F:
        grad_state.enabled = self._prev  # used as a decorator: undo the immediate switch
        return super().__call__(func)

    def clone(self) -> set_grad_enabled:
        """A copy with the same mode; creating it switches nothing (the caller enters it)."""
        prev = grad_state.enabled
        copy = set_grad_enabled(self.mode)
        grad_state.enabled = copy._prev = prev
        return copy


class inference_mode(_GradModeContext):  # noqa: N801 - PyTorch's name
    """``no_grad`` for inference (PyTorch's faster variant; here the same thing): a ``with``
    block or decorator (``@inference_mode`` and ``@inference_mode()``); ``mode=False`` turns it
    off inside."""

    def __new__(cls, mode: Any = True) -> Any:
        self = super().__new__(cls)
        if callable(mode):  # used as a bare decorator
            self.mode = False
            return self(mode)
        return self

    def __init__(self, mode: Any = True) -> None:
        if not callable(mode):
            self.mode = not bool(mode)

    def __enter__(self) -> None:
        super().__enter__()
        self._prev_inference = _inference.enabled
        _inference.enabled = not self.mode
        track_inference_tensors(True, is_inference_mode_enabled)

    def __exit__(self, *exc: object) -> None:
        _inference.enabled = self._prev_inference
        track_inference_tensors(False, is_inference_mode_enabled)
        super().__exit__(*exc)

    def clone(self) -> inference_mode:
        """A fresh manager with the same setting."""
        return inference_mode(not self.mode)

    def __call__(self, func: F) -> F:
        enabled = not self.mode
        if inspect.isgeneratorfunction(func):
            return _wrap_generator(self.clone, func)

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(enabled):  # a fresh block per call: calls may nest or recurse
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class _InferenceState(threading.local):
    enabled = False


_inference = _InferenceState()


def is_inference_mode_enabled() -> bool:
    """Whether an ``inference_mode`` block is active in this thread."""
    return _inference.enabled
