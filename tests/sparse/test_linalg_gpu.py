"""gpuscipy.sparse.linalg against SciPy on the GPU: LinearOperator
algebra, aslinearoperator, cg (x, info, callback count, preconditioners).

cg runs SciPy's recurrence in the same order, so iterates agree with
SciPy's to rounding: rtol 1e-8 (float64/complex128) and 1e-3 (float32) on
x, tested on well-conditioned systems where rounding differences do not
grow over the iterations.
"""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import gpuscipy.sparse as gs
import gpuscipy.sparse.linalg as gla
import gpuscipy_core as gp

pytestmark = pytest.mark.gpu


def _poisson(n):
    t = sp.diags([-1, 2.0, -1], [-1, 0, 1], shape=(n, n))
    return (sp.kron(sp.identity(n), t) + sp.kron(t, sp.identity(n))).tocsr()


def _spd(n, dtype, seed):
    rng = np.random.default_rng(seed)
    a = sp.random(n, n, density=0.1, random_state=rng, format="csr")
    a = a + a.T + sp.identity(n) * (abs(a).sum(axis=1).max() + 1.0)
    if np.dtype(dtype).kind == "c":
        h = sp.random(n, n, density=0.05, random_state=rng, format="csr") * 1j
        a = a + h - h.T               # Hermitian: the imaginary part antisymmetric
    return sp.csr_array(a).astype(dtype)


def _tol(dt):
    return 1e-3 if np.dtype(dt) in (np.float32, np.complex64) else 1e-8


@pytest.mark.parametrize("dtype", ["f4", "f8", "c8", "c16"])
def test_cg_matches_scipy(dtype):
    h = _spd(60, dtype, 1)
    rng = np.random.default_rng(2)
    b = rng.standard_normal(60).astype(dtype)
    xs, info_s = sla.cg(h, b, rtol=1e-6)
    x, info = gla.cg(gs.csr_array(h), gp.asarray(b), rtol=1e-6)
    assert info == info_s == 0
    assert x.dtype == xs.dtype
    np.testing.assert_allclose(gp.asnumpy(x), xs, rtol=_tol(dtype) * 10,
                               atol=_tol(dtype) * np.abs(xs).max())


def test_cg_callback_count_maxiter_and_x0():
    h = _poisson(12)
    b = np.random.default_rng(3).standard_normal(h.shape[0])
    seen, seen_s = [], []
    xs, info_s = sla.cg(h, b, rtol=1e-10, callback=lambda xk: seen_s.append(1))
    x, info = gla.cg(gs.csr_array(h), b, rtol=1e-10, callback=lambda xk: seen.append(1))
    assert info == info_s == 0 and len(seen) == len(seen_s)
    np.testing.assert_allclose(gp.asnumpy(x), xs, rtol=1e-8, atol=1e-10)
    for maxiter in (1, 5, 9, 17):
        xs, info_s = sla.cg(h, b, rtol=1e-12, maxiter=maxiter)
        x, info = gla.cg(gs.csr_array(h), b, rtol=1e-12, maxiter=maxiter)
        assert info == info_s == maxiter
        np.testing.assert_allclose(gp.asnumpy(x), xs, rtol=1e-9, atol=1e-12)
    x0 = np.ones(h.shape[0])
    xs, _ = sla.cg(h, b, x0=x0, rtol=1e-8)
    x, _ = gla.cg(gs.csr_array(h), b, x0=gp.asarray(x0), rtol=1e-8)
    np.testing.assert_allclose(gp.asnumpy(x), xs, rtol=1e-7, atol=1e-9)
    x, info = gla.cg(gs.csr_array(h), np.zeros(h.shape[0]))
    assert info == 0 and not np.any(gp.asnumpy(x))


def test_cg_preconditioners_and_operators():
    h = _spd(50, "f8", 4)
    b = np.random.default_rng(5).standard_normal(50)
    d = 1.0 / h.diagonal()
    Ms = sla.LinearOperator(h.shape, matvec=lambda v: d * v)
    xs, _ = sla.cg(h, b, M=Ms, rtol=1e-9)
    dd = gp.asarray(d)
    M = gla.LinearOperator(h.shape, matvec=lambda v: dd * v.reshape(-1), dtype=np.float64)
    x, info = gla.cg(gs.csr_array(h), b, M=M, rtol=1e-9)
    assert info == 0
    np.testing.assert_allclose(gp.asnumpy(x), xs, rtol=1e-7, atol=1e-10)
    x2, _ = gla.cg(gs.csr_array(h), b, M=gs.csr_array(sp.diags(d)), rtol=1e-9)
    np.testing.assert_allclose(gp.asnumpy(x2), xs, rtol=1e-7, atol=1e-10)
    A = gla.aslinearoperator(gp.asarray(h.toarray()))
    x3, _ = gla.cg(A, b, rtol=1e-9)
    xs3, _ = sla.cg(h.toarray(), b, rtol=1e-9)
    np.testing.assert_allclose(gp.asnumpy(x3), xs3, rtol=1e-7, atol=1e-10)


def test_cg_bad_input():
    a = gs.csr_array(np.eye(3))
    with pytest.raises(ValueError, match="expected square matrix"):
        gla.cg(gs.csr_array(np.ones((2, 3))), np.ones(2))
    with pytest.raises(ValueError, match="incompatible"):
        gla.cg(a, np.ones(4))
    with pytest.raises(ValueError, match="incompatible"):
        gla.cg(a, np.ones(3), x0=np.ones(2))


def test_linear_operator_algebra():
    rng = np.random.default_rng(6)
    m = rng.standard_normal((5, 4)) + 1j * rng.standard_normal((5, 4))
    n = rng.standard_normal((4, 3))
    A = gla.aslinearoperator(gp.asarray(m))
    B = gla.aslinearoperator(gs.csr_array(n))
    x = rng.standard_normal(4)
    y = rng.standard_normal(5)
    X = rng.standard_normal((4, 2))
    close = np.testing.assert_allclose
    close(gp.asnumpy(A.matvec(x)), m @ x, rtol=1e-12)
    close(gp.asnumpy(A.matvec(x.reshape(4, 1))), (m @ x).reshape(5, 1), rtol=1e-12)
    close(gp.asnumpy(A.rmatvec(y)), m.conj().T @ y, rtol=1e-12)
    close(gp.asnumpy(A.matmat(X)), m @ X, rtol=1e-12)
    close(gp.asnumpy(A @ x), m @ x, rtol=1e-12)
    close(gp.asnumpy(A.H.matvec(y)), m.conj().T @ y, rtol=1e-12)
    close(gp.asnumpy(A.T.matvec(y)), m.T @ y, rtol=1e-12)
    close(gp.asnumpy((A * B).matvec(rng.standard_normal(3) * 0 + 1)), m @ n @ np.ones(3),
          rtol=1e-12)
    close(gp.asnumpy((2 * A).matvec(x)), 2 * (m @ x), rtol=1e-12)
    close(gp.asnumpy((A + A).matvec(x)), 2 * (m @ x), rtol=1e-12)
    close(gp.asnumpy((-A).matvec(x)), -(m @ x), rtol=1e-12)
    sq = gla.aslinearoperator(gp.asarray(m[:4]))
    close(gp.asnumpy((sq ** 3).matvec(x)), np.linalg.matrix_power(m[:4], 3) @ x, rtol=1e-11)
    f = gla.LinearOperator((5, 4), matvec=lambda v: gp.asarray(m) @ v.reshape(-1),
                           rmatvec=lambda v: gp.asarray(m.conj().T) @ v.reshape(-1))
    assert f.dtype == np.complex128
    close(gp.asnumpy(f.matmat(X)), m @ X, rtol=1e-12)
    close(gp.asnumpy(f.H.matvec(y)), m.conj().T @ y, rtol=1e-12)
    with pytest.raises(ValueError, match="dimension mismatch"):
        A.matvec(np.ones(5))
    with pytest.raises(ValueError, match="shape mismatch"):
        A + B
    with pytest.raises(TypeError, match="type not understood"):
        gla.aslinearoperator("abc")
    with pytest.raises(ValueError, match="invalid shape"):
        gla.LinearOperator((2, 3, 4), matvec=lambda v: v)
    with pytest.raises(TypeError, match="at least one of"):
        type("Bad", (gla.LinearOperator,), {})(np.float64, (2, 2))
