"""tl.compile's loop kernels (compiler/loop_fusion.py, compiler/loop_kernels.py): runs of
elementwise ops become one generated numba kernel each. The kernels run only correctly rounded
operations, so their results are the NumPy replay's (and eager's) bit for bit, NaN and inf
included; float64 gradients through them pass a central-difference check; exp, log and tanh stay
NumPy calls between kernels. With the NumPy backend (or before a kernel is compiled) the replay is
the NumPy calls. Also: the IR names the optimizer's arena arrays as the state they hold."""

import logging
import re
import time

import numpy as np
import pytest
from helpers import numerical_grads, train_step

import tinygrad_lite as tl
import tinygrad_lite.nn as nn
from tinygrad_lite import _kernels
from tinygrad_lite.compiler import loop_kernels

numba = pytest.importorskip("numba")  # the kernels' backend (the NumPy path is tested too)
RNG = np.random.default_rng(11)


def _array(shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def _chain(a, b, c):
    return ((a * b + c) * 0.5 - a).clamp(-1.5, 1.5) / (b.abs() + 1.0) + (c > 0) * c.sqrt()


@pytest.fixture(autouse=True)
def _numba_backend():
    with _kernels.use_backend("numba"):
        yield


def test_elementwise_chain_is_one_kernel_bit_identical_to_eager():
    a, b, c = (tl.from_numpy(_array((64, 48))) for _ in range(3))
    f = tl.compile(_chain)
    expected = _chain(a, b, c).numpy()
    np.testing.assert_array_equal(f(a, b, c).numpy(), expected)  # the traced (eager) call
    kernels = f.kernels
    assert len(kernels) == 1
    ops = [op.replace("np.", "") for op in kernels[0].ops]
    assert ops[:5] == ["multiply", "add", "multiply", "subtract", "clip"] and len(ops) >= 9
    assert f.wait_for_kernels(timeout=120)
    out = f(a, b, c).numpy()
    assert f.replays == 1 and out.dtype == np.float32
    np.testing.assert_array_equal(out, expected)
    source = kernels[0].source
    # a float32 chain stays float32: every intermediate is rounded to float32, constants are
    # float32 (Python scalars are weak, as in NumPy)
    assigned = re.findall(r"t\d+ = (np\.\w+)\(", source)
    assert assigned and set(assigned) == {"np.float32"}
    assert "float64" not in source and "np.float32(0.5)" in source
    assert "fastmath" not in source and "prange" in source  # (threads for very large arrays)
    assert "kernel0[multiply, add, multiply, subtract, clip" in str(f.graph)
    assert "kernel0[multiply, add, multiply, subtract, clip" in tl.viz.to_dot(f.graph)


def test_exp_log_and_tanh_stay_numpy_calls_between_kernels():
    x = tl.from_numpy(_array((16, 16)))
    f = tl.compile(lambda x: ((x * 2.0 + 1.0).exp() * 3.0 - 1.0).tanh() * 0.5 + 0.25)
    expected = f(x).numpy()
    assert [k.ops for k in f.kernels] == [["np.multiply", "np.add"],
                                         ["np.multiply", "np.subtract"],
                                         ["np.multiply", "np.add"]]
    table = str(f.graph)
    assert "np.exp" in table and "np.tanh" in table
    assert f.wait_for_kernels(timeout=120)
    np.testing.assert_array_equal(f(x).numpy(), expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtypes_follow_numpy(dtype):
    x = tl.from_numpy(_array((32, 16), dtype))
    half = tl.from_numpy(_array((16,), np.float32))

    def f(x, half):
        y = (x * 3.0 + 1.0).relu()  # Python scalars: weak, x's dtype
        return (y * half).sqrt() + y  # float32 * float64 -> float64 as NumPy promotes

    compiled = tl.compile(f)
    expected = f(x, half).numpy()
    compiled(x, half)
    assert compiled.kernels and compiled.wait_for_kernels(timeout=120)
    out = compiled(x, half).numpy()
    assert out.dtype == expected.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, expected)


def test_nan_and_inf_propagate_as_in_numpy():
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -1e30, 2.0, -3.0, 1e-40],
                       np.float32)
    x = tl.from_numpy(np.tile(special, (10, 1)))
    y = tl.from_numpy(np.tile(special[::-1].copy(), (10, 1)))

    def f(x, y):
        q = x / y  # division by zero: inf or NaN, never an error
        m = tl.maximum(q, x) + tl.minimum(y, q)  # NaN wins in both
        return (m.clamp(-1e20, 1e20) * x).sqrt() - y.abs() * (x >= y)

    compiled = tl.compile(f)
    expected = f(x, y).numpy()
    assert np.isnan(expected).any() and np.isinf(expected).any()
    compiled(x, y)
    assert compiled.kernels and compiled.wait_for_kernels(timeout=120)
    np.testing.assert_array_equal(compiled(x, y).numpy(), expected)


def _block(dtype):
    tl.manual_seed(3)
    model = nn.Sequential(nn.Linear(12, 32), nn.LayerNorm(32), nn.GELU(), nn.Linear(32, 32),
                          nn.ReLU(), nn.Linear(32, 5))
    return model.to(dtype)


def test_training_step_with_kernels_is_bit_identical_to_eager():
    models = [_block(tl.float32) for _ in range(2)]
    opts = [tl.optim.AdamW(m.parameters(), lr=1e-2, weight_decay=0.1) for m in models]
    eager, compiled = train_step(models[0], opts[0]), tl.compile(train_step(models[1], opts[1]))
    x = tl.from_numpy(_array((24, 12)))
    y = tl.from_numpy(RNG.integers(0, 5, 24))
    for step in range(8):
        if step == 2:
            assert compiled.wait_for_kernels(timeout=120)
        np.testing.assert_array_equal(compiled(x, y).item(), eager(x, y).item())
    assert compiled.replays >= 6 and len(compiled.kernels) >= 4
    assert all(k.ready for k in compiled.kernels)
    for p, q in zip(models[1].parameters(), models[0].parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())
    for s1, s2 in zip(opts[0].state.values(), opts[1].state.values()):
        for key in s1:
            np.testing.assert_array_equal(np.asarray(s2[key].numpy()),
                                          np.asarray(s1[key].numpy()))


def test_float64_gradients_of_kernels_pass_gradcheck():
    model = _block(tl.float64)
    x = tl.from_numpy(_array((6, 12), np.float64))
    y = tl.from_numpy(RNG.integers(0, 5, 6))
    loss_fn = tl.nn.functional.cross_entropy

    def grads(x, y):
        model.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        return loss

    def loss_only(x, y):
        with tl.no_grad():
            return loss_fn(model(x), y)

    compiled, forward = tl.compile(grads), tl.compile(loss_only)
    for _ in range(2):  # (the first call sets the gradients: traced again)
        compiled(x, y)
    forward(x, y)
    assert compiled.kernels and forward.kernels
    assert compiled.wait_for_kernels(timeout=120) and forward.wait_for_kernels(timeout=120)
    compiled(x, y)
    assert compiled.replays >= 1
    weight = model[0].weight
    analytic = weight.grad.numpy().copy()
    eager_model_grad = None
    with _kernels.use_backend("numpy"):
        model.zero_grad()
        loss_fn(model(x), y).backward()
        eager_model_grad = weight.grad.numpy().copy()
    np.testing.assert_array_equal(analytic, eager_model_grad)
    numeric = numerical_grads(lambda w: forward(x, y), [weight], np.ones(()))[0]
    assert forward.replays > 0
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6)


def test_numpy_backend_replays_numpy_bit_for_bit():
    models = [_block(tl.float32) for _ in range(2)]
    opts = [tl.optim.AdamW(m.parameters(), lr=1e-2) for m in models]
    x = tl.from_numpy(_array((24, 12)))
    y = tl.from_numpy(RNG.integers(0, 5, 24))
    with _kernels.use_backend("numpy"):
        eager, compiled = train_step(models[0], opts[0]), tl.compile(train_step(models[1],
                                                                                opts[1]))
        for _ in range(5):
            np.testing.assert_array_equal(compiled(x, y).item(), eager(x, y).item())
    assert compiled.replays >= 3 and compiled.kernels == []
    assert "kernel" not in compiled.code
    for p, q in zip(models[1].parameters(), models[0].parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


@pytest.mark.parametrize("compiles", [False, True], ids=["never-ready", "background"])
def test_replays_while_kernels_compile_in_the_background_are_bit_identical(monkeypatch,
                                                                          compiles):
    if not compiles:  # the kernels never get compiled: every group runs its NumPy ops
        monkeypatch.setattr(loop_kernels.compile_queue, "submit", lambda kernel: None)
    models = [_block(tl.float32) for _ in range(2)]
    opts = [tl.optim.SGD(m.parameters(), lr=0.05, momentum=0.9) for m in models]
    eager, compiled = train_step(models[0], opts[0]), tl.compile(train_step(models[1], opts[1]))
    x = tl.from_numpy(_array((24, 12)))
    y = tl.from_numpy(RNG.integers(0, 5, 24))
    with tl._dynamo.config.patch(kernels_in_background=True):
        for step in range(6):
            if compiles and step == 4:
                assert compiled.wait_for_kernels(timeout=120)
            np.testing.assert_array_equal(compiled(x, y).item(), eager(x, y).item())
    assert compiled.replays >= 4 and compiled.kernels
    assert all(k.ready == compiles for k in compiled.kernels)
    for p, q in zip(models[1].parameters(), models[0].parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_identical_layers_share_one_kernel():
    model = nn.Sequential(*[nn.Sequential(nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 16),
                                          nn.ReLU()) for _ in range(3)])
    x = tl.from_numpy(_array((8, 16)))
    f = tl.compile(lambda x: (model(x) * 2.0 + 1.0).sigmoid())
    with tl.no_grad():
        f(x)
    names = [k.name for k in f.kernels]
    assert len(names) >= 3 and len(set(names)) < len(names)
    assert all(k.source == next(j for j in f.kernels if j.name == k.name).source
               for k in f.kernels)


def test_fusion_log_names_the_kernels_and_when_they_run(caplog):
    tl._logging.set_logs(fusion=True)
    try:
        with caplog.at_level(logging.INFO, logger="tinygrad_lite.compile"):
            a, b, c = (tl.from_numpy(_array((8, 8))) for _ in range(3))
            f = tl.compile(_chain)
            f(a, b, c)
            f.wait_for_kernels(timeout=120)
    finally:
        tl._logging.set_logs()
    text = caplog.text
    assert "1 loop kernels (1 distinct); compiling them now" in text
    assert "kernel0" in text and "np.clip" in text and "1 of 1 loop kernels compiled" in text
    caplog.clear()
    tl._logging.set_logs(fusion=True)
    try:
        with caplog.at_level(logging.INFO, logger="tinygrad_lite.compile"), \
                tl._dynamo.config.patch(kernels_in_background=True):
            g = tl.compile(lambda a, b: (a * b + 1.0) * a)
            g(a, b)
            g.wait_for_kernels(timeout=120)
            deadline = time.monotonic() + 60  # (the report comes from a watching thread)
            while "replays run them from now on" not in caplog.text and \
                    time.monotonic() < deadline:
                time.sleep(0.01)
    finally:
        tl._logging.set_logs()
    assert "run their NumPy ops until each is compiled in the background" in caplog.text
    assert "replays run them from now on" in caplog.text


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("opt_cls,kwargs,names", [
    (tl.optim.SGD, dict(lr=0.1, momentum=0.9), ["momentum_buffer("]),
    (tl.optim.Adam, dict(lr=0.1), ["exp_avg(", "exp_avg_sq(", "step("]),
])
def test_ir_names_optimizer_arenas_as_their_state(backend, opt_cls, kwargs, names):
    tl.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(),
                          nn.Linear(8, 2))
    opt = opt_cls(model.parameters(), **kwargs)
    x = tl.from_numpy(_array((5, 4)))
    y = tl.from_numpy(RNG.integers(0, 2, 5))
    with _kernels.use_backend(backend):
        step = tl.compile(train_step(model, opt))
        for _ in range(3):
            step(x, y)
    table = str(step.graph)
    for name in names:
        assert name in table, table
    arena = sum(p.numel() for p in model.parameters())
    assert f"const({arena},)" not in table


def test_writes_through_one_view_never_fuse_with_reads_of_another_view():
    """``a`` and ``b`` overlap, shifted by one column: eager doubles all of ``a`` before adding
    ``b``; a kernel going element by element would read some of ``b`` before its doubling."""

    def f(x):
        with tl.no_grad():
            a, b = x[:, 1:], x[:, :-1]
            a.mul_(2.0)
            a.add_(b)
            a.mul_(0.5)
            return (x * 3.0 + 1.0) * x

    base = _array((8, 16))
    x1, x2 = tl.from_numpy(base.copy()), tl.from_numpy(base.copy())
    compiled = tl.compile(f)
    compiled(x2)
    assert compiled.wait_for_kernels(timeout=120)
    # the in-place updates through ``a`` stay NumPy calls; only the chain after them fuses
    assert [k.ops for k in compiled.kernels] == [["np.multiply", "np.add", "np.multiply"]]
    x2 = tl.from_numpy(base.copy())
    expected = f(x1).numpy()
    np.testing.assert_array_equal(compiled(x2).numpy(), expected)
    np.testing.assert_array_equal(x2.numpy(), x1.numpy())
    assert compiled.replays == 1


class _Recurrent(nn.Module):
    """An LSTM, a GRU and a head on the last step."""

    def __init__(self, dtype):
        super().__init__()
        self.lstm, self.gru = nn.LSTM(6, 8), nn.GRU(8, 8)
        self.head = nn.Linear(8, 3)
        self.to(dtype)

    def forward(self, x):
        out, _ = self.lstm(x)
        out, _ = self.gru(out)
        return self.head(out[-1])


class _Pooled(nn.Module):
    """A convolution, max and average pooling and a head."""

    def __init__(self, dtype):
        super().__init__()
        self.conv, self.head = nn.Conv2d(2, 4, 3, padding=1), nn.Linear(4 * 2 * 2, 3)
        self.to(dtype)

    def forward(self, x):
        y = nn.functional.max_pool2d(self.conv(x).relu(), 3, 2, padding=1)
        return self.head(nn.functional.avg_pool2d(y, 2).flatten(1))


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
@pytest.mark.parametrize("build, shape, one_ops", [
    (_Recurrent, (7, 4, 6), {"_lstm_forward", "_lstm_backward", "_gru_forward",
                             "_gru_backward"}),
    (_Pooled, (4, 2, 8, 8), {"_max_forward", "_max_backward", "_avg_forward",
                             "_avg_backward"})], ids=["lstm-gru", "pooling"])
def test_recurrent_layers_and_pooling_are_one_op_each_in_a_compiled_step(
        monkeypatch, backend, dtype, build, shape, one_ops):
    # a whole layer's steps (or a pooling's kernel) are recorded as one op, which the replay
    # calls again: the same code on the replay's data, so compiled steps equal eager ones bit
    # for bit, on both backends
    from tinygrad_lite.ops import kernel_choice
    monkeypatch.setattr(kernel_choice, "MIN_ELEMENTS", 1)
    with _kernels.use_backend(backend):
        tl.manual_seed(3)
        models = [build(dtype) for _ in range(2)]
        models[1].load_state_dict(models[0].state_dict())
        opts = [tl.optim.Adam(m.parameters(), lr=1e-2) for m in models]
        eager, compiled = train_step(models[0], opts[0]), tl.compile(train_step(models[1],
                                                                                opts[1]))
        x = tl.from_numpy(_array(shape, np.float32 if dtype is tl.float32 else np.float64))
        y = tl.from_numpy(RNG.integers(0, 3, shape[1] if build is _Recurrent else shape[0]))
        for step in range(4):
            if step == 2:
                assert compiled.wait_for_kernels(timeout=120)
            np.testing.assert_array_equal(compiled(x, y).item(), eager(x, y).item())
        assert compiled.replays >= 2
        names = {getattr(getattr(op.target, "func", op.target), "__name__", "")
                 for op in compiled.graph.ops if op.kind == "call"}
        # (without the kernels, pooling is nn.functional's reference: NumPy calls)
        assert one_ops <= names if build is _Recurrent or backend == "numba" else \
            not one_ops & names
        for p, q in zip(models[1].parameters(), models[0].parameters()):
            np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
        if build is _Recurrent:  # twice the steps, the same recording: nothing per time step
            longer = tl.compile(train_step(models[1], opts[1]))
            longer(tl.from_numpy(_array((2 * shape[0],) + shape[1:], x.numpy().dtype)), y)
            assert len(longer.graph.ops) == len(compiled.graph.ops)
