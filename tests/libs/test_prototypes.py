"""Every declaration of the bindings checked against the vendor headers.

The generator renders a C++ file per library that ``static_assert``s each
bound function's exact prototype, the enum values and the size of every
scalar type (``_generate.check_source``). It compiles wherever a C++
compiler and the vendor headers are present: ``GPUSCIPY_VENDOR_INCLUDE``
(a path list), the headers of the nvidia-* wheels found by cuda.pathfinder,
or a CUDA toolkit (``CUDA_PATH``, ``/usr/local/cuda``). A function that an
older installed header does not declare yet is reported, not failed: the
binding resolves symbols lazily and raises SymbolNotFoundError on use.
"""

import os
import re
import shutil
import subprocess
import warnings

import pytest

from gpuscipy_core.libs import _generate

HEADERS = {"cublas": "cublas_v2.h", "cusolver": "cusolverDn.h", "cufft": "cufftXt.h",
           "cusparse": "cusparse.h", "curand": "curand.h", "cudss": "cudss.h"}


def _include_dirs():
    from gpuscipy_core import config
    dirs = config.path_list("GPUSCIPY_VENDOR_INCLUDE")
    try:
        from cuda import pathfinder
        for name in ("cudart", "cublas", "cusolver", "cufft", "cusparse", "curand"):
            try:
                d = pathfinder.find_nvidia_header_directory(name)
            except Exception:
                d = None
            if d:
                dirs.append(d)
    except ImportError:
        pass
    try:
        import nvidia
        for root in nvidia.__path__:
            for sub in ("cu13", "cu12"):
                dirs.append(os.path.join(root, sub, "include"))
    except ImportError:
        pass
    dirs += [os.path.join(home, "include") for home in config.cuda_roots()]
    return [d for d in dict.fromkeys(dirs) if os.path.isdir(d)]


@pytest.mark.parametrize("lib", _generate.LIBRARIES)
def test_declarations_match_vendor_headers(lib, tmp_path):
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    dirs = _include_dirs()
    header = HEADERS[lib]
    if not any(os.path.exists(os.path.join(d, header)) for d in dirs):
        pytest.skip(f"{header} not found (set GPUSCIPY_VENDOR_INCLUDE)")
    if not any(os.path.exists(os.path.join(d, "cuda_runtime_api.h")) for d in dirs):
        pytest.skip("cuda_runtime_api.h not found")
    src = tmp_path / f"check_{lib}.cpp"
    src.write_text(_generate.check_source(lib))
    cmd = [cxx, "-std=c++17", "-fsyntax-only", "-w", "-fmax-errors=0", str(src)]
    for d in dirs:
        cmd += ["-I", d]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode == 0:
        return
    undeclared = set(re.findall(r"['‘`](\w+)['’] was not declared", r.stderr))
    undeclared |= set(re.findall(r"use of undeclared identifier '(\w+)'", r.stderr))
    errors = [line for line in r.stderr.splitlines() if "error" in line
              and not any(u in line for u in undeclared)]
    names = {f.name for f in _generate.parse(lib).functions}
    if undeclared and undeclared <= names | set(_generate.parse(lib).constants()) \
            and not errors:
        warnings.warn(f"{lib}: the installed header lacks {sorted(undeclared)}")
        return
    pytest.fail(f"{lib} declarations disagree with {header}:\n{r.stderr[-6000:]}")
