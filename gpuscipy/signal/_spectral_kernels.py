"""Kernels of gpuscipy.signal's spectral analysis and detrend: source
generation (pure), launch decisions (pure) and the device backend.

Device code lives in ``_spectral_kernels.cuh``; each kernel is one
``extern "C"`` wrapper around a template there, its name encoding the spec
(``gssig_frames_fF_d1``: frames, float input, complex64 output, constant
detrend). :func:`kernel_source` is a memoised pure function of the spec and
:func:`variants` lists every spec the package launches, so CI compiles them
all with NVRTC.

This module is also the *device backend* of ``_spectral``/``_detrend``:
the functions ``frames``, ``fft``, ``power_mean``, ``transpose_op``,
``median``, ``unwrap``, ``ola``, ``detrend_lines`` take and return
``gpuscipy_core`` arrays. ``_spectral_models`` has the same functions on
NumPy arrays (models of the same algorithms), so the CPU tests run the
whole of ``welch`` ... ``istft`` and ``detrend`` through them.
"""

import functools
import os
from math import prod

import numpy

from gpuscipy_core.kernel import read_source

__all__ = ["THREADS", "OPS", "kernel_source", "variants", "line_layout",
           "frames_group", "power_chunks", "median_cap", "detrend_plan",
           "CHUNK", "xp", "asarray", "all_finite", "frames", "fft", "power_mean",
           "transpose_op", "median", "unwrap", "ola", "irfft", "ifft",
           "detrend_lines"]

THREADS = 256
CHUNK = 8192            # detrend: samples per block of the chunked kernels
_MEDIAN_SHARED = 96 * 1024   # bytes of keys a median block may keep in shared memory
_TARGET_THREADS = 132 * 2048  # resident threads of an H200 (132 SMs x 2048)
_HERE = os.path.dirname(os.path.abspath(__file__))

# tr_op operations
OPS = {"power": 0, "cross": 1, "scale": 2, "magnitude": 3, "angle": 4}

_C_TYPE = {"f": "float", "d": "double", "F": "gs::complex<float>",
           "D": "gs::complex<double>"}

# family -> (C parameter list, call of the gs_signal_spectral template)
_FAMILIES = {
    "frames": (
        "const {T}* x, long long so, long long si, long long ninner, long long sk, "
        "long long n, long long pre, long long post, int bmode, long long hop, "
        "long long nseg, long long rows, long long nperseg, long long nfft, "
        "const {R}* win, {TO}* out, int group",
        "frames<{T}, {TO}, {D}>(x, so, si, ninner, sk, n, pre, post, bmode, hop, nseg, "
        "rows, nperseg, nfft, win, out, group)"),
    "power_partial": (
        "const {C}* X, const {C}* Y, long long nseg, long long nf, long long chunk, "
        "long long nchunks, long long nfb, {P}* part",
        "power_partial<{C}, {CROSS}>(X, Y, nseg, nf, chunk, nchunks, nfb, part)"),
    "power_final": (
        "const {P}* part, long long nchunks, long long nf, long long total, "
        "long long nseg, long long dlo, long long dhi, {OUT}* out",
        "power_final<{P}, {OUT}>(part, nchunks, nf, total, nseg, dlo, dhi, out)"),
    "tr_op": (
        "const {C}* X, const {C}* Y, long long nseg, long long nf, long long ntf, "
        "long long nts, {R} scale, long long dlo, long long dhi, {OUT}* out",
        "tr_op<{C}, {OUT}, {OP}>(X, Y, nseg, nf, ntf, nts, scale, dlo, dhi, out)"),
    "median": (
        "const {R}* in, long long n, long long col_stride, long long es, "
        "long long ncols, {R}* out, long long out_stride, {R} bias, long long cap",
        "median_cols<{R}>(in, n, col_stride, es, ncols, out, out_stride, bias, cap)"),
    "unwrap": (
        "{R}* p, long long nf, long long nseg, long long ncols",
        "unwrap_cols<{R}>(p, nf, nseg, ncols)"),
    "ola": (
        "const {T}* xs, long long nseg, long long row_len, long long nperseg, "
        "long long nstep, const {R}* win, {R} scale, long long start, long long lout, "
        "long long total, {T}* out",
        "ola<{T}>(xs, nseg, row_len, nperseg, nstep, win, scale, start, lout, total, out)"),
    "detrend_fused": (
        "const {T}* x, long long xso, long long xsi, long long ninner, long long xsk, "
        "{T}* y, long long yso, long long ysi, long long ysk, long long L, "
        "const long long* bp, long long npieces",
        "detrend_fused<{T}, {LIN}>(x, xso, xsi, ninner, xsk, y, yso, ysi, ysk, L, bp, "
        "npieces)"),
    "detrend_partial": (
        "const {T}* x, long long xso, long long xsi, long long ninner, long long xsk, "
        "long long L, const long long* bp, const long long* cfirst, long long npieces, "
        "long long C, long long CH, {A}* part",
        "detrend_partial<{T}, {LIN}>(x, xso, xsi, ninner, xsk, L, bp, cfirst, npieces, "
        "C, CH, part)"),
    "detrend_apply": (
        "const {T}* x, long long xso, long long xsi, long long ninner, long long xsk, "
        "{T}* y, long long yso, long long ysi, long long ysk, long long L, "
        "const long long* bp, const long long* cfirst, long long npieces, long long C, "
        "long long CH, const {A}* part",
        "detrend_apply<{T}, {LIN}>(x, xso, xsi, ninner, xsk, y, yso, ysi, ysk, L, bp, "
        "cfirst, npieces, C, CH, part)"),
}


_CUH = os.path.join(_HERE, "_spectral_kernels.cuh")


def _real(c):
    return c.lower()


def _complex(c):
    return c.upper()


def _b(v):
    return "true" if v else "false"


def _spec_types(family, spec):
    """Template arguments and name suffix of one kernel spec (a tuple)."""
    if family == "frames":
        t, to, d = spec
        if t not in "fdFD" or to not in "fdFD" or d not in (0, 1, 2):
            raise ValueError(f"bad frames spec {spec!r}")
        if _real(t) != _real(to) or (t in "FD" and to != t):
            raise ValueError(f"bad frames spec {spec!r}")
        return dict(T=_C_TYPE[t], TO=_C_TYPE[to], R=_C_TYPE[_real(t)], D=d), f"{t}{to}_d{d}"
    if family == "power_partial":
        c, cross = spec
        if c not in "FD":
            raise ValueError(f"bad power_partial spec {spec!r}")
        return (dict(C=_C_TYPE[c], CROSS=_b(cross),
                     P="gs::complex<double>" if cross else "double"),
                f"{c}_{'x' if cross else 'p'}")
    if family == "power_final":
        out, cross = spec
        if out not in ("FD" if cross else "fd"):
            raise ValueError(f"bad power_final spec {spec!r}")
        return (dict(OUT=_C_TYPE[out], P="gs::complex<double>" if cross else "double"),
                f"{out}_{'x' if cross else 'p'}")
    if family == "tr_op":
        c, op = spec
        if c not in "FD" or op not in OPS.values():
            raise ValueError(f"bad tr_op spec {spec!r}")
        out = c if op in (1, 2) else _real(c)
        return dict(C=_C_TYPE[c], OUT=_C_TYPE[out], R=_C_TYPE[_real(c)], OP=op), f"{c}_op{op}"
    if family in ("median", "unwrap"):
        (r,) = spec
        if r not in "fd":
            raise ValueError(f"bad {family} spec {spec!r}")
        return dict(R=_C_TYPE[r]), r
    if family == "ola":
        (t,) = spec
        if t not in "fdFD":
            raise ValueError(f"bad ola spec {spec!r}")
        return dict(T=_C_TYPE[t], R=_C_TYPE[_real(t)]), t
    if family in ("detrend_fused", "detrend_partial", "detrend_apply"):
        t, linear = spec
        if t not in "fdFD":
            raise ValueError(f"bad {family} spec {spec!r}")
        return (dict(T=_C_TYPE[t], LIN=_b(linear),
                     A="gs::complex<double>" if t in "FD" else "double"),
                f"{t}_{'l' if linear else 'c'}")
    raise ValueError(f"unknown kernel family {family!r}")


@functools.lru_cache(maxsize=128)
def kernel_source(family, *spec):
    """``(source, name)`` of one kernel (pure). ``spec`` per family:
    frames (T, TO, detrend 0/1/2); power_partial (C, cross); power_final
    (OUT, cross); tr_op (C, op); median/unwrap (R,); ola (T,);
    detrend_fused/partial/apply (T, linear) -- dtype chars of fdFD."""
    types, suffix = _spec_types(family, spec)
    params, call = _FAMILIES[family]
    name = f"gssig_{family}_{suffix}"
    return (f"{read_source(_CUH)}\n"
            f'extern "C" __global__ void __launch_bounds__({THREADS})\n'
            f"{name}({params.format(**types)}) {{\n"
            f"  gs_signal_spectral::{call.format(**types)};\n}}\n"), name


def variants():
    """Every ``(family, spec)`` the package can launch."""
    out = []
    for t, to in (("f", "f"), ("d", "d"), ("f", "F"), ("d", "D"), ("F", "F"), ("D", "D")):
        out += [("frames", (t, to, d)) for d in (0, 1, 2)]
    for c in "FD":
        out += [("power_partial", (c, x)) for x in (False, True)]
        out += [("tr_op", (c, op)) for op in OPS.values()]
    out += [("power_final", (o, False)) for o in "fd"]
    out += [("power_final", (o, True)) for o in "FD"]
    out += [(fam, (r,)) for fam in ("median", "unwrap") for r in "fd"]
    out += [("ola", (t,)) for t in "fdFD"]
    out += [(fam, (t, lin)) for fam in ("detrend_fused", "detrend_partial", "detrend_apply")
            for t in "fdFD" for lin in (False, True)]
    return out


def _function(family, *spec):
    from gpuscipy_core.kernel import get_function
    src, name = kernel_source(family, *spec)
    return get_function(src, name)


# ---------------------------------------------------------------------------
# pure launch decisions
# ---------------------------------------------------------------------------

def line_layout(shape, strides, itemsize):
    """``(so, si, ninner, sk)`` in elements such that sample i of line b of an
    array whose last axis is the line axis sits at element offset
    ``(b // ninner) * so + (b % ninner) * si + i * sk`` from its first
    element, or None when the outer axes do not collapse to two groups (or a
    stride is not a multiple of the item size)."""
    if any(s % itemsize for s in strides):
        return None
    sk = strides[-1] // itemsize if shape else 0
    groups = []
    for d, s in zip(shape[:-1], strides[:-1]):
        if d == 1:
            continue
        s //= itemsize
        if groups and groups[-1][1] == s * d:
            groups[-1] = (groups[-1][0] * d, s)
        else:
            groups.append((d, s))
    if not groups:
        return 0, 0, 1, sk
    if len(groups) == 1:
        return 0, groups[0][1], groups[0][0], sk
    if len(groups) == 2:
        (_, s0), (d1, s1) = groups
        return s0, s1, d1, sk
    return None


def frames_group(nfft):
    """Threads per segment row of the frames kernel: 32 .. 256."""
    g = 32
    while g < THREADS and g < nfft:
        g *= 2
    return g


def power_chunks(B, nseg, nf):
    """``(chunk, nchunks)``: segments per partial sum of the mean over
    segments, enough chunks to fill the GPU (about ``_TARGET_THREADS``
    threads over B * nf frequencies)."""
    nfb = -(-nf // THREADS)
    want = -(-_TARGET_THREADS // max(1, nfb * THREADS * B))
    nchunks = max(1, min(nseg, want))
    chunk = -(-nseg // nchunks)
    return chunk, -(-nseg // chunk)


def median_cap(real_dtype):
    """Most keys of one column the median kernel keeps in shared memory."""
    return _MEDIAN_SHARED // numpy.dtype(real_dtype).itemsize


def detrend_plan(bounds, chunk=CHUNK):
    """``(cfirst, C, fused)`` for pieces ``bounds`` (0 = b0 < b1 < ... = N):
    the first chunk of each piece (and the total C appended), and whether
    every piece fits one chunk (one fused block per line)."""
    counts = [-(-(hi - lo) // chunk) for lo, hi in zip(bounds[:-1], bounds[1:])]
    cfirst = [0]
    for c in counts:
        cfirst.append(cfirst[-1] + c)
    return cfirst, cfirst[-1], all(c == 1 for c in counts)


# ---------------------------------------------------------------------------
# device backend
# ---------------------------------------------------------------------------

class _XP:
    """``gpuscipy_core``, imported on first attribute access."""

    def __getattr__(self, name):
        import gpuscipy_core
        return getattr(gpuscipy_core, name)


xp = _XP()
is_device = True


def asarray(a, dtype=None):
    import gpuscipy_core as gp
    return gp.asarray(a, dtype=dtype)


def all_finite(a):
    """Whether ``a`` holds no inf or NaN (one pass, one device sync)."""
    from gpuscipy_core.lib import all_finite as f
    return f(a)


def _i(v):
    return numpy.int64(v)


def _lines(x):
    """``(x, layout)``: x itself when its lines are addressable, else a
    C-contiguous copy."""
    import gpuscipy_core as gp
    lay = line_layout(x.shape, x.strides, x.itemsize)
    if lay is None:
        x = gp.ascontiguousarray(x)
        lay = line_layout(x.shape, x.strides, x.itemsize)
    return x, lay


def frames(x, pre, post, bmode, hop, nseg, nperseg, nfft, win, detrend, out_dtype):
    """The FFT input ``(B * nseg, nfft)`` of ``out_dtype`` from the lines of
    ``x`` (last axis, dtype of fdFD): segment s of line b is samples
    ``s * hop + k`` (k < nperseg) of the line extended by ``pre``/``post``
    samples of boundary mode ``bmode`` and zeros, detrended (0 none, 1
    constant, 2 linear), times ``win`` (device array or None), zero padded."""
    import gpuscipy_core as gp
    out_dtype = numpy.dtype(out_dtype)
    x, (so, si, ninner, sk) = _lines(x)
    B = prod(x.shape[:-1])
    rows = B * nseg
    out = gp.empty((rows, nfft), out_dtype)
    if rows == 0 or nfft == 0:
        return out
    g = frames_group(nfft)
    f = _function("frames", x.dtype.char, out_dtype.char, int(detrend))
    grid = -(-rows // (THREADS // g))
    f((grid, 1, 1), (THREADS, 1, 1),
      (x.ptr, _i(so), _i(si), _i(ninner), _i(sk), _i(x.shape[-1]), _i(pre), _i(post),
       numpy.int32(bmode), _i(hop), _i(nseg), _i(rows), _i(nperseg), _i(nfft),
       0 if win is None else win.ptr, out.ptr, numpy.int32(g)))
    return out


def fft(frames_, kind, nfft):
    """Batched unnormalised FFT of the rows: 'R2C' (real rows) or 'C2C'."""
    from gpuscipy.fft._basic import exec_axis
    return exec_axis(frames_, frames_.ndim - 1, kind, nfft, -1)


def irfft(z, n):
    """``scipy.fft.irfft(z, n, axis=-1)`` on the device."""
    from gpuscipy.fft import irfft as f
    return f(z, n=n, axis=-1)


def ifft(z, n):
    """``scipy.fft.ifft(z, n, axis=-1)`` on the device."""
    from gpuscipy.fft import ifft as f
    return f(z, n=n, axis=-1)


def power_mean(X, Y, B, nseg, nf, dlo, dhi, out_dtype):
    """Mean over segments of ``|X|^2`` (``Y`` None) or ``Y conj(X)``, doubled
    on frequencies [dlo, dhi): ``(B, nf)`` of ``out_dtype``. X, Y are
    ``(B * nseg, nf)`` complex."""
    import gpuscipy_core as gp
    cross = Y is not None
    out_dtype = numpy.dtype(out_dtype)
    out = gp.empty((B, nf), out_dtype)
    if out.size == 0:
        return out
    chunk, nchunks = power_chunks(B, nseg, nf)
    nfb = -(-nf // THREADS)
    part = gp.empty((B, nchunks, nf), numpy.complex128 if cross else numpy.float64)
    f1 = _function("power_partial", X.dtype.char, cross)
    f1((nfb * nchunks * B, 1, 1), (THREADS, 1, 1),
       (X.ptr, (Y if cross else X).ptr, _i(nseg), _i(nf), _i(chunk), _i(nchunks), _i(nfb),
        part.ptr))
    f2 = _function("power_final", out_dtype.char, cross)
    total = B * nf
    f2((-(-total // THREADS), 1, 1), (THREADS, 1, 1),
       (part.ptr, _i(nchunks), _i(nf), _i(total), _i(nseg), _i(dlo), _i(dhi), out.ptr))
    return out


def transpose_op(X, Y, B, nseg, nf, op, scale, dlo, dhi):
    """``(B, nf, nseg)``: X (``(B * nseg, nf)`` complex) transposed with the
    elementwise ``op`` of :data:`OPS` (power and cross doubled on [dlo, dhi))."""
    import gpuscipy_core as gp
    code = OPS[op]
    c = X.dtype.char
    out_dtype = numpy.dtype(c if code in (1, 2) else c.lower())
    out = gp.empty((B, nf, nseg), out_dtype)
    if out.size == 0:
        return out
    ntf, nts = -(-nf // 32), -(-nseg // 32)
    f = _function("tr_op", c, code)
    rt = numpy.dtype(c.lower()).type
    f((B * nts * ntf, 1, 1), (32, 8, 1),
      (X.ptr, (X if Y is None else Y).ptr, _i(nseg), _i(nf), _i(ntf), _i(nts), rt(scale),
       _i(dlo), _i(dhi), out.ptr))
    return out


def median(P, bias):
    """``median(P, axis=-1) / bias`` of a C-contiguous ``(B, nf, nseg)`` array
    (complex: real and imaginary parts separately), NaN where a column holds
    a NaN: ``(B, nf)`` of P's dtype."""
    import gpuscipy_core as gp
    B, nf, nseg = P.shape
    out = gp.empty((B, nf), P.dtype)
    ncols = B * nf
    if ncols == 0:
        return out
    cplx = P.dtype.kind == "c"
    rdt = numpy.dtype(P.dtype.char.lower())
    f = _function("median", rdt.char)
    fits = nseg <= median_cap(rdt)
    shared = nseg * rdt.itemsize if fits else 0
    cap = nseg if fits else 0
    grid = min(ncols, 1 << 20)
    parts = ((0, 2), (rdt.itemsize, 2)) if cplx else ((0, 1),)
    for offset, es in parts:
        f((grid, 1, 1), (THREADS, 1, 1),
          (P.ptr + offset, _i(nseg), _i(nseg * es), _i(es), _i(ncols), out.ptr + offset,
           _i(es), rdt.type(bias), _i(cap)), shared_mem=shared)
    return out


def unwrap(P):
    """``numpy.unwrap`` along axis 1 of a C-contiguous real ``(B, nf, nseg)``
    array, in place."""
    B, nf, nseg = P.shape
    ncols = B * nseg
    if ncols == 0 or nf < 2:
        return P
    f = _function("unwrap", P.dtype.char)
    f((-(-ncols // THREADS), 1, 1), (THREADS, 1, 1), (P.ptr, _i(nf), _i(nseg), _i(ncols)))
    return P


def ola(xs, win, scale, nperseg, nstep, start, lout):
    """Overlap-add of the rows of ``xs`` (``(B, nseg, row_len)``, C-contiguous)
    with ``win`` (device, real) and ``scale``, normalised by the summed
    squared window, samples ``start .. start + lout - 1``: ``(B, lout)``."""
    import gpuscipy_core as gp
    B, nseg, row_len = xs.shape
    out = gp.empty((B, lout), xs.dtype)
    total = B * lout
    if total == 0:
        return out
    f = _function("ola", xs.dtype.char)
    rt = numpy.dtype(xs.dtype.char.lower()).type
    f((-(-total // THREADS), 1, 1), (THREADS, 1, 1),
      (xs.ptr, _i(nseg), _i(row_len), _i(nperseg), _i(nstep), win.ptr, rt(scale), _i(start),
       _i(lout), _i(total), out.ptr))
    return out


def detrend_lines(x, bounds, linear, out=None):
    """Remove the mean (``linear`` False, ``bounds`` = [0, N]) or the
    least-squares line of each piece [bounds[m], bounds[m+1]) from every line
    of ``x`` (last axis, dtype of fdFD). Writes ``out`` (``x`` itself for an
    in-place detrend, whose layout must then be addressable) or a new
    C-contiguous array, and returns it."""
    import gpuscipy_core as gp
    in_place = out is x
    x, (xso, xsi, ninner, xsk) = _lines(x)
    if in_place and out is not x:
        raise ValueError("detrend_lines: in-place output needs an addressable layout")
    N = x.shape[-1]
    L = prod(x.shape[:-1])
    if out is None:
        out = gp.empty(x.shape, x.dtype)
    if in_place:
        yso, ysi, ysk = xso, xsi, xsk
    else:
        ysk = 1
        ysi = N
        yso = N * ninner
        if not out.flags.c_contiguous:
            raise ValueError("detrend_lines: out must be C-contiguous")
    npieces = len(bounds) - 1
    if L == 0 or N == 0 or npieces == 0:
        return out
    cfirst, C, fused = detrend_plan(bounds)
    bp = gp.asarray(numpy.asarray(bounds, numpy.int64))
    t = x.dtype.char
    if fused:
        f = _function("detrend_fused", t, bool(linear))
        f((min(L, 1 << 20), 1, 1), (THREADS, 1, 1),
          (x.ptr, _i(xso), _i(xsi), _i(ninner), _i(xsk), out.ptr, _i(yso), _i(ysi), _i(ysk),
           _i(L), bp.ptr, _i(npieces)))
        return out
    cf = gp.asarray(numpy.asarray(cfirst, numpy.int64))
    part = gp.empty((L, C, 2), numpy.complex128 if t in "FD" else numpy.float64)
    f1 = _function("detrend_partial", t, bool(linear))
    f1((L * C, 1, 1), (THREADS, 1, 1),
       (x.ptr, _i(xso), _i(xsi), _i(ninner), _i(xsk), _i(L), bp.ptr, cf.ptr, _i(npieces),
        _i(C), _i(CHUNK), part.ptr))
    f2 = _function("detrend_apply", t, bool(linear))
    f2((L * C, 1, 1), (THREADS, 1, 1),
       (x.ptr, _i(xso), _i(xsi), _i(ninner), _i(xsk), out.ptr, _i(yso), _i(ysi), _i(ysk),
        _i(L), bp.ptr, cf.ptr, _i(npieces), _i(C), _i(CHUNK), part.ptr))
    return out
