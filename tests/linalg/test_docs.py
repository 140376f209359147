"""The shared docstring paragraphs of gpuscipy.linalg (``_docs``).

CPU only: docstrings and sources are read, nothing runs on the device.
"""

import inspect
import re
import textwrap

import pytest

from gpuscipy import _docs as _shared_docs
from gpuscipy import linalg as L
from gpuscipy.linalg import (_docs, _decomp, _matfuncs, _solvers, _special_matrices,
                             _structured)
from gpuscipy.linalg._docs import PARAGRAPHS, fill, fill_doc

MODULES = (_solvers, _decomp, _structured, _special_matrices, _matfuncs)
PUBLIC = {n: getattr(L, n) for n in L.__all__
          if callable(getattr(L, n)) and not inspect.isclass(getattr(L, n))}
LINE_PLACEHOLDER = re.compile(r"^[ \t]*\{[A-Za-z_]\w*\}[ \t]*$", re.MULTILINE)


def _section(doc, title):
    """The body of numpydoc section ``title`` of a cleaned docstring, or None."""
    m = re.search(rf"^{title}\n-+\n(.*?)(?=^\S[^\n]*\n-+\n|\Z)", doc, re.M | re.S)
    return None if m is None else m.group(1)


def test_public_functions_found():
    assert len(PUBLIC) > 40
    assert "solve" in PUBLIC and "LinAlgError" not in PUBLIC


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_no_leftover_placeholder(name):
    doc = PUBLIC[name].__doc__
    assert doc, name
    left = [k for k in PARAGRAPHS if "{" + k + "}" in doc]
    assert not left, f"{name}: unfilled placeholders {left}"
    assert not LINE_PLACEHOLDER.search(doc), name


@pytest.mark.parametrize("name,entries", [
    ("solve", ["a :", "overwrite_a : bool, optional", "overwrite_b : bool, optional",
               "check_finite : bool, optional", "assume_a :"]),
    ("inv", ["a : array_like, shape (..., M, M)", "overwrite_a :", "check_finite :",
             "assume_a :", "lower :"]),
    ("lu_solve", ["lu_and_piv :", "b :", "trans :", "check_finite :",
                  "Only ``b`` is checked"]),
    ("qr", ["a :", "overwrite_a :", "lwork : int, optional", "mode :", "check_finite :"]),
    ("svd", ["a : array_like, shape (..., M, N)", "full_matrices :", "lapack_driver :"]),
    ("eigh", ["a :", "b :", "lower : bool, optional", "eigvals_only :", "driver :"]),
    ("eigvalsh", ["lower :", "overwrite_a :", "overwrite_b :", "type :",
                  "check_finite :", "subset_by_index :"]),
    ("lstsq", ["a :", "b :", "cond :", "overwrite_a :", "overwrite_b :",
               "check_finite :", "lapack_driver :"]),
    ("norm", ["a :", "ord :", "axis :", "keepdims :", "check_finite :"]),
    ("matmul_toeplitz", ["c_or_cr :", "x :", "check_finite :", "workers :"]),
    ("pascal", ["n : int", "kind :", "exact :"]),
    ("hilbert", ["n : int"]),
    ("expm", ["A :"]),
])
def test_parameters_section_kept(name, entries):
    doc = inspect.getdoc(PUBLIC[name])
    params = _section(doc, "Parameters")
    assert params is not None, f"{name} lost its Parameters section"
    for e in entries:
        assert e in params, (name, e)
    # the entries stay in the Parameters section: the Returns section follows
    assert _section(doc, "Returns") is not None, name


def test_filled_entries_are_in_their_sections():
    doc = inspect.getdoc(L.solve_triangular)
    assert PARAGRAPHS["check_finite"] in _section(doc, "Parameters")
    assert PARAGRAPHS["returns_x_solve"] in _section(doc, "Returns")
    doc = inspect.getdoc(L.inv)
    assert PARAGRAPHS["raises_square"] in _section(doc, "Raises")
    assert PARAGRAPHS["raises_svd"] in _section(inspect.getdoc(L.pinv), "Raises")


def test_unknown_placeholder_raises_keyerror():
    def f():
        """Doc.

        Parameters
        ----------
        {no_such_paragraph}
        """
    with pytest.raises(KeyError, match="no_such_paragraph"):
        fill_doc(f)
    with pytest.raises(KeyError):
        fill("x\n    {check_finite_typo}\n")


def test_fill_touches_only_whole_line_placeholders():
    doc = ("mode : {'full', 'r'}\n    the set {x : x > 0}, code ``d = {}``\n"
           "    inline {check_finite} stays\n    {x}y\n")
    assert fill(doc) == doc
    out = fill("Parameters\n    ----------\n    {overwrite_b}\n    b : int\n")
    assert out == ("Parameters\n    ----------\n"
                   + textwrap.indent(PARAGRAPHS["overwrite_b"], "    ")
                   + "\n    b : int\n")


def test_fill_doc_keeps_the_function_and_none_docs():
    def g(a, b=1):
        pass
    assert g.__doc__ is None
    assert fill_doc(g) is g and g.__doc__ is None
    assert fill(None) is None


def test_paragraphs_are_numpydoc_entries():
    for name, text in PARAGRAPHS.items():
        first, *rest = text.split("\n")
        assert first and not first[0].isspace(), name
        assert rest and all(r.startswith("    ") and r.strip() for r in rest), name


def _placeholder_users(name):
    """Public functions whose source docstring holds the ``{name}`` line
    and whose filled docstring holds the paragraph."""
    line = re.compile(r"^[ \t]*\{" + name + r"\}[ \t]*$", re.MULTILINE)
    return [n for n, f in PUBLIC.items()
            if line.search(inspect.getsource(f))
            and PARAGRAPHS[name] in inspect.getdoc(f)]


@pytest.mark.parametrize("name", sorted(PARAGRAPHS))
def test_every_paragraph_is_shared(name):
    users = _placeholder_users(name)
    assert len(users) >= 3, (name, users)


def test_check_finite_is_filled_everywhere():
    assert len(_placeholder_users("check_finite")) >= 20


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.__name__)
def test_no_module_spells_a_paragraph_out(mod):
    src = inspect.getsource(mod)
    copies = [k for k, text in PARAGRAPHS.items() if textwrap.indent(text, "    ") in src]
    assert not copies, f"{mod.__name__} repeats {copies}: use the placeholder"


def _imported(mod):
    return {line.split()[1] for line in inspect.getsource(mod).split("\n")
            if line.startswith(("import ", "from "))}


def test_docs_module_is_stdlib_only():
    # the table module binds the package's shared mechanism, which is
    # standard library only
    assert _imported(_docs) <= {".."}, _imported(_docs)
    assert _docs._shared is _shared_docs
    assert _imported(_shared_docs) <= {"re", "textwrap"}, _imported(_shared_docs)
