"""PyTorch's ``torch.nn.modules.module``: ``Module``, the base class of layers (parameters,
buffers, submodules, hooks, state dicts), and the global module hooks."""

from __future__ import annotations

import functools
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import numpy as np

from ... import dtypes
from ..._core.device import (
    DeviceUnavailableError,
    check_device,
    is_meta_array,
    meta_array,
    wants_meta,
)
from ..._core.device import device as device_type
from ..._core.grad_mode import no_grad
from ..._core.memory_format import format_name, in_format, is_in_format
from ..._kernels import cpu_share
from ..._tensor.legacy import typename
from ...tensor import Tensor
from ..parameter import Buffer, Parameter
from ._hooks import (
    HookRegistrationMixin,
    call_with_hooks,
    global_backward_hooks,
    global_backward_pre_hooks,
    global_forward_hooks,
    global_forward_pre_hooks,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
)
from ._module_state import (
    StateDictMixin,
    cast_floating,
    module_state_dict,
    replace_storage,
    to_target,
)

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook"]


def _forward_unimplemented(self: Any, *args: Any, **kwargs: Any) -> Any:
    """The computation; subclasses override it. Call the module, not ``forward``."""
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" '
                              'function')


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    return lines[0] if len(lines) == 1 else "\n".join(
        [lines[0]] + [" " * spaces + line for line in lines[1:]])


def _honouring_device(init: Callable, name: str) -> Callable:
    """``init`` run inside ``with device("meta"):`` when called with ``device="meta"`` (so its
    parameters and buffers are meta), after refusing a device other than the CPU."""

    @functools.wraps(init)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> None:
        where = kwargs.get("device")
        if where is None:
            return init(self, *args, **kwargs)
        check_device(where, name, meta_ok=True)
        if not wants_meta(where):
            return init(self, *args, **kwargs)
        with device_type("meta"):
            return init(self, *args, **kwargs)

    return wrapper


def _on_default_device(t: Tensor | None) -> None:
    """Inside ``with tl.device("meta"):`` a layer's new parameters and buffers become meta
    tensors (the layers build them from NumPy arrays, not through the factories)."""
    if t is not None and wants_meta(None) and not is_meta_array(t._data):
        t._data = meta_array(t._data.shape, t._data.dtype)

_cpu_choice = cpu_share._state  # [thread count wanted, applied, watcher]


class Module(HookRegistrationMixin, StateDictMixin):
    """Base class for all layers: assigning a ``Parameter``, ``Module`` or registered buffer to an
    attribute registers it, so ``parameters()``, ``state_dict()`` and friends find it."""

    training: bool
    # name -> Parameter / Module (None: a registered but empty slot, such as a bias=False bias)
    _parameters: OrderedDict[str, Any]
    _buffers: OrderedDict[str, Tensor | None]
    _non_persistent_buffers_set: set[str]
    _modules: OrderedDict[str, Any]
    _forward_pre_hooks: OrderedDict[int, Callable]
    _forward_pre_hooks_with_kwargs: dict[int, bool]
    _forward_hooks: OrderedDict[int, Callable]
    _forward_hooks_with_kwargs: dict[int, bool]
    _backward_pre_hooks: OrderedDict[int, Callable]
    _backward_hooks: OrderedDict[int, Callable]
    _version = 1  # state-dict format version, as in PyTorch
    dump_patches = False  # PyTorch's class attributes, which programs may read
    call_super_init = False
    T_destination = TypeVar("T_destination", bound=dict)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """tinygrad_lite's own layers honour ``device=``: ``Linear(2, 3, device="meta")``
        builds meta parameters, another device than the CPU raises (user subclasses keep
        whatever their own ``__init__`` does with the argument, as in PyTorch)."""
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith("tinygrad_lite.") and "__init__" in cls.__dict__:
            cls.__init__ = _honouring_device(  # type: ignore[method-assign]
                cls.__dict__["__init__"], cls.__name__)

    def __init__(self) -> None:
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = {}
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = {}
        d["_backward_pre_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_forward_hooks_always_called"] = {}
        d["_is_full_backward_hook"] = None
        d["_state_dict_pre_hooks"] = OrderedDict()
        d["_state_dict_hooks"] = OrderedDict()
        d["_load_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_post_hooks"] = OrderedDict()

    # Declared as a Callable attribute (as in PyTorch) so that subclasses may define forward
    # with any signature.
    forward: Callable[..., Any] = _forward_unimplemented

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` with the hooks around it (a fast path when there are none)."""
        if _cpu_choice[0] != _cpu_choice[1]:  # another process took or freed a core
            cpu_share.apply()
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_pre_hooks
                or self._backward_hooks or global_forward_pre_hooks or global_forward_hooks
                or global_backward_pre_hooks or global_backward_hooks):
            return self.forward(*args, **kwargs)  # fast path: no hooks anywhere
        return call_with_hooks(self, args, kwargs)

    # -- attribute registration ----------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, keep="_parameters")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            params[name] = None
        elif isinstance(value, Module):
            if "_modules" not in d:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep="_modules")
            d["_modules"][name] = value
        elif d.get("_modules") is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            d["_modules"][name] = None
        elif isinstance(value, Buffer):
            self._forget(name, keep="_buffers")
            self.register_buffer(name, Tensor._wrap(value._data), value.persistent)
        elif d.get("_buffers") is not None and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: str) -> None:
        """Drop ``name`` from the instance dict and every store but ``keep``, where it is about
        to be reassigned in place (so it keeps its position, as in PyTorch: replacing a child
        or parameter must not move it to the end of ``children()`` or the state_dict)."""
        d = self.__dict__
        d.pop(name, None)
        for key in ("_parameters", "_buffers", "_modules"):
            if key != keep:
                d[key].pop(name, None)
        d["_non_persistent_buffers_set"].discard(name)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            store = d.get(key)
            if store is not None and name in store:
                return store[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            if name in d[key]:
                del d[key][name]
                d["_non_persistent_buffers_set"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list:
        """The attributes, parameters, buffers and children, without the names that are not
        Python identifiers (a Sequential's ``0``, ``1``...), as PyTorch lists them."""
        keys = set(super().__dir__()) | set(self._parameters) | set(self._buffers) \
            | set(self._modules)
        return sorted(key for key in keys if not key[0].isdigit())

    def _check_name(self, name: Any, kind: str, store: str) -> None:
        """PyTorch's checks of a new parameter or buffer name, in its order and words: a
        string, no ".", not empty, not another attribute (re-registering is allowed)."""
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[store]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register ``param`` (a ``Parameter`` or None) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter", "_parameters")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as a "
                             "function of another Tensor, compute the value in the forward() "
                             "method.")
        _on_default_device(param)
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Register a non-learnable tensor (running statistics...) saved in ``state_dict`` unless
        ``persistent=False``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer", "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        _on_default_device(tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Register ``module`` as a child called ``name`` (PyTorch's checks, in its order)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        """The submodule at a dotted path such as ``"encoder.0"``."""
        mod = self
        for part in target.split(".") if target else []:
            if not hasattr(mod, part):
                raise AttributeError(f"{mod._get_name()} has no attribute `{part}`")
            mod = getattr(mod, part)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{part}` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Replace (or, unless ``strict``, add) the submodule at a dotted path."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def _get_member(self, target: str) -> tuple[Module, str]:
        """The module holding the last name of a dotted path, and that name (which it has)."""
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        return mod, name

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path such as ``"0.weight"`` (a None entry, such as a
        ``bias=False`` bias, is not a parameter, as in PyTorch)."""
        mod, name = self._get_member(target)
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path such as ``"bn.running_mean"``."""
        mod, name = self._get_member(target)
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(mod, name)

    # -- traversal -----------------------------------------------------------------------------
    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """``(dotted_name, module)`` for this module and every descendant (each once)."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                sub = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        """This module and every descendant."""
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` for the direct children."""
        seen = set()
        for name, m in self._modules.items():
            if m is not None and m not in seen:
                seen.add(m)
                yield name, m

    def children(self) -> Iterator[Module]:
        """The direct children."""
        for _, m in self.named_children():
            yield m

    def _named_members(self, store: str, prefix: str, recurse: bool,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        seen: set = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for mod_prefix, mod in mods:
            for name, value in getattr(mod, store).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(dotted_name, parameter)`` pairs, e.g. ``("0.weight", ...)`` in a Sequential."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every parameter (shared ones once)."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """``(dotted_name, buffer)`` pairs."""
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Every buffer."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # -- modes and bulk changes ----------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode (affects Dropout, BatchNorm) here and in every descendant."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            m.__dict__["training"] = mode
        return self

    def eval(self) -> Module:
        """Set evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` on every parameter."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter (to None by default, else to zeros)."""
        for p in self.parameters():
            if p._grad is None:
                continue
            if set_to_none:
                p._grad = None
            else:
                p._grad = Tensor._wrap(np.zeros_like(p._data))

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every descendant (children first), then on this module."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        """PyTorch's ``_apply``: ``fn`` (without grad) on every parameter (whose data it
        replaces in place, keeping the Parameter object), gradient and buffer (replaced by the
        result), in the children first unless ``recurse`` is False."""
        if recurse:
            for m in self.children():
                m._apply(fn)
        for p in self._parameters.values():
            if p is None:
                continue
            with no_grad():
                p._data = fn(p)._data
                p._version_counter[0] += 1
                if p._grad is not None:
                    p._grad = Tensor._wrap(fn(p._grad)._data)
        for key, b in self._buffers.items():
            if b is not None:
                self._buffers[key] = fn(b)
        return self

    def _cast(self, dtype: dtypes.DType) -> Module:
        cast_floating(self, dtype)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Convert floating parameters and buffers to a dtype; ``"cpu"`` is accepted, and
        ``"meta"`` drops their values (meta tensors: shapes and dtypes only)."""
        layout = format_name(kwargs.get("memory_format"))
        dt, where = to_target(args, kwargs)
        if layout in ("channels_last", "channels_last_3d"):  # the 4-D (5-D) weights, as PyTorch
            rank = 4 if layout == "channels_last" else 5
            for t in self._tensors():
                if t._data.ndim == rank and not is_in_format(t._data, layout):
                    t._data = in_format(t._data, layout)
        if where is not None and wants_meta(where):
            replace_storage(self, meta=True)
        elif where is not None and any(is_meta_array(t._data) for t in self._tensors()):
            raise NotImplementedError("Module.to: cannot copy out of meta tensors; they have "
                                      "no data. Use to_empty(device='cpu') and load weights.")
        return self if dt is None else self._cast(dt)

    def to_empty(self, *, device: Any, recurse: bool = True) -> Module:
        """Give every parameter and buffer new uninitialised memory on ``device`` (a module
        built on the meta device gets real tensors to load weights into)."""
        check_device(device, "to_empty", meta_ok=True)
        replace_storage(self, meta=wants_meta(device), recurse=recurse)
        return self

    def _tensors(self) -> list:
        """Every parameter and buffer of this module and its descendants."""
        return [t for m in self.modules() for store in (m._parameters, m._buffers)
                for t in store.values() if t is not None]

    def type(self, dst_type: Any) -> Module:
        """Convert every parameter and buffer (integer ones too, unlike ``to``) and their
        gradients to ``dst_type``, a dtype or a type string (``"torch.DoubleTensor"``)."""
        for t in self._tensors():
            t._data = t.type(dst_type)._data
            t._version_counter[0] += 1
            if t._grad is not None:
                t._grad = Tensor._wrap(t._grad.type(dst_type)._data)
        return self

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """Compile this module's ``forward`` with ``tl.compile`` (same arguments); later calls
        run the compiled form, with the hooks around it as before. The compiler is a layer
        above nn (it traces modules): it is reached at call time through the package, as a
        user's ``tl.compile`` is, not imported from here."""
        package = sys.modules[__name__.split(".", 1)[0]]
        self.__dict__["forward"] = package.compile(type(self).forward.__get__(self), *args,
                                                   **kwargs)

    def float(self) -> Module:
        """Convert floating parameters and buffers to float32."""
        return self._cast(dtypes.float32)

    def double(self) -> Module:
        """Convert floating parameters and buffers to float64."""
        return self._cast(dtypes.float64)

    def half(self) -> Module:
        """Convert floating parameters and buffers to float16."""
        return self._cast(dtypes.float16)

    def bfloat16(self) -> Module:
        """Convert floating parameters and buffers to bfloat16."""
        return self._cast(dtypes.bfloat16)

    def cpu(self) -> Module:
        """This module (everything lives on the CPU)."""
        return self

    def cuda(self, device: Any = None) -> Module:
        """Refused as by a CPU-only PyTorch: there is no GPU to move the module to."""
        raise DeviceUnavailableError("Module.cuda: Torch not compiled with CUDA enabled "
                                     "(tinygrad_lite runs on the CPU); keep the module on the "
                                     "CPU or choose the device with tl.cuda.is_available()")

    def share_memory(self) -> Module:
        """Move the parameters, buffers and existing gradients into shared memory, so that
        processes started afterwards (fork or spawn) update this very module (Hogwild)."""
        for t in [*self.parameters(), *self.buffers()]:
            t.share_memory_()
            if t._grad is not None:
                t._grad.share_memory_()
        return self

    # -- state dict ----------------------------------------------------------------------------
    def state_dict(self, *args: Any, destination: OrderedDict | None = None, prefix: str = "",
                   keep_vars: bool = False) -> OrderedDict:
        """Parameters and persistent buffers by dotted name (detached unless ``keep_vars``)."""
        if args:  # PyTorch's legacy positional form state_dict(destination, prefix, keep_vars)
            destination = args[0]
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        return module_state_dict(self, destination, prefix, keep_vars)

    # -- printing ------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The text inside this module's parentheses in ``repr`` (layers override it)."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, module in self._modules.items():
            lines.append(f"({name}): " + _addindent(repr(module), 2))
        if not self._modules and len(lines) <= 1:
            return f"{self._get_name()}({extra})"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"
