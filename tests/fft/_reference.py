"""NumPy mirror of the DCT/DST pipeline of gpuscipy.fft._realtransforms.

Each ``k_<op>`` below does, with NumPy on flat buffers, exactly what the
kernel of the same name in ``gpuscipy/fft/_realtransforms.cuh`` does (same
index maps, same twiddles, same pairs of outputs per work item); ``numpy.fft``
stands in for cuFFT (unnormalised, like cuFFT). :func:`r2r_axis` runs a
:class:`gpuscipy.fft._realtransforms.Recipe` through them, so comparing it
with ``scipy.fft`` on the CPU checks the recipe, the normalisation factors
and the kernels' formulas without a GPU.
"""

import numpy as np

from gpuscipy.fft._realtransforms import r2r_factors, r2r_recipe, single_point_factor


def _rows(x, N, inner):
    """View flat ``x`` of logical shape (outer, N, inner) as rows (B, N)."""
    outer = x.size // (N * inner)
    return x.reshape(outer, N, inner).transpose(0, 2, 1).reshape(outer * inner, N)


def _store_rows(y, rows, N, inner):
    outer = y.size // (N * inner)
    y.reshape(outer, N, inner)[...] = rows.reshape(outer, inner, N).transpose(0, 2, 1)


def _expm(num, den):
    """exp(-i pi num/den) as (c, s)."""
    a = np.asarray(num, dtype=np.float64) / den
    return np.cos(np.pi * a), -np.sin(np.pi * a)


def k_dct2_pre(xr, N, B, dst, scale, e_pre, e_post):
    v = np.empty((B, N))
    j = np.arange((N + 1) // 2)
    v[:, j] = xr[:, 2 * j]
    jo = j[2 * j + 1 < N]
    o = xr[:, 2 * jo + 1]
    v[:, N - 1 - jo] = -o if dst else o
    return v


def _dct2_emit(y, N, k, V, c, s, dst, scale, e0):
    Pre = V.real * c - V.imag * s
    Pim = V.real * s + V.imag * c
    a = 2 * Pre * scale * np.where(k == 0, e0, 1.0)
    y[:, (N - 1 - k) if dst else k] = a
    m = (k > 0) & (N - k != k)
    b = -2 * Pim[:, m] * scale
    y[:, (k[m] - 1) if dst else (N - k[m])] = b


def k_dct2_post_r2c(V, N, B, dst, scale, e_pre, e_post):
    y = np.empty((B, N))
    k = np.arange(N // 2 + 1)
    c, s = _expm(k, 2 * N)
    _dct2_emit(y, N, k, V[:, k], c, s, dst, scale, e_post)
    return y


def k_dct2_post_c2c(Z, N, B, dst, scale, e_pre, e_post):
    y = np.empty((B, N))
    M = N // 2
    r2 = np.sqrt(0.5)
    k = np.arange(M // 2 + 1)
    j = np.where(k == 0, 0, M - k)
    zk, zj = Z[:, k], Z[:, j]
    tc, ts = _expm(k, 2 * N)
    t2c, t2s = tc * tc - ts * ts, 2 * tc * ts
    wc, ws = t2c * t2c - t2s * t2s, 2 * t2c * t2s

    def V_of(za, zb, c, s):
        er = (za.real + zb.real) * 0.5
        ei = (za.imag - zb.imag) * 0.5
        orr = (za.imag + zb.imag) * 0.5
        oi = -(za.real - zb.real) * 0.5
        return (er + orr * c - oi * s) + 1j * (ei + orr * s + oi * c)

    _dct2_emit(y, N, k, V_of(zk, zj, wc, ws), tc, ts, dst, scale, e_post)
    kk = M - k
    m = kk != k
    uc, us = r2 * (tc - ts), -r2 * (tc + ts)
    _dct2_emit(y, N, kk[m], V_of(zj[:, m], zk[:, m], -wc[m], ws[m]), uc[m], us[m],
               dst, scale, e_post)
    return y


def _load3(xr, N, m, dst, e0):
    v = xr[:, (N - 1 - m) if dst else m]
    return v * np.where(m == 0, e0, 1.0)


def k_dct3_pre(xr, N, B, dst, scale, e_pre, e_post):
    k = np.arange(N // 2 + 1)
    a = _load3(xr, N, k, dst, e_pre) * scale
    b = np.where(k == 0, 0.0, _load3(xr, N, np.where(k == 0, 1 % N, N - k) % N,
                                     dst, e_pre) * scale)
    c, s = _expm(k, 2 * N)
    s = -s
    return (c * a + s * b) + 1j * (s * a - c * b)


def k_dct3_post(v, N, B, dst, scale, e_pre, e_post):
    y = np.empty((B, N))
    n = np.arange((N + 1) // 2)
    y[:, 2 * n] = v[:, n]
    no = n[2 * n + 1 < N]
    o = v[:, N - 1 - no]
    y[:, 2 * no + 1] = -o if dst else o
    return y


def _load4(xr, N, m, dst):
    return xr[:, (N - 1 - m) if dst else m]


def k_dct4e_pre(xr, N, B, dst, scale, e_pre, e_post):
    M = N // 2
    n = np.arange(M)
    a = _load4(xr, N, 2 * n, dst) * scale + 1j * _load4(xr, N, N - 1 - 2 * n, dst) * scale
    c, s = _expm(4 * n + 1, 4 * N)
    return a * (c + 1j * s)


def k_dct4e_post(Z, N, B, dst, scale, e_pre, e_post):
    y = np.empty((B, N))
    M = N // 2
    n = np.arange(M)
    c, s = _expm(n, N)
    r = Z[:, n] * (c + 1j * s)
    y[:, 2 * n] = 2 * r.real
    y[:, N - 1 - 2 * n] = 2 * r.imag if dst else -2 * r.imag
    return y


def k_dct4o_pre(xr, N, B, dst, scale, e_pre, e_post):
    u = np.zeros((B, 2 * N), complex)
    n = np.arange(N)
    a = _load4(xr, N, n, dst) * scale
    c, s = _expm(n, 2 * N)
    u[:, :N] = a * c + 1j * a * s
    return u


def k_dct4o_post(U, N, B, dst, scale, e_pre, e_post):
    k = np.arange(N)
    c, s = _expm(2 * k + 1, 4 * N)
    r = 2 * (U[:, k].real * c - U[:, k].imag * s)
    return np.where(dst & (k % 2 == 1), -r, r)


def k_dct1_pre(xr, N, B, dst, scale, e_pre, e_post):
    L = 2 * (N - 1)
    j = np.arange(L)
    m = np.where(j < N, j, L - j)
    v = xr[:, m] * scale
    return np.where((m == 0) | (m == N - 1), v * e_pre, v)


def k_dct1_post(E, N, B, dst, scale, e_pre, e_post):
    k = np.arange(N)
    v = E[:, k].real
    return np.where((k == 0) | (k == N - 1), v * e_post, v)


def k_dst1_pre(xr, N, B, dst, scale, e_pre, e_post):
    L = 2 * (N + 1)
    e = np.zeros((B, L))
    j = np.arange(1, N + 1)
    e[:, j] = xr[:, j - 1] * scale
    j = np.arange(N + 2, L)
    e[:, j] = -xr[:, L - j - 1] * scale
    return e


def k_dst1_post(E, N, B, dst, scale, e_pre, e_post):
    return -E[:, 1:N + 1].imag


def _fft(kind, w, n):
    if kind == "R2C":
        return np.fft.rfft(w, axis=-1)
    if kind == "C2R":
        return np.fft.irfft(w, n, axis=-1) * n       # unnormalised, like cuFFT
    return np.fft.fft(w, axis=-1)


def r2r_1d_rows(xr, type, dst, norm, orthogonalize):
    """The recipe on real rows ``xr`` (B, N) -> (B, N)."""
    B, N = xr.shape
    if N == 1:
        return xr * single_point_factor(type, dst, norm, orthogonalize)
    r = r2r_recipe(type, dst, N)
    f = r2r_factors(type, dst, N, norm, orthogonalize)
    pre = globals()["k_" + r.pre]
    post = globals()["k_" + r.post]
    w = pre(xr, N, B, dst, *f)
    if r.kind == "C2C" and r.pre == "dct2_pre":
        w = w[:, 0::2] + 1j * w[:, 1::2]       # the real buffer read as complex pairs
    assert w.shape == (B, r.work_in), (r, w.shape)
    W = _fft(r.kind, w, r.n)
    assert W.shape == (B, r.work_out), (r, W.shape)
    return post(W, N, B, dst, *f)


def r2r_axis(x, axis, type, dst, norm, orthogonalize):
    """The recipe along ``axis`` of a float64/complex128 NumPy array, through
    the same (outer, N, inner) row layout as the kernels (complex input as
    its real view with inner doubled)."""
    x = np.ascontiguousarray(x)
    N = x.shape[axis]
    inner = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
    flat = x.view(np.float64).reshape(-1) if x.dtype.kind == "c" else x.reshape(-1)
    if x.dtype.kind == "c":
        inner *= 2
    rows = _rows(flat, N, inner)
    yr = r2r_1d_rows(rows, type, dst, norm, orthogonalize)
    out = np.empty_like(flat)
    _store_rows(out, yr, N, inner)
    if x.dtype.kind == "c":
        return out.view(x.dtype).reshape(x.shape)
    return out.reshape(x.shape)
