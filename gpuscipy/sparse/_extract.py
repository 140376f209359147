"""Entries and triangles of sparse arrays (``find``, ``tril``, ``triu``) and
SciPy's ``.npz`` files (``save_npz``, ``load_npz``).

``find``/``tril``/``triu`` work on device arrays (a sort for the canonical
form of ``find``, one mask each). ``save_npz``/``load_npz`` are SciPy's own
on the host copy: the files are SciPy's, in both directions.

Differences from SciPy: ``find`` returns device arrays; ``load_npz`` of a
DIA, BSR (or other not yet built) file returns CSR of the same interface.
"""

import numpy

from ._base import _spbase, public_class
from ._construct import _as_coo, _asformat, _coo, _is_sparray, _scipy_sparse

__all__ = ["find", "tril", "triu", "save_npz", "load_npz"]


def find(A):
    """``(row, col, data)`` of the nonzero entries of ``A`` (sparse or dense),
    in canonical (row-major) order with duplicates summed and zeros dropped:
    device arrays (indices in ``A``'s COO index dtype)."""
    c = _as_coo(A, True)
    if c.has_canonical_format:
        data, row, col = c.data, c.row, c.col
    else:
        data, row, col = c._sorted_runs(c.row, c.col)
    keep = data != 0
    return row[keep], col[keep], data[keep]


def _triangle(A, k, format, lower):
    is_array = _is_sparray(A)
    c = _as_coo(A, is_array)
    row = c.row.astype(numpy.int64, copy=False)
    col = c.col.astype(numpy.int64, copy=False)
    keep = (row + k >= col) if lower else (row + k <= col)
    out = _coo(c.data[keep], c.row[keep], c.col[keep], c.shape, is_array,
               c.has_canonical_format)
    return _asformat(out, format)


def tril(A, k=0, format=None):
    """The entries of ``A`` on and below the ``k``-th diagonal (stored entries
    kept as they are: duplicates and zeros too). COO for ``format=None``; a
    ``sparray`` for a ``sparray`` input, else a ``*_matrix`` (dense input
    too), as SciPy."""
    return _triangle(A, k, format, True)


def triu(A, k=0, format=None):
    """The entries of ``A`` on and above the ``k``-th diagonal (as
    :func:`tril`)."""
    return _triangle(A, k, format, False)


def save_npz(file, matrix, compressed=True):
    """Save a sparse array or matrix (ours or SciPy's) to ``file`` in SciPy's
    ``.npz`` layout (``scipy.sparse.save_npz`` of the host copy)."""
    sp = _scipy_sparse()
    host = matrix.get() if isinstance(matrix, _spbase) else matrix
    sp.save_npz(file, host, compressed=compressed)


def load_npz(file):
    """Load a SciPy ``.npz`` sparse file onto the device: the same format
    (coo, csr, csc; others as CSR) and interface (``*_array`` or
    ``*_matrix``)."""
    sp = _scipy_sparse()
    h = sp.load_npz(file)
    fmt = h.format if h.format in ("coo", "csr", "csc") else "csr"
    return public_class(fmt, isinstance(h, sp.sparray))(h)

