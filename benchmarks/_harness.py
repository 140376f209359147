"""Backend-neutral timing helpers for the gpuscipy_core benchmarks.

Backends
--------
``"gpuscipy"`` (gpuscipy_core) and ``"cupy"`` are timed on the GPU with the
backend's own CUDA events; ``"numpy"`` and ``"scipy"`` run on the CPU and are
timed with ``time.perf_counter``.  A backend that cannot be imported (or whose
GPU cannot be initialised) is reported as ``n/a``; it never stops a run.

Every measurement ends up in a :class:`Result`; :func:`print_table` and
:func:`write_json` report a list of them.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

GPU_BACKENDS = ("gpuscipy", "cupy")
CPU_BACKENDS = ("numpy", "scipy")
ALL_BACKENDS = GPU_BACKENDS + CPU_BACKENDS

#: L2 size used to decide how many input sets to rotate among (H200: 60 MB).
DEFAULT_L2_BYTES = 60 * 1024 * 1024


# --------------------------------------------------------------------------
# backends
# --------------------------------------------------------------------------

class Backend:
    """One array library: its module, how to sync, time and free memory."""

    def __init__(self, name: str, xp: Any, is_gpu: bool):
        self.name = name
        self.xp = xp
        self.is_gpu = is_gpu

    # -- device ------------------------------------------------------------
    def synchronize(self) -> None:
        if self.is_gpu:
            self.xp.cuda.Device(0).synchronize()

    def event(self):
        return self.xp.cuda.Event()

    def elapsed_ms(self, start, end) -> float:
        if self.name == "cupy":
            return float(self.xp.cuda.get_elapsed_time(start, end))
        return float(start.elapsed_time(end))

    def free_pool(self) -> None:
        """Sync, then hand cached blocks of the memory pool(s) back."""
        if not self.is_gpu:
            return
        try:
            self.synchronize()
        except Exception:
            pass
        for getter in ("get_default_memory_pool",
                       "get_default_pinned_memory_pool"):
            fn = getattr(self.xp, getter, None)
            if fn is None:
                continue
            try:
                fn().free_all_blocks()
            except Exception:
                pass

    # -- data --------------------------------------------------------------
    def asarray(self, a):
        if self.is_gpu:
            return self.xp.asarray(a)
        return a

    def asnumpy(self, a):
        if self.is_gpu:
            return self.xp.asnumpy(a)
        import numpy
        return numpy.asarray(a)

    def version(self) -> str | None:
        return _module_version(self.xp, self.name)

    def __repr__(self) -> str:
        return f"Backend({self.name!r})"


_BACKEND_CACHE: dict[str, tuple[Backend | None, str | None]] = {}


def load_backend(name: str) -> tuple[Backend | None, str | None]:
    """Return ``(backend, None)`` or ``(None, reason)`` when unavailable."""
    if name in _BACKEND_CACHE:
        return _BACKEND_CACHE[name]
    backend: Backend | None = None
    reason: str | None = None
    try:
        if name == "gpuscipy":
            import gpuscipy_core as xp
            backend = Backend(name, xp, True)
        elif name == "cupy":
            import cupy as xp
            backend = Backend(name, xp, True)
        elif name == "numpy":
            import numpy as xp
            backend = Backend(name, xp, False)
        elif name == "scipy":
            import scipy as xp
            backend = Backend(name, xp, False)
        else:
            reason = f"unknown backend {name!r}"
        if backend is not None and backend.is_gpu:
            # Touch the device now, so a missing driver / GPU is an n/a here
            # rather than an error inside the first case.
            backend.synchronize()
    except ImportError as exc:
        backend, reason = None, f"ImportError: {exc}"
    except Exception as exc:  # CUDA init failure and the like
        backend, reason = None, f"{type(exc).__name__}: {exc}"
    _BACKEND_CACHE[name] = (backend, reason)
    return backend, reason


def _module_version(mod: Any, name: str | None = None) -> str | None:
    v = getattr(mod, "__version__", None)
    if v:
        return str(v)
    try:
        from importlib import metadata
        dist = {"gpuscipy": "gpuscipy", "gpuscipy_core": "gpuscipy"}.get(
            name or "", name or getattr(mod, "__name__", ""))
        return metadata.version(dist)
    except Exception:
        return None


# --------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------

@dataclass
class Timing:
    median_s: float
    min_s: float
    mean_s: float
    n: int
    sets: int = 1
    samples_s: list[float] = field(default_factory=list, repr=False)


def _call(fn: Callable, inputs: Sequence[Sequence[Any]] | None, i: int):
    if inputs is None:
        return fn()
    return fn(*inputs[i % len(inputs)])


def _summarise(samples: list[float], sets: int) -> Timing:
    return Timing(median_s=statistics.median(samples), min_s=min(samples),
                  mean_s=statistics.fmean(samples), n=len(samples), sets=sets,
                  samples_s=samples)


#: Least wall time of the untimed warm-up calls of :func:`time_gpu`.  An idle
#: H200 runs its SM clock at 345 MHz and takes some tens of milliseconds to
#: reach 1980 MHz; a case timed right after a CPU reference (seconds of GPU
#: idle) with only a few short warm-up calls was measured at partly low clocks
#: (fftconvolve 2^24 x 511: median 0.82-0.96 ms after SciPy's run against
#: 0.57-0.59 ms with this warm-up, which 1 s did not better), and the
#: backend timed next got the warm GPU.
WARMUP_SECONDS = 0.2


def time_gpu(fn: Callable, backend: Backend, warmup: int = 10,
             repeat: int = 100,
             inputs: Sequence[Sequence[Any]] | None = None,
             warmup_s: float | None = None) -> Timing:
    """GPU time of ``fn()`` (or ``fn(*inputs[i % len(inputs)])``).

    Each repeat: record the start event on the current stream, call, record
    the end event, synchronize on it, read the elapsed time.  Median and min
    over ``repeat`` calls after the untimed warm-up: at least ``warmup``
    calls and at least ``warmup_s`` seconds of them (synchronized; default
    :data:`WARMUP_SECONDS`), so the GPU's clocks have left their idle
    state.  With ``inputs`` (several pre-made argument tuples holding the same kind of data at
    different addresses) consecutive calls rotate among them so small cases
    are not served from L2.  The result of each call is kept alive until its
    end event completed, then dropped (allocation of the result is timed).
    """
    if not backend.is_gpu:
        return time_cpu(fn, warmup=min(warmup, 2), repeat=min(repeat, 10),
                        inputs=inputs)
    sets = len(inputs) if inputs is not None else 1
    t_end = time.perf_counter() + (WARMUP_SECONDS if warmup_s is None else warmup_s)
    i = 0
    while i < warmup or time.perf_counter() < t_end:
        out = _call(fn, inputs, i)
        del out
        i += 1
        if i >= warmup:
            backend.synchronize()
    backend.synchronize()
    start, end = backend.event(), backend.event()
    samples: list[float] = []
    for i in range(repeat):
        start.record()
        out = _call(fn, inputs, i)
        end.record()
        end.synchronize()
        samples.append(backend.elapsed_ms(start, end) * 1e-3)
        del out
    return _summarise(samples, sets)


def time_cpu(fn: Callable, warmup: int = 1, repeat: int = 10,
             inputs: Sequence[Sequence[Any]] | None = None,
             max_seconds: float = 20.0) -> Timing:
    """Wall time of a CPU call with ``perf_counter`` (median, min).

    Stops early (keeping at least 3 samples) once ``max_seconds`` are spent.
    """
    sets = len(inputs) if inputs is not None else 1
    for i in range(warmup):
        _call(fn, inputs, i)
    samples: list[float] = []
    t_begin = time.perf_counter()
    for i in range(repeat):
        t0 = time.perf_counter()
        out = _call(fn, inputs, i)
        samples.append(time.perf_counter() - t0)
        del out
        if len(samples) >= 3 and time.perf_counter() - t_begin > max_seconds:
            break
    return _summarise(samples, sets)


def time_host(fn: Callable, sync: Callable[[], None], n: int = 20000,
              rounds: int = 5, warmup: int | None = None) -> Timing:
    """Host time per call of a tiny op (launch + bookkeeping, not GPU time).

    Runs ``fn()`` ``n`` times in a tight loop, then ``sync()``, all under
    ``perf_counter_ns``; repeated ``rounds`` times; per-call time of each
    round, median and min over rounds.  The final sync is inside the timed
    region but amortised over ``n`` calls; if the GPU cannot keep up with the
    host the result shows it.
    """
    if warmup is None:
        warmup = min(n, 1000)
    for _ in range(warmup):
        fn()
    sync()
    samples: list[float] = []
    rng = range(n)
    for _ in range(rounds):
        t0 = time.perf_counter_ns()
        for _ in rng:
            fn()
        sync()
        t1 = time.perf_counter_ns()
        samples.append((t1 - t0) * 1e-9 / n)
    return _summarise(samples, 1)


def rotation_sets(bytes_per_call: int, l2_bytes: int = DEFAULT_L2_BYTES,
                  max_sets: int = 16) -> int:
    """How many input sets to rotate among so the footprint is >= 2x L2."""
    if bytes_per_call <= 0:
        return max_sets
    return int(max(1, min(max_sets, math.ceil(2 * l2_bytes / bytes_per_call))))


def l2_bytes() -> int:
    """L2 size of device 0 if CuPy can tell, else :data:`DEFAULT_L2_BYTES`."""
    try:
        import cupy
        v = int(cupy.cuda.Device(0).attributes.get("L2CacheSize", 0))
        if v > 0:
            return v
    except Exception:
        pass
    return DEFAULT_L2_BYTES


# --------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------

@dataclass
class Result:
    case: str                    # display name, e.g. "add_2^28"
    backend: str
    key: str = ""                # stable id of the case, e.g. "add"
    kind: str = "gpu"            # gpu | host | cpu | wall
    status: str = "ok"           # ok | n/a | error
    median_s: float | None = None
    min_s: float | None = None
    n: int = 0
    sets: int = 1
    bytes: int | None = None     # bytes read + written once
    gbps: float | None = None
    frac_copy: float | None = None
    ratio_vs_cupy: float | None = None   # time(gpuscipy) / time(cupy)
    check: str | None = None     # ok | FAIL: ... | None (not checked)
    note: str = ""
    extra: dict = field(default_factory=dict)

    def set_timing(self, t: Timing, nbytes: int | None = None) -> "Result":
        self.median_s, self.min_s, self.n, self.sets = (
            t.median_s, t.min_s, t.n, t.sets)
        if nbytes is not None:
            self.bytes = int(nbytes)
            if t.median_s > 0:
                self.gbps = nbytes / t.median_s / 1e9
        return self


def fill_derived(results: list[Result], copy_gbps: float | None) -> None:
    """Set fraction-of-copy-bandwidth and gpuscipy/cupy ratios in place."""
    by = {(r.key or r.case, r.backend): r for r in results}
    for r in results:
        if r.gbps is not None and copy_gbps and r.kind == "gpu":
            r.frac_copy = r.gbps / copy_gbps
        if r.backend == "gpuscipy" and r.status == "ok" and r.median_s:
            c = by.get((r.key or r.case, "cupy"))
            if c is not None and c.status == "ok" and c.median_s:
                r.ratio_vs_cupy = r.median_s / c.median_s


def fmt_time(s: float | None) -> str:
    if s is None:
        return "n/a"
    if s < 1e-3:
        return f"{s * 1e6:.2f} us"
    if s < 1.0:
        return f"{s * 1e3:.3f} ms"
    return f"{s:.3f} s"


def _fmt(v: float | None, spec: str, suffix: str = "") -> str:
    return "-" if v is None else format(v, spec) + suffix


def print_table(results: list[Result], file=None, title: str | None = None
                ) -> None:
    """Fixed-width table: case, backend, median, min, GB/s, % copy bw, ratio.

    ``ratio`` is time(gpuscipy) / time(cupy): below 1 means gpuscipy_core is
    faster.
    """
    file = file or sys.stdout
    cols = (("case", 26, "<"), ("backend", 9, "<"), ("median", 12, ">"),
            ("min", 12, ">"), ("GB/s", 9, ">"), ("% copy", 7, ">"),
            ("gp/cupy", 8, ">"), ("check", 6, "<"), ("note", 0, "<"))

    def line(vals):
        parts = []
        for (_, w, al), v in zip(cols, vals):
            parts.append(format(v, f"{al}{w}") if w else v)
        return "  ".join(parts).rstrip()

    if title:
        print(title, file=file)
    header = line([c[0] for c in cols])
    print(header, file=file)
    print("-" * max(len(header), 100), file=file)
    for r in results:
        if r.status != "ok":
            vals = [r.case, r.backend, r.status, "", "", "", "", "",
                    r.note]
        else:
            pct = None if r.frac_copy is None else 100 * r.frac_copy
            check = "" if r.check is None else (
                "ok" if r.check == "ok" else "FAIL")
            note = r.note
            if r.check not in (None, "ok"):
                note = (r.check + ("; " + note if note else ""))
            vals = [r.case, r.backend, fmt_time(r.median_s),
                    fmt_time(r.min_s), _fmt(r.gbps, ".1f"), _fmt(pct, ".1f"),
                    _fmt(r.ratio_vs_cupy, ".3f"), check, note]
        print(line(vals), file=file)
    file.flush()


# --------------------------------------------------------------------------
# environment / JSON
# --------------------------------------------------------------------------

def _nvidia_smi() -> list[dict]:
    exe = shutil.which("nvidia-smi")
    if not exe:
        return []
    q = "index,name,driver_version,memory.total,clocks.max.sm,clocks.max.mem"
    try:
        out = subprocess.run(
            [exe, f"--query-gpu={q}", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=30).stdout
    except Exception:
        return []
    keys = q.split(",")
    gpus = []
    for row in out.strip().splitlines():
        vals = [v.strip() for v in row.split(",")]
        if len(vals) == len(keys):
            gpus.append(dict(zip(keys, vals)))
    return gpus


def environment() -> dict:
    """GPU name, driver, library versions, host, timestamp."""
    env: dict[str, Any] = {
        "timestamp": _dt.datetime.now(_dt.timezone.utc).isoformat(
            timespec="seconds"),
        "host": socket.gethostname(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "gpuscipy_cache_dir": os.environ.get("GPUSCIPY_CACHE_DIR"),
    }
    gpus = _nvidia_smi()
    env["gpus"] = gpus
    env["gpu_name"] = gpus[0]["name"] if gpus else None
    env["driver"] = gpus[0]["driver_version"] if gpus else None
    versions: dict[str, str | None] = {}
    for name, mod in (("numpy", "numpy"), ("scipy", "scipy"),
                      ("cupy", "cupy"), ("gpuscipy_core", "gpuscipy_core")):
        try:
            m = __import__(mod)
            versions[name] = _module_version(m, name)
        except Exception:
            versions[name] = None
    env["versions"] = versions
    try:
        import cupy
        rt = cupy.cuda.runtime
        env["cuda_runtime"] = rt.runtimeGetVersion()
        env["cuda_driver"] = rt.driverGetVersion()
        if env["gpu_name"] is None:
            name = rt.getDeviceProperties(0)["name"]
            env["gpu_name"] = name.decode() if isinstance(name, bytes) else name
    except Exception:
        pass
    return env


def print_environment(env: dict, file=None) -> None:
    file = file or sys.stdout
    v = env.get("versions", {})
    print(f"GPU: {env.get('gpu_name')}  driver: {env.get('driver')}  "
          f"CUDA runtime (cupy): {env.get('cuda_runtime')}", file=file)
    print("versions: " + ", ".join(f"{k} {v[k]}" for k in v)
          + f", python {env.get('python')}", file=file)
    print(f"GPUSCIPY_CACHE_DIR={env.get('gpuscipy_cache_dir')}  "
          f"at {env.get('timestamp')} on {env.get('host')}", file=file)
    file.flush()


def _jsonable(o: Any) -> Any:
    if isinstance(o, float) and not math.isfinite(o):
        return None
    if isinstance(o, dict):
        return {str(k): _jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_jsonable(v) for v in o]
    if isinstance(o, (str, int, float, bool)) or o is None:
        return o
    try:  # numpy scalars
        return o.item()
    except Exception:
        return str(o)


def write_json(path: str, results: list[Result], env: dict | None = None,
               **extra: Any) -> None:
    """Write ``{"environment", "results", **extra}`` to ``path``."""
    doc = {"environment": env if env is not None else environment(),
           "results": [asdict(r) for r in results]}
    doc.update(extra)
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    with open(path, "w") as f:
        json.dump(_jsonable(doc), f, indent=2)
        f.write("\n")


# --------------------------------------------------------------------------
# bars (the goals an issue sets)
# --------------------------------------------------------------------------

@dataclass
class Bar:
    name: str
    target: str
    measured: str
    status: str          # PASS | FAIL | n/a
    why: str = ""


def print_bars(bars: list[Bar], advisory: bool, copy_ref, copy_src) -> None:
    print()
    print("== bars ==" + (" (advisory: --quick sizes)" if advisory else ""))
    if copy_ref:
        print(f"reference copy bandwidth: {copy_ref:.1f} GB/s ({copy_src})")
    for b in bars:
        line = f"{b.status:<5} {b.name:<34} {b.target:<22} {b.measured}"
        if b.why:
            line += f"  [{b.why}]"
        print(line)
    npass = sum(b.status == "PASS" for b in bars)
    print(f"bars: {npass} passed, {len(bars) - npass} failed"
          + (" (advisory)" if advisory else ""))
    sys.stdout.flush()
