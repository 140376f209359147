"""The base of every sparse format: ``_spbase``, and the ``sparray`` /
``spmatrix`` interfaces.

As in SciPy, each format is one implementation class (``_coo_base``,
``_csr_base``, ...) and two public classes: ``*_array`` (``sparray``: ``*``
is elementwise, reductions return 1-D arrays) and ``*_matrix``
(``spmatrix``: ``*`` is the matrix product, reductions keep two
dimensions). The stored arrays (``data``, ``indices``, ``indptr``, ``row``,
``col``) are device arrays (:class:`gpuscipy_core.ndarray`); ``.get()``
returns the SciPy object of the same format and interface.

Differences from SciPy: ``todense()`` returns a 2-D device array, not a
``numpy.matrix``; reductions return 0-d device arrays where SciPy returns
NumPy scalars.
"""

import operator

import numpy

import gpuscipy_core as gp

from ._kernels import segment_sum
from ._sputils import getdtype, isdense, isscalarlike, to_device, upcast

__all__ = ["sparray", "spmatrix", "issparse", "isspmatrix", "SparseEfficiencyWarning",
           "SparseFormatError"]

_FORMAT_NAMES = {
    "coo": "COOrdinate", "csr": "Compressed Sparse Row",
    "csc": "Compressed Sparse Column", "dia": "DIAgonal",
    "bsr": "Block Sparse Row", "lil": "List of Lists", "dok": "Dictionary Of Keys",
}


class SparseWarning(Warning):
    pass


class SparseEfficiencyWarning(SparseWarning):
    """An operation that is legal but slow for the format (SciPy's class)."""


class SparseFormatError(ValueError):
    """Stored arrays that do not form a valid matrix of the format."""


_CLASSES = {}   # (format, is_array) -> public class


def register(cls):
    """Class decorator of the public ``*_array`` / ``*_matrix`` classes."""
    _CLASSES[(cls._format, cls._is_array)] = cls
    return cls


def public_class(format, is_array):
    """The public class of ``format`` with the array or matrix interface."""
    return _CLASSES[(format, bool(is_array))]


class _spbase:
    """Shared behaviour of the formats; not instantiated directly.

    A format implements ``_getnnz()``, ``_getnnz_axis(ax)``,
    ``_stored_data()`` (the values that make up the sum, duplicates
    included), ``_with_data(data, copy)`` (same structure, new values),
    ``tocoo``, ``transpose`` and ``_to_scipy``.
    """

    __array_priority__ = 10.1
    _format = "und"

    def _finish_init(self, dtype, shape, copy):
        """The constructors' common end: cast to ``dtype`` (or check the
        data's dtype is supported), check a given ``shape`` against the one
        found, copy the stored arrays when asked (``copy`` of a non-sparse
        source: a sparse source was already copied by its conversion)."""
        if dtype is not None:
            dt = getdtype(dtype)
            if dt != self.data.dtype:
                self.data = self.data.astype(dt)
        else:
            getdtype(None, self.data)
        if shape is not None and tuple(shape) != self._shape:
            raise ValueError(f"inconsistent shapes: {tuple(shape)} and {self._shape}")
        if copy:
            for name in self._stored_arrays():
                setattr(self, name, getattr(self, name).copy())

    # ---- basic properties ------------------------------------------------
    @property
    def shape(self):
        return self._shape

    @property
    def ndim(self):
        return 2

    @property
    def format(self):
        return self._format

    @property
    def nnz(self):
        """Stored entries, explicit zeros and duplicates included."""
        return self._getnnz()

    @property
    def size(self):
        return self._getnnz()

    @property
    def dtype(self):
        return self.data.dtype

    def __len__(self):
        raise TypeError("sparse array length is ambiguous; use getnnz() or shape[0]")

    def __bool__(self):
        if self.shape == (1, 1):
            return bool(self.count_nonzero() != 0)
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all().")

    def __repr__(self):
        name = _FORMAT_NAMES.get(self.format, self.format)
        kind = "array" if self._is_array else "matrix"
        return (f"<{name} sparse {kind} of dtype '{self.dtype}'\n"
                f"\twith {self.nnz} stored elements and shape {self.shape}>")

    # ---- conversions -----------------------------------------------------
    def asformat(self, format, copy=False):
        """This array in ``format`` ('coo', 'csr', 'csc'; None: as is)."""
        if format is None or format == self.format:
            return self.copy() if copy else self
        try:
            conv = getattr(self, "to" + format)
        except AttributeError:
            raise ValueError(f"Format {format} is unknown.") from None
        return conv(copy=copy)

    def get(self):
        """The SciPy sparse object of this format and interface (host copy)."""
        return self._to_scipy()

    def toarray(self, order=None, out=None):
        """A dense device array (``order`` 'C' or 'F'; ``out``: a device array of
        the shape and dtype to fill)."""
        return self.tocoo(copy=False).toarray(order=order, out=out)

    def todense(self, order=None, out=None):
        """As :meth:`toarray` (a 2-D device array, not a ``numpy.matrix``)."""
        return self.toarray(order=order, out=out)

    def tocsr(self, copy=False):
        return self.tocoo(copy=False).tocsr(copy=False)

    def tocsc(self, copy=False):
        return self.tocoo(copy=False).tocsc(copy=False)

    def astype(self, dtype, casting="unsafe", copy=True):
        dt = numpy.dtype(dtype)
        if dt == self.dtype:
            return self.copy() if copy else self
        if not numpy.can_cast(self.dtype, dt, casting=casting):
            raise TypeError(f"Cannot cast array data from {self.dtype} to {dt} "
                            f"according to the rule {casting!r}")
        return self._with_data(self.data.astype(dt), copy=True)

    def conjugate(self, copy=True):
        if self.dtype.kind == "c":
            return self._with_data(gp.conjugate(self.data), copy=copy)
        return self.copy() if copy else self

    conj = conjugate

    def copy(self):
        return self._with_data(self.data.copy(), copy=True)

    @property
    def T(self):
        return self.transpose()

    @property
    def real(self):
        return self._with_data(gp.real(self.data).copy() if self.dtype.kind == "c"
                               else self.data.copy(), copy=True)

    @property
    def imag(self):
        if self.dtype.kind == "c":
            return self._with_data(gp.imag(self.data).copy(), copy=True)
        return self._with_data(gp.zeros_like(self.data), copy=True)

    # ---- arithmetic ------------------------------------------------------
    def __neg__(self):
        if self.dtype == numpy.bool_:
            raise NotImplementedError("negating a boolean sparse array is not "
                                      "supported, use the ~ operator instead.")
        return self._with_data(-self.data, copy=True)

    def __abs__(self):
        return self._with_data(abs(self.data), copy=True)

    def _mul_scalar(self, other):
        dt = upcast(self.dtype, numpy.asarray(other).dtype)
        return self._with_data(self.data.astype(dt, copy=False) * other, copy=True)

    def multiply(self, other):
        """Elementwise product with a scalar, a dense array or a sparse array."""
        if isscalarlike(other):
            return self._mul_scalar(other)
        if issparse(other):
            from ._binop import multiply_sparse
            return multiply_sparse(self, other)
        other = _as_dense_operand(other)
        return self.toarray() * other

    def _matmul_dispatch(self, other):
        if isscalarlike(other):
            return self._mul_scalar(other)
        if issparse(other):
            if self.shape[1] != other.shape[0]:
                raise ValueError("dimension mismatch")
            from ._binop import matmul_sparse
            return matmul_sparse(self, other)
        other = _as_dense_operand(other)
        if other.ndim == 1 or (other.ndim == 2 and other.shape[1] == 1):
            if other.shape[0] != self.shape[1]:
                raise ValueError("dimension mismatch")
            y = self.tocsr()._matvec(other.reshape(-1))
            return y if other.ndim == 1 else y.reshape(-1, 1)
        if other.ndim == 2:
            if other.shape[0] != self.shape[1]:
                raise ValueError("dimension mismatch")
            return self.tocsr()._matmat(other)
        raise ValueError("could not interpret dimensions")

    def __matmul__(self, other):
        if isscalarlike(other):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        return self._matmul_dispatch(other)

    def __rmatmul__(self, other):
        if isscalarlike(other):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        return (self.transpose() @ _as_dense_operand(other).T).T

    def dot(self, other):
        """Matrix product (``@``), scalars allowed."""
        return self._matmul_dispatch(other)

    def __mul__(self, other):
        return self.multiply(other)

    def __rmul__(self, other):
        return self.multiply(other)

    def __truediv__(self, other):
        if isscalarlike(other):
            dt = numpy.result_type(self.dtype, numpy.float64
                                   if self.dtype.kind in "biu" else self.dtype)
            return self._with_data(self.data.astype(dt, copy=False) / other, copy=True)
        if issparse(other):
            from ._binop import divide_sparse
            return divide_sparse(self, other)
        return self.toarray() / _as_dense_operand(other)

    # ---- elementwise maximum, minimum, comparisons (_binop.py) -----------
    def maximum(self, other):
        """Elementwise maximum with a scalar, dense or sparse array (SciPy's rules)."""
        from ._binop import maximum_minimum
        return maximum_minimum(self, other, "maximum")

    def minimum(self, other):
        """Elementwise minimum with a scalar, dense or sparse array (SciPy's rules)."""
        from ._binop import maximum_minimum
        return maximum_minimum(self, other, "minimum")

    def _comparison(self, other, op):
        from ._binop import compare
        return compare(self, other, op)

    def __eq__(self, other):
        return self._comparison(other, operator.eq)

    def __ne__(self, other):
        return self._comparison(other, operator.ne)

    def __lt__(self, other):
        return self._comparison(other, operator.lt)

    def __gt__(self, other):
        return self._comparison(other, operator.gt)

    def __le__(self, other):
        return self._comparison(other, operator.le)

    def __ge__(self, other):
        return self._comparison(other, operator.ge)

    __hash__ = None

    def __add__(self, other):
        if isscalarlike(other):
            if other == 0:
                return self.copy()
            raise NotImplementedError("adding a nonzero scalar to a sparse array "
                                      "is not supported")
        if issparse(other):
            if other.shape != self.shape:
                raise ValueError(f"inconsistent shapes {self.shape} and {other.shape}")
            return _combine(self, other, 1)
        return self.toarray() + _as_dense_operand(other)

    __radd__ = __add__

    def __sub__(self, other):
        if isscalarlike(other):
            if other == 0:
                return self.copy()
            raise NotImplementedError("subtracting a nonzero scalar from a sparse "
                                      "array is not supported")
        if issparse(other):
            if other.shape != self.shape:
                raise ValueError(f"inconsistent shapes {self.shape} and {other.shape}")
            return _combine(self, other, -1)
        return self.toarray() - _as_dense_operand(other)

    def __rsub__(self, other):
        return -(self - other)

    def power(self, n, dtype=None):
        """Elementwise power of the stored values (``n`` a scalar)."""
        if not isscalarlike(n):
            raise NotImplementedError("input is not scalar")
        if not n:
            raise NotImplementedError("zero power is not supported as it would "
                                      "densify the matrix.\nUse "
                                      "`numpy.ones(A.shape, dtype=A.dtype)` for this case.")
        data = self.data if dtype is None else self.data.astype(dtype)
        return self._with_data(data ** n, copy=True)

    # ---- reductions ------------------------------------------------------
    def _compressed_along(self, ax):
        """The CSR form (``ax`` 1: segments are rows) or CSC form (``ax`` 0)."""
        return self.tocsc(copy=False) if ax == 0 else self.tocsr(copy=False)

    def sum(self, axis=None, dtype=None, out=None):
        """Sum of the entries: all (``axis`` None), per column (0) or per row
        (1). Integer and bool values sum in the platform integer, as SciPy.
        Each row (column) is summed in its stored order by one thread."""
        res_dt = _sum_dtype(self.dtype) if dtype is None else numpy.dtype(dtype)
        if axis is None:
            return _to_out(gp.sum(self._stored_data(), dtype=res_dt), out)
        ax = _check_axis(axis)
        cs = self._compressed_along(ax)
        r = segment_sum(cs.data, cs.indptr, res_dt)
        n = self.shape[1 - ax]
        if not self._is_array:
            r = r.reshape((1, n) if ax == 0 else (n, 1))
        return _to_out(r, out)

    def mean(self, axis=None, dtype=None, out=None):
        """Mean of the entries (zeros included), in SciPy's dtypes."""
        if dtype is None:
            dt = numpy.dtype(numpy.float64) if self.dtype.kind in "biu" else self.dtype
        else:
            dt = numpy.dtype(dtype)
        s = self.sum(axis=axis, dtype=dt)
        count = (self.shape[0] * self.shape[1] if axis is None
                 else self.shape[_check_axis(axis)])
        return _to_out(s / count, out)

    def diagonal(self, k=0):
        """The ``k``-th diagonal as a 1-D device array (duplicates summed)."""
        m, n = self.shape
        if k <= -m or k >= n:
            return gp.empty(0, self.dtype)
        cs = self.tocsr(copy=False)
        rows = cs._major_index()
        on = (cs.indices[:cs.nnz].astype(numpy.int64) - rows) == k
        vals = gp.where(on, cs._stored_data(), gp.zeros((), cs.dtype))
        per_row = segment_sum(vals, cs.indptr, cs.dtype)
        start = -min(k, 0)
        length = min(m + min(k, 0), n - max(k, 0))
        return per_row[start:start + length].copy()

    def trace(self, offset=0):
        """Sum of the ``offset``-th diagonal."""
        return gp.sum(self.diagonal(k=offset))

    def count_nonzero(self, axis=None):
        """Entries that are nonzero once duplicates are summed."""
        cs = self.tocsr(copy=True)
        cs.sum_duplicates()
        if axis is None:
            return gp.count_nonzero(cs.data)
        ax = _check_axis(axis)
        c = cs if ax == 1 else cs.tocsc(copy=False)
        return segment_sum((c._stored_data() != 0).astype(numpy.intp), c.indptr, numpy.intp)

    # ---- min / max (_minmax.py) and indexing (_index.py) -------------------
    def max(self, axis=None, out=None, *, explicit=False):
        """Maximum (implicit zeros included unless ``explicit``); see _minmax."""
        from ._minmax import min_or_max
        return min_or_max(self, axis, out, "max", explicit)

    def min(self, axis=None, out=None, *, explicit=False):
        """Minimum (implicit zeros included unless ``explicit``); see _minmax."""
        from ._minmax import min_or_max
        return min_or_max(self, axis, out, "min", explicit)

    def nanmax(self, axis=None, out=None, *, explicit=False):
        """Maximum ignoring NaNs; see _minmax."""
        from ._minmax import min_or_max
        return min_or_max(self, axis, out, "nanmax", explicit)

    def nanmin(self, axis=None, out=None, *, explicit=False):
        """Minimum ignoring NaNs; see _minmax."""
        from ._minmax import min_or_max
        return min_or_max(self, axis, out, "nanmin", explicit)

    def argmax(self, axis=None, out=None, *, explicit=False):
        """Index of the maximum (flat for ``axis=None``); see _minmax."""
        from ._minmax import argmin_or_argmax
        return argmin_or_argmax(self, axis, out, "max", explicit)

    def argmin(self, axis=None, out=None, *, explicit=False):
        """Index of the minimum (flat for ``axis=None``); see _minmax."""
        from ._minmax import argmin_or_argmax
        return argmin_or_argmax(self, axis, out, "min", explicit)

    def __getitem__(self, key):
        """SciPy's indexing (see _index.py for the supported keys)."""
        from ._index import getitem
        return getitem(self, key)

    def __setitem__(self, key, x):
        """Assignment of a scalar or a dense array (see _index.py)."""
        from ._index import setitem
        setitem(self, key, x)

    def setdiag(self, values, k=0):
        """Set the ``k``-th diagonal in place (see _index.py)."""
        from ._index import setdiag
        setdiag(self, values, k)


class sparray:
    """The array interface: ``*`` elementwise, 1-D reductions (SciPy's class)."""

    _is_array = True


class spmatrix:
    """The matrix interface: ``*`` is the matrix product (SciPy's class)."""

    _is_array = False

    def __mul__(self, other):
        return self._matmul_dispatch(other)

    def __rmul__(self, other):
        if isscalarlike(other):
            return self._mul_scalar(other)
        return self.__rmatmul__(other)

    def __pow__(self, n):
        m, k = self.shape
        if m != k:
            raise TypeError("sparse matrix is not square")
        n = int(n)
        if n < 0:
            raise ValueError("exponent must be >= 0")
        if n == 0:
            from ._construct import eye
            return eye(m, dtype=self.dtype, format="csr")
        result = self.tocsr()
        for _ in range(n - 1):
            result = result @ self
        return result

    def getnnz(self, axis=None):
        """Stored entries (duplicates and explicit zeros counted), all or per
        row (``axis`` 1) / column (0); the matrix interface only, as SciPy."""
        if axis is None:
            return self.nnz
        return self._getnnz_axis(_check_axis(axis))

    def getH(self):
        return self.conjugate().transpose()

    @property
    def H(self):
        return self.getH()

    def asfptype(self):
        """A floating-point copy (float32/64, complex64/128) where needed."""
        for dt in "fdFD":
            if numpy.can_cast(self.dtype, dt):
                return self.astype(dt, copy=False)
        raise TypeError("cannot upcast [%s] to a floating point format" % self.dtype.name)


def issparse(x):
    """True for every gpuscipy sparse array or matrix."""
    return isinstance(x, _spbase)


def isspmatrix(x):
    """True for the ``*_matrix`` classes only (SciPy's rule)."""
    return isinstance(x, spmatrix)


# ---------------------------------------------------------------- helpers

def _check_axis(axis):
    if isinstance(axis, tuple):
        if len(axis) == 2:
            raise NotImplementedError("a tuple of both axes: use axis=None")
        axis = axis[0]
    try:
        ax = int(axis)
    except TypeError:
        raise TypeError(f"axis must be an integer, got {axis!r}") from None
    if ax < -2 or ax > 1:
        raise ValueError("axis out of range")
    return ax % 2


def _sum_dtype(dt):
    dt = numpy.dtype(dt)
    if dt.kind == "b" or (dt.kind == "i" and dt.itemsize < numpy.dtype(numpy.int_).itemsize):
        return numpy.dtype(numpy.int_)
    if dt.kind == "u" and dt.itemsize < numpy.dtype(numpy.uint).itemsize:
        return numpy.dtype(numpy.uint)
    return dt


def _to_out(r, out):
    if out is None:
        return r
    if tuple(out.shape) != tuple(r.shape):
        raise ValueError("dimensions do not match")
    out[...] = r
    return out


def _combine(a, b, sign):
    """``a + sign * b`` of two sparse arrays of one shape, as CSR: the two
    entry lists concatenated and their duplicates summed."""
    from ._coo import _coo_base
    ca, cb = a.tocoo(copy=False), b.tocoo(copy=False)
    dt = upcast(a.dtype, b.dtype)
    db = cb.data.astype(dt, copy=False)
    data = gp.concatenate([ca.data.astype(dt, copy=False), db if sign > 0 else -db])
    row = gp.concatenate([ca.row.astype(numpy.int64), cb.row.astype(numpy.int64)])
    col = gp.concatenate([ca.col.astype(numpy.int64), cb.col.astype(numpy.int64)])
    return _coo_base._from_parts(data, row, col, a.shape, a._is_array).tocsr()


def _as_dense_operand(x):
    if isdense(x) or isinstance(x, (list, tuple)):
        return to_device(x, name="operand")
    raise TypeError(f"unsupported operand type {type(x).__name__}")
