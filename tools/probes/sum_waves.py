"""Full sums of 2^28 float32 / 2^27 float64 with the reduction's first
launch given F times the blocks the engine plans (``_WAVES`` waves of the
device: F = 2 with one wave was two waves), next to CuPy's CUB sum in the
same process: one call between two events (what a user's timing sees, host latency included) and
ten calls back to back (the GPU's time per sum).

    PYTHONPATH=. python tools/probes/sum_waves.py 1 2 4 8
"""
import gc
import statistics
import sys
import time

import numpy as np


def events(xp, fn, n=60):
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 0.3:
        fn()
    xp.cuda.Device(0).synchronize()
    out = []
    for _ in range(n):
        a, b = xp.cuda.Event(), xp.cuda.Event()
        a.record(); fn(); b.record(); b.synchronize()
        out.append(xp.cuda.get_elapsed_time(a, b) if hasattr(xp.cuda, "get_elapsed_time")
                   else a.elapsed_time(b))
    return statistics.median(out) * 1e3


def host_us(fn, reps=30):
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out) * 1e6


def main():
    import cupy as cp
    import gpuscipy_core as gp
    from gpuscipy_core._kernel import _reduction_kernel as RK
    orig = RK.plan_launches
    factors = [float(f) for f in sys.argv[1:]] or [1, 2, 4, 8]
    rng = np.random.default_rng(28)
    data = {}
    for dt, n in (("f4", 1 << 28), ("f8", 1 << 27)):
        h = rng.standard_normal(n).astype(dt)
        data[dt] = (h, gp.asarray(h), cp.asarray(h), h.astype(np.float64).sum(), abs(h).sum())
    for f in factors:
        def patched(lay, target, acc, f=f):
            out = orig(lay, max(1, int(target * f)), acc)
            patched.grid = out[0][0][0]
            return out
        RK.plan_launches = patched
        for o in gc.get_objects():
            if isinstance(o, RK.Reduction if hasattr(RK, "Reduction") else type(None)):
                o._plans.clear()
        for dt, (h, g, c, want, scale) in data.items():
            got = float(g.sum())
            tg = events(gp, lambda: g.sum())
            tc = events(cp, lambda: c.sum())
            bg = events(gp, lambda: [g.sum() for _ in range(10)], 20) / 10
            bc = events(cp, lambda: [c.sum() for _ in range(10)], 20) / 10
            hg, hc = host_us(lambda: g.sum()), host_us(lambda: c.sum())
            print(f"F={f:<4} sum {dt}: grid {getattr(patched, 'grid', '?')} gpuscipy {tg:7.1f} us"
                  f"  cupy {tc:7.1f} us  ratio {tg / tc:5.3f}  {h.nbytes / tg / 1e3:5.2f} TB/s"
                  f"  rel.err {abs(got - want) / scale:.1e}  back-to-back: {bg:6.1f} / {bc:6.1f} us"
                  f"  host: {hg:5.1f} / {hc:5.1f} us", flush=True)
        # the same engine with a float32 / float64 accumulator (ReductionKernel):
        # does the float64 accumulation of float32 data cost time?
        h, g = data["f4"][0], data["f4"][1]
        for rt in ("float32", "float64"):
            k = gp.ReductionKernel("float32 x", "float64 y", "x", "a + b", "y = a", "0",
                                   f"probe_sum_{rt}", reduce_type=rt)
            t = events(gp, lambda: k(g))
            b = events(gp, lambda: [k(g) for _ in range(10)], 20) / 10
            print(f"F={f:<4} ReductionKernel f4, {rt} accumulator: {t:7.1f} us, back-to-back {b:6.1f} us"
                  f"  rel.err {abs(float(k(g)) - data['f4'][3]) / data['f4'][4]:.1e}", flush=True)
    RK.plan_launches = orig


if __name__ == "__main__":
    main()
