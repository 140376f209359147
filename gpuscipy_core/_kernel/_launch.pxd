cdef int launch_packed(size_t func, unsigned int gx, unsigned int gy, unsigned int gz,
                       unsigned int bx, unsigned int by, unsigned int bz,
                       unsigned int shmem, size_t stream, void* params) except -1
