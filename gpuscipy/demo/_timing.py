"""Timers of the demo: CUDA events for GPU steps, ``perf_counter`` for SciPy.

Both timers call the function once untimed-for-the-median (its result is the
step's output, and on the GPU it compiles and caches the kernels), then time
``repeat`` further calls, stopping early once ``budget_s`` seconds were spent
(at least one timed call on the GPU). A timer returns a :class:`Timed`.

The GPU timer follows the benchmarks' method (``benchmarks/_harness.py``,
which the package does not import): record a start event on the current
stream, call, record an end event, wait for it, read the elapsed time; the
median over the repeats is reported. Host work inside the call (Python,
launches, synchronisations) lies between the two events and is counted.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

__all__ = ["Timed", "time_gpu", "time_cpu"]


@dataclass
class Timed:
    """The output of a timed function and its timing.

    Attributes
    ----------
    value : object
        What the first call returned (the step's output).
    median_s, min_s : float or None
        Median and minimum of the timed calls, in seconds.
    n : int
        Number of timed calls behind ``median_s``.
    first_s : float
        Wall time of the first call (on the GPU: kernel compiles and cache
        loads included, up to the end of its work).
    samples_s : list of float
        Every timed call, in seconds.
    """

    value: Any
    median_s: float | None
    min_s: float | None
    n: int
    first_s: float
    samples_s: list = field(default_factory=list, repr=False)


def _summary(value, samples, first_s):
    if not samples:
        return Timed(value, None, None, 0, first_s, [])
    return Timed(value, statistics.median(samples), min(samples), len(samples),
                 first_s, samples)


def time_gpu(fn: Callable, args: Sequence[Any] = (), repeat: int = 10,
             budget_s: float = 10.0) -> Timed:
    """GPU time of ``fn(*args)`` with CUDA events, after one warm-up call.

    Parameters
    ----------
    fn : callable
        Launches GPU work (and may synchronise inside).
    args : sequence
        Positional arguments.
    repeat : int
        Timed calls after the warm-up (at least 1).
    budget_s : float
        Stop repeating once this many seconds of timed calls were spent.

    Returns
    -------
    Timed
        ``value`` is the warm-up call's result.
    """
    import gpuscipy_core as gp

    device = gp.cuda.Device()
    t0 = time.perf_counter()
    value = fn(*args)
    device.synchronize()
    first_s = time.perf_counter() - t0
    start, end = gp.cuda.Event(), gp.cuda.Event()
    samples: list[float] = []
    spent = 0.0
    for _ in range(max(1, int(repeat))):
        start.record()
        out = fn(*args)
        end.record()
        end.synchronize()
        del out
        s = start.elapsed_time(end) * 1e-3
        samples.append(s)
        spent += s
        if spent > budget_s:
            break
    return _summary(value, samples, first_s)


def time_cpu(fn: Callable, args: Sequence[Any] = (), repeat: int = 5,
             budget_s: float = 10.0) -> Timed:
    """Wall time of ``fn(*args)`` on the CPU with ``time.perf_counter``.

    Every call is timed, the first too. When more calls follow within
    ``budget_s`` (at most ``repeat``), the first is treated as a warm-up and
    left out of the median; when the first call alone spent the budget (a
    long SciPy run), it is the measurement.

    Returns
    -------
    Timed
        ``value`` is the first call's result.
    """
    t0 = time.perf_counter()
    value = fn(*args)
    first_s = time.perf_counter() - t0
    samples: list[float] = []
    spent = first_s
    while len(samples) < int(repeat) and spent <= budget_s:
        t0 = time.perf_counter()
        out = [fn(*args)]          # freed after the clock stops
        s = time.perf_counter() - t0
        out.clear()
        samples.append(s)
        spent += s
    if not samples:
        samples = [first_s]
    return _summary(value, samples, first_s)
