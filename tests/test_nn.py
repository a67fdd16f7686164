"""nn.Module, containers, hooks, layers, losses and init."""

import math

import numpy as np
import pytest
from helpers import check_grads

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812
from tinygrad_lite import nn

rng = np.random.default_rng(0)


def r(*shape):
    return rng.standard_normal(shape)


# -- Module ----------------------------------------------------------------------------------


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
        self.scale = nn.Parameter(tl.ones(2))
        self.register_buffer("count", tl.zeros(1))
        self.register_buffer("tmp", tl.zeros(1), persistent=False)

    def forward(self, x):
        return self.body(x) * self.scale


def test_registration_and_names():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == [
        "scale", "body.0.weight", "body.0.bias", "body.2.weight", "body.2.bias"]
    assert [n for n, _ in net.named_buffers()] == ["count", "tmp"]
    assert list(net.state_dict()) == ["scale", "count", "body.0.weight", "body.0.bias",
                                      "body.2.weight", "body.2.bias"]  # PyTorch's order
    assert [n for n, _ in net.named_modules()] == ["", "body", "body.0", "body.1", "body.2"]
    assert [n for n, _ in net.named_children()] == ["body"]
    assert len(list(net.parameters())) == 5
    with pytest.raises(TypeError, match="cannot assign 'torch.FloatTensor' as parameter 'scale'"):
        net.scale = tl.ones(2)
    assert net.get_parameter("body.2.bias") is net.body[2].bias


def test_train_eval_zero_grad_requires_grad_apply_to():
    net = Net()
    net.eval()
    assert not net.training and not net.body[1].training
    net.train()
    assert net.body[0].training
    net(tl.randn(2, 3)).sum().backward()
    assert net.body[0].weight.grad is not None
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "ReLU", "Linear", "Sequential", "Net"]
    w = net.body[0].weight
    net.double()
    assert net.body[0].weight is w and w.dtype == tl.float64 and net.count.dtype == tl.float64
    net.to(tl.float32)
    assert w.dtype == tl.float32


def test_repr_tree():
    m = nn.Sequential(nn.Linear(2, 3), nn.ReLU(inplace=True), nn.Sequential(nn.Dropout(0.1)))
    assert repr(m) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (1): ReLU(inplace=True)\n"
        "  (2): Sequential(\n"
        "    (0): Dropout(p=0.1, inplace=False)\n"
        "  )\n"
        ")")


def test_load_state_dict_strict_and_atomic():
    a, b = Net(), Net()
    b.load_state_dict(a.state_dict())
    np.testing.assert_array_equal(
        b.body[0].weight.detach().numpy(), a.body[0].weight.detach().numpy()
    )
    bad = dict(a.state_dict())
    del bad["scale"]
    bad["extra"] = tl.zeros(1)
    bad["body.0.weight"] = tl.zeros(5, 5)
    before = b.body[2].weight.detach().numpy().copy()
    bad["body.2.weight"] = tl.zeros(2, 4)
    with pytest.raises(RuntimeError) as info:
        b.load_state_dict(bad)
    msg = str(info.value)
    assert 'Missing key(s) in state_dict: "scale"' in msg
    assert 'Unexpected key(s) in state_dict: "extra"' in msg
    assert ("size mismatch for body.0.weight: copying a param with shape "
            f"{tl.Size([5, 5])!r}") in msg
    np.testing.assert_array_equal(b.body[2].weight.detach().numpy(), before)  # nothing half-loaded
    del bad["body.0.weight"]
    result = b.load_state_dict(bad, strict=False)
    assert result.missing_keys == ["scale", "body.0.weight"]
    assert result.unexpected_keys == ["extra"]
    np.testing.assert_array_equal(b.body[2].weight.detach().numpy(), 0)


def test_containers():
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear)
    sub = seq[:2]
    assert isinstance(sub, nn.Sequential) and len(sub) == 2 and sub[0] is seq[0]
    seq.append(nn.Sigmoid())
    assert [n for n, _ in seq.named_children()][-1] == "3"
    ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
    assert [n for n, _ in ml.named_parameters()][:2] == ["0.weight", "0.bias"]
    md = nn.ModuleDict({"a": nn.Linear(1, 2)})
    assert "a" in md and list(md.state_dict()) == ["a.weight", "a.bias"]
    pl = nn.ParameterList([tl.ones(2), tl.zeros(3)])
    assert len(pl) == 2 and isinstance(pl[1], nn.Parameter)
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"]


# -- hooks -----------------------------------------------------------------------------------


def test_forward_hooks_order_and_replacement():
    lin = nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: (calls.append("pre"), (args[0] * 2,))[1])
    h2 = lin.register_forward_hook(lambda m, args, out: (calls.append("post"), out * 0)[1])
    hg = nn.modules.module.register_module_forward_pre_hook(lambda m, a: calls.append("global"))
    h3 = lin.register_forward_pre_hook(lambda m, args, kwargs: calls.append("kw"), with_kwargs=True)
    x = tl.ones(1, 2)
    out = lin(x)
    assert calls == ["global", "pre", "kw", "post"]
    np.testing.assert_array_equal(out.detach().numpy(), 0)
    for h in (h1, h2, hg, h3):
        h.remove()
    np.testing.assert_allclose(
        lin(x).detach().numpy(), F.linear(x, lin.weight, lin.bias).detach().numpy()
    )


@pytest.mark.parametrize("inplace", [False, True])
def test_full_backward_hook_true_grads_with_inplace_relu(inplace):
    tl.manual_seed(1)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(inplace=inplace), nn.Linear(4, 2))
    seen = {}

    def hook(m, grad_input, grad_output):
        seen["gi"], seen["go"] = (
            grad_input[0].detach().numpy().copy(),
            grad_output[0].detach().numpy().copy(),
        )

    def pre_hook(m, grad_output):
        seen["pre"] = grad_output[0].detach().numpy().copy()

    model.register_full_backward_hook(hook)
    model.register_full_backward_pre_hook(pre_hook)
    a = tl.randn(5, 3, requires_grad=True)
    x = a * 1.0  # a non-leaf input, as in PyTorch's failure case
    x.retain_grad()
    out = model(x)
    up = tl.randn(5, 2)
    (out * up).sum().backward()
    np.testing.assert_allclose(seen["go"], up.detach().numpy())
    np.testing.assert_allclose(seen["pre"], up.detach().numpy())
    np.testing.assert_allclose(seen["gi"], a.grad.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(seen["gi"], x.grad.detach().numpy(), rtol=1e-6)


def test_backward_hook_replaces_grad_input_and_order():
    lin = nn.Linear(2, 2)
    order = []
    lin.register_full_backward_pre_hook(lambda m, go: order.append("pre"))
    lin.register_full_backward_hook(lambda m, gi, go: (order.append("hook"), (gi[0] * 0 + 7,))[1])
    x = tl.randn(3, 2, requires_grad=True)
    lin(x).sum().backward()
    assert order == ["pre", "hook"]
    np.testing.assert_array_equal(x.grad.detach().numpy(), 7)
    # parameters still get their own (unchanged) gradient
    np.testing.assert_allclose(
        lin.weight.grad.detach().numpy(), np.ones((2, 3)) @ x.detach().numpy(), rtol=1e-6
    )


def test_backward_hook_without_input_grad():
    lin = nn.Linear(2, 1)
    got = []
    lin.register_full_backward_hook(lambda m, gi, go: got.append((gi, go[0].shape)))
    lin(tl.randn(4, 2)).sum().backward()
    assert got == [((None,), (4, 1))]


# -- layers: forward values and gradients ----------------------------------------------------


def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


LAYER_CASES = [
    ("linear", lambda x, w, b: F.linear(x, w, b), [(4, 3), (2, 3), (2,)]),
    ("bilinear", lambda x1, x2, w, b: F.bilinear(x1, x2, w, b), [(3, 2), (3, 4), (5, 2, 4), (5,)]),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.2), [(3, 4)]),
    ("gelu", lambda x: F.gelu(x), [(3, 4)]),
    ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), [(3, 4)]),
    ("silu", F.silu, [(3, 4)]),
    ("elu", lambda x: F.elu(x, 0.7), [(3, 4)]),
    ("softplus", lambda x: F.softplus(x * 10, beta=0.5, threshold=5), [(3, 4)]),
    ("layer_norm", lambda x, w, b: F.layer_norm(x, (4,), w, b), [(3, 4), (4,), (4,)]),
    ("group_norm", lambda x, w, b: F.group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)]),
    ("rms_norm", lambda x, w: F.rms_norm(x, (4,), w), [(3, 4), (4,)]),
    (
        "batch_norm",
        lambda x, w, b: F.batch_norm(x, None, None, w, b, True),
        [(5, 3, 2), (3,), (3,)],
    ),
    ("embedding", lambda w: F.embedding(tl.tensor([[0, 2], [2, 3]]), w), [(4, 3)]),
    (
        "sdpa",
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        [(2, 3, 4), (2, 3, 4), (2, 3, 5)],
    ),
    ("normalize", lambda x: F.normalize(x, dim=1), [(3, 4)]),
]


@pytest.mark.parametrize("name,fn,shapes", LAYER_CASES, ids=[c[0] for c in LAYER_CASES])
def test_layer_gradcheck(name, fn, shapes):
    check_grads(fn, *[r(*s) for s in shapes])


def test_activation_values():
    x = r(3, 5)
    t = tl.tensor(x)
    erf = np.vectorize(math.erf)
    np.testing.assert_allclose(nn.GELU()(t).detach().numpy(), 0.5 * x * (1 + erf(x / math.sqrt(2))))
    np.testing.assert_allclose(
        nn.GELU("tanh")(t).detach().numpy(),
        0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    )
    np.testing.assert_allclose(nn.ELU()(t).detach().numpy(), np.where(x > 0, x, np.exp(x) - 1))
    np.testing.assert_allclose(nn.Softplus()(t).detach().numpy(), np.log1p(np.exp(x)))
    np.testing.assert_allclose(nn.LeakyReLU(0.1)(t).detach().numpy(), np.where(x > 0, x, 0.1 * x))
    np.testing.assert_allclose(nn.SiLU()(t).detach().numpy(), x / (1 + np.exp(-x)))
    np.testing.assert_allclose(nn.Softmax(dim=1)(t).detach().numpy(), np_softmax(x, 1))
    np.testing.assert_allclose(nn.LogSoftmax(dim=1)(t).detach().numpy(), np.log(np_softmax(x, 1)))
    assert nn.Flatten()(tl.zeros(2, 3, 4)).shape == (2, 12)
    assert nn.Unflatten(1, (3, 4))(tl.zeros(2, 12)).shape == (2, 3, 4)


def test_embedding_padding_idx_gets_no_grad():
    emb = nn.Embedding(5, 3, padding_idx=0)
    np.testing.assert_array_equal(emb.weight.detach().numpy()[0], 0)
    idx = tl.tensor([[0, 1], [1, 4]])
    out = emb(idx)
    np.testing.assert_array_equal(
        out.detach().numpy(), emb.weight.detach().numpy()[idx.detach().numpy()]
    )
    out.sum().backward()
    np.testing.assert_array_equal(emb.weight.grad.detach().numpy()[:, 0], [0, 2, 0, 0, 1])


def test_dropout_train_eval():
    tl.manual_seed(3)
    d = nn.Dropout(0.5)
    x = tl.ones(1000)
    y = d(x)
    vals = set(np.unique(y.detach().numpy()).tolist())
    assert vals == {0.0, 2.0} and 400 < (y.detach().numpy() == 0).sum() < 600
    d.eval()
    assert d(x) is x


def test_batchnorm_running_stats_and_eval():
    bn = nn.BatchNorm1d(3, momentum=0.1)
    x = r(8, 3) * 2 + 1
    out = bn(tl.tensor(x, dtype=tl.float32))
    mean, var = x.mean(0), x.var(0)
    np.testing.assert_allclose(
        out.detach().numpy(), (x - mean) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-5
    )
    np.testing.assert_allclose(bn.running_mean.detach().numpy(), 0.1 * mean, rtol=1e-5)
    np.testing.assert_allclose(
        bn.running_var.detach().numpy(), 0.9 + 0.1 * x.var(0, ddof=1), rtol=1e-5
    )
    assert int(bn.num_batches_tracked.item()) == 1
    bn.eval()
    y = r(4, 3)
    np.testing.assert_allclose(
        bn(tl.tensor(y, dtype=tl.float32)).detach().numpy(),
        (y - bn.running_mean.detach().numpy()) / np.sqrt(bn.running_var.detach().numpy() + 1e-5),
        rtol=1e-4,
        atol=1e-5,
    )
    cumulative = nn.BatchNorm2d(2, momentum=None)
    a, b = r(2, 2, 3, 3), r(2, 2, 3, 3)
    cumulative(tl.tensor(a))
    cumulative(tl.tensor(b))
    np.testing.assert_allclose(
        cumulative.running_mean.detach().numpy(),
        (a.mean((0, 2, 3)) + b.mean((0, 2, 3))) / 2,
        rtol=1e-5,
    )
    no_track = nn.BatchNorm1d(3, track_running_stats=False).eval()
    assert no_track.running_mean is None
    np.testing.assert_allclose(
        no_track(tl.tensor(x)).detach().numpy(), (x - mean) / np.sqrt(var + 1e-5), rtol=1e-5
    )


def test_multihead_attention_matches_numpy():
    tl.manual_seed(0)
    e, h, L, n = 8, 2, 3, 2
    mha = nn.MultiheadAttention(e, h, batch_first=True).double()
    x = r(n, L, e)
    mask = np.triu(np.ones((L, L), bool), 1)  # True = not allowed
    out, w = mha(tl.tensor(x), tl.tensor(x), tl.tensor(x), attn_mask=tl.tensor(mask))
    W, B = mha.in_proj_weight.detach().numpy(), mha.in_proj_bias.detach().numpy()
    q, k, v = (x @ W[i * e : (i + 1) * e].T + B[i * e : (i + 1) * e] for i in range(3))
    split = lambda t: t.reshape(n, L, h, e // h).transpose(0, 2, 1, 3)  # noqa: E731
    s = split(q) @ split(k).transpose(0, 1, 3, 2) / math.sqrt(e // h)
    s = np.where(mask, -np.inf, s)
    p = np_softmax(s, -1)
    o = (p @ split(v)).transpose(0, 2, 1, 3).reshape(n, L, e)
    ref = o @ mha.out_proj.weight.detach().numpy().T + mha.out_proj.bias.detach().numpy()
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-10)
    np.testing.assert_allclose(w.detach().numpy(), p.mean(1), rtol=1e-10)
    assert list(mha.state_dict()) == [
        "in_proj_weight",
        "in_proj_bias",
        "out_proj.weight",
        "out_proj.bias",
    ]
    seq_first = nn.MultiheadAttention(e, h).double()
    seq_first.load_state_dict(mha.state_dict())
    out2, _ = seq_first(*(tl.tensor(x.transpose(1, 0, 2)),) * 3, attn_mask=tl.tensor(mask))
    np.testing.assert_allclose(out2.detach().numpy().transpose(1, 0, 2), ref, rtol=1e-10)


# -- losses ----------------------------------------------------------------------------------


def test_cross_entropy_class_indices_full():
    x = r(6, 4)
    t = np.array([0, 3, 1, -100, 2, 3])
    w = np.array([1.0, 2.0, 0.5, 1.5])
    logp = np.log(np_softmax(x, 1))
    valid = t != -100
    ts = np.where(valid, t, 0)
    nll = -logp[np.arange(6), ts] * w[ts] * valid
    ref_mean = nll.sum() / (w[ts] * valid).sum()
    got = F.cross_entropy(tl.tensor(x), tl.tensor(t), weight=tl.tensor(w))
    np.testing.assert_allclose(got.item(), ref_mean)
    none = F.cross_entropy(tl.tensor(x), tl.tensor(t), weight=tl.tensor(w), reduction="none")
    np.testing.assert_allclose(none.detach().numpy(), nll)
    eps = 0.2
    smooth = -(logp * w).sum(1) * valid
    ref = (1 - eps) * ref_mean + eps / 4 * smooth.sum() / (w[ts] * valid).sum()
    got = nn.CrossEntropyLoss(weight=tl.tensor(w), label_smoothing=eps)(tl.tensor(x), tl.tensor(t))
    np.testing.assert_allclose(got.item(), ref)
    smooth_nw = -logp.sum(1) * valid
    nll_nw = -logp[np.arange(6), ts] * valid
    ref = (1 - eps) * nll_nw.sum() / valid.sum() + eps / 4 * smooth_nw.sum() / valid.sum()
    np.testing.assert_allclose(
        F.cross_entropy(tl.tensor(x), tl.tensor(t), label_smoothing=eps).item(), ref
    )
    check_grads(
        lambda a: F.cross_entropy(a, tl.tensor(t), weight=tl.tensor(w), label_smoothing=0.1), x
    )


def test_cross_entropy_probabilities_and_spatial():
    x, p = r(3, 4, 2), np_softmax(r(3, 4, 2), 1)
    logp = np.log(np_softmax(x, 1))
    ref = -(p * logp).sum(1).mean()
    np.testing.assert_allclose(F.cross_entropy(tl.tensor(x), tl.tensor(p)).item(), ref)
    t = np.array([[0, 1], [2, 3], [1, 1]])
    ref = -np.take_along_axis(logp, t[:, None], 1).mean()
    np.testing.assert_allclose(F.cross_entropy(tl.tensor(x), tl.tensor(t)).item(), ref)
    check_grads(lambda a, b: F.cross_entropy(a, b.softmax(1), label_smoothing=0.3), x, r(3, 4, 2))
    with pytest.raises(ValueError, match="expected target of shape"):
        F.cross_entropy(tl.tensor(x), tl.tensor([0, 1]))


def test_regression_and_binary_losses():
    a, b = r(4, 3), r(4, 3)
    d = a - b
    ta, tb = tl.tensor(a), tl.tensor(b)
    np.testing.assert_allclose(nn.MSELoss()(ta, tb).item(), (d**2).mean())
    np.testing.assert_allclose(nn.L1Loss(reduction="sum")(ta, tb).item(), np.abs(d).sum())
    hub = np.where(np.abs(d) < 0.5, 0.5 * d**2, 0.5 * (np.abs(d) - 0.25))
    np.testing.assert_allclose(nn.HuberLoss(delta=0.5)(ta, tb).item(), hub.mean())
    sl1 = np.where(np.abs(d) < 0.5, 0.5 * d**2 / 0.5, np.abs(d) - 0.25)
    np.testing.assert_allclose(nn.SmoothL1Loss(beta=0.5)(ta, tb).item(), sl1.mean())
    p, y = 1 / (1 + np.exp(-a)), (b > 0).astype(float)
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    np.testing.assert_allclose(nn.BCELoss()(tl.tensor(p), tl.tensor(y)).item(), bce.mean())
    pw = np.array([1.0, 2.0, 3.0])
    bcel = -(pw * y * np.log(p) + (1 - y) * np.log(1 - p))
    np.testing.assert_allclose(
        nn.BCEWithLogitsLoss(pos_weight=tl.tensor(pw))(ta, tl.tensor(y)).item(), bcel.mean()
    )
    logq, pt = np.log(np_softmax(a, 1)), np_softmax(b, 1)
    np.testing.assert_allclose(
        nn.KLDivLoss(reduction="batchmean")(tl.tensor(logq), tl.tensor(pt)).item(),
        (pt * (np.log(pt) - logq)).sum() / 4,
    )
    for fn in (
        F.mse_loss,
        F.l1_loss,
        F.huber_loss,
        F.smooth_l1_loss,
        lambda x, t: F.binary_cross_entropy(x.sigmoid(), t.sigmoid()),
        lambda x, t: F.binary_cross_entropy_with_logits(x, t.sigmoid(), pos_weight=tl.tensor(pw)),
        lambda x, t: F.kl_div(x.log_softmax(1), t.softmax(1), reduction="batchmean"),
        lambda x, t: F.nll_loss(x.log_softmax(1), tl.tensor([0, 1, 2, 1])),
    ):
        check_grads(fn, a, b)
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.mse_loss(ta, tb, reduction="avg")


# -- init and utils --------------------------------------------------------------------------


def test_init_distributions():
    tl.manual_seed(0)
    w = tl.empty(400, 300)
    nn.init.kaiming_uniform_(w, nonlinearity="relu")
    bound = math.sqrt(2) * math.sqrt(3 / 300)
    assert abs(w.detach().numpy()).max() <= bound and abs(w.detach().numpy()).max() > 0.99 * bound
    nn.init.xavier_normal_(w)
    assert abs(w.detach().numpy().std() - math.sqrt(2 / 700)) < 0.003
    nn.init.kaiming_normal_(w, mode="fan_out")
    assert abs(w.detach().numpy().std() - math.sqrt(2 / 400)) < 0.003
    q = tl.empty(3, 5)
    nn.init.orthogonal_(q)
    np.testing.assert_allclose(q.detach().numpy() @ q.detach().numpy().T, np.eye(3), atol=1e-6)
    assert nn.init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2 / 1.04)
    lin = nn.Linear(50, 10)
    assert abs(lin.weight.detach().numpy()).max() <= 1 / math.sqrt(50)
    conv = nn.Conv2d(4, 2, 3)
    assert abs(conv.weight.detach().numpy()).max() <= 1 / math.sqrt(36)
    assert abs(nn.Embedding(1000, 20).weight.detach().numpy().std() - 1) < 0.05


def test_clip_grad_and_vectors():
    a, b = nn.Parameter(tl.zeros(3)), nn.Parameter(tl.zeros(4))
    a.grad, b.grad = tl.full((3,), 3.0), tl.full((4,), 4.0)
    total = nn.utils.clip_grad_norm_([a, b], 1.0)
    np.testing.assert_allclose(total.item(), math.sqrt(27 + 64), rtol=1e-6)
    np.testing.assert_allclose(
        np.sqrt((a.grad.detach().numpy() ** 2).sum() + (b.grad.detach().numpy() ** 2).sum()),
        1.0,
        rtol=1e-5,
    )
    b.grad = tl.tensor([float("inf"), 0, 0, 0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_([a, b], 1.0, error_if_nonfinite=True)
    b.grad = tl.tensor([-5.0, 0.1, 2, 0])
    nn.utils.clip_grad_value_([b], 1.0)
    np.testing.assert_allclose(b.grad.detach().numpy(), [-1, 0.1, 1, 0], rtol=1e-6)
    vec = nn.utils.parameters_to_vector([a, b])
    assert vec.shape == (7,)
    nn.utils.vector_to_parameters(tl.arange(7).float(), [a, b])
    np.testing.assert_array_equal(b.detach().numpy(), [3, 4, 5, 6])
