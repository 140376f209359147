"""``medfilt``: zero-padded N-d median filter on the GPU.

One thread per output. Fast path (``median_net`` in
``_convolve_medfilt.cuh``): windows of at most 49 values (25 for 64-bit
dtypes) over at most three axes are sorted in registers by a compile-time
Batcher network of 3, 9, 25 or 49 inputs (the window padded with equal
numbers of smallest and largest keys). Otherwise a bitwise selection (one
pass over the window per key bit) that needs no storage: ``median_select3``
for up to three axes, ``median_select`` for up to ``MAXDIM``.
"""

import functools
import math
import operator
import os
import warnings

import numpy

from . import _convolve_direct as D

__all__ = ["medfilt", "BUCKETS", "BUCKETS64", "MAX_NET", "MAXDIM", "kernel_source",
           "variants", "plan", "network", "model_medfilt"]

_HERE = os.path.dirname(os.path.abspath(__file__))
BUCKETS = (3, 9, 25, 49)           # sorting networks for 32-bit keys
BUCKETS64 = (3, 9, 25)             # and for 64-bit keys (float64, int64, uint64)
MAX_NET = BUCKETS[-1]
MAXDIM = 8
DTYPES = tuple(numpy.dtype(c) for c in "iIqQfd")   # kernel dtypes


def _header():
    from gpuscipy_core._kernel._nvrtc import read_source
    return read_source(os.path.join(_HERE, "_convolve_medfilt.cuh"))


def _canon(dt):
    dt = numpy.dtype(dt)
    if dt.kind in "iu":
        return numpy.dtype(f"{dt.kind}{dt.itemsize}")
    return dt


@functools.lru_cache(maxsize=128)
def kernel_source(kind, dtype, kp=0):
    """``(source, name)`` of ``net`` (bucket ``kp``), ``sel3`` or ``sel``."""
    dt = _canon(dtype)
    T = D._ctype(dt)
    tag = dt.str[1:]
    if kind == "net":
        if kp not in _buckets(dt):
            raise ValueError(f"network size must be one of {_buckets(dt)}")
        name = f"gsmed_net{kp}_{tag}"
        body = (f"{name}(const {T}* x, {T}* out, long long total, long long ksz,\n"
                f"    gsmed::Params3 p) {{\n"
                f"  gsmed::median_net<{T}, {kp}>(x, out, total, ksz, p);\n}}\n")
    elif kind == "sel3":
        name = f"gsmed_sel3_{tag}"
        body = (f"{name}(const {T}* x, {T}* out, long long total, long long ksz,\n"
                f"    gsmed::Params3 p) {{\n"
                f"  gsmed::median_select3<{T}>(x, out, total, ksz, p);\n}}\n")
    elif kind == "sel":
        name = f"gsmed_sel_{tag}"
        body = (f"{name}(const {T}* x, {T}* out, long long total, long long ksz,\n"
                f"    gsmed::Params p) {{\n"
                f"  gsmed::median_select<{T}>(x, out, total, ksz, p);\n}}\n")
    else:
        raise ValueError(f"unknown kernel {kind!r}")
    return (_header() + '\nextern "C" __global__ void __launch_bounds__(128)\n' + body,
            name)


def _buckets(dtype):
    return BUCKETS64 if numpy.dtype(dtype).itemsize == 8 else BUCKETS


def variants():
    """Every (kind, dtype, kp) medfilt launches."""
    out = []
    for dt in DTYPES:
        out += [("net", dt, kp) for kp in _buckets(dt)]
        out += [("sel3", dt, 0), ("sel", dt, 0)]
    return out


def plan(shape, ksize, dtype):
    """``(kind, kp)`` for a volume of ``shape`` and ``dtype`` (a kernel
    dtype) and window ``ksize``."""
    k = math.prod(ksize)
    if len(shape) <= 3:
        for kp in _buckets(dtype):
            if k <= kp:
                return "net", kp
        return "sel3", 0
    return "sel", 0


def network(n):
    """Comparators (i, j) of Batcher's odd-even merge network for n inputs,
    as the constexpr generator in ``_convolve_medfilt.cuh`` makes them."""
    out = []
    p = 1
    while p < n:
        k = p
        while k >= 1:
            for j in range(k % p, n - k, 2 * k):
                for i in range(min(k - 1, n - j - k - 1) + 1):
                    if (i + j) // (2 * p) == (i + j + k) // (2 * p):
                        out.append((i + j, i + j + k))
            k //= 2
        p *= 2
    return out


def _params3(shape, strides, ksize):
    pad = 3 - len(shape)
    sh = [1] * pad + list(shape)
    st = [0] * pad + list(strides)
    ks = [1] * pad + list(ksize)
    return numpy.array(sh + st + ks, numpy.int64).tobytes()


def _params(shape, strides, ksize):
    n = len(shape)
    arr = numpy.zeros(1 + 3 * MAXDIM, numpy.int64)
    arr[0] = n
    arr[1:1 + n] = shape
    arr[1 + MAXDIM:1 + MAXDIM + n] = strides
    arr[1 + 2 * MAXDIM:1 + 2 * MAXDIM + n] = ksize
    return arr.tobytes()


def run(xp, volume, ksize):
    """The median filter of ``volume`` (a supported dtype) with window
    ``ksize`` (odd ints, one per axis); a new C-contiguous array. 8- and
    16-bit integers are filtered as 32-bit ones (exact)."""
    dt = volume.dtype
    if dt.kind in "iu" and dt.itemsize < 4:
        out = run(xp, volume.astype(numpy.dtype(f"{dt.kind}4")), ksize)
        return out.astype(dt)
    out = xp.empty(volume.shape, volume.dtype)
    if out.size == 0:
        return out
    if volume.ndim > MAXDIM:
        raise ValueError(f"medfilt supports at most {MAXDIM} dimensions on the GPU")
    kind, kp = plan(volume.shape, ksize, volume.dtype)
    es = D._estrides(volume)
    if kind == "sel":
        params = _params(volume.shape, es, ksize)
    else:
        params = _params3(volume.shape, es, ksize)
    src, name = kernel_source(kind, volume.dtype, kp)
    total = out.size
    grid = (D.grid_x(-(-total // 128)), 1, 1)
    D.launch(src, name, grid, (128, 1, 1),
             (D.ptr(volume), D.ptr(out), total, math.prod(ksize), params), 0)
    return out


def _medfilt(xp, volume, kernel_size):
    volume = xp.asarray(volume)
    if volume.ndim == 0:
        volume = volume.reshape(1)
    dt = volume.dtype
    if not (dt.kind in "iu" or dt in (numpy.dtype(numpy.float32),
                                      numpy.dtype(numpy.float64))):
        raise ValueError(f"dtype={volume.dtype} is not supported by medfilt")
    if kernel_size is None:
        kernel_size = [3] * volume.ndim
    ks = numpy.asarray(kernel_size)
    if ks.shape == ():
        ks = numpy.repeat(ks, volume.ndim)
    for k in range(volume.ndim):
        if (ks[k] % 2) != 1:
            raise ValueError("Each element of kernel_size should be odd.")
    if any(k > s for k, s in zip(ks, volume.shape)):
        warnings.warn("kernel_size exceeds volume extent: the volume will be "
                      "zero-padded.", stacklevel=3)
    if len(ks) != volume.ndim:
        raise RuntimeError("sequence argument must have length equal to input rank")
    ksize = [operator.index(k) for k in ks]
    if any(k < 1 for k in ksize):
        raise RuntimeError("incorrect filter size")
    return run(xp, volume, ksize)


def medfilt(volume, kernel_size=None):
    """Perform a median filter on an N-dimensional array.

    Parameters
    ----------
    volume : array_like
        Input of an integer dtype, float32 or float64 (0-d is taken as 1-d).
    kernel_size : array_like, optional
        Odd window size per dimension, or one for all (default 3).

    Returns
    -------
    out : gpuscipy_core.ndarray
        Same shape and dtype as ``volume``; windows extending past the edges
        see zeros.

    Raises
    ------
    ValueError
        Unsupported dtype ("dtype=... is not supported by medfilt"), an even
        window size, more than 8 dimensions.
    RuntimeError
        ``kernel_size`` of the wrong length (as ndimage).

    Warns
    -----
    UserWarning
        A window longer than the volume along some dimension.

    Notes
    -----
    Windows of up to 49 values (25 for 64-bit dtypes) over up to three
    axes: a sorting network in registers (Batcher's odd-even merge sort,
    generated at compile time for 3, 9, 25 or 49 inputs). Larger windows
    or more axes: a bitwise selection of the median (32 or 64 passes over
    the window, no storage).
    NaN sorts above +inf (NumPy's order; SciPy's NaN results depend on its
    selection order and are not reproduced).

    References
    ----------
    .. [1] K. E. Batcher, "Sorting networks and their applications",
           AFIPS Spring Joint Computer Conference, 1968.
    """
    return _medfilt(D.device_xp(), volume, kernel_size)


def model_medfilt(volume, ksize):
    """NumPy model of the kernels: zero-padded windows, NaN sorting last,
    the middle of the window padded to the network size with equal numbers
    of smallest and largest values (which leaves the middle unchanged)."""
    v = numpy.asarray(volume)
    k = math.prod(ksize)
    vp = numpy.pad(v, [(s // 2, s // 2) for s in ksize])
    win = numpy.lib.stride_tricks.sliding_window_view(vp, ksize).reshape(v.shape + (k,))
    kind, kp = plan(v.shape, ksize, v.dtype)
    if kind == "net" and kp > k:
        if v.dtype.kind == "f":
            lo, hi = -numpy.inf, numpy.inf
        else:
            lo, hi = numpy.iinfo(v.dtype).min, numpy.iinfo(v.dtype).max
        half = (kp - k) // 2
        win = numpy.concatenate([win, numpy.full(v.shape + (half,), lo, v.dtype),
                                 numpy.full(v.shape + (half,), hi, v.dtype)], axis=-1)
    srt = numpy.sort(win, axis=-1)
    return srt[..., srt.shape[-1] // 2]
