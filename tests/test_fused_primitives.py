"""The fused primitives that replace composites on hot paths (GELU, batch and layer norm,
batched linear): the same values and gradients as the composites they replace, to second
order, PyTorch's node names, and float32 GELU as accurate as PyTorch's own float32 GELU."""

import math

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.autograd import gradcheck, gradgradcheck

F = tl.nn.functional
rng = np.random.default_rng(0)


def composite_gelu(x, approximate):
    if approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)
        return 0.5 * x * (1.0 + tl.tanh(inner))
    return 0.5 * x * (1.0 + tl.erf(x / math.sqrt(2.0)))


def composite_norm(x, dims, weight, bias, eps=1e-5):
    out = (x - x.mean(dims, keepdim=True)) / tl.sqrt(tl.var(x, dims, correction=0,
                                                             keepdim=True) + eps)
    return out * weight + bias


def second_order(f, inputs):
    """Values, gradients and gradients of the gradients' squared norm."""
    out = f(*inputs)
    seed = tl.tensor(np.random.default_rng(1).standard_normal(out.shape))  # same for both
    grads = tl.autograd.grad((out * seed).sum(), inputs, create_graph=True)
    again = tl.autograd.grad(sum((g * g).sum() for g in grads), inputs, allow_unused=True)
    return [out.detach(), *[g.detach() for g in grads],
            *[tl.zeros(1) if g is None else g for g in again]]


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_primitive_matches_its_composite(approximate):
    x = tl.tensor(rng.standard_normal((3, 7)) * 3, requires_grad=True)
    fused = second_order(lambda t: F.gelu(t, approximate=approximate), [x])
    reference = second_order(lambda t: composite_gelu(t, approximate), [x])
    for a, b in zip(fused, reference):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)
    assert F.gelu(x, approximate=approximate).grad_fn.name() == "GeluBackward0"
    assert gradgradcheck(lambda t: F.gelu(t, approximate=approximate), (x,))


def test_float32_gelu_is_as_accurate_as_a_float32_library():
    grid = np.linspace(-8, 8, 200_001)
    exact = grid * 0.5 * (1 + np.vectorize(math.erf)(grid / math.sqrt(2)))
    ours = F.gelu(tl.tensor(grid.astype(np.float32))).numpy().astype(np.float64)
    assert np.abs(ours - exact).max() < 2e-6  # float32 spacing near 8 is 9.5e-7
    float64 = F.gelu(tl.tensor(grid)).numpy()
    np.testing.assert_allclose(float64, exact, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("case", ["layer_norm_last", "layer_norm_two_dims", "batch_norm_2d",
                                  "batch_norm_1d"])
def test_normalisation_primitives_match_the_composite(case):
    if case.startswith("layer_norm"):
        shape, norm = ((4, 3, 5), (5,)) if case == "layer_norm_last" else ((4, 3, 5), (3, 5))
        dims = tuple(range(3 - len(norm), 3))
        wshape = norm

        def fused(x, w, b):
            return F.layer_norm(x, norm, w, b)
        name = "NativeLayerNormBackward0"
    else:
        shape = (4, 3, 2, 5) if case == "batch_norm_2d" else (6, 3)
        dims = (0,) + tuple(range(2, len(shape)))
        wshape = (3,)

        def fused(x, w, b):
            return F.batch_norm(x, None, None, w, b, training=True)
        name = "NativeBatchNormBackward0"
    broadcast = (1, 3) + (1,) * (len(shape) - 2) if case.startswith("batch") else wshape
    inputs = [tl.tensor(rng.standard_normal(s), requires_grad=True)
              for s in (shape, wshape, wshape)]

    def composite(x, w, b):
        return composite_norm(x, dims, w.reshape(broadcast), b.reshape(broadcast))
    for a, b in zip(second_order(fused, inputs), second_order(composite, inputs)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
    assert fused(*inputs).grad_fn.name() == name
    assert gradcheck(fused, tuple(inputs)) and gradgradcheck(fused, tuple(inputs))


def test_batch_norm_running_statistics_unchanged_by_the_primitive():
    x = tl.tensor(rng.standard_normal((8, 3, 4)))
    mean, var = tl.zeros(3, dtype=tl.float64), tl.ones(3, dtype=tl.float64)
    F.batch_norm(x, mean, var, training=True, momentum=0.2)
    data = x.numpy()
    np.testing.assert_allclose(mean.numpy(), 0.2 * data.mean((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(var.numpy(), 0.8 + 0.2 * data.var((0, 2), ddof=1), rtol=1e-12)


@pytest.mark.parametrize("lead", [(5,), (2, 3), (2, 1, 3), (1, 2, 2, 2)])
def test_batched_linear_and_matmul_fold_the_batch(lead):
    x = tl.tensor(rng.standard_normal((*lead, 4)), requires_grad=True)
    w = tl.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    b = tl.tensor(rng.standard_normal(3), requires_grad=True)
    assert gradgradcheck(lambda x, w, b: F.linear(x, w, b), (x, w, b))
    assert gradgradcheck(lambda x, w: x @ w.t(), (x, w))
    expected = np.einsum("...k,nk->...n", x.detach().numpy(), w.detach().numpy())
    np.testing.assert_allclose((x @ w.t()).detach().numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("shapes", [((2, 1, 3, 4), (1, 4, 5)), ((3, 4), (1, 1, 4, 2)),
                                    ((2, 3, 3, 4), (1, 1, 4, 2)), ((1, 3, 4), (1, 4, 2))])
def test_matmul_with_a_size_one_batch_matrix_folds_the_batch(shapes):
    # a transposed convolution's (N, 1, P, C) @ (1, C, K) product: the matrix's gradient is
    # one 2-D GEMM over the folded batch, not an (N, 1, C, K) stack summed afterwards
    a = tl.tensor(rng.standard_normal(shapes[0]), requires_grad=True)
    b = tl.tensor(rng.standard_normal(shapes[1]), requires_grad=True)
    assert gradgradcheck(lambda a, b: a @ b, (a, b))
    out = a @ b
    np.testing.assert_allclose(out.detach().numpy(), np.matmul(a.detach().numpy(),
                                                               b.detach().numpy()), rtol=1e-12)
    out.backward(tl.ones_like(out))
    assert a.grad.shape == a.shape and b.grad.shape == b.shape
    ones = np.ones(out.shape)
    expected_b = np.einsum("...ik,...ij->...kj", np.broadcast_to(a.detach().numpy(),
                                                                  out.shape[:-1] + shapes[0][-1:]),
                           ones).reshape(-1, *shapes[1][-2:]).sum(0).reshape(shapes[1])
    np.testing.assert_allclose(b.grad.numpy(), expected_b, rtol=1e-12)


@pytest.mark.parametrize("equation,shapes", [
    ("bnm,bmk->bnk", [(2, 3, 4), (2, 4, 5)]), ("ij,jk", [(3, 4), (4, 2)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]), ("ijk,jil->kl", [(2, 3, 4), (3, 2, 5)]),
    ("i,j->ij", [(3,), (4,)]), ("abc,cd->da", [(2, 3, 4), (4, 5)]),
    ("ij,ij->", [(3, 4), (3, 4)]), ("ii,ij->j", [(3, 3), (3, 2)]), ("ab,b->a", [(3, 4), (1,)])])
def test_einsum_by_matrix_products_matches_numpy_to_second_order(equation, shapes):
    # two-operand einsum runs as one batched GEMM (as PyTorch's); diagonals and broadcast
    # letters keep NumPy's einsum
    operands = [tl.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
    expected = np.einsum(equation, *(t.detach().numpy() for t in operands))
    got = tl.einsum(equation, *operands)
    np.testing.assert_allclose(got.detach().numpy(), expected, rtol=1e-12, atol=1e-12)
    assert gradgradcheck(lambda *xs: tl.einsum(equation, *xs), operands)


def composite_softmax(x, dim, log):
    shifted = x - x.amax(dim, keepdim=True).detach()
    if log:
        return shifted - tl.log(tl.exp(shifted).sum(dim, keepdim=True))
    e = tl.exp(shifted)
    return e / e.sum(dim, keepdim=True)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape,dim", [((5,), 0), ((3, 4), -1), ((3, 4), 0), ((2, 3, 4), 1)])
def test_softmax_primitives_match_the_composite(log, shape, dim):
    x = tl.tensor(rng.standard_normal(shape) * 3, requires_grad=True)
    fused = (tl.log_softmax if log else tl.softmax)
    ours = second_order(lambda t: fused(t, dim), [x])
    theirs = second_order(lambda t: composite_softmax(t, dim, log), [x])
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
    assert fused(x, dim).grad_fn.name() == ("LogSoftmaxBackward0" if log else "SoftmaxBackward0")
    assert gradcheck(lambda t: fused(t, dim), (x,))
    assert gradgradcheck(lambda t: fused(t, dim), (x,))


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape,dim", [((0, 3), 1), ((3, 0), 1), ((0, 3), 0), ((), 0), ((), -1)])
def test_softmax_of_empty_and_zero_dim_tensors(log, shape, dim):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal(shape)
    x, xt = tl.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    name = "log_softmax" if log else "softmax"
    out, expected = getattr(tl, name)(x, dim), getattr(torch, name)(xt, dim)
    assert tuple(out.shape) == tuple(expected.shape)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy())
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), atol=1e-15)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("row", [[np.nan, 1, 2], [np.inf, 1, 2], [-np.inf] * 3, [-np.inf, 0, 1],
                                 [1e30, -1e30, 0]])
def test_softmax_of_non_finite_rows_as_pytorch(log, row):
    torch = pytest.importorskip("torch")
    a = np.array([row, [0.5, -1.0, 2.0]], np.float32)
    name = "log_softmax" if log else "softmax"
    ours = getattr(tl, name)(tl.tensor(a), 1).numpy()
    expected = getattr(torch, name)(torch.tensor(a), 1).numpy()
    np.testing.assert_allclose(ours, expected, rtol=1e-6, equal_nan=True)


def test_softmax_result_modified_in_place_is_caught():
    x = tl.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    y = tl.softmax(x, 1)
    y.mul_(2)
    with pytest.raises(RuntimeError, match="SoftmaxBackward0: its output.*modified by an in-place"):
        y.sum().backward()


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shapes", [((2, 3, 5, 4), (2, 3, 5, 4)), ((2, 5, 4), (2, 7, 4)),
                                    ((6, 4), (4, 4)), ((1, 2, 1, 3), (1, 2, 1, 3))])
def test_attention_primitive_matches_the_composite(causal, shapes):
    from tinygrad_lite.nn._functional.attention import attention_math

    (sq, sk), scale = shapes, 0.7
    q = tl.tensor(rng.standard_normal(sq), requires_grad=True)
    k = tl.tensor(rng.standard_normal(sk), requires_grad=True)
    v = tl.tensor(rng.standard_normal(sk[:-1] + (3,)), requires_grad=True)

    def fused(a, b, c):
        return F.scaled_dot_product_attention(a, b, c, is_causal=causal, scale=scale)

    ours = second_order(fused, [q, k, v])
    theirs = second_order(lambda a, b, c: attention_math(a, b, c, None, 0.0, causal, scale),
                          [q, k, v])
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
    assert fused(q, k, v).grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert gradcheck(fused, (q, k, v))
    assert gradgradcheck(fused, (q, k, v))


def test_attention_primitive_only_where_it_applies():
    q = tl.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    k = tl.tensor(rng.standard_normal((2, 3, 4)))
    mask = tl.tensor(np.tril(np.ones((3, 3), bool)))
    fused_name = "ScaledDotProductFlashAttentionForCpuBackward0"
    assert F.scaled_dot_product_attention(q, k, k).grad_fn.name() == fused_name
    # a mask, dropout, mixed dtypes or broadcast batch dims: the composite
    assert F.scaled_dot_product_attention(q, k, k, attn_mask=mask).grad_fn.name() != fused_name
    assert F.scaled_dot_product_attention(q, k, k, dropout_p=0.5).grad_fn.name() != fused_name
    assert F.scaled_dot_product_attention(q, k[:1], k[:1]).grad_fn.name() != fused_name
    # only the inputs that need gradients get them
    F.scaled_dot_product_attention(q, k, k).sum().backward()
    assert q.grad is not None and k.grad is None


def test_attention_primitive_against_pytorch():
    torch = pytest.importorskip("torch")
    q, k, v = (rng.standard_normal((2, 4, 9, 8)).astype(np.float32) for _ in range(3))
    g = rng.standard_normal((2, 4, 9, 8)).astype(np.float32)
    ours = [tl.tensor(a, requires_grad=True) for a in (q, k, v)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (q, k, v)]
    out = F.scaled_dot_product_attention(*ours, is_causal=True)
    expected = torch.nn.functional.scaled_dot_product_attention(*theirs, is_causal=True)
    out.backward(tl.tensor(g))
    expected.backward(torch.tensor(g))
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), atol=1e-5)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=1e-5)
