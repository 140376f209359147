from cuda.bindings cimport cydriver
from libc.stdint cimport uint64_t


cdef class Memory:
    cdef readonly size_t ptr
    cdef readonly size_t size
    cdef readonly int device_id
    cdef size_t _stream
    cdef int _kind
    cdef object _owner
    cdef object _stream_ref
    cdef object _pool_ref


cdef class MemoryPool:
    cdef readonly int device_id
    cdef cydriver.CUmemoryPool _pool
    cdef int _debug
    cdef dict _small
    cdef size_t _small_bytes
    cdef void _release_small(self, size_t ptr, size_t size, size_t stream)
    cdef void _flush_small(self)
    cpdef Memory malloc(self, size_t nbytes, size_t stream=*)
    cdef uint64_t _attr(self, cydriver.CUmemPool_attribute a) except? 0


cdef Memory alloc(size_t nbytes, int device_id, size_t stream, object stream_ref=*)
