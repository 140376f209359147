"""``Generator`` and the ``Philox`` bit generator (Philox4x32-10 on the GPU)."""

import operator
import threading

import numpy

from . import _kernels as K

__all__ = ["Philox", "Generator", "default_rng"]

_MASK128 = (1 << 128) - 1
_MASK64 = (1 << 64) - 1


class Philox:
    """Philox4x32-10 counter-based bit generator on the GPU.

    Parameters
    ----------
    seed : None, int, array_like of ints or numpy.random.SeedSequence, optional
        Entropy for the 64-bit key, passed through
        ``numpy.random.SeedSequence`` (fresh OS entropy when None).
    counter : int, optional
        Initial 128-bit block counter (default 0).
    key : int, optional
        A 64-bit key used as is (then ``seed`` must be None).

    Notes
    -----
    The state is ``(key, counter)``. Every call of a ``Generator`` method
    consumes a contiguous range of counter blocks starting at ``counter``
    and advances ``counter`` past them; each block is one Philox4x32-10
    evaluation giving four 32-bit words. The stream is not NumPy's
    (NumPy's ``Philox`` is the 4x64 variant).

    References
    ----------
    J. K. Salmon, M. A. Moraes, R. O. Dror and D. E. Shaw, "Parallel random
    numbers: as easy as 1, 2, 3", SC11 (2011).
    """

    def __init__(self, seed=None, *, counter=None, key=None):
        if key is not None:
            if seed is not None:
                raise ValueError("seed and key cannot be both used")
            self._seed_seq = None
            self._key = operator.index(key) & _MASK64
        else:
            ss = (seed if isinstance(seed, numpy.random.SeedSequence)
                  else numpy.random.SeedSequence(seed))
            self._seed_seq = ss
            w = ss.generate_state(2, numpy.uint32)
            self._key = int(w[0]) | (int(w[1]) << 32)
        self._counter = 0 if counter is None else operator.index(counter) & _MASK128
        self._lock = threading.Lock()

    @property
    def seed_seq(self):
        """The ``numpy.random.SeedSequence`` the key came from (None when a
        key was given)."""
        return self._seed_seq

    @property
    def state(self):
        """``{'bit_generator': 'Philox4x32', 'state': {'counter': int,
        'key': int}}`` (assignable)."""
        return {"bit_generator": "Philox4x32",
                "state": {"counter": self._counter, "key": self._key}}

    @state.setter
    def state(self, value):
        if not isinstance(value, dict) or value.get("bit_generator") != "Philox4x32":
            raise ValueError("state must be for a Philox4x32 RNG")
        st = value["state"]
        with self._lock:
            self._counter = operator.index(st["counter"]) & _MASK128
            self._key = operator.index(st["key"]) & _MASK64

    def advance(self, delta):
        """Advance the counter by ``delta`` blocks (modulo 2**128); returns self."""
        with self._lock:
            self._counter = (self._counter + operator.index(delta)) & _MASK128
        return self

    def jumped(self, jumps=1):
        """A copy advanced by ``jumps * 2**64`` blocks (a non-overlapping stream
        for any realistic use)."""
        bg = Philox(key=self._key, counter=(self._counter + (operator.index(jumps) << 64))
                    & _MASK128)
        bg._seed_seq = self._seed_seq
        return bg

    def spawn(self, n_children):
        """``n_children`` independent bit generators from ``seed_seq.spawn``."""
        if self._seed_seq is None:
            raise TypeError("The underlying SeedSequence does not implement spawning.")
        return [Philox(s) for s in self._seed_seq.spawn(n_children)]

    def _take(self, blocks):
        """Reserve ``blocks`` counter blocks: returns (key, ctr_lo, ctr_hi)."""
        with self._lock:
            c = self._counter
            self._counter = (c + int(blocks)) & _MASK128
        return K.u64(self._key), K.u64(c & _MASK64), K.u64(c >> 64)

    def _fill(self, kind, out):
        """Fill the C-contiguous device array ``out`` with ``kind`` values."""
        n = out.size
        if n == 0:
            return out
        code = out.dtype.str[1:]
        per = K.UNIT[(kind, code)]
        units = -(-n // per)
        key, lo, hi = self._take(units)
        vec = out.ptr % 16 == 0
        K.launch_units(K.philox_source(kind, code, vec), units, (out, n, key, lo, hi),
                       per_thread=K.UNITS_PER_THREAD)
        return out

    def random_raw(self, size=None):
        """Raw 64-bit words (two Philox words each, the first in the low half)
        as a device uint64 array of ``size`` (0-d when None)."""
        from .._routines._creation import empty
        out = empty(_shape(size), numpy.uint64)
        return self._fill("raw", out)

    def __repr__(self):
        return f"Philox(key={self._key:#018x}, counter={self._counter})"

    def __getstate__(self):
        return {"key": self._key, "counter": self._counter, "seed_seq": self._seed_seq}

    def __setstate__(self, st):
        self._key, self._counter, self._seed_seq = st["key"], st["counter"], st["seed_seq"]
        self._lock = threading.Lock()


# ---------------------------------------------------------------- helpers

def _shape(size):
    """``size`` as a shape tuple, with NumPy's errors."""
    if size is None:
        return ()
    if isinstance(size, (tuple, list)):
        dims = size
    else:
        dims = (size,)
    out = []
    for d in dims:
        try:
            d = operator.index(d)
        except TypeError:
            raise TypeError("expected a sequence of integers or a single integer, "
                            f"got '{size}'") from None
        if d < 0:
            raise ValueError("negative dimensions are not allowed")
        out.append(d)
    return tuple(out)


def _check_out(out, dtype, size, method):
    from .._ndarray import ndarray
    if not isinstance(out, ndarray):
        raise TypeError(f"out must be a gpuscipy_core.ndarray, got {type(out).__name__}")
    if out.dtype != dtype:
        raise TypeError(f"Supplied output array has the wrong type. Expected "
                        f"{dtype.name}, got {out.dtype.name}")
    if not out.flags.c_contiguous:
        raise ValueError("Supplied output array must be contiguous, writable, aligned, "
                         "and in machine byte-order.")
    if size is not None and _shape(size) != out.shape:
        raise ValueError("size must match out.shape when used together")
    return out


def _float_dtype(dtype, method):
    dt = numpy.dtype(dtype)
    if dt not in (numpy.dtype(numpy.float64), numpy.dtype(numpy.float32)):
        raise TypeError(f"Unsupported dtype {dt!r} for {method}")
    return dt


def _is_device(x):
    from .._ndarray import ndarray
    return isinstance(x, ndarray)


def _as_param(x):
    """A scalar parameter as a float, or an array parameter as a device array
    (float64 unless already inexact)."""
    from .._routines._creation import asarray
    if _is_device(x) or numpy.ndim(x) > 0:
        a = asarray(x)
        if a.dtype.kind not in "fc":
            a = a.astype(numpy.float64)
        return a
    return float(x)


def _broadcast_size(size, params):
    """The result shape of a method with array parameters, NumPy's errors."""
    shapes = [tuple(p.shape) for p in params if not isinstance(p, float)]
    if size is not None:
        shape = _shape(size)
        for k, s in enumerate(shapes):
            try:
                numpy.broadcast_shapes(shape, s)
                ok = numpy.broadcast_shapes(shape, s) == shape
            except ValueError:
                ok = False
            if not ok:
                raise ValueError("shape mismatch: objects cannot be broadcast to a single "
                                 f"shape.  Mismatch is between arg 0 with shape {shape} "
                                 f"and arg {k + 1} with shape {s}.")
        return shape
    return numpy.broadcast_shapes(*shapes) if shapes else ()


def _any(x):
    return bool(x.any())


# ---------------------------------------------------------------- Generator

class Generator:
    """Random numbers on the GPU: NumPy's ``Generator`` API over ``Philox``.

    Parameters
    ----------
    bit_generator : Philox

    Notes
    -----
    Results are device arrays; where NumPy returns a scalar (``size=None``)
    a 0-d device array is returned. The same seed gives the same values on
    every GPU and for every launch configuration, but not NumPy's values.

    Differences from NumPy: ``integers`` takes scalar bounds only.
    """

    def __init__(self, bit_generator):
        if not isinstance(bit_generator, Philox):
            raise TypeError("bit_generator must be a gpuscipy_core.random.Philox")
        self._bit_generator = bit_generator

    @property
    def bit_generator(self):
        """The ``Philox`` bit generator."""
        return self._bit_generator

    def spawn(self, n_children):
        """Create new independent child generators.

        Parameters
        ----------
        n_children : int
            Number of children to create (non-negative).

        Returns
        -------
        children : list of Generator
            ``n_children`` new generators, each on a fresh ``Philox`` (counter
            0) keyed from one child of the bit generator's ``SeedSequence``.

        Raises
        ------
        TypeError
            The bit generator was built from an explicit ``key`` and has no
            ``SeedSequence`` to spawn from; ``n_children`` is not an integer.
        OverflowError
            ``n_children`` is negative (raised by ``SeedSequence.spawn``).

        Notes
        -----
        Host only, no device work. ``numpy.random.SeedSequence.spawn`` gives
        each child a distinct spawn key and counts the children it has made,
        so a second call returns new children, different from the first
        ones. Each child's 64-bit Philox key is two 32-bit words of its
        ``SeedSequence.generate_state``; the parent's key and counter are
        not touched. The children's streams differ by key, not by counter
        range: two keys coincide with probability below ``m**2 / 2**65`` for
        ``m`` generators, and Philox streams under different keys are
        independent for practical purposes (Salmon et al. 2011).
        """
        return [Generator(bg) for bg in self._bit_generator.spawn(n_children)]

    def __repr__(self):
        return f"Generator({self._bit_generator!r})"

    # ---- floats -----------------------------------------------------------

    def _floats(self, kind, size, dtype, out, method):
        from .._routines._creation import empty
        dt = _float_dtype(dtype, method)
        if out is not None:
            o = _check_out(out, dt, size, method)
        else:
            o = empty(_shape(size), dt)
        return self._bit_generator._fill(kind, o)

    def random(self, size=None, dtype=numpy.float64, out=None):
        """Return random floats in the half-open interval ``[0, 1)``.

        Parameters
        ----------
        size : int or tuple of ints, optional
            Output shape; None (default) gives a 0-d array (NumPy would
            return a scalar).
        dtype : {numpy.float64, numpy.float32}, optional
            Output dtype. float64 values are multiples of ``2**-53`` (53
            random bits), float32 values multiples of ``2**-24``.
        out : gpuscipy_core.ndarray, optional
            C-contiguous device array of ``dtype`` to fill; when ``size`` is
            also given it must equal ``out.shape``.

        Returns
        -------
        out : gpuscipy_core.ndarray, shape ``size`` (or ``out.shape``), ``dtype``
            Uniform values on ``[0, 1)`` in device memory (``out`` itself when
            it was given).

        Raises
        ------
        TypeError
            ``dtype`` is not float32 or float64; ``out`` is not a
            gpuscipy_core array or has the wrong dtype; ``size`` is not an
            integer or a sequence of integers.
        ValueError
            ``out`` is not C-contiguous; ``size`` differs from ``out.shape``;
            a negative dimension in ``size``.

        Notes
        -----
        Counter layout: the bit generator's state is a 64-bit key and a
        128-bit counter. A call producing ``n`` values reserves the
        ``ceil(n / 2)`` (float64) or ``ceil(n / 4)`` (float32) consecutive
        counter values starting at the current counter, and advances the
        counter past them (on the host, under a lock, so threads sharing a
        generator get disjoint blocks). Block ``j`` is one Philox4x32-10
        evaluation of ``counter + j`` under the key and gives four 32-bit
        words ``w0 .. w3``:

        * float64: values ``2 j`` and ``2 j + 1`` are
          ``((w0 >> 5) * 2**26 + (w1 >> 6)) * 2**-53`` and the same of
          ``(w2, w3)``;
        * float32: values ``4 j + t`` are ``(w_t >> 8) * 2**-24``, t = 0..3.

        Every value is therefore a pure function of (key, counter, index):
        the same on every GPU and for any grid or block size. One kernel
        launch on the current stream (16-byte stores when ``out`` is
        16-byte aligned), no host synchronisation; an empty result uses no
        counter values. The stream is not NumPy's.

        References
        ----------
        J. K. Salmon, M. A. Moraes, R. O. Dror and D. E. Shaw, "Parallel
        random numbers: as easy as 1, 2, 3", SC11 (2011).
        """
        return self._floats("uniform", size, dtype, out, "random")

    def standard_normal(self, size=None, dtype=numpy.float64, out=None):
        """Draw samples from a standard Normal distribution (mean 0, variance 1).

        Parameters
        ----------
        size : int or tuple of ints, optional
            Output shape; None (default) gives a 0-d array.
        dtype : {numpy.float64, numpy.float32}, optional
            Output dtype; the transform is computed in this precision.
        out : gpuscipy_core.ndarray, optional
            C-contiguous device array of ``dtype`` to fill; when ``size`` is
            also given it must equal ``out.shape``.

        Returns
        -------
        out : gpuscipy_core.ndarray, shape ``size`` (or ``out.shape``), ``dtype``
            Standard normal values in device memory (``out`` itself when it
            was given).

        Raises
        ------
        TypeError
            ``dtype`` is not float32 or float64; ``out`` is not a
            gpuscipy_core array or has the wrong dtype; ``size`` is not an
            integer or a sequence of integers.
        ValueError
            ``out`` is not C-contiguous; ``size`` differs from ``out.shape``;
            a negative dimension in ``size``.

        Notes
        -----
        Box-Muller transform: from ``u`` in ``(0, 1)`` and ``v`` in
        ``[0, 1)``, ``z0 = r cos(2 pi v)`` and ``z1 = r sin(2 pi v)`` with
        ``r = sqrt(-2 ln u)``; both values of a pair are used. The
        arithmetic is straight-line code of our own (``_philox.cuh``),
        written for the arguments that can occur instead of the general
        library functions:

        * float32: one Philox block gives two pairs, from words ``(w0, w1)``
          and ``(w2, w3)`` (``ceil(n / 4)`` counter values per call).
          ``u = ((w >> 8) | 1) * 2**-24`` (an odd multiple of ``2**-24``,
          never 0 or 1); the angle is the top 24 bits of the second word, in
          turns. ``-2 ln u`` reduces ``u = m 2**e`` with ``m`` in
          ``[2/3, 4/3)`` and evaluates a minimax polynomial in ``m - 1``
          fitted for this code; the angle is reduced exactly, from its
          integer bits, to a quadrant and ``|a| <= pi/4``, where sine and
          cosine are minimax polynomials fitted for this code; the square
          root is ``rsqrtf`` plus one Newton step. Measured over all inputs:
          ``-2 ln u`` within 1.05 ulp, sine and cosine within 2 ulp, ``z``
          within about 4 ulp of the exact transform of the same ``(u, v)``.
        * float64: one block gives one pair (``ceil(n / 2)`` counter values):
          ``u = (2 K + 1) * 2**-53`` with ``K`` 52 bits of ``(w0, w1)``, the
          angle 53 bits of ``(w2, w3)``; ``log`` and ``sqrt`` are CUDA's
          (within 1 ulp), sine and cosine the fdlibm kernel polynomials
          after the same exact quadrant reduction (about 1 ulp).

        As ``u >= 2**-24`` (float32) or ``2**-53`` (float64), ``|z|`` never
        exceeds 5.77 or 8.57: tail probabilities of 8e-9 and 1e-17 are not
        produced, as with any Box-Muller transform of uniforms of that
        resolution. Counter use, reproducibility and launch as for
        :meth:`random`. The values are not NumPy's (NumPy uses a ziggurat
        method).

        References
        ----------
        G. E. P. Box and M. E. Muller, "A note on the generation of random
        normal deviates", Ann. Math. Statist. 29(2), 610-611 (1958).
        """
        return self._floats("normal", size, dtype, out, "standard_normal")

    def uniform(self, low=0.0, high=1.0, size=None):
        """Draw samples from a uniform distribution on ``[low, high)``.

        Parameters
        ----------
        low, high : float or array_like of floats, optional
            Lower and upper bound (defaults 0 and 1): scalars, host arrays
            (copied to the device) or gpuscipy_core arrays; arrays broadcast
            together. ``high < low`` is allowed, as in NumPy.
        size : int or tuple of ints, optional
            Output shape. None (default): the broadcast shape of ``low`` and
            ``high`` (0-d for scalars). When given, both parameters must
            broadcast to it.

        Returns
        -------
        out : gpuscipy_core.ndarray, float64
            Samples in device memory, of shape ``size`` or the broadcast
            shape of the parameters.

        Raises
        ------
        OverflowError
            ``high - low`` is not finite (for any element): an infinite or
            NaN bound, or a difference that overflows.
        ValueError
            ``size`` is not the broadcast shape of itself and the
            parameters; the parameters do not broadcast together; a
            negative dimension in ``size``.
        TypeError
            ``size`` is not an integer or a sequence of integers; a scalar
            bound that ``float()`` rejects with TypeError (a complex one).

        Notes
        -----
        ``low + (high - low) * u`` with ``u`` from :meth:`random` (float64,
        53 random bits; counter use as there). With scalar bounds the
        finiteness check is on the host and the scaling is done in place on
        the device (nothing beyond :meth:`random` for the default
        ``[0, 1)``). With array bounds, host arrays are copied to the device
        (as float64 unless already floating), ``high - low`` is checked by a
        device reduction with one host synchronisation, and the result is
        two elementwise kernels. As in NumPy, rounding of
        ``low + (high - low) * u`` can give ``high`` itself.
        """
        lo, hi = _as_param(low), _as_param(high)
        shape = _broadcast_size(size, (lo, hi))
        if isinstance(lo, float) and isinstance(hi, float):
            if not numpy.isfinite(hi - lo):
                raise OverflowError("high - low range exceeds valid bounds")
            u = self.random(shape)
            if (lo, hi) != (0.0, 1.0):
                u *= (hi - lo)
                u += lo
            return u
        from .._routines._reduction import all_finite
        span = hi - lo
        if not all_finite(span):
            raise OverflowError("high - low range exceeds valid bounds")
        return lo + span * self.random(shape)

    def normal(self, loc=0.0, scale=1.0, size=None):
        """Draw samples from a normal (Gaussian) distribution.

        Parameters
        ----------
        loc : float or array_like of floats, optional
            Mean of the distribution (default 0): a scalar, a host array
            (copied to the device) or a gpuscipy_core array.
        scale : float or array_like of floats, optional
            Standard deviation (default 1), non-negative; the same kinds as
            ``loc``, broadcast with it.
        size : int or tuple of ints, optional
            Output shape. None (default): the broadcast shape of ``loc`` and
            ``scale`` (0-d for scalars). When given, both parameters must
            broadcast to it.

        Returns
        -------
        out : gpuscipy_core.ndarray, float64
            Samples in device memory, of shape ``size`` or the broadcast
            shape of the parameters.

        Raises
        ------
        ValueError
            ``scale < 0`` (any element; NaN is not negative); ``size`` is
            not the broadcast shape of itself and the parameters; the
            parameters do not broadcast together; a negative dimension in
            ``size``.
        TypeError
            ``size`` is not an integer or a sequence of integers; a scalar
            parameter that ``float()`` rejects with TypeError (a complex
            one).

        Notes
        -----
        ``loc + scale * z`` with ``z`` from :meth:`standard_normal` in
        float64 (Box-Muller; counter use and accuracy as there). Scalar
        parameters are checked on the host and applied in place on the
        device (nothing more for the defaults). An array ``scale`` is
        checked for negative entries by a device reduction with one host
        synchronisation; array parameters make two elementwise kernels.
        """
        mu, sigma = _as_param(loc), _as_param(scale)
        shape = _broadcast_size(size, (mu, sigma))
        if isinstance(sigma, float):
            if sigma < 0:
                raise ValueError("scale < 0")
        elif _any(sigma < 0):
            raise ValueError("scale < 0")
        z = self.standard_normal(shape)
        if isinstance(mu, float) and isinstance(sigma, float):
            if sigma != 1.0:
                z *= sigma
            if mu != 0.0:
                z += mu
            return z
        return mu + sigma * z

    # ---- integers ---------------------------------------------------------

    def integers(self, low, high=None, size=None, dtype=numpy.int64, endpoint=False):
        """Uniform integers on ``[low, high)`` (``[low, high]`` with ``endpoint``).

        Without modulo bias: Lemire's multiply-high method with rejection on
        64-bit words (D. Lemire, "Fast random integer generation in an
        interval", ACM TOMACS 29(1), 2019).

        Parameters
        ----------
        low, high : int
            Bounds; ``high=None`` means ``[0, low)``.
        size : int or tuple of ints, optional
            Output shape; None (default) gives a 0-d array.
        dtype : integer or bool dtype, default int64
            Output dtype; the bounds must lie in its range.
        endpoint : bool
            Include ``high`` (default False).

        Returns
        -------
        out : gpuscipy_core.ndarray, shape ``size``, ``dtype``
            Uniform integers in device memory.

        Raises
        ------
        ValueError
            Empty range: ``low >= high`` (``low > high`` with
            ``endpoint``), or with ``high=None`` a ``low <= 0`` (``< 0``
            with ``endpoint``; the message calls it ``high``); bounds
            outside ``dtype``; a negative dimension in ``size``.
        TypeError
            Non-integer dtype; ``size`` is not an integer or a sequence of
            integers.
        NotImplementedError
            Array-valued ``low`` or ``high`` (host or device).

        Notes
        -----
        Let ``R = top - low + 1`` be the number of values (``top`` the
        highest one). A 64-bit word ``x`` gives ``r = (x * R) >> 64``, the
        high word of the 128-bit product; the candidate is rejected when the
        low word is below ``2**64 mod R`` (the modulo is computed only when
        the low word is below ``R``), which leaves every ``r`` in
        ``[0, R)`` exactly equally likely. ``R = 2**64`` (the full 64-bit
        range) takes ``x`` as it is. The result is ``low + r`` in wrapping
        unsigned 64-bit arithmetic, converted to ``dtype``.

        Counter layout: a call of ``n`` values reserves ``n`` counter
        values. Value ``i`` uses the Philox4x32-10 block of ``counter + i``:
        its words ``(w1:w0)`` and ``(w3:w2)`` are the first two candidates.
        When both are rejected (probability below ``(R / 2**64)**2``),
        further blocks come from that counter with the attempt number
        added to its top 32-bit word (``counter + i + attempt * 2**96``
        modulo ``2**128``, out of reach of ordinary use), so each value
        stays a pure function of (key, counter, index), independent of the
        launch configuration.
        Bounds are checked on the host (Python integers); one kernel launch
        on the current stream, no host synchronisation. The values are not
        NumPy's.

        References
        ----------
        D. Lemire, "Fast random integer generation in an interval", ACM
        Trans. Model. Comput. Simul. 29(1), 3:1-3:12 (2019).
        """
        dt = numpy.dtype(dtype)
        if dt.kind not in "biu":
            raise TypeError(f"Unsupported dtype {dt!r} for integers")
        if _is_device(low) or _is_device(high) or numpy.ndim(low) or numpy.ndim(high):
            raise NotImplementedError("integers: array-valued low/high are not "
                                      "supported; pass Python integers")
        if high is None:
            low, high = 0, low
            if int(high) - (0 if endpoint else 1) < 0:
                raise ValueError("high < 0" if endpoint else "high <= 0")
        lo, hi = int(low), int(high)
        if dt.kind == "b":
            tmin, tmax = 0, 1
        else:
            info = numpy.iinfo(dt)
            tmin, tmax = int(info.min), int(info.max)
        top = hi if endpoint else hi - 1
        if lo < tmin:
            raise ValueError(f"low is out of bounds for {dt.name}")
        if top > tmax:
            raise ValueError(f"high is out of bounds for {dt.name}")
        if top < lo:
            raise ValueError("low > high" if endpoint else "low >= high")
        from .._routines._creation import empty
        from .._kernel._ufunc_names import ctype
        out = empty(_shape(size), dt)
        n = out.size
        if n == 0:
            return out
        rng = (top - lo + 1) & _MASK64    # 0 stands for 2**64
        key, clo, chi = self._bit_generator._take(n)
        K.launch_units(K.integers_source(ctype(dt), dt.str[1:]), n,
                       (out, n, key, clo, chi, K.u64(lo), K.u64(rng)))
        return out

    # ---- choice, permutation, shuffle -------------------------------------

    def _random_keys(self, n):
        """``n`` random uint64 sort keys on the device."""
        from .._routines._creation import empty
        return self._bit_generator._fill("raw", empty((n,), numpy.uint64))

    def _random_order(self, n):
        """A uniformly random permutation of ``range(n)`` (int64, device):
        the argsort of ``n`` random 64-bit keys (ties have probability
        below n**2 / 2**65; the stable sort keeps them reproducible)."""
        from .._routines import _sorting
        keys = self._random_keys(n)
        return _sorting.argsort(keys, kind="stable").astype(numpy.int64, copy=False)

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        """Generate a random sample from ``range(a)`` or from ``a`` along ``axis``.

        Parameters
        ----------
        a : int or array_like
            An integer: samples are drawn from ``range(a)``. An array (host
            arrays and sequences are copied to the device): samples are
            drawn from its entries along ``axis``.
        size : int or tuple of ints, optional
            Shape of the samples; None (default) draws one sample.
        replace : bool, optional
            Sample with replacement (default True).
        p : 1-D array_like of floats, optional
            Probabilities of the entries, length ``a`` (or ``a.shape[axis]``):
            non-negative, summing to 1 within ``sqrt(eps)``. A host array or
            a gpuscipy_core array; None (default) means uniform.
        axis : int, optional
            Axis of an array ``a`` to sample along (default 0).
        shuffle : bool, optional
            Accepted for NumPy compatibility and ignored: samples drawn
            without replacement always come in random order (NumPy's
            ``shuffle=True``).

        Returns
        -------
        samples : gpuscipy_core.ndarray
            For an integer ``a``: int64 indices of shape ``size`` (0-d when
            ``size`` is None). For an array ``a``: its dtype, of shape
            ``a.shape[:axis] + size + a.shape[axis + 1:]`` (``size`` read as
            ``()`` when None).

        Raises
        ------
        ValueError
            ``a`` is a non-integer scalar or a 0-d array; ``a <= 0`` (integer)
            or ``a`` empty along ``axis`` while samples are requested; ``p``
            not 1-D, of the wrong length, containing NaN or negative values,
            or not summing to 1; more samples than entries without
            replacement; without replacement and with ``p``, more samples
            than non-zero entries of ``p``; a negative dimension in ``size``.
        numpy.exceptions.AxisError
            ``axis`` is out of range for ``a``.
        TypeError
            ``size`` is not an integer or a sequence of integers.

        Notes
        -----
        ``k`` indices into the population of ``m`` entries are drawn first,
        then (array ``a``) the entries are gathered on the device:

        * with replacement, no ``p``: :meth:`integers` ``(0, m, size=k)``
          (Lemire's method, one counter value per sample);
        * with replacement and ``p``: inverse CDF. The cumulative sum of
          ``p`` is taken where ``p`` lives (``numpy.cumsum`` on the host,
          then copied to the device; a device scan for a device ``p``); one
          kernel draws a 53-bit uniform ``u`` per sample (two per Philox
          block, ``ceil(k / 2)`` counter values) and binary-searches the
          first ``j`` with ``cdf[j] > u * cdf[-1]``; entries with zero
          probability are never returned;
        * without replacement, no ``p``: sort of random keys -- the stable
          argsort of ``m`` random 64-bit keys, first ``k`` taken: a
          uniformly random ``k``-subset in random order. It sorts all ``m``
          keys, whatever ``k``;
        * without replacement and ``p``: the ``k`` largest of
          ``log(1 - u_i) / p_i`` over the entries, ``u_i`` from
          :meth:`random` (Efraimidis and Spirakis), in decreasing order,
          which has the distribution of ``k`` successive weighted draws
          without replacement; zero-probability entries get ``-inf`` and
          are never among the ``k``.

        The gather moves ``axis`` to the front (a contiguous copy when
        needed) and copies whole rows with the widest machine word (8, 4, 2
        or 1 bytes) that divides the row and both addresses; a transpose
        copy puts the sample axes back in place. A host ``p`` is validated
        on the host; a device ``p`` costs several device reductions, each
        with a host synchronisation (NaN, sign, sum, non-zero count).

        Differences from NumPy: ``shuffle`` is ignored (see above); the
        values are not NumPy's.

        References
        ----------
        P. S. Efraimidis and P. G. Spirakis, "Weighted random sampling with
        a reservoir", Inf. Process. Lett. 97(5), 181-185 (2006).

        D. Lemire, "Fast random integer generation in an interval", ACM
        Trans. Model. Comput. Simul. 29(1), 2019.
        """
        from .._routines._creation import arange, asarray
        from .._ndarray import ndarray
        from numpy.exceptions import AxisError
        int_pop = False
        if not isinstance(a, ndarray) and numpy.ndim(a) == 0:
            try:
                pop = operator.index(a)
            except TypeError:
                raise ValueError("a must be a sequence or an integer, not "
                                 f"{type(a)}") from None
            int_pop = True
        else:
            a = asarray(a)
            if a.ndim == 0:
                raise ValueError("a must be a sequence or an integer, not "
                                 "<class 'numpy.ndarray'>")
            if not -a.ndim <= axis < a.ndim:
                raise AxisError(axis, a.ndim)
            axis = axis % a.ndim
            pop = a.shape[axis]
        shape = _shape(size)
        k = 1
        for d in shape:
            k *= d
        if (pop <= 0 if int_pop else pop == 0) and k != 0:
            raise ValueError("a must be a positive integer unless no samples are taken"
                             if int_pop else
                             "a cannot be empty unless no samples are taken")
        if p is not None:
            cdf, nonzero = self._check_p(p, pop)
        if not replace and k > pop:
            raise ValueError("Cannot take a larger sample than population when replace "
                             "is False")
        if p is not None and not replace and k > nonzero:
            raise ValueError("Fewer non-zero entries in p than size")
        # indices
        if k == 0:
            idx = arange(0, dtype=numpy.int64)
        elif replace:
            if p is None:
                idx = self.integers(0, pop, size=(k,))
            else:
                from .._routines._creation import empty
                idx = empty((k,), numpy.int64)
                cdf = asarray(cdf)
                key, clo, chi = self._bit_generator._take(-(-k // 2))
                K.launch_units(K.choice_p_source(), k,
                               (idx, k, key, clo, chi, cdf, pop))
        else:
            if p is None:
                idx = self._random_order(pop)[:k]
            else:
                import gpuscipy_core as gp
                from .._routines import _sorting
                u = self.random((pop,))
                w = self._p_device(p)
                # log(1 - u) / p_i, in [-inf, 0]; entries with p_i == 0 last
                keys = gp.where(w > 0, gp.log1p(-u) / w, -numpy.inf)
                order = _sorting.argsort(-keys, kind="stable")
                idx = order[:k].astype(numpy.int64)
            idx = idx.copy()
        if int_pop:
            return idx.reshape(shape)
        # gather along axis
        moved = _move_axis_to_front(a, axis)
        rest = moved.shape[1:]
        out = _take_rows(moved, idx, rest)
        out = out.reshape(shape + rest)
        if shape != () and axis != 0:
            nd = len(shape)
            perm = (tuple(range(nd, nd + axis)) + tuple(range(nd))
                    + tuple(range(nd + axis, out.ndim)))
            out = out.transpose(perm).copy()
        return out

    def _p_device(self, p):
        from .._routines._creation import asarray
        return asarray(p).astype(numpy.float64)

    def _check_p(self, p, pop):
        """Validate ``p`` as NumPy does; return (its cumulative sum, number of
        non-zero entries). The sum stays where ``p`` is (host or device)."""
        from .._ndarray import ndarray
        if isinstance(p, ndarray):
            pd = p.astype(numpy.float64)
            if pd.ndim != 1:
                raise ValueError("p must be 1-dimensional")
            if pd.size != pop:
                raise ValueError("a and p must have same size")
            import gpuscipy_core as gp
            if bool(gp.isnan(pd).any()):
                raise ValueError("Probabilities contain NaN")
            if bool((pd < 0).any()):
                raise ValueError("Probabilities are not non-negative")
            total = float(pd.sum())
            if abs(total - 1.0) > numpy.sqrt(numpy.finfo(numpy.float64).eps):
                raise ValueError("Probabilities do not sum to 1. See Notes section of "
                                 "docstring for more information.")
            from .._routines import _scan
            cdf = _scan.cumsum(pd)
            nonzero = int(gp.count_nonzero(pd))
            return cdf, nonzero
        ph = numpy.asarray(p, dtype=numpy.float64)
        if ph.ndim != 1:
            raise ValueError("p must be 1-dimensional")
        if ph.size != pop:
            raise ValueError("a and p must have same size")
        if numpy.isnan(ph).any():
            raise ValueError("Probabilities contain NaN")
        if (ph < 0).any():
            raise ValueError("Probabilities are not non-negative")
        if abs(ph.sum() - 1.0) > numpy.sqrt(numpy.finfo(numpy.float64).eps):
            raise ValueError("Probabilities do not sum to 1. See Notes section of "
                             "docstring for more information.")
        return numpy.cumsum(ph), int(numpy.count_nonzero(ph))

    def permutation(self, x, axis=0):
        """Randomly permute a sequence, or return a permuted range.

        Parameters
        ----------
        x : int or array_like
            An integer: permute ``range(x)``. An array (host arrays and
            sequences are copied to the device): return a permuted copy.
        axis : int, optional
            Axis of ``x`` along which to permute (default 0); the slices
            along the other axes move together.

        Returns
        -------
        out : gpuscipy_core.ndarray
            For an integer ``x``: int64, shape ``(max(x, 0),)``. For an
            array: a new C-contiguous array of ``x``'s shape and dtype.

        Raises
        ------
        numpy.exceptions.AxisError
            ``axis`` is out of range; ``x`` is 0-d (including a non-integer
            scalar such as a float), as in NumPy.

        Notes
        -----
        Sort of random keys: ``n = x.shape[axis]`` random 64-bit keys (raw
        Philox4x32-10 words, ``ceil(n / 2)`` counter values) are argsorted
        on the device with the stable LSD radix sort of
        ``gpuscipy_core.argsort``; the resulting order is a uniformly
        random permutation of ``range(n)`` except when two keys are equal
        (probability below ``n**2 / 2**65``), where the stable sort keeps
        their index order, so the result stays reproducible. For an array
        the rows (``axis`` moved to the front, copied to contiguous memory
        when needed) are gathered in that order by one kernel that copies
        the widest machine word dividing the row and both addresses, and a
        transpose copy puts ``axis`` back. No host synchronisation; an
        empty result uses no counter values. The values are not NumPy's.

        References
        ----------
        D. E. Knuth, The Art of Computer Programming, Vol. 2, 3rd ed.,
        Sec. 3.4.2 (random permutations by sorting random keys).
        """
        from .._routines._creation import asarray
        from .._ndarray import ndarray
        from numpy.exceptions import AxisError
        if not isinstance(x, ndarray) and isinstance(x, (int, numpy.integer)):
            n = max(int(x), 0)
            if n == 0:
                from .._routines._creation import arange
                return arange(0, dtype=numpy.int64)
            return self._random_order(n).copy()
        a = asarray(x)
        if a.ndim == 0:
            raise AxisError(axis, 0)
        if not -a.ndim <= axis < a.ndim:
            raise AxisError(axis, a.ndim)
        axis %= a.ndim
        n = a.shape[axis]
        if a.size == 0:
            return a.copy()
        idx = self._random_order(n)
        moved = _move_axis_to_front(a, axis)
        rest = moved.shape[1:]
        out = _take_rows(moved, idx, rest)
        if axis:
            perm = tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, a.ndim))
            out = out.transpose(perm).copy()
        return out

    def shuffle(self, x, axis=0):
        """Shuffle a device array in place along ``axis``.

        Parameters
        ----------
        x : gpuscipy_core.ndarray
            Array of any dtype with at least one dimension; modified in
            place (it may be non-contiguous).
        axis : int, optional
            Axis along which to shuffle (default 0); the slices along the
            other axes move together.

        Returns
        -------
        None

        Raises
        ------
        TypeError
            ``x`` is not a gpuscipy_core array (host arrays and lists cannot
            be shuffled in place on the GPU), or it is 0-d.
        numpy.exceptions.AxisError
            ``axis`` is out of range.

        Notes
        -----
        Computes ``permutation(x, axis)`` (same method, same counter use,
        so the same order as that call would give) into a new array and
        copies it back into ``x`` with one device copy: it needs temporary
        device memory of the size of ``x``.

        Differences from NumPy: host arrays and sequences are rejected.
        """
        from .._ndarray import ndarray
        if not isinstance(x, ndarray):
            raise TypeError("shuffle needs a gpuscipy_core.ndarray (it works in place)")
        if x.ndim == 0:
            raise TypeError("len() of unsized object")
        y = self.permutation(x, axis=axis)
        x[...] = y


def _move_axis_to_front(a, axis):
    """C-contiguous copy of ``a`` with ``axis`` first."""
    if axis:
        perm = (axis,) + tuple(d for d in range(a.ndim) if d != axis)
        a = a.transpose(perm)
    return a.copy() if not a.flags.c_contiguous else a


def _take_rows(src, idx, rest):
    """``out[i] = src[idx[i]]`` for a C-contiguous ``src`` of shape
    ``(n,) + rest`` and a device int64 ``idx``."""
    from .._routines._creation import empty
    k = idx.size
    out = empty((k,) + tuple(rest), src.dtype)
    row = src.itemsize
    for d in rest:
        row *= d
    if k == 0 or row == 0:
        return out
    word = 8
    while word > 1 and (row % word or src.ptr % word or out.ptr % word):
        word //= 2
    words = row // word
    idx = idx if idx.flags.c_contiguous else idx.copy()
    K.launch_units(K.take_rows_source(word), k * words,
                   (out, src, idx.astype(numpy.int64, copy=False), k, words))
    return out


def default_rng(seed=None):
    """A ``Generator`` on a ``Philox`` bit generator.

    Parameters
    ----------
    seed : None, int, array_like of ints, SeedSequence, Philox or Generator
        Entropy for ``numpy.random.SeedSequence`` (OS entropy when None); a
        ``Philox`` is wrapped; a ``Generator`` is returned unchanged.
    """
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, Philox):
        return Generator(seed)
    return Generator(Philox(seed))
