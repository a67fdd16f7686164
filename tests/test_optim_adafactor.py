"""Adafactor against PyTorch: trajectories (factored and full second moments, weight decay,
maximize, eps1 None or set, 3-D parameters), defaults, state and state dicts, argument errors."""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

W0 = [np.random.default_rng(0).standard_normal((3, 4)),
      np.random.default_rng(1).standard_normal(4),
      np.random.default_rng(2).standard_normal((2, 3, 2)),
      np.array(0.7)]


def _loss(ps):
    return ((ps[0] @ ps[1]) ** 2).sum() + (ps[0].sin() * 3).sum() + (ps[2] ** 3).sum() + \
        (ps[3] * ps[1]).sum() ** 2


ADAFACTOR = [{}, {"lr": 0.05, "weight_decay": 0.1}, {"maximize": True, "d": 2.0},
             {"eps": (1e-30, 1e-2), "beta2_decay": -0.5}, {"foreach": True}]


@pytest.mark.parametrize("kwargs", ADAFACTOR, ids=[str(k) for k in ADAFACTOR])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_adafactor_trajectory_matches_pytorch(kwargs, dtype):
    tp = [torch.tensor(w, dtype=getattr(torch, dtype), requires_grad=True) for w in W0]
    op = [tl.tensor(w, dtype=getattr(tl, dtype), requires_grad=True) for w in W0]
    groups = lambda ps: [{"params": ps[:2]}, {"params": ps[2:], "lr": 0.03}]  # noqa: E731
    t_opt = torch.optim.Adafactor(groups(tp), **kwargs)
    o_opt = tl.optim.Adafactor(groups(op), **kwargs)
    for _ in range(15):
        for ps, opt in ((tp, t_opt), (op, o_opt)):
            opt.zero_grad()
            _loss(ps).backward()
            opt.step()
    tol = 1e-10 if dtype == "float64" else 2e-5
    for a, b in zip(tp, op):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=tol, atol=tol)
    # the factored statistics of the matrix, the full one of the vector, PyTorch's shapes
    t_state, o_state = t_opt.state[tp[0]], o_opt.state[op[0]]
    assert set(o_state) == set(t_state) == {"step", "row_var", "col_var"}
    assert tuple(o_state["row_var"].shape) == (3, 1) and tuple(o_state["col_var"].shape) == (1, 4)
    assert tuple(o_opt.state[op[2]]["col_var"].shape) == (2, 1, 2)
    assert set(o_opt.state[op[1]]) == {"step", "variance"}
    np.testing.assert_allclose(o_state["row_var"].numpy(), t_state["row_var"].numpy(),
                               rtol=1e-4)
    assert o_state["step"].item() == t_state["step"].item() == 15.0


def test_adafactor_defaults_state_dict_and_errors():
    p = tl.zeros(2, 2, requires_grad=True)
    opt = tl.optim.Adafactor([p])
    tp = torch.zeros(2, 2, requires_grad=True)
    assert opt.defaults == torch.optim.Adafactor([tp]).defaults
    p.grad = tl.ones(2, 2)
    opt.step()
    sd = opt.state_dict()
    assert set(sd["state"][0]) == {"step", "row_var", "col_var"}
    assert sd["param_groups"][0]["eps"] == (None, 1e-3)
    clone = tl.optim.Adafactor([p])
    clone.load_state_dict(sd)
    np.testing.assert_array_equal(clone.state[p]["col_var"].numpy(),
                                  opt.state[p]["col_var"].numpy())
    for kwargs, message in (({"lr": -1.0}, "Learning rate should be >= 0"),
                            ({"beta2_decay": 0.5}, "beta2_decay should be <= 0"),
                            ({"eps": (-1.0, 1e-3)}, "epsilon1 should be >= 0"),
                            ({"eps": (None, -1.0)}, "epsilon2 should be >= 0"),
                            ({"d": 0.5}, "Clipping threshold d should be >= 1"),
                            ({"weight_decay": -0.1}, "weight_decay should be >= 0")):
        with pytest.raises(ValueError, match=message):
            tl.optim.Adafactor([p], **kwargs)
        with pytest.raises(ValueError, match=message):
            torch.optim.Adafactor([tp], **kwargs)
