"""NVRTC front end: CUDA C++ source -> cubin, without touching a device.

This module needs only the NVRTC library (the ``nvidia-cuda-nvrtc`` wheel or a
CUDA toolkit); it is what CI uses to compile every generated kernel.
"""

import functools
import os
import re

from cuda.bindings import nvrtc

from .._errors import GPUError

__all__ = ["NVRTCError", "NVRTCCallError", "compile_cubin", "compile_program",
           "nvrtc_version", "include_dir", "cccl_include_dir", "cccl_options", "read_source"]

_HERE = os.path.dirname(os.path.abspath(__file__))


def include_dir():
    """The folder holding gpuscipy's device headers (``gpuscipy/*.cuh``)."""
    return os.path.join(_HERE, "include")


_cccl = None


def cccl_include_dir():
    """The CCCL (CUB, libcu++, Thrust) header folder, or None.

    Looked up in this order: the ``nvidia-cuda-cccl`` wheel (through
    ``cuda.pathfinder``), ``$CUDA_PATH/include/cccl``,
    ``/usr/local/cuda/include/cccl``, ``/usr/local/cuda/include``.
    """
    global _cccl
    if _cccl is None:
        found = ""
        try:
            from cuda import pathfinder
            found = pathfinder.find_nvidia_header_directory("cccl") or ""
        except Exception:  # pathfinder missing or the wheel absent
            found = ""
        from .. import config
        cands = [found]
        for root in config.cuda_roots():
            cands += [os.path.join(root, "include", "cccl"), os.path.join(root, "include")]
        _cccl = ""
        for c in cands:
            if c and os.path.isfile(os.path.join(c, "cub", "version.cuh")):
                _cccl = c
                break
    return _cccl or None


def cccl_options():
    """NVRTC options that let a kernel ``#include <cub/...>``.

    An opt-in: pass them in a kernel's ``options``. They name the header
    folder and define ``GPUSCIPY_CCCL_VERSION`` (CUB_VERSION of that folder),
    so the kernel cache key, which covers the options, changes when the CCCL
    headers change.

    Raises
    ------
    RuntimeError
        If no CCCL headers are found.
    """
    d = cccl_include_dir()
    if d is None:
        raise RuntimeError("CCCL headers not found: install nvidia-cuda-cccl or set "
                           "CUDA_PATH to a CUDA toolkit")
    version = "0"
    try:
        with open(os.path.join(d, "cub", "version.cuh")) as f:
            m = re.search(r"#define\s+CUB_VERSION\s+(\d+)", f.read())
        if m:
            version = m.group(1)
    except OSError:
        pass
    return (f"-I{d}", f"-DGPUSCIPY_CCCL_VERSION={version}")


@functools.lru_cache(maxsize=None)
def read_source(path):
    """Text of the CUDA source file ``path`` (a ``.cuh`` beside the module
    that generates kernels from it), read once per process."""
    with open(path, encoding="utf-8") as f:
        return f.read()


class NVRTCError(GPUError):
    """A kernel failed to compile; carries NVRTC's log and the source.

    Attributes
    ----------
    name : str
        The program (kernel) name.
    log : str
        NVRTC's compile log.
    source : str
        The CUDA source that failed.
    """

    def __init__(self, name, log, source):
        self.name = name
        self.log = log
        self.source = source
        super().__init__(
            f"NVRTC failed to compile kernel {name!r}:\n{log}\n"
            f"--- generated source around the error ---\n{_excerpt(log, source)}"
        )


def _excerpt(log, source, context=4):
    lines = source.splitlines()
    m = re.search(r"\((\d+)\): (?:catastrophic )?error", log)
    if m is None:
        shown = range(len(lines))
        mark = -1
    else:
        mark = int(m.group(1)) - 1
        shown = range(max(0, mark - context), min(len(lines), mark + context + 1))
    return "\n".join(
        f"{'>' if i == mark else ' '}{i + 1:5d} | {lines[i]}" for i in shown
    )


class NVRTCCallError(NVRTCError):
    """An NVRTC API call other than the compilation itself failed.

    Attributes
    ----------
    call : str
        The NVRTC function, e.g. ``"nvrtcGetCUBIN"``.
    status : int
        The ``nvrtcResult`` value.
    """

    def __init__(self, call, status, message):
        self.call = call
        self.status = int(status)
        self.name, self.log, self.source = call, message, ""
        GPUError.__init__(self, f"{call} failed: {message}")

    def __reduce__(self):
        return (type(self), (self.call, self.status, self.log))


def _check(result, call):
    err = result[0]
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        msg = nvrtc.nvrtcGetErrorString(err)[1].decode()
        raise NVRTCCallError(call, int(err), msg if msg == err.name else f"{msg} ({err.name})")
    return result[1:] if len(result) > 2 else (result[1] if len(result) == 2 else None)


_version = None


def nvrtc_version():
    """(major, minor) of the NVRTC library in use."""
    global _version
    if _version is None:
        _version = tuple(_check(nvrtc.nvrtcVersion(), "nvrtcVersion"))
    return _version


def compile_cubin(source, name, options=(), arch="sm_90"):
    """Compile ``source`` to a cubin for ``arch``.

    Parameters
    ----------
    source : str
        CUDA C++ text. Kernels meant to be looked up by name use ``extern "C"``.
    name : str
        Program name, used in error messages.
    options : sequence of str
        Extra NVRTC options (``-I`` paths are added for gpuscipy's headers).
    arch : str
        Target architecture, e.g. ``"sm_90"``.

    Returns
    -------
    bytes
        The cubin image.

    Raises
    ------
    NVRTCError
        If the source does not compile; the message shows NVRTC's log and the
        source lines around the first error.
    """
    return compile_program(source, name, options, arch)[0]


def compile_program(source, name, options=(), arch="sm_90", name_expressions=()):
    """Compile ``source`` for ``arch``; ``(cubin, lowered)``.

    ``name_expressions`` are C++ names of ``__global__`` functions,
    typically template instantiations (``"gs::scale<float, 4>"``): NVRTC
    instantiates each and ``lowered`` maps it to its mangled symbol, the
    name the module is asked for (``nvrtcAddNameExpression``,
    ``nvrtcGetLoweredName``). Other parameters and errors as
    :func:`compile_cubin`.
    """
    opts = [f"--gpu-architecture={arch}", "-std=c++17", f"-I{include_dir()}",
            *options]
    prog = _check(nvrtc.nvrtcCreateProgram(source.encode(), f"{name}.cu".encode(),
                                           0, [], []), "nvrtcCreateProgram")
    try:
        for expr in name_expressions:
            _check(nvrtc.nvrtcAddNameExpression(prog, expr.encode()),
                   "nvrtcAddNameExpression")
        err, = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            size = _check(nvrtc.nvrtcGetProgramLogSize(prog), "nvrtcGetProgramLogSize")
            log = b" " * size
            _check(nvrtc.nvrtcGetProgramLog(prog, log), "nvrtcGetProgramLog")
            raise NVRTCError(name, log.decode(errors="replace").rstrip("\x00 \n"),
                             source)
        lowered = {}
        for expr in name_expressions:
            sym = _check(nvrtc.nvrtcGetLoweredName(prog, expr.encode()),
                         "nvrtcGetLoweredName")
            lowered[expr] = sym.decode() if isinstance(sym, bytes) else str(sym)
        size = _check(nvrtc.nvrtcGetCUBINSize(prog), "nvrtcGetCUBINSize")
        cubin = b" " * size
        _check(nvrtc.nvrtcGetCUBIN(prog, cubin), "nvrtcGetCUBIN")
        return cubin, lowered
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
