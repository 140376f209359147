# cython: language_level=3
"""Device memory: CUDA's stream-ordered pool, with a debug bypass.

Every device allocation in gpuscipy goes through :func:`alloc` (one way to
allocate). Blocks come from the device's default memory pool with
``cuMemAllocFromPoolAsync`` on the current stream and go back with
``cuMemFreeAsync``; the pool's release threshold is raised so freed memory
is kept for reuse instead of being returned to the driver at each sync.

Set ``GPUSCIPY_ALLOCATOR=cuda_malloc`` to bypass the pool: every array then
gets its own ``cuMemAlloc`` of the exact size, so ``compute-sanitizer``
sees every out-of-bounds access.
"""


from cuda.bindings cimport cydriver
from libc.stdint cimport uint64_t

from ._device import ensure_context
from ._errors import CUDAError
from .. import config

__all__ = ["Memory", "MemoryPool", "get_default_memory_pool", "alloc_pinned_memory",
           "PinnedMemory", "UnownedMemory"]

cdef int _DEBUG = config.allocator() == "cuda_malloc"

cdef enum:
    KIND_POOL = 0
    KIND_MALLOC = 1
    KIND_EXTERNAL = 2
    # Blocks up to SMALL_MAX bytes are kept, per (stream, size class), in a
    # small cache in front of the driver's pool: a freed block is reused by
    # the next allocation of its class on the same stream (stream order makes
    # that safe, as with cuMemFreeAsync), saving two driver calls per
    # temporary. Only blocks of the legacy default stream (handle 0, which
    # never dies) are cached. The cache holds at most SMALL_CACHE_BYTES.
    SMALL_MAX = 1 << 20
    SMALL_CACHE_BYTES = 64 << 20


cdef inline size_t _small_class(size_t n):
    return (n + 511) & ~(<size_t>511)


cdef inline _raise(str call, cydriver.CUresult err):
    raise CUDAError(call, <int>err)


cdef class Memory:
    """An owned block of device memory (freed when the last view goes).

    Attributes
    ----------
    ptr : int
        Device address.
    size : int
        Bytes.
    device_id : int
        The device the block lives on.
    """

    def __dealloc__(self):
        if self.ptr == 0:
            return
        if self._kind == KIND_POOL:
            if self.size <= SMALL_MAX and self._pool_ref is not None:
                (<MemoryPool>self._pool_ref)._release_small(self.ptr, self.size,
                                                            self._stream)
            else:
                cydriver.cuMemFreeAsync(<cydriver.CUdeviceptr>self.ptr,
                                        <cydriver.CUstream>self._stream)
        elif self._kind == KIND_MALLOC:
            cydriver.cuMemFree(<cydriver.CUdeviceptr>self.ptr)
        self.ptr = 0

    def __repr__(self):
        return f"<Memory {self.size} bytes at {self.ptr:#x} on device {self.device_id}>"


def UnownedMemory(size_t ptr, size_t size, object owner, int device_id):
    """Wrap memory owned by another object (interop); keeps ``owner`` alive."""
    cdef Memory m = Memory.__new__(Memory)
    m.ptr = ptr
    m.size = size
    m.device_id = device_id
    m._kind = KIND_EXTERNAL
    m._owner = owner
    return m


cdef list _pools = []


cdef class MemoryPool:
    """The stream-ordered memory pool of one device.

    Parameters
    ----------
    device_id : int
        Device ordinal.
    """

    def __init__(self, int device_id):
        cdef cydriver.CUresult err
        cdef cydriver.CUdevice dev
        cdef uint64_t threshold = <uint64_t>-1
        ensure_context(device_id)
        self.device_id = device_id
        self._debug = _DEBUG
        self._small = {}
        self._small_bytes = 0
        err = cydriver.cuDeviceGet(&dev, device_id)
        if err != cydriver.CUDA_SUCCESS:
            _raise("cuDeviceGet", err)
        err = cydriver.cuDeviceGetDefaultMemPool(&self._pool, dev)
        if err != cydriver.CUDA_SUCCESS:
            _raise("cuDeviceGetDefaultMemPool", err)
        err = cydriver.cuMemPoolSetAttribute(
            self._pool, cydriver.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold)
        if err != cydriver.CUDA_SUCCESS:
            _raise("cuMemPoolSetAttribute", err)

    cpdef Memory malloc(self, size_t nbytes, size_t stream=0):
        """Allocate ``nbytes`` ordered on ``stream`` (a raw handle)."""
        cdef Memory m = Memory.__new__(Memory)
        cdef cydriver.CUdeviceptr p = 0
        cdef cydriver.CUresult err
        m.device_id = self.device_id
        m.size = nbytes
        m._stream = stream
        if nbytes == 0:
            return m
        if nbytes <= SMALL_MAX and stream == 0 and not self._debug:
            m._pool_ref = self
            lst = self._small.get((stream, _small_class(nbytes)))
            if lst:
                m.ptr = lst.pop()
                m._kind = KIND_POOL
                self._small_bytes -= _small_class(nbytes)
                return m
            nbytes = _small_class(nbytes)
        if self._debug:
            m._kind = KIND_MALLOC
            err = cydriver.cuMemAlloc(&p, nbytes)
        else:
            m._kind = KIND_POOL
            err = cydriver.cuMemAllocFromPoolAsync(&p, nbytes, self._pool,
                                                   <cydriver.CUstream>stream)
        if err == cydriver.CUDA_ERROR_OUT_OF_MEMORY:
            # Pending frees may still be in flight: wait for them, give the
            # cached blocks back to the driver, try once more.
            self._flush_small()
            cydriver.cuCtxSynchronize()
            cydriver.cuMemPoolTrimTo(self._pool, 0)
            if self._debug:
                err = cydriver.cuMemAlloc(&p, nbytes)
            else:
                err = cydriver.cuMemAllocFromPoolAsync(&p, nbytes, self._pool,
                                                       <cydriver.CUstream>stream)
            if err == cydriver.CUDA_ERROR_OUT_OF_MEMORY:
                free, total = self._mem_info()
                raise MemoryError(
                    f"out of device memory allocating {nbytes:,} bytes on device "
                    f"{self.device_id} ({free:,} bytes free of {total:,}; the pool "
                    f"holds {self.total_bytes():,} bytes, {self.used_bytes():,} in use)")
        if err != cydriver.CUDA_SUCCESS:
            _raise("cuMemAllocFromPoolAsync" if not self._debug else "cuMemAlloc", err)
        m.ptr = <size_t>p
        return m

    cdef void _release_small(self, size_t ptr, size_t size, size_t stream):
        cdef size_t c = _small_class(size)
        if self._small_bytes + c > SMALL_CACHE_BYTES:
            cydriver.cuMemFreeAsync(<cydriver.CUdeviceptr>ptr, <cydriver.CUstream>stream)
            return
        key = (stream, c)
        lst = self._small.get(key)
        if lst is None:
            lst = self._small[key] = []
        lst.append(ptr)
        self._small_bytes += c

    cdef void _flush_small(self):
        for (stream, c), lst in self._small.items():
            for ptr in lst:
                cydriver.cuMemFreeAsync(<cydriver.CUdeviceptr><size_t>ptr,
                                        <cydriver.CUstream><size_t>stream)
        self._small.clear()
        self._small_bytes = 0

    def _mem_info(self):
        cdef size_t free = 0, total = 0
        cydriver.cuMemGetInfo(&free, &total)
        return free, total

    cdef uint64_t _attr(self, cydriver.CUmemPool_attribute a) except? 0:
        cdef uint64_t v = 0
        cdef cydriver.CUresult err = cydriver.cuMemPoolGetAttribute(self._pool, a, &v)
        if err != cydriver.CUDA_SUCCESS:
            _raise("cuMemPoolGetAttribute", err)
        return v

    def used_bytes(self):
        """Bytes handed out to live arrays."""
        return self._attr(cydriver.CU_MEMPOOL_ATTR_USED_MEM_CURRENT) - self._small_bytes

    def total_bytes(self):
        """Bytes the pool holds from the driver (in use plus cached)."""
        return self._attr(cydriver.CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)

    def free_bytes(self):
        """Cached bytes not in use."""
        return self.total_bytes() - self.used_bytes()

    def free_all_blocks(self):
        """Return all cached, unused blocks to the driver (synchronises)."""
        ensure_context(self.device_id)
        self._flush_small()
        cdef cydriver.CUresult err = cydriver.cuCtxSynchronize()
        if err != cydriver.CUDA_SUCCESS:
            _raise("cuCtxSynchronize", err)
        err = cydriver.cuMemPoolTrimTo(self._pool, 0)
        if err != cydriver.CUDA_SUCCESS:
            _raise("cuMemPoolTrimTo", err)

    def __repr__(self):
        return f"<MemoryPool device={self.device_id}>"


cdef inline MemoryPool _pool_of(int device_id):
    if device_id < len(_pools):
        p = _pools[device_id]
        if p is not None:
            return <MemoryPool>p
    while len(_pools) <= device_id:
        _pools.append(None)
    pool = MemoryPool(device_id)
    _pools[device_id] = pool
    return pool


cdef Memory alloc(size_t nbytes, int device_id, size_t stream, object stream_ref=None):
    """Allocate on ``device_id`` ordered on ``stream``; ``stream_ref`` (the
    Stream object) is kept alive until the block is freed on it."""
    cdef Memory m = _pool_of(device_id).malloc(nbytes, stream)
    m._stream_ref = stream_ref
    return m


def get_default_memory_pool(device_id=None):
    """The memory pool of ``device_id`` (default: the current device)."""
    from ._device import get_device_id
    return _pool_of(get_device_id() if device_id is None else device_id)


cdef class PinnedMemory:
    """Page-locked host memory (``cuMemHostAlloc``), for fast async transfers.

    It exposes ``__array_interface__`` so ``numpy.asarray`` views it.
    """
    cdef readonly size_t ptr
    cdef readonly size_t size

    def __init__(self, size_t nbytes):
        cdef void* p = NULL
        cdef cydriver.CUresult err
        ensure_context()
        self.size = nbytes
        if nbytes:
            err = cydriver.cuMemHostAlloc(&p, nbytes, 0)
            if err == cydriver.CUDA_ERROR_OUT_OF_MEMORY:
                raise MemoryError(f"out of pinned host memory allocating {nbytes:,} bytes")
            if err != cydriver.CUDA_SUCCESS:
                _raise("cuMemHostAlloc", err)
        self.ptr = <size_t>p

    def __dealloc__(self):
        if self.ptr:
            cydriver.cuMemFreeHost(<void*>self.ptr)
            self.ptr = 0

    @property
    def __array_interface__(self):
        return {"shape": (self.size,), "typestr": "|u1",
                "data": (self.ptr, False), "version": 3}


def alloc_pinned_memory(size_t nbytes):
    """Allocate ``nbytes`` of pinned host memory."""
    return PinnedMemory(nbytes)
