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
                 "real", "imag", "ascontiguousarray", "ones", "vdot", "sqrt",
                 "full", "maximum", "minimum", "logical_not",
                 "repeat", "argsort", "fmin", "fmax", "broadcast_to",
                 "tile", "sort"):
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
    from gpuscipy.sparse import _binop
    monkeypatch.setattr(_binop, "gp", gp)
    monkeypatch.setattr(_binop, "segment_sum", segment_sum)
    monkeypatch.setattr(_cusparse, "spgemm", spgemm)
    install_index_minmax(monkeypatch, gp)
    from gpuscipy.sparse import _construct
    monkeypatch.setattr(_construct, "gp", gp)
    # NumPy's Generator has the device generator's choice/integers/random
    monkeypatch.setattr(_construct, "_gprandom",
                        types.SimpleNamespace(Generator=np.random.Generator,
                                              default_rng=np.random.default_rng))
    install_linalg(monkeypatch)
    return gp


def twin(gpu_tests):
    """The namespace of an emulated test module: an autouse fixture that
    installs the emulation (and points ``gpu_tests.gp`` at it) and every
    ``test_*`` function of the GPU test module ``gpu_tests``.

    Use: ``globals().update(_emulate.twin(test_x_gpu))``."""
    import pytest

    @pytest.fixture(autouse=True)
    def emulated(monkeypatch):
        monkeypatch.setattr(gpu_tests, "gp", install(monkeypatch))

    ns = {"emulated": emulated}
    ns.update({n: getattr(gpu_tests, n) for n in dir(gpu_tests) if n.startswith("test_")})
    return ns


# ---- gpuscipy.sparse.linalg ---------------------------------------------

def cg_direction(p, z, rho, rho_old, live, first):
    if bool(live):
        p[...] = z if bool(first) else z + (rho / rho_old) * p


def cg_step(x, r, p, q, rho, pq, live):
    if bool(live):
        a = rho / pq
        x += a * p
        r -= a * q


def residual_live(r, tol):
    return np.asarray(~(np.sqrt(np.real(np.vdot(r, r))) < tol))


def install_linalg(monkeypatch):
    """Also patch gpuscipy.sparse.linalg (after ``install``)."""
    from gpuscipy.sparse import _base
    from gpuscipy.sparse.linalg import _interface, _isolve, _isolve_kernels
    gp = _base.gp
    for mod in (_interface, _isolve, _isolve_kernels):
        monkeypatch.setattr(mod, "gp", gp)
    for name in ("cg_direction", "cg_step", "residual_live"):
        monkeypatch.setattr(_isolve_kernels, name, globals()[name])
    return gp


# ---- sparse @ sparse (_binop.py, _cusparse.spgemm) -------------------------

def spgemm(a_csr_parts, b_csr_parts):
    """cuSPARSE's SpGEMM through SciPy: int32 CSR of A @ B, zero sums kept
    out (SciPy drops them; the caller drops cuSPARSE's), rows sorted."""
    (ad, ai, ap, sa), (bd, bi, bp, sb) = a_csr_parts, b_csr_parts
    for a in (ai, ap, bi, bp):
        if a.dtype != np.int32:
            raise TypeError("spgemm: int32 indices only")
    c = (_scipy_csr(ad, ap, ai, *sa) @ _scipy_csr(bd, bp, bi, *sb)).tocsr()
    c.sort_indices()
    return (c.data.astype(ad.dtype), c.indices.astype(np.int32),
            c.indptr.astype(np.int32))


# ---- indexing and min/max (_index.py, _minmax.py) ----------------------------

def _nan(x):
    return bool(np.isnan(x)) if np.iscomplexobj(x) or np.issubdtype(type(x), np.floating) \
        else False


def segment_extreme(values, indptr, op):
    """The sequential mirror of _minmax.cuh's segment_extreme (first
    occurrence kept; 'min'/'max' propagate NaN, 'nanmin'/'nanmax' skip it;
    complex values lexicographic)."""
    nseg = max(indptr.shape[0] - 1, 0)
    out = np.zeros(nseg, values.dtype)
    pos = np.full(nseg, -1, np.int64)
    lt = (lambda a, b: (a.real, a.imag) < (b.real, b.imag)) if values.dtype.kind == "c" \
        else (lambda a, b: a < b)
    prop = op in ("min", "max")
    low = op in ("min", "nanmin")
    for s in range(nseg):
        e0, e1 = int(indptr[s]), int(indptr[s + 1])
        if e1 <= e0:
            continue
        best, at = values[e0], e0
        for e in range(e0 + 1, e1):
            x = values[e]
            xn, bn = _nan(x), _nan(best)
            if prop:
                rep = False if bn else (True if xn else None)
            else:
                rep = False if xn else (True if bn else None)
            if rep is None:
                rep = lt(x, best) if low else lt(best, x)
            if rep:
                best, at = x, e
        out[s], pos[s] = best, at
    return out, pos


def install_index_minmax(monkeypatch, gp):
    from gpuscipy.sparse import _index, _minmax
    monkeypatch.setattr(_index, "gp", gp)
    monkeypatch.setattr(_minmax, "gp", gp)
    monkeypatch.setattr(_minmax, "segment_sum", segment_sum)
    monkeypatch.setattr(_minmax, "segment_extreme", segment_extreme)
