"""Shared pieces of gpuscipy.linalg: errors, input validation, dtype rules."""

import numpy
from numpy.linalg import LinAlgError          # the class scipy.linalg raises
from scipy.linalg import LinAlgWarning        # SciPy's own warning class

import gpuscipy_core as gp
from gpuscipy_core.kernel import ctype as _ctype
from gpuscipy_core.lib import all_finite as _all_finite

__all__ = ["LinAlgError", "LinAlgWarning", "lapack_dtype", "asarray_validated",
           "as_square_matrix", "check_finite_array", "LAPACK_CHARS", "device_types"]

# dtype chars of the LAPACK types: float32, float64, complex64, complex128
LAPACK_CHARS = "fdFD"

_PROMOTE = {"f": {2: numpy.float32, 4: numpy.float32, 8: numpy.float64},
            "c": {8: numpy.complex64, 16: numpy.complex128}}


def device_types(dtype):
    """``(T, R)``: the device-code C types of the LAPACK dtype ``dtype`` and
    of its real part (``"gs::complex<float>"``, ``"float"`` for complex64),
    from gpuscipy_core's one table."""
    dt = numpy.dtype(dtype)
    return _ctype(dt), _ctype(numpy.dtype(dt.char.lower()))


def lapack_dtype(*dtypes):
    """The LAPACK type SciPy would compute in for these input dtypes.

    float32/complex64 stay single precision; float16 becomes float32;
    bool and integers become float64 (``scipy.linalg.find_best_lapack_type``).
    """
    dt = numpy.result_type(*[numpy.dtype(d) for d in dtypes])
    if dt.kind == "f":
        return numpy.dtype(numpy.float64 if dt.itemsize > 4 else numpy.float32)
    if dt.kind == "c":
        return numpy.dtype(numpy.complex128 if dt.itemsize > 8 else numpy.complex64)
    if dt.kind in "biu":
        return numpy.dtype(numpy.float64)
    raise TypeError(f"array type {dt} is unsupported in linalg")


def check_finite_array(a, name="array"):
    """Raise ``ValueError`` (SciPy's message) if ``a`` holds inf or NaN.

    One pass over ``a`` on the device (no temporary) and one scalar read back.
    """
    if not _all_finite(a):
        raise ValueError("array must not contain infs or NaNs")


def asarray_validated(a, check_finite=True, name="a"):
    """``a`` as a device array; object/str dtypes and non-finite values refused."""
    a = gp.asarray(a)
    if a.dtype.kind not in "biufc":
        raise ValueError(f"{name}: array type {a.dtype} is unsupported in linalg")
    if check_finite:
        check_finite_array(a, name)
    return a


def as_square_matrix(a, name="a", check_finite=True, batched=True):
    """Validate a (stack of) square matrices and return it as a device array.

    Raises ``ValueError`` like SciPy: "expected square matrix" for a
    non-square last pair of axes; "... at least 2-D" when ndim < 2.
    """
    a = asarray_validated(a, check_finite, name)
    if a.ndim < 2 or (not batched and a.ndim != 2):
        raise ValueError(f"Input {name} needs to be a square matrix." if batched else
                         "expected square matrix")
    if a.shape[-1] != a.shape[-2]:
        raise ValueError("expected square matrix")
    return a
