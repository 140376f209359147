"""Array manipulation: concatenate, stack, split, pad, flip, roll, ...

Views where NumPy returns views (flip, expand_dims, squeeze, moveaxis,
swapaxes, transpose, broadcast_to, diagonal, split pieces): zero-copy
strided views of the same memory. Copies: ``concatenate`` is one copy launch
per input into its slice of the output (the elementwise copy engine);
``pad``, ``roll``, ``tile`` and ``repeat`` by a scalar are one launch of the
remap kernel (``gpuscipy/index.cuh``), which computes the source index of
every output element from a per-axis map.
"""

import operator

import numpy
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from .._ndarray import ndarray, _strided_view
from .._elementwise import broadcast_shapes, run_elementwise, ctype
from . import _indexing
from ._creation import asarray as _asarray

__all__ = ["concatenate", "stack", "hstack", "vstack", "dstack", "column_stack",
           "split", "array_split", "hsplit", "vsplit", "dsplit", "pad", "flip",
           "fliplr", "flipud", "roll", "rot90", "repeat", "tile", "expand_dims",
           "squeeze", "moveaxis", "swapaxes", "transpose", "reshape", "ravel",
           "broadcast_to", "broadcast_arrays", "diagonal", "trace", "tril", "triu",
           "meshgrid", "atleast_1d", "atleast_2d", "atleast_3d", "ravel_multi_index",
           "unravel_index", "copyto"]


def _fmt(shape):
    return str(tuple(shape)).replace(" ", "")


# ---------------------------------------------------------------- remap

MAP_SHIFT, MAP_EDGE, MAP_WRAP, MAP_REFLECT, MAP_SYMMETRIC, MAP_DIV = range(6)


def _remap(src, out_shape, modes, before, consts=None):
    """One launch: ``out[c] = src[m_d(c_d) ...]`` (see ``index.cuh``);
    ``consts[d]``: (before, after) constant bytes for MAP_SHIFT axes."""
    from ._creation import empty
    out = empty(out_shape, src.dtype)
    if out.size == 0:
        return out
    nd = src.ndim
    if nd == 0:
        out[...] = src
        return out
    words = [out.size, *out_shape, *out.strides, *src.shape, *src.strides, *before, *modes]
    blob = _indexing._pack(words)
    ptrs = _indexing._pack([src.ptr, out.ptr])
    cb = b""
    for d in range(nd):
        pair = consts[d] if consts is not None and consts[d] is not None else (b"", b"")
        for c in pair:
            cb += (c + b"\0" * 16)[:16]
    name, source = _indexing.remap_source(src.itemsize, nd, out.size < 2**31 - 2**26)
    _indexing._launch(name, source, out.size, blob + ptrs + cb)
    return out


# ---------------------------------------------------------------- joining

def _check_casting(dts, dt, casting):
    for d in dts:
        if not numpy.can_cast(d, dt, casting):
            raise TypeError(f"Cannot cast array data from {d!r} to {dt!r} according "
                            f"to the rule {casting!r}")


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Join a sequence of arrays along an existing axis (``numpy.concatenate``).

    Parameters
    ----------
    arrays : sequence of array_like
        Same shape except along ``axis``; ``axis=None`` flattens them first.
    axis : int or None
    out : ndarray, optional
        Destination of the result's shape.
    dtype : data-type, optional
        Result dtype (NumPy's ``result_type`` of the inputs by default).
    casting : {'no', 'equiv', 'safe', 'same_kind', 'unsafe'}

    Raises
    ------
    ValueError
        No arrays; 0-d arrays; mismatched ndim or shapes.
    TypeError
        Both ``out`` and ``dtype``; a cast ``casting`` forbids.
    """
    arrs = [a if isinstance(a, ndarray) else _asarray(a) for a in arrays]
    if not arrs:
        raise ValueError("need at least one array to concatenate")
    if out is not None and dtype is not None:
        raise TypeError("concatenate() only takes `out` or `dtype` as an argument, "
                        "but both were provided.")
    if axis is None:
        arrs = [a.reshape(-1) for a in arrs]
        axis = 0
    nd = arrs[0].ndim
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    for i, a in enumerate(arrs[1:], 1):
        if a.ndim != nd:
            raise ValueError("all the input arrays must have same number of dimensions, "
                             f"but the array at index 0 has {nd} dimension(s) and the "
                             f"array at index {i} has {a.ndim} dimension(s)")
    axis = normalize_axis_index(operator.index(axis), nd)
    shape = list(arrs[0].shape)
    for i, a in enumerate(arrs[1:], 1):
        for d in range(nd):
            if d != axis and a.shape[d] != shape[d]:
                raise ValueError(
                    "all the input array dimensions except for the concatenation axis "
                    f"must match exactly, but along dimension {d}, the array at index 0 "
                    f"has size {shape[d]} and the array at index {i} has size "
                    f"{a.shape[d]}")
        shape[axis] += a.shape[axis]
    shape = tuple(shape)
    if out is not None:
        if not isinstance(out, ndarray):
            raise TypeError("out must be a gpuscipy_core.ndarray")
        if out.shape != shape:
            raise ValueError("Output array is the wrong shape")
        dt = out.dtype
    else:
        dt = numpy.dtype(dtype) if dtype is not None else \
            numpy.result_type(*[a.dtype for a in arrs])
    _check_casting([a.dtype for a in arrs], dt, casting)
    if out is None:
        from ._creation import empty
        out = empty(shape, dt)
    pos = 0
    lead = (slice(None),) * axis
    for a in arrs:
        n = a.shape[axis]
        if n and a.size:
            out[lead + (slice(pos, pos + n),)] = a
        pos += n
    return out


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Join arrays of one shape along a new axis (``numpy.stack``)."""
    arrs = [a if isinstance(a, ndarray) else _asarray(a) for a in arrays]
    if not arrs:
        raise ValueError("need at least one array to stack")
    if len({a.shape for a in arrs}) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis_index(operator.index(axis), arrs[0].ndim + 1)
    return concatenate([expand_dims(a, axis) for a in arrs], axis, out, dtype=dtype,
                       casting=casting)


def hstack(tup, *, dtype=None, casting="same_kind"):
    """Stack arrays column-wise (``numpy.hstack``)."""
    arrs = atleast_1d(*tup)
    if not isinstance(arrs, tuple):
        arrs = (arrs,)
    if arrs and arrs[0].ndim == 1:
        return concatenate(arrs, 0, dtype=dtype, casting=casting)
    return concatenate(arrs, 1, dtype=dtype, casting=casting)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """Stack arrays row-wise (``numpy.vstack``)."""
    arrs = atleast_2d(*tup)
    if not isinstance(arrs, tuple):
        arrs = (arrs,)
    return concatenate(arrs, 0, dtype=dtype, casting=casting)


def dstack(tup):
    """Stack arrays along the third axis (``numpy.dstack``)."""
    arrs = atleast_3d(*tup)
    if not isinstance(arrs, tuple):
        arrs = (arrs,)
    return concatenate(arrs, 2)


def column_stack(tup):
    """Stack 1-D arrays as columns of a 2-D array (``numpy.column_stack``)."""
    arrs = []
    for v in tup:
        a = v if isinstance(v, ndarray) else _asarray(v)
        if a.ndim < 2:
            a = a.reshape(-1, 1) if a.ndim == 1 else a.reshape(1, 1)
        arrs.append(a)
    return concatenate(arrs, 1)


# ---------------------------------------------------------------- splitting

def array_split(ary, indices_or_sections, axis=0):
    """Split into views, allowing unequal division (``numpy.array_split``)."""
    a = ary if isinstance(ary, ndarray) else _asarray(ary)
    axis = normalize_axis_index(operator.index(axis), a.ndim)
    n = a.shape[axis]
    try:
        nsec = len(indices_or_sections) + 1
    except TypeError:
        nsec = int(indices_or_sections)
        if nsec <= 0:
            raise ValueError("number sections must be larger than 0.") from None
        each, extra = divmod(n, nsec)
        sizes = [0] + extra * [each + 1] + (nsec - extra) * [each]
        div = [int(d) for d in numpy.cumsum(sizes)]
    else:
        # Split points are slice bounds, as in NumPy: integers or None; a
        # string such as '2' has a length but is not a split point.
        div = [0]
        for i in indices_or_sections:
            try:
                div.append(None if i is None else operator.index(i))
            except TypeError:
                raise TypeError("slice indices must be integers or None or have an "
                                "__index__ method") from None
        div.append(n)
    lead = (slice(None),) * axis
    out = []
    for i in range(nsec):
        out.append(a[lead + (slice(div[i], div[i + 1]),)])
    return out


def split(ary, indices_or_sections, axis=0):
    """Split into equal views (``numpy.split``).

    Raises
    ------
    ValueError
        The sections do not divide the axis equally.
    ZeroDivisionError
        ``indices_or_sections`` is the Python integer 0 (as NumPy).
    """
    try:
        len(indices_or_sections)
    except TypeError:
        a = ary if isinstance(ary, ndarray) else _asarray(ary)
        n = a.shape[normalize_axis_index(operator.index(axis), a.ndim)]
        if n % indices_or_sections:
            raise ValueError("array split does not result in an equal division") \
                from None
    return array_split(ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    a = ary if isinstance(ary, ndarray) else _asarray(ary)
    if a.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(a, indices_or_sections, 1 if a.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    a = ary if isinstance(ary, ndarray) else _asarray(ary)
    if a.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(a, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    a = ary if isinstance(ary, ndarray) else _asarray(ary)
    if a.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(a, indices_or_sections, 2)


# ---------------------------------------------------------------- views

def flip(m, axis=None):
    """Reverse the order of elements along axes: a view (``numpy.flip``)."""
    a = m if isinstance(m, ndarray) else _asarray(m)
    if axis is None:
        axes = range(a.ndim)
    else:
        axes = normalize_axis_tuple(axis, a.ndim)
    key = [slice(None)] * a.ndim
    for ax in axes:
        key[ax] = slice(None, None, -1)
    return a[tuple(key)]


def fliplr(m):
    a = m if isinstance(m, ndarray) else _asarray(m)
    if a.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return a[:, ::-1]


def flipud(m):
    a = m if isinstance(m, ndarray) else _asarray(m)
    if a.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return a[::-1, ...]


def rot90(m, k=1, axes=(0, 1)):
    """Rotate by 90 degrees in the plane of ``axes``: a view (``numpy.rot90``)."""
    a = m if isinstance(m, ndarray) else _asarray(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == a.ndim:
        raise ValueError("Axes must be different.")
    if axes[0] >= a.ndim or axes[0] < -a.ndim or axes[1] >= a.ndim or axes[1] < -a.ndim:
        raise ValueError(f"Axes={axes} out of range for array of ndim={a.ndim}.")
    k %= 4
    if k == 0:
        return a[...]
    if k == 2:
        return flip(flip(a, axes[0]), axes[1])
    perm = list(range(a.ndim))
    perm[axes[0]], perm[axes[1]] = perm[axes[1]], perm[axes[0]]
    if k == 1:
        return transpose(flip(a, axes[1]), perm)
    return flip(transpose(a, perm), axes[1])


def expand_dims(a, axis):
    """Insert axes of length 1: a view (``numpy.expand_dims``)."""
    a = a if isinstance(a, ndarray) else _asarray(a)
    if not isinstance(axis, (tuple, list)):
        axis = (axis,)
    out_nd = len(axis) + a.ndim
    axes = normalize_axis_tuple(axis, out_nd)
    it = iter(a.shape)
    sit = iter(a.strides)
    shape, strides = [], []
    for d in range(out_nd):
        if d in axes:
            shape.append(1)
            strides.append(0)
        else:
            shape.append(next(it))
            strides.append(next(sit))
    return _strided_view(a, tuple(shape), tuple(strides), a.ptr)


def squeeze(a, axis=None):
    a = a if isinstance(a, ndarray) else _asarray(a)
    return a.squeeze(axis)


def moveaxis(a, source, destination):
    """Move axes to new positions: a view (``numpy.moveaxis``)."""
    a = a if isinstance(a, ndarray) else _asarray(a)
    src = normalize_axis_tuple(source, a.ndim, "source")
    dst = normalize_axis_tuple(destination, a.ndim, "destination")
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same "
                         "number of elements")
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return a.transpose(order)


def swapaxes(a, axis1, axis2):
    a = a if isinstance(a, ndarray) else _asarray(a)
    return a.swapaxes(axis1, axis2)


def transpose(a, axes=None):
    a = a if isinstance(a, ndarray) else _asarray(a)
    return a.transpose(axes)


def reshape(a, shape=None, order="C", *, copy=None):
    """A new shape for ``a``: a view when the layout allows, else a copy."""
    a = a if isinstance(a, ndarray) else _asarray(a)
    if shape is None:
        raise TypeError("reshape() missing 1 required positional argument: 'shape'")
    if copy:
        return a.copy(order if order in ("C", "F") else "K").reshape(shape, order=order)
    r = a.reshape(shape, order=order)
    if copy is False and r.base is not (a if a.base is None else a.base) and r.size:
        raise ValueError("Unable to avoid creating a copy while reshaping.")
    return r


def ravel(a, order="C"):
    a = a if isinstance(a, ndarray) else _asarray(a)
    return a.ravel(order)


def broadcast_to(array, shape, subok=False):
    """A read-only-by-convention view broadcast to ``shape`` (zero strides)."""
    a = array if isinstance(array, ndarray) else _asarray(array)
    shape = (operator.index(shape),) if not isinstance(shape, (tuple, list)) \
        else tuple(operator.index(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("all elements of broadcast shape must be non-negative")
    ok = len(shape) >= a.ndim
    if ok:
        off = len(shape) - a.ndim
        for d in range(a.ndim):
            if a.shape[d] not in (1, shape[off + d]):
                ok = False
    if not ok:
        raise ValueError("operands could not be broadcast together with remapped "
                         f"shapes [original->remapped]: {_fmt(a.shape)} and requested "
                         f"shape {_fmt(shape)}")
    off = len(shape) - a.ndim
    strides = [0] * len(shape)
    for d in range(a.ndim):
        if a.shape[d] == shape[off + d]:
            strides[off + d] = a.strides[d]
    return _strided_view(a, shape, tuple(strides), a.ptr)


def broadcast_arrays(*args, subok=False):
    """Views of the arrays broadcast against each other (a tuple)."""
    arrs = [a if isinstance(a, ndarray) else _asarray(a) for a in args]
    shape = broadcast_shapes(*[a.shape for a in arrs])
    return tuple(a if a.shape == shape else broadcast_to(a, shape) for a in arrs)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """Diagonals as a strided view (``numpy.diagonal``); the diagonal axis
    goes last."""
    a = a if isinstance(a, ndarray) else _asarray(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    ax1 = normalize_axis_index(operator.index(axis1), a.ndim)
    ax2 = normalize_axis_index(operator.index(axis2), a.ndim)
    if ax1 == ax2:
        raise ValueError("axis1 and axis2 cannot be the same")
    offset = operator.index(offset)
    n1, n2 = a.shape[ax1], a.shape[ax2]
    s1, s2 = a.strides[ax1], a.strides[ax2]
    ptr = a.ptr
    if offset >= 0:
        n = max(0, min(n1, n2 - offset))
        if n:
            ptr += offset * s2
    else:
        n = max(0, min(n1 + offset, n2))
        if n:
            ptr += -offset * s1
    keep = [d for d in range(a.ndim) if d not in (ax1, ax2)]
    shape = tuple(a.shape[d] for d in keep) + (n,)
    strides = tuple(a.strides[d] for d in keep) + (s1 + s2,)
    return _strided_view(a, shape, strides, ptr)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum along diagonals (``numpy.trace``)."""
    from ._reduction import sum as _sum
    d = diagonal(a, offset, axis1, axis2)
    return _sum(d, -1, dtype, out)


def _tri(m, k, lower):
    a = m if isinstance(m, ndarray) else _asarray(m)
    if a.ndim == 0:
        raise ValueError("input array must be at least 1-d")
    if a.ndim == 1:
        a = broadcast_to(a, (a.shape[0], a.shape[0]))
    from ._creation import empty
    out = empty(a.shape, a.dtype)
    if out.size == 0:
        return out
    rows, cols = a.shape[-2], a.shape[-1]
    ct = ctype(a.dtype)
    cond = "c - r <= k" if lower else "c - r >= k"
    i64 = numpy.dtype(numpy.int64)
    run_elementwise(f"gs_{'tril' if lower else 'triu'}_{a.dtype.str[1:]}",
                    (("in", a.dtype, "x"), ("scalar", i64, "nr"), ("scalar", i64, "nc"),
                     ("scalar", i64, "k"), ("out", a.dtype, "y")),
                    f"const long long c = (long long)(i % (I)nc); "
                    f"const long long r = (long long)((i / (I)nc) % (I)nr); "
                    f"y = ({cond}) ? x : gs::cast<{ct}>(0);",
                    [a, numpy.int64(rows).tobytes(), numpy.int64(cols).tobytes(),
                     numpy.int64(operator.index(k)).tobytes(), out], a.shape, False)
    return out


def tril(m, k=0):
    """Lower triangle (elements above the ``k``-th diagonal zeroed)."""
    return _tri(m, k, True)


def triu(m, k=0):
    """Upper triangle (elements below the ``k``-th diagonal zeroed)."""
    return _tri(m, k, False)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate matrices from coordinate vectors (``numpy.meshgrid``)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    nd = len(xi)
    s0 = (1,) * nd
    out = []
    for i, x in enumerate(xi):
        x = x if isinstance(x, ndarray) else _asarray(x)
        shp = list(s0)
        shp[i] = -1
        out.append(x.reshape(-1).reshape(shp))
    if indexing == "xy" and nd > 1:
        out[0] = out[0].reshape((1, -1) + s0[2:])
        out[1] = out[1].reshape((-1, 1) + s0[2:])
    if not sparse:
        out = list(broadcast_arrays(*out))
    if copy:
        out = [o.copy() for o in out]
    return tuple(out)


def atleast_1d(*arys):
    res = []
    for a in arys:
        a = a if isinstance(a, ndarray) else _asarray(a)
        res.append(a.reshape(1) if a.ndim == 0 else a)
    return res[0] if len(res) == 1 else tuple(res)


def atleast_2d(*arys):
    res = []
    for a in arys:
        a = a if isinstance(a, ndarray) else _asarray(a)
        if a.ndim == 0:
            a = a.reshape(1, 1)
        elif a.ndim == 1:
            a = a[None, :]
        res.append(a)
    return res[0] if len(res) == 1 else tuple(res)


def atleast_3d(*arys):
    res = []
    for a in arys:
        a = a if isinstance(a, ndarray) else _asarray(a)
        if a.ndim == 0:
            a = a.reshape(1, 1, 1)
        elif a.ndim == 1:
            a = a[None, :, None]
        elif a.ndim == 2:
            a = a[:, :, None]
        res.append(a)
    return res[0] if len(res) == 1 else tuple(res)


# ---------------------------------------------------------------- copies

def roll(a, shift, axis=None):
    """Roll elements along axes (``numpy.roll``): one remap launch."""
    a = a if isinstance(a, ndarray) else _asarray(a)
    if axis is None:
        return roll(a.ravel(), shift, 0).reshape(a.shape)
    b = numpy.broadcast(numpy.asarray(shift), numpy.asarray(axis))
    if b.nd > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    pairs = [(int(sh), normalize_axis_index(operator.index(ax), a.ndim)) for sh, ax in b]
    total = [0] * a.ndim
    for sh, ax in pairs:
        total[ax] += sh
    modes, before = [], []
    for d in range(a.ndim):
        n = a.shape[d]
        s = total[d] % n if n else 0
        modes.append(MAP_WRAP if s else MAP_SHIFT)
        before.append(s)
    return _remap(a, a.shape, modes, before)


def tile(A, reps):
    """Repeat ``A`` ``reps`` times per axis (``numpy.tile``): one launch."""
    a = A if isinstance(A, ndarray) else _asarray(A)
    try:
        tup = tuple(operator.index(r) for r in reps)
    except TypeError:
        tup = (operator.index(reps),)
    nd = max(len(tup), a.ndim)
    tup = (1,) * (nd - len(tup)) + tup
    if a.ndim < nd:
        a = a.reshape((1,) * (nd - a.ndim) + a.shape)
    if any(r < 0 for r in tup):
        raise ValueError("negative dimensions are not allowed")
    shape = tuple(s * r for s, r in zip(a.shape, tup))
    modes = [MAP_WRAP if r != 1 else MAP_SHIFT for r in tup]
    return _remap(a, shape, modes, [0] * nd)


def repeat(a, repeats, axis=None):
    """Repeat elements (``numpy.repeat``): a scalar count is one remap
    launch; per-element counts build a gather index (counts are read on the
    host, one synchronisation for device counts).

    Raises
    ------
    ValueError
        Negative counts; counts that do not match the axis length.
    """
    a = a if isinstance(a, ndarray) else _asarray(a)
    if axis is None:
        a = a.ravel()
        axis = 0
    else:
        axis = normalize_axis_index(operator.index(axis), a.ndim)
    # NumPy converts arrays of counts with safe casting and Python objects
    # (scalars, lists) element by element with int(); at most 1-d either way.
    if isinstance(repeats, (ndarray, numpy.ndarray)):
        reps = repeats.get() if isinstance(repeats, ndarray) else repeats
        if reps.ndim > 1:
            raise ValueError("object too deep for desired array")
        if reps.dtype.kind not in "iub":
            reps = reps.astype(numpy.intp, casting="safe")
    else:
        reps = numpy.array(repeats, dtype=numpy.intp)
        if reps.ndim > 1:
            raise ValueError("setting an array element with a sequence. The requested "
                             "array would exceed the maximum number of dimension of 1.")
    n = a.shape[axis]
    if reps.size == 1:
        r = int(reps.reshape(-1)[0])
        if r < 0:
            raise ValueError("negative dimensions are not allowed")
        shape = a.shape[:axis] + (n * r,) + a.shape[axis + 1:]
        if r == 0 or n == 0:
            from ._creation import empty
            return empty(shape, a.dtype)
        modes = [MAP_SHIFT] * a.ndim
        before = [0] * a.ndim
        modes[axis] = MAP_DIV
        before[axis] = r
        return _remap(a, shape, modes, before)
    if reps.ndim != 1 or reps.shape[0] != n:
        raise ValueError(f"operands could not be broadcast together with shape "
                         f"({n},) {_fmt(reps.shape)}")
    if (reps < 0).any():
        raise ValueError("repeats may not contain negative values.")
    idx = numpy.repeat(numpy.arange(n, dtype=numpy.intp), reps)
    return _indexing.take(a, idx, axis=axis)


def _pad_pairs(x, nd, name):
    arr = numpy.asarray(x)
    try:
        return numpy.broadcast_to(arr, (nd, 2)) if arr.ndim <= 2 else None
    except ValueError:
        raise ValueError(f"Unable to create correctly shaped tuple from {x}") from None


def pad(array, pad_width, mode="constant", **kwargs):
    """Pad an array (``numpy.pad``).

    Modes constant, edge, wrap, reflect/symmetric (``reflect_type='even'``)
    and empty are one remap launch; ``reflect_type='odd'`` adds one
    elementwise pass per padded side (pads wider than one period: NumPy's
    rounds, each a few launches); linear_ramp and maximum/minimum/mean/median
    are computed axis by axis as NumPy does, with the core's reductions
    (median: a sort along the axis). Only a callable ``mode`` runs on the
    host (it is a NumPy function by contract).

    Raises
    ------
    ValueError
        Negative widths; an unknown mode; non-constant modes on an empty
        axis; keywords the mode does not take.
    TypeError
        Non-integral widths.
    """
    a = array if isinstance(array, ndarray) else _asarray(array)
    nd = a.ndim
    pw = numpy.asarray(pad_width)
    if pw.dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")
    pw = _pad_pairs(pw, nd, "pad_width")
    if pw is None or (pw < 0).any():
        if pw is not None:
            raise ValueError("index can't contain negative values")
        raise ValueError(f"Unable to create correctly shaped tuple from {pad_width}")
    pw = [(int(b), int(e)) for b, e in pw]
    allowed = {"constant": {"constant_values"}, "edge": set(), "wrap": set(),
               "reflect": {"reflect_type"}, "symmetric": {"reflect_type"},
               "linear_ramp": {"end_values"}, "empty": set(),
               "maximum": {"stat_length"}, "minimum": {"stat_length"},
               "mean": {"stat_length"}, "median": {"stat_length"}}
    if callable(mode):
        # a Python callable works on NumPy arrays by definition (host)
        from ._creation import asarray
        return asarray(numpy.pad(a.get(), pw, mode, **kwargs))
    if mode not in allowed:
        raise ValueError(f"mode '{mode}' is not supported")
    bad = set(kwargs) - allowed[mode]
    if bad:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {bad}")
    out_shape = tuple(s + b + e for s, (b, e) in zip(a.shape, pw))
    if nd == 0:
        return a.copy()
    if mode not in ("constant", "empty"):
        for d in range(nd):
            if a.shape[d] == 0 and any(pw[d]):
                raise ValueError(f"can't extend empty axis {d} using modes other than "
                                 "'constant' or 'empty'")
    if mode in _STAT_MODES:
        return _pad_stat(a, pw, mode, kwargs.get("stat_length"))
    before = [b for b, _ in pw]
    if mode in ("constant", "empty"):
        cv = numpy.broadcast_to(numpy.asarray(kwargs.get("constant_values", 0)), (nd, 2)) \
            if mode == "constant" else numpy.zeros((nd, 2), numpy.int8)
        consts = []
        for d in range(nd):
            consts.append(tuple(numpy.asarray(cv[d][j]).astype(a.dtype).tobytes()
                                for j in range(2)))
        return _remap(a, out_shape, [MAP_SHIFT] * nd, before, consts)
    if mode == "edge":
        return _remap(a, out_shape, [MAP_EDGE] * nd, before)
    if mode == "wrap":
        return _remap(a, out_shape, [MAP_WRAP] * nd, before)
    if mode in ("reflect", "symmetric"):
        rt = kwargs.get("reflect_type", "even")
        if rt not in ("even", "odd"):
            raise ValueError(f"reflect_type must be 'even' or 'odd', got {rt!r}")
        m = MAP_REFLECT if mode == "reflect" else MAP_SYMMETRIC
        if rt == "odd":
            limit = [s - 1 if mode == "reflect" else s for s in a.shape]
            if any(max(b, e) > lim for (b, e), lim in zip(pw, limit)):
                return _pad_reflect_odd_wide(a, out_shape, pw, mode == "symmetric")
        out = _remap(a, out_shape, [m] * nd, before)
        if rt == "odd":
            _odd_fix(out, a.shape, pw)
        return out
    # linear_ramp
    out = _remap(a, out_shape, [MAP_EDGE] * nd, before)
    ev = numpy.broadcast_to(numpy.asarray(kwargs.get("end_values", 0)), (nd, 2))
    for d in range(nd):
        _linear_ramp_axis(out, d, pw[d], a.shape[d], ev[d])
    return out


_STAT_MODES = ("maximum", "minimum", "mean", "median")


def _stat_length_pairs(x, nd):
    """``stat_length`` as ``nd`` pairs (None: the whole axis), NumPy's
    broadcasting and validation of index pairs."""
    if x is None:
        return [(None, None)] * nd
    arr = numpy.round(numpy.asarray(x)).astype(numpy.intp)
    if arr.ndim < 3:
        if arr.size == 1:
            arr = arr.ravel()
            if arr[0] < 0:
                raise ValueError("index can't contain negative values")
            return [(int(arr[0]), int(arr[0]))] * nd
        if arr.size == 2 and arr.shape != (2, 1):
            arr = arr.ravel()
            if arr[0] < 0 or arr[1] < 0:
                raise ValueError("index can't contain negative values")
            return [(int(arr[0]), int(arr[1]))] * nd
    if arr.size and arr.min() < 0:
        raise ValueError("index can't contain negative values")
    try:
        arr = numpy.broadcast_to(arr, (nd, 2))
    except ValueError:
        raise ValueError(f"Unable to create correctly shaped tuple from {x}") from None
    return [(int(p), int(q)) for p, q in arr]


def _median_keepdims(x, d):
    """NumPy's ``median(x, axis=d, keepdims=True)`` on the device: a sort
    along ``d`` and the mean of the middle element(s); NaN when the axis
    holds a NaN (sorted last)."""
    from ._sorting import sort
    from ._reduction import mean
    from ._ufuncs import isnan
    from ._math import where
    n = x.shape[d]
    nd = x.ndim
    s = sort(x, axis=d)
    lo, hi = (n - 1) // 2, n // 2
    med = mean(s[_axis_slice(nd, d, slice(lo, hi + 1))], axis=d, keepdims=True)
    if x.dtype.kind in "fc" and n:
        last = s[_axis_slice(nd, d, slice(n - 1, n))]
        med = where(isnan(last), last.astype(med.dtype), med)
    return med


def _axis_stat(x, d, mode):
    """The statistic of ``mode`` along axis ``d`` with keepdims, rounded
    to integers for integer dtypes (NumPy's pad rounds mean and median)."""
    from . import _reduction
    if mode == "maximum":
        return _reduction.max(x, axis=d, keepdims=True)
    if mode == "minimum":
        return _reduction.min(x, axis=d, keepdims=True)
    if mode == "mean":
        r = _reduction.mean(x, axis=d, keepdims=True)
    else:
        r = _median_keepdims(x, d)
    if x.dtype.kind in "iu":
        from ._ufuncs import rint
        r = rint(r)
    return r


def _pad_stat(a, pw, mode, stat_length):
    """maximum/minimum/mean/median padding on the device, axis by axis as
    NumPy does: along axis d the statistic is taken over the first/last
    ``stat_length`` elements of the original extent of d, in the region
    that already holds the pads of the axes before d (and only the original
    extent of the axes after d); the pads of d are then filled with it
    (broadcast). One reduction (or sort, for median) per side and axis."""
    from ._creation import empty
    nd = a.ndim
    lengths = _stat_length_pairs(stat_length, nd)
    out_shape = tuple(s + b + e for s, (b, e) in zip(a.shape, pw))
    out = empty(out_shape, a.dtype)
    orig = tuple(slice(b, b + s) for (b, _), s in zip(pw, a.shape))
    if out.size == 0:
        return out
    out[orig] = a
    for d in range(nd):
        b, e = pw[d]
        ll, rl = lengths[d]
        n = a.shape[d]
        ll = n if ll is None or ll > n else ll
        rl = n if rl is None or rl > n else rl
        if (ll == 0 or rl == 0) and mode in ("maximum", "minimum"):
            raise ValueError("stat_length of 0 yields no value for padding")
        if not b and not e:
            continue
        roi = out[(slice(None),) * (d + 1) + orig[d + 1:]]
        left = _axis_stat(roi[_axis_slice(nd, d, slice(b, b + ll))], d, mode)
        if ll == rl == n:
            right = left
        else:
            right = _axis_stat(roi[_axis_slice(nd, d, slice(b + n - rl, b + n))], d, mode)
        if b:
            roi[_axis_slice(nd, d, slice(0, b))] = left
        if e:
            roi[_axis_slice(nd, d, slice(b + n, b + n + e))] = right
    return out


def _pad_reflect_odd_wide(a, out_shape, pw, include_edge):
    """reflect/symmetric with ``reflect_type='odd'`` and a pad wider than
    one period, on the device. NumPy fills such pads iteratively, each
    round reflecting at most one period of what is already there (pads
    included) as ``2 * edge - mirror``, so values keep growing away from
    the array; this repeats those rounds with views and two elementwise
    operations per chunk (no host round trip)."""
    from ._creation import empty
    from ._ufuncs import subtract, multiply
    nd = a.ndim
    out = empty(out_shape, a.dtype)
    orig = tuple(slice(b, b + s) for (b, _), s in zip(pw, a.shape))
    if out.size == 0:
        return out
    out[orig] = a

    def sl(d, s):
        return _axis_slice(nd, d, s)

    def odd(edge, chunk):
        return subtract(multiply(edge, 2), chunk).astype(out.dtype)

    for d in range(nd):
        left, right = pw[d]
        n = a.shape[d]
        roi = out[(slice(None),) * (d + 1) + orig[d + 1:]]
        if n == 1 and (left or right):
            # NumPy's legacy behaviour for a singleton axis: edge padding
            edge = roi[sl(d, slice(left, left + 1))]
            if left:
                roi[sl(d, slice(0, left))] = edge
            if right:
                roi[sl(d, slice(left + 1, left + 1 + right))] = edge
            continue
        size = roi.shape[d]
        while left > 0 or right > 0:
            old = size - left - right
            if include_edge:
                old = old // n * n
                off = 1
            else:
                old = (old - 1) // (n - 1) * (n - 1)
                off = 0
            if left > 0:
                c = min(old, left)
                stop = left - off
                chunk = roi[sl(d, slice(stop + c, stop, -1))]
                chunk = odd(roi[sl(d, slice(left, left + 1))], chunk)
                roi[sl(d, slice(left - c, left))] = chunk
                left -= c
            if right > 0:
                c = min(old, right)
                # mirror of the c elements before the right edge (position
                # size - right - 1), skipping the edge itself unless symmetric
                start = size - right - 2 + off
                chunk = roi[sl(d, slice(start, start - c if start - c >= 0 else None, -1))]
                chunk = odd(roi[sl(d, slice(size - right - 1, size - right))], chunk)
                roi[sl(d, slice(size - right, size - right + c))] = chunk
                right -= c
    return out


def _axis_slice(nd, d, sl):
    return (slice(None),) * d + (sl,) + (slice(None),) * (nd - d - 1)


def _odd_fix(out, shape, pw):
    """Turn even reflections into odd ones: pad = 2 * edge - pad, per axis."""
    from ._ufuncs import subtract, multiply
    nd = out.ndim
    for d in range(nd):
        b, e = pw[d]
        n = shape[d]
        if b:
            region = out[_axis_slice(nd, d, slice(0, b))]
            edge = out[_axis_slice(nd, d, slice(b, b + 1))]
            region[...] = subtract(multiply(edge, 2), region).astype(out.dtype)
        if e:
            region = out[_axis_slice(nd, d, slice(b + n, b + n + e))]
            edge = out[_axis_slice(nd, d, slice(b + n - 1, b + n))]
            region[...] = subtract(multiply(edge, 2), region).astype(out.dtype)


def _linear_ramp_axis(out, d, widths, n, ends):
    """NumPy's ramps: linspace(end, edge, width, endpoint=False) toward the
    array on the left, mirrored on the right; integer dtypes floor."""
    from ._creation import arange
    from ._ufuncs import add, multiply, subtract, floor
    nd = out.ndim
    b, e = widths
    wide = numpy.dtype(numpy.complex128 if out.dtype.kind == "c" else numpy.float64)
    for side, w in ((0, b), (1, e)):
        if not w:
            continue
        if side == 0:
            region = out[_axis_slice(nd, d, slice(0, w))]
            edge = out[_axis_slice(nd, d, slice(w, w + 1))]
            j = arange(w, dtype=numpy.float64)
        else:
            region = out[_axis_slice(nd, d, slice(b + n, b + n + w))]
            edge = out[_axis_slice(nd, d, slice(b + n - 1, b + n))]
            j = arange(w - 1, -1, -1, dtype=numpy.float64)
        j = j.reshape((w,) + (1,) * (nd - d - 1))
        end = numpy.asarray(ends[side]).astype(wide)[()]
        step = multiply(subtract(edge.astype(wide), end), 1.0 / w)
        vals = add(multiply(j, step), end)
        if out.dtype.kind in "iub":
            vals = floor(vals)
        region[...] = vals.astype(out.dtype)


# ---------------------------------------------------------------- index math

def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Flat indices from a tuple of coordinate arrays (``numpy.ravel_multi_index``).

    Raises
    ------
    ValueError
        A coordinate out of range with ``mode='raise'`` (one synchronisation
        per coordinate array), a wrong number of coordinate arrays.
    """
    from ._ufuncs import add, multiply, remainder, minimum, maximum, logical_or, less, \
        greater_equal
    from ._reduction import any as _any
    dims = tuple(operator.index(d) for d in ((dims,) if numpy.ndim(dims) == 0 else dims))
    idx = [x if isinstance(x, ndarray) else _asarray(numpy.asarray(x)) for x in multi_index]
    if len(idx) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    strides = [1] * len(dims)
    rng = range(len(dims) - 2, -1, -1) if order == "C" else range(1, len(dims))
    for d in rng:
        strides[d] = strides[d + 1] * dims[d + 1] if order == "C" \
            else strides[d - 1] * dims[d - 1]
    res = None
    for x, n, s, md in zip(idx, dims, strides, modes):
        if x.dtype.kind not in "iu":
            raise TypeError(f"Cannot cast array data from {x.dtype!r} to "
                            "dtype('int64') according to the rule 'same_kind'")
        x = x.astype(numpy.intp, copy=False)
        if md == "raise":
            if x.size and bool(_any(logical_or(less(x, 0), greater_equal(x, n)))):
                raise ValueError("invalid entry in coordinates array")
        elif md == "wrap":
            x = remainder(x, n)
        elif md == "clip":
            x = minimum(maximum(x, 0), n - 1)
        else:
            raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' "
                             f"(got {md!r})")
        term = multiply(x, s)
        res = term if res is None else add(res, term)
    return res


def unravel_index(indices, shape, order="C"):
    """Coordinate arrays from flat indices (``numpy.unravel_index``).

    Raises
    ------
    ValueError
        An index outside the array (one synchronisation for device input).
    """
    from ._ufuncs import floor_divide, remainder
    from ._reduction import min as _min, max as _max
    shape = tuple(operator.index(d) for d in ((shape,) if numpy.ndim(shape) == 0 else shape))
    x = indices if isinstance(indices, ndarray) else _asarray(numpy.asarray(indices))
    if x.dtype.kind not in "iu":
        raise TypeError(f"Cannot cast array data from {x.dtype!r} to dtype('int64') "
                        "according to the rule 'safe'")
    size = int(numpy.prod(shape, dtype=numpy.int64))
    x = x.astype(numpy.intp, copy=False)
    if x.size:
        lo, hi = int(_min(x)), int(_max(x))
        if lo < 0 or hi >= size:
            bad = lo if lo < 0 else hi
            raise ValueError(f"index {bad} is out of bounds for array with size {size}")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    strides = [1] * len(shape)
    if order == "C":
        for d in range(len(shape) - 2, -1, -1):
            strides[d] = strides[d + 1] * shape[d + 1]
    else:
        for d in range(1, len(shape)):
            strides[d] = strides[d - 1] * shape[d - 1]
    return tuple(remainder(floor_divide(x, s), n) if n else floor_divide(x, s)
                 for s, n in zip(strides, shape))


def copyto(dst, src, casting="same_kind", where=True):
    """Copy ``src`` into ``dst`` with broadcasting (``numpy.copyto``).

    Raises
    ------
    TypeError
        ``dst`` is not a device array; a cast ``casting`` forbids.
    ValueError
        ``src`` does not broadcast to ``dst``.
    """
    if not isinstance(dst, ndarray):
        raise TypeError("copyto() argument 1 must be gpuscipy_core.ndarray")
    if isinstance(src, ndarray):
        sdt = src.dtype
        if not numpy.can_cast(sdt, dst.dtype, casting):
            raise TypeError(f"Cannot cast array data from {sdt!r} to {dst.dtype!r} "
                            f"according to the rule {casting!r}")
    elif isinstance(src, (int, float, complex, bool)):
        if not numpy.can_cast(numpy.result_type(src, dst.dtype), dst.dtype, casting):
            raise TypeError(f"Cannot cast scalar from {numpy.asarray(src).dtype!r} to "
                            f"{dst.dtype!r} according to the rule {casting!r}")
    else:
        h = numpy.asarray(src)
        if not numpy.can_cast(h.dtype, dst.dtype, casting):
            raise TypeError(f"Cannot cast array data from {h.dtype!r} to {dst.dtype!r} "
                            f"according to the rule {casting!r}")
        src = _asarray(h)
    if where is True:
        dst[...] = src
        return
    mask = where if isinstance(where, ndarray) else _asarray(numpy.asarray(where, bool))
    if not isinstance(src, ndarray):
        src = _asarray(numpy.asarray(src, dst.dtype))
    broadcast_shapes(src.shape, dst.shape)
    shape = broadcast_shapes(src.shape, mask.shape, dst.shape)
    if shape != dst.shape:
        raise ValueError(f"could not broadcast where mask from shape {_fmt(mask.shape)} "
                         f"into shape {_fmt(dst.shape)}")
    run_elementwise(f"gs_copyto_{src.dtype.str[1:]}_{dst.dtype.str[1:]}",
                    (("in", mask.dtype, "m"), ("in", src.dtype, "x"),
                     ("out", dst.dtype, "y")),
                    f"if (m) y = gs::cast<{ctype(dst.dtype)}>(x);",
                    [mask, src, dst], dst.shape, False)
