"""LBFGS with line_search_fn="strong_wolfe": the cubic interpolation and the line search by
their defining properties, and whole trajectories against PyTorch's (float64)."""

from __future__ import annotations

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.optim._line_search import cubic_interpolate, strong_wolfe


def rosenbrock(lib, xy):
    """The 2-D Rosenbrock function of a length-2 tensor."""
    return (1 - xy[0]) ** 2 + 100 * (xy[1] - xy[0] ** 2) ** 2


def run_lbfgs(lib, loss_fn, params0, steps, **kw):
    """Parameters after each ``step`` of LBFGS on ``loss_fn`` (a list of float64 arrays), and
    the losses the steps returned."""
    params = [lib.tensor(p.copy(), dtype=lib.float64, requires_grad=True) for p in params0]
    opt = lib.optim.LBFGS(params, **kw)

    def closure():
        opt.zero_grad()
        loss = loss_fn(lib, *params)
        loss.backward()
        return loss

    traj, losses = [], []
    for _ in range(steps):
        losses.append(float(opt.step(closure).detach()))
        traj.append(np.concatenate([p.detach().numpy().ravel() for p in params]))
    return np.array(traj), np.array(losses), opt


def least_squares(lib, w, b):
    """0.5 * ||A w + b - y||^2 + a small ridge term on fixed data."""
    rng = np.random.default_rng(3)
    a = lib.tensor(rng.standard_normal((12, 4)), dtype=lib.float64)
    y = lib.tensor(rng.standard_normal(12), dtype=lib.float64)
    r = a @ w + b - y
    return 0.5 * (r * r).sum() + 0.01 * (w * w).sum()


def test_cubic_interpolate_recovers_a_cubic_minimiser():
    # f(x) = x^3 - 3x has its local minimum at x = 1; two points with slopes pin the cubic
    f = lambda x: x ** 3 - 3 * x  # noqa: E731
    g = lambda x: 3 * x ** 2 - 3  # noqa: E731
    assert cubic_interpolate(0.0, f(0.0), g(0.0), 2.0, f(2.0), g(2.0)) == pytest.approx(1.0)
    assert cubic_interpolate(2.0, f(2.0), g(2.0), 0.0, f(0.0), g(0.0)) == pytest.approx(1.0)
    # clamped to the bounds, and the midpoint when there is no real minimiser
    assert cubic_interpolate(0.0, f(0.0), g(0.0), 2.0, f(2.0), g(2.0), (1.5, 3.0)) == 1.5
    # slopes 1 at both ends with f(0) = 0, f(1) = 2/3: the cubic has no real minimiser
    assert cubic_interpolate(0.0, 0.0, 1.0, 1.0, 2 / 3, 1.0) == pytest.approx(0.5)


def test_strong_wolfe_step_satisfies_both_conditions():
    # a 1-D quadratic along d with minimum at t = 3: f(t) = (t - 3)^2
    d = np.array([1.0])

    def obj(t):
        return (t - 3.0) ** 2, np.array([2 * (t - 3.0)])

    f0, g0 = obj(0.0)
    gtd = float(g0 @ d)
    f, g, t, evals = strong_wolfe(obj, 1.0, d, f0, g0, gtd)
    assert f <= f0 + 1e-4 * t * gtd
    assert abs(float(g @ d)) <= 0.9 * abs(gtd)
    assert f == pytest.approx((t - 3.0) ** 2) and evals >= 1


def test_rosenbrock_reaches_minimum():
    traj, losses, opt = run_lbfgs(tl, rosenbrock, [np.array([-1.5, 2.0])], 5,
                                  line_search_fn="strong_wolfe", max_iter=20)
    np.testing.assert_allclose(traj[-1], [1.0, 1.0], atol=1e-4)
    state = opt.state[opt.param_groups[0]["params"][0]]
    assert state["func_evals"] > state["n_iter"] >= 20
    assert isinstance(state["d"], tl.Tensor) and isinstance(state["old_dirs"][0], tl.Tensor)


def test_unknown_line_search_raises():
    p = tl.zeros(2, requires_grad=True)
    opt = tl.optim.LBFGS([p], line_search_fn="backtracking")
    with pytest.raises(RuntimeError, match="strong_wolfe"):
        opt.step(lambda: (p * p).sum())


@pytest.mark.parametrize("kw", [dict(max_iter=20), dict(max_iter=4, history_size=2),
                                dict(max_iter=10, max_eval=12, lr=0.5)])
def test_rosenbrock_trajectory_matches_torch(kw):
    torch = pytest.importorskip("torch")
    x0 = [np.array([-1.2, 1.0])]
    ours, our_losses, opt = run_lbfgs(tl, rosenbrock, x0, 4, line_search_fn="strong_wolfe", **kw)
    theirs, their_losses, topt = run_lbfgs(torch, rosenbrock, x0, 4,
                                           line_search_fn="strong_wolfe", **kw)
    np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(our_losses, their_losses, rtol=1e-8, atol=1e-10)
    ts = topt.state[topt.param_groups[0]["params"][0]]
    s = opt.state[opt.param_groups[0]["params"][0]]
    assert (s["func_evals"], s["n_iter"]) == (ts["func_evals"], ts["n_iter"])


def test_least_squares_trajectory_matches_torch():
    torch = pytest.importorskip("torch")
    x0 = [np.zeros(4), np.zeros(1)]
    kw = dict(line_search_fn="strong_wolfe", max_iter=3, history_size=3)
    ours, our_losses, opt = run_lbfgs(tl, least_squares, x0, 5, **kw)
    theirs, their_losses, topt = run_lbfgs(torch, least_squares, x0, 5, **kw)
    np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(our_losses, their_losses, rtol=1e-8, atol=1e-10)
    ts = topt.state[topt.param_groups[0]["params"][0]]
    s = opt.state[opt.param_groups[0]["params"][0]]
    assert (s["func_evals"], s["n_iter"]) == (ts["func_evals"], ts["n_iter"])
    np.testing.assert_allclose(s["d"].numpy(), ts["d"].numpy(), rtol=1e-7, atol=1e-10)


def test_state_dict_round_trip_continues_the_trajectory():
    x0 = [np.array([-1.2, 1.0])]
    kw = dict(line_search_fn="strong_wolfe", max_iter=3)
    full, _, _ = run_lbfgs(tl, rosenbrock, x0, 4, **kw)
    part, _, opt = run_lbfgs(tl, rosenbrock, x0, 2, **kw)
    p = tl.tensor(part[-1], dtype=tl.float64, requires_grad=True)
    opt2 = tl.optim.LBFGS([p], **kw)
    opt2.load_state_dict(opt.state_dict())

    def closure():
        opt2.zero_grad()
        loss = rosenbrock(tl, p)
        loss.backward()
        return loss

    for _ in range(2):
        opt2.step(closure)
    np.testing.assert_allclose(p.detach().numpy(), full[-1], rtol=1e-12, atol=1e-12)
