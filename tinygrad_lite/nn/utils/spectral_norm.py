"""PyTorch's older ``torch.nn.utils.spectral_norm`` / ``remove_spectral_norm``: the parameter
``<name>_orig`` and the power-iteration buffers ``<name>_u``, ``<name>_v``; a forward pre-hook
sets ``module.<name> = <name>_orig / sigma`` before every call (one power-iteration step per
call in training). Prefer ``nn.utils.parametrizations.spectral_norm``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.grad_mode import no_grad
from ...functions import creation as _creation
from ...functions.torch_stream import draw_dtype
from ...tensor import Tensor
from ..modules.conv import _ConvNd
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


def unit(x: np.ndarray, eps: float) -> np.ndarray:
    """``x / max(||x||, eps)``: a power-iteration vector normalised as ``F.normalize`` does."""
    return x / max(float(np.linalg.norm(x)), eps)


def random_unit_vector(length: int, dtype: np.dtype, eps: float) -> Tensor:
    """The power iteration's start, drawn as PyTorch draws it:
    ``normalize(weight.new_empty(length).normal_(0, 1), dim=0, eps=eps)`` in the weight's
    dtype (the same numbers from the same seed, to an ulp)."""
    draws = _creation.default_rng().normal_as(0.0, 1.0, (length,), draw_dtype(np.dtype(dtype)))
    return Tensor._wrap(unit(draws.astype(dtype), eps).astype(dtype))


class SpectralNorm:
    """The forward pre-hook that rebuilds ``module.<name>`` from ``<name>_orig``."""

    _version = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.dim, self.eps = name, dim, eps
        self.n_power_iterations = n_power_iterations

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """The weight as a matrix with dim ``self.dim`` as rows."""
        if self.dim != 0:
            weight = weight.movedim(self.dim, 0)
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        """``<name>_orig / sigma``, after power iteration on ``u`` and ``v`` in place."""
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            w = mat._data
            for _ in range(self.n_power_iterations):
                v._data[...] = unit(w.T @ u._data, self.eps)
                u._data[...] = unit(w @ v._data, self.eps)
            u._version_counter[0] += 1
            v._version_counter[0] += 1
            u, v = u.clone(), v.clone()
        sigma = (u * (mat @ v)).sum()
        return weight / sigma

    def remove(self, module: Module) -> None:
        """Make ``module.<name>`` a plain parameter holding the normalised weight."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int,
              eps: float) -> SpectralNorm:
        """Split ``module.<name>`` and register the hook."""
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        h, w = fn.reshape_weight_to_matrix(weight).shape
        u = random_unit_vector(h, weight._data.dtype, eps)
        v = random_unit_vector(w, weight._data.dtype, eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        setattr(module, name, weight.detach())
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Normalise ``module.<name>`` by its spectral norm before every forward."""
    if dim is None:
        dim = 1 if isinstance(module, _ConvNd) and module.transposed else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``spectral_norm``."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
