"""The table the demo prints: step, GPU ms, SciPy ms, speed-up, check."""

from __future__ import annotations

import io

__all__ = ["format_table", "format_ms", "format_speedup"]


def format_ms(s: float | None) -> str:
    """Seconds as milliseconds with 3-4 significant digits (``-`` for None)."""
    if s is None:
        return "-"
    ms = s * 1e3
    if ms < 10:
        return f"{ms:.3f}"
    if ms < 100:
        return f"{ms:.2f}"
    if ms < 1000:
        return f"{ms:.1f}"
    return f"{ms:,.0f}"


def format_speedup(x: float | None) -> str:
    if x is None:
        return "-"
    if x < 10:
        return f"{x:.2f}x"
    if x < 1000:
        return f"{x:.1f}x"
    return f"{x:,.0f}x"


def _side_cell(side) -> str:
    if side.status == "ok":
        return format_ms(side.median_s)
    return {"error": "ERROR", "skipped": "skipped", "off": "-",
            "none": "-"}.get(side.status, side.status)


def format_table(results, *, name_width: int = 46) -> str:
    """The report table of a list of ``PipelineResult``.

    One block per pipeline: its title, a row per step, footnotes for CPU
    times scaled from a part of the data, the pipeline's facts, then one
    line per error or disagreement.
    """
    out = io.StringIO()
    head = (f"{'step':<{name_width}}  {'GPU ms':>10}  {'SciPy ms':>11}  "
            f"{'speed-up':>9}  check")
    for res in results:
        print(f"{res.name}: {res.title}", file=out)
        if res.steps:
            print("  " + head, file=out)
            print("  " + "-" * (len(head) + 12), file=out)
        notes: list[str] = []
        for s in res.steps:
            name = s.name
            if len(name) > name_width:
                name = name[:name_width - 1] + "\u2026"
            cpu = _side_cell(s.cpu)
            mark = ""
            if s.cpu.ok and (s.cpu_scale != 1.0 or s.note):
                text = s.note or f"SciPy time scaled by {s.cpu_scale:g}"
                if text not in notes:
                    notes.append(text)
                mark = "*" * (notes.index(text) + 1)
            cpu_cell = format_ms(s.cpu_s) if s.cpu.ok else cpu
            print(f"  {name:<{name_width}}  {_side_cell(s.gpu):>10}  "
                  f"{cpu_cell + mark:>11}  {format_speedup(s.speedup):>9}  "
                  f"{s.check_summary}".rstrip(), file=out)
        for k, text in enumerate(notes):
            print(f"  {'*' * (k + 1)} {text}", file=out)
        if res.facts:
            print("  " + "; ".join(f"{k}: {_fact(v)}" for k, v in res.facts.items()),
                  file=out)
        if res.facts_error:
            print(f"  (facts failed: {res.facts_error})", file=out)
        for line in res.problems():
            print(f"  ! {line}", file=out)
        n_checked = sum(1 for s in res.steps if s.check is not None)
        if not res.ok:
            status = "FAILED"
        elif n_checked:
            status = "all checks passed"
        else:
            status = "no errors, nothing checked"

        print(f"  {res.name}: {status} ({n_checked} of {len(res.steps)} steps "
              "checked against SciPy)", file=out)
        print(file=out)
    return out.getvalue()


def _fact(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)
