"""Filter design and windows (host SciPy, results on the device) and decimate."""

import inspect

import numpy as np
import pytest
import scipy.signal as ss

from gpuscipy.signal import _filter_design as fd
from gpuscipy.signal import windows as gw

gpu = pytest.mark.gpu

DESIGN = ["butter", "cheby1", "cheby2", "ellip", "bessel", "iirfilter", "iirnotch",
          "iirpeak", "firwin", "firwin2", "sos2tf", "tf2sos", "zpk2sos"]


def _sig(f, drop=("xp", "device")):
    s = inspect.signature(f)
    return [(p.name, p.kind, p.default) for p in s.parameters.values()
            if p.name not in drop]


@pytest.mark.parametrize("name", DESIGN)
def test_design_signature_is_scipys(name):
    assert _sig(getattr(fd, name)) == _sig(getattr(ss, name))
    assert getattr(fd, name).__doc__ and "Returns" in getattr(fd, name).__doc__


@pytest.mark.parametrize("name", [n for n in ss.windows.__all__])
def test_window_signature_is_scipys(name):
    assert _sig(getattr(gw, name)) == _sig(getattr(ss.windows, name))
    assert "Returns" in getattr(gw, name).__doc__


@pytest.mark.parametrize("call, exc, match", [
    (lambda: fd.butter(4, 1.5), ValueError, "Digital filter critical frequencies"),
    (lambda: fd.butter(4, 0.2, btype="bogus"), ValueError, "'bogus' is an invalid bandtype"),
    (lambda: fd.iirnotch(1.5, 30), ValueError, "w0 should be such that"),
    (lambda: fd.firwin(10, 0.5, pass_zero=False), ValueError, "even number"),
    (lambda: fd.tf2sos([1, 2], [1, 0.5], pairing="bogus"), ValueError, "pairing"),
    (lambda: gw.get_window("nonexistent", 10), ValueError, "Unknown window type|Invalid window name"),
    (lambda: gw.kaiser(10), TypeError, "missing 1 required positional argument: 'beta'"),
])
def test_design_errors_are_scipys(call, exc, match):
    # raised by SciPy on the host, before anything touches the device
    with pytest.raises(exc, match=match):
        call()


def test_host_and_device_helpers():
    class FakeDev:
        __cuda_array_interface__ = {}

        def get(self):
            return np.arange(3.0)
    out = fd._host([FakeDev(), (1, FakeDev())])
    assert isinstance(out, list) and isinstance(out[1], tuple)
    np.testing.assert_array_equal(out[0], np.arange(3.0))
    assert fd._host(2.5) == 2.5
    # scalars (a zpk gain) stay scalars
    assert fd._device(np.float64(2.0)) == 2.0 and not hasattr(fd._device(2.0), "ptr")


# ---------------------------------------------------------------- GPU

DESIGN_CASES = [
    ("butter", (4, 0.2), {}), ("butter", (3, [0.1, 0.4]), {"btype": "band", "output": "sos"}),
    ("butter", (2, 0.5), {"btype": "highpass", "fs": 360, "output": "sos"}),
    ("butter", (5, 0.3), {"output": "zpk"}),
    ("cheby1", (4, 1, 0.3), {}), ("cheby2", (4, 40, 0.3), {"output": "sos"}),
    ("ellip", (4, 1, 40, 0.3), {"output": "sos"}), ("bessel", (4, 0.3), {"norm": "mag"}),
    ("iirfilter", (4, [50, 200]), {"rs": 60, "ftype": "cheby2", "fs": 1000}),
    ("iirnotch", (60, 30), {"fs": 360}), ("iirpeak", (0.3, 10), {}),
    ("firwin", (51, 0.3), {}), ("firwin", (51, [0.2, 0.4]), {"pass_zero": False}),
    ("firwin2", (31, [0, 0.5, 1], [1, 1, 0]), {}),
    ("sos2tf", (ss.butter(4, 0.2, output="sos"),), {}),
    ("tf2sos", ss.butter(4, 0.2), {}),
    ("zpk2sos", ss.butter(4, 0.2, output="zpk"), {}),
]


@gpu
@pytest.mark.parametrize("name, args, kw", DESIGN_CASES)
def test_design_values_on_device(name, args, kw):
    import gpuscipy_core as gp
    ref = getattr(ss, name)(*args, **kw)
    got = getattr(fd, name)(*args, **kw)
    refs = ref if isinstance(ref, tuple) else (ref,)
    gots = got if isinstance(got, tuple) else (got,)
    assert len(refs) == len(gots)
    for r, g in zip(refs, gots):
        if isinstance(r, np.ndarray):
            assert isinstance(g, gp.ndarray)
            assert g.dtype == r.dtype and g.shape == r.shape
            np.testing.assert_array_equal(g.get(), r)
        else:
            assert g == r and not isinstance(g, gp.ndarray)


@gpu
def test_design_takes_device_arrays():
    import gpuscipy_core as gp
    sos = ss.butter(6, 0.25, output="sos")
    b, a = fd.sos2tf(gp.asarray(sos))
    rb, ra = ss.sos2tf(sos)
    np.testing.assert_array_equal(b.get(), rb)
    np.testing.assert_array_equal(a.get(), ra)
    z, p, k = ss.butter(4, 0.2, output="zpk")
    np.testing.assert_array_equal(fd.zpk2sos(gp.asarray(z), gp.asarray(p), k).get(),
                                  ss.zpk2sos(z, p, k))


@gpu
@pytest.mark.parametrize("name", [n for n in ss.windows.__all__ if n != "get_window"])
def test_windows_on_device(name):
    params = {"kaiser": (8.0,), "kaiser_bessel_derived": (4.0,), "gaussian": (3.0,),
              "general_gaussian": (1.5, 7.0), "general_cosine": ([0.5, 0.5],),
              "general_hamming": (0.7,), "chebwin": (80,), "dpss": (3,),
              "exponential": (), "tukey": (0.3,), "taylor": ()}
    M = 64
    ref = getattr(ss.windows, name)(M, *params.get(name, ()))
    got = getattr(gw, name)(M, *params.get(name, ()))
    np.testing.assert_array_equal(got.get(), ref)
    w = gw.get_window(("tukey", 0.25), 100, fftbins=False)
    np.testing.assert_array_equal(w.get(), ss.get_window(("tukey", 0.25), 100, fftbins=False))
    w, r = gw.dpss(32, 2.5, 3, return_ratios=True)
    rw, rr = ss.windows.dpss(32, 2.5, 3, return_ratios=True)
    np.testing.assert_array_equal(w.get(), rw)
    np.testing.assert_array_equal(r.get(), rr)


# ---------------------------------------------------------------- decimate

@gpu
@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("ftype, zero_phase", [("iir", True), ("iir", False),
                                               ("fir", True), ("fir", False)])
@pytest.mark.parametrize("q", [2, 5])
def test_decimate_parity(dtype, ftype, zero_phase, q):
    import gpuscipy_core as gp
    from gpuscipy.signal._decimate import decimate
    rng = np.random.default_rng(q)
    x = rng.standard_normal((3, 1001)) * 100
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(x.shape)
    x = x.astype(dtype)
    ref = ss.decimate(x, q, ftype=ftype, zero_phase=zero_phase)
    got = decimate(gp.asarray(x), q, ftype=ftype, zero_phase=zero_phase)
    assert got.shape == ref.shape and got.dtype == ref.dtype
    tol = 1e-4 if ref.dtype in (np.float32, np.complex64) else 1e-10
    scale = np.abs(ref).max()
    np.testing.assert_allclose(got.get(), ref, rtol=0, atol=tol * scale)
    # axis 0 of the transposed input: the same answer
    got0 = decimate(gp.asarray(np.ascontiguousarray(x.T)), q, ftype=ftype,
                    zero_phase=zero_phase, axis=0)
    np.testing.assert_allclose(got0.get().T, ref, rtol=0, atol=tol * scale)


@gpu
def test_decimate_dlti_and_errors():
    import gpuscipy_core as gp
    from gpuscipy.signal._decimate import decimate
    rng = np.random.default_rng(0)
    x = rng.standard_normal(500)
    for system in (ss.dlti(*ss.butter(4, 0.3)), ss.dlti(ss.firwin(21, 0.3), [1.0])):
        for zp in (True, False):
            ref = ss.decimate(x, 3, ftype=system, zero_phase=zp)
            got = decimate(gp.asarray(x), 3, ftype=system, zero_phase=zp)
            np.testing.assert_allclose(got.get(), ref, rtol=0, atol=1e-10 * np.abs(ref).max())
    with pytest.raises(ValueError, match="invalid ftype"):
        decimate(gp.asarray(x), 3, ftype="bogus")
    with pytest.raises(TypeError):
        decimate(gp.asarray(x), 2.5)
