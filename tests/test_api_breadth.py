"""The everyday torch.* API that programs reach first: devices, types, sizes, generators and
sampling, the new math and sorting functions (against PyTorch where installed)."""

import numpy as np
import pytest

import tinygrad_lite as tl


def test_device_idioms_of_real_programs():
    device = tl.device("cuda" if tl.cuda.is_available() else "cpu")
    assert device == "cpu" and device == tl.device("cpu") and repr(device) == "device(type='cpu')"
    x = tl.randn(3, 4, device=device).to(device)
    assert x.device == device and x.to(device, tl.float64).dtype == tl.float64
    assert x.cpu() is x and x.to("cpu:0") is x
    assert tl.cuda.device_count() == 0 and not tl.backends.mps.is_available()
    assert not tl.accelerator.is_available()
    tl.backends.cudnn.benchmark = True
    tl.backends.cuda.matmul.allow_tf32 = True
    tl.cuda.manual_seed_all(0)
    for bad in (lambda: tl.zeros(2, device="cuda"), lambda: x.to("cuda:0"), x.cuda,
                lambda: tl.tensor([1.0], device="mps"), lambda: x.to(tl.device("cuda")),
                lambda: tl.nn.Linear(2, 2).to(tl.device("cuda", 0)), lambda: tl.device(0),
                tl.device("cuda").__enter__,
                lambda: tl.ones(2, device=tl.device("mps", 0))):
        with pytest.raises(RuntimeError, match="not compiled with CUDA|CPU memory"):
            bad()
    with pytest.raises(AssertionError):  # PyTorch's type for these, too
        x.to("cuda")
    # naming, printing and comparing another device is fine, as in a CPU-only PyTorch build
    cuda = tl.device("cuda")
    assert (cuda.type, cuda.index, str(cuda), repr(cuda)) == ("cuda", None, "cuda",
                                                              "device(type='cuda')")
    assert tl.device("cuda", 1) == "cuda:1" and tl.device("cuda", 0) == tl.device("cuda:0")
    assert x.device != cuda and cuda != "cpu" and str(tl.device("meta")) == "meta"
    with pytest.raises(RuntimeError, match="Invalid device string"):
        tl.device("float64")


def test_size_types_and_new_tensors():
    x = tl.ones(2, 3)
    assert isinstance(x.shape, tl.Size) and x.shape == (2, 3) and x.size() == tl.Size([2, 3])
    assert x.shape.numel() == 6 and isinstance(x.shape[1:], tl.Size) and x.size(1) == 3
    assert x.type() == "torch.FloatTensor" and x.type(tl.DoubleTensor).dtype == tl.float64
    assert x.type("torch.LongTensor").dtype == tl.int64
    assert x.type_as(tl.zeros(1, dtype=tl.int32)).dtype == tl.int32
    assert isinstance(x, tl.FloatTensor) and not isinstance(x, tl.LongTensor)
    assert tl.LongTensor([1, 2]).dtype == tl.int64 and tl.FloatTensor(2, 3).shape == (2, 3)
    assert tl.Tensor(2, 3).shape == (2, 3) and tl.Tensor([1, 2]).dtype == tl.float32
    n = x.new_zeros(4)
    assert n.shape == (4,) and n.dtype == x.dtype
    assert x.new_full((2,), 7.0).numpy().tolist() == [7, 7]
    assert x.new_tensor([1, 2]).dtype == tl.float32 and x.new_ones(2, 2).sum().item() == 4
    assert x.nelement() == 6 and x.element_size() == 4 and x.is_contiguous()
    assert x.is_floating_point() and not tl.ones(2, dtype=tl.int64).is_floating_point()
    assert tl.is_tensor(x) and tl.numel(x) == 6 and not x.is_cuda


def test_default_dtype():
    try:
        tl.set_default_dtype(tl.float64)
        assert tl.tensor([1.5]).dtype == tl.float64 and tl.zeros(2).dtype == tl.float64
        assert tl.get_default_dtype() == tl.float64
    finally:
        tl.set_default_dtype(tl.float32)
    with pytest.raises(TypeError, match="floating-point"):
        tl.set_default_dtype(tl.int64)


def test_generators_states_and_inference_mode():
    g = tl.Generator().manual_seed(7)
    a = tl.rand(3, generator=g)
    g.manual_seed(7)
    assert np.array_equal(a.numpy(), tl.rand(3, generator=g).numpy())
    state = tl.get_rng_state()
    b = tl.randn(4)
    tl.set_rng_state(state)
    assert np.array_equal(b.numpy(), tl.randn(4).numpy())
    tl.set_rng_state(state)
    with tl.random.fork_rng():
        tl.randn(5)  # drawn inside: the stream outside does not move
    assert np.array_equal(b.numpy(), tl.randn(4).numpy())
    w = tl.ones(2, requires_grad=True)
    with tl.inference_mode():
        assert not (w * 2).requires_grad and tl.is_inference_mode_enabled()

    @tl.inference_mode()
    def predict():
        return (w * 2).requires_grad

    assert predict() is False


def test_sampling_distributions():
    tl.manual_seed(0)
    draws = tl.multinomial(tl.tensor([0.0, 1.0, 3.0]), 4000, replacement=True)
    counts = np.bincount(draws.numpy(), minlength=3)
    assert counts[0] == 0 and abs(counts[2] / counts[1] - 3) < 0.5
    rows = tl.multinomial(tl.tensor([[1.0, 1.0, 0.0, 1.0]] * 5), 3)
    assert rows.shape == (5, 3) and all(len(set(r)) == 3 and 2 not in r for r in rows.tolist())
    with pytest.raises(RuntimeError, match="without replacement"):
        tl.multinomial(tl.tensor([1.0, 0.0]), 2)
    assert sorted(tl.randperm(6).tolist()) == list(range(6))
    assert set(tl.bernoulli(tl.full((100,), 0.5)).unique().tolist()) <= {0.0, 1.0}
    assert tl.normal(tl.zeros(1000), 2.0).std().item() == pytest.approx(2.0, rel=0.15)
    assert tl.normal(1.0, 0.5, (3, 2)).shape == (3, 2)
    assert tl.poisson(tl.full((500,), 4.0)).mean().item() == pytest.approx(4.0, rel=0.15)
    w = tl.empty(1000)
    for fill, check in ((lambda t: t.uniform_(-1, 1), lambda v: -1 <= v.min() <= v.max() < 1),
                        (lambda t: t.normal_(3, 0.1), lambda v: abs(v.mean() - 3) < 0.05),
                        (lambda t: t.exponential_(2.0), lambda v: v.min() >= 0),
                        (lambda t: t.random_(0, 5), lambda v: set(v.tolist()) <= set(range(5))),
                        (lambda t: t.bernoulli_(0.3), lambda v: set(v.tolist()) <= {0, 1})):
        before = w._version
        assert fill(w) is w and w._version == before + 1 and check(w.numpy())


def test_operators_keep_pytorch_result_dtypes():
    a = tl.tensor([-7, 7], dtype=tl.int32)
    assert (a // 2).dtype == tl.int32 and (a // 2).tolist() == [-4, 3]
    assert (a % 3).tolist() == [2, 1] and (a & 0x1337).dtype == tl.int32
    assert (a << 1).tolist() == [-14, 14] and (a >> 1).tolist() == [-4, 3]
    assert (7 // tl.tensor([2, 3])).tolist() == [3, 2]
    assert (tl.tensor([5.5]) % 2).item() == 1.5 and (tl.tensor([-5.5]) % 2).item() == 0.5


def test_sorting_results_are_named_tuples():
    x = tl.tensor([[3.0, 1.0, 2.0]], requires_grad=True)
    values, indices = x.sort(descending=True)
    assert values.tolist() == [[3.0, 2.0, 1.0]] and indices.tolist() == [[0, 2, 1]]
    top = x.topk(2)
    assert top.values.tolist() == [[3.0, 2.0]] and top.indices.tolist() == [[0, 2]]
    top.values.sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0, 1.0]]
    out, inverse, counts = tl.unique(tl.tensor([3, 1, 3]), return_inverse=True,
                                     return_counts=True)
    assert out.tolist() == [1, 3] and inverse.tolist() == [1, 0, 1] and counts.tolist() == [1, 2]


@pytest.mark.parametrize("name", ["sort", "argsort", "msort", "median", "nanmedian", "mode",
                                  "logcumsumexp", "cummax", "cummin"])
def test_sorting_functions_match_pytorch(name):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, (4, 6)).astype(np.float64)  # ties, resolved as PyTorch does
    x[1, 2] = np.nan if name in ("sort", "nanmedian", "median") else x[1, 2]
    args = {"sort": (1,), "argsort": (1,), "msort": (), "median": (1,), "nanmedian": (1,),
            "mode": (1,), "logcumsumexp": (1,), "cummax": (1,), "cummin": (1,)}[name]
    ours = getattr(tl, name)(tl.tensor(x), *args)
    theirs = getattr(torch, name)(torch.tensor(x), *args)
    if isinstance(theirs, tuple):
        np.testing.assert_array_equal(ours[0].numpy(), theirs[0].numpy())
        if name not in ("median", "nanmedian", "mode"):  # which tied index: unspecified
            np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
    else:
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh",
                                  "erf", "erfc", "erfinv", "lgamma", "digamma", "logit", "sinc",
                                  "frac", "deg2rad", "rad2deg", "sgn", "signbit"])
def test_unary_math_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    x = np.linspace(-0.95, 0.95, 23)
    x = np.abs(x) + 0.05 if name in ("lgamma", "digamma", "logit") else x
    x = x * 0.9 if name == "logit" else x
    ours = getattr(tl, name)(tl.tensor(x)).numpy()
    theirs = getattr(torch, name)(torch.tensor(x)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


def test_binary_math_matches_pytorch():
    torch = pytest.importorskip("torch")
    a = np.array([-3.5, -1.0, 0.0, 2.5, 7.0])
    b = np.array([2.0, -3.0, 1.5, -0.5, 4.0])
    for name in ("fmod", "remainder", "floor_divide", "copysign", "xlogy", "logaddexp",
                 "logaddexp2", "float_power", "heaviside"):
        x, y = (np.abs(a), np.abs(b)) if name == "float_power" else (a, b)
        ours = getattr(tl, name)(tl.tensor(x), tl.tensor(y)).numpy()
        theirs = getattr(torch, name)(torch.tensor(x), torch.tensor(y)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14, err_msg=name)
    for name, args in (("diff", {"n": 2}), ("count_nonzero", {}), ("nan_to_num", {})):
        ours = getattr(tl, name)(tl.tensor(a), **args).numpy()
        theirs = getattr(torch, name)(torch.tensor(a), **args).numpy()
        np.testing.assert_allclose(ours, theirs, err_msg=name)


def test_special_function_fallbacks_without_scipy():
    import math

    from tinygrad_lite.ops.special import erf_fallback, polygamma_fallback

    grid = np.concatenate([np.linspace(-8, 8, 4001), [1e-300, -1e-12, 26.0]])
    expected = np.array([math.erf(v) for v in grid])
    np.testing.assert_allclose(erf_fallback(grid), expected, rtol=4e-15, atol=1e-300)
    h = 1e-6
    points = np.linspace(0.3, 40, 200)
    lg = np.array([math.lgamma(v) for v in points + h]) - np.array([math.lgamma(v)
                                                                    for v in points - h])
    np.testing.assert_allclose(polygamma_fallback(0, points), lg / (2 * h), rtol=1e-7)
    negative = np.array([-0.5, -1.5, -2.25])  # reflection: psi(1 - x) - pi cot(pi x)
    direct = polygamma_fallback(0, 1 - negative) - np.pi / np.tan(np.pi * negative)
    np.testing.assert_allclose(polygamma_fallback(0, negative), direct, rtol=1e-12)


def test_device_as_a_context_manager_and_lenient_channel_dropout():
    with tl.device("cpu") as device:
        assert device == tl.device("cpu") and tl.empty(2).device == device
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        out = tl.nn.functional.dropout2d(tl.ones(4, 6), 0.5)
    assert out.shape == (4, 6) and set(np.unique(out.numpy())) <= {0.0, 2.0}
    with pytest.warns(UserWarning, match="dropout3d"):
        assert tl.nn.Dropout3d(0.5)(tl.ones(3, 5)).shape == (3, 5)
    with pytest.raises(RuntimeError, match="dropout1d"):
        tl.nn.functional.dropout1d(tl.ones(6), 0.5)


def test_reflected_sum_and_product_list_the_tensor_first():
    a = tl.randn(3, requires_grad=True)
    b = a.sin()
    for out in (2 * b, 2 + b):
        assert out.grad_fn.next_functions[0][0] is b.grad_fn
        assert out.grad_fn.next_functions[1] == (None, 0)


def test_complex_numbers_are_refused_not_truncated():
    # NumPy casts 1j to a float32 0.0 silently: b * 1j gave zeros before
    b = tl.ones(3, requires_grad=True)
    for combine in (lambda: 1j - b, lambda: b * 1j, lambda: tl.add(b, 2j),
                    lambda: b + np.complex64(1j), lambda: b * np.array([1j, 1, 1]),
                    lambda: tl.where(b > 0, b, 1j), lambda: b ** 1j):
        with pytest.raises(TypeError, match="complex operands are not supported"):
            combine()
    for fill in (lambda: tl.full((2,), 1j, dtype=tl.float32), lambda: tl.full_like(b, 1j),
                 lambda: b.new_full((2,), 1j), lambda: tl.clamp(b, max=1j)):
        with pytest.raises(RuntimeError, match="cannot be converted to type float32"):
            fill()


def test_number_minus_tensor_is_rsub_with_one_edge():
    b = tl.tensor([1.0, 2.0], requires_grad=True)
    y = 2 - b
    assert y.grad_fn.name() == "RsubBackward1" and len(y.grad_fn.next_functions) == 1
    (y * tl.tensor([3.0, 4.0])).sum().backward()
    assert b.grad.tolist() == [-3.0, -4.0] and y.tolist() == [1.0, 0.0]
    assert (2.5 - tl.arange(3)).tolist() == [2.5, 1.5, 0.5]  # int tensor: float result
    assert (1 - tl.ones(2, dtype=tl.float64)).dtype == tl.float64
    assert (b - 2).grad_fn.name() == "SubBackward0" and (tl.ones(2) - b).grad_fn.name() == \
        "SubBackward0"
    x = tl.randn(3, dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradgradcheck(lambda t: (3 - t) ** 2, (x,))
