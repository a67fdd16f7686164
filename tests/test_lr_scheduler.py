"""Learning-rate schedulers: sequences against their formulas, and state dicts."""

import math

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite import nn, optim
from tinygrad_lite.optim import lr_scheduler as S  # noqa: N812


def make_opt(lr=1.0, cls=optim.SGD, **kw):
    return cls([nn.Parameter(tl.ones(1))], lr=lr, **kw)


def seq(sched, n):
    out = [sched.get_last_lr()[0]]
    for _ in range(n):
        sched.optimizer.step()
        sched.step()
        out.append(sched.get_last_lr()[0])
    return out


def test_step_multistep_exponential_cosine_linear_lambda():
    np.testing.assert_allclose(seq(S.StepLR(make_opt(), 2, 0.5), 5),
                               [1, 1, 0.5, 0.5, 0.25, 0.25])
    np.testing.assert_allclose(seq(S.MultiStepLR(make_opt(), [1, 3], 0.1), 4),
                               [1, 0.1, 0.1, 0.01, 0.01])
    np.testing.assert_allclose(seq(S.ExponentialLR(make_opt(), 0.9), 3),
                               [1, 0.9, 0.81, 0.729])
    np.testing.assert_allclose(seq(S.CosineAnnealingLR(make_opt(), 4, 0.1), 4),
                               [0.1 + 0.9 * (1 + math.cos(math.pi * t / 4)) / 2
                                for t in range(5)])
    np.testing.assert_allclose(seq(S.LinearLR(make_opt(), 0.25, 1.0, 3), 4),
                               [0.25, 0.5, 0.75, 1.0, 1.0])
    np.testing.assert_allclose(seq(S.LambdaLR(make_opt(2.0), lambda e: 1 / (e + 1)), 3),
                               [2, 1, 2 / 3, 0.5])


def test_one_cycle():
    opt = make_opt(cls=optim.SGD, momentum=0.9)
    sched = S.OneCycleLR(opt, max_lr=1.0, total_steps=10, pct_start=0.3)
    lrs = seq(sched, 9)
    initial, min_lr = 1 / 25, 1 / 25 / 1e4
    cos = lambda a, b, pct: b + (a - b) / 2 * (math.cos(math.pi * pct) + 1)  # noqa: E731
    ref = [cos(initial, 1.0, t / 2) if t <= 2 else cos(1.0, min_lr, (t - 2) / 7)
           for t in range(10)]
    np.testing.assert_allclose(lrs, ref)
    assert opt.param_groups[0]["momentum"] == pytest.approx(0.95)  # back up at the end
    adam = make_opt(cls=optim.Adam)
    S.OneCycleLR(adam, max_lr=0.1, total_steps=5)
    assert adam.param_groups[0]["betas"][0] == pytest.approx(0.95)


def test_reduce_on_plateau():
    opt = make_opt()
    sched = S.ReduceLROnPlateau(opt, factor=0.5, patience=1, cooldown=1)
    lrs = []
    for metric in [1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.95, 0.5]:
        sched.step(metric)
        lrs.append(sched.get_last_lr()[0])
    assert lrs == [1, 1, 1, 0.5, 0.5, 0.5, 0.25, 0.25]


def test_state_dict_round_trip():
    s1 = S.StepLR(make_opt(), 2, 0.5)
    for _ in range(3):
        s1.step()
    s2 = S.StepLR(make_opt(), 5, 0.9)
    s2.load_state_dict(s1.state_dict())
    assert s2.last_epoch == 3 and s2.get_last_lr() == s1.get_last_lr()
    s2.step()
    s1.step()
    # the schedule steps from the optimizer's current rate (PyTorch's chainable form), and the
    # fresh optimizer behind s2 is still at 1.0: PyTorch gives [0.5] and [0.25] too
    assert s2.get_last_lr() == [0.5] and s1.get_last_lr() == [0.25]
    lam = S.LambdaLR(make_opt(), lambda e: 0.5)
    assert lam.state_dict()["lr_lambdas"] == [None]  # (a plain function is not saved: PyTorch)
