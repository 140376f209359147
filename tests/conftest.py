"""Shared test setup: GPU skips and the sticky-CUDA-error guard.

A sticky CUDA error (illegal or misaligned address, kernel trap, ...)
poisons the process's CUDA context: every later device call fails with it.
After a GPU test fails with one, the remaining GPU tests of this process are
skipped with a reason naming the test that reported it, instead of failing
by the hundred with a misleading error (with pytest-xdist, per worker).

The culprit may be an earlier test: kernel errors surface at the next
synchronisation. ``compute-sanitizer`` or ``CUDA_LAUNCH_BLOCKING=1`` pins it.
"""

import os

import pytest


def _gpu_reason():
    try:
        import gpuscipy_core
    except ImportError as e:  # extension not built
        return f"gpuscipy_core is not importable: {e}"
    if not gpuscipy_core.is_available():
        from gpuscipy_core._cuda import _device
        return f"no NVIDIA GPU: {_device._init_state}"
    return None


_no_gpu = []  # [reason] once the GPU tests of this session are skipped


def pytest_collection_modifyitems(config, items):
    if not any(item.get_closest_marker("gpu") for item in items):
        return
    reason = _gpu_reason()
    if reason is None:
        return
    _no_gpu.append(reason)
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if item.get_closest_marker("gpu"):
            item.add_marker(skip)


def _fold_no_gpu_skip(report):
    """Give every no-GPU skip one location (this file, no line), so that
    ``-ra`` prints them as one line with their count instead of one line per
    test; the summary's other lines stay visible."""
    if (_no_gpu and report.skipped and report.when == "setup"
            and isinstance(report.longrepr, tuple) and len(report.longrepr) == 3
            and report.longrepr[2].endswith(_no_gpu[0])):
        report.longrepr = (__file__, None, report.longrepr[2])


@pytest.fixture(autouse=True, scope="session")
def _kernel_cache_dir(tmp_path_factory):
    """Keep test kernels out of the user's cache unless one is set."""
    if "GPUSCIPY_CACHE_DIR" not in os.environ:
        os.environ["GPUSCIPY_CACHE_DIR"] = str(tmp_path_factory.mktemp("kernels"))
    yield



_STICKY = ("CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_MISALIGNED_ADDRESS",
           "CUDA_ERROR_LAUNCH_FAILED", "CUDA_ERROR_ILLEGAL_INSTRUCTION",
           "CUDA_ERROR_HARDWARE_STACK_ERROR", "CUDA_ERROR_INVALID_PC",
           "CUDA_ERROR_ASSERT", "CUDA_ERROR_LAUNCH_TIMEOUT",
           "cudaErrorIllegalAddress", "cudaErrorMisalignedAddress",
           "cudaErrorLaunchFailure")

_poisoned = []  # [(nodeid, error name)] once a sticky error was seen


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    _fold_no_gpu_skip(report)
    if _poisoned or not report.failed or item.get_closest_marker("gpu") is None:
        return
    text = str(report.longrepr)
    for name in _STICKY:
        if name in text:
            _poisoned.append((item.nodeid, name))
            report.sections.append((
                "sticky CUDA error",
                f"{name}: the CUDA context of this process is unusable from here "
                "on; later GPU tests of this process are skipped"))
            break


def pytest_runtest_setup(item):
    if _poisoned and item.get_closest_marker("gpu") is not None:
        nodeid, name = _poisoned[0]
        pytest.skip(f"CUDA context poisoned by {name}, first reported by {nodeid}")
