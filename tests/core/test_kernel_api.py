"""The kernel layer: the public kernel API (ElementwiseKernel, RawKernel,
RawModule; GPU), the compiled-kernel cache (no GPU), NVRTC compiles of
every elementwise kernel the engine renders (no GPU: this is what CI checks)
and the forms user code takes (with or without a final ``;``, comments;
compiled without a GPU, run on one).

The sources compiled here are rendered exactly the way
``gpuscipy_core._elementwise.run_elementwise`` and ``ufunc.__call__`` render
them: the same argument specs, bodies, kernel names, layouts (contiguous,
vectorised, strided ndim 1-4, 64-bit index). Kernels are batched into one
translation unit per ufunc / per dtype (names are unique, headers are
``#pragma once``) and the translation units compile in a thread pool (NVRTC
releases the GIL); a failing unit is recompiled kernel by kernel so the
report names the culprit.
"""

import collections
import concurrent.futures
import glob
import os
import uuid

import numpy as np
import pytest

from gpuscipy_core._kernel import _cache
from gpuscipy_core._kernel._elementwise_source import elementwise_source, param_layout
from gpuscipy_core._kernel._nvrtc import NVRTCError, compile_cubin
from gpuscipy_core._kernel._reduction_kernel import ReductionKernel
from gpuscipy_core._kernel._ufunc_names import UFUNC_NAMES, ctype, supported_loops
from gpuscipy_core._kernel._user_kernels import ElementwiseKernel, normalize_code
from gpuscipy_core._transpose import transpose_source

from ._parity import ALL_DTYPES, assert_parity, dtype_id, random_array

gpu = pytest.mark.gpu


# ======================================================================
# Rendering, as the engine does it
# ======================================================================

def _code(dt):
    return np.dtype(dt).str[1:]


def _arg(kind, dt, nm):
    """The ArgSpec ``_elementwise._entry`` builds for ``(kind, dtype, name)``.

    Complex scalars align to their full size: ``gs::complex<T>`` is
    ``alignas(2 * sizeof(T))`` (test_param_layout_matches_the_device_struct
    checks this against the struct NVRTC sees).
    """
    dt = np.dtype(dt)
    return (kind, ctype(dt), nm, dt.itemsize,
            dt.itemsize if dt.kind == "c" else dt.alignment)


def _kernel_name(prefix, nd, index32, vec):
    return (f"{prefix}_{'c' if nd == 0 else 'g%d' % nd}{'' if index32 else '_i64'}"
            f"{'_v%d' % vec if vec > 1 else ''}")


def _vec(specs, nd, vec_ok):
    """The vector width run_elementwise picks for an aligned contiguous launch
    of at least 16 elements."""
    if nd or not vec_ok:
        return 1
    maxsize = max(np.dtype(d).itemsize for k, d, _ in specs if k in ("in", "out"))
    return max(16 // maxsize, 1)


def _render(prefix, specs, body, nd=0, index32=True, vec=1, preamble=""):
    name = _kernel_name(prefix, nd, index32, vec)
    args = tuple(_arg(*s) for s in specs)
    return name, elementwise_source(name, args, body, nd, index32, vec, preamble)


def _copy_kernel(src, dst, nd=0, index32=True, vec=1):
    """``_elementwise._copy_into``'s kernel (copy_array, astype, setitem)."""
    src, dst = np.dtype(src), np.dtype(dst)
    return _render(f"gs_copy_{_code(src)}_{_code(dst)}",
                   (("in", src, "x"), ("out", dst, "y")),
                   f"y = gs::cast<{ctype(dst)}>(x);", nd, index32, vec)


def _ufunc_kernel(name, in_dts, out_dts, *, operand_dts=None, scalars=(),
                  out_arrays=None, mask=False, nd=0, index32=True, vectorise=True):
    """The kernel ``ufunc.__call__`` launches for loop ``(in_dts, out_dts)``.

    ``operand_dts``: dtypes of the device-array inputs (cast on the fly when
    they differ from the loop's); ``scalars``: input positions given as
    Python scalars; ``out_arrays``: dtypes of the ``out=`` arrays; ``mask``:
    a ``where=`` array.
    """
    nin, nout = len(in_dts), len(out_dts)
    operand_dts = in_dts if operand_dts is None else operand_dts
    out_arrays = out_dts if out_arrays is None else out_arrays
    specs, pre, callargs = [], [name], []
    for k in range(nin):
        nm = f"in{k}"
        if k in scalars:
            specs.append(("scalar", in_dts[k], nm))
            pre.append("s" + _code(in_dts[k]))
            callargs.append(nm)
        else:
            d = np.dtype(operand_dts[k])
            specs.append(("in", d, nm))
            pre.append(_code(d))
            callargs.append(nm if d == in_dts[k] else f"gs::cast<{ctype(in_dts[k])}>({nm})")
    pre.append("to")
    for k in range(nout):
        specs.append(("out", out_arrays[k], f"out{k}"))
        pre.append(_code(out_arrays[k]))
    pre.append("via")
    pre.extend(_code(d) for d in tuple(in_dts) + tuple(out_dts))
    func = f"gs::{name}"
    if nout == 1:
        body = (f"const {ctype(out_dts[0])} _r0 = {func}({', '.join(callargs)}); "
                f"out0 = gs::cast<{ctype(out_arrays[0])}>(_r0);")
    else:
        body = ("".join(f"{ctype(out_dts[k])} _r{k}; " for k in range(nout))
                + f"{func}({', '.join(callargs + [f'_r{k}' for k in range(nout)])}); "
                + " ".join(f"out{k} = gs::cast<{ctype(out_arrays[k])}>(_r{k});"
                           for k in range(nout)))
    if mask:
        specs.append(("in", np.dtype(bool), "mask"))
        pre.append("w" + _code(bool))
        body = f"if (gs::cast<bool>(mask)) {{ {body} }}"
    vec = _vec(specs, nd, vectorise and not mask)
    return _render("gs_" + "_".join(pre), tuple(specs), body, nd, index32, vec)


def _wider_output(dt):
    """An ``out=`` dtype NumPy's same_kind casting accepts for a ``dt`` result
    and that differs from it (exercises the output cast)."""
    dt = np.dtype(dt)
    for cand in ("complex128", "float64", "int64", "uint64"):
        c = np.dtype(cand)
        if c != dt and np.can_cast(dt, c, "same_kind"):
            return c
    return dt


def ufunc_kernels(name):
    """Every layout variant of every supported loop of ufunc ``name``."""
    out = {}
    for in_dts, out_dts in supported_loops(name):
        variants = [
            # contiguous, vectorised as for >= 16 aligned elements
            dict(),
            # contiguous, fewer than 16 elements / misaligned
            dict(vectorise=False),
            # strided (broadcast / views), collapsed to 2 dims
            dict(nd=2),
            # mixed-dtype inputs cast in the kernel, output cast on store,
            # 64-bit indexing, 4 dims
            dict(operand_dts=tuple(np.dtype(bool) for _ in in_dts),
                 out_arrays=tuple(_wider_output(d) for d in out_dts), nd=4,
                 index32=False),
            # where= mask with out=, 1 dim
            dict(mask=True, nd=1),
        ]
        if len(in_dts) == 2:
            # Python scalar operands, either side
            variants.append(dict(scalars=(1,)))
            variants.append(dict(scalars=(0,), nd=3))
        for kw in variants:
            kname, src = _ufunc_kernel(name, in_dts, out_dts, **kw)
            out[kname] = src
    return out


_LAYOUTS = [dict(nd=0), dict(nd=1), dict(nd=2), dict(nd=3), dict(nd=4),
            dict(nd=0, index32=False), dict(nd=2, index32=False)]


def copy_kernels(dtype):
    """Copies from ``dtype`` to each of the 14 dtypes (contiguous and
    vectorised), and the same-dtype copy in every layout."""
    dtype = np.dtype(dtype)
    out = {}
    for dst in ALL_DTYPES:
        specs = (("in", dtype, "x"), ("out", dst, "y"))
        for vec in sorted({1, _vec(specs, 0, True)}):
            kname, src = _copy_kernel(dtype, dst, 0, True, vec)
            out[kname] = src
    same = (("in", dtype, "x"), ("out", dtype, "y"))
    for lay in _LAYOUTS:
        vecs = {1}
        if lay["nd"] == 0:
            vecs.add(_vec(same, 0, True))
        for vec in sorted(vecs):
            kname, src = _copy_kernel(dtype, dtype, lay["nd"],
                                      lay.get("index32", True), vec)
            out[kname] = src
    # fill (``ndarray.fill``, ``zeros``, ``ones``, ``full``)
    fill_specs = (("scalar", dtype, "v"), ("out", dtype, "y"))
    for nd, vec in ((0, 1), (0, _vec(fill_specs, 0, True)), (3, 1)):
        kname, src = _render(f"gs_fill_{_code(dtype)}", fill_specs, "y = v;", nd,
                             True, vec)
        out[kname] = src
    return out


# ======================================================================
# Batched compiles
# ======================================================================

def _compile_batch(kernels, label):
    """Compile ``{name: source}`` as one translation unit; on failure
    recompile each kernel alone and raise naming every failing kernel."""
    try:
        compile_cubin("\n".join(kernels.values()), label)
        return None
    except NVRTCError:
        pass
    failures = []
    for kname, src in kernels.items():
        try:
            compile_cubin(src, kname)
        except NVRTCError as e:
            failures.append(str(e))
    if not failures:
        return f"{label}: the batch failed but every kernel compiles alone"
    return (f"{len(failures)} of {len(kernels)} kernels of {label} fail to compile:\n\n"
            + "\n\n".join(failures[:5]))


def _job(key):
    kind, what = key
    kernels = ufunc_kernels(what) if kind == "ufunc" else copy_kernels(what)
    return _compile_batch(kernels, f"{kind} {what}")


@pytest.fixture(scope="module")
def batches(request):
    """Futures of the batches the selected tests of this module need, all
    submitted at once (in test order) to a thread pool."""
    keys = []
    for item in request.session.items:
        if item.module is not request.module or not hasattr(item, "callspec"):
            continue
        if item.originalname == "test_ufunc_kernels_compile":
            keys.append(("ufunc", item.callspec.params["name"]))
        elif item.originalname == "test_copy_and_fill_kernels_compile":
            keys.append(("copy", np.dtype(item.callspec.params["dtype"]).name))
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2))
    futures = {k: pool.submit(_job, k) for k in dict.fromkeys(keys)}
    yield lambda key: (futures[key] if key in futures else pool.submit(_job, key)).result()
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("name", UFUNC_NAMES)
def test_ufunc_kernels_compile(name, batches):
    assert ufunc_kernels(name), f"{name} has no supported loop"
    err = batches(("ufunc", name))
    assert err is None, err


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_copy_and_fill_kernels_compile(dtype, batches):
    err = batches(("copy", np.dtype(dtype).name))
    assert err is None, err


def test_transpose_kernels_compile():
    srcs = {f"gs_transpose_copy_{k}": transpose_source(k) for k in (1, 2, 4, 8, 16)}
    for k, src in srcs.items():
        assert 'extern "C" __global__' in src and k in src
    err = _compile_batch(srcs, "transpose copies")
    assert err is None, err


def test_transpose_source_rejects_other_itemsizes():
    with pytest.raises(KeyError):
        transpose_source(3)


def test_elementwise_kernel_names_encode_the_spec():
    a = _ufunc_kernel("add", (np.dtype("f4"),) * 2, (np.dtype("f4"),))[0]
    b = _ufunc_kernel("add", (np.dtype("f4"),) * 2, (np.dtype("f4"),), nd=2)[0]
    c = _ufunc_kernel("add", (np.dtype("f8"),) * 2, (np.dtype("f8"),))[0]
    assert len({a, b, c}) == 3
    assert a == "gs_add_f4_f4_to_f4_via_f4_f4_f4_c_v4"
    assert b == "gs_add_f4_f4_to_f4_via_f4_f4_f4_g2"


def test_elementwise_source_is_pure_and_memoised():
    args = (_arg("in", "f4", "x"), _arg("out", "f8", "y"))
    s1 = elementwise_source("k1", args, "y = x;", 2, True, 1)
    s2 = elementwise_source("k1", args, "y = x;", 2, True, 1)
    assert s1 is s2
    assert 'extern "C" __global__' in s1 and "k1(" in s1
    assert "long long shape[2];" in s1
    assert "unsigned int" in s1
    s64 = elementwise_source("k2", args, "y = x;", 2, False, 1)
    assert "unsigned long long" in s64


@pytest.mark.parametrize("ndim", [0, 1, 3])
def test_param_layout(ndim):
    args = (_arg("in", "f8", "a"), _arg("scalar", "i1", "s"),
            _arg("scalar", "c16", "z"), _arg("raw", "f4", "r"), _arg("out", "i2", "o"))
    offsets, soffs, size = param_layout(args, ndim)
    assert offsets[0] == 8 + 8 * ndim
    assert soffs[0] == (offsets[0] + 8 if ndim else None)
    assert soffs[1] is soffs[2] is soffs[3] is None
    assert offsets[2] % 16 == 0  # complex128 at gs::complex<double>'s alignment
    assert offsets[3] % 8 == 0
    assert (soffs[4] is not None) == bool(ndim)
    assert size % 8 == 0 and size >= offsets[4] + 8 + 8 * ndim


# Argument lists covering each dtype as a scalar after every kind of field
_LAYOUT_SPECS = [
    lambda d: (("scalar", d, "s"), ("in", "f8", "x"), ("out", d, "y")),
    lambda d: (("scalar", "?", "a"), ("scalar", d, "s"), ("in", "f8", "x"),
               ("scalar", d, "t"), ("raw", "i4", "r"), ("out", d, "y")),
    lambda d: (("in", d, "x"), ("scalar", "i1", "b"), ("scalar", d, "s"),
               ("scalar", "f2", "h"), ("scalar", d, "t"), ("out", "f8", "y")),
]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_param_layout_matches_the_device_struct(dtype):
    """The host packs kernel parameters with ``param_layout`` (what
    run_elementwise uses); the kernel reads them through the struct that
    ``elementwise_source`` declares. NVRTC checks, for every field, that the
    alignment and size the host assumes are the C type's, and that the struct
    has the size the host packs. (Field offsets follow from these; NVRTC 13.0
    has no usable ``__builtin_offsetof``.)"""
    parts = []
    for k, make in enumerate(_LAYOUT_SPECS):
        specs = make(np.dtype(dtype))
        out_dt = np.dtype([d for kind, d, nm in specs if kind == "out"][0])
        for nd in (0, 3):
            name = f"gs_layout_{np.dtype(dtype).str[1:]}_{k}_{nd}"
            args = tuple(_arg(*sp) for sp in specs)
            src = elementwise_source(name, args, f"y = gs::cast<{ctype(out_dt)}>(x);", nd)
            _, _, size = param_layout(args, nd)
            checks = []
            for kind, ct, nm, itemsize, align in args:
                if kind == "scalar":
                    checks.append(
                        f'static_assert(alignof({ct}) == {align}, "{name}: host aligns '
                        f'scalar {nm} ({ct}) to {align} bytes, the struct does not");\n'
                        f'static_assert(sizeof({ct}) == {itemsize}, "{name}: host packs '
                        f'{itemsize} bytes for {nm} ({ct})");\n')
            checks.append(f'static_assert(sizeof({name}_params) == {size}, '
                          f'"{name}: param_layout packs {size} bytes, sizeof(struct) '
                          f'differs");\n')
            parts.append(src + "".join(checks))
    try:
        compile_cubin("\n".join(parts), f"layout_{np.dtype(dtype).name}")
    except NVRTCError as e:
        msgs = [ln for ln in e.log.splitlines() if "static assertion" in ln]
        pytest.fail("host parameter packing disagrees with the kernel struct:\n"
                    + "\n".join(msgs[:12] or [str(e)]))


# ======================================================================
# NVRTC errors
# ======================================================================

_BAD = """extern "C" __global__ void bad(float* x) {
  int ok = 1;
  x[0] = undefined_identifier_xyz + ok;
}
"""


def test_compile_error_raises_nvrtc_error_with_log_and_source():
    with pytest.raises(NVRTCError) as info:
        compile_cubin(_BAD, "bad")
    e = info.value
    assert isinstance(e, RuntimeError)
    assert e.name == "bad"
    assert e.source == _BAD
    assert "undefined_identifier_xyz" in e.log
    msg = str(e)
    assert "bad" in msg and "undefined_identifier_xyz" in msg
    # the excerpt marks the failing line (3) with '>' and numbers the lines
    assert ">    3 | " in msg
    assert "     2 | " in msg


def test_compile_error_in_a_rendered_elementwise_kernel_shows_the_body():
    name, src = _render("gs_broken", (("in", "f4", "x"), ("out", "f4", "y")),
                        "y = no_such_function_abc(x);")
    with pytest.raises(NVRTCError) as info:
        compile_cubin(src, name)
    assert "no_such_function_abc" in str(info.value)
    assert ">" in str(info.value)


def test_nvrtc_error_is_public_in_cuda_module():
    from gpuscipy_core import cuda
    from gpuscipy_core import _kernel
    assert cuda.NVRTCError is NVRTCError is _kernel.NVRTCError


# ======================================================================
# The compiled-kernel cache (no GPU)
# ======================================================================

def _tiny_source():
    # unique per call, so no other test's entry can interfere
    return (f"// {uuid.uuid4().hex}\n"
            'extern "C" __global__ void tiny(float* x) { x[threadIdx.x] *= 2.0f; }\n')


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "kernels"
    monkeypatch.setenv("GPUSCIPY_CACHE_DIR", str(d))
    return d


def _entries(d):
    return sorted(glob.glob(os.path.join(str(d), "**", "*.cubin"), recursive=True))


def _delta(before):
    now = _cache.stats()
    return {k: now[k] - before[k] for k in now}


def test_cache_dir_follows_environment(cache_dir):
    assert _cache.cache_dir() == str(cache_dir)


def test_cache_memory_then_disk_hit(cache_dir):
    src = _tiny_source()
    s0 = _cache.stats()
    cubin = _cache.get_cubin(src, "tiny")
    assert isinstance(cubin, bytes) and cubin[:4] == b"\x7fELF"
    assert _delta(s0) == {"nvrtc_compiles": 1, "disk_hits": 0, "memory_hits": 0,
                          "disk_rebuilds": 0}
    files = _entries(cache_dir)
    assert len(files) == 1
    assert not glob.glob(os.path.join(str(cache_dir), "**", "*.tmp"), recursive=True)
    # second call: memory
    s1 = _cache.stats()
    assert _cache.get_cubin(src, "tiny") == cubin
    assert _delta(s1) == {"nvrtc_compiles": 0, "disk_hits": 0, "memory_hits": 1,
                          "disk_rebuilds": 0}
    # after clearing memory: disk
    _cache._memory.clear()
    s2 = _cache.stats()
    assert _cache.get_cubin(src, "tiny") == cubin
    assert _delta(s2) == {"nvrtc_compiles": 0, "disk_hits": 1, "memory_hits": 0,
                          "disk_rebuilds": 0}
    assert _entries(cache_dir) == files


def test_cache_key_sees_options_and_arch(cache_dir):
    src = _tiny_source()
    s0 = _cache.stats()
    a = _cache.get_cubin(src, "tiny")
    b = _cache.get_cubin(src, "tiny", options=("-DGS_TEST=1",))
    c = _cache.get_cubin(src, "tiny", arch="sm_80")
    assert _delta(s0)["nvrtc_compiles"] == 3
    assert len(_entries(cache_dir)) == 3
    assert a != c
    assert isinstance(b, bytes)


def _corrupt_truncate(path):
    with open(path, "rb") as f:
        blob = f.read()
    with open(path, "wb") as f:
        f.write(blob[: len(blob) // 2])


def _corrupt_flip(path):
    with open(path, "rb") as f:
        blob = bytearray(f.read())
    blob[-10] ^= 0xFF  # inside the payload: the checksum no longer matches
    with open(path, "wb") as f:
        f.write(bytes(blob))


def _corrupt_empty(path):
    open(path, "wb").close()


def _corrupt_garbage(path):
    with open(path, "wb") as f:
        f.write(os.urandom(4096))


def _corrupt_header_only(path):
    with open(path, "rb") as f:
        blob = f.read()
    with open(path, "wb") as f:
        f.write(blob[:20])


def _corrupt_wrong_length(path):
    with open(path, "rb") as f:
        blob = f.read()
    with open(path, "wb") as f:
        f.write(blob + b"extra bytes")


CORRUPTIONS = {
    "truncated": _corrupt_truncate,
    "bit_flip": _corrupt_flip,
    "empty": _corrupt_empty,
    "garbage": _corrupt_garbage,
    "header_only": _corrupt_header_only,
    "trailing_bytes": _corrupt_wrong_length,
}


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_corrupt_cache_entry_is_rebuilt(cache_dir, corruption):
    src = _tiny_source()
    good = _cache.get_cubin(src, "tiny")
    (path,) = _entries(cache_dir)
    CORRUPTIONS[corruption](path)
    _cache._memory.clear()
    s0 = _cache.stats()
    again = _cache.get_cubin(src, "tiny")
    d = _delta(s0)
    assert d["disk_rebuilds"] == 1
    assert d["nvrtc_compiles"] == 1
    assert d["disk_hits"] == 0
    assert again[:4] == b"\x7fELF"
    assert again == good
    # the entry was rewritten: the next process gets a disk hit
    _cache._memory.clear()
    s1 = _cache.stats()
    assert _cache.get_cubin(src, "tiny") == good
    assert _delta(s1)["disk_hits"] == 1


def test_cache_entry_that_is_a_directory_never_crashes(cache_dir):
    src = _tiny_source()
    _cache.get_cubin(src, "tiny")
    (path,) = _entries(cache_dir)
    os.unlink(path)
    os.mkdir(path)
    _cache._memory.clear()
    cubin = _cache.get_cubin(src, "tiny")
    assert cubin[:4] == b"\x7fELF"


def test_unwritable_cache_dir_never_crashes(tmp_path, monkeypatch):
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("GPUSCIPY_CACHE_DIR", str(blocker / "kernels"))
    src = _tiny_source()
    s0 = _cache.stats()
    cubin = _cache.get_cubin(src, "tiny")
    assert cubin[:4] == b"\x7fELF"
    assert _delta(s0)["nvrtc_compiles"] == 1
    _cache._memory.clear()
    assert _cache.get_cubin(src, "tiny") == cubin  # compiles again, no crash


def test_cache_clear(cache_dir):
    src = _tiny_source()
    _cache.get_cubin(src, "tiny")
    assert _entries(cache_dir)
    _cache.clear(disk=False)
    assert _entries(cache_dir)
    assert len(_cache._memory) == 0
    _cache.clear()
    assert not _entries(cache_dir)
    s0 = _cache.stats()
    _cache.get_cubin(src, "tiny")
    assert _delta(s0)["nvrtc_compiles"] == 1


def test_cache_is_thread_safe(cache_dir):
    srcs = [_tiny_source() for _ in range(4)]
    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        res = list(ex.map(lambda s: _cache.get_cubin(s, "tiny"), srcs * 3))
    assert all(r[:4] == b"\x7fELF" for r in res)
    assert len(_entries(cache_dir)) == 4


def test_cache_compile_error_is_not_cached(cache_dir):
    s0 = _cache.stats()
    for _ in range(2):
        with pytest.raises(NVRTCError):
            _cache.get_cubin(_BAD, "bad")
    assert _delta(s0)["nvrtc_compiles"] == 0
    assert not _entries(cache_dir)


# ======================================================================
# ElementwiseKernel, RawKernel, RawModule (GPU)
# ======================================================================

def _gp():
    import gpuscipy_core as gp
    return gp


EK_DTYPES = [np.dtype(c) for c in "?bBhHiIlLefdFD"]


@gpu
@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind != "b"], ids=dtype_id)
def test_elementwise_kernel_placeholder_types(dtype):
    gp = _gp()
    k = gp.ElementwiseKernel("T x, T y", "T z", "z = x + y;", "gs_test_add")
    hx = random_array(257, dtype, 1)
    hy = random_array(257, dtype, 2)
    z = k(gp.asarray(hx), gp.asarray(hy))
    with np.errstate(over="ignore"):
        expected = hx + hy
    assert_parity(z, expected)


@gpu
def test_elementwise_kernel_concrete_types_convert_inputs():
    gp = _gp()
    k = gp.ElementwiseKernel("float32 x, float64 y", "float64 z",
                             "z = (double)x * y;", "gs_test_mul")
    hx = np.arange(10, dtype=np.int32)
    hy = np.linspace(0, 1, 10)
    z = k(gp.asarray(hx), gp.asarray(hy))
    assert_parity(z, hx.astype(np.float32).astype(np.float64) * hy)


@gpu
def test_elementwise_kernel_c_type_names():
    gp = _gp()
    k = gp.ElementwiseKernel("float x, int n", "double z", "z = x * n;", "gs_test_ctypes")
    z = k(gp.asarray(np.arange(5, dtype=np.float32)), 3)
    assert_parity(z, np.arange(5, dtype=np.float64) * 3)


@gpu
def test_elementwise_kernel_scalar_arguments():
    gp = _gp()
    k = gp.ElementwiseKernel("T x, T a, float64 b", "T z", "z = a * x + (T)b;",
                             "gs_test_axpb")
    hx = random_array(100, np.float32, 3, low=0)  # no cancellation: a*x+b may be fused
    z = k(gp.asarray(hx), 2.5, 1)
    assert z.dtype == np.float32
    assert_parity(z, (np.float32(2.5) * hx + np.float32(1)))


@gpu
def test_elementwise_kernel_placeholder_bound_by_scalar_only():
    gp = _gp()
    k = gp.ElementwiseKernel("T a", "T z", "z = a;", "gs_test_bind_scalar")
    out = gp.empty(4, dtype=gp.int64)
    z = k(7, out)
    assert z is out
    np.testing.assert_array_equal(gp.asnumpy(z), [7, 7, 7, 7])


@gpu
def test_elementwise_kernel_raw_argument():
    gp = _gp()
    k = gp.ElementwiseKernel("raw T x", "T y", "y = x[_n - 1 - i];", "gs_test_reverse")
    h = np.arange(11.0)
    out = gp.empty(11)
    res = k(gp.asarray(h), out)
    assert res is out
    np.testing.assert_array_equal(gp.asnumpy(out), h[::-1])


@gpu
def test_elementwise_kernel_raw_argument_non_contiguous_is_made_contiguous():
    gp = _gp()
    k = gp.ElementwiseKernel("raw T x, T y", "T z", "z = x[i] + y;", "gs_test_rawnc")
    h = np.arange(20.0)
    z = k(gp.asarray(h)[::2], gp.asarray(np.ones(10)))
    np.testing.assert_array_equal(gp.asnumpy(z), h[::2] + 1)


@gpu
def test_elementwise_kernel_size_without_arrays():
    gp = _gp()
    k = gp.ElementwiseKernel("", "int64 z", "z = (long long)i * i;", "gs_test_iota")
    out = gp.empty(6, dtype=gp.int64)
    k(out)
    np.testing.assert_array_equal(gp.asnumpy(out), np.arange(6) ** 2)
    k2 = gp.ElementwiseKernel("raw T x", "T y", "y = x[0];", "gs_test_undecided")
    with pytest.raises(ValueError, match="size"):
        k2(gp.arange(3.0))
    y = k2(gp.arange(2.0, 5.0), size=4)
    np.testing.assert_array_equal(gp.asnumpy(y), [2.0] * 4)


@gpu
def test_elementwise_kernel_broadcasting():
    gp = _gp()
    k = gp.ElementwiseKernel("T x, T y", "T z", "z = x * 10 + y;", "gs_test_bcast")
    hx = np.arange(3.0).reshape(3, 1)
    hy = np.arange(4.0)
    z = k(gp.asarray(hx), gp.asarray(hy))
    assert z.shape == (3, 4)
    assert_parity(z, hx * 10 + hy)


@gpu
def test_elementwise_kernel_non_contiguous_inputs():
    gp = _gp()
    k = gp.ElementwiseKernel("T x, T y", "T z", "z = x - y;", "gs_test_sub_nc")
    hx = random_array((6, 8), np.float64, 4)
    hy = random_array((8, 6), np.float64, 5)
    z = k(gp.asarray(hx)[::-2, 1::2], gp.asarray(hy).T[::-2, 1::2])
    assert_parity(z, hx[::-2, 1::2] - hy.T[::-2, 1::2])


@gpu
def test_elementwise_kernel_output_given():
    gp = _gp()
    k = gp.ElementwiseKernel("T x", "T y", "y = x * x;", "gs_test_sq")
    hx = np.arange(8, dtype=np.float32)
    out = gp.zeros(8, dtype=gp.float32)
    res = k(gp.asarray(hx), out)
    assert res is out
    assert_parity(out, hx * hx)
    # an output view is written in place
    big = gp.zeros((2, 8), dtype=gp.float32)
    k(gp.asarray(hx), big[1])
    assert_parity(big, np.stack([np.zeros(8, np.float32), hx * hx]))


@gpu
def test_elementwise_kernel_output_wrong_dtype_raises():
    gp = _gp()
    k = gp.ElementwiseKernel("float32 x", "float32 y", "y = x;", "gs_test_wrong_out")
    with pytest.raises(TypeError):
        k(gp.ones(3, dtype=gp.float32), gp.empty(3, dtype=gp.float64))


@gpu
def test_elementwise_kernel_placeholder_mismatch_raises():
    gp = _gp()
    k = gp.ElementwiseKernel("T x, T y", "T z", "z = x + y;", "gs_test_mismatch")
    with pytest.raises(TypeError, match="mismatch"):
        k(gp.ones(3, dtype=gp.float32), gp.ones(3, dtype=gp.float64))


@gpu
def test_elementwise_kernel_wrong_argument_count_raises():
    gp = _gp()
    k = gp.ElementwiseKernel("T x, T y", "T z", "z = x + y;", "gs_test_nargs")
    with pytest.raises(TypeError):
        k(gp.ones(3))
    with pytest.raises(TypeError):
        k(gp.ones(3), gp.ones(3), gp.ones(3), gp.ones(3))


@gpu
def test_elementwise_kernel_shape_mismatch_raises():
    gp = _gp()
    k = gp.ElementwiseKernel("T x, T y", "T z", "z = x + y;", "gs_test_shapes")
    with pytest.raises(ValueError):
        k(gp.ones(3), gp.ones(4))


@gpu
def test_elementwise_kernel_two_outputs_and_preamble():
    gp = _gp()
    k = gp.ElementwiseKernel(
        "T x", "T lo, T hi", "lo = my_min(x, (T)2); hi = my_max(x, (T)2);",
        "gs_test_two_out",
        preamble="template <class U> __device__ U my_min(U a, U b) { return a < b ? a : b; }\n"
                 "template <class U> __device__ U my_max(U a, U b) { return a < b ? b : a; }")
    h = np.arange(5, dtype=np.int32)
    lo, hi = k(gp.asarray(h))
    np.testing.assert_array_equal(gp.asnumpy(lo), np.minimum(h, 2))
    np.testing.assert_array_equal(gp.asnumpy(hi), np.maximum(h, 2))
    k1 = gp.ElementwiseKernel("T x", "T y", "y = x;", "gs_test_tuple", return_tuple=True)
    res = k1(gp.asarray(h))
    assert isinstance(res, tuple) and len(res) == 1
    k0 = gp.ElementwiseKernel("T x", "T y", "y = x;", "gs_test_noret", no_return=True)
    assert k0(gp.asarray(h)) is None


@gpu
@pytest.mark.parametrize("dtype", [np.float16, np.complex64, np.complex128, np.bool_],
                         ids=dtype_id)
def test_elementwise_kernel_special_types(dtype):
    gp = _gp()
    k = gp.ElementwiseKernel("T x", "T y", "y = x;", "gs_test_copy_special")
    h = random_array(33, dtype, 6)
    assert_parity(k(gp.asarray(h)), h, kind="exact")


@gpu
def test_elementwise_kernel_empty_and_0d():
    gp = _gp()
    k = gp.ElementwiseKernel("T x", "T y", "y = x + x;", "gs_test_empty")
    assert k(gp.empty(0)).shape == (0,)
    z = k(gp.asarray(np.float64(2.5)))
    assert z.shape == ()
    assert float(z) == 5.0


@gpu
def test_elementwise_kernel_compile_error_raises_nvrtc_error():
    gp = _gp()
    k = gp.ElementwiseKernel("T x", "T y", "y = definitely_not_defined_q(x);",
                             "gs_test_broken")
    with pytest.raises(NVRTCError) as info:
        k(gp.ones(3))
    assert "definitely_not_defined_q" in str(info.value)
    # the device still works
    np.testing.assert_array_equal(gp.asnumpy(gp.ones(3) + 1), [2, 2, 2])


_SAXPY = r"""
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out,
                                 long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
"""

_MODULE = r"""
extern "C" __global__ void scale(double* x, double s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}
extern "C" __global__ void shift(double* x, double s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += s;
}
"""


@gpu
def test_raw_kernel_saxpy():
    gp = _gp()
    n = 1000
    hx = random_array(n, np.float32, 7, low=0)  # a*x+y may be fused: no cancellation
    hy = random_array(n, np.float32, 8, low=0)
    x, y = gp.asarray(hx), gp.asarray(hy)
    out = gp.empty(n, dtype=gp.float32)
    k = gp.RawKernel(_SAXPY, "saxpy")
    k(((n + 127) // 128,), (128,), (np.float32(2.0), x, y, out, n))
    assert_parity(out, np.float32(2.0) * hx + hy)
    assert k.num_regs > 0
    assert k.max_threads_per_block >= 128
    attrs = k.attributes
    assert attrs["num_regs"] == k.num_regs
    assert "max_threads_per_block" in attrs


@gpu
def test_raw_kernel_int_grid_and_stream():
    gp = _gp()
    from gpuscipy_core import cuda
    n = 300
    x = gp.ones(n, dtype=gp.float32)
    y = gp.zeros(n, dtype=gp.float32)
    out = gp.empty(n, dtype=gp.float32)
    s = cuda.Stream()
    gp.RawKernel(_SAXPY, "saxpy")(3, 128, (np.float32(3.0), x, y, out, n), stream=s)
    s.synchronize()
    np.testing.assert_array_equal(gp.asnumpy(out), np.full(n, 3.0, np.float32))


@gpu
def test_raw_kernel_bad_launch_arguments():
    gp = _gp()
    k = gp.RawKernel(_SAXPY, "saxpy")
    with pytest.raises(ValueError):
        k((0,), (128,), (np.float32(1), gp.ones(1, dtype=gp.float32),
                         gp.ones(1, dtype=gp.float32), gp.ones(1, dtype=gp.float32), 1))
    with pytest.raises(TypeError):
        k((1,), (128,), (object(),))


@gpu
def test_raw_kernel_unknown_name_raises():
    gp = _gp()
    from gpuscipy_core import cuda
    k = gp.RawKernel(_SAXPY, "no_such_kernel")
    with pytest.raises(cuda.CUDAError) as info:
        k.compile()
    assert info.value.call == "cuModuleGetFunction"


@gpu
def test_raw_kernel_compile_error_shows_log_and_source():
    gp = _gp()
    k = gp.RawKernel(_BAD, "bad")
    with pytest.raises(NVRTCError) as info:
        k.compile()
    msg = str(info.value)
    assert "undefined_identifier_xyz" in msg and ">    3 | " in msg
    np.testing.assert_array_equal(gp.asnumpy(gp.arange(3)), [0, 1, 2])


@gpu
def test_raw_module_from_code():
    gp = _gp()
    m = gp.RawModule(code=_MODULE)
    h = np.arange(10.0)
    x = gp.asarray(h)
    m.get_function("scale")((1,), (32,), (x, 3.0, np.int32(10)))
    m.get_function("shift")((1,), (32,), (x, -1.0, np.int32(10)))
    np.testing.assert_array_equal(gp.asnumpy(x), h * 3 - 1)


@gpu
def test_raw_module_from_cubin_path(tmp_path):
    gp = _gp()
    from gpuscipy_core import cuda
    cubin = compile_cubin(_SAXPY, "saxpy", arch=cuda.Device().arch)
    path = tmp_path / "saxpy.cubin"
    path.write_bytes(cubin)
    m = gp.RawModule(path=str(path))
    f = m.get_function("saxpy")
    n = 64
    x = gp.asarray(np.arange(n, dtype=np.float32))
    out = gp.empty(n, dtype=gp.float32)
    f((1,), (64,), (np.float32(0.5), x, x, out, n))
    np.testing.assert_array_equal(gp.asnumpy(out), np.arange(n, dtype=np.float32) * 1.5)


@gpu
def test_raw_module_argument_errors():
    gp = _gp()
    with pytest.raises(TypeError):
        gp.RawModule()
    with pytest.raises(TypeError):
        gp.RawModule(code=_MODULE, path="x.cubin")
    with pytest.raises(TypeError, match="name_expressions needs code"):
        gp.RawModule(path="x.cubin", name_expressions=["f<int>"])
    with pytest.raises(ValueError, match="backend"):
        gp.RawModule(code=_MODULE, backend="nvcc")
    with pytest.raises(ValueError, match="not one of name_expressions"):
        gp.RawModule(code=_TEMPLATES, name_expressions=["gs_t::scale<float, 2>"]).get_function(
            "gs_t::scale<double, 3>")


_TEMPLATES = r"""
namespace gs_t {
template <class T, int N>
__global__ void scale(T* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= T(N);
}
}  // namespace gs_t
extern "C" __global__ void gs_t_plain(float* x) { x[0] = 7.0f; }
"""
_TEMPLATE_EXPRS = ("gs_t::scale<float, 2>", "gs_t::scale<double, 3>")


def test_name_expressions_lowered_and_cached_with_the_cubin(cache_dir):
    """Template kernels: NVRTC lowers each name expression; the lowered
    symbols are stored with the cubin, so a disk hit returns them without a
    compile (no GPU)."""
    cubin, lowered = _cache.get_program(_TEMPLATES, "t", (), "sm_90", _TEMPLATE_EXPRS)
    assert set(lowered) == set(_TEMPLATE_EXPRS)
    assert all(v.startswith("_Z") and "scale" in v for v in lowered.values())
    assert lowered[_TEMPLATE_EXPRS[0]] != lowered[_TEMPLATE_EXPRS[1]]
    _cache.clear(disk=False)
    before = _cache.stats()
    again = _cache.get_program(_TEMPLATES, "t", (), "sm_90", _TEMPLATE_EXPRS)
    after = _cache.stats()
    assert again == (cubin, lowered)
    assert after["disk_hits"] == before["disk_hits"] + 1
    assert after["nvrtc_compiles"] == before["nvrtc_compiles"]
    # other expressions: another entry
    one = _cache.get_program(_TEMPLATES, "t", (), "sm_90", _TEMPLATE_EXPRS[:1])[1]
    assert set(one) == {_TEMPLATE_EXPRS[0]}
    # the plain cubin of the same source has no lowered names
    assert _cache.get_program(_TEMPLATES, "t")[1] == {}


def test_name_expression_defaults():
    from gpuscipy_core._kernel._module import _expressions
    assert _expressions("plain", None) == ()
    assert _expressions("ns::k<int>", None) == ("ns::k<int>",)
    assert _expressions("plain", ["ns::k<int>"]) == ("ns::k<int>",)
    assert _expressions("ns::k<int>", ("ns::k<int>", "ns::k<long>")) == ("ns::k<int>",
                                                                        "ns::k<long>")
    with pytest.raises(ValueError, match="not one of name_expressions"):
        _expressions("ns::k<float>", ["ns::k<int>"])


def test_function_cache_is_bounded(monkeypatch):
    from gpuscipy_core._kernel import _module as M
    cache = collections.OrderedDict()
    monkeypatch.setattr(M, "_functions", cache)
    monkeypatch.setattr(M, "MAX_FUNCTIONS", 4)
    for i in range(10):
        assert M._put_function(i, f"v{i}") == f"v{i}"
    assert list(cache) == [6, 7, 8, 9]
    assert M._put_function(8, "other") == "v8"     # a racing loader keeps the first


@gpu
def test_raw_module_name_expressions():
    gp = _gp()
    m = gp.RawModule(code=_TEMPLATES, name_expressions=_TEMPLATE_EXPRS)
    xf = gp.asarray(np.arange(5, dtype=np.float32))
    xd = gp.asarray(np.arange(5, dtype=np.float64))
    m.get_function("gs_t::scale<float, 2>")((1,), (32,), (xf, np.int32(5)))
    m.get_function("gs_t::scale<double, 3>")((1,), (32,), (xd, np.int32(5)))
    m.get_function("gs_t_plain")((1,), (1,), (xf,))
    np.testing.assert_array_equal(gp.asnumpy(xf), [7, 2, 4, 6, 8])
    np.testing.assert_array_equal(gp.asnumpy(xd), np.arange(5) * 3.0)
    # one module for all three, shared with the kernel API's get_function
    from gpuscipy_core import kernel
    f = kernel.get_function(_TEMPLATES, "gs_t::scale<float, 2>", (), _TEMPLATE_EXPRS)
    assert f is m.get_function("gs_t::scale<float, 2>")


@gpu
def test_raw_module_path_shares_the_module_cache(tmp_path):
    gp = _gp()
    from gpuscipy_core import cuda
    cubin = compile_cubin(_SAXPY, "saxpy", arch=cuda.Device().arch)
    a, b = tmp_path / "a.cubin", tmp_path / "b.cubin"
    a.write_bytes(cubin)
    b.write_bytes(cubin)
    fa = gp.RawModule(path=str(a)).get_function("saxpy")
    fb = gp.RawModule(path=str(b)).get_function("saxpy")
    assert fa.module is fb.module


@gpu
def test_device_limits_cached_and_sane():
    from gpuscipy_core import cuda
    from gpuscipy_core import kernel
    lim = kernel.device_limits()
    assert lim is kernel.device_limits(cuda.get_device_id())
    assert lim.sm_count == cuda.Device().multiprocessor_count > 0
    assert lim.shared_per_block == 48 * 1024
    assert lim.shared_per_block_optin >= lim.shared_per_block
    assert lim.warp_size == 32 and lim.arch == cuda.Device().arch


def test_function_opts_into_large_shared_memory_once(monkeypatch):
    """The dynamic shared-memory attribute is set when a launch needs more
    than any earlier one of the same function (not on every launch)."""
    from gpuscipy_core._kernel import _module as M

    set_calls, launches = [], []
    monkeypatch.setattr(M, "ensure_context", lambda dev: dev)
    monkeypatch.setattr(M, "get_current_stream_ptr", lambda: 0)
    monkeypatch.setattr(M, "launch_args", lambda *a: launches.append(a[4]))
    monkeypatch.setattr(M.driver, "cuFuncSetAttribute", lambda h, attr, n: set_calls.append(n))
    monkeypatch.setattr(M, "check", lambda r, name: None)
    monkeypatch.setattr(M, "device_limits",
                        lambda dev: type("L", (), {"shared_per_block_optin": 227 * 1024}))
    f = M.Function.__new__(M.Function)
    f._handle, f.ptr, f.device_id, f.name = object(), 1, 0, "k"
    f._smem_allowed = 48 * 1024 - 1
    for nbytes in (0, 1024, 48 * 1024 - 1, 48 * 1024, 60000, 60000, 50000, 70000, 70000):
        f((1,), (32,), (), nbytes)
    assert launches == [0, 1024, 48 * 1024 - 1, 48 * 1024, 60000, 60000, 50000, 70000, 70000]
    assert set_calls == [48 * 1024, 60000, 70000]
    with pytest.raises(ValueError, match="exceeds the device's 232448 bytes per block"):
        f((1,), (32,), (), 227 * 1024 + 1)
    assert set_calls == [48 * 1024, 60000, 70000]


_ARGS_KERNEL = r"""
extern "C" __global__ void gs_test_args(long long a, double b, int c, bool t,
                                        long long e, float f, long long* oi, double* od)
{
  oi[0] = a; oi[1] = c; oi[2] = t ? 1 : 0; oi[3] = e;
  od[0] = b; od[1] = f;
}
"""


@gpu
def test_launch_packs_every_scalar_kind():
    """Python int/float (the fast path), NumPy scalars and bool each become
    their own parameter type at their alignment; an int outside int64 is an
    OverflowError, not a truncated argument."""
    gp = _gp()
    f = gp.RawKernel(_ARGS_KERNEL, "gs_test_args")
    oi, od = gp.zeros(4, gp.int64), gp.zeros(2, gp.float64)
    f((1,), (1,), (-(2**62) - 3, -2.5, np.int32(-7), True, 2**63 - 1, np.float32(1.5), oi, od))
    np.testing.assert_array_equal(gp.asnumpy(oi), [-(2**62) - 3, -7, 1, 2**63 - 1])
    np.testing.assert_array_equal(gp.asnumpy(od), [-2.5, 1.5])
    with pytest.raises(OverflowError):
        f((1,), (1,), (2**63, 0.0, np.int32(0), False, 0, np.float32(0), oi, od))
    np.testing.assert_array_equal(gp.asnumpy(oi), [-(2**62) - 3, -7, 1, 2**63 - 1])


def test_launch_parameter_layout():
    """What launch_args hands the driver, checked without a GPU: each
    argument at its own alignment, in its own type (Python int/float on the
    fast path as long long/double), pointers from __cuda_array_interface__;
    bad arguments raise before any launch."""
    from gpuscipy_core._kernel._launch import packed_args

    class Dev:
        __cuda_array_interface__ = {"data": (0x1234, False), "shape": (1,),
                                    "typestr": "<f8", "version": 3}

    args = (np.int8(3), -5, np.float32(1.5), 2.5, True, Dev(), np.complex64(1 + 2j),
            b"\x07" * 12, np.int16(9), -(2**63), 2**63 - 1, 1e300, np.float64(-0.0))
    want = (np.int8(3).tobytes(), np.int64(-5).tobytes(), np.float32(1.5).tobytes(),
            np.float64(2.5).tobytes(), np.bool_(True).tobytes(), np.uint64(0x1234).tobytes(),
            np.complex64(1 + 2j).tobytes(), b"\x07" * 12, np.int16(9).tobytes(),
            np.int64(-(2**63)).tobytes(), np.int64(2**63 - 1).tobytes(),
            np.float64(1e300).tobytes(), np.float64(-0.0).tobytes())
    buf, offsets = packed_args(args)
    assert offsets == [0, 8, 16, 24, 32, 40, 48, 56, 68, 72, 80, 88, 96]
    assert len(buf) == 104
    for off, w in zip(offsets, want):
        assert buf[off:off + len(w)] == w
    assert packed_args(()) == (b"", [])
    with pytest.raises(OverflowError):
        packed_args((2**63,))
    with pytest.raises(TypeError, match="kernel argument 1"):
        packed_args((1, object()))
    with pytest.raises(ValueError, match="too many"):
        packed_args((1,) * 129)
    with pytest.raises(ValueError, match="parameter space"):
        packed_args((b"x" * 32761, 1))
    # the driver's limit is 32,764 bytes: the last word that fits ends there
    buf, offsets = packed_args((b"x" * 32752, 7))
    assert offsets == [0, 32752] and len(buf) == 32760
    with pytest.raises(ValueError, match="32764-byte parameter space"):
        packed_args((b"x" * 32757, 7))
    with pytest.raises(ValueError, match="32764-byte parameter space"):
        packed_args((b"x" * 32764, np.int8(1)))
    assert len(packed_args((b"x" * 32760, np.int32(1)))[0]) == 32764
    # a device pointer after a blob near the end is checked too (it was
    # written past the buffer before)
    with pytest.raises(ValueError, match="32764-byte parameter space"):
        packed_args((b"x" * 32761, Dev()))


# ======================================================================
# User code with or without a trailing ';' (issue 15, item 1)
# ======================================================================

# (kind, user code, what normalize_code makes of it)
NORMALIZE_CASES = [
    ("statement", "z = x + y", "z = x + y;"),
    ("statement", "z = x + y;", "z = x + y;"),
    ("statement", "z = x + y  \n", "z = x + y;  \n"),
    # a final comment would swallow a ';' appended to its line
    ("statement", "z = x + y // sum", "z = x + y // sum\n;"),
    ("statement", "z = x + y; // sum", "z = x + y; // sum"),
    ("statement", "z = x + y /* sum */", "z = x + y /* sum */\n;"),
    ("statement", "z = x + y // ends in a splice \\", "z = x + y // ends in a splice \\\n\n;"),
    ("statement", "T s = x + y;\nz = s\n", "T s = x + y;\nz = s;\n"),
    ("statement", "if (x < y) { z = x; } else { z = y; }",
     "if (x < y) { z = x; } else { z = y; };"),
    ("statement", "z = T{x + y}", "z = T{x + y};"),
    ("statement", "#if 1\nz = x + y\n#endif", "#if 1\nz = x + y\n#endif\n;"),
    # ';', '//' and '/*' inside literals are code, not comments
    ("statement", "z = x + (y == ';')", "z = x + (y == ';');"),
    ("statement", "z = x; s = \"//\"", "z = x; s = \"//\";"),
    ("statement", "z = '/' + x // c", "z = '/' + x // c\n;"),
    ("statement", "z = 1'000 + x", "z = 1'000 + x;"),
    ("statement", "z = R\"(a // b)\"", "z = R\"(a // b)\";"),
    ("statement", "", ""),
    ("statement", "  // nothing\n", "  // nothing\n"),
    ("expression", "x * x", "x * x"),
    ("expression", "x * x;", "x * x"),
    ("expression", "a + b ;; ", "a + b"),
    ("expression", "x * x // square", "x * x // square\n"),
    ("expression", "x * x; // square", "x * x // square\n"),
    ("expression", "x * x /* square */", "x * x /* square */\n"),
    ("expression", "\n  x * x\n", "\n  x * x"),
    ("preamble", "", ""),
    ("preamble", "struct acc { float v; }", "struct acc { float v; }\n;\n"),
    ("preamble", "struct acc { float v; };", "struct acc { float v; };\n"),
    ("preamble", "__device__ float f(float v) { return v; } // f",
     "__device__ float f(float v) { return v; } // f\n;\n"),
    ("preamble", "#define ADD(a, b) {(a) + (b)}", "#define ADD(a, b) {(a) + (b)}\n"),
    ("preamble", "typedef float real;\n\n", "typedef float real;\n"),
]


@pytest.mark.parametrize("kind, code, expected", NORMALIZE_CASES)
def test_normalize_code(kind, code, expected):
    assert normalize_code(code, kind) == expected
    # idempotent: a second pass changes nothing
    assert normalize_code(expected, kind) == expected


def test_normalize_code_rejects_an_unknown_kind():
    with pytest.raises(ValueError, match="kind"):
        normalize_code("x", "body")


# Elementwise bodies that all compute z = x + y, written the ways users
# write them, and preambles without a final newline or ';'
EK_BODIES = [
    "z = x + y",
    "z = x + y;",
    "z = x + y // the sum",
    "z = x + y; // the sum",
    "z = x + y /* the sum */",
    "z = x + y // a splice after the comment \\",
    "\n    T s = x + y;\n    z = s\n",
    "\n    T s = x + y;\n    z = s;  // done\n",
    "{ z = x + y; }",
    "z = T{x + y}",
    "z = x + y;;",
    "#if 1\n    z = x + y\n#endif",
    "z = add2(x, y)",
    "z = sum_t<T>{x, y}.get()",
]
# ends with a struct without its ';' and without a final newline
EK_PREAMBLE = ("template <class U> __device__ U add2(U a, U b) { return a + b; }\n"
               "template <class U> struct sum_t { U a, b; "
               "__device__ U get() const { return a + b; } }")


def _sum_kernel(body):
    return ElementwiseKernel("T x, T y", "T z", body, "gs_test_semicolon",
                             preamble=EK_PREAMBLE)


@pytest.mark.parametrize("body", EK_BODIES)
def test_elementwise_kernel_body_forms_compile(body):
    k = _sum_kernel(body)
    for ndim, index32 in [(0, True), (2, False)]:
        name, src = k.source("f4", "f4", ndim=ndim, index32=index32)
        assert compile_cubin(src, name)


# (map, reduce, post-map, preamble): CuPy's expression forms, C++ statement
# forms, final comments, multi-line and braced post-maps
RK_FORMS = [
    ("x * x", "a + b", "y = sqrt(a)", ""),
    ("x * x;", "a + b;", "y = sqrt(a);", ""),
    ("x * x // square", "a + b // sum", "y = sqrt(a) // root", ""),
    ("x * x; // square", "a + b; /* sum */", "y = sqrt(a); // root", ""),
    ("sq(x)", "a + b", "T r = sqrt(a);\ny = r", "__device__ T sq(T v) { return v * v; }"),
    ("sq(x)", "a + b", "{ y = sqrt(a); }", "__device__ T sq(T v) { return v * v; }\n"
                                             "struct unused_t { int v; }"),
    ("x * x", "a + b", "\n  y = sqrt(a)\n", "#define UNUSED_MACRO 1"),
]


def _l2_kernel(form):
    m, r, p, pre = form
    return ReductionKernel("T x", "T y", m, r, p, "0", "gs_test_l2_forms", preamble=pre)


@pytest.mark.parametrize("form", RK_FORMS)
def test_reduction_kernel_expression_forms_compile(form):
    dt = np.dtype("f4")
    red = _l2_kernel(form)._bind(["a"], [dt], [dt], {"T": dt})
    for layout in [(1, 1, True, 1), (1, 1, True, 4), (2, 2, False, 1)]:
        assert compile_cubin(red.source(*layout), red.spec(*layout).name)


@gpu
@pytest.mark.parametrize("body", EK_BODIES)
def test_elementwise_kernel_body_forms_run(body):
    gp = _gp()
    hx = random_array((5, 7), np.float32, 21)
    hy = random_array(7, np.float32, 22)
    assert_parity(_sum_kernel(body)(gp.asarray(hx), gp.asarray(hy)), hx + hy, kind="exact")


@gpu
@pytest.mark.parametrize("form", RK_FORMS)
def test_reduction_kernel_expression_forms_run(form):
    # 40 float32 squares (each rounded: u) summed in any order ((40 - 1) u for
    # positive terms) are within 40 u of the exact sum, 20 u after the square
    # root, plus its rounding and the reference's: 22 u = 1.3e-6 < rtol 2e-6
    gp = _gp()
    h = random_array((6, 40), np.float32, 23)
    got = _l2_kernel(form)(gp.asarray(h), axis=1)
    want = np.sqrt((h.astype(np.float64) ** 2).sum(axis=1)).astype(np.float32)
    np.testing.assert_allclose(gp.asnumpy(got), want, rtol=2e-6)


@gpu
def test_elementwise_kernel_repeated_calls_reuse_their_plan():
    # a repeated call with the same argument types reuses what the first
    # decided (binding, casts, kernel); the results stay the full path's
    gp = _gp()
    k = gp.ElementwiseKernel("T x, T a, raw T r, float64 b", "T z",
                             "z = a * x + r[1] + (T)b", "gs_test_plan")
    h = np.arange(6.0, dtype=np.float32)
    r = gp.asarray(np.arange(12.0, dtype=np.float32))[::2]   # raw, non-contiguous
    for _ in range(3):
        assert_parity(k(gp.asarray(h), np.float32(2), r, 1), 2 * h + 2 + 1)
    assert len(k._plans) == 1
    for _ in range(2):
        z = k(gp.asarray(h.astype(np.float64)), 0.5, gp.asarray(np.ones(2)), 1.5)
        assert z.dtype == np.float64
        assert_parity(z, 0.5 * h.astype(np.float64) + 2.5)
    assert len(k._plans) == 2
    out = gp.empty((2, 6), np.float32)
    for _ in range(2):                                    # given output, broadcast
        assert k(gp.asarray(h), np.float32(1), r, 0, out) is out
        assert_parity(out, np.broadcast_to(h + 2, (2, 6)))
    with pytest.raises(TypeError, match="mismatched"):   # checks still run
        k(gp.asarray(h), np.float32(1), r, 0, gp.empty((2, 6), np.float64))
    k2 = gp.ElementwiseKernel("float64 x", "float64 y", "y = 2 * x", "gs_test_plan_cast")
    for _ in range(2):                                    # the input cast is replayed
        assert_parity(k2(gp.asarray(np.arange(4, dtype=np.int32))), 2.0 * np.arange(4))
    k3 = gp.ElementwiseKernel("T a", "T z", "z = a", "gs_test_plan_bigint")
    out = gp.empty(2, dtype=gp.uint64)
    for v in (2 ** 63 + 5, 7):
        k3(v, out)
        np.testing.assert_array_equal(gp.asnumpy(out), [v, v])
    assert len(k3._plans) == 1      # the int beyond int64 took the full path


# A parameter may be named like the generated kernel's own variables: ``p``
# was the launch struct's name, so ``T p`` shadowed it in its own declaration
# (found by gpuscipy.sparse.linalg's CG update, whose direction is ``p``).
_P_KERNEL = ("T z, raw T s", "T p", "p = z + s[0] * p", "param_named_p")


@pytest.mark.parametrize("ndim", [0, 2])
@pytest.mark.parametrize("index32", [True, False])
def test_parameters_may_be_named_p(ndim, index32):
    k = ElementwiseKernel(*_P_KERNEL)
    d = np.dtype(np.float64)
    name, src = k.source(d, d, d, ndim=ndim, index32=index32)
    assert compile_cubin(src, name)


@gpu
def test_parameters_named_p_run():
    gp = _gp()
    k = ElementwiseKernel(*_P_KERNEL)
    z, p0 = np.arange(5.0), np.ones(5) * 3
    p = gp.asarray(p0)
    k(gp.asarray(z), gp.asarray(np.array([2.0])), p)
    np.testing.assert_array_equal(gp.asnumpy(p), z + 2 * p0)
