// Index-driven copies: gather (advanced getitem, take), scatter (advanced
// setitem, put) and remap (pad, roll, tile, repeat: every output element
// reads the source element a per-axis map points at).
//
// Data moves as raw words of the element size (values are converted to the
// destination dtype on the host side before a scatter), so one kernel serves
// every dtype of one itemsize. All strides are in BYTES and may be negative.
#pragma once

namespace gs {
namespace idx {

// An element of 16 bytes (complex128) moved as two 8-byte words; 8-byte
// alignment suffices (views imported through DLPack may not be 16-aligned).
struct alignas(8) word16 { unsigned long long a, b; };

template <int N> struct word_of;
template <> struct word_of<1> { typedef unsigned char type; };
template <> struct word_of<2> { typedef unsigned short type; };
template <> struct word_of<4> { typedef unsigned int type; };
template <> struct word_of<8> { typedef unsigned long long type; };
template <> struct word_of<16> { typedef word16 type; };

enum { MODE_RAISE = 0, MODE_WRAP = 1, MODE_CLIP = 2 };

// Parameters of gather and scatter. ND >= 1 result dimensions (the shape the
// getitem would return, C order), NI >= 1 index arrays.
//   base:  gather -> source array, scatter -> destination array
//   other: gather -> output array, scatter -> value array (unused if scalar)
//   base_stride[d]:  stride of ``base`` along result dim d (0 on index dims)
//   other_stride[d]: stride of ``other`` along result dim d (0: broadcast)
//   idx_stride[k][d]: stride of index array k along result dim d
//   idx_len[k], axis_stride[k]: length and stride of the axis of ``base``
//                               that index array k selects along
//   flag: 0 when every index was in bounds; else the largest
//         (2^63 - 1 - (i * NI + k)) over the failures, i.e. the first
//         failing (result element i, index array k) in C order.
template <int ND, int NI> struct Params {
    long long n;
    long long shape[ND];
    long long base_stride[ND];
    long long other_stride[ND];
    long long idx_stride[NI][ND];
    long long idx_len[NI];
    long long axis_stride[NI];
    const char* idx_ptr[NI];
    char* base;
    char* other;
    unsigned long long* flag;
    unsigned long long scalar[2];   // the value of a scalar scatter (16 bytes)
};

// Resolve a raw index against an axis of ``len`` elements: NumPy's
// negative indices for MODE_RAISE (false when out of bounds), modulo for
// MODE_WRAP, clamping to [0, len-1] for MODE_CLIP (negative -> 0).
template <int MODE, class I>
__device__ __forceinline__ bool resolve(I raw, long long len, long long& j) {
    constexpr bool is_signed = (I)(-1) < (I)0;
    if constexpr (is_signed) {
        const long long v = (long long)raw;
        if constexpr (MODE == MODE_RAISE) {
            j = v < 0 ? v + len : v;
            return j >= 0 && j < len;
        } else if constexpr (MODE == MODE_WRAP) {
            long long r = v % len;
            j = r < 0 ? r + len : r;
            return true;
        } else {
            j = v < 0 ? 0 : (v >= len ? len - 1 : v);
            return true;
        }
    } else {
        const unsigned long long v = (unsigned long long)raw;
        if constexpr (MODE == MODE_RAISE) {
            j = (long long)v;
            return v < (unsigned long long)len;
        } else if constexpr (MODE == MODE_WRAP) {
            j = (long long)(v % (unsigned long long)len);
            return true;
        } else {
            j = v >= (unsigned long long)len ? len - 1 : (long long)v;
            return true;
        }
    }
}

__device__ __forceinline__ void report(unsigned long long* flag, unsigned long long i,
                                       int k, int ni) {
    atomicMax(flag, 0x7fffffffffffffffULL - (i * (unsigned long long)ni + k));
}

// Offsets of result element i: into base (slice part), other, index arrays.
template <int ND, int NI, class IX>
__device__ __forceinline__ void offsets(const Params<ND, NI>& p, IX i, long long& bo,
                                        long long& oo, long long (&io)[NI]) {
    IX r = i;
    bo = 0;
    oo = 0;
    #pragma unroll
    for (int k = 0; k < NI; ++k) io[k] = 0;
    #pragma unroll
    for (int d = ND - 1; d >= 0; --d) {
        const IX len = (IX)p.shape[d];
        const IX c = r % len;
        r /= len;
        bo += (long long)c * p.base_stride[d];
        oo += (long long)c * p.other_stride[d];
        #pragma unroll
        for (int k = 0; k < NI; ++k) io[k] += (long long)c * p.idx_stride[k][d];
    }
}

// Add the indexed axes' contribution to bo; false (and a report) when an
// index is out of bounds in MODE_RAISE.
template <int ND, int NI, int MODE, class I, class IX>
__device__ __forceinline__ bool add_indices(const Params<ND, NI>& p, IX i, long long& bo,
                                            const long long (&io)[NI]) {
    bool ok = true;
    #pragma unroll
    for (int k = 0; k < NI; ++k) {
        const I raw = *(const I*)(p.idx_ptr[k] + io[k]);
        long long j;
        if (resolve<MODE>(raw, p.idx_len[k], j)) {
            bo += j * p.axis_stride[k];
        } else {
            ok = false;
            report(p.flag, (unsigned long long)i, k, NI);
        }
    }
    return ok;
}

// other[result i] = base[resolved offset of i]
template <int W, class I, int ND, int NI, int MODE, class IX>
__device__ void gather(const Params<ND, NI>& p) {
    typedef typename word_of<W>::type T;
    const IX n = (IX)p.n;
    const IX step = (IX)gridDim.x * blockDim.x;
    for (IX i = (IX)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        long long bo, oo, io[NI];
        offsets<ND, NI, IX>(p, i, bo, oo, io);
        if (add_indices<ND, NI, MODE, I, IX>(p, i, bo, io))
            *(T*)(p.other + oo) = *(const T*)(p.base + bo);
    }
}

// base[resolved offset of i] = other[result i] (or the scalar)
template <int W, class I, int ND, int NI, int MODE, bool SCALAR, class IX>
__device__ void scatter(const Params<ND, NI>& p) {
    typedef typename word_of<W>::type T;
    const IX n = (IX)p.n;
    const IX step = (IX)gridDim.x * blockDim.x;
    T sv;
    if constexpr (SCALAR) sv = *(const T*)p.scalar;
    for (IX i = (IX)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        long long bo, oo, io[NI];
        offsets<ND, NI, IX>(p, i, bo, oo, io);
        if (add_indices<ND, NI, MODE, I, IX>(p, i, bo, io)) {
            if constexpr (SCALAR) {
                *(T*)(p.base + bo) = sv;
            } else {
                *(T*)(p.base + bo) = *(const T*)(p.other + oo);
            }
        }
    }
}

// ---------------------------------------------------------------- remap
// out[c_0, ..., c_{ND-1}] = src[m_0(c_0), ..., m_{ND-1}(c_{ND-1})] where each
// axis map m_d is one of
//   MAP_SHIFT:   s = c - before; s outside [0, n) -> the constant
//   MAP_EDGE:    s = clamp(c - before, 0, n - 1)
//   MAP_WRAP:    s = (c - before) mod n               (wrap pad, roll, tile)
//   MAP_REFLECT: mirror without repeating the edge    (period 2n - 2)
//   MAP_SYMMETRIC: mirror repeating the edge          (period 2n)
//   MAP_DIV:     s = c / before  (repeat by a scalar count ``before``)
// An element whose coordinate falls outside the source on a MAP_SHIFT axis
// takes the constant of the last such axis (NumPy pads axis by axis, so the
// last axis' constant wins in the corners): value index 2*d + (s >= n).
enum { MAP_SHIFT = 0, MAP_EDGE = 1, MAP_WRAP = 2, MAP_REFLECT = 3, MAP_SYMMETRIC = 4,
       MAP_DIV = 5 };

template <int ND> struct RemapParams {
    long long n;
    long long shape[ND];        // output shape
    long long out_stride[ND];
    long long src_len[ND];
    long long src_stride[ND];
    long long before[ND];
    long long mode[ND];
    const char* src;
    char* out;
    unsigned long long consts[2 * ND][2];   // constants per (axis, side), 16 bytes each
};

__device__ __forceinline__ long long remap_axis(long long mode, long long c, long long before,
                                                long long n, bool& outside, bool& hi) {
    long long s = c - before;
    switch (mode) {
    case MAP_SHIFT:
        outside = s < 0 || s >= n;
        hi = s >= n;
        return s;
    case MAP_EDGE:
        return s < 0 ? 0 : (s >= n ? n - 1 : s);
    case MAP_WRAP: {
        long long r = s % n;
        return r < 0 ? r + n : r;
    }
    case MAP_REFLECT: {
        if (n == 1) return 0;
        const long long period = 2 * n - 2;
        long long r = s % period;
        if (r < 0) r += period;
        return r < n ? r : period - r;
    }
    case MAP_SYMMETRIC: {
        const long long period = 2 * n;
        long long r = s % period;
        if (r < 0) r += period;
        return r < n ? r : period - 1 - r;
    }
    default:  // MAP_DIV
        return c / before;
    }
}

template <int W, int ND, class IX>
__device__ void remap(const RemapParams<ND>& p) {
    typedef typename word_of<W>::type T;
    const IX n = (IX)p.n;
    const IX step = (IX)gridDim.x * blockDim.x;
    for (IX i = (IX)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        IX r = i;
        long long so = 0, oo = 0;
        int constant = -1;
        #pragma unroll
        for (int d = ND - 1; d >= 0; --d) {
            const IX len = (IX)p.shape[d];
            const IX c = r % len;
            r /= len;
            oo += (long long)c * p.out_stride[d];
            bool outside = false, hi = false;
            const long long s = remap_axis(p.mode[d], (long long)c, p.before[d], p.src_len[d],
                                           outside, hi);
            if (outside) {
                if (constant < 0) constant = 2 * d + (hi ? 1 : 0);  // highest axis wins
            } else {
                so += s * p.src_stride[d];
            }
        }
        if (constant >= 0)
            *(T*)(p.out + oo) = *(const T*)p.consts[constant];
        else
            *(T*)(p.out + oo) = *(const T*)(p.src + so);
    }
}

}  // namespace idx
}  // namespace gs
