"""Kernel sources, launch plans and launches of the IIR filters.

Device code: ``_iir.cuh`` (its header comment gives the algorithm). This
module turns a filter (``kind`` 'ba' for lfilter's direct form II
transposed of order N, 'sos' for a cascade of N second-order sections),
the dtypes and a layout into kernel sources (pure functions of that spec),
picks a plan and launches:

- ``serial``: one thread per channel (few samples, or so many channels
  that they alone fill the GPU): one launch;
- ``fused``: one block per channel, one chunk per thread, the carry scanned
  across the block: one launch;
- ``scan``: chunk states, carry (one block per channel), apply: three
  launches and a workspace of one carried state per chunk; with a
  segmented carry (``SEGMENTED_CARRY``, opt-in) the carry is three
  launches over segments of chunks (totals, segment starts, walk).

Arrays are described by raw device pointers and :class:`Lines` /
:class:`States` maps (element strides, any sign), so views (reversed,
strided, any axis) are read and written in place.
"""

import functools
import math
import os
from typing import NamedTuple

import numpy

from gpuscipy_core.kernel import ctype, read_source

__all__ = ["DMAX", "OPTIONS", "Lines", "States", "state_size",
           "fused_threads", "carry_threads", "carry_bytes", "kernel_source", "smem_bytes", "pack",
           "Plan", "plan", "segment_plan", "scan_chunk", "filter_lines", "fir_lines",
           "FUSED_NTS"]

_HERE = os.path.dirname(os.path.abspath(__file__))

#: largest state (order of lfilter, 2 x sections of sosfilt) of the scan
#: kernels; larger filters run serially per channel (lfilter) or as several
#: cascades of sections (sosfilt).
DMAX = 16
#: no fused multiply-adds: real inputs round as SciPy's loops do
OPTIONS = ("-fmad=false",)
CHUNK_THREADS = 128
FIR_THREADS = 256
FIR_SMEM_MAX = 96 * 1024

# plan thresholds (see plan()); first guesses, to be tuned on the H200
SERIAL_MAX_N = 64
SERIAL_MIN_CHANNELS = 1 << 16
SERIAL_MANY = (4096, 1024)  # at least this many channels of at most this length
FUSED_MAX_N = 1 << 14
FUSED_MIN_CHANNELS = 256
# from this many channels the fused kernel runs 64 threads per block (H200:
# 64 x 4096 order-8 sos took 0.098 / 0.122 / 0.155 ms with 64 / 128 / 256
# threads; one channel 0.140 / 0.137 / 0.118 ms). Since the block scan's
# rows are spread over threads (scan_level), fewer channels take 128 threads
# for D = 8 (2026-11-29, one channel of order-8 sos, events around the call:
# 4096 samples 0.050 / 0.047 / 0.051 ms, 16384 samples 0.083 / 0.064 /
# 0.086 ms with 64 / 128 / 256 threads; the 256-thread block scan alone took
# 16.3 us of the 26.4 us kernel for 4096)
FUSED_SMALL_BLOCKS = 64
SCAN_L_MIN, SCAN_L_MAX = 32, 4096
# Segmented carry for few long channels (several carry blocks per channel,
# so the chunks can be short and the chunk kernels wide). Opt-in: on the
# H200 (tools/probes/iir_probe.py toggles it) one channel of 2^20 samples
# took 0.257 ms with S = 512 chunks per segment against 0.298 ms for the
# default plan, S >= 2048 was slower; the default plans meet the bars, so
# it stays off until a plan chooses S from measurements (docs/signal-iir.md).
SEGMENTED_CARRY = False
SEG_MAX_CHANNELS = 64
SEG_CHUNK_THREADS = 1 << 15
SEG_M = 8

ROLES = ("fused", "states", "apply", "carry", "fir")


class Lines(NamedTuple):
    """Sample t of channel c is at ``(c // inner) * so + (c % inner) * si +
    t * st`` elements from the pointer."""
    inner: int
    so: int
    si: int
    st: int


class States(NamedTuple):
    """State j of channel c is at ``(c // inner) * so + (c % inner) * si +
    (j // jg) * sjo + (j % jg) * sji`` elements from the pointer."""
    inner: int
    so: int
    si: int
    jg: int
    sjo: int
    sji: int


_NO_STATES = States(1, 0, 0, 1, 0, 0)


def state_size(kind, order):
    """D: the number of delay values of the filter."""
    return order if kind == "ba" else 2 * order


def _ncoef(kind, order):
    return 2 * (order + 1) if kind == "ba" else 5 * order


def carry_bytes(dtype):
    """Bytes of one carried value: double-double (16), or a complex of two
    (32) for complex dtypes."""
    return 32 if numpy.dtype(dtype).kind == "c" else 16


def _carry_ctype(dtype):
    return "gs_signal_iir::cdd" if numpy.dtype(dtype).kind == "c" else "gs_signal_iir::dd"


FUSED_NTS = (64, 128, 256)


def fused_threads(d, nch=1):
    """Threads (= chunks) per block of the fused kernel: 256 (128 for d >= 8,
    where the block scan's levels cost more than the longer chunks) for few
    channels (short chunks: the least latency); 64 from
    FUSED_SMALL_BLOCKS channels, where throughput counts (the scan across
    the block costs ~2 NT double-double mat-vecs per channel)."""
    if nch >= FUSED_SMALL_BLOCKS:
        return 64
    return 256 if d < 8 else 128


def carry_threads(d):
    """Threads per block (one block per channel) of the carry kernel."""
    return 256 if d <= 8 else 128


def _stage_len(dtype):
    return 128 // numpy.dtype(dtype).itemsize


def _a16(b):
    return (b + 15) // 16 * 16


@functools.lru_cache(maxsize=1024)
def smem_bytes(role, kind, order, dtype, staged=True, fir_smem=True, nt=None):
    """Dynamic shared memory of a launch (mirrors the layouts in _iir.cuh)."""
    t = numpy.dtype(dtype)
    cs = carry_bytes(t)
    if role == "fir":
        return (2 * order + 1 + (nt or FIR_THREADS)) * t.itemsize if fir_smem else 0
    d = state_size(kind, order)
    stage = _a16(nt * (_stage_len(t) + 1) * t.itemsize) if staged else 0
    rows = _a16(nt * 20) if staged else 0
    if role == "fused":
        k = int(math.log2(nt))
        scan = _a16((k + 2) * d * d * cs) + _a16(nt * d * cs)
        return 16 + max(scan, stage) + rows
    if role in ("states", "apply"):
        return stage + rows
    if role == "carry":
        k = int(math.log2(nt))
        return 16 + _a16((k + 4) * d * d * cs) + _a16(nt * d * cs)
    raise ValueError(f"unknown role {role!r}")


_CUH = os.path.join(_HERE, "_iir.cuh")


def _filter_type(kind, order, c_type):
    return (f"gs_signal_iir::ba_filter<{c_type}, {order}>" if kind == "ba"
            else f"gs_signal_iir::sos_filter<{c_type}, {order}>")


def kernel_name(role, kind, order, tin, t, staged=False, fir_smem=True, nt=None):
    """The ``extern "C"`` name: role, filter, input and compute dtypes,
    layout, block size (fused)."""
    tin, t = numpy.dtype(tin), numpy.dtype(t)
    if role == "fir":
        return f"gsiir_fir_{tin.name}_{t.name}{'_smem' if fir_smem else ''}"
    staged = staged and role != "carry"
    nts = f"_nt{nt}" if role == "fused" else ""
    return (f"gsiir_{role}_{kind}{order}_{tin.name}_{t.name}"
            f"{'_staged' if staged else ''}{nts}")


_LINE = "long long {0}in, long long {0}so, long long {0}si, long long {0}st"
_STATE = ("long long {0}in, long long {0}so, long long {0}si, long long {0}jg, "
          "long long {0}sjo, long long {0}sji")


def _line(p):
    return f"gs_signal_iir::line_map{{{p}in, {p}so, {p}si, {p}st}}"


def _state(p):
    return f"gs_signal_iir::state_map{{{p}in, {p}so, {p}si, {p}jg, {p}sjo, {p}sji}}"


@functools.lru_cache(maxsize=512)
def kernel_source(role, kind, order, tin, t, staged=False, fir_smem=True, nt=None):
    """``(source, name)`` of one kernel specialisation (pure; the header text
    is part of the source, so the kernel cache key sees it).

    role : 'fused', 'states', 'apply', 'carry' or 'fir'
    kind, order : 'ba' (lfilter, order N) or 'sos' (N sections); unused by fir
    tin, t : dtype of x and the compute (= result) dtype (float32, float64,
        complex64, complex128)
    staged : |time stride| of x and y is 1 (warp-staged loads and stores)
    fir_smem : fir keeps taps and its x window in shared memory
    nt : threads per block of fused (one of FUSED_NTS; default
        ``fused_threads(D)``)
    """
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    tin, t = numpy.dtype(tin), numpy.dtype(t)
    if t.char not in "fdFD":
        raise TypeError(f"compute dtype must be float32/64 or complex64/128, got {t}")
    T, TIN = ctype(t), ctype(tin)
    C = _carry_ctype(t)
    if role in ("carry", "fir"):
        staged = False  # no layout variants
    if role == "fused":
        nt = nt or fused_threads(state_size(kind, order))
        if nt not in FUSED_NTS:
            raise ValueError(f"fused block size must be one of {FUSED_NTS}, got {nt}")
    name = kernel_name(role, kind, order, tin, t, staged, fir_smem, nt)
    b = "true" if staged else "false"
    if role == "fir":
        body = f"""extern "C" __global__ void __launch_bounds__({FIR_THREADS})
{name}(const {T}* taps, int N, const {TIN}* x, {_LINE.format('x')},
       {T}* y, {_LINE.format('y')}, const {T}* zi, {_STATE.format('z')},
       {T}* zf, long long n, long long nout, long long tiles)
{{
  gs_signal_iir::fir<{TIN}, {T}, {'true' if fir_smem else 'false'}>(taps, N, x, {_line('x')},
      y, {_line('y')}, zi, {_state('z')}, zf, n, nout, tiles);
}}
"""
        return f"{read_source(_CUH)}\n{body}", name
    if kind not in ("ba", "sos") or order < 1:
        raise ValueError(f"bad filter {kind!r} of order {order!r}")
    d = state_size(kind, order)
    F, FC = _filter_type(kind, order, T), _filter_type(kind, order, C)
    nc = _ncoef(kind, order)
    P = f"const gs_signal_iir::coef_pack<{nc}> p"
    if role == "fused":
        k = int(math.log2(nt))
        body = f"""extern "C" __global__ void __launch_bounds__({nt})
{name}({P}, const {TIN}* x, {_LINE.format('x')}, {T}* y, {_LINE.format('y')},
       const {T}* zi, {_STATE.format('z')}, {T}* zf, long long zfs, long long n, int L)
{{
  gs_signal_iir::fused<{F}, {FC}, {TIN}, {b}, {nt}, {k}>(p, x, {_line('x')}, y, {_line('y')},
      zi, {_state('z')}, zf, zfs, n, L);
}}
"""
    elif role in ("states", "apply"):
        apply = "true" if role == "apply" else "false"
        body = f"""extern "C" __global__ void __launch_bounds__({CHUNK_THREADS})
{name}({P}, const {TIN}* x, {_LINE.format('x')}, {T}* y, {_LINE.format('y')},
       {C}* ws, const {T}* zi, {_STATE.format('z')}, {T}* zf, long long zfs,
       long long n, long long nch, long long G, int L)
{{
  gs_signal_iir::chunks<{F}, {TIN}, {b}, {apply}>(p, x, {_line('x')}, y, {_line('y')}, ws,
      zi, {_state('z')}, zf, zfs, n, nch, G, L);
}}
"""
    else:  # carry
        nt = carry_threads(d)
        k = int(math.log2(nt))
        body = f"""extern "C" __global__ void __launch_bounds__({nt})
{name}({P}, const {TIN}* x, {_LINE.format('x')}, {C}* ws, const {T}* zi,
       {_STATE.format('z')}, long long n, long long G, long long m, long long L,
       long long S, const {C}* seg_in, {C}* seg_out)
{{
  gs_signal_iir::carry<{F}, {FC}, {TIN}, {nt}, {k}>(p, x, {_line('x')}, ws, zi, {_state('z')}, n,
      G, m, L, S, seg_in, seg_out);
}}
"""
    return f"{read_source(_CUH)}\n{body}", name


def pack(kind, coefs):
    """Kernel-parameter bytes of the coefficients (``coef_pack``): the real
    parts then the imaginary parts as doubles. ``coefs`` is a 1-D NumPy
    array already in the compute dtype: ``[b, a]`` normalised (ba) or the
    sections' ``b0 b1 b2 a1 a2`` (sos)."""
    c = numpy.asarray(coefs)
    re = numpy.ascontiguousarray(c.real, dtype=numpy.float64)
    im = (numpy.ascontiguousarray(c.imag, dtype=numpy.float64) if c.dtype.kind == "c"
          else numpy.zeros_like(re))
    return re.tobytes() + im.tobytes()


def scan_chunk(n, d):
    """Chunk length of the scan plan: balances the per-sample chunk work
    (~ L d per thread) against the carry's sequential part (~ (n / L /
    threads) d^2), a power of two in [SCAN_L_MIN, SCAN_L_MAX].

    The carry (one block per channel, double-double) weighs about twice the
    chunk work per unit: on the H200, one channel of 2^20 samples, order-8
    sos took 0.425 / 0.345 / 0.418 ms with L = 256 / 512 / 1024 and order-4
    b/a 0.249 / 0.202 / 0.189 ms with L = 128 / 256 / 512."""
    want = 2.0 * math.sqrt(max(1, n) * d / carry_threads(d))
    L = 1 << max(0, math.ceil(math.log2(max(want, 1))))
    return int(min(SCAN_L_MAX, max(SCAN_L_MIN, L)))


class Plan(NamedTuple):
    """path: 'serial', 'fused' or 'scan'; L: chunk length; G: chunks per
    channel; nt: threads per block of the fused or carry kernel; S: chunks
    per carry segment (scan; 0: one carry block per channel)."""
    path: str
    L: int
    G: int
    nt: int
    S: int = 0


def segment_plan(nch, n, d):
    """The scan plan with a segmented carry: chunks short enough to give
    the chunk kernels ~SEG_CHUNK_THREADS threads, carry segments of nt
    SEG_M chunks (powers of two, as the carry's health argument needs)."""
    want = max(1, nch * n // SEG_CHUNK_THREADS)
    L = 1 << max(0, math.ceil(math.log2(want)))
    L = int(min(SCAN_L_MAX, max(SCAN_L_MIN, L)))
    nt = carry_threads(d)
    G = -(-n // L)
    S = nt * SEG_M
    return Plan("scan", L, G, nt, S if G > S else 0)


def plan(nch, n, d, staged):
    """The :class:`Plan` for ``nch`` channels of ``n >= 1`` samples with a
    state of ``d`` values: serial when the channels alone fill the GPU or
    are short, fused (one launch) for time-contiguous channels that are
    short or many, else the three-kernel scan."""
    if n <= SERIAL_MAX_N or nch >= SERIAL_MIN_CHANNELS or (
            nch >= SERIAL_MANY[0] and n <= SERIAL_MANY[1]):
        return Plan("serial", n, 1, CHUNK_THREADS)
    if staged and (n <= FUSED_MAX_N or nch >= FUSED_MIN_CHANNELS):
        nt = fused_threads(d, nch)
        L = -(-n // nt)
        return Plan("fused", L, -(-n // L), nt)
    if SEGMENTED_CARRY and nch < SEG_MAX_CHANNELS:
        return segment_plan(nch, n, d)
    L = scan_chunk(n, d)
    return Plan("scan", L, -(-n // L), carry_threads(d))


def _workspace(nbytes):
    """Device scratch of ``nbytes`` (8-byte words; tests swap this hook)."""
    import gpuscipy_core as gp
    return gp.empty((nbytes // 8,), numpy.float64)


_FUNCTIONS = {}  # (device, role, kind, ...) -> Function: the per-call lookup


def _function(role, kind, order, tin, t, staged=False, fir_smem=True, nt=None):
    from gpuscipy_core.cuda import get_device_id
    key = (get_device_id(), role, kind, order, tin, t, staged, fir_smem, nt, OPTIONS)
    f = _FUNCTIONS.get(key)
    if f is None:
        from gpuscipy_core.kernel import get_function
        src, name = kernel_source(role, kind, order, numpy.dtype(tin), numpy.dtype(t),
                                  bool(staged), bool(fir_smem), nt)
        f = _FUNCTIONS[key] = get_function(src, name, OPTIONS)
    return f


def filter_lines(kind, order, coefs, x, tin, xm, y, ym, zi=0, zm=_NO_STATES, zf=0,
                 zf_stride=None, n=0, nch=0, staged=False, serial=False, packed=None):
    """Filter ``nch`` lines of ``n >= 1`` samples: y = filter(x), optionally
    from the states at ``zi`` and writing the final states to ``zf`` (row
    c at ``zf + c * zf_stride``, default D, in elements).

    ``x``, ``y``, ``zi``, ``zf`` are device arrays or addresses (ints; 0 =
    none); ``xm``/``ym`` :class:`Lines`, ``zm`` :class:`States` in elements;
    ``coefs`` the NumPy coefficients in the compute dtype (see :func:`pack`);
    ``staged``: |xm.st| == |ym.st| == 1; ``serial``: one thread per channel
    (any state size up to 64; otherwise the state must be <= DMAX);
    ``packed``: ``pack(kind, coefs)`` when the caller has it cached.
    Returns the plan's path.
    """
    t = numpy.dtype(coefs.dtype)
    d = state_size(kind, order)
    if d > (64 if serial else DMAX):
        raise ValueError(f"state of {d} values is too large for this path")
    p = pack(kind, coefs) if packed is None else packed
    zfs = d if zf_stride is None else zf_stride
    path, L, G, nt, S = (Plan("serial", n, 1, CHUNK_THREADS) if serial
                         else plan(nch, n, d, staged))
    i32 = numpy.int32
    if path == "fused":
        f = _function("fused", kind, order, tin, t, staged, nt=nt)
        f((nch, 1, 1), (nt, 1, 1),
          (p, x, *xm, y, *ym, zi, *zm, zf, zfs, n, i32(L)),
          shared_mem=smem_bytes("fused", kind, order, t, bool(staged), True, nt))
        return path
    ws = 0
    if path == "scan":
        ws = _workspace(nch * G * d * carry_bytes(t))
        nblk = -(-(nch * G) // CHUNK_THREADS)
        f = _function("states", kind, order, tin, t, staged)
        f((nblk, 1, 1), (CHUNK_THREADS, 1, 1),
          (p, x, *xm, 0, *ym, ws, 0, *_NO_STATES, 0, zfs, n, nch, G, i32(L)),
          shared_mem=smem_bytes("states", kind, order, t, staged, nt=CHUNK_THREADS))
        f = _function("carry", kind, order, tin, t)
        cs = smem_bytes("carry", kind, order, t, nt=nt)
        if S and S < G:
            # segment totals, the segments' incoming states (the totals
            # carried as chunks of L S samples), the walk of every segment
            nb = -(-G // S)
            seg = _workspace(nch * nb * d * carry_bytes(t))
            m = S // nt
            f((nch * nb, 1, 1), (nt, 1, 1),
              (p, x, *xm, ws, zi, *zm, n, G, m, L, S, 0, seg), shared_mem=cs)
            f((nch, 1, 1), (nt, 1, 1),
              (p, x, *xm, seg, zi, *zm, n, nb, -(-nb // nt), L * S, nb, 0, 0), shared_mem=cs)
            f((nch * nb, 1, 1), (nt, 1, 1),
              (p, x, *xm, ws, zi, *zm, n, G, m, L, S, seg, 0), shared_mem=cs)
        else:
            f((nch, 1, 1), (nt, 1, 1),
              (p, x, *xm, ws, zi, *zm, n, G, -(-G // nt), L, G, 0, 0), shared_mem=cs)
    nblk = -(-(nch * G) // CHUNK_THREADS)
    f = _function("apply", kind, order, tin, t, staged)
    f((nblk, 1, 1), (CHUNK_THREADS, 1, 1),
      (p, x, *xm, y, *ym, ws, zi, *zm, zf, zfs, n, nch, G, i32(L)),
      shared_mem=smem_bytes("apply", kind, order, t, staged, nt=CHUNK_THREADS))
    return path


def fir_lines(taps, x, tin, xm, y, ym, zi=0, zm=_NO_STATES, zf=0, n=0, nch=0):
    """lfilter with one ``a`` coefficient: ``taps`` (device array, compute
    dtype, b / a[0]), the rest as :func:`filter_lines`; ``n >= 1``."""
    t = numpy.dtype(taps.dtype)
    order = taps.shape[0] - 1
    nout = n if isinstance(zf, int) and zf == 0 else n + order
    tiles = -(-nout // FIR_THREADS)
    use_smem = smem_bytes("fir", "ba", order, t) <= FIR_SMEM_MAX
    f = _function("fir", "ba", 0, tin, t, fir_smem=use_smem)
    f((nch * tiles, 1, 1), (FIR_THREADS, 1, 1),
      (taps, numpy.int32(order), x, *xm, y, *ym, zi, *zm, zf, n, nout, tiles),
      shared_mem=smem_bytes("fir", "ba", order, t, fir_smem=use_smem))
