"""Argument handling shared by the transforms, and the helper functions
(fftfreq, rfftfreq, fftshift, ifftshift, next_fast_len, prev_fast_len).

Everything that only looks at shapes and arguments is a pure function of
them (no device access), so the CPU tests check it against SciPy.
"""

import bisect
import math
import operator
from numbers import Number

import numpy

from ._docs import fill_doc

__all__ = ["fftfreq", "rfftfreq", "fftshift", "ifftshift", "next_fast_len",
           "prev_fast_len"]

_NORMS = ("backward", "ortho", "forward")


# ---------------------------------------------------------------------------
# argument normalisation (SciPy's rules and messages)
# ---------------------------------------------------------------------------

def check_plan(plan):
    """SciPy's answer to a precomputed ``plan``."""
    if plan is not None:
        raise NotImplementedError("Passing a precomputed plan is not yet "
                                  "supported by scipy.fft functions")


def check_norm(norm):
    """``norm`` as one of 'backward', 'ortho', 'forward' (None -> 'backward')."""
    if norm is None:
        return "backward"
    if isinstance(norm, str) and norm in _NORMS:
        return norm
    raise ValueError(f"Invalid norm value {norm!r}, should "
                     'be "backward", "ortho" or "forward"')


def swap_norm(norm):
    """The norm of the opposite direction ('backward' <-> 'forward')."""
    return {"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]


def check_workers(workers):
    """Validate ``workers`` like SciPy (the value itself is ignored on the GPU)."""
    if workers is None:
        return
    import os
    w = operator.index(workers)
    ncpu = os.cpu_count() or 1
    if w < 0 and w < -ncpu:
        raise ValueError(f"workers value out of range; got {w}, must not be"
                         f" less than {-ncpu}")
    if w == 0:
        raise ValueError("workers must not be zero")


def scale_factor(norm, n, forward):
    """The factor applied after an unnormalised transform of ``n`` points.

    ``forward`` says whether the exponent sign is negative (fft, rfft,
    ihfft's conjugate ...): 'backward' scales the inverse by 1/n,
    'forward' the forward one, 'ortho' both by 1/sqrt(n).
    """
    if norm == "ortho":
        return 1.0 / math.sqrt(float(n))
    if (norm == "forward") == bool(forward):
        return 1.0 / float(n)
    return 1.0


def compute_dtype(dtype, real_only=False):
    """The dtype SciPy computes in: float16 -> float32, bool/int -> float64,
    float32/64 and complex64/128 unchanged.

    Raises
    ------
    TypeError
        ``real_only`` and a complex dtype ("x must be a real sequence").
    """
    dt = numpy.dtype(dtype)
    if dt == numpy.float16:
        dt = numpy.dtype(numpy.float32)
    elif dt.kind not in "fc":
        dt = numpy.dtype(numpy.float64)
    if real_only and dt.kind == "c":
        raise TypeError("x must be a real sequence")
    return dt


def complex_of(dt):
    """complex64 for float32/complex64, complex128 for float64/complex128."""
    return numpy.dtype(numpy.complex64 if numpy.dtype(dt).char in "fF"
                       else numpy.complex128)


def real_of(dt):
    """float32 for float32/complex64, float64 for float64/complex128."""
    return numpy.dtype(numpy.float32 if numpy.dtype(dt).char in "fF"
                       else numpy.float64)


def check_axis(axis, ndim):
    """A non-negative axis; SciPy's IndexError for one out of range."""
    a = operator.index(axis)
    if a < -ndim or a >= ndim:
        raise IndexError("tuple index out of range")
    return a + ndim if a < 0 else a


def check_n(n, length):
    """Transform length: ``length`` when ``n`` is None; SciPy's ValueError
    for n < 1."""
    if n is None:
        if length < 1:
            raise ValueError(f"invalid number of data points ({length}) specified")
        return length
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"invalid number of data points ({n}) specified")
    return n


def _iterable_of_int(x, name):
    if isinstance(x, Number):
        x = (x,)
    try:
        return [operator.index(a) for a in x]
    except TypeError as e:
        raise ValueError(f"{name} must be a scalar or iterable of integers") from e


def init_nd_shape_and_axes(shape_in, s, axes):
    """``(s, axes)`` of an n-D transform in standard form (SciPy's rules).

    Parameters
    ----------
    shape_in : tuple of int
        Shape of the input.
    s, axes : as given to fftn and friends.

    Returns
    -------
    s : tuple of int
        Transform lengths, one per axis.
    axes : list of int
        Non-negative axes.
    """
    ndim = len(shape_in)
    noshape = s is None
    noaxes = axes is None
    if not noaxes:
        axes = _iterable_of_int(axes, "axes")
        axes = [a + ndim if a < 0 else a for a in axes]
        if any(a >= ndim or a < 0 for a in axes):
            raise ValueError("axes exceeds dimensionality of input")
        if len(set(axes)) != len(axes):
            raise ValueError("all axes must be unique")
    if not noshape:
        s = _iterable_of_int(s, "shape")
        if axes and len(axes) != len(s):
            raise ValueError("when given, axes and shape arguments"
                             " have to be of the same length")
        if noaxes:
            if len(s) > ndim:
                raise ValueError("shape requires more axes than are present")
            axes = list(range(ndim - len(s), ndim))
        s = [shape_in[a] if n == -1 else n for n, a in zip(s, axes)]
    elif noaxes:
        s = list(shape_in)
        axes = list(range(ndim))
    else:
        s = [shape_in[a] for a in axes]
    if any(n < 1 for n in s):
        raise ValueError(f"invalid number of data points ({s}) specified")
    return tuple(s), list(axes)


def is_device_array(x):
    import gpuscipy_core as gp
    return isinstance(x, gp.ndarray)


def as_device(x, name="x"):
    """``x`` as a gpuscipy_core array: device arrays as they are, anything
    else (NumPy arrays, lists, scalars, objects with
    ``__cuda_array_interface__``) through ``gpuscipy_core.asarray`` -- the
    rule of every gpuscipy module: host input is copied to the device and
    the result stays there. TypeError (naming ``name``) for what NumPy
    cannot read as an array of numbers."""
    import gpuscipy_core as gp
    if isinstance(x, gp.ndarray):
        return x
    try:
        d = gp.asarray(x)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{name} must be an array_like of numbers (got "
                        f"{type(x).__name__}: {e})") from None
    if d.dtype.kind not in "biufc":
        raise TypeError(f"{name} must be an array_like of numbers (got "
                        f"{type(x).__name__} of dtype {d.dtype})")
    return d


def fix_shape(x, shape, axes, dtype):
    """``x`` cut or zero-padded to ``shape`` along ``axes`` and cast to
    ``dtype``, as a C-contiguous array (``x`` itself when nothing changes).

    Returns
    -------
    out : ndarray
    copied : bool
        Whether ``out`` is new memory (safe to overwrite).
    """
    import gpuscipy_core as gp
    index = [slice(None)] * x.ndim
    new_shape = list(x.shape)
    pad = False
    for n, ax in zip(shape, axes):
        if x.shape[ax] >= n:
            index[ax] = slice(0, n)
        else:
            index[ax] = slice(0, x.shape[ax])
            pad = True
        new_shape[ax] = n
    index = tuple(index)
    if pad:
        out = gp.zeros(tuple(new_shape), dtype)
        if x.size:
            out[index] = x[index]
        return out, True
    v = x[index]
    if v.dtype == dtype and v.flags.c_contiguous:
        return v, False
    return v.astype(dtype, order="C"), True


# ---------------------------------------------------------------------------
# public helpers
# ---------------------------------------------------------------------------

@fill_doc
def fftfreq(n, d=1.0, *, xp=None, device=None):
    """Return the discrete Fourier transform sample frequencies.

    The frequency of each output index of an ``n``-point :func:`fft`, in
    cycles per unit of ``d``: ``[0, 1, ..., n//2 - 1, -(n//2), ..., -1] /
    (d*n)`` for even ``n`` and ``[0, 1, ..., (n-1)//2, -((n-1)//2), ...,
    -1] / (d*n)`` for odd ``n``.

    Parameters
    ----------
    {n_window}
    {d_spacing}
    {xp_device}

    Returns
    -------
    f : gpuscipy_core.ndarray, shape (n,)
        The sample frequencies on the current device, float64 (complex128
        for a complex ``d``, as in NumPy).

    Raises
    ------
    ValueError
        ``n`` is not an integer ("n should be an integer"), or is negative.
    ZeroDivisionError
        ``n == 0`` or ``d == 0``.

    See Also
    --------
    rfftfreq : The frequencies of :func:`rfft`'s output.
    fftshift : Reorders them (and a spectrum) with zero in the middle.
    scipy.fft.fftfreq : The CPU function this mirrors.

    Notes
    -----
    Computed on the host by :func:`numpy.fft.fftfreq` (``n`` values, cheap
    next to any transform of that length) and copied to the current device
    with one host-to-device copy; no kernel. The values are therefore
    exactly NumPy's and SciPy's.

    Examples
    --------
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> f = fft.fftfreq(8, d=0.1)  # doctest: +SKIP
    >>> f.dtype  # doctest: +SKIP
    dtype('float64')
    >>> gp.asnumpy(f)  # doctest: +SKIP
    array([ 0.  ,  1.25,  2.5 ,  3.75, -5.  , -3.75, -2.5 , -1.25])
    """
    import gpuscipy_core as gp
    return gp.asarray(numpy.fft.fftfreq(n, d))


@fill_doc
def rfftfreq(n, d=1.0, *, xp=None, device=None):
    """Return the sample frequencies of :func:`rfft`.

    The frequency of each output index of an ``n``-point :func:`rfft`, in
    cycles per unit of ``d``: ``[0, 1, ..., n//2] / (d*n)``.

    Parameters
    ----------
    {n_window}
    {d_spacing}
    {xp_device}

    Returns
    -------
    f : gpuscipy_core.ndarray, shape (n//2 + 1,)
        The non-negative sample frequencies on the current device, float64
        (complex128 for a complex ``d``). A negative ``n`` gives an empty
        array, as in NumPy.

    Raises
    ------
    ValueError
        ``n`` is not an integer ("n should be an integer").
    ZeroDivisionError
        ``n == 0`` or ``d == 0``.

    See Also
    --------
    fftfreq : The frequencies of :func:`fft`'s output.
    rfft : The transform whose output they label.
    scipy.fft.rfftfreq : The CPU function this mirrors.

    Notes
    -----
    Computed on the host by :func:`numpy.fft.rfftfreq` and copied to the
    current device with one host-to-device copy; no kernel. The values are
    exactly NumPy's and SciPy's.

    Examples
    --------
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> gp.asnumpy(fft.rfftfreq(8, d=0.1))  # doctest: +SKIP
    array([0.  , 1.25, 2.5 , 3.75, 5.  ])
    """
    import gpuscipy_core as gp
    return gp.asarray(numpy.fft.rfftfreq(n, d))


def _shift_axes(x, axes):
    if axes is None:
        return list(range(x.ndim))
    if isinstance(axes, Number) or hasattr(axes, "__index__"):
        axes = (axes,)
    out = []
    for a in axes:
        a = operator.index(a)
        if not -x.ndim <= a < x.ndim:
            from numpy.exceptions import AxisError
            raise AxisError(a, x.ndim)
        out.append(a % x.ndim)
    return out


def roll_blocks(shape, shifts):
    """The (destination, source) index tuples whose copies make a roll of an
    array of ``shape`` by ``shifts`` ({axis: shift}); pure, 2**k blocks for
    k rolled axes."""
    blocks = [[]]
    for ax, n in enumerate(shape):
        k = shifts.get(ax, 0) % n if n else 0
        if k == 0:
            blocks = [b + [(slice(None), slice(None))] for b in blocks]
            continue
        # out[k:] = x[:n-k]; out[:k] = x[n-k:]
        blocks = [b + [pair] for b in blocks
                  for pair in ((slice(k, None), slice(0, n - k)),
                               (slice(0, k), slice(n - k, None)))]
    return [(tuple(p[0] for p in b), tuple(p[1] for p in b)) for b in blocks]


def _roll(x, shifts):
    """Copy of ``x`` rolled by ``shifts`` ({axis: shift})."""
    import gpuscipy_core as gp
    out = gp.empty(x.shape, x.dtype)
    if x.size == 0:
        return out
    for dst, src in roll_blocks(x.shape, shifts):
        out[dst] = x[src]
    return out


def _half_roll(x, axes, sign):
    """Copy of ``x`` rolled by ``sign * (length // 2)`` along each of
    ``axes`` (an axis named twice is rolled twice, as in NumPy)."""
    x = as_device(x)
    shifts = {}
    for a in _shift_axes(x, axes):
        shifts[a] = shifts.get(a, 0) + sign * (x.shape[a] // 2)
    return _roll(x, shifts)


@fill_doc
def fftshift(x, axes=None):
    """Shift the zero-frequency component to the centre of the spectrum.

    Rolls each axis of ``axes`` by half its length, so that the output of
    :func:`fft` (and :func:`fftfreq`) runs from the most negative frequency
    to the most positive one.

    Parameters
    ----------
    {x_shift}
    {axes_shift}

    Returns
    -------
    y : gpuscipy_core.ndarray
        The shifted array: a new C-contiguous array of ``x``'s shape and
        dtype, rolled by ``x.shape[a] // 2`` along each axis ``a`` of
        ``axes``.

    Raises
    ------
    TypeError
        {raises_type_shift}
    numpy.exceptions.AxisError
        {raises_axis_shift}

    See Also
    --------
    ifftshift : The inverse shift.
    fftfreq : The frequencies, in the order fftshift undoes.
    scipy.fft.fftshift : The CPU function this mirrors.

    Notes
    -----
    {notes_shift}

    Examples
    --------
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> f = fft.fftfreq(5, d=0.2)  # doctest: +SKIP
    >>> gp.asnumpy(f)  # doctest: +SKIP
    array([ 0.,  1.,  2., -2., -1.])
    >>> gp.asnumpy(fft.fftshift(f))  # doctest: +SKIP
    array([-2., -1.,  0.,  1.,  2.])
    """
    return _half_roll(x, axes, 1)


@fill_doc
def ifftshift(x, axes=None):
    """The inverse of :func:`fftshift`.

    Rolls each axis of ``axes`` back by half its length, so that the
    zero-frequency term returns to index 0. The two functions differ for
    odd lengths only.

    Parameters
    ----------
    {x_shift}
    {axes_shift}

    Returns
    -------
    y : gpuscipy_core.ndarray
        The shifted array: a new C-contiguous array of ``x``'s shape and
        dtype, rolled by ``-(x.shape[a] // 2)`` along each axis ``a`` of
        ``axes``.

    Raises
    ------
    TypeError
        {raises_type_shift}
    numpy.exceptions.AxisError
        {raises_axis_shift}

    See Also
    --------
    fftshift : The forward shift.
    scipy.fft.ifftshift : The CPU function this mirrors.

    Notes
    -----
    {notes_shift}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> x = gp.asarray(np.arange(5))  # doctest: +SKIP
    >>> gp.asnumpy(fft.fftshift(x))  # doctest: +SKIP
    array([3, 4, 0, 1, 2])
    >>> gp.asnumpy(fft.ifftshift(fft.fftshift(x)))  # doctest: +SKIP
    array([0, 1, 2, 3, 4])
    """
    return _half_roll(x, axes, -1)


def _check_target(target):
    try:
        t = operator.index(target)
    except TypeError:
        raise TypeError(f"'{type(target).__name__}' object cannot be interpreted "
                        "as an integer") from None
    if t < 0:
        raise ValueError("Target length must be positive")
    return t


_PRIMES = (2, 3, 5, 7)


def _is_smooth(n):
    for p in _PRIMES:
        while n % p == 0:
            n //= p
    return n == 1


@fill_doc
def next_fast_len(target, real=False):
    """Find the next fast size of input data to ``fft``, for zero-padding.

    cuFFT is fastest for lengths of the form ``2**a * 3**b * 5**c * 7**d``
    (7-smooth numbers); this returns the smallest such length that is at
    least ``target``.

    Parameters
    ----------
    target : int
        Length to start searching from; a non-negative integer.
    real : bool, optional
        Whether the transform is a real one (:func:`rfft` and friends). A
        real transform of odd length over several rows runs here as a
        complex one (see :func:`rfft`), twice the work, so for ``real``
        targets above 6 the answer is even. Default False.

    Returns
    -------
    out : int
        The smallest 7-smooth number greater than or equal to ``target``
        (for ``real``, the smallest even one when ``target`` > 6); targets
        up to 6 (0 included) are returned as they are.

    Raises
    ------
    {raises_target}

    See Also
    --------
    prev_fast_len : The largest fast length not above the target.
    scipy.fft.next_fast_len : The CPU function this mirrors, for pocketfft.

    Notes
    -----
    cuFFT's documentation names lengths ``2**a * 3**b * 5**c * 7**d`` as
    the ones its algorithms are optimised for (NVIDIA, cuFFT Library
    User's Guide). SciPy's answer is for pocketfft instead (11-smooth
    lengths for complex transforms, 5-smooth for real ones), so the two
    functions can differ.

    Pure Python integer arithmetic on the host, exact for any size (SciPy
    raises OverflowError beyond the C ``ssize_t`` range). Up to ``2**40``
    the answer is looked up in a sorted table of the 7-smooth numbers
    (built once, on first use); beyond it, for every product ``p = 3**b *
    5**c * 7**d`` up to about ``target``, the smallest power-of-two
    multiple ``p * 2**a >= target`` is formed and the smallest of these is
    returned: ``O(log(target)**3)`` candidates.

    Examples
    --------
    >>> import gpuscipy.fft as fft
    >>> fft.next_fast_len(1021)
    1024
    >>> fft.next_fast_len(13), fft.next_fast_len(11, real=True)
    (14, 12)
    """
    t = _check_target(target)
    if t <= 6:
        return t
    if real:
        t = -(-t // 2)
        return 2 * (t if t <= 6 else _smooth_at_least(t))
    return _smooth_at_least(t)


#: Every 7-smooth number up to 2**40, sorted (about 10,000 of them), built on
#: first use: ``next_fast_len`` is called several times by each convolution
#: plan, and the search below costs tens of microseconds in Python.
_TABLE_LIMIT = 1 << 40
_smooth_table = None


def _smooth_numbers(limit):
    out = []
    p7 = 1
    while p7 <= limit:
        p5 = p7
        while p5 <= limit:
            p3 = p5
            while p3 <= limit:
                p2 = p3
                while p2 <= limit:
                    out.append(p2)
                    p2 <<= 1
                p3 *= 3
            p5 *= 5
        p7 *= 7
    out.sort()
    return out


def _smooth_at_least(t):
    """The smallest 7-smooth number >= ``t`` (``t`` > 0)."""
    global _smooth_table
    if t <= _TABLE_LIMIT:
        if _smooth_table is None:
            _smooth_table = _smooth_numbers(_TABLE_LIMIT)
        return _smooth_table[bisect.bisect_left(_smooth_table, t)]
    return _search_smooth(t)


def _search_smooth(t):
    """``_smooth_at_least`` for any size: for every product
    ``3**b * 5**c * 7**d`` up to about ``t``, its smallest power-of-two
    multiple ``>= t``; the least of these."""
    best = None
    # enumerate 7-smooth numbers >= t close to t
    p7 = 1
    while True:
        p5 = p7
        while True:
            p3 = p5
            while True:
                # smallest power of two making p3 * 2**k >= t
                m = p3
                if m < t:
                    m <<= (-(-t // m) - 1).bit_length()
                    while m < t:
                        m <<= 1
                if best is None or m < best:
                    best = m
                if p3 >= t:
                    break
                p3 *= 3
            if p5 >= t:
                break
            p5 *= 5
        if p7 >= t:
            break
        p7 *= 7
    return best


@fill_doc
def prev_fast_len(target, real=False):
    """Find the previous fast size of input data to ``fft``, for truncation.

    The largest length of the form ``2**a * 3**b * 5**c * 7**d`` (a 7-smooth
    number, the lengths cuFFT is fastest for) that is at most ``target``.

    Parameters
    ----------
    target : int
        Maximum length to search down from; a non-negative integer.
    real : bool, optional
        Accepted for SciPy compatibility; the answer is the same for real
        and complex transforms. Default False.

    Returns
    -------
    out : int
        The largest 7-smooth number less than or equal to ``target``;
        targets up to 6 (0 included) are returned as they are.

    Raises
    ------
    {raises_target}

    See Also
    --------
    next_fast_len : The smallest fast length not below the target.
    scipy.fft.prev_fast_len : The CPU function this mirrors, for pocketfft.

    Notes
    -----
    7-smooth lengths (cuFFT's fast sizes) instead of the pocketfft lengths
    SciPy looks for, so the two functions can differ. Pure Python integer
    arithmetic on the host, exact for any size: for every product ``p =
    3**b * 5**c * 7**d <= target``, the largest power-of-two multiple ``p *
    2**a <= target`` is ``p << (bit_length(target // p) - 1)``; the largest
    of these is returned.

    Examples
    --------
    >>> import gpuscipy.fft as fft
    >>> fft.prev_fast_len(1021)
    1008
    >>> fft.prev_fast_len(1024)
    1024
    """
    t = _check_target(target)
    if t <= 6:
        return t
    best = 1
    p7 = 1
    while p7 <= t:
        p5 = p7
        while p5 <= t:
            p3 = p5
            while p3 <= t:
                m = p3 << ((t // p3).bit_length() - 1)
                if m > best:
                    best = m
                p3 *= 3
            p5 *= 5
        p7 *= 7
    return best
