"""Shared helpers of the linalg tests: a NumPy model of the batched
warp-per-system LU/Cholesky kernels (``gpuscipy/linalg/_batched_lu.cuh``).

The model follows the kernel step by step, with the 32 lanes of a warp as
the entries of NumPy vectors: lane ``i`` holds row ``i`` in ``r[i, :]`` and
its current position ``pos[i]``; shuffles are indexing, ballots are
``argmax`` of a mask and butterfly reductions are max/sum over the lanes. It
runs on the CPU, so the algorithm (pivots, ipiv, packed factor, solves,
condition estimate) is checked against LAPACK without a GPU.

Also models of the one-thread kernels of ``_solve_kernels`` (tridiagonal
?gttrf/?gttrs, the LU permutation) and ``_banded`` (banded LU with partial
pivoting), statement by statement.
"""

import numpy as np

__all__ = ["sim_lu_factor", "sim_lu_solve_n", "sim_lu_solve_t", "sim_lu_rcond",
           "sim_lu_solve_n_v2", "sim_lu_solve_t_v2", "sim_lu_rcond_v2",
           "sim_cholesky", "sim_cholesky_solve", "sim_gtsv", "sim_lu_perm",
           "sim_banded_lu_solve", "assert_pivots_unambiguous"]

W = 32


def _abs1(x):
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def assert_pivots_unambiguous(lu, what="", margin=100):
    """Assert that partial pivoting on this matrix has no near-tie, so that
    every correct LU (any BLAS build, CPU kernel, thread count, the GPU)
    picks the same pivots, and comparing pivot indices exactly is sound.

    ``lu`` is LAPACK's packed factor (``scipy.linalg.lu_factor``, any
    build). At step ``k`` the candidates are ``l_ik u_kk`` (``i > k``) and
    the chosen pivot ``u_kk``; LAPACK's ``i?amax`` compares
    ``|re| + |im|``. Two implementations compute the candidates with
    rounding differences of at most about ``n eps`` times the growth factor
    (relative); the smallest relative gap between the pivot and the next
    candidate must exceed ``margin n eps``: the default 100 covers the
    growth factors of random matrices (below 10 at these sizes) ten times
    over.
    """
    lu = np.asarray(lu)
    n = lu.shape[0]
    eps = np.finfo(lu.dtype).eps
    gap = np.inf
    for k in range(n - 1):
        piv = _abs1(lu[k, k])
        if piv == 0:
            continue
        gap = min(gap, 1 - _abs1(lu[k + 1:, k] * lu[k, k]).max() / piv)
    assert gap > margin * n * eps, (
        f"{what}: pivot candidates within {gap:.1e} (relative) of each other: "
        "the pivots may differ between correct implementations; pick other data")


def _lane(mask):
    # __ffs(__ballot_sync(mask)) - 1
    idx = np.flatnonzero(mask)
    return int(idx[0])


def sim_lu_factor(a):
    """Model of ``lu_factor_warp``: returns (r, pos, ipiv, info)."""
    n = a.shape[0]
    r = np.zeros((W, n), a.dtype)
    r[:n] = a
    pos = np.arange(W)
    ipiv = np.arange(W)
    live = np.arange(W) < n
    info = 0
    for k in range(n):
        key = np.where(live & (pos >= k), _abs1(r[:, k]), -1.0)
        key = np.where(np.isnan(key), np.inf, key)
        # butterfly argmax with ties to the smallest position == lexicographic max
        best = max(range(W), key=lambda i: (key[i], -pos[i]))
        kp = pos[best]
        p = _lane(pos == kp)
        piv = r[p, k]
        zero = piv == 0
        if zero and info == 0:
            info = k + 1
        ipiv[k] = kp
        at_k = pos == k
        pos = np.where(at_k, kp, pos)
        pos[p] = k
        active = live & (pos > k)
        if not zero:
            r[active, k] = r[active, k] / piv
        l = r[:, k].copy()
        for j in range(k + 1, n):
            u = r[p, j]
            r[active, j] = r[active, j] - l[active] * u
    return r, pos, ipiv[:n], info


def sim_lu_solve_n(r, pos, b):
    """Model of ``lu_solve_n``: b natural order -> x in pivot order (by lane)."""
    n = r.shape[1]
    live = np.arange(W) < n
    v = np.zeros(W, np.result_type(r, b))
    v[:n] = b
    for k in range(n):
        p = _lane(pos == k)
        y = v[p]
        m = live & (pos > k)
        v[m] = v[m] - r[m, k] * y
    for k in range(n - 1, -1, -1):
        p = _lane(pos == k)
        x = v[p] / r[p, k]
        m = live & (pos < k)
        v[m] = v[m] - r[m, k] * x
        v[p] = x
    return v


def sim_lu_solve_t(r, pos, c, conj):
    """Model of ``lu_solve_t``: c in pivot order (lane with pos k holds c_k) ->
    z natural order (lane i holds z_i)."""
    n = r.shape[1]
    live = np.arange(W) < n
    cj = np.conj if conj else (lambda x: x)
    v = np.asarray(c).copy()
    for k in range(n):
        m = live & (pos < k)
        s = np.sum(cj(r[m, k]) * v[m])
        p = _lane(pos == k)
        v[p] = (v[p] - s) / cj(r[p, k])
    for k in range(n - 1, -1, -1):
        m = live & (pos > k)
        s = np.sum(cj(r[m, k]) * v[m])
        p = _lane(pos == k)
        v[p] = v[p] - s
    return v


def _sign(y):
    if np.iscomplexobj(y):
        a = np.abs(y)
        return np.where(a == 0, 1, y / np.where(a == 0, 1, a))
    return np.where(y >= 0, 1.0, -1.0)


def sim_lu_rcond(a, r, pos):
    """Model of ``lu_rcond`` (the state machine of the kernel)."""
    n = a.shape[0]
    anorm = np.abs(a).sum(axis=0).max()
    if anorm == 0:
        return 0.0
    live = np.arange(W) < n
    x = np.where(live, 1.0 / n, 0).astype(r.dtype)
    est, jlast, alt = 0.0, -1, False
    for it in range(8):
        y = np.where(live, sim_lu_solve_n(r, pos, x[:n]), 0)
        e = np.abs(y[live]).sum()
        if alt:
            est = max(est, 2 * e / (3 * n))
            break
        done = False
        if it > 0 and not e > est:
            done = True
        else:
            est = e
        if not done and it < 5:
            z = sim_lu_solve_t(r, pos, np.where(live, _sign(y), 0), True)
            az = np.where(live, np.abs(z), -1)
            bj = int(np.argmax(az))
            ztx = z[live].real.sum() / n if it == 0 else z[max(jlast, 0)].real
            if not az[bj] > ztx or bj == jlast:
                done = True
            else:
                jlast = bj
                x = np.where(np.arange(W) == bj, 1, 0).astype(r.dtype)
        else:
            done = True
        if done:
            if n == 1:
                break
            alt = True
            lanes = np.arange(W)
            x = np.where(live, np.where(lanes & 1, -1.0, 1.0)
                         * (1 + lanes / max(n - 1, 1)), 0).astype(r.dtype)
    if est == 0:
        return 0.0
    return (1 / est) / anorm


def _packed(r, pos):
    """The v2 kernel's shared tile: row k = row k of L\\U; and lane_of."""
    n = r.shape[1]
    f = np.zeros((n, n), r.dtype)
    f[pos[:n]] = r[:n]
    lane_of = np.empty(n, int)
    lane_of[pos[:n]] = np.arange(n)
    return f, lane_of


def sim_lu_solve_n_v2(r, pos, b, recip=False):
    """Model of ``lu_solve_n_v2`` (broadcast form from the shared factor)."""
    n = r.shape[1]
    f, lane_of = _packed(r, pos)
    live = np.arange(W) < n
    pr = np.where(live, pos, 0)
    dg = f[pr, pr]
    v = np.zeros(W, np.result_type(r, b))
    v[:n] = b
    for k in range(n):
        y = v[lane_of[k]]
        m = live & (pos > k)
        v[m] = v[m] - f[pr[m], k] * y
    for k in range(n - 1, -1, -1):
        q = v * (1 / dg) if recip else v / dg
        xk = q[lane_of[k]]
        m = live & (pos < k)
        v[m] = v[m] - f[pr[m], k] * xk
        v[pos == k] = xk
    return v


def sim_lu_solve_t_v2(r, pos, c, conj, recip=False):
    """Model of ``lu_solve_t_v2``: c in pivot order -> z natural order."""
    n = r.shape[1]
    f, lane_of = _packed(r, pos)
    cj = np.conj if conj else (lambda x: x)
    live = np.arange(W) < n
    pr = np.where(live, pos, 0)
    dg = cj(f[pr, pr])
    v = np.asarray(c).copy()
    for k in range(n):
        q = v * (1 / dg) if recip else v / dg
        wk = q[lane_of[k]]
        m = live & (pos > k)
        v[m] = v[m] - cj(f[k, pr[m]]) * wk
        v[pos == k] = wk
    for k in range(n - 1, -1, -1):
        vk = v[lane_of[k]]
        m = live & (pos < k)
        v[m] = v[m] - cj(f[k, pr[m]]) * vk
    return v


def sim_lu_rcond_v2(a, r, pos, screened=True):
    """Model of ``lu_rcond_v2``. Returns ``(rcond, exited_early)``."""
    n = a.shape[0]
    anorm = np.abs(a).sum(axis=0).max()
    if anorm == 0:
        return 0.0, False
    eps = np.finfo(np.dtype(r.dtype).char.lower()).eps
    live = np.arange(W) < n
    x = np.where(live, 1.0 / n, 0).astype(r.dtype)
    est, jlast, alt = 0.0, -1, False
    for it in range(8):
        y = np.where(live, sim_lu_solve_n_v2(r, pos, x[:n], True), 0)
        e = np.abs(y[live]).sum()
        if alt:
            est = max(est, 2 * e / (3 * n))
            break
        done = False
        if it > 0 and not e > est:
            done = True
        else:
            est = e
        if not done and it < 5:
            z = sim_lu_solve_t_v2(r, pos, np.where(live, _sign(y), 0), True, True)
            az = np.where(live, np.abs(z), -1)
            bj = int(np.argmax(az))
            if it == 0 and screened:
                es = max(az[bj], est)
                if es == es and es > 0 and (1 / es) / anorm >= 1e3 * eps:
                    return (1 / es) / anorm, True
            ztx = z[live].real.sum() / n if it == 0 else z[max(jlast, 0)].real
            if not az[bj] > ztx or bj == jlast:
                done = True
            else:
                jlast = bj
                x = np.where(np.arange(W) == bj, 1, 0).astype(r.dtype)
        else:
            done = True
        if done:
            if n == 1:
                break
            alt = True
            lanes = np.arange(W)
            x = np.where(live, np.where(lanes & 1, -1.0, 1.0)
                         * (1 + lanes / max(n - 1, 1)), 0).astype(r.dtype)
    if est == 0:
        return 0.0, False
    return (1 / est) / anorm, False


def sim_cholesky(a, upper):
    """Model of the Cholesky kernel: returns (factor, info)."""
    n = a.shape[0]
    rows = np.conj(a.T) if upper else a
    r = np.zeros((W, n), a.dtype)
    r[:n] = rows
    lanes = np.arange(W)
    info = 0
    for k in range(n):
        d = r[k, k].real
        if not d > 0:
            info = k + 1
            break
        d = np.sqrt(d)
        r[k, k] = d
        m = (lanes > k) & (lanes < n)
        r[m, k] = r[m, k] / d
        for j in range(k + 1, n):
            ljk = r[j, k]
            mm = (lanes >= j) & (lanes < n)
            r[mm, j] = r[mm, j] - r[mm, k] * np.conj(ljk)
    low = np.tril(r[:n])
    return (np.conj(low.T) if upper else low), info


def sim_cholesky_solve(low, b):
    """Model of the kernel's solve with the lower factor (L L^H x = b)."""
    n = low.shape[0]
    v = np.array(b, dtype=np.result_type(low, b))
    for k in range(n):
        v[k] = v[k] / low[k, k]
        v[k + 1:] -= low[k + 1:, k] * v[k]
    for k in range(n - 1, -1, -1):
        s = np.sum(np.conj(low[k + 1:, k]) * v[k + 1:])
        v[k] = (v[k] - s) / np.conj(low[k, k])
    return v


def sim_gtsv(dl, d, du, b, trans=0):
    """Model of ``gs_gtsv_*`` (one system, one right-hand side).
    Returns ``(x, info)``."""
    n = d.shape[0]
    dt = np.result_type(dl, d, du, b)
    u0 = np.array(d, dt)
    u1 = np.zeros(n, dt)
    u1[:n - 1] = du[:n - 1]
    u2 = np.zeros(n, dt)
    lm = np.zeros(n, dt)
    sw = np.zeros(n, bool)
    for i in range(n - 1):
        sub = dl[i]
        ap, as_ = abs(u0[i]), abs(sub)
        if ap >= as_:
            f = sub / u0[i] if ap != 0 else 0
            lm[i] = f
            u0[i + 1] = u0[i + 1] - f * u1[i]
        else:
            f = u0[i] / sub
            lm[i] = f
            u0[i] = sub
            tmp = u1[i]
            u1[i] = u0[i + 1]
            u0[i + 1] = tmp - f * u0[i + 1]
            if i + 1 < n - 1:
                u2[i] = u1[i + 1]
                u1[i + 1] = -f * u1[i + 1]
            sw[i] = True
    zero = np.flatnonzero(u0 == 0)
    if zero.size:
        return None, int(zero[0]) + 1
    x = np.array(b, dt)
    cj = np.conj if trans == 2 else (lambda v: v)
    if trans == 0:
        for i in range(n - 1):
            bi, bn = x[i], x[i + 1]
            if sw[i]:
                bi, bn = bn, bi
            x[i] = bi
            x[i + 1] = bn - lm[i] * bi
        for i in range(n - 1, -1, -1):
            v = x[i]
            if i + 1 < n:
                v = v - u1[i] * x[i + 1]
            if i + 2 < n:
                v = v - u2[i] * x[i + 2]
            x[i] = v / u0[i]
    else:
        for i in range(n):
            v = x[i]
            if i >= 1:
                v = v - cj(u1[i - 1]) * x[i - 1]
            if i >= 2:
                v = v - cj(u2[i - 2]) * x[i - 2]
            x[i] = v / cj(u0[i])
        for i in range(n - 2, -1, -1):
            bi = x[i] - cj(lm[i]) * x[i + 1]
            bn = x[i + 1]
            if sw[i]:
                bi, bn = bn, bi
            x[i], x[i + 1] = bi, bn
    return x, 0


def sim_lu_perm(piv):
    """Model of ``gs_lu_perm``: (perm, inv) of 0-based LAPACK interchanges."""
    n = len(piv)
    p = np.arange(n)
    for i in range(n):
        j = int(piv[i])
        if j != i and 0 <= j < n:
            p[i], p[j] = p[j], p[i]
    inv = np.empty(n, int)
    inv[p] = np.arange(n)
    return p, inv


def sim_banded_lu_solve(ab, kl, ku, b):
    """Model of ``gs_gbsv_*`` (one system; ``b`` (n, nrhs)): the warp's
    lanes as loops. Returns ``(x, ipiv, info)`` (x None when singular)."""
    rows, n = ab.shape
    dt = np.result_type(ab, b)
    kv = kl + ku
    ldab = 2 * kl + ku + 1
    w = np.zeros((n, ldab), dt)
    w[:, kl:] = ab.T
    ipiv = np.zeros(n, int)
    info = 0
    ju = 0
    for j in range(n):
        km = min(n - 1 - j, kl)
        cand = _abs1(w[j, kv:kv + km + 1])
        jp = int(np.argmax(cand))   # first of the ties
        best = cand[jp]
        ipiv[j] = j + jp
        if best != 0:
            ju = max(ju, min(j + ku + jp, n - 1))
            if jp:
                for c in range(j, ju + 1):
                    r0, r1 = kv + j - c, kv + j + jp - c
                    w[c, r0], w[c, r1] = w[c, r1], w[c, r0]
            m = w[j, kv + 1:kv + km + 1] / w[j, kv]
            w[j, kv + 1:kv + km + 1] = m
            for c in range(j + 1, ju + 1):
                piv_row = w[c, kv + j - c]
                for r in range(1, km + 1):
                    w[c, kv + j + r - c] -= m[r - 1] * piv_row
        elif info == 0:
            info = j + 1
    if info:
        return None, ipiv, info
    x = np.array(b, dt).reshape(n, -1)
    for j in range(n - 1):
        km = min(n - 1 - j, kl)
        if km == 0:
            continue
        p = ipiv[j]
        if p != j:
            x[[j, p]] = x[[p, j]]
        x[j + 1:j + km + 1] -= w[j, kv + 1:kv + km + 1, None] * x[j]
    for j in range(n - 1, -1, -1):
        x[j] = x[j] / w[j, kv]
        lo = max(j - kv, 0)
        for i in range(lo, j):
            x[i] -= w[j, kv + i - j] * x[j]
    return x, ipiv, 0
