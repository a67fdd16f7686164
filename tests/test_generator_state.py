"""``Generator.get_state``/``set_state`` in PyTorch's CPU layout: the same 5,056 bytes as
``torch.Generator`` after the same seeds and draws, and states that move between the two
libraries both ways and continue the same stream; ``Generator.device`` is a device."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tests.oracle import torch


def _draws(lib, gen, kind, n):
    if kind == "rand":
        return lib.rand(n, generator=gen)
    if kind == "randn64":  # the scalar Box-Muller path keeps a normal value in the state
        return lib.randn(n, generator=gen, dtype=lib.float64)
    return lib.randint(0, 1000, (n,), generator=gen)


@pytest.mark.parametrize("seed", [0, 5, 2**40 + 3])
def test_states_are_pytorchs_bytes_after_the_same_draws(seed):
    ours, theirs = tl.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
    assert np.array_equal(ours.get_state().numpy(), theirs.get_state().numpy())
    for kind, n in [("rand", 1), ("randn64", 3), ("randint", 100), ("rand", 623),
                    ("randn64", 1), ("rand", 5000)]:
        _draws(tl, ours, kind, n)
        _draws(torch, theirs, kind, n)
        state = ours.get_state()
        assert state.dtype == tl.uint8 and tuple(state.shape) == (5056,)
        assert np.array_equal(state.numpy(), theirs.get_state().numpy()), (kind, n)


def test_a_state_moves_between_the_libraries_and_continues_the_stream():
    theirs = torch.Generator().manual_seed(7)
    torch.rand(10, generator=theirs)
    torch.randn(3, generator=theirs, dtype=torch.float64)  # leaves a kept normal value
    ours = tl.Generator().set_state(tl.tensor(theirs.get_state().numpy()))
    assert ours.initial_seed() == 7
    np.testing.assert_array_equal(tl.randn(5, generator=ours, dtype=tl.float64).numpy(),
                                  torch.randn(5, generator=theirs, dtype=torch.float64).numpy())
    theirs.set_state(torch.from_numpy(ours.get_state().numpy()))
    np.testing.assert_array_equal(tl.rand(700, generator=ours).numpy(),
                                  torch.rand(700, generator=theirs).numpy())


def test_set_state_restores_and_refuses_what_is_not_a_state():
    gen = tl.Generator().manual_seed(3)
    saved = gen.get_state()
    first = tl.rand(4, generator=gen)
    gen.set_state(saved)
    assert tl.equal(tl.rand(4, generator=gen), first)
    with pytest.raises(TypeError, match="uint8"):
        gen.set_state(tl.zeros(5056))
    with pytest.raises(RuntimeError, match="5056 bytes"):
        gen.set_state(tl.zeros(10, dtype=tl.uint8))
    with pytest.raises(RuntimeError, match="not a generator state"):
        gen.set_state(tl.zeros(5056, dtype=tl.uint8))  # left = 0


def test_generator_device_is_a_device():
    gen = tl.Generator()
    assert isinstance(gen.device, tl.device) and gen.device == tl.device("cpu")
    assert repr(gen.device) == repr(torch.Generator().device)
