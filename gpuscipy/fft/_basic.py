"""Discrete Fourier transforms on cuFFT: fft, ifft, rfft, irfft, hfft, ihfft,
and the execution every transform of gpuscipy.fft shares (the n-D forms are
in ``_basic_nd`` and ``_real_nd``).

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
from ._docs import fill_doc
from ._plan import execute, get_plan

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "exec_axis",
           "exec_trailing", "rows_pair"]

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


@fill_doc
def fft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """Compute the 1-D discrete Fourier transform.

    The ``n``-point DFT of ``x`` along one axis, for every index of the
    other axes, on the GPU.

    Parameters
    ----------
    {x_any}
    {n_in}
    {axis}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The transform: a new C-contiguous array on the current device,
        shaped like ``x`` with ``n`` points along ``axis``.
        {dtype_c2c}

    Raises
    ------
    ValueError
        {raises_value_n}
        {raises_value_norm_workers}
    IndexError
        {raises_index_axis}
    TypeError
        {raises_type_x}
        {raises_type_ints_1d}
    NotImplementedError
        {raises_plan}

    See Also
    --------
    ifft : The inverse transform.
    rfft : The transform of real input (half the output).
    fftn : The transform over several axes.
    fftfreq : The frequency of each output index.
    scipy.fft.fft : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_1d}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft

    A complex tone of 3 cycles over 8 samples is one spike in bin 3:

    >>> x = gp.asarray(np.exp(2j * np.pi * 3 * np.arange(8) / 8))  # doctest: +SKIP
    >>> y = fft.fft(x)  # doctest: +SKIP
    >>> y.shape, y.dtype  # doctest: +SKIP
    ((8,), dtype('complex128'))
    >>> np.abs(gp.asnumpy(y)).round(6)  # doctest: +SKIP
    array([0., 0., 0., 8., 0., 0., 0., 0.])

    float32 input computes in single precision:

    >>> fft.fft(gp.asarray(np.ones((4, 16), np.float32))).dtype  # doctest: +SKIP
    dtype('complex64')
    """
    return _c2c(True, x, n, axis, norm, workers, plan)


@fill_doc
def ifft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """Compute the 1-D inverse discrete Fourier transform.

    The inverse of :func:`fft`: ``ifft(fft(x)) == x`` up to rounding, for
    every ``norm``.

    Parameters
    ----------
    {x_any}
    {n_in}
    {axis}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The inverse transform: a new C-contiguous array on the current
        device, shaped like ``x`` with ``n`` points along ``axis``.
        {dtype_c2c}

    Raises
    ------
    ValueError
        {raises_value_n}
        {raises_value_norm_workers}
    IndexError
        {raises_index_axis}
    TypeError
        {raises_type_x}
        {raises_type_ints_1d}
    NotImplementedError
        {raises_plan}

    See Also
    --------
    fft : The forward transform.
    irfft : The inverse of :func:`rfft` (real output).
    ifftn : The inverse transform over several axes.
    scipy.fft.ifft : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_1d}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft

    A spike in bin 1 of an 8-point spectrum is one cycle of a complex
    exponential, scaled by 1/8 under the default norm:

    >>> y = gp.asarray(np.eye(8)[1])  # doctest: +SKIP
    >>> x = fft.ifft(y)  # doctest: +SKIP
    >>> tone = np.exp(2j * np.pi * np.arange(8) / 8)
    >>> np.allclose(gp.asnumpy(x), tone / 8)  # doctest: +SKIP
    True

    Round trip:

    >>> z = np.array([1.0, 2.0, 0.5, -1.0])
    >>> back = fft.ifft(fft.fft(gp.asarray(z)))  # doctest: +SKIP
    >>> np.allclose(gp.asnumpy(back), z)  # doctest: +SKIP
    True
    """
    return _c2c(False, x, n, axis, norm, workers, plan)


@fill_doc
def rfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """Compute the 1-D discrete Fourier transform of real input.

    For real ``x`` the spectrum is Hermitian-symmetric (``y[n - k] ==
    conj(y[k])``), so only its non-negative-frequency half, ``n//2 + 1``
    points, is computed and returned.

    Parameters
    ----------
    {x_real}
    {n_in}
    {axis}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The first ``n//2 + 1`` points of ``fft(x, n, axis)``: a new
        C-contiguous array on the current device, shaped like ``x`` with
        ``n//2 + 1`` points along ``axis``.
        {dtype_r2c}

    Raises
    ------
    ValueError
        {raises_value_n}
        {raises_value_norm_workers}
    IndexError
        {raises_index_axis}
    TypeError
        {raises_type_x}
        {raises_type_real}
        {raises_type_ints_1d}
    NotImplementedError
        {raises_plan}

    See Also
    --------
    irfft : The inverse transform.
    fft : The transform of complex input (the full spectrum).
    rfftn : The transform of real input over several axes.
    rfftfreq : The frequency of each output index.
    scipy.fft.rfft : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_1d}
    A real input view that starts at an odd element (``x[1:]`` of a 1-D
    array) is copied first: cuFFT needs the real side of its real-to-complex
    transform aligned like the complex type.

    {notes_rows_apart}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft

    A cosine of 2 cycles over 8 samples: 5 output points, the peak in bin 2:

    >>> x = gp.asarray(np.cos(2 * np.pi * 2 * np.arange(8) / 8))  # doctest: +SKIP
    >>> y = fft.rfft(x)  # doctest: +SKIP
    >>> y.shape, y.dtype  # doctest: +SKIP
    ((5,), dtype('complex128'))
    >>> np.abs(gp.asnumpy(y)).round(6)  # doctest: +SKIP
    array([0., 0., 4., 0., 0.])
    """
    return _r2c(True, x, n, axis, norm, workers, plan)


@fill_doc
def irfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """Compute the inverse of :func:`rfft`.

    The real ``n``-point inverse DFT of a Hermitian-symmetric spectrum given
    by its non-negative-frequency half: ``irfft(rfft(x), len(x)) == x`` up to
    rounding.

    Parameters
    ----------
    {x_half}
    {n_out}
    {axis}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The real inverse transform: a new C-contiguous array on the current
        device, shaped like ``x`` with ``n`` points along ``axis``.
        {dtype_c2r}

    Raises
    ------
    ValueError
        {raises_value_n_out}
        {raises_value_norm_workers}
    IndexError
        {raises_index_axis}
    TypeError
        {raises_type_x}
        {raises_type_ints_1d}
    NotImplementedError
        {raises_plan}

    See Also
    --------
    rfft : The forward transform.
    ifft : The inverse transform with complex output.
    irfftn : The inverse of :func:`rfftn`.
    scipy.fft.irfft : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}
    The input stands for the full spectrum ``y`` with ``y[n - k] =
    conj(y[k])``; the output length cannot be read from the input (both
    ``2*(m - 1)`` and ``2*m - 1`` points have ``m`` independent
    frequencies), hence ``n``.

    {notes_cufft}

    {notes_layout_1d}
    cuFFT's complex-to-real transform destroys its input, so it always runs
    on a private copy.

    {notes_rows_apart}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> x = gp.asarray(np.array([1.0, 2.0, 4.0, -1.0, 3.0]))  # doctest: +SKIP
    >>> y = fft.rfft(x)  # doctest: +SKIP
    >>> y.shape  # doctest: +SKIP
    (3,)

    The default length, ``2*(3 - 1) = 4``, is not the original one; ask for
    5 points:

    >>> fft.irfft(y).shape  # doctest: +SKIP
    (4,)
    >>> gp.asnumpy(fft.irfft(y, 5)).round(6)  # doctest: +SKIP
    array([ 1.,  2.,  4., -1.,  3.])
    """
    return _c2r(False, x, n, axis, norm, workers, plan)


@fill_doc
def hfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """Compute the FFT of a signal with Hermitian symmetry (a real spectrum).

    ``x`` is the first half of a signal with ``x[n - m] == conj(x[m])``;
    its DFT is real. ``hfft(x, n)`` equals ``irfft(conj(x), n)`` with the
    opposite normalisation (``norm="backward"`` here is "forward" there).

    Parameters
    ----------
    {x_half}
    {n_out}
    {axis}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The real spectrum: a new C-contiguous array on the current device,
        shaped like ``x`` with ``n`` points along ``axis``.
        {dtype_c2r}

    Raises
    ------
    ValueError
        {raises_value_n_out}
        {raises_value_norm_workers}
    IndexError
        {raises_index_axis}
    TypeError
        {raises_type_x}
        {raises_type_ints_1d}
    NotImplementedError
        {raises_plan}

    See Also
    --------
    ihfft : The inverse transform.
    irfft : The same computation with the conjugate input and the inverse
        normalisation.
    hfftn : The transform over several axes.
    scipy.fft.hfft : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_1d}
    The conjugate of a complex input is formed in a new array, which
    cuFFT's complex-to-real transform then overwrites.

    {notes_rows_apart}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft

    The first half of a Hermitian signal of 6 points has 4 entries:

    >>> x = gp.asarray(np.array([4.0, 1 + 1j, 0.5j, 2.0]))  # doctest: +SKIP
    >>> y = fft.hfft(x, 6)  # doctest: +SKIP
    >>> y.shape, y.dtype  # doctest: +SKIP
    ((6,), dtype('float64'))
    >>> full = np.array([4.0, 1 + 1j, 0.5j, 2.0, -0.5j, 1 - 1j])
    >>> np.allclose(gp.asnumpy(y), np.fft.fft(full).real)  # doctest: +SKIP
    True
    """
    return _c2r(True, x, n, axis, norm, workers, plan)


@fill_doc
def ihfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """Compute the inverse FFT of a signal with Hermitian symmetry.

    The inverse of :func:`hfft`: from a real spectrum, the first
    ``n//2 + 1`` points of its Hermitian-symmetric inverse DFT.
    ``ihfft(x, n)`` equals ``conj(rfft(x, n))`` with the opposite
    normalisation.

    Parameters
    ----------
    {x_real}
    {n_in}
    {axis}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The first ``n//2 + 1`` points of ``ifft(x, n, axis)``: a new
        C-contiguous array on the current device, shaped like ``x`` with
        ``n//2 + 1`` points along ``axis``.
        {dtype_r2c}

    Raises
    ------
    ValueError
        {raises_value_n}
        {raises_value_norm_workers}
    IndexError
        {raises_index_axis}
    TypeError
        {raises_type_x}
        {raises_type_real}
        {raises_type_ints_1d}
    NotImplementedError
        {raises_plan}

    See Also
    --------
    hfft : The forward transform.
    rfft : The same computation, conjugated, with the forward
        normalisation.
    ihfftn : The transform over several axes.
    scipy.fft.ihfft : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_1d}
    The conjugate is taken in place, after the normalisation.

    {notes_rows_apart}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> spectrum = np.array([15.0, -4.0, 0.0, -1.0, 0.0, -4.0])
    >>> x = fft.ihfft(gp.asarray(spectrum))  # doctest: +SKIP
    >>> x.shape, x.dtype  # doctest: +SKIP
    ((4,), dtype('complex128'))
    >>> np.allclose(gp.asnumpy(x), np.fft.ifft(spectrum)[:4])  # doctest: +SKIP
    True
    >>> np.allclose(gp.asnumpy(fft.hfft(x, 6)), spectrum)  # doctest: +SKIP
    True
    """
    return _r2c(False, x, n, axis, norm, workers, plan)


# ---------------------------------------------------------------------------
# n-D
# ---------------------------------------------------------------------------
