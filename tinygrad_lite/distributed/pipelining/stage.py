"""Pipeline stages: one piece of a model on one rank, with the point-to-point traffic that links
it to its neighbours (``torch.distributed.pipelining.PipelineStage``).

Stage ``i`` of ``num_stages`` lives on group rank ``i % group_size`` (PyTorch's placement, which
gives the looped placement interleaved schedules use). Its forward inputs come from stage
``i - 1`` and its outputs go to stage ``i + 1``; the gradients of those outputs come back from
``i + 1`` and the gradients of its inputs go to ``i - 1``. Every transfer is a non-blocking
``isend``/``irecv`` on the stage's process group; receives are posted ahead by the schedules
(the next microbatch's before the current one computes), sends are reaped as they complete.

Shapes and dtypes are settled once per schedule, before the first microbatch: stage ``i`` sends
stage ``i + 1`` the metadata of its outputs (from ``output_args``, or from one forward of its
inputs' shapes under ``no_grad`` with buffers and the random state put back), and stage ``i + 1``
checks it against its ``input_args`` when it has them. A disagreement raises
``PipeliningShapeError`` naming both stages and both shapes.

The stage counts, for the schedules' tests and benchmarks, the microbatches whose activations it
holds (forward done, backward not yet: ``live_activations``, ``peak_live_activations``), the
seconds it spends computing (``busy_seconds``), the bytes it sends (``bytes_sent``) and, with
``track_activation_bytes``, the bytes autograd saves for those microbatches
(``peak_activation_bytes``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..._core.backward import backward
from ..._core.grad_mode import no_grad
from ..._core.saved_hooks import saved_tensors_hooks
from ...functions.creation import default_rng
from ...nn.modules.module import Module
from ...tensor import Tensor
from ..collectives import irecv, isend
from ..process_group import ProcessGroup, Work, default_group

__all__ = ["PipelineStage", "PipeliningShapeError", "build_stage"]

Meta = tuple[tuple[int, ...], str]  # a tensor's shape and NumPy dtype name


class PipeliningShapeError(RuntimeError):
    """Tensors passed between stages disagree with the shapes (or dtypes) expected of them."""


def _as_tuple(value: Any) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _metas(values: tuple, what: str) -> list[Meta]:
    out = []
    for i, v in enumerate(values):
        if not isinstance(v, Tensor):
            raise TypeError(f"PipelineStage: {what} {i} is a {type(v).__name__}; only tensors "
                            "can travel between pipeline stages")
        out.append((tuple(v.shape), v._data.dtype.str))
    return out


def _zeros(meta: Meta) -> Tensor:
    """A zero tensor of a metadata's shape and dtype (a receive buffer, an example input)."""
    shape, dt = meta
    return Tensor._wrap(np.zeros(shape, np.dtype(dt)))


def _describe(metas: list[Meta] | None) -> str:
    if metas is None:
        return "(unknown)"
    return ", ".join(f"{list(shape)} {np.dtype(dt).name}" for shape, dt in metas) or "nothing"


class PipelineStage:
    """One stage of a pipeline: ``submodule`` run as stage ``stage_index`` of ``num_stages``.

    ``input_args``/``output_args`` are example inputs/outputs of one microbatch (tensors or
    tuples of tensors; only their shapes and dtypes matter); without them the shapes are
    exchanged and inferred at the first step. ``group`` is the pipeline's process group
    (default: all ranks)."""

    def __init__(self, submodule: Module, stage_index: int, num_stages: int, device: Any,
                 input_args: Any = None, output_args: Any = None,
                 group: ProcessGroup | None = None, dw_builder: Any = None) -> None:
        if not 0 <= stage_index < num_stages:
            raise ValueError(f"PipelineStage: stage_index {stage_index} must lie in "
                             f"[0, {num_stages}) for num_stages={num_stages}")
        if dw_builder is not None:
            raise NotImplementedError("PipelineStage: dw_builder (split weight/input backward) "
                                      "is not supported; the schedules run a full backward")
        self.submod = submodule
        self.stage_index = stage_index
        self.num_stages = num_stages
        self.device = device
        self.group = group
        pg = default_group(group)
        self._pg = pg
        self.group_rank = pg.rank()
        self.group_size = pg.size()
        if stage_index % self.group_size != self.group_rank:
            raise ValueError(f"PipelineStage: stage {stage_index} belongs on group rank "
                             f"{stage_index % self.group_size} (stage i runs on rank i % "
                             f"{self.group_size}), not on rank {self.group_rank}")
        self.is_first = stage_index == 0
        self.is_last = stage_index == num_stages - 1
        self._declared_inputs = None if input_args is None else \
            _metas(_as_tuple(input_args), "input_args entry")
        self._declared_outputs = None if output_args is None else \
            _metas(_as_tuple(output_args), "output_args entry")
        self.inputs_meta: list[Meta] | None = None
        self.outputs_meta: list[Meta] | None = None
        self.has_backward = True
        self._n_microbatches = 0
        self._recvs: dict[tuple[str, int], tuple[list[Work], list[Tensor]]] = {}
        self._saved: dict[int, tuple[tuple, tuple]] = {}
        self._saved_bytes: dict[int, int] = {}
        self._sends: list[tuple[Work, Tensor]] = []
        self.output_chunks: list[Any] = []
        self.live_activations = 0
        self.peak_live_activations = 0
        self.busy_seconds = 0.0
        self.bytes_sent = 0
        self.track_activation_bytes = False
        self.peak_activation_bytes = 0

    def __repr__(self) -> str:
        return (f"PipelineStage(stage_index={self.stage_index}, num_stages={self.num_stages}, "
                f"group_rank={self.group_rank})")

    # -- placement and message tags ------------------------------------------------------------
    def stage_rank(self, stage_index: int) -> int:
        """The global rank that runs stage ``stage_index``."""
        return self._pg.ranks[stage_index % self.group_size]

    def _tag(self, kind: str, dst_stage: int, mb: int) -> int:
        # tags 0..num_stages-1 carry the shape metadata; then one tag per (direction,
        # receiving stage, microbatch), so messages can never be matched to the wrong receive
        direction = 0 if kind == "F" else 1
        return self.num_stages + (direction * self.num_stages + dst_stage) * \
            self._n_microbatches + mb

    # -- shapes, once per schedule -------------------------------------------------------------
    def _prepare(self, n_microbatches: int, args: tuple, kwargs: dict | None,
                 has_backward: bool) -> Any:
        """Settle this stage's input and output shapes for ``n_microbatches`` microbatches
        (``args``/``kwargs``: the first microbatch, on the first stage). Receives the previous
        stage's output metadata and returns the request sending ours to the next stage (the
        caller waits on it), or None."""
        self._n_microbatches = n_microbatches
        self.has_backward = has_backward
        comm = self._pg.comm
        if self.is_first:
            incoming = _metas(tuple(args), "positional argument")
            if self._declared_inputs is not None and incoming != self._declared_inputs:
                raise PipeliningShapeError(
                    f"PipelineStage: stage 0 receives microbatch inputs of shapes "
                    f"[{_describe(incoming)}] but its input_args declare "
                    f"[{_describe(self._declared_inputs)}]")
        else:
            prev = self.stage_index - 1
            incoming = comm.recv(source=self._pg.group_rank(self.stage_rank(prev)),
                                 tag=self.stage_index)
            if self._declared_inputs is not None and incoming != self._declared_inputs:
                raise PipeliningShapeError(
                    f"PipelineStage: shape mismatch between stage {prev} and stage "
                    f"{self.stage_index}: stage {prev} sends outputs of shapes "
                    f"[{_describe(incoming)}] but stage {self.stage_index} expects inputs of "
                    f"shapes [{_describe(self._declared_inputs)}] (its input_args)")
        self.inputs_meta = incoming
        if self._declared_outputs is not None:
            self.outputs_meta = self._declared_outputs
        else:
            example = tuple(args) if self.is_first else tuple(_zeros(m) for m in incoming)
            self.outputs_meta = self._infer_outputs(example, kwargs if self.is_first else {})
        if self.is_last:
            return None
        nxt = self.stage_index + 1
        return comm.isend(self.outputs_meta, dest=self._pg.group_rank(self.stage_rank(nxt)),
                          tag=nxt)

    def _infer_outputs(self, example: tuple, kwargs: dict | None) -> list[Meta]:
        """The output metadata of one forward on ``example``, leaving no trace: no graph, the
        module's buffers (running statistics) and the random state as they were."""
        buffers = [(b, b._data.copy()) for b in self.submod.buffers()]
        generator = default_rng()
        state = generator.snapshot()
        try:
            with no_grad():
                out = self.submod(*example, **(kwargs or {}))
        finally:
            generator.restore(state)
            for b, saved in buffers:
                np.copyto(b._data, saved)
        return _metas(_as_tuple(out), "output")

    # -- communication -------------------------------------------------------------------------
    def _post_recv(self, kind: str, mb: int) -> None:
        """Post the receive of microbatch ``mb``'s inputs ("F") or output gradients ("B"), once
        (a no-op on the first stage for "F" and on the last for "B")."""
        if (kind, mb) in self._recvs or (kind == "F" and self.is_first) or \
                (kind == "B" and (self.is_last or not self.has_backward)):
            return
        metas = self.inputs_meta if kind == "F" else self.outputs_meta
        peer = self.stage_index - 1 if kind == "F" else self.stage_index + 1
        assert metas is not None, "the schedule prepares stages before it posts receives"
        buffers = [_zeros(meta) for meta in metas]
        tag = self._tag(kind, self.stage_index, mb)
        works = [irecv(b, src=self.stage_rank(peer), group=self.group, tag=tag)
                 for b in buffers]  # one tag per microbatch: MPI keeps same-tag messages in order
        self._recvs[(kind, mb)] = (works, buffers)

    def _take_recv(self, kind: str, mb: int) -> list[Tensor]:
        self._post_recv(kind, mb)
        works, buffers = self._recvs.pop((kind, mb))
        for w in works:
            w.wait()
        return buffers

    def _send(self, kind: str, tensors: list[Tensor], mb: int) -> None:
        dst = self.stage_index + 1 if kind == "F" else self.stage_index - 1
        tag = self._tag(kind, dst, mb)
        for t in tensors:
            work = isend(t, dst=self.stage_rank(dst), group=self.group, tag=tag)
            self._sends.append((work, t))
            self.bytes_sent += t._data.nbytes
        self._sends = [(w, t) for w, t in self._sends if not w.is_completed()]

    def _wait_sends(self) -> None:
        for work, _ in self._sends:
            work.wait()
        self._sends.clear()

    # -- compute -------------------------------------------------------------------------------
    @contextmanager
    def _busy(self) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.busy_seconds += time.perf_counter() - start

    def _check_outputs(self, outputs: tuple, mb: int) -> None:
        metas = _metas(outputs, "output")
        if metas != self.outputs_meta:
            raise PipeliningShapeError(
                f"PipelineStage: stage {self.stage_index} produced outputs of shapes "
                f"[{_describe(metas)}] for microbatch {mb}, but stage {self.stage_index + 1} "
                f"was told to expect [{_describe(self.outputs_meta)}]")

    def forward_one_chunk(self, fwd_chunk_id: int, args: tuple = (),
                          kwargs: dict | None = None) -> Any:
        """Run microbatch ``fwd_chunk_id`` forward: its inputs (``args`` on the first stage,
        received otherwise) through the submodule, the outputs sent on (or kept, on the last
        stage). Returns the output."""
        if self.is_first:
            inputs = tuple(args)
            if not self.is_last and _metas(inputs, "positional argument") != self.inputs_meta:
                # later stages' buffers have the shapes of microbatch 0
                raise PipeliningShapeError(
                    f"PipelineStage: stage 0 got microbatch {fwd_chunk_id} of shapes "
                    f"[{_describe(_metas(inputs, 'positional argument'))}] where microbatch 0 "
                    f"(and the shapes settled with stage 1) had [{_describe(self.inputs_meta)}]"
                    "; split the batch into microbatches of equal size")
        else:
            received = self._take_recv("F", fwd_chunk_id)
            if self.has_backward:
                for t in received:
                    if t.is_floating_point():
                        t.requires_grad_(True)
            inputs = tuple(received)
            kwargs = None
        record = self.track_activation_bytes and self.has_backward
        saved: dict[int, int] = {}
        weights = {id(p._data) for p in self.submod.parameters()} if record else set()

        def pack(t: Any) -> Any:  # count each saved array once; parameters are not activations
            if isinstance(t, Tensor) and id(t._data) not in weights:
                saved[id(t._data)] = t._data.nbytes
            return t

        with self._busy():
            if record:
                with saved_tensors_hooks(pack, lambda t: t):
                    output = self.submod(*inputs, **(kwargs or {}))
            else:
                output = self.submod(*inputs, **(kwargs or {}))
        outputs = _as_tuple(output)
        if not self.is_last:
            self._check_outputs(outputs, fwd_chunk_id)
        if self.has_backward:
            self._saved[fwd_chunk_id] = (inputs, outputs)
            self._saved_bytes[fwd_chunk_id] = sum(saved.values())
            self.live_activations += 1
            self.peak_live_activations = max(self.peak_live_activations, self.live_activations)
            self.peak_activation_bytes = max(self.peak_activation_bytes,
                                             sum(self._saved_bytes.values()))
        if not self.is_last:
            self._send("F", [o.detach() for o in outputs], fwd_chunk_id)
        else:
            self.output_chunks.append(
                output.detach() if isinstance(output, Tensor)
                else type(output)(o.detach() for o in outputs))
        return output

    def backward_one_chunk(self, bwd_chunk_id: int, loss: Tensor | None = None,
                           full_backward: bool = True, last_backward: bool = False) -> None:
        """Run microbatch ``bwd_chunk_id`` backward: from ``loss`` on the last stage, from the
        received output gradients elsewhere; parameter gradients accumulate in ``.grad`` and
        the inputs' gradients go to the previous stage."""
        if bwd_chunk_id not in self._saved:
            raise RuntimeError(f"PipelineStage: stage {self.stage_index} has no activations of "
                               f"microbatch {bwd_chunk_id}: its forward has not run (or its "
                               "backward already has)")
        inputs, outputs = self._saved.pop(bwd_chunk_id)
        self._saved_bytes.pop(bwd_chunk_id, None)
        if self.is_last:
            if loss is None:
                raise RuntimeError("PipelineStage: the last stage needs the microbatch's loss to "
                                   "run backward (give the schedule a loss_fn)")
            with self._busy():
                backward(loss)
        else:
            grads = self._take_recv("B", bwd_chunk_id)
            pairs = [(o, g) for o, g in zip(outputs, grads) if o.requires_grad]
            if pairs:
                with self._busy():
                    backward([o for o, _ in pairs], [g for _, g in pairs])
        if not self.is_first:
            assert self.inputs_meta is not None
            sent = [t.grad if t.grad is not None else _zeros(meta)
                    for t, meta in zip(inputs, self.inputs_meta)]
            self._send("B", sent, bwd_chunk_id)
        self.live_activations -= 1

    def scale_grads(self, grad_scale_factor: int) -> None:
        """Divide every parameter's gradient by ``grad_scale_factor`` (the schedules pass the
        number of microbatches, PyTorch's ``scale_grads=True``)."""
        if grad_scale_factor != 1:
            with no_grad():
                for p in self.submod.parameters():
                    if p.grad is not None:
                        p.grad.div_(grad_scale_factor)

    def clear_runtime_states(self) -> None:
        """Forget the previous step: outputs kept on the last stage, leftover activations and
        transfers (a step that finished leaves none)."""
        self._wait_sends()
        self._recvs.clear()  # only a step that raised leaves receives; its job is ending
        self._saved.clear()
        self._saved_bytes.clear()
        self.output_chunks.clear()
        self.live_activations = 0
        self.peak_live_activations = 0
        self.peak_activation_bytes = 0
        self.busy_seconds = 0.0
        self.bytes_sent = 0

    def _finish_step(self) -> None:
        """End of a step: every send completed, nothing received left over."""
        self._wait_sends()
        if self._recvs or self._saved:
            raise RuntimeError(f"PipelineStage: stage {self.stage_index} ended a step with "
                               f"{len(self._recvs)} unused receives and {len(self._saved)} "
                               "microbatches never run backward; the schedule is inconsistent")


def build_stage(stage_module: Module, stage_index: int, pipe_info: Any, device: Any,
                group: ProcessGroup | None = None) -> PipelineStage:
    """A ``PipelineStage`` for ``stage_module`` with the shapes ``pipeline`` traced
    (``pipe_info``: the ``Pipe``'s ``info()``)."""
    inputs, outputs = pipe_info.stage_examples[stage_index]
    return PipelineStage(stage_module, stage_index, pipe_info.num_stages, device,
                         input_args=inputs, output_args=outputs, group=group)
