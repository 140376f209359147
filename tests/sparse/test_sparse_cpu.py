"""gpuscipy.sparse without a GPU: the dtype/shape rules, the public
surface, and NVRTC compiles of every kernel variant."""

import numpy as np
import pytest

import gpuscipy.sparse as gs
from gpuscipy.sparse import _kernels, _sputils
from gpuscipy_core.kernel import compile_cubin

VALUES = "?bBhHiIlLqQfdFD"


@pytest.mark.parametrize("v", VALUES)
@pytest.mark.parametrize("i", ["i", "q"])
def test_segment_sum_compiles(v, i):
    out = "q" if v in "?bhilq" else ("Q" if v in "BHILQ" else v)
    src, name = _kernels.segment_sum_source(v, out, i)
    assert compile_cubin(src, name)
    # eliminate_zeros counts bool flags into the index dtype
    assert compile_cubin(*_kernels.segment_sum_source("?", i, i))


def test_getdtype_rules():
    assert _sputils.getdtype(None, np.zeros(1, np.float32)) == np.float32
    assert _sputils.getdtype("c16") == np.complex128
    assert _sputils.getdtype(None, default=float) == np.float64
    for bad in ("f2", "g", "O", "U3"):
        with pytest.raises(ValueError, match="does not support dtype"):
            _sputils.getdtype(bad)


def test_index_dtype():
    assert _sputils.get_index_dtype(maxval=10) == np.int32
    assert _sputils.get_index_dtype(maxval=2**31 - 1) == np.int32
    assert _sputils.get_index_dtype(maxval=2**31) == np.int64
    assert _sputils.get_index_dtype((np.zeros(2, np.int64),)) == np.int64
    assert _sputils.get_index_dtype((np.zeros(2, np.int16),)) == np.int32
    assert _sputils.get_index_dtype((np.arange(3, dtype=np.int64),),
                                    check_contents=True) == np.int32
    big = np.array([0, 2**40], np.int64)
    assert _sputils.get_index_dtype((big,), check_contents=True) == np.int64


def test_shapes():
    assert _sputils.check_shape((3, np.int64(4))) == (3, 4)
    with pytest.raises(ValueError, match="negative"):
        _sputils.check_shape((3, -1))
    with pytest.raises(ValueError, match="2-D"):
        _sputils.check_shape((3, 4, 5))
    with pytest.raises(TypeError, match="integers"):
        _sputils.check_shape((3.5, 4))
    assert _sputils.isshape((2, 3)) and not _sputils.isshape((2, 3.5))
    assert not _sputils.isshape((True, 3)) and not _sputils.isshape([2, 3])
    assert _sputils.isshape((0, 3), nonneg=True) and not _sputils.isshape((-1, 3), nonneg=True)


def test_upcast():
    assert _sputils.upcast("f", "d") == np.float64
    assert _sputils.upcast("i", "F") == np.complex128
    assert _sputils.upcast("?", "?") == np.bool_


def test_public_surface():
    for name in gs.__all__:
        obj = getattr(gs, name)
        assert getattr(obj, "__module__", "gpuscipy.sparse") == "gpuscipy.sparse", name
    assert issubclass(gs.csr_array, gs.sparray) and not issubclass(gs.csr_array, gs.spmatrix)
    assert issubclass(gs.csc_matrix, gs.spmatrix) and not issubclass(gs.csc_matrix, gs.sparray)
    assert gs.csr_array._is_array and not gs.coo_matrix._is_array
    assert {c._format for c in (gs.coo_array, gs.csr_matrix, gs.csc_array)} == \
        {"coo", "csr", "csc"}
    assert not gs.issparse(np.zeros((2, 2)))


@pytest.mark.parametrize("dt", ["f4", "f8", "c8", "c16"])
def test_cg_update_kernels_compile(dt):
    from gpuscipy.sparse.linalg import _isolve_kernels as K
    d = np.dtype(dt)
    b = np.dtype(bool)
    for index32 in (True, False):
        name, src = K._direction().source(d, d, d, b, b, d, index32=index32)
        assert compile_cubin(src, name)
        name, src = K._step().source(d, d, d, d, b, d, d, index32=index32)
        assert compile_cubin(src, name)
