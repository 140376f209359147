"""CUDA's library data types (``cudaDataType_t``) and library properties."""

import numpy

__all__ = ["CUDA_R_16F", "CUDA_C_16F", "CUDA_R_16BF", "CUDA_C_16BF",
           "CUDA_R_32F", "CUDA_C_32F", "CUDA_R_64F", "CUDA_C_64F",
           "CUDA_R_8I", "CUDA_C_8I", "CUDA_R_8U", "CUDA_C_8U",
           "CUDA_R_16I", "CUDA_C_16I", "CUDA_R_16U", "CUDA_C_16U",
           "CUDA_R_32I", "CUDA_C_32I", "CUDA_R_32U", "CUDA_C_32U",
           "CUDA_R_64I", "CUDA_C_64I", "CUDA_R_64U", "CUDA_C_64U",
           "MAJOR_VERSION", "MINOR_VERSION", "PATCH_LEVEL", "cuda_data_type"]

# cudaDataType_t (library_types.h)
CUDA_R_16F = 2
CUDA_C_16F = 6
CUDA_R_16BF = 14
CUDA_C_16BF = 15
CUDA_R_32F = 0
CUDA_C_32F = 4
CUDA_R_64F = 1
CUDA_C_64F = 5
CUDA_R_8I = 3
CUDA_C_8I = 7
CUDA_R_8U = 8
CUDA_C_8U = 9
CUDA_R_16I = 20
CUDA_C_16I = 21
CUDA_R_16U = 22
CUDA_C_16U = 23
CUDA_R_32I = 10
CUDA_C_32I = 11
CUDA_R_32U = 12
CUDA_C_32U = 13
CUDA_R_64I = 24
CUDA_C_64I = 25
CUDA_R_64U = 26
CUDA_C_64U = 27

# libraryPropertyType (library_types.h)
MAJOR_VERSION = 0
MINOR_VERSION = 1
PATCH_LEVEL = 2

_BY_CHAR = {
    "e": CUDA_R_16F, "f": CUDA_R_32F, "d": CUDA_R_64F,
    "F": CUDA_C_32F, "D": CUDA_C_64F,
    "b": CUDA_R_8I, "B": CUDA_R_8U, "h": CUDA_R_16I, "H": CUDA_R_16U,
    "i": CUDA_R_32I, "I": CUDA_R_32U, "l": CUDA_R_64I, "L": CUDA_R_64U,
    "q": CUDA_R_64I, "Q": CUDA_R_64U,
}


def cuda_data_type(dtype):
    """The ``cudaDataType_t`` value of a NumPy dtype.

    Parameters
    ----------
    dtype : numpy dtype or anything ``numpy.dtype`` accepts
        float16/32/64, complex64/128 or an integer type of 8 to 64 bits.

    Returns
    -------
    int
        E.g. ``CUDA_R_64F`` (1) for float64, ``CUDA_C_32F`` (4) for complex64.

    Raises
    ------
    TypeError
        For a dtype CUDA's libraries have no type for (bool, object, ...).
    """
    dt = numpy.dtype(dtype)
    try:
        return _BY_CHAR[dt.char]
    except KeyError:
        raise TypeError(f"no CUDA library data type for dtype {dt}") from None
