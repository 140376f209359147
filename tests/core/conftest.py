"""A sticky CUDA error (illegal or misaligned address, kernel trap, ...)
poisons the process's CUDA context: every later device call fails with it.
After a GPU test fails with one, the remaining GPU tests of this process are
skipped with a reason naming the test that reported it, instead of failing
by the hundred with a misleading error (with pytest-xdist, per worker).

The culprit may be an earlier test: kernel errors surface at the next
synchronisation. ``compute-sanitizer`` or ``CUDA_LAUNCH_BLOCKING=1`` pins it.
"""

import pytest

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
