"""getrs stages at n = 4096 float64 (H200): one right-hand side OP_N and
OP_T, three at once, and three single solves on three streams at once
(latency-bound triangular solves leave most SMs idle).

    PYTHONPATH=. python tools/probes/getrs_streams.py
"""
import statistics
import time

import numpy as np


def main():
    import gpuscipy_core as gp
    from gpuscipy.linalg import _solve_dense as SD
    n = 4096
    rng = np.random.default_rng(3)
    a_h = rng.standard_normal((n, n))
    lu = gp.empty((n, n), np.float64, order="F")
    lu[...] = gp.asarray(a_h)
    ipiv, _ = SD.getrf(lu)
    dev = gp.cuda.Device(0)
    streams = [gp.cuda.Stream(non_blocking=True) for _ in range(3)]

    def timed(fn, reps=15):
        for _ in range(3):
            fn()
        dev.synchronize()
        ts = []
        for _ in range(reps):
            t = time.perf_counter()
            fn()
            dev.synchronize()
            ts.append(time.perf_counter() - t)
        return statistics.median(ts) * 1e3

    b1 = [gp.asarray(np.asfortranarray(rng.standard_normal((n, 1)))) for _ in range(3)]
    b3 = gp.asarray(np.asfortranarray(rng.standard_normal((n, 3))))
    print("getrf 4096        %.3f ms" % timed(lambda: SD.getrf(lu.copy(order="F")), 5))
    print("getrs 1 RHS OP_N  %.3f ms" % timed(lambda: SD.getrs(lu, ipiv, b1[0], SD.OP_N)))
    print("getrs 1 RHS OP_T  %.3f ms" % timed(lambda: SD.getrs(lu, ipiv, b1[0], SD.OP_T)))
    print("getrs 3 RHS OP_N  %.3f ms" % timed(lambda: SD.getrs(lu, ipiv, b3, SD.OP_N)))
    print("getrs 3 RHS OP_T  %.3f ms" % timed(lambda: SD.getrs(lu, ipiv, b3, SD.OP_T)))

    def three(op):
        main = gp.cuda.get_current_stream() if hasattr(gp.cuda, "get_current_stream") else None
        ev = gp.cuda.Event()
        ev.record()
        for s, b in zip(streams, b1):
            s.wait_event(ev)
            with s:
                SD.getrs(lu, ipiv, b, op)
        for s in streams:
            e = gp.cuda.Event()
            e.record(s)
            if main is not None:
                main.wait_event(e)
    print("3 x 1 RHS on 3 streams OP_N %.3f ms" % timed(lambda: three(SD.OP_N)))
    print("3 x 1 RHS on 3 streams OP_T %.3f ms" % timed(lambda: three(SD.OP_T)))


if __name__ == "__main__":
    main()
