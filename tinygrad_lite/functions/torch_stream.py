"""``TorchStream``: PyTorch's CPU random streams on NumPy, so a seeded program draws the numbers
PyTorch draws.

PyTorch's CPU generator is a 32-bit Mersenne Twister (MT19937) seeded with the low 32 bits of the
seed, as NumPy's own ``MT19937`` can be (its legacy seeding is the same ``init_genrand``). On
that stream PyTorch's kernels draw (``ATen/native/cpu/DistributionTemplates.h``,
``ATen/core/DistributionsHelper.h``):
- uniform float32 (``rand``, ``uniform_``, every ``nn.init`` uniform): one 32-bit word per value,
  ``(w & (2**24 - 1)) * 2**-24``, scaled to ``[from, to)`` in double, rounded once; float64: one
  64-bit value (two words, the first the high half), 53 bits; float16 / bfloat16: as float32,
  then rounded;
- integers in ``[low, high)`` (``randint``, ``random_``): ``w % (high - low) + low`` (a 64-bit
  value when the range needs more than 32 bits);
- ``randperm(n)``: Fisher-Yates from the front, ``j = i + w % (n - i)``;
- exponential: ``-log1p(-u) / rate`` of a uniform double; ``multinomial`` without replacement
  (or one sample) the largest ``weight / exponential`` (the Gumbel trick), with replacement a
  binary search of a uniform double in the row's running sum (in the weights' dtype);
- ``bernoulli(p_tensor)``: a uniform float below ``p``;
- normal (``randn``, ``normal_``): fewer than 16 values, or a non-contiguous tensor, by
  Box-Muller on two uniform doubles each pair (``r = sqrt(-2 log1p(-u2))``, ``theta = 2 pi
  u1``; the sine half is kept for the next draw); 16 or more, all uniforms first, then
  Box-Muller over blocks of 16 (values ``j`` and ``j + 8`` of a block from one pair), the last
  16 drawn again when the size is not a multiple of 16.
Everything matches PyTorch bit for bit except the normal values of float32 and 16-bit tensors of
16 or more elements, which PyTorch computes with vectorised 1-ulp logarithms and sines (about
one value in thirteen differs in its last bit here), and float64 normals beyond 8,192 values
(NumPy's vectorised functions there, not the C library's). Other distributions (gamma, poisson, ...)
are NumPy's own algorithms on the same stream.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["TorchStream", "draw_dtype"]

_BLOCK = 16  # PyTorch's normal_fill block: 8 Box-Muller pairs
_EXACT_LIBM = 1 << 12  # float64 Box-Muller pairs computed with the C library's functions
# the gamma sampler's float literals 1.0f / 3.0f and 0.0331f, as float32 values
_THIRD_F32 = float(np.float32(1.0) / np.float32(3.0))
_SQUEEZE_F32 = float(np.float32(0.0331))


class TorchStream(np.random.Generator):
    """A NumPy Generator on PyTorch's MT19937 stream whose uniform, normal, integer and
    permutation draws follow PyTorch's CPU kernels (see the module)."""

    def __init__(self, seed: int) -> None:
        bits = np.random.MT19937()
        legacy = np.random.RandomState(int(seed) & 0xFFFFFFFF)  # init_genrand(seed), as PyTorch
        bits.state = legacy.get_state(legacy=False)  # type: ignore[assignment]
        super().__init__(bits)
        self.next_normal: float | None = None  # the kept sine half of a scalar Box-Muller pair

    def __reduce__(self) -> tuple:
        # (NumPy's own reduce would rebuild a plain Generator: pickling and deepcopy, e.g. for a
        # DataLoader's spawned workers, keep the class and the whole state)
        return _restored, (self.snapshot(),)

    def snapshot(self) -> tuple:
        """The whole state (the twister's and a kept normal value), for ``restore``."""
        return self.bit_generator.state, self.next_normal

    def restore(self, snapshot: tuple) -> None:
        """Go back to a ``snapshot``: the same numbers are drawn again."""
        self.bit_generator.state, self.next_normal = snapshot

    # -- words ----------------------------------------------------------------------------
    def _words(self, n: int) -> np.ndarray:
        """``n`` 32-bit words of the stream (as uint64)."""
        return np.asarray(self.bit_generator.random_raw(n), np.uint64)

    def _words64(self, n: int) -> np.ndarray:
        """``n`` 64-bit values, each from two words (the first is the high half)."""
        words = self._words(2 * n)
        return (words[0::2] << np.uint64(32)) | words[1::2]

    def _unit(self, n: int, dtype: np.dtype) -> np.ndarray:
        """``n`` uniform values in [0, 1) as PyTorch draws them for ``dtype``: float64 from 53
        bits, else float32 from 24 (16-bit dtypes draw as float32); exact either way."""
        if dtype == np.float64:
            words = self._words64(n) & np.uint64((1 << 53) - 1)
            return np.multiply(words, 2.0 ** -53, dtype=np.float64)
        words = self._words(n).astype(np.uint32)
        np.bitwise_and(words, np.uint32((1 << 24) - 1), out=words)
        return np.multiply(words, np.float32(2.0 ** -24), dtype=np.float32)

    # -- uniform ----------------------------------------------------------------------------
    def uniform_as(self, low: float, high: float, size: Any, dtype: Any) -> np.ndarray:
        """PyTorch's ``uniform_(low, high)`` for a tensor of ``dtype``: the bounds and their
        difference in ``dtype`` (float32 for 16-bit ones), ``u * (high - low) + low`` in
        double, rounded once."""
        dtype = np.dtype(dtype)
        shape = _shape(size)
        work = dtype.type if dtype.itemsize >= 4 else np.float32
        lo, hi = work(low), work(high)
        values = self._unit(math.prod(shape), dtype)
        if lo != 0 or hi != 1:  # (``u * 1 + 0`` is ``u``: rand skips the double arithmetic)
            values = (values.astype(np.float64) * float(hi - lo) + float(lo)).astype(work)
        return values.astype(dtype, copy=False).reshape(shape)

    def random(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:
        """Uniform [0, 1) values, PyTorch's ``rand`` for float32 and float64."""
        return _numpy_result(self.uniform_as(0.0, 1.0, _shape_of(size), dtype), size, out)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
        """NumPy's ``uniform`` (float64); scalar bounds draw as PyTorch's float64 kernel."""
        if np.ndim(low) or np.ndim(high):
            return super().uniform(low, high, size)
        return _numpy_result(self.uniform_as(float(low), float(high), _shape_of(size),
                                             np.float64), size)

    def keep_mask(self, size: Any, p: float) -> np.ndarray:
        """Dropout's mask, True with probability ``1 - p``: PyTorch's ``bernoulli_(1 - p)``,
        a uniform double per value below ``1 - p`` (compared as its 53-bit integer against
        ``ceil((1 - p) * 2**53)``, the same test without the conversion). That is PyTorch's default
        kernel, which it runs on AMD CPUs; on Intel CPUs PyTorch draws masks with MKL's own
        generator instead, which this does not reproduce."""
        shape = _shape(size)
        words = self._words64(math.prod(shape))
        np.bitwise_and(words, np.uint64((1 << 53) - 1), out=words)
        return (words < np.uint64(math.ceil((1.0 - p) * 2.0 ** 53))).reshape(shape)

    def exponential_as(self, rate: float, size: Any, dtype: Any) -> np.ndarray:
        """PyTorch's ``exponential_(rate)`` (also behind ``multinomial``): ``-log1p(-u) / rate``
        of a uniform double per value, rounded to ``dtype``."""
        shape = _shape(size)
        u = self._unit(math.prod(shape), np.dtype(np.float64))
        log = _libm(math.log1p, -u) if u.size <= _EXACT_LIBM else np.log1p(-u)
        return ((-1.0 / rate) * log).astype(dtype).reshape(shape)

    def cauchy_as(self, size: Any, dtype: Any) -> np.ndarray:
        """PyTorch's ``cauchy_()``: ``tan(pi (u - 0.5))`` of a uniform double per value,
        rounded to ``dtype``."""
        shape = _shape(size)
        u = self._unit(math.prod(shape), np.dtype(np.float64))
        angles = math.pi * (u - 0.5)
        tangent = _libm(math.tan, angles) if u.size <= _EXACT_LIBM else np.tan(angles)
        return tangent.astype(dtype).reshape(shape)

    def geometric_as(self, p: float, size: Any, dtype: Any) -> np.ndarray:
        """PyTorch's ``geometric_(p)``: ``ceil(log(u) / log1p(-p))`` of a uniform double per
        value (trials until the first success), converted to ``dtype``."""
        shape = _shape(size)
        u = self._unit(math.prod(shape), np.dtype(np.float64))
        log = _libm(math.log, u) if u.size <= _EXACT_LIBM else np.log(u)
        return np.ceil(log / math.log1p(-p)).astype(dtype).reshape(shape)

    def cauchy_scaled_as(self, median: float, sigma: float, size: Any, dtype: Any
                         ) -> np.ndarray:
        """PyTorch's ``cauchy_(median, sigma)``: computed in double, rounded to ``dtype``."""
        tangent = self.cauchy_as(size, np.float64)
        return (median + sigma * tangent).astype(dtype)

    def log_normal_as(self, mean: float, std: float, size: Any, dtype: Any) -> np.ndarray:
        """PyTorch's ``log_normal_(mean, std)``: ``exp(mean + std * z)`` with ``z`` value by
        value from ``normal_distribution<double>`` (Box-Muller pairs, the odd one kept for the
        next draw, as ``_scalar_normal``), rounded to ``dtype``."""
        shape = _shape(size)
        n = math.prod(shape)
        normals = np.empty(n)
        start = 0
        if n and self.next_normal is not None:
            normals[0], self.next_normal, start = self.next_normal, None, 1
        pairs = -(-(n - start) // 2)
        u = self._unit(2 * pairs, np.dtype(np.float64))
        u1, u2 = u[0::2], u[1::2]
        exact = u.size <= _EXACT_LIBM
        radius = np.sqrt(-2.0 * (_libm(math.log1p, -u2) if exact else np.log1p(-u2)))
        theta = 2.0 * math.pi * u1
        both = np.empty(2 * pairs)
        both[0::2] = radius * (_libm(math.cos, theta) if exact else np.cos(theta))
        both[1::2] = radius * (_libm(math.sin, theta) if exact else np.sin(theta))
        normals[start:] = both[:n - start]
        if (n - start) % 2:
            self.next_normal = float(both[-1])
        values = normals * std + mean
        values = _libm(math.exp, values) if exact else np.exp(values)
        return values.astype(dtype).reshape(shape)

    def multinomial_rows(self, weights: np.ndarray, num_samples: int, replacement: bool
                         ) -> np.ndarray:
        """PyTorch's ``multinomial`` of each row of a float32/float64 (rows, categories)
        array: the largest ``weight / Exp(1)`` without replacement or for one sample,
        ``inverse_cdf_samples`` otherwise; int64 (rows, num_samples)."""
        if replacement and num_samples > 1:
            return np.stack([self.inverse_cdf_samples(row, num_samples) for row in weights])
        with np.errstate(divide="ignore", invalid="ignore"):
            keys = weights / self.exponential_as(1.0, weights.shape, weights.dtype)
        return np.argsort(-keys, axis=-1, kind="stable")[:, :num_samples].astype(np.int64)

    def inverse_cdf_samples(self, weights: np.ndarray, count: int) -> np.ndarray:
        """``count`` categories of one row drawn with replacement as PyTorch does: a uniform
        double each, searched in the running sum of the weights (in their dtype) normalised
        to end at 1 (a sampler can ask in chunks: the stream moves the same)."""
        cdf = np.cumsum(weights)
        if cdf[-1] > 0:
            cdf /= cdf[-1]
        cdf[-1] = 1
        u = self.uniform_as(0.0, 1.0, (count,), np.float64)
        return np.searchsorted(cdf.astype(np.float64), u, side="left").astype(np.int64)

    # -- integers and permutations ----------------------------------------------------------
    def integers(self, low: Any, high: Any = None, size: Any = None, dtype: Any = np.int64,
                 endpoint: bool = False) -> Any:
        """Integers in ``[low, high)`` as PyTorch's ``random_(low, high)`` draws them."""
        if high is None:
            low, high = 0, low
        if np.ndim(low) or np.ndim(high) or endpoint:
            return super().integers(low, high, size, dtype=dtype, endpoint=endpoint)
        low, high = int(low), int(high)
        span = high - low
        if span <= 0:
            raise ValueError(f"integers: low >= high ({low} >= {high})")
        shape = _shape(_shape_of(size))
        n = math.prod(shape)
        words = self._words64(n) if span >= 1 << 32 else self._words(n)
        values = (words % np.uint64(span)).astype(np.int64) + low
        return _numpy_result(values.astype(dtype).reshape(shape), size)

    def permutation(self, x: Any, axis: int = 0) -> np.ndarray:
        """PyTorch's ``randperm(n)`` for an int; an array's first axis shuffled the same way."""
        if isinstance(x, (int, np.integer)):
            n = int(x)
            order = list(range(n))
            if n > 1:
                steps = self._words(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)
                for i, step in enumerate(steps.tolist()):
                    j = i + step
                    order[i], order[j] = order[j], order[i]
            return np.array(order, dtype=np.int64)
        if axis != 0:
            return super().permutation(x, axis)
        x = np.asarray(x)
        return x[self.permutation(len(x))]

    # -- normal -----------------------------------------------------------------------------
    def normal_as(self, mean: float, std: float, size: Any, dtype: Any,
                  contiguous: bool = True) -> np.ndarray:
        """PyTorch's ``normal_(mean, std)`` for a tensor of ``dtype``: value by value below 16
        values or for a non-contiguous tensor (up to 4,096 values: beyond, the block form, as
        the value-by-value one is a Python loop here), in blocks of 16 otherwise."""
        dtype = np.dtype(dtype)
        shape = _shape(size)
        n = math.prod(shape)
        if n < _BLOCK or (not contiguous and n <= _EXACT_LIBM):
            values = np.array([self._scalar_normal() for _ in range(n)]) * std + mean
            return values.astype(dtype).reshape(shape)
        data = self._unit(n, dtype)
        full = n - n % _BLOCK
        data[:full] = _box_muller(data[:full], dtype, mean, std)
        if full != n:  # the last 16 again, from 16 new uniforms
            data[n - _BLOCK:] = _box_muller(self._unit(_BLOCK, dtype), dtype, mean, std)
        return data.astype(dtype).reshape(shape)

    def _scalar_normal(self) -> float:
        """One standard normal value by PyTorch's ``normal_distribution<double>``."""
        if self.next_normal is not None:
            value, self.next_normal = self.next_normal, None
            return value
        u1, u2 = self._unit(2, np.dtype(np.float64)).tolist()
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self.next_normal = radius * math.sin(theta)
        return radius * math.cos(theta)

    # -- PyTorch's per-value samplers (ATen's Distributions.h / Distributions.cpp) ----------
    # Each value consumes a number of uniforms that depends on rejections, value after value in
    # row-major order; the scalar loops below follow the kernels step by step (float32 tensors
    # do the gamma sampler's shape arithmetic in float32, as the kernel's scalar_t does).
    def _scalar_uniform(self) -> float:
        """One uniform double in [0, 1) by ``uniform_real_distribution<double>``."""
        return float(self._unit(1, np.dtype(np.float64))[0])

    def standard_gamma_as(self, alpha: np.ndarray, dtype: Any) -> np.ndarray:
        """Gamma(alpha, 1) draws, PyTorch's ``_standard_gamma`` on a tensor of ``dtype``:
        Marsaglia and Tsang's method, alpha below 1 boosted by one uniform. The result in
        ``dtype``, at least its smallest normal number."""
        dtype = np.dtype(dtype)
        flat = np.ascontiguousarray(alpha, dtype=dtype).ravel()
        out = np.empty(flat.shape, dtype)
        tiny = np.finfo(dtype).tiny
        for i, a in enumerate(flat):
            out[i] = max(tiny, dtype.type(self._gamma_value(a, dtype)))
        return out.reshape(np.shape(alpha))

    def _gamma_value(self, alpha: Any, dtype: np.dtype) -> float:
        """One value of ATen's ``sample_gamma`` (its float literals are float32 constants)."""
        scalar = dtype.type
        scale = 1.0
        if alpha < 1.0:
            if alpha == 0.0:
                return 0.0
            scale *= (1.0 - self._scalar_uniform()) ** float(scalar(1.0) / alpha)
            alpha = alpha + scalar(1.0)
        d = float(alpha - scalar(_THIRD_F32))
        c = 1.0 / math.sqrt(9.0 * d)
        while True:
            while True:
                x = self._scalar_normal()
                y = 1.0 + c * x
                if not y <= 0:  # (a NaN alpha leaves here too, as the C loop does)
                    break
            v = y * y * y
            u = 1.0 - self._scalar_uniform()
            xx = x * x
            if u < 1.0 - _SQUEEZE_F32 * xx * xx:
                return scale * d * v
            if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
                return scale * d * v

    def dirichlet_as(self, alpha: np.ndarray, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
        """Dirichlet draws over the last dim, PyTorch's ``_sample_dirichlet``: float64 gamma
        values (at least float64's smallest normal), normalised, rounded to ``dtype`` and kept
        inside ``[tiny, nextafter(1, 0)]``. Returns the gamma values and the sample."""
        dtype = np.dtype(dtype)
        a = np.ascontiguousarray(alpha, dtype=dtype)
        flat = a.ravel()
        drawn = np.empty(flat.shape, np.float64)
        tiny64 = np.finfo(np.float64).tiny
        for i, value in enumerate(flat):
            drawn[i] = max(tiny64, self._gamma_value(np.float64(value), np.dtype(np.float64)))
        gammas = drawn.reshape(a.shape)
        ratio = (gammas / gammas.sum(-1, keepdims=True)).astype(dtype)
        return gammas, np.clip(ratio, np.finfo(dtype).tiny,
                               np.nextafter(dtype.type(1), dtype.type(0)))

    def below(self, probs: np.ndarray) -> np.ndarray:
        """PyTorch's ``bernoulli`` of a tensor of probabilities: per value, a uniform below its
        probability (a double uniform for float64 probabilities, a float one otherwise)."""
        precision = np.dtype(np.float64 if probs.dtype == np.float64 else np.float32)
        return self._unit(probs.size, precision).reshape(probs.shape) < probs

    def binomial_as(self, count: np.ndarray, prob: np.ndarray, dtype: Any) -> np.ndarray:
        """Binomial draws, PyTorch's ``binomial``: inversion by geometric jumps when
        ``count * p`` is below 10, else the BTRS transformed rejection; ``p`` above 0.5 by
        symmetry. ``count`` and ``p`` keep ``dtype``'s precision where the kernel's do."""
        dtype = np.dtype(dtype)
        counts, probs = np.broadcast_arrays(np.asarray(count, dtype), np.asarray(prob, dtype))
        out = np.empty(counts.size, dtype)
        for i, (n, p) in enumerate(zip(counts.ravel(), probs.ravel())):
            out[i] = self._binomial_value(n, p)
        return out.reshape(counts.shape)

    def _binomial_value(self, n: Any, p: Any) -> Any:
        if n <= 0.0 or p <= 0.0:
            return 0
        if p >= 1.0:
            return n
        if p <= 0.5:
            return self._btrs(n, p) if n * p >= 10.0 else self._binomial_inversion(n, p)
        if p > 0.5:
            q = type(p)(1.0 - float(p))
            return n - (self._btrs(n, q) if n * q >= 10.0 else self._binomial_inversion(n, q))
        return float("nan")

    def _binomial_inversion(self, n: Any, p: Any) -> Any:
        geom_sum, count = 0.0, type(n)(0)
        logprob = float(np.log1p(-p))
        while True:
            geom_sum += math.ceil(math.log(self._scalar_uniform()) / logprob)
            if geom_sum > n:
                return count
            count = count + 1

    def _btrs(self, n: Any, p: Any) -> Any:
        scalar = type(n)
        stddev = float(np.sqrt(n * p * (1 - p)))
        b = 1.15 + 2.53 * stddev
        a = -0.0873 + 0.0248 * b + 0.01 * float(p)
        c = float(n * p) + 0.5
        v_r = 0.92 - 4.2 / b
        r = float(p / (1 - p))
        alpha = (2.83 + 5.1 / b) * stddev
        m = float(np.floor((n + 1) * p))
        count = float(n)
        while True:
            u = self._scalar_uniform() - 0.5
            v = self._scalar_uniform()
            us = 0.5 - abs(u)
            k = scalar(math.floor((2 * a / us + b) * u + c))
            if k < 0 or k > n:
                continue
            if us >= 0.07 and v <= v_r:
                return k
            v = math.log(v * alpha / (a / (us * us) + b))
            kf = float(k)
            bound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                     + float(n + 1) * math.log((count - m + 1) / float(n - k + 1))
                     + (kf + 0.5) * math.log(r * float(n - k + 1) / float(k + 1))
                     + _stirling_tail(m) + _stirling_tail(count - m)
                     - _stirling_tail(kf) - _stirling_tail(float(n - k)))
            if v <= bound:
                return k

    def poisson_as(self, rates: np.ndarray) -> np.ndarray:
        """Poisson draws (as float64 counts), PyTorch's ``poisson``: Hoermann's transformed
        rejection for rates of 10 and more, Knuth's product of uniforms below."""
        flat = np.ascontiguousarray(rates, dtype=np.float64).ravel()
        out = np.empty(flat.shape, np.float64)
        for i, lam in enumerate(flat.tolist()):
            out[i] = self._poisson_value(lam)
        return out.reshape(np.shape(rates))

    def _poisson_value(self, lam: float) -> int:
        if lam >= 10:
            slam, loglam = math.sqrt(lam), math.log(lam)
            b = 0.931 + 2.53 * slam
            a = -0.059 + 0.02483 * b
            invalpha = 1.1239 + 1.1328 / (b - 3.4)
            vr = 0.9277 - 3.6224 / (b - 2)
            while True:
                u = self._scalar_uniform() - 0.5
                v = self._scalar_uniform()
                us = 0.5 - abs(u)
                k = math.floor((2 * a / us + b) * u + lam + 0.43)
                if us >= 0.07 and v <= vr:
                    return k
                if k < 0 or (us < 0.013 and v > us):
                    continue
                if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)
                        <= -lam + k * loglam - math.lgamma(k + 1.0)):
                    return k
        if lam == 0:
            return 0
        count, product, limit = 0, 1.0, math.exp(-lam)
        while True:
            product *= self._scalar_uniform()
            if product > limit:
                count += 1
            else:
                return count

    def standard_normal(self, size: Any = None, dtype: Any = np.float64, out: Any = None
                        ) -> Any:
        """Standard normal values, PyTorch's ``randn``."""
        return _numpy_result(self.normal_as(0.0, 1.0, _shape_of(size), dtype), size, out)

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        """NumPy's ``normal`` (float64); scalar parameters draw as PyTorch's float64 kernel."""
        if np.ndim(loc) or np.ndim(scale):
            return super().normal(loc, scale, size)
        return _numpy_result(self.normal_as(float(loc), float(scale), _shape_of(size),
                                            np.float64), size)


# the tail of Stirling's approximation of log k! for k = 0..9 (BTRS's table), then its series
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_tail(k: float) -> float:
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _restored(snapshot: tuple) -> TorchStream:
    """A stream in the state ``snapshot`` (unpickling)."""
    stream = TorchStream(0)
    stream.restore(snapshot)
    return stream


def _shape_of(size: Any) -> Any:
    """NumPy's ``size=None`` (one value) as the empty shape."""
    return () if size is None else size


def _numpy_result(values: np.ndarray, size: Any, out: Any = None) -> Any:
    """Values as NumPy's methods return them: into ``out`` when given, a scalar for
    ``size=None``."""
    if out is not None:
        out[...] = values
        return out
    return values[()] if size is None else values


def draw_dtype(dt: np.dtype) -> np.dtype:
    """The dtype PyTorch's kernels draw a tensor's random values in: its own floating dtype
    (bfloat16 included), float64 for any other (the values are then converted)."""
    return dt if dt.kind == "f" or (dt.itemsize == 2 and dt.kind == "V") else np.dtype(
        np.float64)


def _box_muller(uniforms: np.ndarray, dtype: np.dtype, mean: float, std: float) -> np.ndarray:
    """PyTorch's ``normal_fill_16`` over consecutive blocks of 16 uniforms (float64 in and out):
    in each block, values ``j`` and ``j + 8`` come from the pair (``1 - u[j]``, ``u[j + 8]``).
    Below float64 each step is rounded to ``dtype`` as PyTorch's float arithmetic rounds it."""
    blocks = uniforms.reshape(-1, _BLOCK)
    if dtype == np.float64:
        u1, u2 = 1.0 - blocks[:, :8], blocks[:, 8:]
        theta = 2.0 * math.pi * u2
        if u1.size <= _EXACT_LIBM:  # the C library's own results, as PyTorch's
            log, cos, sin = _libm(math.log, u1), _libm(math.cos, theta), _libm(math.sin, theta)
        else:  # NumPy's vectorised ones: about one value in a thousand differs in its last bit
            log, cos, sin = np.log(u1), np.cos(theta), np.sin(theta)
        radius = np.sqrt(-2.0 * log)
        out = np.empty(blocks.shape, np.float64)
        out[:, :8] = radius * cos * std + mean
        out[:, 8:] = radius * sin * std + mean
        return out.reshape(-1)
    # float32 arithmetic as PyTorch's vectorised kernel (16-bit dtypes too, rounded at the end):
    # the logarithm correctly rounded, NumPy's vectorised float32 cosine and sine (PyTorch's are
    # 1-ulp ones; this mix agrees with them most often, 92% of values here), the last step a
    # fused multiply-add (exact product in float64, one rounding)
    f32 = np.float32
    u1 = (1.0 - blocks[:, :8]).astype(f32)
    u2 = blocks[:, 8:].astype(f32)
    radius = np.sqrt(f32(-2.0) * np.log(u1.astype(np.float64)).astype(f32))
    theta = f32(2.0 * math.pi) * u2
    cos, sin = np.cos(theta), np.sin(theta)
    std64, mean64 = float(f32(std)), float(f32(mean))
    out = np.empty(blocks.shape, np.float64)
    out[:, :8] = ((radius * cos).astype(np.float64) * std64 + mean64).astype(f32)
    out[:, 8:] = ((radius * sin).astype(np.float64) * std64 + mean64).astype(f32)
    return out.reshape(-1)


def _libm(fn: Any, values: np.ndarray) -> np.ndarray:
    """``fn`` (the C library's function, as PyTorch calls it for doubles) over an array."""
    return np.fromiter((fn(v) for v in values.ravel().tolist()), np.float64,
                       values.size).reshape(values.shape)


def _shape(size: Any) -> tuple[int, ...]:
    """A size argument (int, sequence or ()) as a shape tuple."""
    if isinstance(size, (int, np.integer)):
        return (int(size),)
    return tuple(int(s) for s in size)
