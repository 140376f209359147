"""What a demo pipeline is made of: options, steps, plots, the pipeline.

A pipeline is a chain of :class:`Step` objects run twice, once on the GPU
and once with SciPy on the CPU, each side carrying its own *state*: a dict
of named values that starts as what the side's setup function returns and
grows by each step's output. A step names the state entries it reads
(``inputs``) and the name it stores its output under (``out``); its GPU
and CPU callables take the inputs positionally. After every step the runner
compares the two outputs with the step's check.

Entries no later step, plot or fact needs are dropped as soon as their last
reader ran, so a chain over multi-gigabyte batches holds only what it still
needs; ``Pipeline.keep`` lists what the plots and facts read at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

__all__ = ["Options", "Step", "Plot", "Pipeline"]


@dataclass(frozen=True)
class Options:
    """What a pipeline factory is told about the run.

    Attributes
    ----------
    quick : bool
        Smaller batches and fewer repeats (``--quick``: under a minute on a
        warm kernel cache).
    cpu : bool
        Run the SciPy side (``--no-cpu`` clears it): timings and checks.
    gpu : bool
        Run the GPU side. Always true from the command line; the tests clear
        it to run SciPy chains on a machine without a GPU.
    """

    quick: bool = False
    cpu: bool = True
    gpu: bool = True

    @property
    def gpu_repeat(self) -> int:
        return 5 if self.quick else 20

    @property
    def cpu_repeat(self) -> int:
        return 2 if self.quick else 5

    @property
    def budget_s(self) -> float:
        """Seconds of timed repeats per step and side, past the first call."""
        return 1.0 if self.quick else 5.0


@dataclass
class Step:
    """One operation of a pipeline, on both sides.

    Parameters
    ----------
    name : str
        The table's label, e.g. ``"baseline: sosfiltfilt, 0.5 Hz high-pass"``.
    out : str
        State entry the output is stored under.
    inputs : sequence of str
        State entries passed positionally to ``gpu`` and ``cpu``.
    gpu, cpu : callable or None
        The GPU implementation (gpuscipy, device arrays in and out) and the
        CPU one (SciPy on NumPy arrays). None: the side has no such step (no
        timing, no check).
    check : callable or None
        ``check(gpu_host, cpu) -> CheckResult`` (see ``_checks``); None: not
        checked.
    select : callable or None
        Applied to the GPU output (still on the device) before it is copied
        to the host for the check, e.g. the channels the CPU side computed.
    cpu_scale : float
        Factor applied to the CPU time (the CPU side ran on a part of the
        data, e.g. 8 of 512 channels: 64). The table marks scaled times.
    note : str
        Shown under the table (e.g. how the CPU time was scaled).
    repeat : int or None
        Cap on the timed repeats of this step (a slow step).
    """

    name: str
    out: str
    inputs: Sequence[str] = ()
    gpu: Callable[..., Any] | None = None
    cpu: Callable[..., Any] | None = None
    check: Callable[[Any, Any], Any] | None = None
    select: Callable[[Any], Any] | None = None
    cpu_scale: float = 1.0
    note: str = ""
    repeat: int | None = None

    def __post_init__(self):
        if isinstance(self.inputs, str):
            raise TypeError(f"step {self.name!r}: inputs must be a sequence "
                            "of names, not a string")
        self.inputs = tuple(self.inputs)


@dataclass
class Plot:
    """A PNG the report writes after the pipeline ran.

    Parameters
    ----------
    filename : str
        File name inside the report folder, e.g. ``"ecg_beats.png"``.
    draw : callable
        ``draw(fig, outputs)``: draws on a fresh ``matplotlib.figure.Figure``
        from the kept outputs (``outputs.gpu(key)``, ``outputs.cpu(key)``,
        both on the host, None where the side did not run).
    figsize : (float, float)
        Inches.
    """

    filename: str
    draw: Callable[[Any, Any], None]
    figsize: tuple = (10.0, 4.0)


@dataclass
class Pipeline:
    """An ordered chain of steps with setup, plots and summary facts.

    Parameters
    ----------
    name : str
        Registry name (``--only NAME``).
    title : str
        One line for the table's heading.
    steps : list of Step
    setup_gpu, setup_cpu : callable
        ``() -> dict``: the initial state of each side (data loaded and
        uploaded, filters designed). Not timed.
    plots : list of Plot
    facts : callable or None
        ``facts(outputs) -> dict`` of summary figures (beats found, mean
        heart rate, ...), printed under the table and written to the JSON.
    keep : sequence of str
        State entries the plots and facts read (kept to the end).
    description : str
        A paragraph for ``--list`` and the report.
    """

    name: str
    title: str
    steps: list
    setup_gpu: Callable[[], dict] | None = None
    setup_cpu: Callable[[], dict] | None = None
    plots: list = field(default_factory=list)
    facts: Callable[[Any], dict] | None = None
    keep: Sequence[str] = ()
    description: str = ""
