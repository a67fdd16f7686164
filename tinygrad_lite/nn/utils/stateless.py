"""PyTorch's ``torch.nn.utils.stateless``: ``functional_call`` runs a module with some of its
parameters and buffers replaced by given tensors for that one call (meta-learning, per-sample
gradients, ensembling), restoring them afterwards even if the call raises."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..modules.module import Module

__all__ = ["functional_call"]

_ABSENT = object()


def _merge(parameters_and_buffers: Any) -> dict:
    """One dict from a dict or a sequence of dicts (``torch.func``'s form); a key given in two
    of them is PyTorch's ValueError, naming every such key."""
    if isinstance(parameters_and_buffers, Mapping):
        return dict(parameters_and_buffers)
    parts = list(parameters_and_buffers)
    seen = [key for part in parts for key in part]
    repeated = list(dict.fromkeys(key for key in seen if seen.count(key) > 1))
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional "
                         "call is ambiguous")
    return {key: value for part in parts for key, value in part.items()}


def _tie(module: Module, values: dict) -> dict:
    """Give every name of a shared (tied) tensor the value passed for any one of its names."""
    names_of: dict[int, list[str]] = {}
    for name, t in [*module.named_parameters(remove_duplicate=False),
                    *module.named_buffers(remove_duplicate=False)]:
        names_of.setdefault(id(t), []).append(name)
    out = dict(values)
    for names in names_of.values():
        given = [n for n in names if n in values]
        if len(names) < 2 or not given:
            continue
        first = values[given[0]]
        if any(values[n] is not first for n in given[1:]):
            raise ValueError(f"functional_call got multiple values for keys {given}, which are "
                             "tied. Consider using tie_weights=False")
        for n in names:
            out[n] = first
    return out


def functional_call(module: Module, parameters_and_buffers: Any, args: Any = None,
                    kwargs: dict | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with the named parameters and buffers (dotted names, as in
    ``state_dict``) replaced by the given tensors for this call only."""
    values = _merge(parameters_and_buffers)
    if tie_weights:
        values = _tie(module, values)
    if strict:
        own = {n for n, _ in module.named_parameters(remove_duplicate=False)} | \
            {n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing, unexpected = sorted(own - set(values)), sorted(set(values) - own)
        errors = [f"{label} key(s): {', '.join(map(repr, keys))}."
                  for label, keys in (("Unexpected", unexpected), ("Missing", missing)) if keys]
        if errors:  # PyTorch's text
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                               + "\n\t".join(errors))
    saved: list[tuple[dict, str, Any]] = []
    try:
        for name, value in values.items():
            path, _, attr = name.rpartition(".")
            mod = module.get_submodule(path)
            for store in (mod.__dict__["_parameters"], mod.__dict__["_buffers"]):
                if attr in store:
                    saved.append((store, attr, store[attr]))
                    store[attr] = value
                    break
            else:  # not a parameter or buffer: a plain attribute for the call
                saved.append((mod.__dict__, attr, mod.__dict__.get(attr, _ABSENT)))
                mod.__dict__[attr] = value
        call_args = () if args is None else args if isinstance(args, tuple) else (args,)
        return module(*call_args, **(kwargs or {}))
    finally:
        for store, attr, old in reversed(saved):
            if old is _ABSENT:
                del store[attr]
            else:
                store[attr] = old
