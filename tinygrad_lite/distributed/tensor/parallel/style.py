"""Parallel styles: how ``parallelize_module`` splits one module over the ranks of a 1-D mesh
(``torch.distributed.tensor.parallel``'s names). ``ColwiseParallel`` shards a Linear's output
features (an Embedding's embedding dimension), ``RowwiseParallel`` its input features (an
Embedding's rows), ``SequenceParallel`` runs a module (a norm) on a shard of the sequence, and
``PrepareModuleInput``/``PrepareModuleOutput`` only move a module's inputs/outputs between
layouts.

Parameters become this rank's shard, an ordinary Parameter carrying a ``DTensorSpec``
(``get_model_state_dict(model, options=StateDictOptions(full_state_dict=True))`` gathers them
to the unsharded names and shapes). Activations stay ordinary local tensors; with
``use_local_output=False`` a style's output carries its placement, and the next parallelized
module takes it as is instead of applying its own ``input_layouts``. A Replicate tensor handed on
that way is for parallelized modules only: its gradient is summed over the ranks once, where it
was made (so q, k and v projections fed by one such tensor cost one all-reduce backward).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import MethodType
from typing import Any

import numpy as np

from ....nn import functional as F  # noqa: N812 - PyTorch's conventional alias
from ....nn.modules.linear import Linear
from ....nn.modules.module import Module
from ....nn.modules.sparse import Embedding
from ....nn.parameter import Parameter
from ....tensor import Tensor
from ... import collectives
from ...device_mesh import DeviceMesh
from ...process_group import ProcessGroup
from .._dtensor_spec import DTensorSpec, attach_spec, spec_of
from .._redistribute import Layout, convert, layout, redistribute
from ..placement_types import Partial, Placement, Replicate, Shard

__all__ = ["ParallelStyle", "ColwiseParallel", "RowwiseParallel", "SequenceParallel",
           "PrepareModuleInput", "PrepareModuleOutput", "PrepareModuleInputOutput"]


def mesh_group(mesh: Any) -> ProcessGroup:
    """The process group of a 1-D mesh."""
    if not isinstance(mesh, DeviceMesh):
        raise TypeError(f"parallelize_module: expected a DeviceMesh, got {type(mesh).__name__}")
    if mesh.ndim != 1:
        raise ValueError(f"parallelize_module: tensor parallelism takes a 1-D DeviceMesh, got "
                         f"{mesh.ndim} dimensions {mesh.mesh_dim_names or ''}; slice it first "
                         "(mesh['tp'])")
    return mesh.get_group()


def _global_shape(shape: tuple[int, ...], placement: Placement, n: int) -> tuple[int, ...]:
    if placement.is_shard() and shape:
        axis = placement.dim % len(shape)  # type: ignore[attr-defined]
        return (*shape[:axis], shape[axis] * n, *shape[axis + 1:])
    return tuple(shape)


def _shard_parameter(module: Module, name: str, mesh: DeviceMesh, placement: Placement,
                     src_data_rank: int | None) -> Parameter | None:
    """Replace ``module.<name>`` by this rank's shard (of rank ``src_data_rank``'s values, so
    that every rank starts from the same unsharded tensor; None: each rank's own values)."""
    param = getattr(module, name, None)
    if param is None:
        return None
    group = mesh_group(mesh)
    full = np.array(param._data, copy=True, order="C")
    if src_data_rank is not None and group.size() > 1:
        carrier = Tensor._wrap(full)
        collectives.broadcast(carrier, src=group.ranks[src_data_rank], group=group)
        full = carrier._data
    if placement.is_shard():
        axis = placement.dim % full.ndim  # type: ignore[attr-defined]
        if full.shape[axis] % group.size():
            raise ValueError(f"{type(module).__name__}.{name}: dimension {axis} of size "
                             f"{full.shape[axis]} does not split evenly over the {group.size()} "
                             "ranks of the mesh")
    local = convert(full, group, Replicate(), placement)
    shard = Parameter(Tensor._wrap(np.array(local, copy=True)), requires_grad=param.requires_grad)
    attach_spec(shard, DTensorSpec(mesh, (placement,), full.shape))
    module.register_parameter(name, shard)
    return shard


def _incoming(x: Any, mesh: DeviceMesh, declared: Placement, want: Layout, what: str) -> Any:
    """Input ``x`` moved to layout ``want``: its own placement when it carries one, else
    ``declared``."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor input, got {type(x).__name__}")
    spec = spec_of(x)
    if spec is not None and spec.mesh != mesh:
        raise ValueError(f"{what}: the input carries a placement on {spec.mesh!r}, but this "
                         f"module is parallelized over {mesh!r}")
    src = layout(spec.placement, True) if spec is not None else layout(declared, False)
    return redistribute(x, mesh_group(mesh), src, want)


def _outgoing(y: Tensor, mesh: DeviceMesh, natural: Layout, placement: Placement,
              use_local_output: bool) -> Tensor:
    """Output ``y`` (in layout ``natural``) moved to ``placement``; marked with it unless
    ``use_local_output``."""
    group = mesh_group(mesh)
    out = redistribute(y, group, natural, layout(placement, not use_local_output))
    return out if use_local_output else _mark(out, y, mesh, placement)


def _mark(out: Any, source: Any, mesh: DeviceMesh, placement: Placement) -> Any:
    """``out`` with ``placement`` attached (an alias when it is ``source`` itself, so that no
    tensor of the caller's is marked)."""
    if out is source:
        out = out.view_as(out)
    n = mesh_group(mesh).size()
    return attach_spec(out, DTensorSpec(mesh, (placement,),
                                        _global_shape(tuple(out.shape), placement, n)))


def _single(layouts: Placement | tuple | None) -> tuple:
    if layouts is None:
        return ()
    return (layouts,) if isinstance(layouts, Placement) else tuple(layouts)


class ParallelStyle(ABC):
    """How one module is parallelized; ``parallelize_module`` calls ``_apply``."""

    src_data_rank: int | None = 0

    @abstractmethod
    def _apply(self, module: Module, device_mesh: DeviceMesh) -> Module:
        """Parallelize ``module`` in place over ``device_mesh``; returns it."""

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v}" for k, v in vars(self).items() if not k.startswith("_")
                           and k != "src_data_rank")
        return f"{type(self).__name__}({fields})"


def _check_embedding(module: Embedding, style: str, *, rows_split: bool) -> None:
    if module.max_norm is not None:
        raise NotImplementedError(f"{style}: an Embedding with max_norm is not supported (its "
                                  "rows' norms would be taken over a shard)")
    if rows_split and module.scale_grad_by_freq:
        raise NotImplementedError(f"{style}: an Embedding with scale_grad_by_freq is not "
                                  "supported row-wise")


class ColwiseParallel(ParallelStyle):
    """Shard a Linear's weight and bias along the output features (an Embedding's weight along
    the embedding dimension). Input: ``input_layouts`` (default Replicate), made Replicate;
    output: sharded on the last dimension, moved to ``output_layouts`` (default Shard(-1)).
    With a replicated input this is Megatron-LM's ``f``: identity forward, all-reduce of the
    input's gradient backward."""

    def __init__(self, *, input_layouts: Placement | None = None,
                 output_layouts: Placement | None = None, use_local_output: bool = True) -> None:
        self.input_layouts = (input_layouts or Replicate(),)
        self.output_layouts = (output_layouts or Shard(-1),)
        self.desired_input_layouts = (Replicate(),)
        self.use_local_output = use_local_output

    def _apply(self, module: Module, device_mesh: DeviceMesh) -> Module:
        if isinstance(module, Linear):
            _shard_parameter(module, "weight", device_mesh, Shard(0), self.src_data_rank)
            _shard_parameter(module, "bias", device_mesh, Shard(0), self.src_data_rank)
            want = layout(Replicate(), True)  # each rank's product gives a summand of dx
        elif isinstance(module, Embedding):
            _check_embedding(module, "ColwiseParallel", rows_split=False)
            _shard_parameter(module, "weight", device_mesh, Shard(1), self.src_data_rank)
            want = layout(Replicate(), False)  # indices: no gradient
        else:
            raise NotImplementedError("ColwiseParallel currently only support nn.Linear and "
                                      f"nn.Embedding! (got {type(module).__name__})")
        declared, out_placement = self.input_layouts[0], self.output_layouts[0]

        def prepare_input(mod: Module, args: tuple) -> tuple:
            return (_incoming(args[0], device_mesh, declared, want, "ColwiseParallel"),
                    *args[1:])

        def prepare_output(mod: Module, args: tuple, output: Tensor) -> Tensor:
            return _outgoing(output, device_mesh, layout(Shard(-1), False), out_placement,
                             self.use_local_output)

        module.register_forward_pre_hook(prepare_input)
        module.register_forward_hook(prepare_output)
        return module


class RowwiseParallel(ParallelStyle):
    """Shard a Linear's weight along the input features (its bias stays replicated; an
    Embedding's weight along its rows). Input: ``input_layouts`` (default Shard(-1) for a
    Linear; an Embedding's indices are made Replicate); output: the ranks' summands reduced to
    ``output_layouts`` (default Replicate). With a replicated output this is Megatron-LM's
    ``g``: all-reduce forward, identity backward; with ``Shard(d)`` a reduce-scatter forward and
    an all-gather backward (sequence parallelism)."""

    def __init__(self, *, input_layouts: Placement | None = None,
                 output_layouts: Placement | None = None, use_local_output: bool = True) -> None:
        self.input_layouts = (input_layouts or Shard(-1),)
        self.output_layouts = (output_layouts or Replicate(),)
        self.use_local_output = use_local_output

    def _apply(self, module: Module, device_mesh: DeviceMesh) -> Module:
        config = _Rowwise(device_mesh, self.output_layouts[0], self.use_local_output)
        if isinstance(module, Linear):
            self.desired_input_layouts: tuple[Placement, ...] = (Shard(-1),)
            _shard_parameter(module, "weight", device_mesh, Shard(1), self.src_data_rank)
            _shard_parameter(module, "bias", device_mesh, Replicate(), self.src_data_rank)
            forward: Any = _rowwise_linear_forward
        elif isinstance(module, Embedding):
            _check_embedding(module, "RowwiseParallel", rows_split=True)
            self.desired_input_layouts = (Replicate(),)
            _shard_parameter(module, "weight", device_mesh, Shard(0), self.src_data_rank)
            forward = _rowwise_embedding_forward
        else:
            raise NotImplementedError("RowwiseParallel currently only support nn.Linear and "
                                      f"nn.Embedding! (got {type(module).__name__})")
        object.__setattr__(module, "_tp_rowwise", config)
        # a method of the module (not a closure over it), so that a deep copy runs its own
        object.__setattr__(module, "forward", MethodType(forward, module))
        declared, want = self.input_layouts[0], layout(self.desired_input_layouts[0], False)

        def prepare_input(mod: Module, args: tuple) -> tuple:
            return (_incoming(args[0], device_mesh, declared, want, "RowwiseParallel"),
                    *args[1:])

        module.register_forward_pre_hook(prepare_input)
        return module


class _Rowwise:
    """What a row-wise module's forward needs: the mesh and where its output goes. Shared, not
    copied, by a deep copy of the module (a mesh's groups are the process's)."""

    def __init__(self, mesh: DeviceMesh, placement: Placement, use_local_output: bool) -> None:
        self.mesh, self.group = mesh, mesh_group(mesh)
        self.placement, self.use_local_output = placement, use_local_output
        self.target = layout(placement, not use_local_output)

    def __deepcopy__(self, memo: dict) -> _Rowwise:
        return self

    def finish(self, summand: Any) -> Any:
        """The ranks' summands reduced to the output's placement."""
        return redistribute(summand, self.group, layout(Partial(), False), self.target)

    def bias_layout(self, ndim: int) -> Layout:
        """The bias where the output is: chunked when that is sharded along the features; else
        whole, its gradient all-reduced when the output's gradient is a summand per rank (a
        consumed Replicate, or a shard of the positions)."""
        if self.placement.is_shard() and \
                self.placement.dim % ndim == ndim - 1:  # type: ignore[attr-defined]
            return layout(Shard(0), False)
        return layout(Replicate(), self.target != layout(Replicate(), False))

    def handed_on(self, out: Any, summand: Any) -> Any:
        return out if self.use_local_output else _mark(out, summand, self.mesh, self.placement)


def _rowwise_linear_forward(self: Linear, input: Tensor) -> Tensor:
    """A row-wise Linear: this rank's summand of the product, reduced, then the bias once."""
    config: _Rowwise = self._tp_rowwise
    summand = F.linear(input, self.weight)
    out = config.finish(summand)
    if self.bias is not None:
        out = out + redistribute(self.bias, config.group, layout(Replicate(), False),
                                 config.bias_layout(out.ndim))
    return config.handed_on(out, summand)


def _rowwise_embedding_forward(self: Embedding, input: Tensor) -> Tensor:
    """A row-wise Embedding: the rows this rank holds (zeros for the others), reduced."""
    config: _Rowwise = self._tp_rowwise
    rows = self.weight.shape[0]
    first = config.group.rank() * rows
    index = input._data
    if index.size and (index.min() < 0 or index.max() >= self.num_embeddings):
        raise IndexError(f"embedding: index out of range in self (indices must lie in [0, "
                         f"{self.num_embeddings}))")
    elsewhere = (index < first) | (index >= first + rows)
    local = Tensor._wrap(np.where(elsewhere, 0, index - first).astype(index.dtype))
    pad = self.padding_idx
    pad = pad - first if pad is not None and first <= pad < first + rows else None
    looked_up = F.embedding(local, self.weight, pad, None, self.norm_type, False, self.sparse)
    summand = looked_up.masked_fill(Tensor._wrap(elsewhere[..., None]), 0.0)
    return config.handed_on(config.finish(summand), summand)


class SequenceParallel(ParallelStyle):
    """Run a module (LayerNorm, RMSNorm, Dropout: anything that acts on each position alone)
    on this rank's shard of the sequence dimension ``sequence_dim``. Its parameters stay
    replicated; their gradients (each rank's sum over its positions) are all-reduced over the
    mesh. A plain tensor input is taken as already sharded; the output is marked
    ``Shard(sequence_dim)`` unless ``use_local_output``."""

    def __init__(self, *, sequence_dim: int = 1, use_local_output: bool = False) -> None:
        self.sequence_sharding = (Shard(sequence_dim),)
        self.use_local_output = use_local_output

    def _apply(self, module: Module, device_mesh: DeviceMesh) -> Module:
        group = mesh_group(device_mesh)
        shard = self.sequence_sharding[0]
        for name, _ in list(module.named_parameters(recurse=False)):
            param = _shard_parameter(module, name, device_mesh, Replicate(), self.src_data_rank)
            if param is not None and param.requires_grad:
                param.register_hook(lambda g: Tensor._wrap(
                    convert(g._data, group, Partial(), Replicate())))

        def prepare_input(mod: Module, args: tuple) -> tuple:
            return (_incoming(args[0], device_mesh, shard, layout(shard, False),
                              "SequenceParallel"), *args[1:])

        def prepare_output(mod: Module, args: tuple, output: Tensor) -> Tensor:
            if self.use_local_output:
                return output
            return _mark(output, args[0], device_mesh, shard)

        module.register_forward_pre_hook(prepare_input)
        module.register_forward_hook(prepare_output)
        return module


class PrepareModuleInput(ParallelStyle):
    """Move a module's inputs from ``input_layouts`` to ``desired_input_layouts`` (None: leave
    that input alone) before its forward; keyword inputs by name through
    ``input_kwarg_layouts``/``desired_input_kwarg_layouts``. Unless ``use_local_output``, the
    moved inputs carry their placement into the parallelized modules inside."""

    def __init__(self, *, input_layouts: Placement | tuple | None = None,
                 desired_input_layouts: Placement | tuple | None = None,
                 input_kwarg_layouts: dict[str, Placement] | None = None,
                 desired_input_kwarg_layouts: dict[str, Placement] | None = None,
                 use_local_output: bool = False) -> None:
        self.input_layouts = _single(input_layouts) if input_layouts is not None else None
        self.desired_input_layouts = _single(desired_input_layouts) \
            if desired_input_layouts is not None else None
        self.use_local_output = use_local_output
        if self.input_layouts is not None:
            if self.desired_input_layouts is None:
                raise AssertionError("desired module inputs should not be None!")
            if len(self.input_layouts) != len(self.desired_input_layouts):
                raise AssertionError("input_layouts and desired_input_layouts should have same "
                                     "length!")
        self.with_kwargs = input_kwarg_layouts is not None
        self.input_kwarg_layouts = input_kwarg_layouts or {}
        self.desired_input_kwarg_layouts = desired_input_kwarg_layouts or {}
        if self.with_kwargs and len(self.input_kwarg_layouts) != \
                len(self.desired_input_kwarg_layouts):
            raise AssertionError("input_kwarg_layouts and desired_input_kwarg_layouts should "
                                 "have same length!")

    def _prepare(self, x: Any, mesh: DeviceMesh, given: Placement | None,
                 desired: Placement | None) -> Any:
        if given is None:
            return x
        target = desired if desired is not None else given
        moved = _incoming(x, mesh, given, layout(target, not self.use_local_output),
                          "PrepareModuleInput")
        return moved if self.use_local_output else _mark(moved, x, mesh, target)

    def _prepare_args(self, args: tuple, mesh: DeviceMesh) -> tuple:
        if self.input_layouts is None:
            return args
        if len(args) != len(self.input_layouts):
            raise ValueError("module inputs and input_layouts should have same length!")
        assert self.desired_input_layouts is not None
        return tuple(self._prepare(a, mesh, g, d)
                     for a, g, d in zip(args, self.input_layouts, self.desired_input_layouts))

    def _apply(self, module: Module, device_mesh: DeviceMesh) -> Module:
        if self.with_kwargs:
            def prepare_with_kwargs(mod: Module, args: tuple, kwargs: dict) -> tuple:
                moved = {k: self._prepare(v, device_mesh, self.input_kwarg_layouts.get(k),
                                          self.desired_input_kwarg_layouts.get(k))
                         for k, v in kwargs.items()}
                return self._prepare_args(args, device_mesh), moved

            module.register_forward_pre_hook(prepare_with_kwargs, with_kwargs=True)
        else:
            module.register_forward_pre_hook(
                lambda mod, args: self._prepare_args(args, device_mesh))
        return module


class PrepareModuleOutput(ParallelStyle):
    """Move a module's outputs from ``output_layouts`` to ``desired_output_layouts`` after its
    forward (None: leave that output alone); plain local tensors unless
    ``use_local_output=False``."""

    def __init__(self, *, output_layouts: Placement | tuple,
                 desired_output_layouts: Placement | tuple,
                 use_local_output: bool = True) -> None:
        self.output_layouts = _single(output_layouts)
        self.desired_output_layouts = _single(desired_output_layouts)
        self.use_local_output = use_local_output
        if len(self.output_layouts) != len(self.desired_output_layouts):
            raise AssertionError("output_layouts and desired_output_layouts should have same "
                                 "length!")

    def _prepare(self, outputs: Any, mesh: DeviceMesh) -> Any:
        many = isinstance(outputs, tuple)
        outs = outputs if many else (outputs,)
        if len(outs) != len(self.output_layouts):
            raise ValueError("module outputs and output_layouts should have same length!")
        result = []
        for out, given, desired in zip(outs, self.output_layouts, self.desired_output_layouts):
            if given is None:
                result.append(out)
                continue
            moved = _incoming(out, mesh, given, layout(desired, not self.use_local_output),
                              "PrepareModuleOutput")
            result.append(moved if self.use_local_output else _mark(moved, out, mesh, desired))
        return tuple(result) if many else result[0]

    def _apply(self, module: Module, device_mesh: DeviceMesh) -> Module:
        module.register_forward_hook(lambda mod, args, out: self._prepare(out, device_mesh))
        return module


class PrepareModuleInputOutput(ParallelStyle):
    """``PrepareModuleInput`` and ``PrepareModuleOutput`` on one module."""

    def __init__(self, *, input_layouts: Placement | tuple | None = None,
                 desired_input_layouts: Placement | tuple | None = None,
                 input_kwarg_layouts: dict[str, Placement] | None = None,
                 desired_input_kwarg_layouts: dict[str, Placement] | None = None,
                 use_local_input: bool = False, output_layouts: Placement | tuple,
                 desired_output_layouts: Placement | tuple,
                 use_local_output: bool = True) -> None:
        self.prepare_module_input = PrepareModuleInput(
            input_layouts=input_layouts, desired_input_layouts=desired_input_layouts,
            input_kwarg_layouts=input_kwarg_layouts,
            desired_input_kwarg_layouts=desired_input_kwarg_layouts,
            use_local_output=use_local_input)
        self.prepare_module_output = PrepareModuleOutput(
            output_layouts=output_layouts, desired_output_layouts=desired_output_layouts,
            use_local_output=use_local_output)

    def _apply(self, module: Module, device_mesh: DeviceMesh) -> Module:
        self.prepare_module_input._apply(module, device_mesh)
        self.prepare_module_output._apply(module, device_mesh)
        return module
