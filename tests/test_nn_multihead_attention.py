"""nn.MultiheadAttention and F.multi_head_attention_forward with PyTorch's signature: learned key
and value biases (add_bias_kv), a zero key and value (add_zero_attn), separate projections
(kdim/vdim), static keys and values, masks of every kind, batch-first and unbatched input."""

import itertools

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812 - PyTorch's spelling

E, H, L, S, N = 8, 2, 5, 4, 3
RNG = np.random.default_rng(0)


def test_parameters_and_state_dict_names_follow_pytorch():
    m = tl.nn.MultiheadAttention(E, H, add_bias_kv=True, add_zero_attn=True, kdim=6, vdim=5)
    names = [name for name, _ in m.named_parameters()]
    assert names == ["q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "bias_k",
                     "bias_v", "out_proj.weight", "out_proj.bias"]
    assert tuple(m.bias_k.shape) == tuple(m.bias_v.shape) == (1, 1, E)
    plain = tl.nn.MultiheadAttention(E, H)
    assert plain.bias_k is None and plain.bias_v is None and not plain.add_zero_attn


def test_add_zero_attn_is_attention_with_one_more_zero_key_and_value():
    m = tl.nn.MultiheadAttention(E, H, add_zero_attn=True, bias=False).double()
    x = tl.tensor(RNG.standard_normal((L, N, E)))
    out, weights = m(x, x, x)
    assert tuple(weights.shape) == (N, L, L + 1)
    # by hand: the projected keys and values get a zero row per head
    w = m.in_proj_weight.detach().numpy()
    q, k, v = (x.numpy() @ w[i * E:(i + 1) * E].T for i in range(3))
    def heads(a):
        return a.reshape(a.shape[0], N * H, E // H).transpose(1, 0, 2)
    qh, kh, vh = heads(q), heads(k), heads(v)
    kh = np.concatenate([kh, np.zeros((N * H, 1, E // H))], 1)
    vh = np.concatenate([vh, np.zeros((N * H, 1, E // H))], 1)
    scores = qh @ kh.transpose(0, 2, 1) / np.sqrt(E // H)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    attended = (p @ vh).transpose(1, 0, 2).reshape(L, N, E)
    want = attended @ m.out_proj.weight.detach().numpy().T
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(weights.detach().numpy(), p.reshape(N, H, L, L + 1).mean(1),
                               rtol=1e-10)


def test_a_fully_masked_query_row():
    m = tl.nn.MultiheadAttention(4, 2, batch_first=True)
    x = tl.randn(1, 3, 4)
    mask = tl.tensor([[True, True, True], [False, True, False], [False, False, False]])
    with_weights, _ = m(x, x, x, attn_mask=mask)
    assert np.isnan(with_weights[0, 0].detach().numpy()).all()  # PyTorch's math path: NaN
    without, _ = m(x, x, x, attn_mask=mask, need_weights=False)
    np.testing.assert_allclose(without[0, 0].detach().numpy(), 0.0)  # its SDPA path: 0
    assert np.isfinite(without[0, 1:].detach().numpy()).all()


def test_functional_form_checks_its_arguments():
    x = tl.ones(L, N, E)
    with pytest.raises(AssertionError, match="expecting embedding dimension of 6"):
        F.multi_head_attention_forward(x, x, x, 6, H, tl.ones(3 * E, E), None, None, None, False,
                                       0.0, tl.ones(E, E), None)
    with pytest.raises(RuntimeError, match="use_separate_proj_weight"):
        F.multi_head_attention_forward(x, x, x, E, H, None, None, None, None, False, 0.0,
                                       tl.ones(E, E), None, use_separate_proj_weight=True)


def _accepted(combo: tuple) -> bool:
    """Mask combinations PyTorch accepts: a 3-D mask is batched; bool and float masks do not
    mix."""
    mask, padding, unbatched = combo[5:]
    return not ((mask == "float3" and (unbatched or padding == "bool"))
                or (mask in ("bool", "causal") and padding == "float"))


COMBOS = [c for c in itertools.product(
    (False, True), (False, True), (None, 6), (False, True), (True, False),
    (None, "bool", "float3", "causal"), (None, "bool", "float"), (False, True)) if _accepted(c)]


@pytest.mark.parametrize("bias_kv,zero_attn,kdim,batch_first,need_weights,mask,padding,unbatched",
                         COMBOS[::3])
def test_against_pytorch(bias_kv, zero_attn, kdim, batch_first, need_weights, mask, padding,
                         unbatched):
    torch = pytest.importorskip("torch")
    s = L if mask == "causal" else S
    torch.manual_seed(0)
    kwargs = dict(add_bias_kv=bias_kv, add_zero_attn=zero_attn, kdim=kdim, vdim=kdim,
                  batch_first=batch_first)
    theirs = torch.nn.MultiheadAttention(E, H, **kwargs).double()
    ours = tl.nn.MultiheadAttention(E, H, **kwargs).double()
    ours.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})
    rng = np.random.default_rng(1)

    def shape(length, width):
        return (length, width) if unbatched else \
            (N, length, width) if batch_first else (length, N, width)
    arrays = [rng.standard_normal(shape(L, E)), rng.standard_normal(shape(s, kdim or E)),
              rng.standard_normal(shape(s, kdim or E))]
    attn_mask = None
    if mask == "bool":
        attn_mask = rng.random((L, s)) < 0.3
        attn_mask[:, 0] = False
    elif mask == "float3":
        attn_mask = rng.standard_normal((N * H, L, s))
    elif mask == "causal":
        attn_mask = np.triu(np.ones((L, s), bool), 1)
    kpm = None
    if padding == "bool":
        kpm = rng.random((s,) if unbatched else (N, s)) < 0.3
        kpm[..., 0] = False
    elif padding == "float":
        kpm = rng.standard_normal((s,) if unbatched else (N, s))
    results = []
    for lib, module in ((torch, theirs), (tl, ours)):
        inputs = [lib.tensor(a, requires_grad=True) for a in arrays]
        out, weights = module(*inputs, key_padding_mask=None if kpm is None else lib.tensor(kpm),
                              need_weights=need_weights, is_causal=mask == "causal",
                              attn_mask=None if attn_mask is None else lib.tensor(attn_mask))
        grads = lib.autograd.grad((out * lib.tensor(np.cos(np.arange(out.numel()))
                                                    .reshape(tuple(out.shape)))).sum(),
                                  inputs + list(module.parameters()))
        results.append((out, weights, grads))
    (t_out, t_w, t_grads), (o_out, o_w, o_grads) = results
    np.testing.assert_allclose(o_out.detach().numpy(), t_out.detach().numpy(), atol=1e-10)
    assert (o_w is None) == (t_w is None)
    if t_w is not None:
        np.testing.assert_allclose(o_w.detach().numpy(), t_w.detach().numpy(), atol=1e-10)
    for a, b in zip(o_grads, t_grads):
        np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-9)
