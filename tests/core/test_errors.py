"""One exception hierarchy: CUDA, NVRTC and library errors share GPUError,
each still a RuntimeError (no GPU needed)."""

import pickle

import pytest
from cuda.bindings import nvrtc

import gpuscipy_core
from gpuscipy_core import cuda, libs
from gpuscipy_core._kernel._nvrtc import _check, compile_cubin


@pytest.mark.parametrize("cls", [cuda.CUDAError, cuda.NVRTCError, cuda.NVRTCCallError,
                                 libs.LibraryError, libs.CUBLASError, libs.CUSOLVERError,
                                 libs.CUFFTError, libs.CUSPARSEError, libs.CURANDError,
                                 libs.CUDSSError])
def test_every_gpu_error_is_a_gpu_error_and_a_runtime_error(cls):
    assert issubclass(cls, cuda.GPUError)
    assert issubclass(cls, RuntimeError)


def test_gpu_error_is_exported_once():
    assert cuda.GPUError is gpuscipy_core._errors.GPUError
    assert "GPUError" in cuda.__all__


def test_nvrtc_call_failure_is_an_nvrtc_error():
    with pytest.raises(cuda.NVRTCCallError, match="nvrtcCompileProgram failed: ") as info:
        _check((nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_INPUT, None), "nvrtcCompileProgram")
    e = info.value
    assert isinstance(e, cuda.NVRTCError) and isinstance(e, cuda.GPUError)
    assert e.call == "nvrtcCompileProgram"
    assert e.status == int(nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_INPUT)
    assert "INVALID_INPUT" in str(e)
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is cuda.NVRTCCallError and str(again) == str(e)


def test_compile_failure_is_caught_as_gpu_error():
    with pytest.raises(cuda.GPUError, match="NVRTC failed to compile kernel 'broken'"):
        compile_cubin('extern "C" __global__ void broken() { int x = ; }', "broken")


def test_library_error_caught_as_gpu_error():
    with pytest.raises(cuda.GPUError, match=r"cusolverDnXgetrf failed: CUSOLVER_STATUS_INVALID_VALUE \(3\)"):
        raise libs.CUSOLVERError("cusolverDnXgetrf", 3)
