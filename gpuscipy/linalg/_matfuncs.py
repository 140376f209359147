"""Matrix functions of gpuscipy.linalg: ``expm``.

Scaling and squaring with Padé approximants of degree 3, 5, 7, 9 or 13
(Al-Mohy & Higham 2009, with SciPy's choice of degree and scaling); a stack
of matrices is processed at once with batched GEMMs and a batched LU solve.
"""

import math

import numpy

import gpuscipy_core as gp

from ._misc import LinAlgError, lapack_dtype

__all__ = ["expm"]

# Backward-error bounds theta_m for double precision (Al-Mohy & Higham 2009,
# Table 3.1) and the Padé coefficients b_0..b_m (Higham 2005).
_THETA = {3: 1.495585217958292e-2, 5: 2.539398330063230e-1,
          7: 9.504178996162932e-1, 9: 2.097847961257068e0,
          13: 5.371920351148152e0}
_B = {
    3: (120., 60., 12., 1.),
    5: (30240., 15120., 3360., 420., 30., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    9: (17643225600., 8821612800., 2075673600., 302702400., 30270240.,
        2162160., 110880., 3960., 90., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600.,
         1187353796428800., 129060195264000., 10559470521600.,
         670442572800., 33522128640., 1323241920., 40840800., 960960.,
         16380., 182., 1.),
}


# SciPy's choice (scipy.linalg._matfuncs_expm.pick_pade_structure, which
# follows Al-Mohy & Higham 2009, Algorithm 5.1): theta_13 = 4.25 and the
# ``ell`` correction terms |c_{2m+1}| ||abs(A)^{2m+1}|| / ||A|| / u.
_THETA_PICK = (1.495585217958292e-2, 2.539398330063230e-1, 9.504178996162932e-1,
               2.097847961257068e0, 4.25)
_INV_C = (100800., 10059033600., 4487938430976000., 5914384781877411840000.,
          113250775606021113483283660800000000.)
_SPINS = (7, 11, 15, 19, 27)          # powers of abs(A) whose norms are needed


def _ell(lr, k, m, u):
    """SciPy's ``lm``: max(ceil(log2(t / normA / (u |c|^-1)) / (2m)), 0) from
    ``lr = log2(t / normA)``."""
    v = (lr - math.log2(u * _INV_C[k])) / (2 * m)
    if not math.isfinite(v):      # SciPy's int cast of a non-finite value: 0
        return 0
    return max(int(math.ceil(v)), 0)


def pick_pade(d4, d6, d8, d10, lrs, single):
    """Degree ``m`` and scaling ``s`` for one matrix (pure, host).

    ``d4 .. d10``: ``||A^k||_1^(1/k)`` (``d8``/``d10`` may be callables,
    evaluated only when needed); ``lrs``: ``log2(||abs(A)^p 1||_inf /
    ||abs(A) 1||_inf)`` for p in 7, 11, 15, 19, 27 (unscaled A); ``single``:
    float32/complex64 (unit roundoff 2^-24, else 2^-53). Returns (m, s) as
    SciPy's pick_pade_structure.
    """
    u = 2.0 ** -24 if single else 2.0 ** -53
    th = _THETA_PICK
    eta0 = max(d4, d6)
    if _ell(lrs[0], 0, 3, u) == 0 and eta0 < th[0]:
        return 3, 0
    if _ell(lrs[1], 1, 5, u) == 0 and eta0 < th[1]:
        return 5, 0
    d8 = d8() if callable(d8) else d8
    eta2 = max(d6, d8)
    if _ell(lrs[2], 2, 7, u) == 0 and eta2 < th[2]:
        return 7, 0
    if _ell(lrs[3], 3, 9, u) == 0 and eta2 < th[3]:
        return 9, 0
    d10 = d10() if callable(d10) else d10
    eta4 = min(eta2, max(d8, d10))
    s = max(int(math.ceil(math.log2(eta4 / th[4]))), 0) if eta4 > 0 else 0
    # scaling A by 2^-s scales t_27 by 2^-27s and ||A|| by 2^-s
    s += _ell(lrs[4] - 26 * s, 4, 13, u)
    return 13, s


def _bmm(x, y):
    from ._decomp_lapack import gemm_strided_batched
    return gemm_strided_batched(x, y)


def _norm1_stack(x):
    """1-norms of the matrices of a (B, n, n) stack, as a (B,) float64 device array."""
    return gp.abs(x).sum(axis=-2).max(axis=-1).astype(numpy.float64)


def _stats(a, A4, A6):
    """Host (B, 5 + 5) array: normA, d4, d6, flags and log2 ratios of the spins."""
    B, n, _ = a.shape
    absA = gp.abs(a).astype(numpy.float64)
    rows = absA.sum(axis=-1)                       # abs(A) @ 1, (B, n)
    normA = rows.max(axis=-1)                      # ||abs(A) 1||_inf
    safe = gp.where(normA > 0, normA, gp.ones((), numpy.float64))
    # normalised: ||Bm||_inf = 1, so no overflow in the powers
    Bm = absA / safe.reshape(B, 1, 1)
    w = (rows / safe.reshape(B, 1)).reshape(B, n, 1)
    maxes = []
    for p in range(2, _SPINS[-1] + 1):
        w = _bmm(Bm, w)
        if p in _SPINS:
            maxes.append(w.max(axis=(-2)).reshape(B))
    i = gp.arange(n, dtype=numpy.int64).reshape(n, 1)
    j = gp.arange(n, dtype=numpy.int64).reshape(1, n)
    nz = a != 0
    low_nz = (nz & (i > j)).reshape(B, n * n).any(axis=-1)   # strict lower used
    up_nz = (nz & (i < j)).reshape(B, n * n).any(axis=-1)
    cols = [normA, _norm1_stack(A4), _norm1_stack(A6), low_nz.astype(numpy.float64),
            up_nz.astype(numpy.float64)] + maxes
    out = gp.empty((B, len(cols)), numpy.float64)
    for k, c in enumerate(cols):
        out[:, k] = c
    return gp.asnumpy(out)


def _solve_stack(P, Q):
    """X with P_k X_k = Q_k for C-ordered (B, n, n) stacks of commuting P, Q."""
    from ._decomp_lapack import getrf_solve, getrf_solve_batched
    B, n, _ = P.shape
    if n <= 32 and B > 1:
        try:
            from ._batched_lu import batched_lu
        except ImportError:          # pragma: no cover - the other helper's module
            batched_lu = None
        if batched_lu is not None:
            r = batched_lu(P, Q)
            if bool((r["info"] != 0).any()):
                raise LinAlgError("Matrix is singular.")
            return r["x"]
    if B > 1 and n <= 256:
        return getrf_solve_batched(P, Q)
    out = gp.empty((B, n, n), P.dtype)
    for k in range(B):
        out[k] = getrf_solve(P[k].copy(order="F"), Q[k].copy(order="F"))
    return out


def _pade_group(a, A2, A4, A6, A8, m, scale, ident):
    """Pade quotient r_m of the stacks (all C-ordered (c, n, n)); ``scale``:
    per-matrix 2^-s factors (device (c,)) for m = 13, else None."""
    b = _B[m]
    c = a.shape[0]
    if m == 13:
        if scale is not None:
            f = scale.reshape(c, 1, 1)
            a = a * f
            A2 = A2 * (f * f)
            A4 = A4 * (f ** 4)
            A6 = A6 * (f ** 6)
        W1 = b[13] * A6 + b[11] * A4 + b[9] * A2
        W2 = b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * ident
        Z1 = b[12] * A6 + b[10] * A4 + b[8] * A2
        Z2 = b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * ident
        U = _bmm(a, _bmm(A6, W1) + W2)
        V = _bmm(A6, Z1) + Z2
    else:
        powers = [None, A2, A4, A6, A8]
        Ue = b[1] * ident
        V = b[0] * ident
        for k in range(1, (m - 1) // 2 + 1):
            Ue = Ue + b[2 * k + 1] * powers[k]
            V = V + b[2 * k] * powers[k]
        U = _bmm(a, Ue)          # Ue, V are (c, n, n): m >= 3 adds A2
    dt = a.dtype
    P = (V - U).astype(dt, order="C")
    Q = (V + U).astype(dt, order="C")
    return _solve_stack(P, Q)


def _expm_stack(a):
    """expm of a C-ordered (B, n, n) stack of one LAPACK dtype, n >= 2.

    Norms and degree choice for every matrix at once (at most three host
    synchronisations), then one Pade evaluation per group of equal degree
    with batched GEMMs (cublas?gemmStridedBatched) and one batched LU solve,
    and the squarings on prefixes of the group sorted by ``s``.
    """
    B, n, _ = a.shape
    dt = a.dtype
    single = dt.char in "fF"
    a0 = a
    A2 = _bmm(a, a)
    A4 = _bmm(A2, A2)
    A6 = _bmm(A4, A2)
    st = _stats(a, A4, A6)
    normA = st[:, 0]
    with numpy.errstate(divide="ignore", invalid="ignore"):
        lnorm = numpy.log2(normA)
        d4 = st[:, 1] ** 0.25
        d6 = st[:, 2] ** (1 / 6)
        lrs = [numpy.log2(st[:, 5 + k]) + (p - 1) * lnorm
               for k, p in enumerate(_SPINS)]
    lower_zero = st[:, 3] == 0
    upper_zero = st[:, 4] == 0
    cache = {}

    def lazy(key):
        def get(k):
            if key not in cache:
                if key == 8:
                    cache[8] = gp.asnumpy(_norm1_stack(_bmm(A4, A4))) ** 0.125
                else:
                    cache[10] = gp.asnumpy(_norm1_stack(_bmm(A6, A4))) ** 0.1
            return float(cache[key][k])
        return get

    picks = []
    g8, g10 = lazy(8), lazy(10)
    for k in range(B):
        picks.append(pick_pade(float(d4[k]), float(d6[k]),
                               (lambda k=k: g8(k)), (lambda k=k: g10(k)),
                               [float(x[k]) for x in lrs], single))
    A8 = _bmm(A4, A4) if any(m == 9 for m, _ in picks) else None
    # sort by (m, -s): groups of one degree are contiguous, and inside the
    # m = 13 group the matrices still to square form a prefix
    order = sorted(range(B), key=lambda k: (picks[k][0], -picks[k][1]))
    ident = gp.eye(n, dtype=dt)
    identity_perm = order == list(range(B))
    if not identity_perm:
        perm = gp.asarray(numpy.asarray(order, dtype=numpy.int64))

        def srt(x):
            return None if x is None else gp.take(x, perm, axis=0)
        a, A2, A4, A6, A8 = srt(a), srt(A2), srt(A4), srt(A6), srt(A8)
    ms = [picks[k][0] for k in order]
    ss = [picks[k][1] for k in order]
    R = gp.empty((B, n, n), dt)
    start = 0
    while start < B:
        m = ms[start]
        stop = start
        while stop < B and ms[stop] == m:
            stop += 1
        sl = slice(start, stop)
        scale = None
        if m == 13 and any(ss[start:stop]):
            scale = gp.asarray(numpy.asarray([2.0 ** -x for x in ss[start:stop]],
                                             dtype=dt.char.lower()))
        R[sl] = _pade_group(a[sl], A2[sl], A4[sl], A6[sl],
                            None if A8 is None else A8[sl], m, scale, ident)
        if m == 13:
            for t in range(max(ss[start:stop])):
                cnt = sum(1 for x in ss[start:stop] if x > t)
                sq = slice(start, start + cnt)
                R[sq] = _bmm(R[sq], R[sq])
        start = stop
    if not identity_perm:
        inv = numpy.empty(B, numpy.int64)
        inv[numpy.asarray(order)] = numpy.arange(B)
        R = gp.take(R, gp.asarray(inv), axis=0)
        a = None
    # SciPy's special cases: diagonal input -> exp of the diagonal (exact);
    # triangular input -> the other triangle exactly zero
    diag = lower_zero & upper_zero
    if diag.any() or lower_zero.any() or upper_zero.any():
        i = gp.arange(n, dtype=numpy.int64).reshape(1, n, 1)
        j = gp.arange(n, dtype=numpy.int64).reshape(1, 1, n)
        lz = gp.asarray(lower_zero).reshape(B, 1, 1)
        uz = gp.asarray(upper_zero).reshape(B, 1, 1)
        zero = gp.zeros((), dt)
        R = gp.where((lz & (i > j)) | (uz & (i < j)), zero, R)
        if diag.any():
            dg = gp.asarray(diag).reshape(B, 1, 1)
            e = gp.exp((a0 * gp.eye(n, dtype=dt)).sum(axis=-1)).reshape(B, n, 1)
            R = gp.where(dg & (i == j), e, R)
    return R


def _expm2(a):
    """expm of one (n, n) matrix of a LAPACK dtype (any layout)."""
    n = a.shape[0]
    return _expm_stack(a.astype(a.dtype, order="C").reshape(1, n, n)).reshape(n, n)


def expm(A):
    """Matrix exponential of a (stack of) square matrices.

    Parameters
    ----------
    A : (..., N, N) array_like
        Integer/bool input computes in float64, float16 in float32.

    Returns
    -------
    eA : (..., N, N) ndarray

    Raises
    ------
    LinAlgError
        Input with fewer than 2 dimensions or not square in the last two.

    Notes
    -----
    Al-Mohy & Higham's scaling and squaring with SciPy's exact choice of
    degree and scaling (exact 1-norms of A^4, A^6, A^8, A^10, theta_13 =
    4.25 and the ``ell`` correction from norms of powers of ``abs(A)``).
    A stack is processed at once: every product is one batched GEMM
    (cublas?gemmStridedBatched) over the matrices of equal Pade degree, the
    Pade quotient one batched LU solve (one warp per system for n <= 32,
    cuBLAS getrfBatched/getrsBatched up to n = 256, cuSOLVER per matrix
    above), the squarings batched over the matrices still to square.
    Diagonal input gives the exponential of the diagonal (the device's
    ``exp``, which may differ from the host's by an ulp) and triangular
    input an exactly triangular result, as SciPy; SciPy's recomputation of
    the diagonal and first off-diagonal during the squaring of triangular
    input (Al-Mohy & Higham, Code Fragment 2.1) is not applied.

    References
    ----------
    A. H. Al-Mohy and N. J. Higham, "A New Scaling and Squaring Algorithm for
    the Matrix Exponential", SIAM J. Matrix Anal. Appl. 31(3):970-989, 2009.
    """
    a = gp.asarray(A)
    if a.size == 1 and a.ndim < 2:
        cdt = numpy.complex128 if a.dtype.kind == "c" else numpy.float64
        return gp.exp(a.reshape(1, 1).astype(cdt))
    if a.ndim < 2:
        raise LinAlgError("The input array must be at least two-dimensional")
    if a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    dt = lapack_dtype(a.dtype)
    if a.size == 0:
        return gp.empty(a.shape, dt)
    n = a.shape[-1]
    if n == 1:
        return gp.exp(a)
    B = int(numpy.prod(a.shape[:-2]))
    stack = a.astype(dt, order="C").reshape(B, n, n)
    return _expm_stack(stack).reshape(a.shape)
