"""cudss bindings: every bound function under its C name, and the enum constants.

See gpuscipy_core.libs for the conventions (pointers and handles are
ints, output scalars are returned, failures raise LibraryError).

Versions
--------
The Python API is cuDSS 1.0's (``libcudss.so.1``): its prototypes and its
enum values, whichever library is loaded. cuDSS 0.7.x (``libcudss.so.0``)
is also supported: at the first call of a function whose ABI or enum
numbering differs, the loaded library's version is read once
(``cudssGetProperty`` MAJOR/MINOR/PATCH) and, for 0.7, the call is
translated:

- ``cudssMatrixCreateCsr``: 0.7 has no ``offsetType`` (its row offsets have
  ``indexType``): ``offsetType`` must equal ``indexType`` and is dropped.
- ``cudssConfigSet``/``cudssConfigGet``: ``cudssConfigParam_t`` is renumbered
  (0.7 has ``CUDSS_CONFIG_USE_MATCHING`` at 3 and calls
  ``CUDSS_CONFIG_HYBRID_MEMORY_MODE`` ``HYBRID_MODE``); the enum-valued
  settings are translated both ways: reordering ``DEFAULT``/``BTF_COLAMD``/
  ``COLAMD``/``AMD`` are 0.7's ``CUDSS_ALG_DEFAULT``/``_1``/``_2``/``_3``;
  factorization, solve and pivot-epsilon algorithms ``DEFAULT``; pivot type
  ``AUTO``/``GLOBAL_COL`` -> ``CUDSS_PIVOT_COL`` (0.7's default),
  ``GLOBAL_ROW`` -> ``ROW``, ``NONE`` -> ``NONE``; matching ``NONE`` ->
  ``USE_MATCHING`` 0, ``AUTO`` -> ``USE_MATCHING`` 1 with ``CUDSS_ALG_DEFAULT``.
- ``cudssDataSet``/``cudssDataGet``: ``cudssDataParam_t`` is renumbered
  (``CUDSS_DATA_COMM_DEVICE`` is 0.7's single ``CUDSS_DATA_COMM``).

A 1.0-only parameter or value (e.g. ``CUDSS_CONFIG_DOWNCAST_FACTORS``,
``CUDSS_PIVOT_BUNCH_KAUFMAN``, int64 row offsets with int32 indices, the ND
partition tree) raises `CUDSSVersionError` before the library is called.
Every other function has the same ABI and enum values in both versions.
cuDSS older than 0.7 is refused (`CUDSSVersionError`); 0.8/0.9 are taken to
have 1.0's API (untested).
"""

import ctypes

from . import _cudss
from ._cudss import __all__ as _c_names
from ._loader import SymbolNotFoundError, library_path

__all__ = list(_c_names) + ["CUDSSVersionError", "library_version"]

globals().update({_name: getattr(_cudss, _name) for _name in _c_names})


class CUDSSVersionError(SymbolNotFoundError):
    """The loaded cuDSS is too old for a parameter, value or argument."""


# The generated bindings (CPU tests replace this with a fake).
_raw = _cudss
_version = None          # (major, minor, patch) of the loaded library, cached

# cudaDataType_t "unset" value of cuDSS 1.0's cudss_data_types.h.
_DATA_TYPE_UNSET = 63


def library_version():
    """``(major, minor, patch)`` of the loaded cuDSS (loading it if needed)."""
    global _version
    v = _version
    if v is None:
        v = _version = tuple(int(_raw.cudssGetProperty(p)) for p in range(3))
    return v


def _dialect():
    """"v1" (the 1.0 layout, cuDSS >= 0.8) or "v0" (cuDSS 0.7.x)."""
    v = library_version()
    if v >= (0, 8):
        return "v1"
    if v >= (0, 7):
        return "v0"
    raise CUDSSVersionError(
        f"cuDSS {'.'.join(map(str, v))} is not supported (0.7.x or >= 1.0 is needed; "
        f"loaded {library_path('cudss') or 'libcudss.so'})")


def _too_old(call, what):
    v = ".".join(map(str, library_version()))
    return CUDSSVersionError(
        f"{call}: {what} needs cuDSS >= 1.0 (the loaded cuDSS is {v}, "
        f"{library_path('cudss') or 'libcudss.so'})")


# ----------------------------------------------------------- translation tables
_NEW = _cudss._ENUMS
_OLD = _cudss._VARIANT_ENUMS["v0"]

# 1.0 name -> 0.7 name where only the name changed.
_RENAMED = {"CUDSS_CONFIG_HYBRID_MEMORY_MODE": "CUDSS_CONFIG_HYBRID_MODE",
            "CUDSS_DATA_COMM_DEVICE": "CUDSS_DATA_COMM"}


def _param_table(enum):
    """{1.0 value: (1.0 name, 0.7 value or None when 1.0-only)}."""
    old = _OLD[enum]
    return {v: (n, old.get(_RENAMED.get(n, n))) for n, v in _NEW[enum].items()}


_CONFIG_PARAMS = _param_table("cudssConfigParam_t")
_DATA_PARAMS = _param_table("cudssDataParam_t")


def _value_table(enum_new, enum_old, pairs):
    new, old = _NEW[enum_new], _OLD[enum_old]
    return {new[a]: old[b] for a, b in pairs}


# Enum-valued config settings whose numbering differs: 1.0 value -> 0.7 value.
_CONFIG_VALUES = {
    _NEW["cudssConfigParam_t"]["CUDSS_CONFIG_REORDERING_ALG"]: _value_table(
        "cudssReorderingAlg_t", "cudssAlgType_t",
        [("CUDSS_REORDERING_ALG_DEFAULT", "CUDSS_ALG_DEFAULT"),
         ("CUDSS_REORDERING_ALG_BTF_COLAMD", "CUDSS_ALG_1"),
         ("CUDSS_REORDERING_ALG_COLAMD", "CUDSS_ALG_2"),
         ("CUDSS_REORDERING_ALG_AMD", "CUDSS_ALG_3")]),
    _NEW["cudssConfigParam_t"]["CUDSS_CONFIG_FACTORIZATION_ALG"]: _value_table(
        "cudssFactorizationAlg_t", "cudssAlgType_t",
        [("CUDSS_FACTORIZATION_ALG_DEFAULT", "CUDSS_ALG_DEFAULT")]),
    _NEW["cudssConfigParam_t"]["CUDSS_CONFIG_SOLVE_ALG"]: _value_table(
        "cudssSolveAlg_t", "cudssAlgType_t",
        [("CUDSS_SOLVE_ALG_DEFAULT", "CUDSS_ALG_DEFAULT")]),
    _NEW["cudssConfigParam_t"]["CUDSS_CONFIG_PIVOT_EPSILON_ALG"]: _value_table(
        "cudssPivotEpsilonAlg_t", "cudssAlgType_t",
        [("CUDSS_PIVOT_EPSILON_ALG_DEFAULT", "CUDSS_ALG_DEFAULT")]),
    _NEW["cudssConfigParam_t"]["CUDSS_CONFIG_PIVOT_TYPE"]: _value_table(
        "cudssPivotType_t", "cudssPivotType_t",
        [("CUDSS_PIVOT_AUTO", "CUDSS_PIVOT_COL"),      # first: the inverse of COL
         ("CUDSS_PIVOT_GLOBAL_COL", "CUDSS_PIVOT_COL"),
         ("CUDSS_PIVOT_GLOBAL_ROW", "CUDSS_PIVOT_ROW"),
         ("CUDSS_PIVOT_NONE", "CUDSS_PIVOT_NONE")]),
}
_VALUE_ENUMS = {_NEW["cudssConfigParam_t"][p]: e for p, e in (
    ("CUDSS_CONFIG_REORDERING_ALG", "cudssReorderingAlg_t"),
    ("CUDSS_CONFIG_FACTORIZATION_ALG", "cudssFactorizationAlg_t"),
    ("CUDSS_CONFIG_SOLVE_ALG", "cudssSolveAlg_t"),
    ("CUDSS_CONFIG_PIVOT_EPSILON_ALG", "cudssPivotEpsilonAlg_t"),
    ("CUDSS_CONFIG_PIVOT_TYPE", "cudssPivotType_t"))}
_CONFIG_VALUES_BACK = {p: {o: n for n, o in reversed(list(t.items()))}
                       for p, t in _CONFIG_VALUES.items()}

_MATCHING = _NEW["cudssConfigParam_t"]["CUDSS_CONFIG_MATCHING_ALG"]
_M_NONE = _NEW["cudssMatchingAlg_t"]["CUDSS_MATCHING_ALG_NONE"]
_M_AUTO = _NEW["cudssMatchingAlg_t"]["CUDSS_MATCHING_ALG_AUTO"]
_OLD_USE_MATCHING = _OLD["cudssConfigParam_t"]["CUDSS_CONFIG_USE_MATCHING"]
_OLD_MATCHING_ALG = _OLD["cudssConfigParam_t"]["CUDSS_CONFIG_MATCHING_ALG"]
_OLD_ALG_DEFAULT = _OLD["cudssAlgType_t"]["CUDSS_ALG_DEFAULT"]

_INT = ctypes.sizeof(ctypes.c_int)


def _enum_name(enum, value):
    for n, v in _NEW[enum].items():
        if v == value:
            return n
    return str(value)


def _old_param(call, table, param):
    entry = table.get(param)
    if entry is None:
        # Not a 1.0 value either: pass it on, the library rejects it.
        return param
    if entry[1] is None:
        raise _too_old(call, entry[0])
    return entry[1]


def _named(c_name, raw_doc):
    def deco(fn):
        fn.__name__ = fn.__qualname__ = c_name
        fn.__doc__ = raw_doc + (
            "\n    With cuDSS 0.7 the call is translated (see gpuscipy_core.libs.cudss).\n")
        return fn
    return deco


# -------------------------------------------------------------------- wrappers
@_named("cudssMatrixCreateCsr", _cudss.cudssMatrixCreateCsr.__doc__)
def cudssMatrixCreateCsr(nrows, ncols, nnz, rowStart, rowEnd, colIndices, values,
                         offsetType, indexType, valueType, mtype, mview, indexBase):
    if _version is not None and _version >= (0, 8) or _dialect() == "v1":
        return _raw.cudssMatrixCreateCsr(nrows, ncols, nnz, rowStart, rowEnd, colIndices,
                                         values, offsetType, indexType, valueType, mtype,
                                         mview, indexBase)
    if offsetType != indexType and offsetType != _DATA_TYPE_UNSET:
        raise _too_old("cudssMatrixCreateCsr",
                       f"offsetType {offsetType} different from indexType {indexType}")
    return _raw._v0_cudssMatrixCreateCsr(nrows, ncols, nnz, rowStart, rowEnd, colIndices,
                                         values, indexType, valueType, mtype, mview,
                                         indexBase)


@_named("cudssConfigSet", _cudss.cudssConfigSet.__doc__)
def cudssConfigSet(config, param, value, sizeInBytes):
    if _version is not None and _version >= (0, 8) or _dialect() == "v1":
        return _raw.cudssConfigSet(config, param, value, sizeInBytes)
    call = "cudssConfigSet"
    if param == _MATCHING and sizeInBytes == _INT:
        v = ctypes.c_int.from_address(value).value
        if v == _M_NONE:
            flag = ctypes.c_int(0)
            return _raw.cudssConfigSet(config, _OLD_USE_MATCHING,
                                       ctypes.addressof(flag), _INT)
        if v == _M_AUTO:
            flag, alg = ctypes.c_int(1), ctypes.c_int(_OLD_ALG_DEFAULT)
            _raw.cudssConfigSet(config, _OLD_MATCHING_ALG, ctypes.addressof(alg), _INT)
            return _raw.cudssConfigSet(config, _OLD_USE_MATCHING,
                                       ctypes.addressof(flag), _INT)
        raise _too_old(call, f"CUDSS_CONFIG_MATCHING_ALG = "
                             f"{_enum_name('cudssMatchingAlg_t', v)}")
    old_param = _old_param(call, _CONFIG_PARAMS, param)
    table = _CONFIG_VALUES.get(param)
    if table is not None and sizeInBytes == _INT:
        v = ctypes.c_int.from_address(value).value
        if v not in table:
            raise _too_old(call, f"{_CONFIG_PARAMS[param][0]} = "
                                 f"{_enum_name(_VALUE_ENUMS[param], v)}")
        tmp = ctypes.c_int(table[v])
        return _raw.cudssConfigSet(config, old_param, ctypes.addressof(tmp), _INT)
    return _raw.cudssConfigSet(config, old_param, value, sizeInBytes)


@_named("cudssConfigGet", _cudss.cudssConfigGet.__doc__)
def cudssConfigGet(config, param, value, sizeInBytes):
    if _version is not None and _version >= (0, 8) or _dialect() == "v1":
        return _raw.cudssConfigGet(config, param, value, sizeInBytes)
    call = "cudssConfigGet"
    if param == _MATCHING and sizeInBytes == _INT:
        tmp = ctypes.c_int(0)
        _raw.cudssConfigGet(config, _OLD_USE_MATCHING, ctypes.addressof(tmp), _INT)
        if tmp.value == 0:
            out = _M_NONE
        else:
            _raw.cudssConfigGet(config, _OLD_MATCHING_ALG, ctypes.addressof(tmp), _INT)
            if tmp.value != _OLD_ALG_DEFAULT:
                raise CUDSSVersionError(
                    f"{call}: the 0.7 matching algorithm CUDSS_ALG_{tmp.value} has no "
                    f"cuDSS 1.0 name here")
            out = _M_AUTO
        ctypes.c_int.from_address(value).value = out
        return _INT
    old_param = _old_param(call, _CONFIG_PARAMS, param)
    back = _CONFIG_VALUES_BACK.get(param)
    if back is not None and sizeInBytes == _INT:
        tmp = ctypes.c_int(0)
        written = _raw.cudssConfigGet(config, old_param, ctypes.addressof(tmp), _INT)
        if tmp.value not in back:
            raise CUDSSVersionError(
                f"{call}: the 0.7 value {tmp.value} of {_CONFIG_PARAMS[param][0]} has no "
                f"cuDSS 1.0 equivalent here")
        ctypes.c_int.from_address(value).value = back[tmp.value]
        return written
    return _raw.cudssConfigGet(config, old_param, value, sizeInBytes)


@_named("cudssDataSet", _cudss.cudssDataSet.__doc__)
def cudssDataSet(handle, data, param, value, sizeInBytes):
    if _version is not None and _version >= (0, 8) or _dialect() == "v1":
        return _raw.cudssDataSet(handle, data, param, value, sizeInBytes)
    old_param = _old_param("cudssDataSet", _DATA_PARAMS, param)
    return _raw.cudssDataSet(handle, data, old_param, value, sizeInBytes)


@_named("cudssDataGet", _cudss.cudssDataGet.__doc__)
def cudssDataGet(handle, data, param, value, sizeInBytes):
    if _version is not None and _version >= (0, 8) or _dialect() == "v1":
        return _raw.cudssDataGet(handle, data, param, value, sizeInBytes)
    old_param = _old_param("cudssDataGet", _DATA_PARAMS, param)
    return _raw.cudssDataGet(handle, data, old_param, value, sizeInBytes)
