"""``tl.autograd.forward_ad``: forward-mode AD with dual tensors, PyTorch's API.

``make_dual(x, t)`` inside a ``dual_level`` returns x carrying the tangent t; computations on it
are recorded as usual, and ``unpack_dual(y)`` returns y's value and its tangent J t, the
directional derivative along the tangents of every dual tensor of the level. The tangent is
computed when asked, by reverse mode twice (the double-vjp trick ``tl.func.jvp`` uses: the vjp
``u -> J^T u`` is linear in u, so the derivative of ``<J^T u, t>`` with respect to u is J t), so
any op with a second-order gradient has a forward derivative, custom ``Function``s through their
backward. Differences from PyTorch's dual tensors, which carry the tangent op by op: a dual
tensor ``requires_grad`` (the recording is the reverse-mode graph), and computations under
``no_grad`` have no tangent."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import NamedTuple

from .. import functions
from .._core.backward import grad as _grad
from .._core.grad_mode import enable_grad
from .._core.tensor_base import TensorBase
from ..dtypes import is_float_dtype

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level",
           "make_dual", "unpack_dual"]


class UnpackedDualTensor(NamedTuple):
    """A dual tensor's value and tangent (None: no tangent at this level)."""

    primal: TensorBase
    tangent: TensorBase | None


class _Dual(NamedTuple):
    dual: TensorBase  # what make_dual returned: recorded from, differentiated against
    tangent: TensorBase
    primal: TensorBase  # the tensor the caller passed


# one dict per open level, innermost last: id(dual tensor) -> _Dual (the entry keeps it alive,
# so the id cannot be reused while the level is open)
_levels: list[dict[int, _Dual]] = []


def enter_dual_level() -> int:
    """Open a new (innermost) level for dual tensors; returns its number."""
    _levels.append({})
    return len(_levels) - 1


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the innermost level: its dual tensors lose their tangents."""
    if not _levels:
        raise RuntimeError("Trying to exit a forward AD level but no level exists")
    if level is not None and level != len(_levels) - 1:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    _levels.pop()


@contextlib.contextmanager
def dual_level() -> Iterator[int]:
    """A level for dual tensors for the duration of a ``with`` block."""
    level = enter_dual_level()
    try:
        yield level
    finally:
        exit_dual_level(level=level)


def _level(level: int | None) -> dict[int, _Dual]:
    if not _levels:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    index = len(_levels) - 1 if level is None else level
    if not 0 <= index < len(_levels):
        raise RuntimeError(f"forward AD: level {level} does not exist (levels 0 to "
                           f"{len(_levels) - 1} are open)")
    return _levels[index]


def make_dual(tensor: TensorBase, tangent: TensorBase, *, level: int | None = None
              ) -> TensorBase:
    """``tensor`` (sharing its memory) with ``tangent`` as its forward gradient at ``level``
    (the innermost by default)."""
    duals = _level(level)
    for name, value in (("primal", tensor), ("tangent", tangent)):
        if not isinstance(value, TensorBase):
            raise TypeError(f"make_dual: expected the {name} to be a Tensor, got "
                            f"{type(value).__name__}")
        if not is_float_dtype(value._data.dtype):
            raise ValueError(f"Expected {name} to be floating point or complex, but got: "
                             f"{value.dtype}")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}.")
    with enable_grad():
        # a view keeps a reverse-mode graph through the tensor; otherwise a fresh leaf
        dual = tensor.view_as(tensor) if tensor.requires_grad else \
            tensor.detach().requires_grad_(True)
    # the tangent object itself is kept (unpack_dual returns it), as PyTorch keeps it
    duals[id(dual)] = _Dual(dual, tangent if tangent.dtype == tensor.dtype else
                            tangent.to(tensor.dtype), tensor)
    return dual


def has_tangents(args: tuple) -> bool:
    """Whether a level is open and some tensor among ``args`` may depend on its duals."""
    return bool(_levels and _levels[-1]) and any(
        isinstance(a, TensorBase) and a.requires_grad for a in args)


def tangent_or_zeros(tensor: TensorBase) -> TensorBase:
    """``tensor``'s tangent at the innermost level, zeros when it has none."""
    tangent = unpack_dual(tensor).tangent
    return functions.zeros_like(tensor) if tangent is None else tangent


def as_dual(tensor: TensorBase, tangent: TensorBase) -> TensorBase:
    """A fresh dual tensor of the innermost level holding ``tensor``'s values and ``tangent``
    (for a custom Function's jvp; ``make_dual`` without its checks)."""
    with enable_grad():
        dual = tensor.detach().requires_grad_(True)
    _levels[-1][id(dual)] = _Dual(dual, tangent, dual)
    return dual


def unpack_dual(tensor: TensorBase, *, level: int | None = None) -> UnpackedDualTensor:
    """(value, tangent) of ``tensor`` at ``level``: the tangent is J t over the level's dual
    tensors, None when ``tensor`` does not depend on any (or no level is open)."""
    if not _levels:
        return UnpackedDualTensor(tensor, None)
    duals = _level(level)
    reverse_mode = any(d.primal.requires_grad for d in duals.values())
    primal = tensor if reverse_mode or not tensor.requires_grad else tensor.detach()
    own = duals.get(id(tensor))
    if own is not None and own.dual is tensor:
        return UnpackedDualTensor(own.primal, own.tangent)
    if not tensor.requires_grad or not duals or not is_float_dtype(tensor._data.dtype):
        return UnpackedDualTensor(primal, None)
    entries = list(duals.values())
    with enable_grad():
        probe = functions.zeros_like(tensor).requires_grad_(True)
        pulled = _grad([tensor], [d.dual for d in entries], grad_outputs=[probe],
                       create_graph=True, allow_unused=True)
        terms = [(g * d.tangent).sum() for g, d in zip(pulled, entries) if g is not None]
        if not terms:
            return UnpackedDualTensor(primal, None)
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        if not total.requires_grad:  # the vjp does not depend on the probe: J is zero
            return UnpackedDualTensor(primal, functions.zeros_like(tensor))
        (pushed,) = _grad([total], [probe], allow_unused=True)
    return UnpackedDualTensor(primal, functions.zeros_like(tensor) if pushed is None
                              else pushed.detach())
