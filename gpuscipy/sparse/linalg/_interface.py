"""``LinearOperator`` and ``aslinearoperator`` (``scipy.sparse.linalg``).

A linear operator is a shape, a dtype and products with device vectors and
matrices. As in SciPy: ``LinearOperator(shape, matvec, rmatvec=None,
matmat=None, dtype=None, rmatmat=None)`` wraps functions; subclasses define
``_matvec`` (and optionally ``_rmatvec``, ``_matmat``, ``_adjoint``);
operators compose by ``+``, ``*``/``@`` (products), scalar ``*``, ``**``,
``.T``, ``.H``. Vectors are gpuscipy_core device arrays (host arrays are
copied to the device).
"""

import numpy

import gpuscipy_core as gp

from .._base import issparse
from .._sputils import isintlike, isscalarlike, to_device

__all__ = ["LinearOperator", "aslinearoperator"]


class LinearOperator:
    """A matrix-free operator of shape ``(M, N)`` (SciPy's class).

    Parameters
    ----------
    shape : tuple of two ints
    matvec : callable(v) -> A @ v
        ``v`` a device vector of length N (or ``(N, 1)``).
    rmatvec, matmat, rmatmat : callable, optional
        ``A^H @ v``, ``A @ V``, ``A^H @ V``; ``matmat`` defaults to one
        ``matvec`` per column.
    dtype : dtype, optional
        When None, found by one ``matvec`` of a zero vector (as SciPy).

    Raises
    ------
    ValueError
        For a shape that is not two non-negative ints, and for operands whose
        shapes do not match.
    """

    ndim = 2
    __array_ufunc__ = None

    def __new__(cls, *args, **kwargs):
        if cls is LinearOperator:
            return super().__new__(_CustomLinearOperator)
        obj = super().__new__(cls)
        if (type(obj)._matvec is LinearOperator._matvec
                and type(obj)._matmat is LinearOperator._matmat):
            raise TypeError("LinearOperator subclass should implement at least one of "
                            "_matvec and _matmat.")
        return obj

    def __init__(self, dtype, shape):
        if dtype is not None:
            dtype = numpy.dtype(dtype)
        shape = tuple(shape)
        if not (len(shape) == 2 and all(isintlike(s) and int(s) >= 0 for s in shape)):
            raise ValueError(f"invalid shape {shape!r} (must be 2-d)")
        self.dtype = dtype
        self.shape = tuple(int(s) for s in shape)

    def _init_dtype(self):
        if self.dtype is None:
            v = gp.zeros(self.shape[-1], numpy.int8)
            try:
                self.dtype = numpy.dtype(self.matvec(v).dtype)
            except OverflowError:
                self.dtype = numpy.dtype(numpy.float64)

    # ---- products ----------------------------------------------------------
    def _matmat(self, X):
        cols = [self.matvec(X[:, j].reshape(-1, 1)).reshape(-1) for j in range(X.shape[1])]
        return gp.stack(cols, axis=1) if cols else gp.zeros((self.shape[0], 0), self.dtype)

    def _matvec(self, x):
        return self.matmat(x.reshape(-1, 1))

    def _rmatvec(self, x):
        if type(self)._adjoint is LinearOperator._adjoint:
            raise NotImplementedError("rmatvec is not defined")
        return self.H.matvec(x)

    def _rmatmat(self, X):
        if type(self)._adjoint is LinearOperator._adjoint:
            cols = [self.rmatvec(X[:, j].reshape(-1, 1)).reshape(-1)
                    for j in range(X.shape[1])]
            return gp.stack(cols, axis=1) if cols else gp.zeros((self.shape[1], 0), self.dtype)
        return self.H.matmat(X)

    def matvec(self, x):
        """``A @ x`` for ``x`` of shape ``(N,)`` or ``(N, 1)`` (same shape out)."""
        x = to_device(x)
        M, N = self.shape
        if x.shape != (N,) and x.shape != (N, 1):
            raise ValueError("dimension mismatch")
        y = self._matvec(x)
        return y.reshape(M) if x.ndim == 1 else y.reshape(M, 1)

    def rmatvec(self, x):
        """``A^H @ x`` for ``x`` of shape ``(M,)`` or ``(M, 1)``."""
        x = to_device(x)
        M, N = self.shape
        if x.shape != (M,) and x.shape != (M, 1):
            raise ValueError("dimension mismatch")
        y = self._rmatvec(x)
        return y.reshape(N) if x.ndim == 1 else y.reshape(N, 1)

    def matmat(self, X):
        """``A @ X`` for a 2-D ``X`` of N rows."""
        X = to_device(X)
        if X.ndim != 2:
            raise ValueError(f"expected 2-d ndarray or matrix, not {X.ndim}-d")
        if X.shape[0] != self.shape[1]:
            raise ValueError(f"dimension mismatch: {self.shape}, {X.shape}")
        return self._matmat(X)

    def rmatmat(self, X):
        """``A^H @ X`` for a 2-D ``X`` of M rows."""
        X = to_device(X)
        if X.ndim != 2:
            raise ValueError(f"expected 2-d ndarray or matrix, not {X.ndim}-d")
        if X.shape[0] != self.shape[0]:
            raise ValueError(f"dimension mismatch: {self.shape}, {X.shape}")
        return self._rmatmat(X)

    def __call__(self, x):
        return self * x

    def dot(self, x):
        """Product with an operator, a scalar, a vector or a matrix."""
        if isinstance(x, LinearOperator):
            return _ProductLinearOperator(self, x)
        if isscalarlike(x):
            return _ScaledLinearOperator(self, x)
        x = to_device(x)
        if x.ndim == 1 or (x.ndim == 2 and x.shape[1] == 1):
            return self.matvec(x)
        if x.ndim == 2:
            return self.matmat(x)
        raise ValueError(f"expected 1-d or 2-d array or matrix, got {x!r}")

    def __mul__(self, x):
        return self.dot(x)

    def __matmul__(self, other):
        if isscalarlike(other):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        return self.dot(other)

    def __rmatmul__(self, other):
        if isscalarlike(other):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        return self._rdot(other)

    def __rmul__(self, x):
        return self._rdot(x)

    def _rdot(self, x):
        if isinstance(x, LinearOperator):
            return _ProductLinearOperator(x, self)
        if isscalarlike(x):
            return _ScaledLinearOperator(self, x)
        x = to_device(x)
        if x.ndim == 1 or (x.ndim == 2 and x.shape[0] == 1):
            return self.T.matvec(x.T).T
        return self.T.matmat(x.T).T

    def __pow__(self, p):
        if isscalarlike(p):
            return _PowerLinearOperator(self, p)
        return NotImplemented

    def __add__(self, x):
        if isinstance(x, LinearOperator):
            return _SumLinearOperator(self, x)
        return NotImplemented

    def __neg__(self):
        return _ScaledLinearOperator(self, -1)

    def __sub__(self, x):
        return self.__add__(-x)

    def __repr__(self):
        dt = "unspecified dtype" if self.dtype is None else "dtype=" + str(self.dtype)
        return f"<{self.shape[0]}x{self.shape[1]} {type(self).__name__} with {dt}>"

    def adjoint(self):
        """The Hermitian adjoint ``A^H``."""
        return self._adjoint()

    H = property(adjoint)

    def transpose(self):
        """The transpose ``A^T``."""
        return self._transpose()

    T = property(transpose)

    def _adjoint(self):
        return _AdjointLinearOperator(self)

    def _transpose(self):
        return _TransposedLinearOperator(self)


class _CustomLinearOperator(LinearOperator):
    def __init__(self, shape, matvec, rmatvec=None, matmat=None, dtype=None, rmatmat=None):
        super().__init__(dtype, shape)
        self.args = ()
        self.__matvec_impl = matvec
        self.__rmatvec_impl = rmatvec
        self.__rmatmat_impl = rmatmat
        self.__matmat_impl = matmat
        self._init_dtype()

    def _matmat(self, X):
        if self.__matmat_impl is not None:
            return self.__matmat_impl(X)
        return super()._matmat(X)

    def _matvec(self, x):
        return self.__matvec_impl(x)

    def _rmatvec(self, x):
        if self.__rmatvec_impl is None:
            raise NotImplementedError("rmatvec is not defined")
        return self.__rmatvec_impl(x)

    def _rmatmat(self, X):
        if self.__rmatmat_impl is not None:
            return self.__rmatmat_impl(X)
        return super()._rmatmat(X)

    def _adjoint(self):
        return _CustomLinearOperator(shape=(self.shape[1], self.shape[0]),
                                     matvec=self.__rmatvec_impl, rmatvec=self.__matvec_impl,
                                     matmat=self.__rmatmat_impl, rmatmat=self.__matmat_impl,
                                     dtype=self.dtype)


def _conj(x):
    return gp.conjugate(x) if x.dtype.kind == "c" else x


class _AdjointLinearOperator(LinearOperator):
    def __init__(self, A):
        super().__init__(A.dtype, (A.shape[1], A.shape[0]))
        self.A = A
        self.args = (A,)

    def _matvec(self, x):
        return self.A._rmatvec(x)

    def _rmatvec(self, x):
        return self.A._matvec(x)

    def _matmat(self, x):
        return self.A._rmatmat(x)

    def _rmatmat(self, x):
        return self.A._matmat(x)


class _TransposedLinearOperator(LinearOperator):
    def __init__(self, A):
        super().__init__(A.dtype, (A.shape[1], A.shape[0]))
        self.A = A
        self.args = (A,)

    def _matvec(self, x):
        return _conj(self.A._rmatvec(_conj(x)))

    def _rmatvec(self, x):
        return _conj(self.A._matvec(_conj(x)))

    def _matmat(self, x):
        return _conj(self.A._rmatmat(_conj(x)))

    def _rmatmat(self, x):
        return _conj(self.A._matmat(_conj(x)))


def _get_dtype(operators, dtypes=None):
    dts = [] if dtypes is None else list(dtypes)
    dts += [o.dtype for o in operators if o is not None and getattr(o, "dtype", None) is not None]
    return numpy.result_type(*dts)


class _SumLinearOperator(LinearOperator):
    def __init__(self, A, B):
        if A.shape != B.shape:
            raise ValueError(f"cannot add {A} and {B}: shape mismatch")
        self.args = (A, B)
        super().__init__(_get_dtype([A, B]), A.shape)

    def _matvec(self, x):
        return self.args[0].matvec(x) + self.args[1].matvec(x)

    def _rmatvec(self, x):
        return self.args[0].rmatvec(x) + self.args[1].rmatvec(x)

    def _matmat(self, x):
        return self.args[0].matmat(x) + self.args[1].matmat(x)

    def _rmatmat(self, x):
        return self.args[0].rmatmat(x) + self.args[1].rmatmat(x)

    def _adjoint(self):
        A, B = self.args
        return A.H + B.H


class _ProductLinearOperator(LinearOperator):
    def __init__(self, A, B):
        if A.shape[1] != B.shape[0]:
            raise ValueError(f"cannot multiply {A} and {B}: shape mismatch")
        super().__init__(_get_dtype([A, B]), (A.shape[0], B.shape[1]))
        self.args = (A, B)

    def _matvec(self, x):
        return self.args[0].matvec(self.args[1].matvec(x))

    def _rmatvec(self, x):
        return self.args[1].rmatvec(self.args[0].rmatvec(x))

    def _matmat(self, x):
        return self.args[0].matmat(self.args[1].matmat(x))

    def _rmatmat(self, x):
        return self.args[1].rmatmat(self.args[0].rmatmat(x))

    def _adjoint(self):
        A, B = self.args
        return B.H * A.H


class _ScaledLinearOperator(LinearOperator):
    def __init__(self, A, alpha):
        dt = _get_dtype([A], [type(alpha)])
        super().__init__(dt, A.shape)
        self.args = (A, alpha)

    def _matvec(self, x):
        return self.args[1] * self.args[0].matvec(x)

    def _rmatvec(self, x):
        return numpy.conj(self.args[1]) * self.args[0].rmatvec(x)

    def _matmat(self, x):
        return self.args[1] * self.args[0].matmat(x)

    def _rmatmat(self, x):
        return numpy.conj(self.args[1]) * self.args[0].rmatmat(x)

    def _adjoint(self):
        A, alpha = self.args
        return A.H * numpy.conj(alpha)


class _PowerLinearOperator(LinearOperator):
    def __init__(self, A, p):
        if A.shape[0] != A.shape[1]:
            raise ValueError(f"square LinearOperator expected, got {A!r}")
        if not isintlike(p) or int(p) < 0:
            raise ValueError("non-negative integer expected as p")
        super().__init__(_get_dtype([A]), A.shape)
        self.args = (A, int(p))

    def _power(self, fun, x):
        res = x.copy()
        for _ in range(self.args[1]):
            res = fun(res)
        return res

    def _matvec(self, x):
        return self._power(self.args[0].matvec, x)

    def _rmatvec(self, x):
        return self._power(self.args[0].rmatvec, x)

    def _matmat(self, x):
        return self._power(self.args[0].matmat, x)

    def _rmatmat(self, x):
        return self._power(self.args[0].rmatmat, x)

    def _adjoint(self):
        A, p = self.args
        return A.H ** p


class MatrixLinearOperator(LinearOperator):
    """A sparse or dense (device) matrix as an operator."""

    def __init__(self, A):
        super().__init__(A.dtype, A.shape)
        self.A = A
        self.__adj = None
        self.args = (A,)

    def _matvec(self, x):
        return self.A @ x

    def _matmat(self, X):
        return self.A @ X

    def _rmatvec(self, x):
        return self._adjoint().A @ x

    def _rmatmat(self, X):
        return self._adjoint().A @ X

    def _adjoint(self):
        if self.__adj is None:
            At = self.A.T
            self.__adj = MatrixLinearOperator(At.conj() if self.A.dtype.kind == "c" else At)
        return self.__adj


class IdentityOperator(LinearOperator):
    """The identity of shape ``(N, N)``."""

    def __init__(self, shape, dtype=None):
        super().__init__(dtype, shape)

    def _matvec(self, x):
        return x

    def _rmatvec(self, x):
        return x

    def _matmat(self, x):
        return x

    def _rmatmat(self, x):
        return x

    def _adjoint(self):
        return self


def aslinearoperator(A):
    """``A`` as a :class:`LinearOperator`: an operator (as is), a sparse
    array, a dense device or host matrix, or an object with ``shape`` and
    ``matvec`` (and optionally ``rmatvec``, ``matmat``, ``rmatmat``,
    ``dtype``).

    Raises
    ------
    TypeError
        For anything else ("type not understood").
    """
    if isinstance(A, LinearOperator):
        return A
    if issparse(A):
        return MatrixLinearOperator(A)
    if isinstance(A, (numpy.ndarray, gp.ndarray)) or isinstance(A, (list, tuple)):
        a = to_device(A)
        if a.ndim > 2:
            raise ValueError("array must have ndim <= 2")
        if a.ndim < 2:
            a = a.reshape(1, -1) if a.ndim == 1 else a.reshape(1, 1)
        return MatrixLinearOperator(a)
    if hasattr(A, "shape") and hasattr(A, "matvec"):
        return LinearOperator(A.shape, A.matvec, rmatvec=getattr(A, "rmatvec", None),
                              matmat=getattr(A, "matmat", None),
                              rmatmat=getattr(A, "rmatmat", None),
                              dtype=getattr(A, "dtype", None))
    try:
        import scipy.sparse as sp
        if sp.issparse(A):
            from .._compressed import csr_array, csr_matrix
            cls = csr_matrix if isinstance(A, sp.spmatrix) else csr_array
            return MatrixLinearOperator(cls(A))
    except ImportError:
        pass
    raise TypeError("type not understood")
