"""The modified Bessel functions of the first kind of orders 0 and 1 as differentiable ops:
``i0``, ``i0e``, ``i1`` and ``i1e`` (``e``: scaled by ``exp(-|x|)``).

Values come from Cephes' Chebyshev expansions (``i0.c``, ``i1.c``, PyTorch's too), in float64
and rounded to the input's dtype: the scaled functions stay finite for every argument (``i0e``
is ~0.4 / sqrt|x| far out, 0 at infinity) and the unscaled ones overflow to inf only where the
value does. The backward rules are PyTorch's: ``i0' = i1``, ``i0e' = i1e - sgn(x) i0e``,
``i1' = i0 - i1 / x`` and ``i1e' = i0e - i1e (sgn(x) + 1 / x)``, the last two 0.5 where
``|x| <= eps`` (where ``i1 / x`` would be 0 / 0). They are written with these same ops, so
they differentiate again under ``create_graph``. ``special/_bessel_kernels.py`` builds the
unscaled ``modified_bessel_*`` and the K functions on ``i_scaled`` and ``chbevl``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._core.graph import Node
from .._core.tensor_base import TensorBase
from ..dtypes import finfo_of, get_default_dtype, is_float_dtype
from .common import array_of, is_array, unary_result, unary_rule
from .elementwise import cast, where_rule

__all__ = ["i0", "i0e", "i1", "i1e", "i_scaled", "i_unscaled", "chbevl"]


def chbevl(y: np.ndarray, coeffs: Sequence[float]) -> np.ndarray:
    """The Chebyshev series ``sum' c_i T_i(y / 2)`` by Clenshaw's recurrence (Cephes' chbevl)."""
    b0, b1, b2 = np.full_like(y, coeffs[0]), np.zeros_like(y), np.zeros_like(y)
    for c in coeffs[1:]:
        b2, b1 = b1, b0
        b0 = y * b1 - b2 + c
    return 0.5 * (b0 - b2)


# Cephes' Chebyshev coefficients: I0 and I1 scaled, on [0, 8] (A) and (8, inf) (B)
_I0_A = (-4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
         1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
         -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
         9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-09,
         -1.30002500998624804212e-08, 6.04699502254191894932e-08, -2.67079385394061173391e-07,
         1.11738753912010371815e-06, -4.41673835845875056359e-06, 1.64484480707288970893e-05,
         -5.75419501008210370398e-05, 1.88502885095841655729e-04, -5.76375574538582365885e-04,
         1.63947561694133579842e-03, -4.32430999505057594430e-03, 1.05464603945949983183e-02,
         -2.37374148058994688156e-02, 4.93052842396707084878e-02, -9.49010970480476444210e-02,
         1.71620901522208775349e-01, -3.04682672343198398683e-01, 6.76795274409476084995e-01)
_I0_B = (-7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
         3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
         1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
         -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
         7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
         -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
         3.39623202570838634515e-09, 2.26666899049817806459e-08, 2.04891858946906374183e-07,
         2.89137052083475648297e-06, 6.88975834691682398426e-05, 3.36911647825569408990e-03,
         8.04490411014108831608e-01)
_I1_A = (2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16,
         -1.10559694773538630805e-15, 7.60068429473540693410e-15, -5.04218550472791168711e-14,
         3.22379336594557470981e-13, -1.98397439776494371520e-12, 1.17361862988909016308e-11,
         -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-09,
         9.38153738649577178388e-09, -4.44505912879632808065e-08, 2.00329475355213526229e-07,
         -8.56872026469545474066e-07, 3.47025130813767847674e-06, -1.32731636560394358279e-05,
         4.78156510755005422638e-05, -1.61760815825896745588e-04, 5.12285956168575772895e-04,
         -1.51357245063125314899e-03, 4.15642294431288815669e-03, -1.05640848946261981558e-02,
         2.47264490306265168283e-02, -5.29459812080949914269e-02, 1.02643658689847095384e-01,
         -1.76416518357834055153e-01, 2.52587186443633654823e-01)
_I1_B = (7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17,
         -3.20952592199342395980e-17, 2.96262899764595013876e-16, 3.30820231092092828324e-16,
         -1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
         4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
         -7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11,
         3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10,
         -3.83538038596423702205e-09, -2.63146884688951950684e-08, -2.51223623787020892529e-07,
         -3.88256480887769039346e-06, -1.10588938762623716291e-04, -9.76109749136146840777e-03,
         7.78576235018280120474e-01)


def i_scaled(x: np.ndarray, order: int) -> np.ndarray:
    """``exp(-|x|) I_order(|x|)`` on a float64 array (Chebyshev expansions in |x|/2 - 2 up to
    8 and in 32/|x| - 2 above); 0 at infinity."""
    ax = np.abs(x)
    a, b = (_I0_A, _I0_B) if order == 0 else (_I1_A, _I1_B)
    with np.errstate(all="ignore"):
        small = chbevl(ax / 2.0 - 2.0, a) * (ax if order else 1.0)
        large = chbevl(32.0 / ax - 2.0, b) / np.sqrt(ax)
        return np.where(ax <= 8.0, small, large)


def _odd(x: np.ndarray, value: np.ndarray) -> np.ndarray:
    """``value`` (computed at |x|) with the sign of x: I1 is odd (and I1(-0) is +0, PyTorch's)."""
    return np.where(x < 0, -value, value)


def i_unscaled(x: np.ndarray, order: int) -> np.ndarray:
    """``I_order(x)`` on a float64 array: ``exp(|x|)`` times the scaled value, I1 odd (NaN at
    +-inf, inf * 0)."""
    with np.errstate(over="ignore", invalid="ignore"):
        value = np.exp(np.abs(x)) * i_scaled(x, order)
    return _odd(x, value) if order else value


def _scaled_kernel(order: int) -> Callable[[np.ndarray], np.ndarray]:
    def kernel(x: np.ndarray) -> np.ndarray:
        a = np.asarray(x)
        value = i_scaled(a.astype(np.float64), order)
        return np.asarray(_odd(a, value) if order else value).astype(a.dtype, copy=False)
    return kernel


def _unscaled_kernel(order: int) -> Callable[[np.ndarray], np.ndarray]:
    def kernel(x: np.ndarray) -> np.ndarray:
        a = np.asarray(x)
        x64 = a.astype(np.float64)
        value = i_unscaled(x64, order)
        # +-inf at +-inf (PyTorch's exp(x) * ... / sqrt(x) gives inf * 0 = NaN there)
        value = np.where(np.isinf(x64), np.inf if not order else np.copysign(np.inf, x64), value)
        return np.asarray(value).astype(a.dtype, copy=False)
    return kernel


_i0_numpy, _i1_numpy = _unscaled_kernel(0), _unscaled_kernel(1)
_i0e_numpy, _i1e_numpy = _scaled_kernel(0), _scaled_kernel(1)


def _apply(kernel: Callable[[np.ndarray], np.ndarray], x: Any) -> Any:
    """``kernel`` on an array (a plain backward), or its recorded op on a tensor."""
    return kernel(x) if is_array(x) else _OPS[kernel](x)


def _near_zero(x: Any) -> tuple[np.ndarray, Any]:
    """PyTorch's guard for ``1 / x``: the mask ``|x| <= eps`` and ``x`` with eps there."""
    data = np.asarray(array_of(x))
    tiny = np.abs(data) <= finfo_of(data.dtype).eps  # (NaN is not tiny: it stays NaN)
    return tiny, where_rule(tiny, float(finfo_of(data.dtype).eps), x) if tiny.any() else x


class I0Backward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad * _apply(_i1_numpy, x),)


class SpecialI0EBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad * (_apply(_i1e_numpy, x) - unary_rule("sign", x) * self.saved_output()),)


class SpecialI1Backward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        tiny, safe = _near_zero(x)
        slope = _apply(_i0_numpy, safe) - self.saved_output() / safe
        return (grad * (where_rule(tiny, 0.5, slope) if tiny.any() else slope),)


class SpecialI1EBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        tiny, safe = _near_zero(x)
        slope = _apply(_i0e_numpy, safe) - self.saved_output() * (unary_rule("sign", safe)
                                                                   + 1.0 / safe)
        return (grad * (where_rule(tiny, 0.5, slope) if tiny.any() else slope),)


def _op(kernel: Callable[[np.ndarray], np.ndarray], node: type[Node], x: TensorBase,
        output: bool) -> TensorBase:
    if not is_float_dtype(x._data.dtype):  # integers and bool: the default float dtype
        x = cast(x, get_default_dtype().np)
    out = unary_result(kernel(x._data), x, node, save="input")
    if output and out.grad_fn is not None:
        out.grad_fn.save_output(out)
    return out


def i0(x: TensorBase) -> TensorBase:
    """The modified Bessel function of the first kind, order 0."""
    return _op(_i0_numpy, I0Backward0, x, False)


def i0e(x: TensorBase) -> TensorBase:
    """``i0`` scaled by ``exp(-|x|)``."""
    return _op(_i0e_numpy, SpecialI0EBackward0, x, True)


def i1(x: TensorBase) -> TensorBase:
    """The modified Bessel function of the first kind, order 1."""
    return _op(_i1_numpy, SpecialI1Backward0, x, True)


def i1e(x: TensorBase) -> TensorBase:
    """``i1`` scaled by ``exp(-|x|)``."""
    return _op(_i1e_numpy, SpecialI1EBackward0, x, True)


_OPS: dict[Callable, Callable] = {_i0_numpy: i0, _i1_numpy: i1, _i0e_numpy: i0e,
                                  _i1e_numpy: i1e}
