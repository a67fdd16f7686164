"""PyTorch's ``torch.nn.modules.lazy``: ``LazyModuleMixin``, the base of the lazy layers.

As in PyTorch, a lazy module holds ``UninitializedParameter``/``UninitializedBuffer`` entries
(listed by ``parameters()`` and saved as they are in ``state_dict()``) until a forward pre-hook
infers the missing size from the first input, materializes and initialises them, and turns the
module into its eager class (``cls_to_become``). Loading a state dict into a lazy module
materializes its entries with the loaded shapes. The lazy layers live beside their eager classes
(``LazyLinear`` in ``linear.py``, the lazy norms in ``batchnorm.py`` and ``instancenorm.py``,
the lazy convolutions in ``conv.py``), as in PyTorch.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..._core.grad_mode import no_grad
from ..._core.tensor_base import TensorBase
from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


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
