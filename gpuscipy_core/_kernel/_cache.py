"""Compiled-kernel cache: an in-process LRU in front of a disk store.

The key is the SHA-256 of everything that decides the cubin: source,
normalised options, NVRTC version, target architecture, the content of
gpuscipy's device headers, the package version and a schema version. Disk
entries are written atomically (temporary file + rename) and carry a
checksum; an entry that is unreadable, truncated or corrupt is rebuilt.

An entry is a program: the cubin and, for the C++ name expressions it was
compiled with (template kernels), their lowered (mangled) symbols, which
NVRTC alone can compute, so a disk hit needs no compile.
"""

import collections
import hashlib
import json
import os
import struct
import tempfile
import threading

from . import _nvrtc

__all__ = ["get_cubin", "get_program", "cache_dir", "clear", "stats"]

_SCHEMA = 2
_MAGIC = b"GSCUBIN2"
_MEMORY_ENTRIES = 4096
_lock = threading.Lock()
_memory = collections.OrderedDict()
_stats = {"nvrtc_compiles": 0, "disk_hits": 0, "memory_hits": 0,
          "disk_rebuilds": 0}
_headers_digest = None


def cache_dir():
    """The disk cache folder: ``$GPUSCIPY_CACHE_DIR`` or
    ``~/.cache/gpuscipy/kernels`` (``gpuscipy_core.config``)."""
    from .. import config
    return config.cache_dir()


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


def _key(source, options, arch, name_expressions=()):
    from .. import __version__
    h = hashlib.sha256()
    for part in (str(_SCHEMA), __version__, arch, repr(_nvrtc.nvrtc_version()),
                 _headers(), "\0".join(options), "\0".join(name_expressions), source):
        h.update(part.encode())
        h.update(b"\0\1")
    return h.hexdigest()


def _pack(cubin, lowered):
    names = json.dumps(lowered, sort_keys=True).encode() if lowered else b""
    return struct.pack("<Q", len(names)) + names + cubin


def _unpack(payload):
    if len(payload) < 8:
        return None
    (n,) = struct.unpack("<Q", payload[:8])
    if 8 + n > len(payload):
        return None
    try:
        lowered = json.loads(payload[8:8 + n]) if n else {}
    except ValueError:
        return None
    return payload[8 + n:], lowered


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


def _write(path, payload):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_MAGIC + struct.pack("<Q", len(payload))
                        + hashlib.sha256(payload).digest() + payload)
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
    return get_program(source, name, options, arch)[0]


def get_program(source, name, options=(), arch="sm_90", name_expressions=()):
    """``(cubin, lowered)`` of ``source`` for ``arch``, from memory, disk or
    NVRTC; ``lowered`` maps each of ``name_expressions`` to its symbol (see
    ``_nvrtc.compile_program``)."""
    options = tuple(options)
    name_expressions = tuple(name_expressions)
    key = _key(source, options, arch, name_expressions)
    with _lock:
        hit = _memory.get(key)
        if hit is not None:
            _memory.move_to_end(key)
            _stats["memory_hits"] += 1
            return hit
    path = os.path.join(cache_dir(), key[:2], key + ".cubin")
    payload = _read(path)
    hit = _unpack(payload) if payload is not None else None
    if hit is not None and set(hit[1]) != set(name_expressions):
        hit = None
    if hit is not None:
        _stats["disk_hits"] += 1
    else:
        if os.path.exists(path):
            _stats["disk_rebuilds"] += 1
        hit = _nvrtc.compile_program(source, name, options, arch, name_expressions)
        _stats["nvrtc_compiles"] += 1
        _write(path, _pack(*hit))
    with _lock:
        _memory[key] = hit
        while len(_memory) > _MEMORY_ENTRIES:
            _memory.popitem(last=False)
    return hit


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
