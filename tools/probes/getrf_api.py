"""cuSOLVER's 64-bit ``cusolverDnXgetrf`` (gpuscipy's getrf) against the
legacy ``cusolverDnDgetrf`` (CuPy's) on the same matrix, n = 2048 and 4096
float64, CUDA events around the factorization alone (the copy it
overwrites is refreshed outside the timed region), median of 9.

    PYTHONPATH=. python tools/probes/getrf_api.py
"""
import statistics

import numpy as np


def main():
    import cupy as cp
    from cupy_backends.cuda.libs import cusolver as ccs
    import gpuscipy_core as gp
    from gpuscipy.linalg import _solve_dense as d
    from gpuscipy_core import libs
    cs = libs.cusolver
    rng = np.random.default_rng(5)
    for n in (2048, 4096):
        a = rng.standard_normal((n, n))
        src = gp.asarray(a)
        m = gp.empty((n, n), np.float64, order="F")
        h = libs.get_handle("cusolver")
        lw = cs.cusolverDnDgetrf_bufferSize(h, n, n, m.ptr, n)
        work = gp.empty((lw,), np.float64)
        piv = gp.empty((n,), np.int32)
        info = gp.empty((1,), np.int32)

        def ours():
            d.getrf(m)

        def legacy():
            cs.cusolverDnDgetrf(libs.get_handle("cusolver"), n, n, m.ptr, n, work.ptr, piv.ptr, info.ptr)

        ca = cp.asarray(a)
        cm = cp.empty((n, n), np.float64, order="F")
        ch = cp.cuda.device.get_cusolver_handle()
        cw = cp.empty(ccs.dgetrf_bufferSize(ch, n, n, cm.data.ptr, n), np.float64)
        cpiv = cp.empty(n, np.int32)
        cinfo = cp.empty(1, np.int32)

        def cupy_getrf():
            ccs.dgetrf(ch, n, n, cm.data.ptr, n, cw.data.ptr, cpiv.data.ptr, cinfo.data.ptr)

        def timed(refresh, fn, mod):
            ts = []
            for k in range(12):
                refresh()
                mod.cuda.Device(0).synchronize() if hasattr(mod.cuda, "Device") else None
                e0, e1 = mod.cuda.Event(), mod.cuda.Event()
                e0.record(); fn(); e1.record(); e1.synchronize()
                t = (e0.elapsed_time(e1) if hasattr(e0, "elapsed_time")
                     else cp.cuda.get_elapsed_time(e0, e1))
                if k >= 3:
                    ts.append(t)
            return statistics.median(ts)

        def refresh_g():
            m[...] = src

        def refresh_c():
            cm[...] = ca
        for _ in range(2):
            print(f"n={n}: Xgetrf {timed(refresh_g, ours, gp):.3f} ms  "
                  f"Dgetrf (ours) {timed(refresh_g, legacy, gp):.3f} ms  "
                  f"CuPy dgetrf {timed(refresh_c, cupy_getrf, cp):.3f} ms", flush=True)


if __name__ == "__main__":
    main()
