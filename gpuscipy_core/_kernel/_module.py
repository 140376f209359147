"""Loaded kernels: cubin -> CUmodule -> CUfunction, cached per device."""

import threading

from cuda.bindings import driver

from .._cuda._device import Device, ensure_context, get_device_id
from .._cuda._errors import check
from .._cuda._stream import get_current_stream_ptr
from . import _cache
from ._launch import launch_args

__all__ = ["Function", "get_function", "load_module"]

_lock = threading.Lock()
_modules = {}     # (device, source, options) -> CUmodule
_functions = {}   # (device, source, name, options) -> Function
_arch = {}        # device -> "sm_90"


def _device_arch(dev):
    a = _arch.get(dev)
    if a is None:
        a = _arch[dev] = Device(dev).arch
    return a


class Function:
    """A kernel loaded on one device.

    Call it as ``f(grid, block, args, shared_mem=0, stream=None)``.
    """

    __slots__ = ("name", "ptr", "device_id", "_handle", "_module", "_smem_allowed")

    def __init__(self, module, name, device_id):
        self._module = module
        self.name = name
        self.device_id = device_id
        self._handle = check(driver.cuModuleGetFunction(module, name.encode()),
                             "cuModuleGetFunction")
        self.ptr = int(self._handle)
        self._smem_allowed = 48 * 1024 - 1  # without the opt-in attribute

    def __call__(self, grid, block, args, shared_mem=0, stream=None):
        ensure_context(self.device_id)
        s = get_current_stream_ptr() if stream is None else stream.ptr
        if shared_mem > self._smem_allowed:
            self._allow_shared(shared_mem)
        launch_args(self.ptr, grid, block, tuple(args), shared_mem, s)

    def _allow_shared(self, nbytes):
        # once per function and size increase (a driver call on every launch
        # showed in the host profile of small IIR filters)
        check(driver.cuFuncSetAttribute(
            self._handle,
            driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            nbytes), "cuFuncSetAttribute")
        self._smem_allowed = nbytes

    def attribute(self, name):
        """A ``CU_FUNC_ATTRIBUTE_*`` value by short name, e.g. ``"NUM_REGS"``."""
        attr = getattr(driver.CUfunction_attribute, f"CU_FUNC_ATTRIBUTE_{name.upper()}")
        return check(driver.cuFuncGetAttribute(attr, self._handle), "cuFuncGetAttribute")

    def __repr__(self):
        return f"<Function {self.name} on device {self.device_id}>"


def load_module(source, options=(), name="module"):
    """Compile (or fetch from the cache) and load ``source`` on the current device."""
    dev = ensure_context(get_device_id())
    key = (dev, source, tuple(options))
    mod = _modules.get(key)
    if mod is None:
        cubin = _cache.get_cubin(source, name, tuple(options), _device_arch(dev))
        with _lock:
            mod = _modules.get(key)
            if mod is None:
                mod = check(driver.cuModuleLoadData(cubin), "cuModuleLoadData")
                _modules[key] = mod
    return mod


def get_function(source, name, options=()):
    """The kernel ``name`` (an ``extern "C"`` symbol) of ``source``, loaded
    on the current device."""
    dev = get_device_id()
    key = (dev, source, name, tuple(options))
    f = _functions.get(key)
    if f is None:
        mod = load_module(source, options, name)
        f = _functions[key] = Function(mod, name, dev)
    return f
