"""The added optimizers and schedulers against PyTorch: 20-step trajectories with two parameter
groups (float64), LBFGS with its closure, and every scheduler's learning rates (and CyclicLR's
momentum) over 25 steps."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")
W0 = [np.random.default_rng(0).standard_normal((3, 4)), np.random.default_rng(1).standard_normal(4)]

OPTIMIZERS = [("Adamax", {"weight_decay": 0.1}), ("Adamax", {"maximize": True}),
              ("NAdam", {"weight_decay": 0.1}),
              ("NAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
              ("RAdam", {"weight_decay": 0.05}), ("RAdam", {"decoupled_weight_decay": True,
                                                            "weight_decay": 0.1}),
              ("Adadelta", {"weight_decay": 0.1}), ("Rprop", {}),
              ("ASGD", {"t0": 5, "weight_decay": 0.1})]


def _loss(ps):
    return ((ps[0] @ ps[1]) ** 2).sum() + (ps[0].sin() * 3).sum()


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS, ids=[f"{n}-{k}" for n, k in OPTIMIZERS])
def test_trajectory_matches_pytorch(name, kwargs):
    tp = [torch.tensor(w, requires_grad=True) for w in W0]
    op = [tl.tensor(w, requires_grad=True) for w in W0]
    groups = lambda ps: [{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.05}]  # noqa: E731
    t_opt = getattr(torch.optim, name)(groups(tp), **kwargs)
    o_opt = getattr(tl.optim, name)(groups(op), **kwargs)
    for _ in range(20):
        for ps, opt in ((tp, t_opt), (op, o_opt)):
            opt.zero_grad()
            _loss(ps).backward()
            opt.step()
    for a, b in zip(tp, op):
        # PyTorch keeps some schedule scalars (NAdam's mu, ASGD's eta) as float32 tensors
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-7,
                                   atol=1e-8)


def test_lbfgs_follows_pytorch_on_rosenbrock():
    results = []
    for lib in (torch, tl):
        w = lib.tensor(np.array([-1.5, 2.0]), requires_grad=True)
        opt = lib.optim.LBFGS([w], lr=1, max_iter=10, history_size=5)

        def closure(w=w, opt=opt):
            opt.zero_grad()
            loss = (1 - w[0]) ** 2 + 100 * (w[1] - w[0] ** 2) ** 2
            loss.backward()
            return loss

        for _ in range(4):
            opt.step(closure)
        results.append(w.detach().numpy().copy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-7)  # summation order differs
    with pytest.raises(RuntimeError, match="closure"):
        tl.optim.LBFGS([tl.ones(1, requires_grad=True)]).step()


SCHEDULERS = {
    "ConstantLR": lambda lib, o: lib.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=4),
    "PolynomialLR": lambda lib, o: lib.optim.lr_scheduler.PolynomialLR(o, total_iters=10, power=2),
    "MultiplicativeLR": lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.95),
    "CosineAnnealingWarmRestarts": lambda lib, o:
        lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 5, 2, 0.01),
    "SequentialLR": lambda lib, o: lib.optim.lr_scheduler.SequentialLR(o, [
        lib.optim.lr_scheduler.LinearLR(o, 0.1, total_iters=5),
        lib.optim.lr_scheduler.CosineAnnealingLR(o, 20)], [5]),
    "CyclicLR-triangular2": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, 0.01, 0.1, step_size_up=4, mode="triangular2"),
    "CyclicLR-exp_range": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, 0.01, 0.1, step_size_up=3, step_size_down=5, mode="exp_range", gamma=0.9),
}


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_scheduler_matches_pytorch(name):
    histories = []
    for lib in (torch, tl):
        p = lib.tensor([1.0], requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scheduler = SCHEDULERS[name](lib, opt)
            rates = []
            for _ in range(25):
                opt.step()
                scheduler.step()
                rates.append((opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"]))
        histories.append(rates)
    np.testing.assert_allclose(np.array(histories[1]), np.array(histories[0]), rtol=1e-12,
                               atol=1e-15)
