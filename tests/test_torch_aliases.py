"""The ``torch.*`` forms of nn.functional (``torch.conv2d``, ``torch.dropout(input, p,
train)``, ``torch.batch_norm(...)`` in PyTorch's argument order, losses with the reduction
enum) and the other top-level names (range, scalar_tensor, fill, asarray, frombuffer,
empty_strided, gradient, histogramdd, norms, memory formats, switches): values, gradients and
errors against PyTorch, called the same way on both."""

import importlib.util
import pickle
import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")
rng = np.random.default_rng(11)
IMG = rng.standard_normal((2, 4, 5, 5))
SEQ = rng.standard_normal((2, 4, 7))
VOL = rng.standard_normal((1, 2, 4, 4, 4))
W2 = rng.standard_normal((6, 4, 3, 3))
W1 = rng.standard_normal((6, 4, 3))
W3 = rng.standard_normal((3, 2, 2, 2, 2))
B6 = rng.standard_normal(6)
X, Y, Z = (rng.standard_normal((4, 5)) for _ in range(3))
SIGN = np.array([1.0, -1.0, 1.0, -1.0])
C4, P4 = rng.standard_normal(4), np.abs(rng.standard_normal(4)) + 0.5

# name -> (call(lib, *tensors), arrays, indices of arrays that take no gradient)
CASES = {
    "conv1d": (lambda m, x, w, b: m.conv1d(x, w, b, 2, 1), (SEQ, W1, B6), ()),
    "conv2d": (lambda m, x, w, b: m.conv2d(x, w, b, padding=1, dilation=1), (IMG, W2, B6), ()),
    "conv2d-same": (lambda m, x, w: m.conv2d(x, w, None, 1, "same"), (IMG, W2), ()),
    "conv3d": (lambda m, x, w: m.conv3d(x, w, stride=2), (VOL, W3), ()),
    "conv_transpose1d": (lambda m, x, w: m.conv_transpose1d(x, w, None, 2, 1, 1),
                         (SEQ, W1.transpose(1, 0, 2)), ()),
    "conv_transpose2d": (lambda m, x, w, b: m.conv_transpose2d(x, w, b, 2, 1, 1, 1, 1),
                         (IMG, W2.transpose(1, 0, 2, 3), B6), ()),
    "conv_transpose3d": (lambda m, x, w: m.conv_transpose3d(x, w, stride=2),
                         (VOL, W3.transpose(1, 0, 2, 3, 4)), ()),
    "convolution": (lambda m, x, w, b: m.convolution(x, w, b, [1, 2], [1, 0], [1, 1], False,
                                                     [0, 0], 2),
                    (IMG, W2[:, :2], B6), ()),
    "convolution-transposed": (lambda m, x, w: m.convolution(x, w, None, [2], [1], [1], True,
                                                             [1], 1),
                               (SEQ, W1.transpose(1, 0, 2)), ()),
    "batch_norm-eval": (lambda m, x, w, b, rm, rv: m.batch_norm(x, w, b, rm, rv, False, 0.1,
                                                                1e-5, True),
                        (IMG, C4, C4 * 2, C4, P4), (3, 4)),
    "batch_norm-train": (lambda m, x, w, b: m.batch_norm(x, w, b, None, None, True, 0.1, 1e-3,
                                                         False), (IMG, C4, C4), ()),
    "instance_norm": (lambda m, x, w, b: m.instance_norm(x, w, b, None, None, True, 0.1, 1e-5,
                                                         False), (IMG, C4, C4), ()),
    "layer_norm": (lambda m, x, w, b: m.layer_norm(x, [5, 5], w, b, 1e-4, False),
                   (IMG, IMG[0, 0], IMG[1, 1]), ()),
    "group_norm": (lambda m, x, w, b: m.group_norm(x, 2, w, b, 1e-5, True), (IMG, C4, C4), ()),
    "rms_norm": (lambda m, x, w: m.rms_norm(x, [7], w, 1e-6), (SEQ, SEQ[0, 0]), ()),
    "max_pool1d": (lambda m, x: m.max_pool1d(x, 2), (SEQ,), ()),
    "max_pool2d": (lambda m, x: m.max_pool2d(x, 3, [], 1, 1, True), (IMG,), ()),
    "max_pool3d": (lambda m, x: m.max_pool3d(x, 2, 2), (VOL,), ()),
    "max_pool1d_with_indices": (lambda m, x: m.max_pool1d_with_indices(x, 3, 2)[0], (SEQ,), ()),
    "avg_pool1d": (lambda m, x: m.avg_pool1d(x, 3, (), 1, True, False), (SEQ,), ()),
    "adaptive_avg_pool1d": (lambda m, x: m.adaptive_avg_pool1d(x, 3), (SEQ,), ()),
    "adaptive_max_pool1d": (lambda m, x: m.adaptive_max_pool1d(x, 3)[0], (SEQ,), ()),
    "pixel_shuffle": (lambda m, x: m.pixel_shuffle(x, 2), (IMG,), ()),
    "pixel_unshuffle": (lambda m, x: m.pixel_unshuffle(x[..., :4, :4], 2), (IMG,), ()),
    "channel_shuffle": (lambda m, x: m.channel_shuffle(x, 2), (IMG,), ()),
    "prelu": (lambda m, x, w: m.prelu(x, w), (IMG, C4), ()),
    "rrelu-eval": (lambda m, x: m.rrelu(x, 0.1, 0.3, False), (X,), ()),
    "selu": (lambda m, x: m.selu(x), (X,), ()),
    "celu": (lambda m, x: m.celu(x, 0.7), (X,), ()),
    "threshold": (lambda m, x: m.threshold(x, 0.1, -2.0), (X,), ()),
    "hardshrink": (lambda m, x: m.hardshrink(x, 0.6), (X,), ()),
    "bilinear": (lambda m, a, b, w, bias: m.bilinear(a, b, w, bias),
                 (X, Y[:, :3], rng.standard_normal((2, 5, 3)), C4[:2]), ()),
    "cosine_similarity": (lambda m, a, b: m.cosine_similarity(a, b, 0), (X, Y), ()),
    "pairwise_distance": (lambda m, a, b: m.pairwise_distance(a, b, 3.0, 1e-6, True), (X, Y), ()),
    "pdist": (lambda m, a: m.pdist(a, 1.5), (X,), ()),
    "kl_div": (lambda m, a, t: m.kl_div(a, t, 2), (X, np.abs(Y)), (1,)),
    "kl_div-log-target": (lambda m, a, t: m.kl_div(a, t, 0, log_target=True), (X, Y), ()),
    "bce_with_logits": (lambda m, a, t, w, pw: m.binary_cross_entropy_with_logits(a, t, w, pw, 1),
                        (X, (Y > 0) * 1.0, np.abs(Z), P4[:1] + np.zeros(5)), (1, 2, 3)),
    "cosine_embedding_loss": (lambda m, a, b, t: m.cosine_embedding_loss(a, b, t, 0.2, 0),
                              (X, Y, SIGN), (2,)),
    "hinge_embedding_loss": (lambda m, a, t: m.hinge_embedding_loss(a, t, 0.5, 2),
                             (X[:, 0], SIGN), (1,)),
    "margin_ranking_loss": (lambda m, a, b, t: m.margin_ranking_loss(a, b, t, 0.1, 1),
                            (X[:, 0], Y[:, 0], SIGN), (2,)),
    "triplet_margin_loss": (lambda m, a, p, n: m.triplet_margin_loss(a, p, n, 0.5, 1.0, 1e-6,
                                                                     True, 0), (X, Y, Z), ()),
    "poisson_nll_loss": (lambda m, a, t: m.poisson_nll_loss(a, t, True, True, 1e-8, 2),
                         (X, np.abs(Y) * 3), (1,)),
}


def _run(lib, fn, arrays, frozen):
    tensors = [lib.tensor(a, requires_grad=i not in frozen) for i, a in enumerate(arrays)]
    out = fn(lib, *tensors)
    out.sum().backward() if out.numel() > 1 else out.backward()
    return out, [t.grad for i, t in enumerate(tensors) if i not in frozen]


@pytest.mark.parametrize("name", sorted(CASES))
def test_alias_matches_torch_values_and_gradients(name):
    fn, arrays, frozen = CASES[name]
    ours, our_grads = _run(tl, fn, arrays, frozen)
    theirs, their_grads = _run(torch, fn, arrays, frozen)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6,
                               atol=1e-8)
    for g, h in zip(our_grads, their_grads, strict=True):
        np.testing.assert_allclose(g.numpy(), h.numpy(), rtol=1e-6, atol=1e-8)


def test_embedding_takes_weight_first_and_padding_idx_minus_one_means_none():
    w = rng.standard_normal((6, 3))
    idx = np.array([[0, 2, 2], [5, 1, 0]])
    for padding in (-1, 2):
        grads = []
        for lib in (tl, torch):
            weight = lib.tensor(w, requires_grad=True)
            out = lib.embedding(weight, lib.tensor(idx), padding)
            out.sum().backward()
            grads.append(weight.grad.numpy())
        np.testing.assert_allclose(*grads)
    np.testing.assert_allclose(tl.embedding(tl.tensor(w), tl.tensor(idx)).numpy(),
                               torch.embedding(torch.tensor(w), torch.tensor(idx)).numpy())


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_embedding_bag_returns_four_tensors_like_torch(mode):
    w = rng.standard_normal((10, 3))
    idx, offsets = np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 4])
    ours = tl.embedding_bag(tl.tensor(w), tl.tensor(idx), tl.tensor(offsets), False, mode)
    theirs = torch.embedding_bag(torch.tensor(w), torch.tensor(idx), torch.tensor(offsets),
                                 False, mode)
    assert len(ours) == 4
    np.testing.assert_allclose(ours[0].numpy(), theirs[0].numpy())
    for a, b in zip(ours[1:], theirs[1:], strict=True):
        assert a.tolist() == b.tolist() and a.dtype == tl.int64


def test_dropout_forms_take_p_and_train_positionally():
    x = tl.ones(200, 10)
    assert tl.dropout(x, 0.5, False) is x
    tl.manual_seed(0)
    y = tl.dropout(x, 0.5, True)
    assert set(np.unique(y.numpy())) <= {0.0, 2.0} and 0.3 < (y.numpy() == 0).mean() < 0.7
    z = tl.ones(50, 8, 3)
    out = tl.feature_dropout(z, 0.5, True).numpy()
    assert (out == out[:, :, :1]).all() and set(np.unique(out)) <= {0.0, 2.0}
    assert tl.feature_alpha_dropout(z, 0.2, False) is z and tl.alpha_dropout(z, 0.2, False) is z
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        tl.feature_dropout(tl.ones(3), 0.5, True)
    for name in ("dropout_", "feature_dropout_", "alpha_dropout_", "feature_alpha_dropout_"):
        t = tl.ones(4, 3, 2)
        version = t._version_counter[0]
        assert getattr(tl, name)(t, 0.5, True) is t and t._version_counter[0] > version
        assert (getattr(tl, name)(t, 0.5, False).numpy() == t.numpy()).all()
    for lib in (tl, torch):
        with pytest.raises(TypeError):
            lib.dropout(lib.ones(2), 0.5)  # train is required in the torch.* form


def test_inplace_activation_forms_write_into_input():
    for name, args in [("selu_", ()), ("celu_", (0.5,)), ("threshold_", (0.0, 1.5)),
                       ("rrelu_", (0.1, 0.3, False))]:
        ours, theirs = tl.tensor(X), torch.tensor(X)
        assert getattr(tl, name)(ours, *args) is ours
        getattr(torch, name)(theirs, *args)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def test_reduction_enum_and_names():
    a, t = tl.tensor(X), tl.tensor(np.abs(Y))
    assert tl.kl_div(a, t, 0).shape == (4, 5)
    np.testing.assert_allclose(tl.kl_div(a, t, 1).item(), tl.kl_div(a, t, "mean").item())
    with pytest.raises(ValueError, match="reduction"):
        tl.kl_div(a, t, 3)


def test_ctc_loss_torch_form():
    logp = np.log(rng.dirichlet(np.ones(4), size=(6, 2)))
    targets, in_len, tg_len = np.array([[1, 2], [3, 1]]), [6, 5], [2, 1]
    ours = tl.ctc_loss(tl.tensor(logp), tl.tensor(targets), in_len, tg_len, 0, 1, False)
    theirs = torch.ctc_loss(torch.tensor(logp), torch.tensor(targets), in_len, tg_len, 0, 1,
                            False)
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-6)


def test_range_is_inclusive_and_deprecated():
    cases = [(0, 4), (0, 1, 0.25), (0, 10, 3), (4, 0, -1), (0, 1, 0.3)]
    for args in cases:
        with pytest.warns(UserWarning, match="torch.range is deprecated"):
            ours = tl.range(*args)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = torch.range(*args)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
        assert ours.dtype == tl.float32
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert tl.range(0, 3, dtype=tl.int64).tolist() == [0, 1, 2, 3]
        with pytest.raises(RuntimeError, match="inconsistent with step sign"):
            tl.range(4, 0)


def test_scalar_tensor_fill_and_asarray():
    for value, kw in [(3, {}), (True, {}), (2.5, {"dtype": tl.int64})]:
        ours = tl.scalar_tensor(value, **kw)
        theirs = torch.scalar_tensor(value, **{k: torch.int64 for k in kw})
        assert ours.shape == () and ours.item() == theirs.item()
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    filled = tl.fill(tl.ones(2, dtype=tl.int64), 2.7)
    assert filled.tolist() == [2, 2] and filled.dtype == tl.int64
    v = tl.tensor(3.0, requires_grad=True)
    x = tl.ones(3, requires_grad=True)
    out = tl.fill(x, v)
    (out * tl.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert out.tolist() == [3.0] * 3 and v.grad.item() == 6.0 and x.grad.tolist() == [0.0] * 3
    with pytest.raises(RuntimeError, match="0-dimension value tensor"):
        tl.fill(tl.ones(2), tl.tensor([3.0]))
    t = tl.ones(3)
    assert tl.asarray(t) is t and tl.asarray(t, copy=True) is not t
    arr = np.arange(3.0)
    shared = tl.asarray(arr)
    arr[0] = 7.0
    assert shared.tolist() == [7.0, 1.0, 2.0] and shared.dtype == tl.float64
    assert tl.asarray(arr, dtype=tl.float32).dtype == tl.float32
    assert tl.asarray([1, 2]).dtype == tl.int64 and tl.asarray(3.5).dtype == tl.float32
    assert tl.asarray([1.0], requires_grad=True).requires_grad


def test_frombuffer_shares_memory():
    buf = bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00")
    ours = tl.frombuffer(buf, dtype=tl.int32)
    theirs = torch.frombuffer(bytearray(buf), dtype=torch.int32)
    assert ours.tolist() == theirs.tolist() == [1, 2]
    buf[0] = 5
    assert ours.tolist() == [5, 2]
    assert tl.frombuffer(bytearray(8), dtype=tl.float32, count=1, offset=4).tolist() == [0.0]
    assert tl.frombuffer(b"abc", dtype=tl.uint8).tolist() == [97, 98, 99]
    with pytest.raises(ValueError, match="multiple of element size"):
        tl.frombuffer(bytearray(6), dtype=tl.float32)


def test_empty_strided_and_permuted_report_torch_strides():
    for size, stride in [((2, 3), (1, 2)), ((2, 3, 4), (12, 4, 1)), ((4, 0), (1, 1))]:
        assert tl.empty_strided(size, stride).stride() == torch.empty_strided(size,
                                                                              stride).stride()
    ours, theirs = tl.empty_permuted((2, 3, 5), (0, 2, 1)), torch.empty_permuted((2, 3, 5),
                                                                                  (0, 2, 1))
    assert ours.shape == theirs.shape and ours.stride() == theirs.stride()
    assert tl.empty_strided((2, 2), (2, 1), dtype=tl.int64).dtype == tl.int64
    assert tl.ones(2).new_empty_strided((2, 3), (1, 2)).stride() == (1, 2)


GRADIENT_CASES = [
    ((4,), {}), ((4,), {"spacing": 2.0}), ((4,), {"spacing": [2.0]}),
    ((2, 3), {}), ((2, 3), {"dim": 1, "edge_order": 2}), ((2, 3), {"spacing": [1.0, 2.0]}),
    ((3, 5), {"dim": [1], "spacing": "coords"}), ((3, 5), {"dim": 1, "spacing": "coords",
                                                           "edge_order": 2}),
    ((3, 4, 3), {"dim": (0, 2), "edge_order": 2, "spacing": 0.5}),
]


@pytest.mark.parametrize("shape,kwargs", GRADIENT_CASES)
def test_gradient_matches_torch(shape, kwargs):
    data = rng.standard_normal(shape)
    results = []
    for lib in (tl, torch):
        kw = dict(kwargs)
        if kw.get("spacing") == "coords":
            kw["spacing"] = (lib.tensor([0.0, 1.0, 3.0, 4.0, 7.5], dtype=lib.float64),)
        x = lib.tensor(data, requires_grad=True)
        outs = lib.gradient(x, **kw)
        sum(((o * (k + 1)).sum() for k, o in enumerate(outs)), lib.tensor(0.0)).backward()
        results.append(([o.detach().numpy() for o in outs], x.grad.numpy()))
    for a, b in zip(results[0][0], results[1][0], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10, atol=1e-12)


def test_gradient_integer_input_and_errors():
    assert tl.gradient(tl.tensor([1, 4, 9, 16]))[0].tolist() == [3.0, 4.0, 6.0, 7.0]
    assert tl.gradient(tl.tensor([1, 4, 9]))[0].dtype == tl.float32
    for bad in (lambda m: m.gradient(m.tensor([1.0])),
                lambda m: m.gradient(m.tensor([1.0, 2.0]), edge_order=2)):
        for lib in (tl, torch):
            with pytest.raises(RuntimeError, match="at least edge_order\\+1"):
                bad(lib)


def test_histogramdd_matches_torch():
    points = rng.standard_normal((50, 2)).astype(np.float32)
    w = rng.uniform(0, 1, 50).astype(np.float32)
    calls = [lambda m, p: m.histogramdd(p, bins=[3, 4]),
             lambda m, p: m.histogramdd(p, bins=2, range=[-1.0, 1.0, 0.0, 2.0], density=True),
             lambda m, p: m.histogramdd(p, bins=[m.tensor([-2.0, 0.0, 2.0]),
                                                 m.tensor([-1.0, 1.0])],
                                        weight=m.tensor(w)),
             lambda m, p: m.histogramdd(p[:2] * 0 + 1, bins=2)]
    for call in calls:
        ours, theirs = call(tl, tl.tensor(points)), call(torch, torch.tensor(points))
        np.testing.assert_allclose(ours.hist.numpy(), theirs.hist.numpy(), rtol=1e-5)
        for a, b in zip(ours.bin_edges, theirs.bin_edges, strict=True):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
        assert ours.hist.dtype == tl.float32


def test_frobenius_and_nuclear_norms():
    a = rng.standard_normal((2, 3, 4))
    for call in (lambda m, t: m.frobenius_norm(t, [1]), lambda m, t: m.frobenius_norm(t, [0, 2],
                                                                                    True),
                 lambda m, t: m.nuclear_norm(t, [1, 2]), lambda m, t: m.nuclear_norm(t[0]),
                 lambda m, t: m.nuclear_norm(t[0], True)):
        grads = []
        for lib in (tl, torch):
            t = lib.tensor(a, requires_grad=True)
            if lib is tl:
                with pytest.warns(UserWarning, match="deprecated"):
                    out = call(lib, t)
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # PyTorch warns once per process
                    out = call(lib, t)
            out.sum().backward()
            grads.append((out.detach().numpy(), t.grad.numpy()))
        np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-10)
        np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-8, atol=1e-12)


def test_memory_formats_and_layouts():
    for name in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
        fmt = getattr(tl, name)
        assert isinstance(fmt, tl.memory_format) and repr(fmt) == repr(getattr(torch, name))
        assert pickle.loads(pickle.dumps(fmt)) is fmt
    assert repr(tl.strided) == "torch.strided" and isinstance(tl.sparse_coo, tl.layout)
    assert tl.ones(2).layout == tl.strided and tl.strided != tl.sparse_coo
    x = tl.ones(2, 3, 4, 5)
    assert x.contiguous(memory_format=tl.channels_last).shape == (2, 3, 4, 5)
    assert x.to(memory_format=tl.channels_last).shape == (2, 3, 4, 5)
    assert tl.empty_like(x, memory_format=tl.preserve_format).shape == (2, 3, 4, 5)
    assert x.is_contiguous(memory_format=tl.contiguous_format)


def test_typename_matches_torch():
    for make in (lambda m: m.ones(2), lambda m: m.ones(2, dtype=m.int64),
                 lambda m: m.ones(2, dtype=m.bool), lambda m: 3, lambda m: None,
                 lambda m: len, lambda m: m.nn.Parameter(m.ones(2))):
        assert tl.typename(make(tl)) == torch.typename(make(torch))
    assert tl.typename(tl.nn.Linear(1, 1)) == "tinygrad_lite.nn.modules.linear.Linear"


def test_anomaly_switches():
    assert not tl.is_anomaly_enabled() and tl.is_anomaly_check_nan_enabled()
    try:
        tl.set_anomaly_enabled(True, False)
        assert tl.is_anomaly_enabled() and not tl.is_anomaly_check_nan_enabled()
    finally:
        tl.set_anomaly_enabled(False)
    assert not tl.is_anomaly_enabled() and tl.is_anomaly_check_nan_enabled()


def test_process_switches():
    assert tl.get_float32_matmul_precision() == "highest"
    try:
        tl.set_float32_matmul_precision("medium")
        assert tl.get_float32_matmul_precision() == "medium"
        with pytest.warns(UserWarning, match="not one of"):
            tl.set_float32_matmul_precision("foo")
        assert tl.get_float32_matmul_precision() == "medium"
    finally:
        tl.set_float32_matmul_precision("highest")
    assert tl.set_flush_denormal(True) is False
    assert not tl.is_warn_always_enabled()
    tl.set_warn_always(True)
    assert tl.is_warn_always_enabled()
    tl.set_warn_always(False)
    assert tl.get_device(tl.ones(2)) == torch.get_device(torch.ones(2)) == -1
    assert tl.is_signed(tl.ones(2)) and not tl.is_signed(tl.ones(2, dtype=tl.uint8))
    assert not tl.is_signed(tl.ones(2, dtype=tl.bool))
    assert not tl.is_inference(tl.ones(2)) and not tl.is_distributed(tl.ones(2))
    assert isinstance(tl.default_generator, tl.Generator)
    tl.manual_seed(5)
    assert tl.default_generator.initial_seed() == 5
    assert tl.version.__version__ == tl.__version__ and tl.version.cuda is None


def test_deterministic_debug_mode():
    try:
        for mode, (on, warn_only) in [("warn", (True, True)), (2, (True, False)),
                                      ("default", (False, False)), (1, (True, True))]:
            tl.set_deterministic_debug_mode(mode)
            assert tl.are_deterministic_algorithms_enabled() is on
            assert tl.is_deterministic_algorithms_warn_only_enabled() is warn_only
            assert tl.get_deterministic_debug_mode() == {"warn": 1, "default": 0}.get(mode, mode)
        for bad in ("x", 5):
            with pytest.raises(RuntimeError, match="invalid value of debug_mode"):
                tl.set_deterministic_debug_mode(bad)
    finally:
        tl.set_deterministic_debug_mode(0)


def test_autocast_switches():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert not tl.is_autocast_enabled("cpu") and not tl.is_autocast_cpu_enabled()
        # PyTorch's CPU default (float16 where ml_dtypes, which bfloat16 needs, is missing)
        default = tl.bfloat16 if importlib.util.find_spec("ml_dtypes") else tl.float16
        assert tl.get_autocast_dtype("cpu") == default == tl.get_autocast_cpu_dtype()
        assert tl.is_autocast_cache_enabled() and not tl.is_autocast_enabled()
        with tl.autocast("cpu"):
            assert tl.is_autocast_enabled("cpu") and not tl.is_autocast_enabled()
        a = tl.ones(2, 2)
        try:
            tl.set_autocast_enabled("cpu", True)
            assert tl.is_autocast_enabled("cpu") and (a @ a).dtype == default
            tl.set_autocast_dtype("cpu", tl.float32)
            assert (a @ a).dtype == tl.float32 and tl.get_autocast_dtype("cpu") == tl.float32
        finally:
            tl.set_autocast_enabled("cpu", False)
        try:
            # regions start in the configured dtype (float32: refused with PyTorch's warning)
            with pytest.warns(UserWarning, match="not supported"), tl.autocast("cpu") as region:
                assert region.fast_dtype == tl.float32 and not tl.is_autocast_enabled("cpu")
            tl.set_autocast_cpu_dtype(tl.float16)
            tl.set_autocast_cpu_enabled(True)
            assert tl.is_autocast_enabled("cpu") and (a @ a).dtype == tl.float16
        finally:
            tl.set_autocast_cpu_enabled(False)
            tl.set_autocast_dtype("cpu", default)
        assert (a @ a).dtype == tl.float32
        tl.set_autocast_enabled(True)  # PyTorch's older (CUDA) form: no effect on the CPU
        assert tl.is_autocast_enabled() and (a @ a).dtype == tl.float32
        tl.set_autocast_enabled(False)
        tl.set_autocast_cache_enabled(False)
        assert not tl.is_autocast_cache_enabled()
        tl.set_autocast_cache_enabled(True)
        with pytest.raises(RuntimeError, match="device type"):
            tl.set_autocast_dtype("foo", tl.float16)
    with pytest.warns(DeprecationWarning, match="is_autocast_cpu_enabled"):
        tl.is_autocast_cpu_enabled()


def test_set_default_tensor_type_and_binomial():
    try:
        with pytest.warns(UserWarning, match="deprecated"):
            tl.set_default_tensor_type("torch.DoubleTensor")
        assert tl.get_default_dtype() == tl.float64
        with pytest.warns(UserWarning):
            tl.set_default_tensor_type(tl.FloatTensor)
        assert tl.get_default_dtype() == tl.float32
        with pytest.warns(UserWarning), pytest.raises(TypeError):
            tl.set_default_tensor_type(tl.LongTensor)
    finally:
        tl.set_default_dtype(tl.float32)
    draws = tl.binomial(tl.full((2000,), 10.0), tl.full((2000,), 0.3))
    assert draws.dtype == tl.float32 and abs(draws.mean().item() - 3.0) < 0.2
    assert (draws.numpy() == np.round(draws.numpy())).all()
    for lib in (tl, torch):
        with pytest.raises(ValueError, match="floating-point"):
            lib.binomial(lib.tensor([10, 0]), lib.tensor([0.5, 0.3]))


def test_real_imag_and_grad_scaler():
    x = tl.ones(3)
    assert tl.real(x) is x
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="imag is not implemented"):
            lib.imag(lib.ones(3))
    assert tl.GradScaler is tl.amp.GradScaler


def test_cpu_module_and_memory_format_keywords():
    for name in ("is_available", "is_initialized", "current_device", "device_count"):
        assert getattr(tl.cpu, name)() == getattr(torch.cpu, name)()
    stream = tl.cpu.current_stream()
    assert stream.query() and stream.record_event().query()
    with tl.cpu.stream(tl.cpu.Stream()):
        tl.cpu.synchronize()
    assert tl.legacy_contiguous_format is tl.contiguous_format
    x = tl.ones(2, 3, requires_grad=True)
    copy = x.clone(memory_format=tl.preserve_format)
    copy.sum().backward()
    assert x.grad.tolist() == [[1.0] * 3] * 2
    assert tl.empty(2, 3, memory_format=tl.contiguous_format, pin_memory=False).shape == (2, 3)
