"""tl.compile's horizontal fusion of optimizer updates (compiler/fuse.py): the same elementwise
update of every parameter runs as one NumPy call per op over contiguous arenas. Results must stay
bit-identical to eager, parameters must become views of one arena only when nothing else shares
their memory, and later traces must reuse the arena instead of moving it again."""

import inspect

import numpy as np
import pytest
from helpers import train_step

import tinygrad_lite as tl
import tinygrad_lite.nn as nn
from tinygrad_lite import _kernels
from tinygrad_lite.compiler import fuse
from tinygrad_lite.compiler.ir import Graph, Op, Ref, Value

RNG = np.random.default_rng(5)
OPTIMIZERS = [
    (tl.optim.SGD, dict(lr=0.05)),
    (tl.optim.SGD, dict(lr=0.05, momentum=0.9)),
    (tl.optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3)),
    (tl.optim.SGD, dict(lr=0.05, momentum=0.9, dampening=0.1, maximize=True)),
    (tl.optim.RMSprop, dict(lr=1e-3, momentum=0.5, centered=True)),
    (tl.optim.Adam, dict(lr=1e-2)),
    (tl.optim.AdamW, dict(lr=1e-2, weight_decay=0.1, amsgrad=True)),
    (tl.optim.Adagrad, dict(lr=1e-2, lr_decay=1e-3)),
]


def _model():
    return nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))


def _data(n=16):
    x = tl.from_numpy(RNG.standard_normal((n, 3)).astype(np.float32))
    y = tl.from_numpy(RNG.integers(0, 2, n))
    return x, y


def _pair(opt_cls, kwargs):
    tl.manual_seed(0)
    m1 = _model()
    tl.manual_seed(0)
    m2 = _model()
    o1, o2 = opt_cls(m1.parameters(), **kwargs), opt_cls(m2.parameters(), **kwargs)
    return (m1, o1, train_step(m1, o1)), (m2, o2, tl.compile(train_step(m2, o2)))


def _arena(model):
    """The one array all parameters view, or None."""
    bases = {id(p._data.base) for p in model.parameters()}
    base = next(iter(model.parameters()))._data.base
    return base if len(bases) == 1 and base is not None and base.ndim == 1 else None


def _same(a, b):
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def _same_parameters(m1, m2):
    for p1, p2 in zip(m1.parameters(), m2.parameters()):
        _same(p1, p2)


def _train(steps, x, y, n):
    """``n`` calls of each step in turn (the eager and the compiled one)."""
    for _ in range(n):
        for step in steps:
            step(x, y)


def _scale_and_reload(models, layer):
    """An eager in-place update of one weight, then a state-dict load, on each model."""
    for m in models:
        with tl.no_grad():
            m[layer].weight.mul_(0.5)
        m.load_state_dict({k: v * 2 for k, v in m.state_dict().items()})


@pytest.mark.parametrize("opt_cls,kwargs", OPTIMIZERS,
                         ids=["sgd", "momentum", "nesterov-wd", "dampening-maximize",
                              "rmsprop-centered", "adam", "adamw-amsgrad", "adagrad-decay"])
def test_fused_updates_are_bit_identical_to_eager(opt_cls, kwargs):
    (m1, o1, eager), (m2, o2, compiled) = _pair(opt_cls, kwargs)
    x, y = _data()
    for _ in range(12):
        np.testing.assert_array_equal(compiled(x, y).item(), eager(x, y).item())
    assert compiled.replays >= 9, compiled.explanations
    arena = _arena(m2)
    assert arena is not None and arena.size == sum(p.numel() for p in m2.parameters())
    fused = [op for op in compiled.graph.ops if any(
        getattr(a, "obj", None) is arena for a in op.args)]
    assert fused, "no op updates the parameter arena"
    _same_parameters(m1, m2)
    for p1, p2 in zip(m1.parameters(), m2.parameters()):
        _same(p1.grad, p2.grad)
    for s1, s2 in zip(o1.state.values(), o2.state.values()):
        for key in s1:
            _same(s1[key], s2[key])


def test_the_step_makes_fewer_numpy_calls_once_fused():
    tl.manual_seed(0)
    model = _model()
    opt = tl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    compiled = tl.compile(train_step(model, opt))
    x, y = _data()
    with _kernels.use_backend("numpy"):  # (numba's loop kernels fuse the four calls into one)
        for _ in range(3):
            compiled(x, y)
    lines, first = inspect.getsourcelines(train_step)
    offset = next(i for i, line in enumerate(lines) if "opt.step()" in line)
    step_line = f"helpers.py:{first + offset}"  # where the optimizer's update comes from
    update = [op for op in compiled.graph.ops if op.where == step_line and any(
        getattr(a, "obj", None) is not None and getattr(a.obj, "ndim", 0) for a in op.args)]
    # momentum SGD is 4 calls per parameter on parameter-sized arrays unfused (24 here);
    # fused, 4 calls in all (besides the 0-d ones on the learning rate, read per call)
    assert [op.label for op in update] == ["np.multiply", "np.add", "np.multiply", "np.add"], \
        compiled.graph


def test_parameters_shared_with_the_user_are_not_moved():
    (m1, o1, eager), (m2, o2, compiled) = _pair(tl.optim.SGD, dict(lr=0.1, momentum=0.9))
    first = list(m2.parameters())[0]
    alias = first.detach()  # shares the parameter's array
    window = list(m2.parameters())[3].detach().numpy()[2:]  # a NumPy view of another one
    x, y = _data()
    _train((eager, compiled), x, y, 6)
    assert compiled.replays >= 3
    assert _arena(m2) is None  # their group was left unfused
    assert np.shares_memory(alias.numpy(), first.detach().numpy())
    assert np.shares_memory(window, list(m2.parameters())[3].detach().numpy())
    _same_parameters(m1, m2)
    np.testing.assert_array_equal(alias.numpy(), first.detach().numpy())


def test_a_second_specialisation_reuses_the_arena():
    tl.manual_seed(0)
    model = _model()
    opt = tl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    compiled = tl.compile(train_step(model, opt))
    batches = [_data(16), _data(5)]
    for i in range(4):
        compiled(*batches[i % 2])
    arena, traces = _arena(model), compiled.traces
    assert arena is not None
    for i in range(10):  # alternating batch sizes: both entries replay, nothing moves again
        compiled(*batches[i % 2])
    assert compiled.traces == traces and _arena(model) is arena


def test_rebinding_a_parameter_after_fusion_retraces_and_stays_correct():
    (m1, o1, eager), (m2, o2, compiled) = _pair(tl.optim.SGD, dict(lr=0.1, momentum=0.9))
    x, y = _data()
    _train((eager, compiled), x, y, 4)
    for m in (m1, m2):
        m[0].weight.data = tl.ones(8, 3)  # a new array: the old arena no longer holds it
    _train((eager, compiled), x, y, 4)
    _same_parameters(m1, m2)
    # the other parameters still view the first arena, so this group now runs unfused;
    # eager in-place updates and loads go on landing where the replay reads
    assert _arena(m2) is None and compiled.replays >= 5
    _scale_and_reload((m1, m2), 2)
    _train((eager, compiled), x, y, 3)
    _same_parameters(m1, m2)


def test_in_place_updates_and_loads_reach_moved_parameters():
    (m1, o1, eager), (m2, o2, compiled) = _pair(tl.optim.SGD, dict(lr=0.1, momentum=0.9))
    x, y = _data()
    _train((eager, compiled), x, y, 3)
    arena = _arena(m2)
    assert arena is not None
    _scale_and_reload((m1, m2), 0)
    assert _arena(m2) is arena and np.shares_memory(m2[0].weight.detach().numpy(), arena)
    _train((eager, compiled), x, y, 3)
    assert compiled.traces == 2, compiled.explanations
    _same_parameters(m1, m2)


def test_pass_fuses_identical_lanes_and_leaves_others():
    dt = np.dtype(np.float32)
    g = Graph()
    for vid, shape in enumerate([(2, 3), (4,), (2, 3), (4,)]):
        g.values[vid] = Value(vid, shape, dt, "state", f"s{vid}")
    g.inputs = [0, 1, 2, 3]
    g.values[4] = Value(4, (2, 3), dt, "op")
    arrays = {0: np.ones((2, 3), dt), 1: np.ones(4, dt)}
    g.ops = [Op("call", np.multiply, (Ref(0), 0.5), {"out": (Ref(0),)}, [0], mutates=[0]),
             Op("call", np.multiply, (Ref(1), 0.5), {"out": (Ref(1),)}, [1], mutates=[1]),
             Op("call", np.add, (Ref(2), 1.0), {"out": (Ref(2),)}, [2], mutates=[2]),
             Op("call", np.exp, (Ref(3),), {}, [4])]  # a temporary the output reads
    g.outputs = ("T", Ref(4))
    moved = []

    def relocate(vids):
        moved.append(vids)
        return np.concatenate([arrays[v].ravel() for v in vids])

    fuse.fuse_parallel_updates(g, relocate)
    assert moved == [[0, 1]]  # the two multiplies by 0.5; the add and exp differ
    labels = [op.label for op in g.ops]
    assert labels.count("np.multiply") == 1 and "np.add" in labels and "np.exp" in labels
    assert not fuse.fuse_parallel_updates(g, lambda vids: None)


def test_a_group_whose_state_cannot_move_is_left_as_it_was():
    dt = np.dtype(np.float64)
    g = Graph()
    for vid in range(2):
        g.values[vid] = Value(vid, (3,), dt, "state", f"s{vid}")
    g.inputs = [0, 1]
    g.ops = [Op("call", np.multiply, (Ref(v), 2.0), {"out": (Ref(v),)}, [v], mutates=[v])
             for v in range(2)]
    before = list(g.ops)
    assert fuse.fuse_parallel_updates(g, lambda vids: None) == 0
    assert g.ops == before


def _scenario_step(model, opt, scenario):
    def step(x, y):
        opt.zero_grad(set_to_none=scenario != "keep-grads")
        loss = tl.nn.functional.cross_entropy(model(x), y)
        if scenario == "two-backwards":  # gradients of two losses accumulate
            (0.5 * loss).backward(retain_graph=True)
            model(x).pow(2).mean().backward()
        else:
            loss.backward()
        if scenario == "clip":
            tl.nn.utils.clip_grad_norm_(model.parameters(), 0.05)
        opt.step()
        return loss.detach()  # (its graph is retained in one scenario)
    return step


@pytest.mark.parametrize("scenario", ["keep-grads", "two-backwards", "clip"])
@pytest.mark.parametrize("opt_cls,kwargs", [(tl.optim.SGD, dict(lr=0.05, momentum=0.9)),
                                            (tl.optim.Adam, dict(lr=1e-2))], ids=["sgd", "adam"])
def test_fused_steps_match_eager_when_gradients_are_kept_accumulated_or_clipped(
        scenario, opt_cls, kwargs):
    models, steps = [], []
    for compiled in (False, True):
        tl.manual_seed(0)
        model = _model()
        step = _scenario_step(model, opt_cls(model.parameters(), **kwargs), scenario)
        models.append(model)
        steps.append(tl.compile(step) if compiled else step)
    x, y = _data()
    for _ in range(8):
        np.testing.assert_array_equal(steps[1](x, y).item(), steps[0](x, y).item())
    assert steps[1].replays >= 5, steps[1].explanations
    for p1, p2 in zip(*(m.parameters() for m in models)):
        _same(p1, p2)
        _same(p1.grad, p2.grad)


class _MixedNet(nn.Module):
    """Parameters of several shapes, a 0-d one, and BatchNorm buffers."""

    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(3, 8), nn.Linear(8, 8), nn.Linear(8, 2)
        self.scale = nn.Parameter(tl.ones(()))
        self.bn = nn.BatchNorm1d(8)

    def forward(self, x):
        return self.c(self.bn(self.b(self.a(x).relu())).relu()) * self.scale


def _optimizers(model, variant, opt_cls, kwargs):
    rest = [*model.b.parameters(), *model.c.parameters(), model.scale, *model.bn.parameters()]
    if variant == "groups":
        return [opt_cls([{"params": model.a.parameters(), "lr": kwargs["lr"] * 0.5},
                         {"params": rest}], **kwargs)]
    if variant == "frozen":
        model.b.weight.requires_grad_(False)
        return [opt_cls([p for p in model.parameters() if p.requires_grad], **kwargs)]
    return [opt_cls(model.a.parameters(), **kwargs), tl.optim.SGD(rest, lr=0.01, momentum=0.5)]


@pytest.mark.parametrize("variant", ["groups", "frozen", "two-optimizers"])
@pytest.mark.parametrize("opt_cls,kwargs", [(tl.optim.SGD, dict(lr=0.05, momentum=0.9)),
                                            (tl.optim.Adam, dict(lr=1e-2))], ids=["sgd", "adam"])
def test_param_groups_frozen_parameters_and_two_optimizers_match_eager(variant, opt_cls, kwargs):
    runs = []
    for compiled in (False, True):
        tl.manual_seed(0)
        model = _MixedNet()
        opts = _optimizers(model, variant, opt_cls, kwargs)

        def step(x, y, model=model, opts=opts):
            for opt in opts:
                opt.zero_grad()
            loss = tl.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            for opt in opts:
                opt.step()
            return loss
        runs.append((model, opts, tl.compile(step) if compiled else step))
    x, y = _data()
    for k in range(10):
        if k == 5:  # a learning rate changed between calls: the replay retraces
            for _, opts, _ in runs:
                opts[0].param_groups[0]["lr"] *= 0.5
        np.testing.assert_array_equal(runs[1][2](x, y).item(), runs[0][2](x, y).item())
    assert runs[1][2].replays >= 6, runs[1][2].explanations
    assert any("np_empty" in entry.code for entry in runs[1][2].entries if entry.replay)
    for p1, p2 in zip(runs[0][0].parameters(), runs[1][0].parameters()):
        _same(p1, p2)
    for b1, b2 in zip(runs[0][0].buffers(), runs[1][0].buffers()):
        _same(b1, b2)
