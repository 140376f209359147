"""CUDA runtime objects: devices, streams, events, memory.

Importing this module never needs a GPU; the first device use does.
"""

from ._cuda._device import (Device, ensure_context, get_device_count, get_device_id,
                            is_available, unavailable_reason)
from ._cuda._errors import CUDAError, GPUError
from ._cuda._memory import (Memory, MemoryPool, PinnedMemory, alloc_pinned_memory,
                            get_default_memory_pool)
from ._cuda._stream import (Event, Stream, get_current_stream, get_current_stream_ptr,
                            get_elapsed_time)
from ._kernel._nvrtc import NVRTCCallError, NVRTCError

__all__ = ["Device", "get_device_count", "get_device_id", "ensure_context", "is_available",
           "unavailable_reason", "GPUError", "CUDAError", "NVRTCError", "NVRTCCallError",
           "Memory", "MemoryPool", "PinnedMemory", "alloc_pinned_memory",
           "get_default_memory_pool", "Event", "Stream", "get_current_stream",
           "get_current_stream_ptr", "get_elapsed_time", "runtime_is_available"]


def runtime_is_available():
    """Alias of :func:`is_available`."""
    return is_available()


from ._public import set_home as _set_home  # noqa: E402
_set_home(globals(), __name__)
del _set_home
