"""The public kernel API users know from CuPy: ElementwiseKernel, RawKernel,
RawModule."""

import hashlib
import re
import struct
from typing import NamedTuple

import numpy

from .._cuda._device import get_device_id
from ._module import Function, get_function, load_file, load_module

__all__ = ["ElementwiseKernel", "RawKernel", "RawModule", "parse_params",
           "normalize_code"]

_C_NAMES = {"float": "float32", "double": "float64", "int": "int32",
            "unsigned int": "uint32", "long long": "int64",
            "unsigned long long": "uint64", "short": "int16",
            "unsigned short": "uint16", "char": "int8", "signed char": "int8",
            "unsigned char": "uint8", "bool": "bool", "half": "float16",
            "complex<float>": "complex64", "complex<double>": "complex128",
            "size_t": "uint64", "ptrdiff_t": "int64"}

_DTYPE_NAMES = frozenset(["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                          "uint32", "uint64", "float16", "float32", "float64",
                          "complex64", "complex128"])

_PARAM = re.compile(r"^\s*(raw\s+)?(.+?)\s+([A-Za-z_]\w*)\s*$")

_IND_TOKEN = re.compile(r"\b_ind\b")

# CuPy's ``_ind`` in an elementwise body; ``_ind.size()`` is the loop length
# after broadcasting (``_n``). Guarded, so kernels can share a translation unit.
_LOOP_INDEX = """#ifndef GS_EK_LOOP_INDEX
#define GS_EK_LOOP_INDEX
namespace gs_ek {
struct loop_index {
  long long n;
  __device__ __forceinline__ long long size() const { return n; }
};
}  // namespace gs_ek
#endif
"""


def parse_params(text):
    """Parse ``"T x, raw float32 y"`` into ``[(raw, type_or_placeholder, name)]``.

    A type is a NumPy dtype name (or C name such as ``float``); anything else
    is a placeholder bound from the arguments' dtypes.
    """
    out = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        m = _PARAM.match(part)
        if m is None:
            raise ValueError(f"invalid kernel parameter {part!r}")
        raw, t, name = bool(m.group(1)), m.group(2).strip(), m.group(3)
        t = _C_NAMES.get(t, t)
        if t in _DTYPE_NAMES:
            dt = numpy.dtype(t)
        elif re.match(r"^[A-Za-z_]\w*$", t):
            dt = t   # a placeholder, bound from the arguments
        else:
            raise ValueError(f"invalid type {t!r} in kernel parameter {part!r}")
        out.append((raw, dt, name))
    return out


_IDENT_CHAR = re.compile(r"[A-Za-z0-9_]")


def _code_end(text):
    """Index just past the last character of ``text`` that is C++ code (not
    white space and not inside a comment); 0 when there is none.

    A small lexer: ``//`` comments (with backslash-newline continuation),
    ``/* */`` comments, string and character literals (with escapes) and raw
    string literals ``R"d(...)d"``, so a ``//`` or ``;`` inside a literal is
    code and one inside a comment is not.
    """
    n = len(text)
    i = 0
    end = 0
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            i += 2
            while i < n and text[i] != "\n":
                if text[i] == "\\" and text.startswith("\n", i + 1):
                    i += 1   # a spliced line continues the comment
                i += 1
            continue
        if c == "/" and text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
            continue
        if c == '"' and i > 0 and text[i - 1] == "R":
            open_paren = text.find("(", i + 1)
            if open_paren >= 0:
                delim = ")" + text[i + 1:open_paren] + '"'
                close = text.find(delim, open_paren + 1)
                i = n if close < 0 else close + len(delim)
                end = i
                continue
        if c == '"' or (c == "'" and not (i > 0 and _IDENT_CHAR.match(text[i - 1]))):
            # a string or character literal ('1'000' digit separators are not)
            i += 1
            while i < n and text[i] != c and text[i] != "\n":
                i += 2 if text[i] == "\\" else 1
            i += 1
            end = min(i, n)
            continue
        if not c.isspace():
            end = i + 1
        i += 1
    return end


def _end_line(text):
    """``text`` followed by a line break that ends any ``//`` comment on its
    last line (two when that line ends in a backslash, which would splice)."""
    text = text.rstrip()
    return text + ("\n\n" if text.endswith("\\") else "\n")


def normalize_code(text, kind):
    """User code of a CuPy-style kernel, made safe to place in generated source.

    CuPy writes ``operation`` followed by ``;``, and ``map_expr``,
    ``reduce_expr`` and ``post_map_expr`` inside parentheses, so code ported
    from CuPy has no trailing ``;``; code written for C++ often has one.
    Both forms compile after this.

    Parameters
    ----------
    text : str
        The user's code.
    kind : {"statement", "expression", "preamble"}
        ``"statement"`` (ElementwiseKernel ``operation``, ReductionKernel
        ``post_map_expr``): ends with ``;``: added right after the last code
        character, or on a line of its own when a comment or a preprocessor
        line ends the code, so the comment cannot swallow it; kept when the
        code already ends with one (an extra ``;`` after a ``}`` is an empty
        statement). ``"expression"`` (``map_expr``, ``reduce_expr``): trailing
        ``;`` removed, and a line break after a final comment, so the ``)``
        the renderer puts after the expression is code. ``"preamble"``: ends
        with a line break; a ``;`` (an empty declaration where none is
        needed) follows a final ``}``, which completes a ``struct`` written
        without its ``;``.

    Returns
    -------
    str
        The code to render. Code, comments and line structure are otherwise
        unchanged, so NVRTC messages point at the user's own lines.

    Raises
    ------
    ValueError
        If ``kind`` is none of the three.
    """
    end = _code_end(text)
    tail = text[end:]
    line = text[text.rfind("\n", 0, end) + 1:end].lstrip()
    directive = line.startswith("#")
    if kind == "statement":
        if end == 0 or text[end - 1] == ";":
            return text
        if tail.strip() or directive:
            return _end_line(text) + ";"
        return text[:end] + ";" + tail
    if kind == "expression":
        while end and text[end - 1] == ";":
            text = text[:end - 1] + text[end:]
            end = _code_end(text)
        tail = text[end:]
        return _end_line(text) if tail.strip() else text[:end]
    if kind == "preamble":
        if end == 0:
            return text
        if text[end - 1] == "}" and not directive:
            return _end_line(text) + ";\n"
        return _end_line(text)
    raise ValueError(f"kind must be 'statement', 'expression' or 'preamble', not {kind!r}")


class ElementwiseKernel:
    """A user-defined elementwise kernel (CuPy's call signature).

    Parameters
    ----------
    in_params, out_params : str
        Comma-separated ``"[raw] type name"``; types are dtype names or
        placeholders (e.g. ``T``) bound from the arguments.
    operation : str
        C++ statements run per element, with or without a final ``;`` (see
        :func:`normalize_code`); ``i`` is the element index and ``_n`` (or
        CuPy's ``_ind.size()``) the number of elements after broadcasting.
        Raw arguments are plain pointers to element 0 of a C-contiguous array.
    name : str
        Kernel name (appears in profiler traces).
    preamble : str
        Device code placed before the kernel.

    Notes
    -----
    Differences from CuPy: raw arguments are pointers (``x[j]``), not
    CArray objects; non-contiguous raw arguments are made contiguous first.
    Of CuPy's indexer ``_ind`` only ``_ind.size()`` exists.
    """

    def __init__(self, in_params, out_params, operation, name="kernel",
                 reduce_dims=True, preamble="", no_return=False, return_tuple=False,
                 options=(), loop_prep="", after_loop=""):
        self.in_params = parse_params(in_params)
        self.out_params = parse_params(out_params)
        self.nin = len(self.in_params)
        self.nout = len(self.out_params)
        self.nargs = self.nin + self.nout
        self.operation = operation
        self.name = name
        self.preamble = preamble
        self.no_return = no_return
        self.return_tuple = return_tuple
        h = hashlib.sha1("\0".join([in_params, out_params, operation, preamble])
                         .encode()).hexdigest()[:12]
        self._prefix = f"gs_ek_{re.sub(r'[^A-Za-z0-9_]', '_', name)}_{h}"
        body = normalize_code(operation, "statement")
        pre = normalize_code(preamble, "preamble")
        if _IND_TOKEN.search(operation):
            # CuPy's loop indexer: only its size() (the loop length) exists here
            pre = _LOOP_INDEX + pre
            body = "const gs_ek::loop_index _ind = {(long long)_n}; (void)_ind;\n" + body
        self._body = body
        self._preamble = pre
        self._plans = {}   # _call_key(args) -> _CallPlan of a repeated call

    def _kernel_spec(self, binding, is_array):
        """``(kernel-name prefix, specs, preamble)`` of the kernel for a
        binding of the type placeholders and, per argument, whether it is an
        array (else a scalar). Pure: it decides the source."""
        from ._ufunc_names import ctype
        specs, codes = [], []
        for k, (raw, t, nm) in enumerate(self.in_params + self.out_params):
            dt = binding[t] if isinstance(t, str) else t
            if is_array[k]:
                kind = "raw" if raw else ("in" if k < self.nin else "out")
                codes.append(("r" if raw else "") + dt.str[1:])
            else:
                kind = "scalar"
                codes.append("s" + dt.str[1:])
            specs.append((kind, dt, nm))
        typedefs = "".join(f"typedef {ctype(dt)} {t};\n" for t, dt in binding.items())
        return (self._prefix + "_" + "_".join(codes), tuple(specs),
                typedefs + self._preamble)

    def source(self, *dtypes, scalars=(), ndim=0, index32=True):
        """The CUDA source this kernel compiles to (a debug hook; no GPU needed).

        Parameters
        ----------
        *dtypes : dtype
            The dtype of each argument as in a call: the inputs, optionally
            followed by the outputs (needed when an output's type placeholder
            is not bound by an input).
        scalars : sequence of int
            Positions of inputs passed as scalars.
        ndim : int
            0 for the contiguous layout, else the number of strided dimensions.
        index32 : bool
            32-bit indexing (every call of fewer than about 2**31 elements).

        Returns
        -------
        name, source : str
            The ``extern "C"`` kernel name and its source.

        Raises
        ------
        TypeError
            If the number of dtypes is wrong, a placeholder is bound to two
            dtypes or an output's dtype cannot be determined.
        """
        from ._elementwise_source import elementwise_source
        from ._ufunc_names import ctype
        if len(dtypes) not in (self.nin, self.nargs):
            raise TypeError(f"Wrong number of dtypes for {self.name!r}: "
                            f"expected {self.nin} or {self.nargs}, got {len(dtypes)}")
        params = self.in_params + self.out_params
        binding = {}
        for k, d in enumerate(dtypes):
            t = params[k][1]
            if isinstance(t, str):
                d = numpy.dtype(d)
                if binding.setdefault(t, d) != d:
                    raise TypeError(f"Type is mismatched: {params[k][2]} is {d} but "
                                    f"{t} is bound to {binding[t]}")
        for raw, t, nm in self.out_params:
            if isinstance(t, str) and t not in binding:
                raise TypeError(f"Cannot determine the dtype of output {nm!r}")
        is_array = [k not in scalars for k in range(self.nargs)]
        prefix, specs, preamble = self._kernel_spec(binding, is_array)
        # the name and argument specs as _elementwise._entry builds them
        name = (f"{prefix}_{'c' if ndim == 0 else 'g%d' % ndim}"
                f"{'' if index32 else '_i64'}")
        args = tuple((kind, ctype(dt), nm, dt.itemsize,
                      dt.itemsize if dt.kind == "c" else dt.alignment)
                     for kind, dt, nm in specs)
        return name, elementwise_source(name, args, self._body, ndim, index32, 1, preamble)

    def __call__(self, *args, size=None, block_size=None, shared_mem=0, stream=None):
        if size is None:
            key = _call_key(args)
            plan = self._plans.get(key) if key is not None else None
            if plan is not None:
                return self._run_plan(plan, args)
        else:
            key = None
        return self._call(args, size, key)

    def _run_plan(self, plan, args):
        """A call whose argument types match an earlier call's: what that
        call decided (dtypes, casts, kernel name and specs) is reused, so
        only the per-call work remains (~3x less host time)."""
        broadcast_shapes, run_elementwise, empty = _hot()[1:]
        values = list(args)
        for k in plan.casts:
            values[k] = values[k].astype(plan.dtypes[k])
        for k in plan.raws:
            if not values[k].flags.c_contiguous:
                values[k] = values[k].copy()
        for k, pack in plan.scalars:
            values[k] = (pack(values[k]) if pack is not None else
                         numpy.asarray(values[k], dtype=plan.dtypes[k]).tobytes())
        idx = plan.shape_from
        if len(idx) == 1:
            shape = values[idx[0]].shape
        else:
            shape = broadcast_shapes(*[values[k].shape for k in idx])
        for dt in plan.new_outs:
            values.append(empty(shape, dt))
        run_elementwise(plan.prefix, plan.specs, self._body, values, shape, False,
                        plan.preamble)
        if self.no_return:
            return None
        if self.nout == 1 and not self.return_tuple:
            return values[self.nin]
        return tuple(values[self.nin:])

    def _call(self, args, size, key):
        from .._elementwise import broadcast_shapes, run_elementwise
        from .._ndarray import ndarray
        from .._routines._creation import asarray, empty
        if len(args) not in (self.nin, self.nargs):
            raise TypeError(f"Wrong number of arguments for {self.name!r}: "
                            f"expected {self.nin} or {self.nargs}, got {len(args)}")
        params = self.in_params + self.out_params
        binding = {}
        args = list(args)
        for k, (raw, t, nm) in enumerate(params):
            if k >= len(args):
                break
            a = args[k]
            if not isinstance(a, ndarray) and hasattr(a, "__cuda_array_interface__"):
                a = args[k] = asarray(a)
            if isinstance(a, ndarray) and isinstance(t, str):
                prev = binding.setdefault(t, a.dtype)
                if prev != a.dtype:
                    raise TypeError(f"Type is mismatched: {nm} is {a.dtype} but "
                                    f"{t} is bound to {prev}")
        for k, (raw, t, nm) in enumerate(self.in_params):
            a = args[k]
            if isinstance(t, str) and t not in binding and not isinstance(a, ndarray):
                binding[t] = numpy.asarray(a).dtype
        arrays = [a for k, a in enumerate(args)
                  if isinstance(a, ndarray) and not params[k][0]]
        if arrays:
            shape = broadcast_shapes(*[a.shape for a in arrays])
        elif size is not None:
            shape = (int(size),)
        else:
            raise ValueError("Loop size is undecided: pass an array or size=")
        if size is not None and arrays and int(size) != int(numpy.prod(shape)):
            raise ValueError("size must match the array arguments")
        outs = []
        for j, (raw, t, nm) in enumerate(self.out_params):
            k = self.nin + j
            if k < len(args):
                outs.append(args[k])
                continue
            dt = binding.get(t) if isinstance(t, str) else t
            if dt is None:
                raise TypeError(f"Cannot determine the dtype of output {nm!r}")
            o = empty(shape, dt)
            args.append(o)
            outs.append(o)
        values, is_array = [], []
        for k, (raw, t, nm) in enumerate(params):
            a = args[k]
            dt = binding[t] if isinstance(t, str) else t
            is_out = k >= self.nin
            if isinstance(a, ndarray):
                if a.dtype != dt:
                    if is_out:
                        raise TypeError(f"output {nm!r} has dtype {a.dtype}, "
                                        f"expected {dt}")
                    a = a.astype(dt)
                if raw and not a.flags.c_contiguous:
                    a = a.copy()
                values.append(a)
            else:
                if is_out:
                    raise TypeError(f"output {nm!r} must be an array")
                values.append(numpy.asarray(a, dtype=dt).tobytes())
            is_array.append(isinstance(a, ndarray))
        prefix, specs, preamble = self._kernel_spec(binding, is_array)
        if key is not None and len(self._plans) < _MAX_PLANS:
            dts = tuple(binding[t] if isinstance(t, str) else t for _, t, _ in params)
            nargs0 = len(key)
            self._plans[key] = _CallPlan(
                dtypes=dts,
                casts=tuple(k for k in range(nargs0) if is_array[k] and
                            args[k].dtype != dts[k]),
                raws=tuple(k for k in range(nargs0) if is_array[k] and params[k][0]),
                scalars=tuple((k, _packer(key[k], dts[k])) for k in range(nargs0)
                              if not is_array[k]),
                shape_from=tuple(k for k in range(nargs0) if is_array[k] and
                                 not params[k][0]),
                new_outs=dts[nargs0:], prefix=prefix, specs=specs, preamble=preamble)
        run_elementwise(prefix, specs, self._body, values, shape, False, preamble)
        if self.no_return:
            return None
        if self.nout == 1 and not self.return_tuple:
            return outs[0]
        return tuple(outs)


_MAX_PLANS = 64   # argument-type combinations remembered per kernel
_SCALAR_TYPES = frozenset([int, float, complex, bool])
_INT64 = (-(1 << 63), 1 << 63)


class _CallPlan(NamedTuple):
    """What an ElementwiseKernel call decided from its argument types."""
    dtypes: tuple      # dtype of every parameter (inputs, outputs)
    casts: tuple       # inputs cast to their parameter's dtype
    raws: tuple        # raw array arguments (made C-contiguous)
    scalars: tuple     # (position, packer or None) of the host scalars
    shape_from: tuple  # the arguments whose shapes broadcast to the loop's
    new_outs: tuple    # dtypes of the outputs the call allocates
    prefix: str
    specs: tuple
    preamble: str


_HOT = []


def _hot():
    """(ndarray, broadcast_shapes, run_elementwise, empty), imported once:
    a function-level ``from .. import`` costs ~1 us per call, and these
    modules import this one."""
    if not _HOT:
        from .._elementwise import broadcast_shapes, run_elementwise
        from .._ndarray import ndarray
        from .._routines._creation import empty
        _HOT.extend((ndarray, broadcast_shapes, run_elementwise, empty))
    return _HOT


_F8 = struct.Struct("<d").pack
_I8 = struct.Struct("<q").pack


def _packer(t, dt):
    """``struct`` packing of a Python scalar of type ``t`` as ``dt`` where it
    equals NumPy's conversion (float to float64, int in the int64 range to
    int64 or float64), else None (``numpy.asarray(v, dt).tobytes()``)."""
    if dt == numpy.float64 and t in (float, int):
        return _F8
    if dt == numpy.int64 and t is int:
        return _I8
    return None


def _call_key(args):
    """The argument types of a call, or None when one is neither a device
    array nor a plain scalar (that call takes the full path)."""
    ndarray = _HOT[0] if _HOT else _hot()[0]
    key = []
    for a in args:
        t = type(a)
        if t is ndarray:
            key.append(a.dtype)
        elif t in _SCALAR_TYPES:
            # an int outside int64 binds another dtype (NumPy's rules)
            if t is int and not _INT64[0] <= a < _INT64[1]:
                return None
            key.append(t)
        elif issubclass(t, (numpy.number, numpy.bool_)):
            key.append(t)
        else:
            return None
    return tuple(key)


class RawKernel:
    """A kernel from CUDA C++ source (CuPy's ``RawKernel``).

    Parameters
    ----------
    code : str
        CUDA C++ source; the kernel must be ``extern "C"``.
    name : str
        The kernel's symbol.
    options : tuple of str
        NVRTC options.

    Call as ``kernel(grid, block, args, shared_mem=0, stream=None)``; see
    :func:`gpuscipy_core._kernel._launch.launch_args` for argument passing.
    """

    def __init__(self, code, name, options=(), backend="nvrtc", translate_cucomplex=False,
                 enable_cooperative_groups=False, jitify=False):
        if backend != "nvrtc":
            raise ValueError("only backend='nvrtc' is supported")
        self.code = code
        self.name = name
        self.options = tuple(options)

    def _function(self):
        return get_function(self.code, self.name, self.options)

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None):
        self._function()(grid, block, args, shared_mem, stream)

    def compile(self):
        """Compile now (otherwise the first call compiles)."""
        self._function()

    @property
    def attributes(self):
        f = self._function()
        return {k.lower(): f.attribute(k) for k in (
            "MAX_THREADS_PER_BLOCK", "SHARED_SIZE_BYTES", "CONST_SIZE_BYTES",
            "LOCAL_SIZE_BYTES", "NUM_REGS", "PTX_VERSION", "BINARY_VERSION")}

    @property
    def num_regs(self):
        return self._function().attribute("NUM_REGS")

    @property
    def max_threads_per_block(self):
        return self._function().attribute("MAX_THREADS_PER_BLOCK")


class RawModule:
    """A module of kernels from CUDA C++ source (CuPy's ``RawModule``).

    Parameters
    ----------
    code : str
        CUDA C++ source: ``extern "C"`` kernels, or C++ (template) kernels
        named in ``name_expressions``.
    path : str
        A cubin, fatbin or PTX file to load instead of ``code``.
    options : tuple of str
        NVRTC options.
    name_expressions : sequence of str, optional
        C++ names of kernels to instantiate, e.g. ``"gs::scale<float, 4>"``;
        ``get_function`` takes the same text (NVRTC lowers it to the mangled
        symbol, which the kernel cache keeps beside the cubin).

    Raises
    ------
    TypeError
        If not exactly one of ``code`` and ``path`` is given, or
        ``name_expressions`` comes with ``path``.
    ValueError
        ``backend`` other than ``"nvrtc"``.

    Notes
    -----
    Modules and functions are looked up in the one bounded cache of
    ``gpuscipy_core.kernel.get_function`` (compiled cubins on disk, see
    ``gpuscipy_core.kernel.cache_dir``); a ``path`` module is keyed by the
    file's content.
    """

    def __init__(self, code=None, path=None, options=(), backend="nvrtc",
                 translate_cucomplex=False, enable_cooperative_groups=False,
                 name_expressions=None, jitify=False):
        if (code is None) == (path is None):
            raise TypeError("exactly one of code and path must be given")
        if backend != "nvrtc":
            raise ValueError("only backend='nvrtc' is supported")
        if name_expressions is not None and path is not None:
            raise TypeError("name_expressions needs code, not path")
        self.code = code
        self.path = path
        self.options = tuple(options)
        self.name_expressions = (None if name_expressions is None
                                 else tuple(str(e) for e in name_expressions))
        self._files = {}    # device -> Module of ``path`` (read once per device)

    def _module(self):
        if self.code is not None:
            return load_module(self.code, self.options, "module",
                               self.name_expressions or ())
        dev = get_device_id()
        m = self._files.get(dev)
        if m is None:
            m = self._files[dev] = load_file(self.path)
        return m

    def compile(self):
        """Compile and load now (otherwise the first ``get_function`` does)."""
        self._module()

    def get_function(self, name):
        """The kernel ``name`` (an ``extern "C"`` symbol or one of
        ``name_expressions``) as a callable ``f(grid, block, args, ...)``.

        Raises
        ------
        gpuscipy_core.cuda.CUDAError
            If the module has no such kernel (``cuModuleGetFunction``).
        """
        if self.code is not None:
            return get_function(self.code, name, self.options, self.name_expressions or ())
        return Function(self._module(), name)
