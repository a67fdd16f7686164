"""Explain mode: a narrated backward."""

import io

import numpy as np

import tinygrad_lite as tl
from tinygrad_lite._core.observers import active_observers


def _mlp():
    rng = np.random.default_rng(0)
    x = tl.tensor(rng.standard_normal((4, 2)))
    w1 = tl.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    b1 = tl.zeros(3, dtype=tl.float64, requires_grad=True)
    w2 = tl.tensor(rng.standard_normal((3, 1)), requires_grad=True)
    return x, w1, b1, w2


def test_explain_narrates_a_small_mlp_in_execution_order():
    x, w1, b1, w2 = _mlp()
    h = (x @ w1 + b1).relu()
    h.register_hook(lambda g: g * 0.5)
    loss = ((h @ w2) ** 2).sum()
    out = io.StringIO()
    with tl.autograd.explain(file=out):
        loss.backward()
    lines = out.getvalue().splitlines()
    text = out.getvalue()
    assert lines[0].startswith("== backward through ")
    assert lines[1] == "seed: gradient of the output of SumBackward0: shape (), norm 1"
    steps = [line.split()[1] for line in lines if line.startswith("[")]
    assert steps == ["SumBackward0", "PowBackward0", "MmBackward0#1", "ReluBackward0",
                     "AddBackward0", "MmBackward0#2"]
    assert "[1] SumBackward0  (the backward of the op that made loss)" in lines
    assert "[4] ReluBackward0  (the backward of the op that made h)" in lines
    # the gradient arriving at the relu, then halved by the hook
    g_h = 2 * (h.detach().numpy() @ w2.detach().numpy()) @ w2.detach().numpy().T
    norm = np.linalg.norm(g_h)
    assert (f"    hook <lambda> on the gradient of ReluBackward0: fired, replaced the gradient: "
            f"norm {norm:.4g} -> {norm / 2:.4g}") in text
    # where gradients go, with leaves named after the caller's variables
    assert (
        f"    -> input 1: shape (3, 1), norm {np.linalg.norm(w2.grad.numpy()):.4g} -> leaf w2 "
        "(AccumulateGrad)" in lines
    )
    assert "    input 0: needs no gradient" in lines  # x @ w1: x needs none
    acc = [line for line in lines if line.startswith("AccumulateGrad")]
    assert [line.split()[2].rstrip(":") for line in acc] == ["w2", "b1", "w1"]
    assert (
        f"AccumulateGrad leaf w1: received shape (2, 3), norm "
        f"{np.linalg.norm(w1.grad.detach().numpy()):.4g}; .grad was None, now norm "
        f"{np.linalg.norm(w1.grad.detach().numpy()):.4g}"
    ) in lines
    assert lines[-1] == "== done: 6 node(s) run, 3 leaf .grad(s) accumulated =="


def test_explain_shows_summed_gradients_accumulation_and_post_hooks(capsys):
    w = tl.tensor([1.0, 2.0], dtype=tl.float64, requires_grad=True)
    w.grad = tl.tensor([1.0, 1.0], dtype=tl.float64)
    w.register_post_accumulate_grad_hook(lambda t: None)
    u = w * 3.0
    y = (u * u + u).sum()
    with tl.autograd.explain(names={"weight": w}):
        y.backward()
    lines = capsys.readouterr().out.splitlines()
    # u feeds two ops (three edges): its node runs once, on the sum of what arrived
    assert any(
        line.startswith("    grad_output: shape (2,), norm")
        and line.endswith("(sum of 3 incoming gradients)")
        for line in lines
    )
    before, after = np.linalg.norm([1.0, 1.0]), np.linalg.norm(w.grad.detach().numpy())
    i = next(i for i, line in enumerate(lines) if line.startswith("AccumulateGrad leaf weight"))
    assert lines[i].endswith(
        f".grad norm {before:.4g} -> {after:.4g} (added to the existing .grad)"
    )
    assert lines[i + 1] == (
        "leaf weight: hook <lambda>: post-accumulate-grad hook ran (after .grad was updated)"
    )


def test_explain_is_off_outside_the_block():
    out = io.StringIO()
    with tl.autograd.explain(file=out):
        pass
    assert active_observers() == ()
    (tl.ones(2, requires_grad=True) * 2).sum().backward()
    assert out.getvalue() == ""
