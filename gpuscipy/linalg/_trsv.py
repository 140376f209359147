"""LU solves with a few right-hand sides: one launch per triangle.

cuSOLVER's ``Xgetrs`` takes 1.3-1.5 ms for one right-hand side at
n = 4096 on an H200 (three of them are most of what ``solve`` adds to
``getrf``: the solution and the condition estimate's two solves). The
kernels of ``_trsv.cuh`` do each triangle in one launch of blocks that
chain through flags (decoupled look-back), and fold the row permutation
into the first triangle's reads or the second one's writes.

Opt-in (``GPUSCIPY_GETRS=kernel``) until measured on the GPU; ``model_getrs``
is a NumPy model of the same blocked algorithm (tiles, padding, gather and
scatter, the three ``trans`` modes) that the CPU tests check against SciPy.
"""

import functools
import os
import threading

import numpy

from gpuscipy_core._kernel._nvrtc import read_source

from ._misc import LAPACK_CHARS, device_types

__all__ = ["MAX_N", "MAX_NRHS", "enabled", "available", "block_size",
           "trsv_source", "perm_source", "lu_perm", "lu_perm_cached", "trsv", "getrs",
           "model_perm", "model_getrs"]

MAX_N = 8192            # the permutation kernel's shared index array
MAX_NRHS = 4
THREADS = 256
_HERE = os.path.dirname(os.path.abspath(__file__))


def enabled():
    """Whether ``_solve_dense.getrs`` uses these kernels (``GPUSCIPY_GETRS``)."""
    return os.environ.get("GPUSCIPY_GETRS", "") == "kernel"


def available(n, nrhs, dtype):
    """Whether an (n, nrhs) solve of ``dtype`` fits these kernels."""
    return (1 <= n <= MAX_N and 1 <= nrhs <= MAX_NRHS
            and numpy.dtype(dtype).char in LAPACK_CHARS)


def block_size(dtype):
    """Rows per block: 64, or 32 for complex128 (the shared tile)."""
    return 32 if numpy.dtype(dtype).itemsize == 16 else 64


def _header():
    return read_source(os.path.join(_HERE, "_trsv.cuh"))


def _check(dtype, nrhs, trans):
    dt = numpy.dtype(dtype)
    if dt.char not in LAPACK_CHARS:
        raise TypeError(f"trsv: unsupported dtype {dt}")
    if not 1 <= nrhs <= MAX_NRHS:
        raise ValueError(f"trsv: nrhs must be in [1, {MAX_NRHS}], got {nrhs}")
    if trans not in (0, 1, 2):
        raise ValueError(f"trsv: trans must be 0, 1 or 2, got {trans!r}")
    return dt


@functools.lru_cache(maxsize=None)
def trsv_source(dtype, nrhs, lower, trans, unit):
    """``(source, name)`` of one triangular-solve kernel (pure; launch
    ``THREADS`` threads, one block per ``block_size`` rows)."""
    dt = _check(dtype, nrhs, trans)
    T = device_types(dt)[0]
    bs = block_size(dt)
    name = (f"gs_trsv_{dt.char}_r{nrhs}_{'l' if lower else 'u'}_t{trans}"
            f"_{'unit' if unit else 'diag'}")
    b = lambda v: "true" if v else "false"  # noqa: E731
    src = f"""{_header()}

extern "C" __global__ void __launch_bounds__({THREADS})
{name}(const {T}* a, long long lda, int n, const {T}* b, long long ldb,
       const int* gather, {T}* xs, {T}* out, long long ldo, const int* scatter,
       int* flags, int* ticket)
{{
  gstrsv::trsv_body<{T}, {bs}, {nrhs}, {b(lower)}, {trans}, {b(unit)}>(
      a, lda, n, b, ldb, gather, xs, out, ldo, scatter, flags, ticket);
}}
"""
    return src, name


def perm_source():
    """``(source, name)`` of the swap-sequence-to-permutation kernel."""
    return _header(), "gs_lu_perm"


def _ld(x):
    from ._solve_dense import _ld as ld
    return ld(x)


def lu_perm(ipiv):
    """int32 device permutation of getrf's 1-based int64 swap sequence:
    ``(P b)[i] = b[perm[i]]`` (one block; n <= MAX_N)."""
    import gpuscipy_core as gp
    from gpuscipy_core._kernel import get_function
    n = ipiv.shape[0]
    if n > MAX_N:
        raise ValueError(f"lu_perm: n must be <= {MAX_N}, got {n}")
    if numpy.dtype(ipiv.dtype) != numpy.int64:
        raise TypeError(f"lu_perm: ipiv must be int64, got {ipiv.dtype}")
    perm = gp.empty((n,), numpy.int32)
    if n:
        f = get_function(*perm_source())
        f((1, 1, 1), (THREADS, 1, 1), (ipiv.ptr, numpy.int32(n), perm.ptr))
    return perm


_last = threading.local()


def lu_perm_cached(ipiv):
    """``lu_perm(ipiv)``, reused while the same ``ipiv`` object comes back on
    the same stream (solve's three getrs calls share one factor; the
    permutation kernel is one thread's chain of n swaps, ~0.1 ms at
    n = 4096). getrf's pivots are never modified in place, and the cache
    holds ``ipiv`` so its identity cannot be reused."""
    from gpuscipy_core._cuda._stream import get_current_stream_ptr
    stream = get_current_stream_ptr()
    hit = getattr(_last, "entry", None)
    if hit is not None and hit[0] is ipiv and hit[1] == stream:
        return hit[2]
    perm = lu_perm(ipiv)
    if stream == 0:
        # only the legacy stream's: a permutation allocated on a side stream
        # (solve's solution runs on one) and cached until exit was freed at
        # interpreter teardown on a stream already gone (SIGSEGV at exit)
        _last.entry = (ipiv, stream, perm)
    return perm


def trsv(a, lower, trans, unit, b, gather=None, out=None, scatter=None):
    """Solve ``M x = b`` for the triangle ``M`` of the column-major ``a``.

    Parameters
    ----------
    a : device array (n, n), unit row stride (``_solve_dense._ld``)
    lower : bool
        ``M`` (after ``trans``) is lower triangular (forward substitution).
    trans : {0, 1, 2}
        ``M = a``'s triangle, its transpose, or its conjugate transpose.
    unit : bool
        Unit diagonal (not read).
    b : device array, (n,) or (n, k) column-major, k <= MAX_NRHS
    gather, scatter : int32 device arrays (n,), optional
        Read ``b[gather[i]]`` as row i; write row i of x to ``out[scatter[i]]``.
    out : device array like ``b``, optional
        Where x goes (besides the returned work array).

    Returns
    -------
    xs : device array (k, n): x, unpermuted (row ``j`` is right-hand side j).
    """
    import gpuscipy_core as gp
    from gpuscipy_core._kernel import get_function
    n = a.shape[0]
    k = 1 if b.ndim == 1 else b.shape[1]
    dt = _check(a.dtype, k, trans)
    xs = gp.empty((k, n), dt)
    if n == 0:
        return xs
    bs = block_size(dt)
    nblk = -(-n // bs)
    sync = gp.zeros((nblk + 1,), numpy.int32)    # flags, then the ticket
    f = get_function(*trsv_source(dt, k, bool(lower), trans, bool(unit)))
    f((nblk, 1, 1), (THREADS, 1, 1),
      (a.ptr, numpy.int64(_ld(a)), numpy.int32(n), b.ptr, numpy.int64(_ld(b)),
       0 if gather is None else gather.ptr, xs.ptr,
       0 if out is None else out.ptr, numpy.int64(_ld(out) if out is not None else 0),
       0 if scatter is None else scatter.ptr, sync.ptr, sync.ptr + 4 * nblk))
    return xs


def getrs(lu, perm, b, trans=0):
    """``getrs`` in place on the column-major ``b`` ((n,) or (n, k)).

    ``lu``/``perm``: getrf's factor (``P A = L U``) and ``lu_perm(ipiv)``.
    ``trans`` 0: ``A x = b`` (x = U^-1 L^-1 P b); 1 or 2: ``A^T x = b`` or
    ``A^H x = b`` (x = P^T L^-T U^-T b, conjugated for 2).
    """
    if trans == 0:
        y = trsv(lu, True, 0, True, b, gather=perm)
        trsv(lu, False, 0, False, y.T, out=b)
    else:
        y = trsv(lu, True, trans, False, b)
        trsv(lu, False, trans, True, y.T, out=b, scatter=perm)
    return b


# ----------------------------------------------------------- NumPy model

def model_perm(ipiv):
    """NumPy model of ``gs_lu_perm`` (1-based ``ipiv``)."""
    p = numpy.arange(len(ipiv))
    for i, j in enumerate(numpy.asarray(ipiv) - 1):
        p[i], p[j] = p[j], p[i]
    return p


def _model_trsv(a, lower, trans, unit, b, bs, gather=None, scatter=None, out=None):
    """NumPy model of one ``trsv_body`` launch, block by block in ticket
    order: tiles with zero padding, Q partial sums per row, the diagonal
    tile by substitution, padding rows solved to 0."""
    n = a.shape[0]
    k = b.shape[1]
    q = THREADS // bs
    nblk = -(-n // bs)
    npad = nblk * bs
    m = numpy.zeros((npad, npad), a.dtype)
    m[:n, :n] = a if trans == 0 else (a.T if trans == 1 else a.T.conj())
    rhs = numpy.zeros((npad, k), a.dtype)
    rhs[:n] = b[gather] if gather is not None else b
    xs = numpy.zeros((npad, k), a.dtype)
    for t in range(nblk):
        r = t if lower else nblk - 1 - t
        rows = slice(r * bs, (r + 1) * bs)
        part = numpy.zeros((q, bs, k), a.dtype)
        for s in range(t):
            c = s if lower else nblk - 1 - s
            tile = m[rows, c * bs:(c + 1) * bs]
            xc = xs[c * bs:(c + 1) * bs]
            for g in range(q):
                cols = slice(g * (bs // q), (g + 1) * (bs // q))
                part[g] += tile[:, cols] @ xc[cols]
        v = rhs[rows] - part.sum(axis=0)
        d = m[rows, rows]
        order = range(bs) if lower else range(bs - 1, -1, -1)
        for j in order:
            if r * bs + j >= n:
                v[j] = 0
                continue
            if not unit:
                v[j] = v[j] / d[j, j]
            below = slice(j + 1, bs) if lower else slice(0, j)
            v[below] -= numpy.outer(d[below, j], v[j])
        xs[rows] = v
    x = xs[:n]
    if out is not None:
        if scatter is not None:
            out[scatter] = x
        else:
            out[...] = x
    return x


def model_getrs(lu, ipiv, b, trans=0):
    """NumPy model of ``getrs`` (``b``: (n,) or (n, k)); returns x."""
    b2 = numpy.array(b, copy=True).reshape(lu.shape[0], -1)
    perm = model_perm(ipiv)
    bs = block_size(lu.dtype)
    out = numpy.empty_like(b2)
    # the packed factor, as the kernels read it: each solve must touch only
    # its own triangle (and the diagonal only when not unit)
    if trans == 0:
        y = _model_trsv(lu, True, 0, True, b2, bs, gather=perm)
        _model_trsv(lu, False, 0, False, y, bs, out=out)
    else:
        y = _model_trsv(lu, True, trans, False, b2, bs)
        _model_trsv(lu, False, trans, True, y, bs, scatter=perm, out=out)
    return out.reshape(numpy.shape(b))
