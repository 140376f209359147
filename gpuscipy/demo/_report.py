"""The report folder: ``report.json`` (figures of the run), PNG plots, table.

``report.json`` (schema ``gpuscipy-demo/1``)::

    {"schema": "gpuscipy-demo/1",
     "ok": bool,                          # every check passed, no error
     "options": {"quick", "cpu", "only"},
     "environment": {"timestamp", "host", "python", "platform", "cpu_count",
                     "versions": {...}, "gpu": {"name", "compute_capability",
                     "total_memory"} or null},
     "plots": {"written": [file, ...], "skipped": reason or null,
               "errors": {file: error}},
     "module_errors": {module: error},    # pipeline modules that failed to import
     "pipelines": [
       {"name", "title", "description", "ok",
        "setup_s": {"gpu", "cpu"}, "setup_errors": {...}, "build_error",
        "facts": {...}, "facts_error", "plots": [file, ...],
        "steps": [
          {"name", "out", "status",          # ok | fail | error | skipped
           "gpu": {"status", "median_ms", "min_ms", "n", "first_call_ms",
                   "error"},
           "cpu": {... the same ...},
           "cpu_scale", "cpu_ms",            # cpu_ms: median x cpu_scale
           "speedup",
           "check": {"ok", "kind", "error", "detail", "tolerance",
                     "summary"} or null,
           "check_error", "note"}]}]}

Times are milliseconds; a value that does not exist is null. Plots need
matplotlib; without it the report says so and the run goes on.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import platform
import socket
from typing import Any

__all__ = ["SCHEMA", "environment", "pipeline_dict", "write_json",
           "matplotlib_missing", "write_plots"]

SCHEMA = "gpuscipy-demo/1"


def _ms(s):
    return None if s is None else s * 1e3


def _jsonable(o: Any) -> Any:
    if isinstance(o, float):
        return o if math.isfinite(o) else None
    if isinstance(o, dict):
        return {str(k): _jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_jsonable(v) for v in o]
    if isinstance(o, (str, int, bool)) or o is None:
        return o
    try:  # NumPy scalars and 0-d arrays
        return _jsonable(o.item())
    except Exception:
        return str(o)


def _version(name: str) -> str | None:
    """Installed version of a distribution, else its module's __version__."""
    try:
        from importlib import metadata
        return metadata.version(name)
    except Exception:
        pass
    try:
        import importlib
        return str(importlib.import_module(name.replace("-", ".")).__version__)
    except Exception:
        return None


def environment(gpu: bool = True) -> dict:
    """Host, versions and (when ``gpu``) the device the demo ran on."""
    env: dict[str, Any] = {
        "timestamp": _dt.datetime.now(_dt.timezone.utc).isoformat(
            timespec="seconds"),
        "host": socket.gethostname(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "versions": {n: _version(n) for n in ("gpuscipy", "numpy", "scipy",
                                               "matplotlib", "cuda-bindings")},
        "gpu": None,
    }
    if gpu:
        try:
            import gpuscipy_core as gp
            dev = gp.cuda.Device()
            env["gpu"] = {"name": dev.name,
                          "compute_capability": dev.compute_capability,
                          "total_memory": dev.total_memory}
        except Exception as exc:
            env["gpu"] = {"error": f"{type(exc).__name__}: {exc}"}
    return env


def _side(s) -> dict:
    return {"status": s.status, "median_ms": _ms(s.median_s),
            "min_ms": _ms(s.min_s), "n": s.n,
            "first_call_ms": _ms(s.first_s), "error": s.error}


def pipeline_dict(res) -> dict:
    """The JSON object of one ``PipelineResult``."""
    steps = []
    for s in res.steps:
        check = None
        if s.check is not None:
            c = s.check
            check = {"ok": c.ok, "kind": c.kind, "error": c.error,
                     "detail": c.detail, "tolerance": c.tolerance,
                     "summary": c.summary()}
        steps.append({"name": s.name, "out": s.out, "status": s.status,
                      "gpu": _side(s.gpu), "cpu": _side(s.cpu),
                      "cpu_scale": s.cpu_scale, "cpu_ms": _ms(s.cpu_s),
                      "speedup": s.speedup, "check": check,
                      "check_error": s.check_error, "note": s.note})
    return {"name": res.name, "title": res.title,
            "description": res.description, "ok": res.ok,
            "setup_s": res.setup_s, "setup_errors": res.setup_errors,
            "build_error": res.build_error, "facts": res.facts,
            "facts_error": res.facts_error, "plots": list(res.plots),
            "plot_errors": res.plot_errors, "steps": steps}


def write_json(path: str, results, *, options: dict, env: dict,
               plots: dict, module_errors: dict, ok: bool) -> None:
    """Write the report document to ``path`` (folders created)."""
    doc = {"schema": SCHEMA, "ok": ok, "options": options, "environment": env,
           "plots": plots, "module_errors": module_errors,
           "pipelines": [pipeline_dict(r) for r in results]}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(_jsonable(doc), f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def matplotlib_missing() -> str | None:
    """None when matplotlib can draw PNGs, else why not."""
    import importlib

    try:
        for name in ("matplotlib", "matplotlib.figure",
                     "matplotlib.backends.backend_agg"):
            importlib.import_module(name)
    except ImportError as exc:
        return f"matplotlib is not installed ({exc})"
    return None


def write_plots(plots, outputs, report_dir: str) -> tuple[list, dict]:
    """Draw each ``Plot`` from ``outputs`` into ``report_dir``.

    Uses the Agg canvas on a ``Figure`` object (no pyplot, no global state,
    no display). Returns ``(files written, {file: error})``; a plot that
    raises is reported, not fatal.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    os.makedirs(report_dir, exist_ok=True)
    written, errors = [], {}
    for plot in plots:
        path = os.path.join(report_dir, plot.filename)
        try:
            fig = Figure(figsize=plot.figsize, layout="constrained")
            FigureCanvasAgg(fig)
            plot.draw(fig, outputs)
            fig.savefig(path, dpi=110)
            written.append(plot.filename)
        except Exception as exc:
            errors[plot.filename] = f"{type(exc).__name__}: {exc}"
    return written, errors
