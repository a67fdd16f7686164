"""DataLoader with worker processes: batches in order and equal to the single-process ones,
reproducible per-worker seeding, worker_init_fn and get_worker_info, a worker's exception
re-raised here with its traceback, no processes left after a break, persistent workers,
iterable datasets sharded by worker, and the spawn start method."""

import gc
import multiprocessing
import time

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info


class Squares(Dataset):
    """Sample i: (a float tensor derived from i, i); the worker's id is recorded too."""

    def __len__(self):
        return 23

    def __getitem__(self, i):
        info = get_worker_info()
        return tl.full((3,), float(i * i)), i, -1 if info is None else info.id


class Noisy(Dataset):
    """Each sample draws from the library generator: seeding per worker decides them."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return tl.rand(1).item()


class Stream(IterableDataset):
    """0..19, each worker taking every num_workers-th value (sharding by get_worker_info)."""

    def __iter__(self):
        info = get_worker_info()
        step, start = (1, 0) if info is None else (info.num_workers, info.id)
        return iter(range(start, 20, step))


class Failing(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        if i == 7:
            raise KeyError(f"sample {i} is missing")
        return i


def _no_children(timeout=5.0):
    end = time.time() + timeout
    while multiprocessing.active_children() and time.time() < end:
        time.sleep(0.05)
    return not multiprocessing.active_children()


@pytest.mark.filterwarnings("ignore:This DataLoader will create")  # more workers than CPUs
@pytest.mark.parametrize("workers", [1, 3])
def test_batches_in_order_and_equal_to_single_process(workers):
    single = list(DataLoader(Squares(), batch_size=4))
    multi = list(DataLoader(Squares(), batch_size=4, num_workers=workers, prefetch_factor=3))
    assert len(multi) == len(single) == 6
    for (xa, ia, _), (xb, ib, wb) in zip(single, multi):
        np.testing.assert_array_equal(xa.numpy(), xb.numpy())
        assert ia.tolist() == ib.tolist()
        assert set(wb.tolist()) <= set(range(workers))
    assert _no_children()


def test_seeding_is_reproducible_and_differs_between_workers():
    def run():
        tl.manual_seed(42)
        return [v for batch in DataLoader(Noisy(), batch_size=2, num_workers=2)
                for v in batch.tolist()]

    first, second = run(), run()
    assert first == second                   # the base seed comes from tl.manual_seed
    assert len(set(first)) == len(first)     # workers do not repeat each other's numbers


def test_worker_init_fn_and_worker_info(tmp_path):
    def init(worker_id):
        (tmp_path / f"w{worker_id}").write_text(str(get_worker_info().num_workers))

    list(DataLoader(Squares(), batch_size=5, num_workers=2, worker_init_fn=init))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w0", "w1"]
    assert (tmp_path / "w0").read_text() == "2"
    assert get_worker_info() is None


def test_worker_exception_is_reraised_with_its_traceback():
    with pytest.raises(KeyError, match=r"(?s)Caught KeyError in DataLoader worker process.*"
                                       r"sample 7 is missing"):
        list(DataLoader(Failing(), batch_size=2, num_workers=2))
    assert _no_children()


def test_break_and_garbage_collection_leave_no_process():
    for i, _ in enumerate(DataLoader(Squares(), batch_size=2, num_workers=2)):
        if i == 1:
            break
    gc.collect()
    assert _no_children()
    iterator = iter(DataLoader(Squares(), batch_size=2, num_workers=2))
    next(iterator)
    del iterator
    gc.collect()
    assert _no_children()


def test_persistent_workers_survive_epochs():
    loader = DataLoader(Squares(), batch_size=6, num_workers=2, persistent_workers=True)
    first = [b[1].tolist() for b in loader]
    pids = [w.pid for w in loader._persistent_iter._workers]
    second = [b[1].tolist() for b in loader]
    assert first == second and [w.pid for w in loader._persistent_iter._workers] == pids
    loader._persistent_iter._finalizer()
    assert _no_children()


def test_iterable_dataset_sharded_by_worker():
    values = [v for b in DataLoader(Stream(), batch_size=3, num_workers=2) for v in b.tolist()]
    assert sorted(values) == list(range(20))
    assert [v for b in DataLoader(Stream(), batch_size=3) for v in b.tolist()] == \
        list(range(20))


def test_spawn_start_method():
    loader = DataLoader(Squares(), batch_size=8, num_workers=2, multiprocessing_context="spawn")
    assert [b[1].tolist() for b in loader][0] == list(range(8))
    assert _no_children()


def test_options_that_need_workers_are_refused_without_them():
    with pytest.raises(ValueError, match="prefetch_factor"):
        DataLoader(Squares(), prefetch_factor=2)
    with pytest.raises(ValueError, match="persistent_workers"):
        DataLoader(Squares(), persistent_workers=True)
    with pytest.raises(ValueError, match="shuffle"):
        DataLoader(Stream(), shuffle=True)
