"""Tests of gpuscipy.linalg.expm against scipy.linalg.expm.

Tolerance: scaling and squaring is backward stable to ~u; the forward error
relative to ||expm(A)|| is bounded by cond(exp, A) * u: 1e-4 (single) and
1e-10 (double) for the well-conditioned random matrices used here.
"""

import numpy as np
import pytest
import scipy.linalg as sl

gpu = pytest.mark.gpu

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def _rand(shape, dt, scale, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return (scale * x).astype(dt)


@gpu
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("scale", [1e-3, 0.05, 0.3, 1.0, 10.0])   # m = 3..13, squaring
@pytest.mark.parametrize("n", [1, 4, 17])
def test_expm(dt, scale, n):
    import gpuscipy_core as gp
    from gpuscipy.linalg import expm
    a = _rand((n, n), dt, scale / max(1, n) ** 0.5)
    got = gp.asnumpy(expm(gp.asarray(a)))
    ref = sl.expm(a)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    tol = 1e-4 if np.dtype(dt).char in "fF" else 1e-10
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * np.abs(ref).max())


@gpu
def test_expm_batched_ints_edges_errors():
    import gpuscipy_core as gp
    from gpuscipy.linalg import expm, LinAlgError
    a = _rand((2, 3, 5, 5), np.float64, 0.5)
    np.testing.assert_allclose(gp.asnumpy(expm(gp.asarray(a))), sl.expm(a), rtol=1e-10,
                               atol=1e-12)
    ai = np.array([[0, 1], [-1, 0]])
    got = gp.asnumpy(expm(gp.asarray(ai)))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, sl.expm(ai), atol=1e-12)
    assert gp.asnumpy(expm(gp.asarray(np.eye(2, dtype=np.float16)))).dtype == np.float32
    assert expm(gp.empty((0, 0))).shape == (0, 0)
    with pytest.raises(LinAlgError, match="at least two-dimensional"):
        expm(gp.ones(3))
    with pytest.raises(LinAlgError, match="must be square"):
        expm(gp.ones((2, 3)))
    # nilpotent: exact finite series
    nil = np.triu(np.ones((4, 4)), 1)
    np.testing.assert_allclose(gp.asnumpy(expm(gp.asarray(nil))), sl.expm(nil), atol=1e-12)
    # 1-element non-2-D input: SciPy returns [[exp(x)]]
    assert gp.asnumpy(expm(gp.asarray(np.array([0.5])))).shape == (1, 1)


@gpu
@pytest.mark.parametrize("n", [3, 12, 40])
def test_expm_stack_mixed_degrees(n):
    """A stack whose matrices need different (m, s): batched groups, sorted
    squaring prefixes and the unsorting must give every matrix its own
    result; diagonal/triangular members keep SciPy's exact structure."""
    import gpuscipy_core as gp
    from gpuscipy.linalg import expm
    rng = np.random.default_rng(3)
    scales = [1e-4, 0.05, 0.5, 2.0, 30.0, 1e-3, 8.0]
    a = np.stack([s * rng.standard_normal((n, n)) / n ** 0.5 for s in scales])
    a[1] = np.diag(rng.standard_normal(n))                      # diagonal
    a[3] = np.triu(a[3])                                        # triangular
    a = a.reshape(7, 1, n, n)
    got = gp.asnumpy(expm(gp.asarray(a)))
    ref = sl.expm(a)
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-11 * np.abs(ref).max())
    np.testing.assert_array_equal(np.tril(got[3, 0], -1), 0)
    np.testing.assert_array_equal(got[1, 0], np.diag(np.exp(np.diag(a[1, 0]))))
    # complex64 stack of 33 x 33 (cuBLAS batched LU path) and 1 x 1
    c = (rng.standard_normal((3, 33, 33)) + 1j * rng.standard_normal((3, 33, 33)))
    c = (c / 10).astype(np.complex64)
    np.testing.assert_allclose(gp.asnumpy(expm(gp.asarray(c))), sl.expm(c), rtol=1e-4,
                               atol=1e-5)


# ---------------------------------------------------------------- CPU: degree choice
def _host_pick(a):
    """Feed gpuscipy's pure pick_pade with NumPy norms computed like the GPU path."""
    from gpuscipy.linalg._matfuncs import pick_pade, _SPINS
    n1 = lambda x: np.abs(x).sum(0).max()          # noqa: E731
    A2 = a @ a
    A4 = A2 @ A2
    A6 = A4 @ A2
    absA = np.abs(a).astype(np.float64)
    rows = absA.sum(1)
    normA = rows.max()
    Bm = absA / normA
    w = rows / normA
    lrs = []
    for p in range(2, _SPINS[-1] + 1):
        w = Bm @ w
        if p in _SPINS:
            lrs.append(np.log2(w.max()) + (p - 1) * np.log2(normA))
    return pick_pade(n1(A4) ** 0.25, n1(A6) ** (1 / 6), lambda: n1(A4 @ A4) ** 0.125,
                     lambda: n1(A6 @ A4) ** 0.1, lrs, a.dtype.char in "fF")


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.complex128])
def test_pick_pade_matches_scipy(dt):
    """Same (m, s) as SciPy's pick_pade_structure (ell terms included), up to
    rare boundary ties from rounding in the norm computations."""
    from scipy.linalg._matfuncs_expm import pick_pade_structure
    rng = np.random.default_rng(5)
    agree = total = 0
    for t in range(240):
        n = int(rng.integers(2, 9))
        a = rng.standard_normal((n, n)) * 10 ** rng.uniform(-3, 1.5)
        if np.dtype(dt).kind == "c":
            a = a + 1j * rng.standard_normal((n, n)) * np.abs(a).max()
        if t % 3 == 0:                     # strongly non-normal: ell matters
            a = np.triu(a) * np.where(rng.random((n, n)) < 0.5, 1e3, 1)
        a = a.astype(dt)
        Am = np.empty((5, n, n), dt)
        Am[0] = a
        ref = tuple(pick_pade_structure(Am))
        got = _host_pick(a)
        total += 1
        agree += got == ref
        assert got[0] == ref[0] or abs([3, 5, 7, 9, 13].index(got[0])
                                        - [3, 5, 7, 9, 13].index(ref[0])) == 1
    assert agree >= 0.97 * total, (agree, total)


def test_pick_pade_ell_raises_degree():
    """A tiny-norm but very non-normal matrix: eta says m=3, ell forbids it."""
    from gpuscipy.linalg._matfuncs import pick_pade
    lrs_small = [-100.0] * 5          # ||abs(A)^p|| / ||A|| tiny: no correction
    assert pick_pade(1e-4, 1e-4, 1e-4, 1e-4, lrs_small, False) == (3, 0)
    lrs_big = [200.0] * 5
    assert pick_pade(1e-4, 1e-4, 1e-4, 1e-4, lrs_big, False)[0] > 3
