"""Kernel sources and launches of ``gpuscipy_core.random``.

Every kernel here walks a grid-stride loop over *units*; unit ``j`` of a call
reads Philox block ``counter_base + j`` (``_philox.cuh``) and writes a fixed
set of outputs that depends on ``j`` only. The values are therefore a pure
function of (key, counter base, output index) and do not depend on the grid
or block size chosen at launch.

Outputs per unit (``UNIT``):

==================  =========  ===========================================
kernel              per unit   words used
==================  =========  ===========================================
raw (uint32)        4          w0, w1, w2, w3
raw (uint64)        2          (w1:w0), (w3:w2)
uniform float32     4          one word each (24 bits)
uniform float64     2          (w0, w1), (w2, w3)   (53 bits each)
normal float32      4          Box-Muller on (w0, w1) and (w2, w3)
normal float64      2          Box-Muller: radius from (w0, w1), angle (w2, w3)
integers            1          two 64-bit candidates, more on rejection
choice with p       2          one 53-bit uniform each, inverse CDF
==================  =========  ===========================================

Source generation is pure (no device access), so the NVRTC compile tests run
on machines without a GPU.
"""

import contextlib
import functools
import os

import numpy

from .._cuda._device import device_limits
from .._kernel._nvrtc import read_source

__all__ = ["UNIT", "philox_source", "integers_source", "choice_p_source",
           "take_rows_source", "launch_units", "launch_config"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_BLOCK = 256

UNIT = {("raw", "u4"): 4, ("raw", "u8"): 2, ("uniform", "f4"): 4,
        ("uniform", "f8"): 2, ("normal", "f4"): 4, ("normal", "f8"): 2}

_CTYPE = {"u4": "unsigned int", "u8": "unsigned long long", "f4": "float",
          "f8": "double"}

# {b}: the unit's Philox block, {v}: its outputs
_FILL = {
    ("raw", "u4"): "{v}.v[0] = {b}.w[0]; {v}.v[1] = {b}.w[1]; {v}.v[2] = {b}.w[2]; "
                   "{v}.v[3] = {b}.w[3];",
    # the same bytes as the u4 stream (little endian): first word low
    ("raw", "u8"): "{v}.v[0] = ((u64){b}.w[1] << 32) | {b}.w[0]; "
                   "{v}.v[1] = ((u64){b}.w[3] << 32) | {b}.w[2];",
    ("uniform", "f4"): ("{v}.v[0] = P::to_float({b}.w[0]); {v}.v[1] = P::to_float({b}.w[1]); "
                        "{v}.v[2] = P::to_float({b}.w[2]); {v}.v[3] = P::to_float({b}.w[3]);"),
    ("uniform", "f8"): ("{v}.v[0] = P::to_double({b}.w[0], {b}.w[1]); "
                        "{v}.v[1] = P::to_double({b}.w[2], {b}.w[3]);"),
    # two Box-Muller pairs: (radius word, angle word) = (w0, w1), (w2, w3)
    ("normal", "f4"): ("P::normal_pair({b}.w[0], {b}.w[1], {v}.v[0], {v}.v[1]); "
                       "P::normal_pair({b}.w[2], {b}.w[3], {v}.v[2], {v}.v[3]);"),
    # one pair: radius from 52 bits of (w0, w1), angle from 53 bits of (w2, w3)
    ("normal", "f8"): "P::normal_pair({b}.w[0], {b}.w[1], {b}.w[2], {b}.w[3], "
                      "{v}.v[0], {v}.v[1]);",
}

# Units per thread and tile: a block handles tiles of UNITS_PER_THREAD *
# blockDim units, thread t the units tile + t + k * blockDim (k <
# UNITS_PER_THREAD), so each store instruction of a warp is one contiguous
# 512-byte run, and the key schedule is shared by the interleaved Philox
# evaluations.
UNITS_PER_THREAD = 2

_launch_override = {"block": None, "grid": None}


def _philox_header():
    return read_source(os.path.join(_HERE, "_philox.cuh"))


def _prelude():
    # The header's text is part of the source, so the kernel cache key sees it.
    return ("#include <gpuscipy/core.cuh>\n#include <gpuscipy/elementwise.cuh>\n"
            + _philox_header() + "\nnamespace P = gs::philox;\n"
            "typedef unsigned long long u64;\n")


@functools.lru_cache(maxsize=64)
def philox_source(kind, code, vec):
    """Source and kernel name of a fixed-width Philox kernel.

    Parameters
    ----------
    kind : {"raw", "uniform", "normal"}
    code : {"u4", "u8", "f4", "f8"}
        Output dtype (``numpy.dtype.str[1:]``).
    vec : bool
        Store a unit's outputs with one 16-byte access (the output pointer
        is 16-byte aligned).

    Returns
    -------
    (source, name) : (str, str)

    Notes
    -----
    The kernel walks tiles of ``UNITS_PER_THREAD * blockDim.x`` units in a
    grid-stride loop; unit ``j`` always reads Philox block ``counter + j``
    and writes outputs ``j * per .. j * per + per - 1``, whichever thread
    computes it. Whole tiles take a branch-free path (all Philox blocks
    first, then one 16-byte store per unit); the last, partial tile checks
    every index.
    """
    per = UNIT[(kind, code)]
    t = _CTYPE[code]
    U = UNITS_PER_THREAD
    name = f"gs_philox_{kind}_{code}{'_v' if vec else ''}"
    fill_b = _FILL[(kind, code)].format(b="b[u]", v="v")
    fill_1 = _FILL[(kind, code)].format(b="b1", v="v")
    vec_s = "true" if vec else "false"
    src = _prelude() + f"""
extern "C" __global__ void __launch_bounds__({_BLOCK})
{name}({t}* __restrict__ out, long long n, u64 key, u64 ctr_lo, u64 ctr_hi) {{
  typedef gs::vec<{t}, {per}> V;
  const long long units = (n + {per - 1}) / {per};
  const long long full = n / {per};          // units with every output in range
  const long long tile = (long long)blockDim.x * {U};
  const long long step = (long long)gridDim.x * tile;
  for (long long t0 = (long long)blockIdx.x * tile; t0 < units; t0 += step) {{
    const long long j0 = t0 + threadIdx.x;
    if ({vec_s} && t0 + tile <= full) {{
      P::block4 b[{U}];
#pragma unroll
      for (int u = 0; u < {U}; ++u)
        b[u] = P::block_at(key, ctr_lo, ctr_hi, (u64)(j0 + (long long)u * blockDim.x));
#pragma unroll
      for (int u = 0; u < {U}; ++u) {{
        V v;
        {fill_b}
        *(V*)(out + (j0 + (long long)u * blockDim.x) * {per}) = v;
      }}
    }} else {{
      for (int u = 0; u < {U}; ++u) {{
        const long long j = j0 + (long long)u * blockDim.x;
        if (j >= units) break;
        const P::block4 b1 = P::block_at(key, ctr_lo, ctr_hi, (u64)j);
        V v;
        {fill_1}
        const long long base = j * {per};
        if ({vec_s} && base + {per} <= n) {{
          *(V*)(out + base) = v;
        }} else {{
#pragma unroll
          for (int k = 0; k < {per}; ++k)
            if (base + k < n) out[base + k] = v.v[k];
        }}
      }}
    }}
  }}
}}
"""
    return src, name


@functools.lru_cache(maxsize=64)
def integers_source(ctype, code):
    """Source and name of the bounded-integer kernel for one output type.

    ``out[i] = low + r`` with ``r`` uniform on ``[0, range)`` (``range == 0``
    meaning ``2**64``), computed in 64-bit unsigned arithmetic (wrapping) and
    converted to the output type. Unit ``i`` reads block ``base + i``: two
    64-bit candidates; when both are rejected (probability below
    ``(range / 2**64)**2``), further blocks come from the same counter with
    ``attempt`` added to its top word (counters ``2**96`` apart, never
    reached by ordinary use).
    """
    name = f"gs_philox_integers_{code}"
    src = _prelude() + f"""
extern "C" __global__ void __launch_bounds__({_BLOCK})
{name}({ctype}* __restrict__ out, long long n, u64 key, u64 ctr_lo, u64 ctr_hi,
       u64 low, u64 range) {{
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride) {{
    P::block4 b = P::block_at(key, ctr_lo, ctr_hi, (u64)i);
    u64 r = 0;
    bool ok = P::lemire64(((u64)b.w[1] << 32) | b.w[0], range, r) ||
              P::lemire64(((u64)b.w[3] << 32) | b.w[2], range, r);
    for (unsigned int attempt = 1; !ok; ++attempt) {{
      P::block4 c = P::counter_at(ctr_lo, ctr_hi, (u64)i);
      c.w[3] += attempt;
      b = P::philox4x32_10(c, (unsigned int)key, (unsigned int)(key >> 32));
      ok = P::lemire64(((u64)b.w[1] << 32) | b.w[0], range, r) ||
           P::lemire64(((u64)b.w[3] << 32) | b.w[2], range, r);
    }}
    out[i] = ({ctype})(low + r);
  }}
}}
"""
    return src, name


@functools.lru_cache(maxsize=4)
def choice_p_source():
    """Source and name of the weighted-choice kernel (inverse CDF).

    ``out[i]`` is the first index ``j`` with ``cdf[j] > u * cdf[m - 1]``,
    ``u`` a 53-bit uniform (two per unit); when rounding leaves no such
    ``j``, the last index of non-zero probability.
    """
    name = "gs_philox_choice_p"
    src = _prelude() + f"""
extern "C" __global__ void __launch_bounds__({_BLOCK})
{name}(long long* __restrict__ out, long long n, u64 key, u64 ctr_lo, u64 ctr_hi,
       const double* __restrict__ cdf, long long m) {{
  const long long stride = (long long)gridDim.x * blockDim.x;
  const double total = cdf[m - 1];
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride) {{
    const P::block4 b = P::block_at(key, ctr_lo, ctr_hi, (u64)(i >> 1));
    const double u = (i & 1) ? P::to_double(b.w[2], b.w[3]) : P::to_double(b.w[0], b.w[1]);
    const double t = u * total;
    long long lo = 0, hi = m - 1;
    while (lo < hi) {{
      const long long mid = lo + (hi - lo) / 2;
      if (cdf[mid] > t) hi = mid; else lo = mid + 1;
    }}
    while (lo > 0 && !(cdf[lo] > cdf[lo - 1])) --lo;
    out[i] = lo;
  }}
}}
"""
    return src, name


_WORD = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
         8: "unsigned long long"}


@functools.lru_cache(maxsize=8)
def take_rows_source(word):
    """Source and name of the row gather ``out[i, :] = src[idx[i], :]`` on
    C-contiguous rows of ``words`` machine words of ``word`` bytes."""
    t = _WORD[word]
    name = f"gs_random_take_rows_u{8 * word}"
    src = f"""
extern "C" __global__ void __launch_bounds__({_BLOCK})
{name}({t}* __restrict__ out, const {t}* __restrict__ src,
       const long long* __restrict__ idx, long long k, long long words) {{
  const long long total = k * words;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += stride) {{
    const long long i = t / words, w = t - i * words;
    out[t] = src[idx[i] * words + w];
  }}
}}
"""
    return src, name


@contextlib.contextmanager
def launch_config(block=None, grid=None):
    """Force a block size and grid size for the kernels launched inside
    (a test hook: outputs must not change).

    Raises
    ------
    ValueError
        ``block`` outside ``1 .. 256``: every kernel here is compiled with
        ``__launch_bounds__(256)``, and a larger block fails to launch
        (``CUDA_ERROR_INVALID_VALUE``); ``grid`` below 1.
    """
    if block is not None and not 1 <= int(block) <= _BLOCK:
        raise ValueError(f"block must be in 1..{_BLOCK} (the kernels' launch bound), "
                         f"got {block}")
    if grid is not None and int(grid) < 1:
        raise ValueError(f"grid must be >= 1, got {grid}")
    old = dict(_launch_override)
    _launch_override.update(block=block, grid=grid)
    try:
        yield
    finally:
        _launch_override.update(old)


def _grid(units, block):
    if _launch_override["grid"] is not None:
        return int(_launch_override["grid"])
    n = device_limits().sm_count
    return max(1, min(-(-units // block), n * 16))


def launch_units(source_name, units, args, per_thread=1):
    """Launch kernel ``(source, name)`` over ``units`` units with ``args``
    (``per_thread``: units a thread handles per loop trip)."""
    if units <= 0:
        return
    from .._kernel._module import get_function
    source, name = source_name
    block = _launch_override["block"] or _BLOCK
    f = get_function(source, name)
    f((_grid(-(-units // per_thread), block), 1, 1), (block, 1, 1), args)


def u64(x):
    """A Python int as the numpy.uint64 kernel argument (by value)."""
    return numpy.uint64(int(x) & 0xFFFFFFFFFFFFFFFF)
