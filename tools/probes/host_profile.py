"""Host-side profile of gpuscipy calls: cProfile (top functions by own and
cumulative time over many calls) and the CUDA work of one call, aggregated
by kernel name (a CUPTI trace through torch.profiler).

    PYTHONPATH=. python tools/probes/host_profile.py [case ...]
"""
import cProfile
import pstats
import sys
import time

import numpy as np


def device_summary(fn, sync):
    try:
        from torch.profiler import ProfilerActivity, profile
    except Exception as e:  # noqa: BLE001
        print("  (no torch profiler:", e, ")"); return
    fn(); sync()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        fn(); sync()
    agg = {}
    for ev in p.events():
        if ev.device_type.name == "CUDA":
            k = ev.name[:60]
            c, t = agg.get(k, (0, 0.0))
            agg[k] = (c + 1, t + ev.device_time_total)
    tot = sum(t for _, t in agg.values())
    print(f"  device: {sum(c for c, _ in agg.values())} ops, {tot:.1f} us")
    for k, (c, t) in sorted(agg.items(), key=lambda kv: -kv[1][1])[:12]:
        print(f"    {t:9.1f} us  x{c:<4d} {k}")


def profile(name, fn, sync, n=50):
    for _ in range(5):
        fn()
    sync()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    sync()
    print(f"\n=== {name}: {(time.perf_counter() - t0) / n * 1e3:.3f} ms/call (no sync between)")
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(n):
        fn()
    sync()
    pr.disable()
    st = pstats.Stats(pr)
    st.sort_stats("tottime").print_stats(14)
    st.sort_stats("cumulative").print_stats(22)
    device_summary(fn, sync)


def main():
    import gpuscipy_core as gp
    from gpuscipy import signal as gsig, linalg as glin, fft as gfft
    from gpuscipy.demo.pipelines import ecg as E
    sync = lambda: gp.cuda.Device(0).synchronize()
    rng = np.random.default_rng(15)
    rec = E.load_ecg()
    st = E.design(gsig)
    ch = E.Chain(gsig, gp, gp.asnumpy, joined_peaks=True)
    g = gp.asarray(rec)
    hp = ch.baseline(g, st["sos_hp"])
    gd = gp.asarray(E.DERIVATIVE)
    a = gp.asarray(rng.standard_normal(1 << 20).astype(np.float32))
    b = gp.asarray(rng.standard_normal(1 << 20).astype(np.float32))
    r = gp.asarray(rng.standard_normal((4096, 1000)).astype(np.float32))
    m = gp.asarray(rng.standard_normal((2048, 2048)))
    m4 = gp.asarray(rng.standard_normal((4096, 4096)))
    v4 = gp.asarray(rng.standard_normal(4096))
    mwi = ch.convolve(ch.square(ch.convolve(ch.bandpass(hp, st["sos_bp"]), gd)), gp.asarray(E.BOXCAR))
    peaks = ch.detect(mwi)
    small = gp.asarray(rng.standard_normal(500))
    ewk = gp.ElementwiseKernel("float64 x, float64 y", "float64 z", "z = x * y + 1.0", "probe_ewk")
    cases = {
        "ewk_small": (lambda: ewk(small, small), 500),
        "ewk_slices": (lambda: ewk(small[1:], small[:-1]), 500),
        "ufunc_small": (lambda: gp.multiply(small, small), 500),
        "slice": (lambda: small[1:], 2000),
        "sosfiltfilt": (lambda: ch.baseline(g, st["sos_hp"]), 30),
        "filtfilt": (lambda: ch.notch(hp, st["notch_ba"]), 30),
        "convolve5": (lambda: ch.convolve(hp, gd), 50),
        "correlate1M": (lambda: gsig.correlate(a, b), 20),
        "rfft": (lambda: gfft.rfft(r), 200),
        "thresholds": (lambda: ch.thresholds(mwi), 30),
        "refine": (lambda: ch.refine(peaks, hp), 50),
        "heart_rate": (lambda: ch.heart_rate(peaks), 100),
        "inv": (lambda: glin.inv(m), 5),
        "solve": (lambda: glin.solve(m4, v4), 3),
    }
    pick = sys.argv[1:] or list(cases)
    for k in pick:
        fn, n = cases[k]
        profile(k, fn, sync, n)


if __name__ == "__main__":
    main()
