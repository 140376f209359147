"""Variants of the rank-selection kernels side by side with CuPy (H200).

    python tools/probes/medfilt_probe.py OUTDIR [--prewarm]

--prewarm compiles every kernel variant into the disk cache first (16
processes). Then times (CUDA events, median of 30 after >= 0.2 s warm-up)
each case's plan, forced kernels, run lengths and first-output methods,
CuPy's, and checks each answer against SciPy (or a crop of it).
"""

import inspect
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np


def _compile(v):
    from gpuscipy.signal import _convolve_medfilt as M
    from gpuscipy_core._kernel import _cache
    src, name = M.kernel_source(*v)
    t = time.time()
    _cache.get_cubin(src, name, (), "sm_90")
    return name, time.time() - t


def prewarm():
    from gpuscipy.signal import _convolve_medfilt as M
    t = time.time()
    with ProcessPoolExecutor(16) as ex:
        res = list(ex.map(_compile, M.variants()))
    print(f"prewarm {len(res)} kernels {time.time() - t:.1f} s "
          f"(slowest {max(r[1] for r in res):.1f} s)", flush=True)


def timeit(fn, xp_sync, ev, repeat=20):
    t0 = time.time()
    n = 0
    while time.time() - t0 < 0.15 or n < 3:
        fn()
        n += 1
    xp_sync()
    ts = []
    for _ in range(repeat):
        a, b = ev(), ev()
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) if hasattr(a, "elapsed_time") else None)
    return float(np.median(ts))


def main():
    outdir = sys.argv[1]
    if "--prewarm" in sys.argv:
        prewarm()
    import scipy
    import scipy.signal as ss
    import gpuscipy_core as gp
    from gpuscipy.signal import _convolve_medfilt as M
    from gpuscipy.signal import _order_filter as O
    try:
        import cupy
        import cupyx.scipy.signal as cs
    except Exception as e:  # noqa: BLE001
        cupy = cs = None
        print("no cupy", e)
    with open(f"{outdir}/scipy_src.txt", "w") as f:
        f.write(f"scipy {scipy.__version__} cupy {getattr(cupy, '__version__', None)}\n")
        for fn in (ss.medfilt, ss.medfilt2d, ss.order_filter):
            f.write(inspect.getsource(fn))
        import scipy.ndimage._filters as nf
        f.write(inspect.getsource(nf._rank_filter))

    def gsync():
        gp.cuda.Device(0).synchronize()

    def gev():
        return gp.cuda.Event()

    class CE:
        def __init__(self):
            self.e = cupy.cuda.Event()

        def record(self):
            self.e.record()

        def synchronize(self):
            self.e.synchronize()

        def elapsed_time(self, other):
            return cupy.cuda.get_elapsed_time(self.e, other.e)

    rows = []
    rng = np.random.default_rng(0)

    def case(label, host, gfun, ref, cfun=None, crop=None):
        dev = gp.asarray(host)
        got = gp.asnumpy(gfun(dev))
        r = ref
        g = got if crop is None else got[:crop]
        ok = bool(np.array_equal(g, r, equal_nan=True))
        t = timeit(lambda: gfun(dev), gsync, gev)
        row = {"case": label, "ms": round(t, 4), "ok": ok}
        if cfun is not None and cupy is not None:
            cd = cupy.asarray(host)
            cgot = cupy.asnumpy(cfun(cd))
            row["cupy_ms"] = round(timeit(lambda: cfun(cd), cupy.cuda.Device().synchronize,
                                          CE), 4)
            row["cupy_ok"] = bool(np.array_equal(cgot if crop is None else cgot[:crop], r,
                                                 equal_nan=True))
            row["ratio"] = round(row["ms"] / row["cupy_ms"], 3)
        print(json.dumps(row), flush=True)
        rows.append(row)

    # ---- 1-D, the case
    x = rng.standard_normal(1 << 20)
    ref = ss.medfilt(x, 31)
    if "--quick" in sys.argv:
        for run, init in ((16, 1), (16, 2), (32, 2), (64, 2)):
            case(f"  ring47 run{run} init{init}", x,
                 lambda d, run=run, init=init: M.run_order(
                     gp, d, None, 15, wshape=(31,), force=("sel3", 47), run=run,
                     init=init), ref)
        img = rng.standard_normal((4096, 4096)).astype(np.float32)
        R = 256
        dom = np.ones((5, 5))
        refc = ss.order_filter(img[:R], dom, 3)[:R - 2]
        for f in (("net", 49), ("sel3", 0)):
            case(f"order_filter 4096^2 5x5 r3 {f}", img,
                 lambda d, f=f: M.run_order(gp, d, dom, 3, force=f), refc, crop=R - 2)
        refc = ss.medfilt2d(img[:R], 5)[:R - 2]
        case("medfilt2d 5x5 window", img, lambda d: M.run_order(
            gp, d, None, 12, wshape=(5, 5), force=("sel3", 0)), refc, crop=R - 2)
        with open(f"{outdir}/probe.json", "w") as f:
            json.dump(rows, f, indent=1)
        return
    case("medfilt 1M f64 k31 plan", x, lambda d: M.medfilt(d, 31), ref,
         lambda c: cs.medfilt(c, 31))
    for kp in (47,):
        for run in (8, 16, 32, 64):
            for init in (1, 2):
                case(f"  ring{kp} run{run} init{init}", x,
                     lambda d, kp=kp, run=run, init=init: M.run_order(
                         gp, d, None, 15, wshape=(31,), force=("sel3", kp), run=run,
                         init=init), ref)
    case("  ring191 run16", x, lambda d: M.run_order(
        gp, d, None, 15, wshape=(31,), force=("sel3", 191), run=16), ref)
    for run in (16,):
        case(f"  window run{run}", x, lambda d, run=run: M.run_order(
            gp, d, None, 15, wshape=(31,), force=("sel3", 0), run=run), ref)
    x32 = x.astype(np.float32)
    case("medfilt 1M f32 k31 plan", x32, lambda d: M.medfilt(d, 31), ss.medfilt(x32, 31),
         lambda c: cs.medfilt(c, 31))
    case("medfilt 1M f64 k101 plan", x, lambda d: M.medfilt(d, 101), ss.medfilt(x, 101),
         lambda c: cs.medfilt(c, 101))
    case("medfilt 1M f64 k11 plan(net)", x, lambda d: M.medfilt(d, 11), ss.medfilt(x, 11),
         lambda c: cs.medfilt(c, 11))
    case("  k11 as ring47", x, lambda d: M.run_order(gp, d, None, 5, wshape=(11,),
                                                     force=("sel3", 47)), ss.medfilt(x, 11))
    case("medfilt 1M i32 k31", (x * 100).astype(np.int32),
         lambda d: M.medfilt(d, 31), ss.medfilt((x * 100).astype(np.int32), 31),
         lambda c: cs.medfilt(c, 31))
    # ---- 2-D
    img = rng.standard_normal((4096, 4096)).astype(np.float32)
    R = 256
    for ks in (5, 11):
        h = ks // 2
        refc = ss.medfilt2d(img[:R], ks)[:R - h]
        case(f"medfilt2d 4096^2 f32 ({ks},{ks}) plan", img, lambda d, ks=ks: O.medfilt2d(d, ks),
             refc, lambda c, ks=ks: cs.medfilt2d(c, ks), crop=R - h)
        for run in (64, 256):
            for init in ((0,) if ks == 11 else (2,)):
                case(f"  window run{run} init{init}", img,
                     lambda d, ks=ks, run=run, init=init: M.run_order(
                         gp, d, None, ks * ks // 2, wshape=(ks, ks), force=("sel3", 0),
                         run=run, init=init), refc, crop=R - h)
    dom = np.ones((5, 5))
    refc = ss.order_filter(img[:R], dom, 3)[:R - 2]
    case("order_filter 4096^2 f32 5x5 rank3 plan", img, lambda d: O.order_filter(d, dom, 3),
         refc, lambda c: cs.order_filter(c, cupy.asarray(dom), 3), crop=R - 2)
    case("  window", img, lambda d: M.run_order(gp, d, dom, 3, force=("sel3", 0)), refc,
         crop=R - 2)
    dx = np.eye(5)[::-1] + np.eye(5)
    refc = ss.order_filter(img[:R], dx, 4)[:R - 2]
    case("order_filter 4096^2 f32 X 5x5 rank4 plan", img, lambda d: O.order_filter(d, dx, 4),
         refc, lambda c: cs.order_filter(c, cupy.asarray(dx), 4), crop=R - 2)
    x1 = x[: 1 << 20]
    case("order_filter 1M f64 ones(31) rank5", x1, lambda d: O.order_filter(d, np.ones(31), 5),
         ss.order_filter(x1[None], np.ones((1, 31)), 5)[0],
         lambda c: cs.order_filter(c, cupy.ones(31), 5))
    with open(f"{outdir}/probe.json", "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
