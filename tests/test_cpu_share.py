"""Sharing the CPU (``tinygrad_lite/_kernels/cpu_share.py``): the thread count chosen from the
load other processes put on the machine, and, in a fresh process beside busy neighbours, BLAS
actually brought down to it at the next safe point (a module call, a backward)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tinygrad_lite._kernels.cpu_share import choose


@pytest.mark.parametrize("budget,others,previous,up_before,expected", [
    (2, 0.0, None, None, 2),   # first sample, idle machine: the whole budget
    (2, 0.6, 2, None, 1),      # others keep half a core busy: give one up at once
    (2, 0.4, 2, None, 2),      # below that: keep it
    (2, 0.1, 1, None, 1),      # quiet once: not yet back (no flapping)
    (2, 0.1, 1, 2, 2),         # quiet twice in a row: back to two
    (2, 0.3, 1, 2, 1),         # between a quarter and a half core: stay down
    (4, 1.2, None, None, 3),   # a 4-thread budget beside one busy core
    (4, 0.1, 2, 3, 3),         # climbing back, no further than the previous sample allowed
    (2, 5.0, 2, None, 1),      # an oversubscribed machine: one thread, never zero
    (1, 0.0, None, None, 1),   # a budget of one stays one
])
def test_choice_of_threads(budget, others, previous, up_before, expected):
    assert choose(budget, others, previous, up_before)[0] == expected


NEIGHBOUR = "while True:\n    pass\n"

PROBE = textwrap.dedent("""
    import sys
    import time
    import tinygrad_lite as tl
    from threadpoolctl import threadpool_info
    from tinygrad_lite._kernels import cpu_share
    model = tl.nn.Linear(64, 64)
    x = tl.randn(32, 64)
    deadline = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < deadline:
        model(x).sum().backward()  # safe points: the module call and the backward
        time.sleep(0.02)
        if cpu_share.current() == 1:
            break
    if sys.argv[2:] == ["pin"]:  # deterministic from here: back to the budget, and staying
        assert cpu_share.current() == 1, "BLAS never gave a thread up"
        tl.use_deterministic_algorithms(True)
        for _ in range(20):
            model(x).sum().backward()
            time.sleep(0.02)
    blas = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    print(cpu_share.current(), blas)
""")


def _probe(env: dict, seconds: float, *more: str) -> list[str]:
    neighbours = [subprocess.Popen([sys.executable, "-c", NEIGHBOUR])
                  for _ in range(os.cpu_count() or 2)]
    try:
        result = subprocess.run([sys.executable, "-c", PROBE, str(seconds), *more],
                                capture_output=True, text=True, env=env, timeout=120)
    finally:
        for neighbour in neighbours:
            neighbour.kill()
            neighbour.wait()
    assert result.returncode == 0, result.stderr
    return result.stdout.split(maxsplit=1)


@pytest.mark.skipif(not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2,
                    reason="the load is read from Linux's /proc/stat; needs 2+ CPUs")
def test_blas_gives_up_threads_beside_busy_neighbours():
    pytest.importorskip("threadpoolctl")
    env = {**os.environ, "OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2"}
    current, blas = _probe(env, 20.0)  # (it takes a few 50 ms samples)
    assert current == "1" and blas.strip() == "[1]"
    env["TINYGRAD_LITE_ADAPTIVE_THREADS"] = "0"  # switched off: BLAS keeps its threads
    current, blas = _probe(env, 1.0)
    assert current == "None" and blas.strip() == "[2]"


@pytest.mark.skipif(not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2,
                    reason="the load is read from Linux's /proc/stat; needs 2+ CPUs")
def test_deterministic_algorithms_keep_blas_at_its_budget_beside_busy_neighbours():
    # with fewer threads OpenBLAS rounds some products differently (it splits a long inner
    # dimension over its threads), so deterministic mode gives the cores back to BLAS
    pytest.importorskip("threadpoolctl")
    env = {**os.environ, "OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2"}
    current, blas = _probe(env, 20.0, "pin")
    assert current == "None" and blas.strip() == "[2]"
