"""Complex n-D discrete Fourier transforms on cuFFT: fftn, ifftn, fft2,
ifft2 (the layout strategy is ``_basic``'s)."""

from math import prod as _prod

from . import _helper as h
from ._basic import _scale, _trailing, exec_axis, exec_trailing
from ._docs import fill_doc

__all__ = ["fftn", "ifftn", "fft2", "ifft2"]


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


@fill_doc
def fftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
         plan=None):
    """Compute the N-D discrete Fourier transform.

    The DFT of ``x`` over any number of axes (by default all of them), the
    1-D transform of :func:`fft` applied along each of ``axes``.

    Parameters
    ----------
    {x_any}
    {s_in}
    {axes_all}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The transform: a new C-contiguous array on the current device,
        shaped like ``x`` with the lengths ``s`` along ``axes``.
        {dtype_c2c}
        {returns_no_axes}

    Raises
    ------
    ValueError
        {raises_value_s}
        {raises_value_norm_workers}
    TypeError
        {raises_type_x}
        {raises_type_workers}
    NotImplementedError
        {raises_plan}

    See Also
    --------
    ifftn : The inverse transform.
    fft : The 1-D transform.
    fft2 : The transform over the last two axes.
    rfftn : The transform of real input (half the last transformed axis).
    scipy.fft.fftn : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_nd}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> a = np.arange(24.0).reshape(2, 3, 4)
    >>> y = fft.fftn(gp.asarray(a))  # doctest: +SKIP
    >>> y.shape, y.dtype  # doctest: +SKIP
    ((2, 3, 4), dtype('complex128'))
    >>> np.allclose(gp.asnumpy(y), np.fft.fftn(a))  # doctest: +SKIP
    True

    The zero-frequency term is the sum of all entries; ``s`` zero-pads:

    >>> complex(gp.asnumpy(y)[0, 0, 0])  # doctest: +SKIP
    (276+0j)
    >>> fft.fftn(gp.asarray(a), s=(4, 8), axes=(1, 2)).shape  # doctest: +SKIP
    (2, 4, 8)
    """
    return _c2cn(True, x, s, axes, norm, workers, plan)


@fill_doc
def ifftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
          plan=None):
    """Compute the N-D inverse discrete Fourier transform.

    The inverse of :func:`fftn`: ``ifftn(fftn(x)) == x`` up to rounding.

    Parameters
    ----------
    {x_any}
    {s_in}
    {axes_all}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The inverse transform: a new C-contiguous array on the current
        device, shaped like ``x`` with the lengths ``s`` along ``axes``.
        {dtype_c2c}
        {returns_no_axes}

    Raises
    ------
    ValueError
        {raises_value_s}
        {raises_value_norm_workers}
    TypeError
        {raises_type_x}
        {raises_type_workers}
    NotImplementedError
        {raises_plan}

    See Also
    --------
    fftn : The forward transform.
    ifft : The 1-D inverse transform.
    ifft2 : The inverse transform over the last two axes.
    irfftn : The inverse of :func:`rfftn` (real output).
    scipy.fft.ifftn : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_nd}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> a = np.arange(24.0).reshape(2, 3, 4)
    >>> y = fft.fftn(gp.asarray(a))  # doctest: +SKIP
    >>> b = fft.ifftn(y)  # doctest: +SKIP
    >>> b.dtype, np.allclose(gp.asnumpy(b), a)  # doctest: +SKIP
    (dtype('complex128'), True)
    """
    return _c2cn(False, x, s, axes, norm, workers, plan)


@fill_doc
def fft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
         plan=None):
    """Compute the 2-D discrete Fourier transform.

    :func:`fftn` with the last two axes as the default ``axes``: for a
    stack of images, the transform of every image.

    Parameters
    ----------
    {x_any}
    {s_in}
    {axes_2d}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The transform: a new C-contiguous array on the current device,
        shaped like ``x`` with the lengths ``s`` along ``axes``.
        {dtype_c2c}
        {returns_no_axes}

    Raises
    ------
    ValueError
        {raises_value_s}
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
    ifft2 : The inverse transform.
    fftn : The transform over any axes.
    rfft2 : The transform of real input.
    scipy.fft.fft2 : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_nd}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft

    Ten 4 x 4 images, each transformed on its own (one batched cuFFT plan):

    >>> imgs = np.random.default_rng(0).standard_normal((10, 4, 4))
    >>> y = fft.fft2(gp.asarray(imgs.astype(np.float32)))  # doctest: +SKIP
    >>> y.shape, y.dtype  # doctest: +SKIP
    ((10, 4, 4), dtype('complex64'))
    >>> np.allclose(gp.asnumpy(y), np.fft.fft2(imgs), atol=1e-4)  # doctest: +SKIP
    True
    """
    return _c2cn(True, x, s, axes, norm, workers, plan)


@fill_doc
def ifft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *,
          plan=None):
    """Compute the 2-D inverse discrete Fourier transform.

    :func:`ifftn` with the last two axes as the default ``axes``, the
    inverse of :func:`fft2`.

    Parameters
    ----------
    {x_any}
    {s_in}
    {axes_2d}
    {norm}
    {overwrite_x}
    {workers}
    {plan}

    Returns
    -------
    out : gpuscipy_core.ndarray
        The inverse transform: a new C-contiguous array on the current
        device, shaped like ``x`` with the lengths ``s`` along ``axes``.
        {dtype_c2c}
        {returns_no_axes}

    Raises
    ------
    ValueError
        {raises_value_s}
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
    fft2 : The forward transform.
    ifftn : The inverse transform over any axes.
    irfft2 : The inverse of :func:`rfft2` (real output).
    scipy.fft.ifft2 : The CPU function this mirrors.

    Notes
    -----
    {notes_dft}

    {notes_cufft}

    {notes_layout_nd}

    References
    ----------
    {references_fft}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> img = np.arange(12.0).reshape(3, 4)
    >>> back = fft.ifft2(fft.fft2(gp.asarray(img)))  # doctest: +SKIP
    >>> np.allclose(gp.asnumpy(back), img)  # doctest: +SKIP
    True
    """
    return _c2cn(False, x, s, axes, norm, workers, plan)
