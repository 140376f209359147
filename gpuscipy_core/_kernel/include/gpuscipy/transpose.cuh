// Tiled copy between two layouts whose fastest axes differ (a transpose).
// Axis 0 is contiguous in the source, axis 1 in the destination; a 32x32
// tile goes through shared memory so both the reads and the writes coalesce.
#pragma once

namespace gs {

template <typename T>
__device__ void transpose_copy(const T* __restrict__ src, long long ss0, long long ss1,
                               T* __restrict__ dst, long long ds0, long long ds1,
                               long long n0, long long n1) {
    __shared__ T tile[32][33];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long b0 = (long long)blockIdx.x * 32;
    for (long long b1 = (long long)blockIdx.y * 32; b1 < n1; b1 += (long long)gridDim.y * 32) {
        #pragma unroll
        for (int j = 0; j < 32; j += 8) {
            const long long i0 = b0 + tx, i1 = b1 + ty + j;
            if (i0 < n0 && i1 < n1) tile[ty + j][tx] = src[i0 * ss0 + i1 * ss1];
        }
        __syncthreads();
        #pragma unroll
        for (int j = 0; j < 32; j += 8) {
            const long long i0 = b0 + ty + j, i1 = b1 + tx;
            if (i0 < n0 && i1 < n1) dst[i0 * ds0 + i1 * ds1] = tile[tx][ty + j];
        }
        __syncthreads();
    }
}

struct alignas(16) bytes16 { unsigned long long a, b; };

}  // namespace gs
