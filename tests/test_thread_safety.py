"""Backward from several threads into the same leaves: no gradient update may be lost (the
accumulation into ``.grad`` is a read-modify-write, and NumPy releases the GIL on large arrays)."""

from __future__ import annotations

import threading

import numpy as np

import tinygrad_lite as tl

N = 1_000_000
THREADS = 2
BACKWARDS = 40


def _hammer(leaf: tl.Tensor, other: tl.Tensor, start: threading.Barrier) -> None:
    start.wait()
    for _ in range(BACKWARDS):
        (leaf * other).sum().backward()


def test_concurrent_backward_into_one_leaf_loses_nothing():
    leaf = tl.zeros(N, dtype=tl.float64, requires_grad=True)
    other = tl.ones(N, dtype=tl.float64) * 0.5
    start = threading.Barrier(THREADS)
    workers = [threading.Thread(target=_hammer, args=(leaf, other, start)) for _ in range(THREADS)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    expected = 0.5 * THREADS * BACKWARDS
    wrong = int(np.count_nonzero(leaf.grad.numpy() != expected))
    assert wrong == 0, f"{wrong} of {N} gradient entries lost an update"


def test_concurrent_backward_with_post_accumulate_hooks_sees_every_update():
    leaf = tl.zeros(N, dtype=tl.float64, requires_grad=True)
    seen = []
    leaf.register_post_accumulate_grad_hook(lambda t: seen.append(float(t.grad.numpy()[0])))
    other = tl.ones(N, dtype=tl.float64)
    start = threading.Barrier(THREADS)
    workers = [threading.Thread(target=_hammer, args=(leaf, other, start)) for _ in range(THREADS)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    total = THREADS * BACKWARDS
    assert leaf.grad.numpy()[0] == total and np.all(leaf.grad.numpy() == total)
    # each hook saw the .grad right after its own accumulation: every count from 1 to total
    assert sorted(seen) == [float(k) for k in range(1, total + 1)]
