from gpuscipy_core._cuda._memory cimport Memory


cdef class ndarray:
    cdef readonly object dtype
    cdef tuple _shape
    cdef tuple _strides
    cdef readonly Py_ssize_t size
    cdef readonly Py_ssize_t itemsize
    cdef size_t _ptr
    cdef Memory _mem
    cdef object _base
    cdef readonly int _device_id
    cdef int _c_contig
    cdef int _f_contig
    cdef object __weakref__

    cdef _set_layout(self, tuple shape, tuple strides)


cdef ndarray _new_array(tuple shape, object dtype, int order_f=*, ndarray like=*)
cdef size_t current_stream_ptr() except? 0
cdef int current_device_id() except -1
cdef ndarray _make_view(ndarray src, tuple shape, tuple strides, size_t ptr)
cdef tuple _c_strides(tuple shape, Py_ssize_t itemsize)
