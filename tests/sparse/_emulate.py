"""A host emulation of what gpuscipy.sparse takes from the device, for CPU
tests: ``gpuscipy_core`` as NumPy (device arrays are ndarrays), the
segment sum as its sequential NumPy mirror, cuSPARSE's SpMV / SpMM /
csr2csc through SciPy on the same arrays.

What it checks: everything the formats do above the device (constructors,
validation, canonical forms, conversions, index dtypes, reductions,
products' dispatch and dtypes). What it cannot: the kernel and the real
cuSPARSE calls, which the GPU run of test_formats_gpu.py checks.
"""

import types

import numpy as np
import scipy.sparse as sp


def fake_core():
    gp = types.ModuleType("fake_gpuscipy_core")
    for name in ("asarray", "empty", "zeros", "zeros_like", "lexsort", "searchsorted",
                 "flatnonzero", "concatenate", "bincount", "diff", "cumsum", "where",
                 "stack", "any", "count_nonzero", "sum", "nonzero", "arange", "conjugate",
                 "real", "imag", "ascontiguousarray", "ones"):
        setattr(gp, name, getattr(np, name))
    gp.ndarray = np.ndarray
    gp.asnumpy = np.asarray
    return gp


def segment_sum(values, indptr, out_dtype):
    """Sequential sums of values[indptr[s]:indptr[s+1]] in ``out_dtype``
    (the kernel's order and accumulator)."""
    nseg = max(indptr.shape[0] - 1, 0)
    out = np.zeros(nseg, out_dtype)
    v = np.asarray(values).astype(out_dtype) if np.dtype(out_dtype).kind != "b" \
        else np.asarray(values).astype(bool)
    with np.errstate(over="ignore"):
        for s in range(nseg):
            acc = out.dtype.type(0)
            for e in range(int(indptr[s]), int(indptr[s + 1])):
                acc = out.dtype.type(acc + v[e]) if out.dtype.kind != "b" else (acc or v[e])
            out[s] = acc
    return out


def _scipy_csr(data, indptr, indices, M, N):
    return sp.csr_array((np.asarray(data), np.asarray(indices), np.asarray(indptr)),
                        shape=(M, N))


def spmv(data, indptr, indices, M, N, x, transpose=False):
    a = _scipy_csr(data, indptr, indices, M, N)
    return np.asarray((a.T if transpose else a) @ np.asarray(x), dtype=data.dtype)


def spmm(data, indptr, indices, M, N, b, transpose=False):
    a = _scipy_csr(data, indptr, indices, M, N)
    return np.ascontiguousarray((a.T if transpose else a) @ np.asarray(b), dtype=data.dtype)


def csr2csc(data, indptr, indices, M, N):
    if indptr.dtype != np.int32 or indices.dtype != np.int32:
        raise TypeError("csr2csc: int32 indices only")
    # a stable transpose: entries of each column in row order, duplicates kept
    rows = np.repeat(np.arange(M), np.diff(indptr))
    order = np.lexsort((rows, indices), axis=0) if indices.size else np.zeros(0, int)
    ptr = np.zeros(N + 1, np.int32)
    np.cumsum(np.bincount(indices, minlength=N), out=ptr[1:])
    return data[order], rows[order].astype(np.int32), ptr


def install(monkeypatch):
    """Patch gpuscipy.sparse's modules to run on the host."""
    from gpuscipy.sparse import _base, _compressed, _coo, _cusparse, _kernels, _sputils
    gp = fake_core()
    for mod in (_base, _compressed, _coo, _kernels, _sputils):
        monkeypatch.setattr(mod, "gp", gp)
    for mod in (_base, _compressed, _coo):
        monkeypatch.setattr(mod, "segment_sum", segment_sum)
    for name in ("spmv", "spmm", "csr2csc"):
        monkeypatch.setattr(_cusparse, name, globals()[name])
    return gp
