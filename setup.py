"""Build the Cython extensions of gpuscipy_core.

Modules that ``cimport cuda.bindings.cydriver`` need CUDA's ``cuda.h`` at build
time (no link flags: the bindings load the driver lazily). The headers come
from the ``nvidia-cuda-runtime``/``nvidia-cuda-crt`` wheels (found with
``cuda.pathfinder``) or from a CUDA toolkit.
"""

import glob
import os

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup


def _wheel_include_dirs():
    """Headers of the nvidia-cuda-runtime/-crt wheels installed beside the
    cuda-bindings being built against (they must match its ``cydriver.pxd``)."""
    dirs = []
    try:
        import nvidia

        for root in nvidia.__path__:
            d = os.path.join(root, "cu13", "include")
            if os.path.exists(os.path.join(d, "cuda.h")):
                dirs.append(d)
    except ImportError:
        pass
    return dirs


def _cuda_include_dirs():
    dirs = _wheel_include_dirs()
    try:
        from cuda import pathfinder

        d = pathfinder.find_nvidia_header_directory("cudart")
        if d:
            dirs.append(d)
    except Exception:  # pragma: no cover - depends on the build machine
        pass
    for root in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"),
                 "/usr/local/cuda"):
        if root and os.path.exists(os.path.join(root, "include", "cuda.h")):
            dirs.append(os.path.join(root, "include"))
    if not any(os.path.exists(os.path.join(d, "cuda.h")) for d in dirs):
        raise RuntimeError(
            "cuda.h not found: install the nvidia-cuda-runtime and "
            "nvidia-cuda-crt wheels or set CUDA_PATH to a CUDA toolkit")
    return dirs


def _extensions():
    inc = [numpy.get_include(), *_cuda_include_dirs()]
    exts = []
    for pyx in sorted(glob.glob("gpuscipy_core/**/*.pyx", recursive=True)):
        name = pyx[:-4].replace(os.sep, ".")
        exts.append(Extension(name, [pyx], include_dirs=inc, language="c++",
                              define_macros=[("NPY_NO_DEPRECATED_API",
                                              "NPY_2_0_API_VERSION")]))
    return cythonize(exts, language_level=3, compiler_directives={
        "boundscheck": False, "cdivision": True,
        "embedsignature": True})


setup(ext_modules=_extensions())
