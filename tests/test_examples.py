"""Smoke tests: every example runs end to end with few steps."""

import importlib.util
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mlp_moons_learns(capsys):
    accuracy = load("mlp_moons").main(["--steps", "150"])
    assert accuracy > 0.9
    assert "loss" in capsys.readouterr().out
