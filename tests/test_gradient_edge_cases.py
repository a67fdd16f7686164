"""Gradients at the points where PyTorch's rules are specific (found by running small autograd
programs through both): ties and NaNs of full reductions, xlogy/xlog1py where x is 0, atan2 at
the origin. Expected values are written out; PyTorch is the oracle where installed."""

import math

import numpy as np
import pytest

import tinygrad_lite as tl

NAN = math.nan


@pytest.mark.parametrize("fn, values, grad", [
    ("median", [1.0, 2.0, 2.0], [0.0, 0.5, 0.5]),
    ("median", [2.0, 1.0, 2.0, 3.0], [0.5, 0.0, 0.5, 0.0]),
    ("median", [1.0, NAN, 3.0, NAN], [0.0, 0.5, 0.0, 0.5]),
    ("nanmedian", [3.0, 3.0, 3.0, 1.0], [1 / 3, 1 / 3, 1 / 3, 0.0]),
    ("nanmedian", [1.0, NAN, 3.0, NAN], [1.0, 0.0, 0.0, 0.0]),
    ("max", [1.0, NAN, 3.0, NAN], [0.0, 0.5, 0.0, 0.5]),
    ("min", [NAN, 2.0], [1.0, 0.0]),
    ("amax", [1.0, NAN], [NAN, NAN]),
    ("max", [2.0, 2.0], [0.5, 0.5]),
])
def test_full_reductions_share_the_gradient_among_ties_and_nans(fn, values, grad):
    x = tl.tensor(values, requires_grad=True)
    getattr(tl, fn)(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-6, equal_nan=True)


def test_median_along_a_dim_still_picks_one_index():
    x = tl.tensor([[2.0, 1.0, 2.0, 3.0]], requires_grad=True)
    tl.median(x, 1).values.sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0, 0.0, 0.0]]


X = [0.0, 0.0, 0.0, 1.0, 2.0, 0.0, -1.0, 0.0, 0.0]
Y = [0.0, 2.0, -1.0, 0.0, 3.0, NAN, 0.5, math.inf, -2.0]


def test_xlogy_gradients_where_x_is_zero():
    x = tl.tensor(X, dtype=tl.float64, requires_grad=True)
    y = tl.tensor(Y, dtype=tl.float64, requires_grad=True)
    out = tl.xlogy(x, y)
    out.sum().backward()
    np.testing.assert_array_equal(out.detach().numpy()[[0, 1, 2, 5, 7]], [0, 0, 0, NAN, 0])
    # d/dx = log(y), also where x is 0, except where y <= 0 (0 there)
    np.testing.assert_allclose(x.grad.numpy()[[0, 1, 2, 4, 8]], [0, math.log(2), 0,
                                                                  math.log(3), 0])
    # d/dy = x / y: NaN at x = y = 0, as PyTorch
    assert math.isnan(x.grad.numpy()[5]) and math.isnan(y.grad.numpy()[0])
    assert y.grad.numpy()[1] == 0 and y.grad.numpy()[3] == math.inf


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_xlogy_and_xlog1py_agree_with_pytorch(name):
    torch = pytest.importorskip("torch")
    ours = tl.xlogy if name == "xlogy" else tl.special.xlog1py
    theirs = torch.xlogy if name == "xlogy" else torch.special.xlog1py
    results = []
    for lib, fn in ((tl, ours), (torch, theirs)):
        x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
        y = lib.tensor(Y, dtype=lib.float64, requires_grad=True)
        out = fn(x, y)
        out.sum().backward()
        results.append([out.detach().numpy(), x.grad.numpy(), y.grad.numpy()])
    for a, b in zip(*results):
        # the zeros, NaNs and infinities exactly; the logarithms to an ulp (PyTorch's log1p
        # comes from its own vectorised library on CPUs that have it, NumPy's from libm)
        np.testing.assert_array_equal(np.isfinite(a), np.isfinite(b))
        np.testing.assert_array_equal(a[a == 0], b[a == 0])
        np.testing.assert_allclose(a, b, rtol=4e-16, atol=0)


def test_xlogy_second_order():
    x = tl.tensor([0.5, 2.0], dtype=tl.float64, requires_grad=True)
    y = tl.tensor([1.5, 3.0], dtype=tl.float64, requires_grad=True)
    for fn in (tl.xlogy, tl.special.xlog1py, tl.atan2):
        assert tl.autograd.gradcheck(fn, (x, y)) and tl.autograd.gradgradcheck(fn, (x, y))


def test_atan2_at_the_origin_has_zero_gradients_signed_as_pytorchs():
    y = tl.tensor([0.0, 0.0, -0.0, 1.0], requires_grad=True)
    x = tl.tensor([0.0, -0.0, 0.0, 0.0], requires_grad=True)
    tl.atan2(y, x).sum().backward()
    assert y.grad.tolist() == [0.0, 0.0, 0.0, 0.0] and x.grad.tolist() == [0.0, 0.0, 0.0, -1.0]
    assert np.signbit(y.grad.numpy()).tolist() == [False, True, False, False]
    assert np.signbit(x.grad.numpy()).tolist() == [True, True, False, True]


def test_logit_slope_is_infinite_at_0_and_1():
    x = tl.tensor([0.0, 1.0, 0.5], dtype=tl.float64, requires_grad=True)
    tl.logit(x).sum().backward()
    assert x.grad.tolist() == [math.inf, math.inf, 4.0]
    x = tl.tensor([0.0, 0.05, 0.5], dtype=tl.float64, requires_grad=True)
    tl.logit(x, eps=0.1).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 4.0]
    assert tl.autograd.gradgradcheck(tl.logit, (tl.tensor([0.3, 0.6], dtype=tl.float64,
                                                          requires_grad=True),))


@pytest.mark.parametrize("p, values, grad", [
    (3, [0.0, 0.0], [0.0, 0.0]),
    (0.5, [0.0, 1.0], [0.0, 1.0]),
    (3, [0.0, 2.0], [0.0, 1.0]),
    (-1, [1.0, 2.0], [4 / 9, 1 / 9]),
])
def test_vector_norm_gradients_at_zero(p, values, grad):
    x = tl.tensor(values, dtype=tl.float64, requires_grad=True)
    tl.linalg.vector_norm(x, p).backward()
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-12)


@pytest.mark.parametrize("a, b", [
    ([0.0, 0.0], [1.0, 2.0]), ([1e-10, 2e-10], [1.0, 2.0]), ([1e-9, 0.0], [1e-9, 1e-9]),
    ([0.0, 0.0], [0.0, 0.0]), ([3.0, 1.0], [1.0, 2.0]), ([1e-5, 0.0], [1e-5, 0.0]),
])
def test_cosine_similarity_raises_each_norm_to_eps_as_pytorch(a, b):
    torch = pytest.importorskip("torch")
    results = []
    for lib in (tl, torch):
        x = lib.tensor(a, dtype=lib.float64, requires_grad=True)
        y = lib.tensor(b, dtype=lib.float64, requires_grad=True)
        out = lib.nn.functional.cosine_similarity(x, y, dim=0)
        out.backward()
        results.append((out.item(), x.grad.numpy(), y.grad.numpy()))
    assert results[0][0] == pytest.approx(results[1][0], rel=1e-12)
    for ours, theirs in zip(results[0][1:], results[1][1:]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-6)  # gradients ~1e5-1e8


def test_cosine_similarity_of_a_zero_vector_is_zero_with_finite_gradients():
    x = tl.tensor([[0.0, 0.0], [3.0, 4.0]], dtype=tl.float64, requires_grad=True)
    y = tl.tensor([[1.0, 0.0], [3.0, 4.0]], dtype=tl.float64)
    out = tl.nn.functional.cosine_similarity(x, y)
    assert out.tolist() == [0.0, pytest.approx(1.0)]
    out.sum().backward()
    assert np.isfinite(x.grad.numpy()).all() and x.grad[0, 0].item() == pytest.approx(1e8)


def test_losses_with_every_target_ignored_are_nan_with_zero_gradients():
    F = tl.nn.functional
    x = tl.tensor([[0.1, 0.2], [0.3, 0.4]], dtype=tl.float64, requires_grad=True)
    for loss in (F.nll_loss(x, tl.tensor([-100, -100])),
                 F.cross_entropy(x, tl.tensor([1, 1]), ignore_index=1),
                 F.cross_entropy(x, tl.tensor([1, 1]), ignore_index=1, label_smoothing=0.2)):
        x.grad = None
        loss.backward()
        assert math.isnan(loss.item()) and x.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    x.grad = None  # kept targets whose weights sum to 0 divide 0 by 0: NaN gradients too
    F.cross_entropy(x, tl.tensor([0, 0]), weight=tl.tensor([0.0, 1.0], dtype=tl.float64)).backward()
    assert np.isnan(x.grad.numpy()).all()


def test_multi_margin_hinges_exactly_at_zero_pass_no_gradient():
    F = tl.nn.functional
    x = tl.tensor([[1.0, 0.0, 1.0]], dtype=tl.float64, requires_grad=True)
    F.multi_margin_loss(x, tl.tensor([0])).backward()  # class 1 sits exactly on the margin
    np.testing.assert_allclose(x.grad.numpy(), [[-1 / 3, 0.0, 1 / 3]])
    x.grad = None
    F.multilabel_margin_loss(x, tl.tensor([[0, -1, 1]])).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[-1 / 3, 0.0, 1 / 3]])


def test_cosine_embedding_loss_uses_pytorchs_epsilon_on_squared_norms():
    a = tl.tensor([[0.0, 0.0], [1.0, 0.0]], dtype=tl.float64, requires_grad=True)
    b = tl.tensor([[1.0, 0.0], [1.0, 0.0]], dtype=tl.float64)
    tl.nn.functional.cosine_embedding_loss(a, b, tl.tensor([1, -1])).backward()
    # d(1 - cos)/da at a = 0: -b / sqrt((0 + 1e-12) (1 + 1e-12)), halved by the mean
    assert a.grad[0, 0].item() == pytest.approx(-0.5 / math.sqrt(1e-12 * (1 + 1e-12)))


@pytest.mark.parametrize("fn", ["addmm", "addmv", "baddbmm", "addr"])
def test_beta_zero_ignores_the_input_but_gives_it_a_zero_gradient(fn):
    shapes = {"addmm": ((2, 2), (2, 3), (3, 2)), "addmv": ((2,), (2, 3), (3,)),
              "baddbmm": ((1, 2, 2), (1, 2, 3), (1, 3, 2)), "addr": ((2, 3), (2,), (3,))}[fn]
    inp = tl.full(shapes[0], math.nan, dtype=tl.float64, requires_grad=True)
    a, b = (tl.ones(*s, dtype=tl.float64) for s in shapes[1:])
    out = getattr(tl, fn)(inp, a, b, beta=0)
    assert not np.isnan(out.detach().numpy()).any()
    out.sum().backward()
    assert inp.grad is not None and not inp.grad.numpy().any()


def test_det_gradient_is_the_cofactor_matrix_also_when_singular():
    a = tl.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=tl.float64, requires_grad=True)
    tl.linalg.det(a).backward()
    np.testing.assert_allclose(a.grad.numpy(), [[4.0, -2.0], [-2.0, 1.0]], atol=1e-12)
    singular = tl.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], dtype=tl.float64,
                         requires_grad=True)
    assert tl.autograd.gradcheck(tl.linalg.det, (singular,))
    batch = tl.tensor(np.stack([np.eye(3) * 2, [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0],
                                                 [1.0, 0.0, 1.0]]]), requires_grad=True)
    tl.det(batch).sum().backward()
    np.testing.assert_allclose(batch.grad.numpy()[0], np.eye(3) * 4)
    assert tl.autograd.gradgradcheck(tl.linalg.det, (tl.tensor(
        np.random.default_rng(0).standard_normal((2, 3, 3)), requires_grad=True),))


def test_embedding_bag_scales_the_weight_gradient_by_per_sample_weights():
    weight = tl.tensor([[1.0, 5.0], [3.0, 5.0]], dtype=tl.float64, requires_grad=True)
    psw = tl.tensor([2.0, 3.0], dtype=tl.float64)  # not requiring grad (the case that was wrong)
    out = tl.nn.functional.embedding_bag(tl.tensor([0, 1]), weight, tl.tensor([0]), mode="sum",
                                         per_sample_weights=psw)
    out.sum().backward()
    assert weight.grad.tolist() == [[2.0, 2.0], [3.0, 3.0]]


def test_logaddexp_of_infinities_and_norms_of_zeros():
    inf = math.inf
    out = tl.logaddexp(tl.tensor([inf, inf, -inf, 1.0]), tl.tensor([inf, 1.0, -inf, 1.0]))
    assert out.tolist()[:3] == [inf, inf, -inf] and out[3].item() == pytest.approx(1 + math.log(2))
    x = tl.tensor([0.0, 0.0], dtype=tl.float64, requires_grad=True)
    tl.norm(x, p=3).backward()
    assert x.grad.tolist() == [0.0, 0.0]
    m = tl.tensor([[3.0, 0.0], [0.0, 4.0]])
    assert tl.norm(m, p="nuc").item() == pytest.approx(7.0)
    assert tl.norm(tl.ones(2, 2, 2), p="nuc", dim=(1, 2)).tolist() == pytest.approx([2.0, 2.0])


def test_erfcx_slope_where_it_overflows():
    x = tl.tensor([-30.0, 30.0], dtype=tl.float64, requires_grad=True)
    y = tl.special.erfcx(x)
    y.sum().backward()
    assert y[0].item() == math.inf and x.grad[0].item() == -math.inf
    assert x.grad[1].item() == pytest.approx(2 * 30 * y[1].item() - 2 / math.sqrt(math.pi))
    a = tl.tensor([0.3, -1.2, 6.0], dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradgradcheck(tl.special.erfcx, (a,))


X_NAN_GRAD = [[0.5, -1.0, 2.0], [1.0, 3.0, 0.0]]


@pytest.mark.parametrize("name, fn, expected", [
    # the elements a NaN gradient does not reach keep an exact zero, as PyTorch masks them
    ("minimum", lambda x: tl.minimum(x, tl.zeros_like(x)), [[0, NAN, 0], [0, 0, NAN]]),
    ("maximum", lambda x: tl.maximum(x, tl.zeros_like(x)), [[NAN, 0, NAN], [NAN, NAN, NAN]]),
    ("maximum broadcast", lambda x: tl.maximum(x, tl.tensor([1.0, 0.0, 2.5], dtype=tl.float64)),
     [[0, 0, 0], [NAN, NAN, 0]]),
    ("max()", lambda x: x.max(), [[0, 0, 0], [0, NAN, 0]]),
    ("min()", lambda x: x.min(), [[0, NAN, 0], [0, 0, 0]]),
    ("median()", lambda x: x.median(), [[NAN, 0, 0], [0, 0, 0]]),
    ("max(dim)", lambda x: x.max(1)[0], [[0, 0, NAN], [0, NAN, 0]]),
    # amax/amin multiply by their mask: NaN everywhere, as in PyTorch
    ("amax", lambda x: x.amax(1), [[NAN] * 3, [NAN] * 3]),
])
def test_a_nan_gradient_reaches_only_the_selected_elements(name, fn, expected):
    x = tl.tensor(X_NAN_GRAD, dtype=tl.float64, requires_grad=True)
    y = fn(x)
    y.backward(tl.full(tuple(y.shape), NAN, dtype=tl.float64))
    np.testing.assert_array_equal(x.grad.numpy(), np.array(expected, dtype=float))
    torch = pytest.importorskip("torch")
    t = torch.tensor(X_NAN_GRAD, dtype=torch.float64, requires_grad=True)
    ty = _torch_twin(name, t, torch)
    ty.backward(torch.full(tuple(ty.shape), NAN, dtype=torch.float64))
    np.testing.assert_array_equal(t.grad.numpy(), np.array(expected, dtype=float))


def _torch_twin(name, t, torch):
    return {"minimum": lambda: torch.minimum(t, torch.zeros_like(t)),
            "maximum": lambda: torch.maximum(t, torch.zeros_like(t)),
            "maximum broadcast": lambda: torch.maximum(
                t, torch.tensor([1.0, 0.0, 2.5], dtype=torch.float64)),
            "max()": lambda: t.max(), "min()": lambda: t.min(), "median()": lambda: t.median(),
            "max(dim)": lambda: t.max(1)[0], "amax": lambda: t.amax(1)}[name]()


def test_heaviside_has_no_derivative_as_in_pytorch():
    x = tl.tensor([1.0, -1.0, 0.0], requires_grad=True)
    y = tl.heaviside(x, tl.tensor(0.5))
    assert y.requires_grad and y.tolist() == [1.0, 0.0, 0.5]
    with pytest.raises(RuntimeError, match="derivative for .*heaviside.* is not implemented"):
        y.sum().backward()
    assert not tl.heaviside(tl.tensor([2.0]), tl.tensor(0.5)).requires_grad
    torch = pytest.importorskip("torch")
    t = torch.heaviside(torch.tensor([1.0], requires_grad=True), torch.tensor(0.5))
    with pytest.raises(RuntimeError, match="derivative for .*heaviside.* is not implemented"):
        t.sum().backward()
