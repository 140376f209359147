"""Interoperability: ``__cuda_array_interface__`` (v3), DLPack, and NumPy's
``__array_ufunc__``/``__array_function__`` dispatch (NEP 13/18)."""

import numpy
from cuda.bindings import driver

from ._cuda._device import get_device_id
from ._cuda._errors import check
from ._cuda._memory import UnownedMemory
from ._cuda._stream import get_current_stream_ptr
from ._ndarray import ndarray, normalize_dtype

__all__ = ["cuda_array_interface", "from_cuda_array_interface", "to_dlpack",
           "from_dlpack", "array_ufunc", "array_function"]

_kDLCPU, _kDLCUDA, _kDLCUDAHost, _kDLCUDAManaged = 1, 2, 3, 13


def cuda_array_interface(a):
    """The v3 ``__cuda_array_interface__`` dict of ``a``."""
    s = get_current_stream_ptr()
    return {
        "shape": a.shape,
        "typestr": a.dtype.str,
        "descr": [("", a.dtype.str)],
        "data": (a.ptr if a.size else 0, False),
        "strides": None if a.flags.c_contiguous else a.strides,
        "version": 3,
        # 1 is the legacy default stream; None would mean "no sync needed"
        "stream": 1 if s == 0 else s,
    }


def _pointer_device(ptr):
    if ptr == 0:
        return get_device_id()
    try:
        attr = driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
        return int(check(driver.cuPointerGetAttribute(attr, ptr),
                         "cuPointerGetAttribute"))
    except Exception:
        return get_device_id()


def _wait_for(stream_ptr):
    """Order the current stream after work queued on ``stream_ptr``."""
    cur = get_current_stream_ptr()
    if stream_ptr is None or stream_ptr in (0, 1, 2) and cur == 0 or stream_ptr == cur:
        return
    ev = check(driver.cuEventCreate(
        int(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING)), "cuEventCreate")
    src = driver.CUstream(0 if stream_ptr in (1, 2) else stream_ptr)
    check(driver.cuEventRecord(ev, src), "cuEventRecord")
    check(driver.cuStreamWaitEvent(driver.CUstream(cur), ev, 0), "cuStreamWaitEvent")
    driver.cuEventDestroy(ev)


def from_cuda_array_interface(obj):
    """A zero-copy device array viewing ``obj``'s ``__cuda_array_interface__``."""
    cai = obj.__cuda_array_interface__
    shape = tuple(cai["shape"])
    dt = normalize_dtype(numpy.dtype(cai["typestr"]))
    ptr = cai["data"][0]
    if cai.get("mask") is not None:
        raise TypeError("masked __cuda_array_interface__ is not supported")
    _wait_for(cai.get("stream"))
    strides = cai.get("strides")
    if strides is None:
        strides = []
        s = dt.itemsize
        for d in reversed(shape):
            strides.append(s)
            s *= max(d, 1)
        strides = tuple(reversed(strides))
    size = 1
    for d in shape:
        size *= d
    extent = sum((d - 1) * abs(st) for d, st in zip(shape, strides)) + dt.itemsize \
        if size else 0
    mem = UnownedMemory(ptr, extent, obj, _pointer_device(ptr))
    return ndarray(shape, dt, memptr=mem, strides=tuple(strides))


def to_dlpack(a, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule of ``a`` (versioned when the consumer asks for 1.x)."""
    from ._dlpack import make_capsule
    if dl_device is not None and tuple(dl_device) != (_kDLCUDA, a._device_id):
        if tuple(dl_device)[0] == _kDLCPU:
            raise BufferError("gpuscipy arrays live on the GPU; copy them with "
                              "asnumpy() instead of exporting to the CPU")
        raise BufferError(f"unsupported dl_device {dl_device!r}")
    if copy:
        a = a.copy()
    # The consumer's stream: make it wait for work on our current stream.
    if stream is not None and stream != -1:
        cur = get_current_stream_ptr()
        target = 0 if stream in (1, 2) else stream
        if target != cur:
            ev = check(driver.cuEventCreate(
                int(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING)), "cuEventCreate")
            check(driver.cuEventRecord(ev, driver.CUstream(cur)), "cuEventRecord")
            check(driver.cuStreamWaitEvent(driver.CUstream(target), ev, 0),
                  "cuStreamWaitEvent")
            driver.cuEventDestroy(ev)
    versioned = max_version is not None and tuple(max_version) >= (1, 0)
    strides = tuple(s // a.itemsize for s in a.strides)
    return make_capsule(a, a.ptr, a.shape, strides, a.dtype, _kDLCUDA, a._device_id,
                        versioned)


class _Keeper:
    __slots__ = ("keeper", "producer")

    def __init__(self, keeper, producer):
        self.keeper = keeper
        self.producer = producer


def from_dlpack(x, *, device=None, copy=None):
    """Zero-copy import of a DLPack producer living on a CUDA device."""
    from ._dlpack import consume_capsule
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"{type(x).__name__} does not support DLPack")
    dev_type, dev_id = x.__dlpack_device__()
    if dev_type not in (_kDLCUDA, _kDLCUDAManaged, _kDLCUDAHost):
        if dev_type == _kDLCPU:
            from ._routines._creation import array
            return array(numpy.from_dlpack(x))
        raise BufferError(f"unsupported DLPack device type {dev_type}")
    cur = get_current_stream_ptr()
    stream = 1 if cur == 0 else cur
    try:
        cap = x.__dlpack__(stream=stream, max_version=(1, 0))
    except TypeError:
        cap = x.__dlpack__(stream=stream)
    res = consume_capsule(cap)
    ptr, shape, strides, dt, dtype_dev, device_id, keeper = res[:7]
    dt = normalize_dtype(dt)
    shape = tuple(shape)
    bstrides = tuple(s * dt.itemsize for s in strides)
    size = 1
    for d in shape:
        size *= d
    extent = sum((d - 1) * abs(st) for d, st in zip(shape, bstrides)) + dt.itemsize \
        if size else 0
    mem = UnownedMemory(ptr, extent, _Keeper(keeper, x), device_id)
    out = ndarray(shape, dt, memptr=mem, strides=bstrides)
    if copy:
        out = out.copy()
    return out


# ------------------------------------------------------------ NumPy protocols

def _namespace():
    import gpuscipy_core
    return gpuscipy_core


def array_ufunc(np_ufunc, method, inputs, kwargs):
    """``numpy.add(gpu, gpu)`` and friends run on the device."""
    if method != "__call__":
        if method == "reduce":
            red = {"add": "sum", "multiply": "prod", "maximum": "max",
                   "minimum": "min", "logical_and": "all", "logical_or": "any"}
            name = red.get(np_ufunc.__name__)
            if name is not None and len(inputs) == 1:
                kw = dict(kwargs)
                kw.setdefault("axis", 0)
                return getattr(_namespace(), name)(inputs[0], **kw)
        return NotImplemented
    g = getattr(_namespace(), np_ufunc.__name__, None)
    if g is None:
        return NotImplemented
    for x in inputs:
        if isinstance(x, numpy.ndarray) and x.ndim:
            return NotImplemented
    out = kwargs.get("out")
    if out is not None:
        kwargs = dict(kwargs)
        if isinstance(out, tuple) and len(out) == 1:
            kwargs["out"] = out[0]
    return g(*inputs, **kwargs)


def array_function(func, types, args, kwargs):
    """``numpy.sum(gpu)`` and other NumPy functions dispatch to gpuscipy_core."""
    ns = _namespace()
    mod = func.__module__ or ""
    if not mod.startswith("numpy"):
        return NotImplemented
    if mod not in ("numpy",) and not mod.startswith("numpy._core") \
            and not mod.startswith("numpy.core") and not mod.startswith("numpy.lib"):
        return NotImplemented
    g = getattr(ns, func.__name__, None)
    if g is None or not callable(g):
        return NotImplemented
    for t in types:
        if not issubclass(t, ndarray) and t is not numpy.ndarray:
            return NotImplemented
    return g(*args, **kwargs)
