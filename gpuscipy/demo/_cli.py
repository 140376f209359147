"""``gpuscipy-demo``: run the registered pipelines on the GPU and with SciPy.

Exit status: 0 when every check passed; 1 when a check failed or a step,
setup or pipeline module raised; 2 on a usage error (argparse's) or when no
NVIDIA GPU is present (said in one line on stderr).
"""

from __future__ import annotations

import argparse
import os
import sys

from . import _registry
from ._model import Options
from ._report import environment, matplotlib_missing, write_json, write_plots
from ._runner import PipelineResult, Runner, _error_text
from ._table import format_table

__all__ = ["main", "build_parser"]

PROG = "gpuscipy-demo"


def build_parser(names) -> argparse.ArgumentParser:
    """The argument parser; ``names`` are the registered pipelines."""
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Run SciPy pipelines on the GPU with gpuscipy and on the "
                    "CPU with SciPy, check that they agree, and print a table "
                    "of times, speed-ups and errors. Progress goes to stderr; "
                    "the table to stdout; figures (JSON) and plots (PNG, "
                    "needs matplotlib) to the report folder.",
        epilog="Exit status: 0 all checks passed, 1 a check failed or a step "
               "raised, 2 usage error or no NVIDIA GPU.")
    p.add_argument("--quick", action="store_true",
                   help="smaller batches and fewer repeats (under a minute "
                        "on a warm kernel cache)")
    p.add_argument("--no-cpu", action="store_true",
                   help="skip SciPy: GPU timings only, nothing checked")
    p.add_argument("--only", metavar="NAME", action="append", choices=list(names),
                   help="run only this pipeline (repeatable); one of: "
                        + (", ".join(names) or "none registered"))
    p.add_argument("--report-dir", metavar="DIR", default="demo-report",
                   help="folder for report.json, table.txt and the PNG plots "
                        "(default: %(default)s)")
    p.add_argument("--list", action="store_true",
                   help="list the pipelines and exit (needs no GPU)")
    return p


def _gpu_unavailable() -> str | None:
    """None when a GPU can be used, else one line saying why not."""
    try:
        import gpuscipy_core as gp
    except Exception as exc:
        return f"gpuscipy_core cannot be imported ({_error_text(exc)})"
    if gp.is_available():
        return None
    why = gp.cuda.unavailable_reason() or ""
    return "no NVIDIA GPU available" + (f": {why}" if why else "")


def _make_runner(options: Options) -> Runner:
    return Runner(options)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _header(env: dict, options: Options) -> str:
    g = env.get("gpu") or {}
    v = env.get("versions", {})
    if "name" in g:
        mem = g.get("total_memory")
        gpu = (f"{g['name']} (sm_{g.get('compute_capability')}"
               + (f", {mem / 2**30:.0f} GiB" if mem else "") + ")")
    else:
        gpu = "?"
    mode = ("quick" if options.quick else "full") + (
        ", no SciPy" if not options.cpu else "")
    return (f"{PROG}: GPU {gpu}; gpuscipy {v.get('gpuscipy')}, SciPy "
            f"{v.get('scipy')}, NumPy {v.get('numpy')}, {env.get('cpu_count')} "
            f"CPU cores; {mode} run")


def main(argv=None) -> int:
    """Entry point of ``gpuscipy-demo`` and ``python -m gpuscipy.demo``."""
    module_errors = _registry.discover()
    names = [e.name for e in _registry.entries()]
    parser = build_parser(names)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # usage error (2) or --help (0)
        if exc.code:
            for mod, err in module_errors.items():  # why a name may be missing
                print(f"{PROG}: note: pipeline module {mod} failed to import: "
                      f"{err}", file=sys.stderr)
        return int(exc.code or 0)

    if args.list:
        for e in _registry.entries():
            print(f"{e.name:<12} {e.title}")
        for mod, err in module_errors.items():
            print(f"(module {mod} failed to import: {err})")
        return 0

    reason = _gpu_unavailable()
    if reason is not None:
        print(f"{PROG}: {' '.join(reason.split())}; the demo runs each "
              "pipeline on the GPU and needs one.", file=sys.stderr)
        return 2

    options = Options(quick=args.quick, cpu=not args.no_cpu)
    selected = args.only or names
    if args.only:
        module_errors = {}  # a broken module not asked for does not count
    for mod, err in module_errors.items():
        _say(f"{PROG}: pipeline module {mod} failed to import: {err}")

    env = environment(gpu=True)
    print(_header(env, options), flush=True)
    missing_mpl = matplotlib_missing()
    runner = _make_runner(options)
    results: list[PipelineResult] = []
    written: list[str] = []
    plot_errors: dict = {}
    for name in dict.fromkeys(selected):
        entry = _registry.get(name)
        _say(f"== {name}: {entry.title}")
        try:
            pipeline = entry.factory(options)
        except Exception as exc:
            res = PipelineResult(name, entry.title, build_error=_error_text(exc))
            _say(f"[{name}] building the pipeline failed: {res.build_error}")
            results.append(res)
            continue
        res = runner.run(pipeline)
        if missing_mpl is None and pipeline.plots:
            files, errs = write_plots(pipeline.plots, res.outputs, args.report_dir)
            res.plots, res.plot_errors = files, errs
            written += files
            plot_errors.update(errs)
            for f, e in errs.items():
                _say(f"[{name}] plot {f} failed: {e}")
        res.outputs.release()
        res.outputs = None
        results.append(res)

    ok = all(r.ok for r in results) and not module_errors
    table = format_table(results)
    print()
    print(table, end="", flush=True)
    try:
        write_json(os.path.join(args.report_dir, "report.json"), results,
                   options={"quick": options.quick, "cpu": options.cpu,
                            "only": args.only},
                   env=env, plots={"written": written, "skipped": missing_mpl,
                                   "errors": plot_errors},
                   module_errors=module_errors, ok=ok)
        with open(os.path.join(args.report_dir, "table.txt"), "w") as f:
            f.write(table)
    except OSError as exc:
        print(f"{PROG}: cannot write the report to {args.report_dir}: {exc}",
              file=sys.stderr)
        return 1
    files = ["report.json", "table.txt"] + written
    print(f"report: {args.report_dir}{os.sep} ({', '.join(files)})")
    if missing_mpl is not None:
        print(f"{missing_mpl}: PNG plots skipped (pip install matplotlib to "
              "get them)")
    if not ok:
        print("FAILED: see the lines marked '!' above")
    elif not options.cpu:
        print("done: GPU only, nothing checked (--no-cpu)")
    else:
        print("all checks passed")
    return 0 if ok else 1
