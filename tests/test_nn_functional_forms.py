"""The ``torch.*`` forms of nn.functional (``torch.conv2d``, ``torch.dropout(input, p, train)``,
``torch.batch_norm(...)`` in PyTorch's argument order, losses with the reduction enum):
values, gradients and errors against PyTorch, called the same way on both."""

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
