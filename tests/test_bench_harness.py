"""The benchmark harness's GPU timer, with a stand-in backend (no GPU)."""

import time

from benchmarks import _harness as H


class _Event:
    def record(self):
        self.t = time.perf_counter()

    def synchronize(self):
        pass


class _FakeGPU(H.Backend):
    def __init__(self):
        super().__init__("fake", None, True)
        self.syncs = 0

    def synchronize(self):
        self.syncs += 1

    def event(self):
        return _Event()

    def elapsed_ms(self, start, end):
        return (end.t - start.t) * 1e3


def test_warmup_runs_for_its_time_then_times_repeat_calls():
    calls = []
    b = _FakeGPU()
    t0 = time.perf_counter()
    r = H.time_gpu(lambda: calls.append(time.perf_counter()), b, warmup=3,
                   repeat=7, warmup_s=0.05)
    warm = calls[:-7]
    assert len(warm) >= 3
    assert calls[-7] - t0 >= 0.05         # timing began warmup_s after the start
    assert r.n == 7 and r.median_s >= 0
    assert b.syncs >= len(warm) - 3       # synchronized after each call past the count


def test_warmup_count_rules_when_longer():
    calls = []
    H.time_gpu(lambda: calls.append(1), _FakeGPU(), warmup=25, repeat=4, warmup_s=0.0)
    assert len(calls) == 29
