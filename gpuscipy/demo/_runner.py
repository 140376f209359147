"""Run a pipeline on both sides, time every step, compare, collect results.

The runner owns no device code: the GPU and CPU timers and the device-to-
host copy are injected (defaults: :mod:`._timing` and
``gpuscipy_core.asnumpy``), so the tests drive the whole frame (states,
checks, dropping of entries, statuses, the table, the report, the exit
status) on a machine without a GPU.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ._checks import CheckResult
from ._model import Options, Pipeline, Step

__all__ = ["SideResult", "StepResult", "PipelineResult", "Outputs", "Runner",
           "to_host"]


def to_host(value: Any) -> Any:
    """Copy device arrays (also inside tuples, lists, dicts) to NumPy."""
    import gpuscipy_core as gp

    if isinstance(value, gp.ndarray):
        return gp.asnumpy(value)
    if isinstance(value, (tuple, list)):
        return type(value)(to_host(v) for v in value)
    if isinstance(value, dict):
        return {k: to_host(v) for k, v in value.items()}
    return value


def _error_text(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@dataclass
class SideResult:
    """One side (GPU or CPU) of one step.

    ``status``: ``ok``; ``error`` (the callable raised: ``error``);
    ``skipped`` (an input is missing because an earlier step or the setup
    failed); ``off`` (the side is not run: ``--no-cpu``); ``none`` (the step
    has no callable for this side).
    """

    status: str
    median_s: float | None = None
    min_s: float | None = None
    n: int = 0
    first_s: float | None = None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass
class StepResult:
    """Timings and the check of one step."""

    name: str
    out: str
    gpu: SideResult
    cpu: SideResult
    cpu_scale: float = 1.0
    check: CheckResult | None = None
    check_error: str = ""
    note: str = ""

    @property
    def cpu_s(self) -> float | None:
        """SciPy's time for the whole step (scaled when it ran on a part)."""
        if not self.cpu.ok or self.cpu.median_s is None:
            return None
        return self.cpu.median_s * self.cpu_scale

    @property
    def speedup(self) -> float | None:
        cpu = self.cpu_s
        if cpu is None or not self.gpu.ok or not self.gpu.median_s:
            return None
        return cpu / self.gpu.median_s

    @property
    def status(self) -> str:
        """``ok``, ``fail`` (the check failed), ``error`` or ``skipped``."""
        if "error" in (self.gpu.status, self.cpu.status) or self.check_error:
            return "error"
        if "skipped" in (self.gpu.status, self.cpu.status):
            return "skipped"
        if self.check is not None and not self.check.ok:
            return "fail"
        return "ok"

    @property
    def check_summary(self) -> str:
        if self.check_error:
            return "ERROR in check"
        if self.check is not None:
            return self.check.summary()
        if self.gpu.ok and self.cpu.status == "off":
            return "not checked (--no-cpu)"
        return "-"


@dataclass
class PipelineResult:
    """Everything one pipeline produced (``outputs`` is not serialised)."""

    name: str
    title: str
    description: str = ""
    steps: list = field(default_factory=list)
    setup_s: dict = field(default_factory=dict)
    setup_errors: dict = field(default_factory=dict)
    facts: dict = field(default_factory=dict)
    facts_error: str = ""
    plots: list = field(default_factory=list)
    plot_errors: dict = field(default_factory=dict)
    build_error: str = ""
    outputs: Any = None

    @property
    def ok(self) -> bool:
        return (not self.build_error and not self.setup_errors
                and all(s.status == "ok" for s in self.steps))

    def problems(self) -> list[str]:
        """One line per error or failed check, for the end of the table."""
        lines = []
        if self.build_error:
            lines.append(f"{self.name}: building the pipeline failed: "
                         f"{self.build_error}")
        for side, err in self.setup_errors.items():
            lines.append(f"{self.name}: {_SIDE[side]} setup failed: {err}")
        for s in self.steps:
            for side in ("gpu", "cpu"):
                r = getattr(s, side)
                if r.status == "error":
                    lines.append(f"{self.name} / {s.name} ({_SIDE[side]}): "
                                 f"{r.error}")
            if s.check_error:
                lines.append(f"{self.name} / {s.name} (check): {s.check_error}")
            elif s.check is not None and not s.check.ok:
                lines.append(f"{self.name} / {s.name}: GPU and SciPy disagree: "
                             f"{s.check.summary()}")
        return lines


_SIDE = {"gpu": "GPU", "cpu": "SciPy"}


class Outputs:
    """Read access to what a pipeline kept, for plots and facts.

    ``gpu(key)`` returns the GPU side's entry copied to the host (cached),
    ``cpu(key)`` the SciPy side's; both return None when the side did not
    run or has no such entry. ``get(key)`` prefers the GPU's.
    """

    def __init__(self, gpu_state, cpu_state, to_host: Callable = to_host):
        self._gpu = gpu_state
        self._cpu = cpu_state
        self._to_host = to_host
        self._host: dict = {}

    def gpu(self, key: str):
        if not self._gpu or key not in self._gpu:
            return None
        if key not in self._host:
            self._host[key] = self._to_host(self._gpu[key])
        return self._host[key]

    def cpu(self, key: str):
        if not self._cpu or key not in self._cpu:
            return None
        return self._cpu[key]

    def get(self, key: str):
        v = self.gpu(key)
        return self.cpu(key) if v is None else v

    def release(self) -> None:
        """Drop every reference (GPU memory goes back to the pool)."""
        self._gpu = self._cpu = None
        self._host = {}


def _fmt_s(s: float | None) -> str:
    if s is None:
        return "-"
    ms = s * 1e3
    return f"{ms:.3g} ms" if ms < 1000 else f"{s:.3g} s"


class Runner:
    """Runs pipelines step by step on the GPU and with SciPy.

    Parameters
    ----------
    options : Options
    gpu_timer, cpu_timer : callable
        ``timer(fn, args, repeat=, budget_s=) -> Timed``; defaults
        :func:`._timing.time_gpu` and :func:`._timing.time_cpu`.
    to_host : callable
        Device-to-host copy of a GPU output before its check.
    gpu_sync : callable
        Waits for the device (after the GPU setup, so its time is complete).
    progress : file, "stderr" or None
        Where a line per step goes while the pipeline runs (``"stderr"``:
        the current ``sys.stderr``; None: silent).
    """

    def __init__(self, options: Options = Options(), *, gpu_timer=None,
                 cpu_timer=None, to_host: Callable = to_host,
                 gpu_sync: Callable | None = None, progress="stderr"):
        from . import _timing

        self.options = options
        self.gpu_timer = gpu_timer or _timing.time_gpu
        self.cpu_timer = cpu_timer or _timing.time_cpu
        self.to_host = to_host
        self.gpu_sync = gpu_sync or _synchronize
        self.progress = progress

    # -- progress ------------------------------------------------------------
    def _say(self, text: str, end: str = "\n") -> None:
        if self.progress is None:
            return
        file = sys.stderr if self.progress == "stderr" else self.progress
        print(text, end=end, file=file, flush=True)

    # -- one side of one step ------------------------------------------------
    def _run_side(self, side: str, step: Step, state: dict | None) -> SideResult:
        fn = step.gpu if side == "gpu" else step.cpu
        if state is None:
            return SideResult("off")
        if fn is None:
            return SideResult("none")
        missing = [k for k in step.inputs if k not in state]
        if missing:
            return SideResult("skipped", error="missing input " + ", ".join(
                repr(k) for k in missing) + " (an earlier step failed)")
        args = [state[k] for k in step.inputs]
        if side == "gpu":
            timer, repeat = self.gpu_timer, self.options.gpu_repeat
        else:
            timer, repeat = self.cpu_timer, self.options.cpu_repeat
        if step.repeat is not None:
            repeat = max(1, min(repeat, int(step.repeat)))
        try:
            timed = timer(fn, args, repeat=repeat, budget_s=self.options.budget_s)
        except Exception as exc:
            return SideResult("error", error=_error_text(exc))
        finally:
            del args
        state[step.out] = timed.value
        return SideResult("ok", timed.median_s, timed.min_s, timed.n,
                          timed.first_s)

    def _check(self, step: Step, res: StepResult, gstate, cstate) -> None:
        if step.check is None or not (res.gpu.ok and res.cpu.ok):
            return
        try:
            g = gstate[step.out]
            if step.select is not None:
                g = step.select(g)
            res.check = step.check(self.to_host(g), cstate[step.out])
        except Exception as exc:
            res.check_error = _error_text(exc)

    # -- a pipeline ------------------------------------------------------------
    def run(self, pipeline: Pipeline) -> PipelineResult:
        """Run ``pipeline``; the result's ``outputs`` holds the kept entries.

        Call ``result.outputs.release()`` once plots are drawn.
        """
        opts = self.options
        res = PipelineResult(pipeline.name, pipeline.title, pipeline.description)
        states: dict[str, dict | None] = {}
        for side, setup, enabled in (("gpu", pipeline.setup_gpu, opts.gpu),
                                     ("cpu", pipeline.setup_cpu, opts.cpu)):
            states[side] = None
            if not enabled:
                continue
            if side == "cpu" and "gpu" in res.setup_errors:
                # nothing to compare with: do not spend minutes on SciPy
                self._say(f"[{pipeline.name}] SciPy side not run (the GPU "
                          "setup failed)")
                continue
            t0 = time.perf_counter()
            try:
                states[side] = dict(setup()) if setup is not None else {}
                if side == "gpu" and setup is not None:
                    self.gpu_sync()
            except Exception as exc:
                res.setup_errors[side] = _error_text(exc)
                self._say(f"[{pipeline.name}] {_SIDE[side]} setup failed: "
                          f"{res.setup_errors[side]}")
                continue
            res.setup_s[side] = time.perf_counter() - t0
        if res.setup_s:
            self._say(f"[{pipeline.name}] setup: " + ", ".join(
                f"{_SIDE[k]} {v:.2f} s" for k, v in res.setup_s.items()))
        gstate, cstate = states["gpu"], states["cpu"]

        last: dict[str, int] = {}
        for i, step in enumerate(pipeline.steps):
            for k in step.inputs:
                last[k] = i
        keep = set(pipeline.keep)
        n = len(pipeline.steps)
        width = len(str(n))
        for i, step in enumerate(pipeline.steps):
            self._say(f"[{pipeline.name} {i + 1:>{width}}/{n}] {step.name} ...",
                      end=" ")
            r = StepResult(step.name, step.out,
                           self._run_side("gpu", step, gstate),
                           self._run_side("cpu", step, cstate),
                           cpu_scale=float(step.cpu_scale), note=step.note)
            self._check(step, r, gstate, cstate)
            res.steps.append(r)
            self._say(self._progress_text(r))
            for k in list(step.inputs) + [step.out]:
                if k in keep or last.get(k, -1) > i:
                    continue
                for st in (gstate, cstate):
                    if st is not None:
                        st.pop(k, None)
        res.outputs = Outputs(gstate, cstate, self.to_host)
        if pipeline.facts is not None:
            try:
                res.facts = dict(pipeline.facts(res.outputs))
            except Exception as exc:
                res.facts_error = _error_text(exc)
        return res

    @staticmethod
    def _progress_text(r: StepResult) -> str:
        parts = []
        for side in ("gpu", "cpu"):
            s = getattr(r, side)
            label = _SIDE[side]
            if s.status == "ok":
                t = _fmt_s(s.median_s)
                if side == "cpu" and r.cpu_scale != 1.0:
                    t += f" (x{r.cpu_scale:g})"
                parts.append(f"{label} {t}")
            elif s.status in ("error", "skipped"):
                parts.append(f"{label} {s.status.upper()}: {s.error}")
        if r.speedup is not None:
            parts.append(f"{r.speedup:.3g}x")
        if r.check is not None or r.check_error:
            parts.append(r.check_summary)
        return "  ".join(parts) or "done"


def _synchronize() -> None:
    import gpuscipy_core as gp

    gp.cuda.Device().synchronize()
