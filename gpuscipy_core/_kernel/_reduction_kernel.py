"""Reductions: CuPy's ``ReductionKernel`` and the engine behind it, which
also runs every built-in reduction (``sum``, ``argmax``, ``var``, ...).

The engine puts any reduction into one canonical form (see
``gpuscipy/reduction.cuh``): inputs broadcast together, the reduced axes
and the kept axes each sorted by memory stride and collapsed, M outputs of
N elements each, addressed through byte strides. It then picks a thread
layout (a block or a group of lanes per output when the reduced axis is the
fastest in memory, a thread per output otherwise), 16-byte vector loads for
contiguous rows, and a split of long reductions over several blocks with a
second launch of the same kernel combining the partial results. Layout
decisions are cached per (dtypes, shape, strides, axes) so a repeated call
costs a dictionary lookup, the allocations and one or two launches.
"""

import hashlib
import operator
import re
import struct
import threading
from typing import NamedTuple

import numpy

from .._cuda._device import device_limits, get_device_id
from .._ndarray import ndarray
from ._module import get_function
from ._reduction_source import (BLOCK, ReductionSpec, kernel_name, params_layout,
                                reduction_source)
from ._user_kernels import normalize_code, parse_params

__all__ = ["ReductionKernel", "normalize_axes", "Reduction", "get_reduction", "Layout",
           "plan_layout", "plan_launches", "pack_geometry"]

_CAP_BLOCKS_X = 1 << 20      # grid x (outputs); larger grids loop
_MAX_SPLIT = 65535           # grid y (chunks of one reduction)
_MIN_PER_THREAD = 32         # elements a thread gets at least when splitting
# Split reductions get blocks for two waves of the device: SMs draw memory
# bandwidth unevenly, and in one wave of equal chunks the slowest sets the
# end (H200, tools/probes/sum_waves.py: 2^28 float32, 251.8 -> 243.5 us
# back to back, CUB 237.4; 4 and more waves slower again).
_WAVES = 2
_I32_ELEMS = 1 << 30         # 32-bit indexing: M, N and partial counts below this
_I32_BYTES = (1 << 31) - 1   # ... and every byte offset below this
_lock = threading.Lock()
_func_info = {}              # Function.ptr -> (blocks per SM, sizeof(acc_t))


def normalize_axes(axis, ndim, scalar_axis_ok=False):
    """``axis`` (None, an int or a tuple of ints, negative allowed) as a
    sorted tuple of non-negative axes, with NumPy's errors.

    With ``scalar_axis_ok``, axis 0 (or -1) of a 0-d array means no axis, as
    NumPy's ufunc reductions accept it."""
    if axis is None:
        return tuple(range(ndim))
    items = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in items:
        try:
            i = operator.index(a)
        except TypeError:
            raise TypeError(f"'{type(a).__name__}' object cannot be interpreted "
                            "as an integer") from None
        if ndim == 0 and scalar_axis_ok and i in (0, -1):
            continue
        if not -ndim <= i < ndim:
            raise numpy.exceptions.AxisError(i, ndim)
        out.append(i + ndim if i < 0 else i)
    if len(set(out)) != len(out):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(out))


def _pow2_at_least(x):
    x = int(x)
    return 1 if x <= 1 else 1 << (x - 1).bit_length()


def _num_sms(dev):
    return device_limits(dev).sm_count


def _function_info(f, name):
    """(resident blocks per SM, sizeof(acc_t)) of a loaded reduction kernel."""
    info = _func_info.get(f.ptr)
    if info is None:
        from cuda.bindings import driver
        from .._cuda._errors import check
        try:
            occ = int(check(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                f._handle, BLOCK, 0), "cuOccupancyMaxActiveBlocksPerMultiprocessor"))
        except Exception:
            occ = 4
        _, size = f.module.get_global(f"{name}_acc")
        info = _func_info[f.ptr] = (max(occ, 1), int(size))
    return info


def _scalar_align(dt):
    return dt.itemsize if dt.kind == "c" else dt.alignment


class _Plan:
    """Launch data of one (layout, dtypes) case."""

    __slots__ = ("func", "grid1", "mid1", "grid2", "mid2", "temp_bytes", "base",
                 "ptr_fmt", "scalars")


class Reduction:
    """A reduction specialised to its C types: the common engine.

    Built by :class:`ReductionKernel` for each binding of its type
    placeholders, and directly (through :func:`get_reduction`) by the
    built-in reductions.

    Parameters
    ----------
    prefix : str
        Kernel name prefix; it must encode the operation and the dtypes.
    inputs : tuple of (ctype, name)
        Array inputs.
    outputs : tuple of (dtype, name)
        Outputs (NumPy dtypes).
    scalars : tuple of (ctype, name, size, alignment)
        Values passed by value (``raw`` arrays: ``"T*"``, 8, 8).
    typedefs, acc_type, map_expr, reduce_expr, post_expr, identity, preamble
        As in :class:`ReductionSpec`.
    ordered : bool
        The map uses ``_J`` (the index over the reduced axes), so their order
        must be kept.
    op_name : str
        Name used in the "zero-size array" error.
    """

    def __init__(self, prefix, inputs, outputs, scalars, typedefs, acc_type,
                 map_expr, reduce_expr, post_expr, identity, preamble="",
                 ordered=False, op_name=None, options=()):
        from ._ufunc_names import ctype
        self.prefix = prefix
        self.inputs = tuple(inputs)
        self.out_dtypes = tuple(numpy.dtype(dt) for dt, _ in outputs)
        self.outputs = tuple((ctype(dt), nm) for dt, nm in outputs)
        self.scalars = tuple(scalars)
        self.typedefs = tuple(typedefs)
        self.acc_type = acc_type
        self.map_expr = map_expr
        self.reduce_expr = reduce_expr
        self.post_expr = post_expr
        self.identity = None if identity is None else str(identity)
        self.preamble = preamble
        self.ordered = bool(ordered)
        self.op_name = op_name or prefix
        self.options = tuple(options)
        self._plans = {}

    # ------------------------------------------------------------ specs
    def spec(self, ond, rnd, index32, vec):
        """The :class:`ReductionSpec` of one layout variant."""
        return ReductionSpec(kernel_name(self.prefix, ond, rnd, index32, vec),
                             self.inputs, self.outputs, self.scalars, self.typedefs,
                             self.acc_type, self.map_expr, self.reduce_expr,
                             self.post_expr, self.identity, self.preamble,
                             ond, rnd, index32, vec)

    def source(self, ond=1, rnd=1, index32=True, vec=1):
        """The generated CUDA source of one layout variant (a debug hook)."""
        return reduction_source(self.spec(ond, rnd, index32, vec))

    # ------------------------------------------------------------ run
    def run(self, arrays, scalar_values=(), outs=None, shape=None, axes=(),
            keepdims=False, stream=None, check_overlap=True):
        """Reduce ``arrays`` (broadcast to ``shape``) over ``axes``.

        Parameters
        ----------
        arrays : list of ndarray
            One per array input, dtypes as bound.
        scalar_values : sequence of bytes
            One per scalar field, already converted to its C type.
        outs : list of (ndarray or None), optional
            Output arrays (None: allocated). Their shapes must be the
            result's shape.
        shape : tuple of int
            The broadcast shape of ``arrays`` (computed when None).
        axes : tuple of int
            Sorted, normalised reduced axes.

        Returns
        -------
        list of ndarray
            The outputs.
        """
        if shape is None:
            from .._elementwise import broadcast_shapes
            shape = broadcast_shapes(*[a.shape for a in arrays])
        nd = len(shape)
        if keepdims:
            out_shape = tuple(1 if d in axes else shape[d] for d in range(nd))
        else:
            out_shape = tuple(shape[d] for d in range(nd) if d not in axes)
        if outs is None:
            outs = [None] * len(self.outputs)
        results = []
        user_outs = False
        for j, o in enumerate(outs):
            if o is None:
                o = ndarray(out_shape, self.out_dtypes[j])
            else:
                user_outs = True
                if o.shape != out_shape:
                    if o.ndim != len(out_shape):
                        raise ValueError(
                            f"output parameter for reduction operation {self.op_name} "
                            f"has the wrong number of dimensions: Found {o.ndim} but "
                            f"expected {len(out_shape)}")
                    raise ValueError(f"output parameter for reduction operation "
                                     f"{self.op_name} has shape {o.shape}, expected "
                                     f"{out_shape}")
                if o.dtype != self.out_dtypes[j]:
                    raise TypeError(f"output {j} has dtype {o.dtype}, expected "
                                    f"{self.out_dtypes[j]}")
            results.append(o)
        m = 1
        for s in out_shape:
            m *= s
        n = 1
        for d in axes:
            n *= shape[d]
        if n == 0 and self.identity is None:
            raise ValueError(f"zero-size array to reduction operation {self.op_name} "
                             "which has no identity")
        if m == 0:
            return results
        targets = results
        if user_outs and check_overlap and _any_overlap(results, arrays):
            targets = [ndarray(out_shape, dt) for dt in self.out_dtypes]
        self._launch(arrays, scalar_values, targets, shape, axes, keepdims, stream)
        if targets is not results:
            from .._elementwise import assign
            for o, t in zip(results, targets):
                assign(o, t)
        return results

    def _launch(self, arrays, scalar_values, outs, shape, axes, keepdims, stream):
        dev = get_device_id()
        key = (dev, shape, axes, keepdims, arrays[0].ptr & 15,
               tuple((a.shape, a.strides) for a in arrays),
               tuple(o.strides for o in outs))
        plan = self._plans.get(key)
        if plan is None:
            plan = self._make_plan(dev, arrays, outs, shape, axes, keepdims)
            with _lock:
                if len(self._plans) > 512:
                    self._plans.clear()
                self._plans[key] = plan
        temp = None
        if plan.temp_bytes:
            temp = ndarray((plan.temp_bytes,), numpy.uint8)
        ptrs = [a.ptr + b for a, b in zip(arrays, plan.base)]
        ptrs += [o.ptr for o in outs]
        ptrs.append(temp.ptr if temp is not None else 0)
        head = struct.pack(plan.ptr_fmt, *ptrs)
        tail = self._pack_scalars(plan, scalar_values)
        plan.func(plan.grid1, BLOCK, (head + plan.mid1 + tail,), 0, stream)
        if plan.grid2 is not None:
            plan.func(plan.grid2, BLOCK, (head + plan.mid2 + tail,), 0, stream)

    def _pack_scalars(self, plan, values):
        offs, size = plan.scalars
        if not size:
            return b""
        buf = bytearray(size)
        for off, v, (_, nm, sz, _) in zip(offs, values, self.scalars):
            if len(v) != sz:
                raise ValueError(f"scalar {nm!r} takes {sz} bytes, got {len(v)}")
            buf[off:off + sz] = v
        return bytes(buf)

    # ------------------------------------------------------------ planning
    def _make_plan(self, dev, arrays, outs, shape, axes, keepdims):
        lay = plan_layout(arrays, outs, shape, axes, keepdims, self.ordered)
        spec = self.spec(len(lay.odims), len(lay.rdims), lay.index32, lay.vec)
        func = get_function(reduction_source(spec), spec.name, self.options)
        occ, acc_size = _function_info(func, spec.name)
        launches, temp_bytes = plan_launches(lay, _num_sms(dev) * occ * _WAVES, acc_size)
        glay, scalar_offsets, total = params_layout(spec)
        npt = len(arrays) + len(outs) + 1
        plan = _Plan()
        plan.func = func
        plan.base = lay.base
        plan.ptr_fmt = f"<{npt}Q"
        plan.scalars = (tuple(x - glay["size"] for x in scalar_offsets),
                        total - glay["size"])
        plan.temp_bytes = temp_bytes
        plan.grid1, fields1 = launches[0]
        plan.mid1 = pack_geometry(glay, fields1)[8 * npt:]
        if len(launches) > 1:
            plan.grid2, fields2 = launches[1]
            plan.mid2 = pack_geometry(glay, fields2)[8 * npt:]
        else:
            plan.grid2 = plan.mid2 = None
        return plan


class Layout(NamedTuple):
    """The canonical form of one reduction (see :func:`plan_layout`)."""

    m: int           # outputs
    n: int           # elements per output
    odims: tuple     # ((length, input byte strides, output byte strides), ...)
    rdims: tuple     # ((length, input byte strides), ...), C order
    base: tuple      # byte offset added to each input pointer
    inner: bool      # thread layout (see reduction.cuh)
    vec: int         # elements per vector load (1: none)
    lanes: int       # reduce lanes per output, R (a power of two <= BLOCK)
    index32: bool


def plan_layout(arrays, outs, shape, axes, keepdims, ordered):
    """Put a reduction into canonical form; a pure function of layouts.

    Parameters
    ----------
    arrays : sequence
        Input arrays (anything with ``shape``, ``strides``, ``ndim``,
        ``itemsize`` and ``ptr``), broadcastable to ``shape``.
    outs : sequence
        Outputs (``strides``, ``itemsize``), of the result's shape.
    shape : tuple of int
        Broadcast shape of the inputs.
    axes : tuple of int
        Sorted reduced axes.
    keepdims : bool
        Whether the outputs keep the reduced axes.
    ordered : bool
        Keep the C order of the reduced axes (the map uses ``_J``);
        otherwise negative-stride reduced axes are reversed and all are
        sorted by stride.

    Returns
    -------
    Layout
    """
    nd = len(shape)
    nin, nout = len(arrays), len(outs)
    axes_set = set(axes)
    ist = []
    for a in arrays:
        s = [0] * nd
        off = nd - a.ndim
        for i, (ln, st) in enumerate(zip(a.shape, a.strides)):
            if ln != 1:
                s[off + i] = st
        ist.append(s)
    kept_all = [d for d in range(nd) if d not in axes_set]
    ost = []
    for o in outs:
        s = [0] * nd
        if keepdims:
            for d in kept_all:
                s[d] = o.strides[d]
        else:
            for i, d in enumerate(kept_all):
                s[d] = o.strides[i]
        ost.append(s)
    n = 1
    for d in axes:
        n *= shape[d]
    m = 1
    for d in kept_all:
        m *= shape[d]
    kept = [d for d in kept_all if shape[d] != 1]
    red = [d for d in axes if shape[d] != 1] if n else []
    base = [0] * nin
    if not ordered:
        # reverse negative-stride reduced axes, then the fastest axis last
        for d in red:
            if ist[0][d] < 0:
                for k in range(nin):
                    base[k] += (shape[d] - 1) * ist[k][d]
                    ist[k][d] = -ist[k][d]
        red.sort(key=lambda d: -abs(ist[0][d]))
    rdims = []
    for d in red:
        if rdims and all(rdims[-1][1][k] == ist[k][d] * shape[d] for k in range(nin)):
            rdims[-1] = (rdims[-1][0] * shape[d], tuple(ist[k][d] for k in range(nin)))
        else:
            rdims.append((shape[d], tuple(ist[k][d] for k in range(nin))))
    kept.sort(key=lambda d: -abs(ist[0][d]))
    odims = []
    for d in kept:
        if odims and all(odims[-1][1][k] == ist[k][d] * shape[d] for k in range(nin)) \
                and all(odims[-1][2][j] == ost[j][d] * shape[d] for j in range(nout)):
            odims[-1] = (odims[-1][0] * shape[d], tuple(ist[k][d] for k in range(nin)),
                         tuple(ost[j][d] for j in range(nout)))
        else:
            odims.append((shape[d], tuple(ist[k][d] for k in range(nin)),
                          tuple(ost[j][d] for j in range(nout))))
    if not rdims:
        rdims = [(n, (0,) * nin)]
    if not odims:
        odims = [(1, (0,) * nin, (0,) * nout)]

    # thread layout: lanes along the reduction when it is the fastest axis
    if n <= 1:
        inner = False
    elif m == 1:
        inner = True
    else:
        inner = abs(rdims[-1][1][0]) <= abs(odims[-1][1][0])
    itemsize0 = arrays[0].itemsize
    vec = 1
    if (inner and len(rdims) == 1 and nin == 1 and itemsize0 in (1, 2, 4, 8)
            and rdims[0][1][0] == itemsize0):
        v = 16 // itemsize0
        if (n >= 2 * v and (arrays[0].ptr + base[0]) % 16 == 0
                and all(od[1][0] % 16 == 0 for od in odims if od[0] > 1)):
            vec = v
    if inner:
        lanes = min(BLOCK, _pow2_at_least(-(-n // vec)))
    elif n <= 1:
        lanes = 1
    elif m >= 32:
        lanes = min(8, _pow2_at_least(n))
    else:
        lanes = BLOCK // _pow2_at_least(m)

    # 32-bit index arithmetic when every offset fits
    index32 = n < _I32_ELEMS and m < _I32_ELEMS
    for k, a in enumerate(arrays):
        ext = abs(base[k]) + a.itemsize
        ext += sum(abs(od[1][k]) * (od[0] - 1) for od in odims)
        ext += sum(abs(rd[1][k]) * max(rd[0] - 1, 0) for rd in rdims)
        index32 = index32 and ext < _I32_BYTES
    for j, out in enumerate(outs):
        ext = out.itemsize + sum(abs(od[2][j]) * (od[0] - 1) for od in odims)
        index32 = index32 and ext < _I32_BYTES
    return Layout(m, n, tuple(odims), tuple(rdims), tuple(base), inner, vec, lanes,
                  index32)


def plan_launches(lay, target_blocks, acc_size):
    """Grids and geometry fields of the launches of ``lay``.

    Parameters
    ----------
    lay : Layout
    target_blocks : int
        Blocks that fill the device (SMs x resident blocks per SM).
    acc_size : int
        ``sizeof(acc_t)`` (bytes of one partial result).

    Returns
    -------
    launches : list of (grid, fields)
        One launch (mode 0), or two (mode 1 writing partials, then mode 2
        combining them). ``fields`` maps geometry field names to values
        (lists for the array fields).
    temp_bytes : int
        Size of the partials buffer.
    """
    m, n, vec = lay.m, lay.n, lay.vec
    r = lay.lanes
    o = BLOCK // r
    log_o = o.bit_length() - 1
    grid_x = min(-(-m // o), _CAP_BLOCKS_X)
    nsplit = 1
    if n > 0 and grid_x < target_blocks:
        nsplit = min(-(-target_blocks // grid_x),
                              max(1, n // (r * _MIN_PER_THREAD)), _MAX_SPLIT)
    if nsplit > 1:
        chunk = -(-n // nsplit)
        chunk = -(-chunk // vec) * vec
        nsplit = -(-n // chunk)
    if nsplit > 1 and lay.index32 and m * nsplit >= _I32_ELEMS:
        nsplit = 1
    if nsplit == 1:
        chunk = max(n, 1)

    def fields(mode, log_o_, tos, tgs):
        return {"m": m, "n": n, "n_total": n, "chunk": chunk, "nsplit": nsplit,
                "mode": mode, "log_o": log_o_, "inner": int(lay.inner),
                "temp_ostride": tos, "temp_gstride": tgs,
                "oshape": [od[0] for od in lay.odims],
                "ostride_in": [[od[1][k] for od in lay.odims]
                               for k in range(len(lay.base))],
                "ostride_out": [[od[2][j] for od in lay.odims]
                                for j in range(len(lay.odims[0][2]))],
                "rshape": [rd[0] for rd in lay.rdims],
                "rstride": [[rd[1][k] for rd in lay.rdims]
                            for k in range(len(lay.base))]}

    if nsplit == 1:
        return [((grid_x, 1), fields(0, log_o, 0, 0))], 0
    if lay.inner:
        tos, tgs = nsplit, 1
        log_o2 = (BLOCK // min(BLOCK, _pow2_at_least(nsplit))).bit_length() - 1
    else:
        tos, tgs = 1, m
        log_o2 = log_o
    grid2 = (min(-(-m // (1 << log_o2)), _CAP_BLOCKS_X), 1)
    return ([((grid_x, nsplit), fields(1, log_o, tos, tgs)),
             (grid2, fields(2, log_o2, tos, tgs))], m * nsplit * acc_size)


def pack_geometry(glay, fields):
    """The bytes of a ``gs::red::geometry`` (pointers zero) from ``fields``."""
    g = numpy.zeros(glay["size"] // 8, numpy.int64)
    for name, value in fields.items():
        at = glay[name] // 8
        if isinstance(value, list):
            flat = [x for row in value for x in (row if isinstance(row, list) else [row])]
            g[at:at + len(flat)] = flat
        else:
            g[at] = value
    return g.tobytes()


def _extent(a):
    lo = hi = a.ptr
    for ln, st in zip(a.shape, a.strides):
        if ln == 0:
            return None
        if st < 0:
            lo += (ln - 1) * st
        else:
            hi += (ln - 1) * st
    return lo, hi + a.itemsize


def _any_overlap(outs, arrays):
    for o in outs:
        eo = _extent(o)
        if eo is None:
            continue
        for a in arrays:
            ea = _extent(a)
            if ea is not None and eo[0] < ea[1] and ea[0] < eo[1]:
                return True
    return False


_reductions = {}


def get_reduction(*args, **kwargs):
    """A cached :class:`Reduction` for these constructor arguments."""
    key = (args, tuple(sorted(kwargs.items())))
    r = _reductions.get(key)
    if r is None:
        r = _reductions[key] = Reduction(*args, **kwargs)
    return r


# ---------------------------------------------------------------- public API

_J_TOKEN = re.compile(r"\b_J\b")
class ReductionKernel:
    """A user-defined reduction kernel (CuPy's call signature).

    Parameters
    ----------
    in_params : str
        Comma-separated ``"[raw] type name"`` input parameters; types are
        dtype names (``float32``, C names such as ``float``) or placeholders
        (``T``) bound from the arguments' dtypes. Array arguments are
        broadcast together and read one element at a time; scalars are passed
        by value; ``raw`` arrays are pointers to their first element.
    out_params : str
        Output parameters (arrays), same syntax.
    map_expr : str
        Expression giving the value that enters the reduction, from the
        input names, scalars and ``_J`` (the C-order index over the reduced
        axes).
    reduce_expr : str
        Expression combining two reduced values ``a`` and ``b``; it must be
        associative and commutative (the combination order is not fixed).
    post_map_expr : str
        Statements setting the outputs from the reduced value ``a``; ``_n``
        is the number of elements reduced into each output. A trailing ``;``
        is optional here and in the two expressions (see
        :func:`~gpuscipy_core._kernel._user_kernels.normalize_code`).
    identity : str or None
        The identity of ``reduce_expr`` (C expression). With None, empty
        reductions raise ``ValueError``.
    name : str
        Kernel name (appears in profiler traces).
    reduce_type : str, optional
        Type of ``a`` and ``b`` (C type, dtype name or placeholder); default:
        the first output's type.
    preamble : str
        Device code placed before the kernel (in a namespace of its own).
    options : tuple of str
        Extra NVRTC options.

    Notes
    -----
    Call as ``kernel(*inputs, axis=None, keepdims=False, out=None,
    stream=None)`` (outputs may also follow the inputs positionally). Every
    built-in reduction of gpuscipy_core runs on this same engine.

    Differences from CuPy: ``raw`` arguments are plain pointers, and
    ``_in_ind``/``_out_ind`` are not available (use ``_J`` and ``_n``).
    """

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr,
                 identity, name="reduce_kernel", reduce_type=None, reduce_dims=True,
                 preamble="", options=()):
        self.in_params = parse_params(in_params)
        self.out_params = parse_params(out_params)
        if not self.out_params:
            raise ValueError("a ReductionKernel needs at least one output parameter")
        if any(raw for raw, _, _ in self.out_params):
            raise ValueError("output parameters of a ReductionKernel cannot be raw")
        self.nin = len(self.in_params)
        self.nout = len(self.out_params)
        self.nargs = self.nin + self.nout
        self.map_expr = map_expr
        self.reduce_expr = reduce_expr
        self.post_map_expr = post_map_expr
        self.identity = None if identity is None else str(identity)
        self.name = name
        self.reduce_type = reduce_type
        self.preamble = preamble
        self.options = tuple(options)
        h = hashlib.sha1("\0".join([in_params, out_params, map_expr, reduce_expr,
                                    post_map_expr, str(identity), str(reduce_type),
                                    preamble]).encode()).hexdigest()[:10]
        self._prefix = f"gs_rk_{re.sub(r'[^A-Za-z0-9_]', '_', name)}_{h}"
        self._ordered = _J_TOKEN.search(map_expr) is not None
        self._bound = {}

    def __call__(self, *args, axis=None, keepdims=False, out=None, stream=None):
        from .._routines._creation import asarray
        if len(args) not in (self.nin, self.nargs):
            raise TypeError(f"Wrong number of arguments for {self.name!r}: expected "
                            f"{self.nin} or {self.nargs}, got {len(args)}")
        ins = list(args[:self.nin])
        outs = list(args[self.nin:]) or None
        if out is not None:
            if outs is not None:
                raise TypeError("output arrays given both positionally and as out=")
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
        if outs is None:
            outs = [None] * self.nout
        if len(outs) != self.nout:
            raise ValueError(f"{self.name!r} has {self.nout} outputs, got {len(outs)}")
        binding = {}

        def bind(t, dt, nm):
            prev = binding.setdefault(t, dt)
            if prev != dt:
                raise TypeError(f"Type is mismatched: {nm} is {dt} but {t} is bound "
                                f"to {prev}")
        for k, (raw, t, nm) in enumerate(self.in_params):
            a = ins[k]
            if not isinstance(a, ndarray) and hasattr(a, "__cuda_array_interface__"):
                a = ins[k] = asarray(a)
            if isinstance(a, ndarray) and isinstance(t, str):
                bind(t, a.dtype, nm)
        for j, (raw, t, nm) in enumerate(self.out_params):
            o = outs[j]
            if o is None:
                continue
            if not isinstance(o, ndarray):
                raise TypeError(f"output {nm!r} must be a gpuscipy_core.ndarray")
            if isinstance(t, str):
                bind(t, o.dtype, nm)
        for k, (raw, t, nm) in enumerate(self.in_params):
            a = ins[k]
            if isinstance(t, str) and t not in binding and not isinstance(a, ndarray):
                if raw:
                    raise TypeError(f"raw argument {nm!r} must be an array")
                binding[t] = numpy.asarray(a).dtype
        kinds, dts = [], []
        arrays, scalar_values = [], []
        for k, (raw, t, nm) in enumerate(self.in_params):
            a = ins[k]
            dt = binding[t] if isinstance(t, str) else t
            if raw:
                if not isinstance(a, ndarray):
                    raise TypeError(f"raw argument {nm!r} must be an array")
                if a.dtype != dt:
                    raise TypeError(f"raw argument {nm!r} has dtype {a.dtype}, "
                                    f"expected {dt}")
                kinds.append("r")
                scalar_values.append(struct.pack("<Q", a.ptr))
            elif isinstance(a, ndarray):
                if a.dtype != dt:
                    a = a.astype(dt)
                kinds.append("a")
                arrays.append(a)
            else:
                kinds.append("s")
                scalar_values.append(numpy.asarray(a, dtype=dt).tobytes())
            dts.append(numpy.dtype(dt))
        out_dts = []
        for j, (raw, t, nm) in enumerate(self.out_params):
            dt = binding.get(t) if isinstance(t, str) else t
            if dt is None:
                raise TypeError(f"Cannot determine the dtype of output {nm!r}: pass "
                                "out= or bind its type placeholder from an input")
            if outs[j] is not None and outs[j].dtype != dt:
                raise TypeError(f"output {nm!r} has dtype {outs[j].dtype}, "
                                f"expected {dt}")
            out_dts.append(numpy.dtype(dt))
        if not arrays:
            raise ValueError(f"{self.name!r} needs at least one non-raw array input")
        key = (tuple(kinds), tuple(dts), tuple(out_dts))
        red = self._bound.get(key)
        if red is None:
            red = self._bound[key] = self._bind(kinds, dts, out_dts, binding)
        from .._elementwise import broadcast_shapes
        shape = broadcast_shapes(*[a.shape for a in arrays])
        axes = normalize_axes(axis, len(shape))
        res = red.run(arrays, scalar_values, outs, shape, axes, bool(keepdims), stream)
        return res[0] if self.nout == 1 else tuple(res)

    def _bind(self, kinds, dts, out_dts, binding):
        from ._ufunc_names import ctype
        typedefs = tuple((t, ctype(dt)) for t, dt in binding.items())
        inputs, scalars, codes = [], [], []
        for kind, dt, (raw, t, nm) in zip(kinds, dts, self.in_params):
            ct = ctype(dt)
            if kind == "a":
                inputs.append((ct, nm))
            elif kind == "r":
                scalars.append((f"{ct}*", nm, 8, 8))
            else:
                scalars.append((ct, nm, dt.itemsize, _scalar_align(dt)))
            codes.append(("" if kind == "a" else kind) + dt.str[1:])
        outputs = tuple((dt, nm) for dt, (_, _, nm) in zip(out_dts, self.out_params))
        codes.append("to")
        codes += [dt.str[1:] for dt in out_dts]
        rt = self.reduce_type
        if rt is None:
            acc = ctype(out_dts[0])
        elif rt in binding:
            acc = ctype(binding[rt])
        else:
            try:
                (_, t, _), = parse_params(f"{rt} _r")
            except ValueError:  # a C type such as gs::red::ksum
                t = rt
            acc = ctype(t) if isinstance(t, numpy.dtype) else rt
        return Reduction(f"{self._prefix}_{'_'.join(codes)}", tuple(inputs), outputs,
                         tuple(scalars), typedefs, acc,
                         normalize_code(self.map_expr, "expression"),
                         normalize_code(self.reduce_expr, "expression"),
                         normalize_code(self.post_map_expr, "statement"), self.identity,
                         normalize_code(self.preamble, "preamble"), self._ordered,
                         self.name, self.options)
