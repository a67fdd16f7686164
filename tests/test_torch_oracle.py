"""PyTorch as an oracle (optional: skipped when torch is not installed).

Each expression is written once and evaluated with both libraries bound to ``T``; values and
the gradients of every input must agree. Layers, losses and optimizers are compared with
identical weights.
"""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

EXPRESSIONS = [
    ("(a * b + a / (b.abs() + 1)).sum(0)", [(3, 4), (3, 4)]),
    ("T.where(a > 0, a, b) ** 2", [(3, 4), (4,)]),
    ("(a @ b.T).relu().sum(1)", [(3, 4), (5, 4)]),
    ("a.softmax(-1) * b", [(3, 4), (3, 4)]),
    ("a.log_softmax(0)", [(3, 4)]),
    ("a.max(1, keepdim=True).values + a.min(0, keepdim=True).values", [(3, 4)]),
    ("a.amax((0, 1)) + a.max()", [(3, 4)]),
    ("a.var(0) + a.std(1, keepdim=True) + a.var(0, unbiased=False)", [(3, 4)]),
    ("T.logsumexp(a, 1) + a.norm() + a.norm(p=1, dim=0).sum()", [(3, 4)]),
    ("T.cumsum(a, 1) * T.cumprod(b, 0)", [(3, 4), (3, 4)]),
    ("a.prod(1)", [(3, 4)]),
    ("a.tanh() + a.sigmoid() + a.exp() * 0.1 + b.abs().sqrt() + b.abs().log1p()", [(3, 4), (3, 4)]),
    ("a.clamp(-0.5, 0.5) + a.clamp(min=0.1) + T.minimum(a, b) + T.maximum(a, b)", [(3, 4), (3, 4)]),
    ("T.cat([a, b], 0).sum(1) + T.stack([a, b], 2).sum((1, 2)).repeat(2)", [(3, 4), (3, 4)]),
    ("a[1:, ::2] * b[T.tensor([0, 2]), :2]", [(3, 4), (3, 4)]),
    ("a[T.tensor([0, 0, 2])].sum(0)", [(3, 4)]),
    ("a.gather(1, T.tensor([[0, 0], [1, 3], [2, 2]]))", [(3, 4)]),
    ("a.flip(0).roll(1, 1).tril() + a.triu(1)", [(4, 4)]),
    ("T.einsum('ij,jk->ik', a, b) + T.einsum('ij->j', a).sum()", [(3, 4), (4, 5)]),
    ("a.unsqueeze(0).expand(2, 3, 4).permute(2, 0, 1).reshape(4, 6).T", [(3, 4)]),
    ("(a.mT @ b).diagonal()", [(3, 4), (3, 4)]),
    ("T.lerp(a, b, 0.25) + a.masked_fill(b > 0, 2.0)", [(3, 4), (3, 4)]),
    ("T.nn.functional.pad(a, (1, 2), mode='reflect') + 1", [(3, 4)]),
    ("T.atan2(a, b) + a.hypot(b) * T.atan2(b, a[0]) + a.atan2(a.flip(0))", [(3, 4), (4,)]),
]


def _inputs(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.3, 1.7, s) * rng.choice([-1, 1], s) for s in shapes]


@pytest.mark.parametrize("expr,shapes", EXPRESSIONS, ids=[e for e, _ in EXPRESSIONS])
def test_expression_matches_torch(expr, shapes):
    arrays = _inputs(shapes)
    ours = [tl.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out_ours = eval(expr, {"T": tl, "a": ours[0], "b": ours[-1]})
    out_theirs = eval(expr, {"T": torch, "a": theirs[0], "b": theirs[-1]})
    np.testing.assert_allclose(out_ours.detach().numpy(), out_theirs.detach().numpy(), rtol=1e-10)
    upstream = np.random.default_rng(1).standard_normal(out_theirs.shape)
    out_ours.backward(tl.tensor(upstream))
    out_theirs.backward(torch.tensor(upstream))
    for i, (o, t) in enumerate(zip(ours, theirs)):
        if t.grad is None:
            assert o.grad is None or not o.grad.numpy().any()
            continue
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12,
                                   err_msg=f"gradient of input {i}")


def _copy_params(ours, theirs):
    for (name, p), (tname, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert name == tname and tuple(p.shape) == tuple(tp.shape)
        p.detach().numpy()[...] = tp.detach().numpy()


@pytest.mark.parametrize("make", [
    lambda nn: nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3)),
    lambda nn: nn.Sequential(nn.Conv2d(2, 4, 3, stride=2, padding=1), nn.BatchNorm2d(4),
                             nn.GELU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4, 3)),
    lambda nn: nn.Sequential(nn.LayerNorm(6), nn.Linear(6, 3), nn.Tanh()),
], ids=["mlp", "cnn", "layernorm"])
def test_module_forward_and_gradients_match_torch(make):
    torch.manual_seed(0)
    theirs = make(torch.nn).double()
    ours = make(tl.nn).double()
    _copy_params(ours, theirs)
    shape = (4, 6) if isinstance(theirs[0], (torch.nn.Linear, torch.nn.LayerNorm)) else (4, 2, 6, 6)
    x = np.random.default_rng(2).standard_normal(shape)
    y_ours, y_theirs = ours(tl.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(y_ours.detach().numpy(), y_theirs.detach().numpy(), rtol=1e-9,
                               atol=1e-12)
    target = np.array([0, 2, 1, 2])
    tl.nn.functional.cross_entropy(y_ours, tl.tensor(target), label_smoothing=0.1).backward()
    torch.nn.functional.cross_entropy(y_theirs, torch.tensor(target),
                                      label_smoothing=0.1).backward()
    for (name, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-8, atol=1e-12,
                                   err_msg=name)


@pytest.mark.parametrize("name,kwargs", [
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)),
    ("Adagrad", dict(lr=0.1)),
])
def test_optimizer_trajectory_matches_torch(name, kwargs):
    w0 = np.random.default_rng(3).standard_normal((3, 2))
    ours, theirs = tl.tensor(w0, requires_grad=True), torch.tensor(w0, requires_grad=True)
    opt_ours = getattr(tl.optim, name)([ours], **kwargs)
    opt_theirs = getattr(torch.optim, name)([theirs], **kwargs)
    for _ in range(6):
        for w, opt, lib in ((ours, opt_ours, tl), (theirs, opt_theirs, torch)):
            opt.zero_grad()
            ((w ** 3).sum() + (w * lib.tensor(w0)).sum()).backward()
            opt.step()
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_fused_cross_entropy_matches_torch(reduction):
    x0 = np.random.default_rng(4).standard_normal((6, 5)) * 3
    target = np.array([0, 4, 2, 2, 1, 3])
    ours, theirs = tl.tensor(x0, requires_grad=True), torch.tensor(x0, requires_grad=True)
    loss_ours = tl.nn.functional.cross_entropy(ours, tl.tensor(target), reduction=reduction)
    loss_theirs = torch.nn.functional.cross_entropy(theirs, torch.tensor(target),
                                                    reduction=reduction)
    assert loss_ours.grad_fn.name() == "NllLossBackward0"  # the fused node
    np.testing.assert_allclose(loss_ours.item(), loss_theirs.item(), rtol=1e-12)
    loss_ours.backward()
    loss_theirs.backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("weight", [0.3, 0.7, 1.0, "tensor"])
def test_lerp_is_pytorchs_two_sided_formula(weight):
    """lerp uses ``end + (w - 1) * (end - start)`` from w = 0.5 on: float32 values are PyTorch's
    bits, w = 1 gives end exactly, infinities give its NaNs; dtypes must match; the nodes are
    LerpBackward0/1 with PyTorch's gradients."""
    rng = np.random.default_rng(0)
    start = np.concatenate([rng.standard_normal(20) * 10, [1.0, np.inf, -np.inf, np.nan]])
    end = np.concatenate([rng.standard_normal(20) * 10, [np.inf, 1.0, 2.0, 0.0]])
    w = rng.uniform(-1, 2, 24) if weight == "tensor" else weight
    results = []
    for lib in (tl, torch):
        args = [lib.tensor(v.astype(np.float32)) for v in (start, end)]
        wt = lib.tensor(w.astype(np.float32)) if weight == "tensor" else w
        results.append(lib.lerp(*args, wt).numpy())
    np.testing.assert_array_equal(results[0], results[1])
    grads = []
    for lib in (tl, torch):
        a, b = (lib.tensor(v[:20], requires_grad=True) for v in (start, end))
        wt = lib.tensor(w[:20], requires_grad=True) if weight == "tensor" else w
        out = lib.lerp(a, b, wt)
        name = out.grad_fn.name() if lib is tl else type(out.grad_fn).__name__
        out.backward(lib.tensor(np.arange(20.0)))
        grads.append((name, a.grad.numpy(), b.grad.numpy()))
    assert grads[0][0] == grads[1][0]
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12)
    np.testing.assert_allclose(grads[0][2], grads[1][2], rtol=1e-12)
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="expected dtype float for `end`"):
            lib.lerp(lib.ones(2), lib.ones(2, dtype=lib.float64), 0.5)
