"""Direct (sum-of-products) correlation on the GPU.

Every direct method of the convolution family reduces to one contract
(device code in ``_convolve_direct.cuh``)::

    out[o] = sum_k  ext(sig)[o + start + k] * w[k]        (per axis)

``sig`` is the signal (any strides, read with an optional conjugation), ``w``
the weights in the accumulator dtype (reversed and/or conjugated by the
caller), ``start`` the per-axis offset of the output in the signal and
``ext`` the boundary extension. :func:`correlate` picks the kernel for the
shapes: ``rows`` (1-D along the last axis, batched), ``cols`` (1-D along a
strided axis), ``tile2`` (2-D over the last two axes, batched) or ``nd``
(generic, up to ``MAXDIM`` axes).

The driver is written against an array namespace ``xp`` (gpuscipy_core on
the device). The CPU tests run the same driver with NumPy arrays and the
kernels compiled for the host by an emulator; :func:`model_correlate` and
:func:`model_rows_tiled` are NumPy models of the contract and of the rows
kernel's tiling.
"""

import functools
import math
import os

import numpy

__all__ = ["EXT", "MAXDIM", "KINDS", "kernel_name", "kernel_wrapper", "kernel_source",
           "header", "rows_params", "cols_params", "tile2_params", "shared_bytes",
           "launch", "device_xp", "ptr", "axis_view", "correlate", "model_correlate",
           "model_rows_tiled", "variants"]

_HERE = os.path.dirname(os.path.abspath(__file__))
EXT = {"fill": 0, "wrap": 1, "symm": 2, "mirror": 3, "nearest": 4}
MAXDIM = 8
KINDS = ("rows", "cols", "tile2", "nd")


def header():
    """Text of ``_convolve_direct.cuh``."""
    from gpuscipy_core.kernel import read_source
    return read_source(os.path.join(_HERE, "_convolve_direct.cuh"))


def _ctype(dt):
    from gpuscipy_core.kernel import ctype
    return ctype(numpy.dtype(dt))


def _tag(dt):
    return numpy.dtype(dt).str[1:]


def rows_params(acc):
    """(R outputs per thread, BLOCK threads, KC weights per chunk) of ``rows``."""
    return {1: (16, 128, 1024), 4: (16, 128, 1024), 8: (8, 128, 512),
            16: (4, 128, 256)}[numpy.dtype(acc).itemsize]


def cols_params(acc):
    """(R outputs per thread, KC weights per chunk) of ``cols``."""
    return {1: (8, 256), 4: (8, 256), 8: (4, 256), 16: (2, 128)}[numpy.dtype(acc).itemsize]


def tile2_params(acc):
    """(RY rows per thread, KCH, KCW weight chunk) of ``tile2``."""
    return {1: (8, 32, 32), 4: (8, 32, 32), 8: (4, 16, 16),
            16: (2, 16, 16)}[numpy.dtype(acc).itemsize]


def _skew(i):
    return i + (i >> 5)


def shared_bytes(kind, acc):
    """Dynamic shared memory of a launch of ``kind`` with accumulator ``acc``."""
    isz = numpy.dtype(acc).itemsize
    if kind == "rows":
        r, block, kc = rows_params(acc)
        return (_skew(block * r + kc) + 1 + kc) * isz
    if kind == "cols":
        return cols_params(acc)[1] * isz
    if kind == "tile2":
        ry, kch, kcw = tile2_params(acc)
        return ((8 * ry + kch) * (32 + kcw) + kch * kcw) * isz
    return 0


def kernel_name(kind, x, acc, out, conj):
    """``extern "C"`` name: kind, signal/accumulator/output dtypes, conj."""
    return (f"gsconv_{kind}_{_tag(x)}_{_tag(acc)}_{_tag(out)}"
            f"{'_conj' if conj else ''}")


def kernel_wrapper(kind, x, acc, out, conj):
    """The ``extern "C"`` kernel of one specialisation (no header)."""
    if kind not in KINDS:
        raise ValueError(f"unknown kernel kind {kind!r}")
    X, A, O = _ctype(x), _ctype(acc), _ctype(out)
    c = "true" if conj else "false"
    name = kernel_name(kind, x, acc, out, conj)
    if kind == "rows":
        r, block, kc = rows_params(acc)
        return (f'extern "C" __global__ void __launch_bounds__({block})\n'
                f"{name}(const {X}* x, long long L, long long sx_row, long long sx,\n"
                f"    const {A}* w, long long K, {O}* out, long long Lout, long long s,\n"
                f"    long long nrows, {A} fill, int ext) {{\n"
                f"  gs_signal_conv::rows<{X}, {A}, {O}, {r}, {block}, {kc}, {c}>(\n"
                f"      x, L, sx_row, sx, w, K, out, Lout, s, nrows, fill, ext);\n}}\n")
    if kind == "cols":
        r, kc = cols_params(acc)
        return (f'extern "C" __global__ void __launch_bounds__(256)\n'
                f"{name}(const {X}* x, long long L, long long sb, long long sl,\n"
                f"    long long si, const {A}* w, long long K, {O}* out, long long Lout,\n"
                f"    long long s, long long outer, long long inner, {A} fill,\n"
                f"    int ext) {{\n"
                f"  gs_signal_conv::cols<{X}, {A}, {O}, {r}, {kc}, {c}>(\n"
                f"      x, L, sb, sl, si, w, K, out, Lout, s, outer, inner, fill,\n"
                f"      ext);\n}}\n")
    if kind == "tile2":
        ry, kch, kcw = tile2_params(acc)
        return (f'extern "C" __global__ void __launch_bounds__(256)\n'
                f"{name}(const {X}* x, long long H, long long W, long long sb,\n"
                f"    long long sxh, long long sxw, const {A}* w, long long KH,\n"
                f"    long long KW, {O}* out, long long Ho, long long Wo, long long sh,\n"
                f"    long long sw, long long B, {A} fill, int ext) {{\n"
                f"  gs_signal_conv::tile2<{X}, {A}, {O}, {ry}, {kch}, {kcw}, {c}>(\n"
                f"      x, H, W, sb, sxh, sxw, w, KH, KW, out, Ho, Wo, sh, sw, B, fill,\n"
                f"      ext);\n}}\n")
    return (f'extern "C" __global__ void __launch_bounds__(256)\n'
            f"{name}(const {X}* x, const {A}* w, {O}* out, long long total,\n"
            f"    long long wsize, gs_signal_conv::NdParams p) {{\n"
            f"  gs_signal_conv::nd<{X}, {A}, {O}, {c}>(x, w, out, total, wsize, p);\n}}\n")


@functools.lru_cache(maxsize=512)
def kernel_source(kind, x, acc, out, conj):
    """``(source, name)`` of one kernel (pure; the header text is included so
    the kernel cache key sees it)."""
    x, acc, out = numpy.dtype(x), numpy.dtype(acc), numpy.dtype(out)
    return (header() + "\n" + kernel_wrapper(kind, x, acc, out, conj),
            kernel_name(kind, x, acc, out, conj))


KERNEL_DTYPES = tuple(numpy.dtype(c) for c in "IQfdFD")


def variants():
    """Every (kind, x, acc, out, conj) the signal module can launch.

    The kernels compute in ``_convolve_plan.acc_dtype`` of the result (the
    signal is cast to it first, the result cast back), so one dtype serves
    signal, weights and output; every kind for each of them, with a
    conjugated-signal variant for complex. The boundary extension is a
    run-time argument."""
    out = []
    for dt in KERNEL_DTYPES:
        for conj in ((False, True) if dt.kind == "c" else (False,)):
            for kind in KINDS:
                out.append((kind, dt, dt, dt, conj))
    return out


# ---------------------------------------------------------------------------
# launching
# ---------------------------------------------------------------------------

def device_xp():
    """The array namespace of the public functions: gpuscipy_core (the CPU
    tests substitute NumPy, with ``launch`` emulated)."""
    import gpuscipy_core
    return gpuscipy_core


def _launch_device(source, name, grid, block, args, shared):
    from gpuscipy_core.kernel import get_function
    get_function(source, name)(grid, block, args, shared_mem=shared)


launch = _launch_device     # replaced by the CPU tests' host emulator


def ptr(a):
    """Device (or, for NumPy arrays in the CPU tests, host) address of a[0...]."""
    p = getattr(a, "ptr", None)
    return p if p is not None else a.ctypes.data


def _estrides(a):
    isz = a.dtype.itemsize
    return [s // isz for s in a.strides]


def _collapse(shape, strides):
    """One element stride covering these dims (extent-1 dims ignored) in C
    order, or None when they are not a single arithmetic progression."""
    dims = [(n, s) for n, s in zip(shape, strides) if n != 1]
    if not dims:
        return 0
    for (n0, s0), (n1, s1) in zip(dims[:-1], dims[1:]):
        if s0 != s1 * n1:
            return None
    return dims[-1][1]


# grid limits: y and z extents (CUDA's 65535), and the number of blocks of
# the grid-stride 1-D launches (the CPU tests lower both to exercise the
# grid-stride loops)
GRID_YZ = 65535
GRID_X = 1 << 20


def _grid1(n):
    return max(1, min(int(n), GRID_YZ))


def grid_x(n):
    """Blocks of a grid-stride 1-D launch over n blocks' worth of work."""
    return max(1, min(int(n), GRID_X))


def correlate(xp, sig, w, out_shape, starts, out_dtype, conj=False, ext="fill",
              fill=0, force2d=False):
    """``out[o] = sum_k ext(sig)[o + starts + k] * w[k]`` (per axis).

    Parameters
    ----------
    xp : array namespace (gpuscipy_core, or NumPy in the CPU tests)
    sig : array, any strides and dtype; cast to ``w.dtype`` (the kernels'
        compute dtype, ``_convolve_plan.acc_dtype``) when it differs
    w : array, C-contiguous, of the compute dtype
    out_shape : output shape (same ndim as ``sig``)
    starts : per-axis offsets (may be negative)
    out_dtype : result dtype (the raw result is cast to it; bool is
        "nonzero")
    conj : read ``sig`` conjugated
    ext : boundary extension of ``sig`` ('fill', 'wrap', 'symm', 'mirror',
        'nearest'); any but 'fill' needs a 1-D or a 2-D problem.
    fill : value of 'fill' positions
    force2d : use the 2-D tile kernel over the last two axes even when the
        weights span one axis only (convolve2d)

    Returns a new C-contiguous array of ``out_shape`` and ``out_dtype``.
    """
    out_dtype = numpy.dtype(out_dtype)
    kdt = numpy.dtype(w.dtype)
    if sig.dtype != kdt:
        sig = sig.astype(kdt)
    out_shape = tuple(int(v) for v in out_shape)
    out = _dispatch(xp, sig, w, out_shape, [int(v) for v in starts], conj, ext,
                    kdt.type(fill), force2d)
    if out.dtype == out_dtype:
        return out
    if out_dtype.kind == "b":
        return out != 0
    return out.astype(out_dtype)


def _dispatch(xp, sig, w, out_shape, starts, conj, ext, fill, force2d):
    nd = sig.ndim
    out = xp.empty(out_shape, w.dtype)
    if out.size == 0:
        return out
    K = list(w.shape)
    # axes the weights do not span: the output takes a window of the signal
    index = []
    for d in range(nd):
        if K[d] == 1 and not (force2d and d >= nd - 2):
            lo = starts[d]
            if lo < 0 or lo + out_shape[d] > sig.shape[d]:
                raise AssertionError("internal: batch axis out of range")
            index.append(slice(lo, lo + out_shape[d]))
            starts[d] = 0
        else:
            index.append(slice(None))
    sig = sig[tuple(index)]
    active = [d for d in range(nd) if K[d] > 1]
    if force2d:
        return _run_tile2(xp, sig, w, out, starts[nd - 2], starts[nd - 1], conj, ext,
                          fill)
    if len(active) <= 1:
        a = active[0] if active else nd - 1
        inner = math.prod(sig.shape[a + 1:])
        if inner == 1:
            return _run_rows(xp, sig, w, out, a, starts[a], conj, ext, fill)
        if inner < 8:
            # few lanes along the inner axes: move the axis last (two copies)
            perm = list(range(a)) + list(range(a + 1, nd)) + [a]
            o_t = _dispatch(xp, xp.moveaxis(sig, a, -1),
                            xp.ascontiguousarray(xp.moveaxis(w, a, -1)),
                            tuple(out_shape[d] for d in perm), [starts[d] for d in perm],
                            conj, ext, fill, False)
            out[...] = xp.moveaxis(o_t, -1, a)
            return out
        return _run_cols(xp, sig, w, out, a, starts[a], conj, ext, fill)
    if active == [nd - 2, nd - 1]:
        return _run_tile2(xp, sig, w, out, starts[nd - 2], starts[nd - 1], conj, ext,
                          fill)
    if ext != "fill":
        raise ValueError(f"boundary {ext!r} is supported for 1-D and 2-D problems only")
    return _run_nd(xp, sig, w, out, starts, conj)


def _rows_view(xp, sig, a):
    """(sig, row stride) with the dims before ``a`` collapsed (copy if needed)."""
    es = _estrides(sig)
    sr = _collapse(sig.shape[:a], es[:a])
    if sr is None:
        sig = xp.ascontiguousarray(sig)
        es = _estrides(sig)
        sr = _collapse(sig.shape[:a], es[:a])
    return sig, sr, es


def _run_rows(xp, sig, w, out, a, s, conj, ext, fill):
    sig, sr, es = _rows_view(xp, sig, a)
    L = sig.shape[a]
    nrows = math.prod(sig.shape[:a])
    K = w.shape[a]
    Lout = out.shape[a]
    acc = numpy.dtype(w.dtype)
    r, block, _ = rows_params(acc)
    src, name = kernel_source("rows", sig.dtype, acc, out.dtype, conj)
    grid = (-(-Lout // (block * r)), _grid1(nrows), 1)
    launch(src, name, grid, (block, 1, 1),
           (ptr(sig), L, sr, es[a], ptr(w), K, ptr(out), Lout, s, nrows, fill,
            numpy.int32(EXT[ext])),
           shared_bytes("rows", acc))
    return out


def axis_view(xp, x, a):
    """``(x, sb, sl, si)``: element strides of ``x`` read as (outer, L,
    inner) around axis ``a`` (the dims before and after ``a`` collapsed); a
    C-contiguous copy of ``x`` when either group does not collapse."""
    es = _estrides(x)
    sb = _collapse(x.shape[:a], es[:a])
    si = _collapse(x.shape[a + 1:], es[a + 1:])
    if sb is None or si is None:
        x = xp.ascontiguousarray(x)
        es = _estrides(x)
        sb = _collapse(x.shape[:a], es[:a])
        si = _collapse(x.shape[a + 1:], es[a + 1:])
    return x, sb, es[a], si


def _run_cols(xp, sig, w, out, a, s, conj, ext, fill):
    sig, sb, sl, si = axis_view(xp, sig, a)
    outer = math.prod(sig.shape[:a])
    inner = math.prod(sig.shape[a + 1:])
    L, K, Lout = sig.shape[a], w.shape[a], out.shape[a]
    acc = numpy.dtype(w.dtype)
    r, _ = cols_params(acc)
    src, name = kernel_source("cols", sig.dtype, acc, out.dtype, conj)
    grid = (-(-Lout // (8 * r)), _grid1(-(-inner // 32)), _grid1(outer))
    launch(src, name, grid, (32, 8, 1),
           (ptr(sig), L, sb, sl, si, ptr(w), K, ptr(out), Lout, s, outer, inner, fill,
            numpy.int32(EXT[ext])),
           shared_bytes("cols", acc))
    return out


def _run_tile2(xp, sig, w, out, sh, sw, conj, ext, fill):
    nd = sig.ndim
    sig, sb, es = _rows_view(xp, sig, nd - 2)
    H, W = sig.shape[-2:]
    KH, KW = w.shape[-2:]
    Ho, Wo = out.shape[-2:]
    B = math.prod(sig.shape[:-2])
    acc = numpy.dtype(w.dtype)
    ry, _, _ = tile2_params(acc)
    src, name = kernel_source("tile2", sig.dtype, acc, out.dtype, conj)
    grid = (-(-Wo // 32), _grid1(-(-Ho // (8 * ry))), _grid1(B))
    launch(src, name, grid, (32, 8, 1),
           (ptr(sig), H, W, sb, es[-2], es[-1], ptr(w), KH, KW, ptr(out), Ho, Wo,
            sh, sw, B, fill, numpy.int32(EXT[ext])),
           shared_bytes("tile2", acc))
    return out


def nd_params(xshape, xstrides, wshape, oshape, starts):
    """The ``gs_signal_conv::NdParams`` struct as bytes (ndim <= MAXDIM)."""
    n = len(xshape)
    if n > MAXDIM:
        raise ValueError(f"direct convolution supports at most {MAXDIM} axes of "
                         f"length > 1, got {n}")
    arr = numpy.zeros(1 + 5 * MAXDIM, numpy.int64)
    arr[0] = n
    for k, v in enumerate((xshape, xstrides, wshape, oshape, starts)):
        arr[1 + k * MAXDIM: 1 + k * MAXDIM + n] = v
    return arr.tobytes()


def _run_nd(xp, sig, w, out, starts, conj):
    # axes of extent 1 in the output and the weights carry nothing
    keep = [d for d in range(sig.ndim) if out.shape[d] != 1 or w.shape[d] != 1]
    if not keep:
        keep = [sig.ndim - 1]
    es = _estrides(sig)
    acc = numpy.dtype(w.dtype)
    params = nd_params([sig.shape[d] for d in keep], [es[d] for d in keep],
                       [w.shape[d] for d in keep], [out.shape[d] for d in keep],
                       [starts[d] for d in keep])
    src, name = kernel_source("nd", sig.dtype, acc, out.dtype, conj)
    total = out.size
    grid = (grid_x(-(-total // 256)), 1, 1)
    launch(src, name, grid, (256, 1, 1), (ptr(sig), ptr(w), ptr(out), total, w.size,
                                          params), 0)
    return out


# ---------------------------------------------------------------------------
# NumPy models
# ---------------------------------------------------------------------------

def _ext_index(g, n, ext):
    g = numpy.asarray(g, dtype=numpy.int64)
    inside = (g >= 0) & (g < n)
    if ext == "fill":
        return numpy.where(inside, g, -1)
    if ext == "wrap":
        r = g % n
    elif ext == "symm":
        r = g % (2 * n)
        r = numpy.where(r < n, r, 2 * n - 1 - r)
    elif ext == "mirror":
        if n == 1:
            r = numpy.zeros_like(g)
        else:
            p = 2 * n - 2
            r = g % p
            r = numpy.where(r < n, r, p - r)
    else:
        r = numpy.clip(g, 0, n - 1)
    return numpy.where(inside, g, r)


def model_correlate(sig, w, out_shape, starts, out_dtype, conj=False, ext="fill",
                    fill=0):
    """NumPy model of the kernels' contract (accumulating in the same
    accumulator dtype, extension as ``ext_index``)."""
    sig = numpy.asarray(sig)
    w = numpy.asarray(w)
    acc = w.dtype
    x = numpy.conj(sig) if (conj and sig.dtype.kind == "c") else sig
    with numpy.errstate(all="ignore"):
        x = x.astype(acc)
        total = numpy.zeros(out_shape, acc)
        grids = numpy.indices(out_shape) if len(out_shape) else []
        for k in numpy.ndindex(*w.shape):
            idx, ok = [], numpy.ones(out_shape, bool)
            for d in range(sig.ndim):
                g = _ext_index(grids[d] + starts[d] + k[d], sig.shape[d], ext)
                ok &= g >= 0
                idx.append(numpy.where(g >= 0, g, 0))
            if sig.size:
                v = numpy.where(ok, x[tuple(idx)], acc.type(fill))
            else:
                v = numpy.full(out_shape, acc.type(fill))
            total += w[k] * v
        return total.astype(out_dtype)


def model_rows_tiled(x, w, Lout, s, acc, ext="fill", fill=0):
    """NumPy model of the ``rows`` kernel's blocking for one row: tiles of
    BLOCK*R outputs, weight chunks of KC, each thread's R consecutive
    outputs summed tap group by tap group with the sliding window (the
    order of the multiply-adds the kernel performs), the skewed tile."""
    acc = numpy.dtype(acc)
    R, BLOCK, KC = rows_params(acc)
    TO = BLOCK * R
    K, L = len(w), len(x)
    out = numpy.zeros(Lout, acc)
    x = numpy.asarray(x).astype(acc)
    w = numpy.asarray(w).astype(acc)
    for o0 in range(0, Lout, TO):
        accs = numpy.zeros((BLOCK, R), acc)          # [thread, r]
        for c0 in range(0, K, KC):
            kc = min(KC, K - c0)
            i = numpy.arange(TO + kc)
            g = _ext_index(o0 + s + c0 + i, L, ext)
            tile = numpy.zeros(_skew(TO + KC) + 1, acc)
            tile[_skew(i)] = numpy.where(g >= 0, x[numpy.where(g >= 0, g, 0)] if L else 0,
                                         acc.type(fill))
            base = numpy.arange(BLOCK)[:, None] * R + numpy.arange(R)[None, :]
            k0 = 0
            while k0 + R <= kc:
                for j in range(R):
                    accs += w[c0 + k0 + j] * tile[_skew(base + k0 + j)]
                k0 += R
            for k in range(k0, kc):
                accs += w[c0 + k] * tile[_skew(base + k)]
        flat = accs.reshape(-1)
        n = min(TO, Lout - o0)
        out[o0:o0 + n] = flat[:n]
    return out
