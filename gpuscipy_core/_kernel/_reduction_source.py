"""Source renderer for reduction kernels (the one place that writes them).

A kernel is a pure function of its :class:`ReductionSpec`; nothing here
touches a device, so CI compiles every rendered kernel with NVRTC. The
device engine is ``gpuscipy/reduction.cuh``; this module only writes the
operation (an ``op`` struct holding the map, reduce and post-map
expressions), the parameter struct and the ``extern "C"`` entry point, all
inside a namespace named after the kernel so several kernels can share one
translation unit.

Kernel parameter: one struct (``<name>_ns::params``)::

    gs::red::geometry<NIN, NOUT, OND, RND> g;   // 8-byte fields, see
                                                // geometry_layout()
    <scalar and raw-pointer fields, each at its natural alignment>

Each source also defines ``unsigned char <name>_acc[sizeof(acc_t)]`` so the
host learns the size of a partial result (for the buffer of the two-launch
split) from the symbol's size, without a device copy.
"""

import functools
import re
from typing import NamedTuple

__all__ = ["ReductionSpec", "reduction_source", "kernel_name", "geometry_layout",
           "params_layout", "BLOCK"]

#: Threads per block of every reduction kernel (``gs::red::kBlock``).
BLOCK = 256

_GEOMETRY_SCALARS = ("m", "n", "n_total", "chunk", "nsplit", "mode", "log_o",
                     "inner", "temp_ostride", "temp_gstride")


class ReductionSpec(NamedTuple):
    """Everything that decides a reduction kernel's source.

    Attributes
    ----------
    name : str
        The ``extern "C"`` symbol (see :func:`kernel_name`).
    inputs : tuple of (ctype, name)
        Array inputs, read per element (broadcast and strided).
    outputs : tuple of (ctype, name)
        Output arrays, written by the post-map.
    scalars : tuple of (ctype, name, size, alignment)
        Values passed by value in the parameter struct (raw arrays are
        pointer-typed scalars, ``"T*"``).
    typedefs : tuple of (name, ctype)
        Type placeholders (``T``) and their bound C types.
    acc_type : str
        The reduce type (``a`` and ``b`` have it).
    map_expr, reduce_expr, post_expr : str
        CuPy's ``map_expr`` (inputs, scalars, ``_J``), ``reduce_expr``
        (``a``, ``b``) and ``post_map_expr`` (``a``, outputs, ``_n``).
    identity : str or None
        Identity of the reduction (None: the kernel tracks empty lanes).
    preamble : str
        Device code placed before the operation.
    ond, rnd : int
        Number of (collapsed) output and reduce dimensions, at least 1.
    index32 : bool
        32-bit index arithmetic (every offset fits in int32).
    vec : int
        Elements per 16-byte vector load on the contiguous path (1: none;
        only with one array input).
    """

    name: str
    inputs: tuple
    outputs: tuple
    scalars: tuple
    typedefs: tuple
    acc_type: str
    map_expr: str
    reduce_expr: str
    post_expr: str
    identity: object
    preamble: str
    ond: int
    rnd: int
    index32: bool
    vec: int


def kernel_name(prefix, ond, rnd, index32, vec):
    """The symbol of a kernel: ``prefix`` (operation and dtypes) and layout."""
    return (f"{prefix}_o{ond}r{rnd}_{'i32' if index32 else 'i64'}"
            + (f"_v{vec}" if vec > 1 else ""))


def geometry_layout(nin, nout, ond, rnd):
    """Byte offsets of the fields of ``gs::red::geometry<nin, nout, ond, rnd>``.

    Returns a dict: ``"in"``, ``"out"`` (offset of the pointer arrays),
    ``"temp"``, one entry per scalar field (``"m"``, ``"n"``, ...),
    ``"oshape"``, ``"ostride_in"``, ``"ostride_out"``, ``"rshape"``,
    ``"rstride"`` (arrays are row-major, 8 bytes per element) and
    ``"size"``.
    """
    off = 0
    lay = {"in": off}
    off += 8 * nin
    lay["out"] = off
    off += 8 * nout
    lay["temp"] = off
    off += 8
    for f in _GEOMETRY_SCALARS:
        lay[f] = off
        off += 8
    lay["oshape"] = off
    off += 8 * ond
    lay["ostride_in"] = off
    off += 8 * nin * ond
    lay["ostride_out"] = off
    off += 8 * nout * ond
    lay["rshape"] = off
    off += 8 * rnd
    lay["rstride"] = off
    off += 8 * nin * rnd
    lay["size"] = off
    return lay


def params_layout(spec):
    """``(geometry_layout, scalar_offsets, total_size)`` of ``spec``'s
    parameter struct, following the C layout rules."""
    g = geometry_layout(len(spec.inputs), len(spec.outputs), spec.ond, spec.rnd)
    off = g["size"]
    max_align = 8
    offs = []
    for _, _, size, align in spec.scalars:
        off = (off + align - 1) // align * align
        offs.append(off)
        off += size
        max_align = max(max_align, align)
    total = (off + max_align - 1) // max_align * max_align
    return g, tuple(offs), total


_IDENT = re.compile(r"[^A-Za-z0-9_]")


def _indent(text, n):
    pad = " " * n
    return "\n".join(pad + line if line.strip() else line for line in text.splitlines())


@functools.lru_cache(maxsize=2048)
def reduction_source(spec):
    """CUDA C++ source of the reduction kernel described by ``spec``."""
    if _IDENT.search(spec.name):
        raise ValueError(f"invalid kernel name {spec.name!r}")
    nin, nout = len(spec.inputs), len(spec.outputs)
    if nin < 1 or nout < 1:
        raise ValueError("a reduction needs at least one array input and one output")
    if spec.ond < 1 or spec.rnd < 1:
        raise ValueError("ond and rnd must be at least 1")
    if spec.vec > 1 and nin != 1:
        raise ValueError("vector loads need exactly one array input")
    ns = f"{spec.name}_ns"
    idx = "int" if spec.index32 else "long long"
    has_id = spec.identity is not None

    typedefs = "\n".join(f"typedef {ct} {nm};" for nm, ct in spec.typedefs)
    fields = "\n".join(f"  {ct} {nm};" for ct, nm, _, _ in spec.scalars)
    scalar_locals = "".join(f"    {ct} const {nm} = _p.{nm}; (void){nm};\n"
                            for ct, nm, _, _ in spec.scalars)
    loads = "".join(
        f"    const {ct}& {nm} = *reinterpret_cast<const {ct}*>(_in[{k}] + _off[{k}]);\n"
        for k, (ct, nm) in enumerate(spec.inputs))
    stores = "".join(
        f"    gs::red::out_ref<{ct}> {nm}{{reinterpret_cast<{ct}*>(_out[{k}] + _off[{k}])}};\n"
        for k, (ct, nm) in enumerate(spec.outputs))
    identity = (f"  __device__ __forceinline__ static acc_t identity() "
                f"{{ return acc_t({spec.identity}); }}\n" if has_id else "")
    if nin == 1:
        ct0, nm0 = spec.inputs[0]
        map_value = (
            f"  __device__ __forceinline__ static acc_t map_value(const params& _p, "
            f"const in0_t& {nm0}, long long _J) {{\n"
            f"{scalar_locals}"
            f"    (void)_J;\n"
            f"    return acc_t({spec.map_expr});\n"
            f"  }}\n")
        in0 = f"  typedef {ct0} in0_t;\n"
    else:
        map_value = ""
        in0 = ""
    post = spec.post_expr.strip()
    if post and not post.endswith((";", "}")):
        post += ";"
    lines = [
        "#include <gpuscipy/core.cuh>",
        "#include <gpuscipy/reduction.cuh>",
        f"namespace {ns} {{",
        typedefs,
        spec.preamble,
        "struct params {",
        f"  gs::red::geometry<{nin}, {nout}, {spec.ond}, {spec.rnd}> g;",
        fields,
        "};",
        "struct op {",
        f"  typedef {spec.acc_type} acc_t;",
        "  typedef acc_t _type_reduce;",
        in0 + identity.rstrip("\n"),
        "  __device__ __forceinline__ static acc_t reduce(const acc_t& a, const acc_t& b) {",
        f"    return acc_t({spec.reduce_expr});",
        "  }",
        "  template <class I>",
        "  __device__ __forceinline__ static acc_t load_map(const params& _p, "
        "const char* const* _in, const I* _off, long long _J) {",
        loads + scalar_locals + "    (void)_J;",
        f"    return acc_t({spec.map_expr});",
        "  }",
        map_value.rstrip("\n"),
        "  template <class I>",
        "  __device__ __forceinline__ static void store_post(const params& _p, "
        "const acc_t& a, char* const* _out, const I* _off, long long _n) {",
        stores + scalar_locals + "    (void)_n;",
        f"    {post}",
        "  }",
        "};",
        f"}}  // namespace {ns}",
        "// sizeof(acc_t), read by the host from the symbol's size (temp buffers)",
        f'extern "C" __device__ unsigned char {spec.name}_acc[sizeof({ns}::op::acc_t)];',
        f'extern "C" __global__ void __launch_bounds__({BLOCK}) '
        f"{spec.name}(const {ns}::params p) {{",
        f"  gs::red::reduce<{ns}::op, {ns}::params, {nin}, {nout}, {spec.ond}, "
        f"{spec.rnd}, {idx}, {spec.vec}, {'true' if has_id else 'false'}>(p);",
        "}",
    ]
    return "\n".join(line for line in lines if line != "") + "\n"
