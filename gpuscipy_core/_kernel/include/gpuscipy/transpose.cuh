// Tiled copy between two layouts whose fastest axes differ (a transpose).
// Axis 0 is contiguous in the source, axis 1 in the destination; a 64x64
// tile goes through shared memory (padded against bank conflicts) so both
// the reads and the writes coalesce; each of the 32x8 threads moves 16
// elements, which keeps enough loads in flight to approach copy bandwidth.
#pragma once

namespace gs {

template <typename T>
__device__ void transpose_copy(const T* __restrict__ src, long long ss0, long long ss1,
                               T* __restrict__ dst, long long ds0, long long ds1,
                               long long n0, long long n1) {
    constexpr int TILE = sizeof(T) > 8 ? 32 : 64;
    __shared__ T tile[TILE][TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long b0 = (long long)blockIdx.x * TILE;
    for (long long b1 = (long long)blockIdx.y * TILE; b1 < n1;
         b1 += (long long)gridDim.y * TILE) {
        #pragma unroll
        for (int j = 0; j < TILE; j += 8) {
            #pragma unroll
            for (int c = 0; c < TILE; c += 32) {
                const long long i0 = b0 + tx + c, i1 = b1 + ty + j;
                if (i0 < n0 && i1 < n1) tile[ty + j][tx + c] = src[i0 * ss0 + i1 * ss1];
            }
        }
        __syncthreads();
        #pragma unroll
        for (int j = 0; j < TILE; j += 8) {
            #pragma unroll
            for (int c = 0; c < TILE; c += 32) {
                const long long i0 = b0 + ty + j, i1 = b1 + tx + c;
                if (i0 < n0 && i1 < n1) dst[i0 * ds0 + i1 * ds1] = tile[tx + c][ty + j];
            }
        }
        __syncthreads();
    }
}

struct alignas(16) bytes16 { unsigned long long a, b; };

}  // namespace gs
