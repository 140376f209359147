"""NVRTC compiles (no GPU needed) of every segment_extreme variant of
gpuscipy/sparse/_minmax.cuh: 15 value dtypes x 2 index dtypes x 4 ops,
plus the int64 pointers of the total's chunked reduction."""

import pytest

from gpuscipy.sparse import _minmax
from gpuscipy_core.kernel import compile_cubin

VALUES = "?bBhHiIlLqQfdFD"


@pytest.mark.parametrize("v", VALUES)
@pytest.mark.parametrize("i", ["i", "q"])
@pytest.mark.parametrize("op", sorted(_minmax.OPS))
def test_segment_extreme_compiles(v, i, op):
    src, name = _minmax.segment_extreme_source(v, i, op)
    assert name.startswith("gs_sparse_minmax::segment_extreme<")
    assert compile_cubin(src, name)
