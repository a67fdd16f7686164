"""tl.compile: traced once, replayed as straight-line NumPy. Compiled and eager training runs must
agree step for step (bit for bit where the op order is the same, with either kernel backend),
guards must retrace, graph breaks must fall back (or raise with fullgraph=True), and every pass
must keep results."""

import re
import warnings

import numpy as np
import pytest
from helpers import train_step

import tinygrad_lite as tl
import tinygrad_lite.nn as nn
import tinygrad_lite.nn.functional as F  # noqa: N812 - PyTorch's spelling
from tinygrad_lite import _kernels
from tinygrad_lite.compiler import GraphBreakError, passes
from tinygrad_lite.compiler.ir import Const, Graph, Op, Ref, Value

RNG = np.random.default_rng(0)


def _batches(shape, classes, n=4):
    xs = [tl.from_numpy(RNG.standard_normal(shape).astype(np.float32)) for _ in range(n)]
    ys = [tl.from_numpy(RNG.integers(0, classes, shape[0])) for _ in range(n)]
    return xs, ys


def _run_both(build, xs, ys, steps=100, exact=True, seed=0):
    """Train two identical copies, one eager and one compiled; compare everything."""
    tl.manual_seed(seed)
    m1, o1, loss_fn = build()
    tl.manual_seed(seed)
    m2, o2, _ = build()
    eager, compiled = train_step(m1, o1, loss_fn), tl.compile(train_step(m2, o2, loss_fn))
    tl.manual_seed(seed + 1)
    eager_losses = [eager(xs[i % len(xs)], ys[i % len(ys)]).item() for i in range(steps)]
    tl.manual_seed(seed + 1)
    compiled_losses = [compiled(xs[i % len(xs)], ys[i % len(ys)]).item() for i in range(steps)]
    check = np.testing.assert_array_equal if exact else (
        lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7))
    check(np.array(compiled_losses), np.array(eager_losses))
    for p1, p2 in zip(m1.parameters(), m2.parameters()):
        check(p2.detach().numpy(), p1.detach().numpy())
        check(p2.grad.numpy(), p1.grad.numpy())
    for b1, b2 in zip(m1.buffers(), m2.buffers()):
        check(b2.numpy(), b1.numpy())
    for s1, s2 in zip(o1.state.values(), o2.state.values()):
        assert s1.keys() == s2.keys()
        for key in s1:
            check(np.asarray(s2[key].numpy()), np.asarray(s1[key].numpy()))
    assert compiled.replays >= steps - 3, compiled.explanations
    return compiled


def _mlp(opt_cls, **opt_kwargs):
    def build():
        model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                              nn.Linear(128, 10))
        return model, opt_cls(model.parameters(), **opt_kwargs), F.cross_entropy
    return build


def test_toy_mlp_hinge_sgd_momentum_bit_identical():
    x = tl.from_numpy(RNG.standard_normal((200, 2)).astype(np.float32))
    y = tl.from_numpy(np.sign(RNG.standard_normal(200)).astype(np.float32))

    def build():
        model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                              nn.Linear(16, 1))
        return (model, tl.optim.SGD(model.parameters(), lr=0.01, momentum=0.9),
                lambda score, target: F.relu(1 - target * score.reshape(-1)).mean())

    compiled = _run_both(build, [x], [y])
    assert "np.matmul" in str(compiled.graph) and "def replay" in compiled.code


def test_mlp_sgd_momentum_and_adam_bit_identical():
    xs, ys = _batches((32, 784), 10)
    _run_both(_mlp(tl.optim.SGD, lr=0.01, momentum=0.9, nesterov=True), xs, ys)
    _run_both(_mlp(tl.optim.Adam, lr=1e-3), xs, ys)
    _run_both(_mlp(tl.optim.AdamW, lr=1e-3, weight_decay=0.1, amsgrad=True), xs, ys, steps=50)


def test_cnn_with_batchnorm_and_dropout_matches_eager():
    xs, ys = _batches((8, 1, 12, 12), 10, n=2)

    def build():
        model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Dropout(0.25), nn.Flatten(), nn.Linear(4 * 5 * 5, 10))
        return model, tl.optim.SGD(model.parameters(), lr=0.05, momentum=0.9), F.cross_entropy

    _run_both(build, xs, ys, steps=100)


class _CharLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(12, 8)
        self.lstm = nn.LSTM(8, 16, batch_first=True)
        self.head = nn.Linear(16, 12)

    def forward(self, tokens):
        out, _ = self.lstm(self.embed(tokens))
        return self.head(out).reshape(-1, 12)


def test_lstm_language_model_step_matches_eager():
    tokens = [tl.from_numpy(RNG.integers(0, 12, (4, 7))) for _ in range(2)]
    targets = [tl.from_numpy(RNG.integers(0, 12, 28)) for _ in range(2)]

    def build():
        model = _CharLSTM()
        return model, tl.optim.Adam(model.parameters(), lr=1e-2), F.cross_entropy

    _run_both(build, tokens, targets, steps=100)


def test_guards_retrace_on_batch_size_eval_mode_and_learning_rate():
    tl.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 3))
    opt = tl.optim.SGD(model.parameters(), lr=0.1)
    step = tl.compile(train_step(model, opt))
    y4, y6 = tl.tensor([0, 1, 2, 0]), tl.tensor([0, 1, 2, 0, 1, 2])
    for _ in range(3):
        step(tl.randn(4, 4), y4)
    traces = step.traces
    step(tl.randn(6, 4), y6)  # new batch size
    assert step.traces == traces + 1
    model.eval()
    step(tl.randn(4, 4), y4)
    assert step.traces == traces + 2
    model.train()
    before = [p.detach().numpy().copy() for p in model.parameters()]
    x = tl.randn(4, 4)
    opt.param_groups[0]["lr"] = 0.0  # a scheduler's change: read by the replay, no retrace
    step(x, y4)
    assert step.traces == traces + 2
    for p, old in zip(model.parameters(), before):
        np.testing.assert_array_equal(p.detach().numpy(), old)
    opt.param_groups[0]["weight_decay"] = 0.1  # guarded by value: a retrace
    step(x, y4)
    assert step.traces == traces + 3


def test_a_value_changed_every_step_ends_in_eager_with_a_warning_naming_it():
    runs = []
    for compiled in (False, True):
        tl.manual_seed(0)
        model = nn.Linear(4, 3)
        opt = tl.optim.RMSprop(model.parameters(), lr=1e-2)  # (its lr is guarded by value)
        sched = tl.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=50)
        step = train_step(model, opt)
        runs.append((tl.compile(step) if compiled else step, sched, model))
    x, y = tl.randn(8, 4), tl.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    with pytest.warns(UserWarning, match=r"guards failed on \d+ calls in a row.*'lr'"):
        for _ in range(12):
            losses = [step(x, y).item() for step, _, _ in runs]
            assert losses[0] == losses[1]
            for _, sched, _ in runs:
                sched.step()
    compiled = runs[1][0]
    assert compiled.traces <= 8  # then eager: no trace per call
    for p1, p2 in zip(runs[0][2].parameters(), runs[1][2].parameters()):
        np.testing.assert_array_equal(p1.detach().numpy(), p2.detach().numpy())


def test_a_compiled_function_is_not_state_of_another_trace():
    model = nn.Linear(3, 2)
    opt = tl.optim.SGD(model.parameters(), lr=0.1)
    namespace = {"model": model, "opt": opt, "tl": tl}
    # ``opt.step()`` names ``step``, the compiled function's own global: its growing cache of
    # traces must not be walked (each retrace walked all the earlier ones)
    exec("def step(x):\n    opt.zero_grad()\n    (model(x) ** 2).sum().backward()\n"
         "    opt.step()\n", namespace)
    namespace["step"] = tl.compile(namespace["step"])
    sizes = []
    for k in range(6):
        opt.param_groups[0]["lr"] = 0.1 / (k + 1)  # a retrace per call
        namespace["step"](tl.ones(2, 3))
        sizes += [len(e.walk.checks) for e in namespace["step"].entries[:1] if e.walk]
    assert len(sizes) >= 4 and len(set(sizes)) == 1, sizes


def test_inference_function_compiles_and_returns_fresh_tensors():
    tl.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 7), nn.GELU(), nn.LayerNorm(7), nn.Linear(7, 2)).eval()

    @tl.compile
    def predict(x):
        with tl.no_grad():
            return F.softmax(model(x), dim=-1)

    x = tl.randn(3, 5)
    first, second, third = predict(x), predict(x), predict(x)
    with tl.no_grad():
        want = F.softmax(model(x), dim=-1).numpy()
    for got in (first, second, third):
        np.testing.assert_array_equal(got.numpy(), want)
    assert predict.replays == 2 and second is not third
    assert not np.shares_memory(second.numpy(), third.numpy())


def test_compiled_module_in_eval_mode_and_training_falls_back():
    tl.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    compiled = tl.compile(model)
    assert isinstance(compiled, nn.Module) and compiled._orig_mod is model
    x = tl.randn(5, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch's usual training use: no warning
        out = compiled(x)  # training: the output needs autograd after the call
    assert "backward runs outside" in compiled._compiled.explanations[-1]
    out.sum().backward()
    assert model[0].weight.grad is not None
    with tl.no_grad():
        want = model(x).numpy()
        for _ in range(3):
            np.testing.assert_array_equal(compiled(x).numpy(), want)
    assert compiled._compiled.replays == 2


def test_random_ops_draw_fresh_numbers_like_eager():
    def noisy(x):
        return F.dropout(x, 0.5, training=True) + tl.randn(x.shape)

    compiled = tl.compile(noisy)
    x = tl.ones(4, 6)
    tl.manual_seed(3)
    eager = [noisy(x).numpy() for _ in range(4)]
    tl.manual_seed(3)
    got = [compiled(x).numpy() for _ in range(4)]
    for a, b in zip(got, eager):
        np.testing.assert_array_equal(a, b)
    assert compiled.replays == 3
    assert not np.array_equal(got[2], got[3])


def test_graph_breaks_fall_back_with_a_warning_or_raise_with_fullgraph():
    def logs(x):
        y = (x * 2).sum()
        if y.item() > 0:  # data-dependent Python control flow
            return y
        return -y

    compiled = tl.compile(logs)
    with pytest.warns(UserWarning, match=r"Tensor.item\(\) at test_compile.py"):
        assert compiled(tl.ones(3)).item() == 6.0
    assert compiled(-tl.ones(3)).item() == 6.0  # eager from now on, still right
    assert compiled.replays == 0
    with pytest.raises(GraphBreakError, match=r"Tensor.item\(\)"):
        tl.compile(logs, fullgraph=True)(tl.ones(3))

    def hooked(x):
        return x * 3

    t = tl.ones(2, requires_grad=True)
    t.register_hook(lambda g: g)
    with pytest.warns(UserWarning, match="hooks"):
        tl.compile(lambda x: hooked(t) * x)(tl.ones(2))


def test_module_hooks_registered_after_compiling_still_run():
    model = nn.Linear(3, 2)
    step = tl.compile(train_step(model, tl.optim.SGD(model.parameters(), lr=0.1),
                                 lambda out, y: (out * y).sum()))
    x, y = tl.ones(4, 3), tl.ones(4, 2)
    for _ in range(3):
        step(x, y)
    assert step.replays >= 1
    seen = []
    model.register_full_backward_hook(lambda mod, gin, gout: seen.append(gout[0].shape))
    model.register_forward_hook(lambda mod, inp, out: seen.append("forward"))
    with pytest.warns(UserWarning, match="hooks"):
        step(x, y)
    assert seen == ["forward", (4, 2)]  # the guard saw the hooks: the call ran eagerly

def test_numpy_random_inside_the_function_is_a_graph_break():
    def noisy(x):
        return x + tl.from_numpy(np.random.rand(3).astype(np.float32))

    with pytest.warns(UserWarning, match="np.random.rand"):
        compiled = tl.compile(noisy)
        outs = [compiled(tl.zeros(3)).numpy() for _ in range(3)]
    assert not np.array_equal(outs[1], outs[2])  # eager: fresh numbers every call


def test_data_dependent_check_in_the_replay_retraces():
    def pick(logits, target):
        return F.cross_entropy(logits, target)  # validates the class indices

    compiled = tl.compile(pick)
    logits = tl.randn(3, 4)
    for _ in range(3):
        compiled(logits, tl.tensor([0, 1, 3]))
    with pytest.raises(IndexError):
        compiled(logits, tl.tensor([0, 1, 7]))  # the check fails: eager gives the error


def _bn_then_pool_pair():
    """(eager model, compiled step, eager step): batch norm (its running statistics change in
    the forward) and then max pooling, whose NaN test is a check in the replay."""
    def make():
        tl.manual_seed(0)
        return nn.Sequential(nn.BatchNorm2d(2), nn.MaxPool2d(2))

    eager_model, compiled_model = make(), make()

    def step(model, x):
        out = model(x)
        out.sum().backward()
        return out

    return eager_model, compiled_model, tl.compile(lambda x: step(compiled_model, x)), \
        (lambda x: step(eager_model, x))


def test_a_check_failing_after_state_changed_puts_the_state_back_and_runs_eagerly():
    eager_model, compiled_model, compiled, eager = _bn_then_pool_pair()
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((2, 2, 4, 4)).astype(np.float32) for _ in range(5)]
    inputs[3][0, 1, 2, 3] = np.nan  # the replay's "no NaN window" check fails after the update
    for data in inputs:
        got = compiled(tl.tensor(data))
        want = eager(tl.tensor(data))
        np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
        for name in ("running_mean", "running_var"):
            # updated once per call, not twice (the failed replay's update is undone)
            np.testing.assert_array_equal(getattr(compiled_model[0], name).numpy(),
                                          getattr(eager_model[0], name).numpy())
        assert int(compiled_model[0].num_batches_tracked) == \
            int(eager_model[0].num_batches_tracked)
    assert compiled.replays >= 1
    assert "np.copyto" in compiled.code  # the restore before the check


def test_convolution_replay_checks_finite_values_instead_of_computing_both_rules():
    tl.manual_seed(0)
    conv = nn.Conv2d(2, 3, 3, padding=1)
    norm = nn.BatchNorm2d(2)

    def step(x):
        conv.zero_grad()
        loss = conv(norm(x)).square().mean()
        loss.backward()
        return loss

    compiled = tl.compile(step)
    x = tl.randn(2, 2, 5, 5)
    for _ in range(3):
        compiled(x)
    # the im2col rule (for non-finite data) is not in the replay: only its checks are
    assert compiled.code.count("np_isfinite") >= 1
    assert "np_where" not in compiled.code
    bad = x.detach().numpy().copy()
    bad[0, 0, 0, 0] = np.inf  # the replay's check fails; the eager rule gives PyTorch's values
    mean_before = norm.running_mean.numpy().copy()
    compiled(tl.tensor(bad))
    assert not np.array_equal(norm.running_mean.numpy(), mean_before)
    tl.manual_seed(0)
    conv2, norm2 = nn.Conv2d(2, 3, 3, padding=1), nn.BatchNorm2d(2)
    for data in [x] * 3 + [tl.tensor(bad)]:
        conv2.zero_grad()
        conv2(norm2(data)).square().mean().backward()
    np.testing.assert_array_equal(norm.running_mean.numpy(), norm2.running_mean.numpy())
    np.testing.assert_array_equal(conv.weight.grad.numpy(), conv2.weight.grad.numpy())


def test_embedding_gradient_with_many_repeats_is_replayed_bit_for_bit():
    """The embedding's scatter-add picks its passes by the data (a reduceat for rows repeated
    16 times or more): the replay calls the same kernel, so it gives the eager bits."""
    def build():
        tl.manual_seed(0)
        model = nn.Sequential(nn.Embedding(5, 8), nn.Flatten(), nn.Linear(8 * 40, 3))
        return model, tl.optim.AdamW(model.parameters(), lr=1e-2)

    tokens = tl.randint(0, 5, (6, 40))  # 240 lookups of 5 rows
    target = tl.tensor([0, 1, 2, 0, 1, 2])
    (m1, o1), (m2, o2) = build(), build()
    compiled = tl.compile(train_step(m2, o2))
    eager = train_step(m1, o1)
    for _ in range(4):
        assert compiled(tokens, target).item() == eager(tokens, target).item()
    assert compiled.replays >= 2 and "_segment_sum" in compiled.code
    for p1, p2 in zip(m1.parameters(), m2.parameters()):
        np.testing.assert_array_equal(p2.detach().numpy(), p1.detach().numpy())


def test_python_state_changes_run_eagerly():
    counter = {"n": 0}

    def step(x):
        counter["n"] += 1
        return x + 1

    compiled = tl.compile(step)
    with pytest.warns(UserWarning, match="changes Python state"):
        for _ in range(4):
            compiled(tl.ones(2))
    assert counter["n"] == 4


def test_decorator_forms_and_options():
    @tl.compile(mode="max-autotune")
    def double(a):
        return a * 2

    np.testing.assert_array_equal(double(tl.ones(2)).numpy(), [2.0, 2.0])
    assert tl.compile(double, disable=True) is double
    with pytest.raises(RuntimeError, match="both"):
        tl.compile(nn.Linear(1, 1), mode="default", options={"a": 1})
    with pytest.raises(RuntimeError, match="callable"):
        tl.compile(3)
    assert not tl.compiler.is_compiling()


def test_the_graph_prints_and_draws():
    compiled = tl.compile(lambda a, b: (a @ b).relu().sum())
    a, b = tl.randn(3, 4), tl.randn(4, 2)
    compiled(a, b)
    table = str(compiled.graph)
    assert "np.matmul" in table and "(3, 2) float32" in table and "test_compile.py" in table
    dot = compiled.graph.to_dot()
    assert dot.startswith("digraph") and "np.matmul" in dot


def _graph(ops_spec):
    """A tiny graph: value 0 is an input (4,) float64; ops given as (target, args, outputs)."""
    g = Graph()
    g.values[0] = Value(0, (4,), np.dtype(np.float64), "input", "x")
    g.inputs = [0]
    for target, args, outs in ops_spec:
        for o in outs:
            g.values[o] = Value(o, (4,), np.dtype(np.float64), "op")
        g.ops.append(Op("call", target, args, {}, list(outs)))
    return g


def test_passes_each_keep_results():
    g = _graph([(np.exp, (Ref(0),), [1]), (np.exp, (Ref(0),), [2]),
                (np.add, (Ref(1), Ref(2)), [3]), (np.sin, (Ref(0),), [4])])
    g.outputs = ("T", Ref(3))
    passes.eliminate_common_subexpressions(g)
    assert [op.target for op in g.ops].count(np.exp) == 1
    passes.eliminate_dead_code(g)
    assert np.sin not in [op.target for op in g.ops]
    buffers = passes.plan_memory(g)
    assert len(buffers) == 1  # exp's result is pooled; the returned sum gets its own array

    folded = _graph([(np.arange, (4.0,), [1]), (np.multiply, (Ref(1), Ref(0)), [2])])
    folded.ops[0] = Op("call", np.arange, (4.0,), {}, [1])
    folded.outputs = ("T", Ref(2))
    passes.fold_constants(folded)
    assert len(folded.ops) == 1 and folded.ops[0].target is np.multiply

    # a buffer filled with a value that only the first round makes constant: the second round
    # folds the buffer and its fill (the seed of a backward, say)
    filled = _graph([(np.empty, ((4,),), [1]), (np.multiply, (2.0, 3.0), [2])])
    filled.values[2] = Value(2, (), np.dtype(np.float64), "op")
    filled.ops += [Op("setitem", None, (Ref(1), Ellipsis, Ref(2)), {}, [], [1]),
                   Op("call", np.add, (Ref(0), Ref(1)), {}, [3])]
    filled.values[3] = Value(3, (4,), np.dtype(np.float64), "op")
    filled.outputs = ("T", Ref(3))
    passes.fold_constants(filled)
    assert [op.target for op in filled.ops] == [np.add]
    np.testing.assert_array_equal(filled.ops[0].args[1].obj, np.full(4, 6.0))


def test_selects_between_constant_ones_and_zeros_become_casts():
    def select(ones, zeros, mask_shape=(4,)):
        g = _graph([])
        g.values[1] = Value(1, mask_shape, np.dtype(np.bool_), "op")
        g.values[2] = Value(2, (4,), np.dtype(np.float32), "op")
        g.ops = [Op("call", np.greater, (Ref(0), 0.0), {}, [1]),
                 Op("call", np.where, (Ref(1), Const(ones), Const(zeros)), {}, [2])]
        g.outputs = ("T", Ref(2))
        return passes.simplify_selects(g).ops[1]

    cast = select(np.ones(4, np.float32), np.zeros((), np.float32))
    assert (cast.kind, cast.target, cast.args[1]) == ("method", "astype", np.float32)
    x = np.array([-1.0, 0.0, 2.0, np.nan])
    np.testing.assert_array_equal((x > 0).astype(np.float32),
                                  np.where(x > 0, np.ones(4, np.float32), np.float32(0)))
    # anything else stays a select: other values, a negative zero, a mask that broadcasts
    assert select(np.full(4, 2.0, np.float32), np.float32(0)).target is np.where
    assert select(np.ones(4, np.float32), np.float32(-0.0)).target is np.where
    assert select(np.ones(4, np.float32), np.float32(0), mask_shape=(1,)).target is np.where


def test_checks_move_before_unrelated_side_effects():
    g = _graph([])
    for vid, shape in ((1, (4,)), (2, ()), (3, (4,))):
        g.values[vid] = Value(vid, shape, np.dtype(np.float64), "op")
    g.values[9] = Value(9, (4,), np.dtype(np.float64), "state", "buffer")
    g.inputs = [0, 9]
    update = Op("call", np.add, (Ref(9), 1.0), {"out": (Ref(9),)}, [], [9])
    test = Op("method", "any", (Ref(0),), {}, [2])
    check = Op("check", "bool", (Ref(2),), {}, [], expected=False)
    g.ops = [update, Op("call", np.exp, (Ref(0),), {}, [3]), test, check]
    passes.hoist_checks(g)
    assert g.ops.index(check) < g.ops.index(update)  # the state update now follows the check
    assert g.ops.index(test) < g.ops.index(check)


def test_identity_reshapes_are_dropped():
    g = _graph([])
    g.values[1] = Value(1, (4,), np.dtype(np.float64), "op", view_of=0)
    g.values[2] = Value(2, (4,), np.dtype(np.float64), "op")
    g.ops = [Op("method", "reshape", (Ref(0), -1), {}, [1]), Op("call", np.exp, (Ref(1),), {}, [2])]
    g.outputs = ("T", Ref(2))
    passes.eliminate_identity_views(g)
    assert len(g.ops) == 1 and g.ops[0].args == (Ref(0),)


def test_compiled_step_peak_memory_is_not_above_eager():
    import tracemalloc

    # batch 256: the ReLUs (256 x 256) take the row kernel, whose output is an np.empty the
    # replay must place in a planned buffer too
    xs, ys = _batches((256, 784), 10, n=1)
    peaks = []
    for compiled in (False, True):
        tl.manual_seed(0)
        model, opt, loss_fn = _mlp(tl.optim.SGD, lr=0.01, momentum=0.9)()
        step = train_step(model, opt, loss_fn)
        step = tl.compile(step) if compiled else step
        for _ in range(3):
            step(xs[0], ys[0])
        tracemalloc.start()
        for _ in range(3):
            step(xs[0], ys[0])
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] <= peaks[0] * 1.02, peaks


@pytest.fixture
def numpy_backend():
    """The NumPy kernel backend: the replay is the straight-line NumPy these tests read (numba's
    loop kernels would fuse the calls they look for)."""
    with _kernels.use_backend("numpy"):
        yield


def test_replay_allocates_planned_buffers_once(numpy_backend):
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))

    @tl.compile
    def infer(x):
        with tl.no_grad():
            return model(x).relu()

    x = tl.randn(8, 16)
    infer(x)
    assert "out=b" in infer.code  # temporaries go into preallocated buffers
    wide = tl.compile(lambda a: (a * 2).relu().sum())  # ReLU's rows fill an np.empty buffer
    a = tl.randn(64, 1024)
    for _ in range(2):
        assert wide(a).item() == (a * 2).relu().sum().item()
    assert re.search(r"v\d+ = b\d+ ", wide.code) and "np_empty" not in wide.code


def test_single_outputs_are_passed_positionally_except_where_numpy_deprecates_it(
        numpy_backend):
    a = tl.randn(4, 4, requires_grad=True)
    b = tl.randn(4, 4)

    @tl.compile
    def step():
        a.grad = None
        out = tl.minimum((a * b + 1).relu(), b + 2).sum()
        out.backward()
        with tl.no_grad():
            a.add_(a.grad, alpha=-0.1)
        return out

    expected = [step().item() for _ in range(2)]  # traced, then replayed
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy 2.4 warns for positional out of maximum/minimum
        replayed = step().item()
    code = step.code
    assert re.search(r"np_multiply_\d+\(v\d+, v\d+, b\d+\)", code)  # positional
    assert re.search(r"np_maximum_\d+\([^)]*out=", code)  # keyword
    assert re.search(r"np_minimum_\d+\([^)]*out=", code)
    assert step.replays == 1 and np.isfinite(replayed) and replayed != expected[1]


def test_a_compiled_function_called_inside_another_is_inlined():
    inner = tl.compile(lambda a: a.exp() * 2)
    outer = tl.compile(lambda a: inner(a) + 1)
    x = tl.randn(4)
    want = (x.exp() * 2 + 1).numpy()
    for _ in range(3):
        np.testing.assert_array_equal(outer(x).numpy(), want)
    assert outer.replays == 2 and inner.traces == 0


class _TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 16)
        self.pos = nn.Parameter(tl.randn(8, 16) * 0.02)
        self.block = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, batch_first=True,
                                                activation="gelu", norm_first=True)
        self.head = nn.Linear(16, 10)

    def forward(self, tokens):
        mask = nn.Transformer.generate_square_subsequent_mask(8)
        return self.head(self.block(self.embed(tokens) + self.pos, src_mask=mask,
                                    is_causal=True)).reshape(-1, 10)


class _TinyGRU(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 8)
        self.rnn = nn.GRU(8, 12, num_layers=2, batch_first=True)
        self.head = nn.Linear(12, 10)

    def forward(self, tokens):
        return self.head(self.rnn(self.embed(tokens))[0]).reshape(-1, 10)


class _AttentionNet(nn.Module):
    """Causal attention through F.scaled_dot_product_attention (one primitive), then ReLU, max
    pooling over the sequence and log_softmax: the primitives' replays against eager."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 16)
        self.norm = nn.LayerNorm(16)
        self.qkv = nn.Linear(16, 48)
        self.head = nn.Linear(16, 10)

    def forward(self, tokens):
        b, t = tokens.shape
        q, k, v = self.qkv(self.norm(self.embed(tokens))).split(16, dim=-1)
        q, k, v = (z.view(b, t, 2, 8).transpose(1, 2) for z in (q, k, v))
        h = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2)
        h = F.max_pool1d(h.reshape(b, t, 16).relu().transpose(1, 2), 2).transpose(1, 2)
        return F.log_softmax(self.head(h), -1).reshape(-1, 10)


def _resnetish():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.Conv2d(8, 8, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(8),
                         nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10))


def _gelu_mlp():
    return nn.Sequential(nn.Linear(6, 32), nn.GELU(), nn.LayerNorm(32), nn.Dropout(0.2),
                         nn.Linear(32, 10))


@pytest.mark.parametrize("build,opt_cls,shape", [
    (_TinyGPT, tl.optim.AdamW, (4, 8)),
    (_AttentionNet, tl.optim.Adam, (4, 8)),
    (_TinyGRU, tl.optim.Adam, (3, 5)),
    (_resnetish, tl.optim.SGD, (4, 3, 16, 16)),
    (_gelu_mlp, tl.optim.RMSprop, (16, 6)),
    (_gelu_mlp, tl.optim.Adagrad, (16, 6)),
], ids=["gpt-adamw", "attention-adam", "gru-adam", "resnet-sgd", "mlp-rmsprop", "mlp-adagrad"])
def test_more_models_and_optimizers_match_eager(build, opt_cls, shape):
    if len(shape) == 2 and build is not _gelu_mlp:
        x = tl.from_numpy(RNG.integers(0, 10, shape))
        rows = shape[0] * shape[1] // (2 if build is _AttentionNet else 1)  # (pooled in pairs)
        y = tl.from_numpy(RNG.integers(0, 10, rows))
    else:
        x = tl.from_numpy(RNG.standard_normal(shape).astype(np.float32))
        y = tl.from_numpy(RNG.integers(0, 10, shape[0]))

    def make():
        model = build()
        return model, opt_cls(model.parameters(), lr=1e-3), F.cross_entropy

    _run_both(make, [x], [y], steps=8)


def test_explain_mode_says_why_it_retraces(capsys):
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.1))
    opt = tl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    def step(x):
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()

    compiled = tl.compile(step, mode="explain")
    for _ in range(3):
        compiled(tl.ones(1, 2))
    opt.param_groups[0]["lr"] = 0.05  # read on every call (momentum too): no retrace
    compiled(tl.ones(1, 2))
    opt.param_groups[0]["dampening"] = 0.5
    compiled(tl.ones(1, 2))
    model.eval()
    compiled(tl.ones(1, 2))
    compiled(tl.ones(3, 2))
    out = capsys.readouterr().out
    assert "lr" not in out
    assert "guard failed: opt.param_groups.0['dampening'] == 0" in out
    assert "guard failed: model.training is True" in out
    assert "a new signature" in out


def test_a_call_that_changes_python_state_is_traced_again_and_named():
    model = nn.Linear(2, 2)
    opt = tl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    calls = {"n": 0}

    def step(x):
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()  # the first call creates the momentum buffers: traced again

    compiled = tl.compile(step, mode="explain")
    for _ in range(3):
        compiled(tl.ones(1, 2))
    assert any("call changed Python state (not opt.state)" in e for e in compiled.explanations)
    assert compiled.replays == 1 and compiled.traces == 2

    def counting(x):
        calls["n"] += 1  # every call changes what the guard reads: runs eagerly, says why
        return (x * calls["n"]).sum()

    counted = tl.compile(counting)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = [counted(tl.ones(2)).item() for _ in range(6)]
    assert results == [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]
    # traced twice, then eager for good: one warning, no trace per call
    assert len(caught) == 1
    assert str(caught[0].message).endswith(
        "counting runs eagerly: every call changes Python state (calls['n'] == 1)")
    assert counted.traces == 2 and counted.replays == 0


def test_arguments_mutated_in_place_and_returned_are_the_calls_own():
    @tl.compile
    def bump(x, idx):
        x.add_(1)
        picked = x[idx] * 2
        return x, tl.where(picked > 2, picked, tl.zeros_like(picked))

    base = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    for _ in range(4):
        x = tl.from_numpy(base.copy())
        same, picked = bump(x, tl.tensor([2, 0]))
        assert same is x
        np.testing.assert_array_equal(x.numpy(), base + 1)
        want = (base + 1)[[2, 0]] * 2
        np.testing.assert_array_equal(picked.numpy(), np.where(want > 2, want, 0))
    assert bump.replays == 3

    @tl.compile
    def grad_of(w, x):
        w.grad = None
        (w * x).sum().backward()
        return w.grad

    for _ in range(3):
        w, x = tl.randn(3, requires_grad=True), tl.randn(3)
        g = grad_of(w, x)
        assert g is w.grad
        np.testing.assert_array_equal(g.numpy(), x.numpy())
    assert grad_of.replays == 2


def test_state_behind_decorators_and_partials_is_guarded():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))

    @tl.no_grad()
    def infer(x, scale):
        return model(x) * scale

    import functools

    compiled = tl.compile(functools.partial(infer, scale=2.0))
    x = tl.ones(3, 4)
    model.eval()
    want = (model(x) * 2.0).detach().numpy()
    for _ in range(3):
        np.testing.assert_array_equal(compiled(x).numpy(), want)
    model.train()  # dropout comes back: the guard on model.training must see it
    tl.manual_seed(5)
    got = compiled(x).numpy()
    tl.manual_seed(5)
    np.testing.assert_array_equal(got, (model(x) * 2.0).detach().numpy())


def test_state_in_a_user_module_reached_by_attribute_is_guarded(tmp_path, monkeypatch):
    (tmp_path / "my_models.py").write_text(
        "import tinygrad_lite as tl\n"
        "net = tl.nn.Sequential(tl.nn.Linear(3, 3), tl.nn.Dropout(0.5))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import my_models

    @tl.compile
    def infer(x):
        with tl.no_grad():
            return my_models.net(x) * 2

    x = tl.ones(2, 3)
    my_models.net.eval()
    for _ in range(3):
        infer(x)
    my_models.net.train()
    tl.manual_seed(0)
    got = infer(x).numpy()
    tl.manual_seed(0)
    with tl.no_grad():
        np.testing.assert_array_equal(got, (my_models.net(x) * 2).numpy())


def test_arrays_held_in_lists_and_tuples_of_the_functions_state():
    """NumPy arrays the function reaches through a list (read and updated in place) are traced
    state like a tensor's data; a tuple's arrays are read. Replays match eager runs."""
    def build():
        scale = [np.full(3, 2.0, np.float32)]  # read and updated in place by the step
        offsets = (np.full(3, 0.5, np.float32),)  # only read
        weight = tl.ones(3, requires_grad=True)

        def step(x):
            loss = ((x * weight) * tl.from_numpy(scale[0]) + tl.from_numpy(offsets[0])).sum()
            loss.backward()
            scale[0] += 1.0
            return loss
        return step, scale, weight

    eager_step, eager_scale, eager_weight = build()
    compiled_fn, compiled_scale, compiled_weight = build()
    compiled = tl.compile(compiled_fn)
    x = tl.tensor([1.0, 2.0, 3.0])
    for _ in range(4):
        np.testing.assert_allclose(compiled(x).item(), eager_step(x).item())
    assert compiled.replays >= 1
    np.testing.assert_array_equal(compiled_scale[0], eager_scale[0])
    np.testing.assert_allclose(compiled_weight.grad.numpy(), eager_weight.grad.numpy())


def test_integer_and_tensor_index_reads_and_writes_replay_like_eager():
    """x[1, :, t] reads and writes (PyTorch's integer-first order: a view, then an advanced
    index) in a compiled training step give eager's losses and weights bit for bit."""
    def build():
        w = tl.tensor(np.random.default_rng(0).standard_normal((3, 5, 4)), requires_grad=True)
        idx = tl.tensor([0, 2, 3])
        opt = tl.optim.SGD([w], lr=0.01)

        def step(x):
            opt.zero_grad()
            y = w * x
            picked = y[1, :, idx]
            u = y.clone()
            u[0, :, idx] = picked * 2.0
            loss = (u ** 2).sum() + picked.sum()
            loss.backward()
            opt.step()
            return loss
        return step, w

    eager_step, eager_w = build()
    compiled_fn, compiled_w = build()
    compiled = tl.compile(compiled_fn)
    x = tl.tensor(np.linspace(0.5, 1.5, 4))
    for _ in range(5):
        assert compiled(x).item() == eager_step(x).item()
    assert compiled.replays >= 3
    np.testing.assert_array_equal(compiled_w.detach().numpy(), eager_w.detach().numpy())


def test_state_held_in_default_arguments_is_followed_and_guarded():
    def make():
        tl.manual_seed(0)
        model = nn.Linear(3, 2)
        opt = tl.optim.SGD(model.parameters(), lr=0.1)

        def step(x, model=model, opt=opt, *, scale=1.0):
            opt.zero_grad()
            loss = (model(x) ** 2).sum() * scale
            loss.backward()
            opt.step()
            return loss
        return step, opt

    (eager, eager_opt), (plain, opt) = make(), make()
    compiled = tl.compile(plain)
    x = tl.ones(4, 3)
    for k in range(8):
        if k == 4:  # read through the default: the guard sees the change and retraces
            opt.param_groups[0]["weight_decay"] = eager_opt.param_groups[0]["weight_decay"] = 0.1
        assert compiled(x).item() == eager(x).item()
        if k == 3:
            assert compiled.replays >= 2 and compiled.traces == 2, compiled.explanations
    assert compiled.replays >= 4 and compiled.traces >= 3, compiled.explanations


@pytest.mark.parametrize("axes", [(2, 1, 0), (1, 0, 2), (0, 2, 1)])
def test_transposed_intermediates_keep_their_layout_in_the_replay(axes):
    """A ufunc lays out its result like its (permuted) input and a reduction's rounding
    follows that order: neither the tracing call nor the replay may change that layout (into
    C-ordered copies or buffers)."""
    data = RNG.standard_normal((4, 3, 5)).astype(np.float32)
    runs = []
    for compiled in (False, True):
        p = nn.Parameter(tl.from_numpy(data.copy()))
        opt = tl.optim.Adam([p], lr=1e-2)

        def step(p=p, opt=opt, axes=axes):
            opt.zero_grad()
            y = (p * p).relu().permute(*axes) * 1.5
            loss = (y.exp() * y).mean()
            loss.backward()
            opt.step()
            return loss
        f = tl.compile(step) if compiled else step
        runs.append(([f().item() for _ in range(6)], p, f))
    assert runs[1][2].replays >= 3
    assert runs[0][0] == runs[1][0]
    np.testing.assert_array_equal(runs[0][1].detach().numpy(), runs[1][1].detach().numpy())


@pytest.mark.parametrize("opt_cls,kwargs", [
    (tl.optim.SGD, dict(lr=0.1)),
    (tl.optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3)),
    (tl.optim.Adam, dict(lr=1e-2, amsgrad=True)),
    (tl.optim.AdamW, dict(lr=1e-2, weight_decay=0.1)),
    (tl.optim.SGD, dict(lr=0.1, momentum=0.9)),  # with OneCycle cycling SGD's momentum too
], ids=["sgd", "nesterov-wd", "adam-amsgrad", "adamw", "sgd-momentum-cycled"])
def test_a_scheduler_changing_the_learning_rate_every_step_needs_no_retrace(opt_cls, kwargs):
    runs = []
    for compiled in (False, True):
        tl.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
        opt = opt_cls(model.parameters(), **kwargs)
        sched = tl.optim.lr_scheduler.OneCycleLR(opt, max_lr=kwargs["lr"] * 3, total_steps=20,
                                                 cycle_momentum="momentum" in kwargs
                                                 and not kwargs.get("nesterov"))
        step = train_step(model, opt)
        runs.append((tl.compile(step) if compiled else step, sched, model, opt))
    x, y = tl.randn(8, 4), tl.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    for _ in range(15):
        losses = [step(x, y).item() for step, _, _, _ in runs]
        assert losses[0] == losses[1]
        for _, sched, _, _ in runs:
            sched.step()
    compiled = runs[1][0]
    assert compiled.traces <= 3 and compiled.replays >= 12, compiled.explanations
    assert type(runs[1][3].param_groups[0]["lr"]) is float  # the group holds a float again
    for p1, p2 in zip(runs[0][2].parameters(), runs[1][2].parameters()):
        np.testing.assert_array_equal(p1.detach().numpy(), p2.detach().numpy())


def test_a_learning_rate_read_or_set_inside_the_function_stays_a_python_float():
    model = nn.Linear(3, 2)
    opt = tl.optim.SGD(model.parameters(), lr=0.1)
    sched = tl.optim.lr_scheduler.StepLR(opt, 2, 0.5)

    def reads(x):
        opt.zero_grad()
        (model(x) ** 2).sum().backward()
        opt.step()
        return opt.param_groups[0]["lr"]

    def steps_the_scheduler(x):
        reads(x)
        sched.step()

    with pytest.warns(UserWarning):
        for fn in (tl.compile(reads), tl.compile(steps_the_scheduler)):
            for _ in range(4):
                out = fn(tl.ones(2, 3))
                assert out is None or type(out) is float
                assert type(opt.param_groups[0]["lr"]) is float


# -- random training programs: compiled against eager ---------------------------------------

_LAYERS = [
    lambda rng, f: (nn.Linear(f, g := int(rng.integers(2, 9))), g),
    lambda rng, f: (nn.ReLU(), f),
    lambda rng, f: (nn.Tanh(), f),
    lambda rng, f: (nn.Sigmoid(), f),
    lambda rng, f: (nn.GELU(), f),
    lambda rng, f: (nn.SiLU(), f),
    lambda rng, f: (nn.LeakyReLU(0.1), f),
    lambda rng, f: (nn.LayerNorm(f), f),
    lambda rng, f: (nn.Softmax(dim=-1), f),
    lambda rng, f: (nn.Dropout(0.25), f),
    lambda rng, f: (nn.BatchNorm1d(f), f),
]
_LOSSES = [
    lambda out, y: F.cross_entropy(out, y),
    lambda out, y: F.mse_loss(out, F.one_hot(y, out.shape[1]).float()),
    lambda out, y: (out * out).mean() + out.abs().sum() * 0.01,
    lambda out, y: F.smooth_l1_loss(out, out.detach() * 0.5),
    lambda out, y: out.logsumexp(dim=1).mean() - out.max(dim=1).values.mean(),
]
_OPTIMIZERS = [
    (tl.optim.SGD, {"lr": 0.05}),
    (tl.optim.SGD, {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-3}),
    (tl.optim.Adam, {"lr": 1e-2}),
    (tl.optim.AdamW, {"lr": 1e-2, "amsgrad": True}),
    (tl.optim.RMSprop, {"lr": 1e-3, "momentum": 0.5}),
    (tl.optim.Adagrad, {"lr": 0.1}),
]


@pytest.mark.parametrize("seed", range(100))
def test_random_training_programs_replay_bit_for_bit(seed):
    """2-5 random layers, a random loss and optimizer: 8 compiled steps equal 8 eager ones to
    the last bit (losses, parameters, gradients, buffers, optimizer state)."""
    rng = np.random.default_rng(1000 + seed)
    features = int(rng.integers(2, 7))
    picks = [int(rng.integers(len(_LAYERS))) for _ in range(int(rng.integers(2, 6)))]
    loss_fn = _LOSSES[int(rng.integers(len(_LOSSES)))]
    opt_cls, opt_kwargs = _OPTIMIZERS[int(rng.integers(len(_OPTIMIZERS)))]

    def build():
        layers, width = [], features
        layer_rng = np.random.default_rng(seed)
        for pick in picks:
            layer, width = _LAYERS[pick](layer_rng, width)
            layers.append(layer)
        layers.append(nn.Linear(width, 3))  # three classes for the class-index losses
        model = nn.Sequential(*layers)
        return model, opt_cls(model.parameters(), **opt_kwargs), loss_fn

    xs, ys = _batches((6, features), 3, n=3)
    _run_both(build, xs, ys, steps=8, seed=seed)
