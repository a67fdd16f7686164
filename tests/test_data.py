"""utils.data: datasets, collate, DataLoader; and an MLP trained end to end through it."""

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812
from tinygrad_lite import nn, optim
from tinygrad_lite.utils.data import (
    DataLoader,
    Dataset,
    Subset,
    TensorDataset,
    default_collate,
    random_split,
)


class Squares(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        return {"x": np.array([i, i * i], np.float32), "y": i, "name": f"s{i}"}


def test_tensor_dataset_and_loader_batches():
    ds = TensorDataset(tl.arange(10).float(), tl.arange(10) * 2)
    assert len(ds) == 10 and ds[3][1].item() == 6
    loader = DataLoader(ds, batch_size=4)
    batches = list(loader)
    assert len(loader) == 3 and [b[0].shape for b in batches] == [(4,), (4,), (2,)]
    np.testing.assert_array_equal(batches[2][1].detach().numpy(), [16, 18])
    assert len(DataLoader(ds, batch_size=4, drop_last=True)) == 2
    assert len(list(DataLoader(ds, batch_size=4, drop_last=True))) == 2
    with pytest.raises(AssertionError, match="Size mismatch"):  # PyTorch's type
        TensorDataset(tl.zeros(3), tl.zeros(4))


def test_shuffle_reproducible_with_seeded_generator():
    ds = TensorDataset(tl.arange(20))
    order = lambda g: np.concatenate(  # noqa: E731
        [b[0].detach().numpy() for b in DataLoader(ds, batch_size=6, shuffle=True, generator=g)])
    a = order(np.random.default_rng(5))
    b = order(np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)
    assert sorted(a.tolist()) == list(range(20)) and a.tolist() != list(range(20))
    tl.manual_seed(1)
    c = order(None)
    tl.manual_seed(1)
    np.testing.assert_array_equal(order(None), c)
    loader = DataLoader(ds, batch_size=20, shuffle=True, generator=np.random.default_rng(0))
    first, second = next(iter(loader))[0].detach().numpy(), next(iter(loader))[0].detach().numpy()
    assert first.tolist() != second.tolist()  # a new order every epoch


def test_default_collate_structures():
    batch = list(DataLoader(Squares(), batch_size=3))[0]
    assert batch["x"].shape == (3, 2) and batch["x"].dtype == tl.float32
    assert batch["y"].dtype == tl.int64 and batch["y"].tolist() == [0, 1, 2]
    assert batch["name"] == ["s0", "s1", "s2"]
    out = default_collate([(1.5, tl.ones(2)), (2.5, tl.zeros(2))])
    assert out[0].tolist() == [1.5, 2.5] and out[1].shape == (2, 2)
    with pytest.raises(TypeError, match="default_collate"):
        default_collate([object()])


def test_random_split_and_subset():
    ds = TensorDataset(tl.arange(10))
    a, b = random_split(ds, [0.7, 0.3], generator=np.random.default_rng(0))
    assert len(a) == 7 and len(b) == 3
    assert sorted(int(a[i][0]) for i in range(7)) + sorted(int(b[i][0]) for i in range(3)) != []
    assert sorted([int(a[i][0]) for i in range(7)] + [int(b[i][0]) for i in range(3)]) == \
        list(range(10))
    assert Subset(ds, [4, 2])[1][0].item() == 2
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(ds, [3, 3])


def test_mlp_784_256_128_10_trains_with_adam():
    """Synthetic 10-class problem: class means in 784-d plus noise. The loss must fall."""
    tl.manual_seed(0)
    rng = np.random.default_rng(0)
    means = rng.standard_normal((10, 784)).astype(np.float32)
    y = rng.integers(0, 10, 512)
    x = means[y] + 2.0 * rng.standard_normal((512, 784)).astype(np.float32)
    loader = DataLoader(TensorDataset(tl.tensor(x), tl.tensor(y)), batch_size=64, shuffle=True,
                        generator=np.random.default_rng(1))
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                          nn.Linear(128, 10))
    opt = optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    for _ in range(3):
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    assert len(losses) == 24
    assert np.mean(losses[-4:]) < 0.2 * np.mean(losses[:2])


def test_datasets_have_no_default_len_so_length_hints_work():
    """PyTorch's Dataset defines no __len__: len() of an iterable dataset is a TypeError, which
    list(DataLoader(...)) treats as 'no length hint'."""
    from tinygrad_lite.utils.data import DataLoader, IterableDataset

    class Counting(IterableDataset):
        def __iter__(self):
            return iter(range(5))

    batches = list(DataLoader(Counting(), batch_size=2))
    assert [b.tolist() for b in batches] == [[0, 1], [2, 3], [4]]
    with pytest.raises(TypeError):
        len(DataLoader(Counting(), batch_size=2))
