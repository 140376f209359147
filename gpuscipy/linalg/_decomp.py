"""Decompositions and eigenproblems of gpuscipy.linalg (SciPy's signatures).

QR (cuSOLVER geqrf + orgqr/ungqr; with ``pivoting=True`` our own GPU
Householder QR with column pivoting, ``_decomp_kernels``), RQ (via QR of the
row-reversed transpose), SVD (cuSOLVER gesvd on ``a`` or ``a^H`` so that
m >= n), symmetric/Hermitian eigenproblems (cuSOLVER Xsyevd, sygvd/hegvd),
general eigenproblems (cuSOLVER Xgeev, CUDA 12.6+), least squares and
pseudo-inverses via the SVD, and the SVD-based helpers (null_space, orth,
polar, orthogonal_procrustes, subspace_angles). ``expm`` lives in
``_matfuncs`` and is re-exported here.

Stacked input (``a.shape == (..., M, N)``) is accepted where SciPy 1.15+
accepts it (SciPy's batching rules: batch shapes broadcast, a list is
returned for several outputs): batched Jacobi for small matrices (see
below), otherwise a loop of cuSOLVER calls over the batch.

Differences from SciPy
----------------------
* ``eig(a, b)``: cuSOLVER has no ggev; the problem is reduced to the
  standard one of ``solve(b, a)`` (accurate when ``b`` is well conditioned);
  a singular ``b`` (infinite eigenvalues) raises ``NotImplementedError``.
* ``eig(..., left=True)``: left eigenvectors are the normalised columns of
  ``inv(VR)^H`` (cuSOLVER's Xgeev computes right vectors only); they have
  unit norm but their phase is not normalised as LAPACK's.
* ``eigh`` subsets use cuSOLVER's Xsyevdx / sygvdx / hegvdx (bisection +
  inverse iteration on the tridiagonal form: only the wanted pairs are
  computed). An infinite end of ``subset_by_value`` is replaced by a bound
  on the spectrum (infinity norm); for the generalized problem with a
  half-infinite interval all pairs are computed and then selected.
  ``driver`` is accepted and validated, cuSOLVER picks the algorithm.
* Stacks of small matrices (n <= 32) go to one batched Jacobi call:
  ``eigh``/``eigvalsh`` (no ``b``, no value subset) to syevjBatched /
  heevjBatched, ``svd``/``svdvals`` (M, N <= 32) to gesvdjBatched, with the
  tolerance at machine precision and up to 100 sweeps; a matrix on which
  Jacobi does not converge is redone with the per-matrix routine.
* ``lapack_driver`` of ``svd``/``lstsq`` is accepted and validated; cuSOLVER's
  gesvd (QR iteration) does the work; ``lstsq`` solves through the SVD
  (gelsd semantics: minimum-norm solution, singular values returned).
* ``eigh_tridiagonal``: the tridiagonal matrix is formed densely and solved
  with Xsyevd (O(n^2) memory).
"""

import numpy
import scipy.linalg as _sl

import gpuscipy_core as gp
from gpuscipy_core.lib import as_strided

from ._misc import LinAlgError, lapack_dtype, asarray_validated
from . import _decomp_lapack as _lp
from ._matfuncs import expm
from ._docs import fill_doc

__all__ = ["qr", "rq", "svd", "svdvals", "eigh", "eigvalsh", "eigh_tridiagonal",
           "eigvalsh_tridiagonal", "eig", "eigvals", "lstsq", "pinv", "pinvh",
           "null_space", "orth", "polar", "orthogonal_procrustes", "subspace_angles",
           "expm"]


# ---- shared helpers -----------------------------------------------------------------
def _on_host(fn, *arrays, **kwargs):
    """Run SciPy on host stand-ins of empty device arrays (SciPy's exact
    shapes, dtypes and errors for empty input; no data moves)."""
    host = [None if a is None else numpy.empty(a.shape, a.dtype) for a in arrays]
    res = fn(*host, **kwargs)
    return _to_device(res)


def _to_device(res):
    if isinstance(res, tuple):
        return tuple(_to_device(r) for r in res)
    if isinstance(res, list):
        return [_to_device(r) for r in res]
    if isinstance(res, numpy.ndarray):
        return gp.asarray(res)
    return res


def _batch_view(a, shape):
    """``a`` broadcast to ``shape`` as a view (zero strides)."""
    if a.shape == tuple(shape):
        return a
    nd = len(shape)
    pad = nd - a.ndim
    strides = [0] * pad + list(a.strides)
    for i in range(a.ndim):
        if a.shape[i] == 1 and shape[pad + i] != 1:
            strides[pad + i] = 0
    return as_strided(a, tuple(shape), tuple(strides))


def _stack(results, batch):
    """Stack per-matrix results (device arrays or Python/NumPy scalars)."""
    first = results[0]
    if isinstance(first, gp.ndarray):
        out = gp.empty(tuple(batch) + first.shape, first.dtype)
        for idx, r in zip(numpy.ndindex(*batch), results):
            out[idx] = r
        return out
    if first is None:
        return None
    return numpy.asarray(results).reshape(tuple(batch) + numpy.shape(first))


def _batched(fn, arrays, core, args, kwargs):
    """SciPy's ``_apply_over_batch``: loop ``fn`` over broadcast batch dims.

    ``arrays``: the array arguments (None allowed); ``core``: their numbers of
    core dimensions. Returns None when nothing is batched.
    """
    arrs = [None if x is None else gp.asarray(x) for x in arrays]
    batch_shapes = [() if x is None else x.shape[:x.ndim - c] if x.ndim > c else ()
                    for x, c in zip(arrs, core)]
    if not any(batch_shapes):
        return None
    batch = numpy.broadcast_shapes(*batch_shapes)
    if int(numpy.prod(batch)) == 0:
        raise ValueError(f"`{fn.__name__}` does not support zero-size batches.")
    views = [None if x is None else _batch_view(x, batch + x.shape[x.ndim - c:])
             for x, c in zip(arrs, core)]
    results = []
    for idx in numpy.ndindex(*batch):
        r = fn(*[None if v is None else v[idx] for v in views], *args, **kwargs)
        results.append(r if isinstance(r, tuple) else (r,))
    outs = [_stack(list(col), batch) for col in zip(*results)]
    return outs[0] if len(outs) == 1 else outs


def _check_info(info, msg):
    if info is None:
        return
    v = int(_lp.read_info(info)[0])
    if v > 0:
        raise LinAlgError(msg.format(v) if "{" in msg else msg)
    if v < 0:
        raise ValueError(f"illegal value in {-v}th argument of internal cuSOLVER call")


def _rdt(dt):
    return numpy.dtype(dt.char.lower())


def _triu(x, k=0):
    """Upper triangle (on and above diagonal ``k``) of the 2-D ``x``, a new array."""
    m, n = x.shape
    if x.size == 0:
        return x.copy(order="F")
    i = gp.arange(m, dtype=numpy.int64).reshape(m, 1)
    j = gp.arange(n, dtype=numpy.int64).reshape(1, n)
    return gp.where(j - i >= k, x, gp.zeros((), x.dtype))


def _conj_t(x):
    """``x^H`` as a view for real, a conjugated copy for complex."""
    return gp.conj(x).T if x.dtype.kind == "c" else x.T


def _mm(a, b, op_a="N", op_b="N"):
    return _lp.matmul(a, b, op_a, op_b)


# ---- QR ------------------------------------------------------------------------------
@fill_doc
def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False,
       check_finite=True):
    """Compute the QR decomposition of a matrix: ``A P = Q R``.

    Parameters
    ----------
    a : (..., M, N) array_like
        Matrix (stack) to decompose; integer input computes in float64.
    {overwrite_a}
    lwork : int, optional
        Accepted for compatibility and ignored; cuSOLVER sizes its
        workspace itself.
    mode : {'full', 'r', 'economic', 'raw'}
    pivoting : bool
        Column pivoting (rank revealing): ``|diag(R)|`` non-increasing.
    {check_finite}

    Returns
    -------
    Q : (M, M) or (M, K) ndarray (not for ``mode='r'``; ``(Q_raw, tau)`` for
        ``mode='raw'``)
    R : (M, N) or (K, N) ndarray
    P : (N,) int32 ndarray, with ``pivoting=True``.

    Raises
    ------
    ValueError
        Bad ``mode``, non-2-D input, non-finite values.

    Notes
    -----
    Unpivoted: cuSOLVER ``Xgeqrf`` and ``orgqr``/``ungqr`` (Householder).
    Pivoted: LAPACK's xGEQP2 algorithm (Golub & Van Loan, 5.4.2) on the GPU,
    one column per step with exactly recomputed partial column norms. This
    is BLAS-2 with one kernel launch per column (the trailing update of
    step j and, in the last block to finish, the pivot choice and reflector
    of step j + 1); each update reads the whole trailing matrix, so it runs
    at memory bandwidth, far below the unpivoted (blocked, BLAS-3) geqrf; a
    blocked variant (xLAQPS-style panels with deferred updates) is not
    implemented.
    """
    if mode not in ["full", "qr", "r", "economic", "raw"]:
        raise ValueError("Mode argument should be one of ['full', 'r', "
                         "'economic', 'raw']")
    a = gp.asarray(a)
    if a.ndim > 2:
        return _batched(qr, [a], [2], (), dict(overwrite_a=overwrite_a, lwork=lwork,
                                               mode=mode, pivoting=pivoting,
                                               check_finite=check_finite))
    a = asarray_validated(a, check_finite)
    if a.ndim != 2:
        raise ValueError("expected a 2-D array")
    if a.size == 0:
        return _on_host(_sl.qr, a, mode=mode, pivoting=pivoting)
    M, N = a.shape
    K = min(M, N)
    dt = lapack_dtype(a.dtype)
    qrm = _lp.fortran_copy(a, dt)
    if pivoting:
        from ._decomp_kernels import qrcp
        tau, perm = qrcp(qrm)
        jpvt = perm.astype(numpy.int32)
    else:
        tau, info = _lp.geqrf(qrm)
        _check_info(info, "QR did not converge")
    if mode not in ("economic", "raw") or M < N:
        R = _triu(qrm)
    else:
        R = _triu(qrm[:N, :])
    Rj = (R, jpvt) if pivoting else (R,)
    if mode == "r":
        return Rj
    if mode == "raw":
        return ((qrm, tau),) + Rj
    if M < N:
        Q = qrm[:, :M].copy(order="F")
        info = _lp.orgqr(Q, tau, K)
    elif mode == "economic":
        Q = qrm.copy(order="F")
        info = _lp.orgqr(Q, tau, K)
    else:
        Q = gp.zeros((M, M), dt, order="F")
        Q[:, :N] = qrm
        info = _lp.orgqr(Q, tau, K)
    return (Q,) + Rj


@fill_doc
def rq(a, overwrite_a=False, lwork=None, mode="full", check_finite=True):
    """Compute the RQ decomposition of a matrix: ``A = R Q``.

    Parameters
    ----------
    {a_matrix}
    mode : {'full', 'r', 'economic'}

    Returns
    -------
    R : (M, N) or (M, K) ndarray
    Q : (N, N) or (K, N) ndarray (not for ``mode='r'``)

    Raises
    ------
    ValueError
        A bad ``mode``; ``a`` not 2-D; inf or NaN with ``check_finite``.
    LinAlgError
        cuSOLVER reports a failure of the QR factorization.

    Notes
    -----
    With J the reversal permutation, ``(J A)^T = Q1 R1`` gives
    ``A = (J R1^T J) (J Q1^T)``: R is upper trapezoidal (aligned to the
    bottom-right corner, as LAPACK's xGERQF) and Q unitary.
    """
    if mode not in ["full", "r", "economic"]:
        raise ValueError("Mode argument should be one of ['full', 'r', 'economic']")
    a = gp.asarray(a)
    if a.ndim > 2:
        return _batched(rq, [a], [2], (), dict(overwrite_a=overwrite_a, lwork=lwork,
                                               mode=mode, check_finite=check_finite))
    a = asarray_validated(a, check_finite)
    if a.ndim != 2:
        raise ValueError("expected matrix")
    if a.size == 0:
        return _on_host(_sl.rq, a, mode=mode)
    b = a[::-1, :].T          # (J A)^T, N x M
    qmode = "economic" if mode == "economic" else "full"
    Q1, R1 = qr(b, mode=qmode, check_finite=False)
    R = R1.T[::-1, ::-1].copy(order="F")
    if mode == "r":
        return R
    Q = Q1.T[::-1, :].copy(order="F")
    return R, Q


# ---- SVD -----------------------------------------------------------------------------
def _svd2(a, full_matrices, compute_uv):
    M, N = a.shape
    dt = lapack_dtype(a.dtype)
    job = ("A" if full_matrices else "S") if compute_uv else "N"
    if M >= N:
        buf = _lp.fortran_copy(a, dt)
        u, s, vt, info = _lp.gesvd(buf, job)
        _check_info(info, "SVD did not converge")
        return u, s, vt
    # a^H = U1 S V1^H  ->  a = V1 S U1^H
    buf = _lp.fortran_copy(_conj_t(a), dt)
    u1, s, vt1, info = _lp.gesvd(buf, job)
    _check_info(info, "SVD did not converge")
    if not compute_uv:
        return None, s, None
    return _conj_t(vt1).copy(order="F"), s, _conj_t(u1).copy(order="F")


def _svd_jacobi(a, full_matrices, compute_uv):
    """svd of a stack (..., M, N), 1 <= M, N <= 32, via gesvdjBatched.

    One transposing copy makes every matrix column-major; U and V come back
    column-major per matrix, so ``U`` is a transposed view and
    ``Vh = conj(V^T)`` is the buffer itself (conjugated for complex).
    Matrices on which Jacobi did not converge are redone with gesvd.
    """
    batch_shape = a.shape[:-2]
    m, n = a.shape[-2:]
    k = min(m, n)
    nb = int(numpy.prod(batch_shape))
    dt = lapack_dtype(a.dtype)
    flat = a.reshape((nb, m, n))
    buf = flat.swapaxes(-1, -2).astype(dt, order="C", copy=True)
    s, u, v, info = _lp.gesvdj_batched(buf, compute_uv)
    hinfo = gp.asnumpy(info)
    if (hinfo < 0).any():
        raise ValueError(f"illegal value in {-int(hinfo.min())}th argument of "
                         "internal cuSOLVER call")
    if compute_uv:
        U = u.swapaxes(-1, -2)
        Vh = gp.conj(v) if dt.kind == "c" else v
    bad = numpy.nonzero(hinfo)[0]
    for j in bad.tolist():
        uj, sj, vhj = _svd2(flat[j], True, compute_uv)
        s[j] = sj
        if compute_uv:
            U[j] = uj
            Vh[j] = vhj
    s = s.reshape(batch_shape + (k,))
    if not compute_uv:
        return s
    if not full_matrices:
        if m > k:
            U = U[:, :, :k].copy()
        if n > k:
            Vh = Vh[:, :k, :].copy()
    return [U.reshape(batch_shape + U.shape[-2:]), s,
            Vh.reshape(batch_shape + Vh.shape[-2:])]


@fill_doc
def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False,
        check_finite=True, lapack_driver="gesdd"):
    """Singular value decomposition ``a = U @ diag(s) @ Vh``.

    Parameters
    ----------
    {a_matrix}
    full_matrices : bool
        U (M, M) and Vh (N, N) when True, else (M, K) and (K, N).
    compute_uv : bool
        Only ``s`` when False.
    lapack_driver : {'gesdd', 'gesvd'}
        Validated; cuSOLVER's gesvd is used (gesvdjBatched for stacks of
        matrices with M, N <= 32).

    Returns
    -------
    U : ndarray, s : (K,) real ndarray (descending), Vh : ndarray

    Raises
    ------
    {raises_svd}
    ValueError
        ``a`` has fewer than 2 dimensions; an unknown ``lapack_driver``;
        inf or NaN with ``check_finite``.
    TypeError
        ``lapack_driver`` is not a string.

    Notes
    -----
    cuSOLVER ``cusolverDnXgesvd`` (Householder bidiagonalisation and
    implicit QR iteration, Golub & Van Loan, *Matrix Computations*, 4th
    ed., sec. 8.6) on ``a``, or on ``a^H`` when M < N (cuSOLVER's gesvd
    needs M >= N), swapping the factors back. A stack of matrices with
    M, N <= 32 goes to one ``cusolverDn?gesvdjBatched`` call (one-sided
    Jacobi); matrices on which it does not converge are redone with gesvd.
    The ``info`` value is read back (one synchronisation per call); empty
    inputs are answered by SciPy on the host.
    """
    a = gp.asarray(a)
    if a.ndim > 2:
        m, n = a.shape[-2:]
        if (1 <= m <= _lp.JACOBI_MAX_N and 1 <= n <= _lp.JACOBI_MAX_N and a.size > 0
                and isinstance(lapack_driver, str)
                and lapack_driver in ("gesdd", "gesvd")):
            # stacked small matrices: one batched Jacobi call
            a = asarray_validated(a, check_finite)
            return _svd_jacobi(a, full_matrices, compute_uv)
        return _batched(svd, [a], [2], (), dict(
            full_matrices=full_matrices, compute_uv=compute_uv, overwrite_a=overwrite_a,
            check_finite=check_finite, lapack_driver=lapack_driver))
    a = asarray_validated(a, check_finite)
    if a.ndim != 2:
        raise ValueError("expected matrix")
    if a.size == 0:
        return _on_host(_sl.svd, a, full_matrices=full_matrices, compute_uv=compute_uv)
    if not isinstance(lapack_driver, str):
        raise TypeError("lapack_driver must be a string")
    if lapack_driver not in ("gesdd", "gesvd"):
        raise ValueError(f'lapack_driver must be "gesdd" or "gesvd", not "{lapack_driver}"')
    u, s, vt = _svd2(a, full_matrices, compute_uv)
    if compute_uv:
        return u, s, vt
    return s


@fill_doc
def svdvals(a, overwrite_a=False, check_finite=True):
    """Singular values of a matrix (or of each matrix of a stack).

    Parameters
    ----------
    {a_matrix}
    {overwrite_a}
    {check_finite}

    Returns
    -------
    s : gpuscipy_core.ndarray, shape (..., K), K = min(M, N)
        Singular values in descending order; float32 or float64 (the real
        type of the LAPACK type of ``a.dtype``).

    Raises
    ------
    ValueError
        ``a`` has fewer than 2 dimensions; inf or NaN with
        ``check_finite``.
    {raises_svd}

    Notes
    -----
    :func:`svd` with ``compute_uv=False``: cuSOLVER ``cusolverDnXgesvd``
    (QR iteration on the bidiagonal form; run on ``a^H`` when M < N) per
    matrix, or ``cusolverDn?gesvdjBatched`` (one-sided Jacobi) for a stack
    of matrices with M, N <= 32. The ``info`` value is read back (one
    synchronisation per call).
    """
    return svd(a, compute_uv=False, overwrite_a=overwrite_a, check_finite=check_finite)


# ---- symmetric / Hermitian eigenproblems ------------------------------------------------
_EIGH_DRIVERS = (None, "ev", "evd", "evr", "evx", "gv", "gvd", "gvx")
_EVD_MSG = ("The algorithm failed to compute an eigenvalue while working on the "
            "submatrix lying in rows and columns {0}/{1} through mod({0},{1}).")


def _value_subset(a, lower, vlo, vhi):
    """(index, value) arguments of syevdx/sygvdx for the subset (vlo, vhi].

    cuSOLVER's bisection wants finite bounds: an infinite one is replaced by
    a bound on the spectrum, the infinity norm of the Hermitian matrix read
    from the used triangle (twice the row plus column sums of that
    triangle, a safe over-estimate), widened a little. For the generalized
    problem the spectrum is not bounded by ``a`` alone: ``eigh`` computes
    all pairs there and selects afterwards. Returns (None, None) for
    (-inf, inf].
    """
    lo, hi = float(vlo), float(vhi)
    if numpy.isfinite(lo) and numpy.isfinite(hi):
        return None, (lo, hi)
    if not numpy.isfinite(lo) and not numpy.isfinite(hi):
        return None, None               # (-inf, inf]: every eigenvalue
    t = gp.abs(_triu(a) if not lower else _triu(a.T).T)
    bound = float((t.sum(axis=0) + t.sum(axis=1)).max())
    bound = 2.0 * bound + 1.0
    return None, (max(lo, -bound), min(hi, bound))


def _eigh_jacobi(a, lower, vectors, lo=None, hi=None):
    """eigh of a stack (..., n, n), 1 <= n <= 32, via syevjBatched/heevjBatched.

    One transposing copy makes every matrix column-major (what cuSOLVER
    reads); the vectors come back in that buffer, so ``v`` is a view.
    Matrices on which Jacobi did not converge (info = n + 1) are redone with
    Xsyevd. Returns ``w`` or ``[w, v]`` (SciPy's batched results are lists).
    """
    batch_shape = a.shape[:-2]
    n = a.shape[-1]
    nb = int(numpy.prod(batch_shape))
    dt = lapack_dtype(a.dtype)
    buf = a.reshape((nb, n, n)).swapaxes(-1, -2).astype(dt, order="C", copy=True)
    w, info = _lp.syevj_batched(buf, lower, vectors)
    hinfo = gp.asnumpy(info)
    if (hinfo < 0).any():
        raise ValueError(f"illegal value in {-int(hinfo.min())}th argument of "
                         "internal cuSOLVER call")
    v = buf.swapaxes(-1, -2) if vectors else None
    bad = numpy.nonzero(hinfo)[0]
    if bad.size:
        flat = a.reshape((nb, n, n))
        for k in bad.tolist():
            r = eigh(flat[k], lower=lower, eigvals_only=not vectors, check_finite=False)
            if vectors:
                w[k] = r[0]
                v[k] = r[1]
            else:
                w[k] = r
    if lo is not None:
        w = w[:, lo:hi + 1]
        if vectors:
            v = v[:, :, lo:hi + 1]
    w = w.reshape(batch_shape + w.shape[-1:])
    if not vectors:
        return w
    return [w, v.reshape(batch_shape + v.shape[-2:])]


@fill_doc
def eigh(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False,
         overwrite_b=False, type=1, check_finite=True, subset_by_index=None,
         subset_by_value=None, driver=None):
    """Eigenvalues (ascending) and eigenvectors of a Hermitian (or real
    symmetric) matrix, or of the generalized problem with ``b``.

    Parameters
    ----------
    a : (..., M, M) array_like
    b : (..., M, M) array_like, optional
        Hermitian positive definite (generalized problem ``type`` 1, 2 or 3).
    {lower_hermitian}
    eigvals_only : bool
    type : {1, 2, 3}
        ``a v = w b v``, ``a b v = w v``, ``b a v = w v``.
    subset_by_index : (lo, hi), optional
    subset_by_value : (lo, hi], optional
    driver : {None, 'ev', 'evd', 'evr', 'evx', 'gv', 'gvd', 'gvx'}
        Validated like SciPy; the cuSOLVER routine is chosen by the problem.

    Returns
    -------
    w : (..., N) real ndarray
    v : (..., M, N) ndarray (not with ``eigvals_only``)

    Raises
    ------
    LinAlgError
        No convergence; ``b`` not positive definite.
    ValueError
        Bad shapes, bad subsets, bad driver, non-finite input.

    Notes
    -----
    cuSOLVER ``Xsyevd`` (tridiagonal reduction + divide and conquer) and
    ``sygvd``/``hegvd``; subsets with ``Xsyevdx``/``sygvdx``/``hegvdx``;
    stacks of matrices with n <= 32 with ``syevjBatched``/``heevjBatched``
    (Jacobi, tolerance eps, redone with Xsyevd where it does not converge).
    A C-ordered real matrix is passed as its own
    transpose (the other triangle), so the one copy made is a contiguous one.
    """
    kw = dict(lower=lower, eigvals_only=eigvals_only, overwrite_a=overwrite_a,
              overwrite_b=overwrite_b, type=type, check_finite=check_finite,
              subset_by_index=subset_by_index, subset_by_value=subset_by_value,
              driver=driver)
    a = gp.asarray(a)
    bb = None if b is None else gp.asarray(b)
    if a.ndim > 2 or (bb is not None and bb.ndim > 2):
        n = a.shape[-1]
        if (bb is None and subset_by_value is None and 1 <= n <= _lp.JACOBI_MAX_N
                and a.shape[-2] == n and a.size > 0 and driver in _EIGH_DRIVERS
                and driver not in ("gv", "gvd", "gvx")
                and not (subset_by_index and driver in ("ev", "evd"))):
            # stacked small matrices: one batched Jacobi call (same checks
            # and errors as the per-matrix path)
            a = asarray_validated(a, check_finite)
            lo = hi = None
            if subset_by_index:
                lo, hi = (int(x) for x in subset_by_index)
                if not (0 <= lo <= hi < n):
                    raise ValueError("Requested eigenvalue indices are not valid. "
                                     f"Valid range is [0, {n-1}] and start <= end, "
                                     f"but start={lo}, end={hi} is given")
            return _eigh_jacobi(a, lower, not eigvals_only, lo, hi)
        return _batched(eigh, [a, bb], [2, 2], (), kw)
    drv_str = [None, "ev", "evd", "evr", "evx", "gv", "gvd", "gvx"]
    if driver not in drv_str:
        raise ValueError('"{}" is unknown. Possible values are "None", "{}".'
                         "".format(driver, '", "'.join(drv_str[1:])))
    a = asarray_validated(a, check_finite)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError('expected square "a" matrix')
    if a.size == 0:
        return _on_host(lambda x: _sl.eigh(x, eigvals_only=eigvals_only), a)
    n = a.shape[0]
    if bb is not None:
        bb = asarray_validated(bb, check_finite)
        if bb.ndim != 2 or bb.shape[0] != bb.shape[1]:
            raise ValueError('expected square "b" matrix')
        if bb.shape != a.shape:
            raise ValueError(f"wrong b dimensions {bb.shape}, should be {a.shape}")
        if type not in [1, 2, 3]:
            raise ValueError('"type" keyword only accepts 1, 2, and 3.')
    subset = (subset_by_index is not None) or (subset_by_value is not None)
    if subset_by_index and subset_by_value:
        raise ValueError("Either index or value subset can be requested.")
    lo = hi = None
    if subset_by_index:
        lo, hi = (int(x) for x in subset_by_index)
        if not (0 <= lo <= hi < n):
            raise ValueError("Requested eigenvalue indices are not valid. "
                             f"Valid range is [0, {n-1}] and start <= end, but "
                             f"start={lo}, end={hi} is given")
    if subset_by_value:
        vlo, vhi = subset_by_value
        if not (-numpy.inf <= vlo < vhi <= numpy.inf):
            raise ValueError("Requested eigenvalue bounds are not valid. "
                             "Valid range is (-inf, inf) and low < high, but "
                             f"low={vlo}, high={vhi} is given")
    if driver:
        if bb is None and driver in ["gv", "gvd", "gvx"]:
            raise ValueError(f"{driver} requires input b array to be supplied "
                             "for generalized eigenvalue problems.")
        if bb is not None and driver in ["ev", "evd", "evr", "evx"]:
            raise ValueError(f'"{driver}" does not accept input b array '
                             "for standard eigenvalue problems.")
        if subset and driver in ["ev", "evd", "gv", "gvd"]:
            raise ValueError(f'"{driver}" cannot compute subsets of eigenvalues')

    vectors = not eigvals_only
    index = value = post = None
    if subset_by_index:
        index = (lo, hi)
    elif subset_by_value:
        if bb is None:
            index, value = _value_subset(a, lower, vlo, vhi)
        elif numpy.isfinite(vlo) and numpy.isfinite(vhi):
            value = (float(vlo), float(vhi))
        else:
            # generalized problem, half-infinite interval: the spectrum is
            # not bounded by a alone -> all pairs, then the selection
            post = (vlo, vhi)
    if value is not None and not value[0] < value[1]:
        # the interval misses the spectrum bound: nothing to compute
        dt = lapack_dtype(a.dtype) if bb is None else lapack_dtype(a.dtype, bb.dtype)
        w = gp.empty((0,), _rdt(dt))
        return w if eigvals_only else (w, gp.empty((n, 0), dt, order="F"))
    if bb is None:
        dt = lapack_dtype(a.dtype)
        if dt.kind == "f" and a.flags.c_contiguous and not a.flags.f_contiguous:
            # the C-ordered buffer is a^T in Fortran order: read the other triangle
            buf = a.astype(dt, order="C", copy=True).T
            uplo_lower = not lower
        else:
            buf = _lp.fortran_copy(a, dt)
            uplo_lower = lower
        if index is None and value is None:
            w, info = _lp.syevd(buf, uplo_lower, vectors)
            meig = n
        else:
            w, meig, info = _lp.syevdx(buf, uplo_lower, vectors, index, value)
        _check_info(info, _EVD_MSG.replace("{1}", str(n + 1)) if vectors else
                    "The algorithm failed to converge; {} off-diagonal elements of "
                    "an intermediate tridiagonal form did not converge to zero.")
        v = buf
    else:
        dt = lapack_dtype(a.dtype, bb.dtype)
        abuf = _lp.fortran_copy(a, dt)
        bbuf = _lp.fortran_copy(bb, dt)
        if index is None and value is None:
            w, info = _lp.sygvd(abuf, bbuf, type, lower, vectors)
            meig = n
        else:
            w, meig, info = _lp.sygvdx(abuf, bbuf, type, lower, vectors, index, value)
        v = abuf
        iv = int(_lp.read_info(info)[0])
        if iv > n:
            raise LinAlgError(f"The leading minor of order {iv-n} of B is not "
                              "positive definite. The factorization of B "
                              "could not be completed and no eigenvalues "
                              "or eigenvectors were computed.")
        if iv > 0:
            raise LinAlgError(_EVD_MSG.format(iv, n + 1))
        if iv < 0:
            raise ValueError(f"illegal value in {-iv}th argument of internal "
                             "cuSOLVER call")
    if post is not None:
        wh = gp.asnumpy(w)
        sel = numpy.nonzero((wh > post[0]) & (wh <= post[1]))[0]
        first, meig = (int(sel[0]), int(sel.size)) if sel.size else (0, 0)
        w = w[first:first + meig].copy()
        if vectors:
            v = v[:, first:first + meig].copy(order="F")
    elif meig != n:
        w = w[:meig].copy()
        if vectors:
            v = v[:, :meig].copy(order="F")
    if eigvals_only:
        return w
    return w, v


@fill_doc
def eigvalsh(a, b=None, *, lower=True, overwrite_a=False, overwrite_b=False, type=1,
             check_finite=True, subset_by_index=None, subset_by_value=None,
             driver=None):
    """Eigenvalues of a real symmetric or complex Hermitian matrix.

    Solves ``a v = w v`` or, with ``b``, the generalized problem
    ``a v = w b v`` (``type`` 1), ``a b v = w v`` (2) or ``b a v = w v`` (3).

    Parameters
    ----------
    a : array_like, shape (..., M, M)
        Hermitian matrix or stack; only the triangle named by ``lower`` is
        read.
    b : array_like, shape (M, M), optional
        Hermitian positive definite matrix of the generalized problem.
    {lower_hermitian}
    {overwrite_a}
    {overwrite_b}
    type : {1, 2, 3}, optional
        Form of the generalized problem (see above).
    {check_finite}
    subset_by_index : iterable of 2 ints, optional
        ``(lo, hi)``: only the eigenvalues of ascending indices lo..hi.
    subset_by_value : iterable of 2 floats, optional
        ``(lo, hi)``: only the eigenvalues in the half-open interval
        ``(lo, hi]``.
    driver : str, optional
        A SciPy driver name; validated as SciPy does, cuSOLVER picks the
        algorithm.

    Returns
    -------
    w : gpuscipy_core.ndarray, shape (..., N)
        Eigenvalues in ascending order; float32 or float64.

    Raises
    ------
    ValueError
        ``a`` (or ``b``) not square or of different shapes; a bad ``type``,
        ``driver`` or subset; inf or NaN with ``check_finite``.
    LinAlgError
        The eigensolver did not converge, or ``b`` is not positive
        definite.

    Notes
    -----
    :func:`eigh` with ``eigvals_only=True``: cuSOLVER ``cusolverDnXsyevd``
    (divide and conquer on the tridiagonal form), ``cusolverDnXsyevdx`` for
    subsets, ``cusolverDn?sygvd``/``?hegvd`` (``?sygvdx``/``?hegvdx``) for
    the generalized problem, and ``cusolverDn?syevjBatched``/
    ``?heevjBatched`` (Jacobi) for stacks of matrices with M <= 32 without
    ``b`` or a value subset. The ``info`` value is read back after each
    cuSOLVER call.

    Differences from SciPy: see the module notes of ``_decomp`` (an
    infinite end of ``subset_by_value`` is replaced by a bound on the
    spectrum; ``driver`` does not select the algorithm).
    """
    return eigh(a, b=b, lower=lower, eigvals_only=True, overwrite_a=overwrite_a,
                overwrite_b=overwrite_b, type=type, check_finite=check_finite,
                subset_by_index=subset_by_index, subset_by_value=subset_by_value,
                driver=driver)


def _check_select(select, select_range, max_ev, max_len):
    """SciPy's validation of ``select``/``select_range``; returns
    (kind 'a'|'v'|'i', lo, hi)."""
    if isinstance(select, str):
        select = select.lower()
    try:
        select = {"a": 0, "v": 1, "i": 2, "all": 0, "value": 1, "index": 2}.get(select,
                                                                                 select)
        select = int(select)
        if select not in (0, 1, 2):
            raise ValueError
    except (TypeError, ValueError):
        raise ValueError("invalid argument for select")
    kind = "avi"[select]
    lo = hi = None
    if kind != "a":
        sr = numpy.asarray(select_range)
        if sr.ndim != 1 or sr.size != 2 or sr[1] < sr[0]:
            raise ValueError("select_range must be a 2-element array-like "
                             "in nondecreasing order")
        lo, hi = sr
        if kind == "i":
            lo, hi = int(lo), int(hi)
            if lo < 0 or hi >= max_len:
                raise ValueError("select_range out of bounds")
    return kind, lo, hi


@fill_doc
def eigh_tridiagonal(d, e, eigvals_only=False, select="a", select_range=None,
                     check_finite=True, tol=0.0, lapack_driver="auto"):
    """Eigenpairs of a real symmetric tridiagonal matrix.

    Parameters
    ----------
    d : (..., N) real array_like
        Diagonal.
    e : (..., N-1) real array_like
        Off-diagonal.
    select : {'a', 'v', 'i'}
        All, by value in (lo, hi], or by index [lo, hi].
    select_range : (lo, hi)
    tol, lapack_driver : validated like SciPy (the dense route ignores tol).

    Returns
    -------
    w : (M,) ndarray, v : (N, M) ndarray

    Raises
    ------
    ValueError
        ``d`` or ``e`` not 1-D or of mismatched lengths; a bad ``select``,
        ``select_range`` or ``lapack_driver``; inf or NaN with
        ``check_finite``.
    TypeError
        Complex ``d`` or ``e``; a non-string ``lapack_driver``.
    {raises_eig}

    Notes
    -----
    The tridiagonal matrix is built densely on the device and solved with
    cuSOLVER's Xsyevd (O(N^2) memory, O(N^3) work).
    """
    d = gp.asarray(d)
    e = gp.asarray(e)
    if d.ndim > 1 or e.ndim > 1:
        return _batched(eigh_tridiagonal, [d, e], [1, 1], (), dict(
            eigvals_only=eigvals_only, select=select, select_range=select_range,
            check_finite=check_finite, tol=tol, lapack_driver=lapack_driver))
    d = asarray_validated(d, check_finite, "d")
    e = asarray_validated(e, check_finite, "e")
    for check in (d, e):
        if check.ndim != 1:
            raise ValueError("expected a 1-D array")
        if check.dtype.kind in "c":
            raise TypeError("Only real arrays currently supported")
    if d.size != e.size + 1:
        raise ValueError(f"d ({d.size}) must have one more element than e ({e.size})")
    kind, lo, hi = _check_select(select, select_range, 0, d.size)
    if not isinstance(lapack_driver, str):
        raise TypeError("lapack_driver must be str")
    drivers = ("auto", "stemr", "sterf", "stebz", "stev", "stevd")
    if lapack_driver not in drivers:
        raise ValueError(f"lapack_driver must be one of {drivers}, got {lapack_driver}")
    n = d.size
    if n == 0:
        return _on_host(lambda dd, ee: _sl.eigh_tridiagonal(
            dd, ee, eigvals_only=eigvals_only), d, e)
    dt = lapack_dtype(d.dtype, e.dtype)
    t = gp.zeros((n, n), dt, order="F")
    t.diagonal()[...] = d
    if n > 1:
        t.diagonal(-1)[...] = e
        t.diagonal(1)[...] = e
    if kind == "a":
        return eigh(t, eigvals_only=eigvals_only, check_finite=False)
    if kind == "i":
        return eigh(t, eigvals_only=eigvals_only, check_finite=False,
                    subset_by_index=(lo, hi))
    return eigh(t, eigvals_only=eigvals_only, check_finite=False,
                subset_by_value=(float(lo), float(hi)))


@fill_doc
def eigvalsh_tridiagonal(d, e, select="a", select_range=None, check_finite=True,
                         tol=0.0, lapack_driver="auto"):
    """Eigenvalues of a real symmetric tridiagonal matrix.

    Parameters
    ----------
    d : array_like, shape (N,)
        Diagonal; real.
    e : array_like, shape (N - 1,)
        Off-diagonal; real.
    select : {'a', 'v', 'i'}, optional
        All eigenvalues ('a'), those in the interval ``(lo, hi]`` ('v') or
        those of ascending indices ``lo..hi`` ('i').
    select_range : (lo, hi), optional
        The interval or index range for ``select`` 'v' or 'i'.
    {check_finite}
    tol : float, optional
        Accepted for SciPy compatibility (used by SciPy's 'stebz' driver).
    lapack_driver : str, optional
        A SciPy driver name; validated as SciPy does.

    Returns
    -------
    w : gpuscipy_core.ndarray, shape (K,)
        Eigenvalues in ascending order; float32 or float64.

    Raises
    ------
    ValueError
        ``d`` or ``e`` not 1-D or of mismatched lengths; a bad ``select``,
        ``select_range`` or ``lapack_driver``; inf or NaN with
        ``check_finite``.
    TypeError
        Complex ``d`` or ``e``.
    {raises_eig}

    Notes
    -----
    :func:`eigh_tridiagonal` with ``eigvals_only=True``: the tridiagonal
    matrix is formed densely on the device and solved with cuSOLVER
    ``cusolverDnXsyevd`` (``cusolverDnXsyevdx`` for subsets).

    Differences from SciPy: O(N^2) memory and O(N^3) time (SciPy's
    tridiagonal LAPACK drivers need O(N) memory).
    """
    return eigh_tridiagonal(d, e, eigvals_only=True, select=select,
                            select_range=select_range, check_finite=check_finite,
                            tol=tol, lapack_driver=lapack_driver)


# ---- general eigenproblem -----------------------------------------------------------------
def _normalize_columns(v):
    nrm = gp.sqrt((gp.abs(v) ** 2).sum(axis=0))
    nrm = gp.where(nrm == 0, gp.ones((), nrm.dtype), nrm)
    return v / nrm.reshape(1, -1)


@fill_doc
def eig(a, b=None, left=False, right=True, overwrite_a=False, overwrite_b=False,
        check_finite=True, homogeneous_eigvals=False):
    """Eigenvalues and right/left eigenvectors of a square matrix (or of the
    generalized problem ``a v = w b v``).

    Parameters
    ----------
    {a_square}
    b : (..., M, M) array_like, optional
    left, right : bool
        Return left / right eigenvectors.
    homogeneous_eigvals : bool
        Return ``w`` as (2, M): ``(alpha, beta)`` with ``beta = 1``.

    Returns
    -------
    w : (M,) complex ndarray (or (2, M))
    vl, vr : (M, M) ndarrays, unit-norm columns; real when all eigenvalues of
        a real matrix are real, complex otherwise.

    Raises
    ------
    {raises_eig}
    NotImplementedError
        ``b`` singular (infinite eigenvalues: no ggev on the GPU).

    Notes
    -----
    cuSOLVER ``Xgeev`` (Hessenberg QR). See the module notes for ``b`` and
    ``left``.
    """
    kw = dict(left=left, right=right, overwrite_a=overwrite_a, overwrite_b=overwrite_b,
              check_finite=check_finite, homogeneous_eigvals=homogeneous_eigvals)
    a = gp.asarray(a)
    bb = None if b is None else gp.asarray(b)
    if a.ndim > 2 or (bb is not None and bb.ndim > 2):
        return _batched(eig, [a, bb], [2, 2], (), kw)
    a = asarray_validated(a, check_finite)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("expected square matrix")
    if bb is not None:
        bb = asarray_validated(bb, check_finite)
        if bb.ndim != 2 or bb.shape[0] != bb.shape[1]:
            raise ValueError("expected square matrix")
        if bb.shape != a.shape:
            raise ValueError("a and b must have the same shape")
    if a.size == 0:
        return _on_host(lambda x, y: _sl.eig(x, y, left=left, right=right,
                                             homogeneous_eigvals=homogeneous_eigvals),
                        a, bb)
    n = a.shape[0]
    dt = lapack_dtype(a.dtype) if bb is None else lapack_dtype(a.dtype, bb.dtype)
    work = _lp.fortran_copy(a, dt)
    if bb is not None:
        bfac = _lp.fortran_copy(bb, dt)
        try:
            _lp.getrf_solve(bfac, work)        # work <- b^{-1} a
        except LinAlgError:
            raise NotImplementedError(
                "eig(a, b) with a singular b (infinite eigenvalues) is not "
                "supported on the GPU: cuSOLVER has no generalized (QZ) solver") from None
    vectors = bool(left or right)
    w, vr, info = _lp.geev(work, vectors)
    _check_info(info, "eig algorithm (geev) did not converge (only eigenvalues "
                      "with order >= {} have converged)")
    if vectors and dt.kind == "f":
        # geev returned packed real vectors: keep them real when all w are real
        wi = w.imag
        if not bool((wi != 0).any()):
            vr = vr.real.copy(order="F")
    if homogeneous_eigvals:
        wo = gp.empty((2, n), w.dtype)
        wo[0] = w
        wo[1] = 1
    else:
        wo = w
    vl = None
    if left:
        ident = gp.eye(n, dtype=vr.dtype, order="F")
        inv_vr = _lp.getrf_solve(vr.copy(order="F"), ident)
        vl = _normalize_columns(_conj_t(inv_vr))
        if bb is not None:
            # u = b^{-H} y for left vectors y of b^{-1} a
            bh = _lp.fortran_copy(_conj_t(bb), vl.dtype)
            vl = _normalize_columns(_lp.getrf_solve(bh, vl.copy(order="F")))
    if right and bb is not None:
        vr = _normalize_columns(vr)
    if not (left or right):
        return wo
    if left:
        if right:
            return wo, vl, vr
        return wo, vl
    return wo, vr


@fill_doc
def eigvals(a, b=None, overwrite_a=False, check_finite=True, homogeneous_eigvals=False):
    """Eigenvalues of a general square matrix (or pencil ``a - w b``).

    Parameters
    ----------
    {a_square}
    b : array_like, shape (M, M), optional
        Right-hand matrix of the generalized problem ``a v = w b v``.
    {overwrite_a}
    {check_finite}
    homogeneous_eigvals : bool, optional
        Return the eigenvalues as pairs ``(alpha, beta)``, ``w = alpha /
        beta``, shape (..., 2, M).

    Returns
    -------
    w : gpuscipy_core.ndarray, shape (..., M) or (..., 2, M)
        Eigenvalues (not ordered); complex64 or complex128, as SciPy.

    Raises
    ------
    ValueError
        ``a`` or ``b`` not square or of different shapes; inf or NaN with
        ``check_finite``.
    {raises_eig}
    NotImplementedError
        ``b`` is singular (infinite eigenvalues).

    Notes
    -----
    :func:`eig` without vectors: cuSOLVER ``cusolverDnXgeev`` (Hessenberg
    reduction and shifted QR iteration; CUDA 12.6 or later); with ``b`` the
    problem is reduced to the standard one of ``b^-1 a`` by LU
    (``cusolverDnXgetrf``/``Xgetrs``). The ``info`` value is read back.

    Differences from SciPy: with ``b`` the reduction to ``b^-1 a`` is
    accurate only when ``b`` is well conditioned (SciPy runs LAPACK's QZ,
    ``?ggev``).
    """
    return eig(a, b=b, left=False, right=False, overwrite_a=overwrite_a,
               check_finite=check_finite, homogeneous_eigvals=homogeneous_eigvals)


# ---- least squares and pseudo-inverses ------------------------------------------------------
@fill_doc
def lstsq(a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True,
          lapack_driver=None):
    """Minimum-norm least-squares solution of ``a @ x = b``.

    Parameters
    ----------
    a : array_like, shape (..., M, N)
        Coefficient matrix (or stack).
    b : array_like, shape (..., M) or (..., M, K)
        Right-hand side.
    cond : float, optional
        Singular values ``<= cond * s[0]`` are taken as zero. Default: the
        machine epsilon of the computation type.
    {overwrite_a}
    {overwrite_b}
    {check_finite}
    lapack_driver : {None, 'gelsd', 'gelsy', 'gelss'}, optional
        Validated as SciPy does; the SVD solves every case.

    Returns
    -------
    x : gpuscipy_core.ndarray, shape (N,) or (N, K)
        Solution; the LAPACK type of ``a.dtype`` and ``b.dtype``.
    residues : gpuscipy_core.ndarray, shape (K,), or 0-d for 1-D ``b``
        Squared 2-norms of the residual columns; shape (0,) when ``M <= N``
        or ``a`` is rank deficient (SciPy's rule); real.
    rank : int
        Effective rank of ``a``.
    s : gpuscipy_core.ndarray, shape (min(M, N),) or None
        Singular values of ``a``, descending (None for ``'gelsy'``).

    Raises
    ------
    ValueError
        ``a`` not 2-D (per batch slice); row counts of ``a`` and ``b``
        differ; an unknown ``lapack_driver``; inf or NaN with
        ``check_finite``.
    {raises_svd}

    Notes
    -----
    ``x = V diag(1/s) U^H b`` over the singular values above the cut-off,
    from the thin SVD by cuSOLVER ``cusolverDnXgesvd`` and products by
    cuBLAS ``?gemm``. ``s[0]`` and the rank are read back to the host (two
    synchronisations). Empty inputs are handed to SciPy on the host.

    Differences from SciPy: ``lapack_driver`` does not change the algorithm
    (the results are those of ``gelsd``, except that ``'gelsy'`` returns
    ``s = None`` as SciPy).
    """
    a = gp.asarray(a)
    b = gp.asarray(b)
    if a.ndim > 2 or b.ndim > 2:
        bcore = 2 if b.ndim >= 2 else 1
        return _batched(lstsq, [a, b], [2, bcore], (), dict(
            cond=cond, overwrite_a=overwrite_a, overwrite_b=overwrite_b,
            check_finite=check_finite, lapack_driver=lapack_driver))
    a = asarray_validated(a, check_finite)
    b = asarray_validated(b, check_finite, "b")
    if a.ndim != 2:
        raise ValueError("Input array a should be 2D")
    m, n = a.shape
    if b.ndim == 0 or m != b.shape[0]:
        raise ValueError("Shape mismatch: a and b should have the same number"
                         f" of rows ({m} != {b.shape[0] if b.ndim else 1}).")
    if m == 0 or n == 0:
        return _on_host(_sl.lstsq, a, b)
    driver = lapack_driver or "gelsd"
    if driver not in ("gelsd", "gelsy", "gelss"):
        raise ValueError(f'LAPACK driver "{driver}" is not found')
    dt = lapack_dtype(a.dtype, b.dtype)
    rdt = _rdt(dt)
    if cond is None:
        cond = numpy.finfo(dt).eps
    u, s, vh = _svd2(a.astype(dt, copy=False), False, True)
    smax = float(s[0].get()) if s.size else 0.0
    keep = s > cond * smax
    rank = int(keep.sum())
    b2 = b.reshape(m, 1) if b.ndim == 1 else b
    b2 = b2.astype(dt, copy=False)
    # x = V diag(1/s) U^H b over the kept singular values
    sinv = gp.where(keep, 1.0 / gp.where(keep, s, gp.ones((), rdt)), gp.zeros((), rdt))
    utb = _mm(u, b2, "C", "N")
    utb = utb * sinv.astype(dt).reshape(-1, 1)
    x = _mm(vh, utb, "C", "N")
    if m > n and rank == n:
        r = b2 - _mm(a.astype(dt, copy=False), x)
        resids = (gp.abs(r) ** 2).sum(axis=0)
        if b.ndim == 1:
            resids = resids.reshape(())
    else:
        resids = gp.empty((0,), dt)
    if b.ndim == 1:
        x = x.reshape(n)
    if driver == "gelsy":
        return x, gp.empty((0,), dt), rank, None
    return x, resids, rank, s


def _tolerances(atol, rtol, shape, dt):
    atol = 0.0 if atol is None else atol
    rtol = max(shape) * numpy.finfo(dt).eps if rtol is None else rtol
    if atol < 0.0 or rtol < 0.0:
        raise ValueError("atol and rtol values must be positive.")
    return atol, rtol


@fill_doc
def pinv(a, *, atol=None, rtol=None, return_rank=False, check_finite=True):
    """Moore-Penrose pseudo-inverse of a matrix (or of each of a stack).

    Parameters
    ----------
    {a_matrix}
    atol : float, optional
        Absolute threshold for small singular values (default 0).
    rtol : float, optional
        Relative threshold; singular values ``<= atol + rtol * max(s)`` are
        taken as zero. Default ``max(M, N) * eps``.
    return_rank : bool, optional
        Also return the effective rank.
    {check_finite}

    Returns
    -------
    B : gpuscipy_core.ndarray, shape (..., N, M)
        The pseudo-inverse; the LAPACK type of ``a.dtype``.
    rank : int
        Effective rank (with ``return_rank``).

    Raises
    ------
    ValueError
        ``a`` not 2-D (per batch slice); a negative ``atol`` or ``rtol``;
        inf or NaN with ``check_finite``.
    {raises_svd}

    Notes
    -----
    ``B = V diag(1/s) U^H`` over the kept singular values, from the thin
    SVD by cuSOLVER ``cusolverDnXgesvd`` and one cuBLAS ``?gemm``. ``s[0]``
    and the rank are read back to the host.
    """
    a = gp.asarray(a)
    if a.ndim > 2:
        return _batched(pinv, [a], [2], (), dict(atol=atol, rtol=rtol,
                                                 return_rank=return_rank,
                                                 check_finite=check_finite))
    a = asarray_validated(a, check_finite)
    if a.ndim != 2:
        raise ValueError("expected matrix")
    if a.size == 0:
        return _on_host(lambda x: _sl.pinv(x, atol=atol, rtol=rtol,
                                           return_rank=return_rank), a)
    u, s, vh = _svd2(a, False, True)
    atol, rtol = _tolerances(atol, rtol, a.shape, u.dtype.char.lower())
    smax = float(s[0].get())
    val = atol + smax * rtol
    rank = int((s > val).sum())
    u = u[:, :rank] / s[:rank].astype(u.dtype).reshape(1, -1)
    B = _conj_t(_mm(u, vh[:rank]))
    B = B.copy()
    if return_rank:
        return B, rank
    return B


@fill_doc
def pinvh(a, atol=None, rtol=None, lower=True, return_rank=False, check_finite=True):
    """Pseudo-inverse of a real symmetric or complex Hermitian matrix.

    Parameters
    ----------
    a : array_like, shape (..., N, N)
        Hermitian matrix or stack; only the triangle named by ``lower`` is
        read.
    atol : float, optional
        Absolute threshold for small eigenvalues (default 0).
    rtol : float, optional
        Relative threshold; eigenvalues with ``|w| <= atol + rtol *
        max(|w|)`` are taken as zero. Default ``N * eps``.
    {lower_hermitian}
    return_rank : bool, optional
        Also return the effective rank.
    {check_finite}

    Returns
    -------
    B : gpuscipy_core.ndarray, shape (..., N, N)
        The pseudo-inverse; the LAPACK type of ``a.dtype``.
    rank : int
        Effective rank (with ``return_rank``).

    Raises
    ------
    ValueError
        ``a`` not square; a negative ``atol`` or ``rtol``; inf or NaN with
        ``check_finite``.
    {raises_eig}

    Notes
    -----
    ``B = U diag(1/w) U^H`` over the kept eigenvalues, from :func:`eigh`
    (cuSOLVER ``cusolverDnXsyevd``) and one cuBLAS ``?gemm``; the dropped
    columns are zeroed rather than removed. ``max(|w|)`` and the rank are
    read back to the host.
    """
    a = gp.asarray(a)
    if a.ndim > 2:
        return _batched(pinvh, [a], [2], (), dict(atol=atol, rtol=rtol, lower=lower,
                                                  return_rank=return_rank,
                                                  check_finite=check_finite))
    a = asarray_validated(a, check_finite)
    if a.size == 0:
        return _on_host(lambda x: _sl.pinvh(x, atol=atol, rtol=rtol,
                                            return_rank=return_rank), a)
    s, u = eigh(a, lower=lower, check_finite=False)
    atol, rtol = _tolerances(atol, rtol, a.shape, u.dtype.char.lower())
    maxS = float(gp.abs(s).max())
    val = atol + maxS * rtol
    above = gp.abs(s) > val
    # zero the columns below the cut-off instead of compressing them
    psig = gp.where(above, 1.0 / gp.where(above, s, gp.ones((), s.dtype)),
                    gp.zeros((), s.dtype))
    rank = int(above.sum())
    us = u * psig.astype(u.dtype).reshape(1, -1)
    B = _mm(us, u, "N", "C")
    if return_rank:
        return B, rank
    return B


# ---- SVD helpers ------------------------------------------------------------------------------
def _rank_of(s, shape, rcond):
    if rcond is None:
        rcond = numpy.finfo(s.dtype).eps * max(shape)
    smax = float(s[0].get()) if s.size else 0.0
    return int((s > smax * rcond).sum())


@fill_doc
def orth(A, rcond=None):
    """Orthonormal basis of the range of ``A``.

    Parameters
    ----------
    A : array_like, shape (..., M, N)
        Matrix or stack of matrices.
    rcond : float, optional
        Singular values ``<= rcond * s[0]`` are taken as zero. Default
        ``eps * max(M, N)``.

    Returns
    -------
    Q : gpuscipy_core.ndarray, shape (..., M, K)
        Orthonormal columns, K the effective rank; the LAPACK type of
        ``A.dtype``.

    Raises
    ------
    ValueError
        ``A`` not 2-D (per batch slice); inf or NaN.
    {raises_svd}

    Notes
    -----
    The leading left singular vectors of the thin SVD (cuSOLVER
    ``cusolverDnXgesvd``); ``s[0]`` and the rank are read back to the host.
    """
    A = gp.asarray(A)
    if A.ndim > 2:
        return _batched(orth, [A], [2], (rcond,), {})
    u, s, vh = svd(A, full_matrices=False)
    num = _rank_of(s, (u.shape[0], vh.shape[1]), rcond)
    return u[:, :num]


@fill_doc
def null_space(A, rcond=None, *, overwrite_a=False, check_finite=True,
               lapack_driver="gesdd"):
    """Orthonormal basis of the null space of ``A``.

    Parameters
    ----------
    A : array_like, shape (..., M, N)
        Matrix or stack of matrices.
    rcond : float, optional
        Singular values ``<= rcond * s[0]`` are taken as zero. Default
        ``eps * max(M, N)``.
    {overwrite_a}
    {check_finite}
    lapack_driver : {'gesdd', 'gesvd'}, optional
        Validated as SciPy does; cuSOLVER's gesvd does the work.

    Returns
    -------
    Z : gpuscipy_core.ndarray, shape (N, K)
        Orthonormal columns spanning the null space, K = N - rank; the
        LAPACK type of ``A.dtype``.

    Raises
    ------
    ValueError
        ``A`` not 2-D (per batch slice); an unknown ``lapack_driver``; inf
        or NaN with ``check_finite``.
    TypeError
        ``lapack_driver`` is not a string.
    {raises_svd}

    Notes
    -----
    The trailing right singular vectors of the full SVD (cuSOLVER
    ``cusolverDnXgesvd``); ``s[0]`` and the rank are read back to the host.
    """
    A = gp.asarray(A)
    if A.ndim > 2:
        return _batched(null_space, [A], [2], (rcond,), dict(
            overwrite_a=overwrite_a, check_finite=check_finite,
            lapack_driver=lapack_driver))
    u, s, vh = svd(A, full_matrices=True, check_finite=check_finite,
                   lapack_driver=lapack_driver)
    num = _rank_of(s, (u.shape[0], vh.shape[1]), rcond)
    return _conj_t(vh[num:, :]).copy()


@fill_doc
def polar(a, side="right"):
    """Polar decomposition ``a = u p`` (``side='right'``) or ``a = p u`` ('left').

    Parameters
    ----------
    {a_matrix}
    side : {'right', 'left'}, optional
        Which side the Hermitian factor ``p`` is on.

    Returns
    -------
    u : gpuscipy_core.ndarray, shape (M, N)
        Factor with orthonormal columns (M >= N) or rows (M < N).
    p : gpuscipy_core.ndarray, shape (N, N) ('right') or (M, M) ('left')
        Hermitian positive semi-definite factor. Both have the LAPACK type
        of ``a.dtype``.

    Raises
    ------
    ValueError
        A bad ``side``; ``a`` not 2-D (per batch slice); inf or NaN.
    {raises_svd}

    Notes
    -----
    From the thin SVD ``a = W S Vh`` (cuSOLVER ``cusolverDnXgesvd``):
    ``u = W Vh`` and ``p = V S Vh`` ('right') or ``W S W^H`` ('left'),
    formed with cuBLAS ``?gemm`` (Higham, *Functions of Matrices*, SIAM
    2008, sec. 8.1). Nothing is read back beyond the SVD's ``info``.
    """
    if side not in ["right", "left"]:
        raise ValueError("`side` must be either 'right' or 'left'")
    a = gp.asarray(a)
    if a.ndim > 2:
        return _batched(polar, [a], [2], (side,), {})
    if a.ndim != 2:
        raise ValueError("`a` must be a 2-D array.")
    if a.size == 0:
        return _on_host(lambda x: _sl.polar(x, side=side), a)
    w, s, vh = svd(a, full_matrices=False)
    u = _mm(w, vh)
    sc = s.astype(w.dtype)
    if side == "right":
        p = _mm(_conj_t(vh) * sc.reshape(1, -1), vh)
    else:
        p = _mm(w * sc.reshape(1, -1), w, "N", "C")
    return u, p


@fill_doc
def orthogonal_procrustes(A, B, check_finite=True):
    """Orthogonal (unitary) ``R`` that best maps ``A`` to ``B``.

    Minimises ``||A R - B||_F`` over unitary ``R``.

    Parameters
    ----------
    A, B : array_like, shape (..., M, N)
        Matrices (or stacks) of equal shape.
    {check_finite}

    Returns
    -------
    R : gpuscipy_core.ndarray, shape (N, N)
        The unitary matrix; the LAPACK type of ``A.dtype`` and ``B.dtype``.
    scale : gpuscipy_core.ndarray, 0-d
        Sum of the singular values of ``A^H B``; real.

    Raises
    ------
    ValueError
        ``A`` not 2-D; ``A`` and ``B`` of different shapes; inf or NaN with
        ``check_finite``.
    {raises_svd}

    Notes
    -----
    ``R = U Vh`` from the SVD ``A^H B = U S Vh`` (Schönemann,
    Psychometrika 31, 1966), with cuBLAS ``?gemm`` for the products and
    cuSOLVER ``cusolverDnXgesvd``.

    Differences from SciPy: ``scale`` is a 0-d device array (SciPy returns
    a NumPy scalar).
    """
    A = gp.asarray(A)
    B = gp.asarray(B)
    if A.ndim > 2 or B.ndim > 2:
        return _batched(orthogonal_procrustes, [A, B], [2, 2], (),
                        dict(check_finite=check_finite))
    A = asarray_validated(A, check_finite, "A")
    B = asarray_validated(B, check_finite, "B")
    if A.ndim != 2:
        raise ValueError(f"expected ndim to be 2, but observed {A.ndim}")
    if A.shape != B.shape:
        raise ValueError(f"the shapes of A and B differ ({A.shape} vs {B.shape})")
    if A.size == 0:
        return _on_host(_sl.orthogonal_procrustes, A, B)
    dt = lapack_dtype(A.dtype, B.dtype)
    M = _mm(A.astype(dt, copy=False), B.astype(dt, copy=False), "C", "N")
    u, w, vt = svd(M, check_finite=False)
    R = _mm(u, vt)
    scale = w.sum()
    return R, scale


@fill_doc
def subspace_angles(A, B):
    """Principal angles between the column spaces of two matrices.

    Parameters
    ----------
    A : array_like, shape (..., M, N)
        First matrix (or stack); its columns span the first subspace.
    B : array_like, shape (..., M, K)
        Second matrix; same number of rows as ``A``.

    Returns
    -------
    angles : gpuscipy_core.ndarray, shape (min(rank A, rank B),)
        Angles in radians, descending; float32 or float64.

    Raises
    ------
    ValueError
        ``A`` or ``B`` not 2-D; different row counts; inf or NaN.
    {raises_svd}

    Notes
    -----
    Orthonormal bases ``QA``, ``QB`` from :func:`orth`; the cosines are the
    singular values of ``QA^H QB``, and angles near zero come from the sines
    (singular values of ``QB - QA QA^H QB``) for accuracy (Knyazev &
    Argentati, SIAM J. Sci. Comput. 23(6), 2002). cuSOLVER
    ``cusolverDnXgesvd`` and cuBLAS ``?gemm``; whether any cosine is at
    least ``sqrt(0.5)`` is read back once.
    """
    A = gp.asarray(A)
    B = gp.asarray(B)
    if A.ndim > 2 or B.ndim > 2:
        return _batched(subspace_angles, [A, B], [2, 2], (), {})
    A = asarray_validated(A, True, "A")
    if A.ndim != 2:
        raise ValueError(f"expected 2D array, got shape {A.shape}")
    QA = orth(A)
    B = asarray_validated(B, True, "B")
    if B.ndim != 2:
        raise ValueError(f"expected 2D array, got shape {B.shape}")
    if B.shape[0] != QA.shape[0]:
        raise ValueError("A and B must have the same number of rows, got "
                         f"{QA.shape[0]} and {B.shape[0]}")
    QB = orth(B)
    dt = numpy.result_type(QA.dtype, QB.dtype)
    QA = QA.astype(dt, copy=False)
    QB = QB.astype(dt, copy=False)
    QA_H_QB = _mm(QA, QB, "C", "N")
    sigma = svdvals(QA_H_QB, check_finite=False)
    if QA.shape[1] >= QB.shape[1]:
        Bm = QB - _mm(QA, QA_H_QB)
    else:
        Bm = QA - _mm(QB, QA_H_QB, "N", "C")
    mask = sigma ** 2 >= 0.5
    if bool(mask.any()):
        mu_arcsin = gp.arcsin(gp.clip(svdvals(Bm, check_finite=False), -1.0, 1.0))
    else:
        mu_arcsin = gp.zeros((), sigma.dtype)
    theta = gp.where(mask, mu_arcsin, gp.arccos(gp.clip(sigma[::-1], -1.0, 1.0)))
    return theta
