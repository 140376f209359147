"""Which linalg call leaves a process that crashes at exit (bench_linalg_solve
exited with SIGSEGV after its last line): each case in its own process,
its exit status printed.

    PYTHONPATH=. python tools/probes/exit_crash.py
"""
import subprocess
import sys

PRE = """
import numpy as np, gpuscipy_core as gp
from gpuscipy import linalg as L
rng = np.random.default_rng(0); n = 512
a = gp.asarray(rng.standard_normal((n, n))); b = gp.asarray(rng.standard_normal(n))
"""
CASES = {
    "import": "",
    "solve": "L.solve(a, b)",
    "solve_nocheck": "L.solve(a, b, check_finite=False)",
    "lu_factor": "L.lu_factor(a)",
    "cholesky": "L.cholesky(a @ a.T + n * gp.eye(n))",
    "lu": "L.lu(a)",
    "banded": "L.solve_banded((2, 3), gp.asarray(rng.standard_normal((6, 2000))), gp.asarray(rng.standard_normal(2000)))",
    "tridiag": "t = np.diag(rng.standard_normal(1000) + 4) + np.diag(rng.standard_normal(999), 1) + np.diag(rng.standard_normal(999), -1); L.solve(gp.asarray(t), gp.asarray(rng.standard_normal((1000, 256))), assume_a='tridiagonal')",
    "batched": "L.solve(gp.asarray(rng.standard_normal((100, 8, 8))), gp.asarray(rng.standard_normal((100, 8))))",
    "trsv_kernel": "import os; os.environ['GPUSCIPY_GETRS'] = 'kernel'; L.solve(a, b)",
    "lu_perm": "from gpuscipy.linalg import _solve_dense as SD, _lu_perm\nlu = gp.empty((n, n), np.float64, order='F'); lu[...] = a; ipiv, _ = SD.getrf(lu); perm = _lu_perm.lu_perm(ipiv)",
    "solve+cupy": "import cupy as cp; L.solve(a, b); cp.linalg.solve(cp.asarray(a.get()), cp.asarray(b.get()))",
    "cupy_first": "import cupy as cp; cp.linalg.solve(cp.asarray(a.get()), cp.asarray(b.get())); L.solve(a, b)",
    "finite_a": "from gpuscipy.linalg._misc import check_finite_array as c; c(a)",
    "finite_b": "from gpuscipy.linalg._misc import check_finite_array as c; c(b)",
    "sum_read": "float(a.sum()); float(b.sum())",
    "isfinite_all": "bool(gp.isfinite(a).all())",
    "finite+cusolver": "from gpuscipy.linalg._misc import check_finite_array as c; c(a); from gpuscipy_core import libs; libs.get_handle('cusolver')",
    "finite+cublas": "from gpuscipy.linalg._misc import check_finite_array as c; c(a); from gpuscipy_core import libs; libs.get_handle('cublas')",
    "cusolver+finite": "from gpuscipy_core import libs; libs.get_handle('cusolver'); from gpuscipy.linalg._misc import check_finite_array as c; c(a)",
    "cublas+finite": "from gpuscipy_core import libs; libs.get_handle('cublas'); from gpuscipy.linalg._misc import check_finite_array as c; c(a)",
    "solve_gc": "L.solve(a, b); import gc; del a, b; gc.collect()",
    "solve_handles": "L.solve(a, b); from gpuscipy_core.libs import _handles; _handles._destroy_all(); print('destroyed')",
}


def main():
    names = sys.argv[1:] or list(CASES)
    for name in names:
        code = PRE + CASES[name] + "\ngp.cuda.Device(0).synchronize()\nprint('ok')\n"
        r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code],
                           capture_output=True, text=True, timeout=120)
        tail = (r.stdout + r.stderr).strip().splitlines()[-3:]
        print(f"{name:14s} exit {r.returncode}  {' | '.join(tail)[:300]}", flush=True)


if __name__ == "__main__":
    main()
