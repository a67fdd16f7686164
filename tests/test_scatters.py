"""The scatters of functions/scatters.py (fill_diagonal_, index_put, diagonal/select/slice
scatter) against PyTorch: values, dtypes, gradients and error types."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tests.oracle import pair, same, same_error, same_grads

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)


# -- fill_diagonal_, index_put, the scatters -----------------------------------------------------
@pytest.mark.parametrize("shape,value,wrap", [((3, 4), 5.0, False), ((7, 3), 5.0, True),
                                              ((7, 3), 2.0, False), ((4, 3), 1.0, True),
                                              ((3, 3, 3), -1.0, False), ((2, 5), True, True)])
def test_fill_diagonal_matches_pytorch(shape, value, wrap):
    data = RNG.standard_normal(shape)
    a, b = pair(data)
    ours, theirs = (a * 1).fill_diagonal_(value, wrap), (b * 1).fill_diagonal_(value, wrap)
    same(ours, theirs)
    same_grads(ours, theirs, [a], [b])
    ints = tl.zeros(3, 3, dtype=tl.int64).fill_diagonal_(2.7)
    same(ints, torch.zeros(3, 3, dtype=torch.int64).fill_diagonal_(2.7))


def test_fill_diagonal_errors_match_pytorch():
    same_error(lambda: tl.zeros(3).fill_diagonal_(1), lambda: torch.zeros(3).fill_diagonal_(1))
    same_error(lambda: tl.zeros(2, 2, 3).fill_diagonal_(1),
                lambda: torch.zeros(2, 2, 3).fill_diagonal_(1))
    same_error(lambda: tl.zeros(2, 2, requires_grad=True).fill_diagonal_(1),
                lambda: torch.zeros(2, 2, requires_grad=True).fill_diagonal_(1))


INDEX_CASES = [  # (indices as nested lists / bool arrays, values shape)
    (([0, 0, 2], [1, 1, 3]), (3,)),
    (([0, 2, 0],), (4,)),
    (([[0, 1], [1, 2]],), (2, 2, 4)),
    ((np.array([True, False, True]),), (1, 4)),
    ((np.array([[True, False, True, False]] * 3),), ()),
    (([-1, 0], [2, -4]), (2,)),
]


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("indices,values_shape", INDEX_CASES)
def test_index_put_matches_pytorch(indices, values_shape, accumulate):
    data, vals = RNG.standard_normal((3, 4)), RNG.standard_normal(values_shape)
    ours_idx = tuple(tl.tensor(np.asarray(i)) for i in indices)
    theirs_idx = tuple(torch.tensor(np.asarray(i)) for i in indices)
    a, b = pair(data)
    va, vb = pair(vals)
    ours = tl.index_put(a, ours_idx, va, accumulate)
    theirs = torch.index_put(b, theirs_idx, vb, accumulate)
    same(ours, theirs)
    if accumulate or not any(np.asarray(i).dtype != bool and len(set(np.ravel(i))) < np.size(i)
                             for i in indices):  # duplicates without accumulate: any may win
        same_grads(ours, theirs, [a, va], [b, vb], rtol=1e-12)
    same(a.index_put(list(ours_idx), va, accumulate=accumulate),
          b.index_put(list(theirs_idx), vb, accumulate=accumulate))
    x, y = tl.tensor(data), torch.tensor(data)
    assert x.index_put_(ours_idx, va.detach(), accumulate) is x
    same(x, y.index_put_(theirs_idx, vb.detach(), accumulate))
    same(tl.index_put_(tl.tensor(data), ours_idx, va.detach(), accumulate),
          torch.index_put_(torch.tensor(data), theirs_idx, vb.detach(), accumulate))


def test_index_put_errors_match_pytorch():
    x, t = tl.zeros(3, 4), torch.zeros(3, 4)
    i, j = tl.tensor([0, 2]), tl.tensor([1, 3])
    ti, tj = torch.tensor([0, 2]), torch.tensor([1, 3])
    cases = [
        (lambda: tl.index_put(x, (i, j), tl.ones(2, dtype=tl.float64)),
         lambda: torch.index_put(t, (ti, tj), torch.ones(2, dtype=torch.float64))),
        (lambda: tl.index_put(x, (i, j), 1.0), lambda: torch.index_put(t, (ti, tj), 1.0)),
        (lambda: tl.index_put(x, i, tl.ones(())), lambda: torch.index_put(t, ti, torch.ones(()))),
        (lambda: tl.index_put(x, (i.float(),), tl.ones(())),
         lambda: torch.index_put(t, (ti.float(),), torch.ones(()))),
        (lambda: tl.index_put(x, (None, j), tl.ones(())),
         lambda: torch.index_put(t, (None, tj), torch.ones(()))),
        (lambda: tl.index_put(x, (tl.tensor([5]),), tl.ones(())),
         lambda: torch.index_put(t, (torch.tensor([5]),), torch.ones(()))),
        (lambda: tl.index_put(x, (i, j, j), tl.ones(())),
         lambda: torch.index_put(t, (ti, tj, tj), torch.ones(()))),
        (lambda: tl.index_put(x, (i, j), tl.ones(3)),
         lambda: torch.index_put(t, (ti, tj), torch.ones(3))),
    ]
    for ours, theirs in cases:
        same_error(ours, theirs)


SCATTERS = [  # (name, input shape, src shape, extra arguments)
    ("diagonal_scatter", (3, 4), (3,), ()),
    ("diagonal_scatter", (3, 4), (2,), (2,)),
    ("diagonal_scatter", (3, 4), (2,), (-1,)),
    ("diagonal_scatter", (2, 3, 4), (4, 2), (0, 0, 1)),
    ("diagonal_scatter", (2, 3, 4), (2, 2), (1, -1, 1)),
    ("select_scatter", (3, 4), (4,), (0, 1)),
    ("select_scatter", (3, 4), (3,), (1, -1)),
    ("select_scatter", (2, 3, 4), (2, 4), (1, 2)),
    ("slice_scatter", (3, 4), (3, 2), (1, 0, 4, 2)),
    ("slice_scatter", (3, 4), (1, 4), (0, -1)),
    ("slice_scatter", (3, 4), (2, 4), (0, -5, 2)),
    ("slice_scatter", (3, 4), (0, 4), (0, 5, 9)),
    ("slice_scatter", (3, 4), (3, 4), ()),
]


@pytest.mark.parametrize("name,shape,src_shape,args", SCATTERS)
def test_scatters_match_pytorch(name, shape, src_shape, args):
    a, b = pair(RNG.standard_normal(shape))
    sa, sb = pair(RNG.standard_normal(src_shape))
    ours, theirs = getattr(tl, name)(a, sa, *args), getattr(torch, name)(b, sb, *args)
    same(ours, theirs)
    same_grads(ours, theirs, [a, sa], [b, sb])
    same(getattr(a, name)(sa.float(), *args), getattr(b, name)(sb.float(), *args))


def test_scatter_errors_match_pytorch():
    x, t = tl.zeros(3, 4), torch.zeros(3, 4)
    cases = [
        ("diagonal_scatter", (2,), ()), ("diagonal_scatter", (1, 3), ()),
        ("diagonal_scatter", (3,), (0, 0, 0)), ("select_scatter", (4,), (0, 3)),
        ("select_scatter", (3,), (0, 1)), ("select_scatter", (3,), (2, 1)),
        ("select_scatter", (), (0, 1)), ("slice_scatter", (2, 4), (0,)),
        ("slice_scatter", (3, 4), (0, None, None, 0)), ("slice_scatter", (3, 4), (0, 0, 3, -1)),
        ("slice_scatter", (4,), (0, 0, 1)),
    ]
    for name, src_shape, args in cases:
        same_error(lambda n=name, s=src_shape, a=args: getattr(tl, n)(x, tl.ones(s), *a),
                    lambda n=name, s=src_shape, a=args: getattr(torch, n)(t, torch.ones(s), *a))
    for name in ("diagonal_scatter", "select_scatter", "slice_scatter"):
        same_error(lambda n=name: getattr(tl, n)(x, 1.0), lambda n=name: getattr(torch, n)(t, 1.0))
    zero_dim, tzero = tl.tensor(1.0), torch.tensor(1.0)
    same_error(lambda: tl.select_scatter(zero_dim, zero_dim, 0, 0),
                lambda: torch.select_scatter(tzero, tzero, 0, 0))
    same_error(lambda: tl.slice_scatter(zero_dim, zero_dim),
                lambda: torch.slice_scatter(tzero, tzero))
    same_error(lambda: tl.diagonal_scatter(zero_dim, zero_dim),
                lambda: torch.diagonal_scatter(tzero, tzero))
