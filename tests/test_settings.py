"""Process-wide settings (``_settings.py``, ``amp.state``): the anomaly, float32-matmul-precision,
denormal, warn-always, thread and determinism switches and the autocast ones, as PyTorch's."""

import importlib.util
import warnings

import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")



def test_anomaly_switches():
    assert not tl.is_anomaly_enabled() and tl.is_anomaly_check_nan_enabled()
    try:
        tl.set_anomaly_enabled(True, False)
        assert tl.is_anomaly_enabled() and not tl.is_anomaly_check_nan_enabled()
    finally:
        tl.set_anomaly_enabled(False)
    assert not tl.is_anomaly_enabled() and tl.is_anomaly_check_nan_enabled()



def test_process_switches():
    assert tl.get_float32_matmul_precision() == "highest"
    try:
        tl.set_float32_matmul_precision("medium")
        assert tl.get_float32_matmul_precision() == "medium"
        with pytest.warns(UserWarning, match="not one of"):
            tl.set_float32_matmul_precision("foo")
        assert tl.get_float32_matmul_precision() == "medium"
    finally:
        tl.set_float32_matmul_precision("highest")
    assert tl.set_flush_denormal(True) is False
    assert not tl.is_warn_always_enabled()
    tl.set_warn_always(True)
    assert tl.is_warn_always_enabled()
    tl.set_warn_always(False)
    assert tl.get_device(tl.ones(2)) == torch.get_device(torch.ones(2)) == -1
    assert tl.is_signed(tl.ones(2)) and not tl.is_signed(tl.ones(2, dtype=tl.uint8))
    assert not tl.is_signed(tl.ones(2, dtype=tl.bool))
    assert not tl.is_inference(tl.ones(2)) and not tl.is_distributed(tl.ones(2))
    assert isinstance(tl.default_generator, tl.Generator)
    tl.manual_seed(5)
    assert tl.default_generator.initial_seed() == 5
    assert tl.version.__version__ == tl.__version__ and tl.version.cuda is None



def test_deterministic_debug_mode():
    try:
        for mode, (on, warn_only) in [("warn", (True, True)), (2, (True, False)),
                                      ("default", (False, False)), (1, (True, True))]:
            tl.set_deterministic_debug_mode(mode)
            assert tl.are_deterministic_algorithms_enabled() is on
            assert tl.is_deterministic_algorithms_warn_only_enabled() is warn_only
            assert tl.get_deterministic_debug_mode() == {"warn": 1, "default": 0}.get(mode, mode)
        for bad in ("x", 5):
            with pytest.raises(RuntimeError, match="invalid value of debug_mode"):
                tl.set_deterministic_debug_mode(bad)
    finally:
        tl.set_deterministic_debug_mode(0)



def test_autocast_switches():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert not tl.is_autocast_enabled("cpu") and not tl.is_autocast_cpu_enabled()
        # PyTorch's CPU default (float16 where ml_dtypes, which bfloat16 needs, is missing)
        default = tl.bfloat16 if importlib.util.find_spec("ml_dtypes") else tl.float16
        assert tl.get_autocast_dtype("cpu") == default == tl.get_autocast_cpu_dtype()
        assert tl.is_autocast_cache_enabled() and not tl.is_autocast_enabled()
        with tl.autocast("cpu"):
            assert tl.is_autocast_enabled("cpu") and not tl.is_autocast_enabled()
        a = tl.ones(2, 2)
        try:
            tl.set_autocast_enabled("cpu", True)
            assert tl.is_autocast_enabled("cpu") and (a @ a).dtype == default
            tl.set_autocast_dtype("cpu", tl.float32)
            assert (a @ a).dtype == tl.float32 and tl.get_autocast_dtype("cpu") == tl.float32
        finally:
            tl.set_autocast_enabled("cpu", False)
        try:
            # regions start in the configured dtype (float32: refused with PyTorch's warning)
            with pytest.warns(UserWarning, match="not supported"), tl.autocast("cpu") as region:
                assert region.fast_dtype == tl.float32 and not tl.is_autocast_enabled("cpu")
            tl.set_autocast_cpu_dtype(tl.float16)
            tl.set_autocast_cpu_enabled(True)
            assert tl.is_autocast_enabled("cpu") and (a @ a).dtype == tl.float16
        finally:
            tl.set_autocast_cpu_enabled(False)
            tl.set_autocast_dtype("cpu", default)
        assert (a @ a).dtype == tl.float32
        tl.set_autocast_enabled(True)  # PyTorch's older (CUDA) form: no effect on the CPU
        assert tl.is_autocast_enabled() and (a @ a).dtype == tl.float32
        tl.set_autocast_enabled(False)
        tl.set_autocast_cache_enabled(False)
        assert not tl.is_autocast_cache_enabled()
        tl.set_autocast_cache_enabled(True)
        with pytest.raises(RuntimeError, match="device type"):
            tl.set_autocast_dtype("foo", tl.float16)
    with pytest.warns(DeprecationWarning, match="is_autocast_cpu_enabled"):
        tl.is_autocast_cpu_enabled()
