"""PyTorch's ``torch.nn.utils.prune``: zero out part of a parameter through a mask.

Pruning ``module.<name>`` moves the parameter to ``<name>_orig``, adds a buffer ``<name>_mask``
(1 keeps an entry, 0 prunes it) and makes ``module.<name>`` the plain tensor
``<name>_orig * <name>_mask``, recomputed by a forward pre-hook before every call, so the
gradient reaches only the kept entries of ``<name>_orig``. Pruning the same tensor again
combines the masks: the new method picks among the entries (or channels) still kept.
``remove`` makes the pruned tensor the parameter again, for good.

``amount`` is a fraction in [0, 1] of the entries (or channels) to prune, rounded to the
nearest whole number, or an absolute count.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.grad_mode import no_grad
from ..._core.tensor_base import TensorBase
from ...dtypes import default_float_np
from ...functions.creation import default_rng
from ...functions.torch_stream import draw_dtype
from ..modules.module import Module

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


def _check_amount(amount: Any) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _count(amount: Any, size: int) -> int:
    """How many of ``size`` entries (or channels) ``amount`` prunes."""
    if isinstance(amount, numbers.Integral):
        if int(amount) > size:
            raise ValueError(f"amount={amount} should be smaller than the number of "
                             f"parameters to prune={size}")
        return int(amount)
    return int(round(float(amount) * size))


class BasePruningMethod:
    """A way to compute a pruning mask; subclasses set ``PRUNING_TYPE`` ('unstructured',
    'structured' or 'global') and implement ``compute_mask(t, default_mask)``. An instance is
    also the forward pre-hook that reapplies its mask."""

    PRUNING_TYPE = "unstructured"
    _tensor_name: str

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    def compute_mask(self, t: TensorBase, default_mask: TensorBase) -> TensorBase:
        """The new mask for ``t``, starting from ``default_mask``."""
        raise NotImplementedError

    def apply_mask(self, module: Module) -> TensorBase:
        """``<name>_orig * <name>_mask`` of ``module``."""
        name = self._tensor_name
        return getattr(module, name + "_orig") * getattr(module, name + "_mask")

    @classmethod
    def apply(cls, module: Module, name: str, *args: Any, importance_scores: Any = None,
              **kwargs: Any) -> BasePruningMethod:
        """Prune ``module.<name>`` with a new instance of this method (see the module
        docstring); returns the hook now in force (a ``PruningContainer`` when the tensor was
        pruned before)."""
        method: BasePruningMethod = cls(*args, **kwargs)
        previous = [(key, hook) for key, hook in module._forward_pre_hooks.items()
                    if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
        if len(previous) > 1:
            raise RuntimeError(f"more than one pruning hook on {name}")
        if previous:
            key, old = previous[0]
            del module._forward_pre_hooks[key]
            container = old if isinstance(old, PruningContainer) else PruningContainer(old)
            container.add_pruning_method(method)
            method = container
        method._tensor_name = name
        orig = getattr(module, name)
        if importance_scores is not None and tuple(importance_scores.shape) != tuple(orig.shape):
            raise ValueError(f"importance_scores should have the same shape as parameter "
                             f"{name} of {module}")
        if not previous:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _fn.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        with no_grad():
            scores = importance_scores if importance_scores is not None else orig
            mask = method.compute_mask(scores.detach(), default_mask=default_mask)
        module.register_buffer(name + "_mask", mask)  # type: ignore[arg-type]
        setattr(module, name, method.apply_mask(module))
        module.register_forward_pre_hook(method)
        return method

    def prune(self, t: TensorBase, default_mask: TensorBase | None = None,
              importance_scores: TensorBase | None = None) -> TensorBase:
        """``t`` with this method's mask applied (the module-free form)."""
        scores = importance_scores if importance_scores is not None else t
        mask = self.compute_mask(scores, default_mask if default_mask is not None
                                 else _fn.ones_like(t))
        return t * mask

    def remove(self, module: Module) -> None:
        """Make the pruned tensor ``module.<name>`` the parameter again, for good."""
        name = self._tensor_name
        if name + "_orig" not in module._parameters:
            raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before "
                             "pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters.pop(name + "_orig")
        orig.data = weight.data
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


class PruningContainer(BasePruningMethod):
    """Several pruning methods applied in turn to one tensor, each choosing among what the
    earlier ones kept."""

    def __init__(self, *methods: BasePruningMethod) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        for method in methods:
            self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        """Append ``method`` (all must prune the same tensor)."""
        if not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if self._pruning_methods and \
                getattr(method, "_tensor_name", None) not in (None, self._tensor_name):
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer.")
        if not self._pruning_methods:
            self._tensor_name = getattr(method, "_tensor_name", "")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Any:
        return iter(self._pruning_methods)

    def __getitem__(self, index: int) -> BasePruningMethod:
        return self._pruning_methods[index]

    def compute_mask(self, t: TensorBase, default_mask: TensorBase) -> TensorBase:
        """The last method's mask computed on what ``default_mask`` still keeps."""
        method = self._pruning_methods[-1]
        kept = default_mask._data != 0
        if method.PRUNING_TYPE == "unstructured":
            where: Any = kept
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError("Pruning methods of PRUNING_TYPE 'structured' need to "
                                     "have the attribute `dim` defined.")
            dim = method.dim % t.ndim
            others = tuple(d for d in range(t.ndim) if d != dim)
            where = [slice(None)] * t.ndim
            where[dim] = kept.sum(axis=others) != 0
            where = tuple(where)
        elif method.PRUNING_TYPE == "global":
            where = (slice(None),) * t.ndim
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        partial = method.compute_mask(_fn.tensor(t._data[where]),
                                      default_mask=_fn.tensor(default_mask._data[where]))
        new = default_mask._data.astype(t._data.dtype, copy=True)
        new[where] = partial._data
        return _fn.tensor(new)


class Identity(BasePruningMethod):
    """Prunes nothing: a mask of ones."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: TensorBase, default_mask: TensorBase) -> TensorBase:
        """``default_mask`` unchanged."""
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str) -> BasePruningMethod:  # type: ignore[override]
        """Mask ``module.<name>`` with ones."""
        return super().apply(module, name)


def _prune_smallest(scores: np.ndarray, default_mask: TensorBase, count: int) -> TensorBase:
    """``default_mask`` with the ``count`` entries of smallest score set to 0 (ties: the
    first ones)."""
    mask = default_mask._data.astype(default_mask._data.dtype, copy=True)
    if count:
        flat_scores = scores.reshape(-1)
        smallest = np.argsort(flat_scores, kind="stable")[:count]
        mask.reshape(-1)[smallest] = 0
    return _fn.tensor(mask)


class _Unstructured(BasePruningMethod):
    """A method pruning ``amount`` single entries."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: Any) -> None:
        _check_amount(amount)
        self.amount = amount


class RandomUnstructured(_Unstructured):
    """Prunes ``amount`` entries chosen at random."""

    def compute_mask(self, t: TensorBase, default_mask: TensorBase) -> TensorBase:
        """Zeros at ``amount`` random entries: as PyTorch, the entries given the ``amount``
        largest of ``rand_like(t)`` (drawn in ``t``'s dtype, and only when some are pruned),
        so the same seed prunes the same entries."""
        count = _count(self.amount, t.numel())
        mask = default_mask._data.astype(default_mask._data.dtype, copy=True)
        if count:
            prob = default_rng().uniform_as(0.0, 1.0, (t.numel(),), draw_dtype(t._data.dtype))
            mask.reshape(-1)[np.argsort(-prob, kind="stable")[:count]] = 0
        return _fn.tensor(mask)

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any) -> BasePruningMethod:  # type: ignore[override]
        """Prune ``amount`` random entries of ``module.<name>``."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """Prunes the ``amount`` entries of smallest absolute value."""

    def compute_mask(self, t: TensorBase, default_mask: TensorBase) -> TensorBase:
        """Zeros at the ``amount`` smallest magnitudes."""
        count = _count(self.amount, t.numel())
        return _prune_smallest(np.abs(t._data), default_mask, count)

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any,  # type: ignore[override]
              importance_scores: Any = None) -> BasePruningMethod:
        """Prune the ``amount`` smallest entries of ``module.<name>`` (or of
        ``importance_scores``)."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _channel_mask(default_mask: TensorBase, dim: int, keep: np.ndarray) -> TensorBase:
    """``default_mask`` with the channels along ``dim`` not in ``keep`` set to 0."""
    mask = default_mask._data.astype(default_mask._data.dtype, copy=True)
    drop = np.ones(mask.shape[dim], bool)
    drop[keep] = False
    index: list[Any] = [slice(None)] * mask.ndim
    index[dim] = drop
    mask[tuple(index)] = 0
    return _fn.tensor(mask)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim``, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount, self.dim = amount, dim

    def compute_mask(self, t: TensorBase, default_mask: TensorBase) -> TensorBase:
        """Zeros over ``amount`` random channels."""
        if t.ndim <= 1:
            raise ValueError("Structured pruning can only be applied to multidimensional "
                             f"tensors. Found tensor of shape {tuple(t.shape)} with {t.ndim} "
                             "dims")
        channels = t.shape[self.dim]
        count = _count(self.amount, channels)
        if not count:  # (PyTorch draws nothing then)
            return _fn.tensor(default_mask._data.copy())
        # as PyTorch: ``torch.rand(channels)`` (the default float dtype), the ``count`` smallest
        # draws' channels pruned, so the same seed prunes the same channels
        prob = default_rng().uniform_as(0.0, 1.0, (channels,), default_float_np())
        keep = np.argsort(prob, kind="stable")[count:]
        return _channel_mask(default_mask, self.dim % t.ndim, keep)

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any,  # type: ignore[override]
              dim: int = -1) -> BasePruningMethod:
        """Prune ``amount`` random channels of ``module.<name>`` along ``dim``."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest ``n``-norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, n: Any, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount, self.n, self.dim = amount, n, dim

    def compute_mask(self, t: TensorBase, default_mask: TensorBase) -> TensorBase:
        """Zeros over the ``amount`` channels of smallest norm."""
        if t.ndim <= 1:
            raise ValueError("Structured pruning can only be applied to multidimensional "
                             f"tensors. Found tensor of shape {tuple(t.shape)} with {t.ndim} "
                             "dims")
        dim = self.dim % t.ndim
        channels = t.shape[dim]
        count = _count(self.amount, channels)
        others = tuple(d for d in range(t.ndim) if d != dim)
        norms = _fn.norm(t, p=self.n, dim=others)._data
        keep = np.argsort(-norms, kind="stable")[:channels - count]
        return _channel_mask(default_mask, dim, keep)

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any, n: Any,  # type: ignore[override]
              dim: int, importance_scores: Any = None) -> BasePruningMethod:
        """Prune the ``amount`` channels of ``module.<name>`` along ``dim`` of smallest
        ``n``-norm."""
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where a given mask is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: TensorBase) -> None:
        self.mask = mask

    def compute_mask(self, t: TensorBase, default_mask: TensorBase) -> TensorBase:
        """``default_mask * mask``."""
        if tuple(default_mask.shape) != tuple(self.mask.shape):
            raise ValueError(f"mask of shape {tuple(self.mask.shape)} does not match the "
                             f"tensor's {tuple(default_mask.shape)}")
        return default_mask * self.mask.to(default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: TensorBase) -> BasePruningMethod:  # type: ignore[override]
        """Prune ``module.<name>`` where ``mask`` is 0."""
        return super().apply(module, name, mask=mask)


def identity(module: Module, name: str) -> Module:
    """Mask ``module.<name>`` with ones (the pruning structure without pruning)."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: Any) -> Module:
    """Prune ``amount`` random entries of ``module.<name>``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Module, name: str, amount: Any,
                    importance_scores: TensorBase | None = None) -> Module:
    """Prune the ``amount`` entries of ``module.<name>`` of smallest magnitude."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: Any, dim: int) -> Module:
    """Prune ``amount`` random channels of ``module.<name>`` along ``dim``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: Module, name: str, amount: Any, n: Any, dim: int,
                  importance_scores: TensorBase | None = None) -> Module:
    """Prune the ``amount`` channels of ``module.<name>`` along ``dim`` of smallest
    ``n``-norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters: Iterable[tuple[Module, str]], pruning_method: type,
                        importance_scores: dict | None = None, **kwargs: Any) -> None:
    """Prune across several tensors at once: ``pruning_method`` (e.g. ``L1Unstructured`` with
    ``amount=``) picks among all their entries together (each one's current mask kept)."""
    parameters = list(parameters)
    if not parameters:
        raise ValueError("global_unstructured: parameters must not be empty")
    importance_scores = importance_scores or {}
    scores, masks = [], []
    for module, name in parameters:
        scores.append(importance_scores.get((module, name), getattr(module, name))._data
                      .reshape(-1))
        mask = getattr(module, name + "_mask", None)
        masks.append(mask._data.reshape(-1) if mask is not None
                     else np.ones(scores[-1].shape, scores[-1].dtype))
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    dtype = np.result_type(*scores)
    combined = container.compute_mask(_fn.tensor(np.concatenate(scores).astype(dtype)),
                                      _fn.tensor(np.concatenate(masks).astype(dtype)))._data
    start = 0
    for (module, name), flat in zip(parameters, scores):
        part = combined[start:start + flat.size].reshape(getattr(module, name).shape)
        start += flat.size
        custom_from_mask(module, name, _fn.tensor(part))


def custom_from_mask(module: Module, name: str, mask: TensorBase) -> Module:
    """Prune ``module.<name>`` where ``mask`` is 0."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module: Module, name: str) -> Module:
    """Make the pruned ``module.<name>`` a plain parameter again (pruned entries stay 0)."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module: Module) -> bool:
    """Whether ``module`` or one of its submodules has a pruned tensor."""
    return any(isinstance(hook, BasePruningMethod) for m in module.modules()
               for hook in m._forward_pre_hooks.values())
