"""Packaging rules, checked without building anything.

The sdist must carry the Cython sources, their stubs and declarations, the
device headers and the whole test suite, and never a build product; setup.py
must list every ``.pyx``; pyproject's metadata must hold together. These
tests read the files (``MANIFEST.in`` is applied with setuptools' own
``FileList`` to an empty-file copy of the tree, with build products planted
in it); ``.ci/package`` builds the real sdist and wheel and tests them
installed. The lazy submodules of ``gpuscipy`` are checked here too.
"""

import ast
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCE_KINDS = (".pyx", ".pxd", ".pxi", ".pyi", ".cuh", ".h")
PACKAGES = ("gpuscipy", "gpuscipy_core")
# not part of any distribution: VCS, environments, build output, CI, dev tools
_SKIP_DIRS = {".git", "build", "dist", "out", "demo-report", "__pycache__",
              ".ci", "tools"}


def _source_checkout():
    if not ((ROOT / "setup.py").exists() and (ROOT / "MANIFEST.in").exists()
            and (ROOT / "gpuscipy_core").is_dir()):
        pytest.skip("not a source checkout (tests run against an installed package)")


def _tree_files():
    """Relative paths of the tree's own files (no build products)."""
    out = []
    for root, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and not d.startswith(".")
                   and not d.endswith(".egg-info")]
        for f in files:
            if f.endswith((".cpp", ".c", ".so", ".o", ".pyc")):
                continue
            out.append(os.path.relpath(os.path.join(root, f), ROOT).replace(os.sep, "/"))
    return sorted(out)


def _pyproject():
    tomllib = pytest.importorskip("tomllib")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _setup_extensions():
    """setup.py's EXTENSIONS tuple, read without running setup()."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and getattr(node.targets[0], "id", None) == "EXTENSIONS"):
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py defines no EXTENSIONS")


# ------------------------------------------------------------ extensions ---

def test_setup_lists_every_pyx():
    _source_checkout()
    names = _setup_extensions()
    assert len(names) == len(set(names)), "duplicate in setup.py EXTENSIONS"
    listed = {n.replace(".", "/") + ".pyx" for n in names}
    present = {f for f in _tree_files() if f.endswith(".pyx")}
    assert present, "no .pyx found: the scan of the tree is broken"
    assert listed == present, (
        f"in setup.py, no .pyx: {sorted(listed - present)}; "
        f".pyx not in setup.py: {sorted(present - listed)}")


def test_every_pyx_has_a_stub():
    _source_checkout()
    for pyx in (f for f in _tree_files() if f.endswith(".pyx")):
        assert (ROOT / (pyx[:-4] + ".pyi")).exists(), f"{pyx} has no .pyi stub"


def test_py_typed_beside_the_stubs():
    _source_checkout()
    assert (ROOT / "gpuscipy_core" / "py.typed").exists()
    data = _pyproject()["tool"]["setuptools"]["package-data"]["gpuscipy_core"]
    assert "py.typed" in data


# ----------------------------------------------------------------- sdist ---

def _manifest(tmp_path):
    """The files MANIFEST.in selects from an empty-file copy of the tree, with
    the build products of an in-place build planted beside the sources."""
    egg_info = pytest.importorskip("setuptools.command.egg_info")
    files = _tree_files()
    planted = []
    for f in files:
        if f.endswith(".pyx"):
            planted += [f[:-4] + ".cpp", f[:-4] + ".cpython-311-x86_64-linux-gnu.so"]
    planted += ["gpuscipy_core/_stray.c", "gpuscipy_core/_kernel/x.o",
                "tests/__pycache__/conftest.cpython-311.pyc",
                "build/lib/gpuscipy/__init__.py"]
    for f in files + planted:
        p = tmp_path / f
        p.parent.mkdir(parents=True, exist_ok=True)
        p.touch()
    fl = egg_info.FileList()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        for line in (ROOT / "MANIFEST.in").read_text().splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                fl.process_template_line(line)
    finally:
        os.chdir(cwd)
    return files, {f.replace(os.sep, "/") for f in fl.files}


def test_manifest_ships_sources_and_tests(tmp_path):
    _source_checkout()
    files, selected = _manifest(tmp_path)
    want = [f for f in files if f.split("/")[0] in PACKAGES and f.endswith(SOURCE_KINDS)]
    assert len([f for f in want if f.endswith(".pyx")]) == len(_setup_extensions())
    assert any(f.startswith("gpuscipy_core/_kernel/include/") for f in want)
    assert any(f.startswith("gpuscipy/") and f.endswith(".cuh") for f in want)
    want += [f for f in files if f.startswith(("tests/", "LICENSES/", "benchmarks/"))]
    want += ["gpuscipy_core/py.typed", "LICENSE"]
    want += [f for f in files if f.startswith("gpuscipy/datasets/_data/")]
    missing = sorted(set(want) - selected)
    assert not missing, f"MANIFEST.in leaves out: {missing[:20]}"


def test_manifest_ships_no_build_products(tmp_path):
    _source_checkout()
    _, selected = _manifest(tmp_path)
    bad = sorted(f for f in selected
                 if f.endswith((".cpp", ".c", ".so", ".o", ".pyc")) or f.startswith("build/"))
    assert not bad, f"MANIFEST.in ships build products: {bad[:20]}"


def test_wheel_leaves_out_sources():
    _source_checkout()
    excluded = set(_pyproject()["tool"]["setuptools"]["exclude-package-data"]["*"])
    assert {"*.cpp", "*.c", "*.pyx"} <= excluded


# -------------------------------------------------------------- metadata ---

def _bounds(spec):
    from packaging.specifiers import SpecifierSet
    ops = {s.operator for s in SpecifierSet(spec)}
    return ops & {">=", ">", "==", "~="}, ops & {"<", "<=", "==", "~="}


def _requirement(text):
    from packaging.requirements import Requirement
    return Requirement(text)


def test_license_is_spdx_with_files():
    _source_checkout()
    project = _pyproject()["project"]
    assert isinstance(project["license"], str)
    licenses = pytest.importorskip("packaging.licenses")  # packaging >= 24.2
    assert licenses.canonicalize_license_expression(project["license"])
    for pattern in project["license-files"]:
        assert list(ROOT.glob(pattern)), pattern
    assert not [c for c in project["classifiers"] if c.startswith("License ::")], (
        "License classifiers are superseded by the SPDX expression")
    build = [_requirement(r) for r in _pyproject()["build-system"]["requires"]]
    setuptools_req = next(r for r in build if r.name == "setuptools")
    assert setuptools_req.specifier.contains("77.0") and not setuptools_req.specifier.contains("76.9")


def test_python_classifiers_follow_requires_python():
    _source_checkout()
    project = _pyproject()["project"]
    low = re.fullmatch(r">=\s*3\.(\d+)", project["requires-python"])
    assert low, project["requires-python"]
    minors = sorted(int(m) for c in project["classifiers"]
                    for m in re.findall(r"^Programming Language :: Python :: 3\.(\d+)$", c))
    assert minors and minors[0] == int(low.group(1)), (minors, project["requires-python"])
    assert minors == list(range(minors[0], minors[-1] + 1))


def test_dependencies_have_lower_bounds():
    _source_checkout()
    project = _pyproject()["project"]
    for text in project["dependencies"]:
        assert _bounds(str(_requirement(text).specifier))[0], f"{text}: no lower bound"


def test_cuda_wheels_bounded_alike():
    """Every NVIDIA wheel in every extra has a lower and an upper bound."""
    _source_checkout()
    project = _pyproject()["project"]
    reqs = [_requirement(t) for extra in project["optional-dependencies"].values() for t in extra]
    reqs += [_requirement(t) for t in project["dependencies"]]
    reqs += [_requirement(t) for t in _pyproject()["build-system"]["requires"]]
    nvidia = [r for r in reqs if r.name.startswith(("nvidia-", "cuda-bindings"))]
    assert len({r.name for r in nvidia}) >= 10
    for r in nvidia:
        low, high = _bounds(str(r.specifier))
        assert low and high, f"{r}: needs both bounds"


def test_classifiers_are_known():
    trove = pytest.importorskip("trove_classifiers")
    _source_checkout()
    unknown = set(_pyproject()["project"]["classifiers"]) - set(trove.classifiers)
    assert not unknown


def test_versions_agree():
    _source_checkout()
    version = _pyproject()["project"]["version"]
    for init in ("gpuscipy/__init__.py", "gpuscipy_core/__init__.py"):
        found = re.search(r'^__version__ = "([^"]+)"', (ROOT / init).read_text(), re.M)
        assert found and found.group(1) == version, init


# ------------------------------------------------------ lazy submodules ---

def _run(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=str(ROOT), timeout=300)
    assert out.returncode == 0, out.stderr[-4000:]
    return out.stdout


def test_submodules_load_on_first_use():
    out = _run(
        "import sys, gpuscipy\n"
        "names = ('datasets', 'demo', 'fft', 'linalg', 'signal')\n"
        "print(any(f'gpuscipy.{n}' in sys.modules for n in names))\n"
        "print('gpuscipy_core' in sys.modules)\n"
        "fft = gpuscipy.fft\n"
        "print(fft is sys.modules['gpuscipy.fft'], callable(fft.rfft))\n"
        "print('gpuscipy.linalg' in sys.modules)\n"
        "print(callable(gpuscipy.linalg.solve), callable(gpuscipy.signal.welch))\n"
        "print(sorted(n for n in names if f'gpuscipy.{n}' in sys.modules))\n")
    assert out.split("\n")[:6] == ["False", "False", "True True", "False", "True True",
                                   "['fft', 'linalg', 'signal']"]


def test_namespace_lists_every_submodule():
    import gpuscipy
    public = sorted(p.name for p in pathlib.Path(gpuscipy.__file__).parent.iterdir()
                    if p.is_dir() and not p.name.startswith("_")
                    and (p / "__init__.py").exists())
    assert public == sorted(n for n in gpuscipy.__all__ if n != "__version__")
    assert set(public) <= set(dir(gpuscipy))
    with pytest.raises(AttributeError, match="module 'gpuscipy' has no attribute 'special'"):
        gpuscipy.special
    out = _run("from gpuscipy import *; print(sorted(k for k in dir() if not k.startswith('_')))")
    assert out.strip() == repr(public)
