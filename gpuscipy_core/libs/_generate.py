"""Generate the Cython bindings ``_<lib>.pyx``/``.pyi`` from ``_declarations/<lib>.h``.

The declarations are the vendor headers' own C prototypes (copied, not
rewritten), with three marks that say how Python sees an argument:

``OUT``
    an output scalar (a created handle, a work size, a version): not an
    argument of the Python function, which returns it (a tuple, in C order,
    when there are several);
``INOUT``
    a scalar passed through a pointer that the call reads and updates
    (cusparseSpGEMM's buffer sizes): passed by value, returned;
``SEQ``
    an input array of integers (cufftMakePlanMany64's ``n``): a Python
    sequence, or None for NULL.

Every other pointer, handle and descriptor is a Python int (its address);
enums are ints; scalars keep their C type. Each function pointer is resolved
with dlsym at its first call (``_loader.symbol``), never at import.

A declaration file may end with version variants (cuDSS 0.7 next to 1.0)::

    // variant v0: CUDSS_VERSION_MAJOR < 1
    enum ... { ... };        // the enums as that version numbers them
    enum cudssSolveMode_t { };   // an enum that version does not have
    cudssStatus_t f(...);    // the prototypes as that version declares them
    // end variant

A variant prototype whose ABI differs from the main one is bound as
``_<variant>_<name>`` (same symbol, private); the variant's enums are exported
as ``_VARIANT_ENUMS[variant][enum type]`` (and the main ones as ``_ENUMS``), for
the hand-written dispatch in ``<lib>.py``. ``check_source`` checks the variant
declarations under ``#if <condition>`` and the main ones under ``#else``, so
the header check passes against either version's headers.

Run ``python -m gpuscipy_core.libs._generate`` after editing a declaration
file; ``tests/libs/test_generated.py`` fails while the ``.pyx`` files are
stale. ``check_source(lib)`` renders a C++ file that ``static_assert``s every
declaration against the real vendor header (``tests/libs/test_prototypes.py``
compiles it where the headers are installed).
"""

import keyword
import os
import re

__all__ = ["LIBRARIES", "parse", "variant_bindings", "render_pyx", "render_pyi",
           "check_source", "main"]

LIBRARIES = ("cublas", "cusolver", "cufft", "cusparse", "curand", "cudss")

HERE = os.path.dirname(os.path.abspath(__file__))

# C scalar types passed by value: C spelling -> Cython spelling.
_SCALARS = {
    "int": "int", "unsigned int": "unsigned int", "int64_t": "int64_t",
    "long long int": "long long", "long long": "long long",
    "unsigned long long": "unsigned long long", "size_t": "size_t",
    "float": "float", "double": "double", "signed char": "signed char",
    "cufftHandle": "int",          # typedef int cufftHandle
}

# Opaque handle/descriptor types (typedefs of pointers).
_OPAQUE = frozenset({
    "cublasHandle_t", "cusolverDnHandle_t", "cusolverDnParams_t", "syevjInfo_t",
    "gesvdjInfo_t", "cudaStream_t", "cusparseHandle_t", "cusparseSpMatDescr_t",
    "cusparseConstSpMatDescr_t", "cusparseDnVecDescr_t", "cusparseConstDnVecDescr_t",
    "cusparseDnMatDescr_t", "cusparseConstDnMatDescr_t", "cusparseSpGEMMDescr_t",
    "cusparseSpSVDescr_t", "cusparseSpSMDescr_t", "cusparseMatDescr_t",
    "curandGenerator_t", "cudssHandle_t", "cudssConfig_t", "cudssData_t",
    "cudssMatrix_t"})

_MARKS = ("OUT", "INOUT", "SEQ")


class Param:
    """One parameter of a declaration."""

    def __init__(self, text):
        text = " ".join(text.split())
        m = re.match(r"^(.*?)\b(?:(OUT|INOUT|SEQ)\s+)?(\w+)\s*(\[\])?$", text)
        if m is None:
            raise ValueError(f"cannot parse parameter {text!r}")
        self.ctype = m.group(1).strip()
        self.mark = m.group(2)
        self.name = m.group(3)
        self.array = bool(m.group(4))
        self.base = " ".join(self.ctype.replace("*", " ").replace("const", " ").split())
        self.depth = self.ctype.count("*") + self.array
        if self.mark and (self.depth != 1 or self.array):
            raise ValueError(f"{self.mark} needs a pointer to a scalar: {text!r}")

    @property
    def c_decl(self):
        """The C parameter without its mark (for the header check)."""
        return f"{self.ctype} {self.name}{'[]' if self.array else ''}"

    @property
    def pyname(self):
        return self.name + "_" if keyword.iskeyword(self.name) else self.name

    def abi(self, base_only=False):
        """Cython type the function pointer declares (``base_only``: pointee)."""
        if self.depth and not base_only:
            return "void*"
        if self.base in _SCALARS:
            return _SCALARS[self.base]
        if self.base in _OPAQUE:
            return "void*"
        if self.base == "void":
            raise ValueError(f"void value parameter {self.name}")
        return "int"   # an enum

    def py_type(self):
        """Python-facing annotation in the .pyi stub."""
        if self.mark == "SEQ":
            return "Sequence[int] | None"
        t = self.abi(base_only=self.mark == "INOUT")
        return "float" if t in ("float", "double") else "int"


class Function:
    """One C function: return (status) type, name and parameters."""

    def __init__(self, ret, name, params):
        self.ret = ret
        self.name = name
        self.params = params

    @property
    def outputs(self):
        return [p for p in self.params if p.mark in ("OUT", "INOUT")]

    @property
    def inputs(self):
        return [p for p in self.params if p.mark != "OUT"]

    def c_prototype(self):
        return f"{self.ret} {self.name}({', '.join(p.c_decl for p in self.params)})"


class Variant:
    """Declarations of another library version (``// variant NAME: CONDITION``)."""

    def __init__(self, name, condition):
        self.name = name
        self.condition = condition    # preprocessor condition selecting it
        self.enums = []               # [(enum type, [(name, value), ...])]; [] = absent
        self.functions = []           # [Function]


class Declarations:
    """The contents of one ``_declarations/<lib>.h``."""

    def __init__(self, lib, header, status, enums, defines, functions, variants=()):
        self.lib = lib
        self.header = header
        self.status = status
        self.enums = enums            # [(enum type, [(name, value), ...])]
        self.defines = defines        # [(name, value)]
        self.functions = functions    # [Function]
        self.variants = list(variants)  # [Variant]

    def constants(self):
        out = {}
        for _, items in self.enums:
            for n, v in items:
                out.setdefault(n, v)
        for n, v in self.defines:
            out.setdefault(n, v)
        return out


def parse(lib, text=None):
    """Parse ``_declarations/<lib>.h`` (or ``text``) into Declarations."""
    if text is None:
        with open(os.path.join(HERE, "_declarations", f"{lib}.h")) as f:
            text = f.read()
    header = status = None
    enums, defines, functions = [], [], []
    variants = []
    body = []
    bodies = {None: body}
    section_enums = enums
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("// header:"):
            header = s.split(":", 1)[1].strip()
        elif s.startswith("// status:"):
            status = s.split(":", 1)[1].strip()
        elif s.startswith("// variant "):
            name, cond = s[len("// variant "):].split(":", 1)
            variants.append(Variant(name.strip(), cond.strip()))
            body = bodies[variants[-1].name] = []
            section_enums = variants[-1].enums
        elif s.startswith("// end variant"):
            body = bodies[None]
            section_enums = enums
        elif s.startswith("//") or not s:
            continue
        elif s.startswith("#define"):
            _, n, v = s.split(None, 2)
            defines.append((n, int(v, 0)))
        elif s.startswith("enum"):
            m = re.match(r"enum\s+(\w+)\s*\{(.*)\}\s*;$", s)
            items = []
            for item in m.group(2).split(","):
                if item.strip():
                    n, v = item.split("=")
                    items.append((n.strip(), int(v.strip(), 0)))
            section_enums.append((m.group(1), items))
        else:
            body.append(s)
    functions = _parse_functions(bodies[None])
    for v in variants:
        v.functions = _parse_functions(bodies[v.name])
    return Declarations(lib, header, status, enums, defines, functions, variants)


def _parse_functions(body):
    functions = []
    for decl in " ".join(body).split(";"):
        decl = decl.strip()
        if not decl:
            continue
        m = re.match(r"^(\w+)\s+(\w+)\s*\((.*)\)$", decl)
        if m is None:
            raise ValueError(f"cannot parse declaration {decl!r}")
        plist = m.group(3).strip()
        params = [] if plist in ("", "void") else [Param(p) for p in plist.split(",")]
        functions.append(Function(m.group(1), m.group(2), params))
    return functions


def variant_bindings(decls):
    """[(variant, Function)] whose ABI differs from the main declaration's.

    Those get a private binding ``_<variant>_<name>`` resolving the same symbol.
    """
    main = {f.name: f for f in decls.functions}
    out = []
    for v in decls.variants:
        for fn in v.functions:
            m = main.get(fn.name)
            if m is None:
                raise ValueError(f"variant {v.name} declares {fn.name}, the main section not")
            if ([(p.abi(), p.mark) for p in fn.params]
                    != [(p.abi(), p.mark) for p in m.params]):
                out.append((v, fn))
    return out


def _wrap(text, width=88, indent="    "):
    """Wrap a comma-separated signature over lines (Cython accepts breaks in parens)."""
    parts = text.split(", ")
    lines, cur = [], ""
    for i, p in enumerate(parts):
        piece = p + (", " if i < len(parts) - 1 else "")
        if cur and len(cur) + len(piece.rstrip()) > width:
            lines.append(cur.rstrip())
            cur = indent + piece
        else:
            cur += piece
    lines.append(cur.rstrip())
    return "\n".join(lines)


def _render_function(fn, pyname=None):
    # pyname: the Python name when it is not the C name (a variant binding).
    pyname = pyname or fn.name
    lines = []
    ptr_t = f"_fn_{pyname}"
    abi = ", ".join(p.abi() for p in fn.params)
    lines.append(_wrap(f"ctypedef int (*{ptr_t})({abi}) noexcept nogil"))
    lines.append(f"cdef void* _p_{pyname} = NULL")
    lines.append("")
    lines.append("")
    args = []
    for p in fn.inputs:
        if p.mark == "SEQ":
            args.append(f"{p.pyname}")
        elif p.mark == "INOUT":
            args.append(f"{p.abi(base_only=True)} {p.pyname}")
        elif p.abi() == "void*":
            args.append(f"intptr_t {p.pyname}")
        else:
            args.append(f"{p.abi()} {p.pyname}")
    lines.append(_wrap(f"def {pyname}({', '.join(args)}):", indent=" " * (len(pyname) + 5)))
    outs = fn.outputs
    doc = _wrap(fn.c_prototype() + ";", width=76, indent="    ")
    ret_doc = ""
    if outs:
        ret_doc = (f"\n\n    Returns {', '.join(p.name for p in outs)}"
                   f"{' (a tuple)' if len(outs) > 1 else ''}.")
    lines.append(f'    """{doc}{ret_doc}\n    """')
    lines.append(f"    global _p_{pyname}")
    lines.append("    cdef int _status")
    for p in fn.params:
        if p.mark in ("OUT", "INOUT"):
            ctype = p.abi(base_only=True)
            init = "NULL" if ctype == "void*" else (p.pyname if p.mark == "INOUT" else "0")
            lines.append(f"    cdef {ctype} _out_{p.name} = {init}")
        elif p.mark == "SEQ":
            elem = p.abi(base_only=True)
            lines.append(f"    cdef vector[{elem}] _seq_{p.name}")
            lines.append(f"    cdef {elem}* _ptr_{p.name} = NULL")
    for p in fn.params:
        if p.mark == "SEQ":
            lines.append(f"    if {p.pyname} is not None:")
            lines.append(f"        _seq_{p.name} = {p.pyname}")
            lines.append(f"        if _seq_{p.name}.size():")
            lines.append(f"            _ptr_{p.name} = _seq_{p.name}.data()")
    lines.append(f"    if _p_{pyname} == NULL:")
    lines.append(f"        _p_{pyname} = _resolve(\"{fn.name}\")")
    call_args = []
    for p in fn.params:
        if p.mark in ("OUT", "INOUT"):
            call_args.append(f"&_out_{p.name}")
        elif p.mark == "SEQ":
            call_args.append(f"_ptr_{p.name}")
        elif p.abi() == "void*":
            call_args.append(f"<void*>{p.pyname}")
        else:
            call_args.append(p.pyname)
    lines.append("    with nogil:")
    lines.append(_wrap(f"        _status = (<{ptr_t}>_p_{pyname})({', '.join(call_args)})",
                       indent=" " * 12))
    lines.append("    if _status != 0:")
    lines.append(f"        _raise(\"{fn.name}\", _status)")
    rets = [f"<intptr_t>_out_{p.name}" if p.abi(base_only=True) == "void*"
            else f"_out_{p.name}" for p in outs]
    if len(rets) == 1:
        lines.append(f"    return {rets[0]}")
    elif rets:
        lines.append(f"    return ({', '.join(rets)})")
    return "\n".join(lines)


def render_pyx(decls):
    """The Cython source of ``_<lib>.pyx``."""
    names = [f.name for f in decls.functions]
    consts = decls.constants()
    out = [
        "# cython: language_level=3",
        "# Generated by gpuscipy_core/libs/_generate.py from _declarations/"
        f"{decls.lib}.h: do not edit.",
        f'"""Thin bindings of {decls.lib} (functions under their C names, enum constants).',
        "",
        "Handles, descriptors and pointers are Python ints; output scalars are",
        "returned; a status other than success raises",
        f"``gpuscipy_core.libs.LibraryError`` ({decls.lib}'s subclass). The library is",
        "loaded, and each symbol resolved, at its first call.",
        '"""',
        "",
        "from libc.stdint cimport int64_t, intptr_t",
        "from libcpp.vector cimport vector",
        "",
        "from . import _loader",
        "from ._errors import raise_status",
        "",
        f"__all__ = {sorted(names + list(consts))!r}",
        "",
        f"LIBRARY = {decls.lib!r}",
        "",
    ]
    for n, v in consts.items():
        out.append(f"{n} = {v}")
    out += [
        "",
        "",
        "cdef void* _resolve(str name) except NULL:",
        f"    return <void*><intptr_t>_loader.symbol({decls.lib!r}, name)",
        "",
        "",
        "cdef int _raise(str call, int status) except -1:",
        f"    raise_status({decls.lib!r}, call, status)",
        "",
    ]
    for fn in decls.functions:
        out.append("")
        out.append(_render_function(fn))
        out.append("")
    if decls.variants:
        out += _render_variants(decls)
    text = "\n".join(out)
    # __all__ can be long: break it over lines.
    return _reflow_all(text)


def _render_variants(decls):
    out = ["", "# Other library versions (see _declarations/"
           f"{decls.lib}.h): enums by type, and the",
           "# prototypes whose ABI differs, bound under private names.",
           "_ENUMS = {"]
    for enum, items in decls.enums:
        out.append(f"    {enum!r}: {dict(items)!r},")
    out.append("}")
    out.append("_VARIANT_ENUMS = {")
    for v in decls.variants:
        out.append(f"    {v.name!r}: {{")
        for enum, items in v.enums:
            if items:
                out.append(f"        {enum!r}: {dict(items)!r},")
            else:
                out.append(f"        {enum!r}: None,")
        out.append("    },")
    out.append("}")
    out.append("")
    for v, fn in variant_bindings(decls):
        out.append("")
        out.append(_render_function(fn, pyname=f"_{v.name}_{fn.name}"))
        out.append("")
    return out


def _reflow_all(text):
    m = re.search(r"^__all__ = \[(.*)\]$", text, flags=re.M)
    items = m.group(1).split(", ")
    lines, cur = [], "__all__ = ["
    for i, it in enumerate(items):
        piece = it + (", " if i < len(items) - 1 else "]")
        if len(cur) + len(piece.rstrip()) > 88:
            lines.append(cur.rstrip())
            cur = "           " + piece
        else:
            cur += piece
    lines.append(cur)
    return text[:m.start()] + "\n".join(lines) + text[m.end():]


def render_pyi(decls):
    """The stub ``_<lib>.pyi``."""
    out = [f"# Generated by gpuscipy_core/libs/_generate.py from _declarations/{decls.lib}.h.",
           "from typing import Sequence", "", "LIBRARY: str"]
    for n in decls.constants():
        out.append(f"{n}: int")
    out.append("")
    for fn in decls.functions:
        args = ", ".join(f"{p.pyname}: {p.py_type()}" for p in fn.inputs)
        outs = fn.outputs
        if not outs:
            ret = "None"
        elif len(outs) == 1:
            ret = outs[0].py_type() if outs[0].mark == "INOUT" else \
                ("float" if outs[0].abi(base_only=True) in ("float", "double") else "int")
        else:
            ret = "tuple[" + ", ".join(
                "float" if p.abi(base_only=True) in ("float", "double") else "int"
                for p in outs) + "]"
        out.append(_wrap(f"def {fn.name}({args}) -> {ret}: ...", indent=" " * 8))
    return "\n".join(out) + "\n"


def check_source(lib):
    """C++ source asserting every declaration of ``lib`` against the vendor header.

    Each function must convert to a pointer of exactly the declared type
    (``static_cast`` picks that overload or fails to compile); each enum
    type must be 4 bytes and int-like, each constant must have the declared
    value, each opaque type must be a pointer and every scalar the size the
    binding passes.
    """
    d = parse(lib)
    out = [f"#include <{d.header}>", "#include <cstdint>", "#include <type_traits>", ""]
    if len(d.variants) > 1:
        raise ValueError("check_source handles one variant")
    variant = d.variants[0] if d.variants else None
    v_funcs = {f.name for f in variant.functions} if variant else set()
    v_enums = {e for e, _ in variant.enums} if variant else set()

    def check_fn(fn):
        params = ", ".join(p.c_decl for p in fn.params)
        out.append(f"static auto* const chk_{fn.name} = static_cast<{fn.ret} (*)({params})>"
                   f"(&{fn.name});")

    def check_enum(items):
        for n, v in items:
            out.append(f"static_assert((long long){n} == {v}LL, \"{n}\");")

    for fn in d.functions:
        if fn.name not in v_funcs:
            check_fn(fn)
    if variant:
        out.append(f"#if {variant.condition}")
        for fn in variant.functions:
            check_fn(fn)
        for _, items in variant.enums:
            check_enum(items)
        out.append("#else")
        for fn in d.functions:
            if fn.name in v_funcs:
                check_fn(fn)
        for enum, items in d.enums:
            if enum in v_enums:
                check_enum(items)
        out.append("#endif")
    out.append(f"static_assert(sizeof({d.status}) == sizeof(int), \"status\");")
    seen = set()
    for fn in d.functions:
        for p in fn.params:
            if p.base in seen or (p.depth and not p.mark):
                continue
            seen.add(p.base)
            if p.base == "void":
                continue
            abi = p.abi(base_only=True)
            if p.base in _OPAQUE:
                out.append(f"static_assert(std::is_pointer<{p.base}>::value, \"{p.base}\");")
            elif p.base in _SCALARS:
                cy = {"long long": "long long", "unsigned long long": "unsigned long long"}.get(
                    abi, abi)
                out.append(f"static_assert(sizeof({p.base}) == sizeof({cy}) && "
                           f"std::is_integral<{p.base}>::value == std::is_integral<{cy}>::value,"
                           f" \"{p.base}\");")
            elif p.base != "void":
                out.append(f"static_assert(std::is_enum<{p.base}>::value && "
                           f"sizeof({p.base}) == sizeof(int), \"{p.base}\");")
    for enum, items in d.enums:
        if enum not in v_enums:
            check_enum(items)
    for n, v in d.defines:
        out.append(f"static_assert((long long)({n}) == {v}LL, \"{n}\");")
    out.append("int main() { return 0; }")
    return "\n".join(out) + "\n"


def main():
    for lib in LIBRARIES:
        d = parse(lib)
        for ext, render in ((".pyx", render_pyx), (".pyi", render_pyi)):
            path = os.path.join(HERE, f"_{lib}{ext}")
            text = render(d)
            try:
                with open(path) as f:
                    if f.read() == text:
                        continue
            except OSError:
                pass
            with open(path, "w") as f:
                f.write(text)
            print("wrote", path)


if __name__ == "__main__":
    main()
