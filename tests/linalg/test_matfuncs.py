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
    # diagonal input: exp of the diagonal, off-diagonal exactly zero. The
    # diagonal is the device's exp (CUDA: <= 1 ulp), not bitwise glibc's.
    d = np.diag(a[1, 0])
    np.testing.assert_array_equal(got[1, 0] - np.diag(np.diag(got[1, 0])), 0)
    np.testing.assert_allclose(np.diag(got[1, 0]), np.exp(d), rtol=4 * np.finfo(float).eps,
                               atol=0)
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


# Independent reference of the degree/scaling choice, written from the paper
# (Al-Mohy & Higham 2009, Algorithm 5.1; theta_m from Table 3.1;
# |c_{2m+1}| = (m!)^2 / ((2m)! (2m+1)!), the leading coefficient of the Pade
# error series) with SciPy's documented variants: theta_13 = 4.25 and the
# ``ell`` term from the exact inf-norm of abs(A)^(2m+1). Exact matrix powers
# in float64/complex128, so it shares no code path with gpuscipy's pick_pade
# (which gets ||abs(A)^p||_inf from a power iteration on the normalised
# abs(A)). Checked once offline against SciPy 1.17's (private)
# pick_pade_structure: 1999/2000, 1997/2000, 1997/2000 agreement on this
# generator for float64/float32/complex128; tests never import SciPy
# private modules (they move between versions: 1.18 removed this one).
_REF_THETA = {3: 1.495585217958292e-2, 5: 2.539398330063230e-1,
              7: 9.504178996162932e-1, 9: 2.097847961257068e0, 13: 4.25}


def _ref_pick(a):
    import math
    u = 2.0 ** -24 if a.dtype.char in "fF" else 2.0 ** -53
    a = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    n1 = lambda x: np.abs(x).sum(0).max()          # noqa: E731
    d = {k: n1(np.linalg.matrix_power(a, k)) ** (1.0 / k) for k in (4, 6, 8, 10)}
    absA = np.abs(a)
    ninf = absA.sum(1).max()

    def ell(m, scale=1.0):
        c = math.factorial(m) ** 2 / (math.factorial(2 * m) * math.factorial(2 * m + 1))
        t = np.linalg.matrix_power(absA * scale, 2 * m + 1).sum(1).max()
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            v = np.log2(c * t / (ninf * scale) / u) / (2 * m)
        return max(int(math.ceil(v)), 0) if np.isfinite(v) else 0

    eta1 = max(d[4], d[6])
    for m in (3, 5):
        if ell(m) == 0 and eta1 < _REF_THETA[m]:
            return m, 0
    eta3 = max(d[6], d[8])
    for m in (7, 9):
        if ell(m) == 0 and eta3 < _REF_THETA[m]:
            return m, 0
    eta5 = min(eta3, max(d[8], d[10]))
    s = max(int(math.ceil(math.log2(eta5 / _REF_THETA[13]))), 0) if eta5 > 0 else 0
    return 13, s + ell(13, 2.0 ** -s)


def test_reference_pick_thresholds():
    """The reference itself on hand-checkable inputs: a scaled identity picks the
    smallest m with ||A|| < theta_m, and s = ceil(log2(||A|| / 4.25)) for m = 13."""
    for x, want in [(0.01, (3, 0)), (0.2, (5, 0)), (0.9, (7, 0)), (2.0, (9, 0)),
                    (4.0, (13, 0)), (17.5, (13, 3)), (1000.0, (13, 8))]:
        assert _ref_pick(x * np.eye(3)) == want, x


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.complex128])
def test_pick_pade_matches_reference(dt):
    """gpuscipy's pick_pade gives the same (m, s) as the paper's algorithm (ell
    terms included), up to rare boundary ties from rounding in the norms
    (float32 input: gpuscipy forms the powers in float32 as SciPy does, the
    reference in float64)."""
    rng = np.random.default_rng(5)
    agree = total = 0
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(240):
            n = int(rng.integers(2, 9))
            a = rng.standard_normal((n, n)) * 10 ** rng.uniform(-3, 1.5)
            if np.dtype(dt).kind == "c":
                a = a + 1j * rng.standard_normal((n, n)) * np.abs(a).max()
            if t % 3 == 0:                     # strongly non-normal: ell matters
                a = np.triu(a) * np.where(rng.random((n, n)) < 0.5, 1e3, 1)
            a = a.astype(dt)
            ref = _ref_pick(a)
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
