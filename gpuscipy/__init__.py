"""gpuscipy: SciPy on NVIDIA GPUs.

SciPy's modules, names, signatures and errors, computed on the GPU over
:mod:`gpuscipy_core`, the GPU array core (what NumPy is to SciPy).

Modules
-------
signal
    Filter design, IIR filtering, convolution, resampling, spectral
    analysis, peak finding (``scipy.signal``'s first slice).
linalg
    Dense linear algebra (``scipy.linalg``): solvers, factorizations,
    decompositions, matrix functions, special and structured matrices.
fft
    Discrete Fourier, sine and cosine transforms (``scipy.fft``).
datasets
    Real data shipped with the package (host arrays; no GPU needed).
demo
    The ``gpuscipy-demo`` pipelines, each checked against SciPy.

sparse
    Sparse arrays (``scipy.sparse``), in progress: the COO, CSR and CSC
    formats so far.

``special`` and ``ndimage`` are not built yet.

The functions of ``signal``, ``linalg`` and ``fft`` accept NumPy input (copied
to the device) as well as ``gpuscipy_core`` arrays, and return device arrays
(``gpuscipy_core.asnumpy`` brings a result back to the host); the loaders of
``datasets`` return host arrays.

Submodules load on first use, as in SciPy: ``import gpuscipy`` is cheap and
``gpuscipy.fft`` imports :mod:`gpuscipy.fft` when first touched.
"""

import importlib as _importlib

__version__ = "0.1.0"

_SUBMODULES = ("datasets", "demo", "fft", "linalg", "signal", "sparse")

__all__ = [*_SUBMODULES, "__version__"]


def __getattr__(name):
    if name in _SUBMODULES:
        # import_module stores the submodule as an attribute of this package,
        # so later look-ups do not come back here
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
