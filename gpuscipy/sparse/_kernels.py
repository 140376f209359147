"""Launches of gpuscipy.sparse's own kernels (``_kernels.cuh``).

Everything else in the formats is made of gpuscipy_core's array routines
(sorting, scans, searchsorted, compaction) and cuSPARSE (``_cusparse.py``).
"""

import functools
import os

import numpy

import gpuscipy_core as gp
from gpuscipy_core.kernel import ctype, launch, read_source

__all__ = ["segment_sum", "segment_sum_source", "BLOCK"]

BLOCK = 256
_CUH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_kernels.cuh")


@functools.lru_cache(maxsize=128)
def segment_sum_source(value_dtype, out_dtype, index_dtype):
    """``(source, name)`` of the segment sum for these dtypes (pure: no
    device access; the name is a C++ name expression)."""
    t, a, i = (ctype(numpy.dtype(d)) for d in (value_dtype, out_dtype, index_dtype))
    src = "#include <gpuscipy/types.cuh>\n" + read_source(_CUH)
    return src, f"gs_sparse_compressed::segment_sum<{t}, {a}, {i}>"


def segment_sum(values, indptr, out_dtype):
    """``out[s] = values[indptr[s]:indptr[s + 1]].sum()`` for every segment
    (``len(indptr) - 1`` of them), in ``out_dtype``, each summed in stored
    order. ``values``: 1-D device array; ``indptr``: int32/int64 device array."""
    nseg = indptr.shape[0] - 1
    out = gp.empty(max(nseg, 0), out_dtype)
    if nseg <= 0:
        return out
    values = gp.ascontiguousarray(values)
    indptr = gp.ascontiguousarray(indptr)
    src, name = segment_sum_source(values.dtype, out.dtype, indptr.dtype)
    grid = (min(-(-nseg // BLOCK), 65535 * 32), 1, 1)
    launch(src, name, grid, (BLOCK, 1, 1), (values, indptr, nseg, out))
    return out
