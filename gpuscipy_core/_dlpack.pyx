# cython: language_level=3
"""DLPack capsules: export (``make_capsule``) and import (``consume_capsule``).

The DLPack C structs are declared here (no ``dlpack.h`` is needed at build
time); their layout follows the DLPack ABI, legacy (``DLManagedTensor``, 0.x)
and versioned (``DLManagedTensorVersioned``, 1.x).

Export
    :func:`make_capsule` wraps a raw pointer plus shape/strides/dtype in a
    ``DLManagedTensor`` (capsule name ``"dltensor"``) or a
    ``DLManagedTensorVersioned`` (``"dltensor_versioned"``). The capsule holds
    a strong reference to ``owner`` until the tensor's deleter runs, either
    from the consumer (after it renamed the capsule to ``"used_..."``) or from
    the capsule's destructor if nobody consumed it. The deleter may be called
    from any thread, with or without the GIL.

Import
    :func:`consume_capsule` takes ownership of a producer's capsule (renames it
    ``"used_..."``) and returns the tensor description plus a
    :class:`DLPackKeeper` whose deallocation calls the producer's deleter
    exactly once. Keep the keeper alive as long as the memory is used.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset

cimport cython

from operator import index as _index

import numpy as _np


# ---------------------------------------------------------------------------
# Python C-API pieces, declared with raw PyObject* so that the capsule
# destructor never touches the reference count of the dying capsule.
# ---------------------------------------------------------------------------

cdef extern from "Python.h":
    ctypedef struct PyObject
    ctypedef enum PyGILState_STATE:
        PyGILState_LOCKED
        PyGILState_UNLOCKED
    PyGILState_STATE PyGILState_Ensure() nogil
    void PyGILState_Release(PyGILState_STATE) nogil
    int Py_IsInitialized() nogil
    void Py_IncRef(PyObject*)
    # Only ever called after PyGILState_Ensure (declared nogil so the
    # deleter, which may run without the GIL, can call it after taking it).
    void Py_DecRef(PyObject*) nogil

    ctypedef void (*PyCapsule_Destructor)(PyObject*)
    object PyCapsule_New(void* pointer, const char* name,
                         PyCapsule_Destructor destructor)
    int PyCapsule_CheckExact(PyObject* o)
    # IsValid never sets an exception; GetPointer is only called after it.
    int PyCapsule_IsValid(PyObject* capsule, const char* name)
    void* PyCapsule_GetPointer(PyObject* capsule, const char* name)
    const char* PyCapsule_GetName(PyObject* capsule)
    int PyCapsule_SetName(PyObject* capsule, const char* name) except -1


# Capsule names must outlive the capsule: static C strings.
cdef extern from *:
    """
    static const char gsc_dlpack_name_legacy[] = "dltensor";
    static const char gsc_dlpack_name_versioned[] = "dltensor_versioned";
    static const char gsc_dlpack_name_used_legacy[] = "used_dltensor";
    static const char gsc_dlpack_name_used_versioned[] = "used_dltensor_versioned";
    """
    const char* NAME_LEGACY "gsc_dlpack_name_legacy"
    const char* NAME_VERSIONED "gsc_dlpack_name_versioned"
    const char* NAME_USED_LEGACY "gsc_dlpack_name_used_legacy"
    const char* NAME_USED_VERSIONED "gsc_dlpack_name_used_versioned"


# ---------------------------------------------------------------------------
# DLPack ABI (dlpack.h). DLDeviceType is a C enum: int-sized, stored as int32.
# ---------------------------------------------------------------------------

cdef struct DLPackVersion:
    uint32_t major
    uint32_t minor

cdef struct DLDevice:
    int32_t device_type
    int32_t device_id

cdef struct DLDataType:
    uint8_t code
    uint8_t bits
    uint16_t lanes

cdef struct DLTensor:
    void* data
    DLDevice device
    int32_t ndim
    DLDataType dtype
    int64_t* shape
    int64_t* strides
    uint64_t byte_offset

cdef struct DLManagedTensor

ctypedef void (*DLManagedTensorDeleter)(DLManagedTensor*) noexcept nogil

cdef struct DLManagedTensor:
    DLTensor dl_tensor
    void* manager_ctx
    DLManagedTensorDeleter deleter

cdef struct DLManagedTensorVersioned

ctypedef void (*DLManagedTensorVersionedDeleter)(DLManagedTensorVersioned*) noexcept nogil

cdef struct DLManagedTensorVersioned:
    DLPackVersion version
    void* manager_ctx
    DLManagedTensorVersionedDeleter deleter
    uint64_t flags
    DLTensor dl_tensor


# Public constants -----------------------------------------------------------

kDLCPU = 1
kDLCUDA = 2
kDLCUDAHost = 3
kDLCUDAManaged = 13

kDLInt = 0
kDLUInt = 1
kDLFloat = 2
kDLOpaqueHandle = 3
kDLBfloat = 4
kDLComplex = 5
kDLBool = 6

DLPACK_FLAG_BITMASK_READ_ONLY = 1
DLPACK_FLAG_BITMASK_IS_COPIED = 2

# Version stamped on the versioned tensors we export; the major version we
# accept on import.
DLPACK_VERSION = (1, 0)
cdef enum:
    _MAJOR = 1
    _MINOR = 0

cdef uint64_t _FLAG_READ_ONLY = 1
cdef uint64_t _FLAG_IS_COPIED = 2

_SUPPORTED_DEVICES = frozenset((1, 2, 3, 13))

_CODE_NAMES = {
    0: "int", 1: "uint", 2: "float", 3: "opaque handle", 4: "bfloat",
    5: "complex", 6: "bool", 7: "float8_e3m4", 8: "float8_e4m3",
    9: "float8_e4m3b11fnuz", 10: "float8_e4m3fn", 11: "float8_e4m3fnuz",
    12: "float8_e5m2", 13: "float8_e5m2fnuz", 14: "float8_e8m0fnu",
    15: "float6_e2m3fn", 16: "float6_e3m2fn", 17: "float4_e2m1fn",
}

# (code, bits) <-> numpy dtype, for the dtypes we exchange.
_DL_TO_NP = {
    (6, 8): _np.dtype(_np.bool_),
    (0, 8): _np.dtype(_np.int8),
    (0, 16): _np.dtype(_np.int16),
    (0, 32): _np.dtype(_np.int32),
    (0, 64): _np.dtype(_np.int64),
    (1, 8): _np.dtype(_np.uint8),
    (1, 16): _np.dtype(_np.uint16),
    (1, 32): _np.dtype(_np.uint32),
    (1, 64): _np.dtype(_np.uint64),
    (2, 16): _np.dtype(_np.float16),
    (2, 32): _np.dtype(_np.float32),
    (2, 64): _np.dtype(_np.float64),
    (5, 64): _np.dtype(_np.complex64),
    (5, 128): _np.dtype(_np.complex128),
}

_KIND_TO_CODE = {"b": 6, "i": 0, "u": 1, "f": 2, "c": 5}


cdef tuple _dl_dtype(object dtype):
    """numpy dtype -> (code, bits); TypeError for anything not exchangeable."""
    try:
        dt = _np.dtype(dtype)
    except Exception as exc:
        raise TypeError(f"DLPack: cannot interpret {dtype!r} as a dtype") from exc
    code = _KIND_TO_CODE.get(dt.kind)
    if code is not None and dt.isnative:
        key = (code, dt.itemsize * 8)
        if key in _DL_TO_NP and _DL_TO_NP[key] == dt:
            return key
    raise TypeError(
        f"DLPack export does not support dtype {dt!s} ({dt.str!r}); supported: "
        "bool, int8-int64, uint8-uint64, float16/32/64, complex64/128 "
        "(native byte order)")


# ---------------------------------------------------------------------------
# Producer side
# ---------------------------------------------------------------------------

cdef void _release_owner(void* owner) noexcept nogil:
    # The deleter can run on any thread, with or without the GIL held.
    cdef PyGILState_STATE state
    if owner == NULL:
        return
    if not Py_IsInitialized():
        # Interpreter already finalized: the reference cannot be dropped.
        return
    state = PyGILState_Ensure()
    Py_DecRef(<PyObject*>owner)
    PyGILState_Release(state)


cdef void _legacy_deleter(DLManagedTensor* self) noexcept nogil:
    cdef void* owner
    if self == NULL:
        return
    owner = self.manager_ctx
    free(self.dl_tensor.shape)   # shape and strides share one block
    free(self)
    _release_owner(owner)


cdef void _versioned_deleter(DLManagedTensorVersioned* self) noexcept nogil:
    cdef void* owner
    if self == NULL:
        return
    owner = self.manager_ctx
    free(self.dl_tensor.shape)
    free(self)
    _release_owner(owner)


cdef void _capsule_destructor(PyObject* capsule) noexcept:
    # Runs when the capsule dies. A consumer that took ownership renamed it
    # to "used_..."; then the consumer calls the deleter, not us.
    cdef DLManagedTensor* m
    cdef DLManagedTensorVersioned* mv
    if PyCapsule_IsValid(capsule, NAME_VERSIONED):
        mv = <DLManagedTensorVersioned*>PyCapsule_GetPointer(capsule, NAME_VERSIONED)
        if mv != NULL and mv.deleter != NULL:
            mv.deleter(mv)
    elif PyCapsule_IsValid(capsule, NAME_LEGACY):
        m = <DLManagedTensor*>PyCapsule_GetPointer(capsule, NAME_LEGACY)
        if m != NULL and m.deleter != NULL:
            m.deleter(m)


def make_capsule(object owner, size_t ptr, tuple shape not None,
                 tuple strides_in_elements not None, dtype, int device_type,
                 int device_id, bint versioned, bint read_only=False,
                 bint copied=False):
    """Export memory at ``ptr`` as a DLPack capsule.

    Returns a PyCapsule named ``"dltensor_versioned"`` (DLPack 1.0
    ``DLManagedTensorVersioned``; ``read_only``/``copied`` set the
    READ_ONLY/IS_COPIED flags) when ``versioned`` is true, else ``"dltensor"``
    (legacy ``DLManagedTensor``). ``strides_in_elements`` are in elements
    (may be negative; ``ptr`` is the address of element ``(0, ..., 0)``).
    The capsule keeps a reference to ``owner`` until the deleter runs.

    Raises TypeError for a dtype DLPack cannot carry, ValueError for bad
    shape/strides/device, BufferError for ``read_only`` on a legacy capsule
    (legacy DLPack cannot signal read-only memory).
    """
    cdef Py_ssize_t ndim = len(shape)
    cdef Py_ssize_t i
    cdef int64_t* buf = NULL
    cdef DLManagedTensor* m = NULL
    cdef DLManagedTensorVersioned* mv = NULL
    cdef DLTensor* t
    cdef uint8_t code
    cdef uint8_t bits

    if len(strides_in_elements) != ndim:
        raise ValueError(
            f"DLPack: shape {shape} and strides {strides_in_elements} differ in length")
    if ndim > 0x7FFFFFFF:
        raise ValueError("DLPack: too many dimensions")
    if device_type not in _SUPPORTED_DEVICES:
        raise ValueError(
            f"DLPack: unsupported device type {device_type} (expected "
            "kDLCPU=1, kDLCUDA=2, kDLCUDAHost=3 or kDLCUDAManaged=13)")
    if device_id < 0:
        raise ValueError(f"DLPack: invalid device id {device_id}")
    if read_only and not versioned:
        raise BufferError(
            "DLPack: a read-only array cannot be exported as a legacy "
            "(unversioned) capsule; the consumer must pass max_version >= (1, 0)")
    code, bits = _dl_dtype(dtype)

    # Shape and strides: one block, shape first. Never malloc(0).
    buf = <int64_t*>malloc(sizeof(int64_t) * 2 * (ndim if ndim > 0 else 1))
    if buf == NULL:
        raise MemoryError()
    try:
        for i in range(ndim):
            # operator.index: reject floats instead of truncating them.
            buf[i] = _index(shape[i])
            if buf[i] < 0:
                raise ValueError(f"DLPack: negative extent in shape {shape}")
            buf[ndim + i] = _index(strides_in_elements[i])
        if versioned:
            mv = <DLManagedTensorVersioned*>malloc(sizeof(DLManagedTensorVersioned))
            if mv == NULL:
                raise MemoryError()
            memset(mv, 0, sizeof(DLManagedTensorVersioned))
            mv.version.major = _MAJOR
            mv.version.minor = _MINOR
            mv.flags = ((_FLAG_READ_ONLY if read_only else 0)
                        | (_FLAG_IS_COPIED if copied else 0))
            t = &mv.dl_tensor
        else:
            m = <DLManagedTensor*>malloc(sizeof(DLManagedTensor))
            if m == NULL:
                raise MemoryError()
            memset(m, 0, sizeof(DLManagedTensor))
            t = &m.dl_tensor
    except BaseException:
        free(buf)
        raise

    t.data = <void*><uintptr_t>ptr
    t.device.device_type = device_type
    t.device.device_id = device_id
    t.ndim = <int32_t>ndim
    t.dtype.code = code
    t.dtype.bits = bits
    t.dtype.lanes = 1
    t.shape = buf
    t.strides = buf + ndim
    t.byte_offset = 0

    # From here on the deleter owns buf, the struct and the owner reference.
    Py_IncRef(<PyObject*>owner)
    if versioned:
        mv.manager_ctx = <void*>owner
        mv.deleter = _versioned_deleter
        try:
            return PyCapsule_New(mv, NAME_VERSIONED, _capsule_destructor)
        except BaseException:
            _versioned_deleter(mv)
            raise
    else:
        m.manager_ctx = <void*>owner
        m.deleter = _legacy_deleter
        try:
            return PyCapsule_New(m, NAME_LEGACY, _capsule_destructor)
        except BaseException:
            _legacy_deleter(m)
            raise


# ---------------------------------------------------------------------------
# Consumer side
# ---------------------------------------------------------------------------

@cython.auto_pickle(False)
@cython.final
cdef class DLPackKeeper:
    """Owns a consumed DLPack tensor; calls the producer's deleter once, on
    deallocation. Keep it alive for as long as the memory is used."""

    cdef void* _managed
    cdef bint _versioned
    cdef object __weakref__

    def __cinit__(self):
        self._managed = NULL
        self._versioned = False

    def __init__(self, *args, **kwargs):
        raise TypeError("DLPackKeeper objects are created by consume_capsule()")

    def __dealloc__(self):
        self._release()

    cdef void _release(self) noexcept:
        cdef void* managed = self._managed
        cdef DLManagedTensor* m
        cdef DLManagedTensorVersioned* mv
        self._managed = NULL
        if managed == NULL:
            return
        if self._versioned:
            mv = <DLManagedTensorVersioned*>managed
            if mv.deleter != NULL:
                mv.deleter(mv)
        else:
            m = <DLManagedTensor*>managed
            if m.deleter != NULL:
                m.deleter(m)

    @property
    def versioned(self):
        """True when the tensor came from a "dltensor_versioned" capsule."""
        return self._versioned

    @property
    def released(self):
        """True once the producer's deleter has been called (or never owned)."""
        return self._managed == NULL

    def __repr__(self):
        state = "released" if self._managed == NULL else "holding"
        kind = "versioned" if self._versioned else "legacy"
        return f"<DLPackKeeper {kind} {state}>"


def consume_capsule(capsule):
    """Take ownership of a DLPack capsule.

    Returns ``(ptr, shape, strides_in_elements, dtype, device_type,
    device_id, keeper, read_only)``: ``ptr`` includes ``byte_offset``;
    ``strides`` are in elements (computed C-contiguous when the producer gave
    NULL); ``dtype`` is a numpy dtype; ``keeper`` (a :class:`DLPackKeeper`)
    calls the producer's deleter when it dies; ``read_only`` is the versioned
    READ_ONLY flag (always False for legacy capsules).

    The capsule is renamed to ``"used_dltensor"`` / ``"used_dltensor_versioned"``
    only on success; on error it is left untouched (its own destructor then
    frees it). Raises TypeError for a non-capsule or a capsule of another
    kind, BufferError for an already consumed capsule, an unsupported DLPack
    major version, dtype (e.g. bfloat16) or lanes != 1, or a malformed tensor.
    """
    cdef PyObject* cap = <PyObject*>capsule
    cdef DLManagedTensor* m = NULL
    cdef DLManagedTensorVersioned* mv = NULL
    cdef DLTensor* t
    cdef bint versioned = False
    cdef bint read_only = False
    cdef const char* name
    cdef int32_t ndim
    cdef int32_t i
    cdef int64_t acc
    cdef DLPackKeeper keeper

    if not PyCapsule_CheckExact(cap):
        raise TypeError(
            f"consume_capsule() expects a DLPack PyCapsule, got {type(capsule).__name__}")

    if PyCapsule_IsValid(cap, NAME_VERSIONED):
        versioned = True
        mv = <DLManagedTensorVersioned*>PyCapsule_GetPointer(cap, NAME_VERSIONED)
        if mv.version.major != _MAJOR:
            raise BufferError(
                f"DLPack: unsupported DLPack version {mv.version.major}."
                f"{mv.version.minor} (this consumer supports {_MAJOR}.x)")
        t = &mv.dl_tensor
        read_only = (mv.flags & _FLAG_READ_ONLY) != 0
    elif PyCapsule_IsValid(cap, NAME_LEGACY):
        m = <DLManagedTensor*>PyCapsule_GetPointer(cap, NAME_LEGACY)
        t = &m.dl_tensor
    else:
        name = PyCapsule_GetName(cap)
        pyname = None if name == NULL else (<bytes>name).decode("utf-8", "replace")
        if pyname in ("used_dltensor", "used_dltensor_versioned"):
            raise BufferError(
                f"DLPack capsule already consumed (named {pyname!r}); a "
                "capsule can be consumed only once")
        raise TypeError(
            f"not a DLPack capsule: capsule name {pyname!r} (expected "
            "'dltensor' or 'dltensor_versioned')")

    ndim = t.ndim
    if ndim < 0:
        raise BufferError(f"DLPack: invalid ndim {ndim}")
    if t.dtype.lanes != 1:
        raise BufferError(
            f"DLPack: vector dtypes are not supported (lanes={t.dtype.lanes}, "
            f"code={t.dtype.code}, bits={t.dtype.bits})")
    np_dtype = _DL_TO_NP.get((t.dtype.code, t.dtype.bits))
    if np_dtype is None:
        raise BufferError(
            f"DLPack: unsupported dtype (type code {t.dtype.code} "
            f"[{_CODE_NAMES.get(t.dtype.code, 'unknown')}], bits {t.dtype.bits})")
    if ndim > 0 and t.shape == NULL:
        raise BufferError("DLPack: tensor has ndim > 0 but a NULL shape")

    shape_l = []
    for i in range(ndim):
        if t.shape[i] < 0:
            raise BufferError("DLPack: negative extent in shape")
        shape_l.append(t.shape[i])
    if t.strides != NULL:
        strides = tuple([t.strides[i] for i in range(ndim)])
    else:
        # NULL strides: compact row-major.
        strides_l = [0] * ndim
        acc = 1
        for i in range(ndim - 1, -1, -1):
            strides_l[i] = acc
            acc *= t.shape[i] if t.shape[i] > 0 else 1
        strides = tuple(strides_l)
    shape = tuple(shape_l)
    ptr = <uintptr_t>t.data + <uintptr_t>t.byte_offset
    device_type = t.device.device_type
    device_id = t.device.device_id

    keeper = DLPackKeeper.__new__(DLPackKeeper)
    # Take ownership: after the rename the capsule's destructor is inert and
    # the keeper is the only one to call the deleter.
    if versioned:
        PyCapsule_SetName(cap, NAME_USED_VERSIONED)
        keeper._versioned = True
        keeper._managed = <void*>mv
    else:
        PyCapsule_SetName(cap, NAME_USED_LEGACY)
        keeper._versioned = False
        keeper._managed = <void*>m
    return (ptr, shape, strides, np_dtype, device_type, device_id, keeper,
            bool(read_only))
