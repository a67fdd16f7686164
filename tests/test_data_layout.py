"""utils.data as a package with PyTorch's layout: import paths, samplers, DataLoader options and
their errors, and default_collate's semantics (compared with torch's when it is installed)."""

from collections import OrderedDict, namedtuple

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.utils.data import default_collate, default_convert
from tinygrad_lite.utils.data.dataloader import DataLoader
from tinygrad_lite.utils.data.dataset import (
    ConcatDataset,
    Dataset,
    Subset,
    TensorDataset,
    random_split,
)
from tinygrad_lite.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

Point = namedtuple("Point", ["x", "y"])


class Rows(Dataset):
    """Ten samples ``{"i": i, "v": [i, 10 i] as float32}``."""

    def __len__(self):
        return 10

    def __getitem__(self, i):
        return {"i": i, "v": np.array([i, 10 * i], np.float32)}


def values(batches):
    """The ``"i"`` values of each collated batch."""
    return [b["i"].tolist() for b in batches]


# -- layout ----------------------------------------------------------------------------------------

def test_new_paths_are_the_package_objects():
    data = tl.utils.data
    for obj in (DataLoader, Dataset, TensorDataset, Subset, ConcatDataset, random_split,
                Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler,
                WeightedRandomSampler, BatchSampler, default_collate, default_convert):
        assert getattr(data, obj.__name__) is obj
    from tinygrad_lite.utils.data._utils import collate

    assert collate.default_collate is default_collate


# -- samplers --------------------------------------------------------------------------------------

def test_sequential_sampler():
    s = SequentialSampler(range(5))
    assert list(s) == [0, 1, 2, 3, 4] and list(s) == list(range(5)) and len(s) == 5


def test_random_sampler_is_a_new_permutation_each_epoch_and_reproducible():
    s = RandomSampler(range(20), generator=np.random.default_rng(3))
    first, second = list(s), list(s)
    assert sorted(first) == sorted(second) == list(range(20)) and len(s) == 20
    assert first != second
    again = RandomSampler(range(20), generator=np.random.default_rng(3))
    assert list(again) == first and list(again) == second
    assert list(RandomSampler(range(20), generator=7)) == \
        list(RandomSampler(range(20), generator=7))
    tl.manual_seed(11)
    a = list(RandomSampler(range(20)))
    tl.manual_seed(11)
    assert list(RandomSampler(range(20))) == a


def test_random_sampler_num_samples_and_replacement():
    s = RandomSampler(range(4), num_samples=10, generator=0)
    out = list(s)
    assert len(s) == 10 and len(out) == 10
    assert sorted(out[:4]) == sorted(out[4:8]) == [0, 1, 2, 3]  # whole permutations first
    assert len(set(out[8:])) == 2
    r = RandomSampler(range(3), replacement=True, num_samples=50, generator=0)
    drawn = list(r)
    assert len(drawn) == 50 and set(drawn) <= {0, 1, 2} and len(set(drawn)) == 3
    with pytest.raises(TypeError, match="replacement should be a boolean"):
        RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        RandomSampler(range(3), num_samples=0)
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        RandomSampler([])


def test_subset_and_weighted_random_samplers():
    s = SubsetRandomSampler([5, 7, 9], generator=0)
    assert sorted(s) == [5, 7, 9] and len(s) == 3
    w = WeightedRandomSampler([0.0, 1.0, 3.0], 100, generator=np.random.default_rng(0))
    drawn = list(w)
    assert len(w) == 100 and 0 not in drawn and drawn.count(2) > drawn.count(1)
    no_rep = list(WeightedRandomSampler([1, 1, 0, 1], 4, replacement=False, generator=0))
    assert sorted(no_rep) == [0, 1, 2, 3] and no_rep[-1] == 2  # the zero weight comes last
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        WeightedRandomSampler([1.0], 0)
    with pytest.raises(ValueError, match="1d sequence"):
        WeightedRandomSampler([[1.0]], 1)
    with pytest.raises(RuntimeError, match="without replacement"):
        list(WeightedRandomSampler([1.0, 1.0], 3, replacement=False))
    with pytest.raises(RuntimeError, match="probability entry < 0"):
        list(WeightedRandomSampler([1.0, -1.0], 3))


def test_batch_sampler():
    full = BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False)
    assert list(full) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]] and len(full) == 4
    dropped = BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=True)
    assert list(dropped) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]] and len(dropped) == 3
    exact = BatchSampler(range(6), 3, True)  # any iterable of indices
    assert list(exact) == [[0, 1, 2], [3, 4, 5]] and len(exact) == 2
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="batch_size should be a positive integer"):
            BatchSampler(range(4), bad, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean"):
        BatchSampler(range(4), 2, 0)


# -- DataLoader ------------------------------------------------------------------------------------

def test_loader_builds_pytorchs_default_samplers():
    ds = Rows()
    plain = DataLoader(ds, batch_size=4)
    assert isinstance(plain.sampler, SequentialSampler)
    assert isinstance(plain.batch_sampler, BatchSampler) and plain.batch_sampler.batch_size == 4
    assert values(plain) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]] and len(plain) == 3
    shuffled = DataLoader(ds, batch_size=4, shuffle=True, generator=0)
    assert isinstance(shuffled.sampler, RandomSampler)
    assert sorted(sum(values(shuffled), [])) == list(range(10))
    it = iter(plain)
    assert len(it) == 3 and next(it)["i"].tolist() == [0, 1, 2, 3]


def test_loader_with_sampler():
    ds = Rows()
    loader = DataLoader(ds, batch_size=3, sampler=[9, 8, 7, 6, 5])
    assert values(loader) == [[9, 8, 7], [6, 5]] and len(loader) == 2
    loader = DataLoader(ds, batch_size=3, sampler=[9, 8, 7, 6, 5], drop_last=True)
    assert values(loader) == [[9, 8, 7]] and len(loader) == 1
    seeded = lambda: DataLoader(ds, batch_size=5,  # noqa: E731
                                sampler=RandomSampler(ds, generator=np.random.default_rng(4)))
    assert values(seeded()) == values(seeded())


def test_loader_with_batch_sampler():
    ds = Rows()
    loader = DataLoader(ds, batch_sampler=[[0, 2], [4, 6, 8], [1]])
    assert loader.batch_size is None and loader.drop_last is False
    assert values(loader) == [[0, 2], [4, 6, 8], [1]] and len(loader) == 3
    batches = list(DataLoader(ds, batch_sampler=BatchSampler(SequentialSampler(ds), 4, True)))
    assert values(batches) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert batches[0]["v"].shape == (4, 2) and batches[0]["v"].dtype == tl.float32


@pytest.mark.parametrize("kwargs, message", [
    (dict(shuffle=True, sampler=[0, 1]), "sampler option is mutually exclusive with shuffle"),
    (dict(batch_sampler=[[0]], batch_size=2), "batch_sampler option is mutually exclusive"),
    (dict(batch_sampler=[[0]], shuffle=True), "batch_sampler option is mutually exclusive"),
    (dict(batch_sampler=[[0]], sampler=[0]), "batch_sampler option is mutually exclusive"),
    (dict(batch_sampler=[[0]], drop_last=True), "batch_sampler option is mutually exclusive"),
    (dict(batch_size=None, drop_last=True), "batch_size=None option disables auto-batching"),
    (dict(batch_size=0), "batch_size should be a positive integer value"),
    (dict(num_workers=-1), "num_workers option should be non-negative"),
    (dict(timeout=-1), "timeout option should be non-negative"),
    (dict(prefetch_factor=2), "prefetch_factor option could only be specified"),
    (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
])
def test_loader_conflicting_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        DataLoader(Rows(), **kwargs)


def test_loader_freezes_its_setup():
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(Rows(), num_workers=-1)
    loader = DataLoader(Rows(), batch_size=2)
    for attr in ("batch_size", "sampler", "batch_sampler", "drop_last", "dataset"):
        with pytest.raises(ValueError, match=f"{attr} attribute should not be set"):
            setattr(loader, attr, None)
    loader.collate_fn = default_collate  # not frozen, as in PyTorch


def test_loader_without_batching_converts_samples():
    samples = list(DataLoader(Rows(), batch_size=None, sampler=[3, 1]))
    assert [s["i"] for s in samples] == [3, 1]  # ints stay ints
    assert isinstance(samples[0]["v"], tl.Tensor) and samples[0]["v"].tolist() == [3.0, 30.0]


def test_tensor_dataset_batches_match_default_collate():
    x, y = tl.randn(10, 3), tl.arange(10)
    ds = TensorDataset(x, y)
    fast = list(DataLoader(ds, batch_size=4))
    slow = list(DataLoader(ds, batch_size=4, collate_fn=lambda b: default_collate(b)))
    assert all(isinstance(b, list) and len(b) == 2 for b in fast)
    for a, b in zip(fast, slow):
        for ta, tb in zip(a, b):
            assert ta.dtype == tb.dtype
            np.testing.assert_array_equal(ta.numpy(), tb.numpy())


def test_loader_uses_getitems():
    class Batched(Rows):
        calls = []

        def __getitems__(self, indices):
            self.calls.append(list(indices))
            return [self[i] for i in indices]

    ds = Batched()
    assert values(DataLoader(ds, batch_size=6)) == [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9]]
    assert ds.calls == [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9]]


# -- datasets --------------------------------------------------------------------------------------

def test_concat_subset_and_split():
    ds = Rows() + TensorDataset(tl.arange(3))
    assert isinstance(ds, ConcatDataset) and len(ds) == 13
    assert ds[10][0].item() == 0 and ds[-1][0].item() == 2 and ds[9]["i"] == 9
    with pytest.raises(ValueError, match="absolute value of index"):
        ds[-14]
    sub = Subset(Rows(), [4, 2, 7])
    assert sub[1]["i"] == 2 and len(sub) == 3
    parts = random_split(Rows(), [0.5, 0.3, 0.2], generator=np.random.default_rng(0))
    assert [len(p) for p in parts] == [5, 3, 2]
    assert sorted(p[i]["i"] for p in parts for i in range(len(p))) == list(range(10))
    with pytest.raises(ValueError, match="Fraction at index 0"):
        random_split(Rows(), [1.5, -0.5])


# -- default_collate -------------------------------------------------------------------------------

def test_default_collate_numbers_and_arrays():
    assert default_collate([1, 2]).dtype == tl.int64
    assert default_collate([1.5, 2.0]).dtype == tl.float64
    assert default_collate([True, False]).dtype == tl.bool
    assert default_collate([np.float32(1), np.float32(2)]).dtype == tl.float32
    assert default_collate([np.int32(1), np.int32(2)]).dtype == tl.int32
    arrays = default_collate([np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32)])
    assert arrays.shape == (2, 2, 3) and arrays.dtype == tl.float32
    assert default_collate(["a", "b"]) == ["a", "b"]
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        default_collate([np.array(["a"]), np.array(["b"])])
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        default_collate([object(), object()])
    with pytest.raises(RuntimeError, match="stack"):
        default_collate([tl.zeros(2), tl.zeros(3)])


def test_default_collate_structures():
    out = default_collate([(1, 2.0, "a"), (3, 4.0, "b")])
    assert isinstance(out, list) and out[0].tolist() == [1, 3] and out[2] == ("a", "b")
    point = default_collate([Point(1, np.ones(2)), Point(2, np.zeros(2))])
    assert isinstance(point, Point) and point.x.tolist() == [1, 2] and point.y.shape == (2, 2)
    d = default_collate([OrderedDict(a=1, b=[1, 2]), OrderedDict(a=2, b=[3, 4])])
    assert isinstance(d, OrderedDict) and list(d) == ["a", "b"]
    assert d["a"].tolist() == [1, 2] and [t.tolist() for t in d["b"]] == [[1, 3], [2, 4]]
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate([[1, 2], [3]])
    w = tl.ones(2, requires_grad=True)
    stacked = default_collate([w, w * 2])
    assert stacked.requires_grad and stacked.shape == (2, 2)  # stacked as a recorded op


def test_default_convert():
    out = default_convert({"a": np.arange(3), "b": (np.float32(1.5), "s", 4)})
    assert isinstance(out["a"], tl.Tensor) and out["a"].tolist() == [0, 1, 2]
    assert isinstance(out["b"], list) and out["b"][0].dtype == tl.float32
    assert out["b"][1:] == ["s", 4]
    strings = np.array(["x"])
    assert default_convert(strings) is strings


def _same(ours, theirs, torch):
    """Whether a collated tinygrad_lite structure matches torch's (types, dtypes, values)."""
    if isinstance(theirs, torch.Tensor):
        return (isinstance(ours, tl.Tensor) and str(ours.dtype).split(".")[-1]
                == str(theirs.dtype).split(".")[-1] and ours.shape == tuple(theirs.shape)
                and np.array_equal(ours.numpy(), theirs.numpy()))
    if isinstance(theirs, dict):
        return (type(ours) is type(theirs) and list(ours) == list(theirs)
                and all(_same(ours[k], theirs[k], torch) for k in theirs))
    if isinstance(theirs, (list, tuple)):
        return (type(ours) is type(theirs) and len(ours) == len(theirs)
                and all(_same(a, b, torch) for a, b in zip(ours, theirs)))
    return ours == theirs


def test_default_collate_matches_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.data import default_collate as torch_collate
    from torch.utils.data import default_convert as torch_convert

    batches = [
        [1, 2, 3], [1.5, 2.5], [True, False], [1, 2.5], ["a", "b"], [b"x", b"y"],
        [np.float32(1), np.float32(2)], [np.int32(1), np.int32(2)], [np.bool_(True)],
        [np.float64(1.0), np.float64(2.0)],
        [np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((2, 3), np.float32)],
        [np.arange(3), np.arange(3) * 2],
        [(1, 2.0, "a"), (3, 4.0, "b")],
        [[1, np.ones(2)], [2, np.zeros(2)]],
        [{"x": np.ones(2, np.float32), "y": 1, "name": "p"},
         {"x": np.zeros(2, np.float32), "y": 2, "name": "q"}],
        [OrderedDict(b=1, a=(2, 3)), OrderedDict(b=4, a=(5, 6))],
        [Point(1, 2.0), Point(3, 4.0)],
        [{"nested": [Point(np.int64(1), [1.0, 2.0])]},
         {"nested": [Point(np.int64(2), [3.0, 4.0])]}],
    ]
    for batch in batches:
        ours, theirs = default_collate(batch), torch_collate(batch)
        assert _same(ours, theirs, torch), (batch, ours, theirs)
    for sample in (np.arange(3), {"a": np.float32(2), "b": (1, np.ones(2))}, Point(np.ones(1), 3),
                   [np.int32(4), "s"], 5):
        assert _same(default_convert(sample), torch_convert(sample), torch), sample
    tensors = [tl.arange(4).reshape(2, 2), tl.ones(2, 2, dtype=tl.int64)]
    ours = default_collate(tensors)
    theirs = torch_collate([torch.from_numpy(t.numpy()) for t in tensors])
    assert _same(ours, theirs, torch)
