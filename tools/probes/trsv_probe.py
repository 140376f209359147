"""Triangular solves with one right-hand side at n = 4096 float64 (H200):
cuBLAS ``?trsv`` against cuSOLVER ``getrs`` and cuBLAS ``?trsm`` with one
and three columns, on a getrf factor (the solve's condition-estimate
stages are such solves; docs/linalg.md). cuBLAS is called through ctypes
with CuPy's handle (gpuscipy binds no ``trsv``).

    python tools/probes/trsv_probe.py
"""
import ctypes
import glob
import os
import statistics

import numpy as np


def _libcublas():
    import nvidia.cu13 as m  # noqa: F401  (the wheel layout of CUDA 13)
    for d in m.__path__:
        for f in glob.glob(os.path.join(d, "lib", "libcublas.so*")):
            return ctypes.CDLL(f)
    return ctypes.CDLL("libcublas.so")


def main():
    import cupy as cp
    from cupy_backends.cuda.libs import cusolver
    try:
        lib = _libcublas()
    except Exception:                 # noqa: BLE001
        lib = ctypes.CDLL("libcublas.so.13")
    h = cp.cuda.device.get_cublas_handle()
    n = 4096
    rng = np.random.default_rng(4)
    a = cp.asarray(np.asfortranarray(rng.standard_normal((n, n))))
    sh = cp.cuda.device.get_cusolver_handle()
    ws = cusolver.dgetrf_bufferSize(sh, n, n, a.data.ptr, n)
    w = cp.empty(ws, np.float64)
    piv = cp.empty(n, np.int32)
    info = cp.empty(1, np.int32)
    cusolver.dgetrf(sh, n, n, a.data.ptr, n, w.data.ptr, piv.data.ptr, info.data.ptr)
    cp.cuda.Device().synchronize()
    b = cp.asarray(rng.standard_normal(n))
    b3 = cp.asarray(np.asfortranarray(rng.standard_normal((n, 3))))
    one = np.ones(1)
    f_trsv = lib.cublasDtrsv_v2
    f_trsv.argtypes = [ctypes.c_void_p] + [ctypes.c_int] * 4 + [ctypes.c_void_p, ctypes.c_int,
                                                               ctypes.c_void_p, ctypes.c_int]
    f_trsm = lib.cublasDtrsm_v2
    f_trsm.argtypes = [ctypes.c_void_p] + [ctypes.c_int] * 6 + [ctypes.c_void_p] * 2 + [
        ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    LOWER, UPPER, OPN, OPT, UNIT, NONUNIT, LEFT = 1, 0, 0, 1, 1, 0, 0
    s = cp.cuda.get_current_stream()
    lib.cublasSetStream_v2(ctypes.c_void_p(h), ctypes.c_void_p(s.ptr))

    def timed(fn, reps=30):
        for _ in range(5):
            fn()
        ts = []
        for _ in range(reps):
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            e0.record(); fn(); e1.record(); e1.synchronize()
            ts.append(cp.cuda.get_elapsed_time(e0, e1))
        return statistics.median(ts)

    x = b.copy()
    rows = [
        ("trsv L unit N", lambda: f_trsv(h, LOWER, OPN, UNIT, n, a.data.ptr, n, x.data.ptr, 1)),
        ("trsv U N", lambda: f_trsv(h, UPPER, OPN, NONUNIT, n, a.data.ptr, n, x.data.ptr, 1)),
        ("trsv U T", lambda: f_trsv(h, UPPER, OPT, NONUNIT, n, a.data.ptr, n, x.data.ptr, 1)),
        ("trsv L unit T", lambda: f_trsv(h, LOWER, OPT, UNIT, n, a.data.ptr, n, x.data.ptr, 1)),
        ("trsm 1 L unit N", lambda: f_trsm(h, LEFT, LOWER, OPN, UNIT, n, 1, one.ctypes.data,
                                            a.data.ptr, n, x.data.ptr, n)),
        ("trsm 3 L unit N", lambda: f_trsm(h, LEFT, LOWER, OPN, UNIT, n, 3, one.ctypes.data,
                                            a.data.ptr, n, b3.data.ptr, n)),
        ("getrs 1 N", lambda: cusolver.dgetrs(sh, 0, n, 1, a.data.ptr, n, piv.data.ptr,
                                              x.data.ptr, n, info.data.ptr)),
        ("getrs 1 T", lambda: cusolver.dgetrs(sh, 1, n, 1, a.data.ptr, n, piv.data.ptr,
                                              x.data.ptr, n, info.data.ptr)),
    ]
    for name, fn in rows:
        x[...] = b
        print(f"{name:18s} {timed(fn):8.3f} ms")
    # accuracy of the trsv pair against getrs (one solve)
    x[...] = b
    y = b.copy()
    cusolver.dgetrs(sh, 0, n, 1, a.data.ptr, n, piv.data.ptr, y.data.ptr, n, info.data.ptr)
    hb = cp.asnumpy(b)
    p = cp.asnumpy(piv) - 1
    for i, j in enumerate(p):
        hb[i], hb[j] = hb[j], hb[i]
    x[...] = cp.asarray(hb)
    f_trsv(h, LOWER, OPN, UNIT, n, a.data.ptr, n, x.data.ptr, 1)
    f_trsv(h, UPPER, OPN, NONUNIT, n, a.data.ptr, n, x.data.ptr, 1)
    print("trsv pair vs getrs: max rel diff %.2e" % float(cp.abs(x - y).max() / cp.abs(y).max()))


if __name__ == "__main__":
    main()
