"""A host emulation of the device layer that gpuscipy.fft uses, for CPU tests.

* :class:`FakeArray` stands in for ``gpuscipy_core.ndarray``: a NumPy array
  (view) whose ``ptr`` is its real host address.
* :class:`FakeCufft` implements the cuFFT calls gpuscipy.fft makes, on raw
  pointers: it rebuilds the strided views cuFFT would read and write from
  the plan's layout (basic or advanced), computes with ``numpy.fft``
  (unnormalised, like cuFFT) and -- like cuFFT's C2R -- destroys the input
  of complex-to-real transforms (fills it with NaN), so a missing private
  copy shows up as a wrong result; and -- like cuFFT -- lets an inf/NaN
  of one odd-length real transform reach its partner in the batch (rows 0
  and 1, 2 and 3, ...), so code that does not keep rows apart fails.
* :func:`fake_launch` replaces the DCT/DST kernel launch by the NumPy mirror
  of each kernel (``_reference.py``) on the same raw buffers.

With these, the orchestration code (argument handling, zero padding, plan
layouts, loops and transposes over axes, n-D composition, normalisation,
DCT/DST buffers and recipes) runs unchanged on the CPU.
"""

import ctypes
import types

import numpy as np

from . import _reference as ref


class _Flags:
    def __init__(self, a):
        self.c_contiguous = a.flags.c_contiguous
        self.f_contiguous = a.flags.f_contiguous


def _unwrap(v):
    return v._a if isinstance(v, FakeArray) else v


class FakeArray:
    """A NumPy-backed stand-in for ``gpuscipy_core.ndarray``."""

    def __init__(self, a):
        self._a = a

    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: _Flags(self._a))
    ptr = property(lambda self: self._a.ctypes.data)
    real = property(lambda self: FakeArray(self._a.real))
    T = property(lambda self: FakeArray(self._a.T))

    def reshape(self, *shape, order="C"):
        if len(shape) == 1:
            shape = shape[0]
        return FakeArray(self._a.reshape(shape, order=order))

    def transpose(self, *axes):
        return FakeArray(self._a.transpose(*axes))

    def copy(self, order="C"):
        return FakeArray(self._a.copy(order))

    def astype(self, dtype, order="K", copy=True):
        return FakeArray(self._a.astype(dtype, order=order, copy=copy))

    def conj(self):
        if self._a.dtype.kind != "c":
            return self
        return FakeArray(np.conj(self._a))

    def __getitem__(self, key):
        return FakeArray(self._a[key])

    def __setitem__(self, key, value):
        self._a[key] = _unwrap(value)

    def __imul__(self, other):
        self._a *= _unwrap(other)
        return self

    def __mul__(self, other):
        return FakeArray(self._a * _unwrap(other))

    def __truediv__(self, other):
        return FakeArray(self._a / _unwrap(other))


def make_fake_core():
    """A module object standing in for ``gpuscipy_core``."""
    m = types.ModuleType("gpuscipy_core")
    m.ndarray = FakeArray
    m.empty = lambda shape, dtype=float: FakeArray(np.empty(shape, dtype))
    m.zeros = lambda shape, dtype=float: FakeArray(np.zeros(shape, dtype))
    m.asarray = lambda a, dtype=None: FakeArray(np.array(_unwrap(a), dtype=dtype))
    m.asnumpy = lambda a: np.array(_unwrap(a))
    m.ascontiguousarray = lambda a: FakeArray(np.ascontiguousarray(_unwrap(a)))

    def ufunc(f):
        def call(*args, out=None):
            r = f(*[_unwrap(a) for a in args], out=None if out is None else out._a)
            return out if out is not None else FakeArray(r)
        return call
    m.conjugate = ufunc(np.conjugate)
    m.multiply = ufunc(np.multiply)
    m.divide = ufunc(np.divide)
    return m


def _from_ptr(ptr, dtype, count):
    """A flat NumPy view of ``count`` elements of ``dtype`` at host address ``ptr``."""
    dtype = np.dtype(dtype)
    buf = (ctypes.c_char * (count * dtype.itemsize)).from_address(ptr)
    return np.frombuffer(buf, dtype=dtype)


class FakeCUFFTError(RuntimeError):
    """What the emulated cuFFT raises for a call the real one rejects."""


class FakeCufft:
    """The cuFFT calls of gpuscipy.fft, executed with numpy.fft on host memory."""

    CUFFT_C2C, CUFFT_R2C, CUFFT_C2R = 0x29, 0x2a, 0x2c
    CUFFT_Z2Z, CUFFT_D2Z, CUFFT_Z2D = 0x69, 0x6a, 0x6c
    CUFFT_FORWARD, CUFFT_INVERSE = -1, 1

    def __init__(self):
        self.plans = {}
        self.next = 1
        self.execs = 0

    def cufftCreate(self):
        h = self.next
        self.next += 1
        self.plans[h] = {"auto": 1}
        return h

    def cufftDestroy(self, h):
        del self.plans[h]

    def cufftSetAutoAllocation(self, h, v):
        self.plans[h]["auto"] = v

    def cufftSetStream(self, h, s):
        self.plans[h]["stream"] = s

    def cufftSetWorkArea(self, h, ptr):
        self.plans[h]["work"] = ptr

    def cufftMakePlanMany64(self, h, rank, n, inembed, istride, idist, onembed,
                            ostride, odist, typ, batch):
        assert rank == len(n) and 1 <= rank <= 3 and batch >= 1 and min(n) >= 1
        assert (inembed is None) == (onembed is None)
        self.plans[h].update(n=tuple(n), inembed=inembed, istride=istride,
                             idist=idist, onembed=onembed, ostride=ostride,
                             odist=odist, typ=typ, batch=batch)
        return 4096

    # -- execution -----------------------------------------------------------
    def _views(self, p, iptr, optr, idt, odt):
        n = p["n"]
        kind = p["typ"] & 0xf
        in_tail = n[:-1] + (n[-1] // 2 + 1,) if kind == 0xc else n
        out_tail = n[:-1] + (n[-1] // 2 + 1,) if kind == 0xa else n
        B = p["batch"]
        if p["inembed"] is None:
            vi = _from_ptr(iptr, idt, B * int(np.prod(in_tail))).reshape((B,) + in_tail)
            vo = _from_ptr(optr, odt, B * int(np.prod(out_tail))).reshape((B,) + out_tail)
            return vi, vo
        assert len(n) == 1, "advanced layouts are only used for rank 1"

        def strided(ptr, dt, length, stride, dist):
            span = (B - 1) * dist + (length - 1) * stride + 1
            it = np.dtype(dt).itemsize
            return np.lib.stride_tricks.as_strided(_from_ptr(ptr, dt, span),
                                                   (B, length), (dist * it, stride * it))

        return (strided(iptr, idt, in_tail[0], p["istride"], p["idist"]),
                strided(optr, odt, out_tail[0], p["ostride"], p["odist"]))

    def _run(self, h, iptr, optr, direction=None):
        p = self.plans[h]
        assert p["auto"] == 0, "plans must not auto-allocate"
        assert "work" in p, "no work area set"
        typ = p["typ"]
        double = typ >= 0x60
        # cuFFT: both pointers of every execution (R2C and C2R included) must
        # be aligned to cufftComplex / cufftDoubleComplex; else the exec
        # returns CUFFT_INVALID_VALUE (what the H200 run showed for R2C
        # pointers at odd real offsets)
        align = 16 if double else 8
        if iptr % align or optr % align:
            raise FakeCUFFTError(f"cufftExec failed: CUFFT_INVALID_VALUE (4): "
                                 f"pointer not aligned to {align} bytes "
                                 f"(in {iptr % align}, out {optr % align})")
        self.execs += 1
        cdt = np.complex128 if double else np.complex64
        rdt = np.float64 if double else np.float32
        kind = typ & 0xf
        idt = rdt if kind == 0xa else cdt
        odt = rdt if kind == 0xc else cdt
        vi, vo = self._views(p, iptr, optr, idt, odt)
        axes = tuple(range(1, 1 + len(p["n"])))
        src = np.array(vi, dtype=np.complex128 if kind != 0xa else np.float64)
        if kind == 0x9:
            r = np.fft.fftn(src, axes=axes) if direction == -1 else \
                np.fft.ifftn(src, axes=axes) * np.prod(p["n"])
        elif kind == 0xa:
            r = np.fft.rfftn(src, axes=axes)
        else:
            r = np.fft.irfftn(src, s=p["n"], axes=axes) * np.prod(p["n"])
            vi[...] = np.nan              # cuFFT's C2R destroys its input
        if kind != 0x9 and p["n"][-1] % 2 and p["n"][-1] > 1:
            # cuFFT computes odd-length real transforms two batch entries
            # at a time: an inf/NaN in one reaches its partner (H200)
            bad = ~np.isfinite(src).reshape(src.shape[0], -1).all(axis=1)
            for b in range(0, src.shape[0] - 1, 2):
                if bad[b] or bad[b + 1]:
                    r[b:b + 2] = np.nan
        vo[...] = r.astype(odt)

    def cufftExecC2C(self, h, i, o, d):
        assert d in (-1, 1)
        self._run(h, i, o, d)

    cufftExecZ2Z = cufftExecC2C

    def cufftExecR2C(self, h, i, o):
        self._run(h, i, o)

    cufftExecD2Z = cufftExecR2C
    cufftExecC2R = cufftExecR2C
    cufftExecZ2D = cufftExecR2C


# per-row buffer lengths (elements) and types of the kernels' inputs
def _post_row(op, N):
    return {"dct2_post_r2c": (N // 2 + 1, "c"), "dct2_post_c2c": (N // 2, "c"),
            "dct3_post": (N, "r"), "dct4e_post": (N // 2, "c"),
            "dct4o_post": (2 * N, "c"), "dct1_post": (N, "c"),
            "dst1_post": (N + 2, "c")}[op]


def fake_launch(op, dtype, dst, unit, src_ptr, dst_ptr, N, inner, B, factors):
    """The DCT/DST kernel ``op`` run by its NumPy mirror on raw buffers."""
    rdt = np.dtype(dtype)
    cdt = np.complex64 if rdt == np.float32 else np.complex128
    assert unit == (inner == 1)
    k = getattr(ref, "k_" + op)
    if op.endswith("_pre"):
        x = _from_ptr(src_ptr, rdt, B * N)
        rows = ref._rows(x, N, inner).astype(np.float64)
        w = k(rows, N, B, dst, *factors)
        flat = w.reshape(-1)
        out = _from_ptr(dst_ptr, cdt if flat.dtype.kind == "c" else rdt, flat.size)
        out[...] = flat
    else:
        length, kind = _post_row(op, N)
        src = _from_ptr(src_ptr, cdt if kind == "c" else rdt, B * length)
        rows = src.reshape(B, length).astype(np.complex128 if kind == "c"
                                             else np.float64)
        y = k(rows, N, B, dst, *factors)
        out = _from_ptr(dst_ptr, rdt, B * N)
        ref._store_rows(out, y.astype(rdt), N, inner)
