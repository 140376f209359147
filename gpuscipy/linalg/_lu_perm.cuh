// The row permutation of an LU factor (gpuscipy.linalg._lu_perm).
#pragma once

// The permutation of LAPACK's 1-based swap sequence ipiv (row i swapped with
// ipiv[i] - 1, in order): (P b)[i] = b[perm[i]]. One block; the swaps are
// applied by one thread to an index array in shared memory (n <= 8192).
extern "C" __global__ void __launch_bounds__(256)
gs_lu_perm(const long long* __restrict__ ipiv, int n, int* __restrict__ perm) {
  constexpr int CHUNK = 2048;
  __shared__ int p[8192];
  __shared__ int ch[CHUNK];
  for (int i = threadIdx.x; i < n; i += blockDim.x) p[i] = i;
  for (int base = 0; base < n; base += CHUNK) {
    const int m = min(CHUNK, n - base);
    __syncthreads();
    for (int e = threadIdx.x; e < m; e += blockDim.x) ch[e] = (int)(ipiv[base + e] - 1);
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int e = 0; e < m; ++e) {
        const int i = base + e, j = ch[e];
        if ((unsigned)j < (unsigned)n && j != i) {   // a bad pivot is ignored, not written
          const int tmp = p[i];
          p[i] = p[j];
          p[j] = tmp;
        }
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) perm[i] = p[i];
}
