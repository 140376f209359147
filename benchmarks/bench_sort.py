"""Sorting benchmarks: gpuscipy_core, CuPy and NumPy side by side in one process.

    python -m benchmarks.bench_sort [--quick] [--json out.json]

Cases (``--quick`` shrinks them):

* ``sort_2^26``: ``sort`` of 2^26 float32 (uniform random). Bar: gpuscipy no
  slower than ``cupy.sort``.
* ``argsort_2^24``: ``argsort`` of 2^24 float32.
* ``segmented_4096x1024``: ``sort(axis=-1)`` of a 4096 x 1024 float32 array.

Results are checked against NumPy (sort/argsort stable). Exit status: 0 when
every bar passes, 1 when a bar fails or a result is wrong (with ``--quick``
bars are advisory), 2 on bad arguments.

``--tune`` (gpuscipy only, ~30 s) times the onesweep passes' tile shapes
(keys per thread x blocks per SM) for the sort and argsort cases and prints
one line per shape, checked against NumPy; the fastest goes into
``_sort_source.onesweep_config``.
"""

from __future__ import annotations

import argparse
import sys
import traceback

import numpy as np

from . import _harness as H


def _cases(quick):
    if quick:
        return [("sort", 2 ** 20, None), ("argsort", 2 ** 18, None),
                ("segmented", 256, 1024)]
    return [("sort", 2 ** 26, None), ("argsort", 2 ** 24, None),
            ("segmented", 4096, 1024)]


def _name(op, n, m):
    if op == "segmented":
        return f"segmented_{n}x{m}"
    return f"{op}_2^{int(np.log2(n))}"


def _run_case(op, n, m, backend, host):
    xp = backend.xp
    x = backend.asarray(host) if backend.is_gpu else host
    if op == "argsort":
        fn = (lambda: xp.argsort(x)) if backend.name != "numpy" else \
            (lambda: np.argsort(x, kind="stable"))
    elif op == "segmented":
        fn = lambda: xp.sort(x, axis=-1)  # noqa: E731
    else:
        fn = lambda: xp.sort(x)  # noqa: E731
    t = H.time_gpu(fn, backend, warmup=3, repeat=20)
    res = H.Result(case=_name(op, n, m), backend=backend.name, key=op,
                   kind="gpu" if backend.is_gpu else "cpu")
    res.set_timing(t, nbytes=host.nbytes * 2)
    if backend.name == "gpuscipy":
        got = backend.asnumpy(fn())
        ref = np.argsort(host, kind="stable") if op == "argsort" else np.sort(host, axis=-1)
        res.check = "ok" if np.array_equal(got, ref) else "FAIL: differs from NumPy"
    return res


# (keys per thread, blocks per SM) tried by --tune, per (key, value) width.
_TUNE = {(4, 0): [(20, 3), (16, 3), (24, 2), (16, 4), (12, 4), (28, 2)],
         (4, 4): [(16, 3), (12, 3), (12, 4), (16, 2), (8, 4)]}


def _tune(quick):
    """Time each onesweep tile shape on the sort and argsort cases."""
    b, why = H.load_backend("gpuscipy")
    if b is None:
        print(f"gpuscipy: not available ({why})")
        return 1
    from gpuscipy_core._routines import _sorting
    rng = np.random.default_rng(0)
    bad = False
    print("== onesweep tile shapes ==")
    for op, n, key in (("sort", 2 ** 20 if quick else 2 ** 26, (4, 0)),
                       ("argsort", 2 ** 18 if quick else 2 ** 24, (4, 4))):
        host = rng.random(n, dtype=np.float32)
        x = b.asarray(host)
        fn = (lambda: b.xp.argsort(x)) if op == "argsort" else (lambda: b.xp.sort(x))
        ref = np.argsort(host, kind="stable") if op == "argsort" else np.sort(host)
        for cfg in _TUNE[key]:
            _sorting._ONESWEEP_CONFIG[key] = cfg
            try:
                ok = np.array_equal(b.asnumpy(fn()), ref)
                t = H.time_gpu(fn, b, warmup=2, repeat=10)
                line = f"{H.fmt_time(t.median_s)}  {'ok' if ok else 'WRONG'}"
                bad |= not ok
            except Exception as e:  # a shape that does not compile or launch
                line = f"error: {str(e)[:120]}"
                bad = True
            print(f"{op:8s} n=2^{int(np.log2(n))}  items={cfg[0]:2d} blocks/SM={cfg[1]}  "
                  f"{line}")
            b.free_pool()
        _sorting._ONESWEEP_CONFIG.pop(key, None)
    return 1 if bad else 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--json")
    p.add_argument("--no-cpu", action="store_true", help="skip NumPy")
    p.add_argument("--tune", action="store_true",
                   help="time the onesweep tile shapes instead (gpuscipy only)")
    args = p.parse_args(argv)
    if args.tune:
        return _tune(args.quick)
    backends = []
    for name in ("gpuscipy", "cupy"):
        b, why = H.load_backend(name)
        if b is None:
            print(f"{name}: not available ({why})")
        else:
            backends.append(b)
    if not args.no_cpu:
        b, _ = H.load_backend("numpy")
        if b is not None:
            backends.append(b)
    rng = np.random.default_rng(0)
    results, failed = [], False
    for op, n, m in _cases(args.quick):
        shape = (n,) if m is None else (n, m)
        host = rng.random(shape, dtype=np.float32)
        for b in backends:
            if not b.is_gpu and op == "sort" and n > 2 ** 24:
                continue
            try:
                r = _run_case(op, n, m, b, host)
            except Exception as e:  # a crash is reported, not hidden
                traceback.print_exc()
                r = H.Result(case=_name(op, n, m), backend=b.name, key=op,
                             status="error", note=str(e)[:200])
                failed |= b.name == "gpuscipy"
            if r.check and r.check != "ok":
                failed = True
            results.append(r)
            if b.is_gpu:
                b.free_pool()
    H.print_table(results, title="sort")

    bars = []
    by = {(r.key, r.backend): r for r in results}
    g, c = by.get(("sort", "gpuscipy")), by.get(("sort", "cupy"))
    if g and c and g.median_s and c.median_s:
        ratio = g.median_s / c.median_s
        bars.append(H.Bar("sort 2^26 float32 vs cupy.sort", "<= 1.00x CuPy",
                          f"{ratio:.2f}x ({H.fmt_time(g.median_s)} vs "
                          f"{H.fmt_time(c.median_s)})",
                          "PASS" if ratio <= 1.0 else "FAIL"))
    else:
        bars.append(H.Bar("sort 2^26 float32 vs cupy.sort", "<= 1.00x CuPy", "n/a",
                          "FAIL", "gpuscipy or cupy missing"))
    H.print_bars(bars, args.quick, None, None)
    if args.json:
        H.write_json(args.json, results)
    bar_fail = any(b.status == "FAIL" for b in bars) and not args.quick
    return 1 if (failed or bar_fail) else 0


if __name__ == "__main__":
    sys.exit(main())
