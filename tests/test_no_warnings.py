"""No NumPy RuntimeWarning reaches the user from inside the package (PyTorch prints none for
overflow, 0/0 or NaN arithmetic), while warnings from the user's own NumPy code still show.

Every catalogue op runs forward and backward on edge values (0, -0, tiny, huge, inf, NaN) in
float64 and float32, in a fresh interpreter started with ``-W error::RuntimeWarning`` (as a
user's script would be), so any leak is an error there.
"""

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np

import tinygrad_lite as tl

TESTS = Path(__file__).resolve().parent

SCAN = r"""
import numpy as np, tinygrad_lite as tl
from op_catalog import CATALOG
EDGES = [0.0, -0.0, 1e-300, 1e300, -1e300, np.inf, -np.inf, np.nan, 700.0, -1.0]
leaks = []
for name, fn, shapes, domain in CATALOG:
    for value in EDGES:
        for dtype in (np.float64, np.float32):
            with np.errstate(over="ignore"):  # 1e300 as float32 is this script's own cast
                arrays = [np.full(s, value).astype(dtype) for s in shapes]
            try:
                fn(*[tl.tensor(a, requires_grad=True) for a in arrays]).sum().backward()
            except RuntimeWarning as w:
                leaks.append(f"{name} at {value} {np.dtype(dtype).name}: {w}")
            except (RuntimeError, ValueError):  # an op refusing a value is not a leak
                pass
print("\n".join(leaks) or "no leaks")
"""


def test_catalogue_ops_on_edge_values_raise_no_numpy_warning():
    result = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", SCAN],
                            cwd=TESTS, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "no leaks", result.stdout


def test_user_numpy_warnings_still_show():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.log(np.zeros(1))
    assert any(issubclass(w.category, RuntimeWarning) for w in caught)


def test_backward_reinstalls_the_filter_a_catch_warnings_block_dropped():
    # pytest restores the warning filters after collection, dropping the one the import added;
    # the next backward puts it back
    x = tl.zeros(3, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.resetwarnings()
        x.sqrt().sum().backward()      # 1 / (2 sqrt(0)): inf, as PyTorch, and no warning
        y = tl.tensor([1000.0]).exp()  # overflow to inf in forward
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert np.isinf(x.grad.numpy()).all() and np.isinf(y.numpy()).all()


def test_forward_ops_stay_silent_under_an_error_filter_set_in_the_test():
    """A test (or script) that turns warnings into errors after importing the package, as
    pytest's -W error does for each test: the package's own ops stay silent, the user's NumPy
    code still raises."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # in front of every filter, the package's included
        x = tl.tensor([0.0, 1.0, np.inf])  # the first tensor puts the package filter back
        out = (x.log() * 0).exp()  # log(0) and inf * 0: -inf and NaN, silently
        assert np.isnan(out.numpy()[2])
        w = tl.tensor(np.full((2, 1, 3, 3), np.inf, np.float32))
        tl.nn.functional.conv2d(tl.ones(1, 1, 4, 4), w, padding=1)  # inf * 0 inside a GEMM
        try:
            np.log(np.zeros(1))
        except RuntimeWarning:
            pass
        else:
            raise AssertionError("the user's own NumPy warning was silenced")


def test_compiled_replays_stay_silent_too():
    """tl.compile's generated replay is package code: its NumPy warnings are silenced as the
    eager ops' are (they were attributed to '<tl.compile replay>' and escaped the filter)."""
    @tl.compile
    def step(x):
        return (x.log() * 0).exp()  # log(0) = -inf, -inf * 0 = NaN

    x = tl.tensor([0.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            out = step(x)
    assert step.replays >= 1 and np.isnan(out.numpy()[0])
