"""Splitting a model into pipeline stages (``torch.distributed.pipelining.pipeline``,
``SplitPoint``, ``pipe_split``, ``Pipe``).

``pipeline(module, mb_args, split_spec={"layers.2": SplitPoint.BEGINNING})`` runs ``module``
once on an example microbatch with global forward hooks that record every submodule call: its
module, arguments, keyword arguments, output, and the version counters of the tensors passed
(so an in-place change between two calls is seen). A forward is split where it is a *chain*:
its first submodule call takes the forward's own arguments, each later call takes exactly the
previous call's output (kept unchanged), and the forward returns the last call's output. The
root's chain is the starting sequence; a call that contains a split point (a ``split_spec``
path or a ``pipe_split()`` marker) is replaced by its own chain, as deep as needed. A forward
that is not a chain where a split is asked for raises ValueError saying which module and why;
build the stages by hand then (``PipelineStage`` on your own submodules).

``Sequential`` models and models whose forward runs a list of blocks in order are chains. The
stage modules hold the model's own submodules (parameters are shared, not copied) under their
original names, so a stage's ``state_dict`` keys are the model's.
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from ..._core.grad_mode import no_grad
from ...functions.creation import default_rng, from_numpy
from ...nn.modules.module import (
    Module,
    register_module_forward_hook,
    register_module_forward_pre_hook,
)
from ...tensor import Tensor
from ..process_group import ProcessGroup
from .stage import PipelineStage, build_stage

__all__ = ["SplitPoint", "pipe_split", "pipeline", "Pipe", "PipeInfo"]


class SplitPoint(enum.Enum):
    """Where a split lands relative to the named submodule: before its call or after it."""

    BEGINNING = 1
    END = 2


class _Marker:
    """A ``pipe_split()`` call inside a traced forward."""

    def __repr__(self) -> str:
        return "pipe_split()"


_SPLIT = _Marker()


class _Call:
    """One recorded submodule call."""

    def __init__(self, path: str | None, module: Module, args: tuple) -> None:
        self.path = path
        self.module = module
        self.args = args
        # a lone tuple argument (a Sequential passing a tuple output on) counts by its tensors
        self.in_versions = _versions(args[0] if len(args) == 1 and isinstance(args[0], tuple)
                                     else args)
        self.kwargs: dict = {}
        self.output: Any = None
        self.out_versions: tuple = ()
        self.children: list[Any] = []  # _Call or _SPLIT, in call order
        self.packed = False  # takes the previous call's tuple output as one argument

    def __repr__(self) -> str:
        return f"call of {self.path or type(self.module).__name__!r}"


def _versions(values: Any) -> tuple:
    values = values if isinstance(values, tuple) else (values,)
    return tuple(v._version_counter[0] if isinstance(v, Tensor) else None for v in values)


class _Trace:
    """The call tree of one forward (the hooks' state while ``pipeline`` traces)."""

    def __init__(self, root: Module) -> None:
        self.paths: dict[int, str] = {}
        for name, m in root.named_modules():
            self.paths.setdefault(id(m), name)
        self.stack: list[_Call] = []
        self.root: _Call | None = None

    def enter(self, module: Module, args: tuple) -> None:
        call = _Call(self.paths.get(id(module)), module, args)
        if self.stack:
            self.stack[-1].children.append(call)
        elif self.root is None:
            self.root = call
        self.stack.append(call)

    def leave(self, module: Module, args: tuple, kwargs: dict, output: Any) -> None:
        call = self.stack.pop()
        call.kwargs = dict(kwargs)
        call.output = output
        call.out_versions = _versions(output)

    def split_here(self) -> None:
        if self.stack:
            self.stack[-1].children.append(_SPLIT)


_active: list[_Trace] = []  # the trace under way (at most one), for pipe_split


def pipe_split() -> None:
    """Mark a split point between two submodule calls of a forward. It does nothing when the
    forward runs normally; ``pipeline`` splits the model there when it traces it."""
    if _active:
        _active[-1].split_here()


def _same(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _chain(call: _Call) -> list[Any]:
    """``call``'s children when its forward is a chain of them (see the module docstring);
    ValueError saying why not otherwise."""
    calls = [c for c in call.children if c is not _SPLIT]
    name = repr(call.path) if call.path else "the root module"

    def refuse(why: str) -> ValueError:
        return ValueError(f"pipeline: cannot split inside {name} "
                          f"({type(call.module).__name__}): {why}. Split elsewhere, or build "
                          "the stages yourself (PipelineStage on each stage's submodule)")

    if not calls:
        raise refuse("its forward calls no submodule")
    first = calls[0]
    if not _same(first.args, call.args) or set(first.kwargs) != set(call.kwargs) or \
            any(first.kwargs[k] is not v for k, v in call.kwargs.items()):
        raise refuse(f"its first submodule call ({first.path}) does not take the forward's "
                     "own arguments")
    for prev, nxt in zip(calls, calls[1:]):
        # a tuple output goes on unpacked (f(*out)) or whole, as Sequential passes it (f(out))
        nxt.packed = isinstance(prev.output, tuple) and len(nxt.args) == 1 and \
            nxt.args[0] is prev.output
        passed = (prev.output,) if nxt.packed or not isinstance(prev.output, tuple) \
            else prev.output
        if not _same(nxt.args, passed) or nxt.in_versions != prev.out_versions:
            raise refuse(f"the call of {nxt.path} does not take exactly the output of "
                         f"{prev.path} (something is computed between the two calls)")
        if any(isinstance(v, Tensor) for v in nxt.kwargs.values()):
            raise refuse(f"the call of {nxt.path} takes tensors by keyword")
    last = calls[-1].output
    out = call.output
    if not (out is last or (isinstance(out, tuple) and isinstance(last, tuple)
                            and _same(out, last))):
        raise refuse(f"it does not return the output of its last submodule call "
                     f"({calls[-1].path}) unchanged")
    for c in calls:
        if c.path is None:
            raise refuse(f"it calls a {type(c.module).__name__} that is not one of its "
                         "registered submodules")
    return list(call.children)


def _contains(call: _Call, wanted: set[int]) -> bool:
    """Whether a split point (a target call or a pipe_split marker) lies inside ``call``."""
    for child in call.children:
        if child is _SPLIT or id(child) in wanted or \
                (isinstance(child, _Call) and _contains(child, wanted)):
            return True
    return False


class _StageModule(Module):
    """One stage: a run of the model's submodule calls, the modules kept under their original
    paths (``layers.2`` is this module's ``layers`` child's ``2``)."""

    def __init__(self, calls: list[_Call], takes_input_kwargs: bool) -> None:
        super().__init__()
        for call in calls:
            assert call.path is not None
            parts = call.path.split(".")
            parent: Module = self
            for part in parts[:-1]:
                if part not in parent._modules:
                    parent.add_module(part, Module())
                parent = parent._modules[part]
            parent.add_module(parts[-1], call.module)
        # (module, the constant keyword arguments of its call); the first call of the first
        # stage gets the keyword arguments the stage is called with instead
        object.__setattr__(self, "_calls", [(c.module, c.kwargs, c.packed) for c in calls])
        object.__setattr__(self, "_takes_input_kwargs", takes_input_kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        values: tuple = args  # a stage receives a tuple output as separate tensors
        out: Any = None
        for i, (module, constant, packed) in enumerate(self._calls):
            given = kwargs if i == 0 and self._takes_input_kwargs else constant
            out = module(tuple(values), **given) if packed else module(*values, **given)
            values = out if isinstance(out, tuple) else (out,)
        return out


class _SplitModule(Module):
    """The split model: ``submod_0`` ... ``submod_{n-1}`` run one after the other."""

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        out: Any = None
        for i, stage in enumerate(self.children()):
            out = stage(*args, **kwargs) if i == 0 else \
                stage(*(out if isinstance(out, tuple) else (out,)))
        return out


def _example(values: Any) -> Any:
    """Zero tensors of the shapes and dtypes of ``values`` (a tensor or a tuple of them), or
    None when something in it is not a tensor."""
    values = values if isinstance(values, tuple) else (values,)
    if not all(isinstance(v, Tensor) for v in values):
        return None
    return tuple(from_numpy(np.zeros(v.shape, v._data.dtype)) for v in values)


class PipeInfo:
    """What a stage needs to know about the pipeline it comes from: the number of stages and
    each stage's example input and output (``stage_examples[i]``)."""

    def __init__(self, num_stages: int, has_loss_and_backward: bool,
                 stage_examples: list[tuple[Any, Any]]) -> None:
        self.num_stages = num_stages
        self.has_loss_and_backward = has_loss_and_backward
        self.stage_examples = stage_examples


class Pipe(Module):
    """A model split into stages: ``split_gm`` (children ``submod_0``...), ``num_stages``,
    ``get_stage_module(i)`` and ``build_stage(i, device, group)``."""

    def __init__(self, split_gm: _SplitModule, num_stages: int, has_loss_and_backward: bool,
                 stage_examples: list[tuple[Any, Any]]) -> None:
        super().__init__()
        self.split_gm = split_gm
        object.__setattr__(self, "num_stages", num_stages)
        object.__setattr__(self, "has_loss_and_backward", has_loss_and_backward)
        object.__setattr__(self, "_info", PipeInfo(num_stages, has_loss_and_backward,
                                                   stage_examples))

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.split_gm(*args, **kwargs)

    def get_stage_module(self, stage_idx: int) -> Module:
        """The submodule of stage ``stage_idx``."""
        if not 0 <= stage_idx < self.num_stages:
            raise ValueError(f"Invalid stage index {stage_idx}!")
        return self.split_gm.get_submodule(f"submod_{stage_idx}")

    def info(self) -> PipeInfo:
        """The stages' count and example shapes (what ``build_stage`` uses)."""
        return self._info

    def build_stage(self, stage_index: int, device: Any,
                    group: ProcessGroup | None = None) -> PipelineStage:
        """The ``PipelineStage`` of stage ``stage_index``, with the traced shapes declared."""
        return build_stage(self.get_stage_module(stage_index), stage_index, self._info, device,
                           group)


def _trace(module: Module, mb_args: tuple, mb_kwargs: dict) -> _Trace:
    """Record one forward of ``module``; its buffers and the random state are put back."""
    trace = _Trace(module)
    buffers = [(b, b._data.copy()) for b in module.buffers()]
    generator = default_rng()
    state = generator.snapshot()
    pre = register_module_forward_pre_hook(lambda m, args: trace.enter(m, args))
    post = register_module_forward_hook(
        lambda m, args, kwargs, out: trace.leave(m, args, kwargs, out), with_kwargs=True,
        always_call=True)
    _active.append(trace)
    try:
        with no_grad():
            module(*mb_args, **mb_kwargs)
    finally:
        _active.pop()
        pre.remove()
        post.remove()
        generator.restore(state)
        for b, saved in buffers:
            np.copyto(b._data, saved)
    return trace


def _find(root: _Call, path: str) -> _Call | None:
    for child in root.children:
        if isinstance(child, _Call):
            if child.path == path:
                return child
            found = _find(child, path)
            if found is not None:
                return found
    return None


def pipeline(module: Module, mb_args: tuple, mb_kwargs: dict | None = None,
             split_spec: dict[str, SplitPoint] | None = None,
             split_policy: Any = None) -> Pipe:
    """Split ``module`` into stages at ``split_spec`` (submodule path -> ``SplitPoint``) and at
    the ``pipe_split()`` calls of its forward, tracing one forward on the example microbatch
    ``mb_args``/``mb_kwargs``. Returns a ``Pipe``."""
    if split_policy is not None:
        raise NotImplementedError("pipeline: split_policy is not supported; give split_spec or "
                                  "call pipe_split() in forward")
    mb_args = mb_args if isinstance(mb_args, tuple) else (mb_args,)
    mb_kwargs = dict(mb_kwargs or {})
    split_spec = dict(split_spec or {})
    names = dict(module.named_modules())
    for path, point in split_spec.items():
        if not isinstance(point, SplitPoint):
            raise TypeError(f"pipeline: split_spec[{path!r}] must be a SplitPoint, got "
                            f"{point!r}")
        if path not in names or path == "":
            raise ValueError(f"pipeline: split_spec names {path!r}, which is not a submodule "
                             "of the model")
    trace = _trace(module, mb_args, mb_kwargs)
    assert trace.root is not None
    targets: dict[int, SplitPoint] = {}
    for path, point in split_spec.items():
        call = _find(trace.root, path)
        if call is None:
            raise ValueError(f"pipeline: split_spec names {path!r}, which the model's forward "
                             "never calls")
        targets[id(call)] = point
    items: list[Any] = [trace.root]
    wanted = set(targets)
    expanded = True
    while expanded:  # open every call that holds a split point, until all lie at the top
        expanded = False
        for i, item in enumerate(items):
            if isinstance(item, _Call) and id(item) not in targets and _contains(item, wanted):
                items[i:i + 1] = _chain(item)
                expanded = True
                break
    groups: list[list[_Call]] = [[]]
    for item in items:
        if item is _SPLIT:
            groups.append([])
            continue
        if targets.get(id(item)) is SplitPoint.BEGINNING:
            groups.append([])
        groups[-1].append(item)
        if targets.get(id(item)) is SplitPoint.END:
            groups.append([])
    if any(not g for g in groups):
        empty = [i for i, g in enumerate(groups) if not g]
        raise ValueError(f"pipeline: the split points leave stage(s) {empty} with no submodule "
                         "call; give each stage at least one")
    split_gm = _SplitModule()
    examples = []
    for i, group in enumerate(groups):
        if len(group) == 1 and group[0] is trace.root:
            stage: Module = module
        else:
            stage = _StageModule(group, takes_input_kwargs=i == 0)
        split_gm.add_module(f"submod_{i}", stage)
        examples.append((_example(mb_args if i == 0 else group[0].args),
                         _example(group[-1].output)))
    return Pipe(split_gm, len(groups), False, examples)
