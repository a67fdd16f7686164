"""tl.utils.benchmark: Timer, Measurement, Compare and helpers, as torch.utils.benchmark (the
installed PyTorch, when there, is the oracle for reprs and tables of hand-made measurements)."""

import inspect
import math
import os
import pickle
import statistics

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.utils.benchmark as bench
from tinygrad_lite.utils.benchmark import (
    Compare,
    Language,
    Measurement,
    TaskSpec,
    Timer,
    ordered_unique,
    select_unit,
    set_torch_threads,
    trim_sigfig,
    unit_to_english,
)

# Fast Timer settings: the tests check behaviour, not the quality of the numbers.
FAST = 0.002


def _measurements(mod):
    """The same hand-made measurements built from ``mod`` (this package or torch's)."""
    M, T = mod.Measurement, mod.TaskSpec
    return [
        M(10, [1.2e-5, 1.3e-5, 1.25e-5, 1.22e-5],
          T("x+1", "pass", label="add", sub_label="float", description="n=1")),
        M(10, [2.2e-5, 2.3e-5, 2.25e-5, 2.22e-5],
          T("x+1", "pass", label="add", sub_label="float", description="n=10")),
        M(10, [3.2e-6, 3.3e-6, 6.25e-6, 3.22e-6],
          T("x+1", "pass", label="add", sub_label="int", description="n=1")),
        M(100, [1.2e-3, 1.3e-3],
          T("x*2", "pass", label="mul", sub_label="int", description="n=1", num_threads=4)),
        M(100, [1.2e-3, 1.3e-3],
          T("x*2", "pass", label="mul", sub_label="int", description="n=1", num_threads=1)),
    ]


def _text(*lines):
    """Lines of expected output (written one by one: table cells end in spaces)."""
    return "".join(line + "\n" for line in lines)


PLAIN_TABLE = _text(
    "[------------- add -------------]",
    "             |   n=1    |   n=10 ",
    "1 threads: ----------------------",
    "      float  |  1235.0  |  2235.0",
    "      int    |   326.0  |        ",
    "",
    "Times are in nanoseconds (ns).",
    "",
    "[----- mul ------]",
    "           |  n=1 ",
    "1 threads: -------",
    "      int  |  12.5",
    "4 threads: -------",
    "      int  |  12.5",
    "",
    "Times are in microseconds (us).",
)

TRIMMED_TABLE_HEAD = _text(
    "[--------------- add ---------------]",
    "             |      n=1       |  n=10",
    "1 threads: --------------------------",
    "      float  |  1000          |  2000",
    "      int    |   300 (! 25%)  |      ",
    "",
    "Times are in nanoseconds (ns).",
    "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.",
)


# ---------------------------------------------------------------- helpers and TaskSpec


def test_select_unit_and_english_names():
    assert select_unit(5e-7) == ("ns", 1e-9)
    assert select_unit(2e-6) == ("us", 1e-6)
    assert select_unit(0.25) == ("ms", 1e-3)
    assert select_unit(3.0) == ("s", 1)
    assert select_unit(1e-10)[0] == "s"  # below a nanosecond falls outside the table, as torch
    with pytest.raises(ValueError):
        select_unit(0.0)
    assert [unit_to_english(u) for u in ("ns", "us", "ms", "s")] == [
        "nanosecond", "microsecond", "millisecond", "second"]


def test_trim_sigfig_and_ordered_unique():
    assert trim_sigfig(3.14159, 2) == pytest.approx(3.1)
    assert trim_sigfig(123456, 3) == 123000.0
    assert trim_sigfig(0.000123456, 2) == pytest.approx(0.00012)
    assert trim_sigfig(-5.56, 2) == pytest.approx(-5.6)
    with pytest.raises(AssertionError):
        trim_sigfig(1.0, 2.5)
    assert ordered_unique([3, 1, 3, 2, 1]) == [3, 1, 2]


def test_taskspec_title_summary_and_hashing():
    spec = TaskSpec("x + 1", "pass", label="add", sub_label="f32", description="n=4")
    assert spec.title == "add: f32" and spec.summarize() == "add: f32\nn=4"
    assert TaskSpec("x + 1", "pass").title == "x + 1"
    multi = TaskSpec("a = 1\nb = 2", "y = 1\nz = 2", sub_label="s")
    assert multi.title == "stmt: (s)\n  a = 1\n  b = 2"
    assert multi.setup_str() == "setup:\n  y = 1\n  z = 2"
    assert TaskSpec("x", "y = 1").setup_str() == "setup: y = 1"
    assert spec == TaskSpec("x + 1", "pass", label="add", sub_label="f32", description="n=4")
    assert len({spec, TaskSpec("x + 1", "pass", label="add", sub_label="f32",
                               description="n=4")}) == 1
    with pytest.raises(AttributeError):
        spec.stmt = "y"  # frozen


# ---------------------------------------------------------------- Measurement


def test_measurement_statistics():
    raw = [1e-5, 2e-5, 1.5e-5, 1.2e-5, 3e-5]
    m = Measurement(10, raw, TaskSpec("x+1", "pass"))
    times = [t / 10 for t in raw]
    assert m.times == times
    assert m.median == pytest.approx(float(np.median(times)))
    assert m.mean == pytest.approx(statistics.mean(times))
    assert m.iqr == pytest.approx(float(np.quantile(times, 0.75) - np.quantile(times, 0.25)))
    assert m.significant_figures == 1
    assert m.has_warnings and not m.meets_confidence(0.5 * m.iqr / m.median)
    assert m.meets_confidence(2 * m.iqr / m.median)
    steady = Measurement(1, [1.0, 1.0001, 0.9999, 1.0, 1.00005] * 4, TaskSpec("x", "pass"))
    assert not steady.has_warnings and steady.significant_figures == 4


def test_measurement_forwards_taskspec_fields():
    spec = TaskSpec("x+1", "pass", label="L", sub_label="S", description="D", num_threads=3)
    m = Measurement(1, [1e-3], spec, metadata={"k": 1})
    assert (m.stmt, m.label, m.sub_label, m.description, m.num_threads) == (
        "x+1", "L", "S", "D", 3)
    assert m.title == "L: S" and m.as_row_name == "S" and m.metadata == {"k": 1}
    assert m.env == "Unspecified env"
    assert Measurement(1, [1e-3], TaskSpec("y", "pass", env="A")).env == "A"
    assert Measurement(1, [1e-3], TaskSpec("y", "pass")).as_row_name == "y"
    with pytest.raises(AttributeError):
        m.row_name  # noqa: B018  (torch's name is as_row_name)


def test_measurement_repr():
    m = Measurement(10, [1e-5, 2e-5, 1.5e-5, 1.2e-5, 3e-5], TaskSpec("x+1", "pass"))
    lines = repr(m).splitlines()
    assert lines[0].startswith("<tinygrad_lite.utils.benchmark.utils.common.Measurement object")
    assert lines[1:] == [
        "x+1", "  Median: 1.50 us", "  IQR:    0.80 us (1.20 to 2.00)",
        "  5 measurements, 10 runs per measurement, 1 thread",
        "  WARNING: Interquartile range is 53.3% of the median measurement.",
        "           This suggests significant environmental influence."]
    one = Measurement(1, [1e-3], TaskSpec("x+1", "pass", label="L", sub_label="S",
                                          description="D", num_threads=4))
    assert repr(one).splitlines()[1:] == ["L: S", "D", "  1.00 ms",
                                          "  1 measurement, 1 runs , 4 threads"]
    two = Measurement(1, [1e-3, 2e-3], TaskSpec("x+1\ny=2", "a=1\nb=2", sub_label="S",
                                               description="D", num_threads=2))
    assert repr(two).splitlines()[1:8] == ["stmt: (S)", "  x+1", "  y=2", "", "D", "setup:",
                                           "  a=1"]
    assert "  2 measurements, 1 runs per measurement, 2 threads" in repr(two)


def test_measurement_merge_and_pickle():
    a = TaskSpec("x", "pass", label="L")
    ms = [Measurement(10, [1e-4, 2e-4], a), Measurement(5, [5e-5], a),
          Measurement(1, [3e-6], TaskSpec("y", "pass"), metadata={"m": 1})]
    merged = Measurement.merge(ms)
    assert [m.task_spec for m in merged] == [a, TaskSpec("y", "pass")]
    assert merged[0].number_per_run == 1 and merged[0].raw_times == pytest.approx(
        [1e-5, 2e-5, 1e-5])
    assert merged[1].metadata is None
    back = pickle.loads(pickle.dumps(ms[0]))
    assert back == ms[0] and back.median == ms[0].median and back.label == "L"


# ---------------------------------------------------------------- Timer


def test_timer_timeit_runs_stmt_in_globals_and_setup():
    calls = []
    t = Timer("calls.append(z)", setup="z = 7", globals={"calls": calls})
    m = t.timeit(number=5)
    assert isinstance(m, Measurement) and m.number_per_run == 5 and len(m.raw_times) == 1
    assert m.raw_times[0] > 0 and m.times == [m.raw_times[0] / 5]
    assert calls == [7] * (2 + 5)  # a warm-up of max(number // 100, 2), then the timed runs
    assert m.stmt == "calls.append(z)" and m.task_spec.setup == "z = 7"


def test_timer_globals_are_copied_and_torch_names_this_package():
    g = {"x": tl.ones(3)}
    seen = []
    Timer("y = torch.add(x, x); seen.append(y)", globals={**g, "seen": seen}).timeit(2)
    assert "y" not in g and "__builtins__" not in g
    assert isinstance(seen[0], tl.Tensor) and seen[0].tolist() == [2.0, 2.0, 2.0]


def test_timer_dedents_snippets():
    t = Timer("""
        total = 0
        for i in range(3):
            total += i
    """, setup="""
        import math
    """)
    assert t.timeit(3).stmt == "total = 0\nfor i in range(3):\n    total += i"
    assert t._task_spec.setup == "import math"


def test_timer_rejects_what_pytorch_rejects():
    with pytest.raises(ValueError, match="str"):
        Timer(lambda: None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="global_setup"):
        Timer("pass", global_setup="#include <x>")
    with pytest.raises(ValueError, match="Invalid language"):
        Timer("pass", language="rust")
    with pytest.raises(NotImplementedError, match="C\\+\\+"):
        Timer("pass", language=Language.CPP)
    with pytest.raises(NotImplementedError, match="C\\+\\+"):
        Timer("pass", language="c++")
    t = Timer("pass", language="py")
    with pytest.raises(NotImplementedError, match="blocked_autorange"):
        t.repeat()
    with pytest.raises(NotImplementedError, match="blocked_autorange"):
        t.autorange()
    with pytest.raises(NotImplementedError, match="Valgrind"):
        t.collect_callgrind()


def test_blocked_autorange_invariants():
    seen = []
    t = Timer("sum(range(20))", label="sum", sub_label="20", description="py")
    m = t.blocked_autorange(callback=lambda n, s: seen.append((n, s)), min_run_time=FAST)
    assert m.number_per_run >= 1 and all(s > 0 for s in m.raw_times)
    assert sum(m.raw_times) >= FAST
    assert seen == [(m.number_per_run, s) for s in m.raw_times]
    assert min(m.times) <= m.median <= max(m.times)
    assert m.mean == pytest.approx(statistics.mean(m.times))
    assert m.iqr >= 0 and 1 <= m.significant_figures <= 4
    assert repr(m).splitlines()[1:3] == ["sum: 20", "py"]


def test_adaptive_autorange_stops_on_confidence_or_time():
    m = Timer("sum(range(20))").adaptive_autorange(threshold=0.5, min_run_time=FAST,
                                                   max_run_time=0.1)
    assert len(m.raw_times) >= 1 and min(m.times) <= m.median <= max(m.times)
    assert (len(m.raw_times) > 3 and m.meets_confidence(0.5)) or sum(m.raw_times) > 0.1


def test_num_threads_limits_blas_threads_while_timing_and_restores():
    pytest.importorskip("threadpoolctl")
    before, env = tl.get_num_threads(), os.environ.get("OMP_NUM_THREADS")
    seen = []
    Timer("seen.append(torch.get_num_threads())", globals={"seen": seen},
          num_threads=1).timeit(3)
    assert seen and set(seen) == {1}
    assert tl.get_num_threads() == before and os.environ.get("OMP_NUM_THREADS") == env
    with set_torch_threads(1):
        assert tl.get_num_threads() == 1
    assert tl.get_num_threads() == before


# ---------------------------------------------------------------- Compare


def test_compare_table_layout():
    assert str(Compare(_measurements(bench))) == PLAIN_TABLE
    c = Compare(_measurements(bench))
    c.trim_significant_figures()
    c.highlight_warnings()
    assert str(c).startswith(TRIMMED_TABLE_HEAD)


def test_compare_colorize_and_print(capsys):
    c = Compare(_measurements(bench))
    c.colorize()
    text = str(c)
    assert "\033[92m\033[1m" in text and "\033[2m\033[91m" in text  # best and 2x-slower cells
    c.colorize(rowwise=True)
    assert "\033[92m" in str(c)
    Compare(_measurements(bench)).print()
    assert capsys.readouterr().out == PLAIN_TABLE + "\n"


def _grouped(mod):
    """Replicates to merge, two labels, and an env column (``mod``: this package or torch's)."""
    M, T = mod.Measurement, mod.TaskSpec
    spec = T("x", "pass", label="L", sub_label="a", description="c1")
    return [M(1, [1e-6], spec), M(1, [3e-6], spec),
            M(1, [5e-6], T("x", "pass", label="L", sub_label="b", description="c2")),
            M(1, [5e-6], T("x", "pass", description="c2", env="E")),
            M(1, [7e-6], T("x", "pass", description="c2", env="F"))]


GROUPED_TABLE = _text(
    "[--------- L ---------]",
    "         |   c1  |   c2",
    "1 threads: ------------",
    "      a  |  2.0  |     ",
    "      b  |       |  5.0",
    "",
    "Times are in microseconds (us).",
    "",
    "[------  ------]",
    "          |   c2",
    "1 threads: -----",
    "  (E)  x  |  5.0",
    "  (F)  x  |  7.0",
    "",
    "Times are in microseconds (us).",
)


def test_compare_merges_replicates_groups_labels_and_shows_envs():
    assert str(Compare(_grouped(bench))) == GROUPED_TABLE
    c = Compare([])
    c.extend_results(_grouped(bench)[:1])
    with pytest.raises(ValueError, match="Measurement"):
        c.extend_results([1.0])


def test_compare_without_descriptions_renders():
    text = str(Compare([Measurement(1, [1e-5], TaskSpec("x", "pass", label="L"))]))
    assert "L" in text and "10.0" in text


def test_public_names():
    assert set(bench.__all__) == {
        "TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
        "ordered_unique", "set_torch_threads", "Timer", "timer", "Language", "Colorize",
        "Compare"}
    assert bench.timer() > 0 and [lang.name for lang in Language] == ["PYTHON", "CPP"]
    for name in bench.__all__:
        assert getattr(bench, name).__doc__, name


# ---------------------------------------------------------------- PyTorch as the oracle


@pytest.fixture
def tb():
    pytest.importorskip("torch")
    import torch.utils.benchmark as tb

    return tb


@pytest.mark.parametrize("flags", ["", "t", "th", "thc", "r", "h"])
def test_compare_matches_torch(tb, flags):
    texts = []
    for mod in (tb, bench):
        c = mod.Compare(_measurements(mod))
        if "t" in flags:
            c.trim_significant_figures()
        if "h" in flags:
            c.highlight_warnings()
        if "c" in flags:
            c.colorize()
        if "r" in flags:
            c.colorize(rowwise=True)
        texts.append(str(c))
    assert texts[0] == texts[1]


def test_grouped_compare_matches_torch(tb):
    assert str(tb.Compare(_grouped(tb))) == str(Compare(_grouped(bench)))


def test_measurement_matches_torch(tb):
    for mine, theirs in zip(_measurements(bench), _measurements(tb)):
        assert repr(mine).splitlines()[1:] == repr(theirs).splitlines()[1:]
        for name in ("median", "mean", "iqr"):
            assert getattr(mine, name) == pytest.approx(getattr(theirs, name))
        assert mine.significant_figures == theirs.significant_figures
        assert mine.has_warnings == theirs.has_warnings and mine.title == theirs.title
        assert mine.as_row_name == theirs.as_row_name
    for t in (1e-10, 1e-9, 5e-7, 2e-6, 1e-3, 2.0, 1000.0):
        assert select_unit(t) == tb.select_unit(t)
    for x, n in ((3.14159, 2), (123456.0, 3), (0.00042, 1), (987.6, 4)):
        assert trim_sigfig(x, n) == pytest.approx(tb.trim_sigfig(x, n), rel=1e-6)


def test_timer_behaves_like_torch_on_same_statement(tb):
    outs = []
    for mod in (tb, bench):
        t = mod.Timer("sorted(xs)", setup="xs = list(range(30, 0, -1))", label="sort",
                      sub_label="30", description="list")
        fixed = t.timeit(number=50)
        auto = t.blocked_autorange(min_run_time=FAST)
        assert fixed.number_per_run == 50 and len(fixed.raw_times) == 1
        assert min(auto.times) <= auto.median <= max(auto.times)
        outs.append((repr(fixed).splitlines()[1:3], repr(fixed).splitlines()[-1]))
    assert outs[0] == outs[1]


def test_signatures_match_torch(tb):
    for name in ("timeit", "repeat", "autorange", "blocked_autorange", "adaptive_autorange",
                 "collect_callgrind", "__init__"):
        mine = inspect.signature(getattr(Timer, name)).parameters
        theirs = inspect.signature(getattr(tb.Timer, name)).parameters
        assert list(mine) == list(theirs), name
        for p in mine:
            if p != "timer":  # the default clock is each library's own function
                assert mine[p].kind == theirs[p].kind, (name, p)
                assert str(mine[p].default) == str(theirs[p].default).replace(
                    "torch.utils.benchmark.utils.timer.", ""), (name, p)
    assert list(inspect.signature(Measurement).parameters) == list(
        inspect.signature(tb.Measurement).parameters)
    for name in bench.__all__:
        assert hasattr(tb, name), name
    assert math.isfinite(tb.timer()) and math.isfinite(bench.timer())
