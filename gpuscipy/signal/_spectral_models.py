"""NumPy models of the spectral and detrend kernels: the CPU backend.

Same functions and arguments as the device backend in
``_spectral_kernels`` (``frames``, ``fft``, ``power_mean``, ...), on NumPy
arrays, computing what the kernels compute the way they compute it: the
frame index map with boundary extension, per-segment moments in float64,
the chunked mean over segments (``power_chunks``), the radix selection of
the median (digit passes over order-preserving integer keys), numpy.unwrap
as the sequential per-column recurrence, the overlap-add gather in segment
order, and the chunked detrend (``detrend_plan``). The CPU tests run
``_spectral``/``_detrend`` through this module against SciPy, so the
algorithms are checked before they meet a GPU.
"""

import numpy
import scipy.fft

from ._spectral_kernels import (CHUNK, OPS, detrend_plan, median_cap, power_chunks)

__all__ = ["xp", "is_device", "asarray", "all_finite", "fetch_index", "frames", "fft", "power_mean",
           "transpose_op", "median", "select_kth", "unwrap", "ola", "irfft", "ifft",
           "detrend_lines"]

xp = numpy
is_device = False


def asarray(a, dtype=None):
    return numpy.asarray(a, dtype=dtype)


def all_finite(a):
    return bool(numpy.isfinite(a).all())


def _acc(dtype):
    return numpy.complex128 if numpy.dtype(dtype).kind == "c" else numpy.float64


def fetch_index(j, n, pre, post, bmode):
    """The kernels' ``fetch`` as index arithmetic: for logical sample ``j``
    (array) of the extended line, ``(idx, kind)`` with kind 0: zero, 1: x[idx],
    2: 2 x[edge] - x[idx] (edge = 0 left, n-1 right), 3: x[idx] (an edge)."""
    j = numpy.asarray(j, numpy.int64)
    i = j - pre
    idx = numpy.zeros_like(i)
    kind = numpy.zeros_like(i)
    inside = (i >= 0) & (i < n)
    idx[inside], kind[inside] = i[inside], 1
    left = i < 0
    r = i - n
    right = (i >= n) & (r < post)
    if bmode == 1:
        idx[left], kind[left] = -i[left], 1
        idx[right], kind[right] = n - 2 - r[right], 1
    elif bmode == 2:
        idx[left], kind[left] = -i[left], 2
        idx[right], kind[right] = n - 2 - r[right], 2
    elif bmode == 3:
        idx[left], kind[left] = 0, 3
        idx[right], kind[right] = n - 1, 3
    return idx, kind


def frames(x, pre, post, bmode, hop, nseg, nperseg, nfft, win, detrend, out_dtype):
    x2 = numpy.asarray(x).reshape(-1, x.shape[-1])
    B, n = x2.shape
    t = x2.dtype
    j = numpy.arange(nseg)[:, None] * hop + numpy.arange(nperseg)[None, :]
    idx, kind = fetch_index(j, n, pre, post, bmode)
    v = x2[:, idx]                                     # (B, nseg, nperseg)
    left = (j - pre) < 0
    edge = numpy.where(left, x2[:, :1, None], x2[:, -1:, None])
    v = numpy.where(kind == 0, t.type(0), v)
    v = numpy.where(kind == 2, (edge + edge) - v, v)
    v = numpy.where(kind == 3, edge, v).astype(t)
    if detrend:
        a = v.astype(_acc(t))
        mean = a.sum(-1, keepdims=True) / nperseg
        r = a - mean
        if detrend == 2 and nperseg > 1:
            tk = numpy.arange(nperseg) - 0.5 * (nperseg - 1)
            slope = (a * tk).sum(-1, keepdims=True) / (nperseg * (nperseg ** 2 - 1.0) / 12.0)
            r = r - slope * tk
        v = r.astype(t)
    if win is not None:
        v = v * numpy.asarray(win)
    out = numpy.zeros((B * nseg, nfft), out_dtype)
    out[:, :nperseg] = v.reshape(B * nseg, nperseg)
    return out


def fft(frames_, kind, nfft):
    if kind == "R2C":
        return scipy.fft.rfft(frames_, n=nfft, axis=-1)
    return scipy.fft.fft(frames_, n=nfft, axis=-1)


def irfft(z, n):
    return scipy.fft.irfft(z, n=n, axis=-1)


def ifft(z, n):
    return scipy.fft.ifft(z, n=n, axis=-1)


def _power(X, Y):
    xd = X.astype(numpy.complex128)
    if Y is None:
        return xd.real ** 2 + xd.imag ** 2
    yd = Y.astype(numpy.complex128)
    return yd * xd.conj()


def power_mean(X, Y, B, nseg, nf, dlo, dhi, out_dtype):
    P = _power(X, Y).reshape(B, nseg, nf)
    chunk, nchunks = power_chunks(B, nseg, nf)
    part = numpy.stack([P[:, c * chunk:(c + 1) * chunk].sum(1) for c in range(nchunks)], 1)
    acc = part.sum(1)
    acc[:, dlo:dhi] *= 2.0
    return (acc / nseg).astype(out_dtype)


def transpose_op(X, Y, B, nseg, nf, op, scale, dlo, dhi):
    code = OPS[op]
    c = X.dtype.char
    X3 = X.reshape(B, nseg, nf)
    if code in (0, 1):
        P = _power(X3, None if code == 0 else Y.reshape(B, nseg, nf)) * float(scale)
        P[..., dlo:dhi] *= 2.0
        out = P.astype(c if code == 1 else c.lower())
    else:
        z = X3 * numpy.dtype(c.lower()).type(scale)
        out = {2: z, 3: numpy.abs(z), 4: numpy.angle(z)}[code]
    return numpy.ascontiguousarray(out.transpose(0, 2, 1))


def _keys(v):
    """Order-preserving unsigned keys of floats (the kernels' key_of)."""
    v = numpy.ascontiguousarray(v)
    ut = numpy.uint32 if v.dtype.itemsize == 4 else numpy.uint64
    u = v.view(ut)
    sign = ut(1) << ut(8 * v.dtype.itemsize - 1)
    return numpy.where(u & sign, ~u, u | sign).astype(ut), ut


def _values(k, dtype, ut):
    sign = ut(1) << ut(8 * numpy.dtype(dtype).itemsize - 1)
    u = numpy.where(k & sign, k & ~sign, ~k).astype(ut)
    return u.view(dtype)


def select_kth(v, k):
    """The k-th smallest (0-based) of each row of ``v`` by the kernel's radix
    selection: 8-bit digits from the most significant, histogram of the keys
    that match the chosen prefix, the bin holding rank k kept."""
    keys, ut = _keys(v)
    rows = keys.shape[0]
    kk = numpy.full(rows, k, numpy.int64)
    prefix = numpy.zeros(rows, ut)
    mask = numpy.zeros(rows, ut)
    for shift in range(8 * keys.dtype.itemsize - 8, -8, -8):
        digit = ((keys >> ut(shift)) & ut(255)).astype(numpy.int64)
        match = (keys & mask[:, None]) == prefix[:, None]
        hist = numpy.zeros((rows, 256), numpy.int64)
        for r in range(rows):
            hist[r] = numpy.bincount(digit[r][match[r]], minlength=256)
        incl = numpy.cumsum(hist, axis=1)
        sel = numpy.argmax(incl > kk[:, None], axis=1)
        before = incl[numpy.arange(rows), sel] - hist[numpy.arange(rows), sel]
        prefix |= sel.astype(ut) << ut(shift)
        mask |= ut(255) << ut(shift)
        kk -= before
    return _values(prefix, v.dtype, ut)


def _median_rows(v, bias):
    n = v.shape[1]
    med = select_kth(v, (n - 1) // 2)
    if n % 2 == 0:
        med = (med + select_kth(v, n // 2)) / v.dtype.type(2)
    med = med / v.dtype.type(bias)
    return numpy.where(numpy.isnan(v).any(1), numpy.nan, med).astype(v.dtype)


def median(P, bias):
    B, nf, nseg = P.shape
    median_cap(P.real.dtype)       # the same decision input as the kernel (unused)
    flat = P.reshape(B * nf, nseg)
    if P.dtype.kind == "c":
        out = numpy.empty(B * nf, P.dtype)
        out.real = _median_rows(numpy.ascontiguousarray(flat.real), bias)
        out.imag = _median_rows(numpy.ascontiguousarray(flat.imag), bias)
    else:
        out = _median_rows(flat, bias)
    return out.reshape(B, nf)


def unwrap(P):
    R = P.dtype.type
    pi, period = R(numpy.pi), R(2 * numpy.pi)
    prev = P[:, 0, :].copy()
    cum = numpy.zeros_like(prev)
    for f in range(1, P.shape[1]):
        cur = P[:, f, :].copy()
        dd = cur - prev
        ddmod = numpy.mod(dd + pi, period) - pi
        ddmod = numpy.where((ddmod == -pi) & (dd > 0), pi, ddmod).astype(P.dtype)
        corr = numpy.where(numpy.abs(dd) < pi, R(0), ddmod - dd).astype(P.dtype)
        cum = cum + corr
        P[:, f, :] = cur + cum
        prev = cur
    return P


def ola(xs, win, scale, nperseg, nstep, start, lout):
    B, nseg, row_len = xs.shape
    R = numpy.dtype(xs.dtype.char.lower()).type
    win = numpy.asarray(win)
    scale = R(scale)
    j = start + numpy.arange(lout)
    p_hi = numpy.minimum(j // nstep, nseg - 1)
    lo_num = j - nperseg + 1
    p_lo = numpy.where(lo_num <= 0, 0, -(-lo_num // nstep))
    acc = numpy.zeros((B, lout), xs.dtype)
    norm = numpy.zeros(lout, R)
    for d in range(-(-nperseg // nstep) + 1):
        p = p_lo + d
        ok = p <= p_hi
        k = numpy.where(ok, j - p * nstep, 0)
        pc = numpy.where(ok, p, 0)
        w = numpy.where(ok, win[k], R(0))
        term = (xs[:, pc, k] * scale) * w
        acc = numpy.where(ok, acc + term, acc)
        norm = numpy.where(ok, norm + w * w, norm)
    return acc / numpy.where(norm > R(1e-10), norm, R(1))


def detrend_lines(x, bounds, linear, out=None):
    x2 = numpy.asarray(x).reshape(-1, x.shape[-1])
    t = x2.dtype
    y = numpy.empty_like(x2)
    cfirst, C, fused = detrend_plan(bounds)
    for m, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        npts = hi - lo
        tk = numpy.arange(npts) - 0.5 * (npts - 1)
        seg = x2[:, lo:hi].astype(_acc(t))
        if fused:
            s0 = seg.sum(1)
            s1 = (seg * tk).sum(1)
        else:
            # the chunked kernels: per-chunk moments, summed in chunk order
            s0 = 0
            s1 = 0
            for c in range(cfirst[m + 1] - cfirst[m]):
                sl = slice(c * CHUNK, min((c + 1) * CHUNK, npts))
                s0 = s0 + seg[:, sl].sum(1)
                s1 = s1 + (seg[:, sl] * tk[sl]).sum(1)
        mean = s0 / npts
        r = seg - mean[:, None]
        if linear and npts > 1:
            r = r - (s1 / (npts * (npts ** 2 - 1.0) / 12.0))[:, None] * tk
        y[:, lo:hi] = r.astype(t)
    y = y.reshape(x.shape)
    if out is not None:
        out[...] = y
        return out
    return y

