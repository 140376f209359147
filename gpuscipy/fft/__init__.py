"""
Discrete Fourier transforms on the GPU (:mod:`gpuscipy.fft`)
=============================================================

``scipy.fft`` on NVIDIA GPUs: the same functions, signatures, defaults,
result dtypes and errors, computed with cuFFT (through
``gpuscipy_core.libs.cufft``) and fused pre/post-processing kernels.
Inputs are ``gpuscipy_core`` arrays; results are new C-contiguous device
arrays.

Fast Fourier Transforms (FFTs)
------------------------------
fft, ifft, fft2, ifft2, fftn, ifftn
    (Inverse) discrete Fourier transform in 1-D, 2-D and N-D.
rfft, irfft, rfft2, irfft2, rfftn, irfftn
    The same for real input (half spectrum).
hfft, ihfft, hfft2, ihfft2, hfftn, ihfftn
    The same for Hermitian-symmetric input (real spectrum).

Discrete Sin and Cosine Transforms (DST and DCT)
------------------------------------------------
dct, idct, dctn, idctn
    (Inverse) discrete cosine transform, types 1-4, 1-D and N-D.
dst, idst, dstn, idstn
    (Inverse) discrete sine transform, types 1-4, 1-D and N-D.

Fast Hankel Transforms
----------------------
fht, ifht
    Fast Hankel transform and its inverse (FFTLog).

Helper functions
----------------
fftshift, ifftshift
    Shift the zero-frequency component to the centre of the spectrum.
fftfreq, rfftfreq
    Sample frequencies.
fhtoffset
    Optimal offset for the fast Hankel transform.
next_fast_len, prev_fast_len
    Closest sizes that cuFFT transforms fastest (7-smooth numbers).
set_workers, get_workers
    SciPy's worker count (accepted; the GPU ignores it).

Backend control
---------------
set_backend, skip_backend, set_global_backend, register_backend
    SciPy's uarray backend controls. This module is itself a backend:
    ``with scipy.fft.set_backend(gpuscipy.fft): scipy.fft.fft(x)`` runs on
    the GPU for a device array ``x`` (host arrays fall through to SciPy).

Plan cache
----------
plan_cache
    ``plan_cache.info()``, ``plan_cache.clear()``,
    ``plan_cache.set_limits(max_plans, max_bytes)``: the per-thread LRU of
    cuFFT plans (see ``docs/fft.md``).

Normalization
-------------
``norm="backward"`` (default) scales the inverse transforms by 1/n,
``"forward"`` the forward ones, ``"ortho"`` both by 1/sqrt(n).
"""

from . import _backend, _plan
from ._backend import (get_workers, register_backend, set_backend,
                       set_global_backend, set_workers, skip_backend)
from ._basic import fft, hfft, ifft, ihfft, irfft, rfft
from ._basic_nd import fft2, fftn, ifft2, ifftn
from ._real_nd import hfft2, hfftn, ihfft2, ihfftn, irfft2, irfftn, rfft2, rfftn
from ._fftlog import fht, fhtoffset, ifht
from ._helper import (fftfreq, fftshift, ifftshift, next_fast_len, prev_fast_len,
                      rfftfreq)
from ._realtransforms import dct, dctn, dst, dstn, idct, idctn, idst, idstn

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft",
           "rfft2", "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "hfft2",
           "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift", "next_fast_len", "prev_fast_len", "dct", "idct", "dst",
           "idst", "dctn", "idctn", "dstn", "idstn", "fht", "ifht", "fhtoffset",
           "set_backend", "skip_backend", "set_global_backend", "register_backend",
           "get_workers", "set_workers"]

plan_cache = _plan.plan_cache

# Public functions report their public home.
for _name in __all__:
    _obj = globals()[_name]
    try:
        _obj.__module__ = __name__
    except (AttributeError, TypeError):
        pass
del _name, _obj

# uarray backend protocol (scipy.fft.set_backend(gpuscipy.fft))
__ua_domain__ = "numpy.scipy.fft"
_namespace = {_n: globals()[_n] for _n in __all__}


def __ua_function__(method, args, kwargs):
    return _backend.ua_function(_namespace, method, args, kwargs)

