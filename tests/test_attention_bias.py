"""``tl.nn.attention.bias``: the causal masks that ``F.scaled_dot_product_attention`` takes as
``attn_mask`` (PyTorch's ``torch.nn.attention.bias``), checked against explicit boolean masks
built in NumPy and against PyTorch."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812 - PyTorch's spelling
from tinygrad_lite.nn._functional import attention as attention_impl
from tinygrad_lite.nn.attention import SDPBackend, sdpa_kernel
from tinygrad_lite.nn.attention.bias import (
    CausalBias,
    CausalVariant,
    causal_lower_right,
    causal_upper_left,
)

LENGTHS = [(3, 5), (4, 4), (6, 3)]  # q_len < kv_len, ==, >
LEADS = [(), (2,), (2, 3)]  # unbatched, batch, batch and heads
VARIANTS = [("upper_left", causal_upper_left), ("lower_right", causal_lower_right)]


def np_mask(variant: str, n_q: int, n_k: int) -> np.ndarray:
    """The boolean (n_q, n_k) mask, True where query i may attend key j."""
    i, j = np.arange(n_q)[:, None], np.arange(n_k)[None, :]
    return j <= i if variant == "upper_left" else j <= i + (n_k - n_q)


def make_bias(factory, n_q, n_k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # lower-right with n_q > n_k
        return factory(n_q, n_k)


def inputs(lead, n_q, n_k, seed=0):
    rng = np.random.default_rng(seed)
    e, ev = 4, 3
    return (rng.standard_normal((*lead, n_q, e)), rng.standard_normal((*lead, n_k, e)),
            rng.standard_normal((*lead, n_k, ev)), rng.standard_normal((*lead, n_q, ev)))


def run(q, k, v, g, mask, **kw):
    """Output and gradients of q, k, v (output weighted by g) of tl's SDPA."""
    qt, kt, vt = (tl.tensor(a, requires_grad=True) for a in (q, k, v))
    out = F.scaled_dot_product_attention(qt, kt, vt, mask, **kw)
    (out * tl.tensor(g)).sum().backward()
    return [out.detach().numpy(), qt.grad.numpy(), kt.grad.numpy(), vt.grad.numpy()]


def numpy_attention(q, k, v, mask):
    """softmax(q k^T / sqrt(E) masked) v, a query with no allowed key giving zeros."""
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    s = np.where(mask, s, -np.inf)
    alive = mask.any(-1, keepdims=True)
    s = np.where(alive, s, 0.0)
    p = np.exp(s - s.max(-1, keepdims=True))
    p = np.where(mask, p, 0.0) / np.where(alive, np.where(mask, p, 0.0).sum(-1, keepdims=True),
                                          1.0)
    return p @ v


@pytest.mark.parametrize("lead", LEADS, ids=["unbatched", "batch", "batch_heads"])
@pytest.mark.parametrize("n_q, n_k", LENGTHS, ids=["q<kv", "q==kv", "q>kv"])
@pytest.mark.parametrize("name, factory", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_values_and_gradients_match_an_explicit_mask(name, factory, n_q, n_k, lead):
    q, k, v, g = inputs(lead, n_q, n_k)
    mask = np_mask(name, n_q, n_k)
    ours = run(q, k, v, g, make_bias(factory, n_q, n_k))
    explicit = run(q, k, v, g, tl.tensor(mask))
    for a, b in zip(ours, explicit):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours[0], numpy_attention(q, k, v, mask), rtol=1e-12, atol=1e-12)
    dead = ~mask.any(-1)  # lower-right with n_q > n_k: queries that see no key
    assert dead.any() == (name == "lower_right" and n_q > n_k)
    assert not ours[0][..., dead, :].any() and not ours[1][..., dead, :].any()
    assert np.isfinite(ours[0]).all() and all(np.isfinite(x).all() for x in ours[1:])


@pytest.mark.parametrize("lead", [(), (2, 3)], ids=["unbatched", "batch_heads"])
@pytest.mark.parametrize("n_q, n_k", LENGTHS, ids=["q<kv", "q==kv", "q>kv"])
@pytest.mark.parametrize("name, factory", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_outputs_and_gradients_agree_with_pytorch(name, factory, n_q, n_k, lead):
    torch = pytest.importorskip("torch")
    from torch.nn.attention import bias as torch_bias
    q, k, v, g = inputs(lead, n_q, n_k, seed=1)
    ours = run(q, k, v, g, make_bias(factory, n_q, n_k))
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (q, k, v))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        theirs_bias = getattr(torch_bias, f"causal_{name}")(n_q, n_k)
    out = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, theirs_bias)
    (out * torch.tensor(g)).sum().backward()
    theirs = [out.detach().numpy(), tq.grad.numpy(), tk.grad.numpy(), tv.grad.numpy()]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("n_q, n_k", LENGTHS + [(1, 4), (4, 1), (0, 3)])
@pytest.mark.parametrize("name, factory", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_materialize_is_pytorchs_mask(name, factory, n_q, n_k):
    bias = make_bias(factory, n_q, n_k)
    got = bias._materialize()
    assert got.dtype == tl.bool and tuple(got.shape) == (n_q, n_k)
    np.testing.assert_array_equal(got.numpy(), np_mask(name, n_q, n_k))
    assert repr(bias) == repr(got)
    pytest.importorskip("torch")
    from torch.nn.attention import bias as torch_bias
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        theirs = getattr(torch_bias, f"causal_{name}")(n_q, n_k)._materialize()
    np.testing.assert_array_equal(got.numpy(), theirs.numpy())


def test_the_api_pytorchs_module_has():
    assert [v.name for v in CausalVariant] == ["UPPER_LEFT", "LOWER_RIGHT"]
    assert int(CausalVariant.UPPER_LEFT) == 1 and int(CausalVariant.LOWER_RIGHT) == 2
    bias = causal_upper_left(3, 4)
    assert isinstance(bias, CausalBias) and bias.variant is CausalVariant.UPPER_LEFT
    assert (bias.seq_len_q, bias.seq_len_kv) == (3, 4)
    assert CausalBias(CausalVariant.LOWER_RIGHT, 2, 5)._materialize().numpy().all(0).sum() == 4
    assert bias._materialize("cpu").device == tl.device("cpu")
    meta = bias._materialize("meta")
    assert meta.is_meta and tuple(meta.shape) == (3, 4)
    with pytest.raises(AssertionError, match="2D"):
        causal_lower_right(2, 3, 4)
    with pytest.raises(AssertionError, match="CausalVariant"):
        CausalBias(1, 2, 3)
    with pytest.warns(UserWarning, match="seq_len_q > seq_len_kv"):
        causal_lower_right(4, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        causal_upper_left(4, 2)
        causal_lower_right(2, 4)
    assert tl.nn.attention.bias.__all__ == ["causal_upper_left", "causal_lower_right",
                                            "CausalVariant", "CausalBias"]


def test_is_causal_together_with_a_bias_is_refused():
    q = tl.randn(2, 3, 4)
    with pytest.raises(ValueError, match="causal=True"):
        F.scaled_dot_product_attention(q, q, q, causal_upper_left(3, 3), is_causal=True)


def test_upper_left_runs_as_is_causal_and_the_tutorials_backend_switch():
    """The tutorial's checks: upper-left equals is_causal=True, whatever sdpa_kernel picks."""
    rng = np.random.default_rng(2)
    q = tl.tensor(rng.standard_normal((2, 2, 3, 8)))
    k = tl.tensor(rng.standard_normal((2, 2, 5, 8)))
    causal = F.scaled_dot_product_attention(q, k, k, is_causal=True).numpy()
    for backend in (SDPBackend.MATH, SDPBackend.FLASH_ATTENTION,
                    SDPBackend.EFFICIENT_ATTENTION, [SDPBackend.CUDNN_ATTENTION]):
        with sdpa_kernel(backend):
            got = F.scaled_dot_product_attention(q, k, k, causal_upper_left(3, 5))
        np.testing.assert_array_equal(got.numpy(), causal)
    lower = F.scaled_dot_product_attention(q, k, k, attn_mask=causal_lower_right(3, 5))
    assert not np.allclose(lower.numpy(), causal)
    # as in PyTorch, an upper-left bias is is_causal=True: its own lengths are not consulted
    other = F.scaled_dot_product_attention(q, k, k, causal_upper_left(7, 9))
    np.testing.assert_array_equal(other.numpy(), causal)


def test_lower_right_with_gqa_scale_and_pytorch():
    torch = pytest.importorskip("torch")
    from torch.nn.attention.bias import causal_lower_right as torch_lower_right
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal(s) for s in ((2, 4, 3, 5), (2, 2, 6, 5), (2, 2, 6, 5)))
    ours = F.scaled_dot_product_attention(tl.tensor(q), tl.tensor(k), tl.tensor(v),
                                          causal_lower_right(3, 6), scale=0.3, enable_gqa=True)
    theirs = torch.nn.functional.scaled_dot_product_attention(
        torch.tensor(q), torch.tensor(k), torch.tensor(v), torch_lower_right(3, 6), scale=0.3,
        enable_gqa=True)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-10)


def test_the_blocked_kernel_for_long_sequences_takes_a_bias(monkeypatch):
    """From FLASH_MIN_SCORES scores on, SDPA runs the blocked kernel; a bias works there too,
    rows without keys included."""
    q, k, v, g = inputs((2,), 6, 3, seed=4)
    plain = run(q, k, v, g, make_bias(causal_lower_right, 6, 3))
    monkeypatch.setattr(attention_impl, "FLASH_MIN_SCORES", 1)
    for name, factory in VARIANTS:
        blocked = run(q, k, v, g, make_bias(factory, 6, 3))
        explicit = run(q, k, v, g, tl.tensor(np_mask(name, 6, 3)))
        for a, b in zip(blocked, explicit):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    for a, b in zip(blocked, plain):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_compiled_sdpa_tells_the_biases_apart():
    rng = np.random.default_rng(5)
    q, k = tl.tensor(rng.standard_normal((1, 3, 4))), tl.tensor(rng.standard_normal((1, 5, 4)))
    compiled = tl.compile(F.scaled_dot_product_attention)
    for factory in (causal_upper_left, causal_lower_right, causal_upper_left):
        bias = factory(3, 5)
        np.testing.assert_allclose(compiled(q, k, k, bias).numpy(),
                                   F.scaled_dot_product_attention(q, k, k, bias).numpy(),
                                   rtol=1e-12)


def test_multihead_attention_refuses_a_bias_as_pytorch_cannot_use_one():
    mha = tl.nn.MultiheadAttention(8, 2)
    x = tl.randn(4, 1, 8)
    for need_weights in (True, False):
        with pytest.raises(RuntimeError, match="CausalBias"):
            mha(x, x, x, attn_mask=causal_upper_left(4, 4), need_weights=need_weights)
    # the supported spelling gives the causal result
    ref, _ = mha(x, x, x, attn_mask=~causal_upper_left(4, 4)._materialize(), is_causal=True)
    out, _ = mha(x, x, x, attn_mask=tl.nn.Transformer.generate_square_subsequent_mask(4))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-6, atol=1e-6)
