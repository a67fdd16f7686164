"""``ZeroRedundancyOptimizer``: optimizer state sharded across the ranks (ZeRO stage 1).

Every rank holds all the parameters, but each parameter is *owned* by one rank: the parameters
are assigned whole, largest first, each to the rank with the fewest elements so far (PyTorch's
sorted-greedy partition, group by group). Each rank builds the wrapped optimizer class over its
own share only, so it keeps about ``1 / world_size`` of the optimizer state. ``step()`` updates
the owned parameters and then broadcasts every parameter from its owner, so all replicas stay
equal. The gradients must already agree across ranks (DistributedDataParallel averages them).

``state_dict()`` needs ``consolidate_state_dict(to=rank)`` first (on every rank): the owners send
their shards of the state to that rank, which then returns the whole state with global parameter
indices, as a plain optimizer would; ``load_state_dict`` takes such a state on every rank and
keeps the entries of the parameters this rank owns.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ..._core.grad_mode import no_grad
from ..._core.warnings import warn
from ...optim.optimizer import Optimizer
from ...tensor import Tensor
from ..collectives import broadcast, gather_object
from ..process_group import ProcessGroup, default_group

__all__ = ["ZeroRedundancyOptimizer"]


def _to_arrays(value: Any) -> Any:
    """A state dict with its Tensors as NumPy arrays (what travels between ranks)."""
    if isinstance(value, Tensor):
        return np.array(value._data)
    if isinstance(value, dict):
        return {k: _to_arrays(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_arrays(v) for v in value)
    return value


def _to_tensors(value: Any) -> Any:
    """The inverse of ``_to_arrays``."""
    if isinstance(value, np.ndarray):
        return Tensor._wrap(value)
    if isinstance(value, dict):
        return {k: _to_tensors(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_tensors(v) for v in value)
    return value


def _sync_param_groups(src: list[dict], dst: list[dict]) -> None:
    """Copy every option but ``params`` from each group of ``src`` to the same group of
    ``dst`` (learning rates a scheduler set, options the local optimizer filled in)."""
    if len(src) != len(dst):
        raise RuntimeError(f"ZeroRedundancyOptimizer: {len(src)} parameter groups against "
                           f"{len(dst)}")
    for s, d in zip(src, dst):
        for key, value in s.items():
            if key != "params":
                d[key] = value


class ZeroRedundancyOptimizer(Optimizer):
    """Wrap ``optimizer_class`` so that each rank of ``process_group`` keeps the optimizer
    state of about ``1 / world_size`` of the parameters (see the module docstring).

    ``params`` must be an iterable of Tensors of one dtype (more groups can be added with
    ``add_param_group``); ``**defaults`` go to ``optimizer_class``. With
    ``parameters_as_bucket_view=True`` the parameters each rank owns become views into one flat
    array per rank, so each step broadcasts one array per rank instead of one per parameter.
    ``overlap_with_ddp=True`` needs DistributedDataParallel communication hooks, which
    tl.nn.parallel.DistributedDataParallel does not have: it raises NotImplementedError.
    """

    def __init__(self, params: Iterable[Any], optimizer_class: type[Optimizer],
                 process_group: ProcessGroup | None = None,
                 parameters_as_bucket_view: bool = False, overlap_with_ddp: bool = False,
                 **defaults: Any) -> None:
        if overlap_with_ddp:
            raise NotImplementedError(
                "ZeroRedundancyOptimizer: overlap_with_ddp=True runs the step inside "
                "DistributedDataParallel's communication hooks, which "
                "tl.nn.parallel.DistributedDataParallel does not provide; use the default "
                "overlap_with_ddp=False and call step() after backward")
        self._all_params = self._verify_params(params)
        self.initialized = False
        self.process_group = default_group(process_group)
        self.world_size = self.process_group.size()
        self.rank = self.process_group.rank()
        self.global_rank = self.process_group.ranks[self.rank]
        self._partition_cache: list[list[dict]] = []
        self._param_to_rank_cache: dict[int, int] = {}
        Optimizer.__init__(self, self._all_params, defaults)
        self._optim_defaults = defaults
        self._optim_constructor = optimizer_class
        self.optim: Optimizer = optimizer_class(self._partition_parameters()[self.rank],
                                                **defaults)
        _sync_param_groups(self.optim.param_groups, self.param_groups)
        self._is_trainable_mask = self._trainable_mask()
        self._overlap_with_ddp = False
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self._buckets: list[np.ndarray] = []
        self._build_param_buckets()
        self._all_state_dicts: list[dict] = []
        self.initialized = True

    # -- construction ----------------------------------------------------------------------------
    @staticmethod
    def _verify_params(params: Any) -> list[Tensor]:
        if isinstance(params, Tensor):
            raise TypeError(f"params argument should be an iterable of Tensors, but got "
                            f"{type(params).__name__}")
        try:
            found = list(params)
        except TypeError:
            raise TypeError(f"params argument should be an iterable of Tensors, but got "
                            f"{type(params).__name__}") from None
        if not found:
            raise ValueError("ZeroRedundancyOptimizer got an empty parameter list")
        for p in found:
            if not isinstance(p, Tensor):
                raise TypeError(f"params argument should be an iterable of Tensors, but got an "
                                f"iterable containing {type(p).__name__}")
        dtypes = {p._data.dtype for p in found}
        if len(dtypes) > 1:
            raise ValueError(f"ZeroRedundancyOptimizer only supports using the same dense type "
                             f"for all parameters but got {sorted(str(d) for d in dtypes)}")
        return found

    def _trainable_mask(self) -> list[bool]:
        return [bool(p.requires_grad) for p in self._all_params]

    def _partition_parameters(self) -> list[list[dict]]:
        """For each rank, its param groups (the groups' options with the parameters it owns):
        largest parameters first, each to the rank with the fewest elements so far (the first
        such rank on a tie), the running sizes carried from one group to the next."""
        if not self._partition_cache:
            self._partition_cache = [[] for _ in range(self.world_size)]
            sizes = [0] * self.world_size
            for group in self.param_groups:
                per_rank: list[list[Tensor]] = [[] for _ in range(self.world_size)]
                for p in sorted(group["params"], key=lambda t: t._data.size, reverse=True):
                    rank = sizes.index(min(sizes))
                    per_rank[rank].append(p)
                    sizes[rank] += p._data.size
                for rank, owned in enumerate(per_rank):
                    share = dict(group)
                    share["params"] = owned
                    share.pop("param_names", None)
                    self._partition_cache[rank].append(share)
        return self._partition_cache

    @property
    def _param_to_rank(self) -> dict[int, int]:
        """id(parameter) -> the group rank that owns it."""
        if not self._param_to_rank_cache:
            for rank, groups in enumerate(self._partition_parameters()):
                for g in groups:
                    for p in g["params"]:
                        self._param_to_rank_cache[id(p)] = rank
        return self._param_to_rank_cache

    @property
    def _index_to_param(self) -> list[Tensor]:
        """Parameters in the order of the global state dict's indices."""
        return list(itertools.chain.from_iterable(g["params"] for g in self.param_groups))

    def _clear_cache(self) -> None:
        self._partition_cache = []
        self._param_to_rank_cache = {}

    def _build_param_buckets(self) -> None:
        """With ``parameters_as_bucket_view``: one flat array per rank holding the trainable
        parameters it owns, each parameter's data a view into it (frozen ones keep their own
        arrays)."""
        if not self.parameters_as_bucket_view:
            return
        self._buckets = []
        dtype = self._all_params[0]._data.dtype
        for groups in self._partition_parameters():
            owned = [p for g in groups for p in g["params"]]
            trainable = [p for p in owned if p.requires_grad]
            for p in owned:
                if not p.requires_grad:
                    p._data = np.array(p._data)  # no longer part of a bucket
            bucket = np.empty(max(1, sum(p._data.size for p in trainable)), dtype)
            offset = 0
            for p in trainable:
                size = p._data.size
                bucket[offset:offset + size] = p._data.reshape(-1)
                p._data = bucket[offset:offset + size].reshape(p._data.shape)
                offset += size
            self._buckets.append(bucket)

    # -- the optimizer API -------------------------------------------------------------------
    def add_param_group(self, param_group: dict) -> None:
        """Add a group (on every rank: the new parameters are partitioned like the others)."""
        super().add_param_group(param_group)
        if self.initialized:
            self._clear_cache()
            groups = self._partition_parameters()[self.rank]
            if len(groups) == len(self.optim.param_groups) + 1:
                self.optim.add_param_group(groups[-1])
            _sync_param_groups(self.optim.param_groups, self.param_groups)
            self._build_param_buckets()

    def _local_step(self, closure: Callable[[], Any] | None = None, **kwargs: Any) -> Any:
        """The wrapped optimizer's step on this rank's share, no communication."""
        mask = self._trainable_mask()
        if mask != self._is_trainable_mask:
            warn("ZeroRedundancyOptimizer detected that the trainable parameters changed; "
                 "rebuilding the parameter buckets if enabled")
            self._build_param_buckets()
            self._is_trainable_mask = mask
        _sync_param_groups(self.param_groups, self.optim.param_groups)
        loss = self.optim.step(**kwargs) if closure is None \
            else self.optim.step(closure=closure, **kwargs)
        _sync_param_groups(self.optim.param_groups, self.param_groups)
        return loss

    def _sync_params(self) -> None:
        """Every parameter (or every rank's bucket) broadcast from its owner, all at once."""
        group = self.process_group
        works = []
        with no_grad():
            if self.parameters_as_bucket_view:
                for rank, bucket in enumerate(self._buckets):
                    works.append(broadcast(Tensor._wrap(bucket), src=group.ranks[rank],
                                           group=group, async_op=True))
                for p in self._all_params:
                    p._version_counter[0] += 1
            else:
                for rank, groups in enumerate(self._partition_parameters()):
                    for g in groups:
                        for p in g["params"]:
                            works.append(broadcast(p, src=group.ranks[rank], group=group,
                                                   async_op=True))
        for work in works:
            if work is not None:
                work.wait()

    def step(self, closure: Callable[[], Any] | None = None, **kwargs: Any) -> Any:
        """Update this rank's share of the parameters, then bring every rank's updates to all
        ranks. Returns the closure's loss, if any."""
        loss = self._local_step(closure, **kwargs)
        if self.world_size > 1:
            self._sync_params()
        return loss

    # -- state dicts -------------------------------------------------------------------------
    def consolidate_state_dict(self, to: int = 0) -> None:
        """Collect every rank's shard of the optimizer state on group rank ``to`` (call it on
        every rank), for a following ``state_dict()`` there."""
        _sync_param_groups(self.param_groups, self.optim.param_groups)
        gathered: list = []
        dst = self.process_group.ranks[to]
        gather_object(_to_arrays(self.optim.state_dict()),
                      gathered if self.rank == to else None, dst=dst, group=self.process_group)
        self._all_state_dicts = [_to_tensors(s) for s in gathered] if self.rank == to else []

    def state_dict(self) -> dict:
        """The whole optimizer state, as a plain optimizer over all the parameters would give,
        from the last ``consolidate_state_dict`` to this rank."""
        if not self._all_state_dicts:
            raise RuntimeError(
                "Optimizer state has not been consolidated on this rank. Please call "
                f"`consolidate_state_dict(to={self.rank})` on all ranks beforehand if you "
                "meant to save the global state.")
        result = Optimizer.state_dict(self)
        index = {id(p): i for i, p in enumerate(self._index_to_param)}
        for rank, local in enumerate(self._all_state_dicts):
            shares = self._partition_parameters()[rank]
            if len(local["param_groups"]) != len(shares):
                raise RuntimeError(f"ZeroRedundancyOptimizer: rank {rank}'s state has "
                                   f"{len(local['param_groups'])} groups, expected "
                                   f"{len(shares)}")
            for local_group, share in zip(local["param_groups"], shares):
                for local_index, p in zip(local_group["params"], share["params"]):
                    if local_index in local["state"]:
                        result["state"][index[id(p)]] = local["state"][local_index]
        result["state"] = dict(sorted(result["state"].items()))
        return result

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a whole state (from ``state_dict()``) on every rank; each rank keeps the state
        of the parameters it owns."""
        params = self._index_to_param
        owned = {}
        for key, value in state_dict["state"].items():
            p = params[int(key)]
            if self._param_to_rank[id(p)] == self.rank:
                owned[key] = value
        Optimizer.load_state_dict(self, {"state": {}, "param_groups":
                                         state_dict["param_groups"]})
        local_index = {id(p): i for i, p in enumerate(
            itertools.chain.from_iterable(g["params"] for g in self.optim.param_groups))}
        local_state = {local_index[id(params[int(k)])]: v for k, v in owned.items()}
        local_groups = [dict(g, params=[local_index[id(p)] for p in g["params"]])
                        for g in self.optim.param_groups]
        _sync_param_groups(self.param_groups, local_groups)
        self.optim.load_state_dict({"state": local_state, "param_groups": local_groups})
        _sync_param_groups(self.optim.param_groups, self.param_groups)

    def __repr__(self) -> str:
        return (f"ZeroRedundancyOptimizer(rank {self.rank} of {self.world_size}, local "
                f"{self.optim!r})")
