// Device side of gpuscipy.signal's peak finding (host side: _peak_finding.py,
// which also holds NumPy models of every kernel for the CPU tests).
//
// All find_peaks kernels read the signal as C-contiguous float64, the type
// SciPy converts it to, so every comparison and every subtraction is the one
// SciPy makes, bit for bit. Explicit __d*_rn intrinsics keep NVRTC from
// contracting a multiply and an add into an FMA where SciPy rounds twice.
//
//   local maxima   SciPy's definition, stated per sample: i (1 <= i <= n-2)
//                  starts a peak when x[i-1] < x[i] and the first sample
//                  after the run x[i] == x[i+1] == ... (the run stops at
//                  n-1) is smaller than x[i]; the peak is the run's middle
//                  (rounded down). NaN is never part of a run (NaN != NaN)
//                  and fails every comparison, so it is neither a peak nor
//                  a neighbour that makes one. Plateau, height and threshold
//                  conditions are applied in the same test (they are
//                  per-peak; SciPy's stage order cannot change the result).
//   compaction     count kernel (a global sum), then one pass of the core's
//                  decoupled look-back scan (gs::scan, Merrill & Garland
//                  2016) writes each peak and its properties at its rank.
//   prominences    one thread per peak walks left and right while samples
//                  are <= the peak (NaN stops it), keeping the first minimum
//                  met, as SciPy does; it crosses a whole tile of B samples
//                  in one step when the tile summary shows that nothing in
//                  it is higher (tile max <= peak, no NaN) and then takes
//                  the tile's minimum (the nearest of equal minima). A walk
//                  costs at most ~2B + n/B steps instead of n.
//   widths         one thread per peak walks from the peak towards its bases
//                  while samples are above the reference height, crossing
//                  tiles whose minimum is above it, then interpolates.
//   relextrema     one thread per sample: order comparisons each side along
//                  the axis of a C-contiguous (outer, n, inner) array, 'clip'
//                  or 'wrap' indexing, NumPy's comparison functions
//                  (gpuscipy/ufuncs.cuh: complex ordering and NaN rules).
#pragma once
#include <gpuscipy/scan.cuh>
#include <gpuscipy/ufuncs.cuh>

namespace gs_signal_peaks {

constexpr int kThreads = 256;
constexpr int kItems = 8;                    // samples per thread, maxima tiles
constexpr int kTile = kThreads * kItems;     // samples per maxima tile

// One find_peaks condition lo <= value <= hi. has_lo/has_hi: 0 open,
// 1 scalar, 2 per-sample array (x-sized, read at the peak's flat index),
// 3 per-channel array (one value per channel of a batch, read at the
// peak's channel). Mirrored by _peak_finding._pack_bound (40 bytes).
struct bound_t {
  const double* lo_arr;
  const double* hi_arr;
  double lo;
  double hi;
  int has_lo;
  int has_hi;
};

struct conds_t {
  bound_t plateau;
  bound_t height;
  bound_t threshold;
};

// Rows of a stage table: row r of the source is src.p[r].
constexpr int kMaxRows = 16;
struct rows_t {
  const long long* p[kMaxRows];
};

__device__ __forceinline__ double inf_value() {
  return __longlong_as_double(0x7ff0000000000000LL);
}
__device__ __forceinline__ double nan_value() {
  return __longlong_as_double(0x7ff8000000000000LL);
}

// A border's value for the peak at flat index `at` of channel `ch`.
__device__ __forceinline__ double border(int has, const double* arr, double v, long long at,
                                         long long ch) {
  return has == 1 ? v : arr[has == 2 ? at : ch];
}

__device__ __forceinline__ bool within(const bound_t& b, long long at, double v,
                                       long long ch = 0) {
  if (b.has_lo && !(border(b.has_lo, b.lo_arr, b.lo, at, ch) <= v)) return false;
  if (b.has_hi && !(v <= border(b.has_hi, b.hi_arr, b.hi, at, ch))) return false;
  return true;
}

__device__ __forceinline__ bool any_bound(const bound_t& b) { return b.has_lo || b.has_hi; }

// Does sample i start a peak (SciPy's local maximum, plateaus included)?
// On success `right` is the last sample of the plateau.
__device__ __forceinline__ bool starts_peak(const double* __restrict__ x, long long n,
                                            long long i, long long& right) {
  if (i < 1 || i > n - 2) return false;
  const double v = x[i];
  if (!(x[i - 1] < v)) return false;
  long long j = i + 1;
  while (j < n - 1 && x[j] == v) ++j;
  if (!(x[j] < v)) return false;
  right = j - 1;
  return true;
}

// Peak test plus the fused plateau/height/threshold conditions. `x` points
// at the channel's first sample (n samples, i local); array borders are read
// at flat index at0 + peak (per sample) or at channel ch (per channel).
__device__ __forceinline__ bool keep_peak(const double* __restrict__ x, long long n, long long i,
                                          const conds_t& c, long long& right, long long at0 = 0,
                                          long long ch = 0) {
  if (!starts_peak(x, n, i, right)) return false;
  const long long mid = (i + right) >> 1;
  const long long at = at0 + mid;
  if (any_bound(c.plateau) && !within(c.plateau, at, (double)(right - i + 1), ch)) return false;
  const double v = x[mid];
  if (any_bound(c.height) && !within(c.height, at, v, ch)) return false;
  if (any_bound(c.threshold)) {
    const double l = __dsub_rn(v, x[mid - 1]);
    const double r = __dsub_rn(v, x[mid + 1]);
    if (isnan(l) || isnan(r)) return false;   // NumPy's min/max propagate NaN
    const bound_t& b = c.threshold;
    if (b.has_lo && !(border(b.has_lo, b.lo_arr, b.lo, at, ch) <= (l < r ? l : r))) return false;
    if (b.has_hi && !((l > r ? l : r) <= border(b.has_hi, b.hi_arr, b.hi, at, ch))) return false;
  }
  return true;
}

// The channel of flat sample i, advanced from (ch, base) of an earlier
// sample of the same thread (samples come in increasing order).
__device__ __forceinline__ void follow_channel(long long i, long long nrow, long long& ch,
                                               long long& base) {
  while (i - base >= nrow) {
    ++ch;
    base += nrow;
  }
}

// Number of peaks (atomically added to *total) of the n = channels * nrow
// samples of C-contiguous channels of nrow samples each (a channel's edges
// act as signal ends). Blocked layout: thread t of block b tests samples
// b*kTile + t*kItems + k.
__device__ void count_peaks(const double* __restrict__ x, long long n, long long nrow,
                            const conds_t& c, unsigned long long* total) {
  const long long first = (long long)blockIdx.x * kTile + (long long)threadIdx.x * kItems;
  unsigned int cnt = 0;
  long long right;
  long long ch = first < n ? first / nrow : 0, base = ch * nrow;
#pragma unroll 1   // see write_peaks
  for (int k = 0; k < kItems; ++k) {
    const long long i = first + k;
    if (i >= n) break;
    follow_channel(i, nrow, ch, base);
    if (keep_peak(x + base, nrow, i - base, c, right, base, ch)) ++cnt;
  }
  cnt = __reduce_add_sync(0xffffffffu, cnt);
  if ((threadIdx.x & 31) == 0 && cnt) atomicAdd(total, (unsigned long long)cnt);
}

// One look-back pass: every peak of tile `tile` learns its rank and writes
// row 0 (the peak's index within its channel) and the requested property
// rows of `out` ((rows, cap) int64; float rows hold float64 bits; indices
// are channel-local). r_* < 0: row absent; r_channel: the peak's channel.
__device__ void write_peaks(const double* __restrict__ x, long long n, long long nrow,
                            const conds_t& c, long long ntiles, void* state,
                            long long* __restrict__ out, long long cap, int r_height,
                            int r_plateau, int r_threshold, int r_channel) {
  typedef gs::scan::count_op<unsigned char> Op;
  typedef long long A;
  __shared__ A warp_totals[gs::scan::kWarps];
  __shared__ A lb_partials[gs::scan::kWarps];
  __shared__ unsigned int lb_masks[2 * gs::scan::kWarps];
  __shared__ long long tile_id;
  gs::scan::tile_state<A> st(state, ntiles);
  if (threadIdx.x == 0) tile_id = (long long)atomicAdd(st.counter, 1ull);
  __syncthreads();
  const long long tile = tile_id;
  const long long first = tile * kTile + (long long)threadIdx.x * kItems;
  const long long ch0 = first < n ? first / nrow : 0;
  // not unrolled: unrolling the plateau loop kItems times makes NVRTC's
  // optimiser take minutes; the ends live in local memory (L1)
  long long right[kItems];
  unsigned int flags = 0;
  A total = 0;
  long long ch = ch0, base = ch0 * nrow;
#pragma unroll 1
  for (int k = 0; k < kItems; ++k) {
    const long long i = first + k;
    if (i >= n) break;
    follow_channel(i, nrow, ch, base);
    if (keep_peak(x + base, nrow, i - base, c, right[k], base, ch)) {
      flags |= 1u << k;
      ++total;
    }
  }
  A block_total;
  A rank = gs::scan::block_exclusive<Op>(total, warp_totals, block_total);
  if (tile == 0) {
    if (threadIdx.x == 0 && ntiles > 1) st.publish(tile, block_total, gs::scan::kStatusPrefix);
  } else {
    if (threadIdx.x == 0) st.publish(tile, block_total, gs::scan::kStatusAggregate);
    const A prefix = gs::scan::look_back<Op, A>(st, tile, 0, lb_masks, lb_partials);
    if (threadIdx.x == 0) st.publish(tile, prefix + block_total, gs::scan::kStatusPrefix);
    rank += prefix;
  }
  ch = ch0;
  base = ch0 * nrow;
#pragma unroll 1
  for (int k = 0; k < kItems; ++k) {
    if (!(flags >> k & 1u)) continue;
    follow_channel(first + k, nrow, ch, base);
    const long long left = first + k - base;
    const long long mid = (left + right[k]) >> 1;
    const double* xc = x + base;
    const double v = xc[mid];
    out[rank] = mid;
    if (r_channel >= 0) out[r_channel * cap + rank] = ch;
    if (r_height >= 0) out[r_height * cap + rank] = __double_as_longlong(v);
    if (r_plateau >= 0) {
      out[r_plateau * cap + rank] = right[k] - left + 1;
      out[(r_plateau + 1) * cap + rank] = left;
      out[(r_plateau + 2) * cap + rank] = right[k];
    }
    if (r_threshold >= 0) {
      out[r_threshold * cap + rank] = __double_as_longlong(__dsub_rn(v, xc[mid - 1]));
      out[(r_threshold + 1) * cap + rank] = __double_as_longlong(__dsub_rn(v, xc[mid + 1]));
    }
    ++rank;
  }
}

// Copy the rows of the kept entries (flags != 0) to dst[(r, rank)].
struct rows_action {
  rows_t src;
  int nrows;
  long long* dst;
  long long cap;
  __device__ __forceinline__ void operator()(long long i, long long rank) const {
    for (int r = 0; r < nrows; ++r) dst[r * cap + rank] = src.p[r][i];
  }
};

// ---------------------------------------------------------------------------
// Tile summaries for the prominence and width walks: per tile of B = 2^lg
// samples, the max and min (NaN if the tile holds a NaN), and the last and
// first index of the minimum (the one a leftward / rightward walk meets
// first among equal minima).
// ---------------------------------------------------------------------------
struct summary_t {
  double mx, mn;
  long long il, ir;   // il < 0: no non-NaN sample yet
  bool nan;
};

__device__ __forceinline__ void add_sample(summary_t& s, long long i, double v) {
  if (isnan(v)) {
    s.nan = true;
    return;
  }
  if (v > s.mx) s.mx = v;
  if (s.il < 0 || v < s.mn) {
    s.mn = v;
    s.il = i;
    s.ir = i;
  } else if (v == s.mn) {
    s.il = i;   // samples come in increasing order per thread
  }
}

__device__ __forceinline__ void merge(summary_t& a, const summary_t& b) {
  a.nan = a.nan || b.nan;
  if (b.mx > a.mx) a.mx = b.mx;
  if (b.il < 0) return;
  if (a.il < 0 || b.mn < a.mn) {
    a.mn = b.mn;
    a.il = b.il;
    a.ir = b.ir;
  } else if (b.mn == a.mn) {
    a.il = a.il > b.il ? a.il : b.il;
    a.ir = a.ir < b.ir ? a.ir : b.ir;
  }
}

__device__ __forceinline__ summary_t shfl_summary(const summary_t& s, int d) {
  summary_t o;
  o.mx = __shfl_down_sync(0xffffffffu, s.mx, d);
  o.mn = __shfl_down_sync(0xffffffffu, s.mn, d);
  o.il = __shfl_down_sync(0xffffffffu, s.il, d);
  o.ir = __shfl_down_sync(0xffffffffu, s.ir, d);
  o.nan = __shfl_down_sync(0xffffffffu, (int)s.nan, d) != 0;
  return o;
}

// One block (kThreads threads) per tile. Output rows of `sm` ((4, ntiles)
// 8-byte words): max, min (float64 bits), last argmin, first argmin.
__device__ void tile_summaries(const double* __restrict__ x, long long n, int lg,
                               long long ntiles, long long* __restrict__ sm) {
  __shared__ summary_t part[kThreads / 32];
  const long long start = (long long)blockIdx.x << lg;
  const long long stop = start + (1LL << lg) < n ? start + (1LL << lg) : n;
  summary_t s;
  s.mx = -inf_value();
  s.mn = inf_value();
  s.il = -1;
  s.ir = -1;
  s.nan = false;
  for (long long i = start + threadIdx.x; i < stop; i += kThreads) add_sample(s, i, x[i]);
#pragma unroll
  for (int d = 16; d >= 1; d >>= 1) {
    const summary_t o = shfl_summary(s, d);
    merge(s, o);
  }
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kThreads / 32; ++w) merge(s, part[w]);
    const long long b = blockIdx.x;
    sm[b] = __double_as_longlong(s.nan ? nan_value() : s.mx);
    sm[ntiles + b] = __double_as_longlong(s.nan ? nan_value() : s.mn);
    sm[2 * ntiles + b] = s.il;
    sm[3 * ntiles + b] = s.ir;
  }
}

struct tiles_t {
  const double* mx;      // null: no summaries (walk sample by sample)
  const double* mn;
  const long long* il;
  const long long* ir;
  int lg;
};

// Status words of a stage (int64, zeroed by the host):
//   [0] number of kept peaks     [1] m - (first invalid peak number), or 0
//   [2] some prominence == 0     [3] some width == 0
__device__ __forceinline__ void count_kept(unsigned long long* status, bool keep) {
  const unsigned int mask = __activemask();
  const unsigned int votes = __ballot_sync(mask, keep);
  if (votes && (threadIdx.x & 31) == __ffs(mask) - 1)
    atomicAdd(status, (unsigned long long)__popc(votes));
}

// Runs of whole tiles a prominence walk crosses: from tile k towards
// tile `last` (step -1 leftwards, +1 rightwards), while a tile's max is <=
// the peak (no NaN), taking its minimum when it is below the running one.
// Four tiles' summaries are loaded per round trip (a long walk -- the
// highest peak crosses the whole signal -- is bound by the latency of these
// loads); a tile's minimum value is compared as stored (it equals x at its
// argmin), and the argmin and its sample are read only when taken, so the
// kept value (a signed zero too) is x's own. Returns with k at the first
// tile not crossed.
template <int STEP>
__device__ __forceinline__ void cross_tiles(const double* __restrict__ x, const tiles_t& t,
                                            double xp, long long last, long long& k,
                                            double& run_min, long long& base) {
  const long long* __restrict__ arg = STEP < 0 ? t.il : t.ir;
  while (STEP < 0 ? k >= last : k <= last) {
    double mx[4], mn[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const long long kk = k + STEP * u;
      const long long kc = (STEP < 0 ? kk >= last : kk <= last) ? kk : k;
      mx[u] = t.mx[kc];
      mn[u] = t.mn[kc];
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      if ((STEP < 0 ? k < last : k > last) || !(mx[u] <= xp)) return;
      if (mn[u] < run_min) {
        const long long j = arg[k];
        run_min = x[j];
        base = j;
      }
      k += STEP;
    }
  }
}

// SciPy's prominence walk from flat index `peak` within [i_min, i_max]:
// the prominence, and the bases (flat indices) in lb, rb.
__device__ __forceinline__ double walk_prominence(const double* __restrict__ x, long long peak,
                                                  long long i_min, long long i_max,
                                                  const tiles_t& t, long long& lb,
                                                  long long& rb) {
  const double xp = x[peak];
  const long long mask = (1LL << t.lg) - 1;

  double left_min = xp;
  lb = peak;
  long long i = peak;
  while (i >= i_min) {
    if (t.mx && (i & mask) == mask && i - mask >= i_min) {
      long long k = i >> t.lg;
      const long long k0 = k;
      cross_tiles<-1>(x, t, xp, (i_min + mask) >> t.lg, k, left_min, lb);
      if (k != k0) {            // at the last sample of the first tile not crossed
        i = (k << t.lg) + mask;
        continue;
      }
    }
    const double v = x[i];
    if (!(v <= xp)) break;
    if (v < left_min) {
      left_min = v;
      lb = i;
    }
    --i;
  }

  double right_min = xp;
  rb = peak;
  i = peak;
  while (i <= i_max) {
    if (t.mx && (i & mask) == 0 && i + mask <= i_max) {
      long long k = i >> t.lg;
      const long long k0 = k;
      cross_tiles<1>(x, t, xp, ((i_max + 1) >> t.lg) - 1, k, right_min, rb);
      if (k != k0) {            // at the first sample of the first tile not crossed
        i = k << t.lg;
        continue;
      }
    }
    const double v = x[i];
    if (!(v <= xp)) break;
    if (v < right_min) {
      right_min = v;
      rb = i;
    }
    ++i;
  }
  return __dsub_rn(xp, right_min > left_min ? right_min : left_min);
}

// Prominence of peaks[p] and its bases, as SciPy's _peak_prominences walks.
__device__ void prominences(const double* __restrict__ x, long long n,
                            const long long* __restrict__ peaks, long long m, long long wlen,
                            tiles_t t, double* __restrict__ prom, long long* __restrict__ lbase,
                            long long* __restrict__ rbase, bound_t cond,
                            unsigned char* __restrict__ keep, unsigned long long* status) {
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= m) return;
  const long long peak = peaks[p];
  if (peak < 0 || peak > n - 1) {
    atomicMax(status + 1, (unsigned long long)(m - p));
    if (keep) keep[p] = 0;
    return;
  }
  long long i_min = 0, i_max = n - 1;
  if (wlen >= 2) {
    i_min = peak - wlen / 2 > 0 ? peak - wlen / 2 : 0;
    i_max = peak + wlen / 2 < n - 1 ? peak + wlen / 2 : n - 1;
  }
  long long lb, rb;
  const double pr = walk_prominence(x, peak, i_min, i_max, t, lb, rb);
  prom[p] = pr;
  lbase[p] = lb;
  rbase[p] = rb;
  if (pr == 0.0) status[2] = 1ull;
  if (keep) {
    const bool k = within(cond, peak, pr);
    keep[p] = k ? 1 : 0;
    count_kept(status, k);
  }
}

// SciPy's width walk of the peak at flat index `peak` from the reference
// height towards its bases i_min, i_max (flat), with the interpolated ends
// in coordinates local to the channel starting at flat index `base` (nrow
// samples); returns the width.
__device__ __forceinline__ double walk_width(const double* __restrict__ x, long long peak,
                                             long long i_min, long long i_max, double height,
                                             const tiles_t& t, long long base, long long nrow,
                                             double& left_ip, double& right_ip) {
  const long long B = 1LL << t.lg, mask = B - 1;
  long long i = peak;
  while (i_min < i) {
    if (t.mn && (i & mask) == mask && i - mask > i_min) {
      if (height < t.mn[i >> t.lg]) {   // whole tile above height, no NaN
        i -= B;
        continue;
      }
    }
    if (!(height < x[i])) break;
    --i;
  }
  left_ip = (double)(i - base);
  if (x[i] < height && i + 1 < base + nrow)
    left_ip = __dadd_rn(left_ip, __ddiv_rn(__dsub_rn(height, x[i]), __dsub_rn(x[i + 1], x[i])));

  i = peak;
  while (i < i_max) {
    if (t.mn && (i & mask) == 0 && i + mask < i_max) {
      if (height < t.mn[i >> t.lg]) {
        i += B;
        continue;
      }
    }
    if (!(height < x[i])) break;
    ++i;
  }
  right_ip = (double)(i - base);
  if (x[i] < height && i >= base + 1)
    right_ip = __dsub_rn(right_ip, __ddiv_rn(__dsub_rn(height, x[i]), __dsub_rn(x[i - 1], x[i])));
  return __dsub_rn(right_ip, left_ip);
}

// Width of peaks[p] at rel_height of its prominence, as SciPy's _peak_widths.
// out: rows (4, cap) of float64 -- widths, width_heights, left_ips, right_ips.
__device__ void widths(const double* __restrict__ x, long long n,
                       const long long* __restrict__ peaks, long long m, double rel_height,
                       const double* __restrict__ prom, const long long* __restrict__ lbase,
                       const long long* __restrict__ rbase, tiles_t t,
                       double* __restrict__ out, long long cap, bound_t cond,
                       unsigned char* __restrict__ keep, unsigned long long* status) {
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= m) return;
  const long long peak = peaks[p], i_min = lbase[p], i_max = rbase[p];
  if (!(0 <= i_min && i_min <= peak && peak <= i_max && i_max < n)) {
    atomicMax(status + 1, (unsigned long long)(m - p));
    if (keep) keep[p] = 0;
    return;
  }
  const double height = __dsub_rn(x[peak], __dmul_rn(prom[p], rel_height));
  double left_ip, right_ip;
  const double w = walk_width(x, peak, i_min, i_max, height, t, 0, n, left_ip, right_ip);
  out[p] = w;
  out[cap + p] = height;
  out[2 * cap + p] = left_ip;
  out[3 * cap + p] = right_ip;
  if (w == 0.0) status[3] = 1ull;
  if (keep) {
    const bool k = within(cond, peak, w);
    keep[p] = k ? 1 : 0;
    count_kept(status, k);
  }
}

// ---------------------------------------------------------------------------
// argrelextrema: out[g] = comparator(x[g], neighbour) for all shifts
// 1..order on both sides along the middle axis of (outer, n, inner).
// cmp: 0 greater, 1 less, 2 greater_equal, 3 less_equal, 4 equal,
// 5 not_equal (NumPy's semantics, gpuscipy/ufuncs.cuh).
// ---------------------------------------------------------------------------
template <class T>
__device__ __forceinline__ bool compare(int cmp, const T& a, const T& b) {
  switch (cmp) {
    case 0: return gs::greater(a, b);
    case 1: return gs::less(a, b);
    case 2: return gs::greater_equal(a, b);
    case 3: return gs::less_equal(a, b);
    case 4: return gs::equal(a, b);
    default: return gs::not_equal(a, b);
  }
}

template <class T>
__device__ void relextrema(const T* __restrict__ x, bool* __restrict__ out, long long outer,
                           long long n, long long inner, long long order, int cmp, int wrap) {
  const long long total = outer * n * inner;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < total;
       g += (long long)gridDim.x * blockDim.x) {
    const long long line = g / inner;
    const long long j = g - line * inner;
    const long long o = line / n;
    const long long i = line - o * n;
    const T* base = x + o * n * inner + j;
    const T v = x[g];
    bool r = true;
    for (long long s = 1; s <= order && r; ++s) {
      long long ip = i + s, im = i - s;
      if (wrap) {
        ip %= n;
        im %= n;
        if (im < 0) im += n;
      } else {
        if (ip > n - 1) ip = n - 1;
        if (im < 0) im = 0;
      }
      r = compare(cmp, v, base[ip * inner]) && compare(cmp, v, base[im * inner]);
    }
    out[g] = r;
  }
}

}  // namespace gs_signal_peaks
