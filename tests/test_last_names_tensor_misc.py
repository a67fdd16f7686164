"""tl.thread_safe_generator, Tensor.map2_, Tensor.__setstate__, Tensor.__array_wrap__ and
Tensor.name, each with PyTorch's meaning (compared with torch where installed)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.utils.data import DataLoader, Dataset


class _GeneratorProbe(Dataset):
    """Each item: whether the worker saw no thread-local generator, and the worker id."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> tl.Tensor:
        info = tl.utils.data.get_worker_info()
        return tl.tensor([tl.thread_safe_generator() is None, info is not None])


def test_thread_safe_generator_none_outside_and_in_process_workers() -> None:
    assert tl.thread_safe_generator() is None
    assert tl.random.thread_safe_generator is tl.thread_safe_generator
    tl.manual_seed(0)
    a = tl.randint(0, 10, (5,), generator=tl.thread_safe_generator())  # the default generator
    tl.manual_seed(0)
    assert tl.equal(a, tl.randint(0, 10, (5,)))
    rows = list(DataLoader(_GeneratorProbe(), batch_size=2, num_workers=2))
    # process workers (the only kind here): None, as PyTorch's process workers
    assert all(bool(r.all()) for r in rows)


def test_map2_matches_torch() -> None:
    t = tl.arange(3.0)
    out = t.map2_(tl.ones(3), tl.tensor(2.0), lambda a, b, c: a * 10 + b + c)
    assert out is t
    np.testing.assert_array_equal(t.numpy(), [3.0, 13.0, 23.0])
    torch = pytest.importorskip("torch")
    r = torch.arange(3.0).map2_(torch.ones(3), torch.tensor(2.0), lambda a, b, c: a * 10 + b + c)
    np.testing.assert_array_equal(t.numpy(), r.numpy())
    with pytest.raises(RuntimeError, match="requires grad"):
        tl.ones(2, requires_grad=True).map2_(tl.ones(2), tl.ones(2), lambda a, b, c: a)
    with pytest.raises(TypeError):
        tl.ones(2).map2_(tl.ones(2, dtype=tl.float64), tl.ones(2), lambda a, b, c: a)
    with pytest.raises(RuntimeError, match="expanded size"):
        tl.ones(2).map2_(tl.ones(3), tl.ones(2), lambda a, b, c: a)


def test_setstate() -> None:
    x = tl.ones(2)
    x.__setstate__((True, None, None))
    assert x.requires_grad and x.is_leaf
    y = tl.zeros(3)
    y.__setstate__((tl.tensor([1.0, 2.0]), None, None, False, None))  # legacy Variable state
    np.testing.assert_array_equal(y.numpy(), [1.0, 2.0])
    assert not y.requires_grad
    with pytest.raises(RuntimeError, match="leaf"):
        (x * 2).__setstate__((False, None, None))
    z = pickle.loads(pickle.dumps(tl.tensor([1.0, 2.0], requires_grad=True)))
    assert z.requires_grad and z.tolist() == [1.0, 2.0]  # pickling is unaffected


def test_array_wrap_and_name() -> None:
    t = tl.ones(2)
    arr = np.arange(3.0)
    w = t.__array_wrap__(arr)
    assert isinstance(w, tl.Tensor) and w.tolist() == [0.0, 1.0, 2.0]
    arr[0] = 7.0  # shares memory, as torch.from_numpy
    assert w[0].item() == 7.0
    assert t.name is None
    with pytest.raises(AttributeError):
        t.name = "x"  # type: ignore[misc]
    torch = pytest.importorskip("torch")
    assert torch.ones(2).name is None
    assert isinstance(torch.ones(2).__array_wrap__(np.arange(3.0)), torch.Tensor)
