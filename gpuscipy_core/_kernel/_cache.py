"""Compiled-kernel cache: an in-process LRU in front of a disk store.

The key is the SHA-256 of everything that decides the cubin: source,
normalised options, NVRTC version, target architecture, the content of
gpuscipy's device headers, the package version and a schema version. Disk
entries are written atomically (temporary file + rename) and carry a
checksum; an entry that is unreadable, truncated or corrupt is rebuilt.
"""

import collections
import hashlib
import os
import struct
import tempfile
import threading

from . import _nvrtc

__all__ = ["get_cubin", "cache_dir", "clear", "stats"]

_SCHEMA = 1
_MAGIC = b"GSCUBIN1"
_MEMORY_ENTRIES = 4096
_lock = threading.Lock()
_memory = collections.OrderedDict()
_stats = {"nvrtc_compiles": 0, "disk_hits": 0, "memory_hits": 0,
          "disk_rebuilds": 0}
_headers_digest = None


def cache_dir():
    """The disk cache folder: ``$GPUSCIPY_CACHE_DIR`` or
    ``~/.cache/gpuscipy/kernels``."""
    d = os.environ.get("GPUSCIPY_CACHE_DIR")
    if not d:
        d = os.path.join(os.path.expanduser("~"), ".cache", "gpuscipy", "kernels")
    return d


def _headers():
    global _headers_digest
    if _headers_digest is None:
        h = hashlib.sha256()
        root = _nvrtc.include_dir()
        for dirpath, _, files in sorted(os.walk(root)):
            for f in sorted(files):
                path = os.path.join(dirpath, f)
                h.update(os.path.relpath(path, root).encode() + b"\0")
                with open(path, "rb") as fh:
                    h.update(fh.read())
        _headers_digest = h.hexdigest()
    return _headers_digest


def _key(source, options, arch):
    from .. import __version__
    h = hashlib.sha256()
    for part in (str(_SCHEMA), __version__, arch, repr(_nvrtc.nvrtc_version()),
                 _headers(), "\0".join(options), source):
        h.update(part.encode())
        h.update(b"\0\1")
    return h.hexdigest()


def _read(path):
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError:
        return None
    if len(blob) < 48 or blob[:8] != _MAGIC:
        return None
    (n,) = struct.unpack("<Q", blob[8:16])
    digest, payload = blob[16:48], blob[48:]
    if len(payload) != n or hashlib.sha256(payload).digest() != digest:
        return None
    return payload


def _write(path, cubin):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_MAGIC + struct.pack("<Q", len(cubin))
                        + hashlib.sha256(cubin).digest() + cubin)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError:
        pass  # a read-only or full cache never stops a run


def get_cubin(source, name, options=(), arch="sm_90"):
    """The cubin of ``source`` for ``arch``: from memory, disk, or NVRTC."""
    options = tuple(options)
    key = _key(source, options, arch)
    with _lock:
        cubin = _memory.get(key)
        if cubin is not None:
            _memory.move_to_end(key)
            _stats["memory_hits"] += 1
            return cubin
    path = os.path.join(cache_dir(), key[:2], key + ".cubin")
    cubin = _read(path)
    if cubin is not None:
        _stats["disk_hits"] += 1
    else:
        if os.path.exists(path):
            _stats["disk_rebuilds"] += 1
        cubin = _nvrtc.compile_cubin(source, name, options, arch)
        _stats["nvrtc_compiles"] += 1
        _write(path, cubin)
    with _lock:
        _memory[key] = cubin
        while len(_memory) > _MEMORY_ENTRIES:
            _memory.popitem(last=False)
    return cubin


def clear(disk=True):
    """Empty the in-process cache and, with ``disk=True``, the disk store."""
    import shutil
    with _lock:
        _memory.clear()
    if disk:
        shutil.rmtree(cache_dir(), ignore_errors=True)


def stats():
    """Counts for this process: NVRTC compiles, disk hits, memory hits."""
    return dict(_stats)
