"""Math methods of Tensor added with the torch.* in-place functions: ``i0``, ``igamma``/``igammac``,
``angle``, ``polygamma_``, ``hardshrink``, ``prelu``: values and gradients against PyTorch."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tests.helpers import check_grads, check_second_order
from tests.oracle import both

torch = pytest.importorskip("torch")

rng = np.random.default_rng(5)

POS = rng.uniform(0.2, 0.9, (3, 4))

REAL = rng.standard_normal((3, 4))


def test_i0_igamma_angle_match_torch():
    big = np.array([0.0, 1.0, -5.0, 30.0, -0.5])
    both(lambda m, x: m.i0(x), big, grad=(0,))
    assert tl.i0(tl.tensor([1, 2])).dtype == tl.float32
    a, x = POS * 3, POS[::-1].copy() * 2
    both(lambda m, a_, x_: m.igamma(a_, x_), a, x, grad=(1,))
    both(lambda m, a_, x_: a_.igammac(x_), a, x, grad=(1,))
    both(lambda m, a_, x_: (a_ * 1).igamma_(x_), a, x, grad=(1,))
    both(lambda m, a_, x_: m.igamma(a_, x_), a[0], x[:, :1], grad=(1,))  # broadcast
    for lib in (tl, torch):
        with pytest.raises(NotImplementedError, match="igamma"):
            lib.igamma(lib.tensor([1, 2]), lib.tensor([1, 2]))
        with pytest.raises((NotImplementedError, RuntimeError)):
            at = lib.tensor(a, requires_grad=True)
            lib.igamma(at, lib.tensor(x)).sum().backward()
    check_grads(lambda t: tl.igammac(tl.tensor(a), t), x)
    check_second_order(lambda t: tl.igamma(tl.tensor(a), t), x)
    values = np.array([-1.0, 0.0, 2.0, np.nan, -np.inf, np.inf])
    both(lambda m, t: m.angle(t), values)
    both(lambda m, t: t.angle(), REAL, grad=(0,))
    assert tl.angle(tl.tensor([-1, 2])).tolist() == pytest.approx([np.pi, 0.0])


def test_polygamma_hardshrink_prelu_methods():
    both(lambda m, t: (t * 1).polygamma_(2), POS + 0.5, grad=(0,))
    both(lambda m, t: t.hardshrink(0.4), REAL, grad=(0,))
    both(lambda m, t, w: t.prelu(w), REAL, np.array([0.1, 0.2, 0.3, -0.4]), grad=(0, 1))
    both(lambda m, t: m.conj_physical(t) * 2, REAL, grad=(0,))
    for lib in (tl, torch):
        with pytest.raises(NotImplementedError, match="hardshrink_cpu"):
            lib.tensor([1, 2]).hardshrink()
        with pytest.raises(RuntimeError, match="Mismatch of parameter numbers"):
            lib.ones(2, 3).prelu(lib.ones(2))
