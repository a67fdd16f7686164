"""``tl.thread_safe_generator``: None outside DataLoader workers and in process workers, as
PyTorch's."""

from __future__ import annotations

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
