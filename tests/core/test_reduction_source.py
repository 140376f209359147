"""Reduction kernels without a GPU: every built-in reduction kernel compiles
with NVRTC for every dtype (in a vector-load and a generic layout variant),
user ``ReductionKernel`` bindings compile, the host's parameter layout
matches the C struct (checked by the compiler), and the host's layout
planning is checked by emulating the kernel's index arithmetic in Python
against NumPy.
"""

import os
import types
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from gpuscipy_core._kernel._nvrtc import compile_cubin, nvrtc_version
from gpuscipy_core._kernel._reduction_kernel import (
    ReductionKernel, normalize_axes, pack_geometry, plan_launches, plan_layout)
from gpuscipy_core._kernel._reduction_source import (
    ReductionSpec, geometry_layout, params_layout, reduction_source)
from gpuscipy_core._routines import _reduction

DTYPES = [np.dtype(c) for c in "?bBhHiIqQefdFD"]


def _variants(red, dt):
    """(ond, rnd, index32, vec) layouts compiled per reduction: the
    contiguous one (16-byte vector loads where the kernel has them) and a
    generic 2-D/2-D one with 64-bit indexing."""
    vec = 16 // dt.itemsize if len(red.inputs) == 1 and dt.itemsize <= 8 else 1
    return [(1, 1, True, vec), (2, 2, False, 1)]


def _compile_batches(sources, name):
    """Compile ``sources`` in a few translation units, in parallel threads
    (NVRTC releases the GIL). Returns the number of sources."""
    workers = max(1, min(8, os.cpu_count() or 1))
    nb = max(workers, len(sources) // 40)
    batches = ["".join(sources[i::nb]) for i in range(nb)]
    batches = [b for b in batches if b]
    with ThreadPoolExecutor(workers) as ex:
        cubins = list(ex.map(lambda ib: compile_cubin(ib[1], f"{name}_{ib[0]}"),
                             enumerate(batches)))
    assert all(cubins)
    return len(sources)


def test_builtin_reductions_compile_for_every_dtype():
    sources = []
    for dt in DTYPES:
        for red in _reduction._builtin_reductions(dt):
            for v in _variants(red, dt):
                sources.append(red.source(*v))
        # sum(dtype=...) casts: same template as the default sum, one variant
        for red in _reduction._builtin_reductions(dt, casts=True):
            sources.append(red.source(*_variants(red, dt)[0]))
    sources = list(dict.fromkeys(sources))
    assert _compile_batches(sources, "builtin") > 400


def test_kernel_names_encode_the_spec():
    red = _reduction._sum_kernel("sum", np.dtype("f4"), np.dtype("f4"),
                                 np.dtype("f4"), False)
    src = red.source(1, 1, True, 4)
    assert 'extern "C" __global__ void __launch_bounds__(256) gs_sum_f4_f4_f4_o1r1_i32_v4(' in src
    src = red.source(3, 2, False, 1)
    assert "gs_sum_f4_f4_f4_o3r2_i64(" in src
    assert "gs::red::reduce<gs_sum_f4_f4_f4_o3r2_i64_ns::op, gs_sum_f4_f4_f4_o3r2_i64_ns::params, 1, 1, 3, 2, long long, 1, true>(p);" in src


GOLDEN_SPEC = ReductionSpec(
    name="gs_golden", inputs=(("float", "x"),), outputs=(("double", "y"),),
    scalars=(("double", "w", 8, 8),), typedefs=(("T", "float"),), acc_type="double",
    map_expr="x * w", reduce_expr="a + b", post_expr="y = a", identity="0",
    preamble="", ond=1, rnd=1, index32=True, vec=1)

GOLDEN_SOURCE = """\
#include <gpuscipy/core.cuh>
#include <gpuscipy/reduction.cuh>
namespace gs_golden_ns {
typedef float T;
struct params {
  gs::red::geometry<1, 1, 1, 1> g;
  double w;
};
struct op {
  typedef double acc_t;
  typedef acc_t _type_reduce;
  typedef float in0_t;
  __device__ __forceinline__ static acc_t identity() { return acc_t(0); }
  __device__ __forceinline__ static acc_t reduce(const acc_t& a, const acc_t& b) {
    return acc_t(a + b);
  }
  template <class I>
  __device__ __forceinline__ static acc_t load_map(const params& _p, const char* const* _in, const I* _off, long long _J) {
    const float& x = *reinterpret_cast<const float*>(_in[0] + _off[0]);
    double const w = _p.w; (void)w;
    (void)_J;
    return acc_t(x * w);
  }
  __device__ __forceinline__ static acc_t map_value(const params& _p, const in0_t& x, long long _J) {
    double const w = _p.w; (void)w;
    (void)_J;
    return acc_t(x * w);
  }
  template <class I>
  __device__ __forceinline__ static void store_post(const params& _p, const acc_t& a, char* const* _out, const I* _off, long long _n) {
    gs::red::out_ref<double> y{reinterpret_cast<double*>(_out[0] + _off[0])};
    double const w = _p.w; (void)w;
    (void)_n;
    y = a;
  }
};
}  // namespace gs_golden_ns
// sizeof(acc_t), read by the host from the symbol's size (temp buffers)
extern "C" __device__ unsigned char gs_golden_acc[sizeof(gs_golden_ns::op::acc_t)];
extern "C" __global__ void __launch_bounds__(256) gs_golden(const gs_golden_ns::params p) {
  gs::red::reduce<gs_golden_ns::op, gs_golden_ns::params, 1, 1, 1, 1, int, 1, true>(p);
}
"""


def test_golden_source():
    assert reduction_source(GOLDEN_SPEC) == GOLDEN_SOURCE
    assert compile_cubin(GOLDEN_SOURCE, "golden")


def test_renderer_rejects_bad_specs():
    with pytest.raises(ValueError):
        reduction_source(GOLDEN_SPEC._replace(name="bad name"))
    with pytest.raises(ValueError):
        reduction_source(GOLDEN_SPEC._replace(ond=0))
    with pytest.raises(ValueError):
        reduction_source(GOLDEN_SPEC._replace(
            inputs=(("float", "x"), ("float", "z")), vec=4))


# ------------------------------------------------------ layout of the params

@pytest.mark.skipif(
    nvrtc_version() < (13, 3),
    reason="NVRTC before 13.3 has no __builtin_offsetof (CI's NVRTC checks the layout)")
@pytest.mark.parametrize("nin,nout,ond,rnd,scalars", [
    (1, 1, 1, 1, ()),
    (2, 1, 3, 2, (("double", "ddof", 8, 8),)),
    (1, 2, 2, 1, (("signed char", "c", 1, 1), ("gs::complex<double>", "z", 16, 16),
                  ("gs::half", "h", 2, 2))),
    (3, 2, 1, 4, (("float*", "r", 8, 8), ("bool", "flag", 1, 1))),
])
def test_params_layout_matches_the_c_struct(nin, nout, ond, rnd, scalars):
    inputs = tuple(("float", f"x{k}") for k in range(nin))
    outputs = tuple(("double", f"y{k}") for k in range(nout))
    spec = GOLDEN_SPEC._replace(name=f"gs_lay_{nin}{nout}{ond}{rnd}{len(scalars)}",
                                inputs=inputs, outputs=outputs, scalars=scalars,
                                map_expr="x0", post_expr="y0 = a", ond=ond, rnd=rnd)
    glay, offs, total = params_layout(spec)
    assert glay == geometry_layout(nin, nout, ond, rnd)
    ns = f"{spec.name}_ns"
    checks = [f"static_assert(sizeof({ns}::params) == {total}, \"size\");"]
    for field in ("in", "out", "temp", "m", "n", "n_total", "chunk", "nsplit", "mode",
                  "log_o", "inner", "temp_ostride", "temp_gstride", "oshape",
                  "ostride_in", "ostride_out", "rshape", "rstride"):
        checks.append(f"static_assert(__builtin_offsetof({ns}::params, g.{field}) == "
                      f"{glay[field]}, \"{field}\");")
    for (_, nm, _, _), off in zip(scalars, offs):
        checks.append(f"static_assert(__builtin_offsetof({ns}::params, {nm}) == {off}, "
                      f"\"{nm}\");")
    assert compile_cubin(reduction_source(spec) + "\n".join(checks) + "\n", spec.name)


# ------------------------------------------------- user ReductionKernel binding

def _bind(kernel, kinds, dts, out_dts, binding):
    return kernel._bind(kinds, [np.dtype(d) for d in dts], [np.dtype(d) for d in out_dts],
                        {k: np.dtype(v) for k, v in binding.items()})


def test_reduction_kernel_bindings_compile():
    l2 = ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
    dot = ReductionKernel("T x, T y", "T z", "x * y", "a + b", "z = a", "0", "dot")
    scaled = ReductionKernel("T x, float64 w, raw int32 lut", "float64 z",
                             "x * w + lut[0]", "a + b", "z = a / _n", "0", "scaled")
    argmin = ReductionKernel(
        "T x", "int64 i", "pair{x, _J}", "(b.v < a.v || (b.v == a.v && b.j < a.j)) ? b : a",
        "i = a.j", None, "my_argmin", reduce_type="pair",
        preamble="struct pair { double v; long long j; };")
    two = ReductionKernel("T x", "T lo, T hi", "mm{x, x}",
                          "mm{a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi}",
                          "lo = a.lo; hi = a.hi", None, "minmax", reduce_type="mm",
                          preamble="struct mm { float lo, hi; };")
    reds = [
        _bind(l2, "a", ["f4"], ["f4"], {"T": "f4"}),
        _bind(l2, "a", ["f8"], ["f8"], {"T": "f8"}),
        _bind(l2, "a", ["f2"], ["f2"], {"T": "f2"}),
        _bind(dot, "aa", ["c8", "c8"], ["c8"], {"T": "c8"}),
        _bind(dot, "aa", ["f4", "f4"], ["f4"], {"T": "f4"}),
        _bind(dot, "as", ["f8", "f8"], ["f8"], {"T": "f8"}),
        _bind(scaled, "asr", ["i2", "f8", "i4"], ["f8"], {"T": "i2"}),
        _bind(ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "acc",
                              reduce_type="double"), "a", ["f4"], ["f4"], {"T": "f4"}),
        _bind(argmin, "a", ["f8"], ["i8"], {"T": "f8"}),
        _bind(two, "a", ["f4"], ["f4", "f4"], {"T": "f4"}),
    ]
    assert reds[1].acc_type == "double" and reds[4].acc_type == "float"
    assert reds[2].acc_type == "gs::half" and reds[3].acc_type == "gs::complex<float>"
    assert reds[7].acc_type == "double"
    assert reds[8].ordered and not reds[0].ordered
    assert reds[8].identity is None
    sources = [r.source(*v) for r in reds
               for v in [(1, 1, True, 1), (2, 3, False, 1)]
               + ([(1, 1, True, 4)] if len(r.inputs) == 1 and r.inputs[0][0] == "float"
                  else [])]
    assert _compile_batches(sources, "user") == len(sources)


def test_reduction_kernel_parameter_errors():
    with pytest.raises(ValueError):
        ReductionKernel("T x", "", "x", "a + b", "", "0")
    with pytest.raises(ValueError):
        ReductionKernel("T x", "raw T y", "x", "a + b", "y = a", "0")


# ------------------------------------------------------------ axes

def test_normalize_axes():
    assert normalize_axes(None, 3) == (0, 1, 2)
    assert normalize_axes(-1, 3) == (2,)
    assert normalize_axes((2, 0), 3) == (0, 2)
    assert normalize_axes((), 3) == ()
    assert normalize_axes(None, 0) == ()
    with pytest.raises(np.exceptions.AxisError):
        normalize_axes(3, 3)
    with pytest.raises(np.exceptions.AxisError):
        normalize_axes(0, 0)
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        normalize_axes((0, -3), 3)
    with pytest.raises(TypeError):
        normalize_axes(1.0, 3)


# ------------------------------------------------- layout planning, emulated

class _Buffer:
    """Host memory standing in for device memory: arrays are strided views
    of one byte buffer, ``ptr`` is an address in a fake address space."""

    BASE = 1 << 20

    def __init__(self, nbytes):
        self.raw = np.zeros(nbytes + 64, np.uint8)
        self.used = 0

    def put(self, host, strides_from=None):
        """A view holding ``host``'s values with the layout of
        ``strides_from`` (a function of the C-contiguous copy)."""
        h = np.ascontiguousarray(host)
        off = -(-self.used // 16) * 16
        self.used = off + max(h.nbytes, 1)
        blk = np.ndarray(h.shape, h.dtype, self.raw, off)
        blk[...] = h
        view = blk if strides_from is None else strides_from(blk)
        ptr = self.BASE + view.__array_interface__["data"][0] - \
            self.raw.__array_interface__["data"][0]
        return view, types.SimpleNamespace(shape=view.shape, strides=view.strides,
                                           ndim=view.ndim, itemsize=view.itemsize,
                                           ptr=ptr)

    def read(self, addr, dt):
        o = addr - self.BASE
        return self.raw[o:o + dt.itemsize].view(dt)[0]

    def write(self, addr, dt, value):
        o = addr - self.BASE
        self.raw[o:o + dt.itemsize] = np.asarray(value, dt).reshape(1).view(np.uint8)


def _unravel(i, shape):
    idx = []
    for ln in reversed(shape):
        idx.append(i % ln if ln else 0)
        i //= ln if ln else 1
    return idx[::-1]


def _emulate(buf, launches, in_ptrs, in_dts, out_ptrs, out_dts, op):
    """Run the launches as reduction.cuh does (per output, per chunk),
    with the op given as Python functions (map, reduce, identity, post)."""
    mapf, reducef, ident, postf = op
    temp = {}
    for grid, f in launches:
        mode, m, n = f["mode"], f["m"], f["n"]
        for o in range(m):
            oidx = _unravel(o, f["oshape"])
            if mode == 2:
                acc = ident
                for g in range(f["nsplit"]):
                    acc = reducef(acc, temp[o * f["temp_ostride"] + g * f["temp_gstride"]])
            else:
                base = [p + sum(i * s for i, s in zip(oidx, st))
                        for p, st in zip(in_ptrs, f["ostride_in"])]
                for g in range(grid[1]):
                    c0 = g * f["chunk"]
                    c1 = min(c0 + f["chunk"], n)
                    assert c0 < n or n == 0
                    acc = ident
                    for r in range(c0, c1):
                        ridx = _unravel(r, f["rshape"])
                        vals = [buf.read(b + sum(i * s for i, s in zip(ridx, st)), dt)
                                for b, st, dt in zip(base, f["rstride"], in_dts)]
                        acc = reducef(acc, mapf(vals, r))
                    if mode == 1:
                        temp[o * f["temp_ostride"] + g * f["temp_gstride"]] = acc
            if mode != 1:
                for p, st, dt, v in zip(out_ptrs, f["ostride_out"], out_dts,
                                        postf(acc, f["n_total"])):
                    buf.write(p + sum(i * s for i, s in zip(oidx, st)), dt, v)


_SUM = (lambda v, j: float(v[0]), lambda a, b: a + b, 0.0, lambda a, n: (a,))
_ARGMIN = (lambda v, j: (float(v[0]), j),
           lambda a, b: b if (b[0], b[1]) < (a[0], a[1]) else a,
           (float("inf"), 1 << 62), lambda a, n: (a[1],))
_DEV = (lambda v, j: (float(v[0]) - float(v[1])) ** 2, lambda a, b: a + b, 0.0,
        lambda a, n: (a / n,))


def _check_case(shape, axes, keepdims, make_view, op, target=64, seed=0):
    rng = np.random.default_rng(seed)
    host = rng.integers(-50, 50, size=shape).astype(np.float32)
    buf = _Buffer(8 * host.size * 4 + 4096)
    x, dx = buf.put(host, make_view)
    xv = np.array(x)  # the logical values, C order
    inputs, in_dts = [dx], [x.dtype]
    if op is _ARGMIN:
        axis = None if len(axes) == x.ndim else axes[0]
        want = np.argmin(xv, axis=axis, keepdims=keepdims)
        out_dt = np.dtype(np.int64)
    elif op is _DEV:
        mean = xv.astype(np.float64).mean(axis=axes, keepdims=True)
        _, dm = buf.put(mean)
        inputs.append(dm)
        in_dts.append(mean.dtype)
        want = ((xv - mean) ** 2).mean(axis=axes, keepdims=keepdims)
        out_dt = np.dtype(np.float64)
    else:
        want = xv.astype(np.float64).sum(axis=axes, keepdims=keepdims)
        out_dt = np.dtype(np.float64)
    res, dres = buf.put(np.zeros(np.shape(want), out_dt))
    lay = plan_layout(inputs, [dres], x.shape, tuple(axes), keepdims, op is _ARGMIN)
    launches, _ = plan_launches(lay, target, 16)
    glay = geometry_layout(len(inputs), 1, len(lay.odims), len(lay.rdims))
    for _, fields in launches:
        assert len(pack_geometry(glay, fields)) == glay["size"]
    _emulate(buf, launches, [a.ptr + b for a, b in zip(inputs, lay.base)], in_dts,
             [dres.ptr], [out_dt], op)
    np.testing.assert_allclose(np.array(res), want, rtol=1e-12)
    return lay, launches


def _neg(a):
    return a[::-1, ::-1] if a.ndim >= 2 else a[::-1]


@pytest.mark.parametrize("shape,axes,keepdims,view", [
    ((37,), (0,), False, None),
    ((5, 7), (1,), False, None),
    ((5, 7), (0,), True, None),
    ((5, 7), (0, 1), False, None),
    ((4, 6, 5), (0, 2), False, None),
    ((4, 6, 5), (1,), True, None),
    ((6, 8), (0,), False, lambda a: a.T),
    ((6, 8), (1,), False, lambda a: a.T),
    ((6, 8), (0, 1), False, _neg),
    ((6, 8), (1,), False, _neg),
    ((3, 4, 5), (2,), False, lambda a: a.transpose(2, 0, 1)),
    ((12, 10), (0,), False, lambda a: a[::2, 1::3]),
    ((2, 3, 4, 5), (1, 3), True, lambda a: a.transpose(3, 1, 0, 2)[::-1]),
    ((1, 7, 1), (0, 1), False, None),
    ((0, 4), (0,), False, None),
    ((), (), False, None),
    ((5,), (), False, None),
])
@pytest.mark.parametrize("op", [_SUM, _ARGMIN, _DEV], ids=["sum", "argmin", "dev"])
def test_plan_emulated_matches_numpy(shape, axes, keepdims, view, op):
    """``shape`` is the shape of the memory block, ``view`` makes the
    (strided) input from it; ``axes`` refer to the view."""
    if op is _ARGMIN and (len(axes) not in (1, len(shape)) or 0 in shape or not axes):
        pytest.skip("argmin takes one axis or all")
    if op is _DEV and 0 in shape:
        pytest.skip("mean of empty")
    _check_case(shape, axes, keepdims, view, op)


def test_plan_split_long_reductions():
    # few outputs, long rows: the reduction is split along grid y and combined
    lay, launches = _check_case((2, 20000), (1,), False, None, _SUM, target=64)
    assert lay.inner and len(launches) == 2 and launches[0][0][1] > 1
    assert launches[1][1]["mode"] == 2
    # reduced axis slow in memory: outer layout, still split
    lay, launches = _check_case((5000, 3), (0,), False, None, _SUM, target=64)
    assert not lay.inner and len(launches) == 2
    lay, launches = _check_case((9000, 2), (0,), False, None, _ARGMIN, target=64)
    assert len(launches) == 2


def test_plan_layout_choices():
    def arr(shape, strides, itemsize=4, ptr=4096):
        return types.SimpleNamespace(shape=shape, strides=strides, ndim=len(shape),
                                     itemsize=itemsize, ptr=ptr)
    out1 = arr((), (), 4)
    # full contiguous reduction: one dimension, vector loads, 256 lanes
    lay = plan_layout([arr((1 << 20,), (4,))], [out1], (1 << 20,), (0,), False, False)
    assert (lay.inner, lay.vec, lay.lanes, lay.index32) == (True, 4, 256, True)
    assert len(lay.rdims) == 1 and lay.rdims[0][0] == 1 << 20
    # C-contiguous 3-D fully reduced collapses to one axis
    lay = plan_layout([arr((8, 16, 32), (2048, 128, 4))], [out1], (8, 16, 32),
                      (0, 1, 2), False, False)
    assert len(lay.rdims) == 1 and lay.vec == 4
    # misaligned pointer: no vector loads
    lay = plan_layout([arr((1024,), (4,), ptr=4100)], [out1], (1024,), (0,), False, False)
    assert lay.vec == 1
    # negative stride, unordered: flipped to positive with a base offset
    lay = plan_layout([arr((100,), (-4,))], [out1], (100,), (0,), False, False)
    assert lay.rdims[0][1][0] == 4 and lay.base[0] == -396
    # ordered (argmin): negative stride kept
    lay = plan_layout([arr((100,), (-4,))], [out1], (100,), (0,), False, True)
    assert lay.rdims[0][1][0] == -4 and lay.base[0] == 0
    # sum over axis 0 of a C matrix: outer layout (outputs are contiguous)
    out = arr((64,), (4,))
    lay = plan_layout([arr((1000, 64), (256, 4))], [out], (1000, 64), (0,), False, False)
    assert not lay.inner and lay.lanes == 8
    # short rows: a few lanes per output
    out = arr((100000,), (4,))
    lay = plan_layout([arr((100000, 6), (24, 4))], [out], (100000, 6), (1,), False, False)
    assert lay.inner and lay.lanes == 8
    # a 3 GiB input needs 64-bit offsets
    lay = plan_layout([arr((3 << 28,), (4,))], [out1], (3 << 28,), (0,), False, False)
    assert not lay.index32


def test_plan_launches_split_sizes():
    def arr(shape, strides, itemsize=4, ptr=4096):
        return types.SimpleNamespace(shape=shape, strides=strides, ndim=len(shape),
                                     itemsize=itemsize, ptr=ptr)
    n = 1 << 28
    lay = plan_layout([arr((n,), (4,))], [arr((), (), 4)], (n,), (0,), False, False)
    launches, temp = plan_launches(lay, 132 * 8, 8)
    (g1, f1), (g2, f2) = launches
    assert g1 == (1, f1["nsplit"]) and 500 < f1["nsplit"] <= 132 * 8
    assert f1["chunk"] % 4 == 0 and f1["chunk"] * f1["nsplit"] >= n
    assert (f1["chunk"] * (f1["nsplit"] - 1)) < n
    assert g2 == (1, 1) and f2["mode"] == 2 and temp == 8 * f1["nsplit"]
    # small reductions are not split
    lay = plan_layout([arr((1000,), (4,))], [arr((), (), 4)], (1000,), (0,), False, False)
    launches, temp = plan_launches(lay, 132 * 8, 8)
    assert len(launches) == 1 and temp == 0
