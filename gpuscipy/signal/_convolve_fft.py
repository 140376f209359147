"""FFT convolution on cuFFT: one padded transform, or overlap-add blocks.

:func:`fft_convolve` is the engine of ``fftconvolve``, ``oaconvolve`` and
``convolve(method='fft')``. SciPy's definition (a product of spectra of the
zero-padded inputs over ``axes``) is kept; how the transform is cut is the
GPU's choice (:func:`_convolve_plan.fft_plan`):

* single: ``rfftn``/``fftn`` of both inputs padded to cuFFT-fast lengths
  (``next_fast_len``), an in-place product, one unnormalised inverse, and
  one pass that crops the mode's window and applies the 1/N scale;
* overlap-add along one axis (Crochiere & Rabiner 1983; Smith, *Spectral
  Audio Signal Processing*): pack the longer input into zero-padded blocks
  of N points (one kernel), one batched FFT, a product with the kernel's
  spectrum (scaled by 1/N beforehand, a short array), one batched inverse
  FFT, and one overlap-add kernel that also crops the mode's window. The
  other convolution axes, if any, are transformed at full (fast) length.

The driver is written against an array namespace (gpuscipy_core with
gpuscipy.fft; NumPy with scipy.fft and the host emulator in the CPU tests).
"""

import functools
import math
import os

import numpy

from gpuscipy_core.kernel import read_source

from . import _convolve_direct as D
from . import _convolve_plan as P

__all__ = ["fft_convolve", "analytic_signal", "kernel_source", "variants",
           "oa_layout", "model_oa", "model_analytic"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_COMPLEX = {numpy.dtype(numpy.float32): numpy.dtype(numpy.complex64),
            numpy.dtype(numpy.float64): numpy.dtype(numpy.complex128)}


_CUH = os.path.join(_HERE, "_convolve_fft.cuh")


@functools.lru_cache(maxsize=64)
def kernel_source(op, dtype, inner1):
    """``(source, name)`` of ``pack``, ``ola`` or ``analytic`` for element
    dtype ``dtype`` (float32/64, complex64/128; complex only for
    ``analytic``), specialised for a unit inner extent or not."""
    dt = numpy.dtype(dtype)
    C = D._ctype(dt)
    name = f"gsfftconv_{op}_{dt.str[1:]}{'_i1' if inner1 else ''}"
    i1 = "true" if inner1 else "false"
    if op == "pack":
        body = (f"{name}(const {C}* x, long long L, long long so, long long sl,\n"
                f"    long long si, {C}* p, long long nb, long long N, long long S,\n"
                f"    long long inner, long long nrows) {{\n"
                f"  gs_signal_fftconv::pack<{C}, {i1}>(x, L, so, sl, si, p, nb, N, S, inner,\n"
                f"      nrows);\n}}\n")
    elif op == "ola":
        body = (f"{name}(const {C}* y, long long nb, long long N, long long S,\n"
                f"    long long inner, {C}* out, long long Lout, long long start,\n"
                f"    long long outer) {{\n"
                f"  gs_signal_fftconv::ola<{C}, {i1}>(y, nb, N, S, inner, out, Lout, start,\n"
                f"      outer);\n}}\n")
    elif op == "analytic":
        if dt.kind != "c":
            raise ValueError("analytic needs a complex dtype")
        body = (f"{name}(const {C}* X, {C}* Z, long long N, long long inner,\n"
                f"    long long outer) {{\n"
                f"  gs_signal_fftconv::analytic<{C}, {i1}>(X, Z, N, inner, outer);\n}}\n")
    else:
        raise ValueError(f"unknown kernel {op!r}")
    return (read_source(_CUH) + '\nextern "C" __global__ void __launch_bounds__(256)\n' + body,
            name)


def variants():
    """Every (op, dtype, inner1) this module launches."""
    out = []
    for op, dts in (("pack", "fdFD"), ("ola", "fdFD"), ("analytic", "FD")):
        for c in dts:
            for inner1 in (True, False):
                out.append((op, numpy.dtype(c), inner1))
    return out


def _fft(xp):
    if xp is numpy:
        import scipy.fft
        return scipy.fft
    import gpuscipy.fft
    return gpuscipy.fft


def _real_scalar(dt, v):
    """``v`` as a NumPy scalar of the real type of ``dt``."""
    return numpy.dtype(numpy.dtype(dt).char.lower()).type(v)


def _grid(per_row, rows):
    return (max(1, -(-per_row // 256)), D._grid1(rows), 1)


def oa_layout(L, K, N):
    """(step S, number of blocks nb) of overlap-add with blocks of N points
    for a signal of L and a kernel of K points (S = N - K + 1)."""
    S = N - K + 1
    if S < 1:
        raise ValueError("block length too short for the kernel")
    return S, -(-L // S)


def _crop(xp, ret, slices, scale, out_dtype, round_):
    """One pass: the mode's window of ``ret``, times ``scale``, as a new
    C-contiguous array; rounded and cast for integer results."""
    v = ret[tuple(slices)]
    if scale != 1.0:
        v = v * _real_scalar(v.dtype, scale)
    else:
        v = xp.ascontiguousarray(v)
    if round_:
        v = xp.rint(v)
    if out_dtype is not None and v.dtype != out_dtype:
        v = v.astype(out_dtype)
    return v


def _out_region(mode, s1, s2, axes):
    """Per-axis (length, start) of the result inside the full output
    (conv axes: the full convolution; other axes: the broadcast extent)."""
    reg = []
    for i in range(len(s1)):
        if i in axes:
            reg.append(P.region(mode, s1[i], s2[i]))
        else:
            full = max(s1[i], s2[i])
            if mode == "same":
                reg.append((s1[i], (full - s1[i]) // 2))
            else:
                reg.append((full, 0))
    return reg


def fft_convolve(xp, in1, in2, mode, axes, force_oa=False, out_dtype=None, round_=False,
                 plan=None):
    """SciPy's ``fftconvolve`` on arrays of the same ndim, after its checks
    (no empty inputs, ``axes`` normalised and filtered, the 'valid' swap
    done). ``force_oa``: take overlap-add whenever some axis allows it
    (``oaconvolve``). ``out_dtype``/``round_``: cast (after rounding) the
    result, for ``convolve(method='fft')``."""
    fft = _fft(xp)
    s1, s2 = tuple(in1.shape), tuple(in2.shape)
    real, cplx = P.fft_dtypes(in1.dtype, in2.dtype)
    cdt = _COMPLEX[real] if cplx else real
    if in1.dtype != cdt:
        in1 = in1.astype(cdt)
    if in2.dtype != cdt:
        in2 = in2.astype(cdt)
    if plan is None:
        plan = _plan_of(s1, s2, tuple(axes), real, cplx, force_oa, fft.next_fast_len)
    reg = _out_region(mode, s1, s2, axes)
    if plan[0] == "oa":
        return _oa(xp, fft, in1, in2, axes, plan[1], plan[2], reg, cplx, out_dtype,
                   round_)
    fshape = [fft.next_fast_len(s1[a] + s2[a] - 1, not cplx) for a in axes]
    if len(s1) == 1 and not cplx and xp is not numpy:
        ret = _single_real_1d(xp, in1, in2, fshape[0])
        n, st = reg[0]
        ret = ret[st:st + n]
        if round_ or (out_dtype is not None and ret.dtype != out_dtype):
            return _crop(xp, ret, [slice(None)], 1.0, out_dtype, round_)
        return ret
    fwd = fft.fftn if cplx else fft.rfftn
    sp1 = fwd(in1, s=fshape, axes=axes)
    sp2 = fwd(in2, s=fshape, axes=axes)
    sp = _times(sp1, sp2)
    del sp2
    ret = _ifft_forward(fft, sp, fshape, axes, cplx)
    del sp, sp1
    slices = [slice(st, st + n) for n, st in reg]
    return _crop(xp, ret, slices, 1.0 / math.prod(fshape), out_dtype, round_)


@functools.lru_cache(maxsize=512)
def _plan_of(s1, s2, axes, real, cplx, force_oa, next_fast_len):
    """:func:`_convolve_plan.fft_plan` for these shapes (with ``force_oa``:
    overlap-add whenever an axis allows it), memoised: the cost model is
    pure and a repeated call should not pay it again."""
    plan = P.fft_plan(s1, s2, axes, real, cplx, next_fast_len)
    if force_oa and plan[0] != "oa":
        oa = P.fft_plan(s1, s2, axes, real, cplx, next_fast_len, allow_single=False)
        if oa is not None:
            plan = oa
    return plan


def _padded(xp, x, n):
    """The 1-D ``x`` (any stride, reversed views included) zero-padded to
    ``n >= len(x)`` points: one launch of ``pack`` with a single block."""
    x, so, sl, si = D.axis_view(xp, x, 0)
    out = xp.empty((n,), x.dtype)
    src, name = kernel_source("pack", x.dtype, True)
    D.launch(src, name, _grid(n, 1), (256, 1, 1),
             (D.ptr(x), x.shape[0], so, sl, si, D.ptr(out), 1, n, n, 1, 1), 0)
    return out


@functools.lru_cache(maxsize=1)
def product_kernel():
    """The ElementwiseKernel ``a = a * b * s`` (complex spectra, ``s`` a
    scalar of their type)."""
    import gpuscipy_core as gp
    return gp.ElementwiseKernel("T b, T s", "T a", "a = a * b * s",
                                "gs_signal_scaled_product")


def _scaled_product(a, b, scale):
    """``a *= b * scale`` in one launch (the 1/N of the inverse transform
    moved onto the spectrum: the inverse then runs unnormalised in place
    and no pass over the output is needed)."""
    product_kernel()(b, scale, a)


def _single_real_1d(xp, in1, in2, n):
    """The full real 1-D convolution of ``in1`` and ``in2`` through
    transforms of ``n`` points on the device: both inputs padded in one
    launch each, two R2C transforms, the scaled product in one launch, the
    C2R in place of the product. Returns the ``n``-point result (the
    caller takes the mode's window, a contiguous view)."""
    from gpuscipy.fft import _basic
    sp = _basic.exec_trailing(_padded(xp, in1, n), 1, "R2C", (n,), -1)
    sp2 = _basic.exec_trailing(_padded(xp, in2, n), 1, "R2C", (n,), -1)
    _scaled_product(sp, sp2, 1.0 / n)
    del sp2
    return _basic.exec_trailing(sp, 1, "C2R", (n,), 1)


def _oa(xp, fft, in1, in2, axes, a, N, reg, cplx, out_dtype, round_):
    s1, s2 = in1.shape, in2.shape
    sig, ker = (in1, in2) if s1[a] >= s2[a] else (in2, in1)
    L, K = sig.shape[a], ker.shape[a]
    S, nb = oa_layout(L, K, N)
    # 1. pack the signal into zero-padded blocks: (outer, nb, N, inner)
    sig, so, sl, si = D.axis_view(xp, sig, a)
    outer = math.prod(sig.shape[:a])
    inner = math.prod(sig.shape[a + 1:])
    pshape = sig.shape[:a] + (nb, N) + sig.shape[a + 1:]
    blocks = xp.empty(pshape, sig.dtype)
    src, name = kernel_source("pack", sig.dtype, inner == 1)
    D.launch(src, name, _grid(N * inner, outer * nb), (256, 1, 1),
             (D.ptr(sig), L, so, sl, si, D.ptr(blocks), nb, N, S, inner, outer * nb), 0)
    # 2. spectra: the blocks along their time axis (a + 1) and the other
    #    convolution axes at full fast length; the kernel likewise
    others = [x for x in axes if x != a]
    sfft = [fft.next_fast_len(s1[x] + s2[x] - 1, not cplx) for x in others] + [N]
    baxes = [x + 1 if x > a else x for x in others] + [a + 1]
    kaxes = others + [a]
    scale = 1.0 / math.prod(sfft)
    fwd = fft.fftn if cplx else fft.rfftn
    spec = fwd(blocks, s=sfft, axes=baxes)
    hspec = fwd(ker, s=sfft, axes=kaxes)
    del blocks
    hspec *= _real_scalar(hspec.dtype, scale)
    hspec = xp.expand_dims(hspec, a)
    spec = _times(spec, hspec)
    del hspec
    # 3. unnormalised inverse (the 1/N is in the kernel's spectrum)
    y = _inverse(xp, fft, spec, sfft, baxes, cplx)
    del spec
    # 4. overlap-add, cropping the mode's window along the block axis
    lout, start = reg[a]
    y = xp.ascontiguousarray(y)
    outer_y = math.prod(y.shape[:a])
    inner_y = math.prod(y.shape[a + 2:])
    oshape = y.shape[:a] + (lout,) + y.shape[a + 2:]
    out = xp.empty(oshape, y.dtype)
    src, name = kernel_source("ola", y.dtype, inner_y == 1)
    D.launch(src, name, _grid(lout * inner_y, outer_y), (256, 1, 1),
             (D.ptr(y), nb, N, S, inner_y, D.ptr(out), lout, start, outer_y), 0)
    del y
    slices = [slice(None) if i == a else slice(st, st + n)
              for i, (n, st) in enumerate(reg)]
    if all(s == slice(None) or (s.start == 0 and s.stop == out.shape[i])
           for i, s in enumerate(slices)) and not round_ and (
               out_dtype is None or out.dtype == out_dtype):
        return out
    return _crop(xp, out, slices, 1.0, out_dtype, round_)


def _inverse(xp, fft, spec, sfft, baxes, cplx):
    """Unnormalised inverse over ``baxes``; on the device a 1-D real inverse
    over the last axis runs in place of the spectrum (we own it), without
    gpuscipy.fft's protective copy."""
    if (xp is not numpy and not cplx and len(baxes) == 1 and baxes[0] == spec.ndim - 1
            and spec.shape[-1] > 1):
        from gpuscipy.fft import _basic
        return _basic.exec_trailing(xp.ascontiguousarray(spec), 1, "C2R", (sfft[-1],), 1)
    return _ifft_forward(fft, spec, sfft, baxes, cplx)


def _times(a, b):
    """``a * b``, computed in place in ``a`` when the product has its shape."""
    if numpy.broadcast_shapes(a.shape, b.shape) == a.shape:
        a *= b
        return a
    return a * b


def _ifft_forward(fft, spec, s, axes, cplx):
    """Unnormalised (``norm='forward'``) inverse of a full or one-sided
    spectrum."""
    if cplx:
        return fft.ifftn(spec, s=s, axes=axes, norm="forward")
    return fft.irfftn(spec, s=s, axes=axes, norm="forward")


def analytic_signal(xp, x, N, axis):
    """Marple's analytic signal of real ``x`` along ``axis`` with N points:
    one real FFT, one kernel building the one-sided spectrum (DC and, for
    even N, Nyquist kept, positive frequencies doubled, negative ones
    zeroed, all scaled by 1/N), one unnormalised complex inverse FFT."""
    fft = _fft(xp)
    X = fft.rfft(x, n=N, axis=axis)
    X = xp.ascontiguousarray(X)
    N = int(N)
    axis = axis % X.ndim
    shape = X.shape[:axis] + (N,) + X.shape[axis + 1:]
    Z = xp.empty(shape, X.dtype)
    if Z.size == 0:
        return Z
    outer = math.prod(X.shape[:axis])
    inner = math.prod(X.shape[axis + 1:])
    src, name = kernel_source("analytic", X.dtype, inner == 1)
    D.launch(src, name, _grid(N * inner, outer), (256, 1, 1),
             (D.ptr(X), D.ptr(Z), N, inner, outer), 0)
    return fft.ifft(Z, axis=axis, norm="forward")


def model_oa(x, h, N, mode="full"):
    """NumPy model of the 1-D overlap-add pipeline (pack, batched rfft,
    product, batched irfft, overlap-add kernel with the mode's window) for
    real x and h, len(x) >= len(h)."""
    x, h = numpy.asarray(x, float), numpy.asarray(h, float)
    L, K = len(x), len(h)
    S, nb = oa_layout(L, K, N)
    t = numpy.arange(N)
    j = numpy.arange(nb)[:, None]
    g = j * S + t[None, :]
    blocks = numpy.where((t[None, :] < S) & (g < L), x[numpy.minimum(g, L - 1)], 0.0)
    y = numpy.fft.irfft(numpy.fft.rfft(blocks, axis=-1) * numpy.fft.rfft(h, N), N,
                        axis=-1)
    lout, start = P.region(mode, L, K)
    out = numpy.zeros(lout)
    for n in range(lout):
        m = n + start
        jhi = min(nb - 1, m // S)
        jlo = 0 if m - N + 1 <= 0 else (m - N + S) // S
        out[n] = sum(y[jj, m - jj * S] for jj in range(jlo, jhi + 1))
    return out


def model_analytic(x, N, axis=-1):
    """NumPy model of :func:`analytic_signal`: rfft, the kernel's one-sided
    spectrum formula, unnormalised inverse FFT."""
    x = numpy.asarray(x)
    X = numpy.moveaxis(numpy.fft.rfft(x, N, axis=axis), axis, -1)
    k = numpy.arange(N)
    h = numpy.where((k == 0) | ((N % 2 == 0) & (k == N // 2)), 1.0,
                    numpy.where(k < N // 2 + 1, 2.0, 0.0)) / N
    Z = numpy.zeros(X.shape[:-1] + (N,), complex)
    Z[..., :N // 2 + 1] = X
    Z = Z * h
    return numpy.moveaxis(numpy.fft.ifft(Z, axis=-1, norm="forward"), -1, axis)
