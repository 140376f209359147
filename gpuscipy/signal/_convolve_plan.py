"""Host-side rules of the convolution family: modes, shapes, dtypes, errors,
boundary fill values, and the GPU cost model behind ``method='auto'`` and
the overlap-add block size.

Everything here is pure Python on shapes and dtypes (no device access), so
the CPU tests check it against SciPy directly.
"""

import math
import warnings

import numpy

from gpuscipy.fft._helper import init_nd_shape_and_axes

__all__ = ["MODES", "MSG_MODE", "MSG_MODE_FFT", "MSG_MODE_CHOOSE", "MSG_METHOD",
           "MSG_DIM", "MSG_DIM_CONVOLVE", "MSG_VALID", "MSG_BOUNDARY",
           "check_mode", "inputs_swap_needed", "region", "acc_dtype",
           "direct_result_dtype", "np_conv_ok", "fft_dtypes", "fill_value",
           "init_freq_conv_axes", "empty_error", "BOUNDARIES",
           "CostModel", "COST", "fft_passes", "direct_time", "fft_plan",
           "choose_method"]

MODES = ("full", "same", "valid")
MSG_MODE = "Acceptable mode flags are 'valid', 'same', or 'full'."
MSG_MODE_FFT = "acceptable mode flags are 'valid', 'same', or 'full'"
MSG_MODE_CHOOSE = "Acceptable mode flags are 'valid', 'same', or 'full', not mode={}"
MSG_METHOD = "Acceptable method flags are 'auto', 'direct', or 'fft'."
MSG_DIM = "in1 and in2 should have the same dimensionality"
MSG_DIM_CONVOLVE = "volume and kernel should have the same dimensionality"
MSG_VALID = ("For 'valid' mode, one must be at least as large as the other in "
             "every dimension")
MSG_BOUNDARY = ("Acceptable boundary flags are 'fill', 'circular' (or 'wrap'), and "
                "'symmetric' (or 'symm').")

# scipy.signal's boundary names -> the kernels' extension
BOUNDARIES = {"fill": "fill", "pad": "fill", "wrap": "wrap", "circular": "wrap",
              "symm": "symm", "symmetric": "symm", "reflect": "symm"}


def check_mode(mode, message=MSG_MODE):
    """Raise ``ValueError(message)`` unless ``mode`` is 'full', 'same', 'valid'."""
    try:
        ok = mode in MODES
    except TypeError:       # unhashable or odd objects
        ok = False
    if not ok or not isinstance(mode, str):
        raise ValueError(message)
    return mode


def inputs_swap_needed(mode, shape1, shape2, axes=None):
    """SciPy's rule: whether 'valid' mode needs the inputs swapped (in1 not
    at least as large as in2 on ``axes``); ``ValueError`` when neither is."""
    if mode != "valid" or not shape1:
        return False
    if axes is None:
        axes = range(len(shape1))
    ok1 = all(shape1[i] >= shape2[i] for i in axes)
    ok2 = all(shape2[i] >= shape1[i] for i in axes)
    if not (ok1 or ok2):
        raise ValueError(MSG_VALID)
    return not ok1


def region(mode, n1, n2, same_start=None):
    """``(length, start)`` of the output along one axis in the coordinates of
    the full convolution (length ``n1 + n2 - 1``) of extents ``n1`` (in1)
    and ``n2`` (in2).

    'full': everything; 'same': ``n1`` points centred as SciPy's
    ``_centered`` does (start ``(n2 - 1) // 2``; ``same_start`` overrides it,
    correlate2d uses ``n2 // 2``); 'valid': ``|n1 - n2| + 1`` points where
    the shorter sequence overlaps the longer one completely.
    """
    if mode == "full":
        return n1 + n2 - 1, 0
    if mode == "same":
        return n1, (n2 - 1) // 2 if same_start is None else same_start
    return abs(n1 - n2) + 1, min(n1, n2) - 1


_ACC = {"?": numpy.uint32, "b": numpy.uint32, "B": numpy.uint32, "h": numpy.uint32,
        "H": numpy.uint32, "i": numpy.uint32, "I": numpy.uint32, "l": numpy.uint64,
        "L": numpy.uint64, "q": numpy.uint64, "Q": numpy.uint64, "e": numpy.float32,
        "f": numpy.float32, "d": numpy.float64, "F": numpy.complex64,
        "D": numpy.complex128}


def acc_dtype(dtype):
    """The dtype the direct kernels compute in for result ``dtype`` (signal,
    weights, accumulator and raw output all of it): unsigned 32/64-bit for
    the integers (sums modulo 2**n: NumPy's integer results after the cast
    back) and for bool (a nonzero count of true products is True), float32
    for float16 (NumPy's half ``dot`` accumulates in float too), else the
    dtype itself."""
    dt = numpy.dtype(dtype)
    if dt.char not in _ACC:
        raise TypeError(f"dtype {dt} is not supported by the direct method")
    return numpy.dtype(_ACC[dt.char])


def direct_result_dtype(dt1, dt2):
    """SciPy's direct-method result dtype: NumPy's ``result_type``."""
    return numpy.result_type(numpy.dtype(dt1), numpy.dtype(dt2))


def np_conv_ok(shape1, shape2, mode):
    """SciPy's ``_np_conv_ok``: whether its direct method takes NumPy's 1-D
    ``convolve``/``correlate`` (which support bool and float16) rather than
    ``_correlateND`` (which raises "Unsupported type" for them)."""
    if len(shape1) == len(shape2) == 1:
        if mode in ("full", "valid"):
            return True
        if mode == "same":
            return shape1[0] >= shape2[0]
    return False


_SINGLE = frozenset("efF")


def fft_dtypes(dt1, dt2):
    """``(real compute dtype, complex result?)`` of SciPy's FFT convolution
    of inputs of these dtypes: integers and bool compute in float64,
    float16 in float32 (scipy.fft's rules), the product's precision is the
    wider one; the output is the real or complex dtype of that precision."""
    d1, d2 = numpy.dtype(dt1), numpy.dtype(dt2)
    cplx = d1.kind == "c" or d2.kind == "c"
    single = d1.char in _SINGLE and d2.char in _SINGLE
    real = numpy.dtype(numpy.float32 if single else numpy.float64)
    return real, cplx


def fill_value(fillvalue, dtype):
    """``fillvalue`` as a NumPy scalar of ``dtype``, with SciPy's
    ``convolve2d`` rules: a direct conversion (Python and NumPy scalars as
    NumPy converts them, arrays only by a safe cast); if that fails, SciPy
    converts through complex128 and gives up with ``ValueError`` (after a
    ``ComplexWarning`` for a real ``dtype``); more than one element is a
    ``ValueError``."""
    dt = numpy.dtype(dtype)
    try:
        if isinstance(fillvalue, numpy.ndarray):
            if not numpy.can_cast(fillvalue.dtype, dt, "safe"):
                raise TypeError("unsafe cast")
            fv = fillvalue.astype(dt)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("error", numpy.exceptions.ComplexWarning)
                fv = numpy.array(fillvalue, dtype=dt)
    except (TypeError, ValueError, OverflowError, numpy.exceptions.ComplexWarning):
        fvc = numpy.asarray(fillvalue, dtype=numpy.complex128)
        if fvc.size != 1:
            raise ValueError("`fillvalue` must be scalar or an array with one "
                             "element.") from None
        if dt.kind != "c":
            warnings.warn("Casting complex values to real discards the imaginary "
                          "part", numpy.exceptions.ComplexWarning, stacklevel=3)
        raise ValueError("could not cast `fillvalue` directly to the output type "
                         "(it was first converted to complex).") from None
    if fv.size != 1:
        raise ValueError("`fillvalue` must be scalar or an array with one element.")
    return fv.reshape(())[()]


def init_freq_conv_axes(shape1, shape2, mode, axes):
    """SciPy's ``_init_freq_conv_axes`` on shapes: ``(swap, axes)``.

    ``axes`` normalised (SciPy's messages for out-of-range, repeated or
    non-integer axes, and for an explicitly empty list), axes where either
    input has length 1 dropped (broadcasting covers them), the other axes
    checked for broadcast compatibility, and ``swap`` True when 'valid' mode
    needs in1 and in2 exchanged.
    """
    ndim = len(shape1)
    # gpuscipy.fft's normalisation of axes (SciPy's messages); the unit
    # shape keeps its check of the transform lengths out of the way
    noaxes = axes is None
    _, axes = init_nd_shape_and_axes((1,) * ndim, None, axes)
    if not noaxes and not len(axes):
        raise ValueError("when provided, axes cannot be empty")
    axes = [a for a in axes if shape1[a] != 1 and shape2[a] != 1]
    if not all(shape1[a] == shape2[a] or shape1[a] == 1 or shape2[a] == 1
               for a in range(ndim) if a not in axes):
        raise ValueError("incompatible shapes for in1 and in2:"
                         f" {tuple(shape1)} and {tuple(shape2)}")
    swap = inputs_swap_needed(mode, shape1, shape2, axes=axes)
    return swap, axes


def empty_error(correlate, method, mode, shape1, shape2):
    """What SciPy's ``convolve``/``correlate`` do with an empty input:
    ``None`` (return an empty array of in1's shape) or the exception.

    method 'fft': SciPy's NaN check indexes the empty result
    (``IndexError``). 1-D direct: NumPy's ``convolve``/``correlate``
    messages where SciPy calls them; 'same' with the first input shorter
    goes to SciPy's N-d code, which returns an empty array for an empty
    first input. N-d direct: an empty array for 'same' with in1 empty,
    otherwise ``ValueError`` (SciPy fails with unrelated broadcasting errors
    or returns uninitialised memory there; see docs/signal-convolve.md).
    """
    if method == "fft":
        return IndexError("index 0 is out of bounds for axis 0 with size 0")
    n1, n2 = math.prod(shape1), math.prod(shape2)
    if len(shape1) == 1:
        if mode == "valid" and n1 < n2 and not correlate:   # convolve swaps first
            shape1, shape2, n1, n2 = shape2, shape1, n2, n1
        if np_conv_ok(shape1, shape2, mode):
            if correlate and method == "direct":
                if n1 == 0:
                    return ValueError("first array argument cannot be empty")
                return ValueError("second array argument cannot be empty")
            return ValueError("a cannot be empty" if n1 == 0 else "v cannot be empty")
    if mode == "same" and n1 == 0:
        return None
    return ValueError(f"{'correlate' if correlate else 'convolve'}: empty inputs are "
                      f"only supported in 'same' mode with an empty in1 "
                      f"(shapes {tuple(shape1)} and {tuple(shape2)})")


# ---------------------------------------------------------------------------
# GPU cost model
# ---------------------------------------------------------------------------

class CostModel:
    """Throughput figures behind ``choose_conv_method`` and the FFT plans.

    Estimates for an H200 (HBM3e 4.8 TB/s peak, 67 TFLOP/s FP32 and
    34 TFLOP/s FP64 without tensor cores), to be calibrated with
    ``choose_conv_method(..., measure=True)`` on the device:

    * ``bandwidth``: bytes/s a streaming kernel reaches;
    * ``launch``: seconds per kernel or cuFFT launch (with its allocation);
    * ``mac``: multiply-adds/s of the 1-D tiled direct kernel per
      accumulator type (FMA-bound at 16 outputs per thread for 4-byte types;
      complex products are four real FMAs; 64-bit integer products are
      emulated); ``kind_efficiency`` scales it for the 2-D tile and the
      generic N-d kernel.
    """
    bandwidth = 3.6e12
    launch = 6e-6
    mac = {"u4": 1.0e13, "u8": 2.5e12, "f4": 2.0e13, "f8": 1.0e13, "c8": 5.0e12,
           "c16": 2.5e12}
    kind_efficiency = {"rows": 1.0, "cols": 0.6, "tile2": 0.5, "nd": 0.08}


COST = CostModel()


def fft_passes(n):
    """Passes over memory of a cuFFT transform of length ``n`` (one in shared
    memory up to 4096 points, two up to 2**22, three beyond)."""
    if n <= 4096:
        return 1
    if n <= 1 << 22:
        return 2
    return 3


def direct_time(out_size, w_size, in_size, dtype, kind="rows", model=COST):
    """Predicted seconds of the direct kernel: ``out_size * w_size``
    multiply-adds plus one read of the signal and one write of the output."""
    acc = acc_dtype(dtype).str[1:]
    rate = model.mac[acc] * model.kind_efficiency[kind]
    isz = numpy.dtype(dtype).itemsize
    return (out_size * w_size / rate + (in_size + out_size) * isz / model.bandwidth
            + model.launch)


def _fft_bytes(shape, axes, csz, real):
    """Bytes one (batched) transform of ``shape`` over ``axes`` moves."""
    total = math.prod(shape)
    if real:
        total = total // 2 + 1
    passes = sum(fft_passes(shape[a]) for a in axes) or 1
    return 2 * total * csz * passes


def fft_plan(shape1, shape2, axes, real_dtype, cplx, next_fast_len, model=COST,
             allow_single=True):
    """The cheaper FFT convolution of in1/in2 over ``axes``:
    ``("single", None, None, seconds)`` for one transform of the padded full
    size, or ``("oa", axis, N, seconds)`` for overlap-add along ``axis``
    with blocks of N points (powers of two, N >= 2 * kernel extent - 1).

    ``next_fast_len(n, real)`` is cuFFT's fast length; the byte counts are
    the model of docs/signal-convolve.md.
    """
    rsz = numpy.dtype(real_dtype).itemsize
    csz = 2 * rsz
    esz = csz if cplx else rsz
    ndim = len(shape1)
    out_full = [shape1[i] + shape2[i] - 1 if i in axes else max(shape1[i], shape2[i])
                for i in range(ndim)]
    best = None
    if allow_single:
        fshape = [next_fast_len(out_full[a], not cplx) if a in axes else out_full[a]
                  for a in range(ndim)]
        pad = [next_fast_len(out_full[a], not cplx) if a in axes else shape1[a]
               for a in range(ndim)]
        pad2 = [next_fast_len(out_full[a], not cplx) if a in axes else shape2[a]
                for a in range(ndim)]
        m1, m2, m = math.prod(pad), math.prod(pad2), math.prod(fshape)
        byts = (math.prod(shape1) * esz + m1 * esz + _fft_bytes(pad, axes, csz, not cplx)
                + math.prod(shape2) * esz + m2 * esz + _fft_bytes(pad2, axes, csz, not cplx)
                + 3 * m * esz + _fft_bytes(fshape, axes, csz, not cplx)
                + 2 * math.prod(out_full) * esz)
        best = ("single", None, None, byts / model.bandwidth + 7 * model.launch)
    for a in axes:
        big, small = max(shape1[a], shape2[a]), min(shape1[a], shape2[a])
        if small < 2 or big < 2 * small:
            continue
        sig = shape1 if shape1[a] >= shape2[a] else shape2
        others = [i for i in range(ndim) if i != a]
        other_shape = [next_fast_len(out_full[i], not cplx) if i in axes else sig[i]
                       for i in others]
        other_conv = [j for j, i in enumerate(others) if i in axes]
        n = 1 << max(1, (2 * small - 2).bit_length())
        while n <= max(1 << 20, 2 * small):
            step = n - small + 1
            nb = -(-big // step)
            if nb >= 2:
                m = math.prod(other_shape) * nb * n
                blocks = other_shape + [nb, n]
                bax = other_conv + [len(blocks) - 1]
                byts = (math.prod(sig) * esz + m * esz
                        + 2 * _fft_bytes(blocks, bax, csz, not cplx)
                        + 3 * m * esz + m * esz + math.prod(out_full) * esz)
                t = byts / model.bandwidth + 6 * model.launch
                if best is None or t < best[3]:
                    best = ("oa", a, n, t)
            n *= 2
    return best


def choose_method(shape1, shape2, mode, dtype1, dtype2, next_fast_len, model=COST):
    """'direct' or 'fft' by the cost model (``choose_conv_method``'s default
    path, before SciPy's integer-exactness check, which needs the data).

    Booleans always take 'direct' (as SciPy). The direct estimate uses the
    kernel the shapes select (1-D rows, 2-D tile, generic N-d).
    """
    res = direct_result_dtype(dtype1, dtype2)
    if res.kind == "b":
        return "direct"
    ndim = len(shape1)
    out = [region(mode, shape1[i], shape2[i])[0] for i in range(ndim)]
    n1, n2 = math.prod(shape1), math.prod(shape2)
    wsize = min(n1, n2)
    wshape = shape2 if n2 <= n1 else shape1
    active = [d for d in range(ndim) if wshape[d] > 1]
    if len(active) <= 1:
        kind = "rows"
    elif len(active) == 2 and active == [ndim - 2, ndim - 1]:
        kind = "tile2"
    else:
        kind = "nd"
    t_direct = direct_time(math.prod(out), wsize, max(n1, n2), res, kind, model)
    if res.char == "e":
        real, cplx = numpy.dtype(numpy.float32), False
    else:
        real, cplx = fft_dtypes(dtype1, dtype2)
    axes = [a for a in range(ndim) if shape1[a] != 1 and shape2[a] != 1]
    if not axes:
        return "direct"
    plan = fft_plan(shape1, shape2, axes, real, cplx, next_fast_len, model)
    t_fft = plan[3] + (2 * math.prod(out) * res.itemsize / model.bandwidth
                       if res.kind in "iu" else 0.0)
    return "fft" if t_fft < t_direct else "direct"
