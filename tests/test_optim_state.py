"""Optimizer state holds Tensors as PyTorch's does: readable and writable as Tensors, ``step`` a
0-d float32 Tensor, and a PyTorch optimizer's state_dict (converted tensor by tensor) loads
into the same optimizer here and continues PyTorch's trajectory (and back)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import tinygrad_lite as tl

W0 = [np.random.default_rng(0).standard_normal((3, 4)), np.random.default_rng(1).standard_normal(4)]

CASES = [("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
         ("SGD", {"lr": 0.1, "momentum": 0.5, "weight_decay": 0.1}),
         ("Adam", {"lr": 0.05, "amsgrad": True}), ("AdamW", {"lr": 0.05}),
         ("RMSprop", {"momentum": 0.5, "centered": True}), ("Adagrad", {"lr_decay": 0.1}),
         ("Adamax", {}), ("NAdam", {"weight_decay": 0.1}), ("RAdam", {}),
         ("Adadelta", {}), ("Rprop", {}), ("ASGD", {"t0": 2})]
IDS = [f"{n}-{k}" for n, k in CASES]


def loss_of(ps):
    """A small non-quadratic loss of the two parameters."""
    return ((ps[0] @ ps[1]) ** 2).sum() + (ps[0].sin() * 3).sum()


def make(lib, name, kwargs, values):
    """Parameters set to ``values`` and ``name``'s optimizer over two param groups."""
    ps = [lib.tensor(v.copy(), requires_grad=True) for v in values]
    groups = [{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.02}]
    return ps, getattr(lib.optim, name)(groups, **kwargs)


def train(ps, opt, steps):
    """``steps`` optimizer steps on ``loss_of``."""
    for _ in range(steps):
        opt.zero_grad()
        loss_of(ps).backward()
        opt.step()


def convert(value, to):
    """A state dict with every tensor converted by ``to`` (lists and dicts walked)."""
    if isinstance(value, dict):
        return {k: convert(v, to) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(convert(v, to) for v in value)
    converted = to(value)
    return copy.deepcopy(value) if converted is None else converted


def test_state_values_are_tensors():
    ps, opt = make(tl, "Adam", {"amsgrad": True}, W0)
    train(ps, opt, 3)
    state = opt.state[ps[0]]
    assert set(state) == {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}
    assert isinstance(state["exp_avg"], tl.Tensor) and state["exp_avg"].shape == (3, 4)
    assert state["step"].dtype == tl.float32 and state["step"].shape == () and state["step"] == 3
    assert state["exp_avg"].norm().item() > 0 and not state["exp_avg"].requires_grad
    ps, opt = make(tl, "SGD", {"lr": 0.1, "momentum": 0.9}, W0)
    train(ps, opt, 1)
    assert isinstance(opt.state[ps[1]]["momentum_buffer"], tl.Tensor)
    assert "step" not in opt.state[ps[1]]


@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_every_optimizer_keeps_tensors(name, kwargs):
    ps, opt = make(tl, name, kwargs, W0)
    train(ps, opt, 2)
    for p in ps:
        for key, value in opt.state[p].items():
            assert isinstance(value, tl.Tensor), (key, type(value))
            if key == "step":
                assert value.dtype == tl.float32 and value.item() == 2
    sd = opt.state_dict()
    assert all(isinstance(v, tl.Tensor) for s in sd["state"].values() for v in s.values())
    # the state dict is a snapshot: further steps leave it unchanged
    before = {k: v.numpy().copy() for k, v in sd["state"][0].items()}
    train(ps, opt, 1)
    for k, v in sd["state"][0].items():
        np.testing.assert_array_equal(v.numpy(), before[k])


@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_torch_state_dict_loads_and_continues(name, kwargs):
    torch = pytest.importorskip("torch")
    tps, topt = make(torch, name, kwargs, W0)
    train(tps, topt, 3)
    now = [p.detach().numpy().copy() for p in tps]
    sd = topt.state_dict()
    # the reference is PyTorch loading its own state dict (loading casts some 0-d entries,
    # e.g. ASGD's eta, to the parameters' dtype), then both continue
    ref_ps, ref = make(torch, name, {}, now)
    ref.load_state_dict(copy.deepcopy(sd))
    ps, opt = make(tl, name, {}, now)  # hyper-parameters come from the state dict
    opt.load_state_dict(convert(sd, lambda v: tl.tensor(v.numpy())
                                if isinstance(v, torch.Tensor) else None))
    assert opt.param_groups[1]["lr"] == 0.02 and opt.param_groups[0] == {
        k: v for k, v in ref.param_groups[0].items() if k in opt.param_groups[0]} | {
        "params": opt.param_groups[0]["params"]}
    for p, ref_p in zip(ps, ref_ps):
        for key, value in opt.state[p].items():
            assert value.dtype == getattr(tl, str(ref.state[ref_p][key].dtype)[6:]), key
    train(ref_ps, ref, 5)
    train(ps, opt, 5)
    for a, b in zip(ref_ps, ps):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)


@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_our_state_dict_loads_into_torch(name, kwargs):
    torch = pytest.importorskip("torch")
    ps, opt = make(tl, name, kwargs, W0)
    train(ps, opt, 3)
    now = [p.detach().numpy().copy() for p in ps]
    sd = opt.state_dict()
    ref_ps, ref = make(tl, name, {}, now)  # tinygrad_lite loading its own state dict
    ref.load_state_dict(sd)
    tps, topt = make(torch, name, {}, now)
    topt.load_state_dict(convert(sd, lambda v: torch.tensor(v.numpy())
                                 if isinstance(v, tl.Tensor) else None))
    train(tps, topt, 5)
    train(ref_ps, ref, 5)
    for a, b in zip(tps, ref_ps):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)


def test_writing_state_tensors_changes_the_next_step():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, tl):
        ps, opt = make(lib, "Adam", {"lr": 0.1}, W0)
        train(ps, opt, 2)
        state = opt.state[ps[0]]
        with lib.no_grad():
            state["exp_avg"].mul_(0.5)  # in place
        state["exp_avg_sq"] = state["exp_avg_sq"] * 2  # replaced
        state["step"] = lib.tensor(10.0)
        train(ps, opt, 2)
        results.append([p.detach().numpy() for p in ps])
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


def test_plain_number_step_from_older_state_dicts():
    ps, opt = make(tl, "Adam", {}, W0)
    train(ps, opt, 2)
    sd = opt.state_dict()
    for s in sd["state"].values():
        s["step"] = 2  # an int, as older tinygrad_lite and PyTorch 1.x state dicts hold
    ps2, opt2 = make(tl, "Adam", {}, [p.detach().numpy() for p in ps])
    opt2.load_state_dict(sd)
    train(ps, opt, 1)
    train(ps2, opt2, 1)
    np.testing.assert_array_equal(ps2[0].detach().numpy(), ps[0].detach().numpy())
    step = opt2.state[ps2[0]]["step"]
    assert isinstance(step, tl.Tensor) and step.item() == 3


def test_load_casts_state_to_the_parameter_dtype_but_not_step():
    ps, opt = make(tl, "Adam", {}, [w.astype(np.float32) for w in W0])
    train(ps, opt, 1)
    sd = opt.state_dict()
    sd["state"][0]["exp_avg"] = sd["state"][0]["exp_avg"].double()
    sd["state"][0]["step"] = tl.tensor(1.0, dtype=tl.float64)
    opt.load_state_dict(sd)
    assert opt.state[ps[0]]["exp_avg"].dtype == tl.float32
    assert opt.state[ps[0]]["step"].dtype == tl.float64
    train(ps, opt, 1)
    assert ps[0].dtype == tl.float32


def test_lbfgs_torch_state_dict_loads_and_continues():
    torch = pytest.importorskip("torch")

    def run(lib, values, opt_state=None, steps=2):
        w = lib.tensor(values.copy(), requires_grad=True)
        opt = lib.optim.LBFGS([w], max_iter=3, history_size=4, line_search_fn="strong_wolfe")
        if opt_state is not None:
            opt.load_state_dict(opt_state)

        def closure():
            opt.zero_grad()
            loss = (1 - w[0]) ** 2 + 100 * (w[1] - w[0] ** 2) ** 2
            loss.backward()
            return loss

        for _ in range(steps):
            opt.step(closure)
        return w.detach().numpy().copy(), opt

    x0 = np.array([-1.2, 1.0])
    mid, topt = run(torch, x0)
    sd = convert(topt.state_dict(), lambda v: tl.tensor(v.numpy())
                 if isinstance(v, torch.Tensor) else None)
    ours, _ = run(tl, mid, sd)
    theirs, _ = run(torch, mid, topt.state_dict())
    np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-10)


def test_named_parameters_record_param_names():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, tl):
        lib.manual_seed(0)
        model = lib.nn.Linear(3, 2)
        opt = lib.optim.SGD(model.named_parameters(), lr=0.1, momentum=0.9)
        groups = opt.state_dict()["param_groups"]
        results.append((groups[0]["param_names"], groups[0]["params"]))
        with pytest.raises(ValueError, match="with/without names"):
            opt.add_param_group({"params": [lib.zeros(1, requires_grad=True)]})
        with pytest.raises(ValueError, match="names are missing"):
            lib.optim.SGD([("a", model.weight), model.bias], lr=0.1)
        with pytest.raises(TypeError, match="ordered collections"):
            lib.optim.SGD([{"params": {model.weight}}], lr=0.1)
        with pytest.warns(UserWarning, match="duplicate parameters"):
            lib.optim.SGD([model.weight, model.weight], lr=0.1)
    assert results[0] == results[1] == (["weight", "bias"], [0, 1])
