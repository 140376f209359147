"""Vendor-library benchmarks: binding overhead and matmul, gpuscipy_core vs CuPy.

    python -m benchmarks.bench_libs [--json out.json] [--quick] [--cases ...]

Cases (``--quick`` shrinks sizes and call counts so a run takes seconds):

* ``setstream_host``: host time per call of ``cublasSetStream_v2`` through
  ``gpuscipy_core.libs.cublas`` vs CuPy's ``cupy_backends.cuda.libs.cublas
  .setStream`` on each library's own handle (the trivial bound call: argument
  conversion, one call through a function pointer, status check).
  Bar: <= 1.5x CuPy's time per call.
* ``gemm1x1_host``: host time per call of a 1x1 ``cublasDgemm_v2``
  (HOST pointer mode, scalars from NumPy) through each binding, the GPU
  kept busy by nothing else. Bar: <= 1.5x CuPy's.
* ``matmul2x2_host``: host time per call of ``matmul`` on 2x2 float64 (the
  whole Python path: checks, allocation, handle, call). Reported, no bar.
* ``matmul_4096_f32``/``matmul_4096_f64``: ``a @ b`` of 4096^2 matrices (GPU
  time, CUDA events, result allocation included). Bar: <= 1.10x CuPy.
* ``matmul_batched_f64``: 10000 x (32x32 @ 32x32) float64. Bar: <= 1.10x CuPy.

NumPy runs the matmul cases too (fewer repeats) for scale. Results are checked
against NumPy (a slice of the big products).

Exit status: 0 when every bar passes; 1 when a bar fails, a gpuscipy result
is wrong or a gpuscipy case crashes (with ``--quick`` the bars are advisory,
wrong results and crashes still count); 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from dataclasses import dataclass

from . import _harness as H

CASES = ("setstream_host", "gemm1x1_host", "matmul2x2_host", "matmul_4096_f32",
         "matmul_4096_f64", "matmul_batched_f64")
HOST_CASES = ("setstream_host", "gemm1x1_host", "matmul2x2_host")
GPU_DEFAULT = ("gpuscipy", "cupy", "numpy")
OVERHEAD_RATIO = 1.5
MATMUL_RATIO = 1.10


@dataclass
class Sizes:
    n: int
    batch: int
    bm: int
    host_calls: int


FULL = Sizes(n=4096, batch=10000, bm=32, host_calls=20000)
QUICK = Sizes(n=512, batch=1000, bm=32, host_calls=2000)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# the bound calls, per backend
# --------------------------------------------------------------------------

class _Cublas:
    """The same cuBLAS calls through one backend's binding."""

    def __init__(self, b: H.Backend):
        import numpy as np
        self.b = b
        self.one = np.ones(1, np.float64)
        self.zero = np.zeros(1, np.float64)
        if b.name == "gpuscipy":
            from gpuscipy_core import libs
            from gpuscipy_core._cuda._stream import get_current_stream_ptr
            self.lib = libs.cublas
            self.handle = libs.get_handle("cublas")
            self.stream = get_current_stream_ptr()
            self.set_stream = self.lib.cublasSetStream_v2
            self.dgemm = self.lib.cublasDgemm_v2
            self.op_n = self.lib.CUBLAS_OP_N
        else:
            import cupy
            from cupy_backends.cuda.libs import cublas
            self.lib = cublas
            self.handle = cupy.cuda.device.get_cublas_handle()
            self.stream = cupy.cuda.get_current_stream().ptr
            self.set_stream = cublas.setStream
            self.dgemm = cublas.dgemm
            self.op_n = cublas.CUBLAS_OP_N


def run_setstream_host(b, s, args):
    r = H.Result(case="cublasSetStream_v2", backend=b.name, key="setstream_host",
                 kind="host")
    c = _Cublas(b)
    h, st, f = c.handle, c.stream, c.set_stream
    t = H.time_host(lambda: f(h, st), b.synchronize, n=s.host_calls)
    r.note = f"{s.host_calls} calls x 5 rounds"
    return r.set_timing(t)


def run_gemm1x1_host(b, s, args):
    import numpy as np
    r = H.Result(case="cublasDgemm_v2 1x1", backend=b.name, key="gemm1x1_host",
                 kind="host")
    c = _Cublas(b)
    x = b.asarray(np.array([[3.0]]))
    y = b.asarray(np.array([[0.5]]))
    z = b.asarray(np.array([[7.0]]))
    px, py, pz = _ptr(b, x), _ptr(b, y), _ptr(b, z)
    h, f, n, pa, pb = c.handle, c.dgemm, c.op_n, c.one.ctypes.data, c.zero.ctypes.data
    c.set_stream(h, c.stream)

    def call():
        f(h, n, n, 1, 1, 1, pa, px, 1, py, 1, pb, pz, 1)

    call()
    got = float(b.asnumpy(z)[0, 0])
    r.check = "ok" if got == 1.5 else f"FAIL: 1x1 gemm gave {got}, want 1.5"
    t = H.time_host(call, b.synchronize, n=s.host_calls)
    r.note = f"{s.host_calls} calls x 5 rounds"
    return r.set_timing(t)


def _ptr(b, a):
    return a.ptr if b.name == "gpuscipy" else a.data.ptr


def run_matmul2x2_host(b, s, args):
    import numpy as np
    r = H.Result(case="matmul 2x2 f64", backend=b.name, key="matmul2x2_host",
                 kind="host")
    ha = np.array([[1.0, 2.0], [3.0, 4.0]])
    if not b.is_gpu:
        t = H.time_host(lambda: ha @ ha, lambda: None, n=s.host_calls)
        return r.set_timing(t)
    x = b.asarray(ha)
    r.check = "ok" if np.array_equal(b.asnumpy(x @ x), ha @ ha) else "FAIL: wrong product"
    t = H.time_host(lambda: x @ x, b.synchronize, n=s.host_calls)
    r.note = f"{s.host_calls} calls x 5 rounds"
    return r.set_timing(t)


# --------------------------------------------------------------------------
# matmul
# --------------------------------------------------------------------------

_HOST = {}


def _host_pair(shape_a, shape_b, dtype, seed):
    import numpy as np
    key = (shape_a, shape_b, dtype, seed)
    if key not in _HOST:
        rng = np.random.default_rng(seed)
        a = rng.uniform(-1, 1, shape_a).astype(dtype)
        b = rng.uniform(-1, 1, shape_b).astype(dtype)
        _HOST.clear()
        _HOST[key] = (a, b)
    return _HOST[key]


def _rel_err(np, got, want):
    scale = float(np.max(np.abs(want))) or 1.0
    return float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) / scale


def _run_matmul(b, args, key, case, shape_a, shape_b, dtype, check_rows, tol, flops):
    import numpy as np
    r = H.Result(case=case, backend=b.name, key=key, kind="gpu" if b.is_gpu else "cpu")
    ha, hb = _host_pair(shape_a, shape_b, dtype, 7)
    nbytes = ha.nbytes + hb.nbytes + ha.nbytes // ha.shape[-1] * hb.shape[-1]
    if not b.is_gpu:
        t = H.time_cpu(lambda: ha @ hb, warmup=1, repeat=args.cpu_repeat)
        r.note = f"{flops / t.median_s / 1e12:.2f} TFLOP/s"
        return r.set_timing(t, nbytes)
    x, y = b.asarray(ha), b.asarray(hb)
    out = x @ y
    got = b.asnumpy(out[:check_rows])
    want = ha[:check_rows] @ (hb[:check_rows] if hb.ndim > 2 else hb)
    err = _rel_err(np, got, want)
    dt_ok = got.dtype == want.dtype
    r.check = "ok" if dt_ok and err <= tol else \
        f"FAIL: dtype {got.dtype} rel err {err:.2e} (tol {tol:.0e})"
    del out
    t = H.time_gpu(lambda: x @ y, b, args.warmup, args.repeat)
    r.note = f"{flops / t.median_s / 1e12:.2f} TFLOP/s, rel err {err:.1e}"
    return r.set_timing(t, nbytes)


def run_matmul_f32(b, s, args):
    n = s.n
    return _run_matmul(b, args, "matmul_4096_f32", f"matmul {n}^2 f32", (n, n), (n, n),
                       "float32", 16, 1e-5, 2.0 * n ** 3)


def run_matmul_f64(b, s, args):
    n = s.n
    return _run_matmul(b, args, "matmul_4096_f64", f"matmul {n}^2 f64", (n, n), (n, n),
                       "float64", 16, 1e-13, 2.0 * n ** 3)


def run_matmul_batched(b, s, args):
    m = s.bm
    return _run_matmul(b, args, "matmul_batched_f64", f"matmul {s.batch}x{m}^2 f64",
                       (s.batch, m, m), (s.batch, m, m), "float64", 100, 1e-13,
                       2.0 * s.batch * m ** 3)


RUNNERS = {"setstream_host": run_setstream_host, "gemm1x1_host": run_gemm1x1_host,
           "matmul2x2_host": run_matmul2x2_host, "matmul_4096_f32": run_matmul_f32,
           "matmul_4096_f64": run_matmul_f64, "matmul_batched_f64": run_matmul_batched}
CPU_CASES = {"matmul2x2_host", "matmul_4096_f32", "matmul_4096_f64", "matmul_batched_f64"}


# --------------------------------------------------------------------------
# bars
# --------------------------------------------------------------------------

def evaluate_bars(results, quick):
    by = {(r.key, r.backend): r for r in results}
    bars = []
    for key, limit, label in (("setstream_host", OVERHEAD_RATIO, "cublasSetStream_v2 host"),
                              ("gemm1x1_host", OVERHEAD_RATIO, "1x1 Dgemm host"),
                              ("matmul_4096_f32", MATMUL_RATIO, "matmul 4096^2 f32"),
                              ("matmul_4096_f64", MATMUL_RATIO, "matmul 4096^2 f64"),
                              ("matmul_batched_f64", MATMUL_RATIO,
                               "matmul 10000x32^2 f64")):
        g, c = by.get((key, "gpuscipy")), by.get((key, "cupy"))
        target = f"<= {limit:.2f}x CuPy"
        if g is None or g.status != "ok" or not g.median_s:
            bars.append(H.Bar(label, target, "n/a", "FAIL", "gpuscipy did not run"))
            continue
        if c is None or c.status != "ok" or not c.median_s:
            bars.append(H.Bar(label, target, H.fmt_time(g.median_s), "n/a",
                              "CuPy did not run"))
            continue
        ratio = g.median_s / c.median_s
        ok = ratio <= limit and g.check in (None, "ok")
        bars.append(H.Bar(label, target,
                          f"{H.fmt_time(g.median_s)} vs {H.fmt_time(c.median_s)} "
                          f"({ratio:.2f}x)", "PASS" if ok else "FAIL",
                          "" if g.check in (None, "ok") else g.check))
    return bars


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------

def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_libs",
                                description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="small sizes, advisory bars")
    p.add_argument("--json", metavar="PATH", help="write results as JSON")
    p.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    p.add_argument("--backends", nargs="+", choices=H.ALL_BACKENDS,
                   default=list(GPU_DEFAULT))
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--repeat", type=int, default=30)
    p.add_argument("--cpu-repeat", type=int, default=3)
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    sizes = QUICK if args.quick else FULL
    env = H.environment()
    H.print_environment(env)
    print(f"mode: {'quick' if args.quick else 'full'}; cases: {', '.join(args.cases)}; "
          f"backends: {', '.join(args.backends)}")
    sys.stdout.flush()
    results: list[H.Result] = []
    backends = []
    for name in args.backends:
        b, why = H.load_backend(name)
        if b is None:
            log(f"[backend {name}: n/a ({why})]")
            for key in args.cases:
                if name in H.GPU_BACKENDS or key in CPU_CASES:
                    results.append(H.Result(case=key, backend=name, key=key,
                                            status="n/a", note=str(why)[:100]))
        else:
            backends.append(b)
    for key in [k for k in CASES if k in args.cases]:
        for b in backends:
            if not b.is_gpu and key not in CPU_CASES:
                continue
            log(f"[{key} / {b.name} ...]")
            t0 = time.perf_counter()
            try:
                r = RUNNERS[key](b, sizes, args)
            except Exception as exc:
                traceback.print_exc()
                r = H.Result(case=key, backend=b.name, key=key, status="error",
                             note=f"{type(exc).__name__}: {exc}"[:160])
            finally:
                b.free_pool()
            log(f"[  {H.fmt_time(r.median_s)} in {time.perf_counter() - t0:.1f} s, "
                f"check={r.check}]")
            results.append(r)
    H.fill_derived(results, None)
    print()
    H.print_table(results, title="== results ==  (median/min over repeats; "
                  "gp/cupy = time ratio, < 1 means gpuscipy faster)")
    bars = evaluate_bars(results, args.quick) if "gpuscipy" in args.backends else []
    H.print_bars(bars, args.quick, None, "")
    failed_hard = any(r.backend == "gpuscipy" and (r.status == "error" or
                                                   r.check not in (None, "ok"))
                      for r in results)
    if "gpuscipy" in args.backends and not any(
            r.backend == "gpuscipy" and r.status == "ok" for r in results):
        failed_hard = True
    bar_failed = any(b.status == "FAIL" for b in bars)
    if args.json:
        H.write_json(args.json, results, env, mode="quick" if args.quick else "full",
                     bars=[b.__dict__ for b in bars], sizes=sizes.__dict__,
                     warmup=args.warmup, repeat=args.repeat)
        print(f"wrote {args.json}")
    rc = 1 if failed_hard or (bar_failed and not args.quick) else 0
    print(f"bench_libs exit status: {rc}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
