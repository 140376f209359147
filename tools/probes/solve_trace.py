"""The CUDA timeline of one ``linalg.solve`` of 4096^2 float64 with one
right-hand side (H200): every kernel and copy with its start (us from the
first), duration and stream, from a CUPTI trace through torch.profiler;
after getrf, kernels shorter than 20 us are summed per gap, not listed.

    PYTHONPATH=. python tools/probes/solve_trace.py
"""
import numpy as np


def main():
    import gpuscipy_core as gp
    from gpuscipy import linalg
    from torch.profiler import ProfilerActivity, profile
    rng = np.random.default_rng(1)
    n = 4096
    a = gp.asarray(rng.standard_normal((n, n)))
    b = gp.asarray(rng.standard_normal(n))
    for _ in range(3):
        linalg.solve(a, b)
    gp.cuda.Device(0).synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        linalg.solve(a, b)
        gp.cuda.Device(0).synchronize()
    evs = sorted((e for e in p.events() if e.device_type.name == "CUDA"),
                 key=lambda e: e.time_range.start)
    t0 = evs[0].time_range.start
    last_getrf = max(i for i, e in enumerate(evs) if "getrf" in e.name)
    g_end = max(e.time_range.end for e in evs[:last_getrf + 1])
    print(f"up to the last getrf kernel: {last_getrf + 1} ops, {g_end - t0:.1f} us")
    small, small_n, last_end = 0.0, 0, g_end
    for e in evs[last_getrf + 1:]:
        d = e.time_range.end - e.time_range.start
        if d < 20:
            small += d
            small_n += 1
            continue
        if small_n:
            print(f"    ({small_n} short ops, {small:.1f} us)")
            small, small_n = 0.0, 0
        print(f"{e.time_range.start - t0:9.1f} {d:8.1f} us  s{getattr(e, 'device_resource_id', '?')}"
              f"  gap {e.time_range.start - last_end:7.1f}  {e.name[:60]}")
        last_end = max(last_end, e.time_range.end)
    if small_n:
        print(f"    ({small_n} short ops, {small:.1f} us)")
    print(f"total span {evs[-1].time_range.end - t0:.1f} us")


if __name__ == "__main__":
    main()
