"""Run under mpiexec (2 or 4 ranks): ZeroRedundancyOptimizer and fully_shard against one process
training the same float64 model on the whole batch. Rank 0 writes a JSON report of the largest
differences and the memory figures to argv[1]; "crash" as argv[1] makes rank 1 fail mid-step.

Checks, in one run: ZeRO (with DDP) after Adam and SGD-with-momentum steps, also with
parameters_as_bucket_view; ZeRO's consolidate_state_dict / state_dict / load_state_dict round
trip; fully_shard layer by layer then the root (Adam and SGD momentum), gradient accumulation
with set_requires_gradient_sync(False), reshard_after_forward=False, the full state dict and
its round trip; HSDP on a 2 x (world / 2) mesh when there are 4 ranks; optimizer state bytes and
peak bytes of gathered parameters per rank.
"""

import json
import sys

import numpy as np

import tinygrad_lite as tl
import tinygrad_lite.distributed as dist
from tinygrad_lite import nn
from tinygrad_lite.distributed.checkpoint import (
    StateDictOptions,
    get_model_state_dict,
    set_model_state_dict,
)
from tinygrad_lite.distributed.fsdp import FSDPModule, fully_shard
from tinygrad_lite.distributed.fsdp._fsdp_param_group import unsharded_bytes
from tinygrad_lite.distributed.optim import ZeroRedundancyOptimizer
from tinygrad_lite.utils.checkpoint import checkpoint

WIDTH, HIDDEN, CLASSES, FEATURES, LAYERS, BATCH = 6, 10, 3, 5, 3, 24


class Block(nn.Module):
    """Pre-norm MLP block: rows 10 and 6 do not divide by 4 (padded shards, an empty one)."""

    def __init__(self) -> None:
        super().__init__()
        self.ln = nn.LayerNorm(WIDTH)
        self.fc1, self.fc2 = nn.Linear(WIDTH, HIDDEN), nn.Linear(HIDDEN, WIDTH)

    def forward(self, x):
        return x + self.fc2(tl.tanh(self.fc1(self.ln(x))))


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inp = nn.Linear(FEATURES, WIDTH)
        self.layers = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.head = nn.Linear(WIDTH, CLASSES)

    def forward(self, x):
        x = self.inp(x)
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


class CheckpointedNet(Net):
    """The same network with each block's activations recomputed in backward."""

    reentrant = False

    def forward(self, x):
        x = self.inp(x)
        for layer in self.layers:
            x = checkpoint(layer, x, use_reentrant=self.reentrant)
        return self.head(x)


def build(cls: type = Net) -> Net:
    tl.manual_seed(0)
    return cls().double()


def data(step: int):
    rng = np.random.default_rng(100 + step)
    return rng.standard_normal((BATCH, FEATURES)), rng.integers(0, CLASSES, BATCH)


def loss_of(model, x, y):
    return nn.functional.cross_entropy(model(tl.tensor(x)), tl.tensor(y))


OPTIMIZERS = {
    "adam": (tl.optim.Adam, {"lr": 0.05}),
    "sgd": (tl.optim.SGD, {"lr": 0.1, "momentum": 0.9}),
    "adamw": (tl.optim.AdamW, {"lr": 0.05, "weight_decay": 0.1}),
    "rmsprop": (tl.optim.RMSprop, {"lr": 0.01, "momentum": 0.5}),
    "adagrad": (tl.optim.Adagrad, {"lr": 0.1}),
}


def make_opt(kind: str, params, zero: bool = False, **extra):
    cls, options = OPTIMIZERS[kind]
    if zero:
        return ZeroRedundancyOptimizer(params, optimizer_class=cls, **options, **extra)
    return cls(params, **options)


def state_bytes(opt) -> int:
    total = 0
    for s in opt.state.values():
        for v in s.values():
            if isinstance(v, tl.Tensor) and v.ndim > 0:
                total += v._data.nbytes
    return total


def max_diff(a: dict, b: dict) -> float:
    assert a.keys() == b.keys(), (sorted(a), sorted(b))
    return max(float(np.max(np.abs(np.asarray(a[k]) - np.asarray(b[k])), initial=0.0))
               for k in a)


def arrays(model) -> dict:
    return {k: v.numpy().copy() for k, v in model.state_dict().items()}


def train_reference(kind: str, steps: int, start: int = 0, model=None, opt=None):
    model = model or build()
    opt = opt or make_opt(kind, model.parameters())
    for step in range(start, start + steps):
        x, y = data(step)
        opt.zero_grad()
        loss_of(model, x, y).backward()
        opt.step()
    return model, opt


def check_zero(kind: str, rank: int, world: int, report: dict, bucket_view: bool = False,
               group=None, tag: str = "zero"):
    steps = 6
    model = nn.parallel.DistributedDataParallel(build(), bucket_cap_mb=0.0002)
    opt = make_opt(kind, model.parameters(), zero=True, parameters_as_bucket_view=bucket_view,
                   process_group=group)
    share = BATCH // world
    mine = slice(rank * share, (rank + 1) * share)
    for step in range(steps):
        x, y = data(step)
        opt.zero_grad()
        loss_of(model, x[mine], y[mine]).backward()
        opt.step()
    ref, ref_opt = train_reference(kind, steps)
    tag = f"{tag}_{kind}" + ("_bucket" if bucket_view else "")
    report[f"{tag}_diff"] = max_diff(arrays(model.module), arrays(ref))
    report[f"{tag}_state_bytes"] = state_bytes(opt.optim)
    report[f"{tag}_full_state_bytes"] = state_bytes(ref_opt)
    assert state_bytes(opt) == 0  # the wrapper itself keeps no state
    if bucket_view or kind != "adam" or group is not None:
        return
    # consolidate on rank 0, compare with the single process's state dict, then load it into a
    # fresh ZeRO on every rank and keep training both
    opt.consolidate_state_dict(to=0)
    if rank == 0:
        sd = opt.state_dict()
        ref_sd = ref_opt.state_dict()
        assert sorted(sd["state"]) == sorted(ref_sd["state"])
        diff = 0.0
        for i, entry in ref_sd["state"].items():
            for key, value in entry.items():
                diff = max(diff, float(np.max(np.abs(sd["state"][i][key].numpy()
                                                     - value.numpy()))))
        report["zero_state_dict_diff"] = diff
        assert [g["lr"] for g in sd["param_groups"]] == [0.05]
        holder = [{"state": {i: {k: v.numpy() for k, v in e.items()}
                             for i, e in sd["state"].items()},
                   "param_groups": sd["param_groups"]}]
    else:
        try:
            opt.state_dict()
            raise AssertionError("state_dict without consolidation must raise")
        except RuntimeError as exc:
            assert "consolidate_state_dict" in str(exc)
        holder = [None]
    dist.broadcast_object_list(holder, src=0)
    loaded = holder[0]
    loaded["state"] = {i: {k: tl.tensor(v) for k, v in e.items()}
                       for i, e in loaded["state"].items()}
    fresh_model = nn.parallel.DistributedDataParallel(build())
    with tl.no_grad():
        for p, q in zip(fresh_model.module.parameters(), model.module.parameters()):
            p.copy_(q)
    fresh = make_opt(kind, fresh_model.parameters(), zero=True)
    fresh.load_state_dict(loaded)
    for step in range(steps, steps + 3):
        x, y = data(step)
        fresh.zero_grad()
        loss_of(fresh_model, x[mine], y[mine]).backward()
        fresh.step()
    train_reference(kind, 3, steps, ref, ref_opt)
    report["zero_reload_diff"] = max_diff(arrays(fresh_model.module), arrays(ref))


def sharded_model(mesh=None, reshard_after_forward=None, reentrant=None) -> Net:
    model = build(Net if reentrant is None else CheckpointedNet)
    if reentrant is not None:  # activation checkpointing around each sharded block
        model.reentrant = reentrant
    for layer in model.layers:
        fully_shard(layer, mesh=mesh, reshard_after_forward=reshard_after_forward)
    fully_shard(model, mesh=mesh, reshard_after_forward=reshard_after_forward)
    return model


def full_params(model) -> dict:
    sd = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True))
    return {k: v.numpy() for k, v in sd.items()}


def check_fsdp(kind: str, rank: int, world: int, report: dict, mesh=None, tag: str = "fsdp",
               reshard_after_forward=None, accumulate: bool = False, reentrant=None,
               prefetch: bool = False):
    steps = 5
    model = sharded_model(mesh, reshard_after_forward, reentrant)
    if prefetch:  # each block gathers the next one in forward and the previous in backward
        for i, layer in enumerate(model.layers):
            layer.set_modules_to_forward_prefetch(list(model.layers)[i + 1:i + 2])
            layer.set_modules_to_backward_prefetch(list(model.layers)[max(0, i - 1):i])
    assert isinstance(model, FSDPModule) and isinstance(model.layers[0], FSDPModule)
    # a container that builds a new instance of its own class builds the plain class
    assert type(model.layers[0:2]) is nn.ModuleList
    assert type(model).__name__.startswith("FSDP") and isinstance(model, Net)
    opt = make_opt(kind, model.parameters())
    share = BATCH // world
    mine = slice(rank * share, (rank + 1) * share)
    total = sum(p.numel() for p in build().parameters()) * 8
    peaks = []
    for step in range(steps):
        x, y = data(step)
        opt.zero_grad()
        unsharded_bytes.reset_peak()
        if accumulate:  # two half batches, the first without communication
            half = share // 2
            first = slice(mine.start, mine.start + half)
            second = slice(mine.start + half, mine.stop)
            model.set_requires_gradient_sync(False)
            (loss_of(model, x[first], y[first]) * 0.5).backward()
            model.set_requires_gradient_sync(True)
            (loss_of(model, x[second], y[second]) * 0.5).backward()
        else:
            loss_of(model, x[mine], y[mine]).backward()
        peaks.append(unsharded_bytes.peak)
        # after backward every module holds its sharded parameters again, gathered ones freed
        assert all(p is q for p, q in zip(model.parameters(), opt.param_groups[0]["params"]))
        assert unsharded_bytes.current == 0, unsharded_bytes.current
        opt.step()
    ref, ref_opt = train_reference(kind, steps)
    report[f"{tag}_{kind}_diff"] = max_diff(full_params(model), arrays(ref))
    report[f"{tag}_{kind}_state_bytes"] = state_bytes(opt)
    report[f"{tag}_{kind}_full_state_bytes"] = state_bytes(ref_opt)
    report[f"{tag}_{kind}_param_bytes"] = sum(p._data.nbytes for p in model.parameters())
    report[f"{tag}_{kind}_peak_unsharded_bytes"] = max(peaks)
    report["full_param_bytes"] = total
    root = sum(p.numel() for m in (ref.inp, ref.head) for p in m.parameters()) * 8
    layer = sum(p.numel() for p in ref.layers[0].parameters()) * 8
    report["root_param_bytes"], report["layer_param_bytes"] = root, layer
    return model, ref


def check_fsdp_state_dict(rank: int, report: dict, model, ref):
    # the sharded state dict holds this rank's rows; loading the full one into a fresh sharded
    # model gives the same full state back, and the same training from there
    local = model.state_dict()
    name = "layers.0.fc1.weight"
    chunk = -(-HIDDEN // dist.get_world_size())
    rows = max(0, min(chunk, HIDDEN - rank * chunk))
    assert tuple(local[name].shape) == (rows, WIDTH), local[name].shape
    full = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True))
    fresh = sharded_model()
    set_model_state_dict(fresh, full, options=StateDictOptions(full_state_dict=True))
    report["fsdp_state_dict_roundtrip_diff"] = max_diff(full_params(fresh), arrays(ref))
    from_rank0 = sharded_model()  # only rank 0's full state dict is read
    set_model_state_dict(from_rank0, full if rank == 0 else {},
                         options=StateDictOptions(full_state_dict=True,
                                                  broadcast_from_rank0=True))
    report["fsdp_broadcast_from_rank0_diff"] = max_diff(full_params(from_rank0), arrays(ref))
    offloaded = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True,
                                                                     cpu_offload=True))
    assert (len(offloaded) > 0) == (rank == 0)
    # eval forward without grad: everything gathered is freed again, root included
    with tl.no_grad():
        out = model(tl.tensor(data(0)[0]))
        expected = ref(tl.tensor(data(0)[0]))
    assert unsharded_bytes.current == 0
    report["fsdp_eval_diff"] = float(np.max(np.abs(out.numpy() - expected.numpy())))
    # unshard() / reshard() by hand
    layer = model.layers[0]
    layer.unshard()
    assert tuple(layer.fc1.weight.shape) == (HIDDEN, WIDTH)
    np.testing.assert_allclose(layer.fc1.weight.detach().numpy(),
                               ref.layers[0].fc1.weight.detach().numpy(),
                               atol=1e-10)
    layer.reshard()
    assert tuple(layer.fc1.weight.shape) == (rows, WIDTH)


def main() -> None:
    mode = sys.argv[1]
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    if mode == "crash":
        model = sharded_model()
        opt = tl.optim.Adam(model.parameters(), lr=0.1)
        x, y = data(0)
        loss_of(model, x, y).backward()
        if rank == 1:
            raise ValueError("rank 1 fails on purpose inside a sharded step")
        opt.step()
        loss_of(model, x, y).backward()  # the others wait in an all-gather
        return
    report: dict = {"world": world}
    for kind in OPTIMIZERS:
        check_zero(kind, rank, world, report)
    check_zero("adam", rank, world, report, bucket_view=True)
    model, ref = check_fsdp("adam", rank, world, report)
    check_fsdp_state_dict(rank, report, model, ref)
    check_fsdp("sgd", rank, world, report)
    check_fsdp("adam", rank, world, report, tag="fsdp_keep", reshard_after_forward=False)
    check_fsdp("sgd", rank, world, report, tag="fsdp_accumulate", accumulate=True)
    check_fsdp("adam", rank, world, report, tag="fsdp_prefetch", prefetch=True)
    check_fsdp("adam", rank, world, report, tag="fsdp_checkpoint", reentrant=False)
    check_fsdp("adam", rank, world, report, tag="fsdp_checkpoint_reentrant", reentrant=True)
    if world == 4:
        mesh = dist.init_device_mesh("cpu", (2, 2), mesh_dim_names=("replicate", "shard"))
        check_fsdp("adam", rank, world, report, mesh=mesh, tag="hsdp")
        check_fsdp("sgd", rank, world, report, mesh=mesh, tag="hsdp")
        # DDP over all 4 ranks, the optimizer state sharded over pairs of them
        check_zero("adam", rank, world, report, group=mesh.get_group("shard"), tag="zero_pairs")
    every: list = [None] * world
    dist.all_gather_object(every, report)
    if rank == 0:
        with open(mode, "w") as f:
            json.dump(every, f, indent=1)
    print(f"rank {rank}: ok", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
