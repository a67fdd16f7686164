"""Convolution and pooling against direct NumPy loop references, plus float64 gradchecks."""

import numpy as np
import pytest
from helpers import check_grads, check_second_order

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812
from tinygrad_lite import nn

rng = np.random.default_rng(0)


def r(*shape):
    return rng.standard_normal(shape)


def ref_conv2d(x, w, b, stride, pad, dil, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for ni in range(n):
        for oc in range(o):
            g = oc // og
            for i in range(oh):
                for j in range(ow):
                    acc = 0.0
                    for ci in range(cg):
                        for p in range(kh):
                            for q in range(kw):
                                acc += (w[oc, ci, p, q]
                                        * xp[ni, g * cg + ci, i * stride[0] + p * dil[0],
                                             j * stride[1] + q * dil[1]])
                    out[ni, oc, i, j] = acc + (b[oc] if b is not None else 0)
    return out


def ref_conv_transpose2d(x, w, b, stride, pad, out_pad, dil, groups):
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    cg = c // groups
    fh = (h - 1) * stride + dil * (kh - 1) + 1 + out_pad
    fw = (wd - 1) * stride + dil * (kw - 1) + 1 + out_pad
    full = np.zeros((n, og * groups, fh, fw))
    for ni in range(n):
        for ci in range(c):
            g = ci // cg
            for i in range(h):
                for j in range(wd):
                    for oc in range(og):
                        for p in range(kh):
                            for q in range(kw):
                                full[ni, g * og + oc, i * stride + p * dil, j * stride + q * dil] \
                                    += x[ni, ci, i, j] * w[ci, oc, p, q]
    out = full[:, :, pad:fh - pad, pad:fw - pad]
    return out + (b.reshape(1, -1, 1, 1) if b is not None else 0)


def ref_pool2d(x, k, s, pad, reduce, fill):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=fill)
    oh, ow = (h + 2 * pad - k) // s + 1, (w + 2 * pad - k) // s + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = reduce(xp[:, :, i * s:i * s + k, j * s:j * s + k], axis=(2, 3))
    return out


CONV_CASES = [
    dict(stride=(1, 1), pad=(0, 0), dil=(1, 1), groups=1),
    dict(stride=(2, 1), pad=(1, 2), dil=(1, 1), groups=1),
    dict(stride=(1, 1), pad=(1, 1), dil=(2, 1), groups=1),
    dict(stride=(2, 2), pad=(1, 0), dil=(1, 2), groups=2),
]


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_matches_loop_reference_and_gradcheck(case):
    x, w, b = r(2, 4, 6, 7), r(4, 4 // case["groups"], 3, 2), r(4)
    got = F.conv2d(tl.tensor(x), tl.tensor(w), tl.tensor(b), case["stride"], case["pad"],
                   case["dil"], case["groups"])
    ref = ref_conv2d(x, w, b, case["stride"], case["pad"], case["dil"], case["groups"])
    np.testing.assert_allclose(got.detach().numpy(), ref, rtol=1e-10, atol=1e-12)
    check_grads(lambda a, c, d: F.conv2d(a, c, d, case["stride"], case["pad"], case["dil"],
                                         case["groups"]),
                r(1, 4, 5, 5), w, b)


def test_conv2d_second_order_and_same_padding_and_conv1d():
    check_second_order(lambda a, c: F.conv2d(a, c, padding=1, stride=2), r(1, 2, 4, 4),
                       r(2, 2, 3, 3))
    x, w = r(1, 2, 5, 6), r(3, 2, 4, 3)
    out = F.conv2d(tl.tensor(x), tl.tensor(w), padding="same", dilation=(1, 2))
    assert out.shape == (1, 3, 5, 6)
    # 'same' pads total d*(k-1) with the extra element on the right/bottom, as PyTorch
    xp = np.pad(x, ((0, 0), (0, 0), (1, 2), (2, 2)))
    np.testing.assert_allclose(
        out.detach().numpy(), ref_conv2d(xp, w, None, (1, 1), (0, 0), (1, 2), 1), rtol=1e-10
    )
    x1, w1 = r(2, 3, 9), r(4, 3, 3)
    got = F.conv1d(tl.tensor(x1), tl.tensor(w1), stride=2, padding=1)
    ref = ref_conv2d(x1[:, :, None], w1[:, :, None], None, (1, 2), (0, 1), (1, 1), 1)[:, :, 0]
    np.testing.assert_allclose(got.detach().numpy(), ref, rtol=1e-10)
    check_grads(lambda a, c: F.conv1d(a, c, dilation=2, padding=2), r(1, 3, 7), w1)


@pytest.mark.parametrize(
    "stride,pad,out_pad,dil,groups", [(1, 0, 0, 1, 1), (2, 1, 1, 1, 1), (2, 0, 0, 2, 2)]
)
def test_conv_transpose2d(stride, pad, out_pad, dil, groups):
    x, w, b = r(2, 4, 3, 4), r(4, 3, 3, 2), r(3 * groups)
    got = F.conv_transpose2d(
        tl.tensor(x), tl.tensor(w), tl.tensor(b), stride, pad, out_pad, groups, dil
    )
    ref = ref_conv_transpose2d(x, w, b, stride, pad, out_pad, dil, groups)
    np.testing.assert_allclose(got.detach().numpy(), ref, rtol=1e-10, atol=1e-12)
    check_grads(
        lambda a, c: F.conv_transpose2d(a, c, None, stride, pad, out_pad, groups, dil),
        r(1, 4, 2, 3),
        w,
    )


def test_conv_transpose_is_adjoint_of_conv():
    x, w, y = r(1, 2, 5, 5), r(3, 2, 3, 3), r(1, 3, 3, 3)
    lhs = (F.conv2d(tl.tensor(x), tl.tensor(w), stride=2, padding=1).detach().numpy() * y).sum()
    rhs = (
        x * F.conv_transpose2d(tl.tensor(y), tl.tensor(w), stride=2, padding=1).detach().numpy()
    ).sum()
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10)


def test_pooling_against_loops_and_gradcheck():
    x = r(2, 3, 7, 6)
    got = F.max_pool2d(tl.tensor(x), 3, 2, 1)
    np.testing.assert_allclose(got.detach().numpy(), ref_pool2d(x, 3, 2, 1, np.max, -np.inf))
    np.testing.assert_allclose(
        F.avg_pool2d(tl.tensor(x), 2).detach().numpy(), ref_pool2d(x, 2, 2, 0, np.mean, 0.0)
    )
    np.testing.assert_allclose(
        F.avg_pool2d(tl.tensor(x), 3, 2, 1).detach().numpy(),
        ref_pool2d(x, 3, 2, 1, np.sum, 0.0) / 9,
    )
    ones = ref_pool2d(np.ones((1, 1, 7, 6)), 3, 2, 1, np.sum, 0.0)
    np.testing.assert_allclose(
        F.avg_pool2d(tl.tensor(x), 3, 2, 1, count_include_pad=False).detach().numpy(),
        ref_pool2d(x, 3, 2, 1, np.sum, 0.0) / ones,
    )
    check_grads(lambda a: F.max_pool2d(a, 2, 1), r(1, 2, 4, 4))
    check_grads(lambda a: F.avg_pool2d(a, 3, 2, 1, count_include_pad=False), r(1, 2, 5, 5))
    check_grads(lambda a: F.max_pool1d(a, 3, 2, 1), r(2, 2, 7))
    check_grads(lambda a: F.avg_pool1d(a, 2), r(2, 2, 6))
    vals, idx = F.max_pool2d(tl.tensor(x), 2, return_indices=True)
    np.testing.assert_array_equal(
        np.take_along_axis(x.reshape(2, 3, -1), idx.detach().numpy().reshape(2, 3, -1), 2),
        vals.detach().numpy().reshape(2, 3, -1),
    )


def test_adaptive_avg_pool():
    x = r(2, 3, 7, 5)
    got = nn.AdaptiveAvgPool2d((3, 2))(tl.tensor(x)).detach().numpy()
    ref = np.zeros((2, 3, 3, 2))
    for i in range(3):
        for j in range(2):
            h0, h1 = (i * 7) // 3, -(-(i + 1) * 7 // 3)
            w0, w1 = (j * 5) // 2, -(-(j + 1) * 5 // 2)
            ref[:, :, i, j] = x[:, :, h0:h1, w0:w1].mean((2, 3))
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    check_grads(lambda a: F.adaptive_avg_pool2d(a, 2), r(1, 2, 5, 4))


def test_conv_modules_shapes_and_errors():
    conv = nn.Conv2d(3, 6, 3, stride=2, padding=1, groups=3)
    assert conv.weight.shape == (6, 1, 3, 3)
    assert conv(tl.randn(2, 3, 8, 8)).shape == (2, 6, 4, 4)
    assert conv(tl.randn(3, 8, 8)).shape == (6, 4, 4)  # unbatched
    assert repr(conv) == "Conv2d(3, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), groups=3)"
    tconv = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1)
    assert tconv(tl.randn(1, 4, 5, 5)).shape == (1, 2, 10, 10)
    with pytest.raises(RuntimeError, match="conv2d: given groups=1.*to have 4 channels"):
        nn.Conv2d(4, 2, 3)(tl.randn(1, 3, 5, 5))
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(2 * 9, 3))
    out = model(tl.randn(4, 1, 8, 8))
    out.sum().backward()
    assert model[0].weight.grad.shape == (2, 1, 3, 3)


@pytest.mark.parametrize("shape,kernel,stride,nd", [
    ((2, 3, 8, 8), 2, None, 2), ((2, 3, 9, 7), 2, None, 2), ((2, 3, 8, 9), (2, 3), None, 2),
    ((3, 8, 8), 2, None, 2), ((2, 3, 12), 3, None, 1), ((2, 3, 8, 8), 3, 2, 2)])
def test_max_pool_matches_pytorch_with_ties_nan_and_indices(shape, kernel, stride, nd):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.integers(-2, 3, shape).astype(np.float64)  # many ties inside windows
    x.flat[5] = np.nan
    tl_fn = F.max_pool2d if nd == 2 else F.max_pool1d
    th_fn = torch.nn.functional.max_pool2d if nd == 2 else torch.nn.functional.max_pool1d
    a, b = tl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (out, idx), (ref, ref_idx) = (tl_fn(a, kernel, stride, return_indices=True),
                                  th_fn(b, kernel, stride, return_indices=True))
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    np.testing.assert_array_equal(idx.numpy(), ref_idx.numpy())
    g = rng.standard_normal(ref.shape)
    out.backward(tl.tensor(g))
    ref.backward(torch.tensor(g))
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy())


def test_max_pool_by_blocks_second_order():
    x = np.random.default_rng(1).standard_normal((2, 2, 4, 6))  # distinct values: smooth
    for fn, arr in ((lambda a: F.max_pool2d(a, 2) ** 2, x), (lambda a: F.max_pool1d(a, 3) ** 2,
                                                            x[0])):
        check_grads(fn, arr)
        check_second_order(fn, arr)
