"""CPU-only tests of the DLPack capsule machinery (gpuscipy_core._dlpack).

Only the compiled module is imported (not the ``gpuscipy_core`` array API),
and everything runs on host memory with device type kDLCPU, so no GPU is
needed. ctypes mirrors of the DLPack structs check the ABI layout of what we
produce and build foreign capsules (bfloat16, lanes, NULL strides, ...).
"""

import ctypes
import gc
import sys
import threading
import weakref

import numpy as np
import pytest

dl = pytest.importorskip("gpuscipy_core._dlpack")

kDLCPU = 1

ALL_DTYPES = [
    np.bool_, np.int8, np.int16, np.int32, np.int64,
    np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128,
]
EXPECTED_CODES = {
    np.bool_: (6, 8), np.int8: (0, 8), np.int16: (0, 16), np.int32: (0, 32),
    np.int64: (0, 64), np.uint8: (1, 8), np.uint16: (1, 16),
    np.uint32: (1, 32), np.uint64: (1, 64), np.float16: (2, 16),
    np.float32: (2, 32), np.float64: (2, 64), np.complex64: (5, 64),
    np.complex128: (5, 128),
}


# --------------------------------------------------------------------------
# ctypes mirrors of the DLPack ABI and of the PyCapsule C API
# --------------------------------------------------------------------------

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64),
                ("dl_tensor", DLTensor)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

# Capsule names must outlive the capsules: module-level bytes.
_LEGACY = b"dltensor"
_VERSIONED = b"dltensor_versioned"
_USED_LEGACY = b"used_dltensor"
_USED_VERSIONED = b"used_dltensor_versioned"


def capsule_name(cap):
    return _api.PyCapsule_GetName(cap).decode()


def managed_struct(cap):
    """The (unconsumed) capsule's managed tensor, as a ctypes struct view."""
    name = capsule_name(cap).encode()
    addr = _api.PyCapsule_GetPointer(cap, name)
    cls = DLManagedTensorVersioned if name == _VERSIONED else DLManagedTensor
    return cls.from_address(addr)


class Owner:
    """Weak-referenceable owner of a NumPy buffer."""

    def __init__(self, arr):
        self.arr = arr


def elem_strides(a):
    return tuple(s // a.itemsize for s in a.strides)


def export(a, versioned, owner=None, read_only=False):
    owner = Owner(a) if owner is None else owner
    cap = dl.make_capsule(owner, a.ctypes.data, a.shape, elem_strides(a),
                          a.dtype, kDLCPU, 0, versioned, read_only)
    return cap, owner


def view(ptr, shape, strides, dtype):
    """A NumPy view of host memory described by a consumed capsule."""
    dtype = np.dtype(dtype)
    if 0 in shape:
        return np.empty(shape, dtype)
    lo = sum(min(0, (n - 1) * s) for n, s in zip(shape, strides)) * dtype.itemsize
    hi = (sum(max(0, (n - 1) * s) for n, s in zip(shape, strides)) + 1) * dtype.itemsize
    buf = (ctypes.c_char * (hi - lo)).from_address(ptr + lo)
    return np.ndarray(shape, dtype, buffer=buf, offset=-lo,
                      strides=tuple(s * dtype.itemsize for s in strides))


class Exporter:
    """Minimal producer for np.from_dlpack: hands out a prepared capsule."""

    def __init__(self, make):
        self.make = make
        self.calls = []

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None,
                   copy=None):
        self.calls.append(max_version)
        versioned = max_version is not None and max_version[0] >= 1
        return self.make(versioned)

    def __dlpack_device__(self):
        return (kDLCPU, 0)


class LegacyExporter:
    """Old-style producer: __dlpack__ knows only ``stream``."""

    def __init__(self, make):
        self.make = make

    def __dlpack__(self, stream=None):
        return self.make(False)

    def __dlpack_device__(self):
        return (kDLCPU, 0)


def sample(dtype, shape=(3, 4)):
    n = int(np.prod(shape))
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return (np.arange(n) % 3 == 0).reshape(shape)
    if dtype.kind == "c":
        return (np.arange(n) + 1j * np.arange(n, 0, -1)).astype(dtype).reshape(shape)
    return np.arange(n).astype(dtype).reshape(shape)


# --------------------------------------------------------------------------
# make_capsule -> consume_capsule round trips
# --------------------------------------------------------------------------

@pytest.mark.parametrize("versioned", [False, True])
def test_roundtrip_fields_and_owner_lifetime(versioned):
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    cap, owner = export(a, versioned)
    ref = weakref.ref(owner)
    del owner
    assert capsule_name(cap) == ("dltensor_versioned" if versioned else "dltensor")

    res = dl.consume_capsule(cap)
    assert len(res) == 8
    ptr, shape, strides, dtype, dev_type, dev_id, keeper, read_only = res
    assert ptr == a.ctypes.data
    assert shape == (2, 3, 4)
    assert strides == (12, 4, 1)
    assert dtype == np.float64 and isinstance(dtype, np.dtype)
    assert (dev_type, dev_id) == (kDLCPU, 0)
    assert read_only is False
    assert isinstance(keeper, dl.DLPackKeeper)
    assert keeper.versioned is versioned and not keeper.released
    assert capsule_name(cap) == ("used_dltensor_versioned" if versioned
                                 else "used_dltensor")
    np.testing.assert_array_equal(view(ptr, shape, strides, dtype), a)

    # The capsule is consumed: dropping it must not release the owner.
    del cap
    gc.collect()
    assert ref() is not None
    # Dropping the keeper runs the deleter, which releases the owner.
    del keeper, res
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("versioned", [False, True])
def test_owner_refcount_released_exactly_once(versioned):
    a = np.arange(10, dtype=np.int32)
    owner = Owner(a)
    base = sys.getrefcount(owner)
    cap = export(a, versioned, owner=owner)[0]
    assert sys.getrefcount(owner) == base + 1
    keeper = dl.consume_capsule(cap)[6]
    assert sys.getrefcount(owner) == base + 1
    del cap
    assert sys.getrefcount(owner) == base + 1
    del keeper
    assert sys.getrefcount(owner) == base
    gc.collect()
    assert sys.getrefcount(owner) == base


@pytest.mark.parametrize("versioned", [False, True])
def test_unconsumed_capsule_releases_owner(versioned):
    a = np.arange(5.0)
    owner = Owner(a)
    base = sys.getrefcount(owner)
    cap = export(a, versioned, owner=owner)[0]
    assert sys.getrefcount(owner) == base + 1
    del cap
    assert sys.getrefcount(owner) == base


@pytest.mark.parametrize("versioned", [False, True])
def test_abi_layout_of_exported_struct(versioned):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    cap, owner = export(a, versioned)
    m = managed_struct(cap)
    if versioned:
        assert (m.version.major, m.version.minor) == dl.DLPACK_VERSION == (1, 0)
        assert m.flags == 0
    t = m.dl_tensor
    assert t.data == a.ctypes.data
    assert (t.device.device_type, t.device.device_id) == (kDLCPU, 0)
    assert t.ndim == 2
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (2, 32, 1)
    assert [t.shape[i] for i in range(2)] == [3, 2]
    assert [t.strides[i] for i in range(2)] == [4, 2]
    assert t.byte_offset == 0
    assert m.manager_ctx == id(owner)
    assert m.deleter


def test_versioned_flags_read_only_and_copied():
    a = np.arange(4.0)
    cap = dl.make_capsule(a, a.ctypes.data, (4,), (1,), a.dtype, kDLCPU, 0,
                          True, read_only=True, copied=True)
    assert managed_struct(cap).flags == (dl.DLPACK_FLAG_BITMASK_READ_ONLY
                                         | dl.DLPACK_FLAG_BITMASK_IS_COPIED)
    assert dl.consume_capsule(cap)[7] is True


def test_read_only_legacy_is_refused():
    a = np.arange(4.0)
    base = sys.getrefcount(a)
    with pytest.raises(BufferError, match="read-only"):
        dl.make_capsule(a, a.ctypes.data, (4,), (1,), a.dtype, kDLCPU, 0,
                        False, read_only=True)
    assert sys.getrefcount(a) == base


@pytest.mark.parametrize("versioned", [False, True])
def test_negative_strides_roundtrip(versioned):
    base = np.arange(20, dtype=np.int64).reshape(4, 5)
    a = base[::-1, ::-2]
    assert elem_strides(a) == (-5, -2)
    cap, owner = export(a, versioned)
    ptr, shape, strides, dtype, *_ , keeper, _ro = dl.consume_capsule(cap)
    assert ptr == a.ctypes.data
    assert shape == (4, 3) and strides == (-5, -2)
    np.testing.assert_array_equal(view(ptr, shape, strides, dtype), a)
    del keeper


@pytest.mark.parametrize("versioned", [False, True])
def test_zero_dim_roundtrip(versioned):
    a = np.array(3.5)
    cap, owner = export(a, versioned)
    ptr, shape, strides, dtype, _, _, keeper, _ = dl.consume_capsule(cap)
    assert (shape, strides) == ((), ())
    assert ptr == a.ctypes.data
    assert view(ptr, shape, strides, dtype)[()] == 3.5
    del keeper


@pytest.mark.parametrize("versioned", [False, True])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0, 5)])
def test_empty_roundtrip(versioned, shape):
    a = np.empty(shape, dtype=np.complex64)
    cap, owner = export(a, versioned)
    _, shp, strides, dtype, _, _, keeper, _ = dl.consume_capsule(cap)
    assert shp == shape and strides == elem_strides(a)
    assert dtype == np.complex64
    del keeper


@pytest.mark.parametrize("versioned", [False, True])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_every_dtype_roundtrip(versioned, dtype):
    a = sample(dtype)
    cap, owner = export(a, versioned)
    t = managed_struct(cap).dl_tensor
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (*EXPECTED_CODES[dtype], 1)
    ptr, shape, strides, got, *_ = res = dl.consume_capsule(cap)
    assert got == np.dtype(dtype)
    np.testing.assert_array_equal(view(ptr, shape, strides, got), a)
    del res


@pytest.mark.parametrize("dtype", ["bool", "int64", np.float32, "c16"])
def test_dtype_argument_forms(dtype):
    a = np.zeros(2, dtype=dtype)
    cap = dl.make_capsule(None, a.ctypes.data, (2,), (1,), dtype, kDLCPU, 0, True)
    assert dl.consume_capsule(cap)[3] == np.dtype(dtype)


@pytest.mark.parametrize("dtype", [
    "M8[s]", "m8[ns]", "U3", "S4", object, ">f4", ">i8", np.longdouble,
    np.clongdouble, [("x", "f4"), ("y", "i4")], ("f4", (2,)), "V8",
])
def test_make_capsule_rejects_unsupported_dtype(dtype):
    dt = np.dtype(dtype)
    if dt == np.float64 or dt == np.complex128:
        pytest.skip("long double is plain double on this platform")
    owner = Owner(None)
    base = sys.getrefcount(owner)
    with pytest.raises(TypeError, match="dtype") as info:
        dl.make_capsule(owner, 0, (1,), (1,), dt, kDLCPU, 0, True)
    assert str(dt) in str(info.value)
    assert sys.getrefcount(owner) == base


@pytest.mark.parametrize("kwargs, exc", [
    (dict(shape=(2, 3), strides=(1,)), ValueError),
    (dict(shape=(-1,), strides=(1,)), ValueError),
    (dict(device_type=7), ValueError),
    (dict(device_id=-1), ValueError),
    (dict(shape=(1.5,), strides=(1,)), TypeError),
    (dict(shape=(2,), strides=(1.0,)), TypeError),
    (dict(shape=(2**63,), strides=(1,)), OverflowError),
])
def test_make_capsule_argument_errors(kwargs, exc):
    owner = Owner(None)
    base = sys.getrefcount(owner)
    args = dict(shape=(4,), strides=(1,), device_type=kDLCPU, device_id=0)
    args.update(kwargs)
    with pytest.raises(exc):
        dl.make_capsule(owner, 0, args["shape"], args["strides"], np.float64,
                        args["device_type"], args["device_id"], True)
    assert sys.getrefcount(owner) == base


@pytest.mark.parametrize("device_type", [2, 3, 13])
def test_cuda_device_types_are_recorded(device_type):
    # Nothing dereferences the pointer: only the metadata travels.
    cap = dl.make_capsule(None, 0x1000, (8,), (1,), np.float32, device_type, 3, True)
    t = managed_struct(cap).dl_tensor
    assert (t.device.device_type, t.device.device_id) == (device_type, 3)
    res = dl.consume_capsule(cap)
    assert res[0] == 0x1000 and res[4:6] == (device_type, 3)


@pytest.mark.parametrize("versioned", [False, True])
def test_double_consume_raises_buffer_error(versioned):
    a = np.arange(3)
    cap, owner = export(a, versioned)
    keeper = dl.consume_capsule(cap)[6]
    with pytest.raises(BufferError, match="already consumed"):
        dl.consume_capsule(cap)
    del keeper


def test_consume_rejects_non_capsules():
    with pytest.raises(TypeError, match="PyCapsule"):
        dl.consume_capsule(np.arange(3))
    other = _api.PyCapsule_New(ctypes.addressof(ctypes.c_int(1)), b"not_dlpack", None)
    with pytest.raises(TypeError, match="not_dlpack"):
        dl.consume_capsule(other)


# --------------------------------------------------------------------------
# The deleter may run on a thread that does not hold the GIL
# --------------------------------------------------------------------------

@pytest.mark.parametrize("versioned", [False, True])
@pytest.mark.parametrize("in_thread", [False, True])
def test_deleter_without_gil(versioned, in_thread):
    a = np.arange(6.0)
    owner = Owner(a)
    base = sys.getrefcount(owner)
    cap = export(a, versioned, owner=owner)[0]
    name = _VERSIONED if versioned else _LEGACY
    addr = _api.PyCapsule_GetPointer(cap, name)
    # Act as a C consumer: take ownership, then call the deleter through a
    # ctypes function pointer (ctypes releases the GIL around the call).
    assert _api.PyCapsule_SetName(cap, _USED_VERSIONED if versioned else _USED_LEGACY) == 0
    del cap
    assert sys.getrefcount(owner) == base + 1
    deleter = DELETER(managed_struct_at(addr, versioned).deleter)
    if in_thread:
        th = threading.Thread(target=deleter, args=(addr,))
        th.start()
        th.join()
    else:
        deleter(addr)
    assert sys.getrefcount(owner) == base


def managed_struct_at(addr, versioned):
    cls = DLManagedTensorVersioned if versioned else DLManagedTensor
    return cls.from_address(addr)


# --------------------------------------------------------------------------
# Foreign (hand-built) capsules
# --------------------------------------------------------------------------

class ForeignTensor:
    """A DLPack tensor built with ctypes, with a counting deleter."""

    def __init__(self, arr, versioned, code=None, bits=None, lanes=1,
                 null_strides=False, byte_offset=0, major=1, flags=0,
                 with_deleter=True):
        self.arr = arr
        self.calls = []
        self.shape = (ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape)
        self.strides = (ctypes.c_int64 * max(arr.ndim, 1))(*elem_strides(arr))
        self.cb = DELETER(lambda p: self.calls.append(p))
        if versioned:
            self.m = DLManagedTensorVersioned()
            self.m.version.major, self.m.version.minor = major, 0
            self.m.flags = flags
        else:
            self.m = DLManagedTensor()
        t = self.m.dl_tensor
        t.data = arr.ctypes.data - byte_offset
        t.byte_offset = byte_offset
        t.device.device_type, t.device.device_id = kDLCPU, 0
        t.ndim = arr.ndim
        dc, db = EXPECTED_CODES[arr.dtype.type]
        t.dtype.code = dc if code is None else code
        t.dtype.bits = db if bits is None else bits
        t.dtype.lanes = lanes
        t.shape = self.shape
        if not null_strides:
            t.strides = self.strides
        if with_deleter:
            self.m.deleter = ctypes.cast(self.cb, ctypes.c_void_p).value
        self.capsule = _api.PyCapsule_New(ctypes.addressof(self.m),
                                          _VERSIONED if versioned else _LEGACY, None)


@pytest.mark.parametrize("versioned", [False, True])
def test_foreign_null_strides_and_byte_offset(versioned):
    a = np.arange(60, dtype=np.int16).reshape(3, 4, 5)
    f = ForeignTensor(a, versioned, null_strides=True, byte_offset=48)
    ptr, shape, strides, dtype, dt, did, keeper, ro = dl.consume_capsule(f.capsule)
    assert ptr == a.ctypes.data  # data + byte_offset
    assert shape == (3, 4, 5) and strides == (20, 5, 1)
    assert dtype == np.int16 and (dt, did) == (kDLCPU, 0) and ro is False
    np.testing.assert_array_equal(view(ptr, shape, strides, dtype), a)
    assert f.calls == []
    del keeper
    gc.collect()
    assert f.calls == [ctypes.addressof(f.m)]  # called exactly once
    del f.capsule
    gc.collect()
    assert len(f.calls) == 1


def test_foreign_null_strides_zero_dim_and_empty():
    f0 = ForeignTensor(np.array(1.0), True, null_strides=True)
    assert dl.consume_capsule(f0.capsule)[1:3] == ((), ())
    fe = ForeignTensor(np.empty((2, 0, 3)), False, null_strides=True)
    res = dl.consume_capsule(fe.capsule)
    assert res[1] == (2, 0, 3) and len(res[2]) == 3


def test_foreign_read_only_flag():
    f = ForeignTensor(np.arange(3.0), True, flags=1)
    assert dl.consume_capsule(f.capsule)[7] is True


def test_foreign_null_deleter_is_tolerated():
    f = ForeignTensor(np.arange(3.0), True, with_deleter=False)
    keeper = dl.consume_capsule(f.capsule)[6]
    del keeper  # must not crash


@pytest.mark.parametrize("versioned", [False, True])
@pytest.mark.parametrize("kwargs, match", [
    (dict(code=4, bits=16), "bfloat"),        # bfloat16
    (dict(code=2, bits=128), "bits 128"),     # float128
    (dict(code=3, bits=64), "opaque"),
    (dict(code=6, bits=1), "bool"),
    (dict(code=10, bits=8), "float8"),
    (dict(lanes=2), "lanes=2"),
])
def test_foreign_unsupported_tensors(versioned, kwargs, match):
    a = np.arange(4, dtype=np.float64)
    f = ForeignTensor(a, versioned, **kwargs)
    name = capsule_name(f.capsule)
    with pytest.raises(BufferError, match=match):
        dl.consume_capsule(f.capsule)
    # Not consumed: the name and ownership stay with the capsule.
    assert capsule_name(f.capsule) == name
    assert f.calls == []


def test_foreign_unsupported_major_version():
    f = ForeignTensor(np.arange(4.0), True, major=2)
    with pytest.raises(BufferError, match="version 2"):
        dl.consume_capsule(f.capsule)
    assert capsule_name(f.capsule) == "dltensor_versioned"


# --------------------------------------------------------------------------
# Interoperability with NumPy's DLPack support
# --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_numpy_from_dlpack_consumes_our_capsule(dtype):
    a = sample(dtype)
    owner = Owner(a)
    ref = weakref.ref(owner)
    ex = Exporter(lambda versioned: export(a, versioned, owner=owner)[0])
    b = np.from_dlpack(ex)
    del owner
    assert ex.calls and ex.calls[0] is not None and tuple(ex.calls[0]) >= (1, 0)
    assert b.dtype == a.dtype and b.shape == a.shape
    assert b.ctypes.data == a.ctypes.data  # zero copy
    np.testing.assert_array_equal(b, a)
    del ex
    gc.collect()
    assert ref() is not None  # the NumPy result keeps the owner alive
    del b
    gc.collect()
    assert ref() is None


def test_numpy_from_dlpack_legacy_producer():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    owner = Owner(a)
    ref = weakref.ref(owner)
    b = np.from_dlpack(LegacyExporter(lambda v: export(a, v, owner=owner)[0]))
    del owner
    np.testing.assert_array_equal(b, a)
    assert ref() is not None
    del b
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("make", [
    lambda: np.arange(20.0).reshape(4, 5)[::-1, ::-2],  # negative strides
    lambda: np.array(7, dtype=np.int16),                # 0-d
    lambda: np.empty((0, 4), dtype=np.uint8),           # empty
    lambda: np.empty((3, 0)),                           # empty
])
def test_numpy_from_dlpack_shapes(make):
    a = make()
    b = np.from_dlpack(Exporter(lambda v: export(a, v)[0]))
    assert b.shape == a.shape and b.dtype == a.dtype
    np.testing.assert_array_equal(b, a)
    if a.size:
        assert b.ctypes.data == a.ctypes.data


def test_numpy_from_dlpack_sees_read_only():
    a = np.arange(5.0)
    b = np.from_dlpack(Exporter(
        lambda v: dl.make_capsule(a, a.ctypes.data, (5,), (1,), a.dtype,
                                  kDLCPU, 0, True, read_only=True)))
    assert not b.flags.writeable
    np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_consume_numpy_capsules(max_version):
    a = np.arange(10)
    base = sys.getrefcount(a)
    cap = a.__dlpack__() if max_version is None else a.__dlpack__(max_version=max_version)
    assert capsule_name(cap) == ("dltensor" if max_version is None else "dltensor_versioned")
    ptr, shape, strides, dtype, dt, did, keeper, ro = dl.consume_capsule(cap)
    assert ptr == a.ctypes.data
    assert shape == (10,) and strides == (1,)
    assert dtype == a.dtype and (dt, did) == (kDLCPU, 0) and ro is False
    assert keeper.versioned is (max_version is not None)
    np.testing.assert_array_equal(view(ptr, shape, strides, dtype), a)
    del cap
    gc.collect()
    assert sys.getrefcount(a) > base  # NumPy's tensor still holds the array
    del keeper
    gc.collect()
    assert sys.getrefcount(a) == base  # NumPy's deleter ran


@pytest.mark.parametrize("max_version", [None, (1, 0)])
@pytest.mark.parametrize("make", [
    lambda: np.arange(20.0).reshape(4, 5)[::-1, ::-2],
    lambda: np.arange(24, dtype=np.int32).reshape(2, 3, 4).transpose(2, 0, 1),
    lambda: np.array(2.5),
    lambda: np.empty((0, 3)),
])
def test_consume_numpy_capsules_layouts(max_version, make):
    a = make()
    kw = {} if max_version is None else {"max_version": max_version}
    ptr, shape, strides, dtype, *_ = res = dl.consume_capsule(a.__dlpack__(**kw))
    assert shape == a.shape and dtype == a.dtype
    if a.size:
        assert ptr == a.ctypes.data
        assert strides == elem_strides(a)
    np.testing.assert_array_equal(view(ptr, shape, strides, dtype), a)
    del res


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_consume_numpy_capsules_every_dtype(dtype):
    a = sample(dtype, (2, 5))
    for kw in ({}, {"max_version": (1, 0)}):
        ptr, shape, strides, got, *_ = res = dl.consume_capsule(a.__dlpack__(**kw))
        assert got == np.dtype(dtype)
        np.testing.assert_array_equal(view(ptr, shape, strides, got), a)
        del res


def test_consume_numpy_read_only_versioned():
    a = np.arange(4.0)
    a.setflags(write=False)
    res = dl.consume_capsule(a.__dlpack__(max_version=(1, 0)))
    assert res[7] is True


def test_keeper_cannot_be_built_from_python():
    with pytest.raises(TypeError):
        dl.DLPackKeeper()
