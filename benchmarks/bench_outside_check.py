"""The slow paths an outside check found (issue 15, item 3 and item 5),
gpuscipy beside CuPy and SciPy (CPU) in one process.

    python -m benchmarks.bench_outside_check [--quick] [--json PATH]

Cases (bar: gpuscipy no slower than CuPy unless said):
* ``correlate_1M``: ``signal.correlate`` of two 2^20 float32 signals,
  method chosen by ``choose_conv_method`` (cupyx ``correlate`` likewise).
* ``rfft_rows``: ``fft.rfft`` of 4096 rows of 1000 float32.
* ``inv_2048``: ``linalg.inv`` of 2048^2 float64 (SciPy's checks kept:
  finite input, singular matrix, ill-conditioning warning).
* ``solve_4096``: ``linalg.solve`` 4096^2 float64, one right-hand side,
  with SciPy's condition check (LinAlgWarning).
* ``sum_2^28``: ``x.sum()`` of 2^28 float32.
* ``ecg_record``: the ECG demo's single-record steps 1-12 (filters,
  detection, refinement, heart rate, welch, spectrogram, resampling) on
  MIT-BIH record 208, each timed alone with CUDA events; bars: their sum
  <= 3 ms and no step slower than SciPy's.
Every gpuscipy result is checked against SciPy/NumPy.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings

import numpy as np

from . import _harness as H


def _close(got, want, rtol, atol=0.0):
    got, want = np.asarray(got), np.asarray(want)
    return got.shape == want.shape and np.allclose(got, want, rtol=rtol, atol=atol)


def _ecg_steps(xp, sig, host):
    """[(name, fn, check)] of the single-record chain on one side."""
    from gpuscipy.demo.pipelines import ecg as E
    rec = E.load_ecg()
    st = E.design(sig)
    ch = E.Chain(sig, xp, host, joined_peaks=True)
    x = xp.asarray(rec)
    d, box = xp.asarray(E.DERIVATIVE), xp.asarray(E.BOXCAR)
    v = {}
    v["hp"] = ch.baseline(x, st["sos_hp"])
    v["clean"] = ch.notch(v["hp"], st["notch_ba"])
    v["qrs"] = ch.bandpass(v["clean"], st["sos_bp"])
    v["deriv"] = ch.convolve(v["qrs"], d)
    v["sq"] = ch.square(v["deriv"])
    v["mwi"] = ch.convolve(v["sq"], box)
    v["peaks"] = ch.detect(v["mwi"])
    v["r"] = ch.refine(v["peaks"], v["clean"])
    steps = [
        ("sosfiltfilt hp", lambda: ch.baseline(x, st["sos_hp"]), "hp"),
        ("filtfilt notch", lambda: ch.notch(v["hp"], st["notch_ba"]), "clean"),
        ("sosfiltfilt bp", lambda: ch.bandpass(v["clean"], st["sos_bp"]), "qrs"),
        ("convolve derivative", lambda: ch.convolve(v["qrs"], d), "deriv"),
        ("square", lambda: ch.square(v["deriv"]), "sq"),
        ("convolve integration", lambda: ch.convolve(v["sq"], box), "mwi"),
        ("find_peaks (detect)", lambda: ch.detect(v["mwi"]), "peaks"),
        ("refine R", lambda: ch.refine(v["peaks"], v["clean"]), "r"),
        ("heart rate", lambda: ch.heart_rate(v["r"]), None),
        ("welch", lambda: ch.welch(v["clean"]), None),
        ("spectrogram", lambda: ch.spectrogram(v["clean"]), None),
        ("resample_poly", lambda: ch.resample(v["clean"]), None),
    ]
    return steps, v


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    rep = 10 if args.quick else 30
    g, gerr = H.load_backend("gpuscipy")
    c, cerr = H.load_backend("cupy")
    if g is None:
        print("gpuscipy backend unavailable:", gerr)
        return 1
    import gpuscipy_core as gp
    from gpuscipy import fft as gfft, linalg as glin, signal as gsig
    import scipy.fft as sfft
    import scipy.linalg as sl
    import scipy.signal as ssig
    rng = np.random.default_rng(15)
    times, bars, bad, rows = {}, [], [], []

    def record(case, backend, t):
        times[(case, backend)] = t
        rows.append({"case": case, "backend": backend, "median_s": t})
        print(f"  {case:26s} {backend:9s} {H.fmt_time(t)}")
        sys.stdout.flush()

    def gpu_case(case, gfn, cfn, check, scipy_fn=None):
        out = gfn()
        if not check(out):
            bad.append(f"{case}: gpuscipy result wrong")
        record(case, "gpuscipy", H.time_gpu(gfn, g, 3, rep).median_s)
        if c is not None and cfn is not None:
            record(case, "cupy", H.time_gpu(cfn, c, 3, rep).median_s)
        if scipy_fn is not None:
            record(case, "scipy", H.time_cpu(scipy_fn, 1, 3).median_s)

    cp = c.xp if c is not None else None
    n = 1 << (16 if args.quick else 20)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    ga, gb = gp.asarray(a), gp.asarray(b)
    ref = ssig.correlate(a, b)
    sc = float(np.abs(ref).max())
    ca = cb = None
    if cp is not None:
        import cupyx.scipy.signal as csig
        ca, cb = cp.asarray(a), cp.asarray(b)
    gpu_case("correlate_1M", lambda: gsig.correlate(ga, gb),
             (lambda: csig.correlate(ca, cb)) if cp is not None else None,
             lambda o: _close(gp.asnumpy(o), ref, 0, 1e-4 * sc),
             lambda: ssig.correlate(a, b))

    r = rng.standard_normal((4096, 1000)).astype(np.float32)
    gr = gp.asarray(r)
    cr = cp.asarray(r) if cp is not None else None
    if cp is not None:
        import cupyx.scipy.fft as cfft
    rref = sfft.rfft(r)
    gpu_case("rfft_rows", lambda: gfft.rfft(gr),
             (lambda: cfft.rfft(cr)) if cp is not None else None,
             lambda o: _close(gp.asnumpy(o), rref, 0, 1e-3), lambda: sfft.rfft(r))

    ni = 512 if args.quick else 2048
    m = rng.standard_normal((ni, ni))
    gm = gp.asarray(m)
    cm = cp.asarray(m) if cp is not None else None
    iref = np.linalg.inv(m)
    gpu_case("inv_2048", lambda: glin.inv(gm),
             (lambda: cp.linalg.inv(cm)) if cp is not None else None,
             lambda o: _close(gp.asnumpy(o), iref, 1e-7, 1e-9 * np.abs(iref).max()))

    ns = 1024 if args.quick else 4096
    m4 = rng.standard_normal((ns, ns))
    v4 = rng.standard_normal(ns)
    gm4, gv4 = gp.asarray(m4), gp.asarray(v4)
    cm4 = cp.asarray(m4) if cp is not None else None
    cv4 = cp.asarray(v4) if cp is not None else None
    sref = np.linalg.solve(m4, v4)
    del m4
    gpu_case("solve_4096", lambda: glin.solve(gm4, gv4),
             (lambda: cp.linalg.solve(cm4, cv4)) if cp is not None else None,
             lambda o: _close(gp.asnumpy(o), sref, 1e-7, 1e-9 * np.abs(sref).max()))
    del gm4, cm4

    ns = 1 << (22 if args.quick else 28)
    s = rng.standard_normal(ns).astype(np.float32)
    want = float(s.astype(np.float64).sum())
    scale = float(np.abs(s).sum())
    gs_ = gp.asarray(s)
    cs_ = cp.asarray(s) if cp is not None else None
    del s
    gpu_case("sum_2^28", lambda: gs_.sum(),
             (lambda: cs_.sum()) if cp is not None else None,
             lambda o: abs(float(o) - want) <= 1e-6 * scale)
    del gs_, cs_

    # the ECG single record
    g_steps, gv = _ecg_steps(gp, gsig, gp.asnumpy)
    s_steps, sv = _ecg_steps(np, ssig, np.asarray)
    for key in ("hp", "clean", "qrs", "deriv", "sq", "mwi"):
        w = sv[key]
        if not _close(gp.asnumpy(gv[key]), w, 0, 1e-9 * np.abs(w).max()):
            bad.append(f"ecg {key}: differs from SciPy")
    for key in ("peaks", "r"):
        if not np.array_equal(gp.asnumpy(gv[key]), sv[key]):
            bad.append(f"ecg {key}: peaks differ from SciPy's")
    total, slower = 0.0, []
    for (name, gfn, _), (_, sfn, _) in zip(g_steps, s_steps):
        tg = H.time_gpu(gfn, g, 3, rep).median_s
        ts = H.time_cpu(sfn, 1, 10).median_s
        record("ecg " + name, "gpuscipy", tg)
        record("ecg " + name, "scipy", ts)
        total += tg
        if tg > ts:
            slower.append(f"{name} {tg * 1e3:.3f} vs {ts * 1e3:.3f} ms")
    record("ecg record steps 1-12", "gpuscipy", total)

    def bar(label, target, ok, measured):
        bars.append(H.Bar(label, target, measured, "PASS" if ok else "FAIL"))

    for case in ("correlate_1M", "rfft_rows", "inv_2048", "solve_4096", "sum_2^28"):
        tg, tc = times.get((case, "gpuscipy")), times.get((case, "cupy"))
        if tg is None or tc is None:
            bars.append(H.Bar(case + " vs CuPy", "<= 1.00x", "n/a", "n/a", cerr or ""))
        else:
            bar(case + " vs CuPy", "<= 1.00x", tg <= tc, f"{tg / tc:.3f}x ({tg * 1e3:.3f} "
                f"vs {tc * 1e3:.3f} ms)")
    bar("ecg record steps 1-12", "<= 3 ms", total <= 3e-3, f"{total * 1e3:.3f} ms")
    bar("ecg steps slower than SciPy", "none", not slower, "; ".join(slower) or "none")
    for msg in bad:
        bars.append(H.Bar(msg, "correct", "wrong", "FAIL"))
    H.print_bars(bars, args.quick, None, None)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": H.environment(), "results": rows,
                       "bars": [b.__dict__ for b in bars]}, f, indent=1)
    failed = any(b.status == "FAIL" for b in bars)
    return 1 if failed and (not args.quick or bad) else 0


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        sys.exit(main())
