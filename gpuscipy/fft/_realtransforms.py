"""Discrete cosine and sine transforms (types 1-4) on cuFFT.

Each 1-D transform is: a pre-processing kernel, one batched cuFFT
transform, a post-processing kernel (device code in
``_realtransforms.cuh``). :func:`r2r_recipe` says which kernels and which
FFT a (type, DCT/DST, N) takes; :func:`r2r_factors` gives SciPy's
normalisation as (scale, first/last-sample factors). Both are pure
functions, so the CPU tests run the same recipe with NumPy kernels and
``numpy.fft`` and compare with ``scipy.fft``.

The inverse transforms use SciPy's identities: ``idct(type=2)`` is the
DCT-III with the opposite normalisation, ``idct(type=3)`` the DCT-II,
types 1 and 4 are their own inverses (up to normalisation).

n-D transforms apply the 1-D one along each axis in turn.
"""

import builtins
import functools
import operator
import os
from typing import NamedTuple

import numpy

from gpuscipy_core.kernel import read_source

from . import _helper as h
from . import _basic
from ._plan import execute, get_plan

__all__ = ["dct", "idct", "dst", "idst", "dctn", "idctn", "dstn", "idstn"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_SQRT2 = float(numpy.sqrt(2.0))


class Recipe(NamedTuple):
    """How one 1-D DCT/DST of length N runs.

    pre, post : kernel names in ``_realtransforms.cuh``
    kind : cuFFT transform ('R2C', 'C2R', 'C2C')
    n : FFT length
    work_in, work_out : per-row length of the FFT input/output buffers, in
        elements of their type (real for R2C input/C2R output, else complex)
    in_place : the FFT runs in place (work_out aliases work_in)
    """
    pre: str
    post: str
    kind: str
    n: int
    work_in: int
    work_out: int
    in_place: bool


def r2r_recipe(type, dst, N):
    """The :class:`Recipe` of the 1-D DCT (``dst`` False) or DST of ``type``.

    No recipe uses an FFT of length 1 (N = 2 takes the general paths).
    """
    if type == 1:
        if dst:
            L = 2 * (N + 1)
            return Recipe("dst1_pre", "dst1_post", "R2C", L, L, L // 2 + 1, False)
        L = 2 * (N - 1)
        return Recipe("dct1_pre", "dct1_post", "R2C", L, L, L // 2 + 1, False)
    if type == 2:
        if N % 2 == 0 and N >= 4:
            # N/2-point complex FFT of v read as pairs, split fused in post
            return Recipe("dct2_pre", "dct2_post_c2c", "C2C", N // 2, N // 2,
                          N // 2, True)
        return Recipe("dct2_pre", "dct2_post_r2c", "R2C", N, N, N // 2 + 1, False)
    if type == 3:
        return Recipe("dct3_pre", "dct3_post", "C2R", N, N // 2 + 1, N, False)
    if type == 4:
        if N % 2 == 0 and N >= 4:
            return Recipe("dct4e_pre", "dct4e_post", "C2C", N // 2, N // 2, N // 2,
                          True)
        return Recipe("dct4o_pre", "dct4o_post", "C2C", 2 * N, 2 * N, 2 * N, True)
    raise ValueError(f"invalid {'DST' if dst else 'DCT'} type")


def r2r_factors(type, dst, N, norm, orthogonalize):
    """SciPy's normalisation of the forward DCT/DST as ``(scale, e_pre,
    e_post)``: the output is ``scale`` times the unnormalised transform of
    the input whose first (DST-III: last; DCT-I: first and last) sample is
    multiplied by ``e_pre``, and whose first (DST-II: last; DCT-I: first and
    last) output is multiplied by ``e_post``.

    ``norm`` is 'backward', 'forward' or 'ortho'; ``orthogonalize`` a bool.
    """
    if type == 1:
        L = 2 * (N + 1) if dst else 2 * (N - 1)
    else:
        L = 2 * N
    scale = {"backward": 1.0, "forward": 1.0 / L,
             "ortho": 1.0 / float(numpy.sqrt(float(L)))}[norm]
    e_pre = e_post = 1.0
    if orthogonalize:
        if type == 1 and not dst:
            e_pre, e_post = _SQRT2, 1.0 / _SQRT2
        elif type == 2:
            e_post = 1.0 / _SQRT2
        elif type == 3:
            e_pre = _SQRT2
    return scale, e_pre, e_post


def single_point_factor(type, dst, norm, orthogonalize):
    """The 1-point transform as a factor: y[0] = factor * x[0]."""
    raw = {1: 2.0, 2: 2.0, 3: 1.0, 4: _SQRT2}[type]
    scale, e_pre, e_post = r2r_factors(type, dst, 1, norm, orthogonalize)
    return raw * scale * e_pre * e_post


# ---------------------------------------------------------------------------
# kernel source (pure)
# ---------------------------------------------------------------------------

KERNELS = ("dct2_pre", "dct2_post_r2c", "dct2_post_c2c", "dct3_pre", "dct3_post",
           "dct4e_pre", "dct4e_post", "dct4o_pre", "dct4o_post", "dct1_pre",
           "dct1_post", "dst1_pre", "dst1_post")


def _header():
    return read_source(os.path.join(_HERE, "_realtransforms.cuh"))


def kernel_name(op, dtype, dst, unit):
    """The ``extern "C"`` name of a kernel: op, dtype, DST, unit inner stride."""
    return (f"gsfft_{op}_{'f32' if numpy.dtype(dtype) == numpy.float32 else 'f64'}"
            f"{'_dst' if dst else ''}{'_u' if unit else ''}")


@functools.lru_cache(maxsize=256)
def kernel_source(op, dtype, dst, unit):
    """CUDA source of one kernel specialisation (pure; the header text is
    included so the kernel cache key sees it)."""
    if op not in KERNELS:
        raise ValueError(f"unknown kernel {op!r}")
    T = "float" if numpy.dtype(dtype) == numpy.float32 else "double"
    name = kernel_name(op, dtype, dst, unit)
    return (f"{_header()}\n"
            f'extern "C" __global__ void __launch_bounds__(256)\n'
            f"{name}(const {T}* src, {T}* dst, long long N, long long inner,\n"
            f"       long long B, {T} scale, {T} e_pre, {T} e_post) {{\n"
            f"  gs_fft_r2r::{op}<{T}, {'true' if dst else 'false'}, "
            f"{'true' if unit else 'false'}>(src, dst, N, inner, B, scale, e_pre, "
            f"e_post);\n}}\n")


def _items_per_row(op, N):
    """Work items per row of each kernel (its GSFFT_ITEMS bound)."""
    return {"dct2_pre": (N + 1) // 2, "dct2_post_r2c": N // 2 + 1,
            "dct2_post_c2c": N // 4 + 1, "dct3_pre": N // 2 + 1,
            "dct3_post": (N + 1) // 2, "dct4e_pre": N // 2, "dct4e_post": N // 2,
            "dct4o_pre": 2 * N, "dct4o_post": N, "dct1_pre": 2 * (N - 1),
            "dct1_post": N, "dst1_pre": 2 * (N + 1), "dst1_post": N}[op]


def launch_config(items, rows):
    """(grid, block) for ``items`` per row and ``rows`` rows."""
    block = 256
    while block > 32 and block // 2 >= items:
        block //= 2
    gx = max(1, min(-(-items // block), 1 << 20))
    gy = max(1, min(rows, 65535))
    # keep the total number of blocks reasonable for huge batches
    while gx * gy > (1 << 22) and gx > 1:
        gx = -(-gx // 2)
    return (gx, gy, 1), (block, 1, 1)


def _launch(op, dtype, dst, unit, src_ptr, dst_ptr, N, inner, B, factors):
    from gpuscipy_core.kernel import get_function
    f = get_function(kernel_source(op, dtype, dst, unit),
                     kernel_name(op, dtype, dst, unit))
    grid, block = launch_config(_items_per_row(op, N), B)
    sc = numpy.dtype(dtype).type
    f(grid, block, (src_ptr, dst_ptr, N, inner, B, sc(factors[0]), sc(factors[1]),
                    sc(factors[2])))


# ---------------------------------------------------------------------------
# execution
# ---------------------------------------------------------------------------

@functools.lru_cache(maxsize=128)
def _dct1_length1_error():
    """(exception type, message) of the installed SciPy for a type-1 DCT of
    length 1, which it cannot compute (its extended sequence has 2(N-1) = 0
    points). The message is SciPy's backend's: "zero-length FFT requested"
    from pocketfft (SciPy <= 1.17), a ducc0 assertion text ending in
    "no zero-sized FFTs" (SciPy 1.18). Asked once, on a 1-element host
    array; RuntimeError("zero-length FFT requested") if SciPy computes it."""
    try:
        import scipy.fft
        scipy.fft.dct(numpy.ones(1), type=1)
    except Exception as e:  # noqa: BLE001 - mirror whatever SciPy raises
        return type(e), str(e)
    return RuntimeError, "zero-length FFT requested"


# Above this many elements after the transformed axis, the axis is moved
# last by a transposed copy before the kernels run.
_INNER_MAX = 8

def r2r_axis(a, axis, type, dst, norm, orthogonalize):
    """1-D DCT/DST of C-contiguous ``a`` (float32/64 or complex64/128) along
    ``axis``; returns a new C-contiguous array of the same shape and dtype."""
    import gpuscipy_core as gp
    N = a.shape[axis]
    if a.size == 0:
        return gp.empty(a.shape, a.dtype)   # SciPy transforms nothing (no DCT-I error)
    if type == 1 and not dst and N == 1:
        exc_type, msg = _dct1_length1_error()
        raise exc_type(msg)
    if N == 1:
        # a 1-point transform is a multiplication (no FFT of length 1)
        return a * single_point_factor(type, dst, norm, orthogonalize)
    out = gp.empty(a.shape, a.dtype)
    rdt = h.real_of(a.dtype)
    outer = 1
    for v in a.shape[:axis]:
        outer *= v
    inner = 1
    for v in a.shape[axis + 1:]:
        inner *= v
    if inner > _INNER_MAX:
        # the kernels read and write along the transformed axis; with many
        # later axes that access is strided, so move the axis last through
        # the core's tiled transpose (coalesced both ways) and back
        t = a.reshape(outer, N, inner).transpose(0, 2, 1).copy()
        res = r2r_axis(t, 2, type, dst, norm, orthogonalize)
        del t
        out.reshape(outer, N, inner)[...] = res.transpose(0, 2, 1)
        return out
    if a.dtype.kind == "c":
        inner *= 2                       # real and imaginary parts as rows
    B = outer * inner
    r = r2r_recipe(type, dst, N)
    factors = r2r_factors(type, dst, N, norm, orthogonalize)
    cdt = h.complex_of(rdt)
    in_is_complex = r.kind != "R2C"
    out_is_complex = r.kind != "C2R"
    w_in = gp.empty(B * r.work_in, cdt if in_is_complex else rdt)
    unit = inner == 1
    _launch(r.pre, rdt, dst, unit, a.ptr, w_in.ptr, N, inner, B, factors)
    if _basic.rows_pair(r.kind, r.n, B):
        # odd real length: rows kept apart (see gpuscipy.fft._basic)
        w_out = _basic.exec_axis(w_in.reshape(B, r.work_in), 1, r.kind, r.n)
    else:
        w_out = w_in if r.in_place else \
            gp.empty(B * r.work_out, cdt if out_is_complex else rdt)
        plan = get_plan((r.n,), r.kind, rdt == numpy.float64, B)
        execute(plan, w_in.ptr, w_out.ptr, -1)
    del w_in
    _launch(r.post, rdt, dst, unit, w_out.ptr, out.ptr, N, inner, B, factors)
    return out


def _orthogonalize_default(norm, orthogonalize):
    return (norm == "ortho") if orthogonalize is None else bool(orthogonalize)


def _check_type(type, dst=False):
    """``type`` as an int in 1..4: TypeError for a non-integer (SciPy's
    type, e.g. for 2.0), ValueError for another integer or a bool."""
    name = "DST" if dst else "DCT"
    if not isinstance(type, bool):
        try:
            type = operator.index(type)
        except TypeError:
            raise TypeError(f"{name} type must be an integer, got "
                            f"{builtins.type(type).__name__}") from None
    if type not in (1, 2, 3, 4) or isinstance(type, bool):
        raise ValueError(f"invalid {name} type")
    return type


def resolve(forward, type, norm, orthogonalize, complex_input):
    """(type, norm, orthogonalize) of the forward transform that computes
    the requested one (pure): inverses swap types 2 and 3 and the norm;
    ``orthogonalize=None`` means ``norm == "ortho"``; SciPy transforms
    complex input part by part without passing ``orthogonalize`` on, so it
    takes the default there. ``type`` is not checked here."""
    norm = h.check_norm(norm)
    if not forward:
        norm = h.swap_norm(norm)
        type = {2: 3, 3: 2}.get(type, type)
    orth = _orthogonalize_default(norm, None if complex_input else orthogonalize)
    return type, norm, orth


def _r2r(forward, dst, x, type, n, axis, norm, workers, orthogonalize):
    x = h.as_device(x)
    dt = h.compute_dtype(x.dtype)
    t, norm, orth = resolve(forward, type, norm, orthogonalize, dt.kind == "c")
    h.check_workers(workers)
    if x.ndim == 0:
        raise IndexError("tuple index out of range")
    axis = h.check_axis(axis, x.ndim)
    n = h.check_n(n, x.shape[axis])
    a, _ = h.fix_shape(x, (n,), (axis,), dt)
    return r2r_axis(a, axis, _check_type(t, dst), dst, norm, orth)


def _r2rn(forward, dst, x, type, s, axes, norm, workers, orthogonalize):
    x = h.as_device(x)
    dt = h.compute_dtype(x.dtype)
    s, axes = h.init_nd_shape_and_axes(x.shape, s, axes)
    if len(axes) == 0:
        return x
    a, _ = h.fix_shape(x, s, axes, dt)
    t, norm, orth = resolve(forward, type, norm, orthogonalize, dt.kind == "c")
    h.check_workers(workers)
    t = _check_type(t, dst)
    for ax in axes:
        a = r2r_axis(a, ax, t, dst, norm, orth)
    return a


_DOC = """
    Parameters
    ----------
    x : gpuscipy_core.ndarray
        The input array (bool/integers compute in float64, float16 in
        float32; complex input is transformed part by part).
    type : {{1, 2, 3, 4}}, optional
        Type of the {name} (see Notes). Default type is 2.
    {n_param}
    norm : {{"backward", "ortho", "forward"}}, optional
        Normalization mode (see Notes). Default is "backward".
    overwrite_x : bool, optional
        Accepted; the input is never modified.
    workers : int, optional
        Accepted and checked like SciPy's; ignored on the GPU.
    orthogonalize : bool, optional
        Whether to use the orthogonalized {name} variant. Defaults to
        ``True`` when ``norm="ortho"`` and ``False`` otherwise.

    Returns
    -------
    y : gpuscipy_core.ndarray
        The transformed array: same shape as ``x`` except along the
        transformed axes, float32/64 or complex64/128 (C-contiguous).

    Raises
    ------
    ValueError
        A bad ``type``, ``norm`` or length (< 1).
    RuntimeError
        A type-1 DCT of length 1: the installed SciPy's exception and
        message ("zero-length FFT requested" up to SciPy 1.17, "... no
        zero-sized FFTs" from 1.18).
    TypeError
        ``x`` is not a device array.

    Notes
    -----
    Same definitions and normalisations as :func:`scipy.fft.{name}`.
    Each 1-D transform is one batched cuFFT transform of length N (type 2:
    N/2 complex points for even N, Makhoul's reordering; type 3: N real
    points; type 4: N/2 complex points for even N, 2N for odd N; type 1:
    the symmetric extension of length 2(N-1) or 2(N+1)) between two fused
    pre/post-processing kernels.

    References
    ----------
    .. [1] J. Makhoul, "A fast cosine transform in one and two dimensions",
       IEEE Trans. Acoust., Speech, Signal Process. 28(1), 27-34, 1980.
    .. [2] Z. Wang, "Fast algorithms for the discrete W transform and for
       the discrete Fourier transform", IEEE TASSP 32(4), 803-816, 1984.
"""

_N_1D = """n : int, optional
        Length of the transform; the input is cut or zero-padded.
    axis : int, optional
        Axis along which the transform is computed; the default is the last."""
_S_ND = """s : int or array_like of ints, optional
        The shape of the result along ``axes``; the input is cut or
        zero-padded.
    axes : int or array_like of ints, optional
        Axes over which to compute the transform. Default: all axes (the
        last ``len(s)`` when ``s`` is given)."""


def dct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
        orthogonalize=None):
    """Return the Discrete Cosine Transform of arbitrary type sequence x."""
    return _r2r(True, False, x, type, n, axis, norm, workers, orthogonalize)


def idct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """Return the Inverse Discrete Cosine Transform of an arbitrary type sequence."""
    return _r2r(False, False, x, type, n, axis, norm, workers, orthogonalize)


def dst(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
        orthogonalize=None):
    """Return the Discrete Sine Transform of arbitrary type sequence x."""
    return _r2r(True, True, x, type, n, axis, norm, workers, orthogonalize)


def idst(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """Return the Inverse Discrete Sine Transform of an arbitrary type sequence."""
    return _r2r(False, True, x, type, n, axis, norm, workers, orthogonalize)


def dctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
         *, orthogonalize=None):
    """Return multidimensional Discrete Cosine Transform along the specified axes."""
    return _r2rn(True, False, x, type, s, axes, norm, workers, orthogonalize)


def idctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
          orthogonalize=None):
    """Return multidimensional Inverse Discrete Cosine Transform along the
    specified axes."""
    return _r2rn(False, False, x, type, s, axes, norm, workers, orthogonalize)


def dstn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """Return multidimensional Discrete Sine Transform along the specified axes."""
    return _r2rn(True, True, x, type, s, axes, norm, workers, orthogonalize)


def idstn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
          orthogonalize=None):
    """Return multidimensional Inverse Discrete Sine Transform along the
    specified axes."""
    return _r2rn(False, True, x, type, s, axes, norm, workers, orthogonalize)


for _f, _name, _p in ((dct, "dct", _N_1D), (idct, "idct", _N_1D),
                      (dst, "dst", _N_1D), (idst, "idst", _N_1D),
                      (dctn, "dctn", _S_ND), (idctn, "idctn", _S_ND),
                      (dstn, "dstn", _S_ND), (idstn, "idstn", _S_ND)):
    _f.__doc__ += _DOC.format(name=_name, n_param=_p)
del _f, _name, _p
