"""Older spellings PyTorch still accepts, as tutorials and course code use them: Python
conversions and formatting of one-element tensors, Variable, the legacy tensor types, the
deprecated loss flags (functional and modules), PyTorch's keyword names, implicit softmax dims,
DataParallel on the CPU. Checked against PyTorch where installed."""

import operator
import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812 - PyTorch's alias


def test_python_conversions_and_format_of_one_element_tensors():
    t = tl.tensor(2.5)
    assert f"{t:.3f}" == "2.500" and f"{t}" == "2.5" and f"{tl.tensor(7):03d}" == "007"
    assert int(tl.tensor(3.7)) == 3 and float(tl.tensor(2)) == 2.0
    assert operator.index(tl.tensor(4)) == 4 and [10, 11, 12][tl.tensor(1)] == 11
    for bad in (lambda: operator.index(tl.tensor(4.0)), lambda: len(tl.tensor(1.0)),
                lambda: operator.index(tl.tensor([1, 2])), lambda: f"{tl.ones(2):.2f}",
                lambda: f"{tl.nn.Parameter(tl.tensor(1.0)):.2f}"):
        with pytest.raises(TypeError):
            bad()
    assert f"{tl.ones(2)}" == repr(tl.ones(2))  # the empty spec formats as the repr


def test_variable_and_legacy_tensor_types():
    v = tl.autograd.Variable(tl.ones(2), requires_grad=True)
    (v * 3).sum().backward()
    assert v.grad.tolist() == [3.0, 3.0] and v.data.tolist() == [1.0, 1.0]
    a, b, c = tl.FloatTensor([[1, 2], [3, 4]]), tl.FloatTensor(2, 3), tl.LongTensor([1, 2])
    assert a.dtype == tl.float32 and tuple(b.shape) == (2, 3) and c.dtype == tl.int64
    assert a.type() == "torch.FloatTensor" and a.type(tl.LongTensor).dtype == tl.int64
    assert c.type(tl.FloatTensor).dtype == tl.float32
    assert a.type("torch.DoubleTensor").dtype == tl.float64


LEGACY_FLAGS = [(dict(size_average=False), "sum"), (dict(reduce=False), "none"),
                (dict(size_average=True, reduce=True), "mean"),
                (dict(size_average=False, reduce=False), "none")]


@pytest.mark.parametrize("flags,reduction", LEGACY_FLAGS)
def test_deprecated_loss_flags_in_functional_losses(flags, reduction):
    x = tl.tensor(np.random.default_rng(0).standard_normal((4, 3)))
    y = tl.tensor(np.random.default_rng(1).standard_normal((4, 3)))
    labels = tl.tensor([0, 2, 1, 1])
    probs, targets01 = x.sigmoid(), (y > 0).double()
    cases = [(F.mse_loss, (x, y)), (F.l1_loss, (x, y)), (F.smooth_l1_loss, (x, y)),
             (F.cross_entropy, (x, labels)), (F.nll_loss, (x.log_softmax(1), labels)),
             (F.binary_cross_entropy, (probs, targets01)),
             (F.binary_cross_entropy_with_logits, (x, targets01)),
             (F.kl_div, (x.log_softmax(1), y.softmax(1))), (F.soft_margin_loss, (x, y.sign())),
             (F.multilabel_soft_margin_loss, (x, targets01)),
             (F.multi_margin_loss, (x, labels)),
             (F.hinge_embedding_loss, (x, y.sign())), (F.poisson_nll_loss, (x, y.abs()))]
    for fn, args in cases:
        with pytest.warns(UserWarning, match=f"reduction='{reduction}'"):
            legacy = fn(*args, **flags)
        with warnings.catch_warnings():  # (kl_div's own warning for 'mean', as PyTorch's)
            warnings.simplefilter("ignore", UserWarning)
            modern = fn(*args, reduction=reduction)
        assert np.allclose(legacy.numpy(), modern.numpy()), fn.__name__


def test_functional_losses_take_pytorchs_positional_order():
    x = tl.randn(5, 3)
    labels = tl.tensor([0, 1, 2, 1, 0])
    w = tl.tensor([1.0, 2.0, 0.5])
    # cross_entropy(input, target, weight, size_average, ignore_index, reduce, reduction)
    got = F.cross_entropy(x, labels, w, None, 1, None, "sum")
    assert np.allclose(got.numpy(), F.cross_entropy(x, labels, w, ignore_index=1,
                                                    reduction="sum").numpy())
    got = F.nll_loss(x.log_softmax(1), labels, None, None, -100, None, "none")
    assert tuple(got.shape) == (5,)
    assert tuple(F.mse_loss(x, x * 2, None, None, "none").shape) == (5, 3)


def test_weighted_regression_losses_match_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x, y, w = (rng.standard_normal((4, 3)) for _ in range(3))
    w = np.abs(w)
    for name in ("mse_loss", "l1_loss", "huber_loss"):
        for reduction in ("mean", "sum", "none"):
            xs = tl.tensor(x, requires_grad=True)
            xt = torch.tensor(x, requires_grad=True)
            ours = getattr(F, name)(xs, tl.tensor(y), reduction=reduction, weight=tl.tensor(w))
            theirs = getattr(torch.nn.functional, name)(xt, torch.tensor(y), reduction=reduction,
                                                        weight=torch.tensor(w))
            assert np.allclose(ours.detach().numpy(), theirs.detach().numpy())
            ours.sum().backward()
            theirs.sum().backward()
            assert np.allclose(xs.grad.numpy(), xt.grad.numpy()), (name, reduction)
    with pytest.raises(ValueError, match="same size"):
        F.mse_loss(tl.ones(2, 3), tl.ones(2, 3), weight=tl.ones(3))


def test_pytorch_keyword_names_reach_our_parameters():
    a, b = tl.arange(5.0), tl.tensor([2.5])
    assert tl.where(a > 2, input=a, other=-a).tolist() == [-0.0, -1.0, -2.0, 3.0, 4.0]
    assert tl.pow(a, exponent=2).tolist() == [0.0, 1.0, 4.0, 9.0, 16.0]
    assert tl.maximum(a, other=b).tolist() == [2.5, 2.5, 2.5, 3.0, 4.0]
    assert np.allclose(tl.exp(input=a).numpy(), np.exp(a.numpy()))
    assert np.allclose(tl.mul(input=a, other=b).numpy(), a.numpy() * 2.5)
    assert np.allclose(F.sigmoid(input=a).numpy(), tl.sigmoid(a).numpy())
    assert np.allclose(F.tanh(input=a).numpy(), np.tanh(a.numpy()))
    with pytest.raises(TypeError, match="both"):
        tl.sum(a, dim=0, axis=0)


@pytest.mark.parametrize("shape,dim", [((4,), 0), ((2, 3), 1), ((2, 3, 4), 0), ((2, 3, 4, 5), 1)])
def test_softmax_without_dim_takes_pytorchs_implicit_dim(shape, dim):
    x = tl.randn(*shape)
    for fn, explicit in ((F.softmax, tl.softmax), (F.log_softmax, tl.log_softmax),
                         (F.softmin, lambda t, d: tl.softmax(-t, d))):
        with pytest.warns(UserWarning, match="Implicit dimension choice"):
            got = fn(x)
        assert np.allclose(got.numpy(), explicit(x, dim).numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.softmax(x, -1, 3, tl.float64)  # PyTorch's positional _stacklevel, then dtype
        assert F.softmax(x, dim=-1, dtype=tl.float64).dtype == tl.float64


def test_normalize_out_and_old_module_keywords():
    x = tl.randn(3, 4)
    out = tl.empty(3, 4)
    assert F.normalize(x, out=out) is out
    assert np.allclose(out.numpy(), F.normalize(x).numpy())
    with pytest.raises(RuntimeError, match="out=.*automatic differentiation"):
        F.normalize(tl.randn(3, 4, requires_grad=True), out=out)
    with pytest.warns(FutureWarning, match="min_value"):
        ht = tl.nn.Hardtanh(min_value=-2.0)
    assert ht.min_val == -2.0 and ht(tl.tensor([-3.0])).tolist() == [-2.0]
    gn = tl.nn.GroupNorm(2, 4, bias=False)
    assert gn.bias is None and gn.weight is not None and "bias=False" in repr(gn)
    assert [n for n, _ in gn.named_parameters()] == ["weight"]


def test_data_parallel_on_the_cpu_is_transparent():
    m = tl.nn.Linear(4, 2)
    dp = tl.nn.DataParallel(m)
    x = tl.randn(3, 4)
    with tl.no_grad():
        assert dp.module is m and np.allclose(dp(x).numpy(), m(x).numpy())
        assert np.allclose(tl.nn.parallel.data_parallel(m, x).numpy(), m(x).numpy())
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    dp(x).sum().backward()  # gradients reach the wrapped module's parameters
    assert m.weight.grad is not None
