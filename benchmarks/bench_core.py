"""Core benchmarks: gpuscipy_core and CuPy side by side in one process.

    python -m benchmarks.bench_core [--json out.json] [--quick] [--cases ...]

Cases (full sizes; ``--quick`` shrinks them so a run takes seconds):

* ``copy_1GiB``: ``x.copy()`` of 1 GiB float32.  The best copy bandwidth of
  the run (max over the GPU backends) is the reference for "% copy".
* ``add_16_host``: host time per call of ``x + y`` on 16 float32, result
  allocation included.  Bar: gpuscipy <= 6 us.
* ``add_2^28``: ``x + y`` on 2^28 float32 (3 GiB moved).  Bar: >= 90 % copy.
* ``sum_2^28``: ``x.sum()`` on 2^28 float32 (1 GiB read).  Bar: >= 85 % copy.
* ``transpose_copy_16384^2``: ``ascontiguousarray(x.T)``.  Bar: >= 70 % copy.
* ``first_add_new_process``: a fresh interpreter imports gpuscipy_core and
  does one 16-element add; run twice; the second must do no NVRTC compile.

Exit status: 0 when every bar passes; 1 when a bar fails, a gpuscipy result
is wrong or a gpuscipy case crashes (with ``--quick`` the bar thresholds are
advisory, wrong results and crashes still count); 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass

from . import _harness as H

CASES = ("copy", "add_host", "add", "sum", "transpose", "first_add")
GPU_DEFAULT = ("gpuscipy", "cupy")
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST_TARGET_US = 6.0


@dataclass
class Sizes:
    copy_n: int
    add_n: int
    sum_n: int
    transpose_n: int
    host_n: int
    host_calls: int


FULL = Sizes(copy_n=2**28, add_n=2**28, sum_n=2**28, transpose_n=16384,
             host_n=16, host_calls=20000)
QUICK = Sizes(copy_n=2**22, add_n=2**22, sum_n=2**22, transpose_n=1024,
              host_n=16, host_calls=2000)


def _human_bytes(n: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return f"{n}B"


def _pow2(n: int) -> str:
    k = int(round(math.log2(n)))
    return f"2^{k}" if 2**k == n else str(n)


def case_names(s: Sizes) -> dict[str, str]:
    return {
        "copy": f"copy_{_human_bytes(4 * s.copy_n)}",
        "add_host": f"add_{s.host_n}_host",
        "add": f"add_{_pow2(s.add_n)}",
        "sum": f"sum_{_pow2(s.sum_n)}",
        "transpose": f"transpose_copy_{s.transpose_n}^2",
        "first_add": "first_add_new_process",
    }


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# host data (numpy), shared by all backends
# --------------------------------------------------------------------------

class HostData:
    """Random float32 in [0.5, 1.5) (never zeros), made once, sliced."""

    def __init__(self, s: Sizes, cases: list[str]):
        import numpy as np
        self.np = np
        rng = np.random.default_rng(12345)
        need_x = 0
        if "copy" in cases:
            need_x = max(need_x, s.copy_n)
        if "add" in cases:
            need_x = max(need_x, s.add_n)
        if "sum" in cases:
            need_x = max(need_x, s.sum_n)
        if "transpose" in cases:
            need_x = max(need_x, s.transpose_n ** 2)
        t0 = time.perf_counter()
        self.x = self._rand(rng, need_x) if need_x else None
        self.y = self._rand(rng, s.add_n) if "add" in cases else None
        if need_x:
            log(f"[host data: {need_x + (s.add_n if self.y is not None else 0)}"
                f" float32 in {time.perf_counter() - t0:.1f} s]")

    def _rand(self, rng, n):
        a = rng.random(n, dtype=self.np.float32)
        a += self.np.float32(0.5)
        return a


# --------------------------------------------------------------------------
# cases
# --------------------------------------------------------------------------

def _upload_sets(b: H.Backend, host_arrays, nsets: int):
    """``nsets`` argument tuples, each a device copy of ``host_arrays``."""
    first = tuple(b.asarray(h) for h in host_arrays)
    sets = [first]
    for _ in range(nsets - 1):
        sets.append(tuple(a.copy() for a in first))
    b.synchronize()
    return sets


def _eq_check(np, got, want) -> str:
    if got.shape != want.shape or got.dtype != want.dtype:
        return (f"FAIL: got {got.dtype}{got.shape}, "
                f"want {want.dtype}{want.shape}")
    if not np.array_equal(got, want):
        bad = int(np.count_nonzero(got != want))
        return f"FAIL: {bad} of {want.size} elements differ"
    return "ok"


def run_copy(b, hd, s, name, args, l2):
    np = hd.np
    h = hd.x[:s.copy_n]
    nbytes = 2 * h.nbytes
    r = H.Result(case=name, backend=b.name, key="copy",
                 kind="gpu" if b.is_gpu else "cpu")
    if not b.is_gpu:
        t = H.time_cpu(lambda: h.copy(), repeat=args.cpu_repeat)
        return r.set_timing(t, nbytes)
    sets = _upload_sets(b, (h,), H.rotation_sets(nbytes, l2))
    out = sets[0][0].copy()
    r.check = _eq_check(np, b.asnumpy(out), h)
    del out
    t = H.time_gpu(lambda a: a.copy(), b, args.warmup, args.repeat, sets)
    del sets
    return r.set_timing(t, nbytes)


def run_add(b, hd, s, name, args, l2):
    np = hd.np
    hx, hy = hd.x[:s.add_n], hd.y[:s.add_n]
    nbytes = 3 * hx.nbytes
    r = H.Result(case=name, backend=b.name, key="add",
                 kind="gpu" if b.is_gpu else "cpu")
    if not b.is_gpu:
        t = H.time_cpu(lambda: hx + hy, repeat=args.cpu_repeat)
        return r.set_timing(t, nbytes)
    sets = _upload_sets(b, (hx, hy), H.rotation_sets(nbytes, l2))
    out = sets[0][0] + sets[0][1]
    r.check = _eq_check(np, b.asnumpy(out), hx + hy)
    del out
    t = H.time_gpu(lambda x, y: x + y, b, args.warmup, args.repeat, sets)
    del sets
    return r.set_timing(t, nbytes)


def run_sum(b, hd, s, name, args, l2):
    np = hd.np
    h = hd.x[:s.sum_n]
    nbytes = h.nbytes
    r = H.Result(case=name, backend=b.name, key="sum",
                 kind="gpu" if b.is_gpu else "cpu")
    if not b.is_gpu:
        t = H.time_cpu(lambda: h.sum(), repeat=args.cpu_repeat)
        return r.set_timing(t, nbytes)
    sets = _upload_sets(b, (h,), H.rotation_sets(nbytes, l2))
    got = b.asnumpy(sets[0][0].sum())
    want = float(h.sum(dtype=np.float64))
    rel = abs(float(got) - want) / want
    if got.dtype != np.float32:
        r.check = f"FAIL: dtype {got.dtype}, want float32"
    elif not rel <= 1e-4:
        r.check = f"FAIL: rel err {rel:.2e} (got {float(got)!r}, want {want!r})"
    else:
        r.check = "ok"
    r.note = f"rel err {rel:.1e}"
    t = H.time_gpu(lambda a: a.sum(), b, args.warmup, args.repeat, sets)
    del sets
    return r.set_timing(t, nbytes)


def _transpose_check(np, got, h2) -> str:
    n = h2.shape[0]
    want_shape = (h2.shape[1], h2.shape[0])
    if got.shape != want_shape or got.dtype != h2.dtype:
        return f"FAIL: got {got.dtype}{got.shape}"
    if n <= 4096:
        ok = np.array_equal(got, h2.T)
    else:  # full compare of 1 GiB on the CPU is slow: bands + random points
        rng = np.random.default_rng(7)
        ok = True
        for i0 in (0, n // 2 - 37, n - 256, int(rng.integers(0, n - 256))):
            ok &= np.array_equal(got[i0:i0 + 256, :], h2[:, i0:i0 + 256].T)
        i = rng.integers(0, got.shape[0], 100000)
        j = rng.integers(0, got.shape[1], 100000)
        ok &= np.array_equal(got[i, j], h2[j, i])
    return "ok" if ok else "FAIL: transposed values differ"


def run_transpose(b, hd, s, name, args, l2):
    np = hd.np
    n = s.transpose_n
    h2 = hd.x[:n * n].reshape(n, n)
    nbytes = 2 * h2.nbytes
    r = H.Result(case=name, backend=b.name, key="transpose",
                 kind="gpu" if b.is_gpu else "cpu")
    xp = b.xp
    if not b.is_gpu:
        t = H.time_cpu(lambda: np.ascontiguousarray(h2.T),
                       repeat=args.cpu_repeat)
        return r.set_timing(t, nbytes)
    sets = _upload_sets(b, (h2,), H.rotation_sets(nbytes, l2))
    out = xp.ascontiguousarray(sets[0][0].T)
    r.check = _transpose_check(np, b.asnumpy(out), h2)
    del out
    t = H.time_gpu(lambda a: xp.ascontiguousarray(a.T), b, args.warmup,
                   args.repeat, sets)
    del sets
    return r.set_timing(t, nbytes)


def run_add_host(b, hd, s, name, args, l2):
    import numpy as np
    hx = np.arange(1, s.host_n + 1, dtype=np.float32)
    hy = np.full(s.host_n, 0.25, dtype=np.float32)
    r = H.Result(case=name, backend=b.name, key="add_host", kind="host")
    if not b.is_gpu:
        t = H.time_host(lambda: hx + hy, lambda: None, n=s.host_calls)
        return r.set_timing(t)
    x, y = b.asarray(hx), b.asarray(hy)
    r.check = _eq_check(np, b.asnumpy(x + y), hx + hy)
    t = H.time_host(lambda: x + y, b.synchronize, n=s.host_calls)
    r.note = f"{s.host_calls} calls x 5 rounds"
    return r.set_timing(t)


RUNNERS = {"copy": run_copy, "add_host": run_add_host, "add": run_add,
           "sum": run_sum, "transpose": run_transpose}
CPU_CASES = {"copy", "add_host", "add", "sum", "transpose"}


# --------------------------------------------------------------------------
# first op in a new process
# --------------------------------------------------------------------------

_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import gpuscipy_core as gp
from gpuscipy_core import _kernel
t1 = time.perf_counter()
a = np.arange(16, dtype=np.float32)
b = np.full(16, 0.5, dtype=np.float32)
x = gp.asarray(a)
y = gp.asarray(b)
gp.cuda.Device(0).synchronize()
s0 = dict(_kernel.stats())
t2 = time.perf_counter()
z = x + y
gp.cuda.Device(0).synchronize()
t3 = time.perf_counter()
s1 = dict(_kernel.stats())
ok = bool(np.array_equal(gp.asnumpy(z), a + b))
t4 = time.perf_counter()
z2 = x + y
gp.cuda.Device(0).synchronize()
t5 = time.perf_counter()
print("@@FIRST_ADD@@" + json.dumps({
    "import_s": t1 - t0, "first_add_s": t3 - t2, "second_add_s": t5 - t4,
    "stats_before": s0, "stats": s1, "stats_end": dict(_kernel.stats()),
    "correct": ok}))
"""


def _count_files(d: str | None) -> int | None:
    if not d or not os.path.isdir(d):
        return None if not d else 0
    return sum(len(fs) for _, _, fs in os.walk(d))


def run_first_add(name: str, timeout: float) -> list[H.Result]:
    results = []
    cache = os.environ.get("GPUSCIPY_CACHE_DIR")
    for run in (1, 2):
        r = H.Result(case=f"{name}#{run}", backend="gpuscipy",
                     key=f"first_add#{run}",
                     kind="wall")
        before = _count_files(cache)
        t0 = time.perf_counter()
        try:
            p = subprocess.run([sys.executable, "-c", _CHILD],
                               env=dict(os.environ), capture_output=True,
                               text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            r.status, r.note = "error", f"run {run}: timed out after {timeout} s"
            results.append(r)
            continue
        wall = time.perf_counter() - t0
        line = next((ln for ln in p.stdout.splitlines()
                     if ln.startswith("@@FIRST_ADD@@")), None)
        if p.returncode != 0 or line is None:
            tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
            err = " | ".join(tail)
            if "No module named 'gpuscipy_core'" in (p.stderr or ""):
                r.status = "n/a"
            else:
                r.status = "error"
            r.note = f"run {run}: rc={p.returncode}: {err}"
            results.append(r)
            continue
        d = json.loads(line[len("@@FIRST_ADD@@"):])
        st = d["stats"]
        r.median_s = r.min_s = d["first_add_s"]
        r.n = 1
        r.check = "ok" if d["correct"] else "FAIL: wrong sum"
        r.note = (f"run {run}: nvrtc_compiles={st.get('nvrtc_compiles')} "
                  f"disk_hits={st.get('disk_hits')} "
                  f"memory_hits={st.get('memory_hits')} "
                  f"import={d['import_s'] * 1e3:.0f}ms "
                  f"process={wall:.2f}s")
        d.update(run=run, process_wall_s=wall, cache_files_before=before,
                 cache_dir=cache)
        r.extra = d
        results.append(r)
        log(f"[{name} run {run}: first add {H.fmt_time(r.median_s)}, "
            f"stats {st}]")
    return results


# --------------------------------------------------------------------------
# bars
# --------------------------------------------------------------------------

def _find(results, key, backend="gpuscipy"):
    return next((r for r in results if r.key == key and r.backend == backend),
                None)


def evaluate_bars(results, names, copy_ref) -> list[H.Bar]:
    bars: list[H.Bar] = []

    def unusable(r):
        if r is None:
            return "not run"
        if r.status != "ok":
            return f"{r.status}: {r.note}"[:120]
        if r.check not in (None, "ok"):
            return f"wrong result ({r.check})"
        return None

    r = _find(results, "add_host")
    if r is not None or "add_host" in names:
        why = unusable(r)
        if why:
            bars.append(H.Bar(names["add_host"] + " host time",
                            f"<= {HOST_TARGET_US:g} us", "n/a", "FAIL", why))
        else:
            us = r.median_s * 1e6
            bars.append(H.Bar(names["add_host"] + " host time",
                            f"<= {HOST_TARGET_US:g} us", f"{us:.2f} us",
                            "PASS" if us <= HOST_TARGET_US else "FAIL"))
    for key, frac in (("add", 0.90), ("sum", 0.85), ("transpose", 0.70)):
        r = _find(results, key)
        if r is None and key not in names:
            continue
        why = unusable(r)
        target = f">= {frac * 100:.0f} % copy bw"
        if why is None and not copy_ref:
            why = "no copy bandwidth measured"
        if why:
            bars.append(H.Bar(names[key], target, "n/a", "FAIL", why))
            continue
        f = r.gbps / copy_ref
        bars.append(H.Bar(names[key], target,
                        f"{f * 100:.1f} % ({r.gbps:.0f} GB/s)",
                        "PASS" if f >= frac else "FAIL"))
    if "first_add" in names:
        r2 = _find(results, "first_add#2")
        why = unusable(r2)
        if why:
            bars.append(H.Bar("first_add_new_process run 2",
                            "nvrtc_compiles == 0", "n/a", "FAIL", why))
        else:
            c = r2.extra.get("stats", {}).get("nvrtc_compiles")
            bars.append(H.Bar("first_add_new_process run 2",
                            "nvrtc_compiles == 0", f"nvrtc_compiles={c}",
                            "PASS" if c == 0 else "FAIL"))
    return bars


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------

def parse_args(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_core",
        description="gpuscipy_core vs CuPy core benchmarks (copy, tiny-add "
                    "host overhead, add, sum, transpose copy, first op in a "
                    "new process) with pass/fail bars.")
    p.add_argument("--json", metavar="PATH", help="write results as JSON")
    p.add_argument("--quick", action="store_true",
                   help="small sizes (seconds; smoke test, bars advisory)")
    p.add_argument("--cases", default=",".join(CASES),
                   help=f"comma list of {', '.join(CASES)} (default: all)")
    p.add_argument("--backends", default=",".join(GPU_DEFAULT),
                   help="comma list of gpuscipy, cupy, numpy "
                        "(default: gpuscipy,cupy)")
    p.add_argument("--cpu", action="store_true",
                   help="also time numpy on the CPU (slow at full size)")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--repeat", type=int, default=100)
    p.add_argument("--cpu-repeat", type=int, default=5)
    p.add_argument("--host-calls", type=int, default=None,
                   help="calls per round of the host-time case "
                        "(default 20000, --quick 2000)")
    p.add_argument("--fresh-cache", action="store_true",
                   help="point GPUSCIPY_CACHE_DIR at a new empty temp dir "
                        "first, so first_add run 1 really compiles")
    p.add_argument("--first-add-timeout", type=float, default=300.0)
    args = p.parse_args(argv)
    args.cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    bad = [c for c in args.cases if c not in CASES]
    if bad:
        p.error(f"unknown case(s) {bad}; choose from {CASES}")
    args.backends = [x.strip() for x in args.backends.split(",") if x.strip()]
    if args.cpu and "numpy" not in args.backends:
        args.backends.append("numpy")
    bad = [x for x in args.backends if x not in H.ALL_BACKENDS]
    if bad:
        p.error(f"unknown backend(s) {bad}; choose from {H.ALL_BACKENDS}")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    sizes = QUICK if args.quick else FULL
    if args.host_calls:
        sizes = Sizes(**{**sizes.__dict__, "host_calls": args.host_calls})
    names = case_names(sizes)
    names = {k: v for k, v in names.items() if k in args.cases}
    if args.fresh_cache:
        os.environ["GPUSCIPY_CACHE_DIR"] = tempfile.mkdtemp(
            prefix="gpuscipy-bench-cache-")

    env = H.environment()
    H.print_environment(env)
    print(f"mode: {'quick' if args.quick else 'full'}; cases: "
          f"{', '.join(names.values())}; backends: {', '.join(args.backends)}")
    sys.stdout.flush()

    results: list[H.Result] = []
    failed_hard = False

    # First: the new-process case, before this process compiles anything
    # into the shared disk cache (so run 1 sees the cache as the env left it).
    if "first_add" in names and "gpuscipy" in args.backends:
        cache = os.environ.get("GPUSCIPY_CACHE_DIR")
        log(f"[first_add_new_process: GPUSCIPY_CACHE_DIR={cache}, "
            f"{_count_files(cache)} files before run 1]")
        results += run_first_add(names["first_add"], args.first_add_timeout)

    backends: list[H.Backend] = []
    for name in args.backends:
        b, why = H.load_backend(name)
        if b is None:
            log(f"[backend {name}: n/a ({why})]")
            for key, cname in names.items():
                if key in RUNNERS and (name in H.GPU_BACKENDS
                                       or key in CPU_CASES):
                    results.append(H.Result(case=cname, backend=name, key=key,
                                            status="n/a", note=str(why)[:100]))
        else:
            backends.append(b)

    run_keys = [k for k in CASES if k in names and k in RUNNERS]
    hd = None
    if backends and any(k != "add_host" for k in run_keys):
        hd = HostData(sizes, run_keys)
    l2 = H.l2_bytes()

    for key in run_keys:
        for b in backends:
            if not b.is_gpu and key not in CPU_CASES:
                continue
            log(f"[{names[key]} / {b.name} ...]")
            t0 = time.perf_counter()
            try:
                r = RUNNERS[key](b, hd, sizes, names[key], args, l2)
            except Exception as exc:
                traceback.print_exc()
                r = H.Result(case=names[key], backend=b.name, key=key,
                             status="error",
                             note=f"{type(exc).__name__}: {exc}"[:160])
            finally:
                b.free_pool()
            log(f"[  {H.fmt_time(r.median_s)} in "
                f"{time.perf_counter() - t0:.1f} s, check={r.check}]")
            results.append(r)
    del hd

    # Reference copy bandwidth: the best GPU copy of this run.
    copies = [r for r in results if r.key == "copy" and r.status == "ok"
              and r.kind == "gpu" and r.gbps]
    copy_ref = max((r.gbps for r in copies), default=None)
    copy_src = next((f"copy by {r.backend}" for r in copies
                     if r.gbps == copy_ref), "")
    H.fill_derived(results, copy_ref)

    order = {k: i for i, k in enumerate(CASES)}
    border = {b: i for i, b in enumerate(H.ALL_BACKENDS)}
    results.sort(key=lambda r: (order.get(r.key.split("#")[0], 99),
                                r.key, border.get(r.backend, 99)))
    print()
    H.print_table(results, title="== results ==  (median/min over repeats; "
                  "gp/cupy = time ratio, < 1 means gpuscipy faster)")

    bars = evaluate_bars(results, names, copy_ref) \
        if "gpuscipy" in args.backends else []
    H.print_bars(bars, args.quick, copy_ref, copy_src)

    for r in results:
        if r.backend == "gpuscipy" and (
                r.status == "error" or r.check not in (None, "ok")):
            failed_hard = True
    if "gpuscipy" in args.backends and not any(
            r.backend == "gpuscipy" and r.status == "ok" for r in results):
        failed_hard = True   # the library under test did not run at all
    bar_failed = any(b.status != "PASS" for b in bars)

    if args.json:
        H.write_json(args.json, results, env,
                     mode="quick" if args.quick else "full",
                     reference_copy_gbps=copy_ref, reference_copy=copy_src,
                     bars=[b.__dict__ for b in bars],
                     sizes=sizes.__dict__, warmup=args.warmup,
                     repeat=args.repeat, l2_bytes=l2)
        print(f"wrote {args.json}")
    rc = 1 if failed_hard or (bar_failed and not args.quick) else 0
    print(f"bench_core exit status: {rc}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
