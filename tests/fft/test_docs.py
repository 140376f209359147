"""The docstrings of gpuscipy.fft's public functions, and their shared
paragraphs (``gpuscipy/fft/_docs.py``).

CPU only. The docstrings are parsed with the numpydoc rules written here
(no numpydoc dependency): sections, the Parameters entries against
``inspect.signature``, Returns, Raises, See Also targets, citations. The
Examples run twice: as doctests on this machine (every line that needs a
device is marked ``# doctest: +SKIP``, so the rest must pass without one),
and with the SKIP marks removed on the host emulation of the device layer
of ``test_fft_emulated`` (NumPy-backed arrays, cuFFT and the DCT/DST
kernels emulated), which checks the printed results.
"""

import builtins
import doctest
import importlib
import inspect
import re
import textwrap

import pytest

import gpuscipy.fft as gfft
from gpuscipy import _docs as shared
from gpuscipy.fft import (_backend, _basic, _basic_nd, _docs, _fftlog, _helper,
                          _real_nd, _realtransforms)
from gpuscipy.fft._docs import FRAGMENTS, PARAGRAPHS, fill, fill_doc

from . import test_fft_emulated

MODULES = (_basic, _basic_nd, _real_nd, _realtransforms, _fftlog, _helper, _backend)
PUBLIC = {n: getattr(gfft, n) for n in gfft.__all__
          if inspect.isfunction(getattr(gfft, n))}
# functions that return None (numpydoc: no Returns section)
NO_RETURN = {"set_global_backend", "register_backend"}
# examples with process-wide side effects (a permanent registration)
NOT_EMULATED = {"set_global_backend", "register_backend"}
# numpydoc's sections, in numpydoc's order
ORDER = ["Parameters", "Returns", "Yields", "Receives", "Other Parameters",
         "Raises", "Warns", "Warnings", "See Also", "Notes", "References",
         "Examples"]
LINE_PLACEHOLDER = re.compile(r"^[ \t]*\{[A-Za-z_]\w*\}[ \t]*$", re.MULTILINE)
SKIP = re.compile(r"[ \t]*# doctest: \+SKIP")

fake = test_fft_emulated.fake          # the emulation fixture


# ---------------------------------------------------------------------------
# a small numpydoc parser
# ---------------------------------------------------------------------------

def sections(doc):
    """[(title, body)] of a cleaned docstring (``inspect.cleandoc``), in
    order; the summary and extended summary are left out."""
    lines = doc.split("\n")
    heads = [i for i in range(len(lines) - 1)
             if lines[i].strip() and not lines[i][0].isspace()
             and re.fullmatch(r"-{3,}", lines[i + 1])
             and len(lines[i + 1]) >= len(lines[i].strip())]
    out = []
    for j, i in enumerate(heads):
        end = heads[j + 1] if j + 1 < len(heads) else len(lines)
        out.append((lines[i].strip(), "\n".join(lines[i + 2:end]).strip("\n")))
    return out


def entries(body):
    """[(head, description)] of a numpydoc list section: a head line at
    column 0, its description indented below it."""
    out = []
    for line in body.split("\n"):
        if line.strip() and not line[0].isspace():
            out.append([line, []])
        elif out:
            out[-1][1].append(line)
        elif line.strip():
            raise AssertionError(f"text before the first entry: {line!r}")
    return [(h, textwrap.dedent("\n".join(d)).strip()) for h, d in out]


def param_names(head):
    """The names an entry head documents: ``x``, ``xp, device``, ``*args``."""
    names = head.split(" : ")[0]
    return [n.strip().lstrip("*") for n in names.split(",")]


def doc_of(name):
    return inspect.getdoc(PUBLIC[name])


def section_dict(name):
    secs = sections(doc_of(name))
    return dict(secs)


def resolve(target):
    """The object a See Also or Raises name refers to, or None."""
    if hasattr(gfft, target):
        return getattr(gfft, target)
    if hasattr(builtins, target):
        return getattr(builtins, target)
    mod, _, attr = target.rpartition(".")
    while mod:
        try:
            obj = importlib.import_module(mod)
        except ImportError:
            mod, _, rest = mod.rpartition(".")
            attr = f"{rest}.{attr}"
            continue
        for part in attr.split("."):
            obj = getattr(obj, part, None)
        return obj
    return None


# ---------------------------------------------------------------------------
# the public functions
# ---------------------------------------------------------------------------

def test_public_functions_found():
    assert len(PUBLIC) == len(gfft.__all__) == 41
    assert {"fft", "dctn", "fht", "next_fast_len", "set_backend"} <= set(PUBLIC)


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_public_home(name):
    assert PUBLIC[name].__module__ == "gpuscipy.fft"


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_no_unfilled_placeholder(name):
    doc = PUBLIC[name].__doc__
    assert doc, name
    assert not LINE_PLACEHOLDER.search(doc), name
    left = [k for k in PARAGRAPHS if "{" + k + "}" in doc]
    assert not left, f"{name}: unfilled placeholders {left}"


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_sections_known_ordered_and_complete(name):
    doc = doc_of(name)
    summary = doc.split("\n\n")[0]
    assert summary.strip() and len(summary.split("\n")) <= 2, name
    titles = [t for t, _ in sections(doc)]
    assert all(t in ORDER for t in titles), (name, titles)
    assert len(set(titles)) == len(titles), (name, titles)
    assert titles == sorted(titles, key=ORDER.index), (name, titles)
    wanted = {"See Also", "Notes", "Examples"}
    if inspect.signature(PUBLIC[name]).parameters:
        wanted |= {"Parameters", "Raises"}
    if name not in NO_RETURN:
        wanted.add("Returns")
    assert wanted <= set(titles), (name, sorted(wanted - set(titles)))
    if name in NO_RETURN:
        assert "Returns" not in titles, name
    for t, body in sections(doc):
        assert body.strip(), (name, t)


def parameter_problems(func):
    """What is wrong with the Parameters section of ``func`` against its
    signature (names and order; every entry ``name : type`` with a
    description); empty when nothing is."""
    sig = [p.name for p in inspect.signature(func).parameters.values()]
    body = dict(sections(inspect.getdoc(func) or "")).get("Parameters")
    if body is None:
        return ["no Parameters section"] if sig else []
    problems, documented = [], []
    for head, desc in entries(body):
        if " : " not in head:
            problems.append(f"no type: {head!r}")
        if not desc:
            problems.append(f"no description: {head!r}")
        documented += param_names(head)
    if documented != sig:
        problems.append(f"documented {documented}, signature {sig}")
    return problems


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_parameters_match_signature(name):
    assert parameter_problems(PUBLIC[name]) == [], name


def test_the_parameter_check_can_fail():
    def f(x, n=None, *, plan=None):
        """Summary.

        Parameters
        ----------
        n : int
            Swapped with x.
        x : array_like
            Input.
        """

    def g(x, y):
        """Summary.

        Parameters
        ----------
        x : array_like
            Input.
        z
        """
    assert parameter_problems(f) == ["documented ['n', 'x'], signature "
                                     "['x', 'n', 'plan']"]
    assert len(parameter_problems(g)) == 3
    assert parameter_problems(lambda a: a) == ["no Parameters section"]


@pytest.mark.parametrize("name", sorted(set(PUBLIC) - NO_RETURN))
def test_returns_entries(name):
    ents = entries(section_dict(name)["Returns"])
    assert ents, name
    for head, desc in ents:
        assert desc, (name, head)


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_raises_and_warns_name_exception_classes(name):
    secs = section_dict(name)
    for title, base in (("Raises", BaseException), ("Warns", Warning)):
        if title not in secs:
            continue
        heads = [h for h, _ in entries(secs[title])]
        assert len(set(heads)) == len(heads), (name, title, heads)
        for head, desc in entries(secs[title]):
            exc = resolve(head)
            assert inspect.isclass(exc) and issubclass(exc, base), (name, head)
            assert desc, (name, head)


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_see_also_targets_exist(name):
    ents = entries(section_dict(name)["See Also"])
    assert ents, name
    for head, _ in ents:
        target = head.split(" : ")[0].strip()
        assert target != name, name
        assert callable(resolve(target)), (name, target)
    mirrored = f"scipy.fft.{name}"
    assert any(h.startswith(mirrored + " ") for h, _ in ents), (name, mirrored)


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_citations_have_references(name):
    doc = doc_of(name)
    cited = set(re.findall(r"\[(\d+)\]_", doc))
    refs = section_dict(name).get("References", "")
    defined = re.findall(r"^\.\. \[(\d+)\]", refs, re.MULTILINE)
    assert len(set(defined)) == len(defined), name
    assert cited <= set(defined), (name, cited, defined)


def test_dtype_rules_are_in_every_transform():
    rules = {"dtype_c2c": "fft ifft fftn ifftn fft2 ifft2",
             "dtype_r2c": "rfft ihfft rfftn rfft2 ihfftn ihfft2",
             "dtype_c2r": "irfft hfft irfftn irfft2 hfftn hfft2",
             "dtype_r2r": "dct idct dst idst dctn idctn dstn idstn"}
    for key, names in rules.items():
        text = " ".join(PARAGRAPHS[key].split())
        for n in names.split():
            assert text in " ".join(section_dict(n)["Returns"].split()), (key, n)


def test_real_to_real_transforms_cite_makhoul():
    for n in "dct idct dst idst dctn idctn dstn idstn".split():
        secs = section_dict(n)
        assert "Makhoul" in secs["Notes"] and "Makhoul" in secs["References"], n
        assert "A fast cosine transform in one and two" in secs["References"], n


def test_help_renders():
    text = pydoc_text(gfft.rfft)
    # Python 3.13's pydoc puts a long signature one parameter per line
    assert "rfft(x,n=None,axis=-1,norm=None" in "".join(text.split())
    assert "Parameters" in text and "{" + "x_real}" not in text
    assert "complex64 for float16 and float32 input" in text


def pydoc_text(obj):
    import pydoc
    return pydoc.plaintext.document(obj)


# ---------------------------------------------------------------------------
# examples
# ---------------------------------------------------------------------------

def _run_examples(name, text):
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, name, None, 0)
    assert test.examples, name
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS
                                   | doctest.NORMALIZE_WHITESPACE)
    out = []
    runner.run(test, out=out.append)
    return runner.failures, "".join(out)


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_examples_run_without_a_device(name):
    """The lines not marked SKIP need no GPU."""
    failures, report = _run_examples(name, section_dict(name)["Examples"])
    assert failures == 0, report


@pytest.mark.parametrize("name", sorted(set(PUBLIC) - NOT_EMULATED))
def test_examples_on_the_emulated_device(fake, name):
    """Every example, SKIP marks removed, on the host emulation."""
    text = SKIP.sub("", section_dict(name)["Examples"])
    failures, report = _run_examples(name, text)
    assert failures == 0, report


# ---------------------------------------------------------------------------
# the paragraph table
# ---------------------------------------------------------------------------

def test_entry_paragraphs_are_numpydoc_entries():
    for name, text in PARAGRAPHS.items():
        if name.startswith(FRAGMENTS):
            continue
        first, *rest = text.split("\n")
        assert " : " in first and not first[0].isspace(), name
        assert rest and all(r.startswith("    ") and r.strip() for r in rest), name


def _users(name):
    line = re.compile(r"^[ \t]*\{" + name + r"\}[ \t]*$", re.MULTILINE)
    return [n for n, f in PUBLIC.items() if line.search(inspect.getsource(f))]


@pytest.mark.parametrize("name", sorted(PARAGRAPHS))
def test_every_paragraph_is_shared(name):
    users = _users(name)
    assert len(users) >= 2, (name, users)
    for n in users:
        flat = " ".join(doc_of(n).split())
        assert " ".join(PARAGRAPHS[name].split()) in flat, (name, n)


def test_the_shared_parameters_are_filled_everywhere():
    for key, count in (("norm", 18), ("workers", 26), ("overwrite_x", 26),
                       ("plan", 18), ("axis", 10), ("notes_cufft", 18)):
        assert len(_users(key)) == count, (key, _users(key))


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.__name__)
def test_no_module_spells_a_paragraph_out(mod):
    src = inspect.getsource(mod)
    copies = [k for k, text in PARAGRAPHS.items()
              if len(text) > 40 and textwrap.indent(text, "    ") in src]
    assert not copies, f"{mod.__name__} repeats {copies}: use the placeholder"


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
        fill("x\n    {check_finite}\n")          # linalg's, not fft's


def test_fill_indents_and_keeps_other_braces():
    doc = "norm : {'a', 'b'}\n    code ``d = {}``\n    inline {axis} stays\n"
    assert fill(doc) == doc
    out = fill("Parameters\n    ----------\n    {axis}\n    b : int\n")
    assert out == ("Parameters\n    ----------\n"
                   + textwrap.indent(PARAGRAPHS["axis"], "    ") + "\n    b : int\n")
    assert fill(None) is None


def test_one_shared_mechanism():
    from gpuscipy.linalg import _docs as linalg_docs
    assert _docs._shared is shared and linalg_docs._shared is shared
    for mod in (_docs, linalg_docs):
        src = inspect.getsource(mod)
        assert "re.compile" not in src and "import re" not in src, mod.__name__
    imported = {line.split()[1] for line in inspect.getsource(shared).split("\n")
                if line.startswith(("import ", "from "))}
    assert imported <= {"re", "textwrap"}, imported
