"""Zero-copy exchange with CuPy and PyTorch: ``__cuda_array_interface__``
(v3) and DLPack, both directions. Each test skips when its library is not
installed."""

import gc

import numpy as np
import pytest

import gpuscipy_core as gp

from ._parity import ALL_DTYPES, assert_parity, dtype_id, random_array

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def cupy():
    return pytest.importorskip("cupy")


@pytest.fixture(scope="module")
def torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA support here")
    return torch


def _sync():
    gp.cuda.Device().synchronize()


# ------------------------------------------------------------------ CAI (ours)

def test_cuda_array_interface_dict():
    g = gp.arange(12, dtype=gp.float32).reshape(3, 4)
    cai = g.__cuda_array_interface__
    assert cai["version"] == 3
    assert cai["shape"] == (3, 4)
    assert cai["typestr"] == np.dtype(np.float32).str
    assert cai["data"] == (g.ptr, False)
    assert cai["strides"] is None
    assert cai["stream"] == 1  # the legacy default stream
    v = g[:, ::-2]
    cv = v.__cuda_array_interface__
    assert cv["strides"] == v.strides
    assert cv["data"][0] == v.ptr
    assert gp.empty(0).__cuda_array_interface__["data"][0] == 0


def test_cuda_array_interface_reports_the_current_stream():
    s = gp.cuda.Stream()
    g = gp.ones(4)
    with s:
        assert g.__cuda_array_interface__["stream"] == s.ptr


# ------------------------------------------------------------------ CuPy

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_cupy_asarray_of_ours_is_zero_copy(cupy, dtype):
    h = random_array((4, 5), dtype, 1)
    g = gp.asarray(h)
    c = cupy.asarray(g)
    assert c.data.ptr == g.ptr
    assert c.dtype == g.dtype and c.shape == g.shape and c.strides == g.strides
    np.testing.assert_array_equal(cupy.asnumpy(c), h)


def test_writes_are_visible_both_ways_cupy(cupy):
    g = gp.zeros(10)
    c = cupy.asarray(g)
    c[3] = 42.0
    _sync()
    assert float(g[3]) == 42.0
    g[5] = 7.0
    _sync()
    assert float(c[5]) == 7.0
    g += 1  # in-place kernel on our side
    _sync()
    np.testing.assert_array_equal(cupy.asnumpy(c), gp.asnumpy(g))


@pytest.mark.parametrize("view", ["T", "neg", "step", "col"])
def test_cupy_of_our_views(cupy, view):
    h = random_array((6, 8), np.float64, 2)
    g = gp.asarray(h)
    take = {"T": lambda a: a.T, "neg": lambda a: a[::-1, ::-2],
            "step": lambda a: a[1::2], "col": lambda a: a[:, 3]}[view]
    c = cupy.asarray(take(g))
    assert c.data.ptr == take(g).ptr
    np.testing.assert_array_equal(cupy.asnumpy(c), take(h))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_our_asarray_of_cupy_is_zero_copy(cupy, dtype):
    h = random_array((3, 7), dtype, 3)
    c = cupy.asarray(h)
    g = gp.asarray(c)
    assert isinstance(g, gp.ndarray)
    assert g.ptr == c.data.ptr
    assert g.dtype == c.dtype and g.shape == c.shape and g.strides == c.strides
    assert_parity(g, h, kind="exact")


def test_our_asarray_of_cupy_views_and_writes(cupy):
    h = np.arange(48.0).reshape(6, 8)
    c = cupy.asarray(h)
    for take in (lambda a: a.T, lambda a: a[::-1, 1::3], lambda a: a[2]):
        g = gp.asarray(take(c))
        assert g.ptr == take(c).data.ptr
        assert_parity(g, take(h))
    g = gp.asarray(c)
    g[0, 0] = -1.0
    _sync()
    assert float(c[0, 0]) == -1.0
    c[1, 1] = -2.0
    _sync()
    assert float(g[1, 1]) == -2.0


def test_cupy_array_as_ufunc_operand_and_keepalive(cupy):
    c = cupy.arange(5, dtype=cupy.float32)
    g = gp.asarray(c)
    del c
    gc.collect()
    cupy.zeros(1 << 20)  # reuse CuPy's pool
    np.testing.assert_array_equal(gp.asnumpy(g), np.arange(5, dtype=np.float32))
    r = gp.add(gp.ones(5, dtype=gp.float32), cupy.ones(5, dtype=cupy.float32))
    assert isinstance(r, gp.ndarray)
    np.testing.assert_array_equal(gp.asnumpy(r), np.full(5, 2, np.float32))


def test_dlpack_with_cupy(cupy):
    h = random_array((4, 6), np.float32, 4)
    g = gp.asarray(h)
    c = cupy.from_dlpack(g)
    assert c.data.ptr == g.ptr
    np.testing.assert_array_equal(cupy.asnumpy(c), h)
    c2 = cupy.asarray(h).T
    g2 = gp.from_dlpack(c2)
    assert g2.ptr == c2.data.ptr
    assert g2.strides == c2.strides
    assert_parity(g2, h.T)


def test_cupy_stream_interop(cupy):
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        c = cupy.arange(1 << 20, dtype=cupy.float64) * 2
        g = gp.asarray(c)  # honours the CAI stream: our work waits for s
        r = gp.asnumpy(g + 1)
    np.testing.assert_array_equal(r, np.arange(1 << 20, dtype=np.float64) * 2 + 1)


# ------------------------------------------------------------------ PyTorch

_TORCH_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "float16", "float32", "float64", "complex64", "complex128"]


def _torch_dtype(torch, name):
    return getattr(torch, name, None)


@pytest.mark.parametrize("name", _TORCH_DTYPES)
def test_torch_from_dlpack_of_ours(torch, name):
    tdt = _torch_dtype(torch, name)
    if tdt is None:
        pytest.skip(f"this PyTorch has no {name}")
    h = random_array((3, 5), name, 5)
    g = gp.asarray(h)
    try:
        t = torch.from_dlpack(g)
    except (RuntimeError, TypeError, BufferError) as e:
        if name.startswith("uint") and name != "uint8":
            pytest.skip(f"PyTorch does not import {name} through DLPack: {e}")
        raise
    assert t.device.type == "cuda" and t.device.index == 0
    assert t.dtype == tdt
    assert t.data_ptr() == g.ptr
    assert tuple(t.shape) == g.shape
    assert tuple(s * g.itemsize for s in t.stride()) == g.strides
    if name not in ("uint16", "uint32", "uint64"):
        np.testing.assert_array_equal(t.cpu().numpy(), h)


@pytest.mark.parametrize("name", ["bool", "int8", "uint8", "int32", "int64", "float16",
                                  "float32", "float64", "complex64", "complex128"])
def test_our_from_dlpack_of_torch(torch, name):
    h = random_array((4, 3), name, 6)
    t = torch.from_numpy(h).cuda()
    g = gp.from_dlpack(t)
    assert g.ptr == t.data_ptr()
    assert g.dtype == np.dtype(name)
    assert_parity(g, h, kind="exact")
    # non-contiguous tensors keep their strides
    tt = t.t()
    gt = gp.from_dlpack(tt)
    assert gt.ptr == tt.data_ptr()
    assert gt.strides == tuple(s * g.itemsize for s in tt.stride())
    assert_parity(gt, h.T, kind="exact")
    # and through __cuda_array_interface__
    if name != "bool" and hasattr(t, "__cuda_array_interface__"):
        gc_ = gp.asarray(t)
        assert gc_.ptr == t.data_ptr()
        assert_parity(gc_, h, kind="exact")


def test_writes_are_visible_both_ways_torch(torch):
    g = gp.zeros(8, dtype=gp.float32)
    t = torch.from_dlpack(g)
    t[2] = 5.0
    torch.cuda.synchronize()
    assert float(g[2]) == 5.0
    g[4] = 9.0
    _sync()
    assert float(t[4]) == 9.0
    t2 = torch.zeros(6, device="cuda", dtype=torch.float64)
    g2 = gp.from_dlpack(t2)
    g2 += 3
    _sync()
    assert torch.equal(t2.cpu(), torch.full((6,), 3.0, dtype=torch.float64))


def test_torch_lifetimes(torch):
    g = gp.arange(100, dtype=gp.int32)
    t = torch.from_dlpack(g)
    del g
    gc.collect()
    gp.empty(1 << 20)  # reuse our pool
    assert torch.equal(t.cpu(), torch.arange(100, dtype=torch.int32))
    t2 = torch.arange(50, device="cuda", dtype=torch.float32)
    g2 = gp.from_dlpack(t2)
    del t2
    gc.collect()
    torch.zeros(1 << 20, device="cuda")
    np.testing.assert_array_equal(gp.asnumpy(g2), np.arange(50, dtype=np.float32))


def test_from_dlpack_of_a_cpu_tensor_copies_to_the_device(torch):
    t = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    g = gp.from_dlpack(t)
    assert isinstance(g, gp.ndarray)
    assert_parity(g, t.numpy())


def test_dlpack_of_0d_and_empty(torch):
    for h in (np.float32(2.5), np.empty((0, 3), np.float32)):
        g = gp.asarray(h)
        t = torch.from_dlpack(g)
        assert tuple(t.shape) == g.shape
        assert_parity(gp.from_dlpack(t), np.asarray(h))


def test_dlpack_export_to_cpu_is_refused():
    g = gp.arange(3.0)
    assert g.__dlpack_device__() == (2, 0)
    with pytest.raises(BufferError, match="asnumpy"):
        g.__dlpack__(dl_device=(1, 0))
    with pytest.raises(TypeError):
        gp.from_dlpack(object())


def test_from_dlpack_of_ours_and_copy_flag():
    g = gp.arange(4.0)
    same = gp.from_dlpack(g)
    assert same.ptr == g.ptr
    copied = gp.from_dlpack(g, copy=True)
    assert copied.ptr != g.ptr
    g[0] = 10.0
    assert float(same[0]) == 10.0
    assert float(copied[0]) == 0.0
