"""Catalogue rows of nn.functional: linear, the fused cross entropy, an MLP layer, activations
with parameters (hardshrink, prelu), the spatial transformers (affine_grid, grid_sample) and the
lookups (embedding, embedding_bag), against NumPy references written here."""

import numpy as np

import tinygrad_lite as tl
from op_catalog.registry import row

_TARGET = np.array([0, 2, 1, 2])


def _np_cross_entropy(x, reduce=np.mean):
    z = x - x.max(1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    return reduce(-logp[np.arange(len(_TARGET)), _TARGET])


F = tl.nn.functional


_IDX = np.array([[0, 2, 2], [3, 1, 0]])


_BAG_IDX = np.array([0, 2, 2, 3, 1, 0, 3])


_OFFSETS = np.array([0, 3, 3, 5])


def _affine_grid_ref(theta, h, w):
    xs = (np.arange(w) * 2 + 1) / w - 1  # align_corners=False pixel centres
    ys = (np.arange(h) * 2 + 1) / h - 1
    base = np.stack(np.broadcast_arrays(xs[None, :], ys[:, None], np.ones((h, w))), -1)
    return np.einsum("hwk,njk->nhwj", base, theta)


def _bilinear_ref(x, grid):
    """grid_sample, bilinear, zero padding, align_corners=False, by explicit corner sums."""
    n, c, h, w = x.shape
    ix = ((grid[..., 0] + 1) * w - 1) / 2
    iy = ((grid[..., 1] + 1) * h - 1) / 2
    x0, y0 = np.floor(ix).astype(int), np.floor(iy).astype(int)
    out = np.zeros((n, c) + grid.shape[1:3], x.dtype)
    for dx in (0, 1):
        for dy in (0, 1):
            xi, yi = x0 + dx, y0 + dy
            wgt = (1 - np.abs(ix - xi)) * (1 - np.abs(iy - yi))
            ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
            for b in range(n):
                vals = x[b][:, np.clip(yi[b], 0, h - 1), np.clip(xi[b], 0, w - 1)]
                out[b] += vals * (wgt[b] * ok[b])
    return out


def _bag_ref(w, mode):
    bags = np.split(_BAG_IDX, _OFFSETS[1:])
    rows = []
    for bag in bags:
        if not bag.size:
            rows.append(np.zeros(w.shape[1], w.dtype))
        elif mode == "max":
            rows.append(w[bag].max(0))
        else:
            rows.append(w[bag].sum(0) / (len(bag) if mode == "mean" else 1))
    return np.stack(rows)


row("linear", lambda x, w, b: tl.nn.functional.linear(x, w, b), [(5, 3), (4, 3), (4,)], "real",
    lambda x, w, b: x @ w.T + b)
row("linear-batched-no-bias", lambda x, w: tl.nn.functional.linear(x, w), [(2, 5, 3), (4, 3)],
    "real", lambda x, w: x @ w.T)
row("linear-1d-input", lambda x, w, b: tl.nn.functional.linear(x, w, b), [(3,), (4, 3), (4,)],
    "real", lambda x, w, b: x @ w.T + b)
row("cross-entropy-fused-mean", lambda x: tl.nn.functional.cross_entropy(x, tl.tensor(_TARGET)),
    [(4, 3)], "real", _np_cross_entropy)
row("cross-entropy-fused-sum",
    lambda x: tl.nn.functional.cross_entropy(x, tl.tensor(_TARGET), reduction="sum"),
    [(4, 3)], "real", lambda x: _np_cross_entropy(x, np.sum))
row("mlp-layer", lambda x, w, b: (x @ w.T + b).relu().sum(1), [(5, 3), (4, 3), (4,)], "nonzero",
    lambda x, w, b: np.maximum(x @ w.T + b, 0).sum(1))
row("hardshrink", lambda a: a.hardshrink(0.5), [(3, 4)], "nonzero",
    lambda a: np.where(np.abs(a) > 0.5, a, 0.0))
row("prelu-per-channel", lambda a, w: tl.prelu(a, w), [(2, 3, 4), (3,)], "nonzero",
    lambda a, w: np.where(a > 0, a, a * w[:, None]))
row("affine-grid-2d", lambda t: F.affine_grid(t, (2, 1, 3, 4), align_corners=False),
    [(2, 2, 3)], "real", lambda t: _affine_grid_ref(t, 3, 4))
row("grid-sample-bilinear", lambda x, g: F.grid_sample(x, g, align_corners=False),
    [(2, 2, 3, 4), (2, 2, 3, 2)], "unit", _bilinear_ref)
row("grid-sample-bilinear-input-only",
    lambda x: F.grid_sample(x, tl.full((1, 2, 2, 2), 0.3, dtype=x.dtype),
                            align_corners=False),
    [(1, 2, 3, 3)], "real",
    lambda x: _bilinear_ref(x, np.full((1, 2, 2, 2), 0.3, x.dtype)))
# (padding_idx and scale_grad_by_freq change the gradient on purpose: not gradchecked)
row("embedding", lambda w: F.embedding(tl.tensor(_IDX), w), [(4, 3)], "real",
    lambda w: w[_IDX])
for mode in ("sum", "mean", "max"):
    row(f"embedding-bag-{mode}",
        lambda w, mode=mode: F.embedding_bag(tl.tensor(_BAG_IDX), w, tl.tensor(_OFFSETS),
                                             mode=mode),
        [(4, 3)], "distinct", lambda w, mode=mode: _bag_ref(w, mode))
# piecewise-linear activations and the losses and activations with a kink or threshold (their
# kinks are in op_catalog/derived.py's SINGULAR_POINTS; domain "nonzero" keeps the central
# differences of test_ops off them)
row("hardtanh", lambda a: F.hardtanh(a, -0.7, 0.8), [(3, 4)], "nonzero",
    lambda a: np.clip(a, -0.7, 0.8))
row("relu6", lambda a: F.relu6(a * 4), [(3, 4)], "nonzero",
    lambda a: np.clip(a * 4, 0, 6))
row("softshrink", lambda a: F.softshrink(a, 0.3), [(3, 4)], "nonzero",
    lambda a: np.where(a > 0.3, a - 0.3, np.where(a < -0.3, a + 0.3, 0.0)))
row("threshold", lambda a: F.threshold(a, 0.2, -1.5), [(3, 4)], "nonzero",
    lambda a: np.where(a > 0.2, a, -1.5))
row("leaky_relu", lambda a: F.leaky_relu(a, 0.2), [(3, 4)], "nonzero",
    lambda a: np.where(a > 0, a, 0.2 * a))
row("rrelu-eval", lambda a: F.rrelu(a), [(3, 4)], "nonzero",
    lambda a: np.where(a > 0, a, a * (1 / 8 + 1 / 3) / 2))
row("softplus-threshold", lambda a: F.softplus(a, beta=2.0, threshold=1.0), [(3, 4)], "nonzero",
    lambda a: np.where(a * 2 > 1.0, a, np.log1p(np.exp(2 * a)) / 2))
row("smooth-l1-beta", lambda a, b: F.smooth_l1_loss(a, b, reduction="none", beta=0.5),
    [(3, 4), (3, 4)], "real",
    lambda a, b: np.where(np.abs(a - b) < 0.5, (a - b) ** 2, np.abs(a - b) - 0.25))
row("huber-delta", lambda a: F.huber_loss(a, tl.zeros_like(a), delta=0.5), [(3, 4)], "nonzero",
    lambda a: np.where(np.abs(a) < 0.5, 0.5 * a * a, 0.5 * (np.abs(a) - 0.25)).mean())
row("kl-div-target", lambda a, t: F.kl_div(a, t, reduction="sum"), [(3, 4), (3, 4)],
    "positive", lambda a, t: (t * (np.log(t) - a)).sum())
row("normalize", lambda a: F.normalize(a, dim=1), [(3, 4)], "real",
    lambda a: a / np.sqrt((a * a).sum(1, keepdims=True)))
