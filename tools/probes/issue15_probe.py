"""Where the time goes (issue 15 items 3 and 5): wall time per call next to
CuPy, and the CUDA work of each call (kernels, copies) from a CUPTI trace
(torch.profiler records every context's activity in the process).

    PYTHONPATH=. python tools/probes/issue15_probe.py [--trace]
"""
import statistics
import sys
import time

import numpy as np


def wall(fn, sync, n=20, warm_s=0.2):
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < warm_s:
        fn(); sync()
    ts = []
    for _ in range(n):
        sync()
        a = time.perf_counter()
        fn(); sync()
        ts.append(time.perf_counter() - a)
    return statistics.median(ts) * 1e3


def host_only(fn, sync, n=200):
    sync()
    a = time.perf_counter()
    for _ in range(n):
        fn()
    b = time.perf_counter()
    sync()
    return (b - a) / n * 1e3


def trace(label, fn, sync):
    try:
        import torch
        from torch.profiler import ProfilerActivity, profile
    except Exception as e:          # noqa: BLE001
        print("  (no torch profiler:", e, ")")
        return
    fn(); sync()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        fn(); sync()
    rows = []
    for ev in p.events():
        if ev.device_type.name == "CUDA":
            rows.append((ev.name[:70], ev.device_time_total if hasattr(ev, "device_time_total") else ev.cuda_time_total))
    tot = sum(r[1] for r in rows)
    print(f"  trace {label}: {len(rows)} device ops, {tot:.1f} us of device time")
    for name, us in rows[:40]:
        print(f"     {us:9.1f} us  {name}")


def main():
    do_trace = "--trace" in sys.argv
    import cupy as cp
    import cupyx.scipy.signal as csig
    import cupyx.scipy.linalg as clin
    import scipy.signal as ssig
    import gpuscipy_core as gp
    from gpuscipy import signal as gsig, linalg as glin, fft as gfft
    gsync = lambda: gp.cuda.Device(0).synchronize()
    csync = lambda: cp.cuda.Device(0).synchronize()
    rng = np.random.default_rng(15)

    def pair(name, gfn, cfn, tr=False):
        g = wall(gfn, gsync)
        c = wall(cfn, csync) if cfn else float("nan")
        gh = host_only(gfn, gsync, 50)
        print(f"{name:42s} gpuscipy {g:8.3f} ms  cupy {c:8.3f} ms  ratio {g / c:5.2f}  host/call {gh:7.3f} ms")
        if tr and do_trace:
            trace(name, gfn, gsync)

    # ---- item 3
    x = rng.standard_normal(1 << 20)
    gx, cx = gp.asarray(x), cp.asarray(x)
    pair("medfilt 1M f64 k31", lambda: gsig.medfilt(gx, 31), lambda: csig.medfilt(cx, 31), True)
    a = rng.standard_normal(1 << 20).astype(np.float32)
    b = rng.standard_normal(1 << 20).astype(np.float32)
    ga, gb, ca, cb = gp.asarray(a), gp.asarray(b), cp.asarray(a), cp.asarray(b)
    print("  choose_conv_method:", gsig.choose_conv_method(ga, gb))
    pair("correlate 1M x 1M f32", lambda: gsig.correlate(ga, gb), lambda: csig.correlate(ca, cb), True)
    pair("fftconvolve 1M x 1M f32", lambda: gsig.fftconvolve(ga, gb), lambda: csig.fftconvolve(ca, cb), True)
    r = rng.standard_normal((4096, 1000)).astype(np.float32)
    gr, cr = gp.asarray(r), cp.asarray(r)
    import cupyx.scipy.fft as cfft
    pair("rfft 4096x1000 f32", lambda: gfft.rfft(gr), lambda: cfft.rfft(cr), True)
    m = rng.standard_normal((2048, 2048))
    gm, cm = gp.asarray(m), cp.asarray(m)
    pair("inv 2048 f64", lambda: glin.inv(gm), lambda: clin.inv(cm) if hasattr(clin, "inv") else cp.linalg.inv(cm), True)
    m4 = rng.standard_normal((4096, 4096)); v4 = rng.standard_normal(4096)
    gm4, cm4, gv4, cv4 = gp.asarray(m4), cp.asarray(m4), gp.asarray(v4), cp.asarray(v4)
    pair("solve 4096 f64 1 rhs", lambda: glin.solve(gm4, gv4), lambda: clin.solve(cm4, cv4) if hasattr(clin, "solve") else cp.linalg.solve(cm4, cv4), True)
    s = rng.standard_normal(1 << 28).astype(np.float32)
    gs_, cs_ = gp.asarray(s), cp.asarray(s)
    del s
    pair("sum 2^28 f32", lambda: gs_.sum(), lambda: cs_.sum(), True)
    del gs_, cs_

    # ---- item 5: the single record
    from gpuscipy.demo.pipelines import ecg as E
    rec = E.load_ecg()
    st = E.design(gsig)
    gch = E.Chain(gsig, gp, gp.asnumpy, joined_peaks=True)
    sch = E.Chain(ssig, np, np.asarray)
    sst = E.design(ssig)
    g_ecg = gp.asarray(rec)
    hp = gch.baseline(g_ecg, st["sos_hp"]); hp_c = sch.baseline(rec, sst["sos_hp"])
    clean = gch.notch(hp, st["ba_notch"]) if "ba_notch" in st else None
    print("  design keys:", list(st))
    gd, gbx = gp.asarray(E.DERIVATIVE), gp.asarray(E.BOXCAR)
    keys = list(st)
    print("ECG single record steps (gpuscipy wall, host-only, SciPy):")
    def step(name, gfn, sfn, tr=True):
        g = wall(gfn, gsync)
        gh = host_only(gfn, gsync, 30)
        t0 = time.perf_counter(); [sfn() for _ in range(10)]; s = (time.perf_counter() - t0) / 10 * 1e3
        print(f"  {name:34s} {g:8.3f} ms   host {gh:7.3f} ms   scipy {s:8.3f} ms")
        if tr and do_trace:
            trace(name, gfn, gsync)
    sos_hp, ba, sos_bp = st[keys[0]], st[keys[1]], st[keys[2]]
    ssos_hp, sba, ssos_bp = sst[keys[0]], sst[keys[1]], sst[keys[2]]
    step("sosfiltfilt hp", lambda: gch.baseline(g_ecg, sos_hp), lambda: sch.baseline(rec, ssos_hp))
    g_hp = gch.baseline(g_ecg, sos_hp); s_hp = sch.baseline(rec, ssos_hp)
    step("filtfilt notch", lambda: gch.notch(g_hp, ba), lambda: sch.notch(s_hp, sba))
    g_cl = gch.notch(g_hp, ba); s_cl = sch.notch(s_hp, sba)
    step("sosfiltfilt bp", lambda: gch.bandpass(g_cl, sos_bp), lambda: sch.bandpass(s_cl, ssos_bp))
    g_q = gch.bandpass(g_cl, sos_bp); s_q = sch.bandpass(s_cl, ssos_bp)
    step("convolve deriv", lambda: gch.convolve(g_q, gd), lambda: sch.convolve(s_q, E.DERIVATIVE))
    g_d = gch.convolve(g_q, gd); s_d = sch.convolve(s_q, E.DERIVATIVE)
    step("square", lambda: gch.square(g_d), lambda: sch.square(s_d))
    g_s = gch.square(g_d); s_s = sch.square(s_d)
    step("convolve mwi", lambda: gch.convolve(g_s, gbx), lambda: sch.convolve(s_s, E.BOXCAR))
    g_m = gch.convolve(g_s, gbx); s_m = sch.convolve(s_s, E.BOXCAR)
    step("detect (partition + find_peaks)", lambda: gch.detect(g_m), lambda: sch.detect(s_m))
    g_p = gch.detect(g_m); s_p = sch.detect(s_m)
    step("thresholds (partition)", lambda: gch.thresholds(g_m), lambda: sch.thresholds(s_m))
    step("refine", lambda: gch.refine(g_p, g_cl), lambda: sch.refine(s_p, s_cl))
    g_r = gch.refine(g_p, g_cl); s_r = sch.refine(s_p, s_cl)
    step("heart rate", lambda: gch.heart_rate(g_r), lambda: sch.heart_rate(s_r))
    step("welch", lambda: gch.welch(g_cl), lambda: sch.welch(s_cl))
    step("spectrogram", lambda: gch.spectrogram(g_cl), lambda: sch.spectrogram(s_cl))
    step("resample_poly", lambda: gch.resample(g_cl), lambda: sch.resample(s_cl))
    print("peaks equal:", np.array_equal(gp.asnumpy(g_p), s_p), np.array_equal(gp.asnumpy(g_r), s_r))


if __name__ == "__main__":
    main()
