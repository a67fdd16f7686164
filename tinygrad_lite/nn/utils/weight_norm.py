"""PyTorch's deprecated ``torch.nn.utils.weight_norm`` / ``remove_weight_norm``: the weight is
split into the parameters ``<name>_g`` (magnitude) and ``<name>_v`` (direction) and recomputed
by a forward pre-hook before every call. Prefer ``nn.utils.parametrizations.weight_norm``."""

from __future__ import annotations

from typing import Any

from ..._core.warnings import warn
from ..modules.module import Module
from ..parameter import Parameter
from .parametrizations import norm_except_dim, weight_norm_value

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


class WeightNorm:
    """The forward pre-hook that rebuilds ``module.<name>`` from ``<name>_g`` and
    ``<name>_v``."""

    def __init__(self, name: str, dim: int | None) -> None:
        self.name, self.dim = name, -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Any:
        """``v * g / ||v||``."""
        return weight_norm_value(getattr(module, self.name + "_v"),
                                 getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        """Split ``module.<name>`` and register the hook."""
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g",
                                  Parameter(norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        """Fold ``g`` and ``v`` back into one parameter ``module.<name>``."""
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Deprecated (FutureWarning): split ``module.<name>`` into ``<name>_g`` and ``<name>_v``."""
    warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
         "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning)
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``weight_norm``: one parameter ``module.<name>`` again."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
