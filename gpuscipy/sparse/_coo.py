"""COOrdinate format: ``coo_array`` and ``coo_matrix``.

Entries are three device arrays of one length: ``data``, ``row``, ``col``
(duplicates and explicit zeros allowed until ``sum_duplicates`` /
``eliminate_zeros``). Canonical order is row-major, as SciPy's
(``has_canonical_format``: sorted by (row, col), no duplicates).

Algorithms: ``sum_duplicates`` sorts the entries by (row, col) with the
core's stable radix sort (``lexsort``; Adinets & Merrill 2022, "Onesweep"),
marks the first entry of each run of equal keys and sums each run in order
(``_kernels.segment_sum``); ``tocsr``/``tocsc`` are that, then the row
(column) pointers by one ``searchsorted`` of 0..M into the sorted rows.
"""

import numpy

import gpuscipy_core as gp

from ._base import _spbase, public_class, register, sparray, spmatrix
from ._kernels import segment_sum
from ._sputils import check_shape, get_index_dtype, getdtype, isshape, to_device

__all__ = ["coo_array", "coo_matrix", "isspmatrix_coo"]


def _scipy_sparse():
    import scipy.sparse
    return scipy.sparse


class _coo_base(_spbase):
    _format = "coo"

    def __init__(self, arg1, shape=None, dtype=None, copy=False):
        sp = _scipy_sparse()
        self.has_canonical_format = False
        if isinstance(arg1, _spbase):
            coo = arg1.tocoo(copy=copy)
            self._set(coo.data, coo.row, coo.col, coo.shape)
            self.has_canonical_format = coo.has_canonical_format
        elif sp.issparse(arg1):
            h = arg1.tocoo()
            self._set(to_device(h.data), to_device(h.row), to_device(h.col),
                      h.shape)
            self.has_canonical_format = bool(getattr(h, "has_canonical_format", False))
        elif isinstance(arg1, tuple):
            if isshape(arg1):
                m, n = check_shape(arg1)
                idx = get_index_dtype(maxval=max(m, n))
                dt = getdtype(dtype, default=numpy.float64)
                self._set(gp.empty(0, dt), gp.empty(0, idx), gp.empty(0, idx), (m, n))
                self.has_canonical_format = True
            elif len(arg1) == 2:
                self._from_triplets(arg1, shape, dtype)
            else:
                raise TypeError("invalid input format")
        else:
            self._from_dense(arg1, shape)
        self._finish_init(dtype, shape, copy and not isinstance(arg1, _spbase))

    # ---- construction ----------------------------------------------------
    def _set(self, data, row, col, shape):
        self._shape = check_shape(shape)
        # the indices are bounded by the shape (checked), so the shape decides
        idx = get_index_dtype(maxval=max(self._shape))
        self.data = data
        self.row = row if row.dtype == idx else row.astype(idx)
        self.col = col if col.dtype == idx else col.astype(idx)

    def _from_triplets(self, arg1, shape, dtype):
        data, ij = arg1
        try:
            row, col = ij
        except (TypeError, ValueError):
            raise TypeError("invalid input format") from None
        data = to_device(data, name="data")
        row = to_device(row, name="row")
        col = to_device(col, name="col")
        for name, a in (("row", row), ("col", col)):
            if a.dtype.kind not in "iu":
                raise TypeError(f"{name} indices must be of integer type, got {a.dtype}")
        if not (data.ndim == row.ndim == col.ndim == 1):
            raise ValueError("row, column, and data arrays must be 1-D")
        if not (data.shape[0] == row.shape[0] == col.shape[0]):
            raise ValueError("row, column, and data array must all be the same length")
        if shape is None:
            if row.shape[0] == 0:
                raise ValueError("cannot infer dimensions from zero sized index arrays")
            shape = (int(row.max()) + 1, int(col.max()) + 1)
        self._set(data, row, col, shape)
        self._check_bounds()

    def _from_dense(self, arg1, shape):
        a = to_device(arg1, name="arg1")
        if a.ndim == 1 and not self._is_array:
            a = a.reshape(1, -1)
        elif a.ndim == 0:
            a = a.reshape(1, 1)
        if a.ndim != 2:
            raise TypeError(f"expected a 2-D dense array, got {a.ndim}-D "
                            "(gpuscipy.sparse supports 2-D arrays only)")
        row, col = gp.nonzero(a)
        self._set(a[row, col], row, col, a.shape)
        self.has_canonical_format = True

    def _check_bounds(self):
        if self.row.shape[0] == 0:
            return
        m, n = self._shape
        # one host round trip for the four extremes
        ext = gp.asnumpy(gp.stack([self.row.max().astype(numpy.int64),
                                   self.col.max().astype(numpy.int64),
                                   self.row.min().astype(numpy.int64),
                                   self.col.min().astype(numpy.int64)]))
        if ext[0] >= m:
            raise ValueError("row index exceeds matrix dimensions")
        if ext[1] >= n:
            raise ValueError("column index exceeds matrix dimensions")
        if ext[2] < 0:
            raise ValueError("negative row index found")
        if ext[3] < 0:
            raise ValueError("negative column index found")

    @classmethod
    def _from_parts(cls, data, row, col, shape, is_array, canonical=False):
        """A new public COO array of these device arrays (no checks)."""
        out = public_class("coo", is_array).__new__(public_class("coo", is_array))
        out._set(data, row, col, shape)
        out.has_canonical_format = canonical
        return out

    # ---- the _spbase interface -------------------------------------------
    def _stored_arrays(self):
        return ("data", "row", "col")

    @property
    def coords(self):
        return (self.row, self.col)

    def _getnnz(self):
        return int(self.data.shape[0])

    def _getnnz_axis(self, ax):
        idx = self.col if ax == 0 else self.row
        return gp.bincount(idx, minlength=self._shape[1 - ax])

    def _stored_data(self):
        return self.data

    def _with_data(self, data, copy=True):
        row, col = (self.row.copy(), self.col.copy()) if copy else (self.row, self.col)
        return type(self)._from_parts(data, row, col, self._shape, self._is_array,
                                      self.has_canonical_format)

    def _to_scipy(self):
        sp = _scipy_sparse()
        cls = sp.coo_array if self._is_array else sp.coo_matrix
        out = cls((gp.asnumpy(self.data), (gp.asnumpy(self.row), gp.asnumpy(self.col))),
                  shape=self._shape)
        out.has_canonical_format = self.has_canonical_format
        return out

    def tocoo(self, copy=False):
        return self.copy() if copy else self

    def copy(self):
        return type(self)._from_parts(self.data.copy(), self.row.copy(), self.col.copy(),
                                      self._shape, self._is_array, self.has_canonical_format)

    def transpose(self, axes=None, copy=False):
        _check_axes(axes)
        row, col = (self.row.copy(), self.col.copy()) if copy else (self.row, self.col)
        data = self.data.copy() if copy else self.data
        return type(self)._from_parts(data, col, row, self._shape[::-1], self._is_array)

    # ---- canonical form ---------------------------------------------------
    def _sorted_runs(self, major, minor):
        """Entries sorted by (major, minor), their duplicates summed: the
        device arrays ``(data, major, minor)``."""
        nnz = self.data.shape[0]
        if nnz == 0:
            return self.data, major, minor
        order = gp.lexsort((minor, major))
        data, major, minor = self.data[order], major[order], minor[order]
        new = gp.empty(nnz, numpy.bool_)
        new[:1] = True
        if nnz > 1:
            new[1:] = (major[1:] != major[:-1]) | (minor[1:] != minor[:-1])
        starts = gp.flatnonzero(new)
        if starts.shape[0] == nnz:
            return data, major, minor
        ptr = gp.concatenate([starts, gp.asarray(numpy.array([nnz], starts.dtype))])
        return segment_sum(data, ptr, data.dtype), major[starts], minor[starts]

    def sum_duplicates(self):
        """Sort the entries row-major and sum duplicates, in place."""
        if self.has_canonical_format:
            return
        self.data, self.row, self.col = self._sorted_runs(self.row, self.col)
        self.has_canonical_format = True

    def eliminate_zeros(self):
        """Drop stored zeros, in place."""
        keep = self.data != 0
        self.data, self.row, self.col = self.data[keep], self.row[keep], self.col[keep]

    # ---- conversions ------------------------------------------------------
    def _compress(self, fmt):
        if fmt == "csr":
            m = self._shape[0]
            data, major, minor = (self._sorted_runs(self.row, self.col)
                                  if not self.has_canonical_format
                                  else (self.data, self.row, self.col))
        else:
            m = self._shape[1]
            data, major, minor = self._sorted_runs(self.col, self.row)
        idx = get_index_dtype(maxval=max(max(self._shape), data.shape[0]))
        indptr = gp.searchsorted(major, gp.arange(m + 1, dtype=major.dtype)).astype(idx)
        cls = public_class(fmt, self._is_array)
        return cls._from_parts(data, minor.astype(idx, copy=False), indptr, self._shape,
                               canonical=True)

    def tocsr(self, copy=False):
        """CSR with duplicates summed and indices sorted (SciPy's result)."""
        return self._compress("csr")

    def tocsc(self, copy=False):
        """CSC with duplicates summed and indices sorted (SciPy's result)."""
        return self._compress("csc")

    def toarray(self, order=None, out=None):
        """Dense device array (duplicates summed)."""
        m, n = self._shape
        if out is None:
            out = gp.zeros((m, n), self.dtype, order="F" if order == "F" else "C")
        else:
            if tuple(out.shape) != (m, n) or out.dtype != self.dtype:
                raise ValueError("out array must be same dtype and shape as sparse array")
            out[...] = 0
        if self.data.shape[0]:
            data, row, col = ((self.data, self.row, self.col) if self.has_canonical_format
                              else self._sorted_runs(self.row, self.col))
            out[row, col] = data
        return out


def _check_axes(axes):
    if axes is not None and tuple(axes) != (1, 0):
        raise ValueError("Sparse arrays/matrices do not support an 'axes' parameter "
                         "because swapping dimensions is the only logical permutation.")


@register
class coo_array(sparray, _coo_base):
    """A sparse array in COOrdinate format (``scipy.sparse.coo_array``).

    ``coo_array(D)`` (dense, host or device), ``coo_array(S)`` (sparse, ours or
    SciPy's), ``coo_array((M, N), dtype=...)`` (empty),
    ``coo_array((data, (row, col)), shape=(M, N))``. Stored arrays ``data``,
    ``row``, ``col`` live on the device; ``.get()`` returns SciPy's object.
    """


@register
class coo_matrix(spmatrix, _coo_base):
    """A sparse matrix in COOrdinate format (``scipy.sparse.coo_matrix``):
    as :class:`coo_array` with the matrix interface (``*`` is ``@``)."""


def isspmatrix_coo(x):
    """True for :class:`coo_matrix` (not :class:`coo_array`), as SciPy."""
    return isinstance(x, coo_matrix)
