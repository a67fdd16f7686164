"""The default random stream is PyTorch's: after ``manual_seed(s)``, ``rand``, ``randint``,
``randperm``, the default layer initialisations, small ``randn`` and a DataLoader's shuffle give
PyTorch's numbers bit for bit; larger float32 ``randn`` to an ulp or two of its functions'
values. Without PyTorch: determinism, state round trips and the distributions' shapes."""

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn as nn
from tinygrad_lite.functions.torch_stream import TorchStream

SEEDS = (0, 1, 1234, 2**40 + 7)


def _torch():
    return pytest.importorskip("torch")


def _cpu_vendor():
    """The CPU vendor string (``GenuineIntel``, ``AuthenticAMD``), or "" where unknown."""
    try:
        with open("/proc/cpuinfo") as info:
            return next((line.split(":")[1].strip() for line in info
                         if line.startswith("vendor_id")), "")
    except OSError:
        return ""


def _pair(seed, ours, theirs):
    torch = _torch()
    tl.manual_seed(seed)
    torch.manual_seed(seed)
    a, b = ours(tl), theirs(torch)
    return np.asarray(a.detach().float().numpy()), np.asarray(b.detach().float().numpy())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("draw", [
    lambda lib: lib.rand(37),
    lambda lib: lib.rand(3, 5, dtype=lib.float64),
    lambda lib: lib.rand(9, dtype=lib.float16),
    lambda lib: lib.rand(9, dtype=lib.bfloat16),
    lambda lib: lib.randint(0, 10, (50,)),
    lambda lib: lib.randint(-5, 2**40, (6,)),
    lambda lib: lib.randperm(300),
    lambda lib: lib.randn(7),
    lambda lib: lib.randn(15, dtype=lib.float64),
    lambda lib: lib.randn(200, dtype=lib.float64),
    lambda lib: lib.empty(4, 6).uniform_(-3, 2),
    lambda lib: lib.empty(11).normal_(2.0, 0.5),
    lambda lib: lib.empty(10).random_(3, 9),
    # one stream: calls after each other stay in step (a scalar normal keeps its pair's sine)
    lambda lib: lib.cat([lib.randn(3), lib.rand(2), lib.randn(1), lib.randn(40, dtype=lib.float64),
                         lib.randint(0, 7, (3,)).double(), lib.randperm(5).double()]),
], ids=["rand", "rand-f64", "rand-f16", "rand-bf16", "randint", "randint-wide", "randperm",
        "randn-small", "randn-f64-small", "randn-f64", "uniform_", "normal_-small", "random_",
        "mixed"])
def test_draws_equal_pytorchs(seed, draw):
    a, b = _pair(seed, draw, draw)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("size", [16, 17, 100, 4099])
def test_float32_normals_are_pytorchs_to_two_ulps(size):
    a, b = _pair(3, lambda lib: lib.randn(size), lambda lib: lib.randn(size))
    # an ulp or two of the function values: absolute near zero (a cosine near 0 times the radius)
    np.testing.assert_allclose(a, b, rtol=2.5e-7, atol=2.5e-7)
    assert np.mean(a != b) < 0.25  # most are the same float
    # the stream stays in step after them (they draw a fixed count of words)
    c, d = _pair(3, lambda lib: (lib.randn(size), lib.rand(5))[1],
                 lambda lib: (lib.randn(size), lib.rand(5))[1])
    np.testing.assert_array_equal(c, d)


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_default_layer_initialisation_is_pytorchs(seed):
    torch = _torch()
    for build in (lambda m: m.Sequential(m.Linear(20, 64), m.ReLU(), m.Linear(64, 3)),
                  lambda m: m.Conv2d(3, 8, 3), lambda m: m.ConvTranspose2d(4, 2, 3),
                  lambda m: m.LSTM(4, 5, num_layers=2), lambda m: m.GRU(3, 6),
                  lambda m: m.Bilinear(3, 4, 2)):
        tl.manual_seed(seed)
        torch.manual_seed(seed)
        ours, theirs = build(nn), build(torch.nn)
        for p, q in zip(ours.parameters(), theirs.parameters(), strict=True):
            np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_init_functions_draw_as_pytorch():
    torch = _torch()
    exact = [lambda i, t: i.xavier_uniform_(t), lambda i, t: i.kaiming_uniform_(t, a=0.1),
             lambda i, t: i.uniform_(t, -0.2, 0.3)]
    close = [lambda i, t: i.kaiming_normal_(t), lambda i, t: i.xavier_normal_(t),
             lambda i, t: i.normal_(t, 0.5, 0.02), lambda i, t: i.trunc_normal_(t, std=0.02),
             lambda i, t: i.trunc_normal_(t, mean=0.0, std=1.0, a=1.5, b=3.0)]
    for fills, check in ((exact, np.testing.assert_array_equal),
                         (close, lambda a, b: np.testing.assert_allclose(a, b, rtol=3e-7,
                                                                         atol=1e-7))):
        for fill in fills:
            tl.manual_seed(5)
            torch.manual_seed(5)
            a = fill(tl.nn.init, tl.empty(24, 32)).numpy()
            b = fill(torch.nn.init, torch.empty(24, 32)).numpy()
            check(a, b)


def test_generators_and_states_are_pytorchs():
    torch = _torch()
    ours, theirs = tl.Generator().manual_seed(11), torch.Generator().manual_seed(11)
    np.testing.assert_array_equal(tl.rand(6, generator=ours).numpy(),
                                  torch.rand(6, generator=theirs).numpy())
    np.testing.assert_array_equal(tl.randperm(20, generator=ours).numpy(),
                                  torch.randperm(20, generator=theirs).numpy())


def test_state_round_trip_keeps_the_pending_normal():
    tl.manual_seed(9)
    tl.randn(1)  # draws a pair: the second value waits in the generator
    state = tl.get_rng_state()
    first = tl.randn(5).numpy()
    tl.set_rng_state(state)
    np.testing.assert_array_equal(tl.randn(5).numpy(), first)
    tl.manual_seed(9)  # reseeding forgets the waiting value, as PyTorch's manual_seed does
    once = tl.randn(1).numpy()
    tl.manual_seed(9)
    np.testing.assert_array_equal(tl.randn(1).numpy(), once)


def test_streams_are_deterministic_and_distributed_as_named():
    stream = TorchStream(42)
    again = TorchStream(42)
    np.testing.assert_array_equal(stream.random(1000), again.random(1000))
    u = TorchStream(1).uniform_as(-2.0, 3.0, (200_000,), np.float32)
    assert u.dtype == np.float32 and u.min() >= -2.0 and u.max() < 3.0
    assert abs(u.mean() - 0.5) < 0.02
    n = TorchStream(2).normal_as(1.0, 3.0, (100_003,), np.float32)
    assert abs(n.mean() - 1.0) < 0.05 and abs(n.std() - 3.0) < 0.05
    k = TorchStream(3).integers(-4, 9, size=(50_000,))
    assert k.min() == -4 and k.max() == 8 and k.dtype == np.int64
    p = TorchStream(4).permutation(1000)
    np.testing.assert_array_equal(np.sort(p), np.arange(1000))
    shuffled = TorchStream(4).permutation(np.arange(10) * 2)
    np.testing.assert_array_equal(np.sort(shuffled), np.arange(10) * 2)
    # NumPy's other distributions draw from the same stream
    assert TorchStream(5).gamma(2.0, size=3).shape == (3,)
    assert isinstance(TorchStream(6).random(), float)
    assert TorchStream(6).standard_normal().shape == ()
    # a non-contiguous tensor's normals are drawn value by value, as PyTorch does
    t = tl.empty(8, 6)[:, :3]
    assert not t.is_contiguous()
    tl.manual_seed(0)
    values = t.normal_().numpy()
    np.testing.assert_array_equal(
        values, TorchStream(0).normal_as(0.0, 1.0, (8, 3), np.float32, contiguous=False))


def test_data_loading_shuffles_as_pytorch():
    torch = _torch()
    from torch.utils.data import DataLoader as TorchLoader
    from torch.utils.data import TensorDataset as TorchDataset
    from torch.utils.data import random_split as torch_split

    from tinygrad_lite.utils.data import DataLoader, RandomSampler, TensorDataset, random_split

    x = np.arange(23, dtype=np.float32)
    tl.manual_seed(3)
    torch.manual_seed(3)
    ours = DataLoader(TensorDataset(tl.tensor(x)), batch_size=5, shuffle=True)
    theirs = TorchLoader(TorchDataset(torch.tensor(x)), batch_size=5, shuffle=True)
    for _ in range(2):  # two epochs, then the stream is still in step
        assert [b[0].numpy().tolist() for b in ours] == [b[0].numpy().tolist() for b in theirs]
    np.testing.assert_array_equal(tl.rand(4).numpy(), torch.rand(4).numpy())
    tl.manual_seed(4)
    torch.manual_seed(4)
    assert [list(s.indices) for s in random_split(range(10), [3, 7])] == \
        [list(s.indices) for s in torch_split(range(10), [3, 7])]
    assert list(RandomSampler(range(9), replacement=True, num_samples=40)) == \
        list(torch.utils.data.RandomSampler(range(9), replacement=True, num_samples=40))
    weights = [0.1, 0.5, 0.2, 0.9, 0.3]
    for replacement, n in ((True, 12), (False, 3), (True, 1)):
        tl.manual_seed(6)
        torch.manual_seed(6)
        ours = tl.utils.data.WeightedRandomSampler(weights, n, replacement=replacement)
        theirs = torch.utils.data.WeightedRandomSampler(weights, n, replacement=replacement)
        assert list(ours) == list(theirs)


def test_streams_pickle_and_copy_with_their_class_and_state():
    import copy
    import pickle

    stream = TorchStream(5)
    stream.normal_as(0.0, 1.0, (1,), np.float64)  # a kept sine value is part of the state
    for clone in (pickle.loads(pickle.dumps(stream)), copy.deepcopy(stream)):
        assert type(clone) is TorchStream and clone.next_normal == stream.next_normal
    again = pickle.loads(pickle.dumps(stream))
    np.testing.assert_array_equal(again.standard_normal(20), stream.standard_normal(20))
    generator = tl.Generator().manual_seed(3)
    twin = copy.deepcopy(generator)
    np.testing.assert_array_equal(tl.rand(3, generator=generator).numpy(),
                                  tl.rand(3, generator=twin).numpy())


@pytest.mark.parametrize("seed", range(4))
def test_multinomial_bernoulli_and_exponential_draw_as_pytorch(seed):
    torch = _torch()
    weights = np.random.RandomState(seed).rand(3, 6).astype(np.float32)
    probs = np.random.RandomState(seed + 10).rand(20).astype(np.float32)
    for ours, theirs in (
            (lambda: tl.multinomial(tl.tensor(weights), 4),
             lambda: torch.multinomial(torch.tensor(weights), 4)),
            (lambda: tl.multinomial(tl.tensor(weights), 1, replacement=True),
             lambda: torch.multinomial(torch.tensor(weights), 1, replacement=True)),
            (lambda: tl.multinomial(tl.tensor(weights), 9, replacement=True),
             lambda: torch.multinomial(torch.tensor(weights), 9, replacement=True)),
            (lambda: tl.bernoulli(tl.tensor(probs)), lambda: torch.bernoulli(torch.tensor(probs))),
            (lambda: tl.empty(30).exponential_(2.0), lambda: torch.empty(30).exponential_(2.0)),
            (lambda: tl.distributions.Categorical(probs=tl.tensor(weights[0])).sample((8,)),
             lambda: torch.distributions.Categorical(probs=torch.tensor(weights[0])).sample((8,))),
            (lambda: tl.distributions.Bernoulli(probs=tl.tensor(probs)).sample((2,)),
             lambda: torch.distributions.Bernoulli(probs=torch.tensor(probs)).sample((2,)))):
        tl.manual_seed(seed)
        torch.manual_seed(seed)
        np.testing.assert_array_equal(ours().numpy(), theirs().numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64"])
@pytest.mark.parametrize("size", [1, 5, 16, 33])
@pytest.mark.parametrize("fill", [
    lambda t: t.geometric_(0.3),
    lambda t: t.cauchy_(1.0, 2.0),
    lambda t: t.log_normal_(0.5, 0.7),
])
def test_in_place_samplers_draw_as_pytorch(fill, size, dtype):
    """geometric_, cauchy_ and log_normal_ draw PyTorch's values (float64 to an ulp: its
    multiply-adds are fused), and leave the stream (and the pending normal) where PyTorch's
    leaves it; the continuous ones refuse integer tensors with PyTorch's errors."""
    torch = _torch()
    tl.manual_seed(3)
    torch.manual_seed(3)
    drawn = []
    for lib in (tl, torch):
        t = lib.empty(size, dtype=getattr(lib, dtype))
        try:
            drawn.append((fill(t).double().numpy(), lib.randn(3).numpy()))
        except (RuntimeError, NotImplementedError) as exc:
            drawn.append(type(exc))
    ours, theirs = drawn
    if not isinstance(theirs, tuple):
        assert ours is theirs
        return
    np.testing.assert_allclose(ours[0], theirs[0], rtol=4e-16, atol=0)
    np.testing.assert_array_equal(ours[1], theirs[1])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("draw", [
    lambda lib: lib.nn.functional.dropout(lib.ones(50_000), 0.3),
    lambda lib: lib.nn.functional.dropout(lib.ones(4, 7, dtype=lib.float64), 0.5),
    lambda lib: lib.nn.functional.dropout2d(lib.ones(4, 6, 3, 3), 0.25),
    lambda lib: lib.nn.functional.alpha_dropout(lib.ones(40), 0.2, True),
    lambda lib: lib.nn.Dropout(0.1)(lib.ones(3, 33)),
    lambda lib: lib.empty(37).bernoulli_(0.4),
])
def test_dropout_masks_are_pytorchs(seed, draw):
    """Dropout draws PyTorch's masks (its default bernoulli_ kernel: a uniform double per
    value), and leaves the stream where PyTorch's leaves it. PyTorch uses that kernel except on
    Intel CPUs with MKL, where it draws masks from MKL's generator (not reproduced here)."""
    torch = _torch()
    if torch.backends.mkl.is_available() and _cpu_vendor() == "GenuineIntel":
        pytest.skip("PyTorch draws bernoulli_(p) with MKL's generator on Intel CPUs")
    ours, theirs = _pair(seed, lambda lib: lib.cat([draw(lib).flatten().float(), lib.rand(3)]),
                         lambda lib: lib.cat([draw(lib).flatten().float(), lib.rand(3)]))
    np.testing.assert_array_equal(ours, theirs)
