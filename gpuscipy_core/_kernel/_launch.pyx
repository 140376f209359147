# cython: language_level=3
"""Kernel launch: the one place that calls ``cuLaunchKernel``."""

import numpy

from cuda.bindings cimport cydriver
from libc.string cimport memcpy
from libc.stdint cimport int64_t

from gpuscipy_core._ndarray cimport ndarray

from .._cuda._errors import CUDAError

__all__ = ["launch_args", "packed_args"]

cdef enum:
    MAX_ARGS = 128
    ARG_BYTES = 32768      # the packing buffer (8-byte words)
    PARAM_LIMIT = 32764    # the driver's limit on a kernel's parameters (CUDA 12.1+, sm_70+)


cdef int launch_packed(size_t func, unsigned int gx, unsigned int gy, unsigned int gz,
                       unsigned int bx, unsigned int by, unsigned int bz,
                       unsigned int shmem, size_t stream, void* params) except -1:
    """Launch a kernel whose only parameter is a struct held at ``params``."""
    cdef void* args[1]
    cdef cydriver.CUresult err
    args[0] = params
    err = cydriver.cuLaunchKernel(<cydriver.CUfunction>func, gx, gy, gz, bx, by, bz,
                                  shmem, <cydriver.CUstream>stream, args, NULL)
    if err != cydriver.CUDA_SUCCESS:
        raise CUDAError("cuLaunchKernel", <int>err)
    return 0


def launch_args(size_t func, grid, block, tuple args, unsigned int shmem, size_t stream):
    """Launch ``func`` with kernel arguments given as Python objects.

    Each argument becomes one kernel parameter: an object with a device
    pointer (a gpuscipy ndarray, anything with ``__cuda_array_interface__``)
    is passed as a pointer; a NumPy scalar as its own type; a Python ``bool``
    as ``bool``, ``int`` as ``long long``, ``float`` as ``double``,
    ``complex`` as ``complex<double>``; ``bytes`` as a struct of those bytes.
    """
    cdef char storage[ARG_BYTES]
    cdef void* ptrs[MAX_ARGS]
    cdef unsigned int g[3]
    cdef unsigned int b[3]
    cdef cydriver.CUresult err
    _dims(grid, g)
    _dims(block, b)
    _pack(args, storage, ptrs)
    err = cydriver.cuLaunchKernel(<cydriver.CUfunction>func, g[0], g[1], g[2],
                                  b[0], b[1], b[2], shmem,
                                  <cydriver.CUstream>stream, ptrs, NULL)
    if err != cydriver.CUDA_SUCCESS:
        raise CUDAError("cuLaunchKernel", <int>err)


def packed_args(tuple args):
    """The parameter buffer :func:`launch_args` hands the driver for
    ``args``: (its bytes, each parameter's offset). For tests (no GPU)."""
    cdef char storage[ARG_BYTES]
    cdef void* ptrs[MAX_ARGS]
    cdef size_t used = _pack(args, storage, ptrs)
    offsets = [<size_t>(<char*>ptrs[k] - storage) for k in range(len(args))]
    return storage[:used], offsets


cdef inline int _room(size_t off, size_t n) except -1:
    """Raise unless ``n`` bytes at ``off`` fit the driver's parameter limit."""
    if off + n > PARAM_LIMIT:
        raise ValueError(f"kernel arguments exceed the {PARAM_LIMIT}-byte parameter space")
    return 0


cdef size_t _pack(tuple args, char* storage, void** ptrs) except? 0:
    """Lay ``args`` out in ``storage`` at their alignments, ``ptrs[k]`` at
    parameter k; returns the bytes used."""
    cdef size_t off = 0, n, align
    cdef int64_t iv
    cdef double dv
    cdef char word[8]
    cdef size_t pv
    cdef const unsigned char[:] view
    if len(args) > MAX_ARGS:
        raise ValueError(f"too many kernel arguments ({len(args)} > {MAX_ARGS})")
    for k, a in enumerate(args):
        ta = type(a)
        if ta is int or ta is float or ta is ndarray:
            # the common arguments: 8 bytes each, no NumPy scalar on the way
            if ta is int:
                iv = a
                memcpy(word, &iv, 8)
            elif ta is float:
                dv = a
                memcpy(word, &dv, 8)
            else:
                pv = (<ndarray>a)._ptr
                memcpy(word, &pv, 8)
            off = (off + 7) & ~<size_t>7
            _room(off, 8)
            memcpy(storage + off, word, 8)
            ptrs[k] = storage + off
            off += 8
            continue
        kernel_pointer = (None if ta is bytes or isinstance(a, numpy.generic)
                          else getattr(a, "_kernel_pointer", None))
        if kernel_pointer is not None or hasattr(a, "__cuda_array_interface__"):
            pv = (kernel_pointer() if kernel_pointer is not None
                  else a.__cuda_array_interface__["data"][0])
            off = (off + 7) & ~<size_t>7
            _room(off, 8)
            memcpy(storage + off, &pv, 8)
            n = 8
        else:
            if isinstance(a, bytes):
                blob = a
                align = 8
            else:
                if isinstance(a, numpy.generic):
                    s = a
                elif isinstance(a, bool):
                    s = numpy.bool_(a)
                elif isinstance(a, int):
                    s = numpy.int64(a)
                elif isinstance(a, float):
                    s = numpy.float64(a)
                elif isinstance(a, complex):
                    s = numpy.complex128(a)
                else:
                    raise TypeError(f"kernel argument {k}: unsupported type "
                                    f"{type(a).__name__}")
                blob = s.tobytes()
                align = s.dtype.alignment if s.dtype.kind != "c" else s.dtype.itemsize
            n = len(blob)
            if n == 0:
                raise ValueError(f"kernel argument {k} is empty")
            off = (off + align - 1) & ~(align - 1)
            _room(off, n)
            view = blob
            memcpy(storage + off, &view[0], n)
        ptrs[k] = storage + off
        off += n
    return off


cdef _dims(obj, unsigned int* out):
    if isinstance(obj, int):
        out[0] = obj
        out[1] = 1
        out[2] = 1
        return
    t = tuple(obj)
    if not 1 <= len(t) <= 3:
        raise ValueError(f"grid and block take 1 to 3 dimensions, got {t!r}")
    t = t + (1,) * (3 - len(t))
    for i in range(3):
        if t[i] < 1:
            raise ValueError(f"grid and block sizes must be positive, got {obj!r}")
        out[i] = t[i]
