"""Batched LU and Cholesky of small matrices (n <= 32): one warp per system.

The device code is ``_batched_lu.cuh`` (beside this file); this module
renders the ``extern "C"`` entry points for one specialisation (dtype, n,
flags) -- a pure function of the spec, so CI compiles every variant with
NVRTC -- and launches them.

References
----------
Golub & Van Loan, *Matrix Computations* (4th ed.), alg. 3.4.1 (LU with
partial pivoting) and 4.2.1 (Cholesky). Higham 1988, "FORTRAN codes for
estimating the one-norm of a real or complex matrix, with applications to
condition estimation", ACM TOMS 14(4) (the estimator LAPACK's ?gecon uses).
"""

import functools
import os

import numpy

from gpuscipy_core import config
from gpuscipy_core.kernel import read_source

from ._misc import LAPACK_CHARS, device_types

__all__ = ["MAX_N", "lu_source", "cholesky_source", "lu_kernel_name",
           "cholesky_kernel_name", "warps_per_block", "batched_lu",
           "batched_cholesky", "lu_variant", "status_source", "lu_status"]

# Which batched-LU kernel runs: "v2" (default) or "v1" (env
# GPUSCIPY_BATCHED_LU=v1; read at each call, so tests can switch it).
# Measured on the H200, solve of 10,000 x 32x32 float64: v2 0.561 ms
# (0.325 ms with check_finite=False), v1 1.076 ms; CuPy 0.50 ms. v1 runs
# LAPACK's full 1-norm condition estimate for every system; v2 stops after
# the first estimator step when its bound is >= 1e3 * eps (the reported
# rcond is then that bound, an upper bound on the full estimate), so the
# ill-conditioning warning could be missed only where the later steps would
# raise the estimate more than a thousandfold.
_VARIANTS = ("v1", "v2")


def lu_variant():
    """The LU kernel variant selected by ``GPUSCIPY_BATCHED_LU`` ("v2" default)."""
    return config.batched_lu()


MAX_N = 32
_HERE = os.path.dirname(os.path.abspath(__file__))
_SMEM_BUDGET = 48 * 1024


_CUH = os.path.join(_HERE, "_batched_lu.cuh")


def _smem_per_warp(dtype, n, variant="v1"):
    tile = n * (n + 1) * numpy.dtype(dtype).itemsize
    return tile + (32 * 4 if variant == "v2" else 0)   # v2: + lane-of-position table


def warps_per_block(dtype, n, variant="v1"):
    """Systems per block: 4 warps, fewer when the shared tiles would pass 48 KiB."""
    return max(1, min(4, _SMEM_BUDGET // max(_smem_per_warp(dtype, n, variant), 1)))


def _check_spec(dtype, n):
    dt = numpy.dtype(dtype)
    if dt.char not in LAPACK_CHARS:
        raise TypeError(f"batched LU: unsupported dtype {dt}")
    if not 1 <= n <= MAX_N:
        raise ValueError(f"batched LU: n must be in [1, {MAX_N}], got {n}")
    return dt


def _check_variant(variant):
    if variant not in _VARIANTS:
        raise ValueError(f"batched LU: variant must be one of {_VARIANTS}, got {variant!r}")
    return variant


def lu_kernel_name(dtype, n, solve=False, inv=False, trans=0, want_lu=False,
                   want_det=False, want_rcond=False, variant="v1"):
    """The kernel name, which spells out its spec (readable in a profile)."""
    dt = _check_spec(dtype, n)
    _check_variant(variant)
    flags = "".join(c for c, on in (("s", solve), ("i", inv), ("l", want_lu),
                                    ("d", want_det), ("r", want_rcond)) if on)
    stem = "gs_batched_lu" if variant == "v1" else "gs_batched_lu2"
    return f"{stem}_{dt.char}_n{n}_t{trans}_{flags or 'f'}"


@functools.lru_cache(maxsize=128)
def lu_source(dtype, n, solve=False, inv=False, trans=0, want_lu=False,
              want_det=False, want_rcond=False, variant="v1"):
    """CUDA source of one batched-LU kernel (pure: no device access).

    Returns ``(source, name)``; launch with ``32 * warps_per_block(dtype, n,
    variant)`` threads per block. ``variant`` "v2" is ``batched_lu_body_v2``
    (shared-memory solves, screened condition estimate; see the header).
    """
    dt = _check_spec(dtype, n)
    if trans not in (0, 1, 2):
        raise ValueError("trans must be 0, 1 or 2")
    name = lu_kernel_name(dt, n, solve, inv, trans, want_lu, want_det, want_rcond,
                          variant)
    T, R = device_types(dt)
    w = warps_per_block(dt, n, variant)
    body = "batched_lu_body" if variant == "v1" else "batched_lu_body_v2"
    b = lambda v: "true" if v else "false"  # noqa: E731
    src = f"""{read_source(_CUH)}

extern "C" __global__ void __launch_bounds__({32 * w})
{name}(const {T}* a, long long a_bs, const {T}* b, long long b_bs, int nrhs,
       {T}* x, {T}* lu, int* ipiv, {T}* det, int* info, {R}* rcond, long long batch)
{{
  {body}<{T}, {n}, {w}, {b(solve)}, {b(inv)}, {trans}, {b(want_lu)},
                  {b(want_det)}, {b(want_rcond)}>(
      a, a_bs, b, b_bs, nrhs, x, lu, ipiv, det, info, rcond, batch);
}}
"""
    return src, name


def cholesky_kernel_name(dtype, n, upper=False, want_factor=True, solve=False):
    dt = _check_spec(dtype, n)
    flags = "".join(c for c, on in (("f", want_factor), ("s", solve)) if on)
    return f"gs_batched_cholesky_{dt.char}_n{n}_{'u' if upper else 'l'}_{flags or 'i'}"


@functools.lru_cache(maxsize=128)
def cholesky_source(dtype, n, upper=False, want_factor=True, solve=False):
    """CUDA source of one batched-Cholesky kernel (pure). Returns ``(source, name)``."""
    dt = _check_spec(dtype, n)
    name = cholesky_kernel_name(dt, n, upper, want_factor, solve)
    T = device_types(dt)[0]
    w = warps_per_block(dt, n)
    b = lambda v: "true" if v else "false"  # noqa: E731
    src = f"""{read_source(_CUH)}

extern "C" __global__ void __launch_bounds__({32 * w})
{name}(const {T}* a, long long a_bs, const {T}* b, long long b_bs, int nrhs,
       {T}* x, {T}* c, int* info, long long batch)
{{
  batched_cholesky_body<{T}, {n}, {w}, {b(upper)}, {b(want_factor)}, {b(solve)}>(
      a, a_bs, b, b_bs, nrhs, x, c, info, batch);
}}
"""
    return src, name


# --------------------------------------------------------------- launches

def _batch_stride(x, inner):
    """Elements between consecutive matrices of a (batch, ...) array whose
    trailing ``inner`` elements are C-contiguous, or None when the batch
    axis cannot be walked with one stride."""
    if x.shape[0] == 1:
        return 0
    return x.strides[0] // x.itemsize


def _prep(x, dtype):
    """(batch, n, k) device array -> (array usable by the kernel, batch stride)."""
    import gpuscipy_core as gp
    if x.dtype != dtype:
        x = x.astype(dtype)
    inner_ok = x.size == 0 or (
        x.strides[-1] == x.itemsize and x.strides[-2] == x.shape[-1] * x.itemsize)
    if inner_ok and (x.shape[0] == 1 or x.strides[0] % x.itemsize == 0):
        return x, _batch_stride(x, None)
    x = gp.ascontiguousarray(x)
    return x, (0 if x.shape[0] == 1 else x.shape[-1] * x.shape[-2])


def _launch(source, name, dtype, n, batch, args, variant="v1"):
    from gpuscipy_core.kernel import get_function
    w = warps_per_block(dtype, n, variant)
    f = get_function(source, name)
    smem = w * _smem_per_warp(dtype, n, variant)
    grid = (batch + w - 1) // w
    f((grid, 1, 1), (32 * w, 1, 1), args, shared_mem=smem)


def batched_lu(a, b=None, *, inv=False, trans=0, want_lu=False, want_det=False,
               want_rcond=False, variant=None):
    """Factor a stack of small matrices and optionally solve.

    Parameters
    ----------
    a : device array, shape (batch, n, n), n <= 32, dtype f/d/F/D
        Inner (n, n) must be C-contiguous or it is copied; the batch axis may
        have any stride (0 broadcasts).
    b : device array, shape (batch, n, nrhs), optional
        Right-hand sides (same dtype).
    inv : bool
        Solve with the identity (the inverse).
    trans : {0, 1, 2}
        Solve ``a x = b``, ``a^T x = b`` or ``a^H x = b``.

    Returns
    -------
    dict with ``info`` (int32 (batch,)) and, as asked, ``x`` ((batch, n,
    nrhs) or (batch, n, n)), ``lu`` ((batch, n, n), C order, LAPACK's packed
    factor of ``a``), ``ipiv`` (int32, 0-based, LAPACK's), ``det``,
    ``rcond`` (1-norm reciprocal condition estimate; 0 where singular).
    variant : {None, "v1", "v2"}
        Kernel; None reads ``GPUSCIPY_BATCHED_LU`` (``lu_variant``). With
        "v2", ``rcond`` is LAPACK's estimate where it is below 1e3 eps and
        otherwise an upper bound of it that is >= 1e3 eps (see
        ``lu_rcond_v2`` in the header): the "rcond < eps" test is what it is
        meant for.
    """
    import gpuscipy_core as gp
    variant = _check_variant(lu_variant() if variant is None else variant)
    dt = _check_spec(a.dtype, a.shape[-1])
    batch, n = a.shape[0], a.shape[-1]
    a, a_bs = _prep(a, dt)
    out = {"info": gp.empty((batch,), numpy.int32)}
    null = 0
    solve = b is not None
    if solve:
        b, b_bs = _prep(b, dt)
        nrhs = b.shape[-1]
        out["x"] = gp.empty((batch, n, nrhs), dt)
    elif inv:
        b_bs, nrhs = 0, n
        out["x"] = gp.empty((batch, n, n), dt)
    else:
        b_bs, nrhs = 0, 0
    if want_lu:
        out["lu"] = gp.empty((batch, n, n), dt)
        out["ipiv"] = gp.empty((batch, n), numpy.int32)
    if want_det:
        out["det"] = gp.empty((batch,), dt)
    if want_rcond:
        out["rcond"] = gp.empty((batch,), dt.char.lower())
    if batch == 0 or (solve and nrhs == 0 and not (want_lu or want_det or want_rcond)):
        if batch:
            out["info"].fill(0)
        return out
    src, name = lu_source(dt, n, solve, inv and not solve, trans, want_lu, want_det,
                          want_rcond, variant)

    def p(key):
        v = out.get(key)
        return v.ptr if v is not None else null

    args = (a.ptr, numpy.int64(a_bs), b.ptr if solve else null, numpy.int64(b_bs),
            numpy.int32(nrhs), p("x"), p("lu"), p("ipiv"), p("det"), out["info"].ptr,
            p("rcond"), numpy.int64(batch))
    _launch(src, name, dt, n, batch, args, variant)
    return out


@functools.lru_cache(maxsize=128)
def status_source(real_char):
    """CUDA source of the status reduction (pure). Returns ``(source, name)``.

    One block: ``out[0]`` = any ``info > 0``, ``out[1]`` = any
    ``!(rcond >= eps)`` (NaN counts as ill-conditioned, as ``_warn_rcond``),
    ``out[2]`` = ``fin0`` or ``fin1`` (device bools from ``all_finite(...,
    sync=False)``; null pointers are skipped) false: an input held inf or NaN.
    """
    if real_char not in ("f", "d"):
        raise TypeError(f"lu status: unsupported rcond dtype {real_char!r}")
    R = "float" if real_char == "f" else "double"
    name = f"gs_batched_lu_status_{real_char}"
    src = (f"{read_source(_CUH)}\n"
           f'extern "C" __global__ void __launch_bounds__(1024)\n'
           f"{name}(const int* info, const {R}* rcond, long long n, {R} eps,\n"
           f"       const bool* fin0, const bool* fin1, int* out) {{\n"
           f"  gs_linalg_batched::lu_status<{R}>(info, rcond, n, eps, fin0, fin1, out);\n}}\n")
    return src, name


def lu_status(info, rcond, dtype, finite=()):
    """Device int32 array ``[any singular, any rcond < eps, any input not
    finite]`` of one batch (``rcond`` may be None; ``finite``: up to two
    0-d device bool flags from ``all_finite(x, sync=False)``, None entries
    skipped): one launch, so the caller reads back 12 bytes and fetches
    ``info``/``rcond`` only when a flag is set."""
    import gpuscipy_core as gp
    from gpuscipy_core.kernel import get_function
    fin = [f.ptr for f in finite if f is not None]
    if len(fin) > 2:
        raise ValueError("lu_status: at most two finite flags")
    fin += [0] * (2 - len(fin))
    rc_char = numpy.dtype(dtype).char.lower()
    out = gp.empty((3,), numpy.int32)
    src, name = status_source(rc_char)
    f = get_function(src, name)
    eps = numpy.finfo(rc_char).eps
    n = info.size
    f((1, 1, 1), (1024 if n > 256 else 256, 1, 1),
      (info.ptr, rcond.ptr if rcond is not None else 0, numpy.int64(n),
       numpy.dtype(rc_char).type(eps), fin[0], fin[1], out.ptr))
    return out


def batched_cholesky(a, b=None, *, upper=False, want_factor=True):
    """Cholesky of a stack of small Hermitian positive definite matrices.

    ``a`` (batch, n, n) is read in its upper (``upper=True``) or lower
    triangle only. Returns a dict with ``info`` and, as asked, ``c`` (U or L,
    zeros in the other triangle) and ``x`` (solution of ``a x = b``).
    """
    import gpuscipy_core as gp
    dt = _check_spec(a.dtype, a.shape[-1])
    batch, n = a.shape[0], a.shape[-1]
    a, a_bs = _prep(a, dt)
    out = {"info": gp.empty((batch,), numpy.int32)}
    solve = b is not None
    nrhs = 0
    b_bs = 0
    if solve:
        b, b_bs = _prep(b, dt)
        nrhs = b.shape[-1]
        out["x"] = gp.empty((batch, n, nrhs), dt)
    if want_factor:
        out["c"] = gp.empty((batch, n, n), dt)
    if batch == 0:
        return out
    src, name = cholesky_source(dt, n, upper, want_factor, solve)
    args = (a.ptr, numpy.int64(a_bs), b.ptr if solve else 0, numpy.int64(b_bs),
            numpy.int32(nrhs), out["x"].ptr if solve else 0,
            out["c"].ptr if want_factor else 0, out["info"].ptr, numpy.int64(batch))
    _launch(src, name, dt, n, batch, args)
    return out
