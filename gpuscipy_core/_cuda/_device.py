"""Devices and their primary contexts.

Importing this module never touches the driver. The first device use
initialises CUDA; on a machine without a driver or GPU it raises a clear
``RuntimeError``.
"""

import threading
from typing import NamedTuple

from cuda.bindings import driver

from ._errors import CUDAError, check

__all__ = ["is_available", "unavailable_reason", "get_device_count", "Device",
           "get_device_id", "ensure_context", "DeviceLimits", "device_limits"]

_lock = threading.Lock()
_init_state = None          # None: not tried; True: ok; str: why it failed
_contexts = {}              # device id -> CUcontext (primary, retained)
_tls = threading.local()    # .device (int), .ctx_device (int or None)
_attributes = {}            # (device id, attribute) -> value (constant per device)
_limits = {}                # device id -> DeviceLimits


def _init():
    global _init_state
    if _init_state is True:
        return
    with _lock:
        if _init_state is None:
            try:
                err, = driver.cuInit(0)
                if err != driver.CUresult.CUDA_SUCCESS:
                    raise CUDAError("cuInit", err)
                err, n = driver.cuDeviceGetCount()
                if err != driver.CUresult.CUDA_SUCCESS:
                    raise CUDAError("cuDeviceGetCount", err)
                _init_state = True if n > 0 else "no CUDA device is present"
            except CUDAError as e:
                _init_state = str(e)
            except Exception as e:  # driver library missing
                _init_state = f"the NVIDIA driver could not be loaded ({e})"
    if _init_state is not True:
        raise RuntimeError(f"gpuscipy_core needs an NVIDIA GPU: {_init_state}")


def is_available():
    """True when a CUDA driver and at least one GPU are present."""
    try:
        _init()
    except RuntimeError:
        return False
    return True


def unavailable_reason():
    """Why no GPU can be used (a sentence), or None when one can."""
    try:
        _init()
    except RuntimeError:
        return str(_init_state)
    return None


def get_device_count():
    """Number of CUDA devices (0 when no driver or GPU is present)."""
    if not is_available():
        return 0
    return check(driver.cuDeviceGetCount(), "cuDeviceGetCount")


def get_device_id():
    """The current device of the calling thread (0 unless changed)."""
    return getattr(_tls, "device", 0)


def ensure_context(device_id=None):
    """Make the device's primary context current in this thread; return its id."""
    if device_id is None:
        device_id = getattr(_tls, "device", 0)
    if getattr(_tls, "ctx_device", None) == device_id:
        return device_id
    _init()
    ctx = _contexts.get(device_id)
    if ctx is None:
        with _lock:
            ctx = _contexts.get(device_id)
            if ctx is None:
                n = check(driver.cuDeviceGetCount(), "cuDeviceGetCount")
                if not 0 <= device_id < n:
                    raise ValueError(f"invalid device id {device_id}: "
                                     f"{n} device(s) present")
                dev = check(driver.cuDeviceGet(device_id), "cuDeviceGet")
                ctx = check(driver.cuDevicePrimaryCtxRetain(dev),
                            "cuDevicePrimaryCtxRetain")
                _contexts[device_id] = ctx
    check(driver.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    _tls.ctx_device = device_id
    return device_id


_A = driver.CUdevice_attribute


class Device:
    """A CUDA device; as a context manager it becomes the thread's current one.

    Parameters
    ----------
    device : int, optional
        Device ordinal. Defaults to the current device.
    """

    __slots__ = ("id", "_prev")

    def __init__(self, device=None):
        if device is None:
            device = get_device_id()
        elif isinstance(device, Device):
            device = device.id
        self.id = int(device)
        self._prev = []

    def __repr__(self):
        return f"<CUDA Device {self.id}>"

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(("Device", self.id))

    def __int__(self):
        return self.id

    def use(self):
        """Make this device current for the calling thread."""
        ensure_context(self.id)
        _tls.device = self.id

    def __enter__(self):
        self._prev.append(get_device_id())
        self.use()
        return self

    def __exit__(self, *exc):
        prev = self._prev.pop()
        _tls.device = prev
        ensure_context(prev)

    def synchronize(self):
        """Wait until all work on this device has finished."""
        with self:
            check(driver.cuCtxSynchronize(), "cuCtxSynchronize")

    def _handle(self):
        _init()
        return check(driver.cuDeviceGet(self.id), "cuDeviceGet")

    def attribute(self, name):
        """A ``CU_DEVICE_ATTRIBUTE_*`` value, by its short name (e.g.
        ``"MULTIPROCESSOR_COUNT"``); asked of the driver once per device."""
        key = (self.id, name.upper())
        v = _attributes.get(key)
        if v is None:
            attr = getattr(_A, f"CU_DEVICE_ATTRIBUTE_{key[1]}")
            v = _attributes[key] = int(check(driver.cuDeviceGetAttribute(attr, self._handle()),
                                             "cuDeviceGetAttribute"))
        return v

    @property
    def name(self):
        raw = check(driver.cuDeviceGetName(256, self._handle()), "cuDeviceGetName")
        return raw.split(b"\0", 1)[0].decode()

    @property
    def compute_capability(self):
        """``"90"`` for an H100/H200, as CuPy spells it."""
        return (f"{self.attribute('COMPUTE_CAPABILITY_MAJOR')}"
                f"{self.attribute('COMPUTE_CAPABILITY_MINOR')}")

    @property
    def arch(self):
        """The NVRTC target, e.g. ``"sm_90"``."""
        return f"sm_{self.compute_capability}"

    @property
    def multiprocessor_count(self):
        return self.attribute("MULTIPROCESSOR_COUNT")

    @property
    def mem_info(self):
        """(free, total) bytes of device memory."""
        with self:
            return tuple(check(driver.cuMemGetInfo(), "cuMemGetInfo"))

    @property
    def total_memory(self):
        return check(driver.cuDeviceTotalMem(self._handle()), "cuDeviceTotalMem")

    @property
    def properties(self):
        """A dict of the commonly used device properties."""
        return {
            "name": self.name,
            "compute_capability": self.compute_capability,
            "total_memory": self.total_memory,
            "multiprocessor_count": self.multiprocessor_count,
            "max_threads_per_block": self.attribute("MAX_THREADS_PER_BLOCK"),
            "max_shared_memory_per_block": self.attribute("MAX_SHARED_MEMORY_PER_BLOCK"),
            "warp_size": self.attribute("WARP_SIZE"),
            "l2_cache_size": self.attribute("L2_CACHE_SIZE"),
            "clock_rate_khz": self.attribute("CLOCK_RATE"),
            "memory_clock_rate_khz": self.attribute("MEMORY_CLOCK_RATE"),
            "global_memory_bus_width": self.attribute("GLOBAL_MEMORY_BUS_WIDTH"),
        }


class DeviceLimits(NamedTuple):
    """What kernels are sized by, for one device (bytes unless stated)."""
    sm_count: int                  # streaming multiprocessors
    max_threads_per_block: int
    warp_size: int
    shared_per_block: int          # static + dynamic without the opt-in (48 KiB)
    shared_per_block_optin: int    # dynamic shared memory with the opt-in attribute
    shared_per_sm: int
    registers_per_block: int       # 32-bit registers
    registers_per_sm: int
    max_threads_per_sm: int
    l2_bytes: int
    arch: str                      # NVRTC target, e.g. "sm_90"


def device_limits(device_id=None):
    """The :class:`DeviceLimits` of a device (default: the current one),
    read from the driver once per process and device."""
    if device_id is None:
        device_id = getattr(_tls, "device", 0)
    lim = _limits.get(device_id)
    if lim is None:
        d = Device(device_id)
        a = d.attribute
        lim = _limits[device_id] = DeviceLimits(
            a("MULTIPROCESSOR_COUNT"), a("MAX_THREADS_PER_BLOCK"), a("WARP_SIZE"),
            a("MAX_SHARED_MEMORY_PER_BLOCK"), a("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
            a("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"), a("MAX_REGISTERS_PER_BLOCK"),
            a("MAX_REGISTERS_PER_MULTIPROCESSOR"), a("MAX_THREADS_PER_MULTIPROCESSOR"),
            a("L2_CACHE_SIZE"), d.arch)
    return lim
