"""Scan and counting benchmarks: gpuscipy_core and CuPy side by side.

    python -m benchmarks.bench_scan [--quick] [--json PATH]

Cases: ``copy`` (reference copy bandwidth of this run: the best GPU copy),
``cumsum`` of 2^28 float32 (bar: >= 60 % of copy bandwidth, bytes read +
written), ``nonzero`` of a 2^26 bool mask (half true), ``bincount`` of 2^26
int32 values in [0, 1000). Exit status 1 when a bar fails or a gpuscipy
result is wrong (``--quick``: bars advisory).
"""

from __future__ import annotations

import argparse
import sys
import traceback

import numpy as np

from . import _harness as H

CUMSUM_BAR = 0.60


def _run(b, name, key, fn, sets, nbytes, check, args):
    r = H.Result(case=name, backend=b.name, key=key)
    try:
        got = fn(*sets[0])
        r.check = check(got)
        t = H.time_gpu(fn, b, args.warmup, args.repeat, sets)
        r.set_timing(t, nbytes)
    except Exception as e:  # a crash is a result, not the end of the run
        r.status, r.note = "error", f"{type(e).__name__}: {e}"
        traceback.print_exc()
    return r


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--json", default=None)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--repeat", type=int, default=30)
    args = p.parse_args(argv)
    n_scan = 2**22 if args.quick else 2**28
    n_mask = 2**20 if args.quick else 2**26
    rng = np.random.default_rng(0)
    xs = rng.random(n_scan, dtype=np.float32)
    ref_scan = np.cumsum(xs.astype(np.float64))
    mask = rng.random(n_mask) < 0.5
    ref_nz = np.flatnonzero(mask)
    vals = rng.integers(0, 1000, n_mask).astype(np.int32)
    ref_bc = np.bincount(vals)
    results = []
    names = {"copy": f"copy_f32_{n_scan}", "cumsum": f"cumsum_f32_{n_scan}",
             "nonzero": f"nonzero_bool_{n_mask}", "bincount": f"bincount_i32_{n_mask}"}
    for bname in ("gpuscipy", "cupy"):
        b, why = H.load_backend(bname)
        if b is None:
            for k, nm in names.items():
                results.append(H.Result(case=nm, backend=bname, key=k, status="n/a",
                                        note=why or ""))
            continue
        xp = b.xp
        gx = b.asarray(xs)
        sets = [(gx,)]
        results.append(_run(b, names["copy"], "copy", lambda a: a.copy(), sets,
                            2 * xs.nbytes, lambda g: "ok", args))

        def chk_scan(g):
            got = b.asnumpy(g).astype(np.float64)
            err = np.max(np.abs(got - ref_scan) / np.maximum(np.abs(ref_scan), 1))
            return "ok" if err < 1e-5 else f"FAIL: max rel err {err:.2e}"
        results.append(_run(b, names["cumsum"], "cumsum", lambda a: xp.cumsum(a), sets,
                            2 * xs.nbytes, chk_scan, args))
        del gx, sets
        b.free_pool()
        gm = b.asarray(mask)
        results.append(_run(
            b, names["nonzero"], "nonzero", lambda m: xp.nonzero(m), [(gm,)],
            mask.nbytes + 8 * ref_nz.size,
            lambda g: "ok" if np.array_equal(b.asnumpy(g[0]), ref_nz) else "FAIL: indices",
            args))
        gv = b.asarray(vals)
        results.append(_run(
            b, names["bincount"], "bincount", lambda v: xp.bincount(v), [(gv,)],
            vals.nbytes,
            lambda g: "ok" if np.array_equal(b.asnumpy(g), ref_bc) else "FAIL: counts",
            args))
        del gm, gv
        b.free_pool()
    copies = [r for r in results if r.key == "copy" and r.status == "ok" and r.gbps]
    copy_ref = max((r.gbps for r in copies), default=None)
    copy_src = next((f"copy by {r.backend}" for r in copies if r.gbps == copy_ref), "")
    H.fill_derived(results, copy_ref)
    H.print_environment(H.environment())
    H.print_table(results, title="scan / compaction / counting")
    bars = []
    r = next((r for r in results if r.key == "cumsum" and r.backend == "gpuscipy"), None)
    target = f">= {CUMSUM_BAR * 100:.0f} % copy bw"
    if r is None or r.status != "ok" or not copy_ref or r.gbps is None:
        bars.append(H.Bar(names["cumsum"], target, "n/a", "FAIL",
                          "no result" if r is None else (r.note or "no copy reference")))
    else:
        f = r.gbps / copy_ref
        ok = f >= CUMSUM_BAR and r.check == "ok"
        bars.append(H.Bar(names["cumsum"], target, f"{f * 100:.1f} %",
                          "PASS" if ok else "FAIL", "" if r.check == "ok" else str(r.check)))
    H.print_bars(bars, args.quick, copy_ref, copy_src)
    if args.json:
        H.write_json(args.json, results, reference_copy_gbps=copy_ref,
                     bars=[bb.__dict__ for bb in bars])
    wrong = any(r.backend == "gpuscipy" and (r.status == "error" or
                                             (r.check not in (None, "ok")))
                for r in results)
    failed = any(bb.status != "PASS" for bb in bars) and not args.quick
    return 1 if (wrong or failed) else 0


if __name__ == "__main__":
    sys.exit(main())
