// Kernels of gpuscipy.sparse's compressed formats (_kernels.py).
//
// segment_sum: out[s] = sum of v[ptr[s] .. ptr[s+1]) in stored order, one
// thread per segment (a row of CSR, a column of CSC, a run of duplicates),
// accumulated in A (NumPy's casting through gs::cast). The order is SciPy's
// (csr_sum_duplicates, csr_matvec with ones add left to right).
#pragma once

namespace gs_sparse_compressed {

template <class T, class A, class I>
__global__ void __launch_bounds__(256)
segment_sum(const T* __restrict__ v, const I* __restrict__ ptr, long long nseg,
            A* __restrict__ out) {
  for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < nseg;
       s += (long long)gridDim.x * blockDim.x) {
    A acc = gs::cast<A>(0);
    const long long e1 = (long long)ptr[s + 1];
    for (long long e = (long long)ptr[s]; e < e1; ++e) acc += gs::cast<A>(v[e]);
    out[s] = acc;
  }
}

}  // namespace gs_sparse_compressed
