"""Real and Hermitian n-D discrete Fourier transforms on cuFFT: rfftn,
irfftn, rfft2, irfft2, hfftn, ihfftn, hfft2, ihfft2 (the layout strategy is
``_basic``'s)."""

from math import prod as _prod

from . import _helper as h
from ._basic import _one_plan, _scale, exec_axis, exec_trailing
from ._docs import fill_doc

__all__ = ["rfftn", "irfftn", "rfft2", "irfft2", "hfftn", "ihfftn", "hfft2",
           "ihfft2"]


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


@fill_doc
def rfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
          plan=None):
    """Compute the N-D discrete Fourier transform of real input.

    :func:`fftn` of real ``x`` with only the non-negative-frequency half,
    ``s[-1]//2 + 1`` points, kept along the last of ``axes`` (the rest
    follows from Hermitian symmetry).

    Parameters
    ----------
    {x_real}
    {s_in}
    {axes_all}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The half spectrum: a new C-contiguous array on the current device,
        shaped like ``x`` with the lengths ``s`` along ``axes`` except
        ``s[-1]//2 + 1`` along the last of them.
        {dtype_r2c}

    Raises
    ------
    ValueError
        {raises_value_s}
        {raises_value_no_axes}
        {raises_value_norm_workers}
    TypeError
        {raises_type_x}
        {raises_type_real}
        {raises_type_workers}
    NotImplementedError
        {raises_plan}

    See Also
    --------
    irfftn : The inverse transform.
    fftn : The transform of complex input.
    rfft : The 1-D transform.
    rfft2 : The transform over the last two axes.
    scipy.fft.rfftn : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_nd}

    {notes_order_r2cn}

    {notes_rows_apart}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> vol = np.random.default_rng(1).standard_normal((8, 6, 10))
    >>> y = fft.rfftn(gp.asarray(vol))  # doctest: +SKIP
    >>> y.shape, y.dtype  # doctest: +SKIP
    ((8, 6, 6), dtype('complex128'))
    >>> np.allclose(gp.asnumpy(y), np.fft.rfftn(vol))  # doctest: +SKIP
    True

    The last of ``axes`` is the one halved:

    >>> fft.rfftn(gp.asarray(vol), axes=(2, 0)).shape  # doctest: +SKIP
    (5, 6, 10)
    """
    return _r2cn(True, x, s, axes, norm, workers, plan)


@fill_doc
def rfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
          plan=None):
    """Compute the 2-D discrete Fourier transform of real input.

    :func:`rfftn` with the last two axes as the default ``axes``.

    Parameters
    ----------
    {x_real}
    {s_in}
    {axes_2d}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The half spectrum: a new C-contiguous array on the current device,
        shaped like ``x`` with the lengths ``s`` along ``axes`` except
        ``s[-1]//2 + 1`` along the last of them.
        {dtype_r2c}

    Raises
    ------
    ValueError
        {raises_value_s}
        {raises_value_no_axes}
        {raises_value_norm_workers}
        With the default ``axes``, also for ``x`` of fewer than two
        dimensions.
    TypeError
        {raises_type_x}
        {raises_type_real}
        {raises_type_workers}
    NotImplementedError
        {raises_plan}

    See Also
    --------
    irfft2 : The inverse transform.
    rfftn : The transform over any axes.
    fft2 : The transform of complex input.
    scipy.fft.rfft2 : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_nd}

    {notes_order_r2cn}

    {notes_rows_apart}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> img = np.random.default_rng(2).standard_normal((64, 64)).astype(np.float32)
    >>> y = fft.rfft2(gp.asarray(img))  # doctest: +SKIP
    >>> y.shape, y.dtype  # doctest: +SKIP
    ((64, 33), dtype('complex64'))
    """
    return _r2cn(True, x, s, axes, norm, workers, plan)


@fill_doc
def irfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
           plan=None):
    """Compute the inverse of :func:`rfftn`.

    The real N-D inverse DFT of a spectrum given by its
    non-negative-frequency half along the last of ``axes``:
    ``irfftn(rfftn(x), x.shape) == x`` up to rounding.

    Parameters
    ----------
    {x_half}
        Here the halved axis is the last of ``axes``.
    {s_out}
    {axes_all}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The real inverse transform: a new C-contiguous array on the current
        device, shaped like ``x`` with the lengths ``s`` along ``axes``.
        {dtype_c2r}

    Raises
    ------
    ValueError
        {raises_value_s}
        {raises_value_no_axes}
        {raises_value_norm_workers}
    TypeError
        {raises_type_x}
        {raises_type_workers}
    NotImplementedError
        {raises_plan}

    See Also
    --------
    rfftn : The forward transform.
    irfft : The 1-D inverse.
    irfft2 : The inverse over the last two axes.
    ifftn : The inverse with complex output.
    scipy.fft.irfftn : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_nd}

    {notes_order_c2rn}

    {notes_rows_apart}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> vol = np.random.default_rng(3).standard_normal((4, 6, 9))
    >>> y = fft.rfftn(gp.asarray(vol))  # doctest: +SKIP
    >>> y.shape  # doctest: +SKIP
    (4, 6, 5)

    An odd last length has to be given through ``s``:

    >>> fft.irfftn(y).shape  # doctest: +SKIP
    (4, 6, 8)
    >>> back = fft.irfftn(y, vol.shape)  # doctest: +SKIP
    >>> back.dtype, np.allclose(gp.asnumpy(back), vol)  # doctest: +SKIP
    (dtype('float64'), True)
    """
    return _c2rn(False, x, s, axes, norm, workers, plan)


@fill_doc
def irfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
           plan=None):
    """Compute the inverse of :func:`rfft2`.

    :func:`irfftn` with the last two axes as the default ``axes``.

    Parameters
    ----------
    {x_half}
        Here the halved axis is the last of ``axes``.
    {s_out}
    {axes_2d}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The real inverse transform: a new C-contiguous array on the current
        device, shaped like ``x`` with the lengths ``s`` along ``axes``.
        {dtype_c2r}

    Raises
    ------
    ValueError
        {raises_value_s}
        {raises_value_no_axes}
        {raises_value_norm_workers}
        With the default ``axes``, also for ``x`` of fewer than two
        dimensions.
    TypeError
        {raises_type_x}
        {raises_type_workers}
    NotImplementedError
        {raises_plan}

    See Also
    --------
    rfft2 : The forward transform.
    irfftn : The inverse over any axes.
    ifft2 : The inverse with complex output.
    scipy.fft.irfft2 : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_nd}

    {notes_order_c2rn}

    {notes_rows_apart}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> img = np.random.default_rng(4).standard_normal((32, 48))
    >>> y = fft.rfft2(gp.asarray(img))  # doctest: +SKIP
    >>> back = fft.irfft2(y)  # doctest: +SKIP
    >>> back.shape, np.allclose(gp.asnumpy(back), img)  # doctest: +SKIP
    ((32, 48), True)
    """
    return _c2rn(False, x, s, axes, norm, workers, plan)


@fill_doc
def hfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
          plan=None):
    """Compute the N-D FFT of Hermitian-symmetric complex input (a real
    spectrum).

    ``x`` is half of a Hermitian-symmetric signal, halved along the last
    of ``axes``; its N-D DFT is real. ``hfftn(x, s)`` equals
    ``irfftn(conj(x), s)`` with the opposite normalisation.

    Parameters
    ----------
    {x_half}
        Here the halved axis is the last of ``axes``.
    {s_out}
    {axes_all}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The real spectrum: a new C-contiguous array on the current device,
        shaped like ``x`` with the lengths ``s`` along ``axes``.
        {dtype_c2r}

    Raises
    ------
    ValueError
        {raises_value_s}
        {raises_value_no_axes}
        {raises_value_norm_workers}
    TypeError
        {raises_type_x}
        {raises_type_workers}
    NotImplementedError
        {raises_plan}

    See Also
    --------
    ihfftn : The inverse transform.
    hfft : The 1-D transform.
    hfft2 : The transform over the last two axes.
    irfftn : The same computation with the conjugate input and the inverse
        normalisation.
    scipy.fft.hfftn : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_nd}

    {notes_order_c2rn}

    {notes_rows_apart}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft

    The inverse transform of a real array is Hermitian; hfftn returns the
    real array from its half:

    >>> a = np.random.default_rng(5).standard_normal((4, 6))
    >>> half = fft.ihfftn(gp.asarray(a))  # doctest: +SKIP
    >>> half.shape  # doctest: +SKIP
    (4, 4)
    >>> np.allclose(gp.asnumpy(fft.hfftn(half, a.shape)), a)  # doctest: +SKIP
    True
    """
    return _c2rn(True, x, s, axes, norm, workers, plan)


@fill_doc
def hfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
          plan=None):
    """Compute the 2-D FFT of a Hermitian-symmetric complex array.

    :func:`hfftn` with the last two axes as the default ``axes``.

    Parameters
    ----------
    {x_half}
        Here the halved axis is the last of ``axes``.
    {s_out}
    {axes_2d}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The real spectrum: a new C-contiguous array on the current device,
        shaped like ``x`` with the lengths ``s`` along ``axes``.
        {dtype_c2r}

    Raises
    ------
    ValueError
        {raises_value_s}
        {raises_value_no_axes}
        {raises_value_norm_workers}
        With the default ``axes``, also for ``x`` of fewer than two
        dimensions.
    TypeError
        {raises_type_x}
        {raises_type_workers}
    NotImplementedError
        {raises_plan}

    See Also
    --------
    ihfft2 : The inverse transform.
    hfftn : The transform over any axes.
    irfft2 : The same computation with the conjugate input and the inverse
        normalisation.
    scipy.fft.hfft2 : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_nd}

    {notes_order_c2rn}

    {notes_rows_apart}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> a = np.random.default_rng(6).standard_normal((5, 8))
    >>> half = fft.ihfft2(gp.asarray(a))  # doctest: +SKIP
    >>> y = fft.hfft2(half, a.shape)  # doctest: +SKIP
    >>> y.dtype, np.allclose(gp.asnumpy(y), a)  # doctest: +SKIP
    (dtype('float64'), True)
    """
    return _c2rn(True, x, s, axes, norm, workers, plan)


@fill_doc
def ihfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
           plan=None):
    """Compute the N-D inverse discrete Fourier transform of a real
    spectrum.

    The inverse of :func:`hfftn`: :func:`ifftn` of real ``x`` with only the
    first ``s[-1]//2 + 1`` points kept along the last of ``axes``.
    ``ihfftn(x, s)`` equals ``conj(rfftn(x, s))`` with the opposite
    normalisation.

    Parameters
    ----------
    {x_real}
    {s_in}
    {axes_all}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The half of the Hermitian inverse transform: a new C-contiguous
        array on the current device, shaped like ``x`` with the lengths
        ``s`` along ``axes`` except ``s[-1]//2 + 1`` along the last of
        them.
        {dtype_r2c}

    Raises
    ------
    ValueError
        {raises_value_s}
        {raises_value_no_axes}
        {raises_value_norm_workers}
    TypeError
        {raises_type_x}
        {raises_type_real}
        {raises_type_workers}
    NotImplementedError
        {raises_plan}

    See Also
    --------
    hfftn : The forward transform.
    ihfft : The 1-D transform.
    ihfft2 : The transform over the last two axes.
    rfftn : The same computation, conjugated, with the forward
        normalisation.
    scipy.fft.ihfftn : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_nd}

    {notes_order_r2cn}

    {notes_rows_apart}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> a = np.random.default_rng(7).standard_normal((3, 4, 10))
    >>> y = fft.ihfftn(gp.asarray(a))  # doctest: +SKIP
    >>> y.shape, y.dtype  # doctest: +SKIP
    ((3, 4, 6), dtype('complex128'))
    >>> np.allclose(gp.asnumpy(y), np.fft.ifftn(a)[..., :6])  # doctest: +SKIP
    True
    """
    return _r2cn(False, x, s, axes, norm, workers, plan)


@fill_doc
def ihfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
           plan=None):
    """Compute the 2-D inverse FFT of a real spectrum.

    :func:`ihfftn` with the last two axes as the default ``axes``, the
    inverse of :func:`hfft2`.

    Parameters
    ----------
    {x_real}
    {s_in}
    {axes_2d}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The half of the Hermitian inverse transform: a new C-contiguous
        array on the current device, shaped like ``x`` with the lengths
        ``s`` along ``axes`` except ``s[-1]//2 + 1`` along the last of
        them.
        {dtype_r2c}

    Raises
    ------
    ValueError
        {raises_value_s}
        {raises_value_no_axes}
        {raises_value_norm_workers}
        With the default ``axes``, also for ``x`` of fewer than two
        dimensions.
    TypeError
        {raises_type_x}
        {raises_type_real}
        {raises_type_workers}
    NotImplementedError
        {raises_plan}

    See Also
    --------
    hfft2 : The forward transform.
    ihfftn : The transform over any axes.
    rfft2 : The same computation, conjugated, with the forward
        normalisation.
    scipy.fft.ihfft2 : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_nd}

    {notes_order_r2cn}

    {notes_rows_apart}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> a = np.random.default_rng(8).standard_normal((6, 6)).astype(np.float32)
    >>> y = fft.ihfft2(gp.asarray(a))  # doctest: +SKIP
    >>> y.shape, y.dtype  # doctest: +SKIP
    ((6, 4), dtype('complex64'))
    """
    return _r2cn(False, x, s, axes, norm, workers, plan)
