"""The lazy layers (LazyLinear, LazyBatchNorm*, LazyInstanceNorm*) and the uninitialized
parameter and buffer, fractional max pooling, AdaptiveLogSoftmaxWithLoss, NLLLoss2d and
CrossMapLRN2d against PyTorch: values, indices, gradients, state dicts, reprs and errors."""

import copy
import pickle
import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _np(t):
    return t.detach().numpy()


# -- lazy modules -------------------------------------------------------------------------------


def test_lazy_linear_before_and_after_the_first_forward():
    m = tl.nn.LazyLinear(3)
    assert repr(m) == repr(torch.nn.LazyLinear(3)) == \
        "LazyLinear(in_features=0, out_features=3, bias=True)"
    assert m.has_uninitialized_params()
    assert all(isinstance(p, tl.nn.UninitializedParameter) for p in m.parameters())
    state = m.state_dict()
    assert list(state) == ["weight", "bias"] and repr(state["weight"]) == "<UninitializedParameter>"
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        _ = m.weight.shape
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in sum"):
        m.weight.sum()
    clone = copy.deepcopy(m)
    assert isinstance(clone.weight, tl.nn.UninitializedParameter)
    restored = pickle.loads(pickle.dumps(m))  # hooks and all: it still initialises lazily
    restored(tl.ones(1, 7))
    assert type(restored) is tl.nn.Linear and restored.in_features == 7
    assert not restored._forward_pre_hooks and not restored._load_state_dict_pre_hooks
    x = np.random.default_rng(0).standard_normal((2, 4, 5)).astype(np.float32)
    y = m(tl.tensor(x))
    assert type(m) is tl.nn.Linear and m.in_features == 5 and tuple(y.shape) == (2, 4, 3)
    assert type(m.weight) is tl.nn.Parameter and tuple(m.weight.shape) == (3, 5)
    assert np.abs(_np(m.weight)).max() <= 1 / np.sqrt(5)
    assert not hasattr(m, "_initialize_hook") and not m._forward_pre_hooks
    ref = torch.nn.Linear(5, 3)
    ref.load_state_dict({k: torch.tensor(_np(v)) for k, v in m.state_dict().items()})
    np.testing.assert_allclose(_np(y), _np(ref(torch.tensor(x))), rtol=1e-6, atol=1e-6)
    y.sum().backward()
    assert m.weight.grad is not None and tuple(m.weight.grad.shape) == (3, 5)


def test_lazy_linear_options_and_state_dict_loading():
    m = tl.nn.LazyLinear(2, bias=False, dtype=tl.float64)
    assert m.bias is None and m.weight.dtype == tl.float64
    m(tl.ones(1, 6, dtype=tl.float64))
    assert tuple(m.weight.shape) == (2, 6) and m.weight.dtype == tl.float64
    # a PyTorch checkpoint materializes the lazy entries with its shapes
    ref = torch.nn.Linear(4, 3)
    lazy = tl.nn.LazyLinear(3)
    lazy.load_state_dict(ref.state_dict())
    assert type(lazy) is tl.nn.LazyLinear and tuple(lazy.weight.shape) == (3, 4)
    x = torch.randn(2, 4)
    np.testing.assert_allclose(_np(lazy(tl.tensor(x.numpy()))), _np(ref(x)), rtol=1e-6)
    assert type(lazy) is tl.nn.Linear and lazy.in_features == 4
    with pytest.raises(AssertionError, match="in_features inferred from input"):
        other = tl.nn.LazyLinear(3)
        other.load_state_dict(ref.state_dict())
        other(tl.ones(2, 5))


@pytest.mark.parametrize("name,shape", [("BatchNorm1d", (4, 3)), ("BatchNorm1d", (4, 3, 5)),
                                        ("BatchNorm2d", (2, 3, 4, 5)),
                                        ("BatchNorm3d", (2, 3, 2, 3, 4)),
                                        ("InstanceNorm1d", (2, 3, 6)),
                                        ("InstanceNorm2d", (2, 3, 4, 5)),
                                        ("InstanceNorm3d", (2, 3, 2, 3, 4))])
def test_lazy_norms_match_pytorch(name, shape):
    ours, theirs = getattr(tl.nn, "Lazy" + name)(), getattr(torch.nn, "Lazy" + name)()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours.state_dict()["running_mean"]) == "<UninitializedBuffer>"
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    for _ in range(2):  # training: batch statistics, running statistics updated
        out, ref = ours(tl.tensor(x)), theirs(torch.tensor(x))
        np.testing.assert_allclose(_np(out), _np(ref), rtol=1e-5, atol=1e-5)
    assert type(ours) is getattr(tl.nn, name) and type(theirs) is getattr(torch.nn, name)
    assert repr(ours) == repr(theirs)
    for key, value in theirs.state_dict().items():
        np.testing.assert_allclose(_np(ours.state_dict()[key]), value.numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=key)
    ours.eval()
    theirs.eval()
    np.testing.assert_allclose(_np(ours(tl.tensor(x))), _np(theirs(torch.tensor(x))),
                               rtol=1e-5, atol=1e-5)


def test_lazy_norm_options_and_unbatched_instance_norm():
    bn = tl.nn.LazyBatchNorm2d(affine=False, track_running_stats=False)
    assert bn.weight is None and bn.running_mean is None and not bn.has_uninitialized_params()
    bn(tl.randn(2, 3, 4, 4))  # nothing to infer: num_features stays 0, as in PyTorch
    assert type(bn) is tl.nn.BatchNorm2d and bn.num_features == 0
    nobias = tl.nn.LazyBatchNorm1d(bias=False)
    assert nobias.bias is None
    nobias(tl.randn(4, 5))
    assert tuple(nobias.weight.shape) == (5,) and nobias.bias is None
    # (C, L) input: the channels are dim 0 (PyTorch's lazy form reads dim 1 and then fails)
    inorm = tl.nn.LazyInstanceNorm1d()
    inorm(tl.randn(3, 7))
    assert inorm.num_features == 3 and tuple(inorm.running_mean.shape) == (3,)
    loaded = tl.nn.LazyBatchNorm1d()
    loaded.load_state_dict(torch.nn.BatchNorm1d(6).state_dict())
    assert tuple(loaded.running_var.shape) == (6,)


def test_uninitialized_parameter_and_buffer():
    p = tl.nn.UninitializedParameter(dtype=tl.float64)
    assert p.requires_grad and p.dtype == tl.float64 and repr(p) == "<UninitializedParameter>"
    p.materialize((2, 3))
    assert type(p) is tl.nn.Parameter and tuple(p.shape) == (2, 3) and p.dtype == tl.float64
    b = tl.nn.UninitializedBuffer()
    assert not b.requires_grad
    with pytest.raises(ValueError, match="uninitialized parameter in exp"):
        b.exp()
    b.materialize(4, dtype=tl.float64)
    assert type(b) is tl.Tensor and b.dtype == tl.float64 and tuple(b.shape) == (4,)


# -- fractional max pooling ---------------------------------------------------------------------


@pytest.mark.parametrize("shape,kernel,size", [((2, 3, 9, 10), 3, (5, 6)),
                                               ((3, 7, 8), (2, 3), (4, 3)),
                                               ((2, 2, 6, 7, 8), 2, (3, 4, 5)),
                                               ((2, 6, 6, 7), (2, 1, 3), (4, 5, 3))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fractional_max_pool_matches_pytorch(shape, kernel, size, dtype):
    nd = len(size)
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(dtype)
    x.reshape(-1)[::7] = x.reshape(-1)[1]  # ties: the first maximum wins
    batch = shape[0] if len(shape) == nd + 2 else 1
    samples = rng.random((batch, shape[-nd - 1], nd)).astype(dtype)
    xt = torch.tensor(x, requires_grad=True)
    xo = tl.tensor(x, requires_grad=True)
    fn_t, fn_o = getattr(TF, f"fractional_max_pool{nd}d"), getattr(F, f"fractional_max_pool{nd}d")
    out_t, idx_t = fn_t(xt, kernel, size, return_indices=True,
                        _random_samples=torch.tensor(samples))
    out_o, idx_o = fn_o(xo, kernel, size, return_indices=True, _random_samples=tl.tensor(samples))
    np.testing.assert_array_equal(idx_o.numpy(), idx_t.numpy())
    np.testing.assert_array_equal(_np(out_o), _np(out_t))
    assert idx_o.dtype == tl.int64
    g = rng.standard_normal(out_t.shape).astype(dtype)
    out_t.backward(torch.tensor(g))
    out_o.backward(tl.tensor(g))
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-6)
    with_idx = getattr(F, f"fractional_max_pool{nd}d_with_indices")(
        xo, kernel, size, _random_samples=tl.tensor(samples))
    np.testing.assert_array_equal(with_idx[1].numpy(), idx_t.numpy())


def test_fractional_max_pool_nan_ratio_and_random_samples():
    x = np.arange(64, dtype=np.float32).reshape(1, 1, 8, 8)
    x[0, 0, 0, 0] = x[0, 0, 0, 1] = np.nan
    samples = np.array([[[0.3, 0.6]]], np.float32)
    ours = F.fractional_max_pool2d(tl.tensor(x), 2, output_ratio=(0.5, 0.5), return_indices=True,
                                   _random_samples=tl.tensor(samples))
    theirs = TF.fractional_max_pool2d(torch.tensor(x), 2, output_ratio=(0.5, 0.5),
                                      return_indices=True, _random_samples=torch.tensor(samples))
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())  # the last NaN wins
    np.testing.assert_array_equal(ours[0].numpy(), theirs[0].numpy())
    tl.manual_seed(3)
    first = F.fractional_max_pool2d(tl.tensor(x), 3, output_size=4)
    tl.manual_seed(3)
    again = tl.nn.FractionalMaxPool2d(3, output_size=4)(tl.tensor(x))
    np.testing.assert_array_equal(first.numpy(), again.numpy())
    assert tuple(first.shape) == (1, 1, 4, 4)
    pool = tl.nn.FractionalMaxPool3d(2, output_ratio=0.5, return_indices=True)
    out, idx = pool(tl.randn(2, 3, 6, 8, 10))
    assert tuple(out.shape) == tuple(idx.shape) == (2, 3, 3, 4, 5)
    fixed = tl.nn.FractionalMaxPool2d(2, output_size=3, _random_samples=tl.tensor(samples))
    assert list(fixed.buffers())[0] is fixed._random_samples
    assert repr(fixed) == repr(torch.nn.FractionalMaxPool2d(2, output_size=3)) == \
        "FractionalMaxPool2d()"


def test_fractional_max_pool_errors():
    x = tl.randn(2, 3, 8, 9)
    with pytest.raises(ValueError, match="requires specifying either an output_size"):
        F.fractional_max_pool2d(x, 3)
    with pytest.raises(RuntimeError, match="pool height 3 too large relative to input height 8"):
        F.fractional_max_pool2d(x, 3, output_size=(7, 7))
    with pytest.raises(RuntimeError, match="pool time 2 too large relative to input time 6"):
        F.fractional_max_pool3d(tl.randn(1, 1, 6, 7, 8), 2, output_size=(6, 4, 5))
    with pytest.raises(RuntimeError, match="Expected 3D or 4D tensor"):
        F.fractional_max_pool2d(tl.randn(2, 2, 2, 8, 8), 2, output_size=3)
    with pytest.raises(RuntimeError, match=r"_random_samples.size\(2\) equals to 2"):
        F.fractional_max_pool2d(x, 3, output_size=4, _random_samples=tl.rand(2, 3, 3))
    with pytest.raises(RuntimeError, match="no less then input batch size"):
        F.fractional_max_pool2d(x, 3, output_size=4, _random_samples=tl.rand(1, 3, 2))
    with pytest.raises(RuntimeError, match="same dtype as input"):
        F.fractional_max_pool2d(x, 3, output_size=4,
                                _random_samples=tl.rand(2, 3, 2, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="kernel_size must either be a single Int"):
        F.fractional_max_pool2d(x, (3, 3, 3), output_size=4)
    with pytest.raises(ValueError, match="only one of output_size and output_ratio"):
        tl.nn.FractionalMaxPool2d(3, output_size=2, output_ratio=0.5)
    with pytest.raises(ValueError, match=r"output_ratio must be between 0 and 1 \(got 1.5\)"):
        tl.nn.FractionalMaxPool2d(3, output_ratio=1.5)
    with pytest.raises(ValueError, match="kernel_size must be greater than 0"):
        tl.nn.FractionalMaxPool3d(0, output_ratio=0.5)


# -- AdaptiveLogSoftmaxWithLoss -----------------------------------------------------------------


def _adaptive_pair(**kwargs):
    ref = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15], **kwargs).double()
    ours = tl.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15], dtype=tl.float64, **kwargs)
    assert list(ours.state_dict()) == list(ref.state_dict())
    ours.load_state_dict({k: v.numpy() for k, v in ref.state_dict().items()})
    return ours, ref


@pytest.mark.parametrize("head_bias", [False, True])
def test_adaptive_log_softmax_matches_pytorch(head_bias):
    ours, ref = _adaptive_pair(head_bias=head_bias, div_value=2.0)
    assert repr(ours) == repr(ref)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((9, 8))
    target = np.array([0, 3, 4, 9, 10, 19, 12, 1, 15])
    xt, xo = torch.tensor(x, requires_grad=True), tl.tensor(x, requires_grad=True)
    out_t = ref(xt, torch.tensor(target))
    out_o = ours(xo, tl.tensor(target))
    assert out_o._fields == ("output", "loss")
    np.testing.assert_allclose(_np(out_o.output), _np(out_t.output), rtol=1e-12)
    np.testing.assert_allclose(out_o.loss.item(), out_t.loss.item(), rtol=1e-12)
    out_t.loss.backward()
    out_o.loss.backward()
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    for (name, p), q in zip(ours.named_parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=name)
    np.testing.assert_allclose(_np(ours.log_prob(tl.tensor(x))), _np(ref.log_prob(xt)),
                               rtol=1e-12)
    np.testing.assert_array_equal(ours.predict(tl.tensor(x)).numpy(), ref.predict(xt).numpy())
    single = ours(tl.tensor(x[0]), tl.tensor(target[0]))
    assert single.output.ndim == 0
    np.testing.assert_allclose(single.output.item(),
                               ref(torch.tensor(x[0]), torch.tensor(target[0])).output.item())


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")  # PyTorch's, hsz = 0
def test_adaptive_log_softmax_predict_paths_and_errors():
    ours, ref = _adaptive_pair()
    with torch.no_grad():  # a head that prefers the shortlist, or a tail cluster, everywhere
        for bias_row, value in ((slice(0, 4), 50.0), (slice(4, 7), 50.0)):
            w = ref.head.weight.clone()
            w[bias_row] += value
            ref.head.weight.copy_(w)
            ours.head.weight.data = tl.tensor(w.numpy())
            x = np.abs(np.random.default_rng(5).standard_normal((5, 8)))
            np.testing.assert_array_equal(ours.predict(tl.tensor(x)).numpy(),
                                          ref.predict(torch.tensor(x)).numpy())
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique"):
        tl.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5, 3])
    with pytest.raises(ValueError, match="length larger than 0"):
        tl.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [])
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 19\]"):
        ours(tl.randn(2, 8, dtype=tl.float64), tl.tensor([1, 25]))
    with pytest.raises(RuntimeError, match="multi-target not supported"):
        ours(tl.randn(2, 8), tl.tensor([[1, 2]]))


# -- NLLLoss2d and CrossMapLRN2d ----------------------------------------------------------------


def test_nll_loss_2d_is_deprecated_nll_loss():
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
        loss = tl.nn.NLLLoss2d(ignore_index=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        ref = torch.nn.NLLLoss2d(ignore_index=1)
    assert isinstance(loss, tl.nn.NLLLoss) and repr(loss) == repr(ref)
    x = np.random.default_rng(6).standard_normal((2, 4, 3, 3))
    t = np.random.default_rng(7).integers(0, 4, (2, 3, 3))
    np.testing.assert_allclose(loss(F.log_softmax(tl.tensor(x), 1), tl.tensor(t)).item(),
                               ref(TF.log_softmax(torch.tensor(x), 1), torch.tensor(t)).item(),
                               rtol=1e-12)


@pytest.mark.parametrize("size", [2, 3, 4, 5])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_map_lrn2d_matches_pytorch(size, dtype):
    rng = np.random.default_rng(size)
    x = rng.standard_normal((2, 7, 3, 4)).astype(dtype) * 3
    g = rng.standard_normal(x.shape).astype(dtype)
    ours = tl.nn.CrossMapLRN2d(size, alpha=0.2, beta=0.6, k=1.5)
    ref = torch.nn.CrossMapLRN2d(size, alpha=0.2, beta=0.6, k=1.5)
    assert repr(ours) == repr(ref)
    xo, xt = tl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    yo, yt = ours(xo), ref(xt)
    tol = 1e-12 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(_np(yo), _np(yt), rtol=tol, atol=tol)
    yo.backward(tl.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=tol, atol=tol)
    with pytest.raises(ValueError, match="Expected input to be 4D, got 3D instead"):
        ours(tl.randn(2, 3, 4))
