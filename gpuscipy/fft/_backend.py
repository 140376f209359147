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


def set_backend(backend, coerce=False, only=False):
    """Context manager to set the backend within a fixed scope
    (:func:`scipy.fft.set_backend`).

    Parameters
    ----------
    backend : {object, 'scipy'}
        The backend to use: a module with ``__ua_domain__ ==
        "numpy.scipy.fft"`` such as :mod:`gpuscipy.fft`, or 'scipy'.
    coerce : bool, optional
        Whether to allow expensive conversions for the ``x`` parameter.
    only : bool, optional
        If only is ``True`` and this backend returns ``NotImplemented``,
        then a BackendNotImplemented error will be raised immediately.

    Returns
    -------
    context manager
        Activates ``backend`` on entry, restores the previous backends on
        exit.

    Raises
    ------
    ValueError
        ``backend`` is a string other than 'scipy' ("Unknown backend"), or
        an object whose ``__ua_domain__`` is not ``"numpy.scipy.fft"``.
    AttributeError
        ``backend`` has no ``__ua_domain__``.

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
    """
    return _sfft.set_backend(backend, coerce=coerce, only=only)


def skip_backend(backend):
    """Context manager to skip a backend within a fixed scope
    (:func:`scipy.fft.skip_backend`).

    Parameters
    ----------
    backend : {object, 'scipy'}
        The backend to skip.

    Returns
    -------
    context manager
        Skips ``backend`` inside the context (nested contexts included).

    Raises
    ------
    ValueError
        ``backend`` is a string other than 'scipy' ("Unknown backend"), or
        an object whose ``__ua_domain__`` is not ``"numpy.scipy.fft"``.
    AttributeError
        ``backend`` has no ``__ua_domain__``.

    Notes
    -----
    Delegates to :func:`scipy.fft.skip_backend` (uarray). Skipping 'scipy'
    while no other backend answers makes ``scipy.fft`` calls raise
    ``uarray.BackendNotImplementedError``; skipping :mod:`gpuscipy.fft`
    hands device arrays to the remaining backends (SciPy's, which works
    on host arrays).
    """
    return _sfft.skip_backend(backend)


def set_global_backend(backend, coerce=False, only=False, try_last=False):
    """Sets the global fft backend (:func:`scipy.fft.set_global_backend`).

    Parameters
    ----------
    backend : {object, 'scipy'}
        The backend to use.
    coerce : bool
        Whether to coerce input types when trying this backend.
    only : bool
        If ``True``, no more backends will be tried if this fails.
    try_last : bool
        If ``True``, the global backend is tried after registered backends.

    Raises
    ------
    ValueError
        If the backend does not implement ``numpy.scipy.fft`` (its
        ``__ua_domain__`` differs), or is a string other than 'scipy'
        ("Unknown backend").
    AttributeError
        ``backend`` has no ``__ua_domain__``.

    Notes
    -----
    Delegates to :func:`scipy.fft.set_global_backend` (uarray): the global
    backend is process-wide, replaces SciPy's default ('scipy'), and is
    tried after any :func:`set_backend` context and before the registered
    backends. With :mod:`gpuscipy.fft` as the global backend, calls on host
    arrays and the functions without an array argument find no
    implementation and raise ``uarray.BackendNotImplementedError`` unless
    'scipy' is also registered (``register_backend('scipy')``).
    """
    return _sfft.set_global_backend(backend, coerce=coerce, only=only,
                                    try_last=try_last)


def register_backend(backend):
    """Register a backend for permanent use (:func:`scipy.fft.register_backend`).

    Parameters
    ----------
    backend : {object, 'scipy'}
        The backend to register.

    Raises
    ------
    ValueError
        If the backend does not implement ``numpy.scipy.fft`` (its
        ``__ua_domain__`` differs), or is a string other than 'scipy'
        ("Unknown backend").
    AttributeError
        ``backend`` has no ``__ua_domain__``.

    Notes
    -----
    Delegates to :func:`scipy.fft.register_backend` (uarray). Registration
    is permanent for the process (there is no unregister); registered
    backends are tried after the global backend, unless a backend tried
    before was set with ``only=True``. Registering :mod:`gpuscipy.fft` is
    harmless for host arrays: it answers ``NotImplemented`` for them and
    the next backend handles the call.
    """
    return _sfft.register_backend(backend)


def get_workers():
    """Returns the default number of workers within the current context
    (:func:`scipy.fft.get_workers`; the GPU transforms ignore it).

    Returns
    -------
    workers : int
        The value set by the innermost :func:`set_workers` context, else 1;
        negative values of ``set_workers`` come back resolved against the
        CPU count, as SciPy.

    Notes
    -----
    Delegates to ``scipy.fft.get_workers``, so the setting is shared with
    SciPy's CPU transforms (handed to SciPy by the backend machinery). The
    GPU transforms run one cuFFT plan per call and ignore it; no device
    work.
    """
    return _sfft.get_workers()


def set_workers(workers):
    """Context manager for the default number of workers used in `scipy.fft`
    (:func:`scipy.fft.set_workers`; the GPU transforms ignore it).

    Parameters
    ----------
    workers : int
        The default number of workers to use.

    Returns
    -------
    context manager

    Raises
    ------
    ValueError
        On entering the context: ``workers == 0`` or below ``-cpu_count``
        (as SciPy).
    TypeError
        On entering the context: ``workers`` is not an integer.

    Notes
    -----
    Delegates to ``scipy.fft.set_workers``; the GPU transforms ignore the
    setting.
    """
    return _sfft.set_workers(workers)
