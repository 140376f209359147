"""Benchmarks of gpuscipy.linalg decompositions vs CuPy and SciPy (one run).

Cases: eigh 4096^2 float64 (bar: no slower than CuPy's cupy.linalg.eigh,
syevd), svd 2048^2 float64, qr 4096^2 float64 (economic), pivoted qr
1024^2 float64 (our own GPU QRCP; no CuPy equivalent). SciPy runs on the
CPU at the same size unless it would take too long (smaller sizes, noted).

Run: ``python -m benchmarks.bench_linalg_decomp [--quick] [--json PATH]``.
Prints the table and a ``== bars ==`` section; exits 1 when a bar fails.
"""

import argparse
import sys

import numpy as np

from . import _harness as H


def _sym(n, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n))
    return (a + a.T) / 2


def _gen(n, m=None, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, m or n))


def _cases(quick):
    s = 1 if not quick else 4
    return [
        # key, name, host input, gpuscipy call, cupy call, scipy call, cpu size
        ("eigh", f"eigh {4096 // s}^2 f64", _sym(4096 // s),
         lambda L, a: L.eigh(a), lambda cp, a: cp.linalg.eigh(a),
         lambda sl, a: sl.eigh(a), 1024 // s),
        ("svd", f"svd {2048 // s}^2 f64", _gen(2048 // s),
         lambda L, a: L.svd(a), lambda cp, a: cp.linalg.svd(a),
         lambda sl, a: sl.svd(a), 1024 // s),
        ("qr", f"qr {4096 // s}^2 f64 economic", _gen(4096 // s),
         lambda L, a: L.qr(a, mode="economic"),
         lambda cp, a: cp.linalg.qr(a, mode="reduced"),
         lambda sl, a: sl.qr(a, mode="economic"), 2048 // s),
        ("qrp", f"qr pivoting {1024 // s}^2 f64", _gen(1024 // s),
         lambda L, a: L.qr(a, mode="economic", pivoting=True), None,
         lambda sl, a: sl.qr(a, mode="economic", pivoting=True), 1024 // s),
    ]


def _check(key, host, res):
    import gpuscipy_core as gp
    if key == "eigh":
        w, v = (gp.asnumpy(x) for x in res)
        n = min(256, len(w))
        err = np.abs(host @ v[:, :n] - v[:, :n] * w[:n]).max() / np.abs(host).max()
    elif key == "svd":
        u, s, vh = (gp.asnumpy(x) for x in res)
        err = np.abs((u * s) @ vh - host).max() / np.abs(host).max()
    elif key == "qr":
        q, r = (gp.asnumpy(x) for x in res)
        err = np.abs(q @ r - host).max() / np.abs(host).max()
    else:
        q, r, p = (gp.asnumpy(x) for x in res)
        err = np.abs(q @ r - host[:, p]).max() / np.abs(host).max()
        d = np.abs(np.diag(r))
        if np.any(np.diff(d) > 1e-10 * d[0]):
            return "FAIL: |diag R| increases"
    return "ok" if err < 1e-8 else f"FAIL: rel err {err:.2e}"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small sizes (advisory bars)")
    p.add_argument("--json", help="write results as JSON")
    args = p.parse_args(argv)
    results = []
    times = {}
    gpb, greason = H.load_backend("gpuscipy")
    cpb, creason = H.load_backend("cupy")
    for key, name, host, f_gp, f_cp, f_sp, cpu_n in _cases(args.quick):
        rep = 5 if key in ("eigh", "svd", "qrp") else 10
        if gpb is not None:
            import gpuscipy.linalg as L
            a = gpb.xp.asarray(host)
            r = H.Result(case=name, backend="gpuscipy", key=key)
            try:
                r.check = _check(key, host, f_gp(L, a))
                r.set_timing(H.time_gpu(lambda: f_gp(L, a), gpb, warmup=2, repeat=rep))
                times[(key, "gpuscipy")] = r.median_s
            except Exception as e:   # report, keep going
                r.status, r.note = "error", f"{type(e).__name__}: {e}"[:200]
            results.append(r)
        else:
            results.append(H.Result(case=name, backend="gpuscipy", key=key,
                                    status="n/a", note=greason or ""))
        if f_cp is not None:
            if cpb is not None:
                a = cpb.xp.asarray(host)
                r = H.Result(case=name, backend="cupy", key=key)
                try:
                    r.set_timing(H.time_gpu(lambda: f_cp(cpb.xp, a), cpb, warmup=2,
                                            repeat=rep))
                    times[(key, "cupy")] = r.median_s
                except Exception as e:
                    r.status, r.note = "error", f"{type(e).__name__}: {e}"[:200]
                results.append(r)
            else:
                results.append(H.Result(case=name, backend="cupy", key=key,
                                        status="n/a", note=creason or ""))
        import scipy.linalg as sl
        hs = host[:cpu_n, :cpu_n]
        if key == "eigh":
            hs = (hs + hs.T) / 2
        r = H.Result(case=name, backend="scipy", key=key, kind="cpu",
                     note=f"CPU at {cpu_n}^2" if cpu_n != host.shape[0] else "")
        r.set_timing(H.time_cpu(lambda: f_sp(sl, hs), warmup=1, repeat=3,
                                max_seconds=10))
        results.append(r)
        g, c = times.get((key, "gpuscipy")), times.get((key, "cupy"))
        if g and c:
            results[-2 if f_cp is not None else -1].ratio_vs_cupy = None
            for rr in results:
                if rr.key == key and rr.backend == "gpuscipy":
                    rr.ratio_vs_cupy = g / c
    H.print_table(results, title="gpuscipy.linalg decompositions")
    bars = []
    g, c = times.get(("eigh", "gpuscipy")), times.get(("eigh", "cupy"))
    if g and c:
        bars.append(H.Bar("eigh 4096^2 f64 vs CuPy", "<= 1.0x CuPy",
                          f"{g * 1e3:.1f} ms vs {c * 1e3:.1f} ms ({g / c:.2f}x)",
                          "PASS" if g <= c * 1.0 else "FAIL"))
    else:
        bars.append(H.Bar("eigh 4096^2 f64 vs CuPy", "<= 1.0x CuPy", "n/a", "FAIL",
                          "gpuscipy or CuPy missing"))
    for r in results:
        if r.backend == "gpuscipy" and r.check and r.check != "ok":
            bars.append(H.Bar(f"{r.case} correctness", "ok", r.check, "FAIL"))
    H.print_bars(bars, args.quick, None, None)
    if args.json:
        H.write_json(args.json, results)
    return 0 if all(b.status == "PASS" for b in bars) else 1


if __name__ == "__main__":
    sys.exit(main())
