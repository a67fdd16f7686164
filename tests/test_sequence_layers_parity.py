"""Attention, transformer, embedding and recurrent layers against PyTorch: values and float64
gradients with copied weights, masks (bool / float, 2-D / 3-D, padding, causal hints), the
output layout of ``scaled_dot_product_attention``, grouped-query heads, per-sample weights, and
PyTorch's warnings, exception types and messages for bad arguments."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)


def _copy(ref, ours):
    ours.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    return ours


def _pair(cls_name, *args, **kwargs):
    """The same module in both libraries, float64, PyTorch's weights copied into ours."""
    ref = getattr(torch.nn, cls_name)(*args, **kwargs).double()
    return _copy(ref, getattr(tl.nn, cls_name)(*args, **kwargs).double()), ref


def _close(ours, ref, rtol=1e-9, atol=1e-10):
    if ours is None or ref is None:
        assert ours is None and ref is None
        return
    if isinstance(ref, (tuple, list)):
        assert len(ours) == len(ref)
        for o, r in zip(ours, ref, strict=True):
            _close(o, r, rtol, atol)
        return
    assert tuple(ours.shape) == tuple(ref.shape)
    assert str(ours.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=rtol,
                               atol=atol, equal_nan=True)


def _lib_args(lib, values):
    return {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in values.items()}


def _raised(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as info:
            fn()
    return info.value


def _same_error(ours_fn, ref_fn, exact=True):
    """Both raise the same exception type; ``exact``: the same text (up to the package name)."""
    ours, ref = _raised(ours_fn), _raised(ref_fn)
    assert type(ours) is type(ref), (ours, ref)
    if exact:
        assert str(ours).replace("tinygrad_lite.", "torch.") == str(ref), (ours, ref)
    return ours


def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


# -- scaled_dot_product_attention ----------------------------------------------------------------

SDPA = tl.nn.functional.scaled_dot_product_attention
TSDPA = torch.nn.functional.scaled_dot_product_attention


def _sdpa_both(shapes, **kwargs):
    data = [rng.standard_normal(s) for s in shapes]
    results = []
    for lib, fn in ((tl, SDPA), (torch, TSDPA)):
        qkv = [lib.tensor(d, requires_grad=True) for d in data]
        out = fn(*qkv, **_lib_args(lib, kwargs))
        (out * lib.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))).sum() \
            .backward()
        results.append((out, *(t.grad for t in qkv)))
    _close(*results)


@pytest.mark.parametrize("mask_kind", ["bool", "float"])
def test_sdpa_applies_attn_mask_and_is_causal_together(mask_kind):
    mask = rng.random((4, 6)) < 0.6
    mask[:, 0] = True
    mask[1] = False  # a row left with no key once the causal pattern applies too
    if mask_kind == "float":
        mask = np.where(mask, rng.standard_normal((4, 6)), -np.inf)
    _sdpa_both([(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5)], attn_mask=mask, is_causal=True)


@pytest.mark.parametrize("kwargs", [{}, {"scale": 0.3}, {"is_causal": True}, {"dropout_p": 0.0}])
@pytest.mark.parametrize("shapes", [[(4, 5), (6, 5), (6, 3)], [(2, 3, 4, 5), (1, 3, 6, 5),
                                                               (1, 3, 6, 7)]])
def test_sdpa_matches_pytorch(shapes, kwargs):
    _sdpa_both(shapes, **kwargs)


def test_sdpa_fully_masked_rows_give_zero_output_and_gradient():
    mask = rng.random((4, 6)) < 0.5
    mask[2] = False
    _sdpa_both([(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5)], attn_mask=mask)
    _sdpa_both([(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5)],
               attn_mask=np.where(mask, 0.0, -np.inf))


def test_sdpa_grouped_query_heads_repeat_key_and_value_each_by_their_own_factor():
    _sdpa_both([(2, 6, 4, 5), (2, 2, 7, 5), (2, 3, 7, 4)], enable_gqa=True)
    _sdpa_both([(6, 4, 5), (3, 7, 5), (1, 7, 4)], enable_gqa=True)
    q, kv = tl.zeros(2, 6, 4, 5), tl.zeros(2, 4, 7, 5)
    with pytest.raises(RuntimeError, match="Number of heads in key and value must divide the "
                                           "number of heads in query"):
        SDPA(q, kv, kv, enable_gqa=True)


@pytest.mark.parametrize("layout", ["contiguous", "heads_from_projection", "sequence_major"])
def test_sdpa_output_is_laid_out_as_the_query(layout):
    base = rng.standard_normal((2, 5, 3, 4))
    views = {"contiguous": lambda t: t.transpose(1, 2).contiguous(),
             "heads_from_projection": lambda t: t.transpose(1, 2),
             "sequence_major": lambda t: t.permute(1, 2, 0, 3).contiguous().permute(2, 0, 1, 3)}
    ours = SDPA(*[views[layout](tl.tensor(base))] * 3)
    ref = TSDPA(*[views[layout](torch.tensor(base))] * 3)
    _close(ours, ref)
    assert ours.stride() == ref.stride()
    assert ours.is_contiguous() == ref.is_contiguous()


@pytest.mark.parametrize("args, kwargs", [
    ([(5,), (5,), (5,)], {}),
    ([(2, 4, 5), (2, 6, 5), (2, 6, 5)], {"attn_mask": np.ones((4, 6), np.int64)}),
    ([(2, 4, 5), (2, 6, 5), (2, 6, 5)], {"dropout_p": 1.5}),
], ids=["1-d", "int-mask", "dropout-above-one"])
def test_sdpa_errors_are_runtime_errors_naming_what_was_expected(args, kwargs):
    data = [rng.standard_normal(s) for s in args]
    ours = _same_error(lambda: SDPA(*map(tl.tensor, data), **_lib_args(tl, kwargs)),
                       lambda: TSDPA(*map(torch.tensor, data), **_lib_args(torch, kwargs)),
                       exact=False)
    assert str(ours).startswith("scaled_dot_product_attention: ") or "dropout" in str(ours)
    assert any(word in str(ours) for word in ("at least 2 dimensional", "bool or float",
                                              "between 0 and 1"))


@pytest.mark.parametrize("query_dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("mask_dtype", ["bool", "float16", "bfloat16", "float32", "float64"])
def test_sdpa_float_masks_are_float32_or_of_the_query_dtype(query_dtype, mask_dtype):
    q = rng.standard_normal((2, 3, 4)).astype(np.float32)
    mask = rng.standard_normal((3, 3)) > -0.5 if mask_dtype == "bool" else \
        rng.standard_normal((3, 3))

    def run(lib):
        x = lib.tensor(q).to(getattr(lib, query_dtype))
        sdpa = SDPA if lib is tl else TSDPA
        return sdpa(x, x, x, attn_mask=lib.tensor(mask).to(getattr(lib, mask_dtype)))
    if mask_dtype in ("bool", "float32", query_dtype):
        ours, ref = run(tl), run(torch)
        assert str(ours.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
        _close(ours.double(), ref.double(), rtol=2e-2, atol=2e-2)
    else:
        err = _same_error(lambda: run(tl), lambda: run(torch), exact=False)
        assert "Expected attn_mask dtype to be bool or float or to match query dtype" in str(err)


def test_sdpa_rejects_mixed_and_integer_dtypes():
    x = rng.standard_normal((2, 4, 5))
    err = _same_error(lambda: SDPA(tl.tensor(x), tl.tensor(x).float(), tl.tensor(x)),
                      lambda: TSDPA(torch.tensor(x), torch.tensor(x).float(), torch.tensor(x)),
                      exact=False)
    assert "Expected query, key, and value to have the same dtype" in str(err)
    _same_error(lambda: SDPA(*[tl.tensor(x).long()] * 3),
                lambda: TSDPA(*[torch.tensor(x).long()] * 3), exact=False)


# -- MultiheadAttention / multi_head_attention_forward -------------------------------------------

E, H, L, S, N = 8, 2, 3, 4, 2


def _mha_run(lib, module, q, k, v, kwargs):
    qkv = [lib.tensor(t, requires_grad=True) for t in (q, k, v)]
    out, weights = module(*qkv, **_lib_args(lib, kwargs))
    (out * out).sum().backward()
    return out, weights, *(t.grad for t in qkv)


@pytest.mark.parametrize("ctor, batch_first", [
    ({}, False), ({"kdim": 5, "vdim": 6}, True), ({"add_bias_kv": True}, True),
    ({"add_zero_attn": True, "bias": False}, False)],
    ids=["plain", "kdim-vdim-batch-first", "bias-kv-batch-first", "zero-attn"])
@pytest.mark.parametrize("masks", ["none", "kpm-bool", "kpm-float", "mask2d-bool", "mask3d-float",
                                   "both", "unbatched"])
def test_multihead_attention_matches_pytorch(ctor, batch_first, masks):
    ours, ref = _pair("MultiheadAttention", E, H, batch_first=batch_first, **ctor)
    kd, vd = ctor.get("kdim", E), ctor.get("vdim", E)
    unbatched = masks == "unbatched"
    shape = (lambda n, x: (n, x)) if unbatched else \
        (lambda n, x: (N, n, x)) if batch_first else (lambda n, x: (n, N, x))
    q, k, v = (rng.standard_normal(shape(n, x)) for n, x in ((L, E), (S, kd), (S, vd)))
    kpm = rng.random((N, S)) < 0.4
    kpm[:, 0] = False
    mask = rng.random((L, S)) < 0.4
    mask[:, 0] = False
    kwargs = {"none": {}, "kpm-bool": {"key_padding_mask": kpm},
              "kpm-float": {"key_padding_mask": np.where(kpm, -1e4, 0.0)},
              "mask2d-bool": {"attn_mask": mask},
              "mask3d-float": {"attn_mask": rng.standard_normal((N * H, L, S))},
              "both": {"attn_mask": mask, "key_padding_mask": kpm},
              "unbatched": {"key_padding_mask": kpm[0], "attn_mask": mask}}[masks]
    for need_weights, average in ((True, True), (True, False), (False, True)):
        kw = dict(kwargs, need_weights=need_weights, average_attn_weights=average)
        _close(_mha_run(tl, ours, q, k, v, kw), _mha_run(torch, ref, q, k, v, kw))


def test_multihead_attention_fully_masked_query_gives_nan_weights_as_pytorch():
    ours, ref = _pair("MultiheadAttention", E, H)
    x = rng.standard_normal((L, N, E))
    kw = {"attn_mask": np.ones((L, L), bool)}
    _close(_mha_run(tl, ours, x, x, x, kw), _mha_run(torch, ref, x, x, x, kw))


@pytest.mark.parametrize("query, key, kwargs", [
    ((1, L, N, E), (S, N, E), {}),
    ((E,), (S, E), {}),
    ((L, N, E), (S, E), {}),
    ((L, E), (S, N, E), {}),
    ((L, N, E), (S, N, E), {"key_padding_mask": np.zeros(S, bool)}),
    ((L, E), (S, E), {"key_padding_mask": np.zeros((1, S), bool)}),
    ((L, N, E), (S, N, E), {"key_padding_mask": np.zeros((N, S + 1), bool)}),
    ((L, N, E), (S, N, E), {"key_padding_mask": np.zeros((N + 1, S), bool)}),
    ((L, N, E), (S, N, E), {"attn_mask": np.zeros(S, bool)}),
    ((L, N, E), (S, N, E), {"attn_mask": np.zeros((1, 1, L, S), bool)}),
    ((L, N, E), (S, N, E), {"attn_mask": np.zeros((L, S + 1), bool)}),
    ((L, N, E), (S, N, E), {"attn_mask": np.zeros((H, L, S), bool)}),
    ((L, E), (S, E), {"attn_mask": np.zeros((1, L, S), bool)}),
    ((L, N, E), (S, N, E), {"attn_mask": np.zeros((L, S), np.int64)}),
    ((L, N, E), (S, N, E), {"key_padding_mask": np.zeros((N, S), np.int32)}),
    ((L, N, E + 1), (S, N, E), {}),
    ((L, N, E), (S, N, E), {"is_causal": True}),
])
def test_multihead_attention_errors_match_pytorch(query, key, kwargs):
    ours, ref = _pair("MultiheadAttention", E, H)
    q, k = rng.standard_normal(query), rng.standard_normal(key)
    for need in (True, False):  # (our embedding-dimension message also names the function)
        _same_error(lambda need=need: ours(tl.tensor(q), tl.tensor(k), tl.tensor(k),
                                           need_weights=need, **_lib_args(tl, kwargs)),
                    lambda need=need: ref(torch.tensor(q), torch.tensor(k), torch.tensor(k),
                                          need_weights=need, **_lib_args(torch, kwargs)),
                    exact=query[-1] == E)


def test_multihead_attention_key_value_mismatch_errors():
    ours, ref = _pair("MultiheadAttention", E, H)
    q, k, v = (rng.standard_normal(s) for s in ((L, N, E), (S, N, E), (S - 1, N, E)))
    _same_error(lambda: ours(tl.tensor(q), tl.tensor(k), tl.tensor(v)),
                lambda: ref(torch.tensor(q), torch.tensor(k), torch.tensor(v)))
    ours, ref = _pair("MultiheadAttention", E, H, kdim=5, vdim=6)
    k, v = rng.standard_normal((S, N, 5)), rng.standard_normal((S + 1, N, 6))
    _same_error(lambda: ours(tl.tensor(q), tl.tensor(k), tl.tensor(v)),
                lambda: ref(torch.tensor(q), torch.tensor(k), torch.tensor(v)))


def test_multihead_attention_mismatched_mask_types_warn_as_pytorch():
    ours, ref = _pair("MultiheadAttention", E, H)
    x = rng.standard_normal((L, N, E))
    kw = {"key_padding_mask": np.zeros((N, L), bool), "attn_mask": np.zeros((L, L))}
    got = _warnings_of(lambda: ours(*[tl.tensor(x)] * 3, **_lib_args(tl, kw)))
    expected = _warnings_of(lambda: ref(*[torch.tensor(x)] * 3, **_lib_args(torch, kw)))
    assert got == expected == ["Support for mismatched key_padding_mask and attn_mask is "
                               "deprecated. Use same type for both instead."]


def test_multihead_attention_causal_hint_with_mask_matches_pytorch():
    ours, ref = _pair("MultiheadAttention", E, H)
    x = rng.standard_normal((L, N, E))
    for mask in (np.triu(np.ones((L, L), bool), 1), np.zeros((L, L), bool)):
        for need_weights in (True, False):
            kw = {"attn_mask": mask, "is_causal": True, "need_weights": need_weights}
            _close(_mha_run(tl, ours, x, x, x, kw), _mha_run(torch, ref, x, x, x, kw))


def test_multihead_attention_constructor_and_static_key_errors():
    _same_error(lambda: tl.nn.MultiheadAttention(4, 0), lambda: torch.nn.MultiheadAttention(4, 0))
    _same_error(lambda: tl.nn.MultiheadAttention(0, 2), lambda: torch.nn.MultiheadAttention(0, 2))
    _same_error(lambda: tl.nn.MultiheadAttention(7, 2), lambda: torch.nn.MultiheadAttention(7, 2))
    w_in, b_in, w_out = (rng.standard_normal(s) for s in ((3 * E, E), (3 * E,), (E, E)))
    x, static = rng.standard_normal((L, N, E)), rng.standard_normal((N * H, S, E // H))
    for bad in (static[:1], static[..., :1]):
        def call(lib, bad=bad):
            return lib.nn.functional.multi_head_attention_forward(
                *[lib.tensor(x)] * 3, E, H, lib.tensor(w_in), lib.tensor(b_in), None, None,
                False, 0.0, lib.tensor(w_out), None, static_k=lib.tensor(bad),
                static_v=lib.tensor(static))
        _same_error(lambda: call(tl), lambda: call(torch))


def test_multihead_attention_returns_the_weights_after_dropout():
    tl.manual_seed(0)
    layer = tl.nn.MultiheadAttention(E, H, dropout=0.5)
    x = tl.randn(L, N, E)
    out, weights = layer(x, x, x, average_attn_weights=False)
    kept = weights.detach().numpy()
    assert ((kept == 0) | (kept > 0)).all() and (kept == 0).any()
    assert not np.allclose(kept.sum(-1), 1.0)
    layer.eval()
    np.testing.assert_allclose(layer(x, x, x)[1].detach().numpy().sum(-1), 1.0, rtol=1e-6)


# -- transformer layers --------------------------------------------------------------------------


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu", "callable"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_and_decoder_layers_match_pytorch(norm_first, activation, batch_first):
    kw = {"dropout": 0.0, "batch_first": batch_first, "norm_first": norm_first}
    act = {"callable": (tl.tanh, torch.tanh)}.get(activation, (activation, activation))
    ref_enc = torch.nn.TransformerEncoderLayer(E, H, 16, activation=act[1], **kw).double()
    enc = _copy(ref_enc, tl.nn.TransformerEncoderLayer(E, H, 16, activation=act[0], **kw).double())
    ref_dec = torch.nn.TransformerDecoderLayer(E, H, 16, activation=act[1], **kw).double()
    dec = _copy(ref_dec, tl.nn.TransformerDecoderLayer(E, H, 16, activation=act[0], **kw).double())
    assert enc.activation_relu_or_gelu == ref_enc.activation_relu_or_gelu
    shape = (N, S, E) if batch_first else (S, N, E)
    src, tgt = rng.standard_normal(shape), rng.standard_normal(shape)
    kpm = np.zeros((N, S), bool)
    kpm[0, -2:] = True
    causal = np.triu(np.ones((S, S), bool), 1)

    def run(lib, enc_layer, dec_layer):
        a, b = lib.tensor(src, requires_grad=True), lib.tensor(tgt, requires_grad=True)
        memory = enc_layer(a, src_mask=lib.tensor(causal), src_key_padding_mask=lib.tensor(kpm))
        out = dec_layer(b, memory, tgt_mask=lib.tensor(causal), tgt_is_causal=True,
                        memory_key_padding_mask=lib.tensor(kpm))
        (out * out).sum().backward()
        return memory, out, a.grad, b.grad
    _close(run(tl, enc, dec), run(torch, ref_enc, ref_dec))


@pytest.mark.parametrize("kwargs", [
    {}, {"batch_first": True}, {"batch_first": True, "norm_first": True},
    {"batch_first": True, "bias": False}, {"batch_first": True, "activation": "tanh"},
    {"batch_first": True, "layer_norm_eps": 1e-6}])
def test_encoder_stack_warns_about_nested_tensors_as_pytorch(kwargs):
    act = kwargs.get("activation")
    ours_kw = dict(kwargs, **({"activation": tl.tanh} if act else {}))
    ref_kw = dict(kwargs, **({"activation": torch.tanh} if act else {}))
    heads = 3 if "layer_norm_eps" in kwargs else 2  # an odd number of heads
    got = _warnings_of(lambda: tl.nn.TransformerEncoder(
        tl.nn.TransformerEncoderLayer(6, heads, 16, **ours_kw), 2))
    expected = _warnings_of(lambda: torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(6, heads, 16, **ref_kw), 2))
    assert got == expected and len(got) == (kwargs != {"batch_first": True})
    assert _warnings_of(lambda: tl.nn.TransformerEncoder(
        tl.nn.TransformerEncoderLayer(6, 2, 16), 2, enable_nested_tensor=False)) == []


def _stacks():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref_enc = torch.nn.TransformerEncoder(
            torch.nn.TransformerEncoderLayer(E, H, 16, dropout=0.0), 2).double()
        enc = _copy(ref_enc, tl.nn.TransformerEncoder(
            tl.nn.TransformerEncoderLayer(E, H, 16, dropout=0.0), 2).double())
    ref_dec = torch.nn.TransformerDecoder(
        torch.nn.TransformerDecoderLayer(E, H, 16, dropout=0.0), 2).double()
    dec = _copy(ref_dec, tl.nn.TransformerDecoder(
        tl.nn.TransformerDecoderLayer(E, H, 16, dropout=0.0), 2).double())
    return (enc, dec), (ref_enc, ref_dec)


def test_causal_hints_without_a_mask_are_errors_as_in_pytorch():
    (enc, dec), (ref_enc, ref_dec) = _stacks()
    x = rng.standard_normal((S, N, E))
    _same_error(lambda: enc(tl.tensor(x), is_causal=True),
                lambda: ref_enc(torch.tensor(x), is_causal=True))
    for kw in ({"tgt_is_causal": True}, {"memory_is_causal": True}):
        _same_error(lambda kw=kw: dec(tl.tensor(x), tl.tensor(x), **kw),
                    lambda kw=kw: ref_dec(torch.tensor(x), torch.tensor(x), **kw))


def test_stacks_detect_the_causal_mask_and_warn_about_mismatched_masks():
    (enc, dec), (ref_enc, ref_dec) = _stacks()
    x = rng.standard_normal((S, N, E))
    kpm = np.zeros((N, S), bool)

    def run(lib, e, d):
        mask = lib.nn.Transformer.generate_square_subsequent_mask(S, dtype=lib.float64)
        memory = e(lib.tensor(x), mask=mask, src_key_padding_mask=lib.tensor(kpm))
        return memory, d(lib.tensor(x), memory, tgt_mask=mask)
    ours, ref = [], []
    got = _warnings_of(lambda: ours.append(run(tl, enc, dec)))
    expected = _warnings_of(lambda: ref.append(run(torch, ref_enc, ref_dec)))
    _close(ours, ref)
    assert got == expected == ["Support for mismatched src_key_padding_mask and mask is "
                               "deprecated. Use same type for both instead."]


@pytest.mark.parametrize("size", [0, 1, 4])
@pytest.mark.parametrize("dtype", [None, "float64", "float16"])
def test_generate_square_subsequent_mask_matches_pytorch(size, dtype):
    ours = tl.nn.Transformer.generate_square_subsequent_mask(
        size, dtype=None if dtype is None else getattr(tl, dtype))
    ref = torch.nn.Transformer.generate_square_subsequent_mask(
        size, dtype=None if dtype is None else getattr(torch, dtype))
    _close(ours, ref)


def test_generate_square_subsequent_mask_negative_size_is_a_runtime_error():
    _same_error(lambda: tl.nn.Transformer.generate_square_subsequent_mask(-1),
                lambda: torch.nn.Transformer.generate_square_subsequent_mask(-1), exact=False)


def test_transformer_forwards_its_causal_hints():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, ref = _pair("Transformer", E, H, 1, 1, 16, dropout=0.0)
    src, tgt = rng.standard_normal((S, N, E)), rng.standard_normal((L, N, E))
    _same_error(lambda: ours(tl.tensor(src), tl.tensor(tgt), tgt_is_causal=True),
                lambda: ref(torch.tensor(src), torch.tensor(tgt), tgt_is_causal=True))
    _close(ours(tl.tensor(src[:, 0]), tl.tensor(tgt[:, 0])),
           ref(torch.tensor(src[:, 0]), torch.tensor(tgt[:, 0])))


# -- Embedding / EmbeddingBag --------------------------------------------------------------------

W = rng.standard_normal((10, 4))
IDX = np.array([[0, 2, 4, 2], [9, 1, 0, 2]])


@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.float32])
@pytest.mark.parametrize("op", ["embedding", "embedding_bag"])
def test_lookups_take_int64_and_int32_indices_only(op, dtype):
    err = _same_error(lambda: getattr(tl.nn.functional, op)(tl.tensor(IDX.astype(dtype)),
                                                            tl.tensor(W)),
                      lambda: getattr(torch.nn.functional, op)(torch.tensor(IDX.astype(dtype)),
                                                               torch.tensor(W)), exact=False)
    assert "Expected tensor for argument #1 'indices' to have one of the following scalar " \
        "types: Long, Int" in str(err)
    _close(getattr(tl.nn.functional, op)(tl.tensor(IDX.astype(np.int32)), tl.tensor(W)),
           getattr(torch.nn.functional, op)(torch.tensor(IDX.astype(np.int32)),
                                            torch.tensor(W)))


@pytest.mark.parametrize("kwargs", [{"padding_idx": -1}, {"padding_idx": -10},
                                    {"max_norm": 1.0}, {"max_norm": 1.5, "norm_type": 1.0},
                                    {"scale_grad_by_freq": True, "padding_idx": 2}])
def test_embedding_matches_pytorch(kwargs):
    def run(lib):
        layer = lib.nn.Embedding(10, 4, **kwargs).double()
        with lib.no_grad():
            layer.weight.copy_(lib.tensor(W))
        out = layer(lib.tensor(IDX))
        (out * lib.tensor(np.arange(out.numel()).reshape(tuple(out.shape)) / 7.0)).sum() \
            .backward()
        return out, layer.weight.grad, layer.weight.detach().clone()  # renormalised in place
    ours, ref = run(tl), run(torch)
    _close(ours, ref)


@pytest.mark.parametrize("freeze", [True, False])
def test_embedding_from_pretrained(freeze):
    ours = tl.nn.Embedding.from_pretrained(tl.tensor(W), freeze=freeze, padding_idx=-1)
    ref = torch.nn.Embedding.from_pretrained(torch.tensor(W), freeze=freeze, padding_idx=-1)
    assert (ours.weight.requires_grad, ours.padding_idx) == (ref.weight.requires_grad,
                                                             ref.padding_idx)
    _close(ours(tl.tensor(IDX)), ref(torch.tensor(IDX)))


def _bag_run(lib, idx, offsets=None, psw=None, **kwargs):
    w = lib.tensor(W, requires_grad=True)
    p = None if psw is None else lib.tensor(psw, requires_grad=True)
    out = lib.nn.functional.embedding_bag(lib.tensor(idx), w,
                                          None if offsets is None else lib.tensor(offsets),
                                          per_sample_weights=p, **kwargs)
    (out * lib.tensor(np.arange(out.numel()).reshape(tuple(out.shape)) / 5.0)).sum().backward()
    return out, w.grad, None if p is None else p.grad


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 2}, {"padding_idx": -8},
                                    {"include_last_offset": True}])
def test_embedding_bag_matches_pytorch(mode, kwargs):
    flat, offsets = IDX.reshape(-1), np.array([0, 3, 3, 5, 8])
    offsets = offsets if kwargs.get("include_last_offset") else offsets[:-1]
    _close(_bag_run(tl, flat, offsets, mode=mode, **kwargs),
           _bag_run(torch, flat, offsets, mode=mode, **kwargs))
    _close(_bag_run(tl, IDX, mode=mode), _bag_run(torch, IDX, mode=mode))


def test_embedding_bag_per_sample_weights_of_2d_input_get_their_own_shape_of_gradient():
    psw = rng.standard_normal(IDX.shape)
    ours = _bag_run(tl, IDX, psw=psw, mode="sum")
    assert ours[2].shape == IDX.shape
    _close(ours, _bag_run(torch, IDX, psw=psw, mode="sum"))


def test_embedding_bag_max_of_only_empty_bags_backpropagates_zeros():
    empty = np.zeros(0, np.int64)
    _close(_bag_run(tl, empty, np.array([0, 0]), mode="max"),
           _bag_run(torch, empty, np.array([0, 0]), mode="max"))


@pytest.mark.parametrize("kwargs", [
    {"mode": "max", "scale_grad_by_freq": True},
    {"mode": "mean", "per_sample_weights": np.ones(8)},
    {"mode": "sum", "per_sample_weights": np.ones(8, np.float32)},
    {"padding_idx": 10},
])
def test_embedding_bag_errors_match_pytorch(kwargs):
    flat, offsets = IDX.reshape(-1), np.array([0, 3])
    exact = "padding_idx" in kwargs or kwargs.get("mode") != "sum"
    _same_error(lambda: tl.nn.functional.embedding_bag(tl.tensor(flat), tl.tensor(W),
                                                       tl.tensor(offsets), **_lib_args(tl, kwargs)),
                lambda: torch.nn.functional.embedding_bag(torch.tensor(flat), torch.tensor(W),
                                                          torch.tensor(offsets),
                                                          **_lib_args(torch, kwargs)),
                exact=exact)


def test_embedding_bag_empty_offsets_with_indices_is_an_error():
    # (PyTorch's kernel reads out of bounds here and can crash the process)
    with pytest.raises(RuntimeError, match="offsets is empty"):
        tl.nn.functional.embedding_bag(tl.tensor([0, 1]), tl.tensor(W),
                                       tl.zeros(0, dtype=tl.int64))
    out = tl.nn.functional.embedding_bag(tl.zeros(0, dtype=tl.int64), tl.tensor(W),
                                         tl.zeros(0, dtype=tl.int64))
    assert out.shape == (0, 4)


# -- RNN / LSTM / GRU and the cells --------------------------------------------------------------

IN, HID, T = 3, 5, 4

RNN_CONFIGS = [("RNN", {"nonlinearity": "relu", "num_layers": 2, "bidirectional": True}),
               ("LSTM", {"proj_size": 2, "num_layers": 2, "bidirectional": True}),
               ("GRU", {"batch_first": True, "bias": False})]


@pytest.mark.parametrize("cls, kwargs", RNN_CONFIGS, ids=[c for c, _ in RNN_CONFIGS])
@pytest.mark.parametrize("batched", [True, False])
def test_recurrent_layers_match_pytorch_with_initial_states(cls, kwargs, batched):
    ours, ref = _pair(cls, IN, HID, **kwargs)
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    out_size = kwargs.get("proj_size") or HID
    x = rng.standard_normal(((N, T, IN) if kwargs.get("batch_first") else (T, N, IN))
                            if batched else (T, IN))
    h0 = rng.standard_normal((layers, N, out_size) if batched else (layers, out_size))
    c0 = rng.standard_normal((layers, N, HID) if batched else (layers, HID))

    def run(lib, layer):
        xs, hs, cs = (lib.tensor(a, requires_grad=True) for a in (x, h0, c0))
        out, state = layer(xs, (hs, cs) if cls == "LSTM" else hs)
        loss = (out * out).sum() + sum((s * s).sum() for s in (
            state if isinstance(state, tuple) else (state,)))
        loss.backward()
        return out, state, xs.grad, hs.grad, cs.grad if cls == "LSTM" else None, \
            [p.grad for p in layer.parameters()]
    _close(run(tl, ours), run(torch, ref))


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bad", [
    {"dropout": 1.5}, {"dropout": True}, {"dropout": "a"}, {"num_layers": 0},
    {"hidden_size": 0}, {"hidden_size": 2.5}, {"input_size": 0}, {"bias": 1},
    {"batch_first": None}])
def test_recurrent_constructor_errors_match_pytorch(cls, bad):
    kwargs = dict({"input_size": IN, "hidden_size": HID}, **bad)
    _same_error(lambda: getattr(tl.nn, cls)(**kwargs), lambda: getattr(torch.nn, cls)(**kwargs),
                exact=bad.get("dropout") != "a")


def test_lstm_projection_constructor_errors_match_pytorch():
    for proj_size in (-1, HID):
        _same_error(lambda p=proj_size: tl.nn.LSTM(IN, HID, proj_size=p),
                    lambda p=proj_size: torch.nn.LSTM(IN, HID, proj_size=p))


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_dropout_on_a_single_layer_warns_as_pytorch(cls):
    got = _warnings_of(lambda: getattr(tl.nn, cls)(IN, HID, dropout=0.5))
    expected = _warnings_of(lambda: getattr(torch.nn, cls)(IN, HID, dropout=0.5))
    assert got == expected and len(got) == 1
    assert _warnings_of(lambda: getattr(tl.nn, cls)(IN, HID, num_layers=2, dropout=0.5)) == []


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("x_shape, h_shape", [
    ((IN,), None), ((1, T, N, IN), None), ((T, N, IN + 1), None), ((0, N, IN), None),
    ((T, N, IN), (2, N + 1, HID)), ((T, N, IN), (1, N, HID)), ((T, N, IN), (2, N, HID + 1)),
    ((T, N, IN), (2, HID)), ((T, IN), (2, 1, HID)), ((T, IN), (1, HID))])
def test_recurrent_forward_errors_match_pytorch(cls, x_shape, h_shape):
    ours, ref = _pair(cls, IN, HID, num_layers=2)
    x = rng.standard_normal(x_shape)
    h = None if h_shape is None else rng.standard_normal(h_shape)
    c = None if h_shape is None else rng.standard_normal(h_shape[:-1] + (HID,))

    def call(lib, layer):
        if h is None:
            return layer(lib.tensor(x))
        return layer(lib.tensor(x), (lib.tensor(h), lib.tensor(c)) if cls == "LSTM"
                     else lib.tensor(h))
    _same_error(lambda: call(tl, ours), lambda: call(torch, ref))


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_recurrent_dtype_mismatches_are_errors(cls):
    ours, ref = _pair(cls, IN, HID)
    x = rng.standard_normal((T, N, IN))
    _same_error(lambda: ours(tl.tensor(x).float()), lambda: ref(torch.tensor(x).float()))
    h = np.zeros((1, N, HID), np.float32)
    _same_error(lambda: ours(tl.tensor(x), (tl.tensor(h), tl.tensor(h)) if cls == "LSTM"
                             else tl.tensor(h)),
                lambda: ref(torch.tensor(x), (torch.tensor(h), torch.tensor(h)) if cls == "LSTM"
                            else torch.tensor(h)), exact=False)


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("x_shape, h_shape", [
    ((1, N, IN), None), ((N, IN), (1, N, HID)), ((N, IN), (N + 1, HID)), ((N, IN), (N, HID + 1)),
    ((N, IN + 1), None), ((IN,), (1, HID)), ((N, IN), (HID,))])
def test_cell_errors_match_pytorch(cls, x_shape, h_shape):
    ours, ref = _pair(cls, IN, HID)
    x = rng.standard_normal(x_shape)
    h = None if h_shape is None else rng.standard_normal(h_shape)

    def call(lib, cell):
        if h is None:
            return cell(lib.tensor(x))
        return cell(lib.tensor(x), (lib.tensor(h), lib.tensor(h)) if cls == "LSTMCell"
                    else lib.tensor(h))
    _same_error(lambda: call(tl, ours), lambda: call(torch, ref))


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_match_pytorch_and_allow_an_empty_hidden_state(cls):
    ours, ref = _pair(cls, IN, HID)
    x, h = rng.standard_normal((N, IN)), rng.standard_normal((N, HID))

    def run(lib, cell):
        xs, hs = lib.tensor(x, requires_grad=True), lib.tensor(h, requires_grad=True)
        out = cell(xs, (hs, hs * 0.5) if cls == "LSTMCell" else hs)
        sum((o * o).sum() for o in (out if isinstance(out, tuple) else (out,))).backward()
        return out, xs.grad, hs.grad
    _close(run(tl, ours), run(torch, ref))
    assert tuple(getattr(tl.nn, cls)(IN, 0).weight_ih.shape) == \
        tuple(getattr(torch.nn, cls)(IN, 0).weight_ih.shape)
    _same_error(lambda: getattr(tl.nn, cls)(IN, -1), lambda: getattr(torch.nn, cls)(IN, -1),
                exact=False)


def test_recurrent_check_methods_and_flat_weights_are_pytorch_s():
    results = []
    for lib in (tl, torch):
        layer = lib.nn.LSTM(IN, 4, num_layers=2, proj_size=2)
        x = lib.zeros(T, N, IN)
        states = (lib.arange(8.0).reshape(2, N, 2), lib.arange(16.0).reshape(2, N, 4))
        errors = [_raised(lambda layer=layer, x=x, lib=lib: layer.check_forward_args(
            x, (lib.zeros(2, N, 2), lib.zeros(2, N, 3)), None)),
            _raised(lambda layer=layer, lib=lib: layer.check_input(lib.zeros(T, IN), None))]
        gru = lib.nn.GRU(IN, 4)
        results.append(([tuple(w.shape) for w in layer._flat_weights],
                        layer.get_expected_hidden_size(x, None),
                        layer.get_expected_cell_size(x, None),
                        [(type(e), str(e)) for e in errors],
                        layer.permute_hidden(states, lib.tensor([1, 0]))[1].numpy().tolist(),
                        gru.permute_hidden(states[1], lib.tensor([1, 0])).numpy().tolist()))
    assert results[0] == results[1]
