"""Anomaly mode and errors that point at the user's line."""

import re

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite._core import graph
from tinygrad_lite._core.observers import active_observers
from tinygrad_lite.autograd.anomaly import AnomalyError, is_anomaly_enabled


def _line_of(marker):
    """The line number in this file of the line containing ``marker``."""
    with open(__file__) as f:
        for n, line in enumerate(f, 1):
            if marker in line and "_line_of" not in line:
                return n
    raise AssertionError(marker)


def test_nan_from_sqrt_of_negative_names_op_and_creation_line():
    x = tl.tensor([4.0, -1.0], requires_grad=True)
    with tl.autograd.detect_anomaly():
        with np.errstate(invalid="ignore"):
            y = x.sqrt()  # MARK-SQRT
            loss = y.sum()
            with pytest.raises(AnomalyError) as info:
                loss.backward()
    message = str(info.value)
    assert re.search(r"Function '\w+Backward\d*' returned nan values in its 0th output", message)
    assert f"test_anomaly.py:{_line_of('MARK-SQRT')}" in message
    assert "y = x.sqrt()  # MARK-SQRT" in message  # the source line of the traceback


def test_inf_from_log_of_zero_names_log_and_creation_line():
    x = tl.tensor([1.0, 0.0], requires_grad=True)
    with tl.autograd.detect_anomaly():
        with np.errstate(divide="ignore"):
            y = (x.log() * 0.5).sum()  # MARK-LOG
            with pytest.raises(AnomalyError) as info:
                y.backward()
    message = str(info.value)
    assert "Function 'LogBackward0' returned inf values in its 0th output" in message
    assert f"test_anomaly.py:{_line_of('MARK-LOG')}" in message


def test_anomaly_mode_is_off_outside_and_costs_nothing_then():
    assert not is_anomaly_enabled()
    plain_init = graph.Node.__init__
    with tl.autograd.detect_anomaly():
        assert is_anomaly_enabled() and graph.Node.__init__ is not plain_init
    assert not is_anomaly_enabled() and graph.Node.__init__ is plain_init
    assert active_observers() == ()
    y = (tl.ones(2, requires_grad=True) * 2).sum()
    assert y.grad_fn._creation_trace is None  # nothing recorded when off


def test_set_detect_anomaly_function_and_context():
    tl.autograd.set_detect_anomaly(True)
    try:
        assert is_anomaly_enabled()
    finally:
        tl.autograd.set_detect_anomaly(False)
    assert not is_anomaly_enabled()
    with tl.autograd.set_detect_anomaly(True):
        assert is_anomaly_enabled()
    assert not is_anomaly_enabled()


def test_released_graph_error_points_at_user_line_in_anomaly_mode():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    with tl.autograd.detect_anomaly():
        y = (x * x).sum()  # MARK-RELEASED
        y.backward()
        with pytest.raises(RuntimeError) as info:
            y.backward()
    message = str(info.value)
    assert "MulBackward0: trying to backward through the graph a second time" in message
    assert f"MulBackward0 was created at {__file__}:{_line_of('MARK-RELEASED')}" in message


def test_errors_outside_anomaly_mode_say_how_to_find_the_line():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1.0
    y = (h * h).sum()
    h._version_counter[0] += 1
    with pytest.raises(RuntimeError, match=r"MulBackward0: one of the tensors it saved.*"
                                           r"tl\.autograd\.detect_anomaly\(\) to see where"):
        y.backward()


def test_custom_function_error_points_at_apply_line():
    class Bad(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad.sum()

    x = tl.tensor([1.0, 2.0], requires_grad=True)
    with tl.autograd.detect_anomaly():
        y = Bad.apply(x)  # MARK-CUSTOM
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
    message = str(info.value)
    assert "Function BadBackward returned an invalid gradient at index 0" in message
    assert f"test_anomaly.py:{_line_of('MARK-CUSTOM')}" in message


def test_anomaly_does_not_change_results():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    with tl.autograd.detect_anomaly():
        (x.exp() * x).sum().backward()
    xs = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(xs) * (1 + xs), rtol=1e-6)
