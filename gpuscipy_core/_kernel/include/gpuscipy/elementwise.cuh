// Helpers for generated elementwise kernels (see _kernel/_elementwise_source.py).
#pragma once

namespace gs {

// N elements of T loaded or stored with one aligned access (N * sizeof(T) <= 16).
template <typename T, int N>
struct alignas(sizeof(T) * N) vec {
    T v[N];
};

}  // namespace gs
