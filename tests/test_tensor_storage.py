"""``Tensor.untyped_storage()`` / ``storage()``: the memory a tensor lies in, shared by its
views (PyTorch's ``data_ptr`` test for shared memory), with PyTorch's sizes."""

import numpy as np
import pytest

import tinygrad_lite as tl


def _cases(lib):
    base = lib.arange(24, dtype=lib.float32).reshape(4, 6)
    return {"whole": base, "row": base[1], "column": base[:, 2], "transposed": base.t(),
            "reshaped": base.view(6, 4), "int64": lib.arange(5), "bool": lib.ones(3) > 0,
            "scalar": lib.tensor(2.5, dtype=lib.float64), "empty": lib.zeros(0)}


def test_views_share_their_base_storage_and_copies_do_not():
    base = tl.arange(24, dtype=tl.float32).reshape(4, 6)
    ptr = base.untyped_storage().data_ptr()
    for view in (base[1], base[:, 2], base.t(), base.view(6, 4), base[1:3, ::2]):
        assert view.untyped_storage().data_ptr() == ptr
        assert view.untyped_storage().nbytes() == 96
    assert base.clone().untyped_storage().data_ptr() != ptr
    assert base.t().contiguous().untyped_storage().data_ptr() != ptr
    assert tl.is_storage(base.storage()) and not tl.is_storage(base)


def test_typed_storage_reads_the_elements():
    x = tl.tensor([[1, 2], [3, 4]], dtype=tl.int32)
    s = x[1].storage()
    assert s.size() == len(s) == 4 and s.element_size() == 4 and s.dtype == tl.int32
    assert s.tolist() == [1, 2, 3, 4] and s[3] == 4
    u = s.untyped()
    assert isinstance(u, tl.UntypedStorage) and u.size() == 16 and u.element_size() == 1
    assert u.tolist()[:4] == list(np.array([1], np.int32).view(np.uint8))
    assert x.untyped_storage().device == tl.device("cpu")


@pytest.mark.parametrize("name", list(_cases(tl)))
def test_storage_sizes_agree_with_pytorch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = _cases(tl)[name], _cases(torch)[name]
    for a, b in ((ours.untyped_storage(), theirs.untyped_storage()),
                 (ours.storage(), theirs._typed_storage())):
        assert (a.nbytes(), a.size(), len(a), a.element_size()) == \
            (b.nbytes(), b.size(), len(b), b.element_size())
    assert ours.storage().tolist() == theirs._typed_storage().tolist()
