"""Optimizer API parity with PyTorch: the kernel-choice flags (accepted, kept in the param
groups), differentiable=True refused clearly, step/state_dict/load_state_dict hooks (per
optimizer and global, removable), ChainedScheduler and chainable schedules (exact trajectories)."""

import inspect

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.optim.optimizer import register_optimizer_step_pre_hook

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_flags_are_accepted_and_kept_like_pytorch(name):
    ours = getattr(tl.optim, name)([tl.nn.Parameter(tl.ones(2))], lr=0.1, foreach=False)
    theirs = getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))], lr=0.1,
                                        foreach=False)
    assert sorted(ours.param_groups[0]) == sorted(theirs.param_groups[0])
    assert ours.param_groups[0]["foreach"] is False
    with pytest.raises(NotImplementedError, match="differentiable"):
        getattr(tl.optim, name)([tl.nn.Parameter(tl.ones(2))], differentiable=True)


def test_fused_and_foreach_together_are_refused():
    with pytest.raises(RuntimeError, match="cannot be `True` together"):
        tl.optim.Adam([tl.nn.Parameter(tl.ones(2))], foreach=True, fused=True)


def test_adam_decoupled_weight_decay_is_adamw():
    def trajectory(make):
        p = tl.nn.Parameter(tl.tensor([1.0, -2.0]))
        opt = make([p])
        for _ in range(3):
            p.grad = p.detach() * 0.5
            opt.step()
        return p.detach().numpy()
    np.testing.assert_array_equal(
        trajectory(lambda ps: tl.optim.Adam(ps, weight_decay=0.1, decoupled_weight_decay=True)),
        trajectory(lambda ps: tl.optim.AdamW(ps, weight_decay=0.1)))


def test_step_hooks_run_in_order_and_can_replace_arguments():
    p = tl.nn.Parameter(tl.ones(2))
    opt = tl.optim.SGD([p], lr=0.1)
    calls = []
    first = opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    glob = register_optimizer_step_pre_hook(lambda o, a, k: calls.append("global-pre"))
    p.grad = tl.ones(2)
    opt.step()
    assert calls == ["global-pre", "pre", "post"]
    first.remove()
    glob.remove()
    opt.step()
    assert calls == ["global-pre", "pre", "post", "post"]
    seen = []
    opt.register_step_pre_hook(lambda o, a, k: ((lambda: seen.append("closure") or 1.0,), {}))
    assert opt.step() == 1.0 and seen == ["closure"]  # the hook supplied a closure


def test_lbfgs_step_runs_the_hooks_once():
    p = tl.nn.Parameter(tl.tensor([3.0]))
    opt = tl.optim.LBFGS([p], max_iter=3)
    count = []
    opt.register_step_post_hook(lambda o, a, k: count.append(1))

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss
    opt.step(closure)
    assert count == [1]


def test_state_dict_hooks():
    p = tl.nn.Parameter(tl.ones(2))
    opt = tl.optim.Adam([p])
    events = []
    opt.register_state_dict_pre_hook(lambda o: events.append("pre"))
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "note": "added"})
    opt.register_load_state_dict_pre_hook(
        lambda o, sd: {k: v for k, v in sd.items() if k != "note"})
    opt.register_load_state_dict_post_hook(lambda o: events.append("loaded"))
    state = opt.state_dict()
    assert state["note"] == "added" and events == ["pre"]
    opt.load_state_dict(state)
    assert events == ["pre", "loaded"]


def _lrs(lib, make, steps=12):
    p = lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.SGD([p], lr=1.0)
    scheduler = make(lib.optim.lr_scheduler, opt)
    out = []
    for _ in range(steps):
        opt.step()
        scheduler.step()
        out.append(scheduler.get_last_lr()[0])
    return out


SCHEDULES = {
    "chained constant x exponential": lambda s, o: s.ChainedScheduler(
        [s.ConstantLR(o, factor=0.1, total_iters=2), s.ExponentialLR(o, gamma=0.9)]),
    "chained linear x cosine x step": lambda s, o: s.ChainedScheduler(
        [s.LinearLR(o, 0.1, total_iters=4), s.CosineAnnealingLR(o, T_max=5), s.StepLR(o, 3, 0.5)]),
    "multistep with a repeated milestone": lambda s, o: s.MultiStepLR(o, [2, 5, 5], 0.5),
    "cosine past T_max": lambda s, o: s.CosineAnnealingLR(o, 4, 0.01),
    "polynomial": lambda s, o: s.PolynomialLR(o, 6, 2.0),
    "warm-up then cosine": lambda s, o: s.SequentialLR(
        o, [s.LinearLR(o, 0.1, total_iters=3), s.CosineAnnealingLR(o, 8)], [3]),
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedules_follow_pytorch_exactly(name):
    np.testing.assert_allclose(_lrs(tl, SCHEDULES[name]), _lrs(torch, SCHEDULES[name]),
                               rtol=1e-13, atol=1e-16)


def test_chained_scheduler_needs_one_optimizer():
    a = tl.optim.SGD([tl.nn.Parameter(tl.ones(1))], lr=1.0)
    b = tl.optim.SGD([tl.nn.Parameter(tl.ones(1))], lr=1.0)
    s = tl.optim.lr_scheduler
    with pytest.raises(ValueError, match="same optimizer"):
        s.ChainedScheduler([s.ExponentialLR(a, 0.9), s.ExponentialLR(b, 0.9)])


def test_constructor_defaults_are_pytorchs():
    # the same values and types: a state_dict's param_groups print and compare as PyTorch's
    for name in tl.optim.__all__:
        ours, theirs = getattr(tl.optim, name), getattr(torch.optim, name, None)
        if not isinstance(ours, type) or theirs is None or name == "Optimizer":
            continue
        expected = inspect.signature(theirs.__init__).parameters
        for key, param in inspect.signature(ours.__init__).parameters.items():
            if key in expected and key not in ("self", "params"):
                want = expected[key].default
                assert (type(param.default), repr(param.default)) == (type(want), repr(want)), \
                    (name, key)
