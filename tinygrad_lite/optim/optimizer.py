"""``Optimizer``: param groups, per-parameter state, zero_grad and state dicts, as in PyTorch.

Updates run in place on ``p._data`` under no_grad with NumPy ``out=`` arguments; each step bumps
the parameter's version counter. Temporaries go into one scratch buffer per parameter shape and
dtype, reused on every step, so a step allocates no parameter-sized arrays once warm.

``optimizer.state[p]`` holds Tensors as PyTorch's does (``exp_avg``, ``momentum_buffer``, and
``step`` as a 0-d float32 Tensor); the updates work on the arrays those Tensors wrap, read anew
at every step, so a state entry a user replaces or changes in place is the one used.
"""

from __future__ import annotations

import copy
import functools
import itertools
import weakref
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .. import _kernels
from .._core.grad_mode import enable_grad, no_grad
from .._core.graph import RemovableHandle
from .._core.tracing import tracing_state
from .._core.warnings import warn
from ..dtypes import float64, get_default_dtype, is_float_dtype
from ..ops import kernel_choice
from ..tensor import Tensor

__all__ = ["Optimizer", "required", "axpy", "scalar_lr_group",
           "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook",
           "state_like", "state_scalar", "scalar_dtype", "bump_step", "update_kernels", "flat"]

_KERNEL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

# Optimizers whose first step an LR scheduler awaits (PyTorch warns when a scheduler steps
# before its optimizer ever has), as ``id(optimizer) -> weakref``. An optimizer leaves at its
# next step, so in a steady state the dict is empty and step() pays one (C-level) truth test
# for it; kept outside the optimizer so that tl.compile's guards on the optimizer's
# attributes do not change at the first step.
awaiting_first_step: dict[int, weakref.ref] = {}


def awaits_first_step(optimizer: Any) -> bool:
    """Whether ``optimizer`` has not stepped since an LR scheduler began waiting for it."""
    ref = awaiting_first_step.get(id(optimizer))
    return ref is not None and ref() is optimizer

# hooks every optimizer runs around step(), PyTorch's global ones
_global_step_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
_global_step_post_hooks: OrderedDict[int, Callable] = OrderedDict()


def _register(hooks: OrderedDict, hook: Callable, prepend: bool = False) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` before every optimizer's step; it may return new
    ``(args, kwargs)``."""
    return _register(_global_step_pre_hooks, hook)


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` after every optimizer's step."""
    return _register(_global_step_post_hooks, hook)


def scalar_lr_group(group: dict) -> dict:
    """``group`` for one step when its learning rate is a 0-d Tensor (``lr=torch.tensor(0.01)``):
    a copy holding the rate as a NumPy scalar of the Tensor's dtype, so the update's arithmetic
    on it rounds as PyTorch's does on a float32 Tensor (``lr / bias_correction1`` in float32)
    while the group itself keeps the Tensor a scheduler may update in place. A 1-element
    Tensor of more dims counts as 0-d (PyTorch squeezes it)."""
    return {**group, "lr": group["lr"]._data.reshape(())[()]}


def _with_step_hooks(step: Callable) -> Callable:
    """``step`` surrounded by the global and per-optimizer step hooks (once per call, also when
    a subclass's step calls its parent's)."""

    @functools.wraps(step)
    def wrapper(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        if awaiting_first_step:
            awaiting_first_step.pop(id(self), None)
        if self._running_step_hooks:
            return step(self, *args, **kwargs)
        self._running_step_hooks = True
        try:
            for hook in itertools.chain(_global_step_pre_hooks.values(),
                                        self._optimizer_step_pre_hooks.values()):
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(f"{hook} must return None or a tuple of (new_args, "
                                           f"new_kwargs), but got {result}.")
                    args, kwargs = result
            out = step(self, *args, **kwargs)
            for hook in itertools.chain(self._optimizer_step_post_hooks.values(),
                                        _global_step_post_hooks.values()):
                hook(self, args, kwargs)
            return out
        finally:
            self._running_step_hooks = False

    return wrapper


def axpy(y: np.ndarray, x: np.ndarray, alpha: Any, tmp: np.ndarray) -> None:
    """``y += alpha * x`` in place, the product going through the scratch array ``tmp``."""
    if isinstance(alpha, np.ndarray):  # a learning rate tl.compile reads per call: no branch
        np.multiply(x, operand(alpha, y.dtype), out=tmp)  # on its value (x * 1.0 and x * -1.0
        y += tmp  # are exact, so the results are those of the shortcuts below)
    elif alpha == 1.0:
        y += x
    elif alpha == -1.0:
        y -= x
    else:
        np.multiply(x, alpha, out=tmp)
        y += tmp


def update_kernels(p: Tensor, grad: np.ndarray, hyperparameters: tuple,
                   *state: np.ndarray) -> Any:
    """The compiled ``optim`` kernels (``_kernels/source/optim.py``) when they can run this
    parameter's update, else None (the NumPy update runs): float32 or float64 arrays, the
    gradient and ``state`` of the parameter's dtype and shape, all C-contiguous, plain numbers
    for the ``hyperparameters``, and not while tl.compile traces (its replay records the NumPy
    calls; the kernels give the same bits, so eager and compiled runs agree)."""
    data = p._data
    # (small parameters stay on NumPy: a kernel call's fixed cost is more than it saves there)
    if (data.size < kernel_choice.MIN_ELEMENTS or tracing_state.active
            or data.dtype not in _KERNEL_DTYPES):
        return None
    if not all(isinstance(h, (int, float)) for h in hyperparameters):
        return None
    for a in (data, grad, *state):
        if a.dtype != data.dtype or a.shape != data.shape or not a.flags.c_contiguous:
            return None
    return _kernels.family("optim")


def flat(a: np.ndarray) -> np.ndarray:
    """A C-contiguous array as a 1-D view (what the update kernels take)."""
    return a.reshape(-1)


def operand(value: Any, dtype: np.dtype) -> Any:
    """A hyper-parameter as an operand of ``dtype`` arrays: a Python float as it is (NumPy
    rounds it to ``dtype``), a 0-d array (a learning rate ``tl.compile`` reads per call)
    rounded to ``dtype`` the same way, so the product is computed in ``dtype`` either way."""
    return value.astype(dtype) if isinstance(value, np.ndarray) else value


def state_like(p: Tensor, fill: float = 0.0) -> Tensor:
    """A state Tensor shaped like parameter ``p`` filled with ``fill``."""
    return Tensor._wrap(np.full_like(p._data, fill) if fill else np.zeros_like(p._data))


def scalar_dtype() -> type:
    """PyTorch's dtype for 0-d optimizer state: float32, or float64 when that is the default
    dtype."""
    return np.float64 if get_default_dtype() == float64 else np.float32


def state_scalar(value: float) -> Tensor:
    """A 0-d state Tensor (``step``, NAdam's ``mu_product``...) of the scalar dtype."""
    return Tensor._wrap(np.array(value, dtype=scalar_dtype()))


def bump_step(state: dict, traceable: bool = False) -> float:
    """Add one to ``state["step"]`` in place and return it as a float; a plain number there (an
    older state dict, or a user's assignment) becomes a 0-d Tensor. ``traceable``: the caller's
    arithmetic on the step works on a 0-d float64 array too, which is what it gets while
    ``tl.compile`` traces (else the Python number is a data-dependent value there)."""
    step = state["step"]
    if isinstance(step, Tensor) and traceable and tracing_state.active:
        # tl.compile is tracing: count in NumPy, so that a replay counts too, and hand back the
        # count as a 0-d float64 array (the bias corrections then stay NumPy expressions)
        np.add(step._data, 1, out=step._data)
        return step._data.astype(np.float64)  # type: ignore[return-value]
    if isinstance(step, Tensor):
        # item() and a 0-d store take a tenth of the time of ``data += 1`` (a ufunc call); the
        # sum is rounded to the Tensor's dtype on the store, and read back as stored
        data = step._data
        data[()] = data.item() + 1
        return data.item()
    value = float(step) + 1
    state["step"] = state_scalar(value)
    return value


def _copy_state(value: Any) -> Any:
    """A state entry with its Tensors (also inside lists) copied, the rest deep-copied."""
    if isinstance(value, (Tensor, np.ndarray)):
        return Tensor._wrap(np.array(value._data if isinstance(value, Tensor) else value))
    if isinstance(value, (list, tuple)):
        return type(value)(_copy_state(v) for v in value)
    return copy.deepcopy(value)


def _restore_state(value: Any, param: Tensor, key: Any = None) -> Any:
    """A loaded state entry as this optimizer keeps it: Tensors (or arrays) copied and cast to
    the parameter's dtype when it is floating point, except ``step``, as PyTorch does."""
    if isinstance(value, (Tensor, np.ndarray)):
        arr = value._data if isinstance(value, Tensor) else value
        cast = key != "step" and is_float_dtype(param._data.dtype)
        return Tensor._wrap(np.array(arr, dtype=param._data.dtype if cast else arr.dtype))
    if isinstance(value, dict):
        return {k: _restore_state(v, param, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_restore_state(v, param) for v in value)
    return copy.deepcopy(value)


class _Required:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()


class Optimizer:
    """Base class: ``param_groups`` (dicts of params and their options), ``state`` (per
    parameter), ``step(closure)`` implemented by subclasses in ``_update``."""

    _running_step_hooks = False  # set while step() runs its hooks (a nested step skips them)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:  # a subclass's own step runs the hooks too
            cls.step = _with_step_hooks(cls.__dict__["step"])  # type: ignore[method-assign]

    def __init__(self, params: Iterable[Any], defaults: dict) -> None:
        self._optimizer_step_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict[int, Callable] = OrderedDict()
        self.defaults = defaults
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        self._scratch: dict = {}
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got Tensor of dtype {params.dtype}")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own options (missing ones from the defaults);
        ``(name, tensor)`` pairs, as ``named_parameters()`` gives, record ``param_names``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        group = dict(param_group)
        params = group["params"]
        if isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        params = [params] if isinstance(params, Tensor) else list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        group["params"] = [p[1] if isinstance(p, tuple) else p for p in params]
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            group["param_names"] = names
        for p in group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is "
                                f"{type(p).__name__}")
            if not (p.is_leaf or getattr(p, "retains_grad", False)):
                raise ValueError("can't optimize a non-leaf Tensor")
        if len({id(p) for p in group["params"]}) != len(group["params"]):
            warn("optimizer contains a parameter group with duplicate parameters; in "
                 "future, this will cause an error; see "
                 "github.com/pytorch/pytorch/issues/40967 for more information")
        for g in self.param_groups:
            if ("param_names" in g) != ("param_names" in group):
                kind = "with names" if "param_names" in group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {kind} to the optimizer")
        for key, value in self.defaults.items():
            if value is required and key not in group:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {key}")
            group.setdefault(key, value)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters (to None by default, else to zeros in place)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    p._grad._data[...] = 0
                    p._grad._version_counter[0] += 1

    def scratch(self, p: Tensor, slot: int = 0) -> np.ndarray:
        """Reusable temporary array number ``slot`` shaped like ``p`` (shared by parameters of
        one shape): the only parameter-sized allocation a step makes, once."""
        key = (p._data.shape, p._data.dtype, slot)
        buf = self._scratch.get(key)
        if buf is None:
            buf = self._scratch[key] = np.empty_like(p._data)
        return buf

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter with a gradient; ``closure`` re-evaluates the loss."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                if isinstance(group["lr"], Tensor):  # (once per group: off the per-param path)
                    group = scalar_lr_group(group)
                for p in group["params"]:
                    if p._grad is None:
                        continue
                    self._update(p, p._grad._data, group, self.state[p])
                    p._version_counter[0] += 1
        return loss

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        raise NotImplementedError

    # -- hooks -------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(optimizer, args, kwargs)`` before each step; it may return new
        ``(args, kwargs)``."""
        return _register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(optimizer, args, kwargs)`` after each step."""
        return _register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False
                                     ) -> RemovableHandle:
        """Run ``hook(optimizer)`` before ``state_dict`` builds its result."""
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False
                                      ) -> RemovableHandle:
        """Run ``hook(optimizer, state_dict)`` on the result; a returned dict replaces it."""
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False
                                          ) -> RemovableHandle:
        """Run ``hook(optimizer, state_dict)`` before loading; a returned dict is loaded
        instead."""
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False
                                           ) -> RemovableHandle:
        """Run ``hook(optimizer)`` after loading."""
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # -- state dicts ---------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [index, ...]}]}`` with
        parameters replaced by their position across groups, as in PyTorch."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        result = self._state_dict()
        for hook in self._optimizer_state_dict_post_hooks.values():
            replaced = hook(self, result)
            if replaced is not None:
                result = replaced
        return result

    def _state_dict(self) -> dict:
        index: dict[int, int] = {}
        groups = []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            ids = []
            for p in g["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {}
        for p, s in self.state.items():
            # (step() makes an entry for every parameter it visits; PyTorch's optimizers make
            # none where they keep no state, e.g. SGD without momentum)
            if id(p) in index and s:
                state[index[id(p)]] = {k: _copy_state(v) for k, v in s.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore hyper-parameters and state saved by ``state_dict`` (group sizes must match)."""
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            replaced = hook(self, state_dict)
            if replaced is not None:
                state_dict = replaced
        self._load_state_dict(state_dict)
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    def _load_state_dict(self, state_dict: dict) -> None:
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for ours, theirs in zip(self.param_groups, groups):
            if len(ours["params"]) != len(theirs["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't "
                                 "match the size of optimizer's group")
        id_map = {}
        for ours, theirs in zip(self.param_groups, groups):
            for p, i in zip(ours["params"], theirs["params"]):
                id_map[i] = p
        self.state = defaultdict(dict)
        for key, s in state_dict["state"].items():
            p = id_map.get(int(key))
            if p is None:
                continue
            self.state[p] = _restore_state(dict(s), p)
        for ours, theirs in zip(self.param_groups, groups):
            for k, v in theirs.items():
                if k != "params":
                    ours[k] = tuple(v) if isinstance(v, list) and k == "betas" else v

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_running_step_hooks", None)
        return state

    def __repr__(self) -> str:
        lines = [type(self).__name__ + " ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(g):
                if k != "params":
                    lines.append(f"    {k}: {g[k]}")
        return "\n".join(lines) + "\n)"


Optimizer.step = _with_step_hooks(Optimizer.step)  # type: ignore[method-assign]
