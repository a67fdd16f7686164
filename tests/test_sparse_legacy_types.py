"""The legacy sparse constructors ``torch.sparse.FloatTensor(indices, values, size)`` and their
siblings build the COO tensor PyTorch 2.13 builds (values' dtype kept), warn as it does, and
answer isinstance by dtype (PyTorch as the oracle; skipped without it)."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

NAMES = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor",
         "IntTensor", "ShortTensor", "CharTensor", "ByteTensor"]
INDICES = [[0, 1, 1], [2, 0, 2]]
VALUES = {"float32": [1.5, -2.0, 3.25], "float64": [1.5, -2.0, 3.25], "int64": [1, 2, 3]}


def test_torch_has_exactly_these_legacy_sparse_types():
    legacy = {n for n in dir(torch.sparse) if n.endswith("Tensor")
              and n not in ("Tensor", "SparseSemiStructuredTensor")}
    assert legacy == set(NAMES)


def _same(got, expected):
    assert got.layout == tl.sparse_coo and str(got.dtype).split(".")[-1] == \
        str(expected.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.is_coalesced() == expected.is_coalesced()
    np.testing.assert_array_equal(got.to_dense().float().numpy(),
                                  expected.to_dense().float().numpy())


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("values_dtype", sorted(VALUES))
def test_indices_values_size_build_pytorchs_coo_tensor(name, values_dtype):
    for with_size in (True, False):
        size = ((2, 3),) if with_size else ()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            expected = getattr(torch.sparse, name)(
                torch.tensor(INDICES), torch.tensor(VALUES[values_dtype],
                                                    dtype=getattr(torch, values_dtype)), *size)
            got = getattr(tl.sparse, name)(
                tl.tensor(INDICES), tl.tensor(VALUES[values_dtype],
                                              dtype=getattr(tl, values_dtype)), *size)
        _same(got, expected)
        # PyTorch's C++ warning adds where it was raised inside PyTorch, and comes once per
        # process: ours come every time, and say what PyTorch's said when it said it
        messages = [str(w.message) for w in caught if w.filename == __file__]
        theirs = [m.split(" (Triggered")[0] for m in messages if "Triggered internally" in m]
        ours = [m for m in messages if "Triggered internally" not in m]
        assert len(ours) == 1 and "is deprecated.  Please use torch.sparse_coo_tensor" in ours[0]
        assert all(m == ours[0] for m in theirs)


@pytest.mark.parametrize("name", NAMES)
def test_sizes_build_an_empty_tensor_of_the_types_dtype(name):
    for sizes in ((2, 3), (tl.Size([4]),), ()):
        torch_sizes = tuple(torch.Size(s) if isinstance(s, tl.Size) else s for s in sizes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = getattr(torch.sparse, name)(*torch_sizes)
            got = getattr(tl.sparse, name)(*sizes)
        _same(got, expected)
        assert got._nnz() == expected._nnz() == 0


def test_isinstance_asks_for_the_dtype():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = tl.sparse.FloatTensor(tl.tensor(INDICES), tl.tensor([1.0, 2.0, 3.0]), (2, 3))
    assert isinstance(t, tl.sparse.FloatTensor) and not isinstance(t, tl.sparse.DoubleTensor)
    assert not isinstance(tl.ones(2), tl.sparse.FloatTensor)
    assert repr(tl.sparse.FloatTensor) == repr(torch.sparse.FloatTensor)
