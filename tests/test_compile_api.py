"""The names around ``tl.compile`` that PyTorch programs use: ``tl._logging.set_logs`` (and
``TORCH_LOGS``), ``tl._dynamo`` (config, reset, explain, graph_break, the shape hints, optimize)
and the rest of ``tl.compiler``."""

import logging
import math
import subprocess
import sys

import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn as nn
from tinygrad_lite import _kernels
from tinygrad_lite.compiler import logs


@pytest.fixture(autouse=True)
def _quiet_afterwards():
    yield
    tl._logging.set_logs()  # every report off again
    tl._dynamo.config.cache_size_limit = 8


def _doubled_sum(x):
    return (x * 2).sum()


def test_set_logs_reports_recompiles_graph_breaks_guards_and_code(caplog):
    tl._logging.set_logs(recompiles=True, graph_breaks=True, guards=True, output_code=True,
                         graph_code=True, inductor=True)  # (a switch with nothing to report)
    compiled = tl.compile(_doubled_sum)
    with caplog.at_level(logging.INFO, logger="tinygrad_lite.compile"):
        compiled(tl.ones(3))
        compiled(tl.ones(3))
        compiled(tl.ones(4))  # a new shape: a recompile

        def breaks(x):
            return x.sum() if x.sum().item() > 0 else -x.sum()

        with pytest.warns(UserWarning, match="item"):
            tl.compile(breaks)(tl.ones(2))
    text = caplog.text
    assert "[recompiles] _doubled_sum: retracing: a new signature" in text
    assert "[graph_breaks] test_set_logs_reports_recompiles_graph_breaks_guards_and_code." \
           "<locals>.breaks: runs eagerly: Tensor.item() at test_compile_api.py" in text
    assert "[guards] _doubled_sum:" in text and "def replay(A):" in text  # output_code
    assert "[graph_code] _doubled_sum:" in text and "np.multiply" in text
    tl._logging.set_logs()
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="tinygrad_lite.compile"):
        tl.compile(_doubled_sum)(tl.ones(5))
    assert caplog.text == ""


def test_dynamo_switch_turns_every_report_on():
    tl._logging.set_logs(dynamo=logging.DEBUG)
    assert all(logs.enabled(name) for name in logs.ARTIFACTS)
    tl._logging.set_logs(recompiles=True)
    assert logs.enabled("recompiles") and not logs.enabled("graph_breaks")


def test_torch_logs_environment_variable_is_read_at_import():
    code = ("import tinygrad_lite as tl\n"
            "f = tl.compile(lambda x: (x * 2).sum())\n"
            "f(tl.ones(2)); f(tl.ones(3))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={**__import__("os").environ,
                                            "TORCH_LOGS": "+recompiles,-graph_breaks,inductor"})
    assert done.returncode == 0, done.stderr
    assert "[recompiles] <lambda>: retracing: a new signature" in done.stderr


def test_cache_size_limit_and_patch_and_reset():
    compiled = tl.compile(_doubled_sum)
    tl._dynamo.config.cache_size_limit = 2
    for n in (2, 3, 4, 5):
        compiled(tl.ones(n))
    assert len(compiled.entries) == 2  # the two most recent shapes are kept
    assert tl._dynamo.config.recompile_limit == 2
    with tl._dynamo.config.patch(cache_size_limit=1, suppress_errors=True):
        assert tl._dynamo.config.cache_size_limit == 1 and tl._dynamo.config.suppress_errors
    assert tl._dynamo.config.cache_size_limit == 2 and not tl._dynamo.config.suppress_errors
    traces = compiled.traces
    compiled(tl.ones(5))
    assert compiled.traces == traces  # cached
    tl._dynamo.reset()
    assert compiled.entries == []
    assert compiled(tl.ones(5)).item() == 10.0 and compiled.traces == traces + 1
    tl.compiler.reset()  # PyTorch's other spelling
    assert compiled.entries == []


def test_explain_counts_graphs_ops_and_breaks():
    with _kernels.use_backend("numpy"):  # (numba's would fuse the product and sine)
        out = tl._dynamo.explain(lambda x: (x * 2).sin().sum())(tl.ones(3))
    assert (out.graph_count, out.graph_break_count, out.op_count) == (1, 0, 3)
    assert out.ops_per_graph == [["np.multiply", "np.sin", "np.add.reduce"]]
    assert "Graph Count: 1" in str(out) and "np.sin" in str(out)

    def data_dependent(x):
        return x.sum() if x.sum().item() > 0 else -x.sum()

    out = tl._dynamo.explain(data_dependent)(tl.ones(3))
    assert (out.graph_count, out.graph_break_count) == (0, 1)
    assert out.break_reasons[0].startswith("Tensor.item() at test_compile_api.py")
    assert "Break Reason 1:" in str(out)
    # a training step's first call sets the optimizer's buffers up: traced, one graph
    model = nn.Linear(3, 2)
    opt = tl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    def step(x):
        opt.zero_grad()
        loss = model(x).sum()
        loss.backward()
        opt.step()
        return loss

    out = tl._dynamo.explain(step)(tl.ones(4, 3))
    assert out.graph_count == 1 and out.graph_break_count == 0 and out.op_count > 5


def test_graph_break_makes_the_call_eager_or_raises_with_fullgraph():
    def marked(x):
        y = x * 2
        tl._dynamo.graph_break()
        return y.sum()

    with pytest.warns(UserWarning, match=r"graph_break\(\)"):
        assert tl.compile(marked)(tl.ones(3)).item() == 6.0
    with pytest.raises(tl.compiler.GraphBreakError, match=r"graph_break\(\)"):
        tl.compile(marked, fullgraph=True)(tl.ones(3))
    tl._dynamo.graph_break()  # outside a compiled call: nothing happens


def test_shape_hints_optimize_and_compiler_names():
    x = tl.ones(4, 3)
    for hint in (tl._dynamo.mark_dynamic, tl._dynamo.maybe_mark_dynamic, tl._dynamo.mark_static):
        assert hint(x, 0) is None
    assert tl._dynamo.mark_static_address(x) is None
    compiled = tl._dynamo.optimize("inductor")(_doubled_sum)
    assert compiled(x).item() == 24.0 and compiled(x).item() == 24.0 and compiled.replays == 1
    assert tl._dynamo.optimize("eager", nopython=True)(_doubled_sum).fullgraph
    assert tl._dynamo.run(_doubled_sum) is _doubled_sum
    assert tl._dynamo.allow_in_graph(_doubled_sum) is _doubled_sum
    assert tl.compiler.assume_constant_result(_doubled_sum) is _doubled_sum
    assert tl.compiler.cudagraph_mark_step_begin() is None
    assert not tl.compiler.is_dynamo_compiling() and not tl._dynamo.is_compiling()
    seen = []
    tl.compile(lambda v: seen.append(tl.compiler.is_dynamo_compiling()) or v.sum())(x)
    assert seen == [True]
    assert isinstance(tl.compile(nn.Linear(3, 2)), tl._dynamo.OptimizedModule)


def test_inductor_settings_are_accepted_and_kept():
    config = tl._inductor.config
    config.coordinate_descent_tuning = True
    config.triton.unique_kernel_names = True
    config.fx_graph_cache = False
    assert config.coordinate_descent_tuning is True and config.fx_graph_cache is False
    assert config.triton.unique_kernel_names is True
    compiled = tl.compile(_doubled_sum)  # changes nothing for tl.compile
    assert compiled(tl.ones(3)).item() == 6.0


def test_compile_checks_mode_backend_and_options_as_pytorch():
    def f(x):
        return (x * 2).sin().sum()

    with pytest.raises(RuntimeError, match="Unrecognized mode=bad"):
        tl.compile(f, mode="bad")
    with pytest.raises(RuntimeError, match="Invalid backend: 'nope'"):
        tl.compile(f, backend="nope")
    with pytest.raises(RuntimeError, match="Either mode or options"):
        tl.compile(f, mode="max-autotune", options={"trace.enabled": False})
    for kwargs in ({"mode": "reduce-overhead"}, {"backend": "inductor"}, {"backend": "eager"},
                   {"options": {"trace.enabled": False}}):
        result = float(tl.compile(f, **kwargs)(tl.ones(3)))
        assert result == pytest.approx(3 * math.sin(2.0), rel=1e-6)
