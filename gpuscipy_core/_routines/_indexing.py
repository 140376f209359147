"""Advanced indexing and index routines: take, put, take_along_axis, ...

Every routine here is one gather or scatter kernel (``gpuscipy/index.cuh``):
the result (or the assigned region) is walked in C order; each element's
source offset is the sum of a strided part (the sliced axes) and, per index
array, ``index * axis_stride``. Data moves as raw words of the element size,
so one kernel serves every dtype of one itemsize; values are converted to the
destination dtype before a scatter. Index arrays of any integer dtype are
read as they are (no conversion pass), with NumPy's negative indices.

Bounds: index arrays that come from the host (lists, NumPy arrays) are
checked on the host before upload, at no device cost. Device index arrays
are checked by the kernel itself: an out-of-bounds index sets a device flag
(the first failing element in C order wins, through ``atomicMax``) and the
host reads the 8-byte flag back once, which is the one synchronisation an
advanced index with ``mode='raise'`` costs. ``mode='wrap'``/``'clip'`` never
synchronise.
"""

import functools
import operator
import struct

import numpy

from .._cuda._device import device_limits
from .._ndarray import ndarray, _basic_index
from .._elementwise import broadcast_shapes, _scalar_bytes, run_elementwise
from ._scan import _normalize_axis

__all__ = ["take", "put", "take_along_axis", "put_along_axis", "choose",
           "diag_indices", "tril_indices", "triu_indices", "indices", "ix_"]

_VALID = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
          "and integer or boolean arrays are valid indices")
_ARRAY_TYPE = "arrays used as indices must be of integer (or boolean) type"
_MODES = {"raise": 0, "wrap": 1, "clip": 2}
_MODE_NAMES = {0: "raise", 1: "wrap", 2: "clip"}
_INTP = numpy.dtype(numpy.intp)


# ---------------------------------------------------------------- sources

def _word(itemsize):
    if itemsize not in (1, 2, 4, 8, 16):
        raise TypeError(f"unsupported itemsize {itemsize}")
    return itemsize


def _idx_ctype(dt):
    from .._kernel._ufunc_names import ctype
    return ctype(numpy.dtype(dt))


@functools.lru_cache(maxsize=1024)
def gather_source(itemsize, idx_dtype, ndim, nidx, mode, index32=True):
    """``(name, source)`` of the gather kernel for ``itemsize``-byte elements,
    index arrays of ``idx_dtype``, ``ndim`` result dimensions, ``nidx`` index
    arrays and ``mode`` (0 raise, 1 wrap, 2 clip). Pure: no device access."""
    idt = numpy.dtype(idx_dtype)
    name = (f"gs_gather_w{_word(itemsize)}_{idt.str[1:]}_d{ndim}_k{nidx}_"
            f"{_MODE_NAMES[mode]}{'' if index32 else '_i64'}")
    ix = "unsigned int" if index32 else "unsigned long long"
    src = ("#include <gpuscipy/index.cuh>\n"
           f'extern "C" __global__ void __launch_bounds__(256) {name}('
           f"const gs::idx::Params<{ndim}, {nidx}> p) {{\n"
           f"  gs::idx::gather<{itemsize}, {_idx_ctype(idt)}, {ndim}, {nidx}, {mode}, "
           f"{ix}>(p);\n}}\n")
    return name, src


@functools.lru_cache(maxsize=1024)
def scatter_source(itemsize, idx_dtype, ndim, nidx, mode, scalar, index32=True):
    """``(name, source)`` of the scatter kernel (``scalar``: the value is one
    element carried in the parameters). Pure: no device access."""
    idt = numpy.dtype(idx_dtype)
    name = (f"gs_scatter_w{_word(itemsize)}_{idt.str[1:]}_d{ndim}_k{nidx}_"
            f"{_MODE_NAMES[mode]}{'_s' if scalar else ''}{'' if index32 else '_i64'}")
    ix = "unsigned int" if index32 else "unsigned long long"
    src = ("#include <gpuscipy/index.cuh>\n"
           f'extern "C" __global__ void __launch_bounds__(256) {name}('
           f"const gs::idx::Params<{ndim}, {nidx}> p) {{\n"
           f"  gs::idx::scatter<{itemsize}, {_idx_ctype(idt)}, {ndim}, {nidx}, {mode}, "
           f"{'true' if scalar else 'false'}, {ix}>(p);\n}}\n")
    return name, src


@functools.lru_cache(maxsize=1024)
def remap_source(itemsize, ndim, index32=True):
    """``(name, source)`` of the remap kernel (pad, roll, tile, repeat)."""
    name = f"gs_remap_w{_word(itemsize)}_d{ndim}{'' if index32 else '_i64'}"
    ix = "unsigned int" if index32 else "unsigned long long"
    src = ("#include <gpuscipy/index.cuh>\n"
           f'extern "C" __global__ void __launch_bounds__(256) {name}('
           f"const gs::idx::RemapParams<{ndim}> p) {{\n"
           f"  gs::idx::remap<{itemsize}, {ndim}, {ix}>(p);\n}}\n")
    return name, src


# ---------------------------------------------------------------- launch

def _grid(n):
    s = device_limits().sm_count
    return max(1, min((n + 255) // 256, s * 32))


def _pack(values):
    """Little-endian int64 words (pointers above 2**63 wrap, as C would)."""
    return struct.pack(f"<{len(values)}q",
                       *[v - (1 << 64) if v >= (1 << 63) else v for v in values])


def _launch(name, src, n, blob):
    from .._kernel._module import get_function
    f = get_function(src, name)
    f(_grid(n), 256, (blob,))


def _index32(n, *arrays):
    return n < 2**31 - 2**26


class _Flag:
    """The device-side out-of-bounds flag (one uint64, zeroed on the stream)."""

    def __init__(self):
        from ._creation import zeros
        self.array = zeros((1,), numpy.uint64)

    def first_error(self, nidx):
        """None, or (result element, index array) of the first failure."""
        v = int(self.array.get()[0])
        if v == 0:
            return None
        key = (2**63 - 1) - v
        return divmod(key, nidx)


def _params(shape, base, base_strides, other, other_strides, idx, flag_ptr,
            scalar=b""):
    """Pack ``gs::idx::Params<ND, NI>``. ``idx``: list of
    ``(array, strides per result dim, axis length, axis stride)``."""
    nd = max(len(shape), 1)
    if not shape:
        shape, base_strides, other_strides = (1,), (0,), (0,)
        idx = [(a, (0,), ln, st) for a, _, ln, st in idx]
    n = 1
    for s in shape:
        n *= s
    words = [n, *shape, *base_strides, *other_strides]
    for _, st, _, _ in idx:
        words += list(st)
    words += [ln for _, _, ln, _ in idx]
    words += [st for _, _, _, st in idx]
    words += [a.ptr for a, _, _, _ in idx]
    words += [base, other, flag_ptr]
    sc = (scalar + b"\0" * 16)[:16]
    return nd, n, _pack(words) + sc


def _common_index_dtype(idx):
    """The one dtype of the index arrays of a launch. Callers unify the
    dtypes *before* computing the per-result-dim strides (a cast copy has
    strides of its own), see :func:`_unify_index_dtypes`."""
    dts = {a.dtype for a, _, _, _ in idx}
    if len(dts) != 1:
        raise RuntimeError("internal error: index arrays of one launch must share "
                           f"a dtype, got {sorted(str(d) for d in dts)}")
    return idx, dts.pop()


def _unify_index_dtypes(arrays):
    """``(array, ...)`` tuples with the arrays cast to one dtype (int64 when
    they differ), so one kernel reads all of them."""
    if len({x.dtype for x, *_ in arrays}) <= 1:
        return arrays
    return [(x.astype(numpy.int64), *rest) for x, *rest in arrays]


def _kernel_mode(mode, check):
    """Host-checked indices are all in ``[-len, len)``, where wrapping is
    the same as NumPy's negative indexing: no flag, no synchronisation."""
    return 1 if mode == 0 and not check else mode


def _run_gather(shape, base, base_strides, out, out_strides, idx, mode, itemsize,
                check=True):
    """out[...] = base[...] through index arrays. Returns ``(flag or None,
    index list as launched)``."""
    idx, idt = _common_index_dtype(idx)
    kmode = _kernel_mode(mode, check)
    flag = _Flag() if kmode == 0 else None
    nd, n, blob = _params(shape, base, base_strides, out, out_strides, idx,
                          flag.array.ptr if flag is not None else 0)
    if n == 0:
        return None, idx
    name, src = gather_source(itemsize, idt, nd, len(idx), kmode, _index32(n))
    _launch(name, src, n, blob)
    return flag, idx


def _run_scatter(shape, base, base_strides, value, value_strides, idx, mode, itemsize,
                 scalar=None, check=True):
    """base[...] = value (or the scalar bytes) through index arrays."""
    idx, idt = _common_index_dtype(idx)
    kmode = _kernel_mode(mode, check)
    flag = _Flag() if kmode == 0 else None
    nd, n, blob = _params(shape, base, base_strides,
                          0 if value is None else value.ptr, value_strides, idx,
                          flag.array.ptr if flag is not None else 0,
                          scalar if scalar is not None else b"")
    if n == 0:
        return None, idx
    name, src = scatter_source(itemsize, idt, nd, len(idx), kmode, scalar is not None,
                               _index32(n))
    _launch(name, src, n, blob)
    return flag, idx


def _raise_first(flag, idx, shape, axes):
    """Raise NumPy's IndexError for the first out-of-bounds index, if any.
    ``axes[k]``: the axis number reported for index array k."""
    if flag is None:
        return
    err = flag.first_error(len(idx))
    if err is None:
        return
    i, k = err
    a, st, ln, _ = idx[k]
    coords = numpy.unravel_index(i, shape) if shape else ()
    off = sum(c * s for c, s in zip(coords, st))
    from .._ndarray import _strided_view
    val = _strided_view(a, (), (), a.ptr + off).get()[()]
    raise IndexError(f"index {int(val)} is out of bounds for axis {axes[k]} "
                     f"with size {ln}")


# ---------------------------------------------------------------- helpers

def _c_strides(shape, itemsize):
    st = []
    s = itemsize
    for d in reversed(shape):
        st.append(s)
        s *= max(d, 1)
    return tuple(reversed(st))


def _bcast_strides(a, shape):
    """Byte strides of ``a`` broadcast (right-aligned) to ``shape``."""
    off = len(shape) - a.ndim
    st = [0] * len(shape)
    for d in range(a.ndim):
        if a.shape[d] != 1:
            st[off + d] = a.strides[d]
    return st


def _asdevice(x, dtype=None):
    from ._creation import asarray
    return asarray(x, dtype=dtype)


def _fmt(shape):
    return str(tuple(shape)).replace(" ", "")


def _host_index(h):
    """A host index array: integer, or bool; empty float lists become intp."""
    if h.dtype.kind in "iub":
        return h
    if h.size == 0 and h.dtype.kind == "f":
        return h.astype(_INTP)
    raise IndexError(_ARRAY_TYPE)


def _host_bounds(h, length, axis):
    if h.size:
        lo, hi = int(h.min()), int(h.max())
        if hi >= length:
            bad = int(h.reshape(-1)[numpy.argmax(h.reshape(-1) >= length)])
            raise IndexError(f"index {bad} is out of bounds for axis {axis} "
                             f"with size {length}")
        if lo < -length:
            bad = int(h.reshape(-1)[numpy.argmax(h.reshape(-1) < -length)])
            raise IndexError(f"index {bad} is out of bounds for axis {axis} "
                             f"with size {length}")


def _contig(h):
    """``h`` C-contiguous, keeping its rank (``numpy.ascontiguousarray``
    turns a 0-d array into a 1-d one, which would change result shapes)."""
    return h if h.flags.c_contiguous else h.copy(order="C")


def _same_memory(x, y):
    """True when device arrays ``x`` and ``y`` live in the same allocation
    (a write to one may change the other)."""
    return x.data.mem is y.data.mem


def _nonzero(mask):
    """``nonzero`` of a device bool array (the compaction routine; a host
    round trip when that module does not provide one yet)."""
    from . import _compaction
    nz = getattr(_compaction, "nonzero", None)
    if nz is not None:
        return tuple(nz(mask))
    return tuple(_asdevice(_contig(x)) for x in numpy.nonzero(mask.get()))


# ---------------------------------------------------------------- plan

class _Plan:
    """A parsed advanced index: the basic view, the index arrays (each with
    the axis of the view it selects along), the broadcast index shape and
    where it goes in the result."""

    __slots__ = ("view", "arrays", "bshape", "insert", "slice_dims", "checked")


def _classify(a, key):
    items = []
    consumed = 0
    n_ell = 0
    for k in key:
        if k is None:
            items.append(("none", None))
        elif k is Ellipsis:
            n_ell += 1
            items.append(("ell", None))
        elif isinstance(k, slice):
            items.append(("slice", k))
            consumed += 1
        elif isinstance(k, (bool, numpy.bool_)):
            items.append(("bool", numpy.asarray(bool(k))))
        elif isinstance(k, ndarray):
            if k.dtype.kind == "b":
                items.append(("bool", k))
                consumed += k.ndim
            elif k.dtype.kind in "iu":
                items.append(("arr", k))
                consumed += 1
            else:
                raise IndexError(_ARRAY_TYPE)
        elif isinstance(k, numpy.ndarray):
            h = _host_index(k)
            if h.dtype.kind == "b":
                items.append(("bool", h))
                consumed += h.ndim
            else:
                items.append(("arr", h))
                consumed += 1
        elif isinstance(k, (list, tuple)):
            try:
                h = numpy.asarray(k)
            except (ValueError, TypeError):
                raise IndexError(_VALID) from None
            if h.dtype.kind not in "iubf" or (h.dtype.kind == "f" and h.size):
                raise IndexError(_VALID)
            h = _host_index(h)
            if h.dtype.kind == "b":
                items.append(("bool", h))
                consumed += h.ndim
            else:
                items.append(("arr", h))
                consumed += 1
        elif hasattr(k, "__index__"):
            items.append(("int", operator.index(k)))
            consumed += 1
        elif hasattr(k, "__cuda_array_interface__"):
            d = _asdevice(k)
            if d.dtype.kind not in "iub":
                raise IndexError(_ARRAY_TYPE)
            items.append(("bool" if d.dtype.kind == "b" else "arr", d))
            consumed += d.ndim if d.dtype.kind == "b" else 1
        else:
            raise IndexError(_VALID)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, "
                         f"but {consumed} were indexed")
    return items, consumed


def _plan(a, key):
    """Parse an advanced ``key`` for array ``a`` into a :class:`_Plan`."""
    if not isinstance(key, tuple):
        key = (key,)
    items, consumed = _classify(a, key)
    basic = []
    arrays = []        # (device or host array, view dim, axis of a)
    ints = []          # Python ints taking part in the broadcast (shape ())
    positions = []
    dim = 0            # axis of a
    vdim = 0           # axis of the view
    first_slice_dims = None
    slice_count = 0    # view dims that stay in the result, so far
    for pos, (kind, k) in enumerate(items):
        if kind in ("arr", "bool", "int") and first_slice_dims is None:
            first_slice_dims = slice_count
        if kind == "slice":
            basic.append(k)
            dim += 1
            vdim += 1
            slice_count += 1
        elif kind == "none":
            basic.append(None)
            vdim += 1
            slice_count += 1
        elif kind == "ell":
            for _ in range(a.ndim - consumed):
                basic.append(slice(None))
                dim += 1
                vdim += 1
                slice_count += 1
        elif kind == "int":
            basic.append(k)
            ints.append(k)
            positions.append(pos)
            dim += 1
        elif kind == "arr":
            basic.append(slice(None))
            arrays.append((k, vdim, dim))
            positions.append(pos)
            dim += 1
            vdim += 1
        else:  # bool
            positions.append(pos)
            if k.ndim == 0:
                basic.append(None)
                h = numpy.zeros((1 if bool(k) else 0,), _INTP)
                arrays.append((h, vdim, dim))
                vdim += 1
                continue
            for j in range(k.ndim):
                if a.shape[dim + j] != k.shape[j]:
                    raise IndexError(
                        f"boolean index did not match indexed array along axis "
                        f"{dim + j}; size of axis is {a.shape[dim + j]} but size of "
                        f"corresponding boolean axis is {k.shape[j]}")
            if isinstance(k, ndarray):
                parts = _nonzero(k)
            else:
                parts = numpy.nonzero(k)
            for j, p in enumerate(parts):
                basic.append(slice(None))
                arrays.append((p, vdim, dim))
                dim += 1
                vdim += 1
    while dim < a.ndim:
        basic.append(slice(None))
        dim += 1
    view = _basic_index(a, tuple(basic))
    # host arrays: bounds on the host, then upload
    checked = True
    dev_arrays = []
    for arr, vd, ax in arrays:
        if isinstance(arr, numpy.ndarray):
            _host_bounds(arr, view.shape[vd], ax)
            arr = _asdevice(_contig(arr))
        else:
            checked = False
        dev_arrays.append((arr, vd, ax))
    dev_arrays = _unify_index_dtypes(dev_arrays)
    try:
        bshape = broadcast_shapes(*[x.shape for x, _, _ in dev_arrays], *[()] * len(ints))
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast "
                         "together with shapes "
                         + "".join(_fmt(x.shape) + " " for x, _, _ in dev_arrays)) \
            from None
    adjacent = positions == list(range(positions[0], positions[0] + len(positions)))
    p = _Plan()
    p.view = view
    p.arrays = dev_arrays
    p.bshape = bshape
    adv_vdims = {vd for _, vd, _ in dev_arrays}
    p.slice_dims = [d for d in range(view.ndim) if d not in adv_vdims]
    p.insert = first_slice_dims if adjacent else 0
    p.checked = checked
    return p


def _layout(plan):
    """Result shape, per-result-dim view strides, and the index list for the
    kernels (index strides per result dim, axis length, axis stride)."""
    v = plan.view
    nb = len(plan.bshape)
    sd = plan.slice_dims
    ins = plan.insert
    shape = ([v.shape[d] for d in sd[:ins]] + list(plan.bshape)
             + [v.shape[d] for d in sd[ins:]])
    base_st = ([v.strides[d] for d in sd[:ins]] + [0] * nb
               + [v.strides[d] for d in sd[ins:]])
    idx = []
    for arr, vd, _ in plan.arrays:
        bst = _bcast_strides(arr, plan.bshape)
        st = [0] * ins + bst + [0] * (len(sd) - ins)
        idx.append((arr, tuple(st), v.shape[vd], v.strides[vd]))
    return tuple(shape), tuple(base_st), idx


def _advanced_getitem(a, key):
    """``a[key]`` for a key with integer/boolean arrays (a new array)."""
    from ._creation import empty
    plan = _plan(a, key)
    shape, base_st, idx = _layout(plan)
    out = empty(shape, a.dtype)
    flag, idx = _run_gather(shape, plan.view.ptr, base_st, out.ptr,
                            _c_strides(shape, a.itemsize), idx, 0, a.itemsize,
                            check=not plan.checked)
    _raise_first(flag, idx, shape, [ax for _, _, ax in plan.arrays])
    return out


def _value_operand(value, dt, shape):
    """(device array or None, scalar bytes or None) of a setitem value
    converted to ``dt`` and checked against the result ``shape``."""
    if isinstance(value, ndarray):
        if value.ndim == 0:
            v = value.astype(dt, copy=False)
            return v, None
        v = value
    elif isinstance(value, (int, float, complex, bool, numpy.generic)):
        return None, _scalar_bytes(value, dt)
    elif hasattr(value, "__cuda_array_interface__"):
        v = _asdevice(value)
    else:
        if isinstance(value, numpy.ndarray):
            h = value
        else:
            h = numpy.asarray(value)
            if h.dtype.kind in "iufcb" and h.dtype != dt:
                h = numpy.array(value, dtype=dt)
        if h.dtype.kind in "OSUVMm":
            raise TypeError(f"dtype {h.dtype!r} is not supported by gpuscipy")
        if h.ndim == 0:
            return None, _scalar_bytes(h[()], dt)
        v = _asdevice(_contig(h.astype(dt, copy=False)))
    # leading length-1 axes beyond the result's rank are dropped (NumPy)
    vs = v.shape
    while len(vs) > len(shape) and vs[0] == 1:
        vs = vs[1:]
    try:
        ok = len(vs) <= len(shape) and broadcast_shapes(vs, shape) == tuple(shape)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"shape mismatch: value array of shape {_fmt(v.shape)} could "
                         "not be broadcast to indexing result of shape "
                         f"{_fmt(shape)}")
    if vs != v.shape:
        v = v.reshape(vs)
    if v.dtype != dt:
        v = v.astype(dt)
    return v, None


def _mask_fast_path(a, key, value):
    """``a[mask] = scalar`` without compaction: one masked elementwise write.
    Returns True when it applied."""
    if isinstance(key, tuple):
        if len(key) != 1:
            return False
        key = key[0]
    if not (isinstance(key, ndarray) and key.dtype.kind == "b" and 0 < key.ndim <= a.ndim
            and key.shape == a.shape[:key.ndim]):
        return False
    is_scalar = isinstance(value, (int, float, complex, bool, numpy.generic)) or (
        isinstance(value, numpy.ndarray) and value.ndim == 0)
    dev_scalar = isinstance(value, ndarray) and value.ndim == 0
    if not (is_scalar or dev_scalar):
        return False
    if a.size == 0:
        return True
    m = key.reshape(key.shape + (1,) * (a.ndim - key.ndim))
    from .._elementwise import ctype
    code = a.dtype.str[1:]
    if dev_scalar:
        run_elementwise(f"gs_maskset_{code}_{value.dtype.str[1:]}",
                        (("in", m.dtype, "m"), ("in", value.dtype, "v"),
                         ("out", a.dtype, "y")),
                        f"if (m) y = gs::cast<{ctype(a.dtype)}>(v);",
                        [m, value, a], a.shape, False)
    else:
        sv = value[()] if isinstance(value, numpy.ndarray) else value
        run_elementwise(f"gs_maskset_{code}_s",
                        (("in", m.dtype, "m"), ("scalar", a.dtype, "v"),
                         ("out", a.dtype, "y")),
                        "if (m) y = v;", [m, _scalar_bytes(sv, a.dtype), a],
                        a.shape, False)
    return True


def _advanced_setitem(a, key, value):
    """``a[key] = value`` for a key with integer/boolean arrays."""
    if _mask_fast_path(a, key, value):
        return
    plan = _plan(a, key)
    # index arrays that share memory with ``a`` are copied before the layout
    # is computed (the copy has strides of its own)
    plan.arrays = [(x.copy() if _same_memory(x, a) else x, vd, ax)
                   for x, vd, ax in plan.arrays]
    shape, base_st, idx = _layout(plan)
    v, sc = _value_operand(value, a.dtype, shape)
    if v is not None and _same_memory(v, a):
        v = v.copy()
    vst = _bcast_strides(v, shape) if v is not None else [0] * len(shape)
    flag, idx = _run_scatter(shape, plan.view.ptr, base_st, v, vst, idx, 0, a.itemsize,
                             scalar=sc, check=not plan.checked)
    _raise_first(flag, idx, shape, [ax for _, _, ax in plan.arrays])


# ---------------------------------------------------------------- routines

def _mode(mode):
    m = _MODES.get(mode)
    if m is None:
        raise ValueError("clipmode must be one of 'clip', 'raise', or 'wrap' "
                         f"(got {mode!r})")
    return m


def _index_operand(indices, length, axis, mode):
    """(device integer index array, host-checked) for take/put/choose."""
    if isinstance(indices, ndarray):
        if indices.dtype.kind not in "iu":
            if indices.dtype.kind == "b":
                return indices.astype(_INTP), False
            raise TypeError(f"Cannot cast array data from {indices.dtype!r} to "
                            "dtype('int64') according to the rule 'safe'")
        return indices, False
    if hasattr(indices, "__cuda_array_interface__"):
        return _index_operand(_asdevice(indices), length, axis, mode)
    h = numpy.asarray(indices)
    if h.dtype.kind not in "iub":
        if h.size == 0:
            h = h.astype(_INTP)
        else:
            raise TypeError(f"Cannot cast array data from {h.dtype!r} to "
                            f"dtype('int64') according to the rule 'safe'")
    if mode == 0:
        _host_bounds(h, length, axis)
    return _asdevice(_contig(h.astype(_INTP, copy=False))), mode == 0


def take(a, indices, axis=None, out=None, mode="raise"):
    """Take elements of ``a`` along an axis (``numpy.take``).

    Parameters
    ----------
    a : ndarray or array_like
        Source array, any dtype and layout.
    indices : array_like of int
        Indices (device or host, any integer dtype, any shape).
    axis : int, optional
        Axis to take along; the flattened array when None.
    out : ndarray, optional
        Destination of the result's shape (cast unsafely to its dtype).
    mode : {'raise', 'wrap', 'clip'}

    Returns
    -------
    ndarray
        Shape ``a.shape[:axis] + indices.shape + a.shape[axis+1:]``.

    Raises
    ------
    IndexError
        An index out of bounds with ``mode='raise'`` (one synchronisation
        when ``indices`` is a device array); a non-empty take from an empty
        axis.
    ValueError
        Unknown ``mode``.
    """
    from ._creation import empty
    a = _asdevice(a)
    m = _mode(mode)
    if axis is None:
        a = a.reshape(-1)
        axis = 0
    else:
        axis = _normalize_axis(axis, a.ndim)
    length = a.shape[axis]
    idx, checked = _index_operand(indices, length, axis, m)
    if length == 0 and idx.size and m != 0:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    shape = a.shape[:axis] + idx.shape + a.shape[axis + 1:]
    nb = idx.ndim
    base_st = a.strides[:axis] + (0,) * nb + a.strides[axis + 1:]
    ist = (0,) * axis + tuple(_bcast_strides(idx, idx.shape)) + (0,) * (a.ndim - axis - 1)
    if out is not None:
        if not isinstance(out, ndarray):
            raise TypeError("output must be an array")
        if out.shape != shape:
            raise ValueError("output array does not match result of ndarray.take")
    dst = out if out is not None and out.dtype == a.dtype else empty(shape, a.dtype)
    flag, idxl = _run_gather(shape, a.ptr, base_st, dst.ptr, dst.strides,
                             [(idx, ist, length, a.strides[axis])], m, a.itemsize,
                             check=not checked)
    _raise_first(flag, idxl, shape, [axis])
    if out is not None and dst is not out:
        out[...] = dst
        return out
    return dst


def put(a, ind, v, mode="raise"):
    """Set ``a.flat[ind] = v`` (``numpy.put``); ``v`` repeats cyclically when
    shorter than ``ind``.

    Raises
    ------
    TypeError
        ``a`` is not a device array.
    IndexError
        An index out of bounds with ``mode='raise'``.
    """
    from ._creation import arange
    if not isinstance(a, ndarray):
        raise TypeError(f"argument 1 must be gpuscipy_core.ndarray, not {type(a)}")
    m = _mode(mode)
    n = a.size
    idx, checked = _index_operand(ind, n, 0, m)
    idx = idx.reshape(-1)
    if n == 0 and idx.size and m != 0:
        raise IndexError("cannot replace elements of an empty array")
    sc = None
    if isinstance(v, ndarray):
        vals = v.reshape(-1)
    else:
        h = numpy.asarray(v)
        if h.size == 0:
            return None
        vals = None
        if h.size == 1:
            sc = _scalar_bytes(h.reshape(-1)[0], a.dtype)
        else:
            vals = _asdevice(_contig(numpy.array(h, dtype=a.dtype).reshape(-1)))
    if isinstance(v, ndarray):
        if vals.size == 0:
            return None
        if vals.dtype != a.dtype:
            vals = vals.astype(a.dtype)
    if idx.size == 0:
        return None
    k = idx.size
    if vals is not None:
        if vals.size == 1:
            vals = vals.reshape(())
        elif vals.size < k:
            vals = take(vals, arange(k), mode="wrap")
        elif vals.size > k:
            vals = vals[:k]
        if _same_memory(vals, a):
            vals = vals.copy()
    target = a if a.flags.c_contiguous else a.copy()
    flat = target.reshape(-1)
    if _same_memory(idx, a):
        idx = idx.copy()
    vst = (vals.strides[0] if vals is not None and vals.ndim else 0,)
    flag, idxl = _run_scatter((k,), flat.ptr, (0,), vals, vst,
                              [(idx, (idx.strides[0],), n, a.itemsize)], m,
                              a.itemsize, scalar=sc, check=not checked)
    _raise_first(flag, idxl, (k,), [0])
    if target is not a:
        a[...] = target
    return None


def _along_axis_args(arr, indices, axis):
    """``(idx, axis)`` of take/put_along_axis: the indices as a device
    integer array and ``axis`` normalised (None stays None), with NumPy's
    errors (IndexError for non-integer indices, ValueError for a
    dimension mismatch, AxisError for a bad axis)."""
    idx = indices if isinstance(indices, ndarray) else _asdevice(numpy.asarray(indices))
    if idx.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        if idx.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        return idx, None
    axis = _normalize_axis(axis, arr.ndim)
    if idx.ndim != arr.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    return idx, axis


def _along_axis_shape(a, idx, axis):
    """The broadcast shape of ``a`` (its ``axis`` taken as length 1) and
    ``idx``; NumPy's "shape mismatch" ValueError when they do not broadcast."""
    ashape = a.shape[:axis] + (1,) + a.shape[axis + 1:]
    try:
        return broadcast_shapes(ashape, idx.shape)
    except ValueError:
        raise ValueError("shape mismatch: indexing arrays could not be broadcast "
                         f"together with shapes {_fmt(ashape)} {_fmt(idx.shape)} ") from None


def take_along_axis(arr, indices, axis=-1):
    """Take values from ``arr`` by matching 1-D index and data slices
    (``numpy.take_along_axis``).

    Raises
    ------
    ValueError
        ``indices`` and ``arr`` differ in ndim (axis given) or ``indices``
        is not 1-D (axis None).
    IndexError
        Non-integer indices; out-of-bounds indices.
    """
    from ._creation import empty
    arr = _asdevice(arr)
    idx, axis = _along_axis_args(arr, indices, axis)
    if axis is None:
        arr = arr.reshape(-1)
        axis = 0
    shape = _along_axis_shape(arr, idx, axis)
    base_st = [0 if arr.shape[d] == 1 else arr.strides[d] for d in range(arr.ndim)]
    base_st[axis] = 0
    out = empty(shape, arr.dtype)
    ist = _bcast_strides(idx, shape)
    flag, idxl = _run_gather(shape, arr.ptr, tuple(base_st), out.ptr, out.strides,
                             [(idx, tuple(ist), arr.shape[axis], arr.strides[axis])], 0,
                             arr.itemsize)
    _raise_first(flag, idxl, shape, [axis])
    return out


def put_along_axis(arr, indices, values, axis):
    """Put values into ``arr`` by matching 1-D index and data slices
    (``numpy.put_along_axis``)."""
    if not isinstance(arr, ndarray):
        raise TypeError("put_along_axis needs a gpuscipy_core.ndarray destination")
    idx, axis = _along_axis_args(arr, indices, axis)
    a = arr
    copied = False
    if axis is None:
        copied = not arr.flags.c_contiguous
        a = arr.copy() if copied else arr
        a = a.reshape(-1)
        axis = 0
    shape = _along_axis_shape(a, idx, axis)
    for d in range(a.ndim):
        if d != axis and shape[d] != a.shape[d]:
            raise ValueError(f"shape mismatch: value array of shape {_fmt(idx.shape)} "
                             f"could not be broadcast to indexing result of shape "
                             f"{_fmt(a.shape)}")
    v, sc = _value_operand(values, a.dtype, shape)
    if v is not None and _same_memory(v, a):
        v = v.copy()
    if _same_memory(idx, a):
        idx = idx.copy()
    base_st = list(a.strides)
    base_st[axis] = 0
    vst = _bcast_strides(v, shape) if v is not None else [0] * len(shape)
    flag, idxl = _run_scatter(shape, a.ptr, tuple(base_st), v, vst,
                              [(idx, tuple(_bcast_strides(idx, shape)), a.shape[axis],
                                a.strides[axis])], 0, a.itemsize, scalar=sc)
    _raise_first(flag, idxl, shape, [axis])
    if copied:
        arr[...] = a.reshape(arr.shape)


def choose(a, choices, out=None, mode="raise"):
    """Construct an array from an index array and a list of arrays to choose
    from (``numpy.choose``).

    Raises
    ------
    ValueError
        An index outside ``[0, len(choices))`` with ``mode='raise'``
        ("invalid entry in choice array"); shapes that do not broadcast.
    """
    from ._creation import empty
    m = _mode(mode)
    a = _asdevice(a) if not isinstance(a, ndarray) else a
    if a.dtype.kind not in "iub":
        raise TypeError(f"Cannot cast array data from {a.dtype!r} to dtype('int64') "
                        "according to the rule 'safe'")
    if isinstance(choices, ndarray):
        chs = [choices[i] for i in range(choices.shape[0])]
    else:
        chs = [c if isinstance(c, ndarray) else _asdevice(c) for c in choices]
    nch = len(chs)
    if nch == 0:
        raise ValueError("0-length sequence.")
    dt = numpy.result_type(*[c.dtype for c in chs])
    # NumPy broadcasts the choices first, then ``a`` (its error names them so)
    shape = numpy.broadcast_shapes(*[c.shape for c in chs], a.shape)
    if m == 0:
        # NumPy's raise mode rejects negative entries too (no negative
        # indexing here), so the check is 0 <= a < n: one reduction and one
        # synchronisation; the gather then runs unchecked.
        if a.size:
            from . import _ufuncs
            bad = _ufuncs.logical_or(_ufuncs.less(a, 0), _ufuncs.greater_equal(a, nch))
            if bool(bad.any()):
                raise ValueError("invalid entry in choice array")
        m = 1
    stacked = empty((nch,) + shape, dt)
    for i, c in enumerate(chs):
        stacked[i] = c
    res = empty(shape, dt)
    ist = _bcast_strides(a, shape)
    _run_gather(shape, stacked.ptr, stacked.strides[1:], res.ptr, res.strides,
                [(a, tuple(ist), nch, stacked.strides[0])], m, stacked.itemsize)
    if out is not None:
        out[...] = res
        return out
    return res


def diag_indices(n, ndim=2):
    """Indices of the main diagonal of an ``ndim``-dimensional ``n``-cube."""
    from ._creation import arange
    idx = arange(n)
    return (idx,) * ndim


def tril_indices(n, k=0, m=None):
    """Indices of the lower triangle of an ``(n, m)`` array (row-major order)."""
    r, c = numpy.tril_indices(n, k, m)
    return _asdevice(r), _asdevice(c)


def triu_indices(n, k=0, m=None):
    """Indices of the upper triangle of an ``(n, m)`` array (row-major order)."""
    r, c = numpy.triu_indices(n, k, m)
    return _asdevice(r), _asdevice(c)


def indices(dimensions, dtype=int, sparse=False):
    """An array representing the indices of a grid (``numpy.indices``)."""
    from ._creation import arange, empty
    dims = tuple(operator.index(d) for d in dimensions)
    nd = len(dims)
    dt = numpy.dtype(dtype)
    if sparse:
        res = []
        for i, d in enumerate(dims):
            res.append(arange(d, dtype=dt).reshape((1,) * i + (d,) + (1,) * (nd - i - 1)))
        return tuple(res)
    out = empty((nd,) + dims, dt)
    for i, d in enumerate(dims):
        out[i] = arange(d, dtype=dt).reshape((d,) + (1,) * (nd - i - 1))
    return out


def ix_(*args):
    """Open mesh from sequences (``numpy.ix_``): each becomes an N-D array
    with all axes of length 1 but its own."""
    out = []
    nd = len(args)
    for k, new in enumerate(args):
        if not isinstance(new, ndarray):
            h = numpy.asarray(new)
            if h.size == 0:
                h = h.astype(_INTP)
            new = _asdevice(h)
        if new.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if new.dtype.kind == "b":
            new, = _nonzero(new)
        out.append(new.reshape((1,) * k + (new.size,) + (1,) * (nd - k - 1)))
    return tuple(out)
