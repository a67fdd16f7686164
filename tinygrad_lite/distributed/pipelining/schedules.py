"""Pipeline schedules: the order in which each rank runs its stages' forwards and backwards on
the microbatches of a batch (``torch.distributed.pipelining.schedules``).

A schedule is a list of actions per rank (``_Action``: stage, "F" or "B", microbatch), the same
lists on every rank (``pipeline_order``). ``step`` splits the batch into ``n_microbatches``
along dim 0, runs this rank's list, computes ``loss_fn`` per microbatch on the last stage and
merges the last stage's outputs. Before each action the receives of the next forward and the
next backward in the list are posted, so the data of the next microbatch arrives while the
current one computes. Gradients accumulate over the microbatches and are divided by their
number at the end (``scale_grads=True``, PyTorch's default: a mean over microbatches of a
mean loss is the mean loss of the whole batch).

- ``ScheduleGPipe``: every forward, then every backward (m microbatches' activations alive).
- ``Schedule1F1B``: ``p - s`` forwards on stage ``s`` to fill the pipeline, then one backward
  and one forward in turn, then the remaining backwards (at most ``p - s`` alive).
- ``ScheduleInterleaved1F1B``: several stages per rank (stage i on rank i % p), forwards of
  the local stages in rounds of microbatches, then 1F1B across them (a smaller bubble).

``simulate`` runs a ``pipeline_order`` on a clock (one tick per action), to check that it cannot
deadlock and to give its ideal length.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..._core.grad_mode import is_grad_enabled
from ...functions.shape import tensor_split
from ...tensor import Tensor
from .microbatch import merge_chunks, split_args_kwargs_into_chunks
from .stage import PipelineStage

__all__ = ["PipelineScheduleSingle", "PipelineScheduleMulti", "ScheduleGPipe", "Schedule1F1B",
           "ScheduleInterleaved1F1B", "get_schedule_class", "simulate", "gpipe_order",
           "one_f_one_b_order", "interleaved_1f1b_order"]

FORWARD = "F"
FULL_BACKWARD = "B"


class _Action(NamedTuple):
    """One step of a rank's list: run ``computation_type`` ("F" or "B") of stage
    ``stage_index`` on microbatch ``microbatch_index``."""

    stage_index: int
    computation_type: str
    microbatch_index: int

    def __repr__(self) -> str:
        return f"{self.stage_index}{self.computation_type}{self.microbatch_index}"


def gpipe_order(stage: int, m: int) -> list[_Action]:
    """GPipe on stage ``stage``: the m forwards, then the m backwards."""
    return [_Action(stage, FORWARD, i) for i in range(m)] + \
        [_Action(stage, FULL_BACKWARD, i) for i in range(m)]


def one_f_one_b_order(stage: int, p: int, m: int) -> list[_Action]:
    """1F1B on stage ``stage`` of ``p``: ``min(m, p - stage)`` forwards, then the oldest
    backward and the next forward in turn, then the remaining backwards."""
    warmup = min(m, p - stage)
    actions = [_Action(stage, FORWARD, i) for i in range(warmup)]
    for i in range(m - warmup):
        actions += [_Action(stage, FULL_BACKWARD, i), _Action(stage, FORWARD, warmup + i)]
    return actions + [_Action(stage, FULL_BACKWARD, i) for i in range(m - warmup, m)]


def interleaved_1f1b_order(rank: int, p: int, v: int, m: int) -> list[_Action]:
    """Interleaved 1F1B on ``rank`` of ``p``, holding stages rank, rank + p, ... (``v`` of
    them): forwards of the local stages in rounds of microbatches (backwards in the reverse
    stage order), ``(v - 1) * round + 2 (p - 1 - rank)`` of them first, then a forward and a
    backward in turn, then the remaining backwards."""
    per_round = m // max(1, m // p)

    def order(kind: str, reverse: bool) -> list[_Action]:
        out = []
        for i in range(m * v):
            rnd, within = divmod(i, per_round * v)
            chunk, offset = divmod(within, per_round)
            local = v - 1 - chunk if reverse else chunk
            out.append(_Action(local * p + rank, kind, rnd * per_round + offset))
        return out

    forwards, backwards = order(FORWARD, False), order(FULL_BACKWARD, True)
    warmup = min((v - 1) * per_round + 2 * (p - 1 - rank), m * v)
    actions = forwards[:warmup]
    for b, f in enumerate(range(warmup, m * v)):
        actions += [forwards[f], backwards[b]]
    return actions + backwards[m * v - warmup:]


def simulate(pipeline_order: dict[int, list[_Action]], num_stages: int) -> int:
    """Run the per-rank lists on a clock where each action takes one tick and may start once
    the actions it needs (the previous stage's forward, the next stage's backward, its own
    forward) finished in an earlier tick. Returns the number of ticks; raises RuntimeError
    naming the stuck actions when the lists would deadlock."""
    done: set[tuple[int, str, int]] = set()
    position = dict.fromkeys(pipeline_order, 0)
    ticks = 0
    total = sum(len(a) for a in pipeline_order.values())
    while len(done) < total:
        finished = []
        for rank, actions in pipeline_order.items():
            if position[rank] == len(actions):
                continue
            s, kind, mb = actions[position[rank]]
            if kind == FORWARD:
                ready = s == 0 or (s - 1, FORWARD, mb) in done
            else:
                ready = (s, FORWARD, mb) in done and \
                    (s == num_stages - 1 or (s + 1, FULL_BACKWARD, mb) in done)
            if ready:
                finished.append((s, kind, mb))
                position[rank] += 1
        if not finished:
            stuck = {r: a[position[r]] for r, a in pipeline_order.items()
                     if position[r] < len(a)}
            raise RuntimeError(f"pipeline schedule deadlocks: every rank waits ({stuck})")
        done.update(finished)
        ticks += 1
    return ticks


class _PipelineSchedule:
    """What all schedules share: splitting the batch, running this rank's actions, losses,
    gradient scaling and merging outputs."""

    def __init__(self, stages: list[PipelineStage], n_microbatches: int,
                 loss_fn: Callable[..., Tensor] | None = None,
                 args_chunk_spec: tuple[Any, ...] | None = None,
                 kwargs_chunk_spec: dict[str, Any] | None = None,
                 output_merge_spec: Any = None, scale_grads: bool = True) -> None:
        if n_microbatches < 1:
            raise ValueError(f"{type(self).__name__}: n_microbatches must be positive, got "
                             f"{n_microbatches}")
        if not stages:
            raise ValueError(f"{type(self).__name__}: no stages given")
        self._stages = stages
        self._n_microbatches = n_microbatches
        self._loss_fn = loss_fn
        self._args_chunk_spec = args_chunk_spec
        self._kwargs_chunk_spec = kwargs_chunk_spec
        self._output_merge_spec = output_merge_spec
        self.scale_grads = scale_grads
        self._has_backward = loss_fn is not None
        self._num_stages = stages[0].num_stages
        self._group_size = stages[0].group_size
        self._rank = stages[0].group_rank
        self._initialized = False
        self._internal_losses: dict[int, Tensor] = {}
        self.pipeline_order: dict[int, list[_Action]] = {
            r: self._rank_actions(r) for r in range(self._group_size)}

    def _rank_actions(self, rank: int) -> list[_Action]:
        raise NotImplementedError

    # -- the step ------------------------------------------------------------------------------
    def step(self, *args: Any, target: Tensor | None = None, losses: list | None = None,
             return_outputs: bool = True, **kwargs: Any) -> Any:
        """One iteration over the whole batch (``args``/``kwargs`` on the rank of the first
        stage, ``target`` on the last stage's): forwards and, with a ``loss_fn``, backwards of
        every microbatch. Fills ``losses`` with the per-microbatch losses and returns the merged
        output on the last stage's rank (None elsewhere)."""
        if self._has_backward and not is_grad_enabled():
            raise RuntimeError(f"{type(self).__name__}.step() runs backward and needs gradients "
                               "enabled; it was called under no_grad() (use eval() for a "
                               "forward-only pass)")
        if losses is not None and not isinstance(losses, list):
            raise TypeError(f"losses must be a list but got a {type(losses).__name__}")
        m = self._n_microbatches
        for stage in self._stages:
            stage.clear_runtime_states()
            stage.has_backward = self._has_backward
        if args or kwargs:
            arg_mbs, kwarg_mbs = split_args_kwargs_into_chunks(
                args, kwargs, m, self._args_chunk_spec, self._kwargs_chunk_spec)
        else:
            arg_mbs, kwarg_mbs = [()] * m, [{}] * m
        has_first = any(s.is_first for s in self._stages)
        has_last = any(s.is_last for s in self._stages)
        if has_first and not args:
            raise ValueError(f"{type(self).__name__}.step: this rank runs the first stage and "
                             "needs the batch: call step(inputs, ...) here")
        target_mbs = None
        if target is not None:
            target_mbs = list(tensor_split(target, m))
        if has_last and self._has_backward and target_mbs is None:
            raise ValueError(f"{type(self).__name__}.step: this rank runs the last stage; its "
                             "loss_fn needs target=... ")
        self._initialize(arg_mbs[0], kwarg_mbs[0])
        self._run(arg_mbs, kwarg_mbs, target_mbs)
        for stage in self._stages:
            stage._finish_step()
        self._update_losses(losses, has_last)
        if self._has_backward:
            for stage in self._stages:
                stage.scale_grads(m if self.scale_grads else 1)
        if has_last and return_outputs:
            last = next(s for s in self._stages if s.is_last)
            return merge_chunks(last.output_chunks, self._output_merge_spec)
        return None

    def eval(self, *args: Any, target: Tensor | None = None, losses: list | None = None,
             **kwargs: Any) -> Any:
        """``step`` with forwards only (no loss, no backward)."""
        had = self._has_backward
        self._has_backward = False
        try:
            return self.step(*args, target=None, losses=None, **kwargs)
        finally:
            self._has_backward = had

    def _initialize(self, args0: tuple, kwargs0: dict) -> None:
        """Settle every local stage's shapes, in stage order (stage i waits for stage i - 1's
        metadata, which may come from another rank or this one)."""
        if self._initialized:
            return
        requests = []
        for stage in sorted(self._stages, key=lambda s: s.stage_index):
            request = stage._prepare(self._n_microbatches, args0, kwargs0, self._has_backward)
            if request is not None:
                requests.append(request)
        for request in requests:
            request.wait()
        self._initialized = True

    def _run(self, arg_mbs: list, kwarg_mbs: list, target_mbs: list | None) -> None:
        """This rank's actions, posting each action's receives and those of the next forward
        and next backward before computing."""
        stages = {s.stage_index: s for s in self._stages}
        actions = [a for a in self.pipeline_order[self._rank]
                   if self._has_backward or a.computation_type == FORWARD]
        next_of: dict[str, int | None] = {FORWARD: None, FULL_BACKWARD: None}
        ahead: list[dict[str, int | None]] = [{} for _ in actions]
        for k in range(len(actions) - 1, -1, -1):  # the next F and B after each position
            ahead[k] = dict(next_of)
            next_of[actions[k].computation_type] = k
        for k, action in enumerate(actions):
            for j in (k, ahead[k][FORWARD], ahead[k][FULL_BACKWARD]):
                if j is not None:
                    nxt = actions[j]
                    stages[nxt.stage_index]._post_recv(nxt.computation_type,
                                                       nxt.microbatch_index)
            stage, mb = stages[action.stage_index], action.microbatch_index
            if action.computation_type == FORWARD:
                output = stage.forward_one_chunk(mb, arg_mbs[mb] if stage.is_first else (),
                                                 kwarg_mbs[mb] if stage.is_first else None)
                if stage.is_last and self._has_backward:
                    assert self._loss_fn is not None and target_mbs is not None
                    self._internal_losses[mb] = self._loss_fn(output, target_mbs[mb])
            else:
                stage.backward_one_chunk(mb, loss=self._internal_losses.get(mb),
                                         last_backward=k == len(actions) - 1)

    def _update_losses(self, losses: list | None, has_last: bool) -> None:
        if has_last and losses is not None and self._has_backward:
            if len(self._internal_losses) != self._n_microbatches:
                raise RuntimeError(f"Expecting {self._n_microbatches} losses but got "
                                   f"{len(self._internal_losses)}")
            losses.clear()
            losses.extend(self._internal_losses[mb].detach()
                          for mb in range(self._n_microbatches))
        self._internal_losses.clear()


class PipelineScheduleSingle(_PipelineSchedule):
    """A schedule with one stage per rank (stage i on rank i): ``stage`` is this rank's."""

    def __init__(self, stage: PipelineStage, n_microbatches: int,
                 loss_fn: Callable[..., Tensor] | None = None,
                 args_chunk_spec: tuple[Any, ...] | None = None,
                 kwargs_chunk_spec: dict[str, Any] | None = None,
                 output_merge_spec: Any = None, scale_grads: bool = True) -> None:
        if not isinstance(stage, PipelineStage):
            raise TypeError(f"{type(self).__name__}: expected a PipelineStage, got "
                            f"{type(stage).__name__} (multi-stage schedules take a list)")
        if stage.num_stages != stage.group_size:
            raise ValueError(f"{type(self).__name__}: one stage per rank needs num_stages "
                             f"({stage.num_stages}) equal to the group size ({stage.group_size}); "
                             "use ScheduleInterleaved1F1B for several stages per rank")
        self._stage = stage
        super().__init__([stage], n_microbatches, loss_fn, args_chunk_spec, kwargs_chunk_spec,
                         output_merge_spec, scale_grads)


class ScheduleGPipe(PipelineScheduleSingle):
    """Fill and drain: all forwards, then all backwards."""

    def _rank_actions(self, rank: int) -> list[_Action]:
        return gpipe_order(rank, self._n_microbatches)


class Schedule1F1B(PipelineScheduleSingle):
    """One forward, one backward: stage s runs ``min(m, p - s)`` forwards first, then
    alternates a backward and a forward, then finishes the backwards."""

    def __init__(self, stage: PipelineStage, n_microbatches: int,
                 loss_fn: Callable[..., Tensor] | None = None,
                 args_chunk_spec: tuple[Any, ...] | None = None,
                 kwargs_chunk_spec: dict[str, Any] | None = None,
                 output_merge_spec: Any = None, scale_grads: bool = True) -> None:
        if n_microbatches < stage.num_stages:
            raise ValueError(f"Number of microbatches ({n_microbatches}) must be greater than "
                             f"or equal to the number of stages ({stage.num_stages}).")
        super().__init__(stage, n_microbatches, loss_fn, args_chunk_spec, kwargs_chunk_spec,
                         output_merge_spec, scale_grads)

    def _rank_actions(self, rank: int) -> list[_Action]:
        return one_f_one_b_order(rank, self._num_stages, self._n_microbatches)


class PipelineScheduleMulti(_PipelineSchedule):
    """A schedule with several stages per rank: ``stages`` are this rank's (stage i on rank
    i % group size)."""

    def __init__(self, stages: list[PipelineStage], n_microbatches: int,
                 loss_fn: Callable[..., Tensor] | None = None,
                 args_chunk_spec: tuple[Any, ...] | None = None,
                 kwargs_chunk_spec: dict[str, Any] | None = None,
                 output_merge_spec: Any = None, scale_grads: bool = True) -> None:
        stages = list(stages)
        if not stages or not all(isinstance(s, PipelineStage) for s in stages):
            raise TypeError(f"{type(self).__name__}: expected a list of PipelineStage")
        ranks = {s.group_rank for s in stages}
        if len(ranks) != 1 or len({s.num_stages for s in stages}) != 1:
            raise ValueError(f"{type(self).__name__}: the stages must all belong to this rank "
                             "and to one pipeline")
        super().__init__(stages, n_microbatches, loss_fn, args_chunk_spec, kwargs_chunk_spec,
                         output_merge_spec, scale_grads)


class ScheduleInterleaved1F1B(PipelineScheduleMulti):
    """Interleaved 1F1B (Megatron-LM's virtual pipeline): each rank holds ``v`` stages
    (rank r: stages r, r + p, ...). Microbatches go in rounds of ``m // max(1, m // p)``;
    rank r warms up with ``(v - 1) * round + 2 (p - 1 - r)`` forwards, then alternates a
    forward and a backward, then drains the backwards."""

    def __init__(self, stages: list[PipelineStage], n_microbatches: int,
                 loss_fn: Callable[..., Tensor] | None = None,
                 args_chunk_spec: tuple[Any, ...] | None = None,
                 kwargs_chunk_spec: dict[str, Any] | None = None,
                 output_merge_spec: Any = None, scale_grads: bool = True) -> None:
        stages = list(stages)
        if stages and stages[0].num_stages % stages[0].group_size:
            raise ValueError(f"ScheduleInterleaved1F1B: num_stages ({stages[0].num_stages}) must "
                             f"be a multiple of the group size ({stages[0].group_size})")
        if stages and len(stages) != stages[0].num_stages // stages[0].group_size:
            raise ValueError(f"ScheduleInterleaved1F1B: this rank must hold "
                             f"{stages[0].num_stages // stages[0].group_size} stages, got "
                             f"{len(stages)}")
        group_size = stages[0].group_size if stages else 1
        self.number_of_rounds = max(1, n_microbatches // group_size)
        self.microbatches_per_round = n_microbatches // self.number_of_rounds
        if n_microbatches % self.number_of_rounds:
            raise ValueError("Interleaved 1F1B requires the number of microbatches to be a "
                             f"multiple of the number of rounds ({self.number_of_rounds}), but "
                             f"got {n_microbatches}.")
        super().__init__(stages, n_microbatches, loss_fn, args_chunk_spec, kwargs_chunk_spec,
                         output_merge_spec, scale_grads)

    def _rank_actions(self, rank: int) -> list[_Action]:
        return interleaved_1f1b_order(rank, self._group_size, self._num_stages // self._group_size,
                                      self._n_microbatches)


def get_schedule_class(schedule_name: str) -> type:
    """The schedule class of a name ("GPipe", "1F1B", "Interleaved1F1B"; any case)."""
    classes = {"gpipe": ScheduleGPipe, "1f1b": Schedule1F1B,
               "interleaved1f1b": ScheduleInterleaved1F1B}
    try:
        return classes[schedule_name.lower()]
    except KeyError:
        raise ValueError(f"Unknown schedule name '{schedule_name}'. The valid options are "
                         f"{['GPipe', '1F1B', 'Interleaved1F1B']}") from None
