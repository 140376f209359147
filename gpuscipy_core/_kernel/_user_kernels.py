"""The public kernel API users know from CuPy: ElementwiseKernel, RawKernel,
RawModule."""

import hashlib
import re

import numpy

from .._cuda._device import get_device_id
from ._module import get_function, load_module, Function

__all__ = ["ElementwiseKernel", "RawKernel", "RawModule", "parse_params"]

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


class ElementwiseKernel:
    """A user-defined elementwise kernel (CuPy's call signature).

    Parameters
    ----------
    in_params, out_params : str
        Comma-separated ``"[raw] type name"``; types are dtype names or
        placeholders (e.g. ``T``) bound from the arguments.
    operation : str
        C++ statements run per element; ``i`` is the element index and
        ``_n`` the number of elements. Raw arguments are plain pointers to
        element 0 of a C-contiguous array.
    name : str
        Kernel name (appears in profiler traces).
    preamble : str
        Device code placed before the kernel.

    Notes
    -----
    Differences from CuPy: raw arguments are pointers (``x[j]``), not
    CArray objects; non-contiguous raw arguments are made contiguous first.
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

    def __call__(self, *args, size=None, block_size=None, shared_mem=0, stream=None):
        from .._elementwise import broadcast_shapes, run_elementwise
        from .._ndarray import ndarray
        from .._routines._creation import asarray, empty
        from ._ufunc_names import ctype
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
        specs, values, codes, typedefs = [], [], [], []
        for t, dt in binding.items():
            typedefs.append(f"typedef {ctype(dt)} {t};")
        for k, (raw, t, nm) in enumerate(params):
            a = args[k]
            dt = binding[t] if isinstance(t, str) else t
            kind = "in" if k < self.nin else "out"
            if isinstance(a, ndarray):
                if a.dtype != dt:
                    if kind == "out":
                        raise TypeError(f"output {nm!r} has dtype {a.dtype}, "
                                        f"expected {dt}")
                    a = a.astype(dt)
                if raw:
                    if not a.flags.c_contiguous:
                        a = a.copy()
                    kind = "raw"
                specs.append((kind, dt, nm))
                values.append(a)
                codes.append(("r" if raw else "") + dt.str[1:])
            else:
                if kind == "out":
                    raise TypeError(f"output {nm!r} must be an array")
                specs.append(("scalar", dt, nm))
                values.append(numpy.asarray(a, dtype=dt).tobytes())
                codes.append("s" + dt.str[1:])
        preamble = "\n".join(typedefs) + "\n" + self.preamble
        run_elementwise(self._prefix + "_" + "_".join(codes), tuple(specs),
                        self.operation, values, shape, False, preamble)
        if self.no_return:
            return None
        if self.nout == 1 and not self.return_tuple:
            return outs[0]
        return tuple(outs)


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
        CUDA C++ source with ``extern "C"`` kernels.
    path : str
        A cubin file to load instead of ``code``.
    options : tuple of str
        NVRTC options.

    Notes
    -----
    Differences from CuPy: ``name_expressions`` (C++ template kernels) are not
    supported yet; declare ``extern "C"`` wrappers instead.
    """

    def __init__(self, code=None, path=None, options=(), backend="nvrtc",
                 translate_cucomplex=False, enable_cooperative_groups=False,
                 name_expressions=None, jitify=False):
        if (code is None) == (path is None):
            raise TypeError("exactly one of code and path must be given")
        if name_expressions:
            raise NotImplementedError("name_expressions is not supported; use "
                                      'extern "C" kernels')
        self.code = code
        self.path = path
        self.options = tuple(options)
        self._loaded = {}

    def _module(self):
        dev = get_device_id()
        m = self._loaded.get(dev)
        if m is None:
            if self.code is not None:
                m = load_module(self.code, self.options)
            else:
                from cuda.bindings import driver
                from .._cuda._device import ensure_context
                from .._cuda._errors import check
                ensure_context(dev)
                with open(self.path, "rb") as f:
                    m = check(driver.cuModuleLoadData(f.read()), "cuModuleLoadData")
            self._loaded[dev] = m
        return m

    def compile(self):
        self._module()

    def get_function(self, name):
        """The kernel ``name`` as a callable ``f(grid, block, args, ...)``."""
        return Function(self._module(), name, get_device_id())
