// Radix sort building blocks for gpuscipy_core._routines._sorting.
//
// Everything works on the raw bits of the keys (unsigned K of 1, 2, 4 or 8
// bytes): a key is first mapped to an unsigned "radix key" whose unsigned
// order is NumPy's order (encode), sorted by 8-bit digits from the least
// significant one (LSD), and mapped back (decode).
//
// Device-wide sort: Adinets & Merrill 2022, "Onesweep: a faster least
// significant digit radix sort for GPUs": one histogram pass for all digits
// (scan_plan also marks digits that are the same for every key: those passes
// are skipped on the device), then one pass per digit (onesweep_pass) in
// which each tile counts its digits, publishes the counts, ranks its keys
// in shared memory and finds its global digit offsets by decoupled look-back
// (Merrill & Garland 2016) over a window of earlier tiles. Tiles take their
// index from an atomic counter, so a tile only waits for tiles that already
// run.
//
// Block rank of block_sort (rank_tile, stable): warp w owns the contiguous
// run [w*32*ITEMS, (w+1)*32*ITEMS) of the tile and walks it in ITEMS rounds
// of 32 consecutive keys. In each round a ballot per digit bit (match_bits)
// groups lanes with equal digits; a lane's rank is the warp's running count
// of its digit plus the number of lower peer lanes. Warp counts are then
// scanned across warps (per digit) and across digits (per block), giving
// each key its position in the stably sorted tile. onesweep_tile ranks the
// same way but counts first (see there).
#pragma once

namespace gs {
namespace sort {

constexpr int BLOCK = 256;
constexpr int WARPS = BLOCK / 32;
constexpr unsigned INVALID = 256u;   // digit of a lane holding no key

// ---- order-preserving key transforms ------------------------------------
// KIND: 0 unsigned or bool, 1 signed integer, 2 IEEE float (half/single/double)
// CANON (floats): -0.0 -> +0.0 and every NaN -> one key above +inf, so that
// equal values under NumPy's comparison get equal keys (argsort, unique,
// searchsorted). Without CANON the map is a bijection on non-NaN values
// (-0.0 sorts just before +0.0) and NaNs keep their payload (sign dropped):
// used by sort, whose output keys are decoded back.

template <class K> struct width { static constexpr int bits = 8 * sizeof(K); };

template <class K> __device__ __forceinline__ K sign_bit() {
  return K(K(1) << (8 * sizeof(K) - 1));
}

template <class K> __device__ __forceinline__ K inf_bits();
template <> __device__ __forceinline__ unsigned short inf_bits<unsigned short>() { return 0x7C00u; }
template <> __device__ __forceinline__ unsigned int inf_bits<unsigned int>() { return 0x7F800000u; }
template <> __device__ __forceinline__ unsigned long long inf_bits<unsigned long long>() {
  return 0x7FF0000000000000ull;
}
template <> __device__ __forceinline__ unsigned char inf_bits<unsigned char>() { return 0xFFu; }

template <class K, int KIND, bool CANON>
__device__ __forceinline__ K encode(K x) {
  if (KIND == 1) return K(x ^ sign_bit<K>());
  if (KIND == 2) {
    const K s = sign_bit<K>();
    const K mag = K(x & K(~s));
    if (mag > inf_bits<K>()) return CANON ? K(~K(0)) : K(mag | s);
    if (CANON && mag == K(0)) x = K(0);
    return (x & s) ? K(~x) : K(x | s);
  }
  return x;
}

template <class K, int KIND>
__device__ __forceinline__ K decode(K k) {
  if (KIND == 1) return K(k ^ sign_bit<K>());
  if (KIND == 2) {
    const K s = sign_bit<K>();
    return (k & s) ? K(k ^ s) : K(~k);
  }
  return k;
}

// Byte shift/8 of k (shift a multiple of 8): one PRMT for keys of <= 4
// bytes instead of a shift and a mask.
template <class K>
__device__ __forceinline__ unsigned digit_of(K k, int shift) {
  if (sizeof(K) <= 4)
    return __byte_perm(unsigned(k), 0u, 0x4440u | unsigned(shift >> 3));
  const unsigned w = (shift & 32) ? unsigned((unsigned long long)k >> 32) : unsigned(k);
  return __byte_perm(w, 0u, 0x4440u | unsigned((shift >> 3) & 3));
}

// ---- volatile access to the look-back state -------------------------------
template <class S> __device__ __forceinline__ S load_state(const S* p) {
  return *reinterpret_cast<const volatile S*>(p);
}
template <class S> __device__ __forceinline__ void store_state(S* p, S v) {
  *reinterpret_cast<volatile S*>(p) = v;
}
template <class S> struct state_traits;
template <> struct state_traits<unsigned int> {
  static constexpr int shift = 30;
};
template <> struct state_traits<unsigned long long> {
  static constexpr int shift = 62;
};

// ---- warp match without match.any.sync ------------------------------------
// Mask of the lanes whose low BITS bits of x equal this lane's. One ballot
// per bit: match.any.sync is microcoded and costs about one step per
// distinct value in the warp (up to 32 for random 8-bit digits), which made
// ranking and the histogram several times slower than the memory traffic.
// Written in PTX so that each bit is 4 SASS instructions (bit test into a
// predicate, ballot, conditional invert, and); the C++ form compiled to 7
// (the bit was extracted twice: once for the ballot, once for the select).
template <int BITS>
__device__ __forceinline__ unsigned match_bits(unsigned x) {
  unsigned m = 0xFFFFFFFFu;
#pragma unroll
  for (int b = 0; b < BITS; ++b) {
    asm("{\n\t.reg .pred p;\n\t.reg .b32 r;\n\t"
        "and.b32 r, %1, %2;\n\t"
        "setp.ne.u32 p, r, 0;\n\t"
        "vote.sync.ballot.b32 r, p, 0xffffffff;\n\t"
        "@!p not.b32 r, r;\n\t"
        "and.b32 %0, %0, r;\n\t}"
        : "+r"(m)
        : "r"(x), "r"(1u << b));
  }
  return m;
}

// ---- stable block rank ----------------------------------------------------
struct RankShared {
  unsigned hist[WARPS][256];  // per-warp digit counts, then tile positions
  unsigned start[256];        // exclusive scan of the tile's digit counts
  unsigned wsum[WARPS];
};

__device__ __forceinline__ void zero_hist(RankShared& s) {
#pragma unroll
  for (int w = 0; w < WARPS; ++w) s.hist[w][threadIdx.x] = 0u;
}

// Key of item i of this thread: tile position p = warp*32*ITEMS + i*32 + lane
// (warp-striped), valid when p < valid_n. Returns in pos[i] the position of
// the item in the stably sorted tile (by the digit at `shift`; undefined for
// invalid items) and in count the number of keys of digit threadIdx.x.
// Precondition: zero_hist() and a __syncthreads() since the last use of s.
// Postcondition: s.start[d] is the exclusive scan of the digit counts.
template <class K, int ITEMS>
__device__ __forceinline__ void rank_tile(const K (&k)[ITEMS], unsigned valid_n, int shift,
                                          unsigned (&pos)[ITEMS], unsigned& count,
                                          RankShared& s) {
  const unsigned t = threadIdx.x, warp = t >> 5, lane = t & 31u;
  const unsigned lower = (1u << lane) - 1u;
  unsigned* wh = s.hist[warp];
  // 1. Per warp, in tile order: rank among the warp's earlier keys of the
  //    same digit (running count in wh[d], bumped by the lowest peer lane).
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const unsigned p = warp * 32u * ITEMS + i * 32u + lane;
    const bool valid = p < valid_n;
    const unsigned d = digit_of(k[i], shift);
    const unsigned peers = match_bits<8>(d) & __ballot_sync(0xFFFFFFFFu, valid);
    const unsigned base = wh[d];
    __syncwarp();
    if (valid && lane == unsigned(__ffs(peers) - 1)) wh[d] = base + __popc(peers);
    __syncwarp();
    pos[i] = base + __popc(peers & lower);
  }
  __syncthreads();
  // 2. Thread t owns digit t: exclusive offsets of the warps, tile count.
  unsigned run = 0;
#pragma unroll
  for (int w = 0; w < WARPS; ++w) {
    const unsigned c = s.hist[w][t];
    s.hist[w][t] = run;
    run += c;
  }
  count = run;
  // 3. Exclusive scan of the counts over the digits (block of 256 threads).
  unsigned incl = run;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const unsigned y = __shfl_up_sync(0xFFFFFFFFu, incl, o);
    if (lane >= unsigned(o)) incl += y;
  }
  if (lane == 31u) s.wsum[warp] = incl;
  __syncthreads();
  unsigned off = 0;
  for (unsigned w = 0; w < warp; ++w) off += s.wsum[w];
  const unsigned st = off + incl - run;
  s.start[t] = st;
#pragma unroll
  for (int w = 0; w < WARPS; ++w) s.hist[w][t] += st;
  __syncthreads();
  // 4. Position in the tile = digit start + warp offset + rank in the warp.
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const unsigned p = warp * 32u * ITEMS + i * 32u + lane;
    if (p < valid_n) pos[i] += wh[digit_of(k[i], shift)];
  }
}

// ---- device-wide histogram of every digit (one pass over the keys) --------
// hist[p * 256 + d] += number of keys whose digit p (bits 8p .. 8p+7 of the
// encoded key) is d. hist must be zeroed first. Each warp loads HITEMS rounds
// of 32 consecutive keys at once (memory-level parallelism), then counts with
// shared-memory atomics; a round whose digit is the same in all 32 lanes
// (constant high digits: small integers, sorted data) is one atomic of 32.
template <class K, int KIND, bool CANON, bool ENC, int NPASS, int HITEMS>
__device__ __forceinline__ void histogram(const K* __restrict__ keys, long long n,
                                          unsigned long long* __restrict__ hist) {
  __shared__ unsigned sh[NPASS * 256];
  for (int i = threadIdx.x; i < NPASS * 256; i += BLOCK) sh[i] = 0u;
  __syncthreads();
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  constexpr long long CHUNK = 32LL * HITEMS;
  const long long stride = (long long)gridDim.x * WARPS * CHUNK;
  for (long long c0 = ((long long)blockIdx.x * WARPS + warp) * CHUNK; c0 < n; c0 += stride) {
    K k[HITEMS];
#pragma unroll
    for (int i = 0; i < HITEMS; ++i) {
      const long long j = c0 + i * 32 + lane;
      k[i] = (j < n) ? keys[j] : K(0);
    }
#pragma unroll
    for (int i = 0; i < HITEMS; ++i) {
      const bool valid = c0 + i * 32 + lane < n;
      const bool full = __all_sync(0xFFFFFFFFu, valid);
      const K x = ENC ? encode<K, KIND, CANON>(k[i]) : k[i];
#pragma unroll
      for (int p = 0; p < NPASS; ++p) {
        const unsigned d = digit_of(x, 8 * p);
        const unsigned d0 = __shfl_sync(0xFFFFFFFFu, d, 0);
        if (__all_sync(0xFFFFFFFFu, full && d == d0)) {
          if (lane == 0u) atomicAdd(&sh[p * 256 + d0], 32u);
        } else if (valid) {
          atomicAdd(&sh[p * 256 + d], 1u);
        }
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < NPASS * 256; i += BLOCK)
    if (sh[i]) atomicAdd(&hist[i], (unsigned long long)sh[i]);
}

// ---- scan of the histograms and the pass plan (one block of 256) -----------
// In place: each of the NPASS rows of 256 counts becomes its exclusive scan.
// plan[p] says how digit pass p runs (0: skipped, because every key has the
// same digit p, so the pass would be the identity permutation). Otherwise
// bit 0 set, plus PLAN_FIRST / PLAN_LAST (first / last pass that runs),
// PLAN_DST_OUT (write to the output buffers, else to the temporaries) and
// PLAN_SRC_OUT (read from the output buffers; the first pass reads the
// input). Destinations alternate backwards from the last pass, which
// writes the output, so a pass never reads the buffer it writes. If every
// digit is constant the last pass still runs (it copies).
constexpr int PLAN_RUN = 1, PLAN_FIRST = 2, PLAN_LAST = 4, PLAN_DST_OUT = 8,
              PLAN_SRC_OUT = 16;

template <int NPASS>
__device__ __forceinline__ void scan_plan(unsigned long long* hist, long long n, int* plan) {
  __shared__ unsigned long long wsum[WARPS];
  __shared__ int triv[NPASS];
  const unsigned t = threadIdx.x, warp = t >> 5, lane = t & 31u;
  for (int p = 0; p < NPASS; ++p) {
    const unsigned long long c = hist[p * 256 + t];
    const int tr = __syncthreads_or(c == (unsigned long long)n);
    unsigned long long incl = c;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const unsigned long long y = __shfl_up_sync(0xFFFFFFFFu, incl, o);
      if (lane >= unsigned(o)) incl += y;
    }
    if (lane == 31u) wsum[warp] = incl;
    __syncthreads();
    unsigned long long off = 0;
    for (unsigned w = 0; w < warp; ++w) off += wsum[w];
    hist[p * 256 + t] = off + incl - c;
    if (t == 0) triv[p] = tr;
    __syncthreads();
  }
  if (t == 0) {
    int m = 0;
    for (int p = 0; p < NPASS; ++p) m += triv[p] ? 0 : 1;
    const bool force = (m == 0);
    if (force) m = 1;
    int j = 0;
    bool prev_out = false;
    for (int p = 0; p < NPASS; ++p) {
      const bool run = force ? (p == NPASS - 1) : !triv[p];
      if (!run) {
        plan[p] = 0;
        continue;
      }
      const bool dst_out = (j == m - 1) || (((m - 1 - j) & 1) == 0);
      int code = PLAN_RUN;
      if (j == 0) code |= PLAN_FIRST;
      if (j == m - 1) code |= PLAN_LAST;
      if (dst_out) code |= PLAN_DST_OUT;
      if (j > 0 && prev_out) code |= PLAN_SRC_OUT;
      plan[p] = code;
      prev_out = dst_out;
      ++j;
    }
  }
}

// ---- decoupled look-back over a window of predecessors ---------------------
// col points at this digit's state word of tile 0 (state + digit); tile j's
// word is col[j * 256]. Returns the sum of the digit's counts over tiles
// 0 .. tile-1. Each step loads the words of the LB nearest predecessors not
// yet summed at once (independent loads: one L2 round trip per step instead
// of one per tile), then sums them from the nearest back: an aggregate (A)
// adds its count and goes on, an inclusive prefix (P) adds and ends the
// walk, a word not yet published (0) ends the step (it is loaded again).
// Tile 0 publishes P at once, so a walk never passes it; slots before tile
// 0 are not loaded.
template <class S, int LB>
__device__ __forceinline__ S lookback(const S* col, long long tile) {
  constexpr int FS = state_traits<S>::shift;
  const S MASK = S((S(1) << FS) - S(1));
  S excl = 0;
  long long j = tile - 1;  // nearest predecessor not yet summed
  while (true) {
    S w[LB];
#pragma unroll
    for (int q = 0; q < LB; ++q)
      w[q] = (j - q >= 0) ? load_state(col + (j - q) * 256) : S(0);
    bool go = true, done = false;
    int adv = 0;
#pragma unroll
    for (int q = 0; q < LB; ++q) {
      const S f = S(w[q] >> FS);
      if (go && f == S(0)) go = false;
      if (go) {
        excl += S(w[q] & MASK);
        ++adv;
        if (f == S(2)) {
          go = false;
          done = true;
        }
      }
    }
    if (done) return excl;
    j -= adv;
  }
}

// Shared-memory atomicAdd done only where `leader` holds, as one predicated
// instruction (a branch around atomicAdd costs a divergence region, 3 more
// instructions per round); returns the old value there, 0 elsewhere.
// volatile + "memory": stays in program order with the other shared
// accesses, which the stable rank needs.
__device__ __forceinline__ unsigned leader_add(unsigned saddr, unsigned v, bool leader) {
  unsigned old = 0u;
  asm volatile("{\n\t.reg .pred p;\n\t"
               "setp.ne.u32 p, %3, 0;\n\t"
               "@p atom.shared.add.u32 %0, [%1], %2;\n\t}"
               : "+r"(old)
               : "r"(saddr), "r"(v), "r"(unsigned(leader))
               : "memory");
  return old;
}

// ---- one onesweep digit pass ----------------------------------------------
// Buffers: keys kin (raw if ENC) -> ktmp / kout; values (VMODE 1: int64
// vin; 2: the input position) -> vtmp / vout as V (unsigned int when
// n < 2^32), the last pass writing int64 to vout. plan[pass] (see scan_plan)
// picks the buffers; ENC applies on the first pass that runs, DEC on the
// last, and with WANT_KEYS false the last pass writes no keys. offsets:
// exclusive scan of this digit's global histogram (256 entries). state:
// ntiles * 256 words, zeroed; counter: one zeroed word. O: offset type
// (unsigned int when n < 2^30, else long long). LB: look-back window.
//
// Per tile (Adinets & Merrill 2022; the order of CUB's onesweep agent):
//  1. load the keys warp-striped (tile position p = warp*32*ITEMS + i*32 +
//     lane: each load instruction of a warp reads 32 consecutive keys);
//  2. early counts: per-warp digit histograms with shared atomics;
//  3. thread t owns digit t: the warps' exclusive offsets and the tile's
//     count, published at once as the tile's aggregate (flag A) so that
//     later tiles' look-backs rarely find an unpublished word; then the
//     exclusive scan over digits, added to the per-warp offsets, so that
//     s.whist[w][d] is where warp w's next key of digit d goes in the
//     sorted tile;
//  4. rank: per round of 32 keys, the lanes with the same digit (match_bits)
//     take consecutive slots: the highest such lane adds their number to
//     the warp's counter (atomicAdd, which returns the first slot) and
//     broadcasts it; each key goes straight to its slot in shared memory.
//     Rounds run in tile order and a warp's atomics on one counter are
//     ordered (each round waits for the previous round's broadcast), so
//     equal digits keep their order: the rank is stable;
//  5. values (loaded before 4, so that their latency hides behind it) go
//     to the same slots in a second buffer;
//  6. look-back for digit t (lookback()), publish the inclusive prefix
//     (flag P), and the digit's global base;
//  7. one barrier, then thread t stores sorted-tile slots t, t+256, ...:
//     consecutive threads write consecutive addresses of a digit's run.
// FULL: the tile holds TILE keys (no bounds tests); the last tile of a
// pass runs the checked variant.
template <class K, class V, class O, int ITEMS, int VMODE>
struct OnesweepShared {
  unsigned whist[WARPS][256];  // per-warp counts, then per-warp next slots
  unsigned wsum[WARPS];
  unsigned tile;
  O gbase[256];                // global position of sorted-tile slot 0, per digit
  K xk[BLOCK * ITEMS];
  V xv[VMODE != 0 ? BLOCK * ITEMS : 1];
};

template <class K, class V, class O, int ITEMS, int VMODE, int KIND, bool STORE_KEYS,
          bool DECODE, bool WIDE_VALUES, bool FULL>
__device__ __forceinline__ void onesweep_store(
    const OnesweepShared<K, V, O, ITEMS, VMODE>& sh, unsigned tile_n, int shift,
    K* __restrict__ kdst, V* __restrict__ vdst, long long* __restrict__ vfin) {
  const unsigned t = threadIdx.x;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const unsigned j = unsigned(i) * BLOCK + t;
    if (FULL || j < tile_n) {
      const K x = sh.xk[j];
      const O g = sh.gbase[digit_of(x, shift)] + O(j);
      if (STORE_KEYS) kdst[g] = DECODE ? decode<K, KIND>(x) : x;
      if (VMODE != 0) {
        if (WIDE_VALUES) vfin[g] = (long long)sh.xv[j];
        else vdst[g] = sh.xv[j];
      }
    }
  }
}

template <class K, int KIND, bool CANON, bool ENC, bool DEC, bool WANT_KEYS, int VMODE,
          class S, class O, class V, int ITEMS, int LB, bool FULL>
__device__ __forceinline__ void onesweep_tile(
    OnesweepShared<K, V, O, ITEMS, VMODE>& sh, const K* __restrict__ ksrc,
    K* __restrict__ kdst, const long long* __restrict__ vin, const V* __restrict__ vsrc,
    V* __restrict__ vdst, long long* __restrict__ vfin, long long tile, unsigned tile_n,
    int shift, unsigned long long goff, S* state, bool first, bool last) {
  constexpr int FS = state_traits<S>::shift;
  const S AGG = S(S(1) << FS), PREFIX = S(S(2) << FS);
  const unsigned t = threadIdx.x, warp = t >> 5, lane = t & 31u;
  const unsigned wbase = warp * 32u * ITEMS + lane;  // tile position of item 0
  const long long base = tile * (BLOCK * ITEMS);

  // 1. Load.
  K k[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const unsigned p = wbase + unsigned(i) * 32u;
    k[i] = (FULL || p < tile_n) ? ksrc[base + p] : K(0);
  }
  if (ENC && first) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) k[i] = encode<K, KIND, CANON>(k[i]);
  }

  // 2. Early counts.
  unsigned* wh = sh.whist[warp];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    if (FULL || wbase + unsigned(i) * 32u < tile_n) atomicAdd(&wh[digit_of(k[i], shift)], 1u);
  }
  __syncthreads();

  // 3. Digit t: warp offsets, publish the tile aggregate, scan over digits.
  unsigned wc[WARPS];
  unsigned count = 0;
#pragma unroll
  for (int w = 0; w < WARPS; ++w) {
    wc[w] = count;
    count += sh.whist[w][t];
  }
  S* mine = state + tile * 256 + t;
  store_state(mine, S((tile == 0 ? PREFIX : AGG) | S(count)));
  unsigned incl = count;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const unsigned y = __shfl_up_sync(0xFFFFFFFFu, incl, o);
    if (lane >= unsigned(o)) incl += y;
  }
  if (lane == 31u) sh.wsum[warp] = incl;
  __syncthreads();
  unsigned st = incl - count;
#pragma unroll
  for (int w = 0; w < WARPS - 1; ++w)
    if (unsigned(w) < warp) st += sh.wsum[w];
#pragma unroll
  for (int w = 0; w < WARPS; ++w) sh.whist[w][t] = st + wc[w];

  // Values, loaded now so that their latency hides behind the ranking.
  V v[VMODE != 0 ? ITEMS : 1];
  if (VMODE != 0) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const unsigned p = wbase + unsigned(i) * 32u;
      if (FULL || p < tile_n) {
        if (!first) v[i] = vsrc[base + p];
        else if (VMODE == 1) v[i] = V(vin[base + p]);
        else v[i] = V(base + p);
      } else {
        v[i] = V(0);
      }
    }
  }
  __syncthreads();

  // 4. Rank; keys (and 5. values) go straight to their slots.
  const unsigned lower = (1u << lane) - 1u;
  const unsigned wh_addr = unsigned(__cvta_generic_to_shared(wh));
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const bool valid = FULL || wbase + unsigned(i) * 32u < tile_n;
    const unsigned d = digit_of(k[i], shift);
    unsigned peers = match_bits<8>(d);
    if (!FULL) peers &= __ballot_sync(0xFFFFFFFFu, valid);
    const int leader = 31 - __clz(peers);
    const unsigned first_slot = __shfl_sync(
        0xFFFFFFFFu,
        leader_add(wh_addr + 4u * d, unsigned(__popc(peers)), valid && int(lane) == leader),
        leader & 31);
    const unsigned r = first_slot + unsigned(__popc(peers & lower));
    if (valid) {
      sh.xk[r] = k[i];
      if (VMODE != 0) sh.xv[r] = v[i];
    }
  }

  // 6. Look-back for digit t.
  S excl = 0;
  if (tile != 0) {
    excl = lookback<S, LB>(state + t, tile);
    store_state(mine, S(PREFIX | S(excl + S(count))));
  }
  sh.gbase[t] = O(goff) + O(excl) - O(st);
  __syncthreads();

  // 7. Store.
  if (!last)
    onesweep_store<K, V, O, ITEMS, VMODE, KIND, true, false, false, FULL>(
        sh, tile_n, shift, kdst, vdst, vfin);
  else if (!WANT_KEYS)
    onesweep_store<K, V, O, ITEMS, VMODE, KIND, false, false, true, FULL>(
        sh, tile_n, shift, kdst, vdst, vfin);
  else
    onesweep_store<K, V, O, ITEMS, VMODE, KIND, true, DEC, true, FULL>(
        sh, tile_n, shift, kdst, vdst, vfin);
}

template <class K, int KIND, bool CANON, bool ENC, bool DEC, bool WANT_KEYS, int VMODE,
          class S, class O, class V, int ITEMS, int LB>
__device__ __forceinline__ void onesweep_pass(
    const K* __restrict__ kin, K* ktmp, K* kout, const long long* __restrict__ vin,
    V* vtmp, void* vout, long long n, int shift,
    const unsigned long long* __restrict__ offsets, S* state, unsigned* counter,
    const int* __restrict__ plan, int pass) {
  constexpr int TILE = BLOCK * ITEMS;
  __shared__ OnesweepShared<K, V, O, ITEMS, VMODE> sh;

  const int code = plan[pass];
  if (!(code & PLAN_RUN)) return;  // the whole grid leaves: a skipped pass
  const bool first = code & PLAN_FIRST, last = code & PLAN_LAST;
  const bool dst_out = code & PLAN_DST_OUT, src_out = code & PLAN_SRC_OUT;

  const unsigned t = threadIdx.x;
  if (t == 0) sh.tile = atomicAdd(counter, 1u);
  const unsigned long long goff = offsets[t];
#pragma unroll
  for (int w = 0; w < WARPS; ++w) sh.whist[w][t] = 0u;
  __syncthreads();
  const long long tile = sh.tile;
  const long long rest = n - tile * TILE;
  const unsigned tile_n = rest < TILE ? unsigned(rest) : unsigned(TILE);

  const K* ksrc = first ? kin : (src_out ? kout : ktmp);
  K* kdst = dst_out ? kout : ktmp;
  const V* vsrc = src_out ? reinterpret_cast<const V*>(vout) : vtmp;
  V* vdst = dst_out ? reinterpret_cast<V*>(vout) : vtmp;
  long long* vfin = reinterpret_cast<long long*>(vout);
  if (tile_n == unsigned(TILE))
    onesweep_tile<K, KIND, CANON, ENC, DEC, WANT_KEYS, VMODE, S, O, V, ITEMS, LB, true>(
        sh, ksrc, kdst, vin, vsrc, vdst, vfin, tile, tile_n, shift, goff, state, first, last);
  else
    onesweep_tile<K, KIND, CANON, ENC, DEC, WANT_KEYS, VMODE, S, O, V, ITEMS, LB, false>(
        sh, ksrc, kdst, vin, vsrc, vdst, vfin, tile, tile_n, shift, goff, state, first, last);
}

// ---- one block sorts one row of at most 256 * ITEMS keys in shared memory --
// Rows are contiguous, row r at keys_in + r * len. Keys are raw (encoded on
// load). VMODE 0: write decoded sorted keys; VMODE 2: write the stable
// argsort (positions within the row, int64) to vals_out.
template <class K, int KIND, bool CANON, int NPASS, int VMODE, int ITEMS>
__device__ __forceinline__ void block_sort(const K* __restrict__ keys_in,
                                           K* __restrict__ keys_out,
                                           long long* __restrict__ vals_out, int len) {
  constexpr int TILE = BLOCK * ITEMS;
  constexpr int XBYTES = (VMODE != 0) ? 8 : sizeof(K);
  __shared__ RankShared s;
  __shared__ __align__(16) unsigned char xbuf[TILE * XBYTES];
  const unsigned t = threadIdx.x, warp = t >> 5, lane = t & 31u;
  const long long row = blockIdx.x;
  keys_in += row * len;

  K k[ITEMS];
  unsigned v[ITEMS], pos[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const unsigned p = warp * 32u * ITEMS + i * 32u + lane;
    k[i] = (p < unsigned(len)) ? encode<K, KIND, CANON>(keys_in[p]) : K(0);
    v[i] = p;
  }
  for (int pass = 0; pass < NPASS; ++pass) {
    zero_hist(s);
    __syncthreads();
    unsigned count;
    rank_tile<K, ITEMS>(k, unsigned(len), 8 * pass, pos, count, s);
    K* xk = reinterpret_cast<K*>(xbuf);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const unsigned p = warp * 32u * ITEMS + i * 32u + lane;
      if (p < unsigned(len)) xk[pos[i]] = k[i];
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const unsigned p = warp * 32u * ITEMS + i * 32u + lane;
      if (p < unsigned(len)) k[i] = xk[p];
    }
    if (VMODE != 0) {
      __syncthreads();
      unsigned* xv = reinterpret_cast<unsigned*>(xbuf);
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const unsigned p = warp * 32u * ITEMS + i * 32u + lane;
        if (p < unsigned(len)) xv[pos[i]] = v[i];
      }
      __syncthreads();
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const unsigned p = warp * 32u * ITEMS + i * 32u + lane;
        if (p < unsigned(len)) v[i] = xv[p];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const unsigned p = warp * 32u * ITEMS + i * 32u + lane;
    if (p < unsigned(len)) {
      if (VMODE == 0) keys_out[row * len + p] = decode<K, KIND>(k[i]);
      else vals_out[row * len + p] = (long long)v[i];
    }
  }
}

// ---- radix words for multi-word sorts (complex keys, lexsort, rows) --------
// MODE 0: encoded real key src[e]; 1: imaginary word of complex src[2e+1];
// 2: real word of complex src[2e]; 3: NaN group of complex (2 bits);
// 4: row number e / len (src unused).
// e = perm ? perm[i] : i, then e = e * stride + offset (modes 0..3).
// NumPy's complex order: [R + Rj, R + nanj, nan + Rj, nan + nanj], each
// group sorted lexicographically on its non-NaN parts: the words are sorted
// LSD first (imaginary, real, group).
template <class K, class W, int KIND, int MODE>
__device__ __forceinline__ void radix_word(const K* __restrict__ src,
                                           const long long* __restrict__ perm,
                                           W* __restrict__ out, long long n,
                                           long long stride, long long offset,
                                           long long len) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long e = perm ? perm[i] : i;
  if (MODE == 4) {
    out[i] = W(e / len);
    return;
  }
  e = e * stride + offset;
  if (MODE == 0) {
    out[i] = W(encode<K, KIND, true>(src[e]));
    return;
  }
  const K re = src[2 * e], im = src[2 * e + 1];
  const K s = sign_bit<K>();
  const bool nre = K(re & K(~s)) > inf_bits<K>(), nim = K(im & K(~s)) > inf_bits<K>();
  if (MODE == 1) out[i] = nim ? W(0) : W(encode<K, 2, true>(im));
  else if (MODE == 2) out[i] = nre ? W(0) : W(encode<K, 2, true>(re));
  else out[i] = W((nre ? 2 : 0) | (nim ? 1 : 0));
}

}  // namespace sort
}  // namespace gs
