"""CPU tests of the cuDSS version dispatch (1.0 API over a 0.7 or 1.0 library).

The generated bindings are replaced by a fake recording every call, and the
library version is set by hand: no shared library is loaded.
"""

import ctypes
import os

import pytest

from gpuscipy_core import libs
from gpuscipy_core.libs import _cudss, _generate, _loader, cudss


class FakeRaw:
    """Stands for ``_cudss``: records calls, keeps a 0.7 or 1.0 config store."""

    def __init__(self, version):
        self.version = version
        self.calls = []
        self.store = {}

    def cudssGetProperty(self, prop):
        return self.version[prop]

    def cudssMatrixCreateCsr(self, *args):
        self.calls.append(("v1", "cudssMatrixCreateCsr", args))
        return 1234

    def _v0_cudssMatrixCreateCsr(self, *args):
        self.calls.append(("v0", "cudssMatrixCreateCsr", args))
        return 5678

    def cudssConfigSet(self, config, param, value, size):
        v = ctypes.c_int.from_address(value).value if size == 4 else None
        self.calls.append(("cudssConfigSet", param, v, size))
        self.store[param] = v

    def cudssConfigGet(self, config, param, value, size):
        self.calls.append(("cudssConfigGet", param, size))
        ctypes.c_int.from_address(value).value = self.store.get(param, 0)
        return 4

    def cudssDataSet(self, handle, data, param, value, size):
        self.calls.append(("cudssDataSet", param))

    def cudssDataGet(self, handle, data, param, value, size):
        self.calls.append(("cudssDataGet", param))
        return size


@pytest.fixture
def fake(monkeypatch):
    def make(version):
        raw = FakeRaw(version)
        monkeypatch.setattr(cudss, "_raw", raw)
        monkeypatch.setattr(cudss, "_version", None)
        monkeypatch.setattr(cudss, "library_path", lambda name: "/x/libcudss.so.0")
        return raw
    return make


def _int(v):
    return ctypes.c_int(v)


def _set(param, value):
    x = _int(value)
    cudss.cudssConfigSet(7, param, ctypes.addressof(x), 4)


def _get(param):
    x = _int(-1)
    n = cudss.cudssConfigGet(7, param, ctypes.addressof(x), 4)
    assert n == 4
    return x.value


CSR_ARGS = (4, 4, 6, 11, 0, 12, 13)


def test_version_read_once_from_get_property(fake):
    raw = fake((0, 7, 1))
    assert cudss.library_version() == (0, 7, 1)
    raw.version = (1, 0, 0)
    assert cudss.library_version() == (0, 7, 1)   # cached
    assert cudss._dialect() == "v0"


@pytest.mark.parametrize("version, dialect", [
    ((1, 0, 0), "v1"), ((1, 2, 3), "v1"), ((0, 8, 0), "v1"), ((0, 7, 0), "v0"),
    ((0, 7, 1), "v0")])
def test_dialect(fake, version, dialect):
    fake(version)
    assert cudss._dialect() == dialect


def test_older_than_07_refused(fake):
    fake((0, 6, 0))
    with pytest.raises(cudss.CUDSSVersionError, match=r"cuDSS 0\.6\.0 is not supported"):
        cudss.cudssMatrixCreateCsr(*CSR_ARGS, 10, 10, 1, 0, 0, 0)
    assert issubclass(cudss.CUDSSVersionError, libs.SymbolNotFoundError)


def test_create_csr_v1_passes_every_argument(fake):
    raw = fake((1, 0, 0))
    assert cudss.cudssMatrixCreateCsr(*CSR_ARGS, 24, 10, 1, 3, 1, 0) == 1234
    assert raw.calls == [("v1", "cudssMatrixCreateCsr", CSR_ARGS + (24, 10, 1, 3, 1, 0))]


def test_create_csr_v0_drops_offset_type(fake):
    raw = fake((0, 7, 1))
    assert cudss.cudssMatrixCreateCsr(*CSR_ARGS, libs.CUDA_R_32I, libs.CUDA_R_32I,
                                      libs.CUDA_R_64F, cudss.CUDSS_MTYPE_SPD,
                                      cudss.CUDSS_MVIEW_LOWER, cudss.CUDSS_BASE_ONE) == 5678
    assert raw.calls == [("v0", "cudssMatrixCreateCsr",
                          CSR_ARGS + (libs.CUDA_R_32I, libs.CUDA_R_64F, 3, 1, 1))]
    with pytest.raises(cudss.CUDSSVersionError,
                       match=r"cudssMatrixCreateCsr: offsetType 24 different from indexType "
                             r"10 needs cuDSS >= 1\.0 \(the loaded cuDSS is 0\.7\.1"):
        cudss.cudssMatrixCreateCsr(*CSR_ARGS, libs.CUDA_R_64I, libs.CUDA_R_32I,
                                   libs.CUDA_R_64F, 0, 0, 0)
    assert len(raw.calls) == 1


def test_config_v1_untouched(fake):
    raw = fake((1, 0, 0))
    _set(cudss.CUDSS_CONFIG_DOWNCAST_FACTORS, 1)
    _set(cudss.CUDSS_CONFIG_PIVOT_TYPE, cudss.CUDSS_PIVOT_BUNCH_KAUFMAN)
    assert _get(cudss.CUDSS_CONFIG_PIVOT_TYPE) == cudss.CUDSS_PIVOT_BUNCH_KAUFMAN
    assert raw.calls[:2] == [("cudssConfigSet", 28, 1, 4), ("cudssConfigSet", 7, 6, 4)]


OLD_CFG = _cudss._VARIANT_ENUMS["v0"]["cudssConfigParam_t"]


@pytest.mark.parametrize("name", sorted(OLD_CFG))
def test_config_params_renumbered_for_v0(fake, name):
    # Every 0.7 parameter with a 1.0 name lands in its 0.7 slot.
    raw = fake((0, 7, 1))
    new = dict(_cudss._ENUMS["cudssConfigParam_t"])
    new_name = {"CUDSS_CONFIG_HYBRID_MODE": "CUDSS_CONFIG_HYBRID_MEMORY_MODE"}.get(name, name)
    if new_name not in new:
        assert name == "CUDSS_CONFIG_USE_MATCHING"
        return
    param = new[new_name]
    if param in cudss._CONFIG_VALUES or param == cudss._MATCHING:
        return   # enum-valued: test_config_values_v0
    x = ctypes.c_double(1e-3)
    cudss.cudssConfigSet(7, param, ctypes.addressof(x), 8)
    assert raw.calls[-1][1] == OLD_CFG[name] and raw.calls[-1][3] == 8


@pytest.mark.parametrize("name", ["CUDSS_CONFIG_ND_UBFACTOR",
                                  "CUDSS_CONFIG_EMULATION_MANTISSA_BIT_COUNT",
                                  "CUDSS_CONFIG_FORCE_NONSYMMETRIC_MATCHING",
                                  "CUDSS_CONFIG_DOWNCAST_FACTORS",
                                  "CUDSS_CONFIG_MEMORY_OPTIMIZATION_SETTING"])
def test_config_1_0_only_params_raise_on_v0(fake, name):
    raw = fake((0, 7, 1))
    with pytest.raises(cudss.CUDSSVersionError,
                       match=f"cudssConfigSet: {name} needs cuDSS >= 1.0"):
        _set(getattr(cudss, name), 1)
    with pytest.raises(cudss.CUDSSVersionError, match=f"cudssConfigGet: {name}"):
        _get(getattr(cudss, name))
    assert raw.calls == []


@pytest.mark.parametrize("param, value, old_param, old_value", [
    ("CUDSS_CONFIG_REORDERING_ALG", "CUDSS_REORDERING_ALG_DEFAULT", 0, 0),
    ("CUDSS_CONFIG_REORDERING_ALG", "CUDSS_REORDERING_ALG_BTF_COLAMD", 0, 1),
    ("CUDSS_CONFIG_REORDERING_ALG", "CUDSS_REORDERING_ALG_COLAMD", 0, 2),
    ("CUDSS_CONFIG_REORDERING_ALG", "CUDSS_REORDERING_ALG_AMD", 0, 3),
    ("CUDSS_CONFIG_FACTORIZATION_ALG", "CUDSS_FACTORIZATION_ALG_DEFAULT", 1, 0),
    ("CUDSS_CONFIG_SOLVE_ALG", "CUDSS_SOLVE_ALG_DEFAULT", 2, 0),
    ("CUDSS_CONFIG_PIVOT_EPSILON_ALG", "CUDSS_PIVOT_EPSILON_ALG_DEFAULT", 17, 0),
    ("CUDSS_CONFIG_PIVOT_TYPE", "CUDSS_PIVOT_AUTO", 8, 0),
    ("CUDSS_CONFIG_PIVOT_TYPE", "CUDSS_PIVOT_GLOBAL_ROW", 8, 1),
    ("CUDSS_CONFIG_PIVOT_TYPE", "CUDSS_PIVOT_NONE", 8, 2),
])
def test_config_values_v0(fake, param, value, old_param, old_value):
    raw = fake((0, 7, 1))
    _set(getattr(cudss, param), getattr(cudss, value))
    assert raw.calls[-1] == ("cudssConfigSet", old_param, old_value, 4)
    assert raw.store[old_param] == old_value
    assert _get(getattr(cudss, param)) == getattr(cudss, value)
    assert raw.calls[-1] == ("cudssConfigGet", old_param, 4)


def test_config_pivot_global_col_reads_back_as_auto(fake):
    raw = fake((0, 7, 1))
    _set(cudss.CUDSS_CONFIG_PIVOT_TYPE, cudss.CUDSS_PIVOT_GLOBAL_COL)
    assert raw.store[8] == 0
    assert _get(cudss.CUDSS_CONFIG_PIVOT_TYPE) == cudss.CUDSS_PIVOT_AUTO


@pytest.mark.parametrize("param, value", [
    ("CUDSS_CONFIG_REORDERING_ALG", "CUDSS_REORDERING_ALG_NONE"),
    ("CUDSS_CONFIG_REORDERING_ALG", "CUDSS_REORDERING_ALG_NESTED_DISSECTION"),
    ("CUDSS_CONFIG_FACTORIZATION_ALG", "CUDSS_FACTORIZATION_ALG_GENERAL"),
    ("CUDSS_CONFIG_PIVOT_TYPE", "CUDSS_PIVOT_BUNCH_KAUFMAN"),
    ("CUDSS_CONFIG_PIVOT_TYPE", "CUDSS_PIVOT_LOCAL_BLOCK"),
    ("CUDSS_CONFIG_MATCHING_ALG", "CUDSS_MATCHING_ALG_MAX_DIAG_SUM"),
])
def test_config_1_0_only_values_raise_on_v0(fake, param, value):
    raw = fake((0, 7, 1))
    with pytest.raises(cudss.CUDSSVersionError,
                       match=f"cudssConfigSet: {param} = {value} needs cuDSS >= 1.0"):
        _set(getattr(cudss, param), getattr(cudss, value))
    assert raw.calls == []


def test_config_matching_v0(fake):
    raw = fake((0, 7, 1))
    assert _get(cudss.CUDSS_CONFIG_MATCHING_ALG) == cudss.CUDSS_MATCHING_ALG_NONE
    _set(cudss.CUDSS_CONFIG_MATCHING_ALG, cudss.CUDSS_MATCHING_ALG_AUTO)
    assert raw.store == {3: 1, 4: 0}          # USE_MATCHING = 1, MATCHING_ALG = DEFAULT
    assert _get(cudss.CUDSS_CONFIG_MATCHING_ALG) == cudss.CUDSS_MATCHING_ALG_AUTO
    _set(cudss.CUDSS_CONFIG_MATCHING_ALG, cudss.CUDSS_MATCHING_ALG_NONE)
    assert raw.store[3] == 0
    assert _get(cudss.CUDSS_CONFIG_MATCHING_ALG) == cudss.CUDSS_MATCHING_ALG_NONE
    raw.store.update({3: 1, 4: 2})            # set by C code: CUDSS_ALG_2
    with pytest.raises(cudss.CUDSSVersionError, match="CUDSS_ALG_2 has no cuDSS 1.0 name"):
        _get(cudss.CUDSS_CONFIG_MATCHING_ALG)


def test_config_wrong_size_reaches_library_v0(fake):
    # A value of the wrong size is not read: the library answers (INVALID_VALUE).
    raw = fake((0, 7, 1))
    x = ctypes.c_int64(0)
    cudss.cudssConfigSet(7, cudss.CUDSS_CONFIG_PIVOT_TYPE, ctypes.addressof(x), 8)
    assert raw.calls == [("cudssConfigSet", 8, None, 8)]


@pytest.mark.parametrize("name, old", [
    ("CUDSS_DATA_INFO", 0), ("CUDSS_DATA_LU_NNZ", 1), ("CUDSS_DATA_HYBRID_DEVICE_MEMORY_MIN", 10),
    ("CUDSS_DATA_COMM_DEVICE", 11), ("CUDSS_DATA_MEMORY_ESTIMATES", 12),
    ("CUDSS_DATA_PERM_MATCHING", 13), ("CUDSS_DATA_SCHUR_MATRIX", 19),
    ("CUDSS_DATA_USER_HOST_INTERRUPT", 22)])
def test_data_params_v0(fake, name, old):
    raw = fake((0, 7, 1))
    cudss.cudssDataSet(1, 2, getattr(cudss, name), 3, 8)
    assert cudss.cudssDataGet(1, 2, getattr(cudss, name), 3, 8) == 8
    assert raw.calls == [("cudssDataSet", old), ("cudssDataGet", old)]


@pytest.mark.parametrize("name", ["CUDSS_DATA_COMM_HOST", "CUDSS_DATA_IR_N_STEPS",
                                  "CUDSS_DATA_UBATCH_MASK", "CUDSS_DATA_FLOPS",
                                  "CUDSS_DATA_ND_PARTITION_TREE"])
def test_data_1_0_only_params_raise_on_v0(fake, name):
    raw = fake((0, 7, 1))
    with pytest.raises(cudss.CUDSSVersionError, match=f"cudssDataGet: {name} needs"):
        cudss.cudssDataGet(1, 2, getattr(cudss, name), 3, 8)
    assert raw.calls == []


def test_data_params_v1_untouched(fake):
    raw = fake((1, 0, 0))
    cudss.cudssDataGet(1, 2, cudss.CUDSS_DATA_FLOPS, 3, 8)
    assert raw.calls == [("cudssDataGet", 26)]


def test_wrappers_keep_c_names_and_prototypes():
    for name in ("cudssMatrixCreateCsr", "cudssConfigSet", "cudssConfigGet", "cudssDataSet",
                 "cudssDataGet"):
        f = getattr(cudss, name)
        assert f is not getattr(_cudss, name) and f.__name__ == name
        assert f.__doc__.startswith(getattr(_cudss, name).__doc__)
    # Functions with one ABI and one numbering are the generated ones.
    assert cudss.cudssExecute is _cudss.cudssExecute
    assert cudss.CUDSS_PHASE_SOLVE == 1008 and cudss.CUDSS_CONFIG_MATCHING_ALG == 3


def test_variant_bindings():
    # Only cudssMatrixCreateCsr has a 0.7 ABI of its own (one argument fewer).
    vb = _generate.variant_bindings(_generate.parse("cudss"))
    assert [(v.name, f.name) for v, f in vb] == [("v0", "cudssMatrixCreateCsr")]
    assert [p.name for p in vb[0][1].inputs] == [
        "nrows", "ncols", "nnz", "rowStart", "rowEnd", "colIndices", "values",
        "indexType", "valueType", "mtype", "mview", "indexBase"]
    src = _generate.check_source("cudss")
    assert "#if CUDSS_VERSION < 800" in src and "#else" in src
    assert "CUDSS_CONFIG_USE_MATCHING == 3LL" in src


def test_loader_candidates_both_sonames(tmp_path, monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    for d, names in ((a, ["libcudss.so.0"]), (b, ["libcudss.so.0", "libcudss.so.1"])):
        for n in names:
            (d / n).write_bytes(b"")
    monkeypatch.setenv("LD_LIBRARY_PATH", f"{a}{os.pathsep}{b}")
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.delenv("CUDA_HOME", raising=False)
    c = _loader._fallback_candidates("cudss")
    mine = [p for p in c if p.startswith(str(tmp_path))]
    assert mine == [str(a / "libcudss.so.0"), str(b / "libcudss.so.1"),
                    str(b / "libcudss.so.0")]
    assert c[-3:] == ["libcudss.so.1", "libcudss.so.0", "libcudss.so"]


def test_loader_fallback_opens_ld_library_path(tmp_path, monkeypatch):
    opened = []

    class FakeCDLL:
        def __init__(self, path, mode=0):
            opened.append(path)
            # only the fake library opens (a real cuDSS in a wheel folder,
            # searched first, must not satisfy this test)
            if not path.startswith(str(tmp_path)) or not path.endswith(".so.0"):
                raise OSError(f"{path}: cannot open")

    (tmp_path / "libcudss.so.0").write_bytes(b"")
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path))
    monkeypatch.setattr(_loader, "_PRELOAD", {})
    monkeypatch.setattr(_loader.ctypes, "CDLL", FakeCDLL)
    lib, path = _loader._load_fallback("cudss")
    assert path == str(tmp_path / "libcudss.so.0")
