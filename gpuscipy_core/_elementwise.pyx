# cython: language_level=3
"""The elementwise engine: broadcasting, dimension collapsing, kernel choice,
parameter packing and launch for ufuncs, copies, fills and ElementwiseKernel.
"""

import numpy

from cuda.bindings cimport cydriver
from libc.string cimport memcpy, memset
from libc.stdint cimport int64_t

from gpuscipy_core._ndarray cimport (ndarray, _new_array, _make_view, current_stream_ptr,
                                     current_device_id)
from gpuscipy_core._kernel._launch cimport launch_packed
from gpuscipy_core._cuda._errors import CUDAError
from gpuscipy_core._cuda._device import device_limits, ensure_context, get_device_id
from gpuscipy_core._cuda._stream import get_current_stream_ptr
from gpuscipy_core._kernel._module import get_function
from gpuscipy_core._kernel._elementwise_source import elementwise_source, param_layout
from gpuscipy_core._kernel._ufunc_names import ctype as _ctype_uncached
from gpuscipy_core._ndarray import normalize_dtype

__all__ = ["run_elementwise", "broadcast_shapes", "copy_array", "fill", "assign",
           "ufunc", "result_order"]

cdef dict _launch_cache = {}     # (kernel name, device) -> (fptr, offsets, soffs, size)
cdef dict _ctypes = {}


def ctype(dt):
    """C type of a dtype in device code (memoised)."""
    try:
        return _ctypes[dt]
    except KeyError:
        c = _ctypes[dt] = _ctype_uncached(dt)
        return c

cdef enum:
    PARAM_BYTES = 8192


cdef int _num_sms(int dev) except -1:
    return device_limits(dev).sm_count


def _fmt(shape):
    return str(tuple(shape)).replace(" ", "")


def broadcast_shapes(*shapes):
    """NumPy's broadcasting of shapes, with NumPy's error text."""
    cdef Py_ssize_t nd = 0
    for s in shapes:
        if len(s) > nd:
            nd = len(s)
    out = [1] * nd
    for s in shapes:
        off = nd - len(s)
        for i, d in enumerate(s):
            o = out[off + i]
            if d != o:
                if o == 1:
                    out[off + i] = d
                elif d != 1:
                    raise ValueError(
                        "operands could not be broadcast together with shapes "
                        + " ".join(str(tuple(x)).replace(" ", "") for x in shapes))
    return tuple(out)


cdef tuple _el_strides(ndarray a, tuple shape):
    cdef Py_ssize_t nd = len(shape), m = len(a._shape), off = nd - m, d
    st = [0] * nd
    for d in range(m):
        if a._shape[d] != 1:
            s = a._strides[d]
            if s % a.itemsize:
                return None
            st[off + d] = s // a.itemsize
    return tuple(st)


cdef tuple _collapse(tuple shape, list strides):
    """Drop length-1 axes and merge axes that are contiguous for every operand."""
    cdef Py_ssize_t nd = len(shape), d, k, nops = len(strides)
    shp = []
    sts = [[] for _ in range(nops)]
    for d in range(nd):
        if shape[d] == 1:
            continue
        if shp:
            ok = True
            for k in range(nops):
                if sts[k][-1] != strides[k][d] * shape[d]:
                    ok = False
                    break
            if ok:
                shp[-1] *= shape[d]
                for k in range(nops):
                    sts[k][-1] = strides[k][d]
                continue
        shp.append(shape[d])
        for k in range(nops):
            sts[k].append(strides[k][d])
    return shp, sts


def result_order(arrays):
    """'F' when every array operand is F- but not C-contiguous, else 'C'."""
    f = False
    for a in arrays:
        if (<ndarray>a).ndim >= 2:
            if (<ndarray>a)._f_contig and not (<ndarray>a)._c_contig:
                f = True
            else:
                return "C"
    return "F" if f else "C"


def run_elementwise(str prefix, tuple specs, str body, list values, tuple shape,
                    bint vec_ok=False, str preamble=""):
    """Launch the elementwise kernel ``prefix`` over ``shape``.

    ``specs`` are ``(kind, dtype, name)`` per argument (kind: in, out, raw,
    scalar); ``values`` holds an ndarray per array argument and the bytes of
    each scalar. ``prefix`` together with the layout decides the kernel name,
    so it must encode everything that changes the source.
    """
    cdef Py_ssize_t n = 1, k, nd, nargs = len(specs), maxsize = 0, v
    cdef ndarray arr
    cdef char buf[PARAM_BYTES]
    cdef int64_t tmp
    cdef size_t p
    cdef const unsigned char[:] blob
    for s in shape:
        n *= <Py_ssize_t>s
    if n == 0:
        return
    dev = get_device_id()
    arrays = []
    strides = []
    for k in range(nargs):
        kind = specs[k][0]
        if kind == "in" or kind == "out":
            arr = <ndarray>values[k]
            st = _el_strides(arr, shape)
            if st is None:
                raise ValueError("array strides are not a multiple of the itemsize")
            arrays.append(k)
            strides.append(st)
            if arr.itemsize > maxsize:
                maxsize = arr.itemsize
    cshape, cstrides = _collapse(shape, strides)
    contig = True
    for st in cstrides:
        if len(st) > 1 or (len(st) == 1 and st[0] != 1):
            contig = False
            break
    nd = 0 if contig else max(len(cshape), 1)
    if not contig and not cshape:
        cshape = [1]
        cstrides = [[0] for _ in cstrides]
    index32 = n < 2**31 - 2**26
    vec = 1
    if contig and vec_ok and maxsize and n >= 16:
        vec = 16 // maxsize
        for k in arrays:
            arr = <ndarray>values[k]
            if arr._ptr % (vec * arr.itemsize):
                vec = 1
                break
    fptr, offsets, soffs, size = _entry(prefix, specs, body, nd, index32, vec,
                                        preamble, dev)
    memset(buf, 0, size)
    tmp = n
    memcpy(buf, &tmp, 8)
    if nd:
        for k in range(nd):
            tmp = cshape[k]
            memcpy(buf + 8 + 8 * k, &tmp, 8)
    j = 0
    for k in range(nargs):
        kind = specs[k][0]
        if kind == "scalar":
            blob = values[k]
            memcpy(buf + <Py_ssize_t>offsets[k], &blob[0], len(values[k]))
        else:
            p = (<ndarray>values[k])._ptr
            memcpy(buf + <Py_ssize_t>offsets[k], &p, 8)
            if soffs[k] is not None:
                st = cstrides[j]
                for v in range(nd):
                    tmp = st[v]
                    memcpy(buf + <Py_ssize_t>soffs[k] + 8 * v, &tmp, 8)
            if kind != "raw":
                j += 1
    cdef Py_ssize_t work = (n + vec - 1) // vec
    cdef Py_ssize_t blocks = (work + 255) // 256
    cdef Py_ssize_t cap = _num_sms(dev) * 8
    if blocks > cap:
        blocks = cap
    launch_packed(fptr, <unsigned int>blocks, 1, 1, 256, 1, 1, 0,
                  get_current_stream_ptr(), buf)


cdef tuple _entry(str prefix, tuple specs, str body, int nd, bint index32, int vec,
                  str preamble, dev):
    """(function pointer, offsets, stride offsets, struct size) of a kernel."""
    name = f"{prefix}_{'c' if nd == 0 else 'g%d' % nd}{'' if index32 else '_i64'}" \
           f"{'_v%d' % vec if vec > 1 else ''}"
    key = (name, dev)
    entry = _launch_cache.get(key)
    if entry is None:
        args = tuple((kind, ctype(dt), nm, dt.itemsize,
                      dt.itemsize if dt.kind == "c" else dt.alignment)
                     for kind, dt, nm in specs)
        src = elementwise_source(name, args, body, nd, index32, vec, preamble)
        f = get_function(src, name)
        offsets, soffs, size = param_layout(args, nd)
        if size > PARAM_BYTES:
            raise ValueError("too many kernel arguments")
        entry = _launch_cache[key] = (f.ptr, offsets, soffs, size)
    return entry


cdef str _code(dt):
    return dt.str[1:]


cdef inline bint _overlaps(ndarray a, ndarray b):
    if a._mem is not b._mem or a.size == 0 or b.size == 0:
        return False
    lo_a, hi_a = _extent(a)
    lo_b, hi_b = _extent(b)
    return lo_a < hi_b and lo_b < hi_a


cdef tuple _extent(ndarray a):
    cdef Py_ssize_t lo = a._ptr, hi = a._ptr
    for d, s in zip(a._shape, a._strides):
        if s < 0:
            lo += (d - 1) * s
        else:
            hi += (d - 1) * s
    return lo, hi + a.itemsize


def copy_array(ndarray src, dtype, order="K"):
    """A copy of ``src`` (cast to ``dtype`` when given) in ``order``."""
    dt = src.dtype if dtype is None else dtype
    if order in ("K", "k") and not (src._c_contig or src._f_contig) and src.ndim > 1:
        # keep the memory order of the axes: allocate C-order in the order of
        # decreasing |stride|, then view it back in the original axis order
        perm = sorted(range(src.ndim), key=lambda d: -abs(src._strides[d]))
        tmp = _new_array(tuple(src._shape[d] for d in perm), dt, 0)
        inv = [0] * src.ndim
        for i, d in enumerate(perm):
            inv[d] = i
        out_k = tmp.transpose(inv)
        _copy_into(out_k, src)
        return out_k
    if order in ("K", "A", "k", "a"):
        f = src._f_contig and not src._c_contig
    elif order in ("C", "c"):
        f = False
    elif order in ("F", "f"):
        f = True
    else:
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    cdef ndarray out = _new_array(src._shape, dt, f)
    _copy_into(out, src)
    return out


cdef _copy_into(ndarray dst, ndarray src):
    """dst[...] = src (src broadcast to dst's shape, cast unsafely)."""
    cdef cydriver.CUresult err
    if dst.size == 0:
        return
    if dst.dtype == src.dtype and dst._shape == src._shape and (
            (dst._c_contig and src._c_contig) or (dst._f_contig and src._f_contig)):
        ensure_context(dst._device_id)
        err = cydriver.cuMemcpyDtoDAsync(<cydriver.CUdeviceptr>dst._ptr,
                                         <cydriver.CUdeviceptr>src._ptr,
                                         dst.size * dst.itemsize,
                                         <cydriver.CUstream><size_t>get_current_stream_ptr())
        if err != cydriver.CUDA_SUCCESS:
            raise CUDAError("cuMemcpyDtoDAsync", <int>err)
        return
    if _overlaps(dst, src):
        src = copy_array(src, None, "K")
    if dst.dtype == src.dtype and dst._shape == src._shape:
        from gpuscipy_core._transpose import try_transpose_copy
        if try_transpose_copy(dst, src):
            return
    try:
        ok = broadcast_shapes(src._shape, dst._shape) == dst._shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError("could not broadcast input array from shape "
                         f"{_fmt(src._shape)} into shape {_fmt(dst._shape)}")
    prefix = f"gs_copy_{_code(src.dtype)}_{_code(dst.dtype)}"
    run_elementwise(prefix, (("in", src.dtype, "x"), ("out", dst.dtype, "y")),
                    f"y = gs::cast<{ctype(dst.dtype)}>(x);", [src, dst], dst._shape,
                    True)


def _scalar_bytes(value, dt):
    """``value`` converted to ``dt`` with NumPy's assignment rules
    (OverflowError for integers out of range, ValueError for NaN into an
    integer type)."""
    h = numpy.empty((), dt)
    h[()] = value
    return h.tobytes()


def fill(ndarray a, value):
    """Set every element of ``a`` to ``value``."""
    if isinstance(value, ndarray):
        if (<ndarray>value).ndim:
            raise ValueError("fill takes a scalar")
        _copy_into(a, value)
        return
    run_elementwise(f"gs_fill_{_code(a.dtype)}",
                    (("scalar", a.dtype, "v"), ("out", a.dtype, "y")),
                    "y = v;", [_scalar_bytes(value, a.dtype), a], a._shape, True)


def assign(ndarray dst, value):
    """``dst[...] = value`` for an ndarray, NumPy array or scalar value."""
    if isinstance(value, ndarray):
        _copy_into(dst, value)
        return
    if isinstance(value, (int, float, complex, bool, numpy.generic)):
        fill(dst, value)
        return
    if hasattr(value, "__cuda_array_interface__") or hasattr(value, "__dlpack__") \
            and not isinstance(value, numpy.ndarray):
        from gpuscipy_core._routines._creation import asarray
        _copy_into(dst, asarray(value))
        return
    host = numpy.asarray(value)
    if host.dtype.kind in "OSUVMm":
        raise TypeError(f"dtype {host.dtype!r} is not supported by gpuscipy")
    if host.ndim == 0:
        fill(dst, host[()])
        return
    from gpuscipy_core._routines._creation import _from_host
    _copy_into(dst, _from_host(numpy.ascontiguousarray(host)))


# ---------------------------------------------------------------- ufuncs

_PY_SCALARS = (int, float, complex)


cdef class ufunc:
    """A universal function on device arrays, with NumPy's semantics.

    Type resolution is NumPy's own (``numpy.ufunc.resolve_dtypes``, NEP 50
    rules); the loop runs in one generated kernel that casts operands on the
    fly, so mixed-dtype inputs make no temporaries.
    """
    cdef readonly str __name__
    cdef readonly int nin
    cdef readonly int nout
    cdef readonly object _np
    cdef str _func
    cdef dict _loops
    cdef dict _fastcache
    cdef bint _int_power

    def __init__(self, name, func=None):
        self._np = getattr(numpy, name)
        self.__name__ = name
        self.nin = self._np.nin
        self.nout = self._np.nout
        self._func = func or f"gs::{name}"
        self._loops = {}
        self._fastcache = {}
        self._int_power = name == "power"

    @property
    def nargs(self):
        return self.nin + self.nout

    @property
    def types(self):
        return self._np.types

    def __repr__(self):
        return f"<ufunc '{self.__name__}'>"

    def __reduce__(self):
        return (_get_ufunc, (self.__name__,))

    cdef tuple _resolve(self, tuple keys, dtype, casting, sig):
        ck = (keys, dtype, casting, sig)
        loop = self._loops.get(ck)
        if loop is not None:
            return loop
        signature = sig
        if dtype is not None and signature is None:
            signature = (None,) * self.nin + (numpy.dtype(dtype),) * self.nout
        if signature is None:
            dts = self._np.resolve_dtypes(keys + (None,) * self.nout, casting=casting)
        else:
            dts = self._np.resolve_dtypes(keys + (None,) * self.nout,
                                          signature=signature, casting=casting)
        for d in dts:
            normalize_dtype(d)
        loop = (tuple(dts[:self.nin]), tuple(dts[self.nin:]))
        self._loops[ck] = loop
        return loop

    cdef tuple _render(self, tuple arr_dts, tuple in_dts, tuple out_arr_dts,
                       tuple out_dts, mask_dt):
        """(kernel prefix, argument specs, body) of one loop; ``arr_dts[k]``
        is None for a scalar input."""
        cdef int k
        specs = []
        pre = [self.__name__]
        callargs = []
        for k in range(self.nin):
            nm = f"in{k}"
            dt = arr_dts[k]
            if dt is not None:
                specs.append(("in", dt, nm))
                pre.append(_code(dt))
                callargs.append(nm if dt == in_dts[k]
                                else f"gs::cast<{ctype(in_dts[k])}>({nm})")
            else:
                specs.append(("scalar", in_dts[k], nm))
                pre.append("s" + _code(in_dts[k]))
                callargs.append(nm)
        pre.append("to")
        for k in range(self.nout):
            specs.append(("out", out_arr_dts[k], f"out{k}"))
            pre.append(_code(out_arr_dts[k]))
        pre.append("via")
        pre.extend(_code(d) for d in in_dts + out_dts)
        if self.nout == 1:
            body = (f"const {ctype(out_dts[0])} _r0 = {self._func}({', '.join(callargs)}); "
                    f"out0 = gs::cast<{ctype(out_arr_dts[0])}>(_r0);")
        else:
            body = ("".join(f"{ctype(out_dts[k])} _r{k}; " for k in range(self.nout))
                    + f"{self._func}({', '.join(callargs + [f'_r{k}' for k in range(self.nout)])}); "
                    + " ".join(f"out{k} = gs::cast<{ctype(out_arr_dts[k])}>(_r{k});"
                               for k in range(self.nout)))
        if mask_dt is not None:
            specs.append(("in", mask_dt, "mask"))
            pre.append("w" + _code(mask_dt))
            body = f"if (gs::cast<bool>(mask)) {{ {body} }}"
        return "gs_" + "_".join(pre), tuple(specs), body

    cdef object _fast(self, tuple args):
        """The hot path: every input an ndarray, same shape, C-contiguous,
        nothing but the inputs given. Returns None when it does not apply."""
        cdef ndarray a, o
        cdef int k, nin = self.nin, nout = self.nout, vec
        cdef char buf[64]
        cdef size_t p
        cdef int64_t n
        cdef Py_ssize_t blocks, cap
        a = <ndarray>args[0]
        shape = a._shape
        dev = a._device_id
        if nin == 1:
            if not a._c_contig:
                return None
            key = (a.dtype, dev)
        else:
            o = <ndarray>args[1]
            if not (a._c_contig and o._c_contig and o._shape == shape
                    and o._device_id == dev):
                return None
            key = (a.dtype, o.dtype, dev)
        n = a.size
        if n == 0 or n >= 2**31 - 2**26 or dev != current_device_id():
            return None
        if self._int_power and nin == 2 and (<ndarray>args[1]).dtype.kind == "i":
            return None
        entry = self._fastcache.get(key)
        if entry is None:
            in_dts, out_dts = self._resolve(tuple((<ndarray>x).dtype for x in args),
                                            None, "same_kind", None)
            prefix, specs, body = self._render(
                tuple((<ndarray>x).dtype for x in args), in_dts, out_dts, out_dts, None)
            maxsize = max(d.itemsize for d in in_dts + out_dts)
            maxsize = max([maxsize] + [(<ndarray>x).itemsize for x in args])
            vec = 16 // maxsize
            e_vec = _entry(prefix, specs, body, 0, True, vec, "", dev) if vec > 1 else None
            e_one = _entry(prefix, specs, body, 0, True, 1, "", dev)
            align = tuple(vec * d.itemsize for d in
                          [(<ndarray>x).dtype for x in args] + list(out_dts))
            entry = self._fastcache[key] = (e_vec, e_one, vec, out_dts, align)
        e_vec, e_one, vec, out_dts, align = entry
        outs = [_new_array(shape, d, 0, a) for d in out_dts]
        memcpy(buf, &n, 8)
        use_vec = e_vec is not None and n >= 16
        for k in range(nin):
            p = (<ndarray>args[k])._ptr
            if use_vec and p % <size_t>align[k]:
                use_vec = False
            memcpy(buf + 8 + 8 * k, &p, 8)
        for k in range(nout):
            p = (<ndarray>outs[k])._ptr
            if use_vec and p % <size_t>align[nin + k]:
                use_vec = False
            memcpy(buf + 8 + 8 * (nin + k), &p, 8)
        if not use_vec:
            vec = 1
        fptr = (<tuple>(e_vec if use_vec else e_one))[0]
        blocks = (((n + vec - 1) // vec) + 255) // 256
        cap = _num_sms(dev) * 8
        if blocks > cap:
            blocks = cap
        launch_packed(fptr, <unsigned int>blocks, 1, 1, 256, 1, 1, 0,
                      current_stream_ptr(), buf)
        if nout == 1:
            return outs[0]
        return tuple(outs)

    def __call__(self, *args, **kwargs):
        if not kwargs and len(args) == self.nin:
            for x in args:
                if not isinstance(x, ndarray):
                    break
            else:
                r = self._fast(args)
                if r is not None:
                    return r
        return self._call(args, **kwargs)

    def _call(self, tuple args, out=None, where=True, dtype=None, casting="same_kind",
              order="K", signature=None, subok=True):
        cdef int nin = self.nin, nout = self.nout, k
        cdef ndarray a
        if signature is not None and not isinstance(signature, (tuple, str)):
            signature = tuple(signature)
        if len(args) < nin or len(args) > nin + nout:
            raise TypeError(f"{self.__name__}() takes from {nin} to {nin + nout} "
                            f"positional arguments but {len(args)} were given")
        inputs = args[:nin]
        if len(args) > nin:
            if out is not None:
                raise TypeError("cannot specify 'out' as both a positional and "
                                "keyword argument")
            out = args[nin:]
        if out is not None and not isinstance(out, tuple):
            out = (out,)
        if out is not None:
            if len(out) != nout:
                raise ValueError(f"The 'out' tuple must have exactly {nout} entries: "
                                 "one per ufunc output")
            for o in out:
                if o is not None and not isinstance(o, ndarray):
                    raise TypeError("return arrays must be of gpuscipy_core.ndarray type")
        keys = []
        arrays = []
        for x in inputs:
            if isinstance(x, ndarray):
                keys.append((<ndarray>x).dtype)
                arrays.append(x)
            elif type(x) in _PY_SCALARS:
                keys.append(type(x))
            elif isinstance(x, bool):
                keys.append(numpy.dtype(bool))
            elif isinstance(x, numpy.generic):
                keys.append(normalize_dtype(x.dtype))
            elif isinstance(x, numpy.ndarray):
                raise TypeError(
                    f"Unsupported type {type(x)}: {self.__name__} takes device arrays "
                    "and scalars; move NumPy arrays with gpuscipy_core.asarray first")
            else:
                if hasattr(x, "__cuda_array_interface__"):
                    from gpuscipy_core._routines._creation import asarray
                    x = asarray(x)
                    inputs = inputs[:len(keys)] + (x,) + inputs[len(keys) + 1:]
                    keys.append(x.dtype)
                    arrays.append(x)
                    continue
                raise TypeError(f"Unsupported type {type(x)} for ufunc "
                                f"'{self.__name__}'")
        in_dts, out_dts = self._resolve(tuple(keys), dtype, casting, signature)
        # shapes
        if nin == 2 and len(arrays) == 2 and (<ndarray>arrays[0])._shape == \
                (<ndarray>arrays[1])._shape:
            shape = (<ndarray>arrays[0])._shape
        else:
            shape = broadcast_shapes(*[(<ndarray>x)._shape for x in arrays]) \
                if arrays else ()
        mask = None
        if where is not True:
            if not isinstance(where, ndarray):
                from gpuscipy_core._routines._creation import asarray
                where = asarray(where)
            mask = where
            shape = broadcast_shapes(shape, (<ndarray>mask)._shape)
        outs = []
        for k in range(nout):
            o = None if out is None else out[k]
            if o is None:
                if mask is not None:
                    raise TypeError("where= without out= leaves the output "
                                    "uninitialised; pass out=")
                o = _new_array(shape, out_dts[k],
                               1 if order == "F" or (order in ("K", "A")
                                                     and arrays and
                                                     result_order(arrays) == "F")
                               else 0)
            else:
                a = <ndarray>o
                if a._shape != shape:
                    if broadcast_shapes(shape, a._shape) != a._shape:
                        raise ValueError(
                            f"non-broadcastable output operand with shape {a._shape} "
                            f"doesn't match the broadcast shape {shape}")
                    shape = a._shape
                if not numpy.can_cast(out_dts[k], a.dtype, casting):
                    raise TypeError(
                        f"Cannot cast ufunc '{self.__name__}' output from "
                        f"{out_dts[k]!r} to {a.dtype!r} with casting rule {casting!r}")
            outs.append(o)
        # operands
        arr_dts = []
        values = []
        for k in range(nin):
            x = inputs[k]
            if isinstance(x, ndarray):
                a = <ndarray>x
                for o in outs:
                    if _overlaps(<ndarray>o, a) and not (
                            (<ndarray>o)._ptr == a._ptr and (<ndarray>o)._strides
                            == a._strides and (<ndarray>o)._shape == a._shape):
                        x = copy_array(a, None, "K")
                        break
                arr_dts.append((<ndarray>x).dtype)
                values.append(x)
            else:
                arr_dts.append(None)
                try:
                    values.append(_scalar_bytes(x, in_dts[k]))
                except OverflowError:
                    const = _comparison_constant(self.__name__, k, x, in_dts[k])
                    if const is None:
                        raise
                    from gpuscipy_core._routines._creation import full
                    return full(shape, const, bool)
        values.extend(outs)
        if mask is not None:
            values.append(mask)
        prefix, specs, body = self._render(
            tuple(arr_dts), in_dts, tuple((<ndarray>o).dtype for o in outs), out_dts,
            None if mask is None else (<ndarray>mask).dtype)
        if self.__name__ == "power" and in_dts[1].kind == "i":
            e = inputs[1]
            if (e < 0) if not isinstance(e, ndarray) else \
                    bool(e.size and (<ndarray>e).min() < 0):
                raise ValueError("Integers to negative integer powers are not allowed.")
        run_elementwise(prefix, specs, body, values, shape, mask is None)
        if nout == 1:
            return outs[0]
        return tuple(outs)


_CMP_ABOVE = {"less": True, "less_equal": True, "greater": False,
              "greater_equal": False, "equal": False, "not_equal": True}
_SWAPPED = {"less": "greater", "less_equal": "greater_equal", "greater": "less",
            "greater_equal": "less_equal", "equal": "equal", "not_equal": "not_equal"}


def _comparison_constant(name, position, value, dt):
    """Result of comparing an integer array with a Python int outside its
    dtype's range (NumPy 2 answers these without overflow), or None."""
    if name not in _CMP_ABOVE or not isinstance(value, int) or dt.kind not in "iu":
        return None
    if position == 0:
        name = _SWAPPED[name]
    info = numpy.iinfo(dt)
    above = value > info.max
    r = _CMP_ABOVE[name]
    if name in ("equal", "not_equal"):
        return r
    return r if above else not r


def _get_ufunc(name):
    import gpuscipy_core
    return getattr(gpuscipy_core, name)
