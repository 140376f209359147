"""cuSOLVER / cuBLAS calls of gpuscipy.linalg's decompositions.

Every vendor call of ``_decomp`` goes through this module, one function per
LAPACK-like routine, so that argument conventions of
``gpuscipy_core.libs`` live in one place. Matrices are F-ordered device
arrays (what cuSOLVER expects); each function overwrites its inputs as the
LAPACK routine does and returns the new arrays plus a device ``info``.

Libraries are imported lazily: importing gpuscipy.linalg loads nothing.
"""

import threading

import numpy

import gpuscipy_core as gp

from ._misc import LinAlgError
from ._solve_dense import _dn_params as _params, _prefix

__all__ = ["fortran_copy", "gemm", "matmul", "geqrf", "orgqr", "gesvd", "syevd",
           "syevdx", "sygvd", "sygvdx", "syevj_batched", "gesvdj_batched",
           "gemm_strided_batched", "bmm", "getrf_solve", "getrf_solve_batched",
           "geev", "read_info", "JACOBI_MAX_N"]

# cuSOLVER's limit of syevjBatched (n) and gesvdjBatched (m, n)
JACOBI_MAX_N = 32
# matrices per syevjBatched/gesvdjBatched call (keeps int offsets and the
# workspace bounded)
_JACOBI_CHUNK = 1 << 16

_tls = threading.local()


def _libs():
    import gpuscipy_core.libs as libs
    return libs


def _cusolver():
    from gpuscipy_core.libs import cusolver
    return cusolver


def _handle():
    return _libs().get_handle("cusolver")


def _dt(dtype):
    return _libs().cuda_data_type(numpy.dtype(dtype))


def _dwork(nbytes):
    return gp.empty((max(int(nbytes), 1),), numpy.uint8)


def _hwork(nbytes):
    return numpy.empty(max(int(nbytes), 1), numpy.uint8)


def read_info(info):
    """Host copy of a device ``info`` array (one synchronisation)."""
    return gp.asnumpy(info)


def fortran_copy(a, dtype=None):
    """A new F-ordered copy of the 2-D ``a`` (cast to ``dtype``)."""
    return a.astype(dtype or a.dtype, order="F", copy=True)


def _layout(x):
    """(ld, transposed) when the 2-D ``x`` is usable by BLAS without a copy."""
    m, n = x.shape
    it = x.itemsize
    s0, s1 = x.strides
    if (s0 == it or m == 1) and s1 % it == 0 and s1 // it >= max(m, 1) and s1 > 0:
        return s1 // it, False
    if (s1 == it or n == 1) and s0 % it == 0 and s0 // it >= max(n, 1) and s0 > 0:
        return s0 // it, True
    return None, None


def gemm(a, b, op_a="N", op_b="N", alpha=1, beta=0, out=None):
    """``alpha op(a) @ op(b) + beta out`` on cuBLAS; op in 'N', 'T', 'C'.

    ``a`` and ``b`` are 2-D device arrays of one dtype (float32/64,
    complex64/128), any layout. Returns an F-ordered result (``out`` when
    given: it must be F-contiguous).
    """
    dt = a.dtype
    ops = {"N": 0, "T": 1, "C": 2}

    def prep(x, op):
        ld, tr = _layout(x)
        if ld is None or (tr and op == "C" and dt.kind == "c"):
            x = x.copy(order="F")
            ld, tr = max(1, x.shape[0]), False
        if tr:
            # the buffer is x^T in F order
            op = {"N": "T", "T": "N", "C": "C"}[op]
            if op == "C":   # real: conj transpose == transpose
                op = "N"
        return x, ld, op

    m = a.shape[1] if op_a != "N" else a.shape[0]
    k = a.shape[0] if op_a != "N" else a.shape[1]
    n = b.shape[0] if op_b != "N" else b.shape[1]
    if out is None:
        out = gp.zeros((m, n), dt, order="F") if beta == 0 else None
    if m == 0 or n == 0:
        return out
    if k == 0:
        if beta == 0:
            out.fill(0)
        else:
            out *= beta
        return out
    a, lda, op_a = prep(a, op_a)
    b, ldb, op_b = prep(b, op_b)
    libs = _libs()
    from gpuscipy_core.libs import cublas
    h = libs.get_handle("cublas")
    al = numpy.array([alpha], dt)
    be = numpy.array([beta], dt)
    f = getattr(cublas, f"cublas{_prefix(dt)}gemm_v2")
    f(h, ops[op_a], ops[op_b], m, n, k, al.ctypes.data, a.ptr, lda, b.ptr, ldb,
      be.ctypes.data, out.ptr, max(1, out.strides[1] // out.itemsize))
    return out


def matmul(a, b, op_a="N", op_b="N"):
    """``op(a) @ op(b)`` for 2-D device arrays of one LAPACK dtype."""
    return gemm(a, b, op_a, op_b)


# ---- QR ----------------------------------------------------------------------
def geqrf(a):
    """QR of the F-ordered ``a`` (m, n) in place; returns (tau, info)."""
    cs = _cusolver()
    m, n = a.shape
    dt = a.dtype
    k = min(m, n)
    tau = gp.empty((max(k, 1),), dt)
    info = gp.zeros((1,), numpy.int32)
    lda = max(1, m)
    h, p, t = _handle(), _params(), _dt(dt)
    dbytes, hbytes = cs.cusolverDnXgeqrf_bufferSize(h, p, m, n, t, a.ptr, lda, t,
                                                     tau.ptr, t)
    dw, hw = _dwork(dbytes), _hwork(hbytes)
    cs.cusolverDnXgeqrf(h, p, m, n, t, a.ptr, lda, t, tau.ptr, t, dw.ptr, dbytes,
                        hw.ctypes.data, hbytes, info.ptr)
    return tau[:k], info


def orgqr(q, tau, k):
    """Form Q (m, n) in place from ``k`` reflectors stored in ``q``."""
    cs = _cusolver()
    m, n = q.shape
    dt = q.dtype
    name = "orgqr" if dt.kind == "f" else "ungqr"
    pre = f"cusolverDn{_prefix(dt)}{name}"
    h = _handle()
    info = gp.zeros((1,), numpy.int32)
    lda = max(1, m)
    lwork = getattr(cs, pre + "_bufferSize")(h, m, n, k, q.ptr, lda, tau.ptr)
    work = gp.empty((max(int(lwork), 1),), dt)
    getattr(cs, pre)(h, m, n, k, q.ptr, lda, tau.ptr, work.ptr, int(lwork), info.ptr)
    return info


# ---- SVD ---------------------------------------------------------------------
def gesvd(a, job):
    """SVD of the F-ordered ``a`` (m >= n) in place, job in 'A', 'S', 'N'.

    Returns (u, s, vt, info); u and vt are None for job 'N'.
    """
    cs = _cusolver()
    m, n = a.shape
    dt = a.dtype
    rdt = numpy.dtype(dt.char.lower())
    k = min(m, n)
    s = gp.empty((k,), rdt)
    if job == "A":
        u = gp.empty((m, m), dt, order="F")
        vt = gp.empty((n, n), dt, order="F")
    elif job == "S":
        u = gp.empty((m, k), dt, order="F")
        vt = gp.empty((k, n), dt, order="F")
    else:
        u = vt = None
    ldu = max(1, m)
    ldvt = max(1, n if job == "A" else k)
    uptr = u.ptr if u is not None else 0
    vptr = vt.ptr if vt is not None else 0
    info = gp.zeros((1,), numpy.int32)
    h, p, t, tr = _handle(), _params(), _dt(dt), _dt(rdt)
    jb = ord(job)
    dbytes, hbytes = cs.cusolverDnXgesvd_bufferSize(
        h, p, jb, jb, m, n, t, a.ptr, max(1, m), tr, s.ptr, t, uptr, ldu, t, vptr,
        ldvt, t)
    dw, hw = _dwork(dbytes), _hwork(hbytes)
    cs.cusolverDnXgesvd(h, p, jb, jb, m, n, t, a.ptr, max(1, m), tr, s.ptr, t, uptr,
                        ldu, t, vptr, ldvt, t, dw.ptr, dbytes, hw.ctypes.data, hbytes,
                        info.ptr)
    return u, s, vt, info


# ---- symmetric / Hermitian eigenproblems ---------------------------------------
def _lda(a):
    """Leading dimension of the F-ordered (n, n) ``a`` (at least 1)."""
    n = a.shape[0]
    return max(1, a.strides[1] // a.itemsize) if a.ndim == 2 and n > 1 else max(1, n)


def _jobz_uplo(cs, vectors, lower):
    """cuSOLVER's jobz (eigenvectors or not) and uplo (triangle read)."""
    jobz = cs.CUSOLVER_EIG_MODE_VECTOR if vectors else cs.CUSOLVER_EIG_MODE_NOVECTOR
    uplo = cs.CUBLAS_FILL_MODE_LOWER if lower else cs.CUBLAS_FILL_MODE_UPPER
    return jobz, uplo


def _eig_type(cs, itype):
    """cuSOLVER's eigen type of the generalized problem (SciPy's ``type``
    1: A x = w B x, 2: A B x = w x, 3: B A x = w x)."""
    return {1: cs.CUSOLVER_EIG_TYPE_1, 2: cs.CUSOLVER_EIG_TYPE_2,
            3: cs.CUSOLVER_EIG_TYPE_3}[itype]


def syevd(a, lower, vectors):
    """Eigen-decomposition of the F-ordered Hermitian ``a`` in place.

    Returns (w, info); with ``vectors`` the columns of ``a`` are the
    eigenvectors on return.
    """
    cs = _cusolver()
    n = a.shape[0]
    dt = a.dtype
    rdt = numpy.dtype(dt.char.lower())
    w = gp.empty((n,), rdt)
    info = gp.zeros((1,), numpy.int32)
    h, p, t, tr = _handle(), _params(), _dt(dt), _dt(rdt)
    jobz, uplo = _jobz_uplo(cs, vectors, lower)
    lda = _lda(a)
    dbytes, hbytes = cs.cusolverDnXsyevd_bufferSize(h, p, jobz, uplo, n, t, a.ptr, lda,
                                                     tr, w.ptr, t)
    dw, hw = _dwork(dbytes), _hwork(hbytes)
    cs.cusolverDnXsyevd(h, p, jobz, uplo, n, t, a.ptr, lda, tr, w.ptr, t, dw.ptr,
                        dbytes, hw.ctypes.data, hbytes, info.ptr)
    return w, info


def syevdx(a, lower, vectors, index=None, value=None):
    """Selected eigenpairs of the F-ordered Hermitian ``a`` in place (Xsyevdx).

    ``index=(lo, hi)``: eigenvalues lo..hi (0-based, inclusive);
    ``value=(vl, vu)``: the eigenvalues in the half-open interval (vl, vu]
    (finite bounds). Returns (w, meig, info): ``w[:meig]`` ascending, and
    with ``vectors`` the first ``meig`` columns of ``a`` are the vectors.
    """
    cs = _cusolver()
    n = a.shape[0]
    dt = a.dtype
    rdt = numpy.dtype(dt.char.lower())
    w = gp.empty((max(n, 1),), rdt)
    info = gp.zeros((1,), numpy.int32)
    h, p, t, tr = _handle(), _params(), _dt(dt), _dt(rdt)
    jobz, uplo = _jobz_uplo(cs, vectors, lower)
    # vl/vu are host pointers to values of W's type (read for range V only)
    bounds = numpy.zeros(2, rdt)
    il = iu = 0
    if index is not None:
        rng = cs.CUSOLVER_EIG_RANGE_I
        il, iu = int(index[0]) + 1, int(index[1]) + 1      # 1-based
    else:
        rng = cs.CUSOLVER_EIG_RANGE_V
        bounds[0], bounds[1] = value
    vlp = bounds.ctypes.data
    vup = vlp + rdt.itemsize
    lda = _lda(a)
    _meig, dbytes, hbytes = cs.cusolverDnXsyevdx_bufferSize(
        h, p, jobz, rng, uplo, n, t, a.ptr, lda, vlp, vup, il, iu, tr, w.ptr, t)
    dw, hw = _dwork(dbytes), _hwork(hbytes)
    meig = cs.cusolverDnXsyevdx(h, p, jobz, rng, uplo, n, t, a.ptr, lda, vlp, vup, il,
                                iu, tr, w.ptr, t, dw.ptr, dbytes, hw.ctypes.data, hbytes,
                                info.ptr)
    return w, int(meig), info


def sygvdx(a, b, itype, lower, vectors, index=None, value=None):
    """Selected eigenpairs of the generalized Hermitian-definite problem
    (types 1/2/3) in place ({S,D}sygvdx / {C,Z}hegvdx); ``index``/``value``
    as :func:`syevdx`. Returns (w, meig, info)."""
    cs = _cusolver()
    n = a.shape[0]
    dt = a.dtype
    rdt = numpy.dtype(dt.char.lower())
    w = gp.empty((max(n, 1),), rdt)
    info = gp.zeros((1,), numpy.int32)
    name = "sygvdx" if dt.kind == "f" else "hegvdx"
    pre = f"cusolverDn{_prefix(dt)}{name}"
    h = _handle()
    jobz, uplo = _jobz_uplo(cs, vectors, lower)
    et = _eig_type(cs, itype)
    vl = vu = 0.0
    il = iu = 0
    if index is not None:
        rng = cs.CUSOLVER_EIG_RANGE_I
        il, iu = int(index[0]) + 1, int(index[1]) + 1
    else:
        rng = cs.CUSOLVER_EIG_RANGE_V
        vl, vu = float(value[0]), float(value[1])
    ld = max(1, n)
    _meig, lwork = getattr(cs, pre + "_bufferSize")(h, et, jobz, rng, uplo, n, a.ptr,
                                                    ld, b.ptr, ld, vl, vu, il, iu,
                                                    w.ptr)
    work = gp.empty((max(int(lwork), 1),), dt)
    meig = getattr(cs, pre)(h, et, jobz, rng, uplo, n, a.ptr, ld, b.ptr, ld, vl, vu, il,
                            iu, w.ptr, work.ptr, int(lwork), info.ptr)
    return w, int(meig), info


# ---- batched Jacobi (small matrices) ---------------------------------------------
def _jacobi_params(kind, dt):
    """A cached syevjInfo/gesvdjInfo of this thread, tolerance = eps(dt),
    100 sweeps, sorted output."""
    cache = getattr(_tls, "jacobi", None)
    if cache is None:
        cache = _tls.jacobi = {}
    key = (kind, numpy.dtype(dt).char)
    p = cache.get(key)
    if p is None:
        cs = _cusolver()
        eps = float(numpy.finfo(numpy.dtype(dt).char.lower()).eps)
        if kind == "syevj":
            p = cs.cusolverDnCreateSyevjInfo()
            cs.cusolverDnXsyevjSetTolerance(p, eps)
            cs.cusolverDnXsyevjSetMaxSweeps(p, 100)
            cs.cusolverDnXsyevjSetSortEig(p, 1)
        else:
            p = cs.cusolverDnCreateGesvdjInfo()
            cs.cusolverDnXgesvdjSetTolerance(p, eps)
            cs.cusolverDnXgesvdjSetMaxSweeps(p, 100)
            cs.cusolverDnXgesvdjSetSortEig(p, 1)
        cache[key] = p
    return p


def syevj_batched(a, lower, vectors):
    """Eigen-decomposition of a stack of small Hermitian matrices in place.

    ``a``: (batch, n, n) C-contiguous device array whose matrix ``k`` is
    stored column-major (``a[k]`` read in C order is ``A_k^T``), n <= 32.
    Returns (w (batch, n) ascending, info (batch,) int32 device array);
    with ``vectors`` ``a[k]`` (column-major) holds the eigenvectors.
    ``info[k] = n + 1``: no convergence for matrix ``k``.
    """
    cs = _cusolver()
    batch, n = a.shape[0], a.shape[-1]
    dt = a.dtype
    rdt = numpy.dtype(dt.char.lower())
    w = gp.empty((batch, n), rdt)
    info = gp.zeros((batch,), numpy.int32)
    h = _handle()
    params = _jacobi_params("syevj", dt)
    name = "syevjBatched" if dt.kind == "f" else "heevjBatched"
    pre = f"cusolverDn{_prefix(dt)}{name}"
    jobz, uplo = _jobz_uplo(cs, vectors, lower)
    ld = max(1, n)
    for s in range(0, batch, _JACOBI_CHUNK):
        c = min(_JACOBI_CHUNK, batch - s)
        ap = a.ptr + s * n * n * a.itemsize
        wp = w.ptr + s * n * w.itemsize
        ip = info.ptr + s * 4
        lwork = getattr(cs, pre + "_bufferSize")(h, jobz, uplo, n, ap, ld, wp, params, c)
        work = gp.empty((max(int(lwork), 1),), dt)
        getattr(cs, pre)(h, jobz, uplo, n, ap, ld, wp, work.ptr, int(lwork), ip, params,
                         c)
    return w, info


def gesvdj_batched(a, vectors):
    """SVD of a stack of small matrices (gesvdjBatched), ``a`` destroyed.

    ``a``: (batch, n, m) C-contiguous, matrix ``k`` (m x n) stored
    column-major, m, n <= 32. Returns (s (batch, min(m, n)) descending,
    u (batch, m, m), v (batch, n, n), info): ``u[k]``/``v[k]`` hold U and V
    column-major (``A = U S V^H``); u and v are None without ``vectors``.
    """
    cs = _cusolver()
    batch, n, m = a.shape
    dt = a.dtype
    rdt = numpy.dtype(dt.char.lower())
    k = min(m, n)
    s_ = gp.empty((batch, k), rdt)
    # U and V are allocated even for singular values only (cuSOLVER checks
    # ldu/ldv; small next to A for m, n <= 32)
    u = gp.empty((batch, m, m), dt)
    v = gp.empty((batch, n, n), dt)
    info = gp.zeros((batch,), numpy.int32)
    h = _handle()
    params = _jacobi_params("gesvdj", dt)
    pre = f"cusolverDn{_prefix(dt)}gesvdjBatched"
    jobz = cs.CUSOLVER_EIG_MODE_VECTOR if vectors else cs.CUSOLVER_EIG_MODE_NOVECTOR
    it = a.itemsize
    for st in range(0, batch, _JACOBI_CHUNK):
        c = min(_JACOBI_CHUNK, batch - st)
        ap = a.ptr + st * m * n * it
        sp = s_.ptr + st * k * s_.itemsize
        up = u.ptr + st * m * m * it
        vp = v.ptr + st * n * n * it
        ip = info.ptr + st * 4
        lwork = getattr(cs, pre + "_bufferSize")(h, jobz, m, n, ap, m, sp, up, m, vp, n,
                                                 params, c)
        work = gp.empty((max(int(lwork), 1),), dt)
        getattr(cs, pre)(h, jobz, m, n, ap, m, sp, up, m, vp, n, work.ptr, int(lwork), ip,
                         params, c)
    if not vectors:
        u = v = None
    return s_, u, v, info


# ---- batched products and solves (C-ordered stacks) -------------------------------
def gemm_strided_batched(x, y, out=None):
    """``x @ y`` for C-contiguous stacks (batch, p, q) @ (batch, q, r) with
    cublas{S,D,C,Z}gemmStridedBatched (a stride-0 batch axis broadcasts).

    Column-major BLAS sees each C-ordered matrix transposed, so the call
    computes ``y^T x^T = (x y)^T`` into a C-ordered (batch, p, r) result.
    """
    from gpuscipy_core.libs import cublas
    batch, p, q = x.shape
    r = y.shape[-1]
    dt = x.dtype
    if out is None:
        out = gp.empty((batch, p, r), dt)
    if batch == 0 or p == 0 or r == 0:
        return out
    if q == 0:
        out.fill(0)
        return out
    it = x.itemsize
    sx = 0 if batch == 1 or x.strides[0] == 0 else x.strides[0] // it
    sy = 0 if batch == 1 or y.strides[0] == 0 else y.strides[0] // it
    h = _libs().get_handle("cublas")
    al = numpy.ones(1, dt)
    be = numpy.zeros(1, dt)
    f = getattr(cublas, f"cublas{_prefix(dt)}gemmStridedBatched")
    N = cublas.CUBLAS_OP_N
    f(h, N, N, r, p, q, al.ctypes.data, y.ptr, r, sy, x.ptr, q, sx, be.ctypes.data,
      out.ptr, r, p * r, batch)
    return out


def _c_stack(x, dt):
    """``x`` (batch, p, q) with C-contiguous matrices and a walkable batch axis."""
    if x.dtype != dt:
        x = x.astype(dt)
    it = x.itemsize
    _, p, q = x.shape
    ok = (x.strides[2] == it or q == 1) and (x.strides[1] == q * it or p == 1) and \
        (x.shape[0] == 1 or x.strides[0] == 0 or
         (x.strides[0] % it == 0 and x.strides[0] >= p * q * it))
    return x if ok else x.copy(order="C")


def bmm(x, y):
    """Batched matrix product of (batch, p, q) and (batch, q, r) device stacks."""
    dt = numpy.result_type(x.dtype, y.dtype)
    return gemm_strided_batched(_c_stack(x, dt), _c_stack(y, dt))


def _ptr_array(base, stride_bytes, count):
    """Device array of ``count`` pointers ``base + k * stride_bytes``."""
    ptrs = numpy.arange(count, dtype=numpy.uint64) * numpy.uint64(stride_bytes)
    ptrs += numpy.uint64(base)
    return gp.asarray(ptrs)


def getrf_solve_batched(p_, q_):
    """Solve ``P_k X_k = Q_k`` for C-contiguous (batch, n, n) stacks whose
    matrices COMMUTE (``P`` and ``Q`` polynomials in one matrix, as in
    expm's Pade quotient); ``p_`` is overwritten, the result is new.

    The column-major view of a C-ordered stack is the transpose; with
    commuting P, Q, ``X^T = P^-T Q^T``, so solving ``P^T Y = Q^T`` on the
    column-major views gives ``Y = X^T``, i.e. X in C order. cuBLAS
    getrfBatched/getrsBatched (pointer arrays). Raises LinAlgError when a
    P_k is exactly singular.
    """
    from gpuscipy_core.libs import cublas
    batch, n, _ = p_.shape
    dt = p_.dtype
    x = q_.copy(order="C")
    h = _libs().get_handle("cublas")
    nb = n * n * p_.itemsize
    pa = _ptr_array(p_.ptr, nb, batch)
    xa = _ptr_array(x.ptr, nb, batch)
    piv = gp.empty((batch * n,), numpy.int32)
    info = gp.zeros((batch,), numpy.int32)
    pre = _prefix(dt)
    getattr(cublas, f"cublas{pre}getrfBatched")(h, n, pa.ptr, n, piv.ptr, info.ptr, batch)
    if bool((info > 0).any()):
        raise LinAlgError("Matrix is singular.")
    hinfo = getattr(cublas, f"cublas{pre}getrsBatched")(
        h, cublas.CUBLAS_OP_N, n, n, pa.ptr, n, piv.ptr, xa.ptr, n, batch)
    if hinfo:
        raise ValueError(f"illegal value in {-int(hinfo)}th argument of getrsBatched")
    return x


def sygvd(a, b, itype, lower, vectors):
    """Generalized Hermitian-definite problem (types 1/2/3) in place."""
    cs = _cusolver()
    n = a.shape[0]
    dt = a.dtype
    rdt = numpy.dtype(dt.char.lower())
    w = gp.empty((n,), rdt)
    info = gp.zeros((1,), numpy.int32)
    name = "sygvd" if dt.kind == "f" else "hegvd"
    pre = f"cusolverDn{_prefix(dt)}{name}"
    h = _handle()
    jobz, uplo = _jobz_uplo(cs, vectors, lower)
    et = _eig_type(cs, itype)
    ld = max(1, n)
    lwork = getattr(cs, pre + "_bufferSize")(h, et, jobz, uplo, n, a.ptr, ld, b.ptr,
                                             ld, w.ptr)
    work = gp.empty((max(int(lwork), 1),), dt)
    getattr(cs, pre)(h, et, jobz, uplo, n, a.ptr, ld, b.ptr, ld, w.ptr, work.ptr,
                     int(lwork), info.ptr)
    return w, info


# ---- general eigenproblem --------------------------------------------------------
def geev(a, vectors):
    """Eigenvalues (and right eigenvectors) of the F-ordered ``a`` in place.

    Returns (w complex (n,), vr or None, info). For real ``a`` the vectors
    come in LAPACK's packing and are unpacked to complex here.
    """
    cs = _cusolver()
    n = a.shape[0]
    dt = a.dtype
    real = dt.kind == "f"
    cdt = numpy.dtype(numpy.complex64 if dt.char in "fF" else numpy.complex128)
    info = gp.zeros((1,), numpy.int32)
    # real input: W holds 2n reals (real parts, then imaginary parts)
    w = gp.empty((2 * n,), dt) if real else gp.empty((n,), dt)
    vr = gp.empty((n, n), dt, order="F") if vectors else None
    vptr = vr.ptr if vr is not None else 0
    h, p, t = _handle(), _params(), _dt(dt)
    nov = cs.CUSOLVER_EIG_MODE_NOVECTOR
    jobvr = cs.CUSOLVER_EIG_MODE_VECTOR if vectors else nov
    ld = max(1, n)
    dbytes, hbytes = cs.cusolverDnXgeev_bufferSize(
        h, p, nov, jobvr, n, t, a.ptr, ld, t, w.ptr, t, 0, ld, t, vptr, ld, t)
    dw, hw = _dwork(dbytes), _hwork(hbytes)
    cs.cusolverDnXgeev(h, p, nov, jobvr, n, t, a.ptr, ld, t, w.ptr, t, 0, ld, t, vptr,
                       ld, t, dw.ptr, dbytes, hw.ctypes.data, hbytes, info.ptr)
    if real:
        wr, wi = w[:n], w[n:]
        wc = gp.empty((n,), cdt)
        wc.real[...] = wr
        wc.imag[...] = wi
        if vectors:
            from ._decomp_kernels import eig_pairs
            vr = eig_pairs(vr, wi)
        return wc, vr, info
    return w, vr, info


# ---- LU solve (for eig's left vectors and the generalized eig) -------------------
def getrf_solve(a, b):
    """Solve ``a x = b`` by LU (a: F-ordered (n, n), overwritten; b: F-ordered
    (n, k), overwritten with x). Raises LinAlgError for a singular ``a``."""
    cs = _cusolver()
    n = a.shape[0]
    k = b.shape[1]
    dt = a.dtype
    h, p, t = _handle(), _params(), _dt(dt)
    ipiv = gp.empty((max(n, 1),), numpy.int64)
    info = gp.zeros((1,), numpy.int32)
    ld = max(1, n)
    dbytes, hbytes = cs.cusolverDnXgetrf_bufferSize(h, p, n, n, t, a.ptr, ld, t)
    dw, hw = _dwork(dbytes), _hwork(hbytes)
    cs.cusolverDnXgetrf(h, p, n, n, t, a.ptr, ld, ipiv.ptr, t, dw.ptr, dbytes,
                        hw.ctypes.data, hbytes, info.ptr)
    if int(read_info(info)[0]) > 0:
        raise LinAlgError("Matrix is singular.")
    cs.cusolverDnXgetrs(h, p, cs.CUBLAS_OP_N, n, k, t, a.ptr, ld, ipiv.ptr, t, b.ptr,
                        ld, info.ptr)
    return b
