"""tl.quasirandom.SobolEngine: the Sobol' points, their bookkeeping, errors, and PyTorch's
unscrambled points bit for bit (when PyTorch is installed)."""

import subprocess
import sys

import numpy as np
import pytest

import tinygrad_lite as tl

pytest.importorskip("scipy")


def test_first_points_are_the_sobol_sequence() -> None:
    """The textbook start of the 2-D sequence, in the default float dtype."""
    points = tl.quasirandom.SobolEngine(2).draw(4)
    assert points.dtype == tl.float32
    np.testing.assert_array_equal(points.numpy(), [[0, 0], [0.5, 0.5], [0.75, 0.25],
                                                   [0.25, 0.75]])


def test_counting_reset_fast_forward_and_out() -> None:
    """num_generated counts draws and skips; reset restarts; fast_forward skips; out= fills."""
    engine = tl.quasirandom.SobolEngine(3)
    everything = engine.draw(20, dtype=tl.float64)
    engine.reset()
    assert engine.num_generated == 0
    first = engine.draw(5, dtype=tl.float64)
    assert engine.fast_forward(7) is engine and engine.num_generated == 12
    np.testing.assert_array_equal(first.numpy(), everything.numpy()[:5])
    np.testing.assert_array_equal(engine.draw(8, dtype=tl.float64).numpy(),
                                  everything.numpy()[12:])
    out = tl.empty(0)
    assert engine.reset().draw(4, out=out) is out and out.shape == (4, 3)
    np.testing.assert_array_equal(out.numpy(), everything.numpy()[:4].astype(np.float32))


def test_draw_base2_keeps_the_total_a_power_of_two() -> None:
    """draw_base2 refuses a draw that leaves a total which is not a power of 2."""
    engine = tl.quasirandom.SobolEngine(2)
    assert engine.draw_base2(3).shape == (8, 2)
    assert engine.draw_base2(3).shape == (8, 2)  # 16 in all
    with pytest.raises(ValueError, match="power of 2.*16 points have been previously"):
        engine.draw_base2(1)


def test_scrambled_points_are_reproducible_and_in_the_unit_cube() -> None:
    """A seed fixes the scramble; without one, tl.manual_seed does."""
    a = tl.quasirandom.SobolEngine(4, scramble=True, seed=3).draw(64)
    b = tl.quasirandom.SobolEngine(4, scramble=True, seed=3).draw(64)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert 0 <= a.min().item() and a.max().item() < 1
    assert not np.array_equal(a.numpy(), tl.quasirandom.SobolEngine(4).draw(64).numpy())
    tl.manual_seed(5)
    c = tl.quasirandom.SobolEngine(4, scramble=True).draw(16)
    tl.manual_seed(5)
    np.testing.assert_array_equal(c.numpy(),
                                  tl.quasirandom.SobolEngine(4, scramble=True).draw(16).numpy())
    # each coordinate of 2^k scrambled points still has one point per interval of width 2^-k
    counts = np.histogram(a.numpy()[:, 0], bins=64, range=(0, 1))[0]
    assert (counts == 1).all()


def test_errors_and_repr() -> None:
    """Dimensions outside [1, 21201] are a ValueError; the repr names the settings."""
    for bad in (0, 21202):
        with pytest.raises(ValueError, match=r"\[1, 21201\]"):
            tl.quasirandom.SobolEngine(bad)
    assert repr(tl.quasirandom.SobolEngine(5)) == "SobolEngine(dimension=5)"
    assert repr(tl.quasirandom.SobolEngine(5, scramble=True, seed=2)) == \
        "SobolEngine(dimension=5, scramble=True, seed=2)"


def test_matches_pytorch_bit_for_bit() -> None:
    """Unscrambled points, fast_forward and draw_base2 equal PyTorch's, float32 and float64."""
    torch = pytest.importorskip("torch")
    for dimension in (1, 7, 1000):
        ours = tl.quasirandom.SobolEngine(dimension)
        theirs = torch.quasirandom.SobolEngine(dimension)
        for n in (1, 30, 97):
            np.testing.assert_array_equal(ours.draw(n).numpy(), theirs.draw(n).numpy())
        ours.fast_forward(11)
        theirs.fast_forward(11)
        np.testing.assert_array_equal(ours.draw(5, dtype=tl.float64).numpy(),
                                      theirs.draw(5, dtype=torch.float64).numpy())
        ours.reset()
        theirs.reset()
        np.testing.assert_array_equal(ours.draw_base2(5).numpy(), theirs.draw_base2(5).numpy())


def test_without_scipy_the_error_says_how_to_install_it() -> None:
    """With SciPy unimportable, constructing an engine raises ImportError naming the extra."""
    code = ("import sys; sys.modules['scipy'] = None\n"
            "import tinygrad_lite as tl\n"
            "try:\n    tl.quasirandom.SobolEngine(2)\n"
            "except ImportError as err:\n    print(err)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert "tinygrad-lite[fast]" in done.stdout
