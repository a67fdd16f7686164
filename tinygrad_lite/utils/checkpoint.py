"""Activation checkpointing (``torch.utils.checkpoint``): trade compute for memory.

``checkpoint(fn, *args)`` runs ``fn`` without keeping the tensors its ops save for backward;
when backward first needs one of them, ``fn`` runs again on the same inputs, with the random
state it saw the first time (so dropout draws the same mask), and the recomputed tensors are
handed to the waiting backward rules. Built on saved-tensor hooks, as PyTorch's non-reentrant
checkpoint is: the pack hook returns a ticket instead of the tensor, the unpack hook triggers
the recomputation once and then returns the recomputed tensor for its ticket. The recomputation
is recorded like any forward, so ``create_graph=True`` (double backward) works through it.
``checkpoint_sequential`` applies it to segments of a ``Sequential``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._core.grad_mode import enable_grad, is_grad_enabled, no_grad
from .._core.saved_hooks import saved_tensors_hooks
from .._core.warnings import warn
from ..functions.creation import default_rng
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]


class _Recomputation:
    """One checkpointed call: the tickets handed out in forward and, after the first unpack,
    the recomputed tensors they stand for."""

    def __init__(self, fn: Callable, args: tuple, kwargs: dict, rng_state: Any) -> None:
        self.fn, self.args, self.kwargs, self.rng_state = fn, args, kwargs, rng_state
        self.count = 0  # tickets handed out by the forward
        self.tensors: list | None = None  # filled by the recomputation

    def pack(self, tensor: Any) -> int:
        """Forward: drop the tensor, keep its position in the order of saves."""
        self.count += 1
        return self.count - 1

    def unpack(self, ticket: int) -> Any:
        """Backward: recompute once, then give each rule the tensor saved at its position."""
        if self.tensors is None:
            self._recompute()
        assert self.tensors is not None
        return self.tensors[ticket]

    def _recompute(self) -> None:
        recomputed: list = []

        def keep(t: Any) -> Any:
            recomputed.append(t)
            return t

        generator = default_rng()
        current = generator.snapshot()
        if self.rng_state is not None:
            generator.restore(self.rng_state)
        try:
            with saved_tensors_hooks(keep, lambda t: t), \
                    enable_grad():
                self.fn(*self.args, **self.kwargs)
        finally:
            generator.restore(current)
        if len(recomputed) != self.count:
            raise RuntimeError(
                f"checkpoint: recomputing {getattr(self.fn, '__name__', self.fn)!r} saved "
                f"{len(recomputed)} tensors for backward where the forward saved {self.count}; "
                "the function must do the same computation both times (no data-dependent "
                "branches on random values or global state)")
        self.tensors = recomputed


def checkpoint(function: Callable, *args: Any, use_reentrant: bool | None = None,
               preserve_rng_state: bool = True, context_fn: Callable | None = None,
               determinism_check: str = "default", debug: bool = False, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` without keeping its intermediate results for backward;
    backward recomputes them. ``use_reentrant`` must be given (PyTorch warns when it is not,
    and so does this); both settings use the non-reentrant algorithm described above, except
    that with ``use_reentrant=True`` and no tensor argument requiring grad the result does not
    require grad either (PyTorch's reentrant variant: its parameters get no gradient, with its
    warning)."""
    if use_reentrant is None:
        warn("tl.utils.checkpoint: the use_reentrant parameter should be passed explicitly "
             "(as in PyTorch); use_reentrant=False is recommended")
    if context_fn is not None:
        raise NotImplementedError("checkpoint: context_fn is not supported")
    if use_reentrant and is_grad_enabled() and not any(
            isinstance(a, Tensor) and a.requires_grad for a in args):
        warn("None of the inputs have requires_grad=True. Gradients will be None")
        with no_grad():
            return function(*args, **kwargs)
    state = default_rng().snapshot() if preserve_rng_state else None
    frame = _Recomputation(function, args, kwargs, state)
    with saved_tensors_hooks(frame.pack, frame.unpack):
        return function(*args, **kwargs)


def checkpoint_sequential(functions: Any, segments: int, input: Tensor,
                          use_reentrant: bool | None = None, **kwargs: Any) -> Any:
    """Run ``functions`` (a Sequential or a list of modules/functions) in ``segments`` chunks,
    checkpointing every chunk but the last (whose activations backward needs at once)."""
    fns: Sequence[Callable] = list(functions.children()) if hasattr(functions, "children") \
        else list(functions)
    if use_reentrant is None:
        warn("tl.utils.checkpoint: the use_reentrant parameter should be passed explicitly "
             "(as in PyTorch); use_reentrant=False is recommended")
        use_reentrant = False
    if segments < 1:
        raise ValueError(f"checkpoint_sequential: segments must be >= 1, got {segments}")
    size = -(-len(fns) // segments)  # ceil: every segment but the last is full

    def run(chunk: Sequence[Callable]) -> Callable[[Any], Any]:
        def forward(x: Any) -> Any:
            for f in chunk:
                x = f(x)
            return x
        return forward

    chunks = [fns[i:i + size] for i in range(0, len(fns), size)]
    for chunk in chunks[:-1]:
        input = checkpoint(run(chunk), input, use_reentrant=use_reentrant, **kwargs)
    return run(chunks[-1])(input) if chunks else input
