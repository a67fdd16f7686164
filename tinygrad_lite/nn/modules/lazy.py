"""PyTorch's ``torch.nn.modules.lazy`` and the lazy layers built on it: LazyLinear,
LazyBatchNorm1d/2d/3d and LazyInstanceNorm1d/2d/3d.

As in PyTorch, a lazy module holds ``UninitializedParameter``/``UninitializedBuffer`` entries
(listed by ``parameters()`` and saved as they are in ``state_dict()``) until a forward pre-hook
infers the missing size from the first input, materializes and initialises them, and turns the
module into its eager class (``cls_to_become``). Loading a state dict into a lazy module
materializes its entries with the loaded shapes. The lazy convolutions (``conv.py``) use the
same mixin.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..._core.grad_mode import no_grad
from ..._core.tensor_base import TensorBase
from ...tensor import Tensor
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from .linear import Linear

__all__ = ["LazyLinear", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]


class _HookHandle:
    """A picklable handle to one of a module's hooks (its id in the module's hook tables)."""

    def __init__(self, module: Any, handle: Any, tables: tuple) -> None:
        self.module, self.id, self.tables = module, handle.id, tables

    def remove(self) -> None:
        """Unregister the hook."""
        for table in self.tables:
            self.module.__dict__.get(table, {}).pop(self.id, None)


class LazyModuleMixin:
    """Mixin for modules whose parameters are inferred from their first input: it registers
    the pre-hook that calls ``initialize_parameters`` and the state-dict hook that materializes
    uninitialized entries from a loaded state dict."""

    cls_to_become: type | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        module: Any = self
        # bound methods and plain handles keep the module picklable
        self._load_hook = _HookHandle(module, module.register_load_state_dict_pre_hook(
            self._lazy_load_pre_hook), ("_load_state_dict_pre_hooks",))
        self._initialize_hook = _HookHandle(module, module.register_forward_pre_hook(
            self._infer_parameters, with_kwargs=True),
            ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs"))

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        """This module's entries, uninitialized ones saved as they are (not detached)."""
        module: Any = self
        for name, param in module._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars \
                    else param.detach()
        for name, buf in module._buffers.items():
            if buf is not None and name not in module._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _lazy_load_hook(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                        missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        """Materialize the uninitialized entries that ``state_dict`` gives values for."""
        module: Any = self
        for name, param in itertools.chain(module._parameters.items(),
                                           module._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param):
                value = state_dict[key]
                if not is_lazy(value):
                    shape = value._data.shape if isinstance(value, TensorBase) \
                        else np.shape(value)
                    with no_grad():
                        param.materialize(shape)

    def _lazy_load_pre_hook(self, module: Any, *args: Any) -> None:
        self._lazy_load_hook(*args)

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Infer the sizes from the inputs and materialize (each lazy module defines it)."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {type(self).__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether any parameter or buffer is still uninitialized."""
        module: Any = self
        return any(is_lazy(t) for t in itertools.chain(module._parameters.values(),
                                                       module._buffers.values()))

    def _infer_parameters(self, module: Any, args: tuple, kwargs: dict | None = None) -> None:
        """The forward pre-hook: initialize, drop the hooks, become ``cls_to_become``."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        del module._initialize_hook, module._load_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self) -> Any:
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize "
                           "the modules")


class LazyLinear(LazyModuleMixin, Linear):
    """``Linear`` whose ``in_features`` is inferred from ``input.shape[-1]`` at the first
    forward."""

    cls_to_become = Linear
    weight: Any
    bias: Any

    def __init__(self, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self) -> None:
        """Linear's initialisation, once the parameters exist."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: TensorBase) -> None:
        """``in_features`` from the input's last dim; allocate and initialise."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = int(input.shape[-1])
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # materialized by load_state_dict
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} "
                                     "is not equal to in_features from self.weight: "
                                     f"{self.weight.shape[-1]}")
            self.in_features = int(input.shape[-1])


class _LazyNormBase(LazyModuleMixin):
    """The lazy batch and instance norms: ``num_features`` from the input's channel dim."""

    _channel_dim_unbatched: int | None = None  # instance norms accept (C, *spatial) input
    _nd = 1

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        module: Any = self
        module.affine, module.track_running_stats = affine, track_running_stats
        if affine:
            module.weight = UninitializedParameter(dtype=dtype)
            if bias:
                module.bias = UninitializedParameter(dtype=dtype)
        if track_running_stats:
            module.running_mean = UninitializedBuffer(dtype=dtype)
            module.running_var = UninitializedBuffer(dtype=dtype)
            module.num_batches_tracked = Tensor._wrap(np.zeros((), np.int64))

    def reset_parameters(self) -> None:
        """Running statistics reset; weight 1 and bias 0 (once they exist)."""
        module: Any = self
        if self.has_uninitialized_params() or module.num_features == 0:
            return
        if module.track_running_stats:
            module.running_mean._data[...] = 0
            module.running_var._data[...] = 1
            module.num_batches_tracked._data[...] = 0
        if module.affine:
            module.weight._data[...] = 1
            if module.bias is not None:
                module.bias._data[...] = 0

    def initialize_parameters(self, input: TensorBase) -> None:
        """``num_features`` from dim 1 of the input (dim 0 of unbatched instance-norm input)."""
        if not self.has_uninitialized_params():
            return
        module: Any = self
        unbatched = self._channel_dim_unbatched is not None and input.ndim == self._nd + 1
        module.num_features = int(input.shape[0 if unbatched else 1])
        with no_grad():
            for name in ("weight", "bias", "running_mean", "running_var"):
                entry = getattr(module, name, None)
                if entry is not None and is_lazy(entry):
                    entry.materialize((module.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """``BatchNorm1d`` with ``num_features`` inferred from ``input.shape[1]``."""

    cls_to_become = BatchNorm1d
    _dims = BatchNorm1d._dims


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """``BatchNorm2d`` with ``num_features`` inferred from ``input.shape[1]``."""

    cls_to_become = BatchNorm2d
    _dims = BatchNorm2d._dims


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """``BatchNorm3d`` with ``num_features`` inferred from ``input.shape[1]``."""

    cls_to_become = BatchNorm3d
    _dims = BatchNorm3d._dims


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """``InstanceNorm1d`` with ``num_features`` inferred from the input's channel dim (affine
    and running statistics on by default, as PyTorch's lazy form has them)."""

    cls_to_become = InstanceNorm1d
    _channel_dim_unbatched = 0
    _nd = 1


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """``InstanceNorm2d`` with ``num_features`` inferred from the input's channel dim."""

    cls_to_become = InstanceNorm2d
    _channel_dim_unbatched = 0
    _nd = 2


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """``InstanceNorm3d`` with ``num_features`` inferred from the input's channel dim."""

    cls_to_become = InstanceNorm3d
    _channel_dim_unbatched = 0
    _nd = 3

