"""Run under mpiexec: tensor parallelism (tl.distributed.tensor.parallel) against one process
computing the same thing, in float64. Mode "tp" (2 or 4 ranks): a Colwise+Rowwise MLP, an
attention block (q/k/v column-wise, the output projection row-wise), Embeddings split both
ways, a sequence-parallel block, the collectives each pair costs, the full state dict. Mode
"mesh" (4 ranks): the MLP on a 2x2 (dp, tp) mesh with DistributedDataParallel over dp.
Prints "rank R: ok"."""

import copy
import sys
import warnings
from collections import Counter

import numpy as np

import tinygrad_lite as tl
import tinygrad_lite.distributed as dist
import tinygrad_lite.distributed.collectives as collectives
import tinygrad_lite.nn.functional as F  # noqa: N812 - PyTorch's conventional alias
from tinygrad_lite import nn
from tinygrad_lite.distributed.checkpoint.state_dict import (
    StateDictOptions,
    get_model_state_dict,
    set_model_state_dict,
)
from tinygrad_lite.distributed.tensor import Replicate, Shard
from tinygrad_lite.distributed.tensor.debug import CommDebugMode
from tinygrad_lite.distributed.tensor.parallel import (
    ColwiseParallel,
    PrepareModuleInput,
    PrepareModuleOutput,
    RowwiseParallel,
    SequenceParallel,
    parallelize_module,
)

F64 = tl.float64
TOL = {"rtol": 1e-10, "atol": 1e-12}

# every collective the parallel styles run, counted by name
calls: Counter = Counter()


def _counting(name, real):
    def call(*args, **kwargs):
        calls[name] += 1
        return real(*args, **kwargs)
    return call


for _name in ("all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor"):
    setattr(collectives, _name, _counting(_name, getattr(collectives, _name)))


class MLP(nn.Module):
    def __init__(self, d=8, h=16):
        super().__init__()
        self.up = nn.Linear(d, h, dtype=F64)
        self.down = nn.Linear(h, d, dtype=F64)

    def forward(self, x):
        return self.down(tl.tanh(self.up(x)))


class Attention(nn.Module):
    def __init__(self, d=8, heads=4):
        super().__init__()
        self.head_dim = d // heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, dtype=F64) for _ in range(4))

    def forward(self, x):
        b, t, _ = x.shape

        def heads(y):  # the heads this rank holds: however many its shard of q/k/v has
            return y.view(b, t, -1, self.head_dim).transpose(1, 2)

        a = F.scaled_dot_product_attention(heads(self.q(x)), heads(self.k(x)), heads(self.v(x)),
                                           is_causal=True)
        return self.o(a.transpose(1, 2).reshape(b, t, -1))


class Block(nn.Module):
    """LayerNorm and MLP with a residual: the sequence-parallel layout's unit."""

    def __init__(self, d=8):
        super().__init__()
        self.norm = nn.LayerNorm(d, dtype=F64)
        self.mlp = MLP(d)

    def forward(self, x):
        return x + self.mlp(self.norm(x))


def close(actual, expected, what):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), err_msg=what, **TOL)


def local_part(full, param, group_rank, group_size):
    """The shard of ``full`` a parameter of this rank should hold (its spec says where)."""
    spec = getattr(param, "_dtensor_spec", None)
    if spec is None or not spec.placement.is_shard():
        return full
    return np.split(np.asarray(full), group_size, axis=spec.placement.dim)[group_rank]


def check_grads(tp, ref, group_rank, group_size, what):
    shards = dict(tp.named_parameters())
    for name, p in ref.named_parameters():
        q = shards[name]
        assert q.grad is not None, f"{what}: {name} has no gradient"
        expected = local_part(p.grad.detach().numpy(), q, group_rank, group_size)
        close(q.grad.detach().numpy(), expected,
              f"{what}: grad of {name}")


def check_full_state(tp, ref, what):
    full = get_model_state_dict(tp, options=StateDictOptions(full_state_dict=True))
    expected = ref.state_dict()
    assert list(full) == list(expected), (what, list(full), list(expected))
    for name, value in expected.items():
        assert tuple(full[name].shape) == tuple(value.shape), (what, name)
        close(full[name].detach().numpy(), value.detach().numpy(), f"{what}: full state {name}")


def train_both(tp, ref, make_input, loss_of, opt_cls, steps, **opt_kwargs):
    opt_tp = opt_cls(tp.parameters(), **opt_kwargs)
    opt_ref = opt_cls(ref.parameters(), **opt_kwargs)
    for step in range(steps):
        x_tp, x_ref = make_input(step)
        for model, x, opt in ((tp, x_tp, opt_tp), (ref, x_ref, opt_ref)):
            opt.zero_grad()
            loss_of(model(x), step).backward()
            opt.step()


def counted(fn):
    calls.clear()
    result = fn()
    return result, dict(calls)


def main_tp():
    dist.init_process_group("mpi")
    mesh = dist.init_device_mesh("cpu", (dist.get_world_size(),), mesh_dim_names=("tp",))
    group = mesh.get_group()
    rank, n = group.rank(), group.size()
    rng = np.random.default_rng(0)  # the same numbers on every rank

    # --- MLP: Colwise then Rowwise; one all-reduce forward, one backward ---------------------
    tl.manual_seed(0)
    ref = MLP()
    tp = copy.deepcopy(ref)
    if rank:  # parallelize_module starts every rank from rank 0's values
        with tl.no_grad():
            for p in tp.parameters():
                p.add_(1.0)
    parallelize_module(tp, mesh, {"up": ColwiseParallel(), "down": RowwiseParallel()})
    assert tuple(tp.up.weight.shape) == (16 // n, 8)
    assert tuple(tp.down.weight.shape) == (8, 16 // n)
    assert tuple(tp.down.bias.shape) == (8,)
    x = tl.tensor(rng.standard_normal((3, 5, 8)), requires_grad=True)
    x_ref = x.detach().clone().requires_grad_(True)
    target = tl.tensor(rng.standard_normal((3, 5, 8)))
    with CommDebugMode() as comm_mode:
        out, forward_calls = counted(lambda: tp(x))
    assert comm_mode.get_comm_counts() == {dist.all_reduce: 1}
    close(out.detach().numpy(), ref(x_ref).detach().numpy(), "mlp forward")
    assert forward_calls == {"all_reduce": 1}, forward_calls
    with CommDebugMode() as comm_mode:
        _, backward_calls = counted(lambda: F.mse_loss(out, target).backward())
    assert backward_calls == {"all_reduce": 1}, backward_calls
    assert comm_mode.get_total_counts() == 1
    F.mse_loss(ref(x_ref), target).backward()
    check_grads(tp, ref, rank, n, "mlp")
    close(x.grad.detach().numpy(), x_ref.grad.detach().numpy(), "mlp input grad")
    check_full_state(tp, ref, "mlp")
    # a deep copy is a model of its own (its row-wise layer runs on the copy's weights)
    twin, ref_twin = copy.deepcopy(tp), copy.deepcopy(ref)
    with tl.no_grad():
        twin.down.weight.mul_(2.0)
        ref_twin.down.weight.mul_(2.0)
    close(twin(x).detach().numpy(), ref_twin(x_ref).detach().numpy(), "deep copy")
    # second order: the gradient of the input gradient's norm, through both collectives
    for model in (tp, ref):
        model.zero_grad()
    for model, inp in ((tp, x), (ref, x_ref)):
        (g,) = tl.autograd.grad(F.mse_loss(model(inp), target), inp, create_graph=True)
        (g ** 2).sum().backward()
    check_grads(tp, ref, rank, n, "mlp, gradient of a gradient")

    # the output moved by PrepareModuleOutput: rows reduce-scattered, then gathered again
    tl.manual_seed(9)
    ref = MLP()
    tp = parallelize_module(copy.deepcopy(ref), mesh, {
        "up": ColwiseParallel(), "down": RowwiseParallel(output_layouts=Shard(0)),
        "": PrepareModuleOutput(output_layouts=Shard(0), desired_output_layouts=Replicate())})
    x = tl.tensor(rng.standard_normal((2 * n, 8)))
    out, forward_calls = counted(lambda: tp(x))
    assert forward_calls == {"reduce_scatter_tensor": 1, "all_gather_into_tensor": 1}
    close(out.detach().numpy(), ref(x).detach().numpy(), "PrepareModuleOutput")
    goal = tl.tensor(rng.standard_normal((2 * n, 8)))
    F.mse_loss(out, goal).backward()
    F.mse_loss(ref(x), goal).backward()
    check_grads(tp, ref, rank, n, "PrepareModuleOutput")
    # a row-wise Linear given the whole input: split forward, its gradient gathered backward
    tl.manual_seed(10)
    ref = nn.Linear(4 * n, 3, dtype=F64)
    tp = parallelize_module(copy.deepcopy(ref), mesh, RowwiseParallel(input_layouts=Replicate()))
    x = tl.tensor(rng.standard_normal((5, 4 * n)), requires_grad=True)
    x_ref = x.detach().clone().requires_grad_(True)
    out, forward_calls = counted(lambda: tp(x))
    close(out.detach().numpy(), ref(x_ref).detach().numpy(), "row-wise, whole input")
    _, backward_calls = counted(lambda: (out ** 3).sum().backward())
    assert backward_calls == {"all_gather_into_tensor": 1}, backward_calls
    (ref(x_ref) ** 3).sum().backward()
    check_grads(tp, ref, rank, n, "row-wise, whole input")
    close(x.grad.detach().numpy(), x_ref.grad.detach().numpy(), "row-wise input grad")
    # each rank's own values, kept (src_data_rank=None), and a plan key that matches nothing
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mine = MLP()
        with tl.no_grad():
            mine.up.weight.fill_(float(rank))
        parallelize_module(mine, mesh, {"up": ColwiseParallel(), "nothing": ColwiseParallel()},
                           src_data_rank=None)
    assert any("could not be resolved" in str(w.message) for w in caught)
    assert (mine.up.weight.detach().numpy() == rank).all()

    for opt_cls, kwargs in ((tl.optim.SGD, {"lr": 0.1, "momentum": 0.9}),
                            (tl.optim.Adam, {"lr": 0.01})):
        tl.manual_seed(1)
        ref = MLP()
        tp = parallelize_module(copy.deepcopy(ref), mesh,
                                {"up": ColwiseParallel(), "down": RowwiseParallel()})
        batches = [rng.standard_normal((4, 8)) for _ in range(4)]
        train_both(tp, ref, lambda s, b=batches: (tl.tensor(b[s]), tl.tensor(b[s])),
                   lambda y, s: (y ** 2).mean(), opt_cls, 4, **kwargs)
        check_full_state(tp, ref, f"mlp after 4 {opt_cls.__name__} steps")

    # full state dict loads back into the shards
    tl.manual_seed(2)
    other = MLP()
    set_model_state_dict(tp, other.state_dict(), options=StateDictOptions(full_state_dict=True))
    check_full_state(tp, other, "set_model_state_dict")
    close(tp.up.weight.detach().numpy(), np.split(other.up.weight.detach().numpy(), n)[rank],
          "loaded")
    # only rank 0's state dict is read with broadcast_from_rank0; frozen parameters left out;
    # one submodule's entries, with and without its prefix
    tl.manual_seed(11)
    third = MLP()
    set_model_state_dict(tp, third.state_dict() if rank == 0 else {}, options=StateDictOptions(
        full_state_dict=True, broadcast_from_rank0=True))
    check_full_state(tp, third, "broadcast_from_rank0")
    tp.up.bias.requires_grad_(False)
    full = get_model_state_dict(tp, options=StateDictOptions(full_state_dict=True,
                                                             ignore_frozen_params=True))
    assert list(full) == ["up.weight", "down.weight", "down.bias"], list(full)
    for keep, names in ((True, ["down.weight", "down.bias"]), (False, ["weight", "bias"])):
        part = get_model_state_dict(tp, submodules={tp.down}, options=StateDictOptions(
            full_state_dict=True, keep_submodule_prefixes=keep))
        assert list(part) == names, list(part)
        close(part[names[0]].detach().numpy(), third.down.weight.detach().numpy(), "submodule")
    local = get_model_state_dict(tp)  # without full_state_dict: this rank's shards
    assert tuple(local["up.weight"].shape) == (16 // n, 8)

    # --- attention: heads split column-wise; one all-reduce each way -----------------------
    tl.manual_seed(3)
    ref = Attention()
    tp = copy.deepcopy(ref)
    plan = {"": PrepareModuleInput(input_layouts=Replicate(), desired_input_layouts=Replicate()),
            "q": ColwiseParallel(), "k": ColwiseParallel(), "v": ColwiseParallel(),
            "o": RowwiseParallel()}
    parallelize_module(tp, mesh, plan)
    x = tl.tensor(rng.standard_normal((2, 5, 8)), requires_grad=True)
    x_ref = x.detach().clone().requires_grad_(True)
    out, forward_calls = counted(lambda: tp(x))
    close(out.detach().numpy(), ref(x_ref).detach().numpy(), "attention forward")
    assert forward_calls == {"all_reduce": 1}, forward_calls
    _, backward_calls = counted(lambda: (out * target[:2]).sum().backward())
    assert backward_calls == {"all_reduce": 1}, backward_calls
    (ref(x_ref) * target[:2]).sum().backward()
    check_grads(tp, ref, rank, n, "attention")
    close(x.grad.detach().numpy(), x_ref.grad.detach().numpy(), "attention input grad")
    # without PrepareModuleInput each column-wise projection reduces its own input gradient
    plain = parallelize_module(copy.deepcopy(ref), mesh, {"q": ColwiseParallel(),
                               "k": ColwiseParallel(), "v": ColwiseParallel(),
                               "o": RowwiseParallel()})
    x2 = x.detach().clone().requires_grad_(True)
    _, plain_backward = counted(lambda: (plain(x2) * target[:2]).sum().backward())
    assert plain_backward == {"all_reduce": 1 + 3}, plain_backward  # forward 1, backward 3
    close(x2.grad.detach().numpy(), x_ref.grad.detach().numpy(), "attention input grad, plain plan")
    for opt_cls in (tl.optim.SGD, tl.optim.Adam):
        tl.manual_seed(4)
        ref = Attention()
        tp = parallelize_module(copy.deepcopy(ref), mesh, plan)
        batches = [rng.standard_normal((2, 4, 8)) for _ in range(3)]
        train_both(tp, ref, lambda s, b=batches: (tl.tensor(b[s]), tl.tensor(b[s])),
                   lambda y, s: (y ** 2).mean(), opt_cls, 3, lr=0.05)
        check_full_state(tp, ref, f"attention after 3 {opt_cls.__name__} steps")

    # --- Embedding, split by rows (vocabulary) and by columns ------------------------------
    index = tl.tensor(rng.integers(0, 8, (4, 2 * n)))
    # (style, dimension of the weight that is split, dimension of the output that is split)
    for style, weight_dim, out_dim in (
            (RowwiseParallel(input_layouts=Replicate()), 0, None),
            (RowwiseParallel(input_layouts=Replicate(), output_layouts=Shard(1)), 0, 1),
            (ColwiseParallel(), 1, -1),
            (ColwiseParallel(output_layouts=Replicate()), 1, None)):
        tl.manual_seed(5)
        ref = nn.Embedding(8, 8, padding_idx=5, dtype=F64)
        tp = parallelize_module(copy.deepcopy(ref), mesh, style)
        assert tp.weight._dtensor_spec.placement == Shard(weight_dim)
        weights = rng.standard_normal((4, 2 * n, 8))
        out = tp(index)
        full_out = ref(index)

        def mine(a, axis=out_dim):
            return a if axis is None else np.split(a, n, axis=axis)[rank].copy()

        close(out.detach().numpy(), mine(full_out.detach().numpy()), f"embedding {style}")
        (out * tl.tensor(mine(weights))).sum().backward()
        (full_out * tl.tensor(weights)).sum().backward()
        check_grads(tp, ref, rank, n, f"embedding {style}")
        check_full_state(tp, ref, f"embedding {style}")
    try:
        parallelize_module(nn.Embedding(8, 4, dtype=F64), mesh,
                           RowwiseParallel(input_layouts=Replicate()))(
            tl.tensor([[8]]))
    except IndexError as exc:
        assert "out of range" in str(exc)
    else:
        raise AssertionError("an index past the table was accepted")

    # --- sequence parallelism: positions sharded outside the MLP ---------------------------
    tl.manual_seed(6)
    ref = Block()
    tp = parallelize_module(copy.deepcopy(ref), mesh, {
        "norm": SequenceParallel(),
        "mlp.up": ColwiseParallel(input_layouts=Shard(1)),
        "mlp.down": RowwiseParallel(output_layouts=Shard(1))})
    x_full = rng.standard_normal((2, 4 * n, 8))
    x = tl.tensor(np.split(x_full, n, axis=1)[rank].copy(), requires_grad=True)
    x_ref = tl.tensor(x_full, requires_grad=True)
    weights = rng.standard_normal((2, 4 * n, 8))
    out, forward_calls = counted(lambda: tp(x))
    close(out.detach().numpy(), np.split(ref(x_ref).detach().numpy(), n, axis=1)[rank],
          "sequence parallel")
    assert forward_calls == {"all_gather_into_tensor": 1, "reduce_scatter_tensor": 1}, \
        forward_calls
    (out * tl.tensor(np.split(weights, n, axis=1)[rank].copy())).sum().backward()
    (ref(x_ref) * tl.tensor(weights)).sum().backward()
    check_grads(tp, ref, rank, n, "sequence parallel")
    close(x.grad.detach().numpy(), np.split(x_ref.grad.detach().numpy(), n, axis=1)[rank],
          "sp input grad")

    # --- errors ---------------------------------------------------------------------------
    for bad, kind in ((lambda: parallelize_module(nn.Conv1d(2, 2, 1), mesh, ColwiseParallel()),
                       NotImplementedError),
                      (lambda: parallelize_module(nn.Linear(3, 3), mesh, ColwiseParallel())
                       if n > 1 else (_ for _ in ()).throw(ValueError()), ValueError),
                      (lambda: parallelize_module(MLP(), mesh, "up"), TypeError)):
        try:
            bad()
        except kind:
            pass
        else:
            raise AssertionError(f"expected {kind.__name__}")


def main_mesh():
    mesh = dist.init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    dp, tp_group = mesh.get_group("dp"), mesh.get_group("tp")
    rng = np.random.default_rng(7)
    tl.manual_seed(8)
    ref = MLP()
    tp = parallelize_module(copy.deepcopy(ref), mesh["tp"],
                            {"up": ColwiseParallel(), "down": RowwiseParallel()})
    model = nn.parallel.DistributedDataParallel(tp, process_group=dp)
    batches = [rng.standard_normal((8, 8)) for _ in range(3)]

    def halves(step):  # each dp rank takes its half of the batch; the reference all of it
        mine = np.split(batches[step], 2)[dp.rank()]
        return tl.tensor(mine), tl.tensor(batches[step])

    train_both(model, ref, halves, lambda y, s: (y ** 2).mean(), tl.optim.Adam, 3, lr=0.02)
    check_full_state(model, ref, "dp x tp after 3 Adam steps")
    assert tp_group.size() == 2 and dp.size() == 2
    try:
        parallelize_module(MLP(), mesh, {"up": ColwiseParallel()})
    except ValueError as exc:
        assert "1-D DeviceMesh" in str(exc)
    else:
        raise AssertionError("a 2-D mesh was accepted")


if __name__ == "__main__":
    {"tp": main_tp, "mesh": main_mesh}[sys.argv[1]]()
    print(f"rank {dist.get_rank()}: ok", flush=True)
