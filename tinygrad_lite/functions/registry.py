"""What each public function declares, beside its definition: whether it is a Tensor method,
takes ``out=``, is a creation function, and has an in-place variant (``x.name_()``, and for
PyTorch's ``torch.name_`` functions ``tl.name_`` too).

A function says so with ``@public(...)`` on its ``def``; a name bound otherwise (an alias such as
``absolute = abs``, or a primitive imported from ``ops/``) with ``declare("name", ...)`` beside
that binding. Names declare nothing when the defaults fit: a ``tl.*`` function that is also a
Tensor method, without ``out=`` and without an in-place variant. ``functions/__init__.py`` reads
the declarations of every name in the themed modules' ``__all__`` and derives the rest from
them: the ``tl.*`` names, ``TENSOR_METHODS``, the ``out=`` wrappers and the in-place variants.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

__all__: list[str] = []  # helpers for the themed modules; nothing for tl.*

_F = TypeVar("_F", bound=Callable)

# how the in-place variant ``name_`` stores its result: "values" through ``ops.inplace.apply``
# (version bump, leaf check, graph rebase), "shape" by giving the tensor the new shape
InplaceKind = Literal["values", "shape"]


@dataclass(frozen=True)
class Declaration:
    """One public name's declaration (the defaults: a ``tl.*`` function and a Tensor method,
    without ``out=`` or an in-place variant)."""

    function: bool = True  # a tl.* name (False: a Tensor method only, as x.add_())
    method: bool = True  # a Tensor method, x.name(*args) being name(x, *args)
    out: bool = False  # takes out= (see conventions.py)
    creation: bool = False  # out= gives the result's default dtype (a creation function)
    inplace: InplaceKind | None = None  # x.name_() is made from it
    torch_inplace: bool = False  # the in-place variant is a tl.* function too (torch.sqrt_)


DEFAULT = Declaration()
_DECLARED: dict[str, Declaration] = {}


def declare(*names: str, function: bool = True, method: bool = True, out: bool = False,
            creation: bool = False, inplace: bool | Literal["shape"] = False,
            torch_inplace: bool = False) -> None:
    """Declare ``names`` (each bound in the calling module and listed in its ``__all__``):
    ``inplace=True`` makes ``x.name_()`` store ``name``'s result in the tensor,
    ``inplace="shape"`` makes it give the tensor ``name``'s shape, ``torch_inplace`` makes that
    variant ``tl.name_`` as well; ``creation`` implies ``out``."""
    kind: InplaceKind | None = "shape" if inplace == "shape" else "values" if inplace else None
    declaration = Declaration(function=function, method=method, out=out or creation,
                              creation=creation, inplace=kind,
                              torch_inplace=torch_inplace)
    for name in names:
        if name in _DECLARED and _DECLARED[name] != declaration:
            raise ValueError(f"{name} is declared twice, differently")
        _DECLARED[name] = declaration


def public(*, function: bool = True, method: bool = True, out: bool = False,
           creation: bool = False, inplace: bool | Literal["shape"] = False,
           torch_inplace: bool = False) -> Callable[[_F], _F]:
    """Decorator: ``declare`` the function under its own name; the function is unchanged."""

    def mark(fn: _F) -> _F:
        declare(fn.__name__, function=function, method=method, out=out, creation=creation,
                inplace=inplace, torch_inplace=torch_inplace)
        return fn

    return mark


def declaration(name: str) -> Declaration:
    """What ``name`` declared (the defaults when it declared nothing)."""
    return _DECLARED.get(name, DEFAULT)
