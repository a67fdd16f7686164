"""grid_sample (bilinear/trilinear, nearest, bicubic; zeros, border, reflection padding;
align_corners) and affine_grid against PyTorch: values and gradients for input, grid and theta
in float64, a numerical gradient check, and the argument errors."""

import itertools
import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
from tests.helpers import check_grads

torch = pytest.importorskip("torch")
rng = np.random.default_rng(11)

SAMPLE_CASES = [(nd, mode, pad, align) for nd, mode, pad, align in itertools.product(
    (2, 3), ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"), (False, True))
    if not (nd == 3 and mode == "bicubic")]


@pytest.mark.parametrize("nd,mode,pad,align", SAMPLE_CASES)
def test_grid_sample_matches_pytorch(nd, mode, pad, align):
    x = rng.standard_normal((2, 3, 4, 5) if nd == 2 else (2, 2, 3, 4, 5))
    g = rng.uniform(-1.4, 1.4, (2, 3, 4, 2) if nd == 2 else (2, 2, 3, 4, 3))
    x_t, g_t = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
    x_o, g_o = tl.tensor(x, requires_grad=True), tl.tensor(g, requires_grad=True)
    theirs = torch.nn.functional.grid_sample(x_t, g_t, mode=mode, padding_mode=pad,
                                             align_corners=align)
    ours = tl.nn.functional.grid_sample(x_o, g_o, mode=mode, padding_mode=pad,
                                        align_corners=align)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    up = rng.standard_normal(tuple(theirs.shape))
    (theirs * torch.tensor(up)).sum().backward()
    (ours * tl.tensor(up)).sum().backward()
    np.testing.assert_allclose(x_o.grad.numpy(), x_t.grad.numpy(), rtol=1e-10, atol=1e-12)
    g_grad = np.zeros_like(g) if g_o.grad is None else g_o.grad.numpy()
    np.testing.assert_allclose(g_grad, g_t.grad.numpy(), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 3, 2, 3, 4), (1, 1, 1, 3)])
def test_affine_grid_matches_pytorch(shape, align):
    theta = rng.standard_normal((shape[0], len(shape) - 2, len(shape) - 1))
    t_t, t_o = torch.tensor(theta, requires_grad=True), tl.tensor(theta, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unit-size grid warning
        theirs = torch.nn.functional.affine_grid(t_t, shape, align_corners=align)
        ours = tl.nn.functional.affine_grid(t_o, shape, align_corners=align)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12,
                               atol=1e-14)
    up = rng.standard_normal(tuple(theirs.shape))
    (theirs * torch.tensor(up)).sum().backward()
    (ours * tl.tensor(up)).sum().backward()
    np.testing.assert_allclose(t_o.grad.numpy(), t_t.grad.numpy(), rtol=1e-10)


def test_identity_transform_reproduces_the_image_and_spatial_transformer_gradcheck():
    x = rng.standard_normal((1, 2, 5, 6)).astype(np.float32)
    theta = tl.tensor(np.array([[[1.0, 0, 0], [0, 1.0, 0]]], np.float32))
    grid = tl.nn.functional.affine_grid(theta, (1, 2, 5, 6), align_corners=False)
    out = tl.nn.functional.grid_sample(tl.tensor(x), grid, align_corners=False)
    assert out.dtype == tl.float32
    np.testing.assert_allclose(out.numpy(), x, atol=1e-6)

    def transformer(image, th):
        g = tl.nn.functional.affine_grid(th, (1, 2, 4, 4), align_corners=True)
        return tl.nn.functional.grid_sample(image, g, padding_mode="border", align_corners=True)
    check_grads(transformer, rng.standard_normal((1, 2, 4, 4)),
                np.array([[[0.9, 0.1, 0.05], [-0.2, 0.8, 0.1]]]))


def test_default_align_corners_warns_and_errors():
    x, g = tl.randn(1, 1, 3, 3), tl.zeros(1, 2, 2, 2)
    with pytest.warns(UserWarning, match="align_corners"):
        tl.nn.functional.grid_sample(x, g)
    with pytest.warns(UserWarning, match="align_corners"):
        tl.nn.functional.affine_grid(tl.zeros(1, 2, 3), (1, 1, 2, 2))
    f = tl.nn.functional.grid_sample
    with pytest.raises(ValueError):
        f(x, g, mode="area", align_corners=False)
    with pytest.raises(ValueError):
        f(x, g, padding_mode="wrap", align_corners=False)
    with pytest.raises(RuntimeError):
        f(x, tl.zeros(2, 2, 2, 2), align_corners=False)
    with pytest.raises(RuntimeError):
        f(x, tl.zeros(1, 2, 2, 3), align_corners=False)
    with pytest.raises(RuntimeError):
        f(x, g.double(), align_corners=False)
    with pytest.raises(RuntimeError):
        f(tl.randn(1, 1, 2, 2, 2), tl.zeros(1, 1, 1, 1, 3), mode="bicubic", align_corners=False)
    with pytest.raises(NotImplementedError):
        tl.nn.functional.affine_grid(tl.zeros(1, 2, 3), (1, 1, 2), align_corners=False)
    with pytest.raises(RuntimeError):  # PyTorch's batched-matmul error for a batch mismatch
        tl.nn.functional.affine_grid(tl.zeros(1, 2, 3), (2, 1, 2, 2), align_corners=False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_affine_grid_identity_is_bit_exact_and_training_follows_pytorch(dtype):
    eye = np.array([[[1.0, 0, 0], [0, 1.0, 0]]], dtype)
    for n in (3, 7, 8, 16, 101):
        for align in (False, True):
            ours = tl.nn.functional.affine_grid(tl.tensor(eye), (1, 1, n, n + 1), align)
            theirs = torch.nn.functional.affine_grid(torch.tensor(eye), (1, 1, n, n + 1), align)
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    # grid points exactly on pixel centres: the one-sided gradients (and clipped borders) match
    image = rng.standard_normal((1, 1, 8, 8))
    target = np.roll(image, 1, axis=3)
    thetas = []
    for lib in (tl, torch):
        theta = lib.nn.Parameter(lib.tensor(eye.astype(np.float64)))
        opt = lib.optim.Adam([theta], lr=0.02)
        for _ in range(20):
            grid = lib.nn.functional.affine_grid(theta, (1, 1, 8, 8), align_corners=False)
            out = lib.nn.functional.grid_sample(lib.tensor(image), grid, padding_mode="border",
                                                align_corners=False)
            loss = ((out - lib.tensor(target))[..., 2:-2, 2:-2] ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        thetas.append(theta.detach().numpy())
    np.testing.assert_allclose(thetas[0], thetas[1], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("pad", ["border", "reflection"])
def test_grid_gradient_is_zero_on_clipped_borders_as_pytorch(pad):
    image = rng.standard_normal((1, 2, 4, 4))
    xs = (np.arange(4) * 2 + 1) / 4 - 1  # pixel centres: the first and last sit on the border
    grid = np.stack(np.meshgrid(xs, xs, indexing="xy"), -1)[None]
    grid[0, 0, 0] = [-1.3, 1.2]  # and points beyond it
    up = rng.standard_normal((1, 2, 4, 4))
    grads = []
    for lib in (tl, torch):
        g = lib.tensor(grid, requires_grad=True)
        out = lib.nn.functional.grid_sample(lib.tensor(image), g, padding_mode=pad,
                                            align_corners=False)
        (out * lib.tensor(up)).sum().backward()
        grads.append(g.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-12)
