"""gpuscipy.fft benchmarks: gpuscipy, CuPy (cupyx.scipy.fft) and SciPy side by side.

    python -m benchmarks.bench_fft [--json out.json] [--quick] [--cpu]

Cases (full sizes; ``--quick`` shrinks them to seconds):

* ``copy``: ``x.copy()`` of 512 MiB; the best GPU copy bandwidth of the run
  is the reference for the bandwidth floors.
* ``fft_c64``: ``fft`` of 2^24 complex64 (128 MiB read + 128 MiB written).
  Bar: no slower than CuPy (time ratio <= 1.05, a 5 % noise margin: both
  run the same cuFFT kernels) and >= 70 % of the bandwidth floor.
* ``rfftn_f32``: ``rfftn`` of 512^3 float32. Same bars.
* ``rfft_f64`` / ``dct2_f64``: ``rfft`` and ``dct`` (type 2) of 2^24
  float64. Bar: dct within 1.5x of rfft (gpuscipy against itself).
* ``ifft_c64``, ``fft2_c64``, ``idct2_f64``, ``dctn_f32``: information
  (inverse with its scaling pass, 2-D, DCT-III, 2-D DCT).

SciPy (CPU, all cores) runs the 1-D cases at full size with few repeats,
and the 3-D/2-D ones only with ``--cpu``. Every gpuscipy result is checked
against SciPy's (relative to its largest magnitude).

Exit status: 0 when every bar passes; 1 when a bar fails (advisory with
``--quick``), a gpuscipy result is wrong, a gpuscipy case crashes or
gpuscipy could not run at all.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback

from . import _harness as H

CASES = ("copy", "fft_c64", "rfftn_f32", "rfft_f64", "dct2_f64", "ifft_c64",
         "fft2_c64", "idct2_f64", "dctn_f32")
FULL = {"copy": 2**27, "fft_c64": 2**24, "rfftn_f32": 512, "rfft_f64": 2**24,
        "dct2_f64": 2**24, "ifft_c64": 2**24, "fft2_c64": 4096, "idct2_f64": 2**24,
        "dctn_f32": 4096}
QUICK = {"copy": 2**22, "fft_c64": 2**18, "rfftn_f32": 64, "rfft_f64": 2**18,
         "dct2_f64": 2**18, "ifft_c64": 2**18, "fft2_c64": 512, "idct2_f64": 2**18,
         "dctn_f32": 512}
CPU_ALWAYS = ("fft_c64", "rfft_f64", "dct2_f64", "ifft_c64", "idct2_f64")
SPEED_MARGIN = 1.05
FLOOR_FRACTION = 0.70
DCT_RATIO = 1.5


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def _host_input(key, size, np):
    rng = np.random.default_rng(2024)
    if key == "copy":
        return rng.random(size, dtype=np.float32) + np.float32(0.5)
    if key in ("fft_c64", "ifft_c64"):
        a = rng.standard_normal(size, dtype=np.float32)
        b = rng.standard_normal(size, dtype=np.float32)
        return (a + 1j * b).astype(np.complex64)
    if key == "fft2_c64":
        a = rng.standard_normal((size, size), dtype=np.float32)
        return (a + 1j * a[::-1]).astype(np.complex64)
    if key == "rfftn_f32":
        return rng.standard_normal((size,) * 3, dtype=np.float32)
    if key == "dctn_f32":
        return rng.standard_normal((size, size), dtype=np.float32)
    return rng.standard_normal(size)            # float64 1-D cases


def _bytes(key, h):
    """Bytes read + written once (the bandwidth floor)."""
    if key in ("rfftn_f32",):
        n = h.shape[-1]
        return h.nbytes + h.size // n * (n // 2 + 1) * 8
    if key == "rfft_f64":
        return h.nbytes + (h.size // 2 + 1) * 16
    return 2 * h.nbytes


def _calls(key, mod):
    """The function to time for a namespace ``mod`` (gpuscipy.fft,
    cupyx.scipy.fft or scipy.fft) and whether it takes workers."""
    return {
        "fft_c64": lambda x, **k: mod.fft(x, **k),
        "ifft_c64": lambda x, **k: mod.ifft(x, **k),
        "fft2_c64": lambda x, **k: mod.fft2(x, **k),
        "rfftn_f32": lambda x, **k: mod.rfftn(x, **k),
        "rfft_f64": lambda x, **k: mod.rfft(x, **k),
        "dct2_f64": lambda x, **k: mod.dct(x, type=2, **k),
        "idct2_f64": lambda x, **k: mod.idct(x, type=2, **k),
        "dctn_f32": lambda x, **k: mod.dctn(x, type=2, **k),
    }[key]


def _check(np, got, want):
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"FAIL: got {got.dtype}{got.shape}, want {want.dtype}{want.shape}"
    tol = (2e-5 if want.dtype.char in "fF" else 1e-11) * float(np.max(np.abs(want)))
    err = float(np.max(np.abs(got - want)))
    return "ok" if err <= tol else f"FAIL: max error {err:.3g} > {tol:.3g}"


def run_case(key, size, b, args, ref_cache):
    import numpy as np
    name = f"{key}_{size}" + ("^3" if key == "rfftn_f32" else
                              "^2" if key in ("fft2_c64", "dctn_f32") else "")
    r = H.Result(case=name, backend=b.name, key=key, kind="gpu" if b.is_gpu else "cpu")
    h = ref_cache.setdefault(("in", key), _host_input(key, size, np))
    nbytes = _bytes(key, h)
    if key == "copy":
        if not b.is_gpu:
            r.status, r.note = "n/a", "GPU only"
            return r
        x = b.asarray(h)
        r.set_timing(H.time_gpu(lambda: x.copy(), b, args.warmup, args.repeat), nbytes)
        return r
    if b.name == "gpuscipy":
        import gpuscipy.fft as mod
    elif b.name == "cupy":
        import cupyx.scipy.fft as mod
    else:
        import scipy.fft as mod
    fn = _calls(key, mod)
    if b.is_gpu:
        x = b.asarray(h)
        t = H.time_gpu(lambda: fn(x), b, args.warmup, args.repeat)
        out = b.asnumpy(fn(x))
    else:
        t = H.time_cpu(lambda: fn(h, workers=-1), warmup=1, repeat=args.cpu_repeat)
        out = fn(h, workers=-1)
    r.set_timing(t, nbytes)
    if b.name == "gpuscipy":
        want = ref_cache.get(("ref", key))
        if want is None:
            import scipy.fft as sfft
            want = _calls(key, sfft)(h, workers=-1)
            ref_cache[("ref", key)] = want
        r.check = _check(np, out, want)
    return r


def evaluate_bars(results, copy_ref):
    def find(key, backend="gpuscipy"):
        return next((r for r in results if r.key == key and r.backend == backend), None)

    def unusable(r):
        if r is None:
            return "not run"
        if r.status != "ok":
            return f"{r.status}: {r.note}"[:120]
        if r.check not in (None, "ok"):
            return f"wrong result ({r.check})"
        return None

    bars = []
    for key in ("fft_c64", "rfftn_f32"):
        r, c = find(key), find(key, "cupy")
        if r is None:
            continue
        why = unusable(r) or unusable(c)
        target = f"<= {SPEED_MARGIN:.2f}x CuPy"
        if why:
            bars.append(H.Bar(f"{r.case} vs CuPy", target, "n/a", "FAIL", why))
        else:
            ratio = r.median_s / c.median_s
            bars.append(H.Bar(f"{r.case} vs CuPy", target, f"{ratio:.3f}x",
                              "PASS" if ratio <= SPEED_MARGIN else "FAIL"))
        target = f">= {FLOOR_FRACTION * 100:.0f} % bw floor"
        why = unusable(r) or (None if copy_ref else "no copy bandwidth measured")
        if why:
            bars.append(H.Bar(f"{r.case} bandwidth", target, "n/a", "FAIL", why))
        else:
            f = r.gbps / copy_ref
            bars.append(H.Bar(f"{r.case} bandwidth", target,
                              f"{f * 100:.1f} % ({r.gbps:.0f} GB/s)",
                              "PASS" if f >= FLOOR_FRACTION else "FAIL"))
    d, rf = find("dct2_f64"), find("rfft_f64")
    if d is not None:
        target = f"<= {DCT_RATIO:g}x rfft"
        why = unusable(d) or unusable(rf)
        if why:
            bars.append(H.Bar(f"{d.case} vs rfft", target, "n/a", "FAIL", why))
        else:
            ratio = d.median_s / rf.median_s
            bars.append(H.Bar(f"{d.case} vs rfft", target, f"{ratio:.3f}x",
                              "PASS" if ratio <= DCT_RATIO else "FAIL"))
    return bars


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_fft",
                                description=__doc__.split("\n")[0])
    p.add_argument("--json", metavar="PATH")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--cpu", action="store_true",
                   help="run SciPy on every case (slow at full size)")
    p.add_argument("--no-scipy", action="store_true", help="skip SciPy entirely")
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--repeat", type=int, default=30)
    p.add_argument("--cpu-repeat", type=int, default=3)
    args = p.parse_args(argv)
    args.cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    bad = [c for c in args.cases if c not in CASES]
    if bad:
        p.error(f"unknown case(s) {bad}; choose from {CASES}")
    return args


def main(argv=None):
    args = parse_args(argv)
    sizes = QUICK if args.quick else FULL
    env = H.environment()
    H.print_environment(env)
    names = ["gpuscipy", "cupy"] + ([] if args.no_scipy else ["scipy"])
    backends = []
    results = []
    for name in names:
        b, why = H.load_backend(name)
        if b is None:
            log(f"[backend {name}: n/a ({why})]")
            results += [H.Result(case=k, backend=name, key=k, status="n/a",
                                 note=str(why)[:100]) for k in args.cases]
        else:
            backends.append(b)
    cache = {}
    for key in args.cases:
        for b in backends:
            if not b.is_gpu and not (args.cpu or (key in CPU_ALWAYS)):
                continue
            log(f"[{key} / {b.name} ...]")
            t0 = time.perf_counter()
            try:
                r = run_case(key, sizes[key], b, args, cache)
            except Exception as exc:  # noqa: BLE001
                traceback.print_exc()
                r = H.Result(case=key, backend=b.name, key=key, status="error",
                             note=f"{type(exc).__name__}: {exc}"[:160])
            finally:
                b.free_pool()
            log(f"[  {H.fmt_time(r.median_s)} in {time.perf_counter() - t0:.1f} s, "
                f"check={r.check}]")
            results.append(r)
        for k in [k for k in cache if k[1] == key]:
            del cache[k]
    copies = [r for r in results if r.key == "copy" and r.status == "ok" and r.gbps]
    copy_ref = max((r.gbps for r in copies), default=None)
    copy_src = next((f"copy by {r.backend}" for r in copies if r.gbps == copy_ref), "")
    H.fill_derived(results, copy_ref)
    print()
    H.print_table(results, title="== results ==  (median/min over repeats; gp/cupy = "
                  "time ratio, < 1 means gpuscipy faster; GB/s over bytes read + "
                  "written once)")
    bars = evaluate_bars(results, copy_ref)
    H.print_bars(bars, args.quick, copy_ref, copy_src)
    failed_hard = any(r.backend == "gpuscipy" and (r.status == "error" or
                                                   r.check not in (None, "ok"))
                      for r in results)
    if not any(r.backend == "gpuscipy" and r.status == "ok" for r in results):
        failed_hard = True      # the library under test did not run at all
    bar_failed = any(b.status != "PASS" for b in bars)
    if args.json:
        H.write_json(args.json, results, env, mode="quick" if args.quick else "full",
                     reference_copy_gbps=copy_ref, reference_copy=copy_src,
                     bars=[b.__dict__ for b in bars], sizes=sizes)
        print(f"wrote {args.json}")
    rc = 1 if failed_hard or (bar_failed and not args.quick) else 0
    print(f"bench_fft exit status: {rc}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
