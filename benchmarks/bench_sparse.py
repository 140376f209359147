"""gpuscipy.sparse beside CuPy (``cupyx.scipy.sparse``) and SciPy (CPU) in
one process (issue 17's bars).

    python -m benchmarks.bench_sparse [--quick] [--json PATH]

Cases (bar: gpuscipy no slower than CuPy unless said):
* ``spmv_10M``: CSR 1M x 1M float64 with 10M nonzeros (10 per row, random
  columns) times a vector (CuPy 0.126 ms in the issue's run).
* ``csr_to_csc_10M``: the same matrix to CSC (CuPy 0.84 ms).
* ``spgemm_poisson``: the 2-D Poisson matrix of 10^6 unknowns squared
  (CuPy 1.19 ms).
* ``cg_poisson_200``: 200 iterations of ``cg`` on that Poisson matrix
  (bar <= 20 ms; CuPy 58 ms, SciPy 2,266 ms).
Every gpuscipy result is checked against SciPy.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as sla

from . import _harness as H


def _random_csr(n, per_row, rng):
    rows = np.repeat(np.arange(n), per_row)
    cols = rng.integers(0, n, n * per_row)
    data = rng.standard_normal(n * per_row)
    a = sp.csr_array((data, (rows, cols)), shape=(n, n))
    a.sum_duplicates()
    return a


def _poisson(m):
    t = sp.diags_array([-1.0, 4.0, -1.0], offsets=[-1, 0, 1], shape=(m, m))
    i = sp.identity(m)
    off = sp.diags_array([-1.0, -1.0], offsets=[-1, 1], shape=(m, m))
    return sp.csr_array(sp.kron(i, t) + sp.kron(off, i))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    rep = 10 if args.quick else 30
    g, gerr = H.load_backend("gpuscipy")
    c, cerr = H.load_backend("cupy")
    if g is None:
        print("gpuscipy backend unavailable:", gerr)
        return 1
    import gpuscipy_core as gp
    import gpuscipy.sparse as gs
    import gpuscipy.sparse.linalg as gla
    cp = c.xp if c is not None else None
    if cp is not None:
        import cupyx.scipy.sparse as cs
        import cupyx.scipy.sparse.linalg as cla
    rng = np.random.default_rng(17)
    times, bars, bad, rows = {}, [], [], []

    def record(case, backend, t):
        times[(case, backend)] = t
        rows.append({"case": case, "backend": backend, "median_s": t})
        print(f"  {case:26s} {backend:9s} {H.fmt_time(t)}")
        sys.stdout.flush()

    def gpu_case(case, gfn, cfn, check, scipy_fn=None, repeat=rep):
        try:
            out = gfn()
            if not check(out):
                bad.append(f"{case}: gpuscipy result wrong")
            record(case, "gpuscipy", H.time_gpu(gfn, g, 3, repeat).median_s)
        except Exception as e:          # a failing case must not hide the others
            bad.append(f"{case}: {type(e).__name__}: {e}")
        if cfn is not None:
            try:
                record(case, "cupy", H.time_gpu(cfn, c, 3, repeat).median_s)
            except Exception as e:
                print(f"  {case}: CuPy failed: {type(e).__name__}: {e}")
        if scipy_fn is not None:
            record(case, "scipy", H.time_cpu(scipy_fn, 1, 3).median_s)

    n = 1 << (16 if args.quick else 20)
    a = _random_csr(n, 10, rng)
    x = rng.standard_normal(n)
    ga, gx = gs.csr_array(a), gp.asarray(x)
    ca = cs.csr_matrix(a) if cp is not None else None
    cx = cp.asarray(x) if cp is not None else None
    y = a @ x
    scale = float(np.abs(y).max())
    gpu_case("spmv_10M", lambda: ga @ gx, (lambda: ca @ cx) if cp is not None else None,
             lambda o: np.allclose(gp.asnumpy(o), y, rtol=0, atol=1e-12 * scale),
             lambda: a @ x)
    ac = a.tocsc()
    gpu_case("csr_to_csc_10M", lambda: ga.tocsc(),
             (lambda: ca.tocsc()) if cp is not None else None,
             lambda o: (np.array_equal(gp.asnumpy(o.indptr), ac.indptr)
                        and np.array_equal(gp.asnumpy(o.indices), ac.indices)
                        and np.array_equal(gp.asnumpy(o.data), ac.data)))

    m = 256 if args.quick else 1000
    p = _poisson(m)
    gpz, cpz = gs.csr_array(p), (cs.csr_matrix(p) if cp is not None else None)
    p2 = p @ p
    gpu_case("spgemm_poisson", lambda: gpz @ gpz,
             (lambda: cpz @ cpz) if cp is not None else None,
             lambda o: abs(o.get() - p2).max() <= 1e-12 * abs(p2).max())
    b = rng.standard_normal(p.shape[0])
    gb = gp.asarray(b)
    cb = cp.asarray(b) if cp is not None else None
    xs, _ = sla.cg(p, b, rtol=1e-300, maxiter=200)
    ckw = {}
    if cp is not None:
        import inspect
        ckw = ({"rtol": 1e-300} if "rtol" in inspect.signature(cla.cg).parameters
               else {"tol": 1e-300})
    gpu_case("cg_poisson_200",
             lambda: gla.cg(gpz, gb, rtol=1e-300, maxiter=200)[0],
             (lambda: cla.cg(cpz, cb, maxiter=200, **ckw)[0]) if cp is not None else None,
             lambda o: np.allclose(gp.asnumpy(o), xs, rtol=1e-8, atol=1e-10),
             repeat=5)

    def bar(label, target, ok, measured):
        bars.append(H.Bar(label, target, measured, "PASS" if ok else "FAIL"))

    for case in ("spmv_10M", "csr_to_csc_10M", "spgemm_poisson"):
        tg, tc = times.get((case, "gpuscipy")), times.get((case, "cupy"))
        if tg is None or tc is None:
            bars.append(H.Bar(case + " vs CuPy", "<= 1.00x", "n/a", "n/a", cerr or ""))
        else:
            bar(case + " vs CuPy", "<= 1.00x", tg <= tc,
                f"{tg / tc:.3f}x ({tg * 1e3:.3f} vs {tc * 1e3:.3f} ms)")
    tg = times.get(("cg_poisson_200", "gpuscipy"))
    if tg is not None:
        bar("cg Poisson 10^6, 200 iterations", "<= 20 ms", tg <= 20e-3, f"{tg * 1e3:.2f} ms")
    for msg in bad:
        bars.append(H.Bar(msg, "correct", "wrong", "FAIL"))
    H.print_bars(bars, args.quick, None, None)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": H.environment(), "results": rows,
                       "bars": [b.__dict__ for b in bars]}, f, indent=1)
    failed = any(b.status == "FAIL" for b in bars)
    return 1 if failed and (not args.quick or bad) else 0


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        sys.exit(main())
