"""Tests of gpuscipy.linalg decompositions (qr, rq, svd, eigh, eig, lstsq, ...).

Eigenvectors and singular vectors are not unique (sign/phase), so results
are compared by invariants: reconstruction (A V = V diag(w), U S Vh = A),
orthonormality, and eigen/singular values against SciPy.

Tolerances: a backward-stable factorization reconstructs A to
O(n eps ||A||); with n <= 40 we allow 1e-4 (float32/complex64) and 1e-10
(float64/complex128) relative to ||A||.

CPU part (no GPU needed): NVRTC compile of every generated kernel, a NumPy
model of the pivoted-QR kernels checked against LAPACK's conventions (orgqr
of the compact form reconstructs A P, SciPy's pivots), argument validation
helpers.
"""

import numpy as np
import pytest
import scipy.linalg as sl
from scipy.linalg import lapack

from gpuscipy.linalg import _decomp_kernels as K

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def _tol(dt):
    return 1e-4 if np.dtype(dt).char in "fF" else 1e-10


def _rand(shape, dt, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dt)


def _herm(n, dt, seed=0):
    a = _rand((n, n), dt, seed)
    return ((a + a.conj().T) / 2).astype(dt)


# ---------------------------------------------------------------- CPU tests
@pytest.mark.parametrize("kernel", sorted(K.KERNELS))
@pytest.mark.parametrize("dtype", K.DTYPES)
def test_kernels_compile(kernel, dtype):
    from gpuscipy_core._kernel._nvrtc import compile_cubin
    if kernel == "eig_pairs" and dtype.startswith("complex"):
        with pytest.raises(ValueError):
            K.kernel_source(kernel, dtype)
        return
    src, name = K.kernel_source(kernel, dtype)
    assert name == f"gs_linalg_{kernel}_{dtype}"
    assert len(compile_cubin(src, name, ("-std=c++17",))) > 0


def _qrcp_model(A):
    """NumPy transcription of the qrcp_start/qrcp_step kernels (same arithmetic)."""
    A = np.array(A, order="F")
    m, n = A.shape
    k = min(m, n)
    tau = np.zeros(k, A.dtype)
    perm = np.arange(n)
    vn = np.sqrt((abs(A) ** 2).sum(0))
    for j in range(k):
        p = j + int(np.argmax(vn[j:]))
        if p != j:
            A[:, [j, p]] = A[:, [p, j]]
            vn[[j, p]] = vn[[p, j]]
            perm[[j, p]] = perm[[p, j]]
        col = A[:, j]
        x = col[j + 1:]
        xnorm = np.sqrt((abs(x) ** 2).sum())
        alpha = col[j]
        v = np.zeros(m, A.dtype)
        if xnorm == 0 and alpha.imag == 0:
            tau[j] = 0
        else:
            beta = np.sqrt(abs(alpha) ** 2 + xnorm ** 2)
            beta = -beta if alpha.real >= 0 else beta
            tau[j] = (beta - alpha.real) / beta - 1j * alpha.imag / beta \
                if A.dtype.kind == "c" else (beta - alpha.real) / beta
            col[j + 1:] = col[j + 1:] / (alpha - beta)
            col[j] = beta
        v[j + 1:] = col[j + 1:]
        v[j] = 1
        for c in range(j + 1, n):
            w = np.vdot(v[j:], A[j:, c])
            A[j:, c] -= np.conj(tau[j]) * v[j:] * w
            vn[c] = np.sqrt((abs(A[j + 1:, c]) ** 2).sum())
    return A, tau, perm


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (1, 3), (3, 1)])
def test_qrcp_model_matches_lapack_conventions(dt, shape):
    m, n = shape
    A = _rand(shape, dt, 3)
    if n > 1:
        # rank deficient; a multiple, not a copy: a copy ties exactly in
        # norm with its original, and the BLAS kernels break that tie by
        # rounding differently (OpenBLAS's Prescott and Core2 kernels chose
        # the other column of the pair than the SkylakeX and Haswell ones)
        A[:, 1] = 2 * A[:, 0]
    qrm, tau, perm = _qrcp_model(A)
    R = np.triu(qrm)
    Qb = np.zeros((m, m), dt)
    Qb[:, :min(m, n)] = qrm[:, :min(m, n)]
    orgqr = lapack.dorgqr if dt == np.float64 else lapack.zungqr
    Q, _, info = orgqr(Qb, tau, lwork=8 * m)
    assert info == 0
    np.testing.assert_allclose(Q @ R, A[:, perm], atol=1e-12)
    d = abs(np.diag(R))
    assert np.all(np.diff(d) <= 1e-12)
    np.testing.assert_array_equal(perm, sl.qr(A, pivoting=True)[2])


def test_public_names():
    import gpuscipy.linalg as L
    from gpuscipy.linalg import _decomp
    for name in _decomp.__all__:
        assert callable(getattr(L, name)), name
        assert getattr(L, name).__doc__, name


def test_select_validation():
    from gpuscipy.linalg._decomp import _check_select
    assert _check_select("a", None, 0, 5)[0] == "a"
    assert _check_select("i", (1, 3), 0, 5) == ("i", 1, 3)
    with pytest.raises(ValueError, match="select"):
        _check_select("x", None, 0, 5)
    with pytest.raises(ValueError):
        _check_select("i", (3, 1), 0, 5)
    with pytest.raises(ValueError, match="out of bounds"):
        _check_select("i", (0, 5), 0, 5)


# ---------------------------------------------------------------- GPU tests
gpu = pytest.mark.gpu


def _gp():
    import gpuscipy_core as gp
    return gp


def _h(x):
    return _gp().asnumpy(x)


def _L():
    import gpuscipy.linalg as L
    return L


@gpu
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(7, 5), (5, 7), (6, 6), (1, 1)])
@pytest.mark.parametrize("mode", ["full", "economic", "r", "raw"])
def test_qr(dt, shape, mode):
    gp, L = _gp(), _L()
    a = _rand(shape, dt)
    res = L.qr(gp.asarray(a), mode=mode)
    ref = sl.qr(a, mode=mode)
    tol = _tol(dt) * max(1, np.abs(a).max())
    if mode == "r":
        assert isinstance(res, tuple) and len(res) == 1
        R = _h(res[0])
        assert R.shape == ref[0].shape and R.dtype == ref[0].dtype
        np.testing.assert_allclose(abs(np.diag(R)), abs(np.diag(ref[0])), rtol=1e-3
                                   if np.dtype(dt).char in "fF" else 1e-9)
        return
    if mode == "raw":
        (qr_raw, tau), R = res
        assert _h(qr_raw).shape == ref[0][0].shape
        assert _h(tau).shape == ref[0][1].shape
        assert _h(R).shape == ref[1].shape
        return
    Q, R = (_h(x) for x in res)
    assert Q.shape == ref[0].shape and R.shape == ref[1].shape
    assert Q.dtype == ref[0].dtype and R.dtype == ref[1].dtype
    np.testing.assert_allclose(Q @ R, a, atol=tol)
    np.testing.assert_allclose(Q.conj().T @ Q, np.eye(Q.shape[1]), atol=tol)
    np.testing.assert_array_equal(np.tril(R, -1), 0)


@gpu
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(9, 6), (6, 9), (8, 8), (1, 4)])
@pytest.mark.parametrize("mode", ["full", "economic"])
def test_qr_pivoting(dt, shape, mode):
    gp, L = _gp(), _L()
    a = _rand(shape, dt, 1)
    if shape[1] > 2:
        a[:, 2] = a[:, 0] + a[:, 1]          # rank deficient
    Q, R, P = L.qr(gp.asarray(a), mode=mode, pivoting=True)
    Q, R, P = _h(Q), _h(R), _h(P)
    Qr, Rr, Pr = sl.qr(a, mode=mode, pivoting=True)
    assert P.dtype == Pr.dtype and sorted(P) == list(range(shape[1]))
    tol = _tol(dt) * max(1, np.abs(a).max()) * 10
    np.testing.assert_allclose(Q @ R, a[:, P], atol=tol)
    d = abs(np.diag(R))
    assert np.all(np.diff(d) <= tol), d
    np.testing.assert_allclose(d, abs(np.diag(Rr)), atol=tol * 10)


@gpu
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(300, 200), (150, 260)])
def test_qr_pivoting_many_blocks(dt, shape):
    """Hundreds of blocks per launch of the fused qrcp_step kernel (update on
    every SM, pivot + reflector in the last block to finish): the pivots must
    equal SciPy's geqp3 exactly on columns of well-separated norms, and two
    calls must agree bit for bit (the counter reset between launches)."""
    gp, L = _gp(), _L()
    rng = np.random.default_rng(7)
    sc = np.logspace(0, -3, shape[1])[rng.permutation(shape[1])]
    a = (_rand(shape, dt, 7) * sc.astype(np.dtype(dt).char.lower())).astype(dt)
    Q, R, P = L.qr(gp.asarray(a), mode="economic", pivoting=True)
    Q, R, P = _h(Q), _h(R), _h(P)
    Qr, Rr, Pr = sl.qr(a, mode="economic", pivoting=True)
    np.testing.assert_array_equal(P, Pr)
    tol = _tol(dt) * np.abs(a).max() * 10
    np.testing.assert_allclose(Q @ R, a[:, P], atol=tol)
    np.testing.assert_allclose(abs(np.diag(R)), abs(np.diag(Rr)), rtol=_tol(dt) * 10,
                               atol=tol)
    Q2, R2, P2 = (_h(x) for x in L.qr(gp.asarray(a), mode="economic", pivoting=True))
    np.testing.assert_array_equal(P2, P)
    np.testing.assert_array_equal(R2, R)


@gpu
def test_qr_errors_and_edges():
    gp, L = _gp(), _L()
    with pytest.raises(ValueError, match="Mode argument"):
        L.qr(gp.ones((2, 2)), mode="bad")
    with pytest.raises(ValueError, match="infs or NaNs"):
        L.qr(gp.asarray(np.array([[np.nan, 1.0], [0, 1]])))
    with pytest.raises(ValueError):
        L.qr(gp.ones(3))
    Q, R = L.qr(gp.empty((0, 3)))
    Qr, Rr = sl.qr(np.empty((0, 3)))
    assert _h(Q).shape == Qr.shape and _h(R).shape == Rr.shape
    # integers promote to float64; non-contiguous input
    ai = np.arange(12).reshape(3, 4)
    Q, R = L.qr(gp.asarray(ai))
    assert _h(Q).dtype == np.float64
    np.testing.assert_allclose(_h(Q) @ _h(R), ai, atol=1e-10)
    a = _rand((8, 8), np.float64)
    Q, R = L.qr(gp.asarray(a)[::2, ::-1])
    np.testing.assert_allclose(_h(Q) @ _h(R), a[::2, ::-1], atol=1e-10)


@gpu
def test_qr_batched():
    gp, L = _gp(), _L()
    a = _rand((3, 2, 5, 4), np.float64)
    Q, R = L.qr(gp.asarray(a))
    Q, R = _h(Q), _h(R)
    assert Q.shape == (3, 2, 5, 5) and R.shape == (3, 2, 5, 4)
    np.testing.assert_allclose(Q @ R, a, atol=1e-10)


@gpu
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(5, 7), (7, 5), (4, 4)])
@pytest.mark.parametrize("mode", ["full", "economic", "r"])
def test_rq(dt, shape, mode):
    gp, L = _gp(), _L()
    a = _rand(shape, dt, 2)
    res = L.rq(gp.asarray(a), mode=mode)
    ref = sl.rq(a, mode=mode)
    tol = _tol(dt) * 10
    if mode == "r":
        R = _h(res)
        assert R.shape == ref.shape
        np.testing.assert_allclose(abs(R), abs(ref), atol=tol * 10)
        return
    R, Q = _h(res[0]), _h(res[1])
    assert R.shape == ref[0].shape and Q.shape == ref[1].shape
    np.testing.assert_allclose(R @ Q, a, atol=tol)
    np.testing.assert_allclose(Q @ Q.conj().T, np.eye(Q.shape[0]), atol=tol)
    # upper trapezoidal aligned like LAPACK's gerqf
    np.testing.assert_array_equal(R[np.abs(ref[0]) == 0], 0)


@gpu
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(8, 5), (5, 8), (6, 6), (1, 1), (3, 1)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(dt, shape, full):
    gp, L = _gp(), _L()
    a = _rand(shape, dt, 4)
    U, s, Vh = (_h(x) for x in L.svd(gp.asarray(a), full_matrices=full))
    Ur, sr, Vhr = sl.svd(a, full_matrices=full)
    assert U.shape == Ur.shape and s.shape == sr.shape and Vh.shape == Vhr.shape
    assert U.dtype == Ur.dtype and s.dtype == sr.dtype and Vh.dtype == Vhr.dtype
    tol = _tol(dt) * 10
    np.testing.assert_allclose(s, sr, rtol=tol, atol=tol)
    k = len(s)
    np.testing.assert_allclose((U[:, :k] * s) @ Vh[:k], a, atol=tol)
    np.testing.assert_allclose(U.conj().T @ U, np.eye(U.shape[1]), atol=tol)
    np.testing.assert_allclose(Vh @ Vh.conj().T, np.eye(Vh.shape[0]), atol=tol)
    sv = _h(L.svdvals(gp.asarray(a)))
    np.testing.assert_allclose(sv, sr, rtol=tol, atol=tol)


@gpu
def test_svd_errors_batched_edges():
    gp, L = _gp(), _L()
    with pytest.raises(ValueError, match='lapack_driver must be "gesdd" or "gesvd"'):
        L.svd(gp.ones((2, 2)), lapack_driver="foo")
    with pytest.raises(ValueError, match="infs or NaNs"):
        L.svd(gp.asarray(np.array([[np.inf, 1.0], [0, 1]])))
    a = _rand((2, 3, 6, 4), np.float32)
    s = _h(L.svdvals(gp.asarray(a)))
    np.testing.assert_allclose(s, sl.svdvals(a), rtol=1e-4, atol=1e-5)
    U, s, Vh = L.svd(gp.empty((0, 3)))
    Ur, sr, Vhr = sl.svd(np.empty((0, 3)))
    assert _h(U).shape == Ur.shape and _h(s).shape == sr.shape and _h(Vh).shape == Vhr.shape
    # rank deficient
    r = _rand((6, 2), np.float64) @ _rand((2, 5), np.float64, 1)
    np.testing.assert_allclose(_h(L.svdvals(gp.asarray(r))), sl.svdvals(r), atol=1e-10)


@gpu
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", [1, 5, 33])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("order", ["C", "F"])
def test_eigh(dt, n, lower, order):
    gp, L = _gp(), _L()
    a = np.asarray(_herm(n, dt), order=order)
    # poison the unused triangle: the result must not depend on it
    bad = a.copy()
    iu = np.triu_indices(n, 1) if lower else np.tril_indices(n, -1)
    bad[iu] = 77
    w, v = (_h(x) for x in L.eigh(gp.asarray(bad), lower=lower))
    wr = sl.eigvalsh(a)
    assert w.dtype == wr.dtype and v.dtype == np.dtype(dt)
    tol = _tol(dt) * 10 * max(1, n)
    np.testing.assert_allclose(w, wr, atol=tol)
    np.testing.assert_allclose(a @ v, v * w, atol=tol)
    np.testing.assert_allclose(v.conj().T @ v, np.eye(n), atol=tol)
    w2 = _h(L.eigvalsh(gp.asarray(a)))
    np.testing.assert_allclose(w2, wr, atol=tol)


@gpu
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("itype", [1, 2, 3])
def test_eigh_generalized(dt, itype):
    gp, L = _gp(), _L()
    n = 6
    a = _herm(n, dt)
    c = _rand((n, n), dt, 5)
    b = (c @ c.conj().T + n * np.eye(n)).astype(dt)
    w, v = (_h(x) for x in L.eigh(gp.asarray(a), gp.asarray(b), type=itype))
    wr = sl.eigh(a, b, type=itype, eigvals_only=True)
    tol = _tol(dt) * 100
    np.testing.assert_allclose(w, wr, rtol=tol, atol=tol)
    if itype == 1:
        np.testing.assert_allclose(a @ v, b @ v * w, atol=tol * 10)


@gpu
def test_eigh_subsets_errors_batched():
    gp, L = _gp(), _L()
    a = _herm(10, np.float64)
    wr = sl.eigvalsh(a)
    w, v = L.eigh(gp.asarray(a), subset_by_index=[2, 5])
    np.testing.assert_allclose(_h(w), wr[2:6], atol=1e-10)
    assert _h(v).shape == (10, 4)
    lo, hi = wr[3] - 1e-3, wr[7] + 1e-3
    w = _h(L.eigvalsh(gp.asarray(a), subset_by_value=(lo, hi)))
    np.testing.assert_allclose(w, sl.eigvalsh(a, subset_by_value=(lo, hi)), atol=1e-10)
    with pytest.raises(ValueError, match="Requested eigenvalue indices"):
        L.eigh(gp.asarray(a), subset_by_index=[5, 20])
    with pytest.raises(ValueError, match="unknown"):
        L.eigh(gp.asarray(a), driver="xx")
    with pytest.raises(ValueError, match='expected square "a" matrix'):
        L.eigh(gp.ones((2, 3)))
    with pytest.raises(ValueError, match="infs or NaNs"):
        L.eigh(gp.asarray(np.full((2, 2), np.nan)))
    with pytest.raises(sl.LinAlgError, match="not positive definite"):
        L.eigh(gp.asarray(a), gp.asarray(-np.eye(10)))
    w = L.eigvalsh(gp.empty((0, 0)))
    assert _h(w).shape == (0,)
    ab = np.stack([_herm(5, np.float64, s) for s in range(3)])
    w, v = L.eigh(gp.asarray(ab))
    assert _h(w).shape == (3, 5) and _h(v).shape == (3, 5, 5)
    np.testing.assert_allclose(_h(w), np.stack([sl.eigvalsh(x) for x in ab]), atol=1e-10)
    # ints promote to float64
    wi = _h(L.eigvalsh(gp.asarray(np.array([[2, 1], [1, 2]]))))
    assert wi.dtype == np.float64
    np.testing.assert_allclose(wi, [1, 3])


@gpu
@pytest.mark.parametrize("select,rng", [("a", None), ("i", (1, 3)), ("v", (-0.5, 1.5))])
def test_eigh_tridiagonal(select, rng):
    gp, L = _gp(), _L()
    d = _rand(8, np.float64)
    e = _rand(7, np.float64, 1)
    w = _h(L.eigvalsh_tridiagonal(gp.asarray(d), gp.asarray(e), select=select,
                                  select_range=rng))
    wr = sl.eigvalsh_tridiagonal(d, e, select=select, select_range=rng)
    np.testing.assert_allclose(w, wr, atol=1e-10)
    w, v = (_h(x) for x in L.eigh_tridiagonal(gp.asarray(d), gp.asarray(e)))
    t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    np.testing.assert_allclose(t @ v, v * w, atol=1e-10)
    with pytest.raises(ValueError):
        L.eigh_tridiagonal(gp.asarray(d), gp.asarray(e[:3]))


@gpu
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", [1, 6, 20])
def test_eig(dt, n):
    gp, L = _gp(), _L()
    a = _rand((n, n), dt, 7)
    w, vl, vr = (_h(x) for x in L.eig(gp.asarray(a), left=True, right=True))
    wr = sl.eigvals(a)
    assert w.dtype == wr.dtype
    tol = _tol(dt) * 100
    _assert_same_spectrum(w, wr, atol=tol * n)
    np.testing.assert_allclose(a @ vr, vr * w, atol=tol * n)
    np.testing.assert_allclose(vl.conj().T @ a, w[:, None] * vl.conj().T, atol=tol * n)
    np.testing.assert_allclose(np.linalg.norm(vr, axis=0), 1, atol=tol)
    wv = _h(L.eigvals(gp.asarray(a)))
    _assert_same_spectrum(wv, wr, atol=tol * n)


def _assert_same_spectrum(w, ref, atol):
    """Eigenvalues equal as multisets: each of ``w`` matched to its nearest
    unused reference value (sort_complex is not usable: real parts equal in
    exact arithmetic differ by rounding, which flips conjugate pairs)."""
    w, ref = np.asarray(w), list(np.asarray(ref))
    assert len(w) == len(ref)
    for x in w:
        k = int(np.argmin([abs(x - r) for r in ref]))
        assert abs(x - ref[k]) <= atol * max(1.0, abs(ref[k])), (x, ref[k])
        ref.pop(k)


@gpu
def test_eig_real_vectors_and_generalized():
    gp, L = _gp(), _L()
    s = _herm(5, np.float64)               # real eigenvalues -> real vectors
    w, v = L.eig(gp.asarray(s))
    assert _h(w).dtype == np.complex128 and _h(v).dtype == np.float64
    a = _rand((5, 5), np.float64)
    b = _rand((5, 5), np.float64, 2) + 5 * np.eye(5)
    w, v = (_h(x) for x in L.eig(gp.asarray(a), gp.asarray(b)))
    wr = sl.eigvals(a, b)
    _assert_same_spectrum(w, wr, atol=1e-8)
    np.testing.assert_allclose(a @ v, b @ v * w, atol=1e-8)
    wh = _h(L.eigvals(gp.asarray(a), homogeneous_eigvals=True))
    assert wh.shape == (2, 5)
    with pytest.raises(NotImplementedError):
        L.eig(gp.asarray(a), gp.zeros((5, 5)))
    with pytest.raises(ValueError, match="expected square matrix"):
        L.eig(gp.ones((2, 3)))
    ab = _rand((2, 4, 4), np.complex128)
    wb = _h(L.eigvals(gp.asarray(ab)))
    for i in range(2):
        _assert_same_spectrum(wb[i], sl.eigvals(ab[i]), atol=1e-10)


@gpu
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape,bshape", [((8, 4), (8,)), ((8, 4), (8, 3)),
                                          ((4, 8), (4, 2)), ((5, 5), (5,))])
def test_lstsq(dt, shape, bshape):
    gp, L = _gp(), _L()
    a = _rand(shape, dt)
    b = _rand(bshape, dt, 1)
    x, res, rank, s = L.lstsq(gp.asarray(a), gp.asarray(b))
    xr, resr, rankr, sr = sl.lstsq(a, b)
    tol = _tol(dt) * 100
    np.testing.assert_allclose(_h(x), xr, atol=tol)
    assert rank == rankr
    np.testing.assert_allclose(_h(s), sr, rtol=tol, atol=tol)
    assert _h(res).shape == np.shape(resr)
    np.testing.assert_allclose(_h(res), resr, rtol=tol, atol=tol)


@gpu
def test_lstsq_rank_deficient_and_errors():
    gp, L = _gp(), _L()
    a = _rand((6, 2), np.float64) @ _rand((2, 4), np.float64, 1)
    b = _rand((6,), np.float64, 2)
    # rank 2: s[2] and s[3] are rounding noise, s[2] / s[0] = 1.4e-16 .. 1.6e-16
    # between OpenBLAS kernels, against the default cut-off eps = 2.2e-16: the
    # rank at that cut-off is a coin toss between correct implementations. A
    # cut-off between the noise (a few n eps) and s[1] / s[0] = 0.46 decides it.
    x, res, rank, s = L.lstsq(gp.asarray(a), gp.asarray(b), cond=1e-10)
    xr, resr, rankr, sr = sl.lstsq(a, b, cond=1e-10)
    assert rank == rankr == 2
    np.testing.assert_allclose(_h(x), xr, atol=1e-9)
    assert _h(res).shape == (0,)
    with pytest.raises(ValueError, match="Shape mismatch"):
        L.lstsq(gp.ones((3, 2)), gp.ones(4))
    with pytest.raises(ValueError, match="not found"):
        L.lstsq(gp.ones((3, 2)), gp.ones(3), lapack_driver="xx")


@gpu
@pytest.mark.parametrize("dt", DTYPES)
def test_pinv_pinvh(dt):
    gp, L = _gp(), _L()
    a = _rand((7, 4), dt)
    tol = _tol(dt) * 100
    B, r = L.pinv(gp.asarray(a), return_rank=True)
    np.testing.assert_allclose(_h(B), sl.pinv(a), atol=tol)
    assert r == 4
    h = _herm(6, dt)
    np.testing.assert_allclose(_h(L.pinvh(gp.asarray(h))), sl.pinvh(h), atol=tol * 10)
    with pytest.raises(ValueError, match="positive"):
        L.pinv(gp.asarray(a), atol=-1)


@gpu
def test_null_space_orth_polar_procrustes_angles():
    gp, L = _gp(), _L()
    a = _rand((4, 2), np.float64) @ _rand((2, 6), np.float64, 1)
    # rank 2; s[2:] / s[0] is rounding noise (2e-17 .. 5e-17 between OpenBLAS
    # kernels) near the default cut-off 6 eps = 1.3e-15: rcond 1e-10 lies
    # between the noise and s[1] / s[0] = 0.23, so every correct SVD agrees
    ns = _h(L.null_space(gp.asarray(a), rcond=1e-10))
    assert ns.shape == sl.null_space(a, rcond=1e-10).shape == (6, 4)
    np.testing.assert_allclose(a @ ns, 0, atol=1e-10)
    o = _h(L.orth(gp.asarray(a), rcond=1e-10))
    assert o.shape == sl.orth(a, rcond=1e-10).shape == (4, 2)
    np.testing.assert_allclose(o @ o.T @ a, a, atol=1e-10)
    m = _rand((5, 5), np.complex128)
    for side in ("right", "left"):
        u, p = (_h(x) for x in L.polar(gp.asarray(m), side=side))
        ur, pr = sl.polar(m, side=side)
        np.testing.assert_allclose(u, ur, atol=1e-10)
        np.testing.assert_allclose(p, pr, atol=1e-10)
    A = _rand((6, 3), np.float64)
    B = _rand((6, 3), np.float64, 1)
    R, sc = L.orthogonal_procrustes(gp.asarray(A), gp.asarray(B))
    Rr, scr = sl.orthogonal_procrustes(A, B)
    np.testing.assert_allclose(_h(R), Rr, atol=1e-10)
    np.testing.assert_allclose(float(sc), scr, rtol=1e-10)
    th = _h(L.subspace_angles(gp.asarray(A), gp.asarray(B[:, :2])))
    np.testing.assert_allclose(th, sl.subspace_angles(A, B[:, :2]), atol=1e-10)
    with pytest.raises(ValueError, match="side"):
        L.polar(gp.asarray(m), side="up")


@gpu
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_eigh_subsets_syevdx(dt, order):
    """subset_by_index / subset_by_value through Xsyevdx (and sygvdx/hegvdx
    with b=): values, vectors (A v = w v), infinite ends, empty selection."""
    gp, L = _gp(), _L()
    n = 30
    a = np.asarray(_herm(n, dt, 3), order=order)
    wr = sl.eigvalsh(a)
    tol = _tol(dt) * 100
    for lower in (True, False):
        w, v = (_h(x) for x in L.eigh(gp.asarray(a), lower=lower,
                                      subset_by_index=(3, 9)))
        assert w.shape == (7,) and v.shape == (n, 7)
        np.testing.assert_allclose(w, wr[3:10], atol=tol)
        np.testing.assert_allclose(a @ v, v * w, atol=tol)
    lo, hi = (wr[4] + wr[5]) / 2, (wr[20] + wr[21]) / 2
    for rng in [(lo, hi), (-np.inf, hi), (lo, np.inf), (-np.inf, np.inf)]:
        w = _h(L.eigvalsh(gp.asarray(a), subset_by_value=rng))
        np.testing.assert_allclose(w, sl.eigvalsh(a, subset_by_value=rng), atol=tol)
    w, v = L.eigh(gp.asarray(a), subset_by_value=(1e6, 2e6))
    assert _h(w).shape == (0,) and _h(v).shape == (n, 0)
    c = _rand((n, n), dt, 5)
    b = (c @ c.conj().T + n * np.eye(n)).astype(dt)
    for itype in (1, 2, 3):
        w, v = (_h(x) for x in L.eigh(gp.asarray(a), gp.asarray(b), type=itype,
                                      subset_by_index=(0, 4)))
        wref = sl.eigh(a, b, type=itype, eigvals_only=True)
        np.testing.assert_allclose(w, wref[:5], rtol=tol, atol=tol)
        if itype == 1:
            np.testing.assert_allclose(a @ v, b @ v * w, atol=tol * 10)
    wref = sl.eigh(a, b, eigvals_only=True)
    for rng in [((wref[2] + wref[3]) / 2, (wref[8] + wref[9]) / 2),
                (-np.inf, (wref[8] + wref[9]) / 2)]:
        w = _h(L.eigvalsh(gp.asarray(a), gp.asarray(b), subset_by_value=rng))
        np.testing.assert_allclose(w, sl.eigvalsh(a, b, subset_by_value=rng),
                                   rtol=tol, atol=tol)


@gpu
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", [1, 7, 32])
def test_eigh_batched_jacobi(dt, n):
    """Stacks with n <= 32 go through syevjBatched/heevjBatched."""
    gp, L = _gp(), _L()
    a = np.stack([_herm(n, dt, s) for s in range(6)]).reshape(2, 3, n, n)
    res = L.eigh(gp.asarray(a))
    assert isinstance(res, list) and len(res) == 2
    w, v = (_h(x) for x in res)
    wr = sl.eigvalsh(a)
    assert w.shape == wr.shape and w.dtype == wr.dtype and v.dtype == np.dtype(dt)
    tol = _tol(dt) * 10 * n
    np.testing.assert_allclose(w, wr, atol=tol)
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=tol)
    eye = np.eye(n)
    np.testing.assert_allclose(np.swapaxes(v.conj(), -1, -2) @ v,
                               np.broadcast_to(eye, v.shape), atol=tol)
    # upper triangle only, eigvalsh, subset by index, non-contiguous input
    bad = a.copy()
    bad[..., np.tril_indices(n, -1)[0], np.tril_indices(n, -1)[1]] = 55
    np.testing.assert_allclose(_h(L.eigvalsh(gp.asarray(bad), lower=False)), wr,
                               atol=tol)
    if n > 2:
        w, v = (_h(x) for x in L.eigh(gp.asarray(a), subset_by_index=(1, 2)))
        np.testing.assert_allclose(w, wr[..., 1:3], atol=tol)
        assert v.shape == a.shape[:-1] + (2,)
    big = np.stack([a, a], axis=-3)[..., 0, :, :]
    np.testing.assert_allclose(_h(L.eigvalsh(gp.asarray(big)[:, ::-1])),
                               sl.eigvalsh(big[:, ::-1]), atol=tol)
    with pytest.raises(ValueError, match="infs or NaNs"):
        bad[0, 0, 0, 0] = np.nan
        L.eigh(gp.asarray(bad))


@gpu
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (32, 32), (1, 4)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_batched_jacobi(dt, shape, full):
    """Stacks with M, N <= 32 go through gesvdjBatched."""
    gp, L = _gp(), _L()
    a = _rand((2, 3) + shape, dt, 9)
    U, s, Vh = (_h(x) for x in L.svd(gp.asarray(a), full_matrices=full))
    Ur, sr, Vhr = sl.svd(a, full_matrices=full)
    assert U.shape == Ur.shape and s.shape == sr.shape and Vh.shape == Vhr.shape
    assert U.dtype == Ur.dtype and s.dtype == sr.dtype and Vh.dtype == Vhr.dtype
    tol = _tol(dt) * 10 * max(shape)
    np.testing.assert_allclose(s, sr, rtol=tol, atol=tol)
    k = s.shape[-1]
    np.testing.assert_allclose((U[..., :, :k] * s[..., None, :]) @ Vh[..., :k, :], a,
                               atol=tol)
    np.testing.assert_allclose(np.swapaxes(U.conj(), -1, -2) @ U,
                               np.broadcast_to(np.eye(U.shape[-1]), U.shape[:-2] +
                                               (U.shape[-1],) * 2), atol=tol)
    np.testing.assert_allclose(_h(L.svdvals(gp.asarray(a))), sr, rtol=tol, atol=tol)
    # rank-deficient members
    r = _rand((4,) + shape[:1] + (1,), dt) @ _rand((4, 1) + shape[1:], dt, 1)
    np.testing.assert_allclose(_h(L.svdvals(gp.asarray(r))), sl.svdvals(r), atol=tol)
