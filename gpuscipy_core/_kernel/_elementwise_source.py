"""Source renderer for elementwise kernels (the one place that writes them).

A kernel is a pure function of its spec; nothing here touches a device, so
CI compiles every rendered kernel with NVRTC.

Kernel parameter: one struct, laid out as

    long long n;                      // number of elements
    long long shape[ndim];            // only when ndim > 0 (strided mode)
    per array argument:  T* ptr; long long strides[ndim] (elements; strided mode)
    per scalar argument: T value      // at its natural alignment

``ndim == 0`` is the contiguous mode: every array is indexed by ``i``.
"""

import functools

__all__ = ["ArgSpec", "elementwise_source", "param_layout"]

# (kind, C type, name, itemsize, alignment); kind: "in", "out", "raw", "scalar"
ArgSpec = tuple


def param_layout(args, ndim):
    """Byte offsets of each argument in the parameter struct, and its size.

    Returns ``(offsets, strides_offsets, total_size)``; ``strides_offsets[k]``
    is None for scalars, raw pointers and in contiguous mode.
    """
    off = 8 + 8 * ndim
    offsets, soffs = [], []
    max_align = 8
    for kind, _, _, size, align in args:
        if kind == "scalar":
            off = (off + align - 1) // align * align
            offsets.append(off)
            soffs.append(None)
            off += size
            max_align = max(max_align, align)
        else:
            off = (off + 7) // 8 * 8
            offsets.append(off)
            off += 8
            if ndim and kind != "raw":
                soffs.append(off)
                off += 8 * ndim
            else:
                soffs.append(None)
    total = (off + max_align - 1) // max_align * max_align
    return tuple(offsets), tuple(soffs), total


@functools.lru_cache(maxsize=4096)
def elementwise_source(name, args, body, ndim=0, index32=True, vec=1, preamble=""):
    """CUDA C++ source of one elementwise kernel.

    Parameters
    ----------
    name : str
        The ``extern "C"`` kernel name (it encodes the spec).
    args : tuple of ArgSpec
        ``(kind, ctype, name, itemsize, align)`` per argument.
    body : str
        C++ statements; array arguments are visible as references named by
        their ``name``, scalars as constants, raw arrays as pointers ``name``;
        ``i`` is the linear index and ``_n`` the number of elements.
    ndim : int
        0 for the contiguous mode, else the number of (collapsed) dimensions.
    index32 : bool
        Use 32-bit indexing (all offsets fit in int32).
    vec : int
        Elements per vector access in the contiguous mode (1: none). Only for
        bodies that do not read their outputs.
    preamble : str
        Extra device code placed before the kernel.
    """
    fields = ["long long n;"]
    if ndim:
        fields.append(f"long long shape[{ndim}];")
    for kind, ctype, nm, _, _ in args:
        if kind == "scalar":
            fields.append(f"{ctype} v_{nm};")
        else:
            fields.append(f"{ctype}* p_{nm};")
            if ndim and kind != "raw":
                fields.append(f"long long s_{nm}[{ndim}];")
    idx = "unsigned int" if index32 else "unsigned long long"
    lines = [
        "#include <gpuscipy/core.cuh>",
        "#include <gpuscipy/elementwise.cuh>",
        preamble,
        f"struct {name}_params {{ " + " ".join(fields) + " };",
        f'extern "C" __global__ void __launch_bounds__(256) {name}(const {name}_params _gs_p) {{',
        f"  typedef {idx} I;",
        "  const I _n = (I)_gs_p.n;",
        "  const I _stride = (I)gridDim.x * blockDim.x;",
        "  I _tid = (I)blockIdx.x * blockDim.x + threadIdx.x;",
    ]
    scalars = [f"  const {ct} {nm} = _gs_p.v_{nm};" for k, ct, nm, _, _ in args
               if k == "scalar"]
    raws = [f"  {ct}* const {nm} = _gs_p.p_{nm};" for k, ct, nm, _, _ in args
            if k == "raw"]
    lines += scalars + raws
    arrays = [(k, ct, nm) for k, ct, nm, _, _ in args if k in ("in", "out")]
    if ndim == 0 and vec > 1:
        lines += [f"  const I _nv = _n / {vec};",
                  "  for (I _v = _tid; _v < _nv; _v += _stride) {"]
        for k, ct, nm in arrays:
            if k == "in":
                lines.append(f"    const gs::vec<{ct}, {vec}> _a_{nm} = "
                             f"*(const gs::vec<{ct}, {vec}>*)(_gs_p.p_{nm} + (size_t)_v * {vec});")
            else:
                lines.append(f"    gs::vec<{ct}, {vec}> _a_{nm};")
        lines.append("    #pragma unroll")
        lines.append(f"    for (int _k = 0; _k < {vec}; ++_k) {{")
        lines.append(f"      const I i = _v * {vec} + _k; (void)i;")
        for k, ct, nm in arrays:
            if k == "in":
                lines.append(f"      const {ct} {nm} = _a_{nm}.v[_k];")
            else:
                lines.append(f"      {ct}& {nm} = _a_{nm}.v[_k];")
        lines.append(f"      {body}")
        lines.append("    }")
        for k, ct, nm in arrays:
            if k == "out":
                lines.append(f"    *(gs::vec<{ct}, {vec}>*)(_gs_p.p_{nm} + (size_t)_v * {vec}) = _a_{nm};")
        lines.append("  }")
        lines.append(f"  _tid += _nv * {vec};")
    lines.append("  for (I i = _tid; i < _n; i += _stride) {")
    if ndim == 0:
        for k, ct, nm in arrays:
            lines.append(f"    {ct}& {nm} = _gs_p.p_{nm}[i];")
    else:
        lines.append("    I _r = i;")
        lines.append("    " + " ".join(f"long long _o_{nm} = 0;" for _, _, nm in arrays))
        lines.append("    #pragma unroll")
        lines.append(f"    for (int _d = {ndim - 1}; _d >= 0; --_d) {{")
        lines.append("      const I _len = (I)_gs_p.shape[_d];")
        lines.append("      const I _c = _r % _len; _r /= _len;")
        for _, _, nm in arrays:
            lines.append(f"      _o_{nm} += (long long)_c * _gs_p.s_{nm}[_d];")
        lines.append("    }")
        for k, ct, nm in arrays:
            lines.append(f"    {ct}& {nm} = _gs_p.p_{nm}[_o_{nm}];")
    lines.append(f"    {body}")
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"
