"""``tl.profiler`` / ``tl.autograd.profiler``: what a profile records (user calls, primitives,
module calls, backward nodes, record_function blocks), its summaries, its schedule."""

import json
import sys

import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn as nn
from tinygrad_lite.profiler import (
    ProfilerAction,
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    tensorboard_trace_handler,
)


def _setup():
    tl.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    opt = tl.optim.SGD(model.parameters(), lr=0.1)
    x, y = tl.randn(6, 4), tl.tensor([0, 1, 2, 0, 1, 2])

    def train_step(i=0):
        with record_function(f"step{i}"):
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
    return train_step


def test_a_training_step_records_calls_primitives_modules_and_backward_nodes():
    step = _setup()
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        step(0)
        step(1)
    averages = {e.key: e for e in prof.key_averages()}
    for name in ("step0", "step1", "nn.Module: Sequential", "nn.Module: Linear", "ops::linear",
                 "ops::relu", "Tensor.backward", "Optimizer.step", "Optimizer.zero_grad",
                 "AddmmBackward0", "ReluBackward0"):
        assert name in averages, name
    assert averages["nn.Module: Linear"].count == 4 and averages["ops::linear"].count == 4
    assert averages["step0"].count == 1 and averages["Tensor.backward"].count == 2
    events = prof.events()
    for event in events:
        assert 0 <= event.self_cpu_time_total <= event.cpu_time_total + 1e-9
        for child in event.cpu_children:
            assert child.cpu_parent is event
            assert event.start_ns <= child.start_ns <= child.end_ns <= event.end_ns
    roots = [e for e in events if e.cpu_parent is None]
    assert [e.name for e in roots] == ["step0", "step1"]
    total = sum(e.cpu_time_total for e in roots)
    assert prof.key_averages().self_cpu_time_total == pytest.approx(total, rel=1e-9)
    shapes = {str(e.input_shapes) for e in events if e.name == "ops::linear"}
    assert "[[6, 4], [8, 4], [8]]" in shapes


def test_table_sorts_limits_and_names_unknown_keys():
    step = _setup()
    with profile() as prof:
        step()
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=5)
    lines = table.splitlines()
    assert "Self CPU %" in lines[1] and "# of Calls" in lines[1]
    assert len(lines) == 3 + 5 + 2 and lines[-1].startswith("Self CPU time total:")
    selfs = [e.self_cpu_time_total for e in prof.key_averages()]
    assert sorted(selfs, reverse=True)[0] == max(selfs)
    assert "step0" in prof.key_averages().table(sort_by="cuda_time_total")  # zeros on CPU
    with pytest.raises(AttributeError, match="sort_by"):
        prof.key_averages().table(sort_by="speed")
    by_shape = prof.key_averages(group_by_input_shape=True)
    assert len(by_shape) >= len(prof.key_averages())


def test_chrome_trace_and_tensorboard_handler(tmp_path):
    step = _setup()
    with profile(on_trace_ready=tensorboard_trace_handler(str(tmp_path / "tb"), "w0")) as prof:
        step()
    prof.export_chrome_trace(str(tmp_path / "trace.json"))
    trace = json.loads((tmp_path / "trace.json").read_text())
    names = {e["name"] for e in trace["traceEvents"]}
    assert {"step0", "ops::linear", "AddmmBackward0"} <= names
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in trace["traceEvents"])
    written = list((tmp_path / "tb").iterdir())
    assert len(written) == 1 and written[0].name.startswith("w0.")
    assert written[0].name.endswith(".pt.trace.json")


def test_schedule_records_only_the_active_steps():
    step = _setup()
    ready = []
    sched = schedule(wait=1, warmup=1, active=2, repeat=2)
    with profile(schedule=sched, on_trace_ready=lambda p: ready.append(
            sorted(e.key for e in p.key_averages() if e.key.startswith("step")))) as prof:
        for i in range(10):
            step(i)
            prof.step()
    assert ready == [["step2", "step3"], ["step6", "step7"]]


def test_schedule_matches_pytorch():
    torch = pytest.importorskip("torch")
    for kwargs in ({"wait": 1, "warmup": 1, "active": 2, "repeat": 2},
                   {"wait": 0, "warmup": 2, "active": 3, "skip_first": 3},
                   {"wait": 2, "warmup": 1, "active": 1, "skip_first_wait": 1}):
        ours, theirs = schedule(**kwargs), torch.profiler.schedule(**kwargs)
        assert [ours(s).name for s in range(20)] == [theirs(s).name for s in range(20)], kwargs
    theirs = torch.profiler.ProfilerAction
    assert [a.value for a in ProfilerAction] == [theirs[a.name].value for a in ProfilerAction]


def test_disabled_nested_and_unfinished_profiles():
    step = _setup()
    with tl.autograd.profiler.profile(enabled=False) as off:
        step()
    with pytest.raises(RuntimeError, match="didn't finish"):
        off.events()
    with tl.autograd.profiler.profile() as prof:
        with pytest.raises(RuntimeError, match="already enabled"), profile():
            pass
        step()
    assert any(e.key == "ops::linear" for e in prof.key_averages())
    assert "Self CPU time total" in str(prof)


def test_the_hook_is_restored_even_after_an_error():
    before = sys.getprofile()
    with pytest.raises(ValueError), profile():
        raise ValueError("inside")
    assert sys.getprofile() is before
    with record_function("outside any profile"):  # nothing to record into
        pass
