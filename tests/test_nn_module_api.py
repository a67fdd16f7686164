"""Module API: forward hooks with always_call, the state-dict and load-state-dict hooks, extra
state and ``_load_from_state_dict`` overrides, get/set_submodule, get_parameter/get_buffer,
the deprecated backward hook; nn.utils.parametrize, parametrizations.weight_norm /
spectral_norm and the older hook-based weight_norm / spectral_norm (against PyTorch); the added
initialisers (dirac_, sparse_, deprecated aliases)."""

import warnings
from collections import OrderedDict

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite import nn

rng = np.random.default_rng(2)


class Boom(nn.Module):
    def forward(self, x):
        raise ValueError("boom")


def test_forward_hook_always_call_runs_when_forward_raises():
    seen = []
    m = Boom()
    m.register_forward_hook(lambda mod, args, out: seen.append(("always", out)), always_call=True)
    m.register_forward_hook(lambda mod, args, out: seen.append(("plain", out)))
    with pytest.raises(ValueError, match="boom"):
        m(tl.ones(2))
    assert seen == [("always", None)]
    lin = nn.Linear(2, 2)
    lin.register_forward_hook(lambda mod, args, out: seen.append("ok"), always_call=True)
    lin(tl.ones(2))
    assert seen[-1] == "ok"
    # ... and when a forward pre-hook raises, as PyTorch's
    pre = nn.Linear(2, 2)
    pre.register_forward_pre_hook(lambda mod, args: 1 / 0)
    pre.register_forward_hook(lambda mod, args, out: seen.append("after pre"), always_call=True)
    with pytest.raises(ZeroDivisionError):
        pre(tl.ones(2))
    assert seen[-1] == "after pre"
    # a failing always-call hook is reported as a warning; forward's error wins
    m2 = Boom()
    m2.register_forward_hook(lambda *a: 1 / 0, always_call=True)
    with pytest.warns(UserWarning, match="always_call"), pytest.raises(ValueError):
        m2(tl.ones(1))
    handle = nn.modules.module.register_module_forward_hook(
        lambda mod, args, kwargs, out: seen.append(("global", kwargs)), with_kwargs=True,
        always_call=True)
    try:
        with pytest.raises(ValueError):
            Boom()(tl.ones(1))
    finally:
        handle.remove()
    assert seen[-1] == ("global", {})


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
        self.register_buffer("steps", tl.zeros(1))
        self.register_buffer("cache", tl.zeros(2), persistent=False)


def test_state_dict_hooks_metadata_and_prefix():
    net = Net()
    calls = []
    net.body.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: calls.append(prefix))

    def post(mod, sd, prefix, meta):
        sd[prefix + "note"] = tl.ones(1)
        calls.append(("post", prefix, meta["version"]))
    net.body[0].register_state_dict_post_hook(post)
    sd = net.state_dict(prefix="model.")
    assert list(sd) == ["model.steps", "model.body.0.weight", "model.body.0.bias",
                        "model.body.0.note", "model.body.2.weight", "model.body.2.bias"]
    assert calls == ["model.body.", ("post", "model.body.0.", 1)]
    assert sd._metadata["model.body.0"] == {"version": 1}
    net.body[2].register_state_dict_post_hook(lambda *a: {})
    with pytest.raises(RuntimeError, match="must return None"):
        net.state_dict()


def test_load_hooks_can_rename_keys_and_forgive_missing_ones():
    src, dst = Net(), Net()
    old = {k.replace("body.", "layers."): v for k, v in src.state_dict().items()}

    def rename(mod, sd, prefix, meta, strict, missing, unexpected, errors):
        for key in list(sd):
            if key.startswith(prefix + "layers."):
                sd[key.replace("layers.", "body.", 1)] = sd.pop(key)
    dst.register_load_state_dict_pre_hook(rename)
    result = dst.load_state_dict(old)
    assert result.missing_keys == [] and result.unexpected_keys == []
    np.testing.assert_array_equal(dst.body[0].weight.detach().numpy(),
                                  src.body[0].weight.detach().numpy())
    partial = {k: v for k, v in src.state_dict().items() if k != "steps"}
    with pytest.raises(RuntimeError, match="Missing key"):
        Net().load_state_dict(partial)
    forgiving = Net()
    forgiving.register_load_state_dict_post_hook(lambda mod, keys: keys.missing_keys.clear())
    assert forgiving.load_state_dict(partial).missing_keys == []


def test_load_is_atomic_and_reports_everything():
    net = Net()
    before = net.body[0].weight.detach().numpy().copy()
    bad = OrderedDict((k, tl.zeros(*v.shape)) for k, v in Net().state_dict().items())
    bad["body.2.weight"] = tl.zeros(5, 5)
    bad["extra"] = tl.zeros(1)
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(bad)
    assert "size mismatch for body.2.weight" in str(info.value)
    assert 'Unexpected key(s) in state_dict: "extra"' in str(info.value)
    np.testing.assert_array_equal(net.body[0].weight.detach().numpy(), before)


class Versioned(nn.Module):
    """Extra state and a migrating _load_from_state_dict, as PyTorch layers write them."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(tl.zeros(2))
        self.tag = "fresh"

    def get_extra_state(self):
        return {"tag": self.tag}

    def set_extra_state(self, state):
        self.tag = state["tag"]

    def _load_from_state_dict(self, sd, prefix, meta, strict, missing, unexpected, errors):
        if meta.get("version") is None and prefix + "old_w" in sd:
            sd[prefix + "w"] = sd.pop(prefix + "old_w")
        super()._load_from_state_dict(sd, prefix, meta, strict, missing, unexpected, errors)


def test_extra_state_and_load_from_state_dict_override():
    m = Versioned()
    m.tag = "trained"
    sd = m.state_dict()
    assert list(sd) == ["w", "_extra_state"] and sd["_extra_state"] == {"tag": "trained"}
    other = Versioned()
    other.load_state_dict(sd)
    assert other.tag == "trained"
    legacy = Versioned()
    legacy.load_state_dict({"old_w": tl.ones(2), "_extra_state": {"tag": "old"}})
    np.testing.assert_array_equal(legacy.w.detach().numpy(), [1, 1])
    with pytest.raises(RuntimeError, match="_extra_state"):
        Versioned().load_state_dict({"w": tl.ones(2)})


def test_submodule_parameter_buffer_access():
    net = Net()
    assert net.get_submodule("body.2") is net.body[2]
    assert net.get_submodule("") is net
    assert net.get_parameter("body.0.bias") is net.body[0].bias
    assert net.get_buffer("steps") is net.steps
    with pytest.raises(AttributeError, match="has no attribute `nothing`"):
        net.get_submodule("body.nothing")
    with pytest.raises(AttributeError, match="is not an nn.Module"):
        net.get_submodule("steps")
    with pytest.raises(AttributeError, match="is not a buffer"):
        net.get_buffer("body.0.weight")
    with pytest.raises(AttributeError, match="is not an nn.Parameter"):
        net.get_parameter("steps")
    new = nn.Linear(4, 2)
    net.set_submodule("body.2", new)
    assert net.body[2] is new
    net.set_submodule("head", nn.Identity())
    with pytest.raises(AttributeError):
        net.set_submodule("tail", nn.Identity(), strict=True)
    with pytest.raises(AttributeError):
        net.set_submodule("steps", nn.Identity())
    with pytest.raises(ValueError):
        net.set_submodule("", nn.Identity())
    shared = nn.Linear(2, 2)
    seq = nn.Sequential(shared, shared)
    assert len(list(seq.named_modules())) == 2
    assert [n for n, _ in seq.named_modules(remove_duplicate=False)] == ["", "0", "1"]


def test_deprecated_backward_hook_warns_and_refuses_mixing():
    lin = nn.Linear(2, 2)
    seen = []
    with pytest.warns(FutureWarning):
        lin.register_backward_hook(lambda mod, gin, gout: seen.append(len(gout)))
    lin(tl.ones(1, 2, requires_grad=True)).sum().backward()
    assert seen == [1]
    with pytest.raises(RuntimeError, match="both regular backward hooks and full"):
        lin.register_full_backward_hook(lambda *a: None)
    other = nn.Linear(2, 2)
    other.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        other.register_backward_hook(lambda *a: None)


class Symmetric(nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(0, 1)

    def right_inverse(self, a):
        return a.triu()


def test_parametrize_register_cache_assign_and_remove():
    P = nn.utils.parametrize
    lin = nn.Linear(3, 3)
    raw = lin.weight.detach().numpy().copy()
    P.register_parametrization(lin, "weight", Symmetric())
    assert type(lin).__name__ == "ParametrizedLinear"
    assert P.is_parametrized(lin) and P.is_parametrized(lin, "weight")
    assert not P.is_parametrized(lin, "bias")
    assert P.type_before_parametrizations(lin) is nn.Linear
    w = lin.weight.detach().numpy()
    np.testing.assert_allclose(w, w.T)
    np.testing.assert_allclose(np.triu(w), np.triu(raw))
    assert list(lin.state_dict()) == ["bias", "parametrizations.weight.original"]
    lin(tl.ones(1, 3)).sum().backward()
    assert lin.parametrizations.weight.original.grad is not None
    with P.cached():
        assert lin.weight is lin.weight
    assert lin.weight is not lin.weight
    sym = np.array([[1.0, 2, 3], [2, 4, 5], [3, 5, 6]], np.float32)
    lin.weight = tl.tensor(sym)  # goes through right_inverse
    np.testing.assert_allclose(lin.weight.detach().numpy(), sym)
    P.remove_parametrizations(lin, "weight")
    assert type(lin) is nn.Linear and isinstance(lin.weight, nn.Parameter)
    np.testing.assert_allclose(lin.weight.detach().numpy(), sym)
    assert list(lin.state_dict()) == ["bias", "weight"]  # as PyTorch: re-registered last
    with pytest.raises(ValueError):
        P.remove_parametrizations(lin, "weight")
    with pytest.raises(ValueError):
        P.register_parametrization(lin, "nothing", Symmetric())


def test_parametrize_chains_and_leave_unparametrized():
    P = nn.utils.parametrize

    class Double(nn.Module):
        def forward(self, x):
            return 2 * x

    lin = nn.Linear(2, 2)
    raw = lin.weight.detach().numpy().copy()
    P.register_parametrization(lin, "weight", Double())
    P.register_parametrization(lin, "weight", Double())
    np.testing.assert_allclose(lin.weight.detach().numpy(), 4 * raw, rtol=1e-6)
    P.remove_parametrizations(lin, "weight", leave_parametrized=False)
    np.testing.assert_allclose(lin.weight.detach().numpy(), raw)

    class Bad(nn.Module):
        def forward(self, x):
            return x[0]
    with pytest.raises(ValueError):
        P.register_parametrization(nn.Linear(2, 2), "weight", Bad())


torch = pytest.importorskip("torch")


def _copy_state(ours, theirs):
    ours.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})


def _compare_training(ours, theirs, x, params):
    a = ours(tl.tensor(x))
    b = theirs(torch.tensor(x))
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-9, atol=1e-12)
    (a * a).sum().backward()
    (b * b).sum().backward()
    for name in params:
        np.testing.assert_allclose(ours.get_parameter(name).grad.numpy(),
                                   theirs.get_parameter(name).grad.numpy(), rtol=1e-8,
                                   atol=1e-12, err_msg=name)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_parametrizations_weight_norm_matches_pytorch(dim):
    theirs = torch.nn.utils.parametrizations.weight_norm(torch.nn.Conv1d(3, 4, 2).double(),
                                                         dim=dim)
    ours = nn.utils.parametrizations.weight_norm(nn.Conv1d(3, 4, 2).double(), dim=dim)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _copy_state(ours, theirs)
    _compare_training(ours, theirs, rng.standard_normal((2, 3, 5)),
                      ["parametrizations.weight.original0", "parametrizations.weight.original1",
                       "bias"])


def test_parametrizations_spectral_norm_matches_pytorch():
    theirs = torch.nn.utils.parametrizations.spectral_norm(torch.nn.Linear(5, 4).double(),
                                                           n_power_iterations=2)
    ours = nn.utils.parametrizations.spectral_norm(nn.Linear(5, 4).double(),
                                                   n_power_iterations=2)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _copy_state(ours, theirs)
    x = rng.standard_normal((3, 5))
    _compare_training(ours, theirs, x, ["parametrizations.weight.original", "bias"])
    np.testing.assert_allclose(ours.parametrizations.weight[0]._u.numpy(),
                               theirs.parametrizations.weight[0]._u.numpy(), rtol=1e-10)
    ours.eval()
    theirs.eval()
    np.testing.assert_allclose(ours(tl.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-10)
    sigma = np.linalg.svd(ours.parametrizations.weight.original.detach().numpy(),
                          compute_uv=False)[0]
    fresh = nn.utils.parametrizations.spectral_norm(nn.Linear(6, 6).double())
    w = fresh.parametrizations.weight.original.detach().numpy()
    assert sigma > 0 and np.linalg.svd(fresh.weight.detach().numpy(), compute_uv=False)[0] == \
        pytest.approx(1.0, rel=1e-2) and w.shape == (6, 6)


def test_old_weight_norm_and_spectral_norm_match_pytorch():
    with pytest.warns(FutureWarning):
        ours = nn.utils.weight_norm(nn.Linear(3, 4).double())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.nn.utils.weight_norm(torch.nn.Linear(3, 4).double())
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    _copy_state(ours, theirs)
    _compare_training(ours, theirs, rng.standard_normal((2, 3)), ["weight_g", "weight_v"])
    nn.utils.remove_weight_norm(ours)
    assert sorted(ours.state_dict()) == ["bias", "weight"]
    with pytest.raises(ValueError):
        nn.utils.remove_weight_norm(ours)

    ours = nn.utils.spectral_norm(nn.Linear(3, 4).double())
    theirs = torch.nn.utils.spectral_norm(torch.nn.Linear(3, 4).double())
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    _copy_state(ours, theirs)
    _compare_training(ours, theirs, rng.standard_normal((2, 3)), ["weight_orig", "bias"])
    with pytest.raises(RuntimeError):
        nn.utils.spectral_norm(ours)
    nn.utils.remove_spectral_norm(ours)
    assert sorted(ours.state_dict()) == ["bias", "weight"]


def test_added_initialisers():
    for shape, groups in [((4, 2, 3), 1), ((6, 3, 3, 3), 2), ((4, 4, 1, 3, 3), 2)]:
        a, b = tl.empty(*shape), torch.empty(*shape)
        nn.init.dirac_(a, groups)
        torch.nn.init.dirac_(b, groups)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(ValueError):
        nn.init.dirac_(tl.empty(3, 3))
    w = tl.empty(10, 6)
    nn.init.sparse_(w, 0.3, std=0.5)
    assert ((w.numpy() == 0).sum(0) == 3).all()
    with pytest.raises(ValueError):
        nn.init.sparse_(tl.empty(3), 0.5)
    t = tl.empty(2000)
    nn.init.trunc_normal_(t, mean=1.0, std=2.0, a=-1.0, b=2.0)
    assert t.numpy().min() >= -1.0 and t.numpy().max() <= 2.0
    with pytest.warns(FutureWarning):
        nn.init.uniform(tl.empty(3))
    assert nn.init._calculate_correct_fan(tl.empty(4, 3, 2), "fan_out") == 8


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 3, 3)])
@pytest.mark.parametrize("orth_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("trivial", [True, False])
def test_parametrizations_orthogonal_matches_pytorch(shape, orth_map, trivial):
    init = rng.standard_normal(shape)

    class Theirs(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.tensor(init))

        def forward(self, x):
            return x @ self.weight.transpose(-1, -2)

    class Ours(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(tl.tensor(init))

        def forward(self, x):
            return x @ self.weight.transpose(-1, -2)

    theirs, ours = Theirs(), Ours()
    torch.nn.utils.parametrizations.orthogonal(theirs, orthogonal_map=orth_map,
                                               use_trivialization=trivial)
    nn.utils.parametrizations.orthogonal(ours, orthogonal_map=orth_map,
                                         use_trivialization=trivial)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    if trivial or orth_map == "householder":  # the same starting point (up to random columns)
        np.testing.assert_allclose(ours.parametrizations.weight.original.detach().numpy(),
                                   theirs.parametrizations.weight.original.detach().numpy(),
                                   atol=1e-12)
    step = rng.standard_normal(shape) * 0.3
    if orth_map == "householder":  # its diagonal holds the signs (PyTorch truncates it)
        step = np.tril(step, -1)
    with torch.no_grad():
        theirs.parametrizations.weight.original.add_(torch.tensor(step))
    _copy_state(ours, theirs)
    w = ours.weight.detach().numpy()
    gram = w @ np.swapaxes(w, -1, -2) if shape[-2] < shape[-1] else np.swapaxes(w, -1, -2) @ w
    np.testing.assert_allclose(gram, np.broadcast_to(np.eye(min(shape[-2:])), gram.shape),
                               atol=1e-12)
    _compare_training(ours, theirs, rng.standard_normal((2, shape[-1])),
                      ["parametrizations.weight.original"])


def test_orthogonal_assignment_and_errors():
    lin = nn.utils.parametrizations.orthogonal(nn.Linear(3, 5).double(),
                                               orthogonal_map="householder",
                                               use_trivialization=False)
    q = np.linalg.qr(rng.standard_normal((5, 3)))[0]
    lin.weight = tl.tensor(q)
    np.testing.assert_allclose(lin.weight.detach().numpy(), q, atol=1e-12)
    with pytest.raises(ValueError):
        nn.utils.parametrizations.orthogonal(nn.Linear(3, 3), orthogonal_map="svd")
    with pytest.raises(ValueError):
        nn.utils.parametrizations.orthogonal(nn.Linear(3, 3), name="bias")


def test_functional_call_swaps_parameters_for_one_call():
    lin = nn.Linear(3, 2)
    w, b = tl.ones(2, 3, requires_grad=True), tl.zeros(2)
    out = nn.utils.stateless.functional_call(lin, {"weight": w, "bias": b}, (tl.ones(1, 3),))
    np.testing.assert_allclose(out.detach().numpy(), [[3.0, 3.0]])
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.ones((2, 3)))
    assert isinstance(lin.weight, nn.Parameter) and lin.weight.grad is None  # restored
    with pytest.raises(RuntimeError, match="Missing key"):
        nn.utils.stateless.functional_call(lin, {"weight": w}, tl.ones(1, 3), strict=True)
    tied = nn.Sequential(nn.Linear(2, 2, bias=False), nn.Linear(2, 2, bias=False))
    tied[1].weight = tied[0].weight
    eye = tl.eye(2)
    out = nn.utils.stateless.functional_call(tied, {"0.weight": eye}, tl.ones(1, 2))
    np.testing.assert_allclose(out.detach().numpy(), [[1.0, 1.0]])  # both layers got eye
    original = lin.weight
    with pytest.raises(RuntimeError):  # a wrong input shape: restored even when forward raises
        nn.utils.stateless.functional_call(lin, {"weight": w}, (tl.ones(1, 5),))
    assert lin.weight is original


def test_fusion_clip_helpers_and_skip_init():
    conv, bn = nn.Conv2d(2, 3, 3).eval(), nn.BatchNorm2d(3).eval()
    bn.running_mean.copy_(tl.tensor([0.1, -0.2, 0.3]))
    bn.running_var.copy_(tl.tensor([1.5, 0.5, 2.0]))
    x = tl.randn(1, 2, 5, 5)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    np.testing.assert_allclose(fused(x).detach().numpy(), bn(conv(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    lin, bn1 = nn.Linear(4, 3).eval(), nn.BatchNorm1d(3).eval()
    bn1.running_var.copy_(tl.tensor([2.0, 0.5, 1.0]))
    y = tl.randn(2, 4)
    np.testing.assert_allclose(nn.utils.fuse_linear_bn_eval(lin, bn1)(y).detach().numpy(),
                               bn1(lin(y)).detach().numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(AssertionError):
        nn.utils.fuse_conv_bn_eval(conv.train(), bn)
    p = nn.Parameter(tl.ones(4))
    p.grad = tl.full((4,), 2.0)
    total = nn.utils.get_total_norm([p.grad])
    assert total.item() == pytest.approx(4.0)
    nn.utils.clip_grads_with_norm_([p], 1.0, total)
    np.testing.assert_allclose(p.grad.numpy(), 0.5, rtol=1e-5)
    with pytest.warns(FutureWarning):
        nn.utils.clip_grad_norm([p], 10.0)
    assert isinstance(nn.utils.skip_init(nn.Linear, 3, 2), nn.Linear)
