"""Rank selection over zero-padded N-d windows: ``medfilt`` and the kernels
that ``medfilt2d`` and ``order_filter`` (``_order_filter``) share.

Every kernel (``_convolve_medfilt.cuh``) takes a window (a box, or the
nonzero entries of a domain mask) and a rank r and writes the rank-r value
of each window, values compared as unsigned keys. Three kernels:

* ``net`` (kind "net", bucket KP in 3, 9, 25, 49; 25 at most for 64-bit
  keys): box windows over at most three axes, sorted in registers by a
  compile-time Batcher network, padded so the rank-r key lands at KP/2.
* ``small`` (kind "small", bucket M in 1, 2, 4, 8): box windows over at
  most three axes whose rank lies within M of either end; the M extreme
  keys kept sorted in registers, every window key bubbled through them.
* ``ring`` (kind "sel3", KP a ring bucket): box windows spanning one axis;
  each thread slides over a run of outputs with its window in a ring of keys
  in its own slice of shared memory, one pass per output.
* ``window`` (kind "sel3" with KP = 0 up to three axes, "sel" up to
  ``MAXDIM``): any mask as an offset list; each thread slides over a run of
  outputs along one axis (lanes along the innermost axis), one pass per
  distinct key the rank moves by.

``plan_order`` picks one; ``plan`` is its medfilt form.
"""

import functools
import math
import operator
import os
import warnings

import numpy

from gpuscipy_core.kernel import read_source

from . import _convolve_direct as D

__all__ = ["medfilt", "BUCKETS", "BUCKETS64", "SMALL", "RINGS", "RINGS64", "MAX_NET", "MAXDIM",
           "kernel_source", "variants", "plan", "plan_order", "network", "run", "run_order",
           "model_medfilt", "model_order", "model_sliding"]

_HERE = os.path.dirname(os.path.abspath(__file__))
BUCKETS = (3, 9, 25, 49)           # sorting networks for 32-bit keys
BUCKETS64 = (3, 9, 25)             # and for 64-bit keys (float64, int64, uint64)
SMALL = (1, 2, 4, 8)               # kept keys of the small-rank kernel
MAX_NET = BUCKETS[-1]
# ring buckets (KP, threads per block): KP * block keys of shared memory,
# at most 48 KiB of static shared memory per block
RINGS = ((95, 128), (383, 32))
RINGS64 = ((47, 128), (191, 32))
WINDOW_BLOCK = 128
MAXDIM = 8
DTYPES = tuple(numpy.dtype(c) for c in "iIqQfd")   # kernel dtypes
# threads the sliding kernels aim for (runs get longer beyond it), and the
# shortest and longest runs (H200, medfilt of 1 M float64 with kernel 31, the
# ring kernel: runs of 16 0.129 ms, 32 0.098 ms, 64 0.120 ms)
TARGET_THREADS = 1 << 15
RUN_MIN, RUN_MAX = 16, 256


_CUH = os.path.join(_HERE, "_convolve_medfilt.cuh")


def _canon(dt):
    dt = numpy.dtype(dt)
    if dt.kind in "iu":
        return numpy.dtype(f"{dt.kind}{dt.itemsize}")
    return dt


def _buckets(dtype):
    return BUCKETS64 if numpy.dtype(dtype).itemsize == 8 else BUCKETS


def _rings(dtype):
    return RINGS64 if numpy.dtype(dtype).itemsize == 8 else RINGS


@functools.lru_cache(maxsize=128)
def kernel_source(kind, dtype, kp=0):
    """``(source, name)`` of ``net`` (bucket ``kp``), ``sel3`` (``kp`` = 0:
    the window kernel for up to three axes; a ring bucket: the ring kernel)
    or ``sel`` (the window kernel for up to ``MAXDIM`` axes)."""
    dt = _canon(dtype)
    T = D._ctype(dt)
    tag = dt.str[1:]
    block = 128
    if kind == "net":
        if kp not in _buckets(dt):
            raise ValueError(f"network size must be one of {_buckets(dt)}")
        name = f"gsmed_net{kp}_{tag}"
        body = (f"{name}(const {T}* x, {T}* out, long long total, long long ksz,\n"
                f"    long long rank, gs_signal_medfilt::Params3 p) {{\n"
                f"  gs_signal_medfilt::median_net<{T}, {kp}>(x, out, total, ksz, rank, p);\n}}\n")
    elif kind == "small":
        if kp not in SMALL:
            raise ValueError(f"small-rank size must be one of {SMALL}")
        name = f"gsmed_small{kp}_{tag}"
        body = (f"{name}(const {T}* x, {T}* out, long long total, long long ksz,\n"
                f"    long long rank, long long flip, gs_signal_medfilt::Params3 p) {{\n"
                f"  gs_signal_medfilt::select_small<{T}, {kp}>(x, out, total, ksz, rank, flip,\n"
                f"                                           p);\n}}\n")
    elif kind == "sel3" and kp:
        rings = dict(_rings(dt))
        if kp not in rings:
            raise ValueError(f"ring size must be one of {tuple(rings)}")
        block = rings[kp]
        name = f"gsmed_ring{kp}_{tag}"
        body = (f"{name}(const {T}* x, {T}* out, gs_signal_medfilt::SelParams p) {{\n"
                f"  gs_signal_medfilt::select_ring<{T}, {kp}, {block}>(x, out, p);\n}}\n")
    elif kind in ("sel3", "sel") and kp == 0:
        nd = 3 if kind == "sel3" else MAXDIM
        name = f"gsmed_{kind}_{tag}"
        body = (f"{name}(const {T}* x, {T}* out, const long long* off,\n"
                f"    const int* coord, gs_signal_medfilt::SelParams p) {{\n"
                f"  gs_signal_medfilt::select_window<{T}, {nd}>(x, out, off, coord, p);\n}}\n")
    else:
        raise ValueError(f"unknown kernel {kind!r} (bucket {kp})")
    return (read_source(_CUH) + f'\nextern "C" __global__ void __launch_bounds__({block})\n' + body,
            name)


def variants():
    """Every (kind, dtype, kp) the selection kernels launch."""
    out = []
    for dt in DTYPES:
        out += [("net", dt, kp) for kp in _buckets(dt)]
        out += [("small", dt, m) for m in SMALL]
        out += [("sel3", dt, kp) for kp, _ in _rings(dt)]
        out += [("sel3", dt, 0), ("sel", dt, 0)]
    return out


def plan_order(shape, wshape, full, rank, dtype):
    """``(kind, kp)`` for a volume of ``shape`` and kernel ``dtype``, a window
    box ``wshape`` (all of it when ``full``, else a mask with holes) and the
    rank (0 <= rank < window count)."""
    k = math.prod(wshape)
    if len(shape) > 3:
        return "sel", 0
    if full:
        if k in _buckets(dtype) and rank == k // 2:
            return "net", k               # a network with no padding
        m = min(rank + 1, k - rank)
        axes = sum(w > 1 for w in wshape)
        if m == 1 or (m <= SMALL[-1] and axes > 1):
            # k * M compare-exchanges; one-axis windows slide cheaper (ring)
            return "small", next(b for b in SMALL if b >= m)
        for kp in _buckets(dtype):
            if k <= kp and 0 <= kp // 2 - rank <= kp - k:
                return "net", kp
        if sum(w > 1 for w in wshape) <= 1:
            for kp, _ in _rings(dtype):
                if k <= kp:
                    return "sel3", kp
    return "sel3", 0


def plan(shape, ksize, dtype):
    """``(kind, kp)`` of medfilt for a volume of ``shape`` and ``dtype`` (a
    kernel dtype) and window ``ksize``."""
    return plan_order(shape, ksize, True, math.prod(ksize) // 2, dtype)


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


# ---------------------------------------------------------------- layouts

def _params3(shape, strides, ksize):
    pad = 3 - len(shape)
    sh = [1] * pad + list(shape)
    st = [0] * pad + list(strides)
    ks = [1] * pad + list(ksize)
    return numpy.array(sh + st + ks, numpy.int64).tobytes()


def slide_axis(shape, wshape, ring=False):
    """The axis the sliding kernels run along: one the window extends along
    (neighbouring windows overlap), not the innermost when other axes
    qualify and the innermost is long (lanes then read consecutive
    elements), the longest window extent first."""
    nd = len(shape)
    if ring:
        ext = [d for d in range(nd) if wshape[d] > 1]
        return ext[0] if ext else nd - 1
    inner_long = shape[-1] >= 32

    def score(d):
        return (wshape[d] > 1 and shape[d] > 1, not (d == nd - 1 and inner_long and nd > 1),
                wshape[d], shape[d] > 1, d)
    return max(range(nd), key=score)


def run_length(shape, axis):
    """Outputs per thread along ``axis``: long enough to amortise a run's
    first selection, short enough to keep ``TARGET_THREADS`` threads."""
    total = math.prod(shape)
    r = max(RUN_MIN, min(RUN_MAX, total // TARGET_THREADS))
    return max(1, min(r, shape[axis]))


def sel_params(shape, strides, wshape, axis, run, k, rank, init=0, box=False):
    """Bytes of ``gs_signal_medfilt::SelParams``; ``box``: the window is the
    whole of ``wshape`` (the window kernel then reads it row by row)."""
    nd = len(shape)
    arr = numpy.zeros(1 + 5 * MAXDIM + 7, numpy.int64)
    ost = [0] * nd
    acc = 1
    for d in range(nd - 1, -1, -1):
        ost[d] = acc
        acc *= shape[d]
    tshape = list(shape)
    tshape[axis] = -(-shape[axis] // run)
    arr[0] = nd
    for i, vals in enumerate((shape, strides, ost, [w // 2 for w in wshape], tshape)):
        arr[1 + i * MAXDIM:1 + i * MAXDIM + nd] = vals
    arr[1 + 5 * MAXDIM:] = [axis, run, math.prod(tshape), k, rank, init,
                            wshape[-1] if box else 0]
    return arr.tobytes(), math.prod(tshape)


def mask_offsets(mask, strides):
    """Input offsets (int64) of the mask's nonzero entries from the window's
    first corner, and their window coordinates (int32, [k, ndim]), C order."""
    coords = numpy.argwhere(numpy.asarray(mask, bool)).astype(numpy.int32)
    off = (coords.astype(numpy.int64) @ numpy.asarray(strides, numpy.int64)
           if coords.size else numpy.zeros(0, numpy.int64))
    return numpy.ascontiguousarray(off, numpy.int64), numpy.ascontiguousarray(coords)


_OFFSETS = {}


def _device_offsets(xp, mask, strides):
    key = (getattr(xp, "__name__", ""), mask.shape, mask.tobytes(), tuple(strides))
    hit = _OFFSETS.get(key)
    if hit is None:
        off, coord = mask_offsets(mask, strides)
        # never an empty buffer: the kernel's pointers stay valid
        hit = (xp.asarray(off if off.size else numpy.zeros(1, numpy.int64)),
               xp.asarray(coord.ravel() if coord.size else numpy.zeros(1, numpy.int32)))
        if len(_OFFSETS) >= 64:
            _OFFSETS.clear()
        _OFFSETS[key] = hit
    return hit


# ---------------------------------------------------------------- drivers

def run(xp, volume, ksize):
    """The median filter of ``volume`` (a supported dtype) with window
    ``ksize`` (odd ints, one per axis); a new C-contiguous array."""
    return run_order(xp, volume, None, math.prod(ksize) // 2, wshape=ksize)


def run_order(xp, volume, mask, rank, wshape=None, force=None, run=None, init=0):
    """The rank-``rank`` value of each zero-padded window of ``volume``: the
    nonzero entries of ``mask`` (odd extents, ``volume.ndim`` axes), or the
    whole box ``wshape`` when ``mask`` is None; 0 <= rank < window count.
    A new C-contiguous array of ``volume``'s dtype (8- and 16-bit integers
    are filtered as 32-bit ones, exactly). ``force`` = (kind, kp), ``run``
    and ``init`` (0 auto, 1 bitwise, 2 refinement) override the plan (for
    the benchmarks of the variants)."""
    dt = volume.dtype
    if dt.kind in "iu" and dt.itemsize < 4:
        out = run_order(xp, volume.astype(numpy.dtype(f"{dt.kind}4")), mask, rank, wshape,
                        force, run, init)
        return out.astype(dt)
    out = xp.empty(volume.shape, volume.dtype)
    if out.size == 0:
        return out
    if volume.ndim > MAXDIM:
        raise ValueError(f"at most {MAXDIM} dimensions are supported on the GPU")
    if mask is not None:
        mask = numpy.asarray(mask, bool)
        wshape = mask.shape
        full = bool(mask.all())
        k = int(mask.sum())
    else:
        wshape = tuple(int(w) for w in wshape)
        full = True
        k = math.prod(wshape)
    if k > (1 << 31) - 1:
        raise ValueError(f"a window of {k} values is too large (at most 2**31 - 1)")
    kind, kp = force or plan_order(volume.shape, wshape, full, rank, volume.dtype)
    es = D._estrides(volume)
    src, name = kernel_source(kind, volume.dtype, kp)
    if kind in ("net", "small"):
        total = out.size
        grid = (D.grid_x(-(-total // 128)), 1, 1)
        if kind == "net":
            args = (k, rank)
        else:                 # the rank from the nearer end, keys complemented at the top
            flip = k - 1 - rank < rank
            args = (k, k - 1 - rank if flip else rank, int(flip))
        D.launch(src, name, grid, (128, 1, 1),
                 (D.ptr(volume), D.ptr(out), total) + args
                 + (_params3(volume.shape, es, wshape),), 0)
        return out
    ring = kind == "sel3" and kp != 0
    axis = slide_axis(volume.shape, wshape, ring)
    r = run or run_length(volume.shape, axis)
    params, threads = sel_params(volume.shape, es, wshape, axis, r, k, rank, init, box=full)
    if ring:
        block = dict(_rings(volume.dtype))[kp]
        args = (D.ptr(volume), D.ptr(out), params)
    else:
        block = WINDOW_BLOCK
        off, coord = _device_offsets(xp, mask if mask is not None
                                     else numpy.ones(wshape, bool), es)
        args = (D.ptr(volume), D.ptr(out), D.ptr(off), D.ptr(coord), params)
    grid = (D.grid_x(-(-threads // block)), 1, 1)
    D.launch(src, name, grid, (block, 1, 1), args, 0)
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
    Values are compared as unsigned keys. Windows of up to 49 values (25
    for 64-bit dtypes) over up to three axes: a sorting network in registers
    (Batcher's odd-even merge sort [1]_, generated at compile time for 3, 9,
    25 or 49 inputs). Larger windows along one axis (up to 383 values, 191
    for 64-bit dtypes): each thread slides over a run of outputs with its
    window in a ring of keys in shared memory; one step replaces one key,
    which moves the median's rank by at most one, so one pass over the ring
    (counting keys below and equal to the previous median, finding the
    nearest keys above and below it) gives the next median. Other windows:
    the same sliding refinement over an offset list, one pass per distinct
    key the rank moves by, the first output of each run by a bitwise
    selection.
    NaN sorts above +inf (NumPy's order; SciPy's NaN results depend on its
    selection order and are not reproduced).

    References
    ----------
    .. [1] K. E. Batcher, "Sorting networks and their applications",
           AFIPS Spring Joint Computer Conference, 1968.
    """
    return _medfilt(D.device_xp(), volume, kernel_size)


# ---------------------------------------------------------------- models

def model_medfilt(volume, ksize):
    """NumPy model of the kernels: zero-padded windows, NaN sorting last,
    the window padded to the network size as the net kernel pads it (which
    leaves the rank-r value at the middle)."""
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
        a = kp // 2 - k // 2
        win = numpy.concatenate([win, numpy.full(v.shape + (a,), lo, v.dtype),
                                 numpy.full(v.shape + (kp - k - a,), hi, v.dtype)], axis=-1)
    srt = numpy.sort(win, axis=-1)
    return srt[..., srt.shape[-1] // 2]


def model_order(volume, mask, rank):
    """NumPy reference: the rank-``rank`` value of the nonzero entries of
    ``mask`` centred on each element of the zero-padded ``volume`` (NaN
    sorting last, integers in their own order)."""
    v = numpy.asarray(volume)
    mask = numpy.asarray(mask, bool)
    vp = numpy.pad(v, [(s // 2, s // 2) for s in mask.shape])
    win = numpy.lib.stride_tricks.sliding_window_view(vp, mask.shape)
    win = win.reshape(v.shape + (-1,))[..., mask.ravel()]
    return numpy.sort(win, axis=-1)[..., rank]


def _keys(v):
    """The kernels' unsigned keys of ``v`` (Key<T>::of)."""
    v = numpy.asarray(v)
    if v.dtype.kind == "f":
        bits = v.dtype.itemsize * 8
        u = v.view(f"u{v.dtype.itemsize}")
        sign = numpy.array(1 << (bits - 1), u.dtype)
        k = numpy.where(u & sign, ~u, u | sign)
        return numpy.where(numpy.isnan(v), numpy.array(~numpy.array(0, u.dtype)), k)
    if v.dtype.kind == "i":
        u = v.view(f"u{v.dtype.itemsize}")
        return u ^ numpy.array(1 << (v.dtype.itemsize * 8 - 1), u.dtype)
    return v


def model_sliding(volume, mask, rank, axis, run, init=0):
    """NumPy model of the ring and window kernels' algorithm on the keys:
    runs of ``run`` outputs along ``axis``, the first of each by a bitwise
    selection (``init`` 1, or 0 with more than twice as many keys as key
    bits) or by refinement from the centre key, the others by refinement
    from the previous answer. Returns ``(keys, passes)``: the selected keys
    and the refinement passes per output (the same shape)."""
    key = _keys(volume)
    mask = numpy.asarray(mask, bool)
    U = key.dtype.type
    bits = key.dtype.itemsize * 8
    kp = numpy.pad(key, [(s // 2, s // 2) for s in mask.shape],
                   constant_values=_keys(numpy.zeros(1, volume.dtype))[0])
    win = numpy.lib.stride_tricks.sliding_window_view(kp, mask.shape)
    win = win.reshape(key.shape + (-1,))[..., mask.ravel()]     # [..., k]
    win = numpy.moveaxis(win, axis, 0)                             # [n, ..., k]
    cen = numpy.moveaxis(key, axis, 0)
    n, k = win.shape[0], win.shape[-1]
    out = numpy.zeros(win.shape[:-1], key.dtype)
    passes = numpy.zeros(win.shape[:-1], numpy.int64)
    one = U(1)
    for s in range(n):
        w = win[s]
        if s % run == 0:
            if init == 1 or (init == 0 and k > 2 * bits):
                res = numpy.zeros(w.shape[:-1], key.dtype)
                for b in range(bits - 1, -1, -1):
                    hi = res | U((1 << b) - 1)
                    cnt = (w <= hi[..., None]).sum(-1)
                    res = numpy.where(cnt <= rank, res | U(1 << b), res)
                out[s] = res
                continue
            g = cen[s].copy()
        else:
            g = out[s - 1].copy()
        todo = numpy.ones(g.shape, bool)
        with numpy.errstate(over="ignore"):
            while todo.any():
                passes[s] += todo
                lt = (w < g[..., None]).sum(-1)
                eq = (w == g[..., None]).sum(-1)
                up = (w - g[..., None] - one).min(-1)
                dn = (g[..., None] - one - w).min(-1)
                below, above = rank < lt, rank >= lt + eq
                newg = numpy.where(below, g - one - dn, numpy.where(above, g + one + up, g))
                done = numpy.where(below, rank + 1 == lt,
                                   numpy.where(above, rank == lt + eq, True))
                g = numpy.where(todo, newg, g)
                todo &= ~done
        out[s] = g
    return numpy.moveaxis(out, 0, axis), numpy.moveaxis(passes, 0, axis)
