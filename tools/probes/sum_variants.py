"""Times gpuscipy_core's full sum of 2^28 float32 (and 2^27 float64) next
to CuPy's, for one variant of the reduction header's vector loop (run once
per variant in a fresh process, after editing the GS_RED_VEC_* defaults).

    PYTHONPATH=. python tools/probes/sum_variants.py LABEL
"""
import statistics
import sys
import time

import numpy as np


def events(xp, fn, n=50):
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 0.3:
        fn()
    xp.cuda.Device(0).synchronize()
    out = []
    for _ in range(n):
        a, b = xp.cuda.Event(), xp.cuda.Event()
        a.record(); fn(); b.record(); b.synchronize()
        out.append(a.elapsed_time(b) if hasattr(a, "elapsed_time") else xp.cuda.get_elapsed_time(a, b))
    return statistics.median(out) * 1e3


def main():
    import cupy as cp
    import gpuscipy_core as gp
    label = sys.argv[1] if len(sys.argv) > 1 else "?"
    rng = np.random.default_rng(28)
    for dt, n in (("f4", 1 << 28), ("f8", 1 << 27)):
        h = rng.standard_normal(n).astype(dt)
        g, c = gp.asarray(h), cp.asarray(h)
        want = h.astype(np.float64).sum()
        got = float(g.sum())
        rel = abs(got - want) / abs(h).sum()
        tg = events(gp, lambda: g.sum())
        tc = events(cp, lambda: c.sum())
        print(f"{label:12s} sum {dt} 2^{n.bit_length() - 1}: gpuscipy {tg:7.1f} us  cupy {tc:7.1f} us"
              f"  ratio {tg / tc:5.3f}  {h.nbytes / tg / 1e3:6.2f} TB/s  rel.err {rel:.1e}")
        del g, c


if __name__ == "__main__":
    main()
