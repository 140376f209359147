"""Checks of gpuscipy's built distributions, for .ci/package (stdlib only).

    python check_dist.py sdist SDIST SRC     the sdist against the clone SRC
    python check_dist.py wheel WHEEL SRC     the wheel against the clone SRC
    python check_dist.py imports             (in an installed venv) import
                                             every public module
    python check_dist.py pins PYPROJECT      the lowest supported versions of
                                             the dependencies and test tools,
                                             as pip requirements "name==low"

Each check prints one summary line and exits non-zero with the reasons when
a rule is broken.
"""

import ast
import importlib
import os
import pathlib
import pkgutil
import re
import struct
import subprocess
import sys
import tarfile
import zipfile

SOURCE_KINDS = (".pyx", ".pxd", ".pxi", ".pyi", ".cuh", ".h")
BUILD_PRODUCTS = (".cpp", ".c", ".so", ".o", ".pyc", ".pyd")
PACKAGES = ("gpuscipy", "gpuscipy_core")
# every module a user is told about; the walk below must find at least these
PUBLIC = ("gpuscipy", "gpuscipy.signal", "gpuscipy.signal.windows", "gpuscipy.linalg",
          "gpuscipy.fft", "gpuscipy.datasets", "gpuscipy.demo", "gpuscipy_core",
          "gpuscipy_core.cuda", "gpuscipy_core.libs", "gpuscipy_core.random")
# dependencies (and test extras) whose lowest version .ci/package installs
LOWEST = ("numpy", "scipy", "cuda-bindings", "cuda-pathfinder", "pytest", "matplotlib")


def fail(what, problems):
    if problems:
        print(f"{what}: FAILED", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        sys.exit(1)


def extensions(src):
    tree = ast.parse((pathlib.Path(src) / "setup.py").read_text())
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and getattr(node.targets[0], "id", None) == "EXTENSIONS"):
            return ast.literal_eval(node.value)
    fail("setup.py", ["no EXTENSIONS tuple"])


def tracked(src):
    out = subprocess.run(["git", "ls-files"], cwd=src, capture_output=True, text=True,
                         check=True)
    return out.stdout.split()


def check_sdist(path, src):
    with tarfile.open(path) as tar:
        members = [m for m in tar.getmembers() if m.isfile()]
    names = {m.name.split("/", 1)[1] for m in members if "/" in m.name}
    files = tracked(src)
    need = [f for f in files if f.split("/")[0] in PACKAGES and f.endswith(SOURCE_KINDS)]
    need += [f for f in files if f.startswith(("tests/", "LICENSES/"))]
    need += [f for f in files if f.startswith("gpuscipy/datasets/_data/")]
    need += ["setup.py", "pyproject.toml", "MANIFEST.in", "README.md", "LICENSE",
             "gpuscipy_core/py.typed"]
    need += [n.replace(".", "/") + ".pyx" for n in extensions(src)]
    problems = [f"missing {f}" for f in sorted(set(need) - names)]
    problems += [f"build product shipped: {n}" for n in sorted(names)
                 if n.endswith(BUILD_PRODUCTS)]
    fail("sdist", problems)
    n_tests = sum(n.startswith("tests/") for n in names)
    n_pyx = sum(n.endswith(".pyx") for n in names)
    print(f"sdist ok: {os.path.basename(path)} {os.path.getsize(path) / 1e6:.1f} MB, "
          f"{len(names)} files, {n_pyx} .pyx, {n_tests} under tests/, no .cpp/.so")


def elf_sections(data):
    """Section names of an ELF64 little-endian shared object."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not an ELF64 little-endian file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)

    def header(i):
        base = shoff + i * shentsize
        name, = struct.unpack_from("<I", data, base)
        offset, size = struct.unpack_from("<QQ", data, base + 0x18)
        return name, offset, size

    _, stroff, strsize = header(shstrndx)
    strtab = data[stroff:stroff + strsize]
    names = []
    for i in range(shnum):
        name = header(i)[0]
        names.append(strtab[name:strtab.index(b"\0", name)].decode())
    return names


def check_wheel(path, src):
    base = os.path.basename(path)
    problems = []
    if base.endswith("-none-any.whl"):
        problems.append(f"{base} is a pure-Python wheel: the extensions are missing")
    with zipfile.ZipFile(path) as z:
        infos = {i.filename: i for i in z.infolist()}
        wheel_meta = next((z.read(n).decode() for n in infos
                           if n.endswith(".dist-info/WHEEL")), "")
        if "Root-Is-Purelib: false" not in wheel_meta:
            problems.append("WHEEL says Root-Is-Purelib: true")
        so_size = 0
        for ext in extensions(src):
            stem = ext.replace(".", "/")
            found = [n for n in infos if n.startswith(stem + ".") and n.endswith(".so")]
            if len(found) != 1:
                problems.append(f"extension {ext}: {found or 'not in the wheel'}")
                continue
            so_size += infos[found[0]].file_size
            sections = elf_sections(z.read(found[0]))
            unstripped = [s for s in sections if s == ".symtab" or s.startswith(".debug")]
            if unstripped:
                problems.append(f"{found[0]} is not stripped: {unstripped}")
            if not (stem + ".pyi") in infos:
                problems.append(f"{stem}.pyi missing")
        problems += [f"source or build product in the wheel: {n}" for n in sorted(infos)
                     if n.endswith((".pyx", ".pxi", ".cpp", ".c", ".o", ".pyc"))]
        for need in ("gpuscipy_core/py.typed",
                     "gpuscipy_core/_kernel/include/gpuscipy/core.cuh",
                     "gpuscipy/datasets/_data/ecg_mitbih208.npz"):
            if need not in infos:
                problems.append(f"missing {need}")
        if not any(n.endswith(".dist-info/licenses/LICENSE") for n in infos):
            problems.append("LICENSE not in .dist-info/licenses")
    fail("wheel", problems)
    print(f"wheel ok: {base} {os.path.getsize(path) / 1e6:.1f} MB, "
          f"{len(extensions(src))} stripped extensions ({so_size / 1e6:.2f} MB), "
          "no .pyx/.cpp, py.typed")


def check_imports():
    seen = []
    for top in PACKAGES:
        pkg = importlib.import_module(top)
        seen.append(top)

        def onerror(name):
            raise ImportError(f"importing {name} failed") from sys.exc_info()[1]

        for info in pkgutil.walk_packages(pkg.__path__, top + ".", onerror=onerror):
            if not any(part.startswith("_") for part in info.name.split(".")):
                importlib.import_module(info.name)
                seen.append(info.name)
    problems = [f"public module not found: {m}" for m in PUBLIC if m not in seen]
    for top in PACKAGES:
        where = sys.modules[top].__file__
        if "site-packages" not in where:
            problems.append(f"{top} imported from {where}, not from the installed package")
    fail("imports", problems)
    print(f"imports ok: {len(seen)} public modules from "
          f"{os.path.dirname(os.path.dirname(sys.modules['gpuscipy'].__file__))}")


def lowest_pins(pyproject):
    import tomllib
    project = tomllib.loads(pathlib.Path(pyproject).read_text())["project"]
    deps = project["dependencies"] + project["optional-dependencies"]["test"]
    low = {}
    for dep in deps:
        m = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)\s*(.*)", dep)
        bound = re.search(r">=\s*([0-9][^,;\s]*)", m.group(2))
        if bound:
            low[m.group(1).lower()] = bound.group(1)
    missing = [name for name in LOWEST if name not in low]
    fail("pins", [f"{name}: no lower bound in pyproject's dependencies or test extra"
                  for name in missing])
    print(" ".join(f"{name}=={low[name]}" for name in LOWEST))


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    {"sdist": check_sdist, "wheel": check_wheel, "imports": check_imports,
     "pins": lowest_pins}[cmd](*args)
