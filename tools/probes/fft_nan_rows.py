"""Probe: does a NaN in one row of a batched real FFT reach other rows?

    PYTHONPATH=. python tools/probes/fft_nan_rows.py     (needs a GPU and CuPy)

The signal sweep saw float32 ``resample``/``hilbert`` of odd-length rows put
NaN into two rows where SciPy puts it into one.  This prints, for each
length, batch and dtype, the rows holding NaN after ``rfft`` along the last
axis through gpuscipy.fft, CuPy and NumPy, and after gpuscipy's hilbert and
resample, so a cuFFT batching effect can be told apart from our code;
then times rfft/irfft of 4096 rows of odd and even lengths (gpuscipy keeps
odd-length rows apart through a complex transform) against CuPy's.
"""

import sys

import numpy as np

from benchmarks import _harness as H

import cupy as cp
import gpuscipy_core as gp
from gpuscipy import fft as gf
from gpuscipy import signal as gs


def nan_rows(a):
    a = np.asarray(a)
    return tuple(int(i) for i in np.nonzero(np.isnan(a).any(axis=-1))[0])


def main():
    rng = np.random.default_rng(0)
    bad = 0
    for dtype in (np.float32, np.float64):
        for n in (32, 33, 259, 1001):
            for rows in (2, 3, 4, 7):
                for r in range(rows):
                    x = rng.standard_normal((rows, n)).astype(dtype)
                    x[r, n // 3] = np.nan
                    ref = nan_rows(np.fft.rfft(x, axis=-1))
                    got = {
                        "gp.rfft": nan_rows(gp.asnumpy(gf.rfft(gp.asarray(x), axis=-1))),
                        "cp.rfft": nan_rows(cp.asnumpy(cp.fft.rfft(cp.asarray(x), axis=-1))),
                        "gp.fft": nan_rows(gp.asnumpy(gf.fft(gp.asarray(x), axis=-1))),
                        "hilbert": nan_rows(gp.asnumpy(gs.hilbert(gp.asarray(x), axis=-1))),
                        "resample": nan_rows(gp.asnumpy(gs.resample(gp.asarray(x), n + 7, axis=-1))),
                    }
                    diff = {k: v for k, v in got.items() if v != ref}
                    if diff:
                        print(f"{np.dtype(dtype).name} n={n} rows={rows} nan_row={r}: "
                              f"numpy {ref} differs: {diff}")
                    bad += any(not k.startswith("cp.") for k in diff)
    print(f"{bad} cases where gpuscipy's NaN rows differ from NumPy's (CuPy's listed too)")
    return bad


def timings():
    gbk, _ = H.load_backend("gpuscipy")
    cbk, _ = H.load_backend("cupy")
    rng = np.random.default_rng(1)
    print("case                               gpuscipy      CuPy   gp/CuPy")
    for dtype in (np.float32, np.float64):
        for n in (1000, 1001, 4096, 4095):
            x = rng.standard_normal((4096, n)).astype(dtype)
            X = np.fft.rfft(x, axis=-1).astype(np.result_type(dtype, np.complex64))
            for name, h in (("rfft", x), ("irfft", X)):
                gd, cd = gp.asarray(h), cp.asarray(h)
                kw = {"n": n} if name == "irfft" else {}
                tg = H.time_gpu(lambda: getattr(gf, name)(gd, **kw), gbk, 5, 30).median_s
                tc = H.time_gpu(lambda: getattr(cp.fft, name)(cd, **kw), cbk, 5, 30).median_s
                print(f"{name:6s} 4096 x {n:5d} {np.dtype(dtype).name:8s}   "
                      f"{tg * 1e6:8.1f} us {tc * 1e6:8.1f} us  {tg / tc:6.2f}")


if __name__ == "__main__":
    bad = main()
    timings()
    sys.exit(1 if bad else 0)
