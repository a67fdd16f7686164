"""Embedding (max_norm, norm_type, scale_grad_by_freq, padding_idx, from_pretrained) and
EmbeddingBag / embedding_bag (sum, mean, max; offsets, include_last_offset, per_sample_weights,
padding_idx) against PyTorch, values and gradients in float64."""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")
rng = np.random.default_rng(5)
W = rng.standard_normal((7, 4))
IDX = np.array([1, 2, 4, 4, 3, 0, 6, 2, 1])


def _weights():
    return tl.tensor(W.copy(), requires_grad=True), torch.tensor(W.copy(), requires_grad=True)


def _check(ours, theirs, w_o, w_t, upstream_seed=0):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12,
                               atol=1e-12)
    up = np.random.default_rng(upstream_seed).standard_normal(tuple(theirs.shape))
    (ours * tl.tensor(up)).sum().backward()
    (theirs * torch.tensor(up)).sum().backward()
    np.testing.assert_allclose(w_o.grad.numpy(), w_t.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 2}, {"scale_grad_by_freq": True},
                                    {"padding_idx": -1, "scale_grad_by_freq": True}])
def test_embedding_gradients(kwargs):
    w_o, w_t = _weights()
    idx = IDX.reshape(3, 3)
    _check(tl.nn.functional.embedding(tl.tensor(idx), w_o, **kwargs),
           torch.nn.functional.embedding(torch.tensor(idx), w_t, **kwargs), w_o, w_t)


@pytest.mark.parametrize("norm_type", [2.0, 1.0])
def test_embedding_max_norm_renormalises_used_rows_in_place(norm_type):
    w_o, w_t = _weights()
    ours = tl.nn.functional.embedding(tl.tensor(IDX[:4]), w_o, max_norm=1.0, norm_type=norm_type)
    theirs = torch.nn.functional.embedding(torch.tensor(IDX[:4]), w_t, max_norm=1.0,
                                           norm_type=norm_type)
    np.testing.assert_allclose(w_o.detach().numpy(), w_t.detach().numpy(), rtol=1e-12)
    assert not np.allclose(w_o.detach().numpy(), W)  # changed in place
    np.testing.assert_allclose(w_o.detach().numpy()[[0, 3, 5, 6]], W[[0, 3, 5, 6]])  # unused rows
    _check(ours, theirs, w_o, w_t)


def test_embedding_module_options_from_pretrained_and_errors():
    layer = tl.nn.Embedding(10, 3, padding_idx=-2, max_norm=2.0, scale_grad_by_freq=True,
                            sparse=True)
    assert layer.padding_idx == 8 and (layer.weight.detach().numpy()[8] == 0).all()
    theirs = torch.nn.Embedding(10, 3, padding_idx=-2, max_norm=2.0, scale_grad_by_freq=True,
                                sparse=True)
    assert layer.extra_repr() == theirs.extra_repr()
    frozen = tl.nn.Embedding.from_pretrained(tl.tensor(W))
    assert not frozen.weight.requires_grad
    assert tl.nn.Embedding.from_pretrained(tl.tensor(W), freeze=False).weight.requires_grad
    np.testing.assert_allclose(frozen(tl.tensor([3, 1])).numpy(), W[[3, 1]])
    with pytest.raises(AssertionError):
        tl.nn.Embedding(5, 3, padding_idx=5)
    with pytest.raises(AssertionError):
        tl.nn.Embedding.from_pretrained(tl.tensor(W[0]))
    with pytest.raises(IndexError):
        tl.nn.functional.embedding(tl.tensor([1, 7]), tl.tensor(W))
    with pytest.raises(IndexError):  # PyTorch has no negative indices here
        tl.nn.functional.embedding(tl.tensor([-1]), tl.tensor(W))
    with pytest.raises(RuntimeError):
        tl.nn.functional.embedding(tl.tensor([1.0]), tl.tensor(W))


def test_embedding_second_order():
    w = tl.tensor(W, requires_grad=True)
    out = tl.nn.functional.embedding(tl.tensor(IDX), w, padding_idx=4)
    (g,) = tl.autograd.grad((out ** 3).sum(), [w], create_graph=True)
    g.sum().backward()
    wt = torch.tensor(W, requires_grad=True)
    out_t = torch.nn.functional.embedding(torch.tensor(IDX), wt, padding_idx=4)
    (gt,) = torch.autograd.grad((out_t ** 3).sum(), [wt], create_graph=True)
    gt.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), wt.grad.numpy(), rtol=1e-12)


OFFSETS = np.array([0, 2, 2, 5])  # bags [0:2], [] , [2:5], [5:9]
BAG_CASES = [
    ({"mode": "sum"}, OFFSETS), ({"mode": "mean"}, OFFSETS), ({"mode": "max"}, OFFSETS),
    ({"mode": "sum", "padding_idx": 4}, OFFSETS), ({"mode": "mean", "padding_idx": 2}, OFFSETS),
    ({"mode": "max", "padding_idx": 1}, OFFSETS),
    ({"mode": "mean", "include_last_offset": True}, np.array([0, 2, 2, 5, 8])),
    ({"mode": "max", "include_last_offset": True}, np.array([0, 3, 9])),
    ({"mode": "mean", "max_norm": 1.5}, OFFSETS),
]


@pytest.mark.parametrize("kwargs,offsets", BAG_CASES)
def test_embedding_bag_matches_pytorch(kwargs, offsets):
    w_o, w_t = _weights()
    ours = tl.nn.functional.embedding_bag(tl.tensor(IDX), w_o, tl.tensor(offsets), **kwargs)
    theirs = torch.nn.functional.embedding_bag(torch.tensor(IDX), w_t, torch.tensor(offsets),
                                               **kwargs)
    _check(ours, theirs, w_o, w_t)


def test_embedding_bag_scale_grad_by_freq_divides_by_index_counts():
    # (PyTorch's own embedding_bag gives some rows half or none of this gradient.)
    w = tl.tensor(W, requires_grad=True)
    tl.nn.functional.embedding_bag(tl.tensor(IDX), w, tl.tensor(OFFSETS), mode="sum",
                                   scale_grad_by_freq=True).sum().backward()
    used = np.isin(np.arange(7), IDX)
    np.testing.assert_allclose(w.grad.numpy(), np.where(used[:, None], 1.0, 0.0) * np.ones(4))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2d_input(mode):
    w_o, w_t = _weights()
    idx = IDX.reshape(3, 3)
    _check(tl.nn.functional.embedding_bag(tl.tensor(idx), w_o, mode=mode, padding_idx=4),
           torch.nn.functional.embedding_bag(torch.tensor(idx), w_t, mode=mode, padding_idx=4),
           w_o, w_t)


def test_embedding_bag_per_sample_weights_gradient():
    w_o, w_t = _weights()
    psw = rng.standard_normal(IDX.size)
    p_o, p_t = tl.tensor(psw, requires_grad=True), torch.tensor(psw, requires_grad=True)
    ours = tl.nn.functional.embedding_bag(tl.tensor(IDX), w_o, tl.tensor(OFFSETS), mode="sum",
                                          per_sample_weights=p_o, padding_idx=2)
    theirs = torch.nn.functional.embedding_bag(torch.tensor(IDX), w_t, torch.tensor(OFFSETS),
                                               mode="sum", per_sample_weights=p_t, padding_idx=2)
    _check(ours, theirs, w_o, w_t)
    np.testing.assert_allclose(p_o.grad.numpy(), p_t.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_embedding_bag_module_and_errors():
    bag = tl.nn.EmbeddingBag(10, 3, mode="max", padding_idx=0)
    assert bag.extra_repr() == torch.nn.EmbeddingBag(10, 3, mode="max",
                                                     padding_idx=0).extra_repr()
    assert tuple(bag(tl.tensor([1, 2, 3]), tl.tensor([0, 1])).shape) == (2, 3)
    pre = tl.nn.EmbeddingBag.from_pretrained(tl.tensor(W), mode="sum")
    assert not pre.weight.requires_grad
    np.testing.assert_allclose(pre(tl.tensor([[1, 2]])).numpy(), W[[1]] + W[[2]])
    f, w = tl.nn.functional.embedding_bag, tl.tensor(W)
    with pytest.raises(RuntimeError):
        f(tl.tensor([1, 2, 3]), w, tl.tensor([1, 2]))
    with pytest.raises(RuntimeError):
        f(tl.tensor([1, 2, 3]), w, tl.tensor([0, 5]))
    with pytest.raises(ValueError):
        f(tl.tensor([1, 2, 3]), w)
    with pytest.raises(ValueError):
        f(tl.tensor([[1, 2]]), w, tl.tensor([0]))
    with pytest.raises(ValueError):
        f(tl.tensor([1, 2]), w, tl.tensor([0]), mode="median")
    with pytest.raises(NotImplementedError):
        f(tl.tensor([1, 2]), w, tl.tensor([0]), per_sample_weights=tl.ones(2))
    with pytest.raises(RuntimeError):
        f(tl.tensor([1, 9]), w, tl.tensor([0]))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_create_graph_matches_plain_backward(mode):
    psw = rng.standard_normal(IDX.size) if mode == "sum" else None

    def grads(create_graph):
        w = tl.tensor(W, requires_grad=True)
        p = None if psw is None else tl.tensor(psw, requires_grad=True)
        out = tl.nn.functional.embedding_bag(tl.tensor(IDX), w, tl.tensor(OFFSETS), mode=mode,
                                             per_sample_weights=p, scale_grad_by_freq=mode != "max")
        inputs = [w] if p is None else [w, p]
        return [g.detach().numpy() for g in tl.autograd.grad(
            (out * out).sum(), inputs, create_graph=create_graph)]
    for a, b in zip(grads(False), grads(True)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_embedding_bag_float32_long_and_repeated_bags():
    w = tl.tensor(W.astype(np.float32), requires_grad=True)
    idx = np.r_[np.zeros(40, np.int64), np.arange(7), [3]]  # one row repeated 40 times
    offsets = np.array([0, 40, 40])  # a long bag, an empty bag, a short one
    for mode in ("sum", "max"):
        out = tl.nn.functional.embedding_bag(tl.tensor(idx), w, tl.tensor(offsets), mode=mode)
        ref = torch.nn.functional.embedding_bag(torch.tensor(idx), torch.tensor(W.astype(
            np.float32)), torch.tensor(offsets), mode=mode)
        assert out.dtype == tl.float32
        np.testing.assert_allclose(out.detach().numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
        out.sum().backward()
    assert w.grad.dtype == tl.float32


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_one_long_bag_among_many_short_ones(mode):
    idx = rng.integers(0, 7, 300)
    offsets = np.r_[np.arange(100), 100]  # 100 bags of one, then one of 200 (reduceat path)
    w_o, w_t = _weights()
    _check(tl.nn.functional.embedding_bag(tl.tensor(idx), w_o, tl.tensor(offsets), mode=mode),
           torch.nn.functional.embedding_bag(torch.tensor(idx), w_t, torch.tensor(offsets),
                                             mode=mode), w_o, w_t)
