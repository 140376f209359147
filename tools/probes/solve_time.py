"""linalg.solve 4096^2 float64 (one right-hand side) and inv 2048^2 float64 beside CuPy
(CUDA events, median of 15 and 25).

    PYTHONPATH=. python tools/probes/solve_time.py
"""
import statistics, numpy as np, cupy as cp, gpuscipy_core as gp
from gpuscipy import linalg
rng = np.random.default_rng(2); n = 4096
a = rng.standard_normal((n, n)); b = rng.standard_normal(n)
ga, gb, ca, cb = gp.asarray(a), gp.asarray(b), cp.asarray(a), cp.asarray(b)
def ev(mod, fn, reps=15):
    for _ in range(4): fn()
    ts = []
    for _ in range(reps):
        e0, e1 = mod.cuda.Event(), mod.cuda.Event(); e0.record(); fn(); e1.record(); e1.synchronize()
        ts.append(e0.elapsed_time(e1) if hasattr(e0, "elapsed_time") else cp.cuda.get_elapsed_time(e0, e1))
    return statistics.median(ts)
x = linalg.solve(ga, gb).get()
print("resid", np.abs(a @ x - b).max() / np.abs(b).max())
print("solve gpuscipy %.3f ms  cupy %.3f ms" % (ev(gp, lambda: linalg.solve(ga, gb)), ev(cp, lambda: cp.linalg.solve(ca, cb))))
m = 2048
a2 = rng.standard_normal((m, m)); ga2, ca2 = gp.asarray(a2), cp.asarray(a2)
print("inv resid", np.abs(linalg.inv(ga2).get() @ a2 - np.eye(m)).max())
for _ in range(2):
    print("inv 2048 gpuscipy %.3f ms  cupy %.3f ms" % (ev(gp, lambda: linalg.inv(ga2), 25),
                                                     ev(cp, lambda: cp.linalg.inv(ca2), 25)))
