"""The demo's own device kernels compile with NVRTC (no GPU needed) and,
on a GPU, give NumPy's answer."""

import numpy as np
import pytest

from gpuscipy_core._kernel._nvrtc import compile_cubin
from gpuscipy.demo.pipelines import ecg as E


def test_heart_rate_kernel_compiles():
    import gpuscipy_core as gp
    k = E._heart_rate_kernel(gp)
    for ndim in (0, 1):
        name, src = k.source("i8", "i8", "f8", scalars=(2,), ndim=ndim)
        assert compile_cubin(src, name)


@pytest.mark.gpu
def test_heart_rate_and_refine_match_numpy():
    import gpuscipy_core as gp
    from gpuscipy import signal
    rng = np.random.default_rng(208)
    peaks = np.sort(rng.choice(108000, 600, replace=False)).astype(np.int64)
    x = rng.standard_normal(108000)
    peaks[0], peaks[-1] = 3, 107998          # windows clipped at both ends
    g = E.Chain(signal, gp, gp.asnumpy)
    c = E.Chain(None, np, np.asarray)
    hr = g.heart_rate(gp.asarray(peaks))
    assert hr.dtype == np.float64
    np.testing.assert_array_equal(gp.asnumpy(hr), c.heart_rate(peaks))
    np.testing.assert_array_equal(gp.asnumpy(g.refine(gp.asarray(peaks), gp.asarray(x))),
                                  c.refine(peaks, x))
    empty = g.heart_rate(gp.asarray(peaks[:1]))
    assert empty.shape == (0,)
