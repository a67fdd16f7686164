"""The blocked (FlashAttention) path of attention against the naive one: outputs and gradients
in float64 for every mask kind, ragged block edges, cross-attention and broadcast batch dims;
dropout regenerated exactly in backward; gradcheck; float32 at T=1024."""

import math

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.nn._functional.attention import attention_math
from tinygrad_lite.nn._functional.flash_attention import flash_attention
from tinygrad_lite.ops.flash_attention import flash_attention as flash_attention_op


def naive(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """The plain matmul-softmax-matmul path, whatever the sequence length."""
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    return attention_math(q, k, v, attn_mask, dropout_p, is_causal, scale)

rng = np.random.default_rng(0)


def t(*shape, dtype=tl.float64):
    return tl.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True)


def dead_row_mask():
    m = rng.random((37, 37)) > 0.3
    m[5] = False  # query 5 may attend nothing: PyTorch 2.x gives 0 output and gradient
    return tl.tensor(m)


CASES = {
    "plain": lambda: {},
    "causal": lambda: {"is_causal": True},
    "bool-mask": lambda: {"attn_mask": tl.tensor(rng.random((37, 37)) > 0.3)},
    "float-mask-broadcast": lambda: {"attn_mask": tl.tensor(rng.standard_normal((1, 3, 37, 37)))},
    "fully-masked-row": lambda: {"attn_mask": dead_row_mask()},
    "scale": lambda: {"scale": 0.3},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_naive_attention_in_float64(case):
    q, k, v = t(2, 3, 37, 8), t(2, 3, 37, 8), t(2, 3, 37, 5)
    kwargs = CASES[case]()
    ref = naive(q, k, v, **kwargs)
    out = flash_attention(q, k, v, block=16, **kwargs)  # 37 = 2 full blocks + a ragged one
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), atol=1e-13)
    g = tl.randn(*ref.shape, dtype=tl.float64)
    for a, b in zip(tl.autograd.grad((ref * g).sum(), (q, k, v)),
                    tl.autograd.grad((out * g).sum(), (q, k, v))):
        np.testing.assert_allclose(b.numpy(), a.numpy(), atol=1e-12)


def test_cross_attention_and_broadcast_batch_dims():
    q, k, v = t(2, 1, 20, 8), t(1, 4, 33, 8), t(1, 4, 33, 6)
    ref, out = naive(q, k, v), flash_attention(q, k, v, block=8)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), atol=1e-13)
    for a, b in zip(tl.autograd.grad(ref.sum(), (q, k, v)),
                    tl.autograd.grad(out.sum(), (q, k, v))):
        assert a.shape == b.shape
        np.testing.assert_allclose(b.numpy(), a.numpy(), atol=1e-12)


def test_fully_masked_row_gives_zero_output_and_gradient():
    q, k, v = t(1, 37, 4), t(1, 37, 4), t(1, 37, 4)
    out = flash_attention(q, k, v, attn_mask=dead_row_mask(), block=16)
    assert np.all(out.detach().numpy()[0, 5] == 0)
    (gq,) = tl.autograd.grad(out.sum(), (q,))
    assert np.all(gq.numpy()[0, 5] == 0) and np.isfinite(gq.numpy()).all()


@pytest.mark.parametrize("causal", [False, True])
def test_gradcheck_with_and_without_dropout(causal):
    q, k, v = t(1, 2, 9, 3), t(1, 2, 9, 3), t(1, 2, 9, 3)
    for p in (0.0, 0.3):
        def fn(q, k, v, p=p):  # a fixed seed: the same dropout masks in every evaluation
            return flash_attention_op(q, k, v, None, causal, 0.5, p, 1234, 4)
        assert tl.autograd.gradcheck(fn, (q, k, v))


def test_dropout_masks_follow_the_library_seed():
    q, k, v = t(1, 40, 8), t(1, 40, 8), t(1, 40, 8)
    tl.manual_seed(3)
    a = flash_attention(q, k, v, dropout_p=0.5, block=16)
    tl.manual_seed(3)
    b = flash_attention(q, k, v, dropout_p=0.5, block=16)
    c = flash_attention(q, k, v, dropout_p=0.5, block=16)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert not np.array_equal(b.detach().numpy(), c.detach().numpy())
    expected = naive(q, k, v).detach().numpy()  # unbiased: the mean over many masks matches
    mean = np.mean([flash_attention(q, k, v, dropout_p=0.5, block=16).detach().numpy()
                    for _ in range(300)], axis=0)
    assert np.abs(mean - expected).mean() < 0.1 * np.abs(expected).mean() + 0.02


def test_float32_long_sequence_matches_naive():
    q, k, v = (t(2, 1024, 32, dtype=tl.float32) for _ in range(3))
    ref, out = naive(q, k, v, is_causal=True), flash_attention(q, k, v, is_causal=True)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), atol=1e-5)
    for a, b in zip(tl.autograd.grad(ref.sum(), (q, k, v)),
                    tl.autograd.grad(out.sum(), (q, k, v))):
        np.testing.assert_allclose(b.numpy(), a.numpy(), atol=1e-4, rtol=1e-4)


def test_double_backward_says_to_use_the_naive_path():
    q, k, v = t(1, 5, 3), t(1, 5, 3), t(1, 5, 3)
    weight = t(1, 5, 3)  # a gradient that itself requires grad: the graph must go on
    (g,) = tl.autograd.grad(flash_attention(q, k, v), (q,), grad_outputs=weight,
                            create_graph=True)
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.sum().backward()


def test_sdpa_switches_to_the_blocked_kernel_for_long_sequences():
    """From FLASH_MIN_SCORES scores per head, scaled_dot_product_attention runs the blocked
    kernel (no (L, S) matrix kept) and gives the plain path's values and gradients."""
    rng = np.random.default_rng(3)
    q, k, v = (tl.tensor(rng.standard_normal((1, 1, 1024, 8)), requires_grad=True)
               for _ in range(3))
    out = tl.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert out.grad_fn.name() == "FlashAttentionBackward"
    out.sum().backward()
    blocked = [t.grad.numpy().copy() for t in (q, k, v)]
    for t in (q, k, v):
        t.grad = None
    reference = attention_math(q, k, v, None, 0.0, True, 1.0 / math.sqrt(8))
    reference.sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), reference.detach().numpy(), atol=1e-12)
    for got, t in zip(blocked, (q, k, v)):
        np.testing.assert_allclose(got, t.grad.numpy(), atol=1e-11)
def test_output_is_laid_out_as_pytorch_cpu_kernel_returns_it():
    """(B, H, L, Ev) as a transposed (B, L, H, Ev) array: the heads merge back with a view."""
    x = tl.randn(2, 8, 192, requires_grad=True)
    q, k, v = [t.reshape(2, 8, 4, 16).transpose(1, 2) for t in x.chunk(3, -1)]
    for kwargs in ({"is_causal": True}, {"attn_mask": tl.ones(8, 8, dtype=tl.bool).tril()}):
        out = tl.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs)
        merged = out.transpose(1, 2).view(2, 8, 64)
        assert merged.shape == (2, 8, 64)
    merged.sum().backward()
    assert x.grad.shape == (2, 8, 192)
