"""Writing your own kernels: the API every gpuscipy module is built on.

CuPy's kernel classes, with CuPy's signatures (code written for CuPy runs
unchanged):

``ElementwiseKernel``, ``ReductionKernel``
    C++ snippets applied per element / reduced along axes, with broadcasting,
    type placeholders and NumPy's casting.
``RawKernel(code, name)``, ``RawModule(code=..., name_expressions=...)``
    Whole CUDA C++ sources: ``extern "C"`` kernels, or C++ template kernels
    instantiated by name (``get_function("ns::kernel<float, 4>")``);
    ``RawModule(path=...)`` loads a cubin, fatbin or PTX file.

What gpuscipy's own modules use besides (one name each):

``get_function(source, name, options=(), name_expressions=None)``
    The one bounded cache from source to a loaded :class:`Function` (the
    classes above use it too); compiled cubins persist on disk
    (:func:`cache_dir`), keyed by everything that decides them.
``launch(source, name, grid, block, args, shared_mem=0, options=(), stream=None)``
    ``get_function(...)(grid, block, args, shared_mem, stream)``.
``read_source(path)``
    The text of a ``.cuh`` file kept beside the Python that launches it (read
    once per process): device code lives in such files, pasted into the
    source, so its content is part of the cache key.
``ctype(dtype)``
    The C++ type of a dtype in device code (``complex<double>``, ...).
``device_limits(device_id=None)``
    :class:`DeviceLimits` of a device (SM count, shared memory per block
    with and without the opt-in, registers, ...), read once per device.
``include_dir()``, ``cccl_options()``
    The folder of the core's device headers (``#include <gpuscipy/...>``,
    always on the include path) and the options that add CUB / libcu++.
``compile_cubin(source, name, options=(), arch="sm_90")``
    NVRTC alone (no GPU needed): what the tests use to compile every kernel.

Arguments of a launch (``args``) are device arrays (their pointer), NumPy
scalars (their type), Python ``int`` (``long long``), ``float``
(``double``), ``bool`` and ``bytes`` (a struct, at 8-byte alignment).
Errors: ``NVRTCError`` (with NVRTC's log and the source lines around the
first error), ``CUDAError`` from the driver; both are ``cuda.GPUError``.
"""

from ._cuda._device import DeviceLimits, device_limits
from ._kernel import _cache
from ._kernel._cache import cache_dir
from ._kernel._module import Function, get_function
from ._kernel._nvrtc import (NVRTCError, cccl_options, compile_cubin, include_dir,
                             read_source)
from ._kernel._reduction_kernel import ReductionKernel
from ._kernel._ufunc_names import ctype
from ._kernel._user_kernels import ElementwiseKernel, RawKernel, RawModule

__all__ = ["ElementwiseKernel", "ReductionKernel", "RawKernel", "RawModule", "Function",
           "get_function", "launch", "read_source", "ctype", "DeviceLimits",
           "device_limits", "include_dir", "cccl_options", "compile_cubin", "cache_dir",
           "clear_cache", "cache_stats", "NVRTCError"]


def clear_cache(disk=True):
    """Empty the in-process kernel cache and, with ``disk=True``, the disk
    store (:func:`cache_dir`)."""
    _cache.clear(disk)


def cache_stats():
    """This process's counts: NVRTC compiles, disk hits, memory hits, disk
    entries rebuilt."""
    return _cache.stats()


def launch(source, name, grid, block, args, shared_mem=0, options=(), stream=None):
    """Launch kernel ``name`` of ``source`` (see :func:`get_function`).

    Parameters
    ----------
    source, name, options
        As :func:`get_function` (``name`` may be a C++ name expression).
    grid, block : tuple of int
        Up to three extents each.
    args : sequence
        Kernel arguments (see the module docstring).
    shared_mem : int
        Dynamic shared memory in bytes; above 48 KiB the function opts in
        (up to ``device_limits().shared_per_block_optin``).
    stream : gpuscipy_core.cuda.Stream, optional
        Default: the current stream.
    """
    get_function(source, name, options)(grid, block, args, shared_mem, stream)


from ._public import set_home as _set_home  # noqa: E402
# NVRTCError's home is gpuscipy_core.cuda, beside the other errors
_set_home(globals(), __name__, [n for n in __all__ if n != "NVRTCError"])
del _set_home
