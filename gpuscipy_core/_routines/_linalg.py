"""Products on cuBLAS: matmul, dot, vdot, inner, outer, tensordot, einsum, kron.

One engine, :func:`_run`, computes ``c[...] = a[...] @ b[...]`` for stacks
of matrices (batch dimensions broadcast):

* float32/float64/complex64/complex128 call cuBLAS (``cublas<t>gemm_v2``,
  or ``cublas<t>gemmStridedBatched`` when the batch has one uniform stride
  per operand); float16 calls ``cublasGemmEx``/``cublasGemmStridedBatchedEx``
  with float32 accumulation (what NumPy does for float16 too). Row-major
  data is read as its column-major transpose, so a matrix needs no copy when
  either of its two last strides is the element size (the other becomes the
  leading dimension); other layouts are copied once. C is written directly
  when it is row- or column-major, through a temporary otherwise.
* bool and the integer types run a tiled kernel of our own (16x16 tiles in
  shared memory) that takes any strides; products and sums are done modulo
  2**64 and truncated, which is NumPy's wraparound; bool is OR of ANDs.
* A batch whose strides are not uniform (e.g. broadcast against a
  non-broadcast one) is split over its first dimension until they are.

cuBLAS keeps pointer mode HOST and the default math mode (no TF32), so
float32 results match a float32 BLAS.

References
----------
NVIDIA, *cuBLAS Library User Guide*, sections ``cublas<t>gemm``,
``cublas<t>gemmStridedBatched`` and ``cublasGemmEx``.
"""

import operator
from math import prod as _prod

import numpy

from .._ndarray import ndarray, normalize_dtype, _strided_view
from ._creation import asarray as _asarray

__all__ = ["matmul", "dot", "vdot", "inner", "outer", "tensordot", "einsum", "kron"]

_SIGNATURE = "(n?,k),(k,m?)->(n?,m?)"
_TILE = 16
_MAX_GRID_YZ = 65535
_INT32_MAX = 2**31 - 1


# ---------------------------------------------------------------- helpers

def _empty(shape, dtype):
    from ._creation import empty
    return empty(shape, dtype)


def _fill(x, value):
    from .._elementwise import fill
    fill(x, value)


def _multiply(a, b, out=None):
    from ._ufuncs import multiply
    if out is None:
        return multiply(a, b)
    return multiply(a, b, out=out)


def _fmt(shape):
    return "(" + ",".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"



def _with_shape(x, shape, strides):
    """A view of ``x``'s data with the given shape and byte strides."""
    return _strided_view(x, tuple(shape), tuple(strides), x.ptr)


def _extent(x):
    """Byte range [lo, hi) that ``x`` touches (None when empty)."""
    if x.size == 0:
        return None
    lo = hi = x.ptr
    for s, st in zip(x.shape, x.strides):
        if st < 0:
            lo += st * (s - 1)
        else:
            hi += st * (s - 1)
    return lo, hi + x.itemsize


def _overlaps(x, y):
    """Whether ``x`` and ``y`` may share memory (conservative: byte ranges)."""
    ex, ey = _extent(x), _extent(y)
    if ex is None or ey is None:
        return False
    return ex[0] < ey[1] and ey[0] < ex[1]


def _cast(x, dt):
    return x if x.dtype == dt else x.astype(dt)


# ---------------------------------------------------------------- layouts

def _matrix_layout(x):
    """How cuBLAS can read the last two axes of ``x``; see :func:`layout_of`."""
    return layout_of(x.shape[-2], x.shape[-1], x.strides[-2], x.strides[-1], x.itemsize)


def layout_of(rows, cols, sr, sc, itemsize):
    """How cuBLAS can read a ``rows x cols`` matrix with byte strides ``(sr, sc)``.

    Returns ``("R", ld)`` when the matrix is row-major with leading dimension
    ``ld`` elements (cuBLAS sees its transpose, column-major), ``("C", ld)``
    when it is column-major, ``None`` when neither stride is the element
    size (or a stride is negative, zero where it matters, or not a multiple
    of the element size). A pure function.
    """
    if sr % itemsize or sc % itemsize:
        return None
    sr //= itemsize
    sc //= itemsize
    if (cols == 1 or sc == 1) and (rows == 1 or sr >= max(cols, 1)):
        ld = sr if rows > 1 else max(cols, 1)
        if ld <= _INT32_MAX:
            return "R", ld
    if (rows == 1 or sr == 1) and (cols == 1 or sc >= max(rows, 1)):
        ld = sc if cols > 1 else max(rows, 1)
        if ld <= _INT32_MAX:
            return "C", ld
    return None


def gemm_plan(m, n, k, la, lb, lc):
    """cuBLAS (column-major) arguments for ``C = A @ B`` (row-major view).

    ``la``, ``lb``, ``lc``: :func:`layout_of` of A (m x k), B (k x n) and
    C (m x n). Returns ``(swap, opx, opy, mm, nn, kk, ldx, ldy, ldc)`` with
    ``op`` in ``"N"``/``"T"``: cuBLAS computes ``C' = op(X) op(Y)`` with X = B
    and Y = A when ``swap`` (C row-major: C^T = B^T A^T), X = A and Y = B
    otherwise. A pure function.
    """
    if lc[0] == "C":
        return (False, "T" if la[0] == "R" else "N", "T" if lb[0] == "R" else "N",
                m, n, k, la[1], lb[1], lc[1])
    return (True, "N" if lb[0] == "R" else "T", "N" if la[0] == "R" else "T",
            n, m, k, lb[1], la[1], lc[1])


def _uniform_stride(shape, strides):
    """The byte stride ``s`` with offset(flat C index i) == i * s over
    ``shape``, or None. Axes of length 1 don't count; ``s`` may be 0
    (broadcast), never negative."""
    s = None
    span = 1
    for d in range(len(shape) - 1, -1, -1):
        if shape[d] == 1:
            continue
        if s is None:
            s = strides[d]
            span = shape[d]
            continue
        if strides[d] != s * span:
            return None
        span *= shape[d]
    if s is None:
        return 0
    return s if s >= 0 else None


# ---------------------------------------------------------------- integer kernel

_INT_CTYPES = {
    "?": "bool", "b": "signed char", "B": "unsigned char", "h": "short",
    "H": "unsigned short", "i": "int", "I": "unsigned int", "l": "long long",
    "L": "unsigned long long", "q": "long long", "Q": "unsigned long long",
}


def int_matmul_source(dtype):
    """CUDA source and kernel name of the integer/bool matmul for ``dtype``.

    A pure function (no device access). The kernel computes, for every batch
    index ``z < batch``, ``C[z] = A[z] @ B[z]`` with element strides given
    per operand (batch, row, column; any sign), 16x16 tiles staged in shared
    memory (``gpuscipy/int_matmul.cuh``). Elements are widened to ``unsigned
    long long`` (sign-extended), multiplied and summed modulo 2**64 and
    truncated to ``T`` on store: the low bits are exactly NumPy's wrapped
    result. For bool the truncation is ``acc != 0``: OR of ANDs, as NumPy.

    Returns
    -------
    (str, str)
        ``(source, name)``.
    """
    dt = numpy.dtype(dtype)
    ct = _INT_CTYPES.get(dt.char)
    if ct is None:
        raise TypeError(f"no integer matmul kernel for dtype {dt}")
    name = f"gs_matmul_{dt.name}"
    source = (f"#include <gpuscipy/int_matmul.cuh>\n"
              f'extern "C" __global__ void __launch_bounds__({_TILE * _TILE})\n'
              f"{name}(const {ct}* __restrict__ A, const {ct}* __restrict__ B,\n"
              f"    {ct}* __restrict__ C, long long m, long long n, long long k,\n"
              f"    long long batch, long long sab, long long sar, long long sac,\n"
              f"    long long sbb, long long sbr, long long sbc,\n"
              f"    long long scb, long long scr, long long scc) {{\n"
              f"  gs::int_matmul<{ct}, {_TILE}>(A, B, C, m, n, k, batch, sab, sar, sac,\n"
              f"                                sbb, sbr, sbc, scb, scr, scc);\n}}\n")
    return source, name


def _int_gemm(a, b, c, batch, strides):
    from .._kernel._module import get_function
    source, name = int_matmul_source(c.dtype)
    f = get_function(source, name)
    m, n = c.shape[-2], c.shape[-1]
    k = a.shape[-1]
    it = c.itemsize
    el = [s // it for s in strides]
    grid = (min(-(-n // _TILE), _INT32_MAX), min(-(-m // _TILE), _MAX_GRID_YZ),
            min(batch, _MAX_GRID_YZ))
    args = (a, b, c, m, n, k, batch,
            el[0], a.strides[-2] // it, a.strides[-1] // it,
            el[1], b.strides[-2] // it, b.strides[-1] // it,
            el[2], c.strides[-2] // it, c.strides[-1] // it)
    f(grid, (_TILE, _TILE, 1), args)


# ---------------------------------------------------------------- cuBLAS

_GEMM = {"f": ("cublasSgemm_v2", "cublasSgemmStridedBatched"),
         "d": ("cublasDgemm_v2", "cublasDgemmStridedBatched"),
         "F": ("cublasCgemm_v2", "cublasCgemmStridedBatched"),
         "D": ("cublasZgemm_v2", "cublasZgemmStridedBatched")}
_SCALARS = {}


def _alpha_beta(dt):
    """Host scalars 1 and 0 in the scale type of ``dt`` (kept alive here)."""
    pair = _SCALARS.get(dt.char)
    if pair is None:
        st = numpy.float32 if dt.char == "e" else dt
        pair = _SCALARS[dt.char] = (numpy.ones(1, st), numpy.zeros(1, st))
    return pair


def _blas_gemm(a, b, c, batch, strides, la, lb, lc):
    from ..libs import cublas, get_handle, CUDA_R_16F
    m, n = c.shape[-2], c.shape[-1]
    k = a.shape[-1]
    if max(m, n, k, batch) > _INT32_MAX:
        raise ValueError(f"matmul: dimensions ({m}, {n}, {k}, batch {batch}) exceed "
                         "the 32-bit limits of cuBLAS")
    it = c.itemsize
    sa, sb, sc = (s // it for s in strides)
    swap, opx, opy, mm, nn, kk, ldx, ldy, ldc = gemm_plan(m, n, k, la, lb, lc)
    opx = cublas.CUBLAS_OP_N if opx == "N" else cublas.CUBLAS_OP_T
    opy = cublas.CUBLAS_OP_N if opy == "N" else cublas.CUBLAS_OP_T
    px, sx, py, sy = (b.ptr, sb, a.ptr, sa) if swap else (a.ptr, sa, b.ptr, sb)
    pc, scs = c.ptr, sc
    one, zero = _alpha_beta(c.dtype)
    h = get_handle("cublas")
    if c.dtype.char == "e":
        ct32 = cublas.CUBLAS_COMPUTE_32F
        algo = cublas.CUBLAS_GEMM_DEFAULT
        if batch == 1:
            cublas.cublasGemmEx(h, opx, opy, mm, nn, kk, one.ctypes.data,
                                px, CUDA_R_16F, ldx, py, CUDA_R_16F, ldy,
                                zero.ctypes.data, pc, CUDA_R_16F, ldc, ct32, algo)
        else:
            cublas.cublasGemmStridedBatchedEx(
                h, opx, opy, mm, nn, kk, one.ctypes.data, px, CUDA_R_16F, ldx, sx,
                py, CUDA_R_16F, ldy, sy, zero.ctypes.data, pc, CUDA_R_16F, ldc, scs,
                batch, ct32, algo)
        return
    single, strided = _GEMM[c.dtype.char]
    if batch == 1:
        getattr(cublas, single)(h, opx, opy, mm, nn, kk, one.ctypes.data, px, ldx,
                                py, ldy, zero.ctypes.data, pc, ldc)
    else:
        getattr(cublas, strided)(h, opx, opy, mm, nn, kk, one.ctypes.data, px, ldx,
                                 sx, py, ldy, sy, zero.ctypes.data, pc, ldc, scs, batch)


# ---------------------------------------------------------------- the engine

def _broadcast_batch(x, batch):
    """``x`` (..., r, c) viewed with batch shape ``batch`` (zero strides)."""
    nb = x.ndim - 2
    off = len(batch) - nb
    strides = [0] * len(batch)
    for d in range(nb):
        if x.shape[d] == batch[off + d]:
            strides[off + d] = x.strides[d]
    return _with_shape(x, tuple(batch) + x.shape[-2:], tuple(strides) + x.strides[-2:])


def _run(a, b, c):
    """``c[...] = a @ b``: a (..., m, k), b (..., k, n), c (batch..., m, n).

    All three have ``c``'s dtype; ``a``'s and ``b``'s batch shapes broadcast
    to ``c``'s; ``c`` does not overlap ``a`` or ``b``.
    """
    if c.size == 0:
        return
    if a.shape[-1] == 0:
        _fill(c, 0)
        return
    batch = c.shape[:-2]
    if c.dtype.kind in "fc":
        if _matrix_layout(a) is None:
            a = a.copy()
        if _matrix_layout(b) is None:
            b = b.copy()
        if _matrix_layout(c) is None:
            tmp = _empty(c.shape, c.dtype)
            _run(a, b, tmp)
            c[...] = tmp
            return
    _batched(_broadcast_batch(a, batch), _broadcast_batch(b, batch), c)


def _batched(a, b, c):
    batch = c.shape[:-2]
    strides = [_uniform_stride(batch, x.strides[:-2]) for x in (a, b, c)]
    count = _prod(batch)
    if None in strides or count > _INT32_MAX:
        for i in range(batch[0]):
            _batched(a[i], b[i], c[i])
        return
    if c.dtype.kind in "fc":
        _blas_gemm(a, b, c, count, strides, _matrix_layout(a), _matrix_layout(b),
                   _matrix_layout(c))
    else:
        _int_gemm(a, b, c, count, strides)


def _insert_axis(x, pos):
    shape = list(x.shape)
    strides = list(x.strides)
    shape.insert(pos, 1)
    strides.insert(pos, x.itemsize)
    return _with_shape(x, shape, strides)


def _finish(c, out):
    if out is None or c is out:
        return c
    out[...] = c
    return out


# ---------------------------------------------------------------- public API

def _broadcast_error(a, b, n_core_a, n_core_b, requested):
    def remap(x, ncore):
        return (_fmt(x.shape) + "->" + _fmt(x.shape[:x.ndim - ncore]).rstrip(")")
                .rstrip(",") + ("," if x.ndim > ncore else "")
                + ",".join(["newaxis"] * ncore) + ")")
    return ValueError("operands could not be broadcast together with remapped shapes "
                      f"[original->remapped]: {remap(a, n_core_a)} {remap(b, n_core_b)}"
                      f"  and requested shape {_fmt(requested)}")


def matmul(x1, x2, /, out=None, *, casting="same_kind", order="K", dtype=None,
           subok=True):
    """Matrix product of two arrays (``numpy.matmul``).

    Parameters
    ----------
    x1, x2 : array_like
        Shapes ``(..., n, k)`` and ``(..., k, m)``; batch dimensions
        broadcast. A 1-D ``x1`` is a row vector and a 1-D ``x2`` a column
        vector, the added dimension being removed from the result.
    out : ndarray, optional
        Destination of the result's shape; cast to with ``casting``.
    casting : {'no', 'equiv', 'safe', 'same_kind', 'unsafe'}
        Rule for casting the inputs to ``dtype`` and the result to ``out``.
    order, subok
        Accepted for NumPy compatibility (the result is C-ordered).
    dtype : data-type, optional
        Type the product is computed in (default:
        ``numpy.result_type(x1, x2)``).

    Returns
    -------
    ndarray
        Shape ``broadcast(batch) + (n, m)`` (without the removed vector
        dimensions); 0-d for two 1-D inputs.

    Raises
    ------
    ValueError
        A 0-d input, mismatched core dimensions, batch dimensions that do not
        broadcast, an ``out`` of the wrong shape (NumPy's messages).
    TypeError
        A cast that ``casting`` forbids.

    Notes
    -----
    float16/32/64 and complex64/128 run on cuBLAS (float16 accumulates in
    float32, TF32 is never used); bool and integers on an exact kernel with
    NumPy's wraparound. See the module docstring for layouts.
    """
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError("The 'out' tuple must have exactly one entry")
        out = out[0]
    a, b = _asarray(x1), _asarray(x2)
    for i, x in enumerate((a, b)):
        if x.ndim == 0:
            raise ValueError(f"matmul: Input operand {i} does not have enough dimensions "
                             f"(has 0, gufunc core with signature {_SIGNATURE} requires 1)")
    a2 = _insert_axis(a, 0) if a.ndim == 1 else a
    b2 = _insert_axis(b, 1) if b.ndim == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0, "
                         f"with gufunc signature {_SIGNATURE} (size {b2.shape[-2]} is "
                         f"different from {a2.shape[-1]})")
    m, n = a2.shape[-2], b2.shape[-1]
    try:
        from .._elementwise import broadcast_shapes
        batch = broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    except ValueError:
        raise _broadcast_error(a, b, min(a.ndim, 2), min(b.ndim, 2),
                               (m,) * (a.ndim > 1) + (n,) * (b.ndim > 1)) from None
    if dtype is None:
        dt = normalize_dtype(numpy.result_type(a.dtype, b.dtype))
    else:
        dt = normalize_dtype(dtype)
    for i, x in enumerate((a, b)):
        if not numpy.can_cast(x.dtype, dt, casting):
            raise TypeError(f"Cannot cast ufunc 'matmul' input {i} from {x.dtype!r} to "
                            f"{dt!r} with casting rule {casting!r}")
    shape = batch + (m,) * (a.ndim > 1) + (n,) * (b.ndim > 1)
    if out is not None:
        if not isinstance(out, ndarray):
            raise TypeError("return arrays must be of ArrayType")
        _check_out_shape(out, shape, a.ndim > 1, b.ndim > 1, m, n)
        if not numpy.can_cast(dt, out.dtype, casting):
            raise TypeError(f"Cannot cast ufunc 'matmul' output from {dt!r} to "
                            f"{out.dtype!r} with casting rule {casting!r}")
    a2, b2 = _cast(a2, dt), _cast(b2, dt)
    if out is not None and out.dtype == dt and not _overlaps(out, a2) \
            and not _overlaps(out, b2):
        c = out
    else:
        c = _empty(shape, dt)
    c2 = c
    if a.ndim == 1:
        c2 = _insert_axis(c2, c2.ndim - (b.ndim > 1))
    if b.ndim == 1:
        c2 = _insert_axis(c2, c2.ndim)
    _run(a2, b2, c2)
    return _finish(c, out)


def _check_out_shape(out, shape, has_m, has_n, m, n):
    if out.shape == shape:
        return
    ncore = int(has_m) + int(has_n)
    if out.ndim >= ncore:
        core = out.shape[out.ndim - ncore:]
        want = (m,) * has_m + (n,) * has_n
        for d, (g, w) in enumerate(zip(core, want)):
            if g != w:
                raise ValueError(f"matmul: Output operand 0 has a mismatch in its core "
                                 f"dimension {d}, with gufunc signature {_SIGNATURE} "
                                 f"(size {g} is different from {w})")
    else:
        raise ValueError(f"matmul: Output operand 0 does not have enough dimensions (has "
                         f"{out.ndim}, gufunc core with signature {_SIGNATURE} requires "
                         f"{ncore})")
    raise ValueError(f"non-broadcastable output operand with shape {_fmt(out.shape)} "
                     f"doesn't match the broadcast shape {_fmt(shape)}")


def _matmul_operator(self, other, reflected):
    """``self @ other`` (``other @ self`` when ``reflected``); NotImplemented
    for operands that are not arrays or numbers, so Python raises TypeError."""
    if not isinstance(other, ndarray):
        if isinstance(other, (numpy.ndarray, numpy.generic, int, float, complex)) \
                or hasattr(other, "__cuda_array_interface__"):
            if isinstance(other, (numpy.ndarray, numpy.generic)) \
                    and other.dtype.kind not in "biufc":
                return NotImplemented
        elif isinstance(other, (list, tuple)):
            try:
                host = numpy.asarray(other)
            except (ValueError, TypeError):
                return NotImplemented
            if host.dtype.kind not in "biufc":
                return NotImplemented
            other = host
        else:
            return NotImplemented
    if reflected:
        return matmul(other, self)
    return matmul(self, other)


def _not_aligned(a_shape, b_shape, ka, da, kb, db):
    return ValueError(f"shapes {_fmt(a_shape)} and {_fmt(b_shape)} not aligned: "
                      f"{ka} (dim {da}) != {kb} (dim {db})")


def dot(a, b, out=None):
    """Dot product of two arrays (``numpy.dot``).

    Parameters
    ----------
    a, b : array_like
        0-d: elementwise multiply. 1-D x 1-D: inner product (0-d result).
        N-D x 1-D: sum over the last axis of ``a``. N-D x M-D (M >= 2): sum
        over the last axis of ``a`` and the second-to-last of ``b``, result
        ``a.shape[:-1] + b.shape[:-2] + b.shape[-1:]``.
    out : ndarray, optional
        Must have exactly the result's shape and dtype and be C-contiguous.

    Returns
    -------
    ndarray
        dtype ``numpy.result_type(a, b)``.

    Raises
    ------
    ValueError
        ``shapes (..) and (..) not aligned: ...``; an unacceptable ``out``.
    """
    a, b = _asarray(a), _asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return _multiply(a, b, out)
    dt = normalize_dtype(numpy.result_type(a.dtype, b.dtype))
    k = a.shape[-1]
    kb_dim = 0 if b.ndim == 1 else b.ndim - 2
    if b.shape[kb_dim] != k:
        raise _not_aligned(a.shape, b.shape, k, a.ndim - 1, b.shape[kb_dim], kb_dim)
    shape = a.shape[:-1] + b.shape[:-2] + b.shape[-1:] if b.ndim > 1 else a.shape[:-1]
    if out is not None:
        if not isinstance(out, ndarray) or out.dtype != dt or out.shape != shape \
                or not out.flags.c_contiguous:
            raise ValueError("output array is not acceptable (must have the right "
                             "datatype, number of dimensions, and be a C-Array)")
    if b.ndim <= 2 or a.ndim == 1:
        # matmul's rules give the same result here
        return matmul(a, b, out=out)
    a, b = _cast(a, dt), _cast(b, dt)
    c = out if out is not None and not _overlaps(out, a) and not _overlaps(out, b) \
        else _empty(shape, dt)
    rows = _prod(a.shape[:-1])
    nb = _prod(b.shape[:-2])
    n = b.shape[-1]
    a2 = a.reshape(rows, k)
    b3 = b.reshape(nb, k, n)
    # c (rows, nb, n) viewed as nb matrices (rows, n) with leading dim nb*n
    it = dt.itemsize
    c3 = _with_shape(c, (nb, rows, n), (n * it, nb * n * it, it))
    _run(a2, b3, c3)
    return _finish(c, out)


def vdot(a, b, /):
    """Dot product of two flattened arrays, conjugating the first
    (``numpy.vdot``).

    Parameters
    ----------
    a, b : array_like
        Any shapes with the same number of elements.

    Returns
    -------
    ndarray
        0-d, dtype ``numpy.result_type(a, b)``.

    Raises
    ------
    ValueError
        When the sizes differ.
    """
    a, b = _asarray(a), _asarray(b)
    if a.size != b.size:
        raise ValueError(f"cannot reshape array of size {b.size} into shape ({a.size},)")
    a = a.ravel()
    b = b.ravel()
    if a.dtype.kind == "c":
        from ._math import conj
        a = conj(a)
    return matmul(a, b)


def inner(a, b, /):
    """Inner product over the last axes (``numpy.inner``).

    Result shape ``a.shape[:-1] + b.shape[:-1]``; 0-d operands multiply.

    Raises
    ------
    ValueError
        When the last dimensions differ (``shapes ... not aligned``).
    """
    a, b = _asarray(a), _asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return _multiply(a, b)
    if a.shape[-1] != b.shape[-1]:
        moved = b.shape[:-2] + (b.shape[-1],) + b.shape[-2:-1] if b.ndim > 1 else b.shape
        raise _not_aligned(a.shape, moved, a.shape[-1], a.ndim - 1, b.shape[-1],
                           max(b.ndim - 2, 0))
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1]))


def outer(a, b, out=None):
    """Outer product of two flattened arrays (``numpy.outer``): shape
    ``(a.size, b.size)``, through an elementwise multiply."""
    a, b = _asarray(a), _asarray(b)
    a = a.ravel().reshape(-1, 1)
    b = b.ravel().reshape(1, -1)
    return _multiply(a, b, out)


def tensordot(a, b, axes=2):
    """Sum of products over the given axes (``numpy.tensordot``).

    Parameters
    ----------
    a, b : array_like
    axes : int or (sequence of int, sequence of int)
        An int N sums over the last N axes of ``a`` and the first N of ``b``.

    Returns
    -------
    ndarray
        Free axes of ``a`` then free axes of ``b``; computed as one GEMM after
        transposing (a copy only when a reshape cannot be a view).

    Raises
    ------
    ValueError
        ``shape-mismatch for sum`` when the summed dimensions differ.
    """
    try:
        iter(axes)
    except TypeError:
        n = operator.index(axes)
        axes_a = list(range(-n, 0))
        axes_b = list(range(0, n))
    else:
        axes_a, axes_b = axes
    try:
        na = len(axes_a)
        axes_a = list(axes_a)
    except TypeError:
        axes_a = [axes_a]
        na = 1
    try:
        nb = len(axes_b)
        axes_b = list(axes_b)
    except TypeError:
        axes_b = [axes_b]
        nb = 1
    a, b = _asarray(a), _asarray(b)
    equal = na == nb
    if equal:
        for i in range(na):
            if axes_a[i] < 0:
                axes_a[i] += a.ndim
            if axes_b[i] < 0:
                axes_b[i] += b.ndim
            if not (0 <= axes_a[i] < a.ndim and 0 <= axes_b[i] < b.ndim) \
                    or a.shape[axes_a[i]] != b.shape[axes_b[i]]:
                equal = False
                break
    if not equal:
        raise ValueError("shape-mismatch for sum")
    free_a = [d for d in range(a.ndim) if d not in axes_a]
    free_b = [d for d in range(b.ndim) if d not in axes_b]
    k = _prod(a.shape[d] for d in axes_a)
    m = _prod(a.shape[d] for d in free_a)
    n = _prod(b.shape[d] for d in free_b)
    at = a.transpose(free_a + axes_a).reshape(m, k)
    bt = b.transpose(axes_b + free_b).reshape(k, n)
    r = matmul(at, bt)
    return r.reshape(tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b))


def kron(a, b):
    """Kronecker product (``numpy.kron``), through a broadcast multiply.

    The operand with fewer dimensions gets leading 1s; the result has shape
    ``a.shape[i] * b.shape[i]`` per axis.
    """
    a, b = _asarray(a), _asarray(b)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    ia, ib = [], []
    for x, y in zip(sa, sb):
        ia += [x, 1]
        ib += [1, y]
    r = _multiply(a.reshape(tuple(ia)), b.reshape(tuple(ib)))
    return r.reshape(tuple(x * y for x, y in zip(sa, sb)))


# ---------------------------------------------------------------- einsum


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ELLIPSIS_BASE = 0x100   # ellipsis dimensions get labels chr(0x100 + j)


from ._einsum import einsum  # noqa: E402  (after the helpers it uses)
