"""Stage times of fftconvolve's overlap-add path (2^24 x 511 float32, the
bench_signal bar case) next to CuPy's matching calls, CUDA events, medians.

    PYTHONPATH=. python tools/probes/oa_stages.py [--repeat 50]
"""
import argparse

import numpy as np

from benchmarks import _harness as H


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=50)
    args = ap.parse_args()
    import cupy as cp
    import gpuscipy_core as gp
    import gpuscipy.signal as sg
    import gpuscipy.fft as gf
    from gpuscipy.fft import _basic
    from gpuscipy.signal import _convolve_plan as P
    from gpuscipy.signal._convolve_fft import oa_layout
    g, _ = H.load_backend("gpuscipy")
    c, _ = H.load_backend("cupy")
    rng = np.random.default_rng(0)
    n, k = 1 << 24, 511
    xh = rng.standard_normal(n).astype(np.float32)
    hh = rng.standard_normal(k).astype(np.float32)
    plan = P.fft_plan((n,), (k,), [0], np.dtype(np.float32), False, gf.next_fast_len)
    N = plan[2]
    S, nb = oa_layout(n, k, N)
    print(f"plan {plan}; blocks {nb} x {N} (step {S})")
    bh = rng.standard_normal((nb, N)).astype(np.float32)
    sh = (rng.standard_normal((nb, N // 2 + 1))
          + 1j * rng.standard_normal((nb, N // 2 + 1))).astype(np.complex64)
    kh = sh[:1].copy()
    x, h, b, s, kk = (gp.asarray(a) for a in (xh, hh, bh, sh, kh))
    xc, hc, bc, scc, kc = (cp.asarray(a) for a in (xh, hh, bh, sh, kh))
    import cupyx.scipy.signal as cs

    def t(name, fn, be):
        r = H.time_gpu(fn, be, warmup=5, repeat=args.repeat)
        print(f"{name:34s} {be.name:9s} median {r.median_s * 1e6:9.1f} us"
              f"  min {r.min_s * 1e6:9.1f} us")

    t("fftconvolve", lambda: sg.fftconvolve(x, h), g)
    t("fftconvolve", lambda: cs.fftconvolve(xc, hc), c)
    t("rfftn blocks (axis 1)", lambda: gf.rfftn(b, s=[N], axes=[1]), g)
    t("rfft blocks", lambda: gf.rfft(b, axis=1), g)
    t("rfft blocks", lambda: cp.fft.rfft(bc, axis=1), c)
    t("C2R exec_trailing (no copy)", lambda: _basic.exec_trailing(s, 1, "C2R", (N,), 1), g)
    t("irfft", lambda: gf.irfft(s, N, axis=1), g)
    t("irfft", lambda: cp.fft.irfft(scc, N, axis=1), c)
    t("spec * kernel spectrum (new)", lambda: s * kk, g)
    t("spec * kernel spectrum (new)", lambda: scc * kc, c)
    t("empty blocks", lambda: gp.empty((nb, N), np.float32), g)
    t("rfft 2^24 + pad (single)", lambda: gf.rfft(x, n=gf.next_fast_len(n + k - 1, True)), g)
    t("rfft 2^24 + pad (single)", lambda: cp.fft.rfft(xc, n=gf.next_fast_len(n + k - 1, True)), c)
    print("bytes of blocks", nb * N * 4, "floor at 4.0 TB/s read+write us",
          2 * nb * N * 4 / 4.0e12 * 1e6)


if __name__ == "__main__":
    main()
