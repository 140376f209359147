// Device side of gpuscipy's scans, stream compaction and counting (the host
// side is gpuscipy_core/_routines/_scan.py and _compaction.py, the renderer
// _scan_source.py).
//
// Single-pass prefix scan with decoupled look-back (D. Merrill and
// M. Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back",
// NVIDIA Technical Report NVR-2016-002, 2016):
//
//   * Tiles of TILE = 256 * ITEMS consecutive elements. A block takes the
//     next tile number from a global counter (atomicAdd), so every tile with
//     a smaller number already runs on some SM: spinning on a predecessor can
//     never deadlock, whatever order the hardware starts blocks in.
//   * Each warp loads its own contiguous segment of 32 * ITEMS elements
//     striped (coalesced), transposes it through its own slice of shared
//     memory (__syncwarp only, no block-wide barrier) into a blocked
//     arrangement (thread t holds elements t * ITEMS .. t * ITEMS + ITEMS - 1),
//     scans sequentially per thread in the accumulator type, then across the
//     warp with shuffles, then across the 8 warps through shared memory in
//     the carry type (see "Accumulator and carry" below).
//   * The block publishes its aggregate (status A) at once, then the whole
//     block looks back over the 256 preceding tiles at a time (thread p
//     reads tile - 1 - p): it waits only for the X (invalid) tiles nearer
//     than the nearest tile with status P (inclusive prefix), adds the
//     values up to that P and stops, or adds all 256 aggregates and moves
//     256 tiles further back. Then it publishes its own inclusive prefix
//     (status P). Prefix knowledge moves at most one window per L2 round
//     trip, so the window must be wide: with 32 tiles per round (one warp)
//     2^16 tiles of 4096 floats serialised to ~1.5 ms on an H200; with 256
//     the chain is ~8x shorter than the tiles' own memory traffic.
//   * Loads and stores of whole, 16-byte aligned warp segments are 16-byte
//     vectors with streaming hints (__ldcs/__stcs: the data is touched once).
//
// Memory ordering of the tile descriptors. Carries of at most 8 bytes
// (all but complex<double>) share a 16-byte descriptor {status, value}
// with their status, written and read by single 16-byte relaxed accesses
// (see tile_state<A, true>): no fences at all. 16-byte carries use a
// status word and two value slots, `aggregate` and `inclusive`, each
// written exactly once:
//     writer:  slot = v (volatile word stores); fence.acq_rel.gpu; status = s;
//     reader:  s = status (volatile load, spin while X); fence.acq_rel.gpu;
//              v = slot named by s (volatile word loads).
// The writer's fence before the status store and the reader's fence after
// observing it form the PTX fence-fence synchronisation (release/acquire
// patterns with morally strong volatile accesses), so the slot store
// happens-before the slot load (fence.acq_rel is all these patterns need;
// __threadfence() is the stronger, slower fence.sc). A slot is never
// rewritten and the status only moves X -> A -> P, so whichever state the
// reader saw, the slot it reads holds the value that state announced.
// Values go through volatile word accesses (L1 is bypassed), which works
// for 16-byte complex accumulators that no single store could publish.
//
// Accumulator and carry. An operation has two value types: `acc_t`, in
// which each thread scans its ITEMS elements (registers: float for float16
// and float32 inputs, complex<float> for complex64), and `carry_t`, in which
// thread totals are combined across the block and tiles are chained by the
// look-back (double, complex<double>). Each output is
// finish(acc_t(exclusive carry) (+) thread-local inclusive acc), so the long
// chain across tiles -- where a float32 running sum would lose the most --
// is in double, while the per-element work stays in 4-byte registers (half
// the registers of a double accumulator: more resident blocks, more bytes in
// flight). For the other types acc_t == carry_t.
//
// Alignment. Packed descriptors: [counter 8 B | pad 8 B][16 B per tile];
// wide: [counter 8 B | pad 8 B][status words, padded to a multiple of
// 16 B][aggregate slots][inclusive slots]. With a base aligned to 256 B
// (every pool allocation) every descriptor and slot is 16-byte aligned.
// Shared-memory staging buffers are alignas(16).
//
// Batched scans along the last axis of a C-contiguous (rows, n) array use
// the same kernel with tiles aligned to rows: tile k of a row looks back
// only as far as tile 0 of that row, which publishes P immediately.
//
// Scans along an axis that is not the fastest (a C-contiguous
// (outer, n, inner) array scanned along n) use one thread per (outer, inner)
// line, consecutive threads on consecutive inner indices, so every step of
// the sequential loop is a coalesced access.
#pragma once
#include <gpuscipy/types.cuh>

namespace gs {
namespace scan {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

enum : int { kStatusInvalid = 0, kStatusAggregate = 1, kStatusPrefix = 2 };

// ---------------------------------------------------------------------------
// Word-wise helpers: shuffles and L1-bypassing accesses of any value type
// whose size is a multiple of 4 bytes.
// ---------------------------------------------------------------------------
template <class T> GS_FI T shfl_up(const T& v, int delta) {
  static_assert(sizeof(T) % 4 == 0, "scan value types are whole 32-bit words");
  constexpr int W = sizeof(T) / 4;
  T r;
  const unsigned int* s = reinterpret_cast<const unsigned int*>(&v);
  unsigned int* d = reinterpret_cast<unsigned int*>(&r);
#pragma unroll
  for (int i = 0; i < W; ++i) d[i] = __shfl_up_sync(0xffffffffu, s[i], delta);
  return r;
}

template <class T> GS_FI T shfl_xor(const T& v, int mask) {
  constexpr int W = sizeof(T) / 4;
  T r;
  const unsigned int* s = reinterpret_cast<const unsigned int*>(&v);
  unsigned int* d = reinterpret_cast<unsigned int*>(&r);
#pragma unroll
  for (int i = 0; i < W; ++i) d[i] = __shfl_xor_sync(0xffffffffu, s[i], mask);
  return r;
}

template <class T> GS_FI T shfl_idx(const T& v, int lane) {
  constexpr int W = sizeof(T) / 4;
  T r;
  const unsigned int* s = reinterpret_cast<const unsigned int*>(&v);
  unsigned int* d = reinterpret_cast<unsigned int*>(&r);
#pragma unroll
  for (int i = 0; i < W; ++i) d[i] = __shfl_sync(0xffffffffu, s[i], lane);
  return r;
}

// Release/acquire fence at GPU scope (cheaper than __threadfence(), which is
// fence.sc.gpu).
GS_FI void fence_acq_rel() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

template <class T> GS_FI void store_volatile(T* p, const T& v) {
  static_assert(sizeof(T) % 4 == 0, "scan value types are whole 32-bit words");
  constexpr int W = sizeof(T) / 4;
  const unsigned int* s = reinterpret_cast<const unsigned int*>(&v);
  volatile unsigned int* d = reinterpret_cast<volatile unsigned int*>(p);
#pragma unroll
  for (int i = 0; i < W; ++i) d[i] = s[i];
}

template <class T> GS_FI T load_volatile(const T* p) {
  constexpr int W = sizeof(T) / 4;
  T r;
  unsigned int* d = reinterpret_cast<unsigned int*>(&r);
  const volatile unsigned int* s = reinterpret_cast<const volatile unsigned int*>(p);
#pragma unroll
  for (int i = 0; i < W; ++i) d[i] = s[i];
  return r;
}

// ---------------------------------------------------------------------------
// Tile descriptors (one allocation, zeroed by the host before the launch).
//
// Packed (carry types of at most 8 bytes: every scan but complex128, and the
// compaction counts): [counter: 8 bytes, pad to 16][desc: ntiles x 16 bytes],
// desc[t] = {status (8 bytes), value bits (8 bytes)} written and read as ONE
// 16-byte access (st/ld.relaxed.gpu.v2.u64 on a 16-byte aligned address), so
// a reader that sees a status sees the value published with it: no fence on
// either side, and one L2 round trip per poll. (The PTX memory model
// specifies vector accesses element-wise; an aligned 16-byte access is one
// L2 sector transaction on every NVIDIA GPU, which CUB's ScanTileState has
// relied on for its 8-byte values since 2016.)
//
// Wide (16-byte carries, complex<double>):
//   [counter: 8 bytes, pad to 16][status: ntiles ints, padded to 16]
//   [aggregate: ntiles A, padded to 16][inclusive: ntiles A, padded to 16]
// with the fence protocol described at the top of this file.
// (Both mirrored by _scan_source.state_layout / state_bytes.)
// ---------------------------------------------------------------------------
template <class A, bool PACKED = (sizeof(A) <= 8)> struct tile_state;

template <class A> struct tile_state<A, true> {
  static_assert(sizeof(A) == 4 || sizeof(A) == 8, "packed slots hold 4- or 8-byte values");
  unsigned long long* counter;
  unsigned long long* desc;   // 2 words per tile

  GS_FI tile_state(void* base, long long) {
    char* p = reinterpret_cast<char*>(base);
    counter = reinterpret_cast<unsigned long long*>(p);
    desc = reinterpret_cast<unsigned long long*>(p + 16);
  }

  GS_FI void publish(long long tile, const A& v, int s) {
    unsigned long long bits = 0;
    memcpy(&bits, &v, sizeof(A));
    const unsigned long long st = (unsigned long long)s;
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};"
                 :: "l"(desc + 2 * tile), "l"(st), "l"(bits) : "memory");
  }

  // Status of `tile` and, when it is not X, the value published with it.
  GS_FI void poll(long long tile, int& s, A& v) const {
    unsigned long long st, bits;
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(st), "=l"(bits) : "l"(desc + 2 * tile) : "memory");
    s = (int)st;
    memcpy(&v, &bits, sizeof(A));
  }
};

template <class A> struct tile_state<A, false> {
  static_assert(alignof(A) <= 16, "tile slots are aligned to 16 bytes");
  unsigned long long* counter;
  int* status;
  A* aggregate;
  A* inclusive;

  GS_FI tile_state(void* base, long long ntiles) {
    char* p = reinterpret_cast<char*>(base);
    counter = reinterpret_cast<unsigned long long*>(p);
    status = reinterpret_cast<int*>(p + 16);
    const long long sbytes = ((ntiles * 4 + 15) / 16) * 16;
    aggregate = reinterpret_cast<A*>(p + 16 + sbytes);
    const long long abytes = ((ntiles * (long long)sizeof(A) + 15) / 16) * 16;
    inclusive = reinterpret_cast<A*>(p + 16 + sbytes + abytes);
  }

  GS_FI void publish(long long tile, const A& v, int s) {
    store_volatile(s == kStatusPrefix ? inclusive + tile : aggregate + tile, v);
    fence_acq_rel();   // release: the slot is visible before the status
    *reinterpret_cast<volatile int*>(status + tile) = s;
  }

  GS_FI void poll(long long tile, int& s, A& v) const {
    s = *reinterpret_cast<const volatile int*>(status + tile);
    if (s != kStatusInvalid) {
      fence_acq_rel();   // acquire: the slot named by s is visible now
      v = (s == kStatusPrefix) ? load_volatile(inclusive + tile)
                               : load_volatile(aggregate + tile);
    }
  }
};

// ---------------------------------------------------------------------------
// Block-wide pieces
// ---------------------------------------------------------------------------

// Inclusive scan of one value per lane across the warp (Kogge-Stone).
template <class Op, class A> GS_FI A warp_inclusive(A x, int lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    A y = shfl_up(x, d);
    if (lane >= d) x = Op::combine(y, x);
  }
  return x;
}

template <class Op, class A> GS_FI A warp_reduce(A x) {
#pragma unroll
  for (int d = 16; d >= 1; d >>= 1) x = Op::combine(x, shfl_xor(x, d));
  return x;
}

// Given each thread's total, the thread's exclusive prefix within the block
// and the block aggregate. Contains __syncthreads.
template <class Op, class A>
GS_FI A block_exclusive(A total, A* warp_totals, A& block_total) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  A inc = warp_inclusive<Op>(total, lane);
  A exc = shfl_up(inc, 1);
  if (lane == 0) exc = Op::template id<A>();
  if (lane == 31) warp_totals[warp] = inc;
  __syncthreads();
  A before = Op::template id<A>();
  A all = Op::template id<A>();
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    const A t = warp_totals[w];
    if (w < warp) before = Op::combine(before, t);
    all = Op::combine(all, t);
  }
  block_total = all;
  return Op::combine(before, exc);
}

// Decoupled look-back, run by the WHOLE block (every thread must call it;
// contains __syncthreads) for tile `tile` whose row starts at tile `first`
// (< tile). Returns the exclusive prefix of the tile in every thread.
//
// Window: each round, thread p reads the descriptor of tile pred - p, so
// the block reads the kThreads = 256 nearest unvisited predecessors at once
// (one 16-byte load per thread: one L2 round trip per round, one register
// slot per thread). It then waits only for the X (not yet published) tiles
// NEARER than the nearest P (warp ballots, combined through shared memory),
// combines the values up to and including that P, and stops; with no P in
// the window it combines all 256 and moves 256 tiles further back.
// Why a wide window: knowledge of inclusive prefixes travels at most one
// window per round trip (a tile publishes P only after seeing one), so a
// window of 32 tiles caps a scan at 32 tiles per ~0.5-1 us -- 2^16 tiles
// of 2^28 floats then take >= 1 ms whatever the bandwidth. With 256 tiles
// per round the chain (256 rounds for 2^16 tiles) is far shorter than the
// tiles' memory traffic. The rest of the block would be idle waiting for
// the prefix anyway, so using it costs nothing.
template <class Op, class A, class St>
GS_DEV A look_back(const St& st, long long tile, long long first,
                   unsigned int (&masks)[2 * kWarps], A (&partials)[kWarps]) {
  constexpr int W = kThreads;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  A running = Op::template id<A>();
  long long pred = tile - 1;
  while (true) {
    const long long j = pred - threadIdx.x;
    int s = kStatusPrefix;
    A v = Op::template id<A>();
    // tiles before the row's first tile count as P with the identity; the
    // first tile itself always publishes P, so the nearest P is in the row
    if (j >= first) st.poll(j, s, v);
    int stop;   // window position of the nearest P, W when there is none
    while (true) {
      const unsigned int pm = __ballot_sync(0xffffffffu, s == kStatusPrefix);
      const unsigned int xm = __ballot_sync(0xffffffffu, s == kStatusInvalid);
      if (lane == 0) {
        masks[warp] = pm;
        masks[kWarps + warp] = xm;
      }
      __syncthreads();
      stop = W;
      bool pending = false;   // an X nearer than the nearest P
#pragma unroll
      for (int w = 0; w < kWarps; ++w) {
        const unsigned int p = masks[w], x = masks[kWarps + w];
        if (stop == W) {
          if (p) {
            const int l = __ffs(p) - 1;
            stop = 32 * w + l;
            if (x & ((1u << l) - 1u)) pending = true;
          } else if (x) {
            pending = true;
          }
        }
      }
      __syncthreads();   // the masks are rewritten by the next iteration
      if (!pending) break;   // block-uniform
      if (s == kStatusInvalid) st.poll(j, s, v);
    }
    A part = (int)threadIdx.x <= stop ? v : Op::template id<A>();
    part = warp_reduce<Op>(part);
    if (lane == 0) partials[warp] = part;
    __syncthreads();
    A window = Op::template id<A>();
#pragma unroll
    for (int w = 0; w < kWarps; ++w) window = Op::combine(window, partials[w]);
    __syncthreads();   // the partials are rewritten by the next round
    running = Op::combine(window, running);
    if (stop < W) break;
    pred -= W;
  }
  return running;
}

// ---------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------
GS_FI bool is_nan_value(float x) { return ::isnan(x); }
GS_FI bool is_nan_value(double x) { return ::isnan(x); }
GS_FI bool is_nan_value(half x) { return (x.bits & 0x7fffu) > 0x7c00u; }
template <class T> GS_FI bool is_nan_value(const complex<T>& z) {
  return ::isnan(z.re) || ::isnan(z.im);
}
template <class T> GS_FI bool is_nan_value(const T&) { return false; }

// Sum (PROD = false) or product of values converted In -> Comp (NumPy's loop
// dtype) -> Acc (the per-thread accumulator), carried across threads and
// tiles in Carry, written as Out. NAN_SKIP: NaN inputs count as the
// identity (nancumsum / nancumprod).
template <class In, class Comp, class Acc, class Carry, class Out, bool PROD, bool NAN_SKIP>
struct arith_op {
  typedef In in_t;
  typedef Acc acc_t;
  typedef Carry carry_t;
  typedef Out out_t;
  template <class T> static GS_FI T id() { return PROD ? T(1) : T(0); }
  static GS_FI Acc identity() { return id<Acc>(); }
  template <class T> static GS_FI T combine(const T& a, const T& b) {
    return PROD ? a * b : a + b;
  }
  static GS_FI Acc map(const In& x) {
    if (NAN_SKIP && is_nan_value(x)) return identity();
    return cast<Acc>(cast<Comp>(x));
  }
  static GS_FI Carry to_carry(const Acc& a) { return cast<Carry>(a); }
  static GS_FI Acc to_acc(const Carry& c) { return cast<Acc>(c); }
  static GS_FI Out finish(const Acc& a) { return cast<Out>(cast<Comp>(a)); }
  static GS_FI Out finish_carry(const Carry& c) { return cast<Out>(cast<Comp>(c)); }
};

// Count of nonzero values (stream compaction ranks).
template <class In> struct count_op {
  typedef In in_t;
  typedef long long acc_t;
  typedef long long carry_t;
  typedef long long out_t;
  template <class T> static GS_FI T id() { return T(0); }
  static GS_FI long long identity() { return 0; }
  template <class T> static GS_FI T combine(const T& a, const T& b) { return a + b; }
  static GS_FI long long map(const In& x) { return cast<bool>(x) ? 1 : 0; }
};

// ---------------------------------------------------------------------------
// Tile loads/stores through shared memory (warp-striped global <-> blocked
// registers). Warp w owns elements [w * 32 * ITEMS, (w + 1) * 32 * ITEMS) of
// the tile and its own slice of the buffer, so the transposes need only
// __syncwarp. Lane l of warp w ends up with elements (32 w + l) * ITEMS + k:
// the same blocked arrangement as a block-wide transpose.
// ---------------------------------------------------------------------------
GS_FI int padded(int i) { return i + (i >> 5); }   // one pad slot per 32

template <int ITEMS, int BYTES>
struct tile_buffer {
  static constexpr int kTile = kThreads * ITEMS;
  static constexpr int kWarpSlots = 32 * ITEMS + ITEMS;   // padded(32 * ITEMS - 1) < this
  static constexpr int kSlots = kWarps * kWarpSlots;
  static_assert(BYTES == 1 || BYTES == 2 || BYTES == 4 || BYTES == 8 || BYTES == 16,
                "element sizes are powers of two up to 16 bytes");
  alignas(16) unsigned char raw[kSlots * BYTES];
  template <class T> GS_FI T* warp_slice() {
    static_assert(sizeof(T) <= BYTES, "buffer sized for a smaller element");
    return reinterpret_cast<T*>(raw) + (threadIdx.x >> 5) * kWarpSlots;
  }
};

// Load up to `valid` elements of a tile starting at `src` into registers
// (blocked): item k of thread t is element t * ITEMS + k. Invalid items get
// the identity. Ends with a __syncwarp (the warp's slice is free again).
template <class Op, int ITEMS, class Buf>
GS_FI void load_blocked(const typename Op::in_t* __restrict__ src, int valid, Buf& buf,
                        typename Op::acc_t (&acc)[ITEMS]) {
  typedef typename Op::in_t In;
  In* sm = buf.template warp_slice<In>();
  const int lane = threadIdx.x & 31;
  const int base = (threadIdx.x >> 5) * (32 * ITEMS);
  // 16-byte vectors when the warp's whole segment is valid and aligned
  // (fewer, wider, streaming loads; the element order is unchanged)
  constexpr int V = 16 / (int)sizeof(In);
  constexpr bool kVec = V > 1 && ITEMS % V == 0;
  constexpr int NV = kVec ? ITEMS / V : 1;
  if (kVec && base + 32 * ITEMS <= valid &&
      (reinterpret_cast<unsigned long long>(src + base) & 15ull) == 0) {
    const uint4* vp = reinterpret_cast<const uint4*>(src + base);
    uint4 w[NV];
#pragma unroll
    for (int k = 0; k < NV; ++k) w[k] = __ldcs(vp + lane + 32 * k);
#pragma unroll
    for (int k = 0; k < NV; ++k) {
      const In* e = reinterpret_cast<const In*>(&w[k]);
      const int i0 = (lane + 32 * k) * V;   // V | 32: never crosses a pad slot
#pragma unroll
      for (int q = 0; q < V; ++q) sm[padded(i0 + q)] = e[q];
    }
  } else {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      const int i = lane + 32 * k;
      if (base + i < valid) sm[padded(i)] = src[base + i];
    }
  }
  __syncwarp();
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const int i = lane * ITEMS + k;
    acc[k] = base + i < valid ? Op::map(sm[padded(i)]) : Op::identity();
  }
  __syncwarp();
}

// Store the blocked values v (thread t: elements t * ITEMS + k) to
// dst[0 .. valid). Uses the warp's slice of the buffer (free after
// load_blocked).
template <class Out, int ITEMS, class Buf>
GS_FI void store_blocked(Out* __restrict__ dst, int valid, Buf& buf, const Out (&v)[ITEMS]) {
  Out* sm = buf.template warp_slice<Out>();
  const int lane = threadIdx.x & 31;
  const int base = (threadIdx.x >> 5) * (32 * ITEMS);
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) sm[padded(lane * ITEMS + k)] = v[k];
  __syncwarp();
  constexpr int V = 16 / (int)sizeof(Out);
  constexpr bool kVec = V > 1 && ITEMS % V == 0;
  constexpr int NV = kVec ? ITEMS / V : 1;
  if (kVec && base + 32 * ITEMS <= valid &&
      (reinterpret_cast<unsigned long long>(dst + base) & 15ull) == 0) {
    uint4* vp = reinterpret_cast<uint4*>(dst + base);
#pragma unroll
    for (int k = 0; k < NV; ++k) {
      uint4 w;
      Out* e = reinterpret_cast<Out*>(&w);
      const int i0 = (lane + 32 * k) * V;
#pragma unroll
      for (int q = 0; q < V; ++q) e[q] = sm[padded(i0 + q)];
      __stcs(vp + lane + 32 * k, w);
    }
  } else {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      const int i = lane + 32 * k;
      if (base + i < valid) dst[base + i] = sm[padded(i)];
    }
  }
}

// ---------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------

// Inclusive scan of each row of a (rows, n) array; rows of `in` are
// `in_row` elements apart, rows of `out` `out_row` elements apart, elements
// of a row are contiguous. Tiles: tiles_per_row per row, ntiles in all.
template <class Op, int ITEMS, int BYTES>
GS_DEV void scan_rows(const typename Op::in_t* __restrict__ in, typename Op::out_t* __restrict__ out,
                      long long n, long long in_row, long long out_row,
                      long long tiles_per_row, long long ntiles, void* state) {
  typedef typename Op::acc_t A;
  typedef typename Op::carry_t C;
  typedef typename Op::out_t Out;
  constexpr int TILE = kThreads * ITEMS;
  __shared__ tile_buffer<ITEMS, BYTES> buf;
  __shared__ C warp_totals[kWarps];
  __shared__ C lb_partials[kWarps];
  __shared__ unsigned int lb_masks[2 * kWarps];
  __shared__ long long tile_id;
  tile_state<C> st(state, ntiles);
  if (threadIdx.x == 0) tile_id = (long long)atomicAdd(st.counter, 1ull);
  __syncthreads();
  const long long tile = tile_id;
  const long long row = tile / tiles_per_row;
  const long long k = tile - row * tiles_per_row;
  const long long start = k * TILE;
  const int valid = (int)(n - start < TILE ? n - start : TILE);

  A acc[ITEMS];
  load_blocked<Op, ITEMS>(in + row * in_row + start, valid, buf, acc);
#pragma unroll
  for (int i = 1; i < ITEMS; ++i) acc[i] = Op::combine(acc[i - 1], acc[i]);
  C block_total;
  C exc = block_exclusive<Op>(Op::to_carry(acc[ITEMS - 1]), warp_totals, block_total);

  if (k == 0) {
    if (threadIdx.x == 0 && tiles_per_row > 1) st.publish(tile, block_total, kStatusPrefix);
  } else {
    if (threadIdx.x == 0) st.publish(tile, block_total, kStatusAggregate);
    const C prefix = look_back<Op, C>(st, tile, tile - k, lb_masks, lb_partials);
    if (threadIdx.x == 0) st.publish(tile, Op::combine(prefix, block_total), kStatusPrefix);
    exc = Op::combine(prefix, exc);
  }
  const A base = Op::to_acc(exc);   // one rounding of the carry per thread
  Out res[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) res[i] = Op::finish(Op::combine(base, acc[i]));
  store_blocked<Out, ITEMS>(out + row * out_row + start, valid, buf, res);
}

// Inclusive scan along the middle axis of C-contiguous (outer, n, inner)
// arrays, one thread per (outer, inner) line.
template <class Op>
GS_DEV void scan_lines(const typename Op::in_t* __restrict__ in, typename Op::out_t* __restrict__ out,
                       long long outer, long long n, long long inner) {
  typedef typename Op::carry_t C;
  const long long lines = outer * inner;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < lines;
       g += (long long)gridDim.x * blockDim.x) {
    const long long o = g / inner, i = g - o * inner;
    const long long base = o * n * inner + i;
    C a = Op::template id<C>();   // sequential: accumulate in the carry type
    for (long long j = 0; j < n; ++j) {
      a = Op::combine(a, Op::to_carry(Op::map(in[base + j * inner])));
      out[base + j * inner] = Op::finish_carry(a);
    }
  }
}

// ---------------------------------------------------------------------------
// Stream compaction: one look-back pass over the flags of a C-contiguous
// array; each nonzero element learns its rank (the number of nonzero
// elements before it) and the Action does the rest:
//   index_action: writes the element's multi-index, coordinate d to
//       out[d * count + rank] (NumPy's nonzero order; ndim rows)
//   select_action: out[rank] = cast(src[i])            (extract, compress)
//   place_action: dst[i] = vals[rank % nvals]          (place)
// ---------------------------------------------------------------------------
constexpr int kMaxDims = 64;
struct dims_t { long long d[kMaxDims]; };

struct index_action {
  long long* out;
  long long count;
  int ndim;
  dims_t shape;
  GS_FI void operator()(long long i, long long rank) const {
    for (int d = ndim - 1; d > 0; --d) {
      const long long q = i / shape.d[d];
      out[d * count + rank] = i - q * shape.d[d];
      i = q;
    }
    out[rank] = i;
  }
};

template <class S, class D> struct select_action {
  const S* src;
  D* out;
  GS_FI void operator()(long long i, long long rank) const { out[rank] = cast<D>(src[i]); }
};

template <class D> struct place_action {
  D* dst;
  const D* vals;
  long long nvals;
  GS_FI void operator()(long long i, long long rank) const { dst[i] = vals[rank % nvals]; }
};

template <class In, int ITEMS, int BYTES, class Action>
GS_DEV void compact(const In* __restrict__ flags, long long n, long long ntiles, void* state,
                    const Action& act) {
  typedef count_op<In> Op;
  typedef long long A;
  constexpr int TILE = kThreads * ITEMS;
  __shared__ tile_buffer<ITEMS, BYTES> buf;
  __shared__ A warp_totals[kWarps];
  __shared__ A lb_partials[kWarps];
  __shared__ unsigned int lb_masks[2 * kWarps];
  __shared__ long long tile_id;
  tile_state<A> st(state, ntiles);
  if (threadIdx.x == 0) tile_id = (long long)atomicAdd(st.counter, 1ull);
  __syncthreads();
  const long long tile = tile_id;
  const long long start = tile * TILE;
  const int valid = (int)(n - start < TILE ? n - start : TILE);
  A acc[ITEMS];
  load_blocked<Op, ITEMS>(flags + start, valid, buf, acc);
  A total = 0;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) total += acc[i];
  A block_total;
  const A exc = block_exclusive<Op>(total, warp_totals, block_total);
  A rank = exc;
  if (tile == 0) {
    if (threadIdx.x == 0 && ntiles > 1) st.publish(tile, block_total, kStatusPrefix);
  } else {
    if (threadIdx.x == 0) st.publish(tile, block_total, kStatusAggregate);
    const A prefix = look_back<Op, A>(st, tile, 0, lb_masks, lb_partials);
    if (threadIdx.x == 0) st.publish(tile, prefix + block_total, kStatusPrefix);
    rank += prefix;
  }
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    if (acc[k]) {
      act(start + threadIdx.x * ITEMS + k, rank);
      ++rank;
    }
  }
}

// ---------------------------------------------------------------------------
// Gathers
// ---------------------------------------------------------------------------

// out[o, k, i] = src[o, idx[k], i] for C-contiguous src (outer, n, inner)
// and out (outer, m, inner): compress along an axis.
template <class T>
GS_DEV void gather_axis(const T* __restrict__ src, const long long* __restrict__ idx,
                        T* __restrict__ out, long long outer, long long n, long long m,
                        long long inner) {
  const long long total = outer * m * inner;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < total;
       g += (long long)gridDim.x * blockDim.x) {
    const long long i = g % inner;
    const long long r = g / inner;
    const long long k = r % m, o = r / m;
    out[g] = src[(o * n + idx[k]) * inner + i];
  }
}

// ---------------------------------------------------------------------------
// Binning: bin of x among sorted edges e[0..nedges-1] (C = comparison type)
// ---------------------------------------------------------------------------

// Largest i with e[i] <= x (-1 when x < e[0]); NaN compares false.
template <class C> GS_FI long long last_le(const C* e, long long nedges, C x) {
  long long lo = 0, hi = nedges;   // answer in [lo - 1, hi - 1]
  while (lo < hi) {
    const long long mid = (lo + hi) >> 1;
    if (e[mid] <= x) lo = mid + 1; else hi = mid;
  }
  return lo - 1;
}

// NumPy's searchsorted(e, x, side): number of edges < x ('left') or
// <= x ('right'), with NaN sorted last (a NaN x is after every edge; a NaN
// edge is after every x).
template <class C> GS_FI bool before(C a, C b) {   // a < b, NaN last
  return a < b || (b != b && a == a);
}
template <class C> GS_FI long long search(const C* e, long long nedges, C x, bool right) {
  long long lo = 0, hi = nedges;
  while (lo < hi) {
    const long long mid = (lo + hi) >> 1;
    const bool go = right ? !before(x, e[mid]) : before(e[mid], x);
    if (go) lo = mid + 1; else hi = mid;
  }
  return lo;
}

}  // namespace scan
}  // namespace gs
