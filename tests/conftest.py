"""Shared fixtures: every test starts from the same random state."""

import numpy as np
import pytest

import tinygrad_lite as tl


@pytest.fixture(autouse=True)
def _seed():
    tl.manual_seed(0)
    np.random.seed(0)
    yield
