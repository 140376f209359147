"""Spike (NumPy, no GPU): random butterfly transform (depth 2) + LU without
pivoting + iterative refinement, against SciPy's GEPP solve.

    python tools/probes/rbt_accuracy.py

Baboulin, Dongarra, Herrmann & Tomov, "Accelerating linear system solutions
using randomization techniques", ACM TOMS 39(2), 2013 (butterflies with
r = exp(u / 10), u uniform in [-1/2, 1/2]). The last case (a scaled
permutation matrix) is expected to fail with a zero pivot: the route needs
a GEPP fallback.
"""
import numpy as np, scipy.linalg as sl
rng = np.random.default_rng(0)

def butterfly(n, rng):
    # depth-2 recursive butterfly W = B2 (diag of two B1 blocks) ... returns dense for the model
    def B(m):
        r0 = np.exp(rng.uniform(-0.5, 0.5, m // 2) / 10)
        r1 = np.exp(rng.uniform(-0.5, 0.5, m // 2) / 10)
        R0, R1 = np.diag(r0), np.diag(r1)
        return np.block([[R0, R1], [R0, -R1]]) / np.sqrt(2)
    top = B(n)
    lvl2 = sl.block_diag(B(n // 2), B(n // 2))
    return lvl2 @ top

def genp(a):
    a = a.copy(); n = a.shape[0]
    for k in range(n - 1):
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return a

def lu_solve_np(lu, b):
    y = sl.solve_triangular(lu, b, lower=True, unit_diagonal=True)
    return sl.solve_triangular(lu, y)

def rbt_solve(a, b, iters=2):
    n = a.shape[0]
    U, V = butterfly(n, rng), butterfly(n, rng)
    ap = U.T @ a @ V
    lu = genp(ap)
    x = V @ lu_solve_np(lu, U.T @ b)
    hist = []
    for _ in range(iters):
        r = b - a @ x
        hist.append(np.abs(r).max() / (np.abs(a).max() * np.abs(x).max() * n))
        x = x + V @ lu_solve_np(lu, U.T @ r)
    r = b - a @ x
    hist.append(np.abs(r).max() / (np.abs(a).max() * np.abs(x).max() * n))
    return x, hist

n = 512
cases = {
    "randn": rng.standard_normal((n, n)),
    "cond1e10": (lambda q1, q2: q1 @ np.diag(np.logspace(0, -10, n)) @ q2)(*[np.linalg.qr(rng.standard_normal((n, n)))[0] for _ in range(2)]),
    "needs_pivot": np.kron(np.eye(n // 2), np.array([[1e-14, 1.0], [1.0, 1.0]])) + 1e-3 * rng.standard_normal((n, n)),
    "permuted_diag": np.eye(n)[rng.permutation(n)] * rng.uniform(1, 2, n),
    "zero_leading": np.roll(np.eye(n), 1, axis=0) + 1e-2 * rng.standard_normal((n, n)),
}
for name, a in cases.items():
    b = rng.standard_normal(n)
    xr = sl.solve(a, b)
    with np.errstate(all="ignore"):
        try:
            x, hist = rbt_solve(a, b)
        except ValueError as e:       # NaN from a zero pivot
            print(f"{name:14s} FAILED: {e}")
            continue
    fe = np.abs(x - xr).max() / np.abs(xr).max()
    print(f"{name:14s} backward per step {['%.1e' % h for h in hist]}  rel diff vs GEPP {fe:.1e}  cond {np.linalg.cond(a):.1e}")
