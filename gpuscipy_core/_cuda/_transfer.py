"""Host <-> device copies.

Small copies go straight through the driver. Large ones are staged through
two pinned host buffers so the host-side memcpy of one chunk overlaps the DMA
of the other (no hidden device-to-host copies happen anywhere else).
"""

import threading

import numpy
from cuda.bindings import driver

from ._device import ensure_context
from ._errors import check
from ._memory import PinnedMemory
from ._stream import get_current_stream

__all__ = ["to_host", "from_host_into"]

_CHUNK = 16 << 20          # bytes per staging buffer
_STAGE_ABOVE = 8 << 20     # stage copies larger than this
_tls = threading.local()


class _Staging:
    def __init__(self):
        self.bufs = [PinnedMemory(_CHUNK), PinnedMemory(_CHUNK)]
        self.views = [numpy.asarray(b) for b in self.bufs]
        self.events = [check(driver.cuEventCreate(
            int(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING)), "cuEventCreate")
            for _ in self.bufs]
        self.used = [False, False]


def _staging():
    s = getattr(_tls, "staging", None)
    if s is None:
        s = _tls.staging = _Staging()
    return s


def _stream_handle(stream):
    return (stream if stream is not None else get_current_stream())._handle


def to_host(a, out=None, stream=None):
    """Copy device array ``a`` into a NumPy array (``out`` if given)."""
    ensure_context(a._device_id)
    if not (a.flags.c_contiguous or a.flags.f_contiguous):
        a = a.copy("C")
    order = "C" if a.flags.c_contiguous else "F"
    if out is None:
        out = numpy.empty(a.shape, dtype=a.dtype, order=order)
    else:
        if not isinstance(out, numpy.ndarray) or out.shape != a.shape \
                or out.dtype != a.dtype:
            raise ValueError("out must be a NumPy array of the same shape and dtype")
        if not (out.flags.c_contiguous if order == "C" else out.flags.f_contiguous):
            tmp = to_host(a, None, stream)
            out[...] = tmp
            return out
    n = a.nbytes
    if n == 0:
        return out
    h = _stream_handle(stream)
    dst = out.ctypes.data
    if n <= _STAGE_ABOVE or _is_pinned(out):
        check(driver.cuMemcpyDtoHAsync(dst, a.ptr, n, h), "cuMemcpyDtoHAsync")
        check(driver.cuStreamSynchronize(h), "cuStreamSynchronize")
        return out
    st = _staging()
    flat = out.ravel(order="K").view(numpy.uint8)
    pending = []
    for k, off in enumerate(range(0, n, _CHUNK)):
        b = k & 1
        m = min(_CHUNK, n - off)
        if len(pending) == 2:
            _drain(st, pending.pop(0), flat)
        check(driver.cuMemcpyDtoHAsync(st.bufs[b].ptr, a.ptr + off, m, h),
              "cuMemcpyDtoHAsync")
        check(driver.cuEventRecord(st.events[b], h), "cuEventRecord")
        pending.append((b, off, m))
    for p in pending:
        _drain(st, p, flat)
    return out


def _drain(st, p, flat):
    b, off, m = p
    check(driver.cuEventSynchronize(st.events[b]), "cuEventSynchronize")
    flat[off:off + m] = st.views[b][:m]


def _is_pinned(arr):
    base = arr
    while base is not None:
        if isinstance(base, PinnedMemory):
            return True
        base = getattr(base, "base", None)
    return False


def from_host_into(a, arr, stream=None):
    """Copy NumPy array ``arr`` (same shape) into the C- or F-contiguous
    device array ``a`` (``ndarray.set`` takes the strided case itself: a
    copy in, then an elementwise assignment)."""
    ensure_context(a._device_id)
    if not (a.flags.c_contiguous or a.flags.f_contiguous):
        raise ValueError("from_host_into: the device array must be contiguous")
    order = "C" if a.flags.c_contiguous else "F"
    src = numpy.asarray(arr, dtype=a.dtype, order=order)
    if not (src.flags.c_contiguous if order == "C" else src.flags.f_contiguous):
        src = src.copy(order=order)
    _copy_in(a.ptr, src, stream)


def _copy_in(dptr, src, stream):
    n = src.nbytes
    if n == 0:
        return
    h = _stream_handle(stream)
    if n <= _STAGE_ABOVE or _is_pinned(src):
        check(driver.cuMemcpyHtoDAsync(dptr, src.ctypes.data, n, h), "cuMemcpyHtoDAsync")
        if _is_pinned(src):
            check(driver.cuStreamSynchronize(h), "cuStreamSynchronize")
        return
    st = _staging()
    flat = src.ravel(order="K").view(numpy.uint8)
    for k, off in enumerate(range(0, n, _CHUNK)):
        b = k & 1
        m = min(_CHUNK, n - off)
        if st.used[b]:
            check(driver.cuEventSynchronize(st.events[b]), "cuEventSynchronize")
        st.views[b][:m] = flat[off:off + m]
        check(driver.cuMemcpyHtoDAsync(dptr + off, st.bufs[b].ptr, m, h),
              "cuMemcpyHtoDAsync")
        check(driver.cuEventRecord(st.events[b], h), "cuEventRecord")
        st.used[b] = True
    # the source buffers are reused by the next transfer; wait for the last
    for b in (0, 1):
        if st.used[b]:
            check(driver.cuEventSynchronize(st.events[b]), "cuEventSynchronize")
            st.used[b] = False
