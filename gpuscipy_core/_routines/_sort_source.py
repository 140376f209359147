"""Kernel sources for sorting and searching (pure functions of a spec).

Each function returns ``(source, name)``: one ``extern "C"`` kernel that
instantiates a template of ``gpuscipy/sort.cuh``. The name encodes the spec so
a profiler trace reads itself. Nothing here touches a device: CI compiles
every variant with NVRTC (tests/core/test_sorting.py).

Key types are the unsigned integers of the key's width (``K``); ``kind`` says
how the bits are ordered: ``"u"`` unsigned or bool, ``"i"`` signed integer,
``"f"`` IEEE float (float16, float32, float64).
"""

import functools

__all__ = ["UTYPES", "KINDS", "HIST_ITEMS", "onesweep_config", "onesweep_items",
           "histogram_source",
           "scan_source",
           "onesweep_source", "block_sort_source", "radix_word_source",
           "gather_source", "row_index_source", "flags_source", "tile_sum_source",
           "tile_scan_source", "unique_scatter_source", "searchsorted_source",
           "iota_source", "counts_source"]

UTYPES = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
          8: "unsigned long long"}
KINDS = {"u": 0, "i": 1, "f": 2}

_HEAD = '#include <gpuscipy/sort.cuh>\n'


def _k(width):
    return UTYPES[width]


HIST_ITEMS = 8               # keys per thread per round of the histogram


def onesweep_config(width, value_width=0):
    """(keys per thread, blocks per SM) of a onesweep pass (256 threads).

    Three blocks of 256 threads per SM (24 warps, as many as CUB's onesweep
    runs on sm_90: 2 blocks of 384) hide the latencies of the ranking
    better than two; that caps a thread at 80 registers, which 20 keys of
    <= 4 bytes fit without spilling (24 spill in the rank loop). A tile's
    keys and values sit in shared memory side by side (one exchange, no
    second round), so tiles shrink as the bytes per key grow: a block
    stays under the 48 KiB of static shared memory (x3 < 228 KiB per SM).
    """
    if not value_width:
        return (20, 3) if width <= 4 else (16, 3)   # 5120 / 4096 keys
    per_key = width + value_width
    if value_width > 4:
        return 8, 3           # 64-bit values (n >= 2^32): no spills
    if per_key <= 8:
        return 16, 3          # 4096 keys: 32 KiB + 9 KiB of counters
    if per_key <= 12:
        return 12, 3          # 3072 keys: 36 KiB
    return 8, 3               # 2048 keys of 8 + 8 bytes: 32 KiB


def onesweep_items(width, value_width=0):
    """Keys per thread of a onesweep tile (see :func:`onesweep_config`)."""
    return onesweep_config(width, value_width)[0]


@functools.lru_cache(maxsize=None)
def histogram_source(width, kind, canon, enc, npass):
    name = f"gs_sort_hist_u{8 * width}_{kind}_c{int(canon)}_e{int(enc)}_p{npass}"
    k = _k(width)
    src = (_HEAD + f'extern "C" __global__ void __launch_bounds__(256) {name}(\n'
           f"    const {k}* keys, long long n, unsigned long long* hist) {{\n"
           f"  gs::sort::histogram<{k}, {KINDS[kind]}, {str(canon).lower()}, "
           f"{str(enc).lower()}, {npass}, {HIST_ITEMS}>(keys, n, hist);\n}}\n")
    return src, name


@functools.lru_cache(maxsize=None)
def scan_source(npass):
    """Exclusive scan of the npass digit histograms and the pass plan."""
    name = f"gs_sort_scan_plan_p{npass}"
    src = (_HEAD + f'extern "C" __global__ void __launch_bounds__(256) '
           f"{name}(unsigned long long* hist, long long n, int* plan) {{\n"
           f"  gs::sort::scan_plan<{npass}>(hist, n, plan);\n}}\n")
    return src, name


@functools.lru_cache(maxsize=None)
def onesweep_source(width, kind, canon, enc, dec, want_keys, vmode, state_width,
                    value_width=4, items=None, min_blocks=None):
    """One digit pass (gs::sort::onesweep_pass).

    vmode: 0 keys only, 1 int64 values in, 2 values = input positions.
    state_width 4 (n < 2^30, 32-bit offsets) or 8; value_width: bytes of the
    values between passes (4 when n < 2^32). ``items`` (keys per thread) and
    ``min_blocks`` (blocks per SM, the second ``__launch_bounds__`` argument)
    default to :func:`onesweep_config`. The look-back window is 16 words of
    32-bit state, 8 of 64-bit.
    """
    ditems, dmin = onesweep_config(width, value_width if vmode else 0)
    items = ditems if items is None else items
    min_blocks = dmin if min_blocks is None else min_blocks
    lb = 16 if state_width == 4 else 8
    name = (f"gs_sort_onesweep_u{8 * width}_{kind}_c{int(canon)}_e{int(enc)}"
            f"_d{int(dec)}_w{int(want_keys)}_v{vmode}_s{8 * state_width}"
            f"_x{8 * value_width}_i{items}_b{min_blocks}")
    k = _k(width)
    s = _k(state_width)
    v = _k(value_width)
    o = "unsigned int" if state_width == 4 else "long long"
    b = lambda x: str(bool(x)).lower()  # noqa: E731
    src = (_HEAD + f'extern "C" __global__ void __launch_bounds__(256, {min_blocks}) '
           f"{name}(\n"
           f"    const {k}* kin, {k}* ktmp, {k}* kout, const long long* vin,\n"
           f"    {v}* vtmp, void* vout, long long n, int shift,\n"
           f"    const unsigned long long* offsets, {s}* state, unsigned* counter,\n"
           "    const int* plan, int pass) {\n"
           f"  gs::sort::onesweep_pass<{k}, {KINDS[kind]}, {b(canon)}, {b(enc)}, "
           f"{b(dec)}, {b(want_keys)}, {vmode}, {s}, {o}, {v}, {items}, {lb}>(\n"
           "      kin, ktmp, kout, vin, vtmp, vout, n, shift, offsets, state, counter,\n"
           "      plan, pass);\n}\n")
    return src, name


@functools.lru_cache(maxsize=None)
def block_sort_source(width, kind, canon, npass, vmode, items):
    """One block per row of <= 256*items keys. vmode 0: keys out; 2: argsort out."""
    name = (f"gs_sort_block_u{8 * width}_{kind}_c{int(canon)}_p{npass}_v{vmode}"
            f"_i{items}")
    k = _k(width)
    src = (_HEAD + f'extern "C" __global__ void __launch_bounds__(256) {name}(\n'
           f"    const {k}* keys_in, {k}* keys_out, long long* vals_out, int len) {{\n"
           f"  gs::sort::block_sort<{k}, {KINDS[kind]}, {str(canon).lower()}, {npass}, "
           f"{vmode}, {items}>(keys_in, keys_out, vals_out, len);\n}}\n")
    return src, name


@functools.lru_cache(maxsize=None)
def radix_word_source(width, out_width, kind, mode):
    """Radix word of a key (see gs::sort::radix_word for the modes)."""
    name = f"gs_sort_word_u{8 * width}_u{8 * out_width}_{kind}_m{mode}"
    k, w = _k(width), _k(out_width)
    src = (_HEAD + f'extern "C" __global__ void __launch_bounds__(256) {name}(\n'
           f"    const {k}* src, const long long* perm, {w}* out, long long n,\n"
           "    long long stride, long long offset, long long len) {\n"
           f"  gs::sort::radix_word<{k}, {w}, {KINDS[kind]}, {mode}>(src, perm, out, n, "
           "stride, offset, len);\n}\n")
    return src, name


# ---- small helper kernels (self-contained, no sort.cuh templates) ---------

_ELEM = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
         8: "unsigned long long", 16: "ulonglong2"}


@functools.lru_cache(maxsize=None)
def gather_source(itemsize):
    """out[i] = src[idx[i] * stride + offset] for elements of ``itemsize`` bytes."""
    name = f"gs_sort_gather_b{itemsize}"
    t = _ELEM[itemsize]
    src = (f'extern "C" __global__ void __launch_bounds__(256) {name}(\n'
           f"    const {t}* __restrict__ src, const long long* __restrict__ idx,\n"
           f"    {t}* __restrict__ out, long long n, long long stride, long long offset) {{\n"
           "  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (i < n) out[i] = src[idx[i] * stride + offset];\n}\n")
    return src, name


@functools.lru_cache(maxsize=None)
def row_index_source():
    """out[i] = perm[i] % len (position within its row of a row-major sort)."""
    name = "gs_sort_row_index"
    src = (f'extern "C" __global__ void __launch_bounds__(256) {name}(\n'
           "    const long long* __restrict__ perm, long long* __restrict__ out,\n"
           "    long long n, long long len) {\n"
           "  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (i < n) out[i] = perm[i] % len;\n}\n")
    return src, name


@functools.lru_cache(maxsize=None)
def iota_source():
    name = "gs_sort_iota"
    src = (f'extern "C" __global__ void __launch_bounds__(256) {name}(\n'
           "    long long* __restrict__ out, long long n) {\n"
           "  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (i < n) out[i] = i;\n}\n")
    return src, name


@functools.lru_cache(maxsize=None)
def flags_source(width, columns):
    """flag[i] = 1 where sorted row i differs from row i-1 (flag[0] = 1).

    ``words`` holds the radix words back to back (each ``n`` long, already
    in sorted order). ``columns`` is a tuple of column codes, each owning
    consecutive words: ``"r"`` one real word, plain equality; ``"rn"`` one
    real float word in which the canonical NaN (all ones) never equals;
    ``"c"``/``"cn"`` three complex words (imaginary, real, NaN group): values
    with a NaN part are all equal (``"c"``, unique's equal_nan) or never
    equal (``"cn"``).
    """
    name = f"gs_sort_flags_u{8 * width}_{'_'.join(columns)}"
    k = _k(width)
    body = []
    w = 0
    for c in columns:
        if c in ("r", "rn"):
            cond = f"W({w}, i) != W({w}, i - 1)"
            if c == "rn":
                cond += f" || W({w}, i) == ALL1"
            body.append(f"    if ({cond}) diff = true;\n")
            w += 1
        else:
            g = f"W({w + 2}, i)", f"W({w + 2}, i - 1)"
            nan_rule = "!(ga != 0 && gb != 0)" if c == "c" else "true"
            body.append(
                "    {\n"
                f"      const K ga = {g[0]}, gb = {g[1]};\n"
                f"      if (ga != 0 || gb != 0) {{ if ({nan_rule}) diff = true; }}\n"
                f"      else if (W({w}, i) != W({w}, i - 1) || W({w + 1}, i) != W({w + 1}, i - 1))"
                " diff = true;\n    }\n")
            w += 3
    src = (f"typedef {k} K;\n#define W(w, j) words[(long long)(w) * n + (j)]\n"
           f"#define ALL1 ((K)~(K)0)\n"
           f'extern "C" __global__ void __launch_bounds__(256) {name}(\n'
           "    const K* __restrict__ words, long long* __restrict__ flag, long long n) {\n"
           "  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (i >= n) return;\n"
           "  bool diff = (i == 0);\n"
           "  if (i > 0) {\n" + "".join(body) + "  }\n"
           "  flag[i] = diff ? 1 : 0;\n}\n")
    return src, name


@functools.lru_cache(maxsize=None)
def counts_source():
    """counts[g] = first[g + 1] - first[g]; the last run ends at n."""
    name = "gs_sort_counts"
    src = (f'extern "C" __global__ void __launch_bounds__(256) {name}(\n'
           "    const long long* __restrict__ first, long long* __restrict__ counts,\n"
           "    long long m, long long n) {\n"
           "  const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (g < m) counts[g] = (g + 1 < m ? first[g + 1] : n) - first[g];\n}\n")
    return src, name


_SCAN_TILE = 2048   # elements per block in the tile scans (256 threads x 8)


@functools.lru_cache(maxsize=None)
def tile_sum_source():
    """sums[b] = sum of x[b*2048 : (b+1)*2048] (int64)."""
    name = "gs_sort_tile_sum"
    src = (f'extern "C" __global__ void __launch_bounds__(256) {name}(\n'
           "    const long long* __restrict__ x, long long* __restrict__ sums, long long n) {\n"
           "  __shared__ long long ws[8];\n"
           f"  const long long base = (long long)blockIdx.x * {_SCAN_TILE};\n"
           "  long long s = 0;\n"
           "  for (int k = 0; k < 8; ++k) {\n"
           "    const long long i = base + k * 256 + threadIdx.x;\n"
           "    if (i < n) s += x[i];\n  }\n"
           "  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xFFFFFFFFu, s, o);\n"
           "  if ((threadIdx.x & 31) == 0) ws[threadIdx.x >> 5] = s;\n"
           "  __syncthreads();\n"
           "  if (threadIdx.x == 0) {\n"
           "    long long t = 0;\n"
           "    for (int w = 0; w < 8; ++w) t += ws[w];\n"
           "    sums[blockIdx.x] = t;\n  }\n}\n")
    return src, name


@functools.lru_cache(maxsize=None)
def tile_scan_source(single):
    """Inclusive scan of int64 x in tiles of 2048 (one block per tile), each
    tile starting from carry[b - 1] (the inclusive scan of the tile sums) when
    not ``single``; ``single`` scans the whole (short) array in one block,
    looping over its tiles with a running carry."""
    name = f"gs_sort_tile_scan_{'single' if single else 'tiles'}"
    src = (f'extern "C" __global__ void __launch_bounds__(256) {name}(\n'
           "    const long long* __restrict__ x, long long* __restrict__ y,\n"
           "    const long long* __restrict__ carry, long long n) {\n"
           "  __shared__ long long ws[8];\n"
           "  __shared__ long long total;\n"
           "  const unsigned t = threadIdx.x, lane = t & 31, warp = t >> 5;\n"
           f"  long long run = {'0' if single else '(blockIdx.x ? carry[blockIdx.x - 1] : 0)'};\n"
           f"  const long long first = {'0' if single else f'(long long)blockIdx.x * {_SCAN_TILE}'};\n"
           f"  const long long last = {'n' if single else f'min(n, first + {_SCAN_TILE})'};\n"
           f"  for (long long base = first; base < last; base += {_SCAN_TILE}) {{\n"
           "    long long v[8];\n"
           "    long long s = 0;\n"
           "    for (int k = 0; k < 8; ++k) {\n"
           "      const long long i = base + t * 8 + k;\n"
           "      v[k] = (i < n) ? x[i] : 0;\n"
           "      s += v[k];\n    }\n"
           "    long long incl = s;\n"
           "    for (int o = 1; o < 32; o <<= 1) {\n"
           "      const long long u = __shfl_up_sync(0xFFFFFFFFu, incl, o);\n"
           "      if (lane >= (unsigned)o) incl += u;\n    }\n"
           "    if (lane == 31) ws[warp] = incl;\n"
           "    __syncthreads();\n"
           "    long long off = run;\n"
           "    for (unsigned w = 0; w < warp; ++w) off += ws[w];\n"
           "    if (t == 255) total = off + incl;\n"
           "    long long acc = off + incl - s;\n"
           "    for (int k = 0; k < 8; ++k) {\n"
           "      const long long i = base + t * 8 + k;\n"
           "      acc += v[k];\n"
           "      if (i < n) y[i] = acc;\n    }\n"
           "    __syncthreads();\n"
           "    run = total;\n"
           "    __syncthreads();\n  }\n}\n")
    return src, name


@functools.lru_cache(maxsize=None)
def unique_scatter_source():
    """Given flag (1 at the first of each run) and gid (inclusive scan of flag),
    first[gid-1] = i at run starts; inv[perm[i]] = gid[i] - 1 when inv given."""
    name = "gs_sort_unique_scatter"
    src = (f'extern "C" __global__ void __launch_bounds__(256) {name}(\n'
           "    const long long* __restrict__ flag, const long long* __restrict__ gid,\n"
           "    const long long* __restrict__ perm, long long* __restrict__ first,\n"
           "    long long* __restrict__ inv, long long n) {\n"
           "  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (i >= n) return;\n"
           "  if (flag[i]) first[gid[i] - 1] = i;\n"
           "  if (inv) inv[perm[i]] = gid[i] - 1;\n}\n")
    return src, name


@functools.lru_cache(maxsize=None)
def searchsorted_source(width, kind, cplx, right, sorter):
    """One thread per query: binary search in sorted ``a`` (NumPy's order).

    Real keys compare by their canonical radix key; complex ones by
    (NaN group, real key, imaginary key) as in gs::sort::radix_word.
    """
    name = (f"gs_sort_searchsorted_u{8 * width}_{kind}_c{int(cplx)}_r{int(right)}"
            f"_s{int(sorter)}")
    k = _k(width)
    if cplx:
        key = (
            "struct Key { unsigned g; K r, i; };\n"
            "__device__ __forceinline__ Key key_of(const K* p, long long e) {\n"
            "  const K re = p[2 * e], im = p[2 * e + 1];\n"
            "  const K s = gs::sort::sign_bit<K>();\n"
            "  const bool nre = K(re & K(~s)) > gs::sort::inf_bits<K>();\n"
            "  const bool nim = K(im & K(~s)) > gs::sort::inf_bits<K>();\n"
            "  Key k;\n  k.g = (nre ? 2u : 0u) | (nim ? 1u : 0u);\n"
            "  k.r = nre ? K(0) : gs::sort::encode<K, 2, true>(re);\n"
            "  k.i = nim ? K(0) : gs::sort::encode<K, 2, true>(im);\n  return k;\n}\n"
            "__device__ __forceinline__ bool less(const Key& a, const Key& b) {\n"
            "  if (a.g != b.g) return a.g < b.g;\n"
            "  if (a.r != b.r) return a.r < b.r;\n  return a.i < b.i;\n}\n")
    else:
        key = (
            "typedef K Key;\n"
            "__device__ __forceinline__ Key key_of(const K* p, long long e) {\n"
            f"  return gs::sort::encode<K, {KINDS[kind]}, true>(p[e]);\n}}\n"
            "__device__ __forceinline__ bool less(Key a, Key b) { return a < b; }\n")
    # left: first i with !(a[i] < v); right: first i with v < a[i].
    test = "less(v, x)" if right else "!less(x, v)"
    src = (_HEAD + f"typedef {k} K;\n" + key
           + f'extern "C" __global__ void __launch_bounds__(256) {name}(\n'
           "    const K* __restrict__ a, const long long* __restrict__ sorter,\n"
           "    long long na, const K* __restrict__ q, long long* __restrict__ out,\n"
           "    long long nq) {\n"
           "  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (j >= nq) return;\n"
           "  const Key v = key_of(q, j);\n"
           "  long long lo = 0, hi = na;\n"
           "  while (lo < hi) {\n"
           "    const long long mid = lo + ((hi - lo) >> 1);\n"
           f"    const Key x = key_of(a, {'sorter[mid]' if sorter else 'mid'});\n"
           f"    if ({test}) hi = mid; else lo = mid + 1;\n"
           "  }\n  out[j] = lo;\n}\n")
    return src, name
