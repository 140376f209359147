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
from ._docs import fill_doc
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


_CUH = os.path.join(_HERE, "_realtransforms.cuh")


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
    return (f"{read_source(_CUH)}\n"
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


@fill_doc
def dct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
        orthogonalize=None):
    """Return the discrete cosine transform of type 1, 2, 3 or 4 of ``x``.

    The DCT of ``x`` along one axis, for every index of the other axes, on
    the GPU; the same definitions and normalisations as SciPy.

    Parameters
    ----------
    {x_any}
        Complex input is transformed part by part (real and imaginary).
    {type_r2r}
    {n_in}
    {axis}
    {norm_r2r}
    {overwrite_x}
    {workers}
    {orthogonalize}

    Returns
    -------
    y : gpuscipy_core.ndarray
        The transform: a new C-contiguous array on the current device,
        shaped like ``x`` with ``n`` points along ``axis``.
        {dtype_r2r}

    Raises
    ------
    ValueError
        {raises_value_n}
        {raises_value_norm_workers}
        {raises_value_type}
    IndexError
        {raises_index_axis}
    TypeError
        {raises_type_x}
        {raises_type_ints_1d}
        {raises_type_type}
    RuntimeError
        {raises_runtime_dct1}

    See Also
    --------
    idct : The inverse transform.
    dctn : The transform over several axes.
    dst : The discrete sine transform.
    scipy.fft.dct : The CPU function this mirrors.

    Notes
    -----
    {notes_dct_types}

    {notes_r2r_method}

    References
    ----------
    {references_r2r}

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.fft
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> x = np.array([1.0, 2.0, 1.0, -1.0, 0.5])
    >>> y = fft.dct(gp.asarray(x))  # doctest: +SKIP
    >>> y.dtype, np.allclose(gp.asnumpy(y), scipy.fft.dct(x))  # doctest: +SKIP
    (dtype('float64'), True)

    With ``norm="ortho"`` the transform is orthogonal, so it keeps the sum
    of squares:

    >>> yo = gp.asnumpy(fft.dct(gp.asarray(x), norm="ortho"))  # doctest: +SKIP
    >>> bool(np.isclose(np.sum(yo**2), np.sum(x**2)))  # doctest: +SKIP
    True
    """
    return _r2r(True, False, x, type, n, axis, norm, workers, orthogonalize)


@fill_doc
def idct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """Return the inverse discrete cosine transform of type 1, 2, 3 or 4.

    The inverse of :func:`dct` of the same type and ``norm``:
    ``idct(dct(x, t), t) == x`` up to rounding. The inverse of type 2 is a
    type-3 transform and the inverse of type 3 a type-2 one, each with the
    opposite normalisation; types 1 and 4 are their own inverses up to
    scaling.

    Parameters
    ----------
    {x_any}
        Complex input is transformed part by part (real and imaginary).
    {type_r2r}
    {n_in}
    {axis}
    {norm_r2r}
    {overwrite_x}
    {workers}
    {orthogonalize}

    Returns
    -------
    y : gpuscipy_core.ndarray
        The inverse transform: a new C-contiguous array on the current
        device, shaped like ``x`` with ``n`` points along ``axis``.
        {dtype_r2r}

    Raises
    ------
    ValueError
        {raises_value_n}
        {raises_value_norm_workers}
        {raises_value_type}
    IndexError
        {raises_index_axis}
    TypeError
        {raises_type_x}
        {raises_type_ints_1d}
        {raises_type_type}
    RuntimeError
        {raises_runtime_dct1}

    See Also
    --------
    dct : The forward transform.
    idctn : The inverse over several axes.
    idst : The inverse discrete sine transform.
    scipy.fft.idct : The CPU function this mirrors.

    Notes
    -----
    {notes_dct_types}

    {notes_r2r_method}

    References
    ----------
    {references_r2r}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> x = np.array([1.0, 2.0, 1.0, -1.0, 0.5])
    >>> for t in (1, 2, 3, 4):  # doctest: +SKIP
    ...     back = fft.idct(fft.dct(gp.asarray(x), type=t), type=t)
    ...     print(t, np.allclose(gp.asnumpy(back), x))
    1 True
    2 True
    3 True
    4 True
    """
    return _r2r(False, False, x, type, n, axis, norm, workers, orthogonalize)


@fill_doc
def dst(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
        orthogonalize=None):
    """Return the discrete sine transform of type 1, 2, 3 or 4 of ``x``.

    The DST of ``x`` along one axis, for every index of the other axes, on
    the GPU; the same definitions and normalisations as SciPy.

    Parameters
    ----------
    {x_any}
        Complex input is transformed part by part (real and imaginary).
    {type_r2r}
    {n_in}
    {axis}
    {norm_r2r}
    {overwrite_x}
    {workers}
    {orthogonalize}

    Returns
    -------
    y : gpuscipy_core.ndarray
        The transform: a new C-contiguous array on the current device,
        shaped like ``x`` with ``n`` points along ``axis``.
        {dtype_r2r}

    Raises
    ------
    ValueError
        {raises_value_n}
        {raises_value_norm_workers}
        {raises_value_type}
    IndexError
        {raises_index_axis}
    TypeError
        {raises_type_x}
        {raises_type_ints_1d}
        {raises_type_type}

    See Also
    --------
    idst : The inverse transform.
    dstn : The transform over several axes.
    dct : The discrete cosine transform.
    scipy.fft.dst : The CPU function this mirrors.

    Notes
    -----
    {notes_dst_types}

    {notes_r2r_method}

    References
    ----------
    {references_r2r}

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.fft
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> x = np.linspace(0.0, 1.0, 6, dtype=np.float32)
    >>> y = fft.dst(gp.asarray(x), type=4)  # doctest: +SKIP
    >>> ref = scipy.fft.dst(x, type=4)
    >>> y.dtype, np.allclose(gp.asnumpy(y), ref, atol=1e-5)  # doctest: +SKIP
    (dtype('float32'), True)
    """
    return _r2r(True, True, x, type, n, axis, norm, workers, orthogonalize)


@fill_doc
def idst(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """Return the inverse discrete sine transform of type 1, 2, 3 or 4.

    The inverse of :func:`dst` of the same type and ``norm``:
    ``idst(dst(x, t), t) == x`` up to rounding. The inverse of type 2 is a
    type-3 transform and the inverse of type 3 a type-2 one, each with the
    opposite normalisation; types 1 and 4 are their own inverses up to
    scaling.

    Parameters
    ----------
    {x_any}
        Complex input is transformed part by part (real and imaginary).
    {type_r2r}
    {n_in}
    {axis}
    {norm_r2r}
    {overwrite_x}
    {workers}
    {orthogonalize}

    Returns
    -------
    y : gpuscipy_core.ndarray
        The inverse transform: a new C-contiguous array on the current
        device, shaped like ``x`` with ``n`` points along ``axis``.
        {dtype_r2r}

    Raises
    ------
    ValueError
        {raises_value_n}
        {raises_value_norm_workers}
        {raises_value_type}
    IndexError
        {raises_index_axis}
    TypeError
        {raises_type_x}
        {raises_type_ints_1d}
        {raises_type_type}

    See Also
    --------
    dst : The forward transform.
    idstn : The inverse over several axes.
    idct : The inverse discrete cosine transform.
    scipy.fft.idst : The CPU function this mirrors.

    Notes
    -----
    {notes_dst_types}

    {notes_r2r_method}

    References
    ----------
    {references_r2r}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> x = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, 1.5]])
    >>> y = fft.dst(gp.asarray(x), type=3, norm="ortho")  # doctest: +SKIP
    >>> back = fft.idst(y, type=3, norm="ortho")  # doctest: +SKIP
    >>> back.shape, np.allclose(gp.asnumpy(back), x)  # doctest: +SKIP
    ((2, 3), True)
    """
    return _r2r(False, True, x, type, n, axis, norm, workers, orthogonalize)


@fill_doc
def dctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
         *, orthogonalize=None):
    """Return the N-D discrete cosine transform along the given axes.

    The 1-D transform of :func:`dct` applied along each of ``axes`` in
    turn (by default all axes).

    Parameters
    ----------
    {x_any}
        Complex input is transformed part by part (real and imaginary).
    {type_r2r}
    {s_in}
    {axes_all}
    {norm_r2r}
    {overwrite_x}
    {workers}
    {orthogonalize}
        Keyword only.

    Returns
    -------
    y : gpuscipy_core.ndarray
        The transform: a new C-contiguous array on the current device,
        shaped like ``x`` with the lengths ``s`` along ``axes``.
        {dtype_r2r}
        {returns_no_axes}

    Raises
    ------
    ValueError
        {raises_value_s}
        {raises_value_norm_workers}
        {raises_value_type}
    TypeError
        {raises_type_x}
        {raises_type_workers}
        {raises_type_type}
    RuntimeError
        {raises_runtime_dct1}

    See Also
    --------
    idctn : The inverse transform.
    dct : The 1-D transform.
    dstn : The N-D discrete sine transform.
    scipy.fft.dctn : The CPU function this mirrors.

    Notes
    -----
    {notes_dct_types}

    {notes_r2r_method}

    References
    ----------
    {references_r2r}

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.fft
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> img = np.random.default_rng(9).standard_normal((8, 12))
    >>> y = fft.dctn(gp.asarray(img), norm="ortho")  # doctest: +SKIP
    >>> ref = scipy.fft.dctn(img, norm="ortho")
    >>> y.shape, np.allclose(gp.asnumpy(y), ref)  # doctest: +SKIP
    ((8, 12), True)
    """
    return _r2rn(True, False, x, type, s, axes, norm, workers, orthogonalize)


@fill_doc
def idctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
          orthogonalize=None):
    """Return the N-D inverse discrete cosine transform along the given
    axes.

    The 1-D transform of :func:`idct` applied along each of ``axes`` in
    turn (by default all axes), the inverse of :func:`dctn`.

    Parameters
    ----------
    {x_any}
        Complex input is transformed part by part (real and imaginary).
    {type_r2r}
    {s_in}
    {axes_all}
    {norm_r2r}
    {overwrite_x}
    {workers}
    {orthogonalize}

    Returns
    -------
    y : gpuscipy_core.ndarray
        The inverse transform: a new C-contiguous array on the current
        device, shaped like ``x`` with the lengths ``s`` along ``axes``.
        {dtype_r2r}
        {returns_no_axes}

    Raises
    ------
    ValueError
        {raises_value_s}
        {raises_value_norm_workers}
        {raises_value_type}
    TypeError
        {raises_type_x}
        {raises_type_workers}
        {raises_type_type}
    RuntimeError
        {raises_runtime_dct1}

    See Also
    --------
    dctn : The forward transform.
    idct : The 1-D inverse.
    idstn : The N-D inverse discrete sine transform.
    scipy.fft.idctn : The CPU function this mirrors.

    Notes
    -----
    {notes_dct_types}

    {notes_r2r_method}

    References
    ----------
    {references_r2r}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> vol = np.random.default_rng(10).standard_normal((4, 5, 6))
    >>> y = fft.dctn(gp.asarray(vol), type=1, axes=(0, 2))  # doctest: +SKIP
    >>> back = fft.idctn(y, type=1, axes=(0, 2))  # doctest: +SKIP
    >>> np.allclose(gp.asnumpy(back), vol)  # doctest: +SKIP
    True
    """
    return _r2rn(False, False, x, type, s, axes, norm, workers, orthogonalize)


@fill_doc
def dstn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """Return the N-D discrete sine transform along the given axes.

    The 1-D transform of :func:`dst` applied along each of ``axes`` in
    turn (by default all axes).

    Parameters
    ----------
    {x_any}
        Complex input is transformed part by part (real and imaginary).
    {type_r2r}
    {s_in}
    {axes_all}
    {norm_r2r}
    {overwrite_x}
    {workers}
    {orthogonalize}

    Returns
    -------
    y : gpuscipy_core.ndarray
        The transform: a new C-contiguous array on the current device,
        shaped like ``x`` with the lengths ``s`` along ``axes``.
        {dtype_r2r}
        {returns_no_axes}

    Raises
    ------
    ValueError
        {raises_value_s}
        {raises_value_norm_workers}
        {raises_value_type}
    TypeError
        {raises_type_x}
        {raises_type_workers}
        {raises_type_type}

    See Also
    --------
    idstn : The inverse transform.
    dst : The 1-D transform.
    dctn : The N-D discrete cosine transform.
    scipy.fft.dstn : The CPU function this mirrors.

    Notes
    -----
    {notes_dst_types}

    {notes_r2r_method}

    References
    ----------
    {references_r2r}

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.fft
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> img = np.random.default_rng(11).standard_normal((6, 7))
    >>> y = fft.dstn(gp.asarray(img), type=2, s=(8, 8))  # doctest: +SKIP
    >>> ref = scipy.fft.dstn(img, s=(8, 8))
    >>> y.shape, np.allclose(gp.asnumpy(y), ref)  # doctest: +SKIP
    ((8, 8), True)
    """
    return _r2rn(True, True, x, type, s, axes, norm, workers, orthogonalize)


@fill_doc
def idstn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
          orthogonalize=None):
    """Return the N-D inverse discrete sine transform along the given axes.

    The 1-D transform of :func:`idst` applied along each of ``axes`` in
    turn (by default all axes), the inverse of :func:`dstn`.

    Parameters
    ----------
    {x_any}
        Complex input is transformed part by part (real and imaginary).
    {type_r2r}
    {s_in}
    {axes_all}
    {norm_r2r}
    {overwrite_x}
    {workers}
    {orthogonalize}

    Returns
    -------
    y : gpuscipy_core.ndarray
        The inverse transform: a new C-contiguous array on the current
        device, shaped like ``x`` with the lengths ``s`` along ``axes``.
        {dtype_r2r}
        {returns_no_axes}

    Raises
    ------
    ValueError
        {raises_value_s}
        {raises_value_norm_workers}
        {raises_value_type}
    TypeError
        {raises_type_x}
        {raises_type_workers}
        {raises_type_type}

    See Also
    --------
    dstn : The forward transform.
    idst : The 1-D inverse.
    idctn : The N-D inverse discrete cosine transform.
    scipy.fft.idstn : The CPU function this mirrors.

    Notes
    -----
    {notes_dst_types}

    {notes_r2r_method}

    References
    ----------
    {references_r2r}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> img = np.random.default_rng(12).standard_normal((5, 9)) + 1j
    >>> y = fft.dstn(gp.asarray(img), type=4)  # doctest: +SKIP
    >>> back = fft.idstn(y, type=4)  # doctest: +SKIP
    >>> back.dtype, np.allclose(gp.asnumpy(back), img)  # doctest: +SKIP
    (dtype('complex128'), True)
    """
    return _r2rn(False, True, x, type, s, axes, norm, workers, orthogonalize)
