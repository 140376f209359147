"""The notebooks in ``notebooks/``: well-formed everywhere, run top to bottom on a GPU.

CPU (CI): every notebook is nbformat 4 JSON with the fields each cell type
needs, carries no saved outputs and is small, and each code cell compiles as
plain Python (no IPython magics or shell escapes: the notebooks must also run
where there is no IPython, such as the GPU test below).

GPU: each notebook runs top to bottom in a fresh subprocess with matplotlib's
Agg backend and a smaller batch (``GPUSCIPY_NB_CHANNELS``, default 512 here).
With nbformat, nbclient and a ``python3`` Jupyter kernel installed, nbclient
runs it; otherwise the small executor in this file does: the code cells in
order in one namespace, failing with the cell's number and traceback. Run it
by hand with ``python tests/test_notebooks.py notebooks/NAME.ipynb``.
"""

import json
import os
import pathlib
import subprocess
import sys
import time
import traceback

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
MAX_BYTES = 100_000           # a notebook without outputs is a few tens of KB
CHANNELS = os.environ.get("GPUSCIPY_NB_CHANNELS", "512")
TIMEOUT_S = float(os.environ.get("GPUSCIPY_NB_TIMEOUT", "120"))


def _notebooks():
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def _ids(paths):
    return [p.name for p in paths]


# ---------------------------------------------------------------------------
# structure (no GPU, no Jupyter)
# ---------------------------------------------------------------------------

def _source(cell):
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


def structure_errors(nb):
    """What is wrong with notebook ``nb`` (parsed JSON) as nbformat 4: a list
    of messages, empty when it is well-formed and carries no outputs."""
    errors = []
    if not isinstance(nb, dict):
        return ["the top level is not a JSON object"]
    if nb.get("nbformat") != 4:
        errors.append(f"nbformat is {nb.get('nbformat')!r}, not 4")
    minor = nb.get("nbformat_minor")
    if not isinstance(minor, int) or minor < 0:
        errors.append(f"nbformat_minor is {minor!r}, not an int >= 0")
    if not isinstance(nb.get("metadata"), dict):
        errors.append("metadata is missing or not an object")
    cells = nb.get("cells")
    if not isinstance(cells, list) or not cells:
        return errors + ["cells is missing, not a list or empty"]
    seen_ids = set()
    for i, cell in enumerate(cells, 1):
        where = f"cell {i}"
        if not isinstance(cell, dict):
            errors.append(f"{where}: not an object")
            continue
        kind = cell.get("cell_type")
        if kind not in ("code", "markdown", "raw"):
            errors.append(f"{where}: cell_type {kind!r}")
        if not isinstance(cell.get("metadata"), dict):
            errors.append(f"{where}: metadata missing or not an object")
        src = cell.get("source")
        if not (isinstance(src, str) or (isinstance(src, list)
                                         and all(isinstance(s, str) for s in src))):
            errors.append(f"{where}: source is neither a string nor a list of strings")
        if isinstance(minor, int) and minor >= 5:      # cell ids from 4.5 on
            cid = cell.get("id")
            if not isinstance(cid, str) or not cid or cid in seen_ids:
                errors.append(f"{where}: id {cid!r} missing or repeated")
            seen_ids.add(cid)
        if kind == "code":
            if cell.get("outputs") != []:
                errors.append(f"{where}: saved outputs (clear them before committing)")
            if "execution_count" not in cell:
                errors.append(f"{where}: execution_count missing")
            elif cell["execution_count"] is not None:
                errors.append(f"{where}: execution_count is "
                              f"{cell['execution_count']!r}, not null (a saved run)")
        elif "outputs" in cell or "execution_count" in cell:
            errors.append(f"{where}: a {kind} cell with outputs/execution_count")
        if "attachments" in cell:
            errors.append(f"{where}: attachments (images) saved in the notebook")
    return errors


def compile_errors(nb, name="<notebook>"):
    """Messages for code cells of ``nb`` that ``compile`` rejects as Python;
    IPython's own syntax (magics ``%``/``%%``, shell escapes ``!``, help
    ``?``), which is no Python, is named as such."""
    errors = []
    for i, cell in enumerate(nb["cells"], 1):
        if cell.get("cell_type") != "code":
            continue
        src = _source(cell)
        try:
            compile(src, f"{name}, cell {i}", "exec")
        except SyntaxError as e:
            lines = src.splitlines()
            line = lines[e.lineno - 1] if e.lineno and e.lineno <= len(lines) else ""
            s = line.strip()
            if s.startswith(("%", "!")) or s.endswith("?"):
                errors.append(f"cell {i}, line {e.lineno}: IPython syntax {s[:40]!r} "
                              "(magic, shell escape or help), not plain Python")
            else:
                errors.append(f"cell {i}: {type(e).__name__}: {e}")
    return errors


def test_there_are_notebooks():
    assert (NOTEBOOKS / "ecg_beats.ipynb").is_file()
    assert _notebooks()


@pytest.mark.parametrize("path", _notebooks(), ids=_ids(_notebooks()))
def test_notebook_is_nbformat4_without_outputs(path):
    size = path.stat().st_size
    assert size < MAX_BYTES, f"{path.name}: {size} bytes (saved outputs?)"
    nb = json.loads(path.read_text(encoding="utf-8"))
    errors = structure_errors(nb)
    assert not errors, f"{path.name}: " + "; ".join(errors)
    kinds = [c["cell_type"] for c in nb["cells"]]
    assert kinds.count("code") and kinds.count("markdown"), kinds
    assert nb["metadata"].get("kernelspec", {}).get("language") == "python"


@pytest.mark.parametrize("path", _notebooks(), ids=_ids(_notebooks()))
def test_notebook_code_cells_compile(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    errors = compile_errors(nb, path.name)
    assert not errors, f"{path.name}: " + "; ".join(errors)


def _nb(*cells, minor=5):
    """A notebook from ``(cell_type, source)`` pairs."""
    out = []
    for i, (kind, src) in enumerate(cells):
        c = {"cell_type": kind, "id": f"c{i}", "metadata": {}, "source": src}
        if kind == "code":
            c.update(outputs=[], execution_count=None)
        out.append(c)
    return {"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": minor}


def test_structure_check_catches_defects():
    good = _nb(("markdown", "# t"), ("code", ["x = 1\n", "y = x"]))
    assert structure_errors(good) == []
    bad = _nb(("code", "x = 1"))
    bad["cells"][0]["outputs"] = [{"output_type": "stream", "name": "stdout",
                                   "text": "1"}]
    bad["cells"][0]["execution_count"] = 3
    msgs = " | ".join(structure_errors(bad))
    assert "saved outputs" in msgs and "execution_count is 3" in msgs
    v3 = dict(good, nbformat=3)
    assert any("not 4" in m for m in structure_errors(v3))
    no_count = _nb(("code", "x"))
    del no_count["cells"][0]["execution_count"]
    assert structure_errors(no_count) == ["cell 1: execution_count missing"]
    dup = _nb(("code", "x"), ("code", "y"))
    dup["cells"][1]["id"] = "c0"
    assert structure_errors(dup) == ["cell 2: id 'c0' missing or repeated"]
    weird = _nb(("code", "x"))
    weird["cells"][0]["cell_type"] = "python"
    assert "cell_type 'python'" in structure_errors(weird)[0]
    assert structure_errors(dict(good, cells=[])) == [
        "cells is missing, not a list or empty"]


def test_compile_check_rejects_magics_and_syntax_errors():
    ok = _nb(("code", "import os\nx = {'a?': 1}  # what?\n"), ("markdown", "%not code"))
    assert compile_errors(ok) == []
    ok = _nb(("code", "x = (7\n     % 3)\ny = '%d' % x\n"))
    assert compile_errors(ok) == []
    for src in ("%matplotlib inline", "x = 1\n  !pip install x", "%%time\nx = 1",
                "len?"):
        errors = compile_errors(_nb(("markdown", "t"), ("code", src)))
        assert len(errors) == 1 and errors[0].startswith("cell 2, line"), (src, errors)
        assert "IPython syntax" in errors[0], errors
    errors = compile_errors(_nb(("code", "def f(:\n    pass")))
    assert len(errors) == 1 and errors[0].startswith("cell 1: SyntaxError"), errors


# ---------------------------------------------------------------------------
# execution
# ---------------------------------------------------------------------------

def run_code_cells(nb, name="<notebook>", out=sys.stdout):
    """Run the code cells of ``nb`` in order in one namespace.

    Returns 0, or 1 after writing the failing cell's number, first line and
    traceback to stderr (later cells are not run). Each cell's wall time is
    written to ``out``.
    """
    ns = {"__name__": "__main__", "__file__": name}
    t_all = time.perf_counter()
    cells = nb["cells"]
    for i, cell in enumerate(cells, 1):
        if cell.get("cell_type") != "code":
            continue
        src = _source(cell)
        first = next((s for s in src.splitlines() if s.strip()), "")
        print(f"[cell {i}/{len(cells)}] {first[:60]}", file=out, flush=True)
        t = time.perf_counter()
        try:
            exec(compile(src, f"<{name} cell {i}>", "exec"), ns)
        except BaseException:          # SystemExit, KeyboardInterrupt too
            print(f"{name}: cell {i} failed ({first[:60]!r}):\n"
                  + traceback.format_exc(), file=sys.stderr, flush=True)
            return 1
        finally:
            _close_figures()
        print(f"[cell {i}] {time.perf_counter() - t:.2f} s", file=out, flush=True)
    print(f"{name}: all code cells ran, {time.perf_counter() - t_all:.1f} s",
          file=out, flush=True)
    return 0


def _close_figures():
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")


def _jupyter_available():
    try:
        import nbclient  # noqa: F401
        import nbformat  # noqa: F401
        from jupyter_client.kernelspec import KernelSpecManager
        return "python3" in KernelSpecManager().find_kernel_specs()
    except Exception:
        return False


def _run_with_nbclient(path):
    import nbclient
    import nbformat
    nb = nbformat.read(str(path), as_version=4)
    client = nbclient.NotebookClient(nb, timeout=int(TIMEOUT_S), kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as e:
        index = next((i for i, c in enumerate(nb.cells, 1) if c.cell_type == "code"
                      and any(o.get("output_type") == "error" for o in c.outputs)), "?")
        print(f"{path.name}: cell {index} failed:\n{e}", file=sys.stderr, flush=True)
        return 1
    print(f"{path.name}: all code cells ran (nbclient)", flush=True)
    return 0


def main(argv):
    """Run each notebook in ``argv`` (tiny executor or nbclient); exit status."""
    status = 0
    for arg in argv:
        path = pathlib.Path(arg).resolve()
        os.chdir(path.parent)                     # as Jupyter does
        if _jupyter_available():
            status |= _run_with_nbclient(path)
        else:
            try:
                import matplotlib
            except ImportError:            # a notebook that needs it fails there
                pass
            else:
                matplotlib.use("Agg")
            nb = json.loads(path.read_text(encoding="utf-8"))
            status |= run_code_cells(nb, path.name)
    return status


def execute_in_subprocess(path, env_extra=None, timeout=TIMEOUT_S):
    """``(returncode, stdout, stderr)`` of running notebook ``path`` through
    :func:`main` in a fresh interpreter; returncode None on a timeout."""
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.update(env_extra or {})
    proc = subprocess.Popen([sys.executable, str(pathlib.Path(__file__).resolve()),
                             str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=str(ROOT))
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return None, out, err
    return proc.returncode, out, err


def test_executor_reports_the_failing_cell(tmp_path):
    nb = _nb(("markdown", "# t"), ("code", "x = 41"), ("code", "y = x + 1\nprint('y', y)"),
             ("markdown", "more"), ("code", "import os\nraise ValueError('boom ' + str(y))"),
             ("code", "print('never')"))
    path = tmp_path / "fail.ipynb"
    path.write_text(json.dumps(nb))
    rc, out, err = execute_in_subprocess(path, timeout=120)
    assert rc == 1, (rc, out, err)
    assert "y 42" in out and "never" not in out
    assert "fail.ipynb: cell 5 failed" in err
    assert "ValueError: boom 42" in err and "Traceback" in err


def test_executor_runs_cells_in_one_namespace(tmp_path):
    pytest.importorskip("matplotlib")
    nb = _nb(("code", "import matplotlib.pyplot as plt\nimport os\nfig, ax = plt.subplots()"),
             ("code", "ax.plot([1, 2])\nplt.show()\n"
                      "print('backend', plt.get_backend().lower(), os.getcwd())"))
    path = tmp_path / "ok.ipynb"
    path.write_text(json.dumps(nb))
    rc, out, err = execute_in_subprocess(path, timeout=120)
    assert rc == 0, err
    assert f"backend agg {tmp_path.resolve()}" in out
    assert "all code cells ran" in out


def test_executor_timeout_is_reported(tmp_path):
    path = tmp_path / "slow.ipynb"
    path.write_text(json.dumps(_nb(("code", "import time\ntime.sleep(60)"))))
    rc, out, err = execute_in_subprocess(path, timeout=5)
    assert rc is None and "[cell 1/1]" in out


@pytest.mark.gpu
@pytest.mark.parametrize("path", _notebooks(), ids=_ids(_notebooks()))
def test_notebook_runs_on_the_gpu(path):
    rc, out, err = execute_in_subprocess(path, {"GPUSCIPY_NB_CHANNELS": CHANNELS})
    sys.stdout.write(out)            # per-cell times, shown with -s or on failure
    if rc is None:
        last = [ln for ln in out.splitlines() if ln.startswith("[cell ")][-1:]
        pytest.fail(f"{path.name}: no result after {TIMEOUT_S:g} s "
                    f"(last started: {last})\n{err[-3000:]}")
    assert rc == 0, f"{path.name} failed (exit {rc}):\n{err[-6000:]}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
