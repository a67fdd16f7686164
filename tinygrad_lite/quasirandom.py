"""``tl.quasirandom`` (PyTorch's ``torch.quasirandom``): ``SobolEngine``, low-discrepancy points
in the unit cube.

The Sobol' sequence itself comes from SciPy (``scipy.stats.qmc.Sobol``, the ``fast`` extra),
which uses the same direction numbers (Joe and Kuo's, 21201 dimensions) and Gray-code order as
PyTorch: the unscrambled points are PyTorch's, bit for bit. Scrambled engines are scrambled by
SciPy's random matrices from a seed drawn here, so they are valid scrambled Sobol' points but
not PyTorch's draws for the same seed.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .dtypes import get_default_dtype
from .functions.creation import tensor
from .functions.generator import rng_of

__all__ = ["SobolEngine"]


def _scipy_sobol() -> Any:
    """SciPy's Sobol' engine class, or an ImportError saying how to get it."""
    try:
        from scipy.stats import qmc
    except ImportError:
        raise ImportError("tl.quasirandom.SobolEngine needs SciPy for the Sobol' direction "
                          "numbers: pip install 'tinygrad-lite[fast]' (or pip install scipy)"
                          ) from None
    return qmc.Sobol


class SobolEngine:
    """A generator of Sobol' points in ``[0, 1)^dimension``, optionally scrambled (``seed``
    makes a scrambled engine reproducible)."""

    MAXBIT = 30
    MAXDIM = 21201

    def __init__(self, dimension: int, scramble: bool = False, seed: int | None = None) -> None:
        if not 1 <= dimension <= self.MAXDIM:
            raise ValueError(f"Supported range of dimensionality for SobolEngine is "
                             f"[1, {self.MAXDIM}]")
        sobol = _scipy_sobol()
        self.dimension, self.scramble, self.seed = dimension, scramble, seed
        # without a seed, the scramble is drawn from tl's default generator (tl.manual_seed
        # makes it reproducible, as torch.manual_seed does for PyTorch's)
        draw_seed = seed if seed is not None else int(rng_of(None).integers(2**63 - 1))
        try:
            self._engine = sobol(dimension, scramble=scramble, bits=self.MAXBIT, rng=draw_seed)
        except TypeError:  # SciPy before 1.15 calls it seed
            self._engine = sobol(dimension, scramble=scramble, bits=self.MAXBIT, seed=draw_seed)
        self.num_generated = 0

    def draw(self, n: int = 1, out: Any = None, dtype: Any = None) -> Any:
        """The next ``n`` points, an (n, dimension) tensor (the default float dtype unless
        ``dtype``); with ``out``, written there and returned."""
        with warnings.catch_warnings():
            # SciPy warns unless n keeps the total a power of 2; PyTorch's draw() does not
            # (draw_base2 checks it instead)
            warnings.simplefilter("ignore", UserWarning)
            points = self._engine.random(n)
        self.num_generated += n
        result = tensor(np.asarray(points), dtype=dtype if dtype is not None
                        else get_default_dtype())
        if out is not None:
            out.resize_(*result.shape)
            out.copy_(result)
            return out
        return result

    def draw_base2(self, m: int, out: Any = None, dtype: Any = None) -> Any:
        """The next ``2 ** m`` points; the total drawn must stay a power of 2 (the balance
        property of the sequence)."""
        n = 2 ** m
        total = self.num_generated + n
        if total & (total - 1):
            raise ValueError(
                f"The balance properties of Sobol' points require n to be a power of 2. "
                f"{self.num_generated} points have been previously generated, then: "
                f"n={self.num_generated}+2**{m}={total}. If you still want to do this, please "
                f"use 'SobolEngine.draw()' instead.")
        return self.draw(n, out=out, dtype=dtype)

    def reset(self) -> SobolEngine:
        """Back to the first point (the same scramble)."""
        self._engine.reset()
        self.num_generated = 0
        return self

    def fast_forward(self, n: int) -> SobolEngine:
        """Skip the next ``n`` points."""
        self._engine.fast_forward(n)
        self.num_generated += n
        return self

    def __repr__(self) -> str:
        parts = [f"dimension={self.dimension}"]
        if self.scramble:
            parts.append("scramble=True")
        if self.seed is not None:
            parts.append(f"seed={self.seed}")
        return f"SobolEngine({', '.join(parts)})"
