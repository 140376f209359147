"""cuFFT plans: creation, an LRU cache, execution on the current stream.

A plan is described by a :class:`PlanKey` (device, rank, lengths, advanced
layout, transform type, batch, stream). Plans are created with
``cufftSetAutoAllocation(plan, 0)``, so the cache holds no work areas: each
execution takes a work area from the stream-ordered pool
(``gpuscipy_core.empty(nbytes, uint8)``), hands it to cuFFT with
``cufftSetWorkArea`` and releases it on the same stream after the launch.

Cache (one per thread, so that no two threads share a plan handle):

* at most ``max_plans`` plans (default 64), least recently used evicted;
* at most ``max_bytes`` of *recorded* work-area sizes (default 4 GiB): the
  sum of the work sizes cuFFT reported for the cached plans. The plans do
  not hold those bytes (the pool lends them per call); the figure bounds
  what a burst of different transforms can ask from the pool and is a
  proxy for the small plan-internal buffers (twiddles) that cuFFT keeps.

``plan_cache.info()`` reports the state, ``plan_cache.clear()`` destroys
every plan of the calling thread, ``plan_cache.set_limits`` changes the
bounds. The plan's stream is part of the key and is bound once at creation.
"""

import collections
import threading
from typing import NamedTuple

import numpy

__all__ = ["PlanKey", "get_plan", "execute", "plan_cache"]

_cufft = None


def _lib():
    """``gpuscipy_core.libs.cufft``, imported on first use."""
    global _cufft
    if _cufft is None:
        from gpuscipy_core.libs import cufft
        _cufft = cufft
    return _cufft


class PlanKey(NamedTuple):
    """Everything that makes two cuFFT plans different.

    ``inembed``/``onembed`` are None for cuFFT's basic (contiguous) layout,
    in which case ``istride``/``idist``/``ostride``/``odist`` are ignored by
    cuFFT and kept here as 0. ``kind`` is one of 'C2C', 'R2C', 'C2R' and
    ``double`` selects Z2Z/D2Z/Z2D.
    """
    device: int
    n: tuple
    inembed: object
    istride: int
    idist: int
    onembed: object
    ostride: int
    odist: int
    kind: str
    double: bool
    batch: int
    stream: int


def make_key(n, kind, double, batch, inembed=None, istride=1, idist=0,
             onembed=None, ostride=1, odist=0):
    """A :class:`PlanKey` for the current device and stream (pure apart from
    reading the thread's current device/stream)."""
    from gpuscipy_core.cuda import get_current_stream_ptr, get_device_id
    if inembed is None and onembed is None:
        istride = ostride = 1
        idist = odist = 0
    return PlanKey(get_device_id(), tuple(int(v) for v in n),
                   None if inembed is None else tuple(int(v) for v in inembed),
                   int(istride), int(idist),
                   None if onembed is None else tuple(int(v) for v in onembed),
                   int(ostride), int(odist), kind, bool(double), int(batch),
                   int(get_current_stream_ptr()))


def _type_code(cufft, kind, double):
    name = {("C2C", False): "CUFFT_C2C", ("R2C", False): "CUFFT_R2C",
            ("C2R", False): "CUFFT_C2R", ("C2C", True): "CUFFT_Z2Z",
            ("R2C", True): "CUFFT_D2Z", ("C2R", True): "CUFFT_Z2D"}[(kind, double)]
    return getattr(cufft, name)


_EXEC = {("C2C", False): "cufftExecC2C", ("C2C", True): "cufftExecZ2Z",
         ("R2C", False): "cufftExecR2C", ("R2C", True): "cufftExecD2Z",
         ("C2R", False): "cufftExecC2R", ("C2R", True): "cufftExecZ2D"}


def _ensure_context(device):
    from gpuscipy_core.cuda import ensure_context
    ensure_context(device)


class Plan:
    """One cuFFT plan handle and the work-area size it needs."""

    __slots__ = ("handle", "work_size", "key", "_exec", "_cufft")

    def __init__(self, key):
        self.handle = None
        cufft = _lib()
        self._cufft = cufft
        self.key = key
        _ensure_context(key.device)
        handle = cufft.cufftCreate()
        try:
            cufft.cufftSetAutoAllocation(handle, 0)
            self.work_size = int(cufft.cufftMakePlanMany64(
                handle, len(key.n), list(key.n),
                None if key.inembed is None else list(key.inembed),
                key.istride, key.idist,
                None if key.onembed is None else list(key.onembed),
                key.ostride, key.odist, _type_code(cufft, key.kind, key.double),
                key.batch))
            cufft.cufftSetStream(handle, key.stream)
        except BaseException:
            cufft.cufftDestroy(handle)
            raise
        self.handle = handle
        self._exec = getattr(cufft, _EXEC[(key.kind, key.double)])

    def destroy(self):
        if self.handle is not None:
            h, self.handle = self.handle, None
            try:
                self._cufft.cufftDestroy(h)
            except Exception:  # noqa: BLE001 - never raise from cleanup
                pass

    def __del__(self):
        self.destroy()


class _Cache:
    """Per-thread LRU of plans bounded by count and recorded work bytes."""

    def __init__(self):
        self._tls = threading.local()
        self.max_plans = 64
        self.max_bytes = 4 << 30

    def _od(self):
        od = getattr(self._tls, "plans", None)
        if od is None:
            od = self._tls.plans = collections.OrderedDict()
            self._tls.bytes = 0
            self._tls.hits = 0
            self._tls.misses = 0
        return od

    def get(self, key):
        od = self._od()
        plan = od.get(key)
        if plan is not None:
            od.move_to_end(key)
            self._tls.hits += 1
            return plan
        self._tls.misses += 1
        try:
            plan = Plan(key)
        except Exception as e:
            if type(e).__name__ != "CUFFTError" or not od:
                raise
            # out of memory (or other setup failure) with plans cached:
            # free them all and try once more
            self.clear()
            od = self._od()
            plan = Plan(key)
        od[key] = plan
        self._tls.bytes += plan.work_size
        self._evict(od, keep=key)
        return plan

    def _evict(self, od, keep=None):
        while od and (len(od) > self.max_plans or self._tls.bytes > self.max_bytes):
            k = next(iter(od))
            if k == keep:
                if len(od) == 1:
                    break
                od.move_to_end(k)
                continue
            p = od.pop(k)
            self._tls.bytes -= p.work_size
            p.destroy()

    # -- public --------------------------------------------------------------
    def info(self):
        """State of the calling thread's cache: a dict with ``plans``,
        ``work_bytes`` (recorded), ``hits``, ``misses``, ``max_plans``,
        ``max_bytes`` and ``keys`` (most recently used last)."""
        od = self._od()
        return {"plans": len(od), "work_bytes": self._tls.bytes,
                "hits": self._tls.hits, "misses": self._tls.misses,
                "max_plans": self.max_plans, "max_bytes": self.max_bytes,
                "keys": list(od.keys())}

    def clear(self):
        """Destroy every cached plan of the calling thread."""
        od = self._od()
        while od:
            _, p = od.popitem(last=False)
            p.destroy()
        self._tls.bytes = 0

    def set_limits(self, max_plans=None, max_bytes=None):
        """Change the bounds (for every thread) and evict down to them."""
        if max_plans is not None:
            if int(max_plans) < 1:
                raise ValueError("max_plans must be at least 1")
            self.max_plans = int(max_plans)
        if max_bytes is not None:
            if int(max_bytes) < 0:
                raise ValueError("max_bytes must be non-negative")
            self.max_bytes = int(max_bytes)
        self._evict(self._od())

    def __len__(self):
        return len(self._od())


plan_cache = _Cache()


def get_plan(n, kind, double, batch, **layout):
    """The cached plan for these parameters on the current device and stream."""
    return plan_cache.get(make_key(n, kind, double, batch, **layout))


def execute(plan, in_ptr, out_ptr, direction=None):
    """Run ``plan`` on device pointers ``in_ptr`` -> ``out_ptr`` on the
    stream it was made for, with a work area from the pool.

    ``direction`` is -1 (forward) or +1 (inverse) for C2C plans.
    """
    import gpuscipy_core as gp
    _ensure_context(plan.key.device)
    cufft = plan._cufft
    work = None
    if plan.work_size:
        work = gp.empty(plan.work_size, numpy.uint8)
        cufft.cufftSetWorkArea(plan.handle, work.ptr)
    if plan.key.kind == "C2C":
        plan._exec(plan.handle, in_ptr, out_ptr,
                   cufft.CUFFT_FORWARD if direction < 0 else cufft.CUFFT_INVERSE)
    else:
        plan._exec(plan.handle, in_ptr, out_ptr)
    # the work area is freed on the plan's stream, after the transform
    del work
