"""Random-number benchmarks: gpuscipy_core.random vs CuPy (and NumPy) in one run.

    python -m benchmarks.bench_random [--json out.json] [--quick] [--cpu]

Cases (2^26 outputs; ``--quick``: 2^20):

* ``standard_normal_f32`` / ``standard_normal_f64``: ``default_rng(s).standard_normal(n, dtype)``
* ``random_f32`` / ``random_f64``: ``default_rng(s).random(n, dtype)``
* ``integers_i64``: ``integers(0, 1000, n)``
* ``permutation``: ``permutation(2^22)`` (``--quick``: 2^16); sort-bound

CuPy runs ``cupy.random.default_rng`` (its ``Generator``; for
``permutation``, which that class lacks, ``cupy.random.permutation``), NumPy
``numpy.random.default_rng`` with ``--cpu``. "% copy" is the bytes written over the run's copy bandwidth
(gpuscipy ``x.copy()`` of 1 GiB).

The issue sets no bar for random numbers; the bars printed here are the
project's own goals: ``standard_normal`` (float32 and float64) and ``random``
(float32) of 2^26 values no slower than CuPy. Exit status 1 when a bar fails or a result is wrong.
"""

from __future__ import annotations

import argparse
import sys
import traceback

import numpy as np

from . import _harness as H

CASES = ("standard_normal_f32", "standard_normal_f64", "random_f32", "random_f64",
         "integers_i64", "permutation")


def _call(backend, g, key, n, pn):
    if key == "standard_normal_f32":
        return g.standard_normal(n, dtype=np.float32)
    if key == "standard_normal_f64":
        return g.standard_normal(n, dtype=np.float64)
    if key == "random_f32":
        return g.random(n, dtype=np.float32)
    if key == "random_f64":
        return g.random(n, dtype=np.float64)
    if key == "integers_i64":
        return g.integers(0, 1000, size=n)
    if backend.name == "cupy" and not hasattr(g, "permutation"):
        # cupy.random.Generator (14.x) has no permutation: CuPy's legacy
        # module-level permutation (its RandomState) is what it offers
        return backend.xp.random.permutation(pn)
    return g.permutation(pn)


def _bytes(key, n, pn):
    if key.endswith("f32"):
        return 4 * n
    if key == "permutation":
        return 8 * pn
    return 8 * n


def _check(key, host, n, pn):
    """Loose statistical sanity of one result (wrong results fail the run)."""
    x = np.asarray(host, dtype=np.float64)
    if key.startswith("standard_normal"):
        ok = abs(x.mean()) < 6 / np.sqrt(x.size) and abs(x.var() - 1) < 0.01
    elif key.startswith("random"):
        ok = x.min() >= 0 and x.max() < 1 and abs(x.mean() - 0.5) < 0.01
    elif key == "integers_i64":
        ok = x.min() >= 0 and x.max() < 1000 and abs(x.mean() - 499.5) < 5
    else:
        ok = np.array_equal(np.sort(host), np.arange(pn))
    return "ok" if ok else "FAIL: statistics/range check"


def _rng(backend):
    if backend.name == "gpuscipy":
        return backend.xp.random.default_rng(1234)
    if backend.name == "cupy":
        return backend.xp.random.default_rng(1234)
    return np.random.default_rng(1234)


def _copy_bandwidth(gp_backend):
    if gp_backend is None:
        return None
    x = gp_backend.xp.ones((2 ** 28,), np.float32)
    t = H.time_gpu(lambda: x.copy(), gp_backend, warmup=3, repeat=20)
    return 2 * x.nbytes / t.median_s / 1e9


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_random")
    p.add_argument("--json", metavar="PATH")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--cpu", action="store_true", help="also time NumPy (slow)")
    p.add_argument("--repeat", type=int, default=50)
    args = p.parse_args(argv)
    n = 2 ** 20 if args.quick else 2 ** 26
    pn = 2 ** 16 if args.quick else 2 ** 22

    env = H.environment()
    H.print_environment(env)
    backends = []
    names = ["gpuscipy", "cupy"] + (["numpy"] if args.cpu else [])
    results: list[H.Result] = []
    for name in names:
        b, why = H.load_backend(name)
        if b is None:
            print(f"[backend {name}: n/a ({why})]")
            for key in CASES:
                results.append(H.Result(case=key, backend=name, key=key, status="n/a",
                                        note=str(why)[:100]))
        else:
            backends.append(b)
    gpb = next((b for b in backends if b.name == "gpuscipy"), None)
    copy_ref = None
    try:
        copy_ref = _copy_bandwidth(gpb)
    except Exception:
        traceback.print_exc()
    hard_fail = False
    for key in CASES:
        for b in backends:
            print(f"[{key} / {b.name} ...]")
            sys.stdout.flush()
            try:
                g = _rng(b)
                host = b.asnumpy(_call(b, g, key, n, pn))
                r = H.Result(case=key, backend=b.name, key=key,
                             kind="gpu" if b.is_gpu else "cpu")
                r.check = _check(key, host, n, pn)
                del host
                if b.is_gpu:
                    t = H.time_gpu(lambda: _call(b, g, key, n, pn), b, warmup=5,
                                   repeat=args.repeat)
                else:
                    t = H.time_cpu(lambda: _call(b, g, key, n, pn), repeat=3)
                r.set_timing(t, _bytes(key, n, pn))
            except Exception as exc:
                traceback.print_exc()
                r = H.Result(case=key, backend=b.name, key=key, status="error",
                             note=f"{type(exc).__name__}: {exc}"[:160])
            if r.backend == "gpuscipy" and (r.status == "error" or
                                            (r.check or "ok") != "ok"):
                hard_fail = True
            results.append(r)
            b.free_pool()
    H.fill_derived(results, copy_ref)
    H.print_table(results, title=f"random numbers, n = {n}")

    bars = []
    by = {(r.key, r.backend): r for r in results}
    for key in ("standard_normal_f32", "standard_normal_f64", "random_f32"):
        g, c = by.get((key, "gpuscipy")), by.get((key, "cupy"))
        target = "<= 1.0x CuPy (project goal)"
        if g is None or g.status != "ok":
            bars.append(H.Bar(key, target, "n/a", "FAIL", "gpuscipy did not run"))
        elif c is None or c.status != "ok":
            bars.append(H.Bar(key, target, H.fmt_time(g.median_s), "n/a", "no CuPy"))
        else:
            ratio = g.median_s / c.median_s
            bars.append(H.Bar(key, target, f"{ratio:.2f}x ({H.fmt_time(g.median_s)})",
                              "PASS" if ratio <= 1.0 else "FAIL"))
    H.print_bars(bars, args.quick, copy_ref, "gpuscipy x.copy() 1 GiB")
    if args.json:
        H.write_json(args.json, results, env, bars=[b.__dict__ for b in bars],
                     copy_gbps=copy_ref)
    bar_failed = any(b.status == "FAIL" for b in bars)
    return 1 if hard_fail or (bar_failed and not args.quick) else 0


if __name__ == "__main__":
    sys.exit(main())
