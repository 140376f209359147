"""Large dense LU: gpuscipy's tournament-pivoted LU against cuSOLVER and CuPy.

    python -m benchmarks.bench_lu_large [--quick] [--json PATH] [--sweep]

Cases (n = 4096; ``--quick``: 1024), each timed on a fresh copy of a random
matrix (the copy is timed alone and subtracted):

* ``getrf_large``: gpuscipy.linalg._lu_large.getrf_large, default (nb, rows);
  ``--sweep`` adds every (nb, rows) of CONFIGS.
* ``cusolver_getrf``: cusolverDnXgetrf through gpuscipy_core.libs.
* ``cupy_lu_factor``: cupyx.scipy.linalg.lu_factor.
* ``solve``: getrf_large + cusolverDnXgetrs, one right-hand side.

Every gpuscipy result is checked (||PA - LU|| and the solve's backward
error).  Bar: ``getrf 4096 f64 <= 4 ms``.  Exit 1 when the bar fails or a
result is wrong (advisory with --quick).
"""

from __future__ import annotations

import argparse
import sys
import traceback

import numpy as np

from . import _harness as H

BAR_MS = 4.0


def _check(a_h, lu, ipiv, eps):
    n = a_h.shape[0]
    pa = np.array(a_h, copy=True)
    for i, p in enumerate(ipiv - 1):
        if p != i:
            pa[[i, p]] = pa[[p, i]]
    L = np.tril(lu, -1) + np.eye(n)
    U = np.triu(lu)
    err = np.abs(pa - L @ U).max() / np.abs(a_h).max()
    return err < 10 * n * eps, err


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    n = 1024 if args.quick else 4096
    rng = np.random.default_rng(0)
    rows, bars, bad = [], [], []
    gs, why = H.load_backend("gpuscipy")
    if gs is None:
        print("gpuscipy unavailable:", why)
        return 1
    import gpuscipy_core as gp
    from gpuscipy.linalg import _lu_large as M
    from gpuscipy.linalg import _solve_dense as SD
    results = {}
    for ch in ("d", "f", "D", "F"):
        dt = np.dtype(ch)
        a_h = rng.standard_normal((n, n))
        if dt.kind == "c":
            a_h = a_h + 1j * rng.standard_normal((n, n))
        a_h = a_h.astype(dt)
        a0 = gp.asarray(np.asfortranarray(a_h))
        work = gp.empty((n, n), dt, order="F")

        def copy():
            work[...] = a0
            return work

        tc = H.time_gpu(copy, gs, warmup=3, repeat=20).median_s
        cfgs = M.CONFIGS[ch] if args.sweep else M.CONFIGS[ch][:1]
        for nb, nr in cfgs:
            name = f"getrf_large_{ch}_nb{nb}_r{nr}"
            try:
                def f(nb=nb, nr=nr):
                    return M.getrf_large(copy(), nb=nb, rows=nr)
                ipiv, info = f()
                gs.synchronize()
                if ch in "df" and n <= 4096:
                    ok, err = _check(a_h.astype(np.float64), gp.asnumpy(work).astype(np.float64),
                                     gp.asnumpy(ipiv), 2.2e-16 if ch == "d" else 1.2e-7)
                    if not ok or int(gp.asnumpy(info)[0]) != 0:
                        bad.append(f"{name}: reconstruction {err:.3g}")
                t = H.time_gpu(f, gs, warmup=3, repeat=20)
                ms = (t.median_s - tc) * 1e3
                results[(ch, nb, nr)] = ms
                rows.append((name, ms))
            except Exception:
                traceback.print_exc()
                bad.append(f"{name}: crashed")

        def cus():
            return SD.getrf(copy())
        try:
            t = H.time_gpu(cus, gs, warmup=3, repeat=20)
            rows.append((f"cusolver_getrf_{ch}", (t.median_s - tc) * 1e3))
        except Exception:
            traceback.print_exc()
        if ch == "d":
            b_h = rng.standard_normal(n)

            def solve():
                w = copy()
                ipiv, info = M.getrf_large(w)
                b = gp.asarray(b_h)
                SD.getrs(w, ipiv, b)
                return b
            try:
                x = gp.asnumpy(solve())
                res = np.abs(a_h @ x - b_h).max() / (np.abs(a_h).max() * np.abs(x).max() * n)
                if not res < 1e-14:
                    bad.append(f"solve backward error {res:.3g}")
                t = H.time_gpu(solve, gs, warmup=3, repeat=20)
                rows.append(("solve_getrf_large_getrs_d", (t.median_s - tc) * 1e3))
            except Exception:
                traceback.print_exc()
                bad.append("solve crashed")
    cp, why = H.load_backend("cupy")
    if cp is not None:
        try:
            import cupyx.scipy.linalg as csl
            for ch in ("d", "f"):
                a_c = cp.xp.asarray(np.asfortranarray(rng.standard_normal((n, n)).astype(ch)))
                t = H.time_gpu(lambda: csl.lu_factor(a_c), cp, warmup=3, repeat=20)
                rows.append((f"cupy_lu_factor_{ch}", t.median_s * 1e3))
        except Exception:
            traceback.print_exc()
    print(f"\nn = {n}")
    for name, ms in rows:
        print(f"  {name:<36} {ms:8.3f} ms")
    ms = results.get(("d",) + M.config("d"))
    status = "n/a" if ms is None else ("PASS" if ms <= BAR_MS else "FAIL")
    bars.append(H.Bar(f"getrf {n} f64 <= {BAR_MS:g} ms", f"<= {BAR_MS} ms",
                      "n/a" if ms is None else f"{ms:.3f} ms", status))
    H.print_bars(bars, args.quick, None, None)
    for b in bad:
        print("WRONG:", b)
    if args.json:
        import json
        with open(args.json, "w") as fh:
            json.dump({"n": n, "rows": rows, "bad": bad}, fh, indent=1)
    failed = bool(bad) or (status == "FAIL" and not args.quick)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
