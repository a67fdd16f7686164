"""Differential test against PyTorch: random small programs of tl ops, run once with
``lib = tinygrad_lite`` and once with ``lib = torch`` (the APIs are the same, so one program text
serves both), compare the values, the gradients and the second derivatives (a Hessian-vector
product through ``create_graph=True``), in float64.

Hypothesis draws a few thousand programs per run, seeded (``derandomize``), so CI is
reproducible; a failure prints the program as Python code that reproduces it. NaN and infinities
must come out where PyTorch's do. Skipped when PyTorch is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinygrad_lite as tl
from tests.random_programs import INPUT_SHAPES, OPS, WEIGHT, program_text, run

torch = pytest.importorskip("torch")

steps_strategy = st.lists(
    st.tuples(st.sampled_from(sorted(OPS)), st.integers(0, 50), st.integers(0, 50)),
    min_size=1, max_size=5)


@settings(max_examples=2000, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(steps=steps_strategy, seed=st.integers(0, 2**16))
def test_random_programs_match_pytorch(steps, seed):
    rng = np.random.default_rng(seed)
    inputs = [rng.standard_normal(s) for s in INPUT_SHAPES]
    if seed % 3 == 0:  # a third of the runs on a coarse grid: exact zeros and ties, the kinks
        inputs = [np.round(x * 2) / 2 for x in inputs]
    text = program_text(steps)
    with np.errstate(all="raise", under="ignore"):  # no NumPy warning may come out of
        # the package (underflow is not one: NumPy ignores it by default, and exp of a
        # large negative value is 0 in PyTorch too)
        ours = run(text, tl, inputs)
    theirs = run(text, torch, inputs)
    where = (f"\nreproduce with L = tinygrad_lite vs torch, W = {WEIGHT.tolist()!r},\n"
             f"inputs = {[x.tolist() for x in inputs]!r}\n{text}")
    compare(ours[0], theirs[0], 1e-9, "value" + where)
    for k, (g, h) in enumerate(zip(ours[1], theirs[1])):
        compare(g, h, 1e-8, f"grad of v{k}" + where)
    for k, (g, h) in enumerate(zip(ours[2], theirs[2])):
        compare(g, h, 1e-7, f"second derivative (HVP) of v{k}" + where)


def compare(ours: np.ndarray, theirs: np.ndarray, rtol: float, msg: str) -> None:
    """Equal to PyTorch's result, NaN and infinities included: a NaN PyTorch reports (e.g. a
    second derivative of a norm at exactly zero) is information, and ours must report it too
    (benchmarks/fuzz_graphs.py runs the same comparison over tens of thousands of graphs)."""
    ours, theirs = np.broadcast_arrays(np.asarray(ours, float), np.asarray(theirs, float))
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs), err_msg="NaN at " + msg)
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol * 10, equal_nan=True,
                               err_msg=msg)
