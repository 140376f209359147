"""gpuscipy.linalg solvers side by side with CuPy and SciPy (CPU).

    python -m benchmarks.bench_linalg_solve [--quick] [--json PATH]

Cases:
* ``solve_4096``: ``solve(a, b)`` 4096^2 float64, one right-hand side
  (getrf + getrs + condition estimate). Bar: gpuscipy <= 5 ms.
* ``batched_solve``: 10,000 systems of 32x32 float64 (b of shape
  (10000, 32, 1)). Bars: faster than CuPy, and >= 50x faster than a Python
  loop of gpuscipy's single solve (the loop is timed on 500 systems and
  scaled).
* ``lu_factor_4096``, ``cholesky_4096``, ``lu_4096`` (p, l, u; the
  permutation built and applied on the device): for the record.
* ``getrs_4096_{1,3}rhs``: ``_solve_dense.getrs`` (one column: the
  permutation and two cuBLAS trsm; three: cuSOLVER's ``Xgetrs``) on one LU:
  for the record (results checked).
* ``solve_banded_20000`` ((l, u) = (2, 3), one system: the warp banded LU,
  latency bound) and ``tridiag_solve_1000x256`` (``assume_a='tridiagonal'``
  on 1000 systems of 256): for the record, against SciPy (CPU).

Exit status 1 when a bar fails or a result is wrong (advisory with --quick).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings

import numpy as np

from . import _harness as H


def _cases(quick):
    n = 1024 if quick else 4096
    nb = 1000 if quick else 10000
    return n, nb


def _bench_getrs(xp, a_h, n, be, record, bad):
    """``_solve_dense.getrs`` of 1 and 3 right-hand sides on one LU of ``a_h``."""
    from gpuscipy.linalg import _solve_dense as SD
    lu = xp.empty((n, n), np.float64, order="F")
    lu[...] = xp.asarray(a_h)
    ipiv, _ = SD.getrf(lu)
    rng = np.random.default_rng(1)
    for k in (1, 3):
        b_h = np.asfortranarray(rng.standard_normal((n, k)))
        ref = np.linalg.solve(a_h, b_h)
        b0 = xp.asarray(b_h)
        b = xp.empty((n, k), np.float64, order="F")

        def run(b=b):     # in place: restore b first (~3 us)
            b[...] = b0
            return SD.getrs(lu, ipiv, b, 0)
        x = run()
        if not np.allclose(be.asnumpy(x), ref, rtol=1e-8, atol=1e-10):
            bad.append(f"getrs {k} rhs wrong")
        record(f"getrs_{n}_{k}rhs", "gpuscipy", H.time_gpu(run, be, 3, 20).median_s)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    n, nb = _cases(args.quick)
    rng = np.random.default_rng(0)
    a_h = rng.standard_normal((n, n)) + np.sqrt(n) * np.eye(n)
    b_h = rng.standard_normal(n)
    spd_h = a_h @ a_h.T
    ab_h = rng.standard_normal((nb, 32, 32)) + 8 * np.eye(32)
    bb_h = rng.standard_normal((nb, 32, 1))
    nband = 2000 if args.quick else 20000
    band_h = rng.standard_normal((6, nband))
    band_h[3] += 6
    bband_h = rng.standard_normal((nband, 1))
    tri_h = rng.standard_normal((1000, 256, 256)) * (np.abs(
        np.arange(256)[:, None] - np.arange(256)[None, :]) <= 1)
    tri_h += 4 * np.eye(256)
    btri_h = rng.standard_normal((1000, 256, 1))
    import scipy.linalg as sl
    rows, bars, bad = [], [], []
    times = {}

    def record(case, backend, t):
        times[(case, backend)] = t
        rows.append({"case": case, "backend": backend, "median_ms": t * 1e3})
        print(f"{case:<22} {backend:<10} {t * 1e3:10.3f} ms")

    for name in ("gpuscipy", "cupy"):
        be, why = H.load_backend(name)
        if be is None:
            print(f"{name}: n/a ({why})")
            continue
        xp = be.xp
        if name == "gpuscipy":
            from gpuscipy import linalg as L
            solve, lu_factor, cholesky = L.solve, L.lu_factor, L.cholesky
            cl = None
        else:
            import cupyx.scipy.linalg as cl
            solve, lu_factor = xp.linalg.solve, cl.lu_factor
            L = None
            cholesky = xp.linalg.cholesky
        a, b, spd = xp.asarray(a_h), xp.asarray(b_h), xp.asarray(spd_h)
        ab, bb = xp.asarray(ab_h), xp.asarray(bb_h)
        x = solve(a, b)
        if not np.allclose(be.asnumpy(x), np.linalg.solve(a_h, b_h), rtol=1e-8, atol=1e-10):
            bad.append(f"{name} solve wrong")
        record("solve_%d" % n, name, H.time_gpu(lambda: solve(a, b), be, 3, 20).median_s)
        xb = solve(ab, bb)
        if not np.allclose(be.asnumpy(xb), np.linalg.solve(ab_h, bb_h), rtol=1e-8, atol=1e-10):
            bad.append(f"{name} batched solve wrong")
        record("batched_solve", name, H.time_gpu(lambda: solve(ab, bb), be, 3, 30).median_s)
        record("lu_factor_%d" % n, name, H.time_gpu(lambda: lu_factor(a), be, 2, 10).median_s)
        record("cholesky_%d" % n, name, H.time_gpu(lambda: cholesky(spd), be, 2, 10).median_s)
        lu_fn = L.lu if name == "gpuscipy" else getattr(cl, "lu", None)
        if lu_fn is not None:
            record("lu_%d" % n, name, H.time_gpu(lambda: lu_fn(a), be, 2, 10).median_s)
        if name == "gpuscipy":
            x = L.solve_banded((2, 3), xp.asarray(band_h), xp.asarray(bband_h))
            if not np.allclose(be.asnumpy(x), sl.solve_banded((2, 3), band_h, bband_h),
                               rtol=1e-8, atol=1e-10):
                bad.append("solve_banded wrong")
            band, bband = xp.asarray(band_h), xp.asarray(bband_h)
            record("solve_banded_%d" % nband, name,
                   H.time_gpu(lambda: L.solve_banded((2, 3), band, bband), be, 1, 5).median_s)
            tri, btri = xp.asarray(tri_h), xp.asarray(btri_h)
            x = L.solve(tri, btri, assume_a="tridiagonal")
            if not np.allclose(be.asnumpy(x), np.linalg.solve(tri_h, btri_h), rtol=1e-8,
                               atol=1e-10):
                bad.append("tridiagonal solve wrong")
            record("tridiag_solve_1000x256", name,
                   H.time_gpu(lambda: L.solve(tri, btri, assume_a="tridiagonal"), be, 2,
                              10).median_s)
            _bench_getrs(xp, a_h, n, be, record, bad)
            m = min(nb, 500)
            singles = [(xp.asarray(ab_h[i]), xp.asarray(bb_h[i])) for i in range(m)]

            def loop():
                for ai, bi in singles:
                    solve(ai, bi)
            t = H.time_gpu(loop, be, 1, 3).median_s * nb / m
            record("python_loop_solve", name, t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        record("solve_%d" % n, "scipy", H.time_cpu(lambda: sl.solve(a_h, b_h), 1, 3).median_s)
        record("batched_solve", "scipy",
               H.time_cpu(lambda: sl.solve(ab_h, bb_h), 1, 3).median_s)
        record("solve_banded_%d" % nband, "scipy",
               H.time_cpu(lambda: sl.solve_banded((2, 3), band_h, bband_h), 1, 5).median_s)
        record("tridiag_solve_1000x256", "scipy",
               H.time_cpu(lambda: sl.solve(tri_h, btri_h, assume_a="tridiagonal"), 1,
                          3).median_s)

    def bar(label, target, ok, measured):
        bars.append(H.Bar(label, target, measured, "PASS" if ok else "FAIL"))

    g = times.get(("solve_%d" % n, "gpuscipy"))
    if g is not None:
        bar(f"solve {n}^2 f64 1 RHS", "<= 5 ms", g <= 5e-3, f"{g * 1e3:.3f} ms")
    gb = times.get(("batched_solve", "gpuscipy"))
    cb = times.get(("batched_solve", "cupy"))
    lp = times.get(("python_loop_solve", "gpuscipy"))
    if gb is not None and lp is not None:
        bar("batched solve vs Python loop", ">= 50x", lp / gb >= 50, f"{lp / gb:.1f}x")
    if gb is not None:
        if cb is None:
            bars.append(H.Bar("batched solve vs CuPy", "faster", "n/a", "n/a", "no CuPy"))
        else:
            bar("batched solve vs CuPy", "faster", gb < cb, f"{cb / gb:.2f}x")
    for m in bad:
        bars.append(H.Bar(m, "correct", "wrong", "FAIL"))
    H.print_bars(bars, args.quick, None, None)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": H.environment(), "results": rows,
                       "bars": [b.__dict__ for b in bars]}, f, indent=1)
    failed = any(b.status == "FAIL" for b in bars)
    return 1 if failed and (not args.quick or bad) else 0


if __name__ == "__main__":
    sys.exit(main())
