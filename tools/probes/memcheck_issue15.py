"""The kernels and routes added for issue 15's host-time items, each run once
on small data, for ``compute-sanitizer --tool memcheck`` (with
``GPUSCIPY_ALLOCATOR=cuda_malloc`` so out-of-bounds accesses hit unowned
memory):

    GPUSCIPY_ALLOCATOR=cuda_malloc compute-sanitizer --tool memcheck \\
        python tools/probes/memcheck_issue15.py
"""
import numpy as np
import scipy.signal as ss


def main():
    import gpuscipy_core as gp
    from gpuscipy import linalg, signal
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 1000))
    sos = ss.butter(4, [0.05, 0.2], "bandpass", output="sos")
    b, a = ss.iirnotch(0.1, 30)
    for _ in range(2):
        y = signal.sosfiltfilt(sos, gp.asarray(x))
        y2 = signal.filtfilt(b, a, y)                        # a reversed view in
        np.testing.assert_allclose(y2.get(), ss.filtfilt(b, a, ss.sosfiltfilt(sos, x)),
                                   rtol=1e-9, atol=1e-9)
    v = rng.standard_normal(5000).astype(np.float32)
    h = rng.standard_normal(3001).astype(np.float32)
    for mode in ("full", "same", "valid"):
        got = signal.correlate(gp.asarray(v), gp.asarray(h)[::-1], mode, "fft").get()
        np.testing.assert_allclose(got, ss.correlate(v, h[::-1], mode, "fft"),
                                   rtol=1e-3, atol=1e-3)
    k = gp.ElementwiseKernel("T x, T a", "T z", "z = a * x", "memcheck_ewk")
    for _ in range(3):
        k(gp.asarray(v), np.float32(2))
    gp.clip(gp.asarray(v), -0.5, 0.5).get()
    m = rng.standard_normal((600, 600)) + 50 * np.eye(600)
    linalg.inv(gp.asarray(m[:64, :64])).get()
    rhs = rng.standard_normal(600)
    np.testing.assert_allclose(linalg.solve(gp.asarray(m), gp.asarray(rhs)).get(),
                               np.linalg.solve(m, rhs), rtol=1e-9)
    import scipy.linalg as sl
    lu, piv = sl.lu_factor(m)
    for trans in (0, 1):
        linalg.lu_solve((gp.asarray(lu), gp.asarray(piv)), gp.asarray(rhs), trans=trans).get()
    gp.cuda.Device(0).synchronize()
    print("memcheck_issue15: ran")


if __name__ == "__main__":
    main()
