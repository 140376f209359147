"""Shared docstring paragraphs: the placeholder mechanism of the subpackages.

A subpackage keeps its own table of paragraphs (``gpuscipy/linalg/_docs.py``,
``gpuscipy/fft/_docs.py``) and binds the two functions here to it. A
docstring asks for a paragraph of that table with a line that holds nothing
but its placeholder, indented like the entries around it::

    Parameters
    ----------
    a : array_like
        ...
    {check_finite}

:func:`fill` replaces each such line by the paragraph of that name,
indented to the placeholder's column. Only whole-line placeholders are
touched, so braces anywhere else in a docstring (set notation, code,
``{'full', 'r'}``) stay as written. A whole-line placeholder of an unknown
name raises ``KeyError``; through :func:`fill_doc` that happens when the
decorated function is defined, i.e. at import time. Lines written after a
placeholder, indented as its description, extend that entry (a
function-specific remark).

Standard library only: imported by every subpackage at import time.
"""

import re
import textwrap

__all__ = ["table", "fill", "fill_doc"]

# a line holding only "{name}" (plus indentation and trailing blanks)
_PLACEHOLDER = re.compile(r"^([ \t]*)\{([A-Za-z_][A-Za-z0-9_]*)\}[ \t]*$", re.MULTILINE)


def table(raw):
    """A paragraph table from ``raw`` ({name: text}): each text dedented and
    stripped of its leading and trailing newlines, so it can be written
    indented inside a triple-quoted string."""
    return {k: textwrap.dedent(v).strip("\n") for k, v in raw.items()}


def fill(doc, paragraphs, where="docstring"):
    """``doc`` with every whole-line placeholder replaced by its paragraph
    from ``paragraphs`` (a :func:`table`).

    ``KeyError`` for a placeholder whose name is not in ``paragraphs``
    (``where`` names the docstring in the message). ``None`` (docstrings
    stripped by ``python -OO``) is returned unchanged.
    """
    if doc is None:
        return None

    def repl(m):
        indent, name = m.group(1), m.group(2)
        if name not in paragraphs:
            raise KeyError(f"{where}: unknown docstring placeholder {{{name}}}")
        return textwrap.indent(paragraphs[name], indent)

    return _PLACEHOLDER.sub(repl, doc)


def fill_doc(func, paragraphs):
    """Fill the placeholders of ``func.__doc__`` from ``paragraphs``
    (:func:`fill`) and return ``func`` itself (signature, identity and
    ``__module__`` unchanged)."""
    func.__doc__ = fill(func.__doc__, paragraphs,
                        getattr(func, "__qualname__", repr(func)))
    return func
