"""Library handles: one per (library, device, thread), bound to the current stream.

``get_handle("cublas")`` creates the calling thread's cuBLAS handle for the
current device on first use and returns it; on every call it rebinds the
handle to the thread's current stream, but calls ``*SetStream`` only when the
stream differs from the one last bound. Handles are never shared between
threads (the libraries' handles are not thread-safe), so no lock is taken on
the hot path.

A library status error does not invalidate a handle: the cache keeps it and
the next call uses it as before. Handles are destroyed at interpreter exit
(errors ignored: a poisoned context cannot be helped then). A thread that
ends leaves its handles alive until exit; they are small.

cuBLAS keeps its own default workspace per handle; we do not hand it a pool
workspace (``cublasSetWorkspace_v2``), which would tie the workspace's
lifetime to a stream change.
"""

import atexit
import threading

from .._cuda._device import ensure_context, get_device_id
from .._cuda._stream import get_current_stream_ptr

__all__ = ["get_handle", "HANDLE_LIBRARIES"]

HANDLE_LIBRARIES = ("cublas", "cusolver", "cusparse", "cudss")

_tls = threading.local()
_registry_lock = threading.Lock()
_registry = []      # [(library, destroy, handle)] for destruction at exit
_apis = {}


def _api(library):
    """(create, set_stream, destroy) functions of ``library``'s bindings."""
    api = _apis.get(library)
    if api is None:
        if library == "cublas":
            from . import cublas as m
            api = (m.cublasCreate_v2, m.cublasSetStream_v2, m.cublasDestroy_v2)
        elif library == "cusolver":
            from . import cusolver as m
            api = (m.cusolverDnCreate, m.cusolverDnSetStream, m.cusolverDnDestroy)
        elif library == "cusparse":
            from . import cusparse as m
            api = (m.cusparseCreate, m.cusparseSetStream, m.cusparseDestroy)
        elif library == "cudss":
            from . import cudss as m
            api = (m.cudssCreate, m.cudssSetStream, m.cudssDestroy)
        else:
            raise ValueError(f"get_handle: unknown library {library!r}; expected one of "
                             f"{', '.join(HANDLE_LIBRARIES)}")
        _apis[library] = api
    return api


def get_handle(library):
    """Handle of ``library`` for the current device and thread, on the current stream.

    Parameters
    ----------
    library : {"cublas", "cusolver", "cusparse", "cudss"}

    Returns
    -------
    int
        The handle (``cublasHandle_t`` etc.) as an address.

    Raises
    ------
    ValueError
        For another library name.
    LibraryNotFoundError
        When the library is not installed.
    LibraryError
        When creating the handle or binding the stream fails.
    """
    device = ensure_context(get_device_id())
    cache = getattr(_tls, "handles", None)
    if cache is None:
        cache = _tls.handles = {}
    stream = get_current_stream_ptr()
    entry = cache.get((library, device))
    if entry is None:
        create, set_stream, destroy = _api(library)
        handle = create()
        try:
            set_stream(handle, stream)
        except BaseException:
            destroy(handle)
            raise
        entry = cache[(library, device)] = [handle, stream]
        with _registry_lock:
            _registry.append((library, destroy, handle))
        return handle
    if entry[1] != stream:
        _api(library)[1](entry[0], stream)
        entry[1] = stream
    return entry[0]


@atexit.register
def _destroy_all():
    with _registry_lock:
        items = list(_registry)
        _registry.clear()
    for library, destroy, handle in reversed(items):
        try:
            _api(library)[1](handle, 0)   # off any side stream before it goes
        except Exception:
            pass
        try:
            destroy(handle)
        except Exception:
            pass
