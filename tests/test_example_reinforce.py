"""examples/reinforce_bandit.py learns: a short run's average return climbs well above what
random play (the mean of the arms' means) can reach."""

from __future__ import annotations

import importlib.util
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "reinforce_bandit.py"


def load_example():
    """The example as a module."""
    spec = importlib.util.spec_from_file_location("reinforce_bandit_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reinforce_return_rises(capsys):
    example = load_example()
    means = example.make_bandit(10, 0)
    final = example.main(["--steps", "150", "--seed", "0"])
    out = capsys.readouterr().out
    assert "final average return" in out
    # random play averages means.mean(); require most of the way to the best arm
    threshold = means.mean() + 0.7 * (means.max() - means.mean())
    assert final > threshold, (final, threshold, means.max())
