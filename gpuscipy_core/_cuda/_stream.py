"""Streams and events; a per-thread current stream.

The default current stream is the legacy default stream (handle 0), as in
CuPy and PyTorch, so work interleaved with them stays ordered without syncs.
"""

import sys
import threading

from cuda.bindings import driver

from ._device import ensure_context, get_device_id
from ._errors import check

__all__ = ["Stream", "Event", "get_current_stream", "get_current_stream_ptr",
           "get_elapsed_time"]

_tls = threading.local()   # .stack: list of Stream


class Stream:
    """A CUDA stream; ``with stream:`` makes it the thread's current stream.

    Parameters
    ----------
    null : bool
        Wrap the legacy default stream instead of creating one.
    non_blocking : bool
        Create the stream with ``CU_STREAM_NON_BLOCKING`` (it does not
        synchronise with the legacy default stream).
    priority : int
        Stream priority (lower is higher priority).
    """

    def __init__(self, null=False, non_blocking=False, priority=0):
        self.device_id = ensure_context()
        self._owned = not null
        self.non_blocking = bool(non_blocking)
        if null:
            self._handle = driver.CUstream(0)
        else:
            flags = (driver.CUstream_flags.CU_STREAM_NON_BLOCKING if non_blocking
                     else driver.CUstream_flags.CU_STREAM_DEFAULT)
            self._handle = check(driver.cuStreamCreateWithPriority(flags, priority),
                                 "cuStreamCreateWithPriority")
        self.ptr = int(self._handle)

    @classmethod
    def _from_external(cls, ptr, device_id=None):
        self = cls.__new__(cls)
        self.device_id = get_device_id() if device_id is None else device_id
        self._owned = False
        self.non_blocking = False
        self._handle = driver.CUstream(ptr)
        self.ptr = int(ptr)
        return self

    def __del__(self):
        # not at interpreter teardown: memory ordered on this stream may be
        # freed after it in any order then (the driver reclaims both at exit)
        if getattr(self, "_owned", False) and not sys.is_finalizing():
            try:
                driver.cuStreamDestroy(self._handle)
            except Exception:
                pass

    def __repr__(self):
        return f"<Stream {self.ptr:#x} (device {self.device_id})>"

    def __eq__(self, other):
        return isinstance(other, Stream) and other.ptr == self.ptr \
            and other.device_id == self.device_id

    def __hash__(self):
        return hash((self.ptr, self.device_id))

    def __enter__(self):
        _stack().append(self)
        return self

    def __exit__(self, *exc):
        _stack().pop()

    def use(self):
        """Make this the current stream of the thread (outside a ``with``)."""
        st = _stack()
        if st:
            st[-1] = self
        else:
            st.append(self)
        return self

    def synchronize(self):
        """Wait for all work queued on this stream."""
        ensure_context(self.device_id)
        check(driver.cuStreamSynchronize(self._handle), "cuStreamSynchronize")

    @property
    def done(self):
        """True when all queued work has finished."""
        err, = driver.cuStreamQuery(self._handle)
        if err == driver.CUresult.CUDA_ERROR_NOT_READY:
            return False
        check((err,), "cuStreamQuery")
        return True

    def record(self, event=None):
        """Record an event on this stream (a new one when not given)."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def wait_event(self, event):
        """Make later work on this stream wait for ``event``."""
        check(driver.cuStreamWaitEvent(self._handle, event._handle, 0),
              "cuStreamWaitEvent")


def _stack():
    st = getattr(_tls, "stack", None)
    if st is None:
        st = _tls.stack = []
    return st


_null_streams = {}


def get_current_stream():
    """The calling thread's current stream (the legacy default stream unless
    a ``with Stream():`` block or ``Stream.use()`` changed it)."""
    st = getattr(_tls, "stack", None)
    if st:
        return st[-1]
    dev = get_device_id()
    s = _null_streams.get(dev)
    if s is None:
        s = _null_streams[dev] = Stream(null=True)
    return s


def get_current_stream_ptr():
    """Raw handle of the current stream (0 for the legacy default stream)."""
    st = getattr(_tls, "stack", None)
    return st[-1].ptr if st else 0


class Event:
    """A CUDA event for ordering and timing.

    Parameters
    ----------
    block : bool
        Use blocking synchronisation (the host thread sleeps in ``synchronize``).
    disable_timing : bool
        Create the event without timing (cheaper; ``elapsed_time`` then fails).
    """

    def __init__(self, block=False, disable_timing=False):
        ensure_context()
        flags = 0
        if block:
            flags |= int(driver.CUevent_flags.CU_EVENT_BLOCKING_SYNC)
        if disable_timing:
            flags |= int(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING)
        self._handle = check(driver.cuEventCreate(flags), "cuEventCreate")
        self.ptr = int(self._handle)

    def __del__(self):
        try:
            driver.cuEventDestroy(self._handle)
        except Exception:
            pass

    def record(self, stream=None):
        """Record the event on ``stream`` (default: the current stream)."""
        if stream is None:
            stream = get_current_stream()
        check(driver.cuEventRecord(self._handle, stream._handle), "cuEventRecord")

    def synchronize(self):
        """Wait until the work before the event's record has finished."""
        check(driver.cuEventSynchronize(self._handle), "cuEventSynchronize")

    @property
    def done(self):
        err, = driver.cuEventQuery(self._handle)
        if err == driver.CUresult.CUDA_ERROR_NOT_READY:
            return False
        check((err,), "cuEventQuery")
        return True

    def elapsed_time(self, end):
        """Milliseconds from this event to ``end`` (both recorded and done)."""
        return check(driver.cuEventElapsedTime(self._handle, end._handle),
                     "cuEventElapsedTime")


def get_elapsed_time(start, end):
    """Milliseconds between two recorded events (CuPy's spelling)."""
    return start.elapsed_time(end)
