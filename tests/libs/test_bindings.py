"""CPU tests of the vendor library layer: imports, names, constants, errors, loader."""

import os
import pickle
import subprocess
import sys

import numpy
import pytest

from gpuscipy_core import libs
from gpuscipy_core.libs import _errors, _generate, _loader

LIBS = _generate.LIBRARIES


def test_import_loads_no_shared_library():
    code = ("import gpuscipy_core, gpuscipy_core.libs as L\n"
            "from gpuscipy_core.libs import cublas, cusolver, cufft, cusparse, curand, cudss\n"
            "L.get_handle; cublas.cublasSgemm_v2\n"
            "maps = open('/proc/self/maps').read()\n"
            "bad = [n for n in ('libcublas', 'libcusolver', 'libcufft', 'libcusparse',\n"
            "                   'libcurand', 'libcudss') if n in maps]\n"
            "print(bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("lib", LIBS)
def test_modules_export_exact_c_names(lib):
    mod = getattr(libs, lib)
    decls = _generate.parse(lib)
    assert decls.functions, lib
    for fn in decls.functions:
        f = getattr(mod, fn.name)
        assert fn.name in mod.__all__
        assert f.__name__ == fn.name
        assert f"{fn.ret} {fn.name}(" in " ".join(f.__doc__.split())


@pytest.mark.parametrize("module, name, value", [
    ("cublas", "CUBLAS_OP_N", 0), ("cublas", "CUBLAS_OP_T", 1), ("cublas", "CUBLAS_OP_C", 2),
    ("cublas", "CUBLAS_FILL_MODE_LOWER", 0), ("cublas", "CUBLAS_FILL_MODE_UPPER", 1),
    ("cublas", "CUBLAS_SIDE_LEFT", 0), ("cublas", "CUBLAS_SIDE_RIGHT", 1),
    ("cublas", "CUBLAS_DIAG_NON_UNIT", 0), ("cublas", "CUBLAS_DIAG_UNIT", 1),
    ("cublas", "CUBLAS_POINTER_MODE_HOST", 0), ("cublas", "CUBLAS_POINTER_MODE_DEVICE", 1),
    ("cublas", "CUBLAS_COMPUTE_32F", 68), ("cublas", "CUBLAS_COMPUTE_32F_FAST_TF32", 77),
    ("cublas", "CUBLAS_COMPUTE_64F", 70), ("cublas", "CUBLAS_GEMM_DEFAULT", -1),
    ("cublas", "CUBLAS_DEFAULT_MATH", 0), ("cublas", "CUBLAS_TF32_TENSOR_OP_MATH", 3),
    ("cusolver", "CUBLAS_FILL_MODE_LOWER", 0), ("cusolver", "CUBLAS_OP_T", 1),
    ("cusolver", "CUBLAS_SIDE_RIGHT", 1),
    ("cusolver", "CUSOLVER_EIG_MODE_NOVECTOR", 0), ("cusolver", "CUSOLVER_EIG_MODE_VECTOR", 1),
    ("cusolver", "CUSOLVER_EIG_TYPE_1", 1), ("cusolver", "CUSOLVER_EIG_TYPE_3", 3),
    ("cusolver", "CUSOLVER_EIG_RANGE_ALL", 1001), ("cusolver", "CUSOLVER_EIG_RANGE_I", 1002),
    ("cusolver", "CUSOLVER_EIG_RANGE_V", 1003),
    ("cufft", "CUFFT_R2C", 0x2a), ("cufft", "CUFFT_C2R", 0x2c), ("cufft", "CUFFT_C2C", 0x29),
    ("cufft", "CUFFT_D2Z", 0x6a), ("cufft", "CUFFT_Z2D", 0x6c), ("cufft", "CUFFT_Z2Z", 0x69),
    ("cufft", "CUFFT_FORWARD", -1), ("cufft", "CUFFT_INVERSE", 1),
    ("cusparse", "CUSPARSE_INDEX_32I", 2), ("cusparse", "CUSPARSE_INDEX_64I", 3),
    ("cusparse", "CUSPARSE_INDEX_BASE_ZERO", 0), ("cusparse", "CUSPARSE_OPERATION_TRANSPOSE", 1),
    ("curand", "CURAND_RNG_PSEUDO_PHILOX4_32_10", 161),
    ("cudss", "CUDSS_PHASE_ANALYSIS", 3), ("cudss", "CUDSS_MTYPE_GENERAL", 0),
])
def test_constants(module, name, value):
    assert getattr(getattr(libs, module), name) == value


@pytest.mark.parametrize("dtype, value", [
    ("float16", libs.CUDA_R_16F), ("float32", 0), ("float64", 1), ("complex64", 4),
    ("complex128", 5), ("int8", 3), ("uint8", 8), ("int32", 10), ("uint32", 12),
    ("int64", 24), ("uint64", 26), ("int16", 20), ("uint16", 22)])
def test_cuda_data_type(dtype, value):
    assert libs.cuda_data_type(numpy.dtype(dtype)) == value
    assert libs.cuda_data_type(dtype) == value


@pytest.mark.parametrize("dtype", ["bool", "object", "U3", "longdouble"])
def test_cuda_data_type_rejects(dtype):
    with pytest.raises(TypeError, match="no CUDA library data type"):
        libs.cuda_data_type(dtype)


def test_error_formatting():
    e = libs.CUSOLVERError("cusolverDnXgetrf", 3)
    assert str(e) == "cusolverDnXgetrf failed: CUSOLVER_STATUS_INVALID_VALUE (3)"
    assert (e.library, e.call, e.status, e.status_name) == (
        "cusolver", "cusolverDnXgetrf", 3, "CUSOLVER_STATUS_INVALID_VALUE")
    assert isinstance(e, libs.LibraryError) and isinstance(e, RuntimeError)
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is libs.CUSOLVERError and str(e2) == str(e)
    assert str(libs.CUBLASError("cublasSgemm_v2", 12345)) == \
        "cublasSgemm_v2 failed: CUBLAS_STATUS_UNKNOWN (12345)"
    assert str(libs.CUFFTError("cufftExecC2C", 1)) == "cufftExecC2C failed: CUFFT_INVALID_PLAN (1)"


@pytest.mark.parametrize("lib, cls", [
    ("cublas", libs.CUBLASError), ("cusolver", libs.CUSOLVERError),
    ("cufft", libs.CUFFTError), ("cusparse", libs.CUSPARSEError),
    ("curand", libs.CURANDError), ("cudss", libs.CUDSSError)])
def test_raise_status(lib, cls):
    with pytest.raises(cls, match=r"^fooBar failed: .* \(2\)$") as info:
        _errors.raise_status(lib, "fooBar", 2)
    assert info.value.library == lib


@pytest.mark.parametrize("lib", LIBS)
def test_status_names_match_headers(lib):
    # The status enum in the declarations (copied from the headers) and the
    # error table agree.
    decls = _generate.parse(lib)
    prefix = {"cufft": "CUFFT_"}.get(lib, lib.upper() + "_STATUS_")
    enum = [items for name, items in decls.enums
            if name.rstrip("_t") == decls.status.rstrip("_t")]
    assert len(enum) == 1, decls.status
    assert {v: n for n, v in enum[0]} == _errors.STATUS_NAMES[lib]
    assert all(n.startswith(prefix) for n, _ in enum[0])


@pytest.mark.parametrize("lib", LIBS)
def test_generated_files_up_to_date(lib):
    decls = _generate.parse(lib)
    for ext, render in ((".pyx", _generate.render_pyx), (".pyi", _generate.render_pyi)):
        with open(os.path.join(_generate.HERE, f"_{lib}{ext}")) as f:
            assert f.read() == render(decls), (
                f"_{lib}{ext} is stale: run python -m gpuscipy_core.libs._generate")


@pytest.mark.parametrize("lib, name, inputs, outputs", [
    ("cublas", "cublasCreate_v2", [], ["handle"]),
    ("cublas", "cublasGetVersion_v2", ["handle"], ["version"]),
    ("cusolver", "cusolverDnXgetrf_bufferSize",
     ["handle", "params", "m", "n", "dataTypeA", "A", "lda", "computeType"],
     ["workspaceInBytesOnDevice", "workspaceInBytesOnHost"]),
    ("cusolver", "cusolverDnDsyevd_bufferSize",
     ["handle", "jobz", "uplo", "n", "A", "lda", "W"], ["lwork"]),
    ("cufft", "cufftCreate", [], ["handle"]),
    ("cufft", "cufftMakePlanMany64",
     ["plan", "rank", "n", "inembed", "istride", "idist", "onembed", "ostride", "odist",
      "type", "batch"], ["workSize"]),
    ("cusparse", "cusparseSpMatGetSize", ["spMatDescr"], ["rows", "cols", "nnz"]),
    ("cusparse", "cusparseSpGEMM_workEstimation",
     ["handle", "opA", "opB", "alpha", "matA", "matB", "beta", "matC", "computeType", "alg",
      "spgemmDescr", "bufferSize1", "externalBuffer1"], ["bufferSize1"]),
    ("cudss", "cudssDataCreate", ["handle"], ["data"]),
    ("curand", "curandCreateGenerator", ["rng_type"], ["generator"]),
])
def test_output_arguments_are_returned(lib, name, inputs, outputs):
    fn = {f.name: f for f in _generate.parse(lib).functions}[name]
    assert [p.name for p in fn.inputs] == inputs
    assert [p.name for p in fn.outputs] == outputs


def test_scalar_argument_types_checked():
    # Python-side conversion happens before the library is touched.
    with pytest.raises(TypeError):
        libs.cublas.cublasSgemm_v2("handle", 0, 0, 1, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1)
    with pytest.raises(OverflowError):
        libs.cublas.cublasSgemm_v2(0, 0, 0, 2 ** 40, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1)


def test_missing_library_message(monkeypatch):
    def fail(name):
        raise OSError(f"lib{name}.so: cannot open shared object file")
    monkeypatch.setattr(_loader, "_libs", {})
    monkeypatch.setattr(_loader, "_symbols", {})
    monkeypatch.setattr(_loader, "_load_with_pathfinder", fail)
    monkeypatch.setattr(_loader, "_load_fallback", fail)
    with pytest.raises(libs.LibraryNotFoundError, match="nvidia-cudss-cu13") as info:
        _loader.load("cudss")
    assert isinstance(info.value, ImportError)
    assert "cudss library" in str(info.value)
    with pytest.raises(ValueError, match="unknown vendor library"):
        _loader.load("cunope")


def test_missing_symbol_message(monkeypatch):
    class FakeLib:
        pass
    monkeypatch.setattr(_loader, "_libs", {"cufft": (FakeLib(), "/x/libcufft.so.12")})
    monkeypatch.setattr(_loader, "_symbols", {})
    with pytest.raises(libs.SymbolNotFoundError,
                       match=r"cufftNew is not in the loaded cufft library "
                             r"\(version unknown version, /x/libcufft.so.12\)"):
        _loader.symbol("cufft", "cufftNew")


def test_binding_reports_missing_library(monkeypatch):
    # A bound function whose symbol is not resolved yet goes through the loader.
    def fail(lib, sym):
        raise libs.LibraryNotFoundError(f"the {lib} library was not found")
    monkeypatch.setattr(_loader, "symbol", fail)
    fn = libs.cudss.cudssGetProperty
    try:
        fn(0)
    except libs.LibraryNotFoundError as e:
        assert "cudss library" in str(e)
    except libs.LibraryError:
        pytest.skip("cudssGetProperty already resolved in this process")
    else:
        pytest.skip("cudssGetProperty already resolved in this process")
