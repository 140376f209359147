"""Kernel sources of the scans, stream compaction and counting routines.

Every function here is a pure, memoised function of a small spec (dtypes
and flags) returning ``(name, source)``: the kernel's ``extern "C"`` name
encodes the spec, and the source is a thin wrapper instantiating a template
of ``gpuscipy/scan.cuh``. Nothing here touches a device, so the NVRTC tests
compile every variant on a machine without a GPU.
"""

import functools

import numpy

from .._kernel._ufunc_names import ctype

__all__ = ["THREADS", "items_per_thread", "packed", "state_bytes", "state_layout",
           "accumulator",
           "carry", "carry_size",
           "scan_rows_source", "scan_lines_source", "compact_source",
           "gather_axis_source", "bincount_source", "histogram_source",
           "digitize_source"]

THREADS = 256


def _code(dt):
    return numpy.dtype(dt).str[1:]


def items_per_thread(*dtypes):
    """Elements per thread of a tile: a tile of ``256 * items`` elements
    staged in about 16 KiB of shared memory (16 items for 1- to 4-byte
    types, 8 for 8-byte, 4 for 16-byte)."""
    size = max(numpy.dtype(d).itemsize for d in dtypes)
    return max(1, min(16, 64 // size))


def carry(comp):
    """C type in which a sum/product computed in NumPy dtype ``comp`` is
    combined across threads and chained across tiles (the look-back slots).

    Floating types carry in double, complex in complex<double>; integers in
    an unsigned type of at least 32 bits, so sums and products wrap modulo
    2**bits exactly like NumPy's two's-complement loops (the final cast keeps
    the low bits); bool in unsigned long long (nonzero <=> any true for
    sums, all true for products: NumPy's logical_or / logical_and
    accumulation).
    """
    comp = numpy.dtype(comp)
    if comp.kind == "f":
        return "double"
    if comp.kind == "c":
        return "gs::complex<double>"
    if comp.kind == "b" or comp.itemsize == 8:
        return "unsigned long long"
    return "unsigned int"


def accumulator(comp):
    """C type in which each thread scans its own ITEMS elements.

    float16 and float32 in float (complex64 in complex<float>): the
    per-element work stays in 4-byte registers, while thread totals, block
    totals and the tile chain use :func:`carry` (double). A prefix of k
    elements then has an error below about ``(ITEMS + 2) * eps32 *
    sum|x| + (log2(TILE) + k / TILE) * eps64 * sum|x|`` plus the final
    rounding, far below NumPy's sequential float32 loop (``k * eps32 *
    sum|x|``). Other types: the carry type.
    """
    comp = numpy.dtype(comp)
    if comp.kind == "f" and comp.itemsize <= 4:
        return "float"
    if comp.kind == "c" and comp.itemsize <= 8:
        return "gs::complex<float>"
    return carry(comp)


_CSIZE = {"double": 8, "gs::complex<double>": 16, "unsigned long long": 8,
          "unsigned int": 4, "float": 4, "gs::complex<float>": 8}


def carry_size(comp):
    """Bytes of one look-back slot (the carry type) for loop dtype ``comp``."""
    return _CSIZE[carry(comp)]


accumulator_size = carry_size   # slot size (kept for callers of the old name)

#: Byte offset of the status words in a tile state; the value slots start
#: at a multiple of 16 bytes (see ``state_layout``).
SLOT_ALIGN = 16


def packed(slot_size):
    """True when a look-back slot of ``slot_size`` bytes is published
    together with its status in one 16-byte descriptor (``slot_size <= 8``:
    every carry but complex<double>)."""
    return slot_size <= 8


def state_layout(ntiles, slot_size):
    """Byte layout of a ``gs::scan::tile_state`` (mirrors its constructors).

    Packed (``slot_size <= 8``): ``(16, total_bytes)`` -- counter at 0,
    then one 16-byte ``{status, value}`` descriptor per tile from byte 16.
    Wide: ``(status_offset, aggregate_offset, inclusive_offset,
    total_bytes)`` -- counter at 0, status words at 16, each region padded
    to a multiple of 16 bytes, so every slot is 16-byte aligned (the
    complex<double> carry's alignment)."""
    def up16(b):
        return ((b + 15) // 16) * 16
    if packed(slot_size):
        return 16, 16 + 16 * ntiles
    status = 16
    agg = status + up16(ntiles * 4)
    inc = agg + up16(ntiles * slot_size)
    return status, agg, inc, inc + up16(ntiles * slot_size)


def state_bytes(ntiles, acc_size):
    """Bytes the host allocates (and zeroes) for a ``gs::scan::tile_state``
    of ``ntiles`` tiles whose look-back slots are ``acc_size`` bytes."""
    return state_layout(ntiles, acc_size)[-1]


_HEADER = "#include <gpuscipy/scan.cuh>\n"


def _op(in_dt, comp, out_dt, prod, nan_skip):
    return (f"gs::scan::arith_op<{ctype(in_dt)}, {ctype(comp)}, {accumulator(comp)}, "
            f"{carry(comp)}, {ctype(out_dt)}, {'true' if prod else 'false'}, "
            f"{'true' if nan_skip else 'false'}>")


def _spec_name(kind, in_dt, comp, out_dt, prod, nan_skip):
    op = ("nan" if nan_skip else "") + ("cumprod" if prod else "cumsum")
    return f"gs_{kind}_{op}_{_code(in_dt)}_{_code(comp)}_{_code(out_dt)}"


@functools.lru_cache(maxsize=None)
def scan_rows_source(in_dt, comp, out_dt, prod, nan_skip):
    """Decoupled look-back scan of rows (see ``gs::scan::scan_rows``).
    Returns ``(name, source, items)``."""
    in_dt, comp, out_dt = map(numpy.dtype, (in_dt, comp, out_dt))
    items = items_per_thread(in_dt, out_dt)
    nbytes = max(in_dt.itemsize, out_dt.itemsize)
    name = _spec_name("scanrows", in_dt, comp, out_dt, prod, nan_skip)
    op = _op(in_dt, comp, out_dt, prod, nan_skip)
    src = (f"{_HEADER}"
           f"typedef {op} Op;\n"
           f"extern \"C\" __global__ void __launch_bounds__({THREADS}) {name}(\n"
           f"    const {ctype(in_dt)}* in, {ctype(out_dt)}* out, long long n,\n"
           "    long long in_row, long long out_row, long long tiles_per_row,\n"
           "    long long ntiles, void* state) {\n"
           f"  gs::scan::scan_rows<Op, {items}, {nbytes}>(in, out, n, in_row, out_row,\n"
           "                                     tiles_per_row, ntiles, state);\n"
           "}\n")
    return name, src, items


@functools.lru_cache(maxsize=None)
def scan_lines_source(in_dt, comp, out_dt, prod, nan_skip):
    """One thread per line scan (see ``gs::scan::scan_lines``). Returns
    ``(name, source)``."""
    in_dt, comp, out_dt = map(numpy.dtype, (in_dt, comp, out_dt))
    name = _spec_name("scanlines", in_dt, comp, out_dt, prod, nan_skip)
    op = _op(in_dt, comp, out_dt, prod, nan_skip)
    src = (f"{_HEADER}"
           f"typedef {op} Op;\n"
           f"extern \"C\" __global__ void __launch_bounds__({THREADS}) {name}(\n"
           f"    const {ctype(in_dt)}* in, {ctype(out_dt)}* out, long long outer,\n"
           "    long long n, long long inner) {\n"
           "  gs::scan::scan_lines<Op>(in, out, outer, n, inner);\n"
           "}\n")
    return name, src


@functools.lru_cache(maxsize=None)
def compact_source(flag_dt, action, val_dt=None, out_dt=None):
    """Stream compaction over the truth values of a C-contiguous array of
    ``flag_dt`` (see ``gs::scan::compact``). ``action``: ``"index"``
    (multi-indices, nonzero/argwhere), ``"select"`` (``out[rank] =
    src[i]``, source ``val_dt`` cast to ``out_dt``) or ``"place"``
    (``dst[i] = vals[rank % nvals]`` of ``val_dt``). Returns
    ``(name, source, items)``."""
    flag_dt = numpy.dtype(flag_dt)
    f = ctype(flag_dt)
    if action == "index":
        items = items_per_thread(flag_dt)
        name = f"gs_compact_index_{_code(flag_dt)}"
        params = "long long* out, long long count, int ndim, gs::scan::dims_t shape"
        body = ("  gs::scan::index_action act;\n"
                "  act.out = out; act.count = count; act.ndim = ndim; act.shape = shape;\n")
    elif action == "select":
        val_dt, out_dt = numpy.dtype(val_dt), numpy.dtype(out_dt)
        items = items_per_thread(flag_dt)
        name = f"gs_compact_select_{_code(flag_dt)}_{_code(val_dt)}_{_code(out_dt)}"
        v, o = ctype(val_dt), ctype(out_dt)
        params = f"const {v}* src, {o}* dst"
        body = (f"  gs::scan::select_action<{v}, {o}> act;\n"
                "  act.src = src; act.out = dst;\n")
    elif action == "place":
        val_dt = numpy.dtype(val_dt)
        items = items_per_thread(flag_dt)
        name = f"gs_compact_place_{_code(flag_dt)}_{_code(val_dt)}"
        v = ctype(val_dt)
        params = f"{v}* dst, const {v}* vals, long long nvals"
        body = (f"  gs::scan::place_action<{v}> act;\n"
                "  act.dst = dst; act.vals = vals; act.nvals = nvals;\n")
    else:
        raise ValueError(f"unknown compaction action {action!r}")
    src = (f"{_HEADER}"
           f"extern \"C\" __global__ void __launch_bounds__({THREADS}) {name}(\n"
           f"    const {f}* flags, long long n, long long ntiles, void* state,\n"
           f"    {params}) {{\n"
           f"{body}"
           f"  gs::scan::compact<{f}, {items}, {flag_dt.itemsize}>(flags, n, ntiles, state, act);\n"
           "}\n")
    return name, src, items


@functools.lru_cache(maxsize=None)
def gather_axis_source(dt):
    """``out[o, k, i] = src[o, idx[k], i]`` (see ``gs::scan::gather_axis``)."""
    dt = numpy.dtype(dt)
    c = ctype(dt)
    name = f"gs_gather_axis_{_code(dt)}"
    src = (f"{_HEADER}"
           f"extern \"C\" __global__ void __launch_bounds__({THREADS}) {name}(\n"
           f"    const {c}* src, const long long* idx, {c}* out, long long outer,\n"
           "    long long n, long long m, long long inner) {\n"
           f"  gs::scan::gather_axis<{c}>(src, idx, out, outer, n, m, inner);\n"
           "}\n")
    return name, src


@functools.lru_cache(maxsize=None)
def bincount_source(x_dt, w_dt, shared):
    """Counts (``w_dt`` None: long long) or weighted sums (double; complex
    weights: real and imaginary parts in two double arrays) of the
    non-negative integers ``x``. ``shared``: privatised counts in dynamic
    shared memory, then one global atomic per bin and block; otherwise
    global atomics directly."""
    x_dt = numpy.dtype(x_dt)
    xc = ctype(x_dt)
    if w_dt is None:
        wname, wparam = "none", ""
        acc = "unsigned long long"
        value = "1ull"
        nparts = 1
    else:
        w_dt = numpy.dtype(w_dt)
        wname, wparam = _code(w_dt), f"const {ctype(w_dt)}* w, "
        acc = "double"
        if w_dt.kind == "c":
            nparts = 2
            value = None
        else:
            nparts = 1
            value = "gs::cast<double>(w[i])"
    name = f"gs_bincount_{_code(x_dt)}_{wname}_{'s' if shared else 'g'}"
    if nparts == 2:
        add_local = ("    atomicAdd(&local[b], (double)w[i].re);\n"
                     "    atomicAdd(&local[b + nbins], (double)w[i].im);\n")
        add_global = ("    atomicAdd(&out[b], (double)w[i].re);\n"
                      "    atomicAdd(&out[b + nbins], (double)w[i].im);\n")
    else:
        add_local = f"    atomicAdd(&local[b], ({acc}){value});\n"
        add_global = f"    atomicAdd(&out[b], ({acc}){value});\n"
    loop = ("  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
            "       i += (long long)gridDim.x * blockDim.x) {\n"
            "    const long long b = (long long)x[i];\n")
    if shared:
        body = (f"  extern __shared__ __align__(16) unsigned char smem[];\n"
                f"  {acc}* local = reinterpret_cast<{acc}*>(smem);\n"
                f"  for (long long b = threadIdx.x; b < {nparts} * nbins; b += blockDim.x)"
                " local[b] = 0;\n"
                "  __syncthreads();\n"
                f"{loop}{add_local}  }}\n"
                "  __syncthreads();\n"
                f"  for (long long b = threadIdx.x; b < {nparts} * nbins; b += blockDim.x)\n"
                "    if (local[b] != 0) atomicAdd(&out[b], local[b]);\n")
    else:
        body = f"{loop}{add_global}  }}\n"
    src = (f"{_HEADER}"
           f"extern \"C\" __global__ void __launch_bounds__({THREADS}) {name}(\n"
           f"    const {xc}* x, {wparam}long long n, {acc}* out, long long nbins) {{\n"
           f"{body}"
           "}\n")
    return name, src


@functools.lru_cache(maxsize=None)
def histogram_source(a_dt, keep_dt, cmp_dt, w_dt, uniform):
    """Histogram binning: element ``x`` of ``a`` goes to the bin ``i`` with
    ``e[i] <= x < e[i + 1]`` (the last bin also takes ``x == e[-1]``),
    comparing in ``cmp_dt``; with ``uniform`` the range test
    ``lo <= x <= hi`` is done in ``keep_dt`` first (NumPy's ``keep`` mask
    of the equal-bins path). Counts accumulate in unsigned long long, real
    weights in double, complex weights in two double arrays."""
    a_dt, cmp_dt = numpy.dtype(a_dt), numpy.dtype(cmp_dt)
    keep_dt = numpy.dtype(keep_dt)
    ac, cc, kc = ctype(a_dt), ctype(cmp_dt), ctype(keep_dt)
    if w_dt is None:
        wname, wparam, acc = "none", "", "unsigned long long"
        add = "    atomicAdd(&out[b], 1ull);\n"
    else:
        w_dt = numpy.dtype(w_dt)
        wname, wparam, acc = _code(w_dt), f"const {ctype(w_dt)}* w, ", "double"
        if w_dt.kind == "c":
            add = ("    atomicAdd(&out[b], (double)w[i].re);\n"
                   "    atomicAdd(&out[b + nedges - 1], (double)w[i].im);\n")
        else:
            add = "    atomicAdd(&out[b], gs::cast<double>(w[i]));\n"
    name = (f"gs_histogram_{_code(a_dt)}_{_code(keep_dt)}_{_code(cmp_dt)}_{wname}"
            f"_{'u' if uniform else 'a'}")
    if uniform:
        test = (f"    const {kc} xk = gs::cast<{kc}>(a[i]);\n"
                "    if (!(xk >= lo && xk <= hi)) continue;\n"
                f"    const {cc} x = gs::cast<{cc}>(a[i]);\n"
                "    long long b = gs::scan::last_le(e, nedges, x);\n"
                "    if (b < 0) b = 0;\n")
    else:
        test = (f"    const {cc} x = gs::cast<{cc}>(a[i]);\n"
                "    if (!(x >= e[0] && x <= e[nedges - 1])) continue;\n"
                "    long long b = gs::scan::last_le(e, nedges, x);\n")
    src = (f"{_HEADER}"
           f"extern \"C\" __global__ void __launch_bounds__({THREADS}) {name}(\n"
           f"    const {ac}* a, {wparam}long long n, const {cc}* e, long long nedges,\n"
           f"    {kc} lo, {kc} hi, {acc}* out) {{\n"
           "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
           "       i += (long long)gridDim.x * blockDim.x) {\n"
           f"{test}"
           "    if (b > nedges - 2) b = nedges - 2;\n"
           f"{add}"
           "  }\n"
           "}\n")
    return name, src


@functools.lru_cache(maxsize=None)
def digitize_source(x_dt, cmp_dt):
    """``out[i] = searchsorted(bins, x[i], side)`` (comparisons in
    ``cmp_dt``, NaN last); with ``decreasing``, ``nbins - searchsorted``
    over the reversed bins (``bins`` is then already reversed)."""
    x_dt, cmp_dt = numpy.dtype(x_dt), numpy.dtype(cmp_dt)
    xc, cc = ctype(x_dt), ctype(cmp_dt)
    name = f"gs_digitize_{_code(x_dt)}_{_code(cmp_dt)}"
    src = (f"{_HEADER}"
           f"extern \"C\" __global__ void __launch_bounds__({THREADS}) {name}(\n"
           f"    const {xc}* x, long long n, const {cc}* bins, long long nbins,\n"
           "    bool right_side, bool decreasing, long long* out) {\n"
           "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
           "       i += (long long)gridDim.x * blockDim.x) {\n"
           f"    const long long k = gs::scan::search<{cc}>(bins, nbins,"
           f" gs::cast<{cc}>(x[i]), right_side);\n"
           "    out[i] = decreasing ? nbins - k : k;\n"
           "  }\n"
           "}\n")
    return name, src
