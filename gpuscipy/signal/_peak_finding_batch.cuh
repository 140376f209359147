// Device side of find_peaks over the channels of a batch (host side:
// _peak_finding_batch.py). Included after _peak_finding.cuh, whose local
// maximum test, look-back writer, tile summaries and prominence / width
// walks it reuses; a single signal is a batch of one channel.
//
// Layout. The signal is C-contiguous (channels, nrow) float64; the
// candidates (peaks that met the fused plateau / height / threshold
// conditions) are rows of one (rows, m) int64 table in flat order -- by
// channel, then by position -- with the channel-local index in row 0 and,
// for several channels, the channel in another row. Channel c's candidates
// are [offsets[c], offsets[c+1]). Every index a kernel stores is local to
// its channel; the walks use flat indices clamped to the channel, so a
// channel's edges act as the ends of a signal.
//
//   distance       one block per channel: SciPy's greedy selection (peaks by
//                  decreasing height, each kept peak removes the peaks
//                  closer than `distance`) is the lexicographically first
//                  maximal independent set of the conflict graph in the
//                  priority order. Rounds of "keep every undecided peak
//                  that outranks all undecided peaks of its window, remove
//                  what its window covers" (Blelloch, Fineman & Shun 2012)
//                  compute it, looping inside the block with __syncthreads.
//                  Priority: height, ties broken by position (the later
//                  peak first). SciPy breaks ties by NumPy's argsort, which
//                  no GPU order reproduces; but the set depends on the tie
//                  order only if some removed peak has no kept neighbour of
//                  strictly greater height within the distance (with one,
//                  every order consistent with the heights removes it, and
//                  the set stays independent and maximal: it is the same
//                  set). Each root records, while removing its window,
//                  which peaks it strictly outranks; a channel where a
//                  removed peak has no such neighbour, or that needs more
//                  than max_rounds rounds, is flagged for the host.
//   prominences /  one thread per candidate that is still kept (the `pre`
//   widths         mask of the previous stage), the walks of
//                  _peak_finding.cuh clamped to the peak's channel, their
//                  conditions with per-sample or per-channel borders.
//   counts         one block per channel counts a stage's keep mask (the
//                  host turns the counts into the CSR offsets).
#pragma once

namespace gs_signal_peaks {

constexpr unsigned char kRemoved = 0, kKept = 1, kUndecided = 2, kRoot = 3;

// Does peak j come before peak i in the greedy's order?
__device__ __forceinline__ bool outranks(const double* __restrict__ h, long long j, long long i) {
  const double a = h[j], b = h[i];
  return a > b || (a == b && j > i);
}

// Status words (int64, zeroed by the host): [0] peaks kept, [1] channels
// flagged for the host.
__device__ void select_by_distance(const long long* __restrict__ pos,
                                   const double* __restrict__ h,
                                   const long long* __restrict__ offsets, long long m,
                                   long long d, int max_rounds, unsigned char* __restrict__ st,
                                   unsigned char* __restrict__ strict,
                                   long long* __restrict__ counts,
                                   unsigned char* __restrict__ flags,
                                   unsigned long long* status) {
  const long long c = blockIdx.x;
  const long long a = offsets ? offsets[c] : 0, b = offsets ? offsets[c + 1] : m;
  const long long step = blockDim.x;
  int contested = 0;
  for (long long i = a + threadIdx.x; i < b; i += step) {
    const bool l = i > a && pos[i] - pos[i - 1] < d;
    const bool r = i + 1 < b && pos[i + 1] - pos[i] < d;
    st[i] = (l || r) ? kUndecided : kKept;   // isolated peaks are kept
    strict[i] = 0;
    contested |= (int)(l || r);
  }
  bool unfinished = false;
  if (__syncthreads_or(contested)) {
    for (int round = 0;; ++round) {
      // roots: undecided peaks that outrank every peak not yet removed in
      // their window (searched nearest first, both sides alternately)
      int found = 0;
      for (long long i = a + threadIdx.x; i < b; i += step) {
        if (st[i] != kUndecided) continue;
        found = 1;
        const long long p = pos[i];
        long long l = i - 1, r = i + 1;
        bool lgo = l >= a && p - pos[l] < d, rgo = r < b && pos[r] - p < d;
        bool root = true;
        while (lgo || rgo) {
          if (lgo) {
            if (st[l] != kRemoved && outranks(h, l, i)) {
              root = false;
              break;
            }
            --l;
            lgo = l >= a && p - pos[l] < d;
          }
          if (rgo) {
            if (st[r] != kRemoved && outranks(h, r, i)) {
              root = false;
              break;
            }
            ++r;
            rgo = r < b && pos[r] - p < d;
          }
        }
        if (root) st[i] = kRoot;
      }
      if (!__syncthreads_or(found)) break;
      if (round == max_rounds) {
        unfinished = true;
        break;
      }
      // each root removes its window (no other root nor kept peak is in
      // it) and marks the peaks it strictly outranks
      for (long long i = a + threadIdx.x; i < b; i += step) {
        if (st[i] != kRoot) continue;
        const long long p = pos[i];
        const double hi = h[i];
        for (long long j = i - 1; j >= a && p - pos[j] < d; --j) {
          st[j] = kRemoved;
          if (hi > h[j]) strict[j] = 1;
        }
        for (long long j = i + 1; j < b && pos[j] - p < d; ++j) {
          st[j] = kRemoved;
          if (hi > h[j]) strict[j] = 1;
        }
        st[i] = kKept;
      }
      __syncthreads();
    }
  }
  long long kept = 0;
  int tie = 0;
  for (long long i0 = a; i0 < b; i0 += step) {
    const long long i = i0 + threadIdx.x;
    int k = 0;
    if (i < b) {
      const unsigned char s = st[i];
      k = s == kKept;
      if (s == kRemoved && !strict[i]) tie = 1;
    }
    kept += __syncthreads_count(k);
  }
  tie = __syncthreads_or(tie);
  if (threadIdx.x == 0) {
    const bool flag = unfinished || tie;
    if (counts) counts[c] = kept;
    if (flags) flags[c] = flag ? 1 : 0;
    if (flag) atomicAdd(status + 1, 1ull);
    atomicAdd(status, (unsigned long long)kept);
  }
}

// Prominences of the kept candidates (pre[p] != 0, or all when pre is
// null); bases stored channel-local. Status words: [2] some prominence == 0.
__device__ void prominences_rows(const double* __restrict__ x, long long nrow,
                                 const long long* __restrict__ peaks,
                                 const long long* __restrict__ chan, long long m, long long wlen,
                                 tiles_t t, const unsigned char* __restrict__ pre,
                                 double* __restrict__ prom, long long* __restrict__ lbase,
                                 long long* __restrict__ rbase, bound_t cond,
                                 unsigned char* __restrict__ keep, unsigned long long* status) {
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= m) return;
  if (pre && !pre[p]) {
    if (keep) keep[p] = 0;
    return;
  }
  const long long ch = chan ? chan[p] : 0, base = ch * nrow;
  const long long peak = base + peaks[p];
  long long i_min = base, i_max = base + nrow - 1;
  if (wlen >= 2) {
    i_min = peak - wlen / 2 > i_min ? peak - wlen / 2 : i_min;
    i_max = peak + wlen / 2 < i_max ? peak + wlen / 2 : i_max;
  }
  long long lb, rb;
  const double pr = walk_prominence(x, peak, i_min, i_max, t, lb, rb);
  prom[p] = pr;
  lbase[p] = lb - base;
  rbase[p] = rb - base;
  if (pr == 0.0) status[2] = 1ull;
  if (keep) keep[p] = within(cond, peak, pr, ch) ? 1 : 0;
}

// Widths of the kept candidates at rel_height of their prominences (bases
// channel-local, from prominences_rows). out: rows (4, cap) of float64 --
// widths, width_heights, left_ips, right_ips (channel-local). Status words:
// [3] some width == 0.
__device__ void widths_rows(const double* __restrict__ x, long long nrow,
                            const long long* __restrict__ peaks,
                            const long long* __restrict__ chan, long long m, double rel_height,
                            const double* __restrict__ prom, const long long* __restrict__ lbase,
                            const long long* __restrict__ rbase, tiles_t t,
                            const unsigned char* __restrict__ pre, double* __restrict__ out,
                            long long cap, bound_t cond, unsigned char* __restrict__ keep,
                            unsigned long long* status) {
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= m) return;
  if (pre && !pre[p]) {
    if (keep) keep[p] = 0;
    return;
  }
  const long long ch = chan ? chan[p] : 0, base = ch * nrow;
  const long long peak = base + peaks[p];
  const double height = __dsub_rn(x[peak], __dmul_rn(prom[p], rel_height));
  double left_ip, right_ip;
  const double w = walk_width(x, peak, base + lbase[p], base + rbase[p], height, t, base, nrow,
                              left_ip, right_ip);
  out[p] = w;
  out[cap + p] = height;
  out[2 * cap + p] = left_ip;
  out[3 * cap + p] = right_ip;
  if (w == 0.0) status[3] = 1ull;
  if (keep) keep[p] = within(cond, peak, w, ch) ? 1 : 0;
}

// counts[c] = kept candidates of channel c (all of them when keep is null).
__device__ void channel_counts(const unsigned char* __restrict__ keep,
                               const long long* __restrict__ offsets, long long m,
                               long long* __restrict__ counts) {
  const long long c = blockIdx.x;
  const long long a = offsets ? offsets[c] : 0, b = offsets ? offsets[c + 1] : m;
  long long k = 0;
  for (long long i0 = a; i0 < b; i0 += blockDim.x) {
    const long long i = i0 + threadIdx.x;
    k += __syncthreads_count(i < b && (keep == nullptr || keep[i] != 0));
  }
  if (threadIdx.x == 0) counts[c] = k;
}

// offsets[c] = the first candidate of channel >= c (chan: increasing, m
// entries; offsets: channels + 1 entries). One thread per p in [0, m].
__device__ void channel_offsets(const long long* __restrict__ chan, long long m,
                                long long channels, long long* __restrict__ offsets) {
  const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (p > m) return;
  const long long lo = p == 0 ? -1 : chan[p - 1];
  const long long hi = p == m ? channels : chan[p];
  for (long long c = lo + 1; c <= hi; ++c) offsets[c] = p;
}

// Tile summaries (see tile_summaries) with one warp per tile of 2^lg
// samples: for the many small tiles of a batch.
__device__ void tile_summaries_warp(const double* __restrict__ x, long long n, int lg,
                                    long long ntiles, long long* __restrict__ sm) {
  const long long tile = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (tile >= ntiles) return;   // whole warps
  const int lane = threadIdx.x & 31;
  const long long start = tile << lg;
  const long long stop = start + (1LL << lg) < n ? start + (1LL << lg) : n;
  summary_t s;
  s.mx = -inf_value();
  s.mn = inf_value();
  s.il = -1;
  s.ir = -1;
  s.nan = false;
  for (long long i = start + lane; i < stop; i += 32) add_sample(s, i, x[i]);
#pragma unroll
  for (int dd = 16; dd >= 1; dd >>= 1) {
    const summary_t o = shfl_summary(s, dd);
    merge(s, o);
  }
  if (lane == 0) {
    sm[tile] = __double_as_longlong(s.nan ? nan_value() : s.mx);
    sm[ntiles + tile] = __double_as_longlong(s.nan ? nan_value() : s.mn);
    sm[2 * ntiles + tile] = s.il;
    sm[3 * ntiles + tile] = s.ir;
  }
}

}  // namespace gs_signal_peaks

#define GS_BATCH_KERNEL extern "C" __global__ void __launch_bounds__(256)
#define GS_BATCH_KERNEL_1024 extern "C" __global__ void __launch_bounds__(1024)

GS_BATCH_KERNEL_1024 gs_peaks_distance(const long long* pos, const double* h,
                                       const long long* offsets, long long m, long long d,
                                       int max_rounds, unsigned char* st, unsigned char* strict,
                                       long long* counts, unsigned char* flags,
                                       unsigned long long* status) {
  gs_signal_peaks::select_by_distance(pos, h, offsets, m, d, max_rounds, st, strict, counts, flags,
                                      status);
}
GS_BATCH_KERNEL gs_peaks_prominences_rows(const double* x, long long nrow, const long long* peaks,
                                          const long long* chan, long long m, long long wlen,
                                          gs_signal_peaks::tiles_t t, const unsigned char* pre,
                                          double* prom, long long* lb, long long* rb,
                                          gs_signal_peaks::bound_t cond, unsigned char* keep,
                                          unsigned long long* status) {
  gs_signal_peaks::prominences_rows(x, nrow, peaks, chan, m, wlen, t, pre, prom, lb, rb, cond, keep,
                                    status);
}
GS_BATCH_KERNEL gs_peaks_widths_rows(const double* x, long long nrow, const long long* peaks,
                                     const long long* chan, long long m, double rel_height,
                                     const double* prom, const long long* lb, const long long* rb,
                                     gs_signal_peaks::tiles_t t, const unsigned char* pre,
                                     double* out, long long cap, gs_signal_peaks::bound_t cond,
                                     unsigned char* keep, unsigned long long* status) {
  gs_signal_peaks::widths_rows(x, nrow, peaks, chan, m, rel_height, prom, lb, rb, t, pre, out,
                               cap, cond, keep, status);
}
GS_BATCH_KERNEL_1024 gs_peaks_channel_counts(const unsigned char* keep,
                                             const long long* offsets, long long m,
                                             long long* counts) {
  gs_signal_peaks::channel_counts(keep, offsets, m, counts);
}
GS_BATCH_KERNEL gs_peaks_channel_offsets(const long long* chan, long long m, long long channels,
                                         long long* offsets) {
  gs_signal_peaks::channel_offsets(chan, m, channels, offsets);
}
GS_BATCH_KERNEL gs_peaks_summaries_warp(const double* x, long long n, int lg, long long ntiles,
                                        long long* sm) {
  gs_signal_peaks::tile_summaries_warp(x, n, lg, ntiles, sm);
}
