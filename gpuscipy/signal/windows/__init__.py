"""Window functions (``scipy.signal.windows``), returned on the device.

A window is at most a few thousand closed-form values (cosine sums,
Bessel functions, a Chebyshev or DPSS eigenproblem); each function here
computes it on the host with ``scipy.signal.windows`` (the reference, and
the only implementation of the eigenproblem-based ones) and returns it as a
:class:`gpuscipy_core.ndarray`. Signatures, defaults and errors are
SciPy's; SciPy's array-API arguments ``xp`` and ``device`` are not taken.
"""

import inspect

import scipy.signal.windows as _sw

from .._filter_design import _design_in

__all__ = [n for n in _sw.__all__]

_DOC = """The ``{name}`` window, computed on the host, returned on the device.

    Parameters
    ----------
    {params}
        As ``scipy.signal.windows.{name}``: ``M`` is the number of points
        (an int >= 0); ``sym=True`` gives a symmetric window for filter
        design, ``sym=False`` a periodic one for spectral analysis.

    Returns
    -------
    w : gpuscipy_core.ndarray, shape (M,)
        The window, float64 (normalised as SciPy does).{extra}

    Raises
    ------
    ValueError
        SciPy's errors for invalid parameters (a non-integer or negative
        ``M``, out-of-range shape parameters).

    Notes
    -----
    Computed by ``scipy.signal.windows.{name}`` on the host (formulas and
    references in SciPy's documentation; Harris, "On the use of windows for
    harmonic analysis with the discrete Fourier transform", Proc. IEEE 66,
    1978, for most of them).
"""

_EXTRA = {
    "dpss": "\n    ratios : gpuscipy_core.ndarray, shape (Kmax,)\n"
            "        Concentration ratios, when ``return_ratios=True``.",
}


def _wrapper(name):
    f = getattr(_sw, name)
    sig = inspect.signature(f)
    sig = sig.replace(parameters=[p for p in sig.parameters.values()
                                  if p.name not in ("xp", "device")])

    def window(*args, **kwargs):
        return _design_in(_sw, name, *args, **kwargs)

    window.__name__ = window.__qualname__ = name
    window.__module__ = __name__
    window.__signature__ = sig
    params = ", ".join(p.name for p in sig.parameters.values()
                       if p.kind is not p.VAR_KEYWORD)
    window.__doc__ = _DOC.format(name=name, params=f"{params} :",
                                 extra=_EXTRA.get(name, ""))
    return window


for _n in __all__:
    if _n != "get_window":
        globals()[_n] = _wrapper(_n)


def get_window(window, Nx, fftbins=True):
    """A window of length ``Nx`` by name (``scipy.signal.get_window``).

    Parameters
    ----------
    window : str, float or tuple
        Window name ('hann', 'hamming', 'blackman', ...), a tuple of a name
        and its parameters (``('kaiser', 8.0)``, ``('tukey', 0.25)``), or a
        float (the beta of a Kaiser window).
    Nx : int
        Number of samples.
    fftbins : bool, optional
        True (default): periodic window for spectral analysis; False:
        symmetric window for filter design.

    Returns
    -------
    w : gpuscipy_core.ndarray, shape (Nx,)
        The window, float64.

    Raises
    ------
    ValueError
        "Unknown window type." and SciPy's other errors for unknown names or
        missing window parameters.

    Notes
    -----
    Computed on the host by ``scipy.signal.get_window``.
    """
    import scipy.signal
    return _design_in(scipy.signal, "get_window", window, Nx, fftbins=fftbins)
