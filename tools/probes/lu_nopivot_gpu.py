"""Probe for the RBT route to solve 4096 <= 5 ms: how fast is LU WITHOUT pivoting?

(a) cusolverDnXgetrf with ipiv = NULL (no pivoting), n = 4096 f64;
(b) recursive no-pivot LU: cuBLAS dtrsm/dgemm on halves, leaves (LEAF x LEAF)
    by cusolverDnXgetrf(ipiv=NULL); checks ||A - LU|| / ||A||;
(c) cusolverDnXpotrf, lower and upper triangle; (d) linalg.cholesky.
Run on the GPU from the repository root: python tools/probes/lu_nopivot_gpu.py
"""
import numpy as np
import gpuscipy_core as gp
from gpuscipy_core import libs
from gpuscipy_core.libs import cusolver as cs, cublas as cb
from gpuscipy.linalg import _solve_dense as SD

def tgpu(f, n=10, warm=3):
    for _ in range(warm): f()
    s, e = gp.cuda.Event(), gp.cuda.Event(); ts = []
    for _ in range(n):
        s.record(); f(); e.record(); e.synchronize(); ts.append(s.elapsed_time(e))
    return float(np.median(ts))

N = 4096
rng = np.random.default_rng(0)
Ah = rng.standard_normal((N, N)) + np.sqrt(N) * np.eye(N)   # safe without pivoting
A0 = gp.empty((N, N), np.float64, order="F"); A0[...] = gp.asarray(Ah)
W = gp.empty((N, N), np.float64, order="F")
h = libs.get_handle("cusolver"); hb = libs.get_handle("cublas")
p = SD._dn_params(); t = libs.cuda_data_type(np.float64)
db, hbytes = cs.cusolverDnXgetrf_bufferSize(h, p, N, N, t, W.ptr, N, t)
dw = gp.empty((max(db, 1),), np.uint8); hw = np.empty(max(hbytes, 1), np.uint8)
info = gp.zeros((1,), np.int32)
def copy(): W[...] = A0
tc = tgpu(copy)

def getrf_nopiv(ptr, m):
    cs.cusolverDnXgetrf(h, p, m, m, t, ptr, N, 0, t, dw.ptr, db, hw.ctypes.data, hbytes, info.ptr)

print(f"(a) Xgetrf no pivot: {tgpu(lambda: (copy(), getrf_nopiv(W.ptr, N))) - tc:.3f} ms", flush=True)
one = np.ones(1); m1 = -np.ones(1)
def rec(ptr, m, leaf):
    if m <= leaf:
        getrf_nopiv(ptr, m); return
    k = m // 2
    a12 = ptr + k * N * 8; a21 = ptr + k * 8; a22 = ptr + (k + k * N) * 8
    rec(ptr, k, leaf)
    # U12 = L11^-1 A12 ; L21 = A21 U11^-1 ; A22 -= L21 U12
    cb.cublasDtrsm_v2(hb, cb.CUBLAS_SIDE_LEFT, cb.CUBLAS_FILL_MODE_LOWER, cb.CUBLAS_OP_N,
                      cb.CUBLAS_DIAG_UNIT, k, m - k, one.ctypes.data, ptr, N, a12, N)
    cb.cublasDtrsm_v2(hb, cb.CUBLAS_SIDE_RIGHT, cb.CUBLAS_FILL_MODE_UPPER, cb.CUBLAS_OP_N,
                      cb.CUBLAS_DIAG_NON_UNIT, m - k, k, one.ctypes.data, ptr, N, a21, N)
    cb.cublasDgemm_v2(hb, cb.CUBLAS_OP_N, cb.CUBLAS_OP_N, m - k, m - k, k, m1.ctypes.data,
                      a21, N, a12, N, one.ctypes.data, a22, N)
    rec(a22, m - k, leaf)
for leaf in (64, 128, 256, 512):
    ms = tgpu(lambda: (copy(), rec(W.ptr, N, leaf))) - tc
    copy(); rec(W.ptr, N, leaf)
    lu = gp.asnumpy(W)
    L = np.tril(lu, -1) + np.eye(N); U = np.triu(lu)
    err = np.abs(L @ U - Ah).max() / np.abs(Ah).max()
    print(f"(b) recursive no-pivot LU leaf {leaf}: {ms:.3f} ms  (||A-LU||/||A|| {err:.1e})", flush=True)
spd = gp.empty((N, N), np.float64, order="F"); spd[...] = gp.asarray(Ah @ Ah.T)
def copy_spd(): W[...] = spd
for low in (True, False):
    print(f"(c) Xpotrf lower={low}: {tgpu(lambda: (copy_spd(), SD.potrf(W, low))) - tc:.3f} ms",
          flush=True)
from gpuscipy import linalg as L
for low in (True, False):
    print(f"(d) linalg.cholesky lower={low}: {tgpu(lambda: L.cholesky(spd, lower=low)):.3f} ms",
          flush=True)
