"""utils.data against torch.utils.data: default_collate/default_convert (values, dtypes,
structures, errors), DataLoader options, their errors and warnings, lengths, orders under a
seed (also across epochs and with a reseeded Generator), iterable datasets with workers,
random_split, the datasets and the samplers."""

import collections
import multiprocessing
import re
import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.utils import data as tdata

torch = pytest.importorskip("torch")
from torch.utils import data as pdata  # noqa: E402

Point = collections.namedtuple("Point", "a b")


def _plain(x):
    """A result of either library as plain Python: tensors as (dtype, shape, values)."""
    if isinstance(x, (torch.Tensor, tl.Tensor)):
        return (str(x.dtype).rsplit(".", 1)[-1], tuple(x.shape), x.detach().numpy().tolist())
    if isinstance(x, dict):
        return type(x).__name__, {k: _plain(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x).__name__, tuple(_plain(v) for v in x)
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [_plain(v) for v in x]
    return x


def _outcome(fn):
    """(result or exception type and first line of its message, warning messages)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", _plain(fn()))
        except Exception as exc:  # the type and the text are what is compared
            result = (type(exc).__name__, str(exc).split("\n")[0])
    return result, [str(w.message) for w in caught]


def _same(make):
    """``make(lib, data)`` gives the same outcome with (torch, torch.utils.data) and
    (tinygrad_lite, tinygrad_lite.utils.data), each seeded with 0 first."""
    def run(lib, data):
        lib.manual_seed(0)
        return make(lib, data)

    ours, theirs = _outcome(lambda: run(tl, tdata)), _outcome(lambda: run(torch, pdata))
    assert ours == theirs
    return ours


# -- default_collate / default_convert -------------------------------------------------------------

COLLATE_CASES = {
    "float32 tensors": lambda m: [m.ones(2), m.zeros(2)],
    "float64 tensors": lambda m: [m.ones(2, dtype=m.float64), m.zeros(2, dtype=m.float64)],
    "0-d tensors": lambda m: [m.tensor(1.0), m.tensor(2.0)],
    "empty tensors": lambda m: [m.zeros(0, 3), m.zeros(0, 3)],
    "non-contiguous": lambda m: [m.arange(6.0).reshape(2, 3).t()] * 2,
    "mixed dtypes": lambda m: [m.ones(2, dtype=m.int64), m.zeros(2, dtype=m.float64)],
    "bool tensors": lambda m: [m.tensor(True), m.tensor(False)],
    "numpy float32": lambda m: [np.ones(2, np.float32), np.zeros(2, np.float32)],
    "numpy int32": lambda m: [np.ones(2, np.int32), np.zeros(2, np.int32)],
    "numpy 0-d": lambda m: [np.array(1.0), np.array(2.0)],
    "numpy strings": lambda m: [np.array(["a"]), np.array(["b"])],
    "numpy objects": lambda m: [np.array([None]), np.array([1], dtype=object)],
    "numpy float32 scalars": lambda m: [np.float32(1), np.float32(2)],
    "numpy mixed scalars": lambda m: [np.int32(1), np.float64(2)],
    "numpy scalar, float": lambda m: [np.float32(2), 1.0],  # float32, as PyTorch infers
    "numpy scalar, int": lambda m: [np.int16(2), 1],
    "numpy bool scalars": lambda m: [np.bool_(True), np.bool_(False)],
    "numpy str_": lambda m: [np.str_("a"), np.str_("b")],
    "ints": lambda m: [1, 2, 3],
    "floats": lambda m: [1.0, 2.5],
    "bools": lambda m: [True, False],
    "int, float": lambda m: [1, 2.5],
    "float, int": lambda m: [1.5, 2],
    "bool, int": lambda m: [True, 2],
    "strings": lambda m: ["a", "b"],
    "bytes": lambda m: [b"a", b"b"],
    "complex": lambda m: [1j, 2j],
    "None": lambda m: [None, None],
    "sets": lambda m: [{1}, {2}],
    "dicts": lambda m: [{"x": 1, "y": "a"}, {"x": 2, "y": "b"}],
    "dicts missing a key": lambda m: [{"x": 1, "y": 2}, {"x": 2}],
    "ordered dicts": lambda m: [collections.OrderedDict(x=1), collections.OrderedDict(x=2)],
    "defaultdicts": lambda m: [collections.defaultdict(int, x=1)] * 2,
    "named tuples": lambda m: [Point(1, 2.0), Point(3, 4.0)],
    "tuples": lambda m: [(1, "a"), (2, "b")],
    "lists": lambda m: [[1, 2], [3, 4]],
    "nested": lambda m: [{"a": [m.ones(1), (1, 2.0)]}, {"a": [m.zeros(1), (3, 4.0)]}],
    "unequal lists": lambda m: [[1, 2], [3]],
    "unequal tuples": lambda m: [(1, 2), (3,)],
    "ranges": lambda m: [range(2), range(2)],
    "empty batch": lambda m: [],
}


@pytest.mark.parametrize("case", COLLATE_CASES)
def test_default_collate(case):
    _same(lambda m, data: data.default_collate(COLLATE_CASES[case](m)))


# (object arrays are returned as they are, as PyTorch does: checked below by identity)
@pytest.mark.parametrize("case", [case for case in COLLATE_CASES if case != "numpy objects"])
def test_default_convert(case):
    _same(lambda m, data: data.default_convert(COLLATE_CASES[case](m)))


def test_default_convert_single_samples():
    for sample in (np.float32(3), np.int8(3), np.arange(3, dtype=np.uint32), np.array(2), 3, "s",
                   (np.float32(1), 2), Point(np.arange(2), 1), {"a": np.arange(2)}):
        _same(lambda m, data, sample=sample: data.default_convert(sample))
    for kept in (np.array(["a"]), np.array([None, 1], dtype=object)):
        assert tdata.default_convert(kept) is kept
        assert pdata.default_convert(kept) is kept


def test_collate_of_unequal_tensors_names_the_sizes():
    with pytest.raises(RuntimeError, match=r"stack.*expects each tensor to be equal size"):
        tdata.default_collate([tl.ones(2), tl.zeros(3)])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal"):
        tdata.default_collate([[tl.ones(2)], [tl.ones(2), tl.ones(2)]])


def test_collated_batches_carry_float64_gradients():
    def make(m, data):
        x = m.arange(12.0, dtype=m.float64).reshape(6, 2).requires_grad_()
        w = m.arange(6.0, dtype=m.float64).requires_grad_()
        total = sum(((xb ** 2).sum(1) * wb).sum()
                    for xb, wb in data.DataLoader(data.TensorDataset(x, w), batch_size=4))
        gx, gw = m.autograd.grad(total, (x, w), create_graph=True)
        return gx, gw, m.autograd.grad(gx.sum(), w)[0]

    _same(make)
    _same(lambda m, data: data.default_collate([{"a": (t := m.tensor([1.0, 2.0],
                                                                     requires_grad=True)) * 2},
                                                {"a": t * 3}])["a"].requires_grad)


# -- DataLoader ------------------------------------------------------------------------------------


class Pairs:
    """A plain map-style dataset: sample i is (tensor([i]), i)."""

    def __init__(self, lib, n=10):
        self.lib, self.n = lib, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.lib.tensor([float(i)]), i


LOADER_CASES = {
    "defaults": {},
    "batch_size": {"batch_size": 3},
    "drop_last": {"batch_size": 3, "drop_last": True},
    "batch_size=None": {"batch_size": None},
    "batch_size=None, drop_last": {"batch_size": None, "drop_last": True},
    "batch_size=0": {"batch_size": 0},
    "batch_size=2.0": {"batch_size": 2.0},
    "batch_size=True": {"batch_size": True},
    "drop_last=1": {"batch_size": 3, "drop_last": 1},
    "shuffle": {"batch_size": 3, "shuffle": True},
    "shuffle, batch_size=None": {"batch_size": None, "shuffle": True},
    "sampler": {"sampler": [3, 1, 2], "batch_size": 2},
    "sampler and shuffle=False": {"sampler": [3, 1], "shuffle": False},
    "sampler and shuffle": {"sampler": [3, 1], "shuffle": True},
    "batch_sampler": {"batch_sampler": [[0, 1], [5]]},
    "batch_sampler, batch_size": {"batch_sampler": [[0]], "batch_size": 2},
    "batch_sampler, batch_size=None": {"batch_sampler": [[0]], "batch_size": None},
    "batch_sampler, shuffle": {"batch_sampler": [[0]], "shuffle": True},
    "batch_sampler, sampler": {"batch_sampler": [[0]], "sampler": [1]},
    "batch_sampler, drop_last": {"batch_sampler": [[0]], "drop_last": True},
    "num_workers=-1": {"num_workers": -1},
    "timeout=-1": {"timeout": -1},
    "timeout without workers": {"timeout": 5},
    "pin_memory": {"pin_memory": True, "batch_size": 4},
    "pin_memory_device": {"pin_memory": True, "pin_memory_device": "cuda", "batch_size": 4},
    "prefetch_factor without workers": {"prefetch_factor": 2},
    "persistent_workers without workers": {"persistent_workers": True},
    "multiprocessing_context without workers": {"multiprocessing_context": "spawn"},
    "collate_fn": {"batch_size": 3, "collate_fn": len},
    "collate_fn, batch_size=None": {"batch_size": None, "collate_fn": lambda s: s[1]},
    "worker_init_fn without workers": {"worker_init_fn": lambda i: 1 / 0},
}


@pytest.mark.parametrize("case", LOADER_CASES)
def test_loader_batches_errors_and_warnings(case):
    _same(lambda m, data: list(data.DataLoader(Pairs(m), **LOADER_CASES[case])))


@pytest.mark.parametrize("kwargs", [
    {"prefetch_factor": -1}, {"multiprocessing_context": "bogus"},
    {"multiprocessing_context": 3}, {"prefetch_factor": 0}, {"multiprocessing_context": "fork"},
])
def test_worker_options_are_checked_at_construction(kwargs):
    _same(lambda m, data: (lambda loader: (loader.prefetch_factor, loader.num_workers))(
        data.DataLoader(Pairs(m), num_workers=1, **kwargs)))
    context = multiprocessing.get_context("fork")
    assert tdata.DataLoader(Pairs(tl), num_workers=1,
                            multiprocessing_context=context).multiprocessing_context is context


def test_too_many_workers_warns_as_pytorch():
    def make(m, data):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            data.DataLoader(Pairs(m), num_workers=10_000)
        return [str(w.message) for w in caught]

    ours = _same(make)
    assert ours[0][1][1][0].startswith("This DataLoader will create 10000 worker processes")


@pytest.mark.parametrize("kwargs, sampler", [
    ({"batch_size": 3}, None), ({"batch_size": 3, "drop_last": True}, None),
    ({"batch_size": None}, None), ({"batch_size": 2}, [1, 2, 3]),
    ({"batch_sampler": [[1, 2, 3], [1]]}, None), ({"batch_size": 3}, "empty"),
])
def test_loader_lengths(kwargs, sampler):
    def make(m, data):
        dataset = Pairs(m, 0 if sampler == "empty" else 10)
        extra = {"sampler": sampler} if isinstance(sampler, list) else {}
        loader = data.DataLoader(dataset, **kwargs, **extra)
        return len(loader), len(iter(loader)), len(list(loader))

    _same(make)


def test_loader_attributes_and_frozen_setup():
    _same(lambda m, data: (lambda ld: (ld.batch_size, ld.drop_last, type(ld.sampler).__name__,
                                       type(ld.batch_sampler).__name__, ld.num_workers,
                                       ld.timeout, ld.pin_memory, ld.prefetch_factor,
                                       ld.persistent_workers, ld.in_order, ld.generator))(
        data.DataLoader(Pairs(m), batch_size=3)))
    _same(lambda m, data: (lambda ld: (ld.batch_size, ld.drop_last, ld.batch_sampler,
                                       ld.collate_fn.__name__))(
        data.DataLoader(Pairs(m), batch_size=None)))
    _same(lambda m, data: setattr(data.DataLoader(Pairs(m)), "batch_size", 3))
    _same(lambda m, data: setattr(data.DataLoader(Pairs(m)), "num_workers", 3))


@pytest.mark.parametrize("n, batch_size, drop_last", [(10, 3, False), (10, 5, False),
                                                      (7, 2, True), (8, 4, True), (1, 1, False)])
def test_shuffle_with_a_generator_over_epochs(n, batch_size, drop_last):
    """Three epochs, then a draw: the generator moves as PyTorch's does (its RandomSampler draws
    a last permutation even when nothing of it is used)."""
    def make(m, data):
        g = m.Generator().manual_seed(11)
        loader = data.DataLoader(data.TensorDataset(m.arange(n)), batch_size=batch_size,
                                 shuffle=True, generator=g, drop_last=drop_last)
        return [[b[0].tolist() for b in loader] for _ in range(3)] + [m.randperm(5, generator=g)]

    _same(make)


def test_shuffle_with_the_global_generator_then_a_draw():
    _same(lambda m, data: ([[b[0].tolist() for b in data.DataLoader(
        data.TensorDataset(m.arange(9)), batch_size=4, shuffle=True)] for _ in range(2)],
        m.rand(3)))
    _same(lambda m, data: (list(data.DataLoader(Pairs(m, 4), batch_size=None)), m.rand(3)))


def test_a_generator_is_kept_and_read_at_every_draw():
    def make(m, data):
        g = m.Generator().manual_seed(1)
        loader = data.DataLoader(data.TensorDataset(m.arange(6)), batch_size=4, shuffle=True,
                                 generator=g)
        sampler = data.RandomSampler(range(5), generator=g)
        out = [loader.generator is g, loader.sampler.generator is g, sampler.generator is g]
        g.manual_seed(5)
        out.append([b[0].tolist() for b in loader])
        g.manual_seed(6)
        out.append(list(sampler))
        state = loader.generator.get_state()
        out.append([b[0].tolist() for b in loader])
        g.set_state(state)
        out.append([b[0].tolist() for b in loader])
        g.manual_seed(7)
        out.append([list(s.indices) for s in data.random_split(range(6), [2, 4], generator=g)])
        g.manual_seed(8)
        out.append(list(data.SubsetRandomSampler([4, 5, 6], generator=g)))
        g.manual_seed(9)
        out.append(list(data.WeightedRandomSampler([1.0, 2.0, 3.0], 5, generator=g)))
        return out

    _same(make)


def test_tensor_dataset_batches():
    for kwargs in ({"batch_size": 4, "shuffle": True}, {"batch_size": None}):
        _same(lambda m, data, kw=kwargs: list(data.DataLoader(
            data.TensorDataset(m.arange(10), m.arange(10.0) * 2), **kw)))
    _same(lambda m, data: list(data.DataLoader(
        data.TensorDataset(m.arange(20.0).reshape(2, 10).t()), batch_size=4)))
    _same(lambda m, data: [b[0].requires_grad for b in data.DataLoader(
        data.TensorDataset(m.arange(5.0).requires_grad_()), batch_size=4)])


# -- iterable datasets -----------------------------------------------------------------------------


def _stream(data, n=7, length=None):
    """An IterableDataset of 0..n-1, sharded between workers; ``length`` its __len__."""
    class Stream(data.IterableDataset):
        def __iter__(self):
            info = data.get_worker_info()
            return iter(range(n) if info is None else range(info.id, n, info.num_workers))

        if length is not None:
            def __len__(self):
                return length

    return Stream()


@pytest.mark.parametrize("kwargs", [
    {}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None},
    {"shuffle": True}, {"shuffle": False}, {"sampler": [1]}, {"batch_sampler": [[1]]},
])
def test_iterable_dataset_loader(kwargs):
    _same(lambda m, data: list(data.DataLoader(_stream(data), **kwargs)))


@pytest.mark.parametrize("kwargs", [{"batch_size": 3}, {"batch_size": 3, "drop_last": True},
                                    {"batch_size": None}])
def test_iterable_dataset_lengths(kwargs):
    _same(lambda m, data: len(data.DataLoader(_stream(data, length=7), **kwargs)))
    _same(lambda m, data: len(data.DataLoader(_stream(data), **kwargs)))


def test_fetching_past_the_reported_length_warns():
    def make(m, data):
        loader = data.DataLoader(_stream(data, length=3), batch_size=2)
        return len(loader), list(loader)

    ours, theirs = _outcome(lambda: make(tl, tdata)), _outcome(lambda: make(torch, pdata))
    assert ours[0] == theirs[0]
    # the message names the dataset by its repr, with an address: compare the rest
    ours_text, theirs_text = ([re.sub(r" object at 0x[0-9a-f]+>", ">", m) for m in o[1]]
                              for o in (ours, theirs))
    assert ours_text == theirs_text and len(ours_text) == 1
    assert ours_text[0].startswith("Length of IterableDataset <")
    assert "Stream> was reported to be 3(when accessing len(dataloader)), but 4 samples have " \
        "been fetched" in ours_text[0]
    assert _same(lambda m, data: list(data.DataLoader(_stream(data, length=3),
                                                      batch_size=2)))[1] == []


@pytest.mark.parametrize("kwargs", [{"batch_size": 2}, {"batch_size": None},
                                    {"batch_size": 2, "drop_last": True}])
def test_iterable_dataset_sharded_between_two_workers(kwargs):
    _same(lambda m, data: list(data.DataLoader(_stream(data), num_workers=2, **kwargs)))


def test_seeded_workers_draw_pytorchs_numbers():
    class Noisy:
        def __init__(self, lib, data):
            self.lib, self.data = lib, data

        def __len__(self):
            return 6

        def __getitem__(self, i):
            info = self.data.get_worker_info()
            return self.lib.rand(1), i, info.id, info.seed - self.lib.initial_seed()

    _same(lambda m, data: list(data.DataLoader(Noisy(m, data), batch_size=2, num_workers=2,
                                               shuffle=True)))


def test_chain_and_concat_of_iterable_datasets():
    _same(lambda m, data: list(data.DataLoader(
        data.ChainDataset([_stream(data, 3), _stream(data, 4)]), batch_size=3)))
    _same(lambda m, data: list(_stream(data, 3) + _stream(data, 2)))
    _same(lambda m, data: len(data.ChainDataset([_stream(data, 3, 3), _stream(data, 4, 4)])))
    _same(lambda m, data: len(data.ChainDataset([_stream(data, 3, 3), [1, 2]])))
    _same(lambda m, data: list(data.ChainDataset([_stream(data, 3, 3), [1, 2]])))
    _same(lambda m, data: data.ConcatDataset([[1, 2], _stream(data)]))
    _same(lambda m, data: data.IterableDataset())  # abstract: no __iter__


# -- map-style datasets ----------------------------------------------------------------------------


class Batched:
    """A dataset with a __getitems__ that differs from its __getitem__ (to see which is used)."""

    def __len__(self):
        return 5

    def __getitem__(self, i):
        return ("one", i)

    def __getitems__(self, indices):
        return [("many", i) for i in indices]


DATASET_CASES = {
    "tensor dataset": lambda m, d: d.TensorDataset(m.arange(3), m.zeros(3, 2))[1],
    "tensor dataset of a 0-d tensor": lambda m, d: d.TensorDataset(m.tensor(1.0)),
    "tensor dataset len": lambda m, d: len(d.TensorDataset(m.arange(3))),
    "tensor dataset slice": lambda m, d: d.TensorDataset(m.arange(3))[1:],
    "concat indices": lambda m, d: [d.ConcatDataset([[1, 2], [3]])[i] for i in range(-3, 3)],
    "concat cumulative_sizes": lambda m, d: d.ConcatDataset([[1, 2], [3], []]).cumulative_sizes,
    "concat cummulative_sizes": lambda m, d: d.ConcatDataset([[1, 2], [3]]).cummulative_sizes,
    "concat of nothing": lambda m, d: d.ConcatDataset([]),
    "concat index -4": lambda m, d: d.ConcatDataset([[1, 2], [3]])[-4],
    "concat by +": lambda m, d: (d.TensorDataset(m.arange(2)) + [5]).cumulative_sizes,
    "subset": lambda m, d: [d.Subset([10, 11, 12], [2, 0])[i] for i in (0, 1, -1)],
    "subset with a list": lambda m, d: d.Subset(m.arange(5) + 10, [2, 0])[[0, 1]],
    "subset __getitems__": lambda m, d: d.Subset(Batched(), [3, 1]).__getitems__([0, 1]),
    "subset in a loader": lambda m, d: list(d.DataLoader(d.Subset(Batched(), [3, 1]),
                                                         batch_size=2)),
    "subset overriding __getitem__ only": lambda m, d: type(
        "Sub", (d.Subset,), {"__getitem__": lambda self, i: 0})([1], [0]),
    "stack of tuples": lambda m, d: d.StackDataset([1, 2], [3, 4])[1],
    "stack of dicts": lambda m, d: d.StackDataset(a=[1, 2], b=[3, 4])[1],
    "stack size mismatch": lambda m, d: d.StackDataset([1, 2], [3]),
    "stack of nothing": lambda m, d: d.StackDataset(),
    "stack __getitems__": lambda m, d: d.StackDataset([1, 2], Batched()).__getitems__([1, 0]),
    "stack __getitems__ of dicts": lambda m, d: d.StackDataset(
        a=[1, 2], b=Batched()).__getitems__([1, 0]),
    "stack in a loader": lambda m, d: list(d.DataLoader(
        d.StackDataset(a=Batched(), b=[1, 2, 3, 4, 5]), batch_size=2)),
    "dataset without __getitem__": lambda m, d: d.Dataset()[0],
}


@pytest.mark.parametrize("case", DATASET_CASES)
def test_datasets(case):
    _same(DATASET_CASES[case])


def test_dataset_messages_keep_pytorchs_start():
    with pytest.raises(AssertionError, match="^Size mismatch between tensors$"):
        pdata.TensorDataset(torch.arange(3), torch.zeros(4))
    with pytest.raises(AssertionError, match=r"^Size mismatch between tensors: \(3,\), \(4,\)"):
        tdata.TensorDataset(tl.arange(3), tl.zeros(4))
    with pytest.raises(ValueError, match="both types are given"):
        tdata.StackDataset([1], a=[1])


@pytest.mark.parametrize("n", [0, 1, 3, 10, 11])
@pytest.mark.parametrize("lengths", [
    [0.3, 0.7], [0.5, 0.5], [0.33, 0.33, 0.34], [1.0], [0.1] * 10, [0.05, 0.05, 0.9],
    [0.0, 1.0], [1 / 3] * 3, [0.6, 0.6], [1.2, -0.2], [0.5, 0.6],
])
def test_random_split_fractions(n, lengths):
    _same(lambda m, data: ([list(s.indices) for s in data.random_split(range(n), lengths)],
                           m.rand(1)))


@pytest.mark.parametrize("lengths", [[3, 7], [3, 3], [3, 0.7], [-3, 13], (1, 9), [10]])
def test_random_split_lengths(lengths):
    _same(lambda m, data: [list(s.indices) for s in data.random_split(range(10), lengths)])
    _same(lambda m, data: [list(s.indices) for s in data.random_split(
        range(10), lengths, generator=m.Generator().manual_seed(3))])


# -- samplers --------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 5, 17, 300])
@pytest.mark.parametrize("kwargs", [
    {}, {"replacement": True}, {"num_samples": 7}, {"num_samples": 3},
    {"replacement": True, "num_samples": 70},
])
@pytest.mark.parametrize("seeded", [False, True])
def test_random_sampler_orders(n, kwargs, seeded):
    def make(m, data):
        extra = {"generator": m.Generator().manual_seed(5)} if seeded else {}
        sampler = data.RandomSampler(range(n), **kwargs, **extra)
        return list(sampler), list(sampler), len(sampler), m.rand(2)

    _same(make)


@pytest.mark.parametrize("make", [
    lambda m, d: d.RandomSampler(range(3), num_samples=0),
    lambda m, d: d.RandomSampler(range(3), num_samples=2.0),
    lambda m, d: d.RandomSampler(range(3), replacement=1),
    lambda m, d: d.RandomSampler([]),
    lambda m, d: list(d.RandomSampler([], num_samples=3)),
    lambda m, d: list(d.RandomSampler([], replacement=True, num_samples=3)),
    lambda m, d: list(d.RandomSampler(range(0), replacement=True)),
    lambda m, d: (lambda s: (s.replacement, s.num_samples, s.generator))(
        d.RandomSampler(range(3))),
    lambda m, d: (list(d.SequentialSampler(range(4))), len(d.SequentialSampler(range(4)))),
    lambda m, d: list(d.SequentialSampler([])),
])
def test_random_and_sequential_sampler_edges(make):
    _same(make)


@pytest.mark.parametrize("n", [0, 1, 6, 50])
def test_subset_random_sampler(n):
    _same(lambda m, data: (list(s := data.SubsetRandomSampler(list(range(10, 10 + n)))),
                           list(s), len(s), m.rand(2)))
    _same(lambda m, data: list(data.SubsetRandomSampler(
        range(10, 10 + n), generator=m.Generator().manual_seed(2))))


WEIGHTS = [0.1, 0.5, 0.2, 0.9, 0.3, 0.0, 1.0]


@pytest.mark.parametrize("kwargs", [
    {"num_samples": 5}, {"num_samples": 30}, {"num_samples": 5, "replacement": False},
    {"num_samples": 6, "replacement": False}, {"num_samples": 1},
    {"num_samples": 1, "replacement": False},
])
@pytest.mark.parametrize("weights", ["list", "float32 tensor", "float64 tensor"])
def test_weighted_random_sampler_orders(kwargs, weights):
    def make(m, data):
        w = WEIGHTS if weights == "list" else m.tensor(
            WEIGHTS, dtype=m.float32 if weights == "float32 tensor" else m.float64)
        sampler = data.WeightedRandomSampler(w, **kwargs)
        seeded = data.WeightedRandomSampler(w, generator=m.Generator().manual_seed(4), **kwargs)
        return list(sampler), list(sampler), list(seeded), len(sampler), m.rand(2)

    _same(make)


@pytest.mark.parametrize("make", [
    lambda m, d: d.WeightedRandomSampler(WEIGHTS, 0),
    lambda m, d: d.WeightedRandomSampler(WEIGHTS, 2.0),
    lambda m, d: d.WeightedRandomSampler(WEIGHTS, True),
    lambda m, d: d.WeightedRandomSampler(WEIGHTS, 2, replacement=1),
    lambda m, d: d.WeightedRandomSampler([[1.0, 2.0]], 2),
    lambda m, d: d.WeightedRandomSampler(1.0, 2),
    lambda m, d: list(d.WeightedRandomSampler([1.0, -1.0], 2)),
    lambda m, d: list(d.WeightedRandomSampler([1.0, float("nan")], 2)),
    lambda m, d: list(d.WeightedRandomSampler([1.0, float("inf")], 2)),
    lambda m, d: list(d.WeightedRandomSampler([0.0, 0.0], 2)),
    lambda m, d: list(d.WeightedRandomSampler([1.0, 1.0], 3, replacement=False)),
    lambda m, d: list(d.WeightedRandomSampler([], 3)),
    lambda m, d: list(d.WeightedRandomSampler(list(range(1, 300)), 5000)),
    lambda m, d: (lambda s: (s.weights, s.num_samples, s.replacement, s.generator))(
        d.WeightedRandomSampler([1, 2], 3)),
])
def test_weighted_random_sampler_checks(make):
    _same(make)


@pytest.mark.parametrize("make", [
    lambda m, d: (list(b := d.BatchSampler(range(7), 3, False)), len(b)),
    lambda m, d: (list(b := d.BatchSampler(range(7), 3, True)), len(b)),
    lambda m, d: (list(b := d.BatchSampler([], 3, False)), len(b)),
    lambda m, d: d.BatchSampler(range(7), 0, False),
    lambda m, d: d.BatchSampler(range(7), 2.0, False),
    lambda m, d: d.BatchSampler(range(7), True, False),
    lambda m, d: d.BatchSampler(range(7), 2, 0),
    lambda m, d: len(d.BatchSampler(iter(range(3)), 3, False)),
    lambda m, d: (lambda g: (list(d.BatchSampler(d.RandomSampler(range(6), generator=g), 4,
                                                 True)), m.rand(1, generator=g)))(
        m.Generator().manual_seed(2)),
    lambda m, d: iter(d.Sampler()),
])
def test_batch_sampler(make):
    _same(make)
