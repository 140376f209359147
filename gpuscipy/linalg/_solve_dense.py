"""Dense factorizations and solves on cuSOLVER/cuBLAS (one matrix per call).

Every routine works on column-major (Fortran-order) device arrays in place;
the callers in ``_solvers`` make the one copy SciPy's overwrite semantics
need. A C-contiguous matrix is the transpose of the same memory read in
Fortran order, which ``solve`` uses to skip a transposed copy (factor
``A^T`` and solve with ``trans``).

The reciprocal condition number (cuSOLVER has no ?gecon) is estimated with
a fixed, sync-free variant of Hager's 1-norm estimator (Hager 1984,
"Condition estimates", SIAM J. Sci. Stat. Comput. 5; Higham 1988, ACM TOMS
14): ``||A^-1 x||_1`` for ``x = 1/n``, one step to the unit vector picked by
``A^-H sign(A^-1 x)``, and Higham's alternating-sign vector. Three extra
triangular-solve pairs, O(n^2) each, all on the device; one read back.
"""


import numpy

import gpuscipy_core as gp

__all__ = ["concurrent", "getrf", "getrs", "lu_solve_noperm", "potrf", "potrs", "trsm",
           "rcond_from_lu",
           "OP_N", "OP_T", "OP_C"]

OP_N, OP_T, OP_C = 0, 1, 2
_params = {}


def _libs():
    from gpuscipy_core import libs
    return libs


def _cusolver():
    from gpuscipy_core.libs import cusolver
    return cusolver


def _cublas():
    from gpuscipy_core.libs import cublas
    return cublas


def _dn_params():
    cs = _cusolver()
    dev = gp.cuda.Device().id if hasattr(gp.cuda, "Device") else 0
    p = _params.get(dev)
    if p is None:
        p = _params[dev] = cs.cusolverDnCreateParams()
    return p


def _workspace(dbytes, hbytes):
    """Device and host workspaces (at least one byte each) of a cuSOLVER
    64-bit API call, from its ``_bufferSize`` answer."""
    return (gp.empty(max(int(dbytes), 1), numpy.uint8),
            numpy.empty(max(int(hbytes), 1), numpy.uint8))


def _nrhs(b):
    """Number of right-hand sides of ``b`` ((n,) or (n, k))."""
    return 1 if b.ndim == 1 else b.shape[1]


def _ld(a):
    """Leading dimension of a 2-D (or 1-D) device array as cuBLAS/cuSOLVER
    read it: an array with unit row stride is column-major (ld = its column
    stride); a C-ordered square matrix is read as its column-major transpose
    (ld = its row stride), which is how ``_solvers`` passes ``a^T`` without
    a copy."""
    if a.ndim == 1:
        return max(a.shape[0], 1)
    it = a.itemsize
    if a.strides[0] == it or a.shape[0] == 1:
        return max(a.strides[1] // it, 1) if a.shape[1] > 1 else max(a.shape[0], 1)
    return max(a.strides[0] // it, 1)


def _op(trans):
    cb = _cublas()
    return (cb.CUBLAS_OP_N, cb.CUBLAS_OP_T, cb.CUBLAS_OP_C)[trans]


def _fill(lower):
    cb = _cublas()
    return cb.CUBLAS_FILL_MODE_LOWER if lower else cb.CUBLAS_FILL_MODE_UPPER


def getrf(a):
    """LU of the F-ordered square ``a`` in place (cuSOLVER ``Xgetrf``).
    Returns ``(ipiv, info)``: int64 1-based pivots and a device int32 info
    (one element). (Our tournament-pivoting LU was 1.7-2.1x slower at
    n = 4096 on an H200 and is gone: docs/linalg.md.)
    """
    libs, cs = _libs(), _cusolver()
    h = libs.get_handle("cusolver")
    params = _dn_params()
    n = a.shape[0]
    dt = libs.cuda_data_type(a.dtype)
    dbytes, hbytes = cs.cusolverDnXgetrf_bufferSize(h, params, n, n, dt, a.ptr, _ld(a), dt)
    dwork, hwork = _workspace(dbytes, hbytes)
    ipiv = gp.empty((n,), numpy.int64)
    info = gp.empty((1,), numpy.int32)
    cs.cusolverDnXgetrf(h, params, n, n, dt, a.ptr, _ld(a), ipiv.ptr, dt, dwork.ptr,
                        int(dbytes), hwork.ctypes.data, int(hbytes), info.ptr)
    return ipiv, info


def getrs(lu, ipiv, b, trans=OP_N):
    """Solve with getrf's factor in place in F-ordered ``b`` ((n,) or (n, k)).

    cuSOLVER ``Xgetrs``; one right-hand side at ``TRSM_MIN_N <= n <=
    _lu_perm.MAX_N`` as the permutation and two cuBLAS trsm
    (:func:`_getrs_trsm`).
    """
    n = lu.shape[0]
    nrhs = _nrhs(b)
    if n == 0 or nrhs == 0:
        return b
    from . import _lu_perm
    if nrhs == 1 and TRSM_MIN_N <= n <= _lu_perm.MAX_N:
        return _getrs_trsm(lu, _lu_perm.lu_perm_cached(ipiv), b, trans)
    libs, cs = _libs(), _cusolver()
    h = libs.get_handle("cusolver")
    dt = libs.cuda_data_type(lu.dtype)
    info = gp.empty((1,), numpy.int32)
    cs.cusolverDnXgetrs(h, _dn_params(), _op(trans), n, nrhs, dt, lu.ptr, _ld(lu),
                        ipiv.ptr, dt, b.ptr, _ld(b), info.ptr)
    return b


# One right-hand side from this order on: the permutation, then cuBLAS
# trsm per triangle. H200, n = 4096 float64 (tools/probes/trsv_probe.py):
# cuSOLVER getrs of one column 1.09 ms (OP_N) / 1.29 ms (OP_T); cuBLAS trsm
# of one column 0.23 ms (L) / 0.27 (U) / 0.33 (U^T) / 0.28 (L^T), so the
# pair plus the permutation (one thread's chain of n swaps, ~0.1 ms, cached
# per factor, ``_lu_perm``) is about half of getrs.
TRSM_MIN_N = 512


def _getrs_trsm(lu, perm, b, trans):
    """``getrs`` of one column as the permutation and two cuBLAS trsm:
    ``x = U^-1 L^-1 P b`` (OP_N) or ``x = P^T L^-op U^-op b``."""
    v = b.reshape(b.shape[0]) if b.ndim == 2 else b
    if trans == OP_N:
        w = gp.take(v, perm, mode="clip")          # (P b)[i] = b[perm[i]]
        lu_solve_noperm(lu, w, OP_N)
        v[...] = w
    else:
        w = v.copy()
        lu_solve_noperm(lu, w, trans)
        gp.put(v, perm, w, mode="clip")            # x[perm[i]] = w[i]
    return b


def lu_solve_noperm(lu, b, trans=OP_N):
    """``(L U)^-1 b`` (OP_N) or ``(L U)^-op b`` in place in F-ordered ``b``
    with getrf's factors and without its row permutation: the two cuBLAS
    triangular solves. The 1-norm condition estimate uses it: ``||A^-1||_1
    = ||(L U)^-1 P||_1 = ||(L U)^-1||_1`` (a permutation of columns leaves
    the column sums alone), so its solves skip the permutation."""
    if trans == OP_N:
        trsm(lu, b, True, OP_N, unit=True)
        trsm(lu, b, False, OP_N)
    else:
        trsm(lu, b, False, trans)
        trsm(lu, b, True, trans, unit=True)
    return b


def potrf(a, lower):
    """Cholesky of the F-ordered ``a`` in place (triangle ``lower``). Returns info."""
    libs, cs = _libs(), _cusolver()
    h = libs.get_handle("cusolver")
    params = _dn_params()
    n = a.shape[0]
    dt = libs.cuda_data_type(a.dtype)
    uplo = _fill(lower)
    dbytes, hbytes = cs.cusolverDnXpotrf_bufferSize(h, params, uplo, n, dt, a.ptr,
                                                    _ld(a), dt)
    dwork, hwork = _workspace(dbytes, hbytes)
    info = gp.empty((1,), numpy.int32)
    cs.cusolverDnXpotrf(h, params, uplo, n, dt, a.ptr, _ld(a), dt, dwork.ptr,
                        int(dbytes), hwork.ctypes.data, int(hbytes), info.ptr)
    return info


def potrs(c, b, lower):
    """Solve with potrf's factor in place in F-ordered ``b``."""
    libs, cs = _libs(), _cusolver()
    h = libs.get_handle("cusolver")
    n = c.shape[0]
    nrhs = _nrhs(b)
    if n == 0 or nrhs == 0:
        return b
    dt = libs.cuda_data_type(c.dtype)
    info = gp.empty((1,), numpy.int32)
    cs.cusolverDnXpotrs(h, _dn_params(), _fill(lower), n, nrhs, dt, c.ptr, _ld(c), dt,
                        b.ptr, _ld(b), info.ptr)
    return b


def _prefix(dtype):
    """BLAS/LAPACK type letter of a LAPACK dtype (S, D, C, Z)."""
    return {"f": "S", "d": "D", "F": "C", "D": "Z"}[numpy.dtype(dtype).char]


def _cublas_fn(stem):
    cb = _cublas()
    f = getattr(cb, stem + "_v2", None) or getattr(cb, stem)
    return f


def trsm(a, b, lower, trans=OP_N, unit=False):
    """``op(a) x = b`` for triangular F-ordered ``a``, in place in F-ordered ``b``."""
    libs, cb = _libs(), _cublas()
    h = libs.get_handle("cublas")
    m = a.shape[0]
    nrhs = _nrhs(b)
    if m == 0 or nrhs == 0:
        return b
    alpha = numpy.ones(1, a.dtype)
    f = _cublas_fn(f"cublas{_prefix(a.dtype)}trsm")
    f(h, cb.CUBLAS_SIDE_LEFT, _fill(lower), _op(trans),
      cb.CUBLAS_DIAG_UNIT if unit else cb.CUBLAS_DIAG_NON_UNIT, m, nrhs,
      alpha.ctypes.data, a.ptr, _ld(a), b.ptr, _ld(b))
    return b


# ------------------------------------------------------------ conditioning

def _sign(y):
    if y.dtype.kind == "c":
        ay = gp.abs(y)
        safe = gp.where(ay == 0, 1, ay)
        return gp.where(ay == 0, 1, y / safe).astype(y.dtype)
    return gp.where(y >= 0, 1, -1).astype(y.dtype)


def estimator_vectors(n, dtype):
    """The two starting vectors: ``1/n`` and Higham's alternating-sign vector,
    as the two columns of an (n, 2) F-ordered array."""
    v = gp.empty((n, 2), dtype, order="F")
    v[:, 0] = 1.0 / n
    i = gp.arange(n, dtype=numpy.float64)
    sgn = 1 - 2 * (i % 2)
    v[:, 1] = (sgn * (1 + i / max(n - 1, 1))).astype(dtype)
    return v


_side = {}


def concurrent(jobs, join=None):
    """Run the callables ``jobs`` (each queueing device work) at once: the
    first on the current stream, the others on side streams of the device
    that wait for the work queued so far; the current stream then waits
    for the first ``join`` of them (default all). Returns the completion
    events of the others, for :func:`wait_for` later.

    For latency-bound work that leaves most SMs idle, such as cuSOLVER's
    triangular solves with one right-hand side: on an H200 at n = 4096
    float64, three ``getrs`` of one column on three streams take 1.43 ms,
    one ``getrs`` of the three columns 2.74-3.64 ms, one column 1.40 ms.
    """
    from gpuscipy_core.cuda import Event, Stream, get_current_stream, get_device_id
    main = get_current_stream()
    dev = get_device_id()
    side = _side.get(dev)
    if side is None or len(side) < len(jobs) - 1:
        side = _side[dev] = [Stream(non_blocking=True) for _ in range(max(2, len(jobs) - 1))]
    start = Event(disable_timing=True)
    start.record(main)
    ends = []
    for stream, job in zip(side, jobs[1:]):
        stream.wait_event(start)
        with stream:
            job()
        ends.append(stream.record(Event(disable_timing=True)))
    jobs[0]()
    join = len(jobs) if join is None else join
    for e in ends[:max(join - 1, 0)]:
        main.wait_event(e)
    return ends[max(join - 1, 0):]


def wait_for(events):
    """Make the current stream wait for ``events`` (from :func:`concurrent`)."""
    from gpuscipy_core.cuda import get_current_stream
    main = get_current_stream()
    for e in events:
        main.wait_event(e)


def rcond_from_lu(anorm, y, solve_n, solve_h):
    """Device 0-d reciprocal condition estimate.

    Parameters
    ----------
    anorm : 0-d device array, ``||A||_1``
    y : (n, 2) device array, ``A^-1`` applied to ``estimator_vectors``
    solve_n, solve_h : callables, (n,) F vector -> ``A^-1 v`` / ``A^-H v``
    """
    n = y.shape[0]
    real = numpy.dtype(y.dtype.char.lower())
    y1, y3 = y[:, 0], y[:, 1]
    est1 = gp.abs(y1).sum()
    est3 = gp.abs(y3).sum() * (2.0 / (3 * n))
    z = solve_h(_sign(y1).copy())
    j = gp.abs(z).argmax()
    e = (gp.arange(n) == j).astype(y.dtype)
    y2 = solve_n(e)
    est2 = gp.abs(y2).sum()
    est = gp.maximum(gp.maximum(est1, est2), est3)
    rc = gp.where(anorm == 0, 0.0, 1.0 / (est * anorm))
    return gp.where(est == 0, 0.0, rc).astype(real)
