"""``tl.utils.data.DistributedSampler`` exported at PyTorch's place: shares, padding and
drop_last as PyTorch's, single-process defaults, epochs and seeds, and the DataLoader."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.utils.data import DataLoader, DistributedSampler, TensorDataset

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("n,ranks,drop_last", [(10, 3, False), (10, 3, True), (3, 5, False),
                                               (12, 4, True), (7, 2, False)])
def test_shares_match_pytorch_without_shuffle(n, ranks, drop_last):
    ours = [list(DistributedSampler(range(n), ranks, r, shuffle=False, drop_last=drop_last))
            for r in range(ranks)]
    theirs = [list(torch.utils.data.DistributedSampler(range(n), ranks, r, shuffle=False,
                                                       drop_last=drop_last))
              for r in range(ranks)]
    assert ours == theirs
    assert [len(DistributedSampler(range(n), ranks, r, drop_last=drop_last))
            for r in range(ranks)] == [len(s) for s in theirs]


def test_shuffle_is_a_permutation_shared_by_ranks_and_changes_per_epoch():
    samplers = [DistributedSampler(range(11), 3, r, shuffle=True, seed=5) for r in range(3)]
    first = [list(s) for s in samplers]
    covered = sorted(i for share in first for i in share)
    assert set(covered) == set(range(11)) and len(covered) == 12  # one index repeated (padding)
    assert [list(s) for s in samplers] == first  # the same epoch gives the same order
    for s in samplers:
        s.set_epoch(1)
    second = [list(s) for s in samplers]
    assert second != first and {i for share in second for i in share} == set(range(11))
    assert list(DistributedSampler(range(11), 3, 0, seed=6)) != first[0]


def test_defaults_without_a_process_group_and_errors():
    sampler = DistributedSampler(range(5), shuffle=False)
    assert sampler.num_replicas == 1 and sampler.rank == 0 and list(sampler) == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval"):
        DistributedSampler(range(4), 2, 2)
    with pytest.raises(ValueError, match="Invalid rank -1"):
        DistributedSampler(range(4), 2, -1)


def test_with_a_dataloader():
    data = TensorDataset(tl.arange(10))
    loader = DataLoader(data, batch_size=2, sampler=DistributedSampler(data, 2, 1, shuffle=False))
    batches = [b[0].numpy().tolist() for b in loader]
    assert batches == [[1, 3], [5, 7], [9]]
    assert np.array_equal(np.concatenate(batches), np.arange(1, 10, 2))
