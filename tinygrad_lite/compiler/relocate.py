"""Moving state arrays into one arena for ``fuse``: the tensors (or containers) keep views of
it, and the guard expects those views.

An array moves only when nothing but its owner and the compiler's own bookkeeping refers to it:
``sys.getrefcount`` against the references the compiler's containers are counted to hold. A
``detach()``ed tensor, a NumPy view or ``.numpy()`` the user keeps, or memory in a shared mapping
(its base is not an ndarray) keeps the array where it is, so that sharing goes on. Arrays already
laid end to end in one array (by an earlier trace of the function) are used where they are.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from .state import StateWalk

__all__ = ["relocator"]


def relocator(swapped: dict, walk: StateWalk, guard: Callable[..., bool]
               ) -> Callable[[list[int]], np.ndarray | None]:
    """``fuse``'s ``relocate``: move the state arrays the replay reads as the given values into
    one new arena, the tensors (or containers) keeping views of it, and the guard expecting
    those views. Arrays anything else shares (a user's ``p.numpy()``, a tensor made by
    ``detach``, a view) stay where they are: that sharing must go on."""
    slots = {expr: (owner, attr, arr) for owner, attr, arr, _, expr in swapped["slots"]}
    guard_globals = getattr(guard, "__globals__", None)
    counted: dict[int, int] = {}

    def relocate(vids: list[int]) -> np.ndarray | None:
        found = [slots.get(swapped["readers"].get(vid, "")) for vid in vids]
        if any(f is None for f in found):
            return None
        arrays = [arr for _, _, arr in found]  # type: ignore[misc]
        if any(_current(owner, attr) is not arr for owner, attr, arr in found):  # type: ignore
            return None
        earlier = _arena_of(arrays)
        if earlier is not None:
            return earlier  # moved by an earlier trace of this function
        chains = [_full_view_chain(a) for a in arrays]
        if any(c is None or not a.flags.writeable or a.dtype != arrays[0].dtype
               for a, c in zip(arrays, chains)):
            return None
        if not counted:  # the references the compiler's own containers hold, counted once
            counted.update(_count_references([walk.env, guard_globals or {},
                                              *swapped["slots"], *slots.values()]))
        known = _count_references([arrays, *chains], counted)
        if _shared(chains, known, owned=1):  # type: ignore[arg-type]
            # a reference may come from garbage not collected yet (a reference cycle of an
            # earlier trace's objects, which the collector frees whenever allocations elsewhere
            # happen to trigger it, a kernel compiling on another thread, say): collect, ask
            # again
            gc.collect()
            if _shared(chains, known, owned=1):  # type: ignore[arg-type]
                return None
        arena = np.empty(sum(a.size for a in arrays), arrays[0].dtype)
        offset = 0
        for owner, attr, arr in found:  # type: ignore[misc]
            view = arena[offset:offset + arr.size].reshape(arr.shape)
            view[...] = arr
            if isinstance(owner, (dict, list)):
                owner[attr] = view
            else:
                setattr(owner, attr, view)
            walk.replace(arr, view, guard_globals)
            offset += arr.size
        return arena

    return relocate


def _current(owner: Any, attr: Any) -> Any:
    return owner[attr] if isinstance(owner, (dict, list)) else getattr(owner, attr, None)


def _arena_of(arrays: list[np.ndarray]) -> np.ndarray | None:
    """The 1-D array ``arrays`` are consecutive whole stretches of, in order, if any."""
    base = arrays[0].base
    if not isinstance(base, np.ndarray) or base.ndim != 1 or \
            base.size != sum(a.size for a in arrays) or base.dtype != arrays[0].dtype:
        return None
    start = base.__array_interface__["data"][0]
    for a in arrays:
        if a.base is not base or not a.flags.c_contiguous or \
                a.__array_interface__["data"][0] != start:
            return None
        start += a.nbytes
    return base


def _full_view_chain(a: np.ndarray) -> list[np.ndarray] | None:
    """``a`` and the arrays it views, when each is the whole memory of the next (an array a
    trace made is a view of a traced one); None when ``a`` is part of something larger."""
    chain = [a]
    while chain[-1].base is not None:
        base = chain[-1].base
        if not isinstance(base, np.ndarray) or base.nbytes != a.nbytes or len(chain) > 8:
            return None
        chain.append(base)
    return chain if a.flags.c_contiguous else None


def _references(obj: Any) -> int:
    return sys.getrefcount(obj)


_HELD_ONCE = [object()]
_CALL_REFERENCES = _references(_HELD_ONCE[0]) - 1  # what calling ``_references`` adds


def _count_references(holders: list, start: dict[int, int] | None = None) -> dict[int, int]:
    """How many references ``holders`` (containers of the compiler's own) hold to each object,
    by id, added to ``start``; a traced view in the trace's swap list counts for its base."""
    known = dict(start or {})
    for holder in holders:
        for item in (holder.values() if isinstance(holder, dict) else holder):
            known[id(item)] = known.get(id(item), 0) + 1
        if type(holder) is tuple and len(holder) == 5 and isinstance(holder[3], np.ndarray):
            base = id(holder[3].base)
            known[base] = known.get(base, 0) + 1
    return known


def _shared(chains: list[list[np.ndarray]], known: dict[int, int], owned: int) -> bool:
    """Whether something other than the references counted in ``known``, the views in
    ``chains`` (each an array and the arrays it views) and each array's ``owned`` owner
    references refers to an array of ``chains``: then its memory may be shared with the
    user's code, and it must stay where it is."""
    for chain in chains:
        for k in range(len(chain)):
            expected = known.get(id(chain[k]), 0) + (owned if k == 0 else 1)  # owner / view
            if _references(chain[k]) - _CALL_REFERENCES > expected:
                return True
    return False
