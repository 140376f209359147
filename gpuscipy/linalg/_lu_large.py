"""LU with partial (tournament) pivoting of large dense matrices.

cuSOLVER's getrf is latency-bound at n ~ 4096 (13.5 ms in float64, 11.9 ms
in float32 on an H200, for ~1 ms of GEMM flops): its panel factorization
launches several kernels per column.  Here a blocked right-looking LU does,
per panel of ``nb`` columns, three launches:

1. ``lu_panel`` -- the whole panel in ONE launch: tournament pivoting
   (CALU/TSLU) over chunks of ``rows`` rows held in registers, a reduction
   tree of fan-in ``rows // nb`` run by the last block of each group, and
   ``L21 = A21 U11^-1`` by every block once the root has published U11;
2. ``lu_swap_trsm`` -- the panel's row moves on every other column and
   ``U12 = L11^-1 A12`` right of it (one thread per column);
3. cuBLAS ``?gemm``: ``A22 -= L21 U12``.

The result has cusolverDnXgetrf's conventions: ``a`` holds L\\U (unit L),
``ipiv`` int64 1-based LAPACK swap sequence (``P A = L U``), ``info`` the
first zero diagonal of U (1-based; 0 when none), so ``cusolverDnXgetrs``
solves with it unchanged.  Tournament pivots differ from GEPP's; CALU is
stable in practice (its growth factor behaves like GEPP's), |L| is not
bounded by 1 but by a small constant in practice.

Expected time (H200, float64, n = 4096, nb = 64, rows = 256): 64 panels;
panel chain = depth (3 while n - k > 1024, else 2 or 1) x 64 GEPP steps x
~0.35 us; one __syncthreads per step) ~ 4.0 ms summed; swap/trsm ~0.3 ms;
GEMMs ~1.1-1.3 ms; total ~5.5 ms without look-ahead (vs 13.5 ms).
Measured first with fully unrolled step loops: 22-27 ms, ~2-4 us per GEPP
step: straight-line code of 0.25-0.55 MB per kernel, each instruction
fetched cold once per panel. The step loops are now rolled (``pick``/``put``
in the header keep the rows in registers). Re-measured rolled: 26.5 ms
(nb 32, rows 256), so code size was not the bottleneck: the per-step chain
of pivot search, broadcast and rank-1 update behind barriers is.

References
----------
L. Grigori, J. Demmel, H. Xiang, "CALU: a communication optimal LU
factorization algorithm", SIAM J. Matrix Anal. Appl. 32(4), 2011.
Golub & Van Loan, Matrix Computations (4th ed.), alg. 3.4.2 (block LU).
"""

import functools
import os

import numpy

from gpuscipy_core._kernel._nvrtc import read_source

from ._misc import LAPACK_CHARS, device_types

__all__ = ["available", "getrf_large", "panel_source", "swap_source", "config",
           "CONFIGS", "model_getrf", "MIN_N", "MAX_N"]

MIN_N = 1024
MAX_N = 16384
_HERE = os.path.dirname(os.path.abspath(__file__))
# (nb, rows) variants that fit the register file (one row of nb values per
# thread, rows threads per block); the first is the default: the fastest
# measured without register spills (ptxas -v, NVRTC 13: float64 (64, 256)
# and (32, 512) spill; (32, 256) was also the fastest float64 one on the
# H200, 22.4 ms against 27.5 ms for (64, 256) before the rolled loops).
CONFIGS = {
    "f": ((64, 256), (32, 512), (32, 256), (64, 512)),
    "d": ((32, 256), (64, 256), (32, 512)),
    "F": ((32, 256), (64, 256), (32, 512)),
    "D": ((16, 256), (32, 256), (16, 512)),
}
_NLEV = 6
_SWAP_THREADS = 64


def config(dtype):
    """Default ``(nb, rows)`` of ``dtype``."""
    return CONFIGS[numpy.dtype(dtype).char][0]


def _header():
    return read_source(os.path.join(_HERE, "_lu_large.cuh"))


def _check(dtype, nb, rows):
    dt = numpy.dtype(dtype)
    if dt.char not in LAPACK_CHARS:
        raise TypeError(f"getrf_large: unsupported dtype {dt}")
    if (nb, rows) not in CONFIGS[dt.char]:
        raise ValueError(f"getrf_large: (nb, rows) = {(nb, rows)} not in "
                         f"{CONFIGS[dt.char]} for {dt}")
    return dt


@functools.lru_cache(maxsize=None)
def panel_source(dtype, nb, rows):
    """``(source, name)`` of the panel kernel (pure; launch ``rows`` threads)."""
    dt = _check(dtype, nb, rows)
    name = f"gs_lu_panel_{dt.char}_nb{nb}_r{rows}"
    T = device_types(dt)[0]
    src = f"""{_header()}

extern "C" __global__ void __launch_bounds__({rows})
{name}({T}* A, long long lda, int m, int w, long long k0, int gen, int* ws, {T}* u_ws,
       long long* ipiv, int* info)
{{
  gslu::lu_panel_body<{T}, {nb}, {rows}>(A, lda, m, w, k0, gen, ws, u_ws, ipiv, info);
}}
"""
    return src, name


@functools.lru_cache(maxsize=None)
def swap_source(dtype, nb):
    """``(source, name)`` of the swap + trsm kernel (pure)."""
    dt = numpy.dtype(dtype)
    if dt.char not in LAPACK_CHARS:
        raise TypeError(f"getrf_large: unsupported dtype {dt}")
    name = f"gs_lu_swap_trsm_{dt.char}_nb{nb}"
    T = device_types(dt)[0]
    src = f"""{_header()}

extern "C" __global__ void __launch_bounds__({_SWAP_THREADS})
{name}({T}* A, long long lda, int n, int k0, int w, const int* ws)
{{
  gslu::lu_swap_trsm_body<{T}, {nb}>(A, lda, n, k0, w, ws);
}}
"""
    return src, name


def _panel_smem(dtype, nb, rows):
    dt = numpy.dtype(dtype)
    isz = dt.itemsize
    rsz = numpy.dtype(dt.char.lower()).itemsize
    w = rows // 32
    return (2 * w * nb * isz + nb * nb * isz + 2 * w * rsz + 2 * w * 4 + nb * 4
            + rows * 4 + 8 * 4 + 3 * nb * 4 + 64 * 4)


def _ws_words(n, nb, rows):
    p0 = -(-n // rows)
    return 8 + 3 * nb + _NLEV * p0 + _NLEV * p0 * nb + _NLEV * p0


def _depth(m, nb, rows):
    f = rows // nb
    nodes, d = -(-m // rows), 1
    while nodes > 1:
        nodes, d = -(-nodes // f), d + 1
    return d


def available(n, dtype):
    """Whether ``getrf_large`` handles an (n, n) matrix of ``dtype``."""
    dt = numpy.dtype(dtype)
    if dt.char not in LAPACK_CHARS or not MIN_N <= n <= MAX_N:
        return False
    nb, rows = config(dt)
    return _depth(n, nb, rows) <= _NLEV - 1


def _ld(a):
    it = a.itemsize
    if a.strides[0] != it:
        raise ValueError("getrf_large: a must be F-ordered (unit row stride)")
    return max(a.strides[1] // it, a.shape[0], 1)


_GEMM = {"f": "cublasSgemm_v2", "d": "cublasDgemm_v2", "F": "cublasCgemm_v2",
         "D": "cublasZgemm_v2"}


def getrf_large(a, nb=None, rows=None):
    """LU with tournament pivoting of the F-ordered square ``a``, in place.

    Parameters
    ----------
    a : device array, shape (n, n), float32/float64/complex64/complex128
        Unit row stride (column-major); overwritten by L\\U.
    nb, rows : int, optional
        Panel width and rows per block (a pair from ``CONFIGS``).

    Returns
    -------
    ipiv : int64 device array (n,), 1-based LAPACK swap sequence
    info : int32 device array (1,), first zero pivot (1-based) or 0

    Raises
    ------
    TypeError, ValueError
        Unsupported dtype, shape or layout.
    """
    import gpuscipy_core as gp
    from gpuscipy_core import libs
    from gpuscipy_core._kernel import get_function
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("getrf_large: a must be square")
    dt = numpy.dtype(a.dtype)
    if nb is None or rows is None:
        nb, rows = config(dt)
    _check(dt, nb, rows)
    n = a.shape[0]
    ipiv = gp.empty((n,), numpy.int64)
    info = gp.zeros((1,), numpy.int32)
    if n == 0:
        return ipiv, info
    if _depth(n, nb, rows) > _NLEV - 1:
        raise ValueError("getrf_large: n too large for the reduction tree")
    lda = _ld(a)
    ws = gp.zeros((_ws_words(n, nb, rows),), numpy.int32)
    u_ws = gp.empty((nb * nb,), dt)
    psrc, pname = panel_source(dt, nb, rows)
    ssrc, sname = swap_source(dt, nb)
    fpanel = get_function(psrc, pname)
    fswap = get_function(ssrc, sname)
    smem = _panel_smem(dt, nb, rows)
    cb = libs.cublas
    h = libs.get_handle("cublas")
    gemm = getattr(cb, _GEMM[dt.char])
    minus1 = numpy.full(1, -1, dt)
    one = numpy.ones(1, dt)
    N = cb.CUBLAS_OP_N
    base = a.ptr
    isz = dt.itemsize
    for gen, k0 in enumerate(range(0, n, nb), start=1):
        w = min(nb, n - k0)
        m = n - k0
        p0 = -(-m // rows)
        panel = base + (k0 + k0 * lda) * isz
        fpanel((p0, 1, 1), (rows, 1, 1),
               (panel, numpy.int64(lda), numpy.int32(m), numpy.int32(w),
                numpy.int64(k0), numpy.int32(gen), ws.ptr, u_ws.ptr, ipiv.ptr,
                info.ptr), shared_mem=smem)
        ncols = n - w
        if ncols > 0:
            fswap((-(-ncols // _SWAP_THREADS), 1, 1), (_SWAP_THREADS, 1, 1),
                  (base, numpy.int64(lda), numpy.int32(n), numpy.int32(k0),
                   numpy.int32(w), ws.ptr))
        rest = n - k0 - w
        if rest > 0:
            a21 = base + (k0 + w + k0 * lda) * isz
            u12 = base + (k0 + (k0 + w) * lda) * isz
            a22 = base + (k0 + w + (k0 + w) * lda) * isz
            gemm(h, N, N, rest, rest, w, minus1.ctypes.data, a21, lda, u12, lda,
                 one.ctypes.data, a22, lda)
    return ipiv, info


# ----------------------------------------------------------- NumPy model

def _cabs1(x):
    return numpy.abs(x.real) + numpy.abs(x.imag) if x.dtype.kind == "c" else numpy.abs(x)


def _gepp_block(rows_vals, w):
    """The kernel's ``block_gepp`` on a stack (k, w): returns (chosen stack
    positions in pivot order, factored values, first zero step or -1)."""
    a = numpy.array(rows_vals, copy=True)
    k = a.shape[0]
    alive = numpy.ones(k, bool)
    chosen, zero = [], -1
    for j in range(w):
        if not alive.any():
            break
        key = _cabs1(a[:, j]).astype(float)
        key[numpy.isnan(key)] = numpy.inf
        key[~alive] = -1.0
        p = int(numpy.argmax(key))          # first maximum: smallest position
        chosen.append(p)
        alive[p] = False
        pj = a[p, j]
        if pj == 0:
            if zero < 0:
                zero = j
            continue
        idx = numpy.nonzero(alive)[0]
        l = a[idx, j] / pj
        a[idx, j] = l
        a[numpy.ix_(idx, numpy.arange(j + 1, w))] -= numpy.outer(l, a[p, j + 1:w])
    return chosen, a, zero


def _row_times_uinv(x, u, w):
    x = numpy.array(x, copy=True)
    for j in range(w):
        d = u[j, j]
        if d != 0:
            x[:, j] = x[:, j] / d
        x[:, j + 1:w] -= numpy.outer(x[:, j], u[j, j + 1:w])
    return x


def _model_panel(P, w, nb, rows):
    """Factor the (m, w) panel P in place like one ``lu_panel`` launch.
    Returns (ipiv 0-based panel-relative, pivot rows, moves (src, dst) of displaced rows,
    first zero step or -1)."""
    m = P.shape[0]
    f = rows // nb
    orig = P.copy()
    nodes = [list(range(b * rows, min(m, (b + 1) * rows))) for b in range(-(-m // rows))]
    while True:
        outs = []
        for rl in nodes:
            chosen, vals, zero = _gepp_block(orig[rl], w)
            outs.append(([rl[c] for c in chosen], vals, chosen, zero))
        if len(nodes) == 1:
            break
        nodes = [sum((o[0] for o in outs[g:g + f]), []) for g in range(0, len(outs), f)]
    piv, vals, chosen, zero = outs[0]
    top = vals[chosen]                       # row i = L11\U11 row i
    u = numpy.triu(top[:w, :w])
    ipiv, pos_small, row_at = [], list(range(w)), list(range(w))
    for i in range(w):
        rr = piv[i]
        q = pos_small[rr] if rr < w else rr
        ipiv.append(q)
        x = row_at[i]
        if q < w:
            row_at[q] = x
        pos_small[x] = q
        row_at[i] = rr
        if rr < w:
            pos_small[rr] = i
    disp = [(x, pos_small[x]) for x in range(w) if pos_small[x] >= w]
    pivset = set(piv)
    rest = [r for r in range(w, m) if r not in pivset]
    if rest:
        P[rest] = _row_times_uinv(orig[rest], u, w)
    for src, dst in disp:
        P[dst] = _row_times_uinv(orig[src:src + 1], u, w)[0]
    P[:w] = top[:w]
    return ipiv, piv, disp, zero


def model_getrf(a, nb, rows):
    """NumPy model of ``getrf_large``: the same chunks, tree, pivots, moves
    and update order.  Returns (lu, ipiv 1-based, info)."""
    a = numpy.array(a, copy=True, order="F")
    n = a.shape[0]
    ipiv = numpy.zeros(n, numpy.int64)
    info = 0
    for k0 in range(0, n, nb):
        w = min(nb, n - k0)
        P = a[k0:, k0:k0 + w]
        seq, piv, disp, zero = _model_panel(P, w, nb, rows)
        ipiv[k0:k0 + w] = numpy.asarray(seq) + k0 + 1
        if zero >= 0 and info == 0:
            info = k0 + zero + 1
        cols = [c for c in range(n) if not k0 <= c < k0 + w]
        sub = a[k0:, cols]
        pv = numpy.asarray(piv)
        v = sub[pv].copy()
        for src, dst in disp:
            sub[dst] = sub[src]
        sub[:w] = v
        a[k0:, cols] = sub
        if k0 + w < n:
            L11 = numpy.tril(a[k0:k0 + w, k0:k0 + w], -1) + numpy.eye(w, dtype=a.dtype)
            r = slice(k0 + w, n)
            a[k0:k0 + w, r] = numpy.linalg.solve(L11, a[k0:k0 + w, r])
            a[r, r] -= a[r, k0:k0 + w] @ a[k0:k0 + w, r]
    return a, ipiv, info
