"""Locate and load NVIDIA's math libraries; resolve their symbols on first use.

Libraries are found by ``cuda.pathfinder.load_nvidia_dynamic_lib`` (wheels in
site-packages, then ``CUDA_PATH``/``CUDA_HOME``, then the system's search
path). When that fails (an older pathfinder that does not know cuDSS, or
one that insists on a dependency that is not installed), the library is
looked for in the ``nvidia/cu13|cu12/lib`` folders of the wheels, the
toolkit's ``lib64``, the folders of ``LD_LIBRARY_PATH`` (read now, so a
folder added after start-up counts), then by soname; cuDSS under each of its
sonames, newest first (``libcudss.so.1`` for 1.x, ``libcudss.so.0`` for
0.x). Nothing is loaded at import: the first call of a bound function loads
its library and resolves its symbol.
"""

import ctypes
import glob
import os
import threading

from .._errors import GPUError

__all__ = ["load", "symbol", "library_path", "library_version", "WHEELS",
           "LibraryNotFoundError", "SymbolNotFoundError"]

# Where each library comes from, for the message when it is missing.
WHEELS = {
    "cublas": "nvidia-cublas (CUDA 13) or nvidia-cublas-cu12",
    "cusolver": "nvidia-cusolver (CUDA 13) or nvidia-cusolver-cu12",
    "cufft": "nvidia-cufft (CUDA 13) or nvidia-cufft-cu12",
    "cusparse": "nvidia-cusparse (CUDA 13) or nvidia-cusparse-cu12",
    "curand": "nvidia-curand (CUDA 13) or nvidia-curand-cu12",
    "cudss": "nvidia-cudss-cu13 (or nvidia-cudss-cu12)",
}

# Libraries a library needs loaded first (so its soname dependencies resolve
# to the same copies the process already uses).
_DEPENDS = {"cusolver": ("cublas", "cusparse"), "cudss": ("cublas",)}

# ``<lib>GetProperty(libraryPropertyType, int*)`` of each library.
_PROPERTY = {"cublas": "cublasGetProperty", "cusolver": "cusolverGetProperty",
             "cufft": "cufftGetProperty", "cusparse": "cusparseGetProperty",
             "curand": "curandGetProperty", "cudss": "cudssGetProperty"}

# Sonames tried in this order in each folder (newest major first), then by
# the dynamic linker's own search.
_SONAMES = {"cudss": ("libcudss.so.1", "libcudss.so.0", "libcudss.so")}

# Libraries loaded (through cuda.pathfinder, best effort) before the fallback
# opens one by path: libcudss.so.1 has libnvrtc.so.13 as a NEEDED entry.
_PRELOAD = {"cudss": ("nvrtc",)}


class LibraryNotFoundError(ImportError):
    """A vendor library is not installed where it can be found."""


class SymbolNotFoundError(GPUError):
    """The installed vendor library lacks a function (too old a version)."""


_lock = threading.RLock()
_libs = {}        # name -> (ctypes.CDLL, path)
_symbols = {}     # (lib, symbol) -> address


def _load_with_pathfinder(name):
    from cuda import pathfinder
    loaded = pathfinder.load_nvidia_dynamic_lib(name)
    lib = ctypes.CDLL(loaded.abs_path or f"lib{name}.so", handle=loaded._handle_uint)
    return lib, loaded.abs_path


def _fallback_dirs(name):
    """Folders searched by the fallback, in order."""
    dirs = []
    try:
        import nvidia
        for root in nvidia.__path__:
            for sub in ("cu13", "cu12", name):
                dirs.append(os.path.join(root, sub, "lib"))
    except ImportError:
        pass
    from .. import config
    dirs += [os.path.join(home, "lib64") for home in config.cuda_roots()]
    dirs += config.path_list("LD_LIBRARY_PATH")
    return list(dict.fromkeys(dirs))


def _fallback_candidates(name):
    """Paths (then bare sonames) the fallback tries to open, in order.

    In each folder the known sonames come first, newest major first, then
    any other ``lib<name>.so*`` in name order.
    """
    sonames = _SONAMES.get(name, ())
    candidates = []
    for d in _fallback_dirs(name):
        found = [os.path.join(d, s) for s in sonames if os.path.exists(os.path.join(d, s))]
        found += [p for p in sorted(glob.glob(os.path.join(d, f"lib{name}.so*")))
                  if p not in found]
        candidates += found
    candidates += list(sonames or (f"lib{name}.so",))
    return list(dict.fromkeys(candidates))


def _load_fallback(name):
    for dep in _PRELOAD.get(name, ()):
        try:
            from cuda import pathfinder
            pathfinder.load_nvidia_dynamic_lib(dep)
        except Exception:
            pass
    candidates = _fallback_candidates(name)
    errors = []
    for path in candidates:
        try:
            lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            errors.append(str(e))
            continue
        return lib, path if os.path.isabs(path) else None
    raise OSError("; ".join(errors[-3:]) or "no candidate found")


def load(name):
    """Load vendor library ``name`` (``"cublas"``, ..., ``"cudss"``) once.

    Returns
    -------
    ctypes.CDLL
        The loaded library.

    Raises
    ------
    LibraryNotFoundError
        Naming the library and the wheel that provides it.
    """
    entry = _libs.get(name)
    if entry is not None:
        return entry[0]
    with _lock:
        entry = _libs.get(name)
        if entry is not None:
            return entry[0]
        if name not in WHEELS:
            raise ValueError(f"unknown vendor library {name!r}")
        for dep in _DEPENDS.get(name, ()):
            try:
                load(dep)
            except LibraryNotFoundError:
                pass
        try:
            entry = _load_with_pathfinder(name)
        except Exception as first:  # not found, or unknown to this pathfinder
            try:
                entry = _load_fallback(name)
            except OSError as second:
                raise LibraryNotFoundError(
                    f"the {name} library (lib{name}.so) was not found: install "
                    f"the {WHEELS[name]} wheel or a CUDA toolkit "
                    f"({type(first).__name__}: {str(first).splitlines()[0]}; "
                    f"{str(second).splitlines()[0]})") from None
        _libs[name] = entry
        return entry[0]


def library_path(name):
    """Absolute path of the loaded library (None when loaded by soname)."""
    load(name)
    return _libs[name][1]


def _raw_symbol(lib, sym):
    try:
        return ctypes.cast(getattr(load(lib), sym), ctypes.c_void_p).value
    except AttributeError:
        return None


def library_version(name):
    """``"major.minor.patch"`` of the loaded library, from its GetProperty."""
    addr = _raw_symbol(name, _PROPERTY[name])
    if not addr:
        return "unknown version"
    fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int))(addr)
    parts = []
    for prop in range(3):
        v = ctypes.c_int(0)
        if fn(prop, ctypes.byref(v)) != 0:
            return "unknown version"
        parts.append(str(v.value))
    return ".".join(parts)


def symbol(lib, sym):
    """Address of function ``sym`` in library ``lib`` (loading it if needed).

    Raises
    ------
    SymbolNotFoundError
        When the installed library lacks ``sym``; the message names the
        library, its version and path.
    """
    key = (lib, sym)
    addr = _symbols.get(key)
    if addr is not None:
        return addr
    addr = _raw_symbol(lib, sym)
    if not addr:
        raise SymbolNotFoundError(
            f"{sym} is not in the loaded {lib} library (version "
            f"{library_version(lib)}, {library_path(lib) or 'lib' + lib + '.so'}): "
            f"a newer {WHEELS[lib]} is needed")
    _symbols[key] = addr
    return addr
