"""What a data-parallel reducer asks of the engine, tested in one process: callbacks queued for
the end of a backward (``queue_callback``) and each leaf finished as soon as its gradient is
complete (``enable_eager_leaf_finish``). ``tests/test_distributed.py`` runs the real reducer."""

from __future__ import annotations

import pytest

import tinygrad_lite as tl
from tinygrad_lite._core.accumulate_grad import enable_eager_leaf_finish
from tinygrad_lite._core.backward_scope import queue_callback


@pytest.fixture
def eager_leaves():
    enable_eager_leaf_finish(True)
    try:
        yield
    finally:
        enable_eager_leaf_finish(False)


def _graph(events: list) -> tuple:
    """y = ((x * 2) * w).sum(): w's only edge delivers before the node making ``x * 2`` runs."""
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    w = tl.tensor([3.0, 4.0], requires_grad=True)
    for name, leaf in (("x", x), ("w", w)):
        leaf.register_post_accumulate_grad_hook(
            lambda t, name=name: events.append((name, t.grad.tolist())))
    h = x * 2
    h.register_hook(lambda g: events.append(("h", g.tolist())))
    return x, w, (h * w).sum()


def test_leaves_are_finished_at_the_end_by_default():
    events: list = []
    _, _, y = _graph(events)
    y.backward()
    assert events == [("h", [3.0, 4.0]), ("w", [2.0, 4.0]), ("x", [6.0, 8.0])]


def test_eager_leaf_finishing_accumulates_each_leaf_when_complete(eager_leaves):
    events: list = []
    x, w, y = _graph(events)
    y.backward()
    assert events == [("w", [2.0, 4.0]), ("h", [3.0, 4.0]), ("x", [6.0, 8.0])]
    assert x.grad.tolist() == [6.0, 8.0] and w.grad.tolist() == [2.0, 4.0]


def test_eager_leaf_finishing_waits_for_every_edge_into_a_leaf(eager_leaves):
    seen: list = []
    w = tl.tensor([1.0, 2.0], requires_grad=True)
    w.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (w * w * w).sum().backward()  # three edges into w, delivered by two nodes
    assert seen == [[3.0, 12.0]]
    (w * 2).sum().backward()  # accumulated into the existing .grad
    assert seen == [[3.0, 12.0], [5.0, 14.0]]


def test_queued_callback_runs_after_every_gradient_is_accumulated():
    seen: list = []
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    h.register_hook(lambda g: queue_callback(lambda: seen.append(x.grad.tolist())))
    h.sum().backward()
    assert seen == [[3.0, 3.0]]


def test_queued_callback_is_dropped_when_backward_raises():
    seen: list = []
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    h.register_hook(lambda g: queue_callback(lambda: seen.append("ran")))

    def fail(g):
        raise ValueError("hook failed")

    h.register_hook(fail)
    with pytest.raises(ValueError, match="hook failed"):
        h.sum().backward()
    (x * 1).sum().backward()  # a later backward does not run it either
    assert seen == []


def test_callback_queued_in_a_nested_backward_runs_when_the_outer_one_ends():
    seen: list = []
    x = tl.tensor([1.0], requires_grad=True)
    z = tl.tensor([1.0], requires_grad=True)

    def inner(g):
        with tl.enable_grad():  # hooks run with grad mode off in a plain backward
            z2 = z * 2
            z2.register_hook(lambda g2: queue_callback(lambda: seen.append(x.grad is not None)))
            z2.sum().backward()
        seen.append("inner done")

    h = x * 3
    h.register_hook(inner)
    h.sum().backward()
    assert seen == ["inner done", True]
