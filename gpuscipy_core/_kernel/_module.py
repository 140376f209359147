"""Loaded kernels: source -> cubin -> CUmodule -> CUfunction, per device.

One bounded cache maps (device, source, name, options, name expressions)
to a :class:`Function`; every kernel of gpuscipy_core and gpuscipy, and
every ``RawKernel``/``RawModule`` of a user, is looked up here. Behind it,
each (device, source, options, name expressions) is loaded once and stays
loaded for the life of the process: the launch fast paths (``_elementwise``,
the reductions) keep raw CUfunction pointers, which unloading would leave
dangling, and a Function evicted from the cache is re-made from its loaded
module (``cuModuleGetFunction``, the same pointer).
"""

import collections
import hashlib
import threading

from cuda.bindings import driver

from .._cuda._device import device_limits, ensure_context, get_device_id
from .._cuda._errors import check
from .._cuda._stream import get_current_stream_ptr
from . import _cache
from ._launch import launch_args

__all__ = ["Function", "Module", "get_function", "load_module", "load_file",
           "MAX_FUNCTIONS"]

MAX_FUNCTIONS = 4096

_lock = threading.Lock()
_modules = {}                            # (device, source, options, exprs) -> Module
_functions = collections.OrderedDict()   # (device, source, name, options, exprs) -> Function


def _put_function(key, f):
    """``_functions[key] = f`` unless another thread stored one first (that
    one is returned); beyond ``MAX_FUNCTIONS`` the least recently used go."""
    with _lock:
        have = _functions.get(key)
        if have is not None:
            return have
        _functions[key] = f
        while len(_functions) > MAX_FUNCTIONS:
            _functions.popitem(last=False)
    return f


def _module_for(key, image, dev, lowered=None):
    """The module of ``key``, loading ``image`` once even when threads race."""
    with _lock:
        mod = _modules.get(key)
        if mod is None:
            mod = _modules[key] = Module(image, dev, lowered)
    return mod


class Module:
    """A loaded CUmodule on one device and the lowered symbols of its C++
    name expressions (loaded for the life of the process)."""

    __slots__ = ("handle", "device_id", "lowered")

    def __init__(self, image, device_id, lowered=None):
        ensure_context(device_id)
        self.handle = check(driver.cuModuleLoadData(image), "cuModuleLoadData")
        self.device_id = device_id
        self.lowered = dict(lowered or {})

    def symbol(self, name):
        """The symbol of ``name``: its lowered form when it is one of the
        module's name expressions, else ``name`` itself (``extern "C"``)."""
        return self.lowered.get(name, name)

    def get_global(self, name):
        """``(device pointer, size in bytes)`` of the module's global ``name``."""
        ptr, size = check(driver.cuModuleGetGlobal(self.handle, self.symbol(name).encode()),
                          "cuModuleGetGlobal")
        return int(ptr), int(size)


class Function:
    """A kernel loaded on one device.

    Call it as ``f(grid, block, args, shared_mem=0, stream=None)``: ``args``
    as :func:`gpuscipy_core._kernel._launch.launch_args` packs them. Dynamic
    shared memory above 48 KiB is opted into on first use, up to the
    device's per-block opt-in limit.
    """

    __slots__ = ("name", "ptr", "device_id", "module", "_handle", "_smem_allowed")

    def __init__(self, module, name):
        self.module = module
        self.name = name
        self.device_id = module.device_id
        self._handle = check(driver.cuModuleGetFunction(module.handle,
                                                        module.symbol(name).encode()),
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
        limit = device_limits(self.device_id).shared_per_block_optin
        if nbytes > limit:
            raise ValueError(f"shared_mem={nbytes} bytes exceeds the device's "
                             f"{limit} bytes per block")
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


def load_module(source, options=(), name="module", name_expressions=()):
    """The :class:`Module` of ``source`` (compiled or fetched from the
    kernel cache) on the current device; ``name_expressions`` are C++
    kernel names to instantiate (templates)."""
    dev = ensure_context(get_device_id())
    key = (dev, source, tuple(options), tuple(name_expressions))
    mod = _modules.get(key)
    if mod is not None:
        return mod
    cubin, lowered = _cache.get_program(source, name, tuple(options),
                                        device_limits(dev).arch, tuple(name_expressions))
    return _module_for(key, cubin, dev, lowered)


def load_file(path):
    """The :class:`Module` of a cubin, fatbin or PTX file on the current
    device, through the same cache (keyed by the file's content)."""
    with open(path, "rb") as f:
        image = f.read()
    if path.endswith(".ptx") and not image.endswith(b"\0"):
        image += b"\0"
    dev = ensure_context(get_device_id())
    key = (dev, "file:" + hashlib.sha256(image).hexdigest(), (), ())
    return _modules.get(key) or _module_for(key, image, dev)


def get_function(source, name, options=(), name_expressions=None):
    """The kernel ``name`` of ``source``, loaded on the current device.

    Parameters
    ----------
    source : str
        CUDA C++ source (``#include <gpuscipy/...>`` finds the core's headers).
    name : str
        An ``extern "C"`` kernel, or a C++ name expression (it holds ``<``
        or ``::``) such as ``"gs::scale<float, 4>"`` (a template instance).
    options : tuple of str
        NVRTC options.
    name_expressions : sequence of str, optional
        Every name expression the module is compiled with (default: ``name``
        when it is one); one module serves them all.

    Returns
    -------
    Function
    """
    dev = get_device_id()
    exprs = _expressions(name, name_expressions)
    key = (dev, source, name, tuple(options), exprs)
    f = _functions.get(key)
    if f is not None:
        _functions.move_to_end(key)
        return f
    mod = load_module(source, tuple(options), "module" if _is_expression(name) else name,
                      exprs)
    return _put_function(key, Function(mod, name))


def _is_expression(name):
    """A C++ name expression (a template instance or a qualified name), as
    opposed to an ``extern "C"`` symbol."""
    return "<" in name or "::" in name


def _expressions(name, name_expressions):
    if name_expressions is not None:
        exprs = tuple(name_expressions)
        if _is_expression(name) and name not in exprs:
            raise ValueError(f"{name!r} is not one of name_expressions")
        return exprs
    return (name,) if _is_expression(name) else ()
