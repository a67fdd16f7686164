"""Warnings the package raises point at the user's line, as PyTorch's do: every one goes through
``tinygrad_lite._core.warnings.warn``, which attributes it to the first frame outside the package
(a fixed ``stacklevel`` pointed at the package's own line whenever the call path changed depth,
and Python printed that line of the package's source, comment and all)."""

import ast
import inspect
import pathlib
import warnings

import pytest

import tinygrad_lite as tl

PACKAGE = pathlib.Path(tl.__file__).parent
HELPER = PACKAGE / "_core" / "warnings.py"


def _direct_warning_calls(path: pathlib.Path) -> list[str]:
    """``warnings.warn(...)`` / ``warnings.warn_explicit(...)`` calls and ``from warnings import
    warn`` in one module: warnings that would bypass the helper."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("warn", "warn_explicit")
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "warnings"):
            found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
        if (isinstance(node, ast.ImportFrom) and node.module == "warnings" and node.level == 0
                and any(alias.name in ("warn", "warn_explicit") for alias in node.names)):
            found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} (imports warnings.warn)")
    return found


def test_every_package_warning_goes_through_the_helper():
    direct = [call for path in sorted(PACKAGE.rglob("*.py")) if path != HELPER
              for call in _direct_warning_calls(path)]
    assert not direct, ("warn through tinygrad_lite._core.warnings.warn, which points at the "
                        f"user's line: {direct}")


def test_mse_loss_broadcast_warning_points_at_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        tl.nn.functional.mse_loss(tl.ones(3, 1), tl.ones(3))
    (warning,) = [w for w in caught if "target size" in str(w.message)]
    assert (warning.filename, warning.lineno) == (__file__, line)
    assert warning.category is UserWarning


def test_warnings_point_at_the_user_through_any_depth():
    # the module path adds frames inside the package (Module.__call__, forward, the functional)
    loss = tl.nn.MSELoss()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        loss(tl.ones(3, 1), tl.ones(3))
        tl.nn.functional.softmax(tl.ones(2, 3))  # a deprecation warning, two frames deep
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, line), (__file__, line + 1)]


def test_warning_locations_agree_with_pytorch():
    torch = pytest.importorskip("torch")
    for lib in (torch, tl):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.mse_loss(lib.ones(3, 1), lib.ones(3))
        (warning,) = [w for w in caught if "target size" in str(w.message)]
        assert warning.filename == __file__, lib.__name__
