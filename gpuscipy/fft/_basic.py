"""Discrete Fourier transforms on cuFFT: fft, ifft, rfft, irfft, hfft, ihfft
and their 2-D and n-D forms.

Layout strategy (no copies on the contiguous path):

* The input is brought to the compute dtype, cut or zero-padded to the
  requested lengths, as a C-contiguous array. When it already is one, it is
  used as is (cuFFT reads it in place).
* A transform over the trailing 1-3 axes is one cuFFT plan of that rank in
  the basic layout, batched over the leading axes.
* A 1-D transform along another axis uses cuFFT's advanced layout
  (``istride`` = product of the axes after it, ``idist`` = 1), executed once
  per index of the axes before it when they are few (at most
  ``_LOOP_MAX``) and, for real transforms, every per-index pointer stays
  aligned to the complex type (cuFFT's requirement for R2C/C2R pointers),
  else through a transposed copy (the core's tiled transpose) to the
  trailing position and back. A real R2C input at an odd element offset
  (a view) is copied to aligned memory first.
* Other n-D transforms are 1-D transforms one axis at a time.
* cuFFT is unnormalised; the norm factor is one in-place multiply, skipped
  when it is 1 (the forward 'backward' case).

Complex-to-real transforms overwrite their input in cuFFT, so they always
run on a private copy.

Rows stay independent: cuFFT computes a batch of odd-length real
transforms two rows at a time, as one complex transform (measured on the
H200, CuPy alike: a NaN or inf in one row turns its partner row to NaN).
SciPy transforms every row on its own, so a real transform of odd length
over more than one row runs here as a complex one (:func:`rows_pair`):
twice the arithmetic for those lengths, none for even ones.
"""

import operator
from math import prod as _prod

import numpy

from . import _helper as h
from ._plan import execute, get_plan

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft",
           "rfft2", "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "hfft2",
           "ihfft2", "hfftn", "ihfftn"]

# When the axes before the transformed one hold at most this many indices,
# the strided plan is executed once per index instead of transposing.
_LOOP_MAX = 8


def _is_double(dt):
    return numpy.dtype(dt).char in "dD"


def _out_dtype(kind, in_dtype):
    return h.real_of(in_dtype) if kind == "C2R" else h.complex_of(in_dtype)


def _complex_aligned(ptr, real_itemsize):
    """Whether a pointer to real data is aligned to the complex type of the
    same precision. cuFFT requires both pointers of an R2C/C2R execution
    (``cufftExecR2C/D2Z/C2R/Z2D``) to be aligned to cufftComplex /
    cufftDoubleComplex; a misaligned one fails with CUFFT_INVALID_VALUE."""
    return ptr % (2 * real_itemsize) == 0


def _steps_aligned(kind, nin, nout, inner):
    """Whether the per-index pointers of the looped strided layout keep
    cuFFT's alignment: always for C2C; for R2C/C2R the real block of one
    leading index (``n * inner`` reals) must be an even number of reals."""
    if kind == "C2C":
        return True
    real_len = nin if kind == "R2C" else nout
    return real_len * inner % 2 == 0


def rows_pair(kind, n, rows):
    """Whether cuFFT would compute this real transform two rows at a time:
    an R2C/C2R of odd real length ``n`` > 1 over more than one row."""
    return kind != "C2C" and n % 2 == 1 and n > 1 and rows > 1


def _axis_slice(axis, sl):
    """The index taking ``sl`` along ``axis`` and everything before it."""
    return (slice(None),) * axis + (sl,)


def _real_as_complex(a, axis, kind, n):
    """The R2C/C2R of C-contiguous ``a`` along ``axis`` (odd ``n``) through
    a complex transform, every row on its own: R2C keeps the first n//2 + 1
    bins of the C2C of ``a``; C2R completes the half spectrum by Hermitian
    symmetry (X[n - k] = conj(X[k])) and keeps the real part of its inverse
    (the imaginary part of the DC bin, ignored by a C2R, only reaches the
    imaginary part)."""
    import gpuscipy_core as gp
    if kind == "R2C":
        full = exec_axis(a.astype(h.complex_of(a.dtype)), axis, "C2C", n, -1)
        return gp.ascontiguousarray(full[_axis_slice(axis, slice(0, n // 2 + 1))])
    m = n // 2 + 1
    full = gp.empty(a.shape[:axis] + (n,) + a.shape[axis + 1:], a.dtype)
    full[_axis_slice(axis, slice(0, m))] = a
    gp.conjugate(a[_axis_slice(axis, slice(m - 1, 0, -1))],
                 out=full[_axis_slice(axis, slice(m, n))])
    return gp.ascontiguousarray(exec_axis(full, axis, "C2C", n, 1).real)


def exec_axis(a, axis, kind, n, direction=-1):
    """Unnormalised 1-D transform of C-contiguous ``a`` along ``axis``.

    ``kind`` is 'C2C' (``a`` complex, length ``n``), 'R2C' (``a`` real,
    length ``n``; result length n//2+1) or 'C2R' (``a`` complex, length
    n//2+1, overwritten; result real of length ``n``). Returns a new
    C-contiguous array.
    """
    import gpuscipy_core as gp
    shape = a.shape
    nin = shape[axis]
    nout = n // 2 + 1 if kind == "R2C" else n
    out_shape = shape[:axis] + (nout,) + shape[axis + 1:]
    out_dtype = _out_dtype(kind, a.dtype)
    outer = _prod(shape[:axis])
    inner = _prod(shape[axis + 1:])
    if rows_pair(kind, n, outer * inner):
        return _real_as_complex(a, axis, kind, n)
    out = gp.empty(out_shape, out_dtype)
    if out.size == 0:
        return out
    if n == 1:
        # a 1-point transform is a copy (the real part for C2R)
        out[...] = a.real if kind == "C2R" else a
        return out
    double = _is_double(a.dtype)
    if kind == "R2C" and not _complex_aligned(a.ptr, a.itemsize):
        # a real view at an odd element offset: cuFFT needs the real side
        # of R2C aligned like the complex type (fresh pool memory is)
        a = a.copy()
    if inner == 1:
        plan = get_plan((n,), kind, double, outer)
        execute(plan, a.ptr, out.ptr, direction)
    elif outer <= _LOOP_MAX and (outer == 1 or _steps_aligned(kind, nin, nout, inner)):
        # one strided plan, executed at a.ptr + o * step for each leading
        # index (for R2C/C2R only when every such pointer stays aligned)
        plan = get_plan((n,), kind, double, inner, inembed=(nin,), istride=inner,
                        idist=1, onembed=(nout,), ostride=inner, odist=1)
        step_in = nin * inner * a.itemsize
        step_out = nout * inner * out.itemsize
        for o in range(outer):
            execute(plan, a.ptr + o * step_in, out.ptr + o * step_out, direction)
    else:
        # axis -> last through the core's transposed copy, and back
        t = a.reshape(outer, nin, inner).transpose(0, 2, 1).copy()
        tout = gp.empty((outer, inner, nout), out_dtype)
        plan = get_plan((n,), kind, double, outer * inner)
        execute(plan, t.ptr, tout.ptr, direction)
        del t
        out.reshape(outer, nout, inner)[...] = tout.transpose(0, 2, 1)
    return out


def exec_trailing(a, k, kind, s, direction=-1):
    """Unnormalised transform over the last ``k`` (1-3) axes of C-contiguous
    ``a`` in one cuFFT plan. ``s`` are the logical lengths (for C2R the last
    one is the real output length)."""
    import gpuscipy_core as gp
    shape = a.shape
    lead = shape[:len(shape) - k]
    if rows_pair(kind, s[-1], _prod(lead)):
        # odd real length over several rows: kept apart (module notes); the
        # n-D transforms send several planes axis by axis (_one_plan)
        if k > 1:
            raise ValueError("exec_trailing: cuFFT would pair the planes of an "
                             "odd-length real transform")
        return exec_axis(a, a.ndim - 1, kind, s[0], direction)
    if kind == "R2C":
        out_tail = tuple(s[:-1]) + (s[-1] // 2 + 1,)
    else:
        out_tail = tuple(s)
    out = gp.empty(lead + out_tail, _out_dtype(kind, a.dtype))
    if out.size == 0:
        return out
    if kind == "R2C" and not _complex_aligned(a.ptr, a.itemsize):
        a = a.copy()          # see _complex_aligned
    plan = get_plan(tuple(s), kind, _is_double(a.dtype), _prod(lead))
    execute(plan, a.ptr, out.ptr, direction)
    return out


def _scale(out, norm, n, forward):
    f = h.scale_factor(norm, n, forward)
    if f != 1.0:
        out *= f
    return out


def _trailing(axes, ndim, s):
    """Whether ``axes`` (in this order) are the last len(axes) (1 to 3) axes,
    sorted, with every length > 1 (one cuFFT plan of that rank)."""
    k = len(axes)
    return (1 <= k <= 3 and list(axes) == list(range(ndim - k, ndim))
            and min(s) > 1)


def _one_plan(axes, shape, s):
    """Whether a real n-D transform over ``axes`` (real lengths ``s``) of an
    array of ``shape`` runs as one cuFFT plan: trailing axes, and not an
    odd last length over several planes (cuFFT would pair them; the
    axis-by-axis path keeps them apart, see rows_pair)."""
    lead = _prod(shape[:len(shape) - len(axes)])
    return _trailing(axes, len(shape), s) and not rows_pair("R2C", s[-1], lead)


# ---------------------------------------------------------------------------
# 1-D
# ---------------------------------------------------------------------------

def _prepare_1d(x, n, axis, norm, workers, plan, real_only=False,
                check_length=True):
    """The common argument checks of the 1-D transforms, in SciPy's order:
    plan, norm, workers, real input (``real_only``), ``n``, ``axis``.

    Returns ``(x, n, axis, norm, dtype)`` with ``x`` a device array,
    ``axis`` non-negative and ``dtype`` the compute dtype (real for
    ``real_only``). ``n`` is checked and defaulted only when
    ``check_length`` (the complex-to-real transforms have their own rules).
    """
    h.check_plan(plan)
    x = h.as_device(x)
    norm = h.check_norm(norm)
    h.check_workers(workers)
    dt = h.compute_dtype(x.dtype, real_only=real_only)
    if check_length and n is not None:
        n = h.check_n(n, 0)
    axis = h.check_axis(axis, x.ndim)
    if check_length and n is None:
        n = h.check_n(None, x.shape[axis])
    return x, n, axis, norm, dt


# ---------------------------------------------------------------------------
# the repeated call: one dict lookup instead of the checks and the plan key
# ---------------------------------------------------------------------------

#: (kind, forward, shape, dtype, n, axis, norm, workers, device, stream) ->
#: (PlanKey, out shape, out dtype, scale factor) of calls that took the
#: simplest route: a C-contiguous device array of the compute dtype,
#: transformed along its last axis at its own length in one plan. Every
#: entry is a pure function of its key (the checks passed for those values),
#: so a hit skips them. Bounded: cleared when full.
_FAST = {}
_FAST_MAX = 512
_SIMPLE = (int, str, type(None))


def _fast_key(kind, forward, x, n, axis, norm, workers, plan):
    import gpuscipy_core as gp
    if (plan is not None or type(x) is not gp.ndarray or type(n) not in _SIMPLE
            or type(axis) is not int or type(norm) not in _SIMPLE
            or type(workers) not in _SIMPLE or not x.flags.c_contiguous):
        return None
    from gpuscipy_core.cuda import get_current_stream_ptr, get_device_id
    return (kind, forward, x.shape, x.dtype, n, axis, norm, workers,
            get_device_id(), get_current_stream_ptr())


def _fast_run(entry, x, direction):
    import gpuscipy_core as gp
    from ._plan import plan_cache
    key, out_shape, out_dtype, f = entry
    if key.kind == "R2C" and not _complex_aligned(x.ptr, x.itemsize):
        x = x.copy()
    out = gp.empty(out_shape, out_dtype)
    execute(plan_cache.get(key), x.ptr, out.ptr, direction)
    if f != 1.0:
        out *= f
    return out


def _remember(fk, kind, x, a, out, n, axis, norm, forward):
    """Store the route of a finished call when it was the simple one."""
    if (fk is None or axis != x.ndim - 1 or out.size == 0 or n < 2
            or a.shape != x.shape or a.dtype != x.dtype or a.ptr != x.ptr):
        return
    if rows_pair(kind, n, x.size // max(x.shape[axis], 1)):
        return
    from ._plan import make_key
    key = make_key((n,), kind, _is_double(x.dtype), x.size // n)
    if len(_FAST) >= _FAST_MAX:
        _FAST.clear()
    _FAST[fk] = (key, out.shape, out.dtype, h.scale_factor(norm, n, forward))


def _c2c(forward, x, n, axis, norm, workers, plan):
    fk = _fast_key("C2C", forward, x, n, axis, norm, workers, plan)
    entry = _FAST.get(fk) if fk is not None else None
    if entry is not None:
        return _fast_run(entry, x, -1 if forward else 1)
    x0 = x
    x, n, axis, norm, dt = _prepare_1d(x, n, axis, norm, workers, plan)
    a, _ = h.fix_shape(x, (n,), (axis,), h.complex_of(dt))
    out = exec_axis(a, axis, "C2C", n, -1 if forward else 1)
    _remember(fk, "C2C", x0, a, out, n, axis, norm, forward)
    return _scale(out, norm, n, forward)


def _r2c(forward, x, n, axis, norm, workers, plan):
    fk = _fast_key("R2C", forward, x, n, axis, norm, workers, plan) if forward else None
    entry = _FAST.get(fk) if fk is not None else None
    if entry is not None:
        return _fast_run(entry, x, -1)
    x0 = x
    x, n, axis, norm, rdt = _prepare_1d(x, n, axis, norm, workers, plan,
                                        real_only=True)
    a, _ = h.fix_shape(x, (n,), (axis,), rdt)
    out = exec_axis(a, axis, "R2C", n)
    _remember(fk, "R2C", x0, a, out, n, axis, norm, forward)
    _scale(out, norm, n, forward)
    if not forward:
        import gpuscipy_core as gp
        gp.conjugate(out, out=out)
    return out


def _c2r(forward, x, n, axis, norm, workers, plan):
    x, n, axis, norm, dt = _prepare_1d(x, n, axis, norm, workers, plan,
                                       check_length=False)
    cdt = h.complex_of(dt)
    if n is None:
        n = (x.shape[axis] - 1) * 2
        if n < 1:
            raise ValueError(f"Invalid number of data points ({n}) specified")
    else:
        # SciPy checks the input length n//2 + 1, and n = 0 gives one point
        n = operator.index(n)
        if n // 2 + 1 < 1:
            raise ValueError(f"invalid number of data points ({n // 2 + 1}) specified")
        n = max(n, 1)
    a, copied = h.fix_shape(x, (n // 2 + 1,), (axis,), cdt)
    if forward and x.dtype.kind == "c":
        a = a.conj()          # hfft: conj(x) -> a private copy
    elif not copied:
        a = a.copy()          # cuFFT's C2R overwrites its input
    out = exec_axis(a, axis, "C2R", n)
    return _scale(out, norm, n, forward)


_DOC_1D = """
    Parameters
    ----------
    x : gpuscipy_core.ndarray
        Input array (any dtype SciPy accepts: bool and integers compute in
        float64, float16 in float32).
    n : int, optional
        Length of the transformed axis of the output. The input is cut or
        zero-padded to it. Default: the length of the input along ``axis``.
    axis : int, optional
        Axis over which to compute the transform. Default -1.
    norm : {{"backward", "ortho", "forward"}}, optional
        Normalization mode (see :mod:`gpuscipy.fft`). Default "backward".
    overwrite_x : bool, optional
        Accepted for SciPy compatibility; the input is never modified.
    workers : int, optional
        Accepted and checked like SciPy's; ignored on the GPU.
    plan : None
        Precomputed plans are not supported (``NotImplementedError``, as in
        SciPy).

    Returns
    -------
    out : gpuscipy_core.ndarray
        A new C-contiguous array; {out}.

    Raises
    ------
    ValueError
        ``n`` < 1, a bad ``norm``, an empty transformed axis.
    IndexError
        ``axis`` out of range (or a 0-d input), as in SciPy.
    TypeError
        ``x`` is not a device array{extra}.
    NotImplementedError
        ``plan`` is not None.

    Notes
    -----
    Computed with cuFFT (Cooley-Tukey and Bluestein's algorithm for sizes
    with large prime factors).
"""


def fft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """Compute the 1-D discrete Fourier Transform."""
    return _c2c(True, x, n, axis, norm, workers, plan)


def ifft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """Compute the 1-D inverse discrete Fourier Transform."""
    return _c2c(False, x, n, axis, norm, workers, plan)


def rfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """Compute the 1-D discrete Fourier Transform for real input."""
    return _r2c(True, x, n, axis, norm, workers, plan)


def irfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """Computes the inverse of :func:`rfft`."""
    return _c2r(False, x, n, axis, norm, workers, plan)


def hfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """Compute the FFT of a signal that has Hermitian symmetry, i.e., a real
    spectrum."""
    return _c2r(True, x, n, axis, norm, workers, plan)


def ihfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """Compute the inverse FFT of a signal that has Hermitian symmetry."""
    return _r2c(False, x, n, axis, norm, workers, plan)


fft.__doc__ += _DOC_1D.format(out="complex64 for float32/float16/complex64 "
                              "input, else complex128", extra="")
ifft.__doc__ += _DOC_1D.format(out="complex, as for fft", extra="")
rfft.__doc__ += _DOC_1D.format(out="complex, the transformed axis of length "
                               "n//2 + 1", extra=", or is complex")
irfft.__doc__ += _DOC_1D.format(out="real, the transformed axis of length n "
                                "(default 2*(m-1) for an input of length m)",
                                extra="")
hfft.__doc__ += _DOC_1D.format(out="real, of length n (default 2*(m-1))", extra="")
ihfft.__doc__ += _DOC_1D.format(out="complex, of length n//2 + 1",
                                extra=", or is complex")


# ---------------------------------------------------------------------------
# n-D
# ---------------------------------------------------------------------------

def _c2cn(forward, x, s, axes, norm, workers, plan):
    h.check_plan(plan)
    x = h.as_device(x)
    dt = h.complex_of(h.compute_dtype(x.dtype))
    s, axes = h.init_nd_shape_and_axes(x.shape, s, axes)
    h.check_workers(workers)
    if len(axes) == 0:
        return x
    norm = h.check_norm(norm)
    a, _ = h.fix_shape(x, s, axes, dt)
    direction = -1 if forward else 1
    if _trailing(sorted(axes), a.ndim, s):
        k = len(axes)
        out = exec_trailing(a, k, "C2C", a.shape[a.ndim - k:], direction)
    else:
        out = a
        for ax in reversed(axes):
            out = exec_axis(out, ax, "C2C", out.shape[ax], direction)
    return _scale(out, norm, _prod(s), forward)


def _r2cn(forward, x, s, axes, norm, workers, plan):
    h.check_plan(plan)
    x = h.as_device(x)
    rdt = h.compute_dtype(x.dtype, real_only=True)
    s, axes = h.init_nd_shape_and_axes(x.shape, s, axes)
    a, _ = h.fix_shape(x, s, axes, rdt) if axes else (x, False)
    norm = h.check_norm(norm)
    h.check_workers(workers)
    if len(axes) == 0:
        raise ValueError("at least 1 axis must be transformed")
    if _one_plan(axes, a.shape, s):
        out = exec_trailing(a, len(axes), "R2C", s)
    else:
        out = exec_axis(a, axes[-1], "R2C", s[-1])
        del a
        for ax in reversed(axes[:-1]):
            out = exec_axis(out, ax, "C2C", out.shape[ax], -1)
    _scale(out, norm, _prod(s), forward)
    if not forward:
        import gpuscipy_core as gp
        gp.conjugate(out, out=out)
    return out


def _c2rn(forward, x, s, axes, norm, workers, plan):
    h.check_plan(plan)
    x = h.as_device(x)
    cdt = h.complex_of(h.compute_dtype(x.dtype))
    noshape = s is None
    s, axes = h.init_nd_shape_and_axes(x.shape, s, axes)
    if len(axes) == 0:
        raise ValueError("at least 1 axis must be transformed")
    s = list(s)
    if noshape:
        s[-1] = (x.shape[axes[-1]] - 1) * 2
    norm = h.check_norm(norm)
    h.check_workers(workers)
    # an input of length 1 along the last axis gives one output point (SciPy)
    lastsize = s[-1] = max(s[-1], 1)
    half = list(s)
    half[-1] = lastsize // 2 + 1
    a, copied = h.fix_shape(x, half, axes, cdt)
    if forward and x.dtype.kind == "c":
        a = a.conj()
        copied = True
    if _one_plan(axes, a.shape, s):
        if not copied:
            a = a.copy()
        out = exec_trailing(a, len(axes), "C2R", s, 1)
    else:
        # inverse C2C over all but the last axis, then C2R along it
        for ax in reversed(axes[:-1]):
            a = exec_axis(a, ax, "C2C", a.shape[ax], 1)
            copied = True
        if not copied:
            a = a.copy()
        out = exec_axis(a, axes[-1], "C2R", lastsize)
    return _scale(out, norm, _prod(s), forward)


_DOC_ND = """
    Parameters
    ----------
    x : gpuscipy_core.ndarray
        Input array.
    s : sequence of ints, optional
        Shape (length of each transformed axis) of the output; the input is
        cut or zero-padded to it. {s_default}
    axes : sequence of ints, optional
        Axes over which to compute the transform. {axes_default}
    norm : {{"backward", "ortho", "forward"}}, optional
        Normalization mode. Default "backward".
    overwrite_x : bool, optional
        Accepted; the input is never modified.
    workers : int, optional
        Accepted and checked; ignored on the GPU.
    plan : None
        Precomputed plans are not supported (``NotImplementedError``).

    Returns
    -------
    out : gpuscipy_core.ndarray
        A new C-contiguous array; {out}.

    Raises
    ------
    ValueError
        ``s`` and ``axes`` of different lengths, repeated axes, axes out of
        range, a length < 1, a bad ``norm``.
    TypeError
        ``x`` is not a device array{extra}.

    Notes
    -----
    Transforms over the last one to three axes are a single cuFFT plan;
    other axis sets are transformed one axis at a time.
"""

_S_DEF = "Default: the input's shape along ``axes``."
_AX_ALL = "Default: all axes (the last ``len(s)`` axes when ``s`` is given)."
_AX_2 = "Default: the last two axes."


def fftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
         plan=None):
    """Compute the N-D discrete Fourier Transform."""
    return _c2cn(True, x, s, axes, norm, workers, plan)


def ifftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
          plan=None):
    """Compute the N-D inverse discrete Fourier Transform."""
    return _c2cn(False, x, s, axes, norm, workers, plan)


def fft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
         plan=None):
    """Compute the 2-D discrete Fourier Transform."""
    return _c2cn(True, x, s, axes, norm, workers, plan)


def ifft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
          plan=None):
    """Compute the 2-D inverse discrete Fourier Transform."""
    return _c2cn(False, x, s, axes, norm, workers, plan)


def rfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
          plan=None):
    """Compute the N-D discrete Fourier Transform for real input."""
    return _r2cn(True, x, s, axes, norm, workers, plan)


def rfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
          plan=None):
    """Compute the 2-D FFT of a real array."""
    return _r2cn(True, x, s, axes, norm, workers, plan)


def irfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
           plan=None):
    """Computes the inverse of :func:`rfftn`."""
    return _c2rn(False, x, s, axes, norm, workers, plan)


def irfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
           plan=None):
    """Computes the inverse of :func:`rfft2`."""
    return _c2rn(False, x, s, axes, norm, workers, plan)


def hfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
          plan=None):
    """Compute the N-D FFT of Hermitian symmetric complex input, i.e., a
    signal with a real spectrum."""
    return _c2rn(True, x, s, axes, norm, workers, plan)


def hfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
          plan=None):
    """Compute the 2-D FFT of a Hermitian complex array."""
    return _c2rn(True, x, s, axes, norm, workers, plan)


def ihfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
           plan=None):
    """Compute the N-D inverse discrete Fourier Transform for a real spectrum."""
    return _r2cn(False, x, s, axes, norm, workers, plan)


def ihfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
           plan=None):
    """Compute the 2-D inverse FFT of a real spectrum."""
    return _r2cn(False, x, s, axes, norm, workers, plan)


_C = "complex64 for float32/float16/complex64 input, else complex128"
_HALF = "complex; the last transformed axis has length s[-1]//2 + 1"
_REAL = ("real; the last transformed axis has length s[-1] (default "
         "2*(m-1) for an input of length m)")
_RONLY = ", or is complex"
for _f, _ad, _o, _e in (
        (fftn, _AX_ALL, _C, ""), (ifftn, _AX_ALL, _C, ""),
        (fft2, _AX_2, _C, ""), (ifft2, _AX_2, _C, ""),
        (rfftn, _AX_ALL, _HALF, _RONLY), (rfft2, _AX_2, _HALF, _RONLY),
        (irfftn, _AX_ALL, _REAL, ""), (irfft2, _AX_2, _REAL, ""),
        (hfftn, _AX_ALL, _REAL, ""), (hfft2, _AX_2, _REAL, ""),
        (ihfftn, _AX_ALL, _HALF, _RONLY), (ihfft2, _AX_2, _HALF, _RONLY)):
    _f.__doc__ += _DOC_ND.format(s_default=_S_DEF, axes_default=_ad, out=_o,
                                 extra=_e)
del _f, _ad, _o, _e

