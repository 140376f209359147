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

Device code lives in ``_kernels.cuh`` (templates in ``gs::random``, on top of
``_philox.cuh``'s ``gs::philox``); this module only chooses the template
arguments (a name expression such as
``gs::random::fill<gs::random::normal, float, true, 2>``), the grid and the
launch. Every ``*_source`` function is a pure, memoised function of its spec
returning ``(source, name)``, one source text for all of them, and
:func:`variants` lists every instance launched, so the NVRTC compile tests
run on machines without a GPU.
"""

import contextlib
import functools
import os

import numpy

from .._cuda._device import device_limits
from .._kernel._nvrtc import read_source

__all__ = ["UNIT", "UNITS_PER_THREAD", "philox_source", "integers_source",
           "choice_p_source", "take_rows_source", "variants", "launch_units",
           "launch_config"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_BLOCK = 256            # gs::random::BLOCK, the kernels' __launch_bounds__

UNIT = {("raw", "u4"): 4, ("raw", "u8"): 2, ("uniform", "f4"): 4,
        ("uniform", "f8"): 2, ("normal", "f4"): 4, ("normal", "f8"): 2}

_CTYPE = {"u4": "unsigned int", "u8": "unsigned long long", "f4": "float",
          "f8": "double"}

_WORD = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
         8: "unsigned long long"}

_NS = "gs::random::"

# Units per thread and tile (the template argument U of gs::random::fill):
# a block handles tiles of UNITS_PER_THREAD * blockDim units, thread t the
# units tile + t + k * blockDim (k < UNITS_PER_THREAD), so each store
# instruction of a warp is one contiguous 512-byte run, and the key schedule
# is shared by the interleaved Philox evaluations.
UNITS_PER_THREAD = 2

_launch_override = {"block": None, "grid": None}


@functools.lru_cache(maxsize=1)
def _source():
    # One source for every kernel (templates of _kernels.cuh, instantiated
    # by name); the headers' text is part of it, so the kernel cache key
    # sees them.
    return ("#include <gpuscipy/core.cuh>\n#include <gpuscipy/elementwise.cuh>\n"
            + read_source(os.path.join(_HERE, "_philox.cuh")) + "\n"
            + read_source(os.path.join(_HERE, "_kernels.cuh")))


def _b(v):
    return "true" if v else "false"


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
        ``name`` is the name expression of the instance
        ``gs::random::fill<Kind, T, VEC, UNITS_PER_THREAD>``.

    Raises
    ------
    KeyError
        ``(kind, code)`` not in :data:`UNIT`.

    Notes
    -----
    The kernel walks tiles of ``UNITS_PER_THREAD * blockDim.x`` units in a
    grid-stride loop; unit ``j`` always reads Philox block ``counter + j``
    and writes outputs ``j * per .. j * per + per - 1``, whichever thread
    computes it. Whole tiles take a branch-free path (all Philox blocks
    first, then one 16-byte store per unit); the last, partial tile checks
    every index.
    """
    if (kind, code) not in UNIT:
        raise KeyError(f"no Philox kernel for {(kind, code)!r}")
    return _source(), (f"{_NS}fill<{_NS}{kind}, {_CTYPE[code]}, {_b(vec)}, "
                       f"{UNITS_PER_THREAD}>")


@functools.lru_cache(maxsize=64)
def integers_source(ctype, code):
    """Source and name of the bounded-integer kernel for one output type
    (``ctype``, the C type of dtype code ``code``): ``gs::random::integers``.

    ``out[i] = low + r`` with ``r`` uniform on ``[0, range)`` (``range == 0``
    meaning ``2**64``), computed in 64-bit unsigned arithmetic (wrapping) and
    converted to the output type. Unit ``i`` reads block ``base + i``: two
    64-bit candidates; when both are rejected (probability below
    ``(range / 2**64)**2``), further blocks come from the same counter with
    ``attempt`` added to its top word (counters ``2**96`` apart, never
    reached by ordinary use).
    """
    return _source(), f"{_NS}integers<{ctype}>"


@functools.lru_cache(maxsize=4)
def choice_p_source():
    """Source and name of the weighted-choice kernel (inverse CDF),
    ``gs::random::choice_p`` writing int64 indices.

    ``out[i]`` is the first index ``j`` with ``cdf[j] > u * cdf[m - 1]``,
    ``u`` a 53-bit uniform (two per unit); when rounding leaves no such
    ``j``, the last index of non-zero probability.
    """
    return _source(), f"{_NS}choice_p<long long>"


@functools.lru_cache(maxsize=8)
def take_rows_source(word):
    """Source and name of the row gather ``out[i, :] = src[idx[i], :]`` on
    C-contiguous rows of ``words`` machine words of ``word`` bytes
    (``gs::random::take_rows``)."""
    return _source(), f"{_NS}take_rows<{_WORD[word]}>"


def variants():
    """``(source, name)`` of every kernel the generator launches (the NVRTC
    compile tests instantiate them all)."""
    from .._kernel._ufunc_names import ctype
    out = [philox_source(kind, code, vec) for kind, code in UNIT for vec in (False, True)]
    for dt in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
               "uint64"):
        dt = numpy.dtype(dt)
        out.append(integers_source(ctype(dt), dt.str[1:]))
    out.append(choice_p_source())
    out += [take_rows_source(w) for w in sorted(_WORD)]
    return out


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
