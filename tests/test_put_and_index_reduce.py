"""``Tensor.put``/``put_`` and ``index_reduce``/``index_reduce_``: values, gradients and errors
against PyTorch."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tests.oracle import both

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")

rng = np.random.default_rng(5)

POS = rng.uniform(0.2, 0.9, (3, 4))

REAL = rng.standard_normal((3, 4))


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_matches_torch(accumulate):
    index = np.array([0, 5, -1, 3]) if not accumulate else np.array([0, 5, 5, -1])
    both(lambda m, x, s: m.put(x, m.tensor(index), s, accumulate), REAL[:2, :3], REAL[2, :4],
          grad=(0, 1))
    both(lambda m, x, s: (x * 1).put_(m.tensor(index), s, accumulate=accumulate),
          REAL[:2, :3], REAL[2, :4], grad=(0, 1))


def test_put_errors_match_torch():
    for lib in (tl, torch):
        x = lib.zeros(2, 3)
        with pytest.raises(IndexError, match="out of range"):
            lib.put(x, lib.tensor([0, 7]), lib.tensor([1.0, 2.0]))
        with pytest.raises(IndexError, match="same number of elements"):
            lib.put(x, lib.tensor([0, 1]), lib.tensor([1.0, 2.0, 3.0]))
        with pytest.raises(RuntimeError, match="Expected a long tensor for index"):
            lib.put(x, lib.tensor([0.0, 1.0]), lib.tensor([1.0, 2.0]))
        with pytest.raises(RuntimeError, match="same dtype"):
            lib.put(x, lib.tensor([0, 1]), lib.tensor([1.0, 2.0], dtype=lib.float64))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_matches_torch(reduce, include_self):
    index = np.array([0, 2, 0, 3, 0])
    src = rng.standard_normal((5, 3))
    src[2, 1] = src[0, 1]  # a tie between two sources
    base = rng.standard_normal((4, 3))
    base[0, 1] = src[0, 1] if include_self else base[0, 1]  # and one with self
    src[4, 2] = 0.0  # a zero factor for prod
    both(lambda m, x, s: x.index_reduce(0, m.tensor(index), s, reduce,
                                         include_self=include_self),
          base, src, grad=(0, 1))
    both(lambda m, x, s: m.index_reduce(x, 1, m.tensor(index[:3]), s, reduce,
                                         include_self=include_self),
          base.T.copy(), src[:3].T.copy(), grad=(0, 1))


def test_index_reduce_integer_zero_dim_inplace_and_errors():
    for dtype in ("int64", "uint8"):
        for reduce in ("prod", "mean", "amax", "amin"):
            call = (lambda m, d=dtype, r=reduce: m.tensor([5, 1, 7], dtype=getattr(m, d))
                    .index_reduce(0, m.tensor([0, 0, 2]), m.tensor([2, 4, 3],
                                                                   dtype=getattr(m, d)), r))
            assert call(tl).tolist() == call(torch).tolist()
    assert tl.tensor(5.0).index_reduce(0, tl.tensor([0]), tl.tensor(2.0), "prod").item() == 10.0
    x = tl.ones(3)
    assert x.index_reduce_(0, tl.tensor([0, 0]), tl.tensor([2.0, 3.0]), "prod") is x
    assert x.tolist() == [6.0, 1.0, 1.0]
    cases = [
        (RuntimeError, "Expected reduce to be one of", lambda m: m.ones(3).index_reduce(
            0, m.tensor([0]), m.ones(1), "sum")),
        (RuntimeError, "same scalar type", lambda m: m.ones(3).index_reduce(
            0, m.tensor([0]), m.ones(1, dtype=m.float64), "mean")),
        (IndexError, "supposed to be a vector", lambda m: m.ones(3).index_reduce(
            0, m.tensor([[0]]), m.ones(1), "mean")),
        (IndexError, "index out of range", lambda m: m.ones(3).index_reduce(
            0, m.tensor([5]), m.ones(1), "mean")),
        (RuntimeError, "Number of indices", lambda m: m.ones(3).index_reduce(
            0, m.tensor([0, 1]), m.ones(3), "mean")),
        (RuntimeError, "must match self tensor shape", lambda m: m.ones(3, 2).index_reduce(
            0, m.tensor([0, 1, 2]), m.ones(3, 3), "mean")),
        (RuntimeError, "int32/int64", lambda m: m.ones(3).index_reduce(
            0, m.tensor([0.0]), m.ones(1), "mean")),
    ]
    for error, message, call in cases:
        for lib in (tl, torch):
            with pytest.raises(error, match=message):
                call(lib)
