# cython: language_level=3
"""The GPU array: shape, strides (bytes), dtype, device pointer, owner.

Views share their owner's :class:`Memory`. Layout flags (C/F contiguity)
follow NumPy's rules: axes of length 1 don't count, empty arrays are both.
"""

import numpy


from gpuscipy_core._cuda._memory cimport Memory, alloc
from gpuscipy_core._cuda._device import get_device_id
from gpuscipy_core._cuda import _device as _device_mod, _stream as _stream_mod

cdef object _dev_tls = _device_mod._tls
cdef object _stream_tls = _stream_mod._tls


cdef size_t current_stream_ptr() except? 0:
    """The calling thread's current stream handle (hot path)."""
    st = getattr(_stream_tls, "stack", None)
    if st:
        return st[-1].ptr
    return 0


cdef int current_device_id() except -1:
    """The calling thread's current device (hot path)."""
    return getattr(_dev_tls, "device", 0)

__all__ = ["ndarray", "SUPPORTED_DTYPES", "normalize_dtype"]

SUPPORTED_DTYPES = frozenset(numpy.dtype(c) for c in "?bBhHiIlLqQefdFD")
_SUPPORTED_CHARS = frozenset("?bBhHiIlLqQefdFD")
cdef dict _dtype_cache = {}


def normalize_dtype(dtype):
    """``numpy.dtype(dtype)``, restricted to the dtypes gpuscipy supports.

    Raises
    ------
    TypeError
        For object, string, datetime, structured, longdouble and other dtypes.
    """
    try:
        return _dtype_cache[dtype]
    except (KeyError, TypeError):
        pass
    if dtype is None:
        dt = numpy.dtype(numpy.float64)
    else:
        dt = numpy.dtype(dtype)
    if dt.char not in _SUPPORTED_CHARS or dt.byteorder == ">":
        raise TypeError(f"dtype {dt!r} is not supported by gpuscipy "
                        "(supported: bool, int8-int64, uint8-uint64, float16, "
                        "float32, float64, complex64, complex128)")
    dt = numpy.dtype(dt.char)   # the canonical (native, singleton) instance
    try:
        _dtype_cache[dtype] = dt
    except TypeError:
        pass
    return dt


cdef tuple _c_strides(tuple shape, Py_ssize_t itemsize):
    cdef Py_ssize_t n = len(shape), i, s = itemsize
    cdef list st = [0] * n
    for i in range(n - 1, -1, -1):
        st[i] = s
        s *= max(<Py_ssize_t>shape[i], 1)
    return tuple(st)


cdef tuple _f_strides(tuple shape, Py_ssize_t itemsize):
    cdef Py_ssize_t n = len(shape), i, s = itemsize
    cdef list st = [0] * n
    for i in range(n):
        st[i] = s
        s *= max(<Py_ssize_t>shape[i], 1)
    return tuple(st)


cdef tuple _normalize_shape(shape):
    if isinstance(shape, int):
        shape = (shape,)
    else:
        try:
            shape = tuple(shape)
        except TypeError:
            shape = (shape,)
    out = []
    for s in shape:
        try:
            v = s.__index__()
        except AttributeError:
            raise TypeError(f"'{type(s).__name__}' object cannot be interpreted "
                            "as an integer") from None
        if v < 0:
            raise ValueError("negative dimensions are not allowed")
        out.append(v)
    return tuple(out)


cdef ndarray _new_array(tuple shape, object dtype, int order_f=0, ndarray like=None):
    cdef ndarray a = ndarray.__new__(ndarray)
    cdef Py_ssize_t size = 1
    for s in shape:
        size *= <Py_ssize_t>s
    if len(shape) > 1:
        _check_size(shape, dtype.itemsize)
    a.dtype = dtype
    a.itemsize = dtype.itemsize
    a.size = size
    a._device_id = current_device_id()
    st = getattr(_stream_tls, "stack", None)
    if st:
        sobj = st[-1]
        a._mem = alloc(<size_t>(size * a.itemsize), a._device_id, <size_t>sobj.ptr, sobj)
    else:
        a._mem = alloc(<size_t>(size * a.itemsize), a._device_id, 0)
    a._ptr = a._mem.ptr
    a._base = None
    if like is not None and like.itemsize == a.itemsize and like._c_contig \
            and like._shape == shape:
        a._shape = shape
        a._strides = like._strides
        a._c_contig = 1
        a._f_contig = like._f_contig
    elif order_f:
        a._set_layout(shape, _f_strides(shape, a.itemsize))
    else:
        a._set_layout(shape, _c_strides(shape, a.itemsize))
    return a


cdef _check_size(tuple shape, Py_ssize_t itemsize):
    cdef object total = itemsize
    for d in shape:
        total *= d
    if total > 2**63 - 1:
        raise ValueError("array is too big; `arr.size * arr.dtype.itemsize` is larger "
                         "than the maximum possible size.")


cdef ndarray _make_view(ndarray src, tuple shape, tuple strides, size_t ptr):
    cdef ndarray a = ndarray.__new__(ndarray)
    cdef Py_ssize_t size = 1
    for s in shape:
        size *= <Py_ssize_t>s
    a.dtype = src.dtype
    a.itemsize = src.itemsize
    a.size = size
    a._device_id = src._device_id
    a._mem = src._mem
    a._ptr = ptr
    a._base = src if src._base is None else src._base
    a._set_layout(shape, strides)
    return a


class Flags:
    """Layout flags of an array (``C_CONTIGUOUS``, ``F_CONTIGUOUS``, ``OWNDATA``)."""

    def __init__(self, c, f, own):
        self.c_contiguous = bool(c)
        self.f_contiguous = bool(f)
        self.owndata = bool(own)

    def __getitem__(self, name):
        key = {"C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous",
               "CONTIGUOUS": "c_contiguous", "F_CONTIGUOUS": "f_contiguous",
               "F": "f_contiguous", "FORTRAN": "f_contiguous",
               "OWNDATA": "owndata"}.get(name.upper())
        if key is None:
            raise KeyError(name)
        return getattr(self, key)

    def __repr__(self):
        return (f"  C_CONTIGUOUS : {self.c_contiguous}\n"
                f"  F_CONTIGUOUS : {self.f_contiguous}\n"
                f"  OWNDATA : {self.owndata}")


cdef class ndarray:
    """A multidimensional array on a CUDA device.

    Parameters
    ----------
    shape : int or tuple of int
        Array shape.
    dtype : data-type, optional
        One of bool, int8-int64, uint8-uint64, float16, float32, float64,
        complex64, complex128. Default float64.
    memptr : Memory, optional
        Existing device memory to use (the array keeps it alive).
    strides : tuple of int, optional
        Strides in bytes (requires ``memptr``).
    order : {'C', 'F'}
        Memory layout when ``strides`` is not given.

    Notes
    -----
    Most arrays are made by the creation functions (``empty``, ``asarray``,
    ...), not by calling this class directly.
    """

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        cdef tuple shp = _normalize_shape(shape)
        dt = normalize_dtype(dtype)
        cdef Py_ssize_t size = 1
        for s in shp:
            size *= <Py_ssize_t>s
        _check_size(shp, dt.itemsize)
        self.dtype = dt
        self.itemsize = dt.itemsize
        self.size = size
        self._device_id = get_device_id()
        self._base = None
        if memptr is None:
            if strides is not None:
                raise ValueError("strides require memptr")
            st = getattr(_stream_tls, "stack", None)
            self._mem = alloc(<size_t>(size * self.itemsize), self._device_id,
                              <size_t>(st[-1].ptr if st else 0), st[-1] if st else None)
        else:
            self._mem = <Memory?>memptr
            self._device_id = self._mem.device_id
        self._ptr = self._mem.ptr
        if strides is not None:
            self._set_layout(shp, tuple(int(s) for s in strides))
        elif order in ("F", "f"):
            self._set_layout(shp, _f_strides(shp, self.itemsize))
        elif order in ("C", "c", None):
            self._set_layout(shp, _c_strides(shp, self.itemsize))
        else:
            raise ValueError(f"order must be 'C' or 'F', got {order!r}")

    cdef _set_layout(self, tuple shape, tuple strides):
        cdef Py_ssize_t n = len(shape), i, exp
        self._shape = shape
        self._strides = strides
        if self.size == 0:
            self._c_contig = self._f_contig = 1
            return
        self._c_contig = 1
        exp = self.itemsize
        for i in range(n - 1, -1, -1):
            if <Py_ssize_t>shape[i] != 1:
                if <Py_ssize_t>strides[i] != exp:
                    self._c_contig = 0
                    break
                exp *= <Py_ssize_t>shape[i]
        self._f_contig = 1
        exp = self.itemsize
        for i in range(n):
            if <Py_ssize_t>shape[i] != 1:
                if <Py_ssize_t>strides[i] != exp:
                    self._f_contig = 0
                    break
                exp *= <Py_ssize_t>shape[i]

    # ---- attributes -------------------------------------------------
    @property
    def shape(self):
        """Tuple of array dimensions."""
        return self._shape

    @shape.setter
    def shape(self, value):
        v = self.reshape(value)
        if (<ndarray>v)._ptr != self._ptr or (<ndarray>v)._mem is not self._mem:
            raise AttributeError("incompatible shape for in-place modification; "
                                 "use `.reshape()` to make a copy")
        self._set_layout((<ndarray>v)._shape, (<ndarray>v)._strides)

    @property
    def strides(self):
        """Tuple of bytes to step in each dimension."""
        return self._strides

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def nbytes(self):
        return self.size * self.itemsize

    @property
    def base(self):
        """The array this one is a view of (None when it owns its memory)."""
        return self._base

    @property
    def flags(self):
        return Flags(self._c_contig, self._f_contig, self._base is None)

    @property
    def device(self):
        """The :class:`Device` holding the data."""
        from gpuscipy_core._cuda._device import Device
        return Device(self._device_id)

    @property
    def ptr(self):
        """Device address of the first element."""
        return self._ptr

    @property
    def data(self):
        """The owning :class:`Memory` block (``data.ptr`` is the block start;
        use :attr:`ptr` for the first element of a view)."""
        return _DataPointer(self._ptr, self._mem)

    @property
    def T(self):
        return self.transpose()

    @property
    def mT(self):
        if self.ndim < 2:
            raise ValueError("matrix transpose with ndim < 2 is undefined")
        axes = list(range(self.ndim))
        axes[-1], axes[-2] = axes[-2], axes[-1]
        return self.transpose(axes)

    @property
    def real(self):
        if self.dtype.kind != "c":
            return self
        return _component_view(self, 0)

    @property
    def imag(self):
        if self.dtype.kind != "c":
            from gpuscipy_core._routines._creation import zeros_like
            return zeros_like(self)
        return _component_view(self, 1)

    def _kernel_pointer(self):
        return self._ptr

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of unsized object")
        return self._shape[0]

    # ---- host transfers ----------------------------------------------
    def get(self, stream=None, order="C", out=None, blocking=True):
        """Copy to a NumPy array on the host (synchronises with the stream).

        Parameters
        ----------
        out : numpy.ndarray, optional
            Destination of the same shape and dtype (pinned memory makes the
            copy faster).
        """
        from gpuscipy_core._cuda._transfer import to_host
        return to_host(self, out, stream)

    def set(self, arr, stream=None):
        """Copy a NumPy array (same shape) from the host into this array."""
        from gpuscipy_core._cuda._transfer import from_host_into
        arr = numpy.asarray(arr)
        if arr.shape != self._shape:
            raise ValueError(f"shape mismatch: host array {arr.shape} vs "
                             f"device array {self._shape}")
        if self.flags.c_contiguous or self.flags.f_contiguous:
            from_host_into(self, arr, stream)
        else:   # a strided view: copy in contiguously, then assign on the device
            self[...] = _routine("_creation", "_from_host")(
                numpy.ascontiguousarray(arr, dtype=self.dtype))

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed: use "
            "gpuscipy_core.asnumpy(x) or x.get() to copy to the host explicitly.")

    def tolist(self):
        return self.get().tolist()

    def item(self, *args):
        if self.size != 1 and not args:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self.get().item(*args)

    def _scalar(self):
        if self.size != 1:
            raise ValueError("The truth value of an array with more than one "
                             "element is ambiguous. Use a.any() or a.all()"
                             if self.size else
                             "The truth value of an empty array is ambiguous.")
        return self.get().reshape(())[()]

    def _host_rules(self, conv):
        # NumPy's own checks (size, ndim) on an empty stand-in: same errors,
        # no transfer
        if self.size != 1 or self.ndim:
            conv(numpy.zeros(self._shape, self.dtype))
        return conv(self.get().reshape(())[()])

    def __bool__(self):
        return self._host_rules(bool)

    def __int__(self):
        return self._host_rules(int)

    def __float__(self):
        return self._host_rules(float)

    def __complex__(self):
        return self._host_rules(complex)

    def __index__(self):
        if self.dtype.kind not in "biu" or self.ndim:
            raise TypeError("only integer scalar arrays can be converted to a "
                            "scalar index")
        return int(self._scalar())

    def __repr__(self):
        return repr(self.get())

    def __str__(self):
        return str(self.get())

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self.get()[()], spec)
        return format(self.get(), spec)

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d array")
        for i in range(self._shape[0]):
            yield self[i]

    # ---- layout -------------------------------------------------------
    def view(self, dtype=None):
        """A view with the same data (``dtype`` of the same itemsize only)."""
        if dtype is None:
            return _make_view(self, self._shape, self._strides, self._ptr)
        dt = normalize_dtype(dtype)
        if dt.itemsize != self.itemsize:
            raise ValueError("view() to a dtype of another itemsize is not supported")
        v = _make_view(self, self._shape, self._strides, self._ptr)
        v.dtype = dt
        return v

    def transpose(self, *axes):
        """A view with axes permuted (reversed when ``axes`` is not given)."""
        cdef Py_ssize_t n = len(self._shape)
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int)):
            axes = axes[0]
        if axes is None or len(axes) == 0:
            perm = tuple(range(n - 1, -1, -1))
        else:
            perm = tuple(_normalize_axis(a, n) for a in axes)
            if len(perm) != n or len(set(perm)) != n:
                raise ValueError("axes don't match array")
        return _make_view(self, tuple(self._shape[i] for i in perm),
                          tuple(self._strides[i] for i in perm), self._ptr)

    def swapaxes(self, axis1, axis2):
        cdef Py_ssize_t n = len(self._shape)
        a, b = _normalize_axis(axis1, n), _normalize_axis(axis2, n)
        perm = list(range(n))
        perm[a], perm[b] = perm[b], perm[a]
        return self.transpose(perm)

    def reshape(self, *shape, order="C"):
        """Give a new shape; a view when the layout allows, else a copy."""
        if len(shape) == 1:
            shape = shape[0]
        return _reshape(self, shape, order)

    def ravel(self, order="C"):
        """A contiguous flattened array: a view when the layout allows, else a copy."""
        if order in ("K", "k") and not (self._c_contig or self._f_contig) \
                and len(self._shape) > 1:
            # memory order: axes by decreasing |stride|
            perm = sorted(range(len(self._shape)), key=lambda d: -abs(self._strides[d]))
            return self.transpose(perm).ravel("C")
        if order in ("K", "k", "A", "a"):
            order = "F" if self._f_contig and not self._c_contig else "C"
        if order in ("C", "c"):
            src = self if self._c_contig else self.copy("C")
        elif order in ("F", "f"):
            src = self if self._f_contig else self.copy("F")
        else:
            raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
        return _reshape(src, (-1,), order)

    def flatten(self, order="C"):
        return self.copy(order).ravel(order)

    def squeeze(self, axis=None):
        cdef Py_ssize_t n = len(self._shape)
        if axis is None:
            keep = [i for i in range(n) if self._shape[i] != 1]
        else:
            axes = (axis,) if isinstance(axis, int) else tuple(axis)
            axes = {_normalize_axis(a, n) for a in axes}
            for a in axes:
                if self._shape[a] != 1:
                    raise ValueError("cannot select an axis to squeeze out which "
                                     "has size not equal to one")
            keep = [i for i in range(n) if i not in axes]
        return _make_view(self, tuple(self._shape[i] for i in keep),
                          tuple(self._strides[i] for i in keep), self._ptr)

    # ---- copies --------------------------------------------------------
    def copy(self, order="C"):
        """A copy in ``order`` ('C', 'F', 'A' or 'K')."""
        from gpuscipy_core._elementwise import copy_array
        return copy_array(self, None, order)

    def astype(self, dtype, order="K", casting="unsafe", subok=None, copy=True):
        """A copy cast to ``dtype`` (no copy when ``copy=False`` and nothing changes)."""
        dt = normalize_dtype(dtype)
        if casting != "unsafe" and not numpy.can_cast(self.dtype, dt, casting):
            raise TypeError(f"Cannot cast array data from {self.dtype!r} to {dt!r} "
                            f"according to the rule {casting!r}")
        if not copy and dt == self.dtype and (
                order in ("K", "A") or (order == "C" and self._c_contig)
                or (order == "F" and self._f_contig)):
            return self
        from gpuscipy_core._elementwise import copy_array
        return copy_array(self, dt, order)

    def fill(self, value):
        """Set every element to the scalar ``value``."""
        from gpuscipy_core._elementwise import fill
        fill(self, value)

    # ---- indexing ------------------------------------------------------
    def __getitem__(self, key):
        v = _basic_index(self, key)
        if v is None:
            return _routine("_indexing", "_advanced_getitem")(self, key)
        return v

    def __setitem__(self, key, value):
        view = _basic_index(self, key)
        if view is None:
            _routine("_indexing", "_advanced_setitem")(self, key, value)
            return
        from gpuscipy_core._elementwise import assign
        assign(view, value)

    # ---- interop -------------------------------------------------------
    @property
    def __cuda_array_interface__(self):
        from gpuscipy_core._interop import cuda_array_interface
        return cuda_array_interface(self)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        from gpuscipy_core._interop import to_dlpack
        return to_dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return (2, self._device_id)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from gpuscipy_core._interop import array_ufunc
        return array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        from gpuscipy_core._interop import array_function
        return array_function(func, types, args, kwargs)

    def __array_namespace__(self, *, api_version=None):
        import gpuscipy_core
        return gpuscipy_core

    # ---- operators (through the ufuncs) ------------------------------
    def __add__(self, other):
        return _u.add(self, other)

    def __radd__(self, other):
        return _u.add(other, self)

    def __iadd__(self, other):
        return _u.add(self, other, out=self)

    def __sub__(self, other):
        return _u.subtract(self, other)

    def __rsub__(self, other):
        return _u.subtract(other, self)

    def __isub__(self, other):
        return _u.subtract(self, other, out=self)

    def __mul__(self, other):
        return _u.multiply(self, other)

    def __rmul__(self, other):
        return _u.multiply(other, self)

    def __imul__(self, other):
        return _u.multiply(self, other, out=self)

    def __truediv__(self, other):
        return _u.divide(self, other)

    def __rtruediv__(self, other):
        return _u.divide(other, self)

    def __itruediv__(self, other):
        return _u.divide(self, other, out=self)

    def __floordiv__(self, other):
        return _u.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return _u.floor_divide(other, self)

    def __ifloordiv__(self, other):
        return _u.floor_divide(self, other, out=self)

    def __mod__(self, other):
        return _u.remainder(self, other)

    def __rmod__(self, other):
        return _u.remainder(other, self)

    def __imod__(self, other):
        return _u.remainder(self, other, out=self)

    def __divmod__(self, other):
        return _u.divmod(self, other)

    def __rdivmod__(self, other):
        return _u.divmod(other, self)

    def __pow__(self, other, modulo=None):
        if modulo is not None:
            return NotImplemented
        return _u.power(self, other)

    def __rpow__(self, other):
        return _u.power(other, self)

    def __ipow__(self, other):
        return _u.power(self, other, out=self)

    def __neg__(self):
        return _u.negative(self)

    def __pos__(self):
        return _u.positive(self)

    def __abs__(self):
        return _u.absolute(self)

    def __invert__(self):
        return _u.invert(self)

    def __and__(self, other):
        return _u.bitwise_and(self, other)

    def __rand__(self, other):
        return _u.bitwise_and(other, self)

    def __iand__(self, other):
        return _u.bitwise_and(self, other, out=self)

    def __or__(self, other):
        return _u.bitwise_or(self, other)

    def __ror__(self, other):
        return _u.bitwise_or(other, self)

    def __ior__(self, other):
        return _u.bitwise_or(self, other, out=self)

    def __xor__(self, other):
        return _u.bitwise_xor(self, other)

    def __rxor__(self, other):
        return _u.bitwise_xor(other, self)

    def __ixor__(self, other):
        return _u.bitwise_xor(self, other, out=self)

    def __lshift__(self, other):
        return _u.left_shift(self, other)

    def __rlshift__(self, other):
        return _u.left_shift(other, self)

    def __ilshift__(self, other):
        return _u.left_shift(self, other, out=self)

    def __rshift__(self, other):
        return _u.right_shift(self, other)

    def __rrshift__(self, other):
        return _u.right_shift(other, self)

    def __irshift__(self, other):
        return _u.right_shift(self, other, out=self)

    def __eq__(self, other):
        return _u.equal(self, other)

    def __ne__(self, other):
        return _u.not_equal(self, other)

    def __lt__(self, other):
        return _u.less(self, other)

    def __le__(self, other):
        return _u.less_equal(self, other)

    def __gt__(self, other):
        return _u.greater(self, other)

    def __ge__(self, other):
        return _u.greater_equal(self, other)

    __hash__ = None

    # ---- reductions and friends (defined in routines) -----------------
    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return _r().sum(self, axis, dtype, out, keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return _r().prod(self, axis, dtype, out, keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        return _r().min(self, axis, out, keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        return _r().max(self, axis, out, keepdims)

    def argmin(self, axis=None, out=None, keepdims=False):
        return _r().argmin(self, axis, out, keepdims=keepdims)

    def argmax(self, axis=None, out=None, keepdims=False):
        return _r().argmax(self, axis, out, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return _r().mean(self, axis, dtype, out, keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _r().var(self, axis, dtype, out, ddof, keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _r().std(self, axis, dtype, out, ddof, keepdims)

    def any(self, axis=None, out=None, keepdims=False):
        return _r().any(self, axis, out, keepdims)

    def all(self, axis=None, out=None, keepdims=False):
        return _r().all(self, axis, out, keepdims)

    def clip(self, min=None, max=None, out=None, **kwargs):
        from gpuscipy_core._routines._math import clip
        return clip(self, min, max, out=out, **kwargs)

    def conj(self):
        """Complex conjugate (the array itself for real dtypes, as in NumPy)."""
        if self.dtype.kind != "c":
            return self
        return _u.conjugate(self)

    def conjugate(self):
        return self.conj()

    def round(self, decimals=0, out=None):
        from gpuscipy_core._routines._math import round as _round
        return _round(self, decimals, out)

    # ---- methods that forward to the routines modules ---------------
    def take(self, indices, axis=None, out=None, mode="raise"):
        return _routine("_indexing", "take")(self, indices, axis=axis, out=out, mode=mode)

    def put(self, indices, values, mode="raise"):
        return _routine("_indexing", "put")(self, indices, values, mode=mode)

    def nonzero(self):
        return _routine("_compaction", "nonzero")(self)

    def compress(self, condition, axis=None, out=None):
        return _routine("_compaction", "compress")(condition, self, axis=axis, out=out)

    def repeat(self, repeats, axis=None):
        return _routine("_manipulation", "repeat")(self, repeats, axis=axis)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return _routine("_manipulation", "diagonal")(self, offset, axis1, axis2)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        return _routine("_manipulation", "trace")(self, offset, axis1, axis2, dtype, out)

    def sort(self, axis=-1, kind=None, order=None, *, stable=None):
        """Sort in place (``numpy.ndarray.sort``)."""
        _routine("_sorting", "sort_inplace")(self, axis=axis, kind=kind, order=order,
                                               stable=stable)

    def argsort(self, axis=-1, kind=None, order=None, *, stable=None):
        return _routine("_sorting", "argsort")(self, axis=axis, kind=kind, order=order,
                                                stable=stable)

    def partition(self, kth, axis=-1, kind="introselect", order=None):
        """Partition in place (``numpy.ndarray.partition``)."""
        _routine("_sorting", "partition_inplace")(self, kth, axis=axis, kind=kind,
                                                    order=order)

    def argpartition(self, kth, axis=-1, kind="introselect", order=None):
        return _routine("_sorting", "argpartition")(self, kth, axis=axis, kind=kind,
                                                     order=order)

    def searchsorted(self, v, side="left", sorter=None):
        return _routine("_sorting", "searchsorted")(self, v, side=side, sorter=sorter)

    def cumsum(self, axis=None, dtype=None, out=None):
        return _routine("_scan", "cumsum")(self, axis=axis, dtype=dtype, out=out)

    def cumprod(self, axis=None, dtype=None, out=None):
        return _routine("_scan", "cumprod")(self, axis=axis, dtype=dtype, out=out)

    def dot(self, b, out=None):
        return _routine("_linalg", "dot")(self, b, out=out)

    def __matmul__(self, other):
        return _routine("_linalg", "_matmul_operator")(self, other, False)

    def __rmatmul__(self, other):
        return _routine("_linalg", "_matmul_operator")(self, other, True)

    def __imatmul__(self, other):
        return _routine("_linalg", "matmul")(self, other, out=self)

    def __reduce__(self):
        from gpuscipy_core._routines._creation import array
        return (array, (self.get(),))


class _DataPointer:
    __slots__ = ("ptr", "mem")

    def __init__(self, ptr, mem):
        self.ptr = ptr
        self.mem = mem

    def __int__(self):
        return self.ptr

    def __repr__(self):
        return f"<device pointer {self.ptr:#x}>"


class _LazyUfuncs:
    def __getattr__(self, name):
        import gpuscipy_core._routines._ufuncs as m
        global _u
        _u = m
        return getattr(m, name)


_u = _LazyUfuncs()
_red = None


def _routine(str module, str name):
    """The function ``name`` of ``gpuscipy_core._routines.<module>``."""
    import importlib
    return getattr(importlib.import_module("gpuscipy_core._routines." + module), name)


def _r():
    global _red
    if _red is None:
        import gpuscipy_core._routines._reduction as m
        _red = m
    return _red


cdef Py_ssize_t _normalize_axis(axis, Py_ssize_t ndim) except -1:
    try:
        a = axis.__index__()
    except AttributeError:
        raise TypeError(f"'{type(axis).__name__}' object cannot be interpreted "
                        "as an integer") from None
    if not -ndim <= a < ndim:
        from numpy.exceptions import AxisError
        raise AxisError(a, ndim)
    return a + ndim if a < 0 else a


cdef ndarray _component_view(ndarray a, int which):
    cdef ndarray v = _make_view(a, a._shape, a._strides,
                                a._ptr + which * (a.itemsize // 2))
    v.dtype = numpy.dtype("f4" if a.dtype.char == "F" else "f8")
    v.itemsize = v.dtype.itemsize
    v._set_layout(a._shape, a._strides)
    return v


def _reshape(ndarray a, shape, order, bint allow_k=False):
    cdef ndarray src
    if order not in ("C", "F", "A", "c", "f", "a") and not (
            allow_k and order in ("K", "k")):
        raise ValueError(f"order must be 'C', 'F' or 'A', got {order!r}")
    order = order.upper()
    if order in ("A", "K"):
        order = "F" if a._f_contig and not a._c_contig else "C"
    cdef tuple shp
    if hasattr(shape, "__index__"):
        shape = (shape,)
    shp = tuple(_as_int(s) for s in shape)
    neg = [i for i, s in enumerate(shp) if s < 0]
    known = 1
    for s in shp:
        if s >= 0:
            known *= s
    if len(neg) > 1:
        raise ValueError("can only specify one unknown dimension")
    if neg:
        if shp[neg[0]] != -1:
            raise ValueError("negative dimensions are not allowed")
        if known == 0 or a.size % known:
            raise ValueError(f"cannot reshape array of size {a.size} into shape "
                             f"{_fmt_shape(shape)}")
        shp = shp[:neg[0]] + (a.size // known,) + shp[neg[0] + 1:]
    elif known != a.size:
        raise ValueError(f"cannot reshape array of size {a.size} into shape "
                         f"{_fmt_shape(shape)}")
    if shp == a._shape:
        return _make_view(a, a._shape, a._strides, a._ptr)
    strides = _reshape_strides(a._shape, a._strides, shp, order, a.itemsize)
    if strides is None:
        src = <ndarray>a.copy(order)
        return _make_view(src, shp, _c_strides(shp, a.itemsize) if order == "C"
                          else _f_strides(shp, a.itemsize), src._ptr)
    return _make_view(a, shp, strides, a._ptr)


def _fmt_shape(shape):
    return str(tuple(shape)).replace(" ", "")


def _as_int(s):
    try:
        return s.__index__()
    except AttributeError:
        raise TypeError(f"'{type(s).__name__}' object cannot be interpreted as an "
                        "integer") from None


def _reshape_strides(tuple old_shape, tuple old_strides, tuple new_shape, str order,
                     Py_ssize_t itemsize):
    """Strides of a view with ``new_shape`` or None when a copy is needed
    (the classic in-place reshape test: NumPy's ``_attempt_nocopy_reshape``
    algorithm, reimplemented)."""
    cdef Py_ssize_t size = 1
    for s in new_shape:
        size *= s
    if size == 0:
        return (_c_strides if order == "C" else _f_strides)(new_shape, itemsize)
    olds = [(d, s) for d, s in zip(old_shape, old_strides) if d != 1]
    if order == "F":
        olds = olds[::-1]
        news = list(new_shape)[::-1]
    else:
        news = list(new_shape)
    new_strides = [0] * len(news)
    oi = 0
    ni = 0
    no = len(olds)
    nn = len(news)
    while ni < nn and oi < no:
        np_ = news[ni]
        op = olds[oi][0]
        nj = ni + 1
        oj = oi + 1
        while np_ != op:
            if np_ < op:
                np_ *= news[nj]
                nj += 1
            else:
                op *= olds[oj][0]
                oj += 1
        for k in range(oi, oj - 1):
            if olds[k][1] != olds[k + 1][0] * olds[k + 1][1]:
                return None
        new_strides[nj - 1] = olds[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            new_strides[k - 1] = new_strides[k] * news[k]
        ni = nj
        oi = oj
    last = new_strides[ni - 1] if ni > 0 else itemsize
    for k in range(ni, nn):
        new_strides[k] = last
    # axes of length 1 that were skipped keep a harmless stride
    if order == "F":
        new_strides = new_strides[::-1]
    return tuple(new_strides)


def _basic_index(ndarray a, key):
    """The view ``a[key]`` for a basic key (integers, slices, None,
    Ellipsis); None when the key holds an integer or boolean array (advanced
    indexing, done by ``_routines._indexing``)."""
    if not isinstance(key, tuple):
        key = (key,)
    cdef Py_ssize_t n_ell = 0, n_new = 0, n_idx = 0, nd = len(a._shape)
    for k in key:
        if k is Ellipsis:
            n_ell += 1
        elif k is None:
            n_new += 1
        elif isinstance(k, slice):
            n_idx += 1
        elif isinstance(k, (bool, numpy.bool_, ndarray, numpy.ndarray, list, tuple)):
            return None
        elif isinstance(k, int) or hasattr(k, "__index__"):
            n_idx += 1
        elif hasattr(k, "__cuda_array_interface__"):
            return None
        else:
            raise IndexError(_INVALID_INDEX)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_idx > nd:
        raise IndexError(f"too many indices for array: array is {nd}-dimensional, "
                         f"but {n_idx} were indexed")
    shape = []
    strides = []
    cdef Py_ssize_t ptr = a._ptr
    cdef Py_ssize_t dim = 0, i, length, stride
    for k in key:
        if k is Ellipsis:
            for _ in range(nd - n_idx):
                shape.append(a._shape[dim])
                strides.append(a._strides[dim])
                dim += 1
        elif k is None:
            shape.append(1)
            strides.append(0)
        elif isinstance(k, slice):
            length = a._shape[dim]
            stride = a._strides[dim]
            start, stop, step = k.indices(length)
            cnt = len(range(start, stop, step))
            if cnt:
                ptr += start * stride
            shape.append(cnt)
            strides.append(stride * step)
            dim += 1
        else:
            i = k.__index__()
            length = a._shape[dim]
            if not -length <= i < length:
                raise IndexError(f"index {i} is out of bounds for axis {dim} with "
                                 f"size {length}")
            if i < 0:
                i += length
            ptr += i * a._strides[dim]
            dim += 1
    while dim < nd:
        shape.append(a._shape[dim])
        strides.append(a._strides[dim])
        dim += 1
    return _make_view(a, tuple(shape), tuple(strides), <size_t>ptr)


_INVALID_INDEX = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                  "(`None`) and integer or boolean arrays are valid indices")


def _strided_view(ndarray a, tuple shape, tuple strides, size_t ptr):
    """A view of ``a``'s memory with arbitrary shape and byte strides (internal)."""
    return _make_view(a, shape, strides, ptr)
