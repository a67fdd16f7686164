"""Optimizers: trajectories against PyTorch's update rules written out by hand."""

import math

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite import nn, optim

STEPS = 5


def quad_grad(p):
    """Gradient of the test objective sum(p^3 / 3 + p): p^2 + 1 (non-constant, non-zero)."""
    return p * p + 1.0


def run_opt(make, p0):
    p = nn.Parameter(tl.tensor(p0.copy()))
    opt = make([p])
    out = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = (p ** 3 / 3 + p).sum()
        loss.backward()
        opt.step()
        out.append(p.detach().numpy().copy())
    return out, opt, p


P0 = np.array([0.5, -1.0, 2.0])


def ref_sgd(lr, momentum=0.0, dampening=0.0, wd=0.0, nesterov=False, maximize=False):
    p, buf, out = P0.copy(), None, []
    for _ in range(STEPS):
        g = quad_grad(p)
        g = -g if maximize else g
        g = g + wd * p
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
        out.append(p)
    return out


def ref_adam(lr, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, amsgrad=False, decoupled=False,
             maximize=False):
    p, m, v, vmax, out = P0.copy(), 0 * P0, 0 * P0, 0 * P0, []
    for t in range(1, STEPS + 1):
        g = quad_grad(p)
        g = -g if maximize else g
        if wd and decoupled:
            p = p * (1 - lr * wd)
        elif wd:
            g = g + wd * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        denom = np.sqrt(vmax if amsgrad else v) / math.sqrt(1 - b2 ** t) + eps
        p = p - lr / (1 - b1 ** t) * m / denom
        out.append(p)
    return out


def ref_rmsprop(lr, alpha=0.99, eps=1e-8, wd=0.0, momentum=0.0, centered=False):
    p, s, ga, buf, out = P0.copy(), 0 * P0, 0 * P0, 0 * P0, []
    for _ in range(STEPS):
        g = quad_grad(p) + wd * p
        s = alpha * s + (1 - alpha) * g * g
        if centered:
            ga = alpha * ga + (1 - alpha) * g
            avg = np.sqrt(s - ga * ga) + eps
        else:
            avg = np.sqrt(s) + eps
        if momentum:
            buf = momentum * buf + g / avg
            p = p - lr * buf
        else:
            p = p - lr * g / avg
        out.append(p)
    return out


def ref_adagrad(lr, lr_decay=0.0, wd=0.0, init=0.0, eps=1e-10):
    p, s, out = P0.copy(), np.full(3, init), []
    for t in range(1, STEPS + 1):
        g = quad_grad(p) + wd * p
        clr = lr / (1 + (t - 1) * lr_decay)
        s = s + g * g
        p = p - clr * g / (np.sqrt(s) + eps)
        out.append(p)
    return out


CASES = [
    ("sgd", lambda ps: optim.SGD(ps, lr=0.1), ref_sgd(0.1)),
    ("sgd_momentum", lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.1,
                                          weight_decay=0.01), ref_sgd(0.1, 0.9, 0.1, 0.01)),
    ("sgd_nesterov", lambda ps: optim.SGD(ps, lr=0.05, momentum=0.8, nesterov=True),
     ref_sgd(0.05, 0.8, nesterov=True)),
    ("sgd_maximize", lambda ps: optim.SGD(ps, lr=0.01, maximize=True),
     ref_sgd(0.01, maximize=True)),
    ("adam", lambda ps: optim.Adam(ps, lr=0.1), ref_adam(0.1)),
    ("adam_wd_amsgrad", lambda ps: optim.Adam(ps, lr=0.05, betas=(0.8, 0.9), weight_decay=0.1,
                                              amsgrad=True),
     ref_adam(0.05, 0.8, 0.9, wd=0.1, amsgrad=True)),
    ("adam_maximize", lambda ps: optim.Adam(ps, lr=0.1, maximize=True),
     ref_adam(0.1, maximize=True)),
    ("adamw", lambda ps: optim.AdamW(ps, lr=0.1, weight_decay=0.1),
     ref_adam(0.1, wd=0.1, decoupled=True)),
    ("rmsprop", lambda ps: optim.RMSprop(ps, lr=0.01), ref_rmsprop(0.01)),
    ("rmsprop_centered_momentum", lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.9,
                                                           centered=True, weight_decay=0.1),
     ref_rmsprop(0.01, wd=0.1, momentum=0.9, centered=True)),
    ("adagrad", lambda ps: optim.Adagrad(ps, lr=0.1, lr_decay=0.01, weight_decay=0.1,
                                         initial_accumulator_value=0.5),
     ref_adagrad(0.1, 0.01, 0.1, 0.5)),
]


@pytest.mark.parametrize("name,make,ref", CASES, ids=[c[0] for c in CASES])
def test_trajectory_matches_formulas(name, make, ref):
    got, opt, p = run_opt(make, P0)
    for step, (a, b) in enumerate(zip(got, ref)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, err_msg=f"step {step + 1}")
    assert p._version == STEPS


def test_in_place_no_new_arrays_and_state_round_trip():
    p = nn.Parameter(tl.tensor(P0.copy()))
    opt = optim.Adam([p], lr=0.1)
    data_id = id(p.detach().numpy())
    for _ in range(2):
        opt.zero_grad()
        (p * p).sum().backward()
        opt.step()
    assert id(p.detach().numpy()) == data_id
    scratch = {k: id(v) for k, v in opt._scratch.items()}
    opt.zero_grad()
    (p * p).sum().backward()
    opt.step()
    assert {k: id(v) for k, v in opt._scratch.items()} == scratch  # reused, not reallocated
    sd = opt.state_dict()
    assert sd["state"][0]["step"] == 3 and sd["param_groups"][0]["params"] == [0]
    q = nn.Parameter(tl.tensor(p.detach().numpy().copy()))
    opt2 = optim.Adam([q], lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.1
    for o, t in ((opt, p), (opt2, q)):
        o.zero_grad()
        (t * t).sum().backward()
        o.step()
    np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_param_groups_and_errors():
    a, b = nn.Parameter(tl.ones(2)), nn.Parameter(tl.ones(2))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 1.0}], lr=0.1, momentum=0.0)
    a.grad, b.grad = tl.ones(2), tl.ones(2)
    opt.step()
    np.testing.assert_allclose(a.detach().numpy(), 0.9)
    np.testing.assert_allclose(b.detach().numpy(), 0.0)
    c = nn.Parameter(tl.ones(1))
    opt.add_param_group({"params": c, "lr": 0.5})
    assert opt.param_groups[2]["momentum"] == 0.0
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.Adam([c], lr=-1)
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(a.grad.detach().numpy(), 0)


def test_step_closure():
    p = nn.Parameter(tl.tensor([1.0]))
    opt = optim.SGD([p], lr=0.5)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == 1.0 and p.detach().numpy()[0] == 0.0
