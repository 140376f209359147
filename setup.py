"""Build the Cython extensions of gpuscipy_core.

The extensions are compiled from their ``.pyx`` sources (cythonized at build
time; the generated ``.cpp`` files are build products, shipped in neither the
sdist nor the wheel). A source tree that lacks one of them (an incomplete
sdist) stops the build with an error instead of producing a wheel without
extensions.

Modules that ``cimport cuda.bindings.cydriver`` need CUDA's ``cuda.h`` at build
time (no link flags: the bindings load the driver lazily). The headers come
from the ``nvidia-cuda-runtime``/``nvidia-cuda-crt`` wheels (found with
``cuda.pathfinder``) or from a CUDA toolkit. A C++ compiler is needed.

The extensions are built without debug information and stripped at link
time (``-g0``, ``-s``); ``GPUSCIPY_DEBUG_BUILD=1`` keeps the symbols.
Extensions compile in parallel, one job per CPU unless ``-j`` says otherwise.
"""

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext as _build_ext

# Every compiled module, as a dotted name; its source is the matching .pyx.
# tests/test_packaging.py checks this list against the .pyx files present.
EXTENSIONS = (
    "gpuscipy_core._cuda._memory",
    "gpuscipy_core._dlpack",
    "gpuscipy_core._elementwise",
    "gpuscipy_core._kernel._launch",
    "gpuscipy_core._ndarray",
    "gpuscipy_core.libs._cublas",
    "gpuscipy_core.libs._cudss",
    "gpuscipy_core.libs._cufft",
    "gpuscipy_core.libs._curand",
    "gpuscipy_core.libs._cusolver",
    "gpuscipy_core.libs._cusparse",
)

HERE = os.path.dirname(os.path.abspath(__file__))


def pyx_path(name):
    """Source of the extension ``name``, relative to the project root."""
    return name.replace(".", "/") + ".pyx"


def _check_sources():
    """Every listed .pyx exists and every .pyx is listed, or stop loudly."""
    missing = [pyx_path(n) for n in EXTENSIONS
               if not os.path.exists(os.path.join(HERE, pyx_path(n)))]
    if missing:
        raise RuntimeError(
            "gpuscipy: Cython sources missing from this source tree: "
            + ", ".join(missing) + ". The sdist must ship every .pyx (see "
            "MANIFEST.in); refusing to build a wheel without its extensions.")
    listed = {pyx_path(n) for n in EXTENSIONS}
    present = set()
    for root, _, files in os.walk(os.path.join(HERE, "gpuscipy_core")):
        for f in files:
            if f.endswith(".pyx"):
                present.add(os.path.relpath(os.path.join(root, f), HERE)
                            .replace(os.sep, "/"))
    unlisted = sorted(present - listed)
    if unlisted:
        raise RuntimeError(
            "gpuscipy: .pyx files not in setup.py's EXTENSIONS: "
            + ", ".join(unlisted) + " (add them there)")


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


class build_ext(_build_ext):
    """Cythonize at build time (never for an sdist), compile in parallel,
    strip, and check that every extension was produced."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = os.cpu_count() or 1

    def run(self):
        import numpy
        from Cython.Build import cythonize

        inc = [numpy.get_include(), *_cuda_include_dirs()]
        debug = os.environ.get("GPUSCIPY_DEBUG_BUILD", "") not in ("", "0")
        unix = self.compiler is None or self.compiler == "unix"
        unix = unix and sys.platform != "win32"
        for ext in self.extensions:
            ext.include_dirs = [*inc, *ext.include_dirs]
            if unix and not debug:
                ext.extra_compile_args = [*ext.extra_compile_args, "-g0"]
                ext.extra_link_args = [*ext.extra_link_args, "-s"]
        cythonized = cythonize(
            self.extensions, language_level=3, nthreads=self.parallel or 0,
            compiler_directives={"boundscheck": False, "cdivision": True,
                                 "embedsignature": True})
        # keep the Extension objects setuptools finalized; take the C++ sources
        generated = {e.name: e for e in cythonized}
        for ext in self.extensions:
            ext.sources = generated[ext.name].sources
        super().run()
        absent = [e.name for e in self.extensions
                  if not os.path.exists(self.get_ext_fullpath(e.name))]
        if absent:
            raise RuntimeError("gpuscipy: extensions not built: " + ", ".join(absent))


def _extensions():
    _check_sources()
    return [Extension(name, [pyx_path(name)], language="c++",
                      define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")])
            for name in EXTENSIONS]


setup(ext_modules=_extensions(), cmdclass={"build_ext": build_ext})
