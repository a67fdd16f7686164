"""tl.testing.assert_close / assert_allclose: PyTorch's semantics, error types and messages.

The messages are checked literally here (no torch needed), and, where torch is installed, a
table of cases is run through both libraries and the messages compared word for word (with
``torch.`` in type names standing for ``tinygrad_lite.``)."""

import math
import re
import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.testing import assert_allclose, assert_close


def fails(kind, fn, *args, **kwargs) -> str:
    """The message of the ``kind`` exception ``fn(*args, **kwargs)`` raises."""
    with pytest.raises(kind) as info:
        fn(*args, **kwargs)
    assert type(info.value) is kind
    return str(info.value)


def test_importable_three_ways():
    import tinygrad_lite.testing as testing_module

    assert tl.testing is testing_module
    assert tl.testing.assert_close is assert_close
    assert "testing" in tl.__all__


def test_close_tensors_pass_and_default_tolerances_per_dtype():
    assert_close(tl.tensor([1.0, 2.0]), tl.tensor([1.0, 2.0 + 1e-6]))  # float32: 1.3e-6, 1e-5
    assert_close(tl.tensor([1.0], dtype=tl.float16), tl.tensor([1.0009], dtype=tl.float16))
    assert_close(tl.tensor([1.0], dtype=tl.float64), tl.tensor([1.0 + 1e-7], dtype=tl.float64))
    fails(AssertionError, assert_close, tl.tensor([1.0], dtype=tl.float64),
          tl.tensor([1.0 + 1e-6], dtype=tl.float64))
    fails(AssertionError, assert_close, tl.tensor([1.0]), tl.tensor([1.0001]))
    fails(AssertionError, assert_close, tl.tensor([3]), tl.tensor([4]))  # integers: exact


def test_tensor_message():
    text = fails(AssertionError, assert_close, tl.tensor([1.0, 2.0, 3.0]),
                 tl.tensor([1.0, 2.5, 3.1]))
    assert text == ("Tensor-likes are not close!\n\n"
                    "Mismatched elements: 2 / 3 (66.7%)\n"
                    "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
                    "Greatest relative difference: 0.20000000298023224 at index (1,) "
                    "(up to 1.3e-06 allowed)")


def test_index_of_greatest_difference_is_multidimensional():
    a = tl.arange(6.0).reshape(2, 3)
    text = fails(AssertionError, assert_close, a, a * 1.5)
    assert "Mismatched elements: 5 / 6 (83.3%)" in text
    assert "Greatest absolute difference: 2.5 at index (1, 2)" in text
    assert "Greatest relative difference: 0.3333333432674408 at index (0, 1)" in text


def test_integer_and_exact_comparisons_say_equal_without_tolerances():
    text = fails(AssertionError, assert_close, tl.tensor([1, 2, 3]), tl.tensor([1, 5, 0]))
    assert text == ("Tensor-likes are not equal!\n\nMismatched elements: 2 / 3 (66.7%)\n"
                    "Greatest absolute difference: 3 at index (1,)\n"
                    "Greatest relative difference: inf at index (2,)")
    text = fails(AssertionError, assert_close, tl.tensor([1.0]), tl.tensor([2.0]), rtol=0, atol=0)
    assert text.startswith("Tensor-likes are not equal!") and "allowed" not in text


def test_scalars_and_zero_dim_tensors():
    text = fails(AssertionError, assert_close, tl.tensor(1.0), tl.tensor(2.0))
    assert text == ("Scalars are not close!\n\nExpected 2.0 but got 1.0.\n"
                    "Absolute difference: 1.0 (up to 1e-05 allowed)\n"
                    "Relative difference: 0.5 (up to 1.3e-06 allowed)")
    text = fails(AssertionError, assert_close, 1, 2)
    assert text == ("Scalars are not equal!\n\nExpected 2 but got 1.\n"
                    "Absolute difference: 1\nRelative difference: 0.5")
    assert_close(1.0, 1.0 + 1e-8)
    assert_close(np.float32(2.0), np.float32(2.0))
    assert "The (d)types do not match: <class 'int'> != <class 'float'>." == fails(
        AssertionError, assert_close, 1, 1.0)
    assert_close(1, 1.0, check_dtype=False)
    text = fails(AssertionError, assert_close, True, False)
    assert text == "Booleans mismatch: True is not False"
    assert_close(np.bool_(True), True)
    assert fails(AssertionError, assert_close, None, 1) == "None mismatch: None is not 1"
    assert_close(None, None)


def test_attribute_mismatches():
    assert fails(AssertionError, assert_close, tl.zeros(2), tl.zeros(3)) == (
        "The values for attribute 'shape' do not match: tinygrad_lite.Size([2]) != "
        "tinygrad_lite.Size([3]).")
    assert fails(AssertionError, assert_close, tl.zeros(2), tl.zeros(2, dtype=tl.float64)) == (
        "The values for attribute 'dtype' do not match: tinygrad_lite.float32 != "
        "tinygrad_lite.float64.")
    assert_close(tl.zeros(2), tl.zeros(2, dtype=tl.float64), check_dtype=False)
    # promoted to a common dtype when not checked: int64 vs float32 compares in float32
    assert "0.20000000298023224" in fails(AssertionError, assert_close, tl.tensor([1, 2]),
                                          tl.tensor([1.0, 2.5]), check_dtype=False)
    t = tl.zeros(2, 3).t()
    assert_close(t, tl.zeros(3, 2))
    assert fails(AssertionError, assert_close, t, tl.zeros(3, 2), check_stride=True) == (
        "The values for attribute 'stride()' do not match: (1, 3) != (2, 1).")


def test_nested_containers_report_the_path():
    text = fails(AssertionError, assert_close, {"a": tl.zeros(2), "b": [1, tl.ones(3)]},
                 {"a": tl.zeros(2), "b": [1, tl.zeros(3)]})
    assert text.endswith("\n\nThe failure occurred for item ['b'][1]")
    assert text.startswith("Tensor-likes are not close!")
    assert_close((1, 2.0, [tl.ones(1)]), [1, 2.0, (tl.ones(1),)])  # any sequence types
    assert fails(AssertionError, assert_close, [1, 2], [1]) == (
        "The length of the sequences mismatch: 2 != 1")
    assert fails(AssertionError, assert_close, {"a": 1, "c": 2}, {"a": 1, "b": 2}) == (
        "The keys of the mappings do not match:\nMissing keys in the actual mapping: ['b']\n"
        "Additional keys in the actual mapping: ['c']")


def test_type_and_value_errors():
    assert fails(TypeError, assert_close, tl.zeros(2), np.zeros(2)) == (
        "No comparison pair was able to handle inputs of type <class "
        "'tinygrad_lite.Tensor'> and <class 'numpy.ndarray'>.")
    fails(TypeError, assert_close, tl.tensor(1.0), 1.0)
    fails(TypeError, assert_close, "a", "a")
    fails(TypeError, assert_close, {1}, {1})
    fails(TypeError, assert_close, tl.nn.Parameter(tl.zeros(2)), tl.zeros(2),
          allow_subclasses=False)
    assert_close(tl.nn.Parameter(tl.zeros(2)), tl.zeros(2))
    assert fails(ValueError, assert_close, tl.zeros(2), tl.zeros(2), rtol=1e-3) == (
        "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol.")
    assert "but got no rtol" in fails(ValueError, assert_close, 1.0, 1.0, atol=1e-3)
    assert "Originating a NumberPair()" in fails(RuntimeError, assert_close, True, 1)


def test_numpy_arrays_are_tensor_likes():
    assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.0]))
    text = fails(AssertionError, assert_close, np.array([1.0, 2.0]), np.array([1.0, 3.0]))
    assert "(up to 1e-07 allowed)" in text  # float64 tolerances
    assert "'dtype' do not match" in fails(AssertionError, assert_close,
                                           np.zeros(2, np.float32), np.zeros(2))


def test_custom_message_string_or_callable():
    assert fails(AssertionError, assert_close, tl.zeros(2), tl.ones(2), msg="custom") == "custom"
    assert fails(AssertionError, assert_close, tl.zeros(2), tl.ones(3), msg="custom") == "custom"
    text = fails(AssertionError, assert_close, [tl.zeros(2)], [tl.ones(2)],
                 msg=lambda m: "X" + m + "Y")
    assert text.startswith("XTensor-likes") and text.endswith("item [0]Y")
    # structural errors keep their own message, as in PyTorch
    assert fails(AssertionError, assert_close, [1], [1, 2], msg="custom").startswith("The length")


def test_nan_inf_and_requires_grad():
    nan, inf = math.nan, math.inf
    text = fails(AssertionError, assert_close, tl.tensor([nan, 1.0]), tl.tensor([nan, 1.0]))
    assert "Greatest absolute difference: nan at index (0,)" in text
    assert_close(tl.tensor([nan, 1.0]), tl.tensor([nan, 1.0]), equal_nan=True)
    assert_close(tl.tensor([inf, -inf]), tl.tensor([inf, -inf]))
    text = fails(AssertionError, assert_close, tl.tensor([inf, 1.0]), tl.tensor([-inf, 1.0]))
    assert "absolute difference: inf" in text and "relative difference: nan" in text
    fails(AssertionError, assert_close, tl.tensor([inf]), tl.tensor([5.0]))
    fails(AssertionError, assert_close, nan, nan)
    assert_close(nan, nan, equal_nan=True)
    assert_close(inf, inf)
    x = tl.ones(2, requires_grad=True)
    assert_close(x * 2, tl.full((2,), 2.0))
    fails(AssertionError, assert_close, x * 2, tl.ones(2))


def test_empty_bool_and_unsigned():
    assert_close(tl.zeros(0), tl.zeros(0))
    text = fails(AssertionError, assert_close, tl.tensor([True, False]), tl.tensor([True, True]))
    assert "Greatest absolute difference: 1 at index (1,)" in text
    assert_close(tl.tensor([True]), tl.tensor([False]), rtol=1.0, atol=1.0)
    text = fails(AssertionError, assert_close, tl.tensor([1, 200], dtype=tl.uint8),
                 tl.tensor([3, 2], dtype=tl.uint8))
    assert "Greatest absolute difference: 198 at index (1,)" in text  # no uint8 wrap-around


def test_assert_allclose_is_deprecated_with_looser_defaults():
    with pytest.warns(FutureWarning, match="assert_allclose"):
        assert_allclose(tl.tensor([1.0, 2.0]), [1.0, 2.00001])  # float32: rtol 1e-4
    with pytest.warns(FutureWarning):
        assert_allclose(tl.tensor([math.nan]), [math.nan])  # equal_nan=True by default
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        text = fails(AssertionError, assert_allclose, tl.tensor([1.0, 2.0]), [1.0, 2.1])
        assert "(up to 0.0001 allowed)" in text
        assert fails(AssertionError, assert_allclose, [1.0], [2.0], msg="m") == "m"


def _cases(lib):
    t = lib.tensor
    return {
        "vec": (t([1.0, 2.0, 3.0]), t([1.0, 2.5, 3.1]), {}),
        "f16": (t([1.0, 2.0], dtype=lib.float16), t([1.0, 2.01], dtype=lib.float16), {}),
        "ints": (t([1, 2, 3]), t([1, 5, 0]), {}),
        "bigint": (t([2 ** 62]), t([-(2 ** 62)]), {}),
        "rel_int": (t([1, 2, 3]), t([1, 3, 3]), {}),
        "tol_ints": (t([1, 2]), t([1, 4]), {"rtol": 0.1, "atol": 0.5}),
        "mixed": (t([1, 2], dtype=lib.int32), t([1.0, 2.5]), {"check_dtype": False}),
        "bool_f": (t([True, False]), t([1.0, 0.5]), {"check_dtype": False}),
        "3d": (lib.arange(24.0).reshape(2, 3, 4),
               lib.arange(24.0).reshape(2, 3, 4) + t([[[0.0, 0.0, 0.0, 1e-3]]]), {}),
        "scalar_int": (t(1), t(3), {}),
        "scalar_bool": (t(True), t(False), {}),
        "zero_expected": (t([0.5, 1.0]), t([0.0, 1.0]), {}),
        "nested": ({"a": [{"b": lib.zeros(1)}]}, {"a": [{"b": lib.ones(1)}]}, {}),
        "sizes": (lib.zeros(2, 3).shape, lib.zeros(2, 4).shape, {}),
        "complex_numbers": (1 + 1j, 1 + 2j, {}),
        "tensor_vs_list": (t([1.0]), [1.0], {}),
    }


@pytest.mark.parametrize("case", sorted(_cases(tl)))
def test_messages_match_torch(case):
    torch = pytest.importorskip("torch")
    outcomes = []
    for lib, fn in ((torch, torch.testing.assert_close), (tl, assert_close)):
        actual, expected, options = _cases(lib)[case]
        try:
            fn(actual, expected, **options)
            outcomes.append("passed")
        except Exception as err:  # noqa: BLE001 - the type and text are what is compared
            outcomes.append(f"{type(err).__name__}: {err}")
    ours = re.sub(r"tinygrad_lite\.tensor\.Tensor", "torch.Tensor", outcomes[1])
    assert outcomes[0] == ours.replace("tinygrad_lite.", "torch.")
