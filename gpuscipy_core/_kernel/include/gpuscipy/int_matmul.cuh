// Integer and bool matrix products (gpuscipy_core._routines._linalg).
//
// C[z] = A[z] @ B[z] for every batch index z < batch, element strides per
// operand (batch, row, column; any sign), TILE x TILE tiles staged in shared
// memory. Elements are widened to unsigned long long (sign-extended),
// multiplied and summed modulo 2**64, and truncated to T on store: the low
// bits are exactly NumPy's wrapped result; for bool the conversion is
// acc != 0, an OR of ANDs, as NumPy.
#pragma once

namespace gs {

template <class T, int TILE>
__device__ __forceinline__ void int_matmul(
    const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C,
    long long m, long long n, long long k, long long batch,
    long long sab, long long sar, long long sac,
    long long sbb, long long sbr, long long sbc,
    long long scb, long long scr, long long scc) {
  typedef unsigned long long Acc;
  __shared__ Acc As[TILE][TILE + 1];
  __shared__ Acc Bs[TILE][TILE + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  // Every loop bound below depends on the block only, so the whole block
  // reaches each __syncthreads().
  for (long long z = blockIdx.z; z < batch; z += gridDim.z) {
    const T* a = A + z * sab;
    const T* b = B + z * sbb;
    T* c = C + z * scb;
    for (long long r0 = (long long)blockIdx.y * TILE; r0 < m;
         r0 += (long long)gridDim.y * TILE) {
      for (long long c0 = (long long)blockIdx.x * TILE; c0 < n;
           c0 += (long long)gridDim.x * TILE) {
        const long long row = r0 + ty, col = c0 + tx;
        Acc acc = 0;
        for (long long k0 = 0; k0 < k; k0 += TILE) {
          const long long ka = k0 + tx, kb = k0 + ty;
          As[ty][tx] = (row < m && ka < k) ? (Acc)(long long)a[row * sar + ka * sac] : (Acc)0;
          Bs[ty][tx] = (kb < k && col < n) ? (Acc)(long long)b[kb * sbr + col * sbc] : (Acc)0;
          __syncthreads();
#pragma unroll
          for (int kk = 0; kk < TILE; ++kk) acc += As[ty][kk] * Bs[kk][tx];
          __syncthreads();
        }
        if (row < m && col < n) c[row * scr + col * scc] = (T)acc;
      }
    }
  }
}

}  // namespace gs
