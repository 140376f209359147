"""Compressed formats: CSR and CSC (``csr_array``, ``csr_matrix``,
``csc_array``, ``csc_matrix``).

One implementation for both: a CSR array is indexed by (major, minor) =
(row, column), a CSC array by (column, row). ``indptr`` (major + 1
entries), ``indices`` and ``data`` are device arrays with one index dtype
(int32, or int64 when a dimension or nnz needs it, as SciPy). ``nnz`` is
``indptr[-1]``, read once when the arrays are set.

Products with dense vectors and matrices run on cuSPARSE's generic API
(SpMV, SpMM; ``_cusparse.py``) for floating-point values, and for integer
and bool values as ``segment_sum(data * x[indices], indptr)`` (exact, in
the value dtype: NumPy's wrapping). The CSR/CSC conversion is cuSPARSE's
``csr2csc`` (``Csr2cscEx2``) for floating-point values.
"""

import numpy

import gpuscipy_core as gp

from ._base import _spbase, public_class, register, sparray, spmatrix
from ._coo import _check_axes, _coo_base, _scipy_sparse
from ._kernels import segment_sum
from ._sputils import (check_shape, get_index_dtype, getdtype, isshape, to_device,
                       upcast)

__all__ = ["csr_array", "csr_matrix", "csc_array", "csc_matrix", "isspmatrix_csr",
           "isspmatrix_csc"]


class _cs_base(_spbase):
    """CSR and CSC; ``_swap`` maps (row, col) to (major, minor)."""

    def __init__(self, arg1, shape=None, dtype=None, copy=False):
        sp = _scipy_sparse()
        fmt = self._format
        if isinstance(arg1, _spbase):
            other = arg1.asformat(fmt, copy=copy)
            self._set(other.data, other.indices, other.indptr, other.shape,
                      other._nnz)
            self._flags = dict(other._flags)
        elif sp.issparse(arg1):
            h = arg1.asformat(fmt)
            self._set(to_device(h.data), to_device(h.indices), to_device(h.indptr),
                      h.shape, int(h.indptr[-1]) if h.indptr.size else 0)
            self._flags = {}
        elif isinstance(arg1, tuple):
            if isshape(arg1):
                m, n = check_shape(arg1)
                M = self._swap((m, n))[0]
                idx = get_index_dtype(maxval=max(m, n))
                dt = getdtype(dtype, default=numpy.float64)
                self._set(gp.empty(0, dt), gp.empty(0, idx), gp.zeros(M + 1, idx),
                          (m, n), 0)
                self._flags = {"sorted": True, "canonical": True}
            elif len(arg1) == 2:
                coo = public_class("coo", self._is_array)(arg1, shape=shape, dtype=dtype)
                other = coo.asformat(fmt)
                self._set(other.data, other.indices, other.indptr, other.shape, other._nnz)
                self._flags = dict(other._flags)
            elif len(arg1) == 3:
                self._from_arrays(arg1, shape)
            else:
                raise TypeError(f"unrecognized {type(self).__name__} constructor usage")
        else:
            coo = public_class("coo", self._is_array)(arg1, dtype=dtype)
            other = coo.asformat(fmt)
            self._set(other.data, other.indices, other.indptr, other.shape, other._nnz)
            self._flags = dict(other._flags)
        self._finish_init(dtype, shape, copy and not isinstance(arg1, _spbase))

    # ---- construction ----------------------------------------------------
    def _swap(self, x):
        return x if self._format == "csr" else (x[1], x[0])

    def _set(self, data, indices, indptr, shape, nnz):
        self._shape = check_shape(shape)
        # indices are bounded by the shape and pointers by nnz
        idx = get_index_dtype(maxval=max(max(self._shape), nnz))
        self.data = data
        self.indices = indices if indices.dtype == idx else indices.astype(idx)
        self.indptr = indptr if indptr.dtype == idx else indptr.astype(idx)
        self._nnz = int(nnz)

    def _from_arrays(self, arg1, shape):
        data, indices, indptr = (to_device(a, name=n) for a, n in
                                 zip(arg1, ("data", "indices", "indptr")))
        if indices.dtype.kind not in "iu" or indptr.dtype.kind not in "iu":
            raise ValueError("indices and indptr should have integer dtype")
        if data.ndim != 1 or indices.ndim != 1 or indptr.ndim != 1:
            raise ValueError("data, indices, and indptr should be 1-D")
        if shape is None:
            if indptr.shape[0] == 0:
                raise ValueError("unable to infer matrix dimensions")
            M = indptr.shape[0] - 1
            N = int(indices.max()) + 1 if indices.shape[0] else 0
            shape = self._swap((M, N))
        self._flags = {}
        nnz = int(indptr[-1]) if indptr.shape[0] else 0
        self._set(data, indices, indptr, shape, nnz)
        self.check_format(full_check=False)

    @classmethod
    def _from_parts(cls, data, indices, indptr, shape, canonical=False, nnz=None):
        """A new array of class ``cls`` from these device arrays (no checks)."""
        out = cls.__new__(cls)
        out._set(data, indices, indptr, shape,
                 data.shape[0] if nnz is None else nnz)
        out._flags = {"sorted": True, "canonical": True} if canonical else {}
        return out

    def check_format(self, full_check=True):
        """``ValueError`` when the arrays do not form a valid array of the
        format (SciPy's checks and messages; ``full_check`` also reads every
        index: bounds and a non-decreasing ``indptr``)."""
        M, N = self._swap(self._shape)
        if self.indptr.shape[0] != M + 1:
            raise ValueError(f"index pointer size {self.indptr.shape[0]} should be {M + 1}")
        if self.indptr.shape[0] and int(self.indptr[0]) != 0:
            raise ValueError("index pointer should start with 0")
        if self.indices.shape[0] != self.data.shape[0]:
            raise ValueError("indices and data should have the same size")
        if self._nnz > self.indices.shape[0]:
            raise ValueError("Last value of index pointer should be less than the size "
                             "of index and data arrays")
        if full_check and self._nnz:
            ind = self.indices[:self._nnz]
            if int(ind.max()) >= N:
                raise ValueError(f"indices must be < {N}")
            if int(ind.min()) < 0:
                raise ValueError("indices must be >= 0")
            if M and bool(gp.any(gp.diff(self.indptr) < 0)):
                raise ValueError("indptr must be a non-decreasing sequence")

    # ---- the _spbase interface -------------------------------------------
    def _stored_arrays(self):
        return ("data", "indices", "indptr")

    def _getnnz(self):
        return self._nnz

    def _getnnz_axis(self, ax):
        major_axis = 0 if self._format == "csr" else 1
        if ax == 1 - major_axis:     # per major index: the row (column) lengths
            return gp.diff(self.indptr)
        return gp.bincount(self.indices[:self._nnz], minlength=self._swap(self._shape)[1])

    def _stored_data(self):
        return self.data[:self._nnz]

    def _with_data(self, data, copy=True):
        ind, ptr = ((self.indices.copy(), self.indptr.copy()) if copy
                    else (self.indices, self.indptr))
        out = type(self)._from_parts(data, ind, ptr, self._shape, nnz=self._nnz)
        out._flags = dict(self._flags)
        return out

    def copy(self):
        return self._with_data(self.data.copy(), copy=True)

    def _to_scipy(self):
        sp = _scipy_sparse()
        name = f"{self._format}_{'array' if self._is_array else 'matrix'}"
        return getattr(sp, name)((gp.asnumpy(self.data), gp.asnumpy(self.indices),
                                  gp.asnumpy(self.indptr)), shape=self._shape)

    def _major_index(self):
        """The major index (row of CSR, column of CSC) of every stored entry."""
        nnz = self._nnz
        if nnz == 0:
            return gp.empty(0, numpy.int64)
        pos = gp.arange(nnz, dtype=self.indptr.dtype)
        return gp.searchsorted(self.indptr[1:], pos, side="right").astype(numpy.int64)

    def tocoo(self, copy=False):
        major = self._major_index().astype(self.indices.dtype)
        minor = self.indices[:self._nnz]
        data = self.data[:self._nnz]
        if copy:
            minor, data = minor.copy(), data.copy()
        row, col = (major, minor) if self._format == "csr" else (minor, major)
        return _coo_base._from_parts(data, row, col, self._shape, self._is_array,
                                     canonical=(self._format == "csr"
                                                and self._flags.get("canonical", False)))

    def transpose(self, axes=None, copy=False):
        _check_axes(axes)
        other = "csc" if self._format == "csr" else "csr"
        cls = public_class(other, self._is_array)
        data, ind, ptr = ((self.data.copy(), self.indices.copy(), self.indptr.copy())
                          if copy else (self.data, self.indices, self.indptr))
        out = cls._from_parts(data, ind, ptr, self._shape[::-1], nnz=self._nnz)
        out._flags = dict(self._flags)
        return out

    def _convert(self, fmt):
        """The other compressed format of the same matrix."""
        if (self.data.dtype.kind in "fc" and self._nnz and self.indptr.dtype == numpy.int32
                and self.indices.dtype == numpy.int32):
            from ._cusparse import csr2csc
            M, N = self._swap(self._shape)
            data, ind, ptr = csr2csc(self._stored_data(), self.indptr,
                                     self.indices[:self._nnz], M, N)
            return public_class(fmt, self._is_array)._from_parts(data, ind, ptr, self._shape,
                                                                 canonical=self._flags.get("canonical", False))
        return self.tocoo(copy=False)._compress(fmt)

    def tocsr(self, copy=False):
        if self._format == "csr":
            return self.copy() if copy else self
        return self._convert("csr")

    def tocsc(self, copy=False):
        if self._format == "csc":
            return self.copy() if copy else self
        return self._convert("csc")

    def toarray(self, order=None, out=None):
        return self.tocoo(copy=False).toarray(order=order, out=out)

    # ---- index order -------------------------------------------------------
    def _index_order(self):
        """(sorted, canonical) of the indices within each major index."""
        nnz = self._nnz
        if nnz < 2:
            return True, True
        major = self._major_index()
        ind = self.indices[:nnz].astype(numpy.int64)
        same = major[1:] == major[:-1]
        step = ind[1:] - ind[:-1]
        flags = gp.asnumpy(gp.stack([gp.any(same & (step < 0)),
                                     gp.any(same & (step <= 0))]))
        return not bool(flags[0]), not bool(flags[1])

    @property
    def has_sorted_indices(self):
        """Indices sorted within every row (CSR) / column (CSC)."""
        if "sorted" not in self._flags:
            self._flags["sorted"], self._flags["canonical"] = self._index_order()
        return self._flags["sorted"]

    @has_sorted_indices.setter
    def has_sorted_indices(self, value):
        self._flags["sorted"] = bool(value)
        if not value:
            self._flags["canonical"] = False

    @property
    def has_canonical_format(self):
        """Sorted indices and no duplicates."""
        if "canonical" not in self._flags:
            self._flags["sorted"], self._flags["canonical"] = self._index_order()
        return self._flags["canonical"]

    @has_canonical_format.setter
    def has_canonical_format(self, value):
        self._flags["canonical"] = bool(value)
        if value:
            self._flags["sorted"] = True

    def sort_indices(self):
        """Sort the indices of every row (CSR) / column (CSC), in place."""
        if self.has_sorted_indices:
            return
        nnz = self._nnz
        major = self._major_index()
        order = gp.lexsort((self.indices[:nnz], major))
        self.indices = self.indices[:nnz][order]
        self.data = self.data[:nnz][order]
        self._flags = {"sorted": True}       # duplicates: found on demand

    def sorted_indices(self):
        out = self.copy()
        out.sort_indices()
        return out

    def sum_duplicates(self):
        """Sort the indices and sum duplicate entries, in place."""
        if self.has_canonical_format:
            return
        coo = self.tocoo(copy=False)
        major = coo.row if self._format == "csr" else coo.col
        minor = coo.col if self._format == "csr" else coo.row
        data, major, minor = coo._sorted_runs(major, minor)
        M = self._swap(self._shape)[0]
        idx = self.indices.dtype
        self.indptr = gp.searchsorted(major, gp.arange(M + 1, dtype=major.dtype)).astype(idx)
        self.indices, self.data = minor.astype(idx, copy=False), data
        self._nnz = int(data.shape[0])
        self._flags = {"sorted": True, "canonical": True}

    def eliminate_zeros(self):
        """Drop stored zeros, in place."""
        nnz = self._nnz
        keep = self.data[:nnz] != 0
        counts = segment_sum(keep, self.indptr, self.indptr.dtype)
        self.indptr = gp.concatenate([gp.zeros(1, self.indptr.dtype),
                                      gp.cumsum(counts, dtype=self.indptr.dtype)])
        self.indices = self.indices[:nnz][keep]
        self.data = self.data[:nnz][keep]
        self._nnz = int(self.data.shape[0])

    def prune(self):
        """Drop the unused tail of ``indices`` and ``data`` (beyond nnz)."""
        self.indices = self.indices[:self._nnz]
        self.data = self.data[:self._nnz]

    # ---- products ----------------------------------------------------------
    def _matvec(self, x):
        dt = upcast(self.dtype, x.dtype)
        x = x.astype(dt, copy=False)
        M, N = self._swap(self._shape)
        if dt.kind in "fc":
            from ._cusparse import spmv
            return spmv(self._stored_data().astype(dt, copy=False), self.indptr,
                        self.indices[:self._nnz], M, N, x, self._format == "csc")
        if self._format == "csc":
            return self.tocsr()._matvec(x)
        prod = self._stored_data().astype(dt, copy=False) * x[self.indices[:self._nnz]]
        return segment_sum(prod, self.indptr, dt)

    def _matmat(self, b):
        dt = upcast(self.dtype, b.dtype)
        if dt.kind in "fc":
            from ._cusparse import spmm
            M, N = self._swap(self._shape)
            return spmm(self._stored_data().astype(dt, copy=False), self.indptr,
                        self.indices[:self._nnz], M, N, b.astype(dt, copy=False),
                        self._format == "csc")
        cols = [self._matvec(b[:, j]) for j in range(b.shape[1])]
        return gp.stack(cols, axis=1) if cols else gp.zeros((self._shape[0], 0), dt)


class _csr_base(_cs_base):
    _format = "csr"


class _csc_base(_cs_base):
    _format = "csc"


@register
class csr_array(sparray, _csr_base):
    """A sparse array in Compressed Sparse Row format (``scipy.sparse.csr_array``).

    ``csr_array(D)``, ``csr_array(S)`` (sparse, ours or SciPy's),
    ``csr_array((M, N), dtype=...)``, ``csr_array((data, (row, col)), shape=...)``
    (duplicates summed), ``csr_array((data, indices, indptr), shape=...)``.
    ``data``, ``indices``, ``indptr`` are device arrays.
    """


@register
class csr_matrix(spmatrix, _csr_base):
    """A sparse matrix in CSR format (``scipy.sparse.csr_matrix``): as
    :class:`csr_array` with the matrix interface."""


@register
class csc_array(sparray, _csc_base):
    """A sparse array in Compressed Sparse Column format
    (``scipy.sparse.csc_array``); constructors as :class:`csr_array`, with
    ``indptr`` over columns and ``indices`` holding rows."""


@register
class csc_matrix(spmatrix, _csc_base):
    """A sparse matrix in CSC format (``scipy.sparse.csc_matrix``)."""


def isspmatrix_csr(x):
    """True for :class:`csr_matrix` (not :class:`csr_array`), as SciPy."""
    return isinstance(x, csr_matrix)


def isspmatrix_csc(x):
    """True for :class:`csc_matrix` (not :class:`csc_array`), as SciPy."""
    return isinstance(x, csc_matrix)
