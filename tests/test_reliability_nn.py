"""nn.functional at the points training reaches where a composite's gradient is easy to get wrong:
kinks (logit 0, |d| == delta, ...), exact zeros (normalize of a zero vector), probabilities of 0
or 1, fully masked attention rows. Each test states the exact expected values, and compares with
PyTorch where it is installed. No NumPy RuntimeWarning may leak at these points."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.autograd import gradcheck, gradgradcheck
from tinygrad_lite.autograd.functional import hessian

F = tl.nn.functional


def f64(values, requires_grad=True):
    return tl.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


def grad_of(fn, values):
    """The gradient of ``fn(x).sum()`` at ``values`` (float64), with warnings as errors."""
    x = f64(values)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fn(x).sum().backward()
    return x.grad.numpy()


def torch_grad_of(torch, fn, values):
    x = torch.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)
    fn(x).sum().backward()
    return x.grad.numpy()


# -- 1. binary_cross_entropy_with_logits at a logit of exactly 0 ---------------------------------

TARGET = np.array([0.0, 1.0, 0.3, 0.7])
POS_WEIGHT = np.array([2.0, 3.0, 0.5, 1.0])
WEIGHT = np.array([0.5, 1.0, 2.0, 1.5])


def test_bce_with_logits_gradient_at_zero_logit_is_sigmoid_minus_target():
    g = grad_of(lambda x: F.binary_cross_entropy_with_logits(x, tl.tensor(TARGET),
                                                              reduction="none"), np.zeros(4))
    np.testing.assert_array_equal(g, 0.5 - TARGET)  # sigmoid(0) - t, not 1 - t
    g = grad_of(lambda x: F.binary_cross_entropy_with_logits(
        x, tl.tensor(TARGET), weight=tl.tensor(WEIGHT), pos_weight=tl.tensor(POS_WEIGHT),
        reduction="none"), np.zeros(4))
    # d/dx [(1 - t) x + (1 + (pw - 1) t) softplus(-x)] = (1 - t) - (1 + (pw - 1) t) sigmoid(-x)
    np.testing.assert_allclose(g, WEIGHT * ((1 - TARGET) - 0.5 * (1 + (POS_WEIGHT - 1) * TARGET)),
                               rtol=1e-15)


@pytest.mark.parametrize("extra", [{}, {"weight": WEIGHT}, {"pos_weight": POS_WEIGHT},
                                   {"weight": WEIGHT, "pos_weight": POS_WEIGHT}])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_bce_with_logits_matches_torch_at_and_around_zero(extra, reduction):
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    for x0 in (np.zeros(4), np.array([0.0, -0.0, 2.5, -40.0]), np.array([-3.0, 0.0, 50.0, 1e-9])):
        ours = grad_of(lambda x: F.binary_cross_entropy_with_logits(
            x, tl.tensor(TARGET), reduction=reduction,
            **{k: tl.tensor(v) for k, v in extra.items()}), x0)
        theirs = torch_grad_of(torch, lambda x: tf.binary_cross_entropy_with_logits(
            x, torch.tensor(TARGET), reduction=reduction,
            **{k: torch.tensor(v) for k, v in extra.items()}), x0)
        np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-300)
        value = F.binary_cross_entropy_with_logits(
            f64(x0), tl.tensor(TARGET), reduction=reduction,
            **{k: tl.tensor(v) for k, v in extra.items()})
        expected = tf.binary_cross_entropy_with_logits(
            torch.tensor(x0), torch.tensor(TARGET), reduction=reduction,
            **{k: torch.tensor(v) for k, v in extra.items()})
        np.testing.assert_allclose(value.detach().numpy(), expected.numpy(), rtol=1e-13)


DATA_X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.5, -1.5], [2.0, 1.0]], dtype=np.float32)
DATA_Y = np.array([[1.0], [0.0], [1.0], [0.0]], dtype=np.float32)


def test_zero_initialised_logistic_regression_first_step():
    """Every logit of the first step is exactly 0: the step must be -mean((0.5 - y) x)."""
    model = tl.nn.Linear(2, 1)
    with tl.no_grad():
        model.weight.zero_()
        model.bias.zero_()
    opt = tl.optim.SGD(model.parameters(), lr=1.0)
    loss = F.binary_cross_entropy_with_logits(model(tl.tensor(DATA_X)), tl.tensor(DATA_Y))
    opt.zero_grad()
    loss.backward()
    opt.step()
    dz = (0.5 - DATA_Y) / len(DATA_Y)
    np.testing.assert_allclose(model.weight.detach().numpy(), -(dz * DATA_X).sum(0, keepdims=True),
                               rtol=1e-6)
    np.testing.assert_allclose(model.bias.detach().numpy(), -dz.sum(0), atol=1e-7)
    np.testing.assert_allclose(loss.item(), np.log(2.0), rtol=1e-6)
    torch = pytest.importorskip("torch")
    ref = torch.nn.Linear(2, 1)
    with torch.no_grad():
        ref.weight.zero_()
        ref.bias.zero_()
    ref_opt = torch.optim.SGD(ref.parameters(), lr=1.0)
    ref_loss = torch.nn.functional.binary_cross_entropy_with_logits(
        ref(torch.tensor(DATA_X)), torch.tensor(DATA_Y))
    ref_loss.backward()
    ref_opt.step()
    np.testing.assert_array_equal(model.weight.detach().numpy(), ref.weight.detach().numpy())
    np.testing.assert_array_equal(model.bias.detach().numpy(), ref.bias.detach().numpy())


@pytest.mark.parametrize("extra", [{}, {"weight": WEIGHT, "pos_weight": POS_WEIGHT}])
def test_bce_with_logits_second_derivative(extra):
    t = {k: tl.tensor(v) for k, v in extra.items()}
    x = f64([0.0, -1.3, 0.4, 2.0])
    assert gradcheck(lambda a: F.binary_cross_entropy_with_logits(a, tl.tensor(TARGET), **t), (x,))
    assert gradgradcheck(lambda a: F.binary_cross_entropy_with_logits(a, tl.tensor(TARGET), **t),
                         (x,))
    # d2/dx2 = w (1 + (pw - 1) t) sigmoid(x) sigmoid(-x): a quarter of that at x = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = hessian(lambda a: F.binary_cross_entropy_with_logits(
            a, tl.tensor(TARGET), reduction="sum", **t), f64(np.zeros(4), False)).numpy()
    w = extra.get("weight", 1.0) * (1 + (extra.get("pos_weight", 1.0) - 1) * TARGET)
    np.testing.assert_allclose(h, np.diag(0.25 * w * np.ones(4)), rtol=1e-15)
    torch = pytest.importorskip("torch")
    ref = torch.autograd.functional.hessian(
        lambda a: torch.nn.functional.binary_cross_entropy_with_logits(
            a, torch.tensor(TARGET), reduction="sum",
            **{k: torch.tensor(v) for k, v in extra.items()}),
        torch.zeros(4, dtype=torch.float64))
    np.testing.assert_allclose(h, ref.numpy(), rtol=1e-15)


def test_bce_with_logits_target_gradient_matches_torch():
    torch = pytest.importorskip("torch")
    x0 = np.array([0.0, -1.3, 0.4, 2.0])
    x, t = f64(x0), f64(TARGET)
    F.binary_cross_entropy_with_logits(x, t, weight=tl.tensor(WEIGHT),
                                       pos_weight=tl.tensor(POS_WEIGHT)).backward()
    xt, tt = (torch.tensor(v, requires_grad=True) for v in (x0, TARGET))
    torch.nn.functional.binary_cross_entropy_with_logits(
        xt, tt, weight=torch.tensor(WEIGHT), pos_weight=torch.tensor(POS_WEIGHT)).backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-13)
    np.testing.assert_allclose(t.grad.numpy(), tt.grad.numpy(), rtol=1e-13)


# -- the other composites at their kinks --------------------------------------------------------

KINKS = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 20.0])
ZERO = np.zeros(len(KINKS))

# name -> (ours, PyTorch's by name and keyword arguments, the exact gradient at KINKS)
AUDIT = {
    "l1_loss": (lambda x: F.l1_loss(x, f64(ZERO, False), reduction="none"),
                ("l1_loss", {"reduction": "none"}), np.sign(KINKS)),
    "huber_loss": (lambda x: F.huber_loss(x, f64(ZERO, False), reduction="none", delta=0.5),
                   ("huber_loss", {"reduction": "none", "delta": 0.5}),
                   np.clip(KINKS, -0.5, 0.5)),
    "smooth_l1_loss": (lambda x: F.smooth_l1_loss(x, f64(ZERO, False), reduction="none",
                                                  beta=1.0),
                       ("smooth_l1_loss", {"reduction": "none", "beta": 1.0}),
                       np.clip(KINKS, -1.0, 1.0)),
    "relu": (F.relu, ("relu", {}), (KINKS > 0) * 1.0),
    "leaky_relu": (F.leaky_relu, ("leaky_relu", {}), np.where(KINKS > 0, 1.0, 0.01)),
    "elu": (lambda x: F.elu(x, 2.0), ("elu", {"alpha": 2.0}),
            np.where(KINKS > 0, 1.0, 2.0 * np.exp(np.minimum(KINKS, 0)))),
    "softplus": (F.softplus, ("softplus", {}),
                 np.where(KINKS > 20, 1.0, 1 / (1 + np.exp(-KINKS)))),
}


@pytest.mark.parametrize("name", sorted(AUDIT))
def test_kinks_take_torchs_gradient(name):
    ours_fn, (torch_name, kwargs), exact = AUDIT[name]
    ours = grad_of(ours_fn, KINKS)
    np.testing.assert_allclose(ours, exact, rtol=1e-15)
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    theirs_fn = getattr(tf, torch_name)
    if "loss" in torch_name:
        theirs = torch_grad_of(torch, lambda x: theirs_fn(x, torch.zeros_like(x), **kwargs),
                               KINKS)
    else:
        theirs = torch_grad_of(torch, lambda x: theirs_fn(x, **kwargs), KINKS)
    np.testing.assert_allclose(ours, theirs, rtol=1e-15)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_at_zero_takes_half(approximate):
    np.testing.assert_array_equal(
        grad_of(lambda x: F.gelu(x, approximate=approximate), [0.0]), [0.5])


# -- 2. NaN where PyTorch is finite --------------------------------------------------------------

def test_normalize_zero_vector_is_zero_with_finite_gradient():
    for p in (2.0, 1.0, 3.0, float("inf")):
        x = f64(np.zeros((2, 3)))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y = F.normalize(x, p=p, dim=1)
            (y * f64([[1.0, 2.0, 3.0]], False)).sum().backward()
        np.testing.assert_array_equal(y.detach().numpy(), np.zeros((2, 3)))
        # the norm is clamped to eps = 1e-12 and does not move: d/dx (w x / eps) = w / eps
        np.testing.assert_array_equal(x.grad.numpy(), np.array([[1.0, 2.0, 3.0]] * 2) / 1e-12)
    torch = pytest.importorskip("torch")
    w = torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float64)
    theirs = torch_grad_of(torch, lambda a: torch.nn.functional.normalize(a, dim=1) * w,
                           np.zeros((2, 3)))
    np.testing.assert_array_equal(x.grad.numpy(), theirs)


def test_normalize_mixed_rows_match_torch():
    rows = np.array([[0.0, 0.0, 0.0], [-1.0, -0.5, 0.0], [3e-13, 0.0, -4e-13]])
    w = np.array([[1.0, -2.0, 0.5]])
    ours = grad_of(lambda a: F.normalize(a, dim=1) * f64(w, False), rows)
    assert np.isfinite(ours).all()
    torch = pytest.importorskip("torch")
    theirs = torch_grad_of(torch, lambda a: torch.nn.functional.normalize(a, dim=1)
                           * torch.tensor(w), rows)
    np.testing.assert_allclose(ours, theirs, rtol=1e-14)


def test_normalize_hessian_at_a_zero_component():
    x0 = np.array([-1.0, -0.5, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = hessian(lambda a: F.normalize(a, dim=0).sum(), f64(x0, False)).numpy()
    s = np.sqrt(1.25)  # ||x||; H = (3 (x.1) x x^T / s^5 - (x 1^T + 1 x^T + (x.1) I) / s^3)
    ones = np.ones(3)
    expected = (3 * x0.sum() * np.outer(x0, x0) / s ** 5
                - (np.outer(x0, ones) + np.outer(ones, x0) + x0.sum() * np.eye(3)) / s ** 3)
    np.testing.assert_allclose(h, expected, rtol=1e-13)
    assert abs(h[0, 2] - 0.7155417527999327) < 1e-12
    torch = pytest.importorskip("torch")
    ref = torch.autograd.functional.hessian(lambda a: torch.nn.functional.normalize(a, dim=0).sum(),
                                            torch.tensor(x0))
    np.testing.assert_allclose(h, ref.numpy(), rtol=1e-13)


P = np.array([0.0, 1.0, 0.0, 1.0, 0.5])
P_TARGET = np.array([0.0, 1.0, 1.0, 0.0, 0.3])


def test_binary_cross_entropy_at_probability_0_and_1():
    x = f64(P)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = F.binary_cross_entropy(x, f64(P_TARGET, False), reduction="none")
        loss.sum().backward()
    # the logs are clamped at -100; the gradient is (x - t) / max(x (1 - x), 1e-12)
    np.testing.assert_allclose(loss.detach().numpy(),
                               [0.0, 0.0, 100.0, 100.0, -(0.3 * np.log(0.5) + 0.7 * np.log(0.5))],
                               rtol=1e-15)
    big = 1 / float(np.float32(1e-12))  # PyTorch clamps with the float 1e-12
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0, -big, big, 0.8], rtol=1e-15)
    torch = pytest.importorskip("torch")
    theirs = torch_grad_of(torch, lambda a: torch.nn.functional.binary_cross_entropy(
        a, torch.tensor(P_TARGET), reduction="none"), P)
    np.testing.assert_allclose(x.grad.numpy(), theirs, rtol=1e-15)


def test_binary_cross_entropy_weights_targets_and_second_derivative():
    x0 = np.array([0.2, 0.9, 0.5, 0.01, 0.0])
    t0 = np.array([0.0, 1.0, 0.3, 0.6, 0.5])
    w0 = np.array([1.0, 2.0, 0.5, 3.0, 1.5])
    x, t = f64(x0), f64(t0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.binary_cross_entropy(x, t, weight=tl.tensor(w0), reduction="sum").backward()
    with np.errstate(divide="ignore"):
        expected_x = w0 * (x0 - t0) / np.maximum(x0 * (1 - x0), float(np.float32(1e-12)))
        expected_t = w0 * (np.maximum(np.log1p(-x0), -100) - np.maximum(np.log(x0), -100))
    np.testing.assert_allclose(x.grad.numpy(), expected_x, rtol=1e-14)
    # the target gradient of the clamped logs (PyTorch's is +-inf where x is 0 or 1)
    np.testing.assert_allclose(t.grad.numpy(), expected_t, rtol=1e-14)
    assert gradcheck(lambda a, b: F.binary_cross_entropy(a, b), (f64(x0[:4]), f64(t0[:4])))
    assert gradgradcheck(lambda a, b: F.binary_cross_entropy(a, b), (f64(x0[:4]), f64(t0[:4])))
    torch = pytest.importorskip("torch")
    xt, tt = (torch.tensor(v, requires_grad=True) for v in (x0, t0))
    torch.nn.functional.binary_cross_entropy(xt, tt, weight=torch.tensor(w0),
                                             reduction="sum").backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-13)
    np.testing.assert_allclose(t.grad.numpy()[:4], tt.grad.numpy()[:4], rtol=1e-13)
    xt = torch.tensor(x0[:4], requires_grad=True)
    (g,) = torch.autograd.grad(torch.nn.functional.binary_cross_entropy(xt, torch.tensor(t0[:4])),
                               xt, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), xt)
    x = f64(x0[:4])
    (g,) = tl.autograd.grad(F.binary_cross_entropy(x, f64(t0[:4], False)), x, create_graph=True)
    (ours,) = tl.autograd.grad(g.sum(), x)
    # PyTorch's double backward divides by (x + 1e-12)^2 (1 - x + 1e-12)^2: ~1e-10 apart here
    np.testing.assert_allclose(ours.numpy(), h.numpy(), rtol=1e-8)


def _attention_inputs():
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 3, 4)) for _ in range(3))
    mask = np.ones((3, 3), bool)
    mask[1] = False  # query 1 may attend nothing
    mask[2, 0] = False
    return q, k, v, mask


def test_sdpa_fully_masked_row_gives_zero_output_and_gradient():
    q, k, v, mask = _attention_inputs()
    ours = [f64(a) for a in (q, k, v)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = F.scaled_dot_product_attention(*ours, attn_mask=tl.tensor(mask))
        out.sum().backward()
    assert np.isfinite(out.detach().numpy()).all()
    np.testing.assert_array_equal(out.detach().numpy()[:, 1], 0.0)
    np.testing.assert_array_equal(ours[0].grad.numpy()[:, 1], 0.0)
    assert all(np.isfinite(a.grad.numpy()).all() for a in ours)
    # the other rows are as without the dead row
    keep = [f64(a) for a in (q, k, v)]
    ref = F.scaled_dot_product_attention(*keep, attn_mask=tl.tensor(mask | ~mask.any(1)[:, None]))
    np.testing.assert_allclose(out.detach().numpy()[:, [0, 2]], ref.detach().numpy()[:, [0, 2]],
                               rtol=1e-15)
    torch = pytest.importorskip("torch")
    theirs = [torch.tensor(a, requires_grad=True) for a in (q, k, v)]
    t_out = torch.nn.functional.scaled_dot_product_attention(*theirs,
                                                             attn_mask=torch.tensor(mask))
    t_out.sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12,
                               atol=1e-15)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_sdpa_float_mask_with_a_row_of_minus_inf():
    q, k, v, mask = _attention_inputs()
    float_mask = np.where(mask, 0.0, -np.inf)
    ours = [f64(a) for a in (q, k, v)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = F.scaled_dot_product_attention(*ours, attn_mask=tl.tensor(float_mask))
        out.sum().backward()
    np.testing.assert_array_equal(out.detach().numpy()[:, 1], 0.0)
    np.testing.assert_array_equal(ours[0].grad.numpy()[:, 1], 0.0)
    bool_in = [f64(a) for a in (q, k, v)]
    ref = F.scaled_dot_product_attention(*bool_in, attn_mask=tl.tensor(mask))
    ref.sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-15)
    for a, b in zip(ours, bool_in):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-15)
    torch = pytest.importorskip("torch")
    t_out = torch.nn.functional.scaled_dot_product_attention(
        *(torch.tensor(a) for a in (q, k, v)), attn_mask=torch.tensor(float_mask))
    np.testing.assert_allclose(out.detach().numpy(), t_out.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("alpha", [1.0, 2.0])
def test_elu_derivatives_at_zero_follow_pytorch(alpha):
    # first derivative alpha at 0 (PyTorch's x <= 0 branch), second derivative 0 (its double
    # backward tests x < 0); and exp(-30)'s tiny gradient exact, not lost to cancellation
    x = tl.tensor([0.0, -0.0, 1.0, -1.0, -30.0], dtype=tl.float64, requires_grad=True)
    (g,) = tl.autograd.grad(tl.nn.functional.elu(x, alpha).sum(), x, create_graph=True)
    (h,) = tl.autograd.grad(g.sum(), x)
    e = np.exp([-1.0, -30.0])
    np.testing.assert_allclose(g.detach().numpy(), [alpha, alpha, 1, alpha * e[0], alpha * e[1]],
                               rtol=1e-15)
    np.testing.assert_allclose(h.numpy(), [0, 0, 0, alpha * e[0], alpha * e[1]], rtol=1e-15)


_ELU_POINTS = [-1.0, 0.0, -0.0, 2.0, -1e-10, -30.0, float("nan"), float("inf"), -float("inf"),
               0.3]
_ELU_UPSTREAM = [1.0, float("nan"), 2.0, 1.0, -1.0, 1.0, 1.0, 1.0, 1.0, float("inf")]
_ELU_SECOND = [1.0, 1.0, float("nan"), 1.0, 2.0, 1.0, 1.0, float("inf"), 1.0, 1.0]


def _elu_orders(lib, name: str, kwargs: dict) -> tuple:
    """ELU-family values, first, second (towards the input and the upstream gradient) and third
    derivatives at the kink, tiny negatives, +-inf and NaN, with NaN and inf gradients; and
    the names of the first two nodes."""
    x = lib.tensor(_ELU_POINTS, dtype=lib.float64, requires_grad=True)
    upstream = lib.tensor(_ELU_UPSTREAM, dtype=lib.float64, requires_grad=True)
    y = getattr(lib.nn.functional, name)(x, **kwargs)
    (g,) = lib.autograd.grad(y, x, upstream, create_graph=True)
    hx, hu = lib.autograd.grad(g, (x, upstream), lib.tensor(_ELU_SECOND, dtype=lib.float64),
                               create_graph=True)
    (third,) = lib.autograd.grad(hx.sum(), x)
    arrays = tuple(t.detach().numpy() for t in (y, g, hx, hu, third))
    return arrays, y.grad_fn.name(), g.grad_fn.name()


@pytest.mark.parametrize("name, kwargs", [("elu", {}), ("elu", {"alpha": 0.7}), ("selu", {}),
                                          ("celu", {"alpha": 0.7}), ("celu", {"alpha": 2.0})])
def test_elu_family_matches_pytorch_to_third_order_with_nan_and_inf(name, kwargs):
    # ELU's double backward multiplies by the mask x < 0, so a NaN upstream gradient at the
    # kink stays NaN (a where-select hid it: fuzz_graphs seeds 1029219, 2002518); expm1 keeps
    # ELU(-1e-10) exact; CELU's gradient rounds alpha to float32 as PyTorch's does
    torch = pytest.importorskip("torch")
    ours, our_node, our_grad_node = _elu_orders(tl, name, kwargs)
    theirs, node, grad_node = _elu_orders(torch, name, kwargs)
    assert (our_node, our_grad_node) == (node, grad_node)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=0)  # NaN where PyTorch has NaN


@pytest.mark.parametrize("name", ["elu_", "selu_", "celu_"])
def test_elu_family_in_place_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    results = []
    for lib in (tl, torch):
        x = lib.tensor([-1.0, 0.0, 2.0, -3e-9], dtype=lib.float64, requires_grad=True)
        y = getattr(lib.nn.functional, name)(x * 1.0)
        (g,) = lib.autograd.grad(y.sum(), x)
        results.append((y.grad_fn.name(), y.detach().numpy(), g.numpy()))
    (ours_name, ours_y, ours_g), (their_name, their_y, their_g) = results
    assert ours_name == their_name
    np.testing.assert_allclose(ours_y, their_y, rtol=1e-14, atol=0)
    np.testing.assert_allclose(ours_g, their_g, rtol=1e-14, atol=0)


def test_elu_family_float32_and_half_and_integer_input():
    torch = pytest.importorskip("torch")
    x = (np.random.default_rng(0).standard_normal(1000) * 3).astype(np.float32)
    ours = tl.nn.functional.elu(tl.tensor(x)).numpy()
    theirs = torch.nn.functional.elu(torch.tensor(x)).numpy()
    # (PyTorch's vectorised expm1 rounds a few values one ulp away from NumPy's)
    assert (np.abs(ours - theirs) <= np.spacing(np.abs(theirs))).all()
    for dtype in ("float16", "bfloat16"):  # the composite: same values and kink
        xs = [-1.0, 0.0, 2.0, -0.01]
        t = tl.tensor(xs, dtype=getattr(tl, dtype), requires_grad=True)
        tl.nn.functional.elu(t).sum().backward()
        ref = torch.tensor(xs, dtype=getattr(torch, dtype), requires_grad=True)
        torch.nn.functional.elu(ref).sum().backward()
        np.testing.assert_allclose(t.grad.float().numpy(), ref.grad.float().numpy(), rtol=2e-3)
    for name in ("elu", "selu", "celu"):
        with pytest.raises(NotImplementedError, match="elu_cpu.*int64"):
            getattr(tl.nn.functional, name)(tl.tensor([1, -2]))


_HARDSWISH_POINTS = [-4.0, -3.0, -1.0, 0.0, 2.9, 3.0, 5.0, float("nan"), float("inf"),
                     -float("inf"), 3.0000000000000004, 1e308, -2.999]
_HARDSWISH_UPSTREAM = [1.0, float("nan"), 2.0, float("inf"), 1.0, float("nan"), 1.0, 1.0, 1.0,
                       1.0, -1.0, 1.0, float("nan")]
_HARDSWISH_SECOND = [float("nan"), 1.0, 1.0, 2.0, float("nan"), 1.0, float("nan"), 1.0,
                     float("inf"), 1.0, 1.0, 1.0, 1.0]


def _hardswish_orders(lib) -> tuple:
    x = lib.tensor(_HARDSWISH_POINTS, dtype=lib.float64, requires_grad=True)
    upstream = lib.tensor(_HARDSWISH_UPSTREAM, dtype=lib.float64, requires_grad=True)
    y = lib.nn.functional.hardswish(x)
    (g,) = lib.autograd.grad(y, x, upstream, create_graph=True)
    hx, hu = lib.autograd.grad(g, (x, upstream),
                               lib.tensor(_HARDSWISH_SECOND, dtype=lib.float64),
                               create_graph=True)
    (third,) = lib.autograd.grad(hu.sum(), x)
    arrays = tuple(t.detach().numpy() for t in (y, g, hx, hu, third))
    return arrays, y.grad_fn.name(), g.grad_fn.name()


def test_hardswish_matches_pytorch_to_third_order_with_nan_inf_and_signed_zeros():
    # hardswish(NaN) and hardswish(-inf) are NaN (they were 0), x <= -3 gives -0.0 for a
    # negative x, x * 6 / 6 overflows at 1e308 as PyTorch's does; the double backward selects
    # strictly inside (-3, 3) (std of constant rows under hardswish gave NaN where PyTorch has
    # 0: fuzz_graphs seed 1050289)
    torch = pytest.importorskip("torch")
    ours, our_node, our_grad_node = _hardswish_orders(tl)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch's own overflow warning at 1e308)
        theirs, node, grad_node = _hardswish_orders(torch)
    assert (our_node, our_grad_node) == (node, grad_node)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-15, atol=0)
        np.testing.assert_array_equal(np.signbit(a), np.signbit(b))
    x = (np.random.default_rng(0).standard_normal(1000) * 4).astype(np.float32)
    np.testing.assert_array_equal(tl.nn.functional.hardswish(tl.tensor(x)).numpy(),
                                  torch.nn.functional.hardswish(torch.tensor(x)).numpy())
    with pytest.raises(NotImplementedError, match="hardswish_cpu.*int64"):
        tl.nn.functional.hardswish(tl.tensor([1, -2]))


def test_softplus_keeps_tiny_values_of_very_negative_inputs():
    """softplus(-40) = 4.25e-18 (was 0: log(1 + exp(x)) rounds where log1p does not)."""
    out = tl.nn.functional.softplus(tl.tensor([-40.0, -20.0], dtype=tl.float64))
    np.testing.assert_allclose(out.numpy(), np.log1p(np.exp([-40.0, -20.0])), rtol=1e-14)
