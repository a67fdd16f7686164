"""PyTorch's type promotion, casting and integer/bool arithmetic, checked against PyTorch itself:
result dtypes and values of binary ops across dtypes and tiers (n-d, 0-d, Python numbers),
float-valued ops on integers, ``alpha``, in-place casting rules, integer division by zero,
integer powers, comparisons with out-of-range numbers, and the default dtype."""

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

INTS = ["uint8", "int8", "int16", "int32", "int64"]


def _same(ours, theirs):
    """Equal dtype names and values (NaN-aware, float tolerance for half types)."""
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    a = ours.detach().to(tl.float64).numpy() if ours.dtype != tl.bool else ours.numpy()
    b = theirs.detach().to(torch.float64).numpy() if theirs.dtype != torch.bool \
        else theirs.numpy()
    np.testing.assert_allclose(a, b, rtol=1e-6, equal_nan=True)


def _both(fn):
    """``fn`` run on tinygrad_lite and on PyTorch, compared."""
    _same(fn(tl), fn(torch))


@pytest.fixture
def default_dtype():
    """Restores the default dtype of both libraries after a test that changes it."""
    yield
    tl.set_default_dtype(tl.float32)
    torch.set_default_dtype(torch.float32)


# -- float-valued ops on integers convert each operand from its own dtype ----------------------


@pytest.mark.parametrize("op", ["div", "true_divide", "atan2", "copysign"])
@pytest.mark.parametrize("other", ["int8", "int16", "int64"])
def test_uint8_with_zero_dim_signed_int_is_not_wrapped(op, other):
    # uint8 (n-d) and a 0-d int8 promote to uint8, but the float op must see -3, not 253
    _both(lambda lib: getattr(lib, op)(lib.tensor([0, 3, 250], dtype=lib.uint8),
                                   lib.tensor(-3, dtype=getattr(lib, other))))


@pytest.mark.parametrize("scalar", [2.5, -1.0, -2, 300])
@pytest.mark.parametrize("dt", ["bool", "uint8", "int8", "int64"])
def test_true_divide_with_number_first(scalar, dt):
    # a Python number dividend keeps its weak type and its value (float32, not float64)
    values = [True, True, False] if dt == "bool" else [2, 3, 5]
    _both(lambda lib: lib.true_divide(scalar, lib.tensor(values, dtype=getattr(lib, dt))))


# -- add/sub with alpha ------------------------------------------------------------------------


@pytest.mark.parametrize("a,b", [("bool", "bool"), ("uint8", "bool"), ("int8", "bool"),
                                 ("float32", "uint8"), ("float64", "uint8"),
                                 ("int16", "uint8")])
def test_add_alpha_promotes_operands_before_scaling(a, b):
    def run(lib):
        x = lib.tensor([1, 0, 1], dtype=getattr(lib, a))
        y = lib.tensor([True, False, True] if b == "bool" else [200, 3, 1], dtype=getattr(lib, b))
        return lib.add(x, y, alpha=2)
    _both(run)


def test_add_alpha_with_number_operand_and_rsub():
    _both(lambda lib: lib.add(2.5, lib.tensor([200, 1], dtype=lib.uint8), alpha=2))
    _both(lambda lib: lib.sub(lib.tensor([1.0, 2.0]), lib.tensor([200, 3], dtype=lib.uint8),
                              alpha=2))
    _both(lambda lib: lib.rsub(lib.tensor([1, 2]), lib.tensor([10, 20]), alpha=3))


@pytest.mark.parametrize("fn,message", [
    (lambda lib: lib.add(lib.tensor([1, 2]), lib.tensor([1, 2]), alpha=2.5), "alpha must not be"),
    (lambda lib: lib.add(lib.tensor([1.0]), lib.tensor([1.0]), alpha=True), "Boolean alpha"),
    (lambda lib: lib.sub(lib.tensor([1, 2]), lib.tensor([True, False]), alpha=2), "bool tensor"),
    (lambda lib: lib.sub(lib.tensor([True]), lib.tensor([True]), alpha=2), "two bool tensors"),
])
def test_alpha_errors_match_pytorch(fn, message):
    for lib in (torch, tl):
        with pytest.raises(RuntimeError, match=message):
            fn(lib)


# -- in-place ops: PyTorch's casting rule ------------------------------------------------------


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "floor_divide_", "remainder_", "pow_",
                                "__iand__", "__ilshift__"])
@pytest.mark.parametrize("other", ["int8", "int16", "int64"])
def test_inplace_signed_into_uint8_is_allowed(op, other):
    def run(lib):
        t = lib.tensor([4, 5, 6], dtype=lib.uint8)
        return getattr(t, op)(lib.tensor([2, 3, 1], dtype=getattr(lib, other)))
    _both(run)


def test_inplace_lower_category_is_refused():
    for lib in (torch, tl):
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            lib.tensor([1, 2]).add_(lib.tensor([0.5, 0.5]))
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            lib.tensor([True]).mul_(lib.tensor([2]))


def test_inplace_alpha_and_bool_pow():
    _both(lambda lib: lib.tensor([True, False, True]).add_(lib.tensor([True, True, False]),
                                                           alpha=2))
    _both(lambda lib: lib.tensor([4, 5], dtype=lib.uint8).add_(lib.tensor([True, False]), alpha=2))
    _both(lambda lib: lib.tensor([True, False]).pow_(True))


@pytest.mark.parametrize("a", ["bool", "uint8", "int16", "int64", "float16", "float32"])
@pytest.mark.parametrize("b", ["bool", "uint8", "int8", "int64", "float16", "float64"])
def test_can_cast_matches_pytorch(a, b):
    assert tl.can_cast(getattr(tl, a), getattr(tl, b)) == torch.can_cast(getattr(torch, a),
                                                                         getattr(torch, b))


# -- integer division, remainders and bool ------------------------------------------------------


@pytest.mark.parametrize("fn", [
    lambda lib, a, b: a // b, lambda lib, a, b: a % b, lambda lib, a, b: lib.fmod(a, b),
    lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"),
    lambda lib, a, b: lib.div(a, b, rounding_mode="floor"),
])
@pytest.mark.parametrize("dt", INTS)
def test_integer_division_by_zero_raises_runtime_error(fn, dt):
    for lib in (torch, tl):
        a = lib.tensor([1, 2], dtype=getattr(lib, dt))
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            fn(lib, a, lib.zeros(2, dtype=getattr(lib, dt)))
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            fn(lib, a, 0)


@pytest.mark.parametrize("fn", [
    lambda lib, a, b: a // b, lambda lib, a, b: a % b, lambda lib, a, b: lib.fmod(a, b),
    lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"), lambda lib, a, b: a ** b,
])
def test_bool_only_division_and_pow_are_not_implemented(fn):
    for lib in (torch, tl):
        with pytest.raises(NotImplementedError, match="Bool"):
            fn(lib, lib.tensor([True, False]), lib.tensor([True, True]))


def test_float_division_by_zero_gives_inf_and_nan():
    _both(lambda lib: lib.tensor([1, 0, -1]) / 0)
    _both(lambda lib: lib.tensor([1.0, 0.0, -1.0]) // 0.0)
    _both(lambda lib: lib.fmod(lib.tensor([1.0, -1.0]), 0.0))


# -- powers ------------------------------------------------------------------------------------


@pytest.mark.parametrize("fn,message", [
    (lambda lib: lib.tensor([2, 3], dtype=lib.uint8) ** -1, "negative integer powers"),
    (lambda lib: lib.tensor([True, False]) ** -1, "negative integer powers"),
    (lambda lib: lib.tensor([2, 3], dtype=lib.uint8) ** 300, "without overflow"),
    (lambda lib: lib.tensor([2], dtype=lib.int8) ** 200, "without overflow"),
])
def test_integer_pow_scalar_errors(fn, message):
    for lib in (torch, tl):
        with pytest.raises(RuntimeError, match=message):
            fn(lib)


def test_integer_and_bool_pow_values():
    _both(lambda lib: lib.tensor([True, False]) ** True)
    _both(lambda lib: lib.tensor([True, False]) ** False)
    _both(lambda lib: lib.tensor([True, False]) ** 2)
    _both(lambda lib: lib.tensor([2, 3], dtype=lib.uint8) ** lib.tensor(-1))  # a 0-d tensor wraps
    _both(lambda lib: lib.tensor([0, 1, 2, -1, -2]) ** lib.tensor([-1, -1, -1, -1, -3]))
    _both(lambda lib: 2 ** lib.tensor([1, 2, 3], dtype=lib.int8))


@pytest.mark.parametrize("a,b", [("float16", "int64"), ("int32", "float16"),
                                 ("float32", "float16"), ("bool", "int8"),
                                 ("float64", "float16")])
def test_ldexp_rounds_the_power_in_the_exponent_dtype(a, b):
    _both(lambda lib: lib.ldexp(lib.tensor([1, 2], dtype=getattr(lib, a)),
                                lib.tensor([3.5, -1], dtype=getattr(lib, b))))


def test_ldexp_integer_exponent_computes_in_the_result_dtype():
    _both(lambda lib: lib.ldexp(lib.tensor([1.0], dtype=lib.float64),
                                lib.tensor([200], dtype=lib.uint8)))


# -- comparisons and bitwise ops with Python numbers ---------------------------------------------


@pytest.mark.parametrize("number", [-2, 300, 2.5, 16777216.0])
@pytest.mark.parametrize("dt", ["uint8", "int8", "int64"])
def test_comparison_converts_the_number_to_the_promoted_dtype(number, dt):
    values = [0, 3, 100, 7] if dt != "int64" else [0, 3, 16777217, 7]
    for cmp in (lambda a, b: a < b, lambda a, b: a >= b, lambda a, b: a == b):
        _both(lambda lib, cmp=cmp: cmp(lib.tensor(values, dtype=getattr(lib, dt)), number))


@pytest.mark.parametrize("number", [True, 3, -2, 300])
@pytest.mark.parametrize("dt", ["bool", "uint8", "int32"])
def test_bitwise_with_number_first(number, dt):
    values = [True, False, True] if dt == "bool" else [1, 2, 250]
    for fn in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        _both(lambda lib, fn=fn: getattr(lib, fn)(number,
                                                  lib.tensor(values, dtype=getattr(lib, dt))))


# -- conversions -------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["uint8", "int8", "int32", "int64"])
def test_bfloat16_to_integer_converts_as_float32(target):
    _both(lambda lib: lib.tensor([-2.7, 2.7, 300.5, -300.5], dtype=lib.bfloat16)
          .to(getattr(lib, target)))


def test_full_and_fill_wrap_negative_ints_into_unsigned():
    _both(lambda lib: lib.full((2,), -1, dtype=lib.uint8))
    _both(lambda lib: lib.full((2,), -255, dtype=lib.uint8))
    _both(lambda lib: lib.zeros(2, dtype=lib.uint8).fill_(-1))
    for lib in (torch, tl):
        for fn in (lambda lib: lib.full((2,), 300, dtype=lib.int8),
                   lambda lib: lib.full((2,), -256, dtype=lib.uint8),
                   lambda lib: lib.zeros(2, dtype=lib.int8).fill_(128)):
            with pytest.raises(RuntimeError, match="without overflow"):
                fn(lib)


def test_reduction_dtype_argument_is_kept():
    _both(lambda lib: lib.tensor([1.5, 2.5]).sum(dtype=lib.int32))
    _both(lambda lib: lib.tensor([[1, 2], [3, 4]], dtype=lib.int8).sum(0, dtype=lib.int16))
    _both(lambda lib: lib.tensor([1.5, 2.5]).cumsum(0, dtype=lib.int32))
    _both(lambda lib: lib.tensor([100, 3], dtype=lib.int8).cumprod(0, dtype=lib.int8))
    _both(lambda lib: lib.tensor([True, True]).cumsum(0))


@pytest.mark.parametrize("dt", ["uint8", "int8", "int32"])
def test_integer_dot_keeps_its_dtype(dt):
    _both(lambda lib: lib.dot(lib.tensor([100, 3], dtype=getattr(lib, dt)),
                          lib.tensor([3, 3], dtype=getattr(lib, dt))))


# -- the default dtype -------------------------------------------------------------------------


@pytest.mark.parametrize("default", ["float64", "float16"])
@pytest.mark.parametrize("fn", [
    lambda lib: lib.arange(0, 1, 0.25), lambda lib: lib.arange(3.0),
    lambda lib: lib.tensor([1, 2]) / lib.tensor([2, 2]), lambda lib: lib.tensor([1, 2]) / 2,
    lambda lib: lib.true_divide(lib.tensor([1]), 2), lambda lib: lib.tensor([4, 9]).sqrt(),
    lambda lib: lib.tensor([1]).exp(), lambda lib: lib.atan2(lib.tensor([1]), lib.tensor([2])),
    lambda lib: lib.tensor([1, 2]).logsumexp(0), lambda lib: lib.tensor([1, 2]).clamp(min=0.5),
    lambda lib: lib.tensor([1, 2]) * 2.5, lambda lib: lib.tensor([1.0, 2.0]),
])
def test_integer_to_float_ops_follow_the_default_dtype(default, fn, default_dtype):
    tl.set_default_dtype(getattr(tl, default))
    torch.set_default_dtype(getattr(torch, default))
    _both(fn)
