"""The uarray backend protocol and SciPy's backend/worker controls.

``gpuscipy.fft`` is itself a backend for ``scipy.fft`` (it carries
``__ua_domain__`` and ``__ua_function__``), so::

    with scipy.fft.set_backend(gpuscipy.fft):
        y = scipy.fft.fft(device_array)     # runs on the GPU

Calls whose array arguments are not gpuscipy_core arrays, and functions
gpuscipy.fft does not have, answer ``NotImplemented`` so that uarray falls
through to the next backend (SciPy's own for host arrays).

set_backend, skip_backend, set_global_backend, register_backend,
get_workers and set_workers are thin wrappers over scipy.fft's.
"""

import scipy.fft as _sfft

from ._docs import fill_doc

__all__ = ["set_backend", "skip_backend", "set_global_backend", "register_backend",
           "get_workers", "set_workers", "ua_function"]

# positional/keyword names of the array argument of each function
_ARRAY_ARG = {"fht": "a", "ifht": "A"}
_NO_ARRAY = frozenset({"fftfreq", "rfftfreq", "next_fast_len", "prev_fast_len",
                       "fhtoffset"})


def ua_function(namespace, method, args, kwargs):
    """``__ua_function__`` of the module whose public functions are
    ``namespace`` (a dict)."""
    from . import _helper as h
    name = getattr(method, "__name__", None)
    fn = namespace.get(name)
    if fn is None or not callable(fn):
        return NotImplemented
    if name in _NO_ARRAY:
        # no array to decide on: serve only if the caller asked for a
        # device result explicitly (xp/device are SciPy's array-API knobs)
        return NotImplemented
    key = _ARRAY_ARG.get(name, "x")
    x = args[0] if args else kwargs.get(key)
    if not h.is_device_array(x):
        return NotImplemented
    return fn(*args, **kwargs)


@fill_doc
def set_backend(backend, coerce=False, only=False):
    """Context manager to set the backend within a fixed scope.

    Inside the ``with`` block, ``scipy.fft`` calls try ``backend`` first
    (:func:`scipy.fft.set_backend`, shared with SciPy).

    Parameters
    ----------
    {backend}
    coerce : bool, optional
        Whether to allow expensive conversions of the ``x`` argument to the
        backend's array type. Default False.
    only : bool, optional
        If True, and this backend returns ``NotImplemented``, no other
        backend is tried: ``uarray.BackendNotImplementedError`` is raised at
        once. Default False.

    Returns
    -------
    context : context manager
        Activates ``backend`` on entry, restores the previous backends on
        exit.

    Raises
    ------
    ValueError
        {raises_backend_value}
    AttributeError
        {raises_backend_attribute}

    See Also
    --------
    skip_backend : Skip a backend within a scope.
    set_global_backend : Set the backend for the whole process.
    scipy.fft.set_backend : The SciPy function this wraps.

    Notes
    -----
    Delegates to :func:`scipy.fft.set_backend` (uarray); the errors above
    are raised by the call, before the context is entered. With
    :mod:`gpuscipy.fft` as ``backend``, functions called on gpuscipy_core
    arrays run on the GPU; calls on host arrays, and the functions without
    an array argument (fftfreq, rfftfreq, next_fast_len, prev_fast_len,
    fhtoffset), answer ``NotImplemented`` and fall through to SciPy --
    unless ``only=True`` or ``coerce=True`` (which implies ``only`` in
    uarray), in which case they raise ``uarray.BackendNotImplementedError``
    (a ``NotImplementedError``). :mod:`gpuscipy.fft` has no
    ``__ua_convert__``: host arrays are never copied to the device.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.fft
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> x = gp.asarray(np.ones(16))  # doctest: +SKIP
    >>> with fft.set_backend(fft):  # doctest: +SKIP
    ...     y = scipy.fft.fft(x)  # a device array: runs on the GPU
    ...     z = scipy.fft.fft(np.ones(16))  # a host array: SciPy's own
    >>> type(y) is gp.ndarray, type(z) is np.ndarray  # doctest: +SKIP
    (True, True)
    """
    return _sfft.set_backend(backend, coerce=coerce, only=only)


@fill_doc
def skip_backend(backend):
    """Context manager to skip a backend within a fixed scope.

    Inside the ``with`` block, ``scipy.fft`` calls do not try ``backend``,
    even where it is set or registered (:func:`scipy.fft.skip_backend`).

    Parameters
    ----------
    {backend}

    Returns
    -------
    context : context manager
        Skips ``backend`` inside the context (nested contexts included).

    Raises
    ------
    ValueError
        {raises_backend_value}
    AttributeError
        {raises_backend_attribute}

    See Also
    --------
    set_backend : Set a backend within a scope.
    scipy.fft.skip_backend : The SciPy function this wraps.

    Notes
    -----
    Delegates to :func:`scipy.fft.skip_backend` (uarray). Skipping 'scipy'
    while no other backend answers makes ``scipy.fft`` calls raise
    ``uarray.BackendNotImplementedError``; skipping :mod:`gpuscipy.fft`
    hands device arrays to the remaining backends (SciPy's, which works
    on host arrays).

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.fft
    >>> import gpuscipy.fft as fft
    >>> with fft.set_backend(fft), fft.skip_backend(fft):
    ...     y = scipy.fft.fft(np.ones(4))  # SciPy computes it
    >>> y.real
    array([4., 0., 0., 0.])
    """
    return _sfft.skip_backend(backend)


@fill_doc
def set_global_backend(backend, coerce=False, only=False, try_last=False):
    """Set the global backend of ``scipy.fft``.

    The backend tried for every ``scipy.fft`` call of the process, after
    any :func:`set_backend` context and before the registered backends
    (:func:`scipy.fft.set_global_backend`).

    Parameters
    ----------
    {backend}
    coerce : bool, optional
        Whether to coerce input types when trying this backend. Default
        False.
    only : bool, optional
        If True, no more backends are tried when this one returns
        ``NotImplemented``. Default False.
    try_last : bool, optional
        If True, the global backend is tried after the registered backends.
        Default False.

    Raises
    ------
    ValueError
        {raises_backend_value}
    AttributeError
        {raises_backend_attribute}

    See Also
    --------
    set_backend : Set a backend within a scope only.
    register_backend : Add a backend to try after the global one.
    scipy.fft.set_global_backend : The SciPy function this wraps.

    Notes
    -----
    Delegates to :func:`scipy.fft.set_global_backend` (uarray): the global
    backend is process-wide and replaces SciPy's default ('scipy'). With
    :mod:`gpuscipy.fft` as the global backend, calls on host arrays and the
    functions without an array argument find no implementation and raise
    ``uarray.BackendNotImplementedError`` unless 'scipy' is also registered
    (``register_backend('scipy')``). Returns None.

    Examples
    --------
    >>> import gpuscipy.fft as fft
    >>> fft.set_global_backend(fft)  # doctest: +SKIP
    >>> fft.register_backend("scipy")  # doctest: +SKIP
    >>> fft.set_global_backend("scipy")  # doctest: +SKIP
    """
    return _sfft.set_global_backend(backend, coerce=coerce, only=only,
                                    try_last=try_last)


@fill_doc
def register_backend(backend):
    """Register a backend of ``scipy.fft`` for permanent use.

    Registered backends are tried after the global backend, for the rest
    of the process (:func:`scipy.fft.register_backend`).

    Parameters
    ----------
    {backend}

    Raises
    ------
    ValueError
        {raises_backend_value}
    AttributeError
        {raises_backend_attribute}

    See Also
    --------
    set_global_backend : Set the backend tried before the registered ones.
    set_backend : Set a backend within a scope.
    scipy.fft.register_backend : The SciPy function this wraps.

    Notes
    -----
    Delegates to :func:`scipy.fft.register_backend` (uarray). Registration
    is permanent for the process (there is no unregister); registered
    backends are tried after the global backend, unless a backend tried
    before was set with ``only=True``. Registering :mod:`gpuscipy.fft` is
    harmless for host arrays: it answers ``NotImplemented`` for them and
    the next backend handles the call. Returns None.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.fft
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> fft.register_backend(fft)  # doctest: +SKIP
    >>> type(scipy.fft.rfft(gp.asarray(np.ones(8)))) is gp.ndarray  # doctest: +SKIP
    True
    """
    return _sfft.register_backend(backend)


@fill_doc
def get_workers():
    """Return the default number of workers within the current context.

    SciPy's setting (:func:`scipy.fft.get_workers`), which the GPU
    transforms ignore.

    Returns
    -------
    workers : int
        The value set by the innermost :func:`set_workers` context, else 1;
        negative values of ``set_workers`` come back resolved against the
        CPU count, as in SciPy.

    See Also
    --------
    set_workers : Set the value within a scope.
    scipy.fft.get_workers : The SciPy function this wraps.

    Notes
    -----
    Delegates to ``scipy.fft.get_workers``, so the setting is shared with
    SciPy's CPU transforms (handed to SciPy by the backend machinery). The
    GPU transforms run one cuFFT plan per call and ignore it; no device
    work.

    Examples
    --------
    >>> import gpuscipy.fft as fft
    >>> fft.get_workers()
    1
    >>> with fft.set_workers(4):
    ...     fft.get_workers()
    4
    """
    return _sfft.get_workers()


@fill_doc
def set_workers(workers):
    """Context manager for the default number of workers of ``scipy.fft``.

    SciPy's setting (:func:`scipy.fft.set_workers`), which the GPU
    transforms ignore.

    Parameters
    ----------
    workers : int
        The default number of workers inside the context; negative values
        count back from the number of CPUs (-1: all of them).

    Returns
    -------
    context : context manager
        Sets the default on entry and restores the previous one on exit.

    Raises
    ------
    ValueError
        On entering the context: ``workers == 0`` or below ``-cpu_count``
        (as in SciPy).
    TypeError
        On entering the context: ``workers`` is not an integer.

    See Also
    --------
    get_workers : Read the value.
    scipy.fft.set_workers : The SciPy function this wraps.

    Notes
    -----
    Delegates to ``scipy.fft.set_workers``; the GPU transforms ignore the
    setting, SciPy's CPU transforms (host arrays under a backend context)
    use it.

    Examples
    --------
    >>> import gpuscipy.fft as fft
    >>> with fft.set_workers(2):
    ...     fft.get_workers()
    2
    """
    return _sfft.set_workers(workers)
