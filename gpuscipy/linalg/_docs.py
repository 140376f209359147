"""Docstring paragraphs shared by the public functions of gpuscipy.linalg.

A docstring asks for a shared paragraph with a line that holds nothing but
its placeholder, indented like the entries around it::

    Parameters
    ----------
    a : array_like
        ...
    {check_finite}

``fill_doc`` replaces each such line by the paragraph of that name from
``PARAGRAPHS``, indented to the placeholder's column. Only whole-line
placeholders are touched, so braces anywhere else in a docstring (set
notation, code, ``{'full', 'r'}``) stay as written. A whole-line placeholder
of an unknown name raises ``KeyError`` when the decorated function is
defined, i.e. at import time. Lines written after a placeholder, indented
as its description, extend that entry (a function-specific remark).

Each paragraph is one numpydoc entry (name line and indented description),
written once here, dedented. The mechanism is the package's shared one
(``gpuscipy._docs``), bound here to this table.
"""

from .. import _docs as _shared

__all__ = ["PARAGRAPHS", "fill", "fill_doc"]

_RAW = {
    # ---- Parameters
    "check_finite": """
        check_finite : bool, optional
            Raise ``ValueError`` when an input holds inf or NaN. The check is
            one device reduction per checked array, read back to the host
            (a synchronisation); ``False`` skips it.
        """,
    "overwrite_a": """
        overwrite_a : bool, optional
            Kept for SciPy compatibility and ignored: the input matrix is
            never overwritten.
        """,
    "overwrite_b": """
        overwrite_b : bool, optional
            Kept for SciPy compatibility and ignored: ``b`` is never
            overwritten.
        """,
    "a_square": """
        a : array_like, shape (..., M, M)
            A square matrix, or a stack of square matrices over the leading
            axes.
        """,
    "a_matrix": """
        a : array_like, shape (..., M, N)
            A matrix, or a stack of matrices over the leading axes.
        """,
    "lower_hermitian": """
        lower : bool, optional
            Read the lower (default) or the upper triangle of the Hermitian
            input matrices; the other triangle is not referenced.
        """,
    "n_order": """
        n : int
            Order of the matrix (its number of rows and of columns).
        """,
    # ---- Returns
    "returns_x_solve": """
        x : gpuscipy_core.ndarray
            The solution: the core shape of ``b``, with the batch axes of the
            inputs broadcast. Its dtype is the LAPACK type of the input dtypes
            combined, float32, float64, complex64 or complex128 (bool and
            integers compute in float64, float16 in float32).
        """,
    # ---- Raises
    "raises_square": """
        ValueError
            ``a`` is not a square matrix or a stack of them (fewer than 2
            dimensions, or unequal last two); inf or NaN with
            ``check_finite``.
        """,
    "raises_svd": """
        LinAlgError
            The singular value decomposition did not converge.
        """,
    "raises_eig": """
        LinAlgError
            The eigenvalue algorithm did not converge.
        """,
}

#: name -> the dedented paragraph (no leading or trailing newline)
PARAGRAPHS = _shared.table(_RAW)
del _RAW


def fill(doc, where="docstring"):
    """``doc`` with every whole-line placeholder replaced by its paragraph.

    ``KeyError`` for a placeholder whose name is not in ``PARAGRAPHS``
    (``where`` names the docstring in the message). ``None`` (docstrings
    stripped by ``python -OO``) is returned unchanged.
    """
    return _shared.fill(doc, PARAGRAPHS, where)


def fill_doc(func):
    """Decorator: fill the placeholders of ``func.__doc__`` (``fill``) and
    return ``func`` itself (signature and identity unchanged)."""
    return _shared.fill_doc(func, PARAGRAPHS)
