"""The convolution's batch-folded flat rule (``ops/conv_kernels.py``) with all offsets gathered
or gathered by kernel row (stride 1), its full-matrix fallback, the stride-1 input gradient
computed as a convolution with the flipped kernel and the weight gradient taken from that
convolution's columns: each path forced on the same shapes against PyTorch (float64), by
gradcheck, and on the dtypes and edge cases the fast paths introduce (groups, dilation, stride,
no padding, padding wider than the kernel, 1x1, even kernels with 'same' padding,
non-contiguous input, non-finite values, half precision)."""

from __future__ import annotations

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.ops.conv as conv_ops
import tinygrad_lite.ops.conv_kernels as conv_kernels
from tinygrad_lite.autograd import gradcheck

torch = pytest.importorskip("torch")

CASES = [
    # (nd, n, c, o, groups, spatial, kernel, stride, padding, dilation)
    (2, 3, 4, 6, 1, (9, 8), (3, 3), 1, 1, 1),  # the ResNet block shape, small
    (2, 2, 4, 6, 2, (10, 7), (3, 2), 1, (1, 0), (1, 2)),  # grouped, dilated
    (2, 2, 4, 4, 4, (8, 8), (3, 3), 1, 1, 1),  # depthwise
    (2, 2, 3, 5, 1, (9, 9), (3, 3), 1, 0, 1),  # no padding
    (2, 2, 3, 5, 1, (7, 6), (3, 3), 1, 3, 1),  # padding past the kernel span: scatter rule
    (2, 2, 3, 5, 1, (7, 6), (3, 3), 1, (2, 1), 2),  # dilated, padding = the span
    (2, 3, 3, 4, 1, (9, 8), (3, 3), 2, 1, 1),  # stride 2: scatter rule
    (2, 2, 4, 6, 2, (11, 9), (3, 3), (2, 1), 1, 1),  # mixed stride, grouped
    (2, 2, 3, 5, 1, (8, 9), (1, 1), 1, 0, 1),  # 1x1: a plain GEMM
    (2, 2, 3, 5, 1, (8, 9), (1, 1), 2, 0, 1),  # 1x1 strided: one phase, no copy
    (2, 2, 3, 5, 1, (7, 7), (1, 1), 1, 1, 1),  # 1x1 padded
    (2, 2, 3, 4, 1, (7, 8), (4, 2), 1, "same", (1, 2)),  # uneven padding, shared
    (2, 2, 3, 4, 1, (7, 8), (2, 3), 1, (0, 2), 1),  # padding on one side only
    (1, 3, 2, 4, 1, (17,), (5,), 1, 2, 2),
    (3, 2, 2, 3, 1, (5, 6, 5), (3, 3, 2), 1, (1, 1, 0), (1, 1, 2)),
    (3, 2, 4, 4, 2, (4, 5, 6), (2, 3, 3), (2, 1, 1), 1, 1),
]

PATHS = {"flat": {"_MAX_WASTE": float("inf"), "_MIN_ROW_DEPTH": float("inf")},
         "rows": {"_MAX_WASTE": float("inf"), "_MIN_ROW_DEPTH": 0},
         "full": {"_MAX_WASTE": 0.0, "_LONG_ROWS": 10**9},
         "default": {}}


@pytest.fixture(params=list(PATHS))
def path(request, monkeypatch):
    """Force the flat rule with all offsets gathered, or gathered by kernel row wherever the
    stride is 1, or the full matrix everywhere (also in the gradient's convolution), or leave
    the choice to the waste and depth rules."""
    for name, value in PATHS[request.param].items():
        monkeypatch.setattr(conv_kernels if name == "_MIN_ROW_DEPTH" else conv_ops, name, value)
    return request.param


def _run(lib, case, arrays, wanted, contiguous=True):
    nd, n, c, o, groups, spatial, kernel, stride, padding, dilation = case
    x, w, b, gy = arrays
    tx = lib.tensor(x, requires_grad=wanted[0])
    tw = lib.tensor(w, requires_grad=wanted[1])
    tb = lib.tensor(b, requires_grad=True)
    # a batch-minor copy seen through a transposed view: same values, non-contiguous strides
    inp = tx if contiguous else tx.transpose(0, 1).contiguous().transpose(0, 1)
    y = getattr(lib.nn.functional, f"conv{nd}d")(inp, tw, tb, stride, padding, dilation,
                                                  groups)
    y.backward(lib.tensor(gy))
    return y, tx, tw, tb


def _arrays(case, seed=0):
    nd, n, c, o, groups, spatial, kernel, stride, padding, dilation = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c) + spatial)
    w = rng.standard_normal((o, c // groups) + kernel)
    b = rng.standard_normal(o)
    ty = getattr(torch.nn.functional, f"conv{nd}d")(torch.tensor(x), torch.tensor(w), None,
                                                    stride, padding, dilation, groups)
    return x, w, b, rng.standard_normal(tuple(ty.shape))


@pytest.mark.parametrize("wanted", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("case", CASES)
def test_paths_match_pytorch(path, case, wanted):
    arrays = _arrays(case)
    ty, tx, tw, tb = _run(torch, case, arrays, wanted)
    ly, lx, lw, lb = _run(tl, case, arrays, wanted)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), rtol=1e-10,
                               atol=1e-10)
    for ours, theirs, want in ((lx, tx, wanted[0]), (lw, tw, wanted[1]), (lb, tb, True)):
        if want:
            np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10,
                                       atol=1e-10)
        else:
            assert ours.grad is None


@pytest.mark.parametrize("case", [CASES[0], CASES[1], CASES[6], CASES[11], CASES[13]])
def test_non_contiguous_input(path, case):
    arrays = _arrays(case, seed=1)
    ty, tx, tw, _ = _run(torch, case, arrays, (True, True), contiguous=False)
    ly, lx, lw, _ = _run(tl, case, arrays, (True, True), contiguous=False)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), rtol=1e-10,
                               atol=1e-10)
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(lw.grad.numpy(), tw.grad.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("case", [CASES[0], CASES[1], CASES[4], CASES[6], CASES[11], CASES[14]])
def test_paths_gradcheck(path, case):
    nd, n, c, o, groups, spatial, kernel, stride, padding, dilation = case
    rng = np.random.default_rng(2)
    x = tl.tensor(rng.standard_normal((2, c) + spatial), requires_grad=True)
    w = tl.tensor(rng.standard_normal((o, c // groups) + kernel), requires_grad=True)
    f = getattr(tl.nn.functional, f"conv{nd}d")
    assert gradcheck(lambda a, b: f(a, b, None, stride, padding, dilation, groups).square().sum(),
                     (x, w))


@pytest.mark.parametrize("where", ["interior", "edge", "nan"])
def test_non_finite_input_weight_grad_matches_pytorch(path, where):
    """The fused weight gradient sums 0 * x over padded positions: an inf there must not make
    the weight gradient NaN where PyTorch's is finite (it is recomputed by the exact rule)."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 9, 9))
    x[(1, 2, 4, 4) if where == "interior" else (0, 1, 0, 8)] = np.nan if where == "nan" \
        else np.inf
    w = rng.standard_normal((4, 3, 3, 3))
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    torch.nn.functional.conv2d(tx, tw, None, 1, 1).square().sum().backward()
    lx, lw = tl.tensor(x, requires_grad=True), tl.tensor(w, requires_grad=True)
    tl.nn.functional.conv2d(lx, lw, None, 1, 1).square().sum().backward()
    np.testing.assert_allclose(lw.grad.numpy(), tw.grad.numpy(), equal_nan=True)
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), equal_nan=True)


def test_non_finite_weight_input_grad_matches_pytorch(path):
    """The gradient's convolution meets every weight entry at padded zeros: a non-finite
    weight takes the exact rule instead (PyTorch never multiplies it there)."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 2, 6, 6))
    w = rng.standard_normal((3, 2, 3, 3))
    w[1, 0, 2, 2] = np.inf
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    torch.nn.functional.conv2d(tx, tw, None, 1, 1).sum().backward()
    lx, lw = tl.tensor(x, requires_grad=True), tl.tensor(w, requires_grad=True)
    tl.nn.functional.conv2d(lx, lw, None, 1, 1).sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), equal_nan=True)


@pytest.mark.parametrize("dtype,tol", [(np.float16, 2e-2), (np.float32, 1e-4)])
def test_low_precision_dtypes(path, dtype, tol):
    case = CASES[1]
    x, w, b, gy = (a.astype(dtype) for a in _arrays(case, seed=3))
    ref = _run(torch, case, tuple(a.astype(np.float64) for a in (x, w, b, gy)), (True, True))
    ly, lx, lw, lb = _run(tl, case, (x, w, b, gy), (True, True))
    assert ly.dtype == lx.grad.dtype == lw.grad.dtype == getattr(tl, np.dtype(dtype).name)
    for ours, theirs in ((ly, ref[0]), (lx.grad, ref[1].grad), (lw.grad, ref[2].grad)):
        theirs = theirs.detach().numpy()
        np.testing.assert_allclose(ours.detach().numpy().astype(np.float64), theirs,
                                   rtol=tol, atol=tol * max(1.0, float(np.abs(theirs).max())))


@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("wanted", [(True, True), (False, True)])
@pytest.mark.parametrize("row_depth", [0, float("inf")])
def test_batch_larger_than_a_chunk(monkeypatch, row_depth, wanted, groups):
    """Several chunks of images, the last one partial: every chunk boundary is exact, with
    the columns gathered by kernel row and all at once, for the weight gradient taken from the
    input gradient's columns and for the weight gradient alone (the gradient grid copied
    positions-first once per chunk into a buffer the chunks share), grouped or not."""
    monkeypatch.setattr(conv_ops.kernels, "_CHUNK_BYTES", 4096)
    monkeypatch.setattr(conv_ops.kernels, "_MIN_ROW_DEPTH", row_depth)
    case = (2, 7, 4, 6, groups, (9, 9), (3, 3), 1, 1, 1)
    arrays = _arrays(case, seed=5)
    for stride in (1, 2):
        strided = case[:7] + (stride,) + case[8:]
        ty, tx, tw, _ = _run(torch, strided, arrays if stride == 1 else _arrays(strided, 5),
                             wanted)
        ly, lx, lw, _ = _run(tl, strided, arrays if stride == 1 else _arrays(strided, 5),
                             wanted)
        np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), rtol=1e-10,
                                   atol=1e-10)
        if wanted[0]:
            np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-10,
                                       atol=1e-10)
        else:
            assert lx.grad is None
        np.testing.assert_allclose(lw.grad.numpy(), tw.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_stride_one_weight_grad_comes_from_the_gradients_columns(monkeypatch):
    """With both gradients wanted, a stride-1 flat convolution does not rebuild the input's
    columns for the weight gradient; with only the weight's, it does."""
    monkeypatch.setattr(conv_ops, "_MAX_WASTE", float("inf"))
    calls = []
    original = conv_ops.kernels.weight_grad
    monkeypatch.setattr(conv_ops.kernels, "weight_grad",
                        lambda *a: calls.append(1) or original(*a))
    case = CASES[0]
    arrays = _arrays(case)
    _run(tl, case, arrays, (True, True))
    assert not calls
    _run(tl, case, arrays, (False, True))
    assert calls


@pytest.mark.parametrize("waste,row_depth", [(float("inf"), 0), (float("inf"), float("inf")),
                                             (0.0, 0)])
def test_compiled_step_matches_eager_bit_for_bit(monkeypatch, waste, row_depth):
    """tl.compile's replays (the fast rule, its finite-value tests recorded as checks) give
    exactly the eager step's parameters, on the flat rule (by kernel row and not) and on the
    full matrix."""
    monkeypatch.setattr(conv_ops, "_MAX_WASTE", waste)
    monkeypatch.setattr(conv_ops.kernels, "_MIN_ROW_DEPTH", row_depth)
    rng = np.random.default_rng(8)
    x = tl.from_numpy(rng.standard_normal((3, 3, 10, 10)).astype(np.float32))
    y = tl.from_numpy(rng.integers(0, 5, 3))

    def build():
        tl.manual_seed(0)
        nn = tl.nn
        model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(),
                              nn.Conv2d(4, 6, 3, stride=2, padding=1, bias=False),
                              nn.Conv2d(6, 6, 1), nn.Flatten(), nn.Linear(150, 5))
        opt = tl.optim.SGD(model.parameters(), lr=0.1)

        def step(a, b):
            opt.zero_grad()
            loss = tl.nn.functional.cross_entropy(model(a), b)
            loss.backward()
            opt.step()
            return loss
        return model, step

    m1, eager = build()
    m2, step2 = build()
    compiled = tl.compile(step2)
    for _ in range(5):
        assert eager(x, y).item() == compiled(x, y).item()
    assert compiled.replays >= 2
    for p1, p2 in zip(m1.parameters(), m2.parameters()):
        np.testing.assert_array_equal(p2.detach().numpy(), p1.detach().numpy())
