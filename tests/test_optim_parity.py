"""Optimizers and LR schedulers against PyTorch, on what differential sweeps found to differ:
a 0-d Tensor learning rate, the param-group keys PyTorch stores (and their order), argument
validation (NaN included), state dicts without empty entries, the schedulers' warnings,
state-dict contents, resuming with ``last_epoch``, and ReduceLROnPlateau's API."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

OPTIMIZERS = ["SGD", "Adam", "AdamW", "Adamax", "Adagrad", "Adadelta", "RMSprop", "Rprop",
              "NAdam", "RAdam", "ASGD", "LBFGS"]


def _run(lib, name, dtype, lr, steps=8, **kwargs):
    """``steps`` updates of three parameters (a matrix, a vector, a 0-d one whose gradient is
    None every third step) with fixed gradients; the parameters and the state dict."""
    rng = np.random.default_rng(0)
    params = [lib.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True)
              for s in ((3, 4), (5,), ())]
    opt = getattr(lib.optim, name)(params, lr=lr(lib), **kwargs)
    for step in range(steps):
        grads = np.random.default_rng(100 + step)
        for i, p in enumerate(params):
            g = grads.standard_normal(p.shape).astype(dtype)
            p.grad = None if (i == 2 and step % 3 == 1) else lib.tensor(g)
        opt.step()
    return [p.detach().numpy().copy() for p in params], opt.state_dict()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name,kwargs", [
    ("SGD", {"momentum": 0.9}), ("Adam", {}), ("Adam", {"amsgrad": True, "weight_decay": 0.1}),
    ("AdamW", {}), ("Adamax", {}), ("Adagrad", {"lr_decay": 0.1}), ("Adadelta", {}),
    ("RMSprop", {"centered": True}), ("Rprop", {}), ("NAdam", {}), ("RAdam", {}),
    ("ASGD", {"t0": 3})])
def test_tensor_lr_matches_pytorch(name, kwargs, dtype):
    # PyTorch computes with the float32 rate (lr / bias_correction1 in float32, ASGD's eta
    # schedule in float32): the result differs from a float lr of the same value
    ours, _ = _run(tl, name, dtype, lambda lib: lib.tensor(0.1), **kwargs)
    theirs, _ = _run(torch, name, dtype, lambda lib: lib.tensor(0.1), **kwargs)
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * 1e-2)


def test_tensor_lr_stays_in_the_group_and_errors():
    p = tl.zeros(2, requires_grad=True)
    lr = tl.tensor(0.5)
    opt = tl.optim.SGD([p], lr=lr)
    p.grad = tl.ones(2)
    opt.step()
    assert opt.param_groups[0]["lr"] is lr
    np.testing.assert_array_equal(p.detach().numpy(), [-0.5, -0.5])
    with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
        tl.optim.Adam([p], lr=tl.tensor([0.1, 0.2]))
    with pytest.raises(ValueError, match="lr as a Tensor is not supported for capturable=False "
                                         "and foreach=True"):
        tl.optim.Adam([p], lr=tl.tensor(0.1), foreach=True)


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_param_group_keys_and_order_match_pytorch(name):
    ours = getattr(tl.optim, name)([tl.zeros(2, requires_grad=True)])
    theirs = getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)])
    assert list(ours.defaults.items()) == list(theirs.defaults.items())
    assert list(ours.state_dict()["param_groups"][0]) == \
        list(theirs.state_dict()["param_groups"][0])


@pytest.mark.parametrize("name,kwargs,message", [
    ("Adam", {"lr": float("nan")}, "Invalid learning rate: nan"),
    ("Adamax", {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
    ("NAdam", {"betas": (0.9, -0.1)}, "Invalid beta parameter at index 1: -0.1"),
    ("RAdam", {"betas": (0.9, 1.5)}, "Invalid beta parameter at index 1: 1.5"),
    ("Adagrad", {"eps": -1.0}, "Invalid epsilon value: -1.0"),
    ("Adagrad", {"weight_decay": -0.1}, "Invalid weight_decay value: -0.1"),
    ("RMSprop", {"weight_decay": -0.1}, "Invalid weight_decay value: -0.1"),
    ("LBFGS", {"lr": float("nan")}, "Invalid learning rate: nan"),
])
def test_bad_arguments_raise_as_in_pytorch(name, kwargs, message):
    for lib in (torch, tl):
        with pytest.raises(ValueError, match=message):
            getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)], **kwargs)


def test_sgd_nan_lr_is_accepted_as_in_pytorch():
    for lib in (torch, tl):  # (SGD tests lr < 0.0, which NaN passes)
        lib.optim.SGD([lib.zeros(2, requires_grad=True)], lr=float("nan"))


def test_stateless_sgd_state_dict_has_no_entries():
    for lib in (torch, tl):
        p = lib.zeros(2, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1)
        p.grad = lib.ones(2)
        opt.step()
        assert opt.state_dict()["state"] == {}


def _sgd(lib):
    return lib.optim.SGD([lib.zeros(2, requires_grad=True)], lr=0.1, momentum=0.9)


def _messages(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message).split(".")[0] for w in caught]


@pytest.mark.parametrize("case", ["before", "epoch", "sequential", "plateau_epoch"])
def test_scheduler_warnings_match_pytorch(case):
    def run(lib):
        s_ = lib.optim.lr_scheduler
        opt = _sgd(lib)
        if case == "before":  # scheduler.step() before any optimizer.step()
            sched = s_.StepLR(opt, 2)
            sched.step()
            sched.step()
        elif case == "epoch":
            sched = s_.StepLR(opt, 2)
            opt.step()
            sched.step(3)
        elif case == "sequential":  # the hand-over at a milestone does not warn
            sched = s_.SequentialLR(opt, [s_.ConstantLR(opt, 0.5, 2),
                                          s_.ExponentialLR(opt, 0.9)], [2])
            for _ in range(4):
                opt.step()
                sched.step()
        else:
            s_.ReduceLROnPlateau(opt).step(1.0, 3)
    ours, theirs = _messages(lambda: run(tl)), _messages(lambda: run(torch))
    assert ours == theirs
    assert (case == "sequential") == (not ours)


@pytest.mark.parametrize("make", [
    lambda s, o: s.StepLR(o, 3), lambda s, o: s.MultiStepLR(o, [2, 5, 5]),
    lambda s, o: s.LambdaLR(o, lambda e: 0.9 ** e),
    lambda s, o: s.MultiplicativeLR(o, lambda e: 0.9),
    lambda s, o: s.CyclicLR(o, 0.01, 0.1, step_size_up=3),
    lambda s, o: s.CosineAnnealingWarmRestarts(o, 3),
    lambda s, o: s.SequentialLR(o, [s.ConstantLR(o, 0.5, 2), s.ExponentialLR(o, 0.9)], [2]),
    lambda s, o: s.ChainedScheduler([s.ConstantLR(o, 0.5, 2), s.ExponentialLR(o, 0.9)]),
    lambda s, o: s.ReduceLROnPlateau(o),
], ids=["step", "multistep", "lambda", "multiplicative", "cyclic", "warm_restarts",
        "sequential", "chained", "plateau"])
def test_scheduler_state_dict_matches_pytorch(make):
    dicts = []
    for lib in (torch, tl):
        opt = _sgd(lib)
        sched = make(lib.optim.lr_scheduler, opt)
        for _ in range(4):
            opt.step()
            sched.step(1.0) if isinstance(sched, lib.optim.lr_scheduler.ReduceLROnPlateau) \
                else sched.step()
        dicts.append(sched.state_dict())
    theirs, ours = dicts
    assert set(ours) == set(theirs)
    for key in ("last_epoch", "_step_count", "_is_initial", "_get_lr_called_within_step",
                "_last_lr", "lr_lambdas", "milestones", "_scale_fn_custom", "use_beta1"):
        if key in theirs:
            assert ours[key] == theirs[key] and type(ours[key]) is type(theirs[key]), key


def test_lambda_state_dict_round_trips_callable_objects():
    class Decay:
        def __init__(self):
            self.rate = 0.5

        def __call__(self, epoch):
            return self.rate ** epoch

    s_ = tl.optim.lr_scheduler
    source = s_.LambdaLR(_sgd(tl), Decay())
    source.lr_lambdas[0].rate = 0.25
    target = s_.LambdaLR(_sgd(tl), Decay())
    state = source.state_dict()
    assert state["lr_lambdas"] == [{"rate": 0.25}]
    target.load_state_dict(state)
    assert target.lr_lambdas[0].rate == 0.25 and "lr_lambdas" in state


@pytest.mark.parametrize("make", [
    lambda s, o: s.ExponentialLR(o, 0.5, last_epoch=2),
    lambda s, o: s.CosineAnnealingLR(o, 10, last_epoch=3),
    lambda s, o: s.PolynomialLR(o, 8, 2.0, last_epoch=2),
    lambda s, o: s.LinearLR(o, 0.2, 1.0, 6, last_epoch=2),
    lambda s, o: s.MultiplicativeLR(o, lambda e: 0.9, last_epoch=2),
], ids=["exponential", "cosine", "polynomial", "linear", "multiplicative"])
def test_resuming_with_last_epoch_matches_pytorch(make):
    # the constructor's step keeps the group's rate (PyTorch's _is_initial), whatever the epoch
    seqs = []
    for lib in (torch, tl):
        opt = _sgd(lib)
        opt.param_groups[0]["initial_lr"] = 1.0
        sched = make(lib.optim.lr_scheduler, opt)
        seq = [sched.get_last_lr()[0]]
        for _ in range(6):
            opt.step()
            sched.step()
            seq.append(sched.get_last_lr()[0])
        seqs.append(seq)
    np.testing.assert_allclose(seqs[1], seqs[0], rtol=1e-14)
    assert seqs[1][0] == 0.1


def test_reduce_lr_on_plateau_api_matches_pytorch():
    for lib in (torch, tl):
        s_ = lib.optim.lr_scheduler
        sched = s_.ReduceLROnPlateau(_sgd(lib), patience=0, cooldown=1)
        assert isinstance(sched, s_.LRScheduler)
        with pytest.warns(UserWarning, match="The epoch parameter"):
            sched.step(1.0, 5)
        assert sched.last_epoch == 5 and not sched.in_cooldown
        sched.step(2.0)
        assert sched.in_cooldown and sched.get_last_lr() == [pytest.approx(0.01)]
        assert sched.mode_worse == float("inf") and sched.default_min_lr == 0
        for kwargs, message in [({"mode": "up"}, "mode up is unknown!"),
                                ({"threshold_mode": "x"}, "threshold mode x is unknown!"),
                                ({"min_lr": [0.1, 0.2]}, "expected 1 min_lrs, got 2")]:
            with pytest.raises(ValueError, match=message):
                s_.ReduceLROnPlateau(_sgd(lib), **kwargs)
        opt = _sgd(lib)
        plateau = s_.ReduceLROnPlateau(opt)
        with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
            s_.SequentialLR(opt, [s_.StepLR(opt, 2), plateau], [2])
        with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
            s_.ChainedScheduler([s_.StepLR(opt, 2), plateau])


def test_cyclic_lr_records_momentum_bounds_in_groups():
    groups = []
    for lib in (torch, tl):
        opt = _sgd(lib)
        lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, base_momentum=[0.7],
                                        max_momentum=[0.95])
        groups.append({k: v for k, v in opt.param_groups[0].items() if k != "params"})
    assert groups[1] == groups[0]
    assert groups[1]["max_momentum"] == 0.95 and groups[1]["base_momentum"] == 0.7
