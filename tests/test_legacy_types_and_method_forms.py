"""``tl.typename``, ``tl.set_default_tensor_type`` (``_tensor/legacy.py``), ``tl.binomial``
(``_random_sampling.py``), the function forms ``tl.real``/``tl.imag`` (``_method_forms.py``) and
``tl.GradScaler``, against PyTorch."""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")



def test_typename_matches_torch():
    for make in (lambda m: m.ones(2), lambda m: m.ones(2, dtype=m.int64),
                 lambda m: m.ones(2, dtype=m.bool), lambda m: 3, lambda m: None,
                 lambda m: len, lambda m: m.nn.Parameter(m.ones(2))):
        assert tl.typename(make(tl)) == torch.typename(make(torch))
    assert tl.typename(tl.nn.Linear(1, 1)) == "tinygrad_lite.nn.modules.linear.Linear"



def test_set_default_tensor_type_and_binomial():
    try:
        with pytest.warns(UserWarning, match="deprecated"):
            tl.set_default_tensor_type("torch.DoubleTensor")
        assert tl.get_default_dtype() == tl.float64
        with pytest.warns(UserWarning):
            tl.set_default_tensor_type(tl.FloatTensor)
        assert tl.get_default_dtype() == tl.float32
        with pytest.warns(UserWarning), pytest.raises(TypeError):
            tl.set_default_tensor_type(tl.LongTensor)
    finally:
        tl.set_default_dtype(tl.float32)
    draws = tl.binomial(tl.full((2000,), 10.0), tl.full((2000,), 0.3))
    assert draws.dtype == tl.float32 and abs(draws.mean().item() - 3.0) < 0.2
    assert (draws.numpy() == np.round(draws.numpy())).all()
    for lib in (tl, torch):
        with pytest.raises(ValueError, match="floating-point"):
            lib.binomial(lib.tensor([10, 0]), lib.tensor([0.5, 0.3]))



def test_real_imag_and_grad_scaler():
    x = tl.ones(3)
    assert tl.real(x) is x
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="imag is not implemented"):
            lib.imag(lib.ones(3))
    assert tl.GradScaler is tl.amp.GradScaler
