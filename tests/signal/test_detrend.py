"""Tests of gpuscipy.signal's detrend (``_detrend``).

CPU: NVRTC compiles every detrend kernel variant; the chunking plan; the
NumPy model of the kernels (fused per-line and chunked two-pass paths,
``_spectral_models.detrend_lines``) through the public function against
scipy.signal.detrend on the case table (values, dtypes, shapes, errors,
warnings), with ``_detrend._BE`` swapped for the model.
GPU (``gpu`` marker): the same table on the device with device inputs
(strided, reversed, transposed), long lines (chunked path), in-place
``overwrite_data``.

Tolerance: relative to max|data| -- 1e-12 for double precision, 2e-6 for
float32/complex64 (SciPy fits with an SVD in the data's precision; we use
the closed-form fit with moments in double), 2e-3 for float16 (one ulp of
the result).
"""

import os
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.signal as ss

from gpuscipy_core.kernel import read_source
from gpuscipy.signal import _detrend as D
from gpuscipy.signal import _spectral_kernels as K
from gpuscipy.signal import _spectral_models as M

FAMILIES = ("detrend_fused", "detrend_partial", "detrend_apply")
TOL = {"d": 1e-12, "D": 1e-12, "f": 2e-6, "F": 2e-6, "e": 2e-3}

VIEWS = {
    "c": lambda a: a,
    "strided": lambda a: a[..., ::3],
    "reversed": lambda a: a[::-1, ::-1] if a.ndim > 1 else a[::-1],
    "T": lambda a: a.T,
}


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(shape[-1])
    x = rng.standard_normal(shape) + 0.01 * t - 3.0 + 0.2 * np.sin(t * 0.01)
    dt = np.dtype(dtype)
    if dt.kind == "c":
        x = x + 1j * (rng.standard_normal(shape) - 0.02 * t)
    elif dt.kind in "iu":
        x = np.round(x * 10)
    elif dt.kind == "b":
        x = rng.standard_normal(shape) > 0.3
    return x.astype(dt)


def _base_shape(shape, view):
    if view == "strided":
        return shape[:-1] + (3 * shape[-1],)
    if view == "T":
        return shape[::-1]
    return shape


# (id, shape after view, dtype, view, kwargs)
CASES = [
    ("linear", (1000,), "d", "c", {}),
    ("constant", (1000,), "d", "c", dict(type='constant')),
    ("c-alias", (100,), "d", "c", dict(type='c')),
    ("l-alias", (100,), "d", "c", dict(type='l')),
    ("bp", (1000,), "d", "c", dict(bp=[100, 500, 501, 900])),
    ("bp-unsorted-dup", (1000,), "d", "c", dict(bp=np.array([700, 20, 20, 0, 1000]))),
    ("bp-device-like", (300,), "d", "c", dict(bp=(50,))),
    ("axis0", (300, 4), "d", "c", dict(axis=0, bp=[100])),
    ("axis0-constant", (300, 4), "d", "c", dict(axis=0, type='constant')),
    ("axis1-3d", (3, 200, 2), "d", "c", dict(axis=1)),
    ("batch", (8, 500), "d", "c", {}),
    ("strided", (4, 400), "d", "strided", {}),
    ("reversed", (4, 400), "d", "reversed", dict(bp=[77])),
    ("transposed", (5, 300), "d", "T", {}),
    ("transposed-axis0", (300, 5), "d", "T", dict(axis=0, type='constant')),
    ("long-chunked", (3, 20000), "d", "c", dict(bp=[8192, 8193, 15000])),
    ("long-chunked-constant", (2, 40001), "d", "c", dict(type='constant')),
    ("long-chunked-f32", (20000,), "f", "c", {}),
    ("n1", (1,), "d", "c", {}),
    ("n2", (2,), "d", "c", {}),
    ("n1-constant", (3, 1), "d", "c", dict(type='constant')),
    ("f32", (1000,), "f", "c", {}),
    ("f32-constant", (1000,), "f", "c", dict(type='constant')),
    ("c64", (1000,), "F", "c", dict(bp=[300])),
    ("c128-constant", (1000,), "D", "c", dict(type='constant')),
    ("int", (500,), "i", "c", {}),
    ("int-constant", (500,), "q", "c", dict(type='constant')),
    ("uint8-constant", (500,), "B", "c", dict(type='constant')),
    ("bool-constant", (500,), "?", "c", dict(type='constant')),
    ("bool", (500,), "?", "c", {}),
    ("f16-constant", (500,), "e", "c", dict(type='constant')),
    ("f16-linear", (500,), "e", "c", {}),
    ("nan", (500,), "d", "c", dict(nan_at=10)),
    ("nan-bp", (500,), "d", "c", dict(nan_at=10, bp=[250])),
    ("empty-constant", (3, 0), "d", "c", dict(type='constant')),
    ("empty-linear", (3, 0), "d", "c", {}),
    ("err-type", (10,), "d", "c", dict(type='foo')),
    ("err-bp-big", (100,), "d", "c", dict(bp=200)),
    ("err-bp-neg", (100,), "d", "c", dict(bp=-5)),
    ("err-bp-float", (100,), "d", "c", dict(bp=5.5)),
    ("err-axis-linear", (10,), "d", "c", dict(axis=1)),
    ("err-axis-constant", (10,), "d", "c", dict(axis=1, type='constant')),
]


def _inputs(shape, dtype, view, nan_at, device):
    base = _data(_base_shape(shape, view), dtype)
    host = VIEWS[view](base)
    if nan_at is not None:
        host = host.copy()
        host[..., nan_at] = np.nan
        base, view = host, "c"
    if device:
        import gpuscipy_core as gp
        return host, VIEWS[view](gp.asarray(base))
    return host, VIEWS[view](base.copy())


def _call(fn, *args, **kwargs):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            out, err = fn(*args, **kwargs), None
        except Exception as e:  # noqa: BLE001 - compared with SciPy's
            out, err = None, e
    return out, err, [(w.category, str(w.message)) for w in rec]


@pytest.fixture(params=["model", pytest.param("gpu", marks=pytest.mark.gpu)])
def backend(request, monkeypatch):
    if request.param == "model":
        monkeypatch.setattr(D, "_BE", M)
    return request.param


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_parity(case, backend):
    _, shape, dtype, view, kwargs = case
    kwargs = dict(kwargs)
    nan_at = kwargs.pop("nan_at", None)
    device = backend == "gpu"
    host, dev = _inputs(shape, dtype, view, nan_at, device)
    ref, rerr, rw = _call(ss.detrend, host, **kwargs)
    out, err, w = _call(D.detrend, dev, **kwargs)
    if rerr is not None:
        assert err is not None and type(err) is type(rerr), (err, rerr)
        assert str(err) == str(rerr)
        return
    if err is not None:
        raise err
    assert w == rw
    if device:
        import gpuscipy_core as gp
        assert isinstance(out, gp.ndarray)
        out = gp.asnumpy(out)
    assert out.shape == ref.shape and out.dtype == ref.dtype, (out.dtype, ref.dtype)
    if ref.size == 0:
        return
    np.testing.assert_array_equal(np.isnan(out), np.isnan(ref))
    ok = ~np.isnan(ref)
    scale = np.abs(host.astype(np.complex128)).max() if host.size else 1.0
    scale = scale if np.isfinite(scale) else np.abs(np.nan_to_num(host.astype(float))).max()
    tol = TOL.get(ref.dtype.char, 1e-12)
    err = np.abs(out[ok].astype(np.complex128) - ref[ok]).max() / max(scale, 1e-300)
    assert err <= tol, f"error {err:.3g} > {tol:g}"


@pytest.mark.parametrize("dtype", ["d", "f", "D"])
def test_overwrite_data_writes_in_place(backend, dtype):
    device = backend == "gpu"
    x = _data((3, 400), dtype)
    ref = ss.detrend(x, bp=[100])
    if device:
        import gpuscipy_core as gp
        xs = [gp.asarray(x), gp.asarray(np.ascontiguousarray(x.T)).T]
    else:
        xs = [x.copy(), np.ascontiguousarray(x.T).T]
    for xd in xs:
        r = D.detrend(xd, bp=[100], overwrite_data=True)
        assert r is xd
        got = gp.asnumpy(xd) if device else xd
        np.testing.assert_allclose(got, ref, atol=TOL[dtype] * np.abs(x).max())
    # constant never writes into data, as in SciPy
    y = xs[0]
    before = gp.asnumpy(y).copy() if device else y.copy()
    D.detrend(y, type='constant', overwrite_data=True)
    np.testing.assert_array_equal(gp.asnumpy(y) if device else y, before)


def test_plan():
    assert K.detrend_plan([0, 100]) == ([0, 1], 1, True)
    assert K.detrend_plan([0, 8192, 8193, 20000]) == ([0, 1, 2, 4], 4, False)
    assert K.detrend_plan([0, 40001]) == ([0, 5], 5, False)


def test_models_of_both_paths_agree():
    x = _data((2, 30000), "d")
    bounds = [0, 10, 9000, 30000]
    chunked = M.detrend_lines(x, bounds, True)
    assert not K.detrend_plan(bounds)[2]
    ref = ss.detrend(x, bp=bounds[1:-1])
    np.testing.assert_allclose(chunked, ref, atol=1e-12 * np.abs(x).max())
    small = x[:, :5000]
    np.testing.assert_allclose(M.detrend_lines(small, [0, 5000], False),
                               ss.detrend(small, type='constant'), atol=1e-13 * 40)


def test_nvrtc_every_variant():
    from gpuscipy_core._kernel._nvrtc import compile_cubin
    header = read_source(K._CUH)
    specs = [v for v in K.variants() if v[0] in FAMILIES]
    assert len(specs) == 24

    def unit(prec):
        parts = [header]
        for fam, spec in specs:
            if spec[0].lower() == prec:
                src, name = K.kernel_source(fam, *spec)
                assert src.startswith(header) and name in src
                parts.append(src[len(header):])
        return compile_cubin("".join(parts), f"detrend_{prec}")

    workers = max(1, min(2, os.cpu_count() or 1))
    with ThreadPoolExecutor(workers) as ex:
        assert all(ex.map(unit, "fd"))


@pytest.mark.gpu
def test_gpu_long_single_line_uses_chunks():
    import gpuscipy_core as gp
    x = _data((1 << 20,), "d")
    out = gp.asnumpy(D.detrend(gp.asarray(x), bp=[12345, 700000]))
    ref = ss.detrend(x, bp=[12345, 700000])
    np.testing.assert_allclose(out, ref, atol=1e-11 * np.abs(x).max())
