"""Probe: where the IIR filters' time goes on the GPU (plans, kernels, host).

    python -m tools.probes.iir_probe [plans] [kernels] [phases] [host] [hostparts] [cupy]

(no argument: all sections). ``phases`` compiles the kernels with
-DGSIIR_PROFILE and prints the global-timer stamps of the fused and carry
kernels' phases (chunk run, matrices, scan, re-run).

Times every plan (serial, fused with each block size, scan with each chunk
length) of the benchmark cases with CUDA events, each kernel of the default
plan, the kernels' registers / local memory, the host time per call of a
small filter, and CuPy's sosfilt/lfilter on the same data.
"""

import cProfile
import io
import pstats
import sys
import time

import numpy as np
import scipy.signal as ss

from benchmarks import _harness as H

import gpuscipy_core as gp
from gpuscipy import signal as gs
from gpuscipy.signal import _iir_kernels as K

BK, _ = H.load_backend("gpuscipy")


def t_gpu(fn, rep=20):
    return H.time_gpu(fn, BK, warmup=3, repeat=rep).median_s


SOS8 = ss.butter(8, 0.1, output="sos")
B4, A4 = ss.butter(4, 0.1)
rng = np.random.default_rng(0)
CASES = [
    ("sos o8 1x2^20", lambda x: gs.sosfilt(SOS8, x), (1, 1 << 20), 8),
    ("ba o4 1x2^20", lambda x: gs.lfilter(B4, A4, x), (1, 1 << 20), 4),
    ("sos o8 1024x65536", lambda x: gs.sosfilt(SOS8, x), (1024, 65536), 8),
    ("sos o8 1x4096", lambda x: gs.sosfilt(SOS8, x), (1, 4096), 8),
    ("sos o8 64x4096", lambda x: gs.sosfilt(SOS8, x), (64, 4096), 8),
    # around the fused/scan boundary (FUSED_MAX_N) and few long channels
    ("sos o8 1x16384", lambda x: gs.sosfilt(SOS8, x), (1, 16384), 8),
    ("sos o8 1x65536", lambda x: gs.sosfilt(SOS8, x), (1, 65536), 8),
    ("sos o8 16x65536", lambda x: gs.sosfilt(SOS8, x), (16, 65536), 8),
]

orig_plan = K.plan
SECTIONS = set(sys.argv[1:]) or {"plans", "kernels", "phases", "host", "hostparts", "cupy"}


def forced(p):
    def f(nch, n, d, staged):
        return p
    return f


print("== plans (ms, median of 20; max |diff| vs default plan) ==", flush=True)
for name, call, shape, d in CASES if "plans" in SECTIONS else ():
    x = gp.asarray(rng.standard_normal(shape))
    nch, n = shape
    ref = call(x).get()
    dflt = orig_plan(nch, n, d, True)
    print(f"-- {name}: default {dflt}  total {t_gpu(lambda: call(x)) * 1e3:.4f} ms", flush=True)
    trials = [K.Plan("serial", n, 1, K.CHUNK_THREADS)]
    for nt in K.FUSED_NTS:
        L = -(-n // nt)
        trials.append(K.Plan("fused", L, -(-n // L), nt))
    L = K.SCAN_L_MIN
    nt_c = K.carry_threads(d)   # the carry kernel is compiled for this many
    while L <= K.SCAN_L_MAX and L <= n:
        G = -(-n // L)
        trials.append(K.Plan("scan", L, G, nt_c))
        for m in (2, 8, 32):   # segmented carry (opt-in): segments of nt m chunks
            if L <= 256 and G > nt_c * m:
                trials.append(K.Plan("scan", L, G, nt_c, nt_c * m))
        L *= 2
    for p in trials:
        if p.path == "serial" and n * (1 if nch > 1 else 1) > 70000 and nch < 64:
            continue
        K.plan = forced(p)
        try:
            got = call(x).get()
            err = float(np.max(np.abs(got - ref)))
            t = t_gpu(lambda: call(x), rep=10)
            print(f"   {p.path:6s} L={p.L:5d} G={p.G:5d} nt={p.nt:3d} S={p.S:5d}  "
                  f"{t * 1e3:8.4f} ms  diff {err:.1e}", flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"   {p}: {type(e).__name__}: {e}", flush=True)
        finally:
            K.plan = orig_plan

print("\n== kernels of the default plans (ms per launch; regs, local bytes, static smem) ==",
      flush=True)
orig_function = K._function
log = []


def timed_function(*a, **k):
    f = orig_function(*a, **k)

    def launch(grid, block, args, shared_mem=0, stream=None):
        s, e = BK.event(), BK.event()
        s.record()
        f(grid, block, args, shared_mem=shared_mem)
        e.record()
        e.synchronize()
        log.append((a[0], grid, block, shared_mem, BK.elapsed_ms(s, e), f.attribute("NUM_REGS"),
                    f.attribute("LOCAL_SIZE_BYTES"), f.attribute("SHARED_SIZE_BYTES")))
    return launch


K._function = timed_function
for name, call, shape, d in CASES if "kernels" in SECTIONS else ():
    x = gp.asarray(rng.standard_normal(shape))
    for _ in range(3):
        log.clear()
        call(x)
    print(f"-- {name}", flush=True)
    for role, grid, block, smem, ms, regs, local, ssm in log:
        print(f"   {role:7s} grid {grid[0]:6d} block {block[0]:4d} dyn smem {smem:6d}  {ms:8.4f} ms"
              f"  regs {regs} local {local} static smem {ssm}", flush=True)
K._function = orig_function

print("\n== phases of the fused and carry kernels (us between stamps; block 0) ==",
      flush=True)
if "phases" in SECTIONS:
    from cuda.bindings import driver
    seen = []

    def prof_function(*a, **k):
        f = orig_function(*a, **k)
        seen.append((a[0], f))
        return f

    K._function = prof_function
    K.OPTIONS = K.OPTIONS + ("-DGSIIR_PROFILE",)
    names = {"fused": ("chunk run", "matrices", "block scan", "re-run"),
             "carry": ("matrices", "Horner fold", "block scan", "re-fold")}
    try:
        for name, call, shape, d in CASES:
            x = gp.asarray(rng.standard_normal(shape))
            for _ in range(3):
                seen.clear()
                call(x)
                BK.synchronize()
            for role, f in seen:
                if role not in names:
                    continue
                err, ptr, size = driver.cuModuleGetGlobal(f._module, b"gsiir_prof")
                stamps = np.zeros(8, np.uint64)
                driver.cuMemcpyDtoH(stamps.ctypes.data, ptr, 64)
                dt = np.diff(stamps[:5].astype(np.int64)) / 1e3
                print(f"-- {name} {role}: " + ", ".join(
                    f"{lab} {v:.1f}" for lab, v in zip(names[role], dt))
                    + f"  (total {dt.sum():.1f} us)", flush=True)
    finally:
        K._function = orig_function
        K.OPTIONS = tuple(o for o in K.OPTIONS if o != "-DGSIIR_PROFILE")

print("\n== host time per call (wall, sync at end) ==", flush=True)
for shape in ((4096,), (1 << 20,)) if "host" in SECTIONS else ():
    x = gp.asarray(rng.standard_normal(shape))
    for label, fn in (("sosfilt np sos", lambda: gs.sosfilt(SOS8, x)),
                      ("sosfilt dev sos", lambda s=gp.asarray(SOS8): gs.sosfilt(s, x)),
                      ("lfilter np ba", lambda: gs.lfilter(B4, A4, x))):
        for _ in range(20):
            fn()
        BK.synchronize()
        t0 = time.perf_counter()
        for _ in range(500):
            fn()
        BK.synchronize()
        print(f"   {label:16s} n={shape[0]:8d}: {(time.perf_counter() - t0) / 500 * 1e6:8.1f} us/call",
              flush=True)
if "host" in SECTIONS:
    x = gp.asarray(rng.standard_normal(4096))
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(500):
        gs.sosfilt(SOS8, x)
    BK.synchronize()
    pr.disable()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(25)
    print(s.getvalue()[:6000], flush=True)
    xs = rng.standard_normal(4096)
    print(f"   scipy sosfilt 4096: "
          f"{H.time_cpu(lambda: ss.sosfilt(SOS8, xs), repeat=50).median_s * 1e6:.1f} us", flush=True)

if "hostparts" in SECTIONS:
    # the pieces of one small sosfilt call, each timed alone (us per call)
    from gpuscipy.signal import _iir as G
    from gpuscipy_core._cuda._device import ensure_context, get_device_id
    from gpuscipy_core._cuda._stream import get_current_stream_ptr
    x = gp.asarray(rng.standard_normal(4096))
    f8 = np.dtype("float64")
    plan = G._Plan(x, 0, f8)
    coefs, packed = G._packed("sos", G._key(SOS8), f8.str)
    pl = K.plan(1, 4096, 8, True)
    fn = K._function("fused", "sos", 4, f8, f8, True, nt=pl.nt)
    sm = K.smem_bytes("fused", "sos", 4, f8, True, True, pl.nt)
    args = (packed, x, *plan.xm, plan.y, *plan.ym, 0, *K.States(1, 8, 0, 8, 0, 1), 0, 8,
            4096, np.int32(pl.L))

    def per_call(f, n=2000):
        for _ in range(50):
            f()
        BK.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        dt = time.perf_counter() - t0
        BK.synchronize()
        return dt / n * 1e6

    print("\n== host pieces of sosfilt(order 8, 4096) (us per call) ==", flush=True)
    for label, f, n in (
            ("whole call (launch queue may fill)", lambda: gs.sosfilt(SOS8, x), 300),
            ("_validate_sos", lambda: G._validate_sos(SOS8), 5000),
            ("result_type + _compute_dtype",
             lambda: G._compute_dtype(np.result_type(SOS8.dtype, x.dtype), sos=True), 5000),
            ("_shape_of + _dtype_of", lambda: (G._shape_of(x), G._dtype_of(x)), 5000),
            ("_Plan (gp.empty + lines)", lambda: G._Plan(x, 0, f8), 5000),
            ("gp.empty((4096,))", lambda: gp.empty((4096,), f8), 5000),
            ("_key + _packed", lambda: G._packed("sos", G._key(SOS8), f8.str), 5000),
            ("K.plan", lambda: K.plan(1, 4096, 8, True), 5000),
            ("K._function", lambda: K._function("fused", "sos", 4, f8, f8, True, nt=pl.nt), 5000),
            ("K.smem_bytes", lambda: K.smem_bytes("fused", "sos", 4, f8, True, True, pl.nt), 5000),
            ("ensure_context + stream", lambda: (ensure_context(get_device_id()),
                                                 get_current_stream_ptr()), 5000),
            ("launch (Function call)", lambda: fn((1, 1, 1), (pl.nt, 1, 1), args, shared_mem=sm), 300),
            ("filter_lines", lambda: K.filter_lines(
                "sos", 4, coefs, x, f8, plan.xm, plan.y, plan.ym, zm=K.States(1, 8, 0, 8, 0, 1),
                zf_stride=8, n=4096, nch=1, staged=True, packed=packed), 300)):
        print(f"   {label:36s} {per_call(f, n):8.2f}", flush=True)
    ev = H.time_gpu(lambda: gs.sosfilt(SOS8, x), BK, warmup=10, repeat=200).median_s
    kev = H.time_gpu(lambda: fn((1, 1, 1), (pl.nt, 1, 1), args, shared_mem=sm), BK, warmup=10,
                     repeat=200).median_s
    print(f"   events around sosfilt {ev * 1e6:.1f} us, around the bare launch {kev * 1e6:.1f} us",
          flush=True)

print("\n== CuPy ==", flush=True)
try:
    if "cupy" not in SECTIONS:
        raise RuntimeError("section not asked for")
    import cupy as cp
    import cupyx.scipy.signal as cs
    cb, _ = H.load_backend("cupy")
    sos_c, b_c, a_c = cp.asarray(SOS8), cp.asarray(B4), cp.asarray(A4)
    for name, fn, shape in (("sos o8 1x2^20", lambda x: cs.sosfilt(sos_c, x), (1 << 20,)),
                            ("ba o4 1x2^20", lambda x: cs.lfilter(b_c, a_c, x), (1 << 20,)),
                            ("sos o8 1024x65536", lambda x: cs.sosfilt(sos_c, x), (1024, 65536)),
                            ("sos o8 4096", lambda x: cs.sosfilt(sos_c, x), (4096,))):
        xc = cp.asarray(rng.standard_normal(shape))
        print(f"   {name:20s} {H.time_gpu(lambda: fn(xc), cb, warmup=3, repeat=20).median_s * 1e3:8.4f} ms",
              flush=True)
except Exception as e:  # noqa: BLE001
    print("cupy failed:", type(e).__name__, e)
