"""Upsample, FIR filter and downsample (``scipy.signal.upfirdn``) on the GPU.

One polyphase kernel (``_upfirdn.cuh``, Crochiere & Rabiner 1983) computes
every output straight from the input samples and one phase of the filter;
the signal-extension modes are index maps applied while the shared-memory
tile of input samples is loaded, so no padded or zero-stuffed copy of the
input exists. :func:`apply` is the launch that :func:`upfirdn`,
``resample_poly`` and ``decimate`` share: it also crops the output
(``out_start``/``out_len``), takes implicit leading zero taps (``h_pre``)
and a per-signal background value to subtract and add back.

:func:`launch_plan` and :func:`layout` are pure; :func:`model_apply` is a
NumPy model of the kernel's blocked algorithm (tile geometry, incremental
phase stepping, tile loads with the mode index maps, SciPy's summation
order) that the CPU tests check against ``scipy.signal.upfirdn``.
"""

import functools
import math
import os
from typing import NamedTuple

import numpy

from gpuscipy_core.kernel import ctype, read_source

__all__ = ["upfirdn", "apply", "output_len", "check_mode", "result_dtype",
           "check_dtype", "cval_scalar", "layout", "launch_plan", "Plan", "Launch",
           "plan_launch", "kernel_args", "kernel_source", "kernel_name", "model_apply",
           "model_extend", "MODES", "MODE_CODES", "DTYPE_CODES"]

_HERE = os.path.dirname(os.path.abspath(__file__))

#: SciPy's extension modes, in ``scipy.signal._upfirdn._upfirdn_modes``' order.
MODES = ("constant", "wrap", "edge", "smooth", "symmetric", "reflect",
         "antisymmetric", "antireflect", "line")
#: The kernel's (and SciPy's) mode numbers.
MODE_CODES = {"constant": 0, "symmetric": 1, "edge": 2, "smooth": 3, "wrap": 4,
              "reflect": 5, "antisymmetric": 6, "antireflect": 7, "line": 8}
#: Input element types the kernel reads, by its runtime code (``gs_signal_upfirdn::Code``).
DTYPE_CODES = {n: i for i, n in enumerate(
    ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
     "uint64", "float16", "float32", "float64", "complex64", "complex128"))}
#: Output (compute) types: SciPy's upfirdn computes in one of these.
OUT_CHARS = "fdFD"

THREADS = 256
MIN_BLOCKS = 4              # blocks per SM the register budget allows (64 regs)
SMEM_LIMIT = 48 * 1024      # dynamic shared memory per block, no opt-in
MAX_ITEMS = 8               # outputs per thread
MIN_THREADS = 64            # the smallest block the tiled variant takes
MAX_GRID_Y = 65535


def _c_strides(shape, itemsize):
    """Byte strides of a C-contiguous array of ``shape`` (extent-0 axes
    counted as 1)."""
    st, s = [], itemsize
    for d in reversed(shape):
        st.append(s)
        s *= max(d, 1)
    return tuple(reversed(st))


def output_len(len_h, in_len, up, down):
    """Length of the full upfirdn output: ``ceil(((in_len-1)*up + len_h) / down)``."""
    return (((in_len - 1) * up + len_h) - 1) // down + 1


def check_mode(mode):
    """SciPy's mode number of ``mode`` (case-insensitive, as SciPy)."""
    mode = mode.lower()
    if mode not in MODE_CODES:
        raise ValueError(f"Unknown mode: {mode}")
    return MODE_CODES[mode]


def result_dtype(h_dtype, x_dtype):
    """SciPy's compute/output dtype of upfirdn: ``result_type(h, x, float32)``
    (check it with :func:`check_dtype`)."""
    return numpy.result_type(numpy.dtype(h_dtype), numpy.dtype(x_dtype), numpy.float32)


def check_dtype(dtype):
    """``TypeError("No matching signature found")`` (SciPy's) unless
    ``dtype`` is float32, float64, complex64 or complex128."""
    if numpy.dtype(dtype).char not in OUT_CHARS:
        raise TypeError("No matching signature found")


def cval_scalar(cval, dtype):
    """``cval`` as a scalar of ``dtype``, with SciPy's conversion errors
    (``TypeError: must be real number, not str``; a complex value for a real
    output is refused the same way)."""
    dtype = numpy.dtype(dtype)
    kind = type(cval)
    ok = hasattr(kind, "__float__") or hasattr(kind, "__index__")
    if dtype.kind == "c":
        if not (ok or hasattr(kind, "__complex__")):
            raise TypeError(f"must be real number, not {kind.__name__}")
        return dtype.type(complex(cval))
    if not ok:
        raise TypeError(f"must be real number, not {kind.__name__}")
    return dtype.type(float(cval))


def _collapse(dims):
    """(size, byte stride) of ``dims`` [(size, stride), ...] read as one
    C-ordered axis, or None when they do not collapse."""
    dims = [(n, s) for n, s in dims if n != 1]
    if not dims:
        return 1, 0
    size = 1
    for (n0, s0), (n1, s1) in zip(dims, dims[1:]):
        if s0 != s1 * n1:
            return None
    for n, _ in dims:
        size *= n
    return size, dims[-1][1]


def layout(shape, strides, itemsize, axis):
    """``(P, N, Q, sP, sN, sQ)`` (byte strides): the array read as
    (before axis, axis, after axis), or None when the axes before or after
    ``axis`` do not collapse to one stride (the caller copies then)."""
    if any(s % itemsize for s in strides):
        return None
    before = _collapse(list(zip(shape[:axis], strides[:axis])))
    after = _collapse(list(zip(shape[axis + 1:], strides[axis + 1:])))
    if before is None or after is None:
        return None
    return (before[0], shape[axis], after[0], before[1], strides[axis], after[1])


class Plan(NamedTuple):
    """How one launch runs.

    direct : taps and samples read from global memory (no shared tile)
    qt, ty : block = (qt lanes along Q, ty rows along the output axis)
    items : outputs per thread (a block owns ``ty * items`` outputs)
    smem : dynamic shared memory, bytes
    grid : (output tiles, signal groups, 1)
    span : shared tile capacity in samples per lane (0 when direct)
    """
    direct: bool
    qt: int
    ty: int
    items: int
    smem: int
    grid: tuple
    span: int


def launch_plan(P, Q, out_len, hpp, up, down, itemsize, smem_limit=SMEM_LIMIT,
                threads=THREADS, max_items=MAX_ITEMS, lanes_q=True):
    """The :class:`Plan` of a launch (pure).

    Lanes along Q (coalesced) when Q > 1 and ``lanes_q`` (Q's stride is
    the smaller): ``qt`` = the power of two >= Q, at most 32; else
    ``qt = 1`` and a block's threads run along the resampled axis. The
    tile of ``ty * items`` outputs reads at most
    ``ceil((ty*items - 1) * down / up) + hpp`` samples per lane; ``items``
    is the largest power of two <= ``max_items`` (and not above what the
    output length needs) whose tile and taps fit ``smem_limit``, halving
    the block (down to ``MIN_THREADS``) when even one output per thread
    does not fit (decimation by large factors); else the direct variant.
    """
    taps = up * hpp * itemsize
    th = threads
    while True:
        qt = 1 if Q == 1 or not lanes_q else min(32, th, 1 << (Q - 1).bit_length())
        ty = th // qt
        need = max(1, -(-out_len // ty))
        items = 1
        while items * 2 <= min(max_items, need):
            items *= 2
        gy = max(1, min(P * (-(-Q // qt)), MAX_GRID_Y))
        while items >= 1:
            tile = ty * items
            span = -(-((tile - 1) * down) // up) + hpp
            smem = taps + span * qt * itemsize
            if smem <= smem_limit:
                return Plan(False, qt, ty, items, smem, (-(-out_len // tile), gy, 1), span)
            items //= 2
        # a smaller block has a shorter tile (decimation by large factors)
        if th // 2 < MIN_THREADS:
            break
        th //= 2
    qt = 1 if Q == 1 or not lanes_q else min(32, threads, 1 << (Q - 1).bit_length())
    ty = threads // qt
    items = min(max_items, max(1, -(-out_len // ty)))
    gy = max(1, min(P * (-(-Q // qt)), MAX_GRID_Y))
    return Plan(True, qt, ty, items, 0, (-(-out_len // (ty * items)), gy, 1), 0)


_CUH = os.path.join(_HERE, "_upfirdn.cuh")


_NAMES = {"f": "f32", "d": "f64", "F": "c64", "D": "c128"}


def kernel_name(dtype, direct):
    """The ``extern "C"`` name of a kernel: compute type and variant."""
    dt = numpy.dtype(dtype)
    return f"gs_upfirdn{'_direct' if direct else ''}_{_NAMES[dt.char]}"


def kernel_source(dtype):
    """CUDA source of the two upfirdn kernels computing in ``dtype`` (float32,
    float64, complex64 or complex128; inputs of any dtype): the tiled one
    and the direct one (:func:`kernel_name`). Pure and memoised."""
    dt = numpy.dtype(dtype)
    if dt.char not in OUT_CHARS:
        raise TypeError(f"upfirdn kernel: unsupported dtype {dt}")
    return _kernel_source(dt.char)


@functools.lru_cache(maxsize=128)
def _kernel_source(char):
    dt = numpy.dtype(char)
    T = ctype(dt)
    params = (f"const char* x, int code, long long P, long long N, long long Q,\n"
              f"    long long sP, long long sN, long long sQ, const {T}* h, long long len_h,\n"
              f"    long long h_pre, long long hpp, long long up, long long down, {T}* y,\n"
              f"    long long ysP, long long ysN, long long ysQ, long long out_start,\n"
              f"    long long out_len, int mode, int zpad, int items,\n"
              f"    {T} cval, const {T}* bg_sub, const {T}* bg_add")
    args = (f"const gs_signal_upfirdn::Args<{T}> a{{x, code, P, N, Q, sP, sN, sQ, h, len_h,\n"
            f"      h_pre,\n"
            f"      hpp, up, down, y, ysP, ysN, ysQ, out_start, out_len, mode, zpad, items,\n"
            f"      cval, bg_sub,\n"
            f"      bg_add}};")
    parts = [read_source(_CUH)]
    for direct in (False, True):
        body = "upfirdn_direct" if direct else "upfirdn_tiled"
        parts.append(f"""
extern "C" __global__ void __launch_bounds__({THREADS}, {MIN_BLOCKS})
{kernel_name(dt, direct)}({params})
{{
  {args}
  gs_signal_upfirdn::{body}(a);
}}
""")
    return "".join(parts)


class Launch(NamedTuple):
    """Everything of a launch but the pointers (:func:`plan_launch`).

    shape : output shape
    hpp, len_total, out_start, out_len : filter taps per phase, effective
        filter length, first computed output, outputs per signal
    layout : ``(P, N, Q, sP, sN, sQ)`` of x (byte strides)
    y_axis_last : y is allocated with the resampled axis innermost
        (``moveaxis(empty(shape without axis + (out_len,)), -1, axis)``)
        instead of C order
    ys : y's element strides ``(ysP, ysN, ysQ)``
    plan : the :class:`Plan`
    """
    shape: tuple
    hpp: int
    len_total: int
    out_start: int
    out_len: int
    layout: tuple
    y_axis_last: bool
    ys: tuple
    plan: Plan


def plan_launch(shape, strides, itemsize, axis, len_h, up, down, dtype, *, h_pre=0,
                len_total=None, out_start=0, out_len=None, **plan_kw):
    """The :class:`Launch` for an x of ``shape``/``strides`` (pure). Its
    ``layout`` is None when x must be copied C-contiguous first (then plan
    again), and its plan None when the output is empty or x needs that
    copy. ``plan_kw`` go to :func:`launch_plan` (tests: small blocks)."""
    dtype = numpy.dtype(dtype)
    if len_total is None:
        len_total = h_pre + len_h
    hpp = -(-len_total // up)
    if out_len is None:
        out_len = output_len(len_total, shape[axis], up, down) - out_start
    out_shape = tuple(shape[:axis]) + (out_len,) + tuple(shape[axis + 1:])
    if math.prod(out_shape) == 0:
        return Launch(out_shape, hpp, len_total, out_start, out_len, None, False, None,
                      None)
    if math.prod(shape) == 0:
        # an empty signal axis: nothing is read, so any layout that collapses
        # will do (a view of an empty array may not collapse, and a copy of it
        # is the same view)
        strides = _c_strides(shape, itemsize)
    if (out_start + out_len + THREADS * MAX_ITEMS) * max(up, down) >= 1 << 62:
        raise ValueError("upfirdn: up/down too large for 64-bit index arithmetic")
    lay = layout(shape, strides, itemsize, axis)
    if lay is None:
        return Launch(out_shape, hpp, len_total, out_start, out_len, None, False, None,
                      None)
    P, N, Q, sP, sN, sQ = lay
    lanes_q = abs(sQ) <= abs(sN)
    if Q == 1 or lanes_q:
        axis_last, ys = False, (out_len * Q, Q, 1)          # C order (P, out, Q)
    else:
        # the resampled axis is x's fast one: keep it innermost in y too
        axis_last, ys = True, (Q * out_len, 1, out_len)
    plan = launch_plan(P, Q, out_len, hpp, up, down, dtype.itemsize, lanes_q=lanes_q,
                       **plan_kw)
    return Launch(out_shape, hpp, len_total, out_start, out_len, lay, axis_last, ys, plan)


def kernel_args(spec, x_ptr, x_dtype, h_ptr, len_h, h_pre, up, down, y_ptr, mode, cval,
                bg_sub_ptr=0, bg_add_ptr=0):
    """The kernel's arguments, in its order, for the :class:`Launch` ``spec``
    (pointers as ints or array objects; ``cval`` a scalar of the compute
    dtype)."""
    i32 = numpy.int32
    ll = tuple(int(v) for v in (*spec.layout,))           # long long parameters
    filt = tuple(int(v) for v in (len_h, h_pre, spec.hpp, up, down))
    ys = tuple(int(v) for v in (*spec.ys, spec.out_start, spec.out_len))
    return (x_ptr, i32(DTYPE_CODES[numpy.dtype(x_dtype).name]), *ll, h_ptr, *filt,
            y_ptr, *ys, i32(mode), i32(mode == 0 and cval == 0), i32(spec.plan.items),
            cval, bg_sub_ptr, bg_add_ptr)


def apply(x, h, up, down, axis, mode, cval, dtype, *, h_pre=0, len_total=None,
          out_start=0, out_len=None, bg_sub=None, bg_add=None):
    """Run the upfirdn kernel (validated arguments; no SciPy-level checks).

    Parameters
    ----------
    x : device array, any of the 14 dtypes, ``x.ndim >= 1``
    h : contiguous 1-D device array of ``dtype``: the stored taps
    up, down : int >= 1
    axis : int in ``[0, x.ndim)``
    mode : int, a :data:`MODE_CODES` value
    cval : scalar of ``dtype``
    dtype : float32, float64, complex64 or complex128
    h_pre : int
        Implicit zero taps before ``h`` (so tap ``k`` of the effective
        filter is ``h[k - h_pre]``).
    len_total : int, optional
        Length of the effective filter (``h_pre + len(h)`` plus trailing
        zero taps); default ``h_pre + len(h)``.
    out_start, out_len : int, optional
        Compute outputs ``out_start .. out_start + out_len - 1`` of the full
        result (default: all of it).
    bg_sub, bg_add : device arrays of ``dtype``, optional
        One value per signal (C-contiguous, the shape of ``x`` without
        ``axis``): subtracted from every sample read, added to every output.

    Returns
    -------
    y : device array of ``dtype``, ``x``'s shape with ``out_len`` along
        ``axis``; C-contiguous, except when ``axis`` is ``x``'s unit-stride
        axis and not its last (an F-ordered ``x``): then ``axis`` is
        innermost in memory (writes stay coalesced).
    """
    import gpuscipy_core as gp
    from gpuscipy_core.kernel import get_function
    dtype = numpy.dtype(dtype)
    kw = dict(h_pre=h_pre, len_total=len_total, out_start=out_start, out_len=out_len)
    spec = plan_launch(x.shape, x.strides, x.itemsize, axis, h.shape[0], up, down, dtype,
                       **kw)
    if spec.plan is None and spec.layout is None and math.prod(spec.shape):
        x = gp.ascontiguousarray(x)
        spec = plan_launch(x.shape, x.strides, x.itemsize, axis, h.shape[0], up, down,
                           dtype, **kw)
    if spec.plan is None:
        return gp.empty(spec.shape, dtype)
    if spec.y_axis_last:
        y = gp.moveaxis(gp.empty(x.shape[:axis] + x.shape[axis + 1:] + (spec.out_len,),
                                 dtype), -1, axis)
    else:
        y = gp.empty(spec.shape, dtype)
    f = get_function(kernel_source(dtype), kernel_name(dtype, spec.plan.direct))
    f(spec.plan.grid, (spec.plan.qt, spec.plan.ty, 1),
      kernel_args(spec, x.ptr, x.dtype, h.ptr, h.shape[0], h_pre, up, down, y.ptr, mode,
                  cval, 0 if bg_sub is None else bg_sub.ptr,
                  0 if bg_add is None else bg_add.ptr),
      shared_mem=spec.plan.smem)
    return y


def upfirdn(h, x, up=1, down=1, axis=-1, mode="constant", cval=0):
    """Upsample, FIR filter, and downsample.

    Parameters
    ----------
    h : array_like or device array, 1-D
        FIR filter coefficients (host values are copied to the device).
    x : array_like or device array
        Input signal, any shape; any of bool, integer, float16/32/64 and
        complex64/128 dtypes.
    up : int, optional
        Upsampling rate (``int(up)`` is used, as SciPy). Default 1.
    down : int, optional
        Downsampling rate. Default 1.
    axis : int, optional
        The axis of `x` to filter. Default -1.
    mode : str, optional
        Signal extension mode: ``'constant'`` (the value `cval`),
        ``'symmetric'``, ``'reflect'``, ``'edge'``, ``'wrap'`` (as
        ``numpy.pad``), ``'smooth'`` (the slope of the two end samples),
        ``'antisymmetric'``, ``'antireflect'`` (anti-symmetric versions of
        ``'symmetric'`` and ``'reflect'``) and ``'line'`` (the line through
        the first and last samples). Case-insensitive.
    cval : float, optional
        The constant of ``mode='constant'``. Default 0.

    Returns
    -------
    y : gpuscipy_core.ndarray
        `x`'s shape with ``ceil(((n - 1)*up + len(h)) / down)`` samples
        along `axis` (``n = x.shape[axis]``); dtype
        ``result_type(h, x, float32)`` (integers and bool compute in
        float64, float16 in float32).

    Raises
    ------
    ValueError
        `h` not 1-D or empty, `up` or `down` < 1, unknown `mode`, or a
        negative output length.
    IndexError
        `axis` out of range (or `x` 0-d).
    TypeError
        A dtype SciPy has no loop for (float128, ...), or a `cval` that is
        not a real number (complex allowed for a complex result).

    Notes
    -----
    One kernel launch: each output sample is computed directly from the
    input samples and the filter phase it needs (polyphase form, ``O(len(h)
    / up)`` per output), the filter's phases in shared memory, the input
    read through coalesced shared-memory tiles with the extension mode
    applied as an index map. Results equal SciPy's to rounding (the GPU
    fuses multiply-adds; the summation order is SciPy's).

    Where SciPy's extension is undefined (it divides by zero or reads
    outside the signal and may crash), defined values are used: an empty
    `x` extends by zeros in the non-constant modes; a one-sample `x`
    extends ``'reflect'``, ``'antireflect'`` and ``'smooth'`` by that
    sample (``numpy.pad``'s answer).

    References
    ----------
    .. [1] R. E. Crochiere and L. R. Rabiner, *Multirate Digital Signal
       Processing*, Prentice Hall, 1983.
    .. [2] P. P. Vaidyanathan, *Multirate Systems and Filter Banks*,
       Prentice Hall, 1993, fig. 4.3-8(d).
    """
    import gpuscipy_core as gp
    if not isinstance(x, gp.ndarray):
        x = numpy.asarray(x)       # validated on the host, copied over last
    on_device = isinstance(h, gp.ndarray)
    if not on_device:
        h = numpy.asarray(h)
    if h.ndim != 1 or h.size == 0:
        raise ValueError("h must be 1-D with non-zero length")
    dt = result_dtype(h.dtype, x.dtype)
    up = int(up)
    down = int(down)
    if up < 1 or down < 1:
        raise ValueError("Both up and down must be >= 1")
    n_out = output_len(h.shape[0], x.shape[axis], up, down)
    if n_out < 0:
        raise ValueError("negative dimensions are not allowed")
    axis = axis % x.ndim
    code = check_mode(mode)
    check_dtype(dt)
    cval = cval_scalar(cval, dt)
    x = gp.asarray(x)
    if on_device:
        h = gp.ascontiguousarray(h.astype(dt, copy=False))
    else:
        h = gp.asarray(numpy.ascontiguousarray(h, dtype=dt))
    return apply(x, h, up, down, axis, code, cval, dt)


# ------------------------------------------------------------------ NumPy model

def model_extend(xt, j, mode, cval):
    """Sample ``j`` (outside ``[0, len(xt))``) of the extended signal ``xt``
    (already cast to the compute dtype, background subtracted): the
    kernel's ``extend_left``/``extend_right``, in that dtype's arithmetic."""
    n = len(xt)
    T = xt.dtype.type
    R = numpy.dtype(xt.dtype.char.lower()).type   # indices act as real scalars

    def rdiv(v, r):   # divided by a real scalar, part by part
        if xt.dtype.kind == "c":
            return T(complex(v.real / R(r), v.imag / R(r)))
        return v / R(r)
    if mode == 0:
        return T(cval)
    if n == 0:
        return T(0)
    if j < 0:
        if mode == 1:
            if -j < n:
                return xt[-j - 1]
            r = (-j - 1) % (2 * n)
            return xt[r] if r < n else xt[n - 1 - (r - n)]
        if mode == 5:
            if n == 1:
                return xt[0]
            if -j < n - 1:
                return xt[-j]
            r = (-j - 1) % (2 * (n - 1))
            return xt[r + 1] if r < n - 1 else xt[n - 2 - (r - (n - 1))]
        if mode == 4:
            r = (-j - 1) % n
            return xt[n - r - 1]
        if mode == 3:
            if n == 1:
                return xt[0]
            return xt[0] + R(j) * (xt[1] - xt[0])
        if mode == 8:
            with numpy.errstate(all="ignore"):
                slope = rdiv(xt[n - 1] - xt[0], n - 1)
                return xt[0] + R(j) * slope
        if mode == 6:
            if -j < n:
                return -xt[-j - 1]
            r = (-j - 1) % (2 * n)
            return -xt[r] if r < n else xt[n - 1 - (r - n)]
        if mode == 7:
            if n == 1:
                return xt[0]
            if -j < n:
                return xt[0] - (xt[-j] - xt[0])
            le = xt[0] + (xt[0] - xt[n - 1]) * R((-j - 1) // (n - 1))
            r = (-j - 1) % (2 * (n - 1))
            if r < n - 1:
                return le - (xt[r + 1] - xt[0])
            return le - (xt[n - 1] - xt[n - 2 - (r - (n - 1))])
        return xt[0]
    if mode == 1:
        if j < 2 * n:
            return xt[n - 1 - (j - n)]
        r = j % (2 * n)
        return xt[r] if r < n else xt[n - 1 - (r - n)]
    if mode == 5:
        if n == 1:
            return xt[0]
        if j < 2 * n - 1:
            return xt[n - 2 - (j - n)]
        r = j % (2 * (n - 1))
        return xt[r] if r < n - 1 else xt[n - 1 - (r - (n - 1))]
    if mode == 4:
        return xt[j % n]
    if mode == 3:
        if n == 1:
            return xt[0]
        return xt[n - 1] + R(j - n + 1) * (xt[n - 1] - xt[n - 2])
    if mode == 8:
        with numpy.errstate(all="ignore"):
            slope = rdiv(xt[n - 1] - xt[0], n - 1)
            return xt[n - 1] + R(j - n + 1) * slope
    if mode == 6:
        if j < 2 * n:
            return -xt[n - 1 - (j - n)]
        r = j % (2 * n)
        return xt[r] if r < n else -xt[n - 1 - (r - n)]
    if mode == 7:
        if n == 1:
            return xt[0]
        if j < 2 * n - 1:
            return xt[n - 1] - (xt[n - 2 - (j - n)] - xt[n - 1])
        re = xt[n - 1] + (xt[n - 1] - xt[0]) * R(j // (n - 1) - 1)
        r = j % (2 * (n - 1))
        if r < n - 1:
            return re + (xt[r] - xt[0])
        return re + (xt[n - 1] - xt[n - 1 - (r - (n - 1))])
    return xt[n - 1]


def _mul(a, b):
    """a * b elementwise, complex as ``(ar br - ai bi, ar bi + ai br)`` with
    each product rounded (NumPy's SIMD complex loops may fuse them)."""
    if a.dtype.kind != "c":
        return a * b
    re = a.real * b.real - a.imag * b.imag
    im = a.real * b.imag + a.imag * b.real
    out = numpy.empty(a.shape, a.dtype)
    out.real = re
    out.imag = im
    return out


def _model_taps(h, len_h, h_pre, up, hpp, T):
    """The shared tap table ``s_h[ph, m]`` (the kernel's ``tap``)."""
    s_h = numpy.zeros((up, hpp), T)
    for ph in range(up):
        for m in range(hpp):
            i = (hpp - 1 - m) * up + ph - h_pre
            if 0 <= i < len_h:
                s_h[ph, m] = h[i]
    return s_h


def model_apply(x, h, up, down, mode, cval, dtype, *, h_pre=0, len_total=None,
                out_start=0, out_len=None, bg_sub=None, bg_add=None, plan=None):
    """NumPy model of one signal (lane) of :func:`apply`, block by block.

    ``x``: 1-D host array of any dtype; ``h``: 1-D host taps; ``mode``: a
    mode code; ``bg_sub``/``bg_add``: scalars or None; ``plan``: a
    :class:`Plan` (default :func:`launch_plan` for one signal). Follows the
    kernel: the tap table, each block's tile ``[base, base + cnt)`` filled
    with cast-and-subtract or the extension map, each thread's outputs
    ``n0 + ty + k*ty_count`` stepped incrementally, SciPy's skip of the
    left zero padding, the sum in tap order, then ``+ bg_add``. Asserts
    that every sample read lies inside the tile and the tile inside the
    plan's shared-memory span.
    """
    dt = numpy.dtype(dtype)
    T = dt.type
    h = numpy.asarray(h, dt)
    len_h = len(h)
    if len_total is None:
        len_total = h_pre + len_h
    n = len(x)
    hpp = -(-len_total // up)
    if out_len is None:
        out_len = output_len(len_total, n, up, down) - out_start
    if plan is None:
        plan = launch_plan(1, 1, out_len, hpp, up, down, dt.itemsize)
    bsub = T(0) if bg_sub is None else T(bg_sub)
    badd = T(0) if bg_add is None else T(bg_add)
    xt = numpy.asarray(x).astype(dt) - bsub
    cval = T(cval)
    zpad = mode == 0 and cval == 0
    s_h = _model_taps(h, len_h, h_pre, up, hpp, dt)
    y = numpy.empty(max(out_len, 0), dt)
    TY, items = plan.ty, plan.items
    tile_out = TY * items
    nblocks = -(-out_len // tile_out) if out_len > 0 else 0
    if out_len > 0:
        assert plan.grid[0] == nblocks
    for bx in range(nblocks):
        n0 = out_start + bx * tile_out
        n_end = min(n0 + tile_out, out_start + out_len)
        xb = n0 * down // up
        base = xb - (hpp - 1)
        cnt = (n_end - 1) * down // up - base + 1
        if not plan.direct:
            assert cnt <= plan.span
        js = numpy.arange(base, base + cnt)
        inside = (js >= 0) & (js < n)
        s_x = numpy.empty(cnt, dt)
        s_x[inside] = xt[js[inside]]
        for i in numpy.nonzero(~inside)[0]:
            s_x[i] = model_extend(xt, int(js[i]), mode, cval)
        # per thread ty: the first output and the incremental steps
        ty = numpy.arange(TY, dtype=numpy.int64)
        nn = n0 + ty
        prod = nn * down
        xi = prod // up
        ph = prod - xi * up
        step = TY * down
        step_x, step_ph = step // up, step % up
        for _ in range(items):
            live = nn < n_end
            if not live.any():
                break
            nl, xl, pl = nn[live], xi[live], ph[live]
            m0 = numpy.where(zpad & (xl < n) & (xl < hpp - 1), hpp - 1 - xl, 0)
            acc = numpy.zeros(len(nl), dt)
            local = xl - xb
            assert local.min() >= 0 and (local + hpp - 1).max() < cnt
            with numpy.errstate(all="ignore"):
                for m in range(hpp):
                    prod_m = _mul(s_x[local + m], s_h[pl, m])
                    acc = numpy.where(m >= m0, acc + prod_m, acc)
                y[nl - out_start] = acc + badd
            nn = nn + TY
            xi = xi + step_x
            ph = ph + step_ph
            wrap = ph >= up
            ph = numpy.where(wrap, ph - up, ph)
            xi = numpy.where(wrap, xi + 1, xi)
    return y
