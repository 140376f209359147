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


def pytest_collection_modifyitems(config, items):
    if not any(item.get_closest_marker("gpu") for item in items):
        return
    reason = _gpu_reason()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if item.get_closest_marker("gpu"):
            item.add_marker(skip)


@pytest.fixture(autouse=True, scope="session")
def _kernel_cache_dir(tmp_path_factory):
    """Keep test kernels out of the user's cache unless one is set."""
    if "GPUSCIPY_CACHE_DIR" not in os.environ:
        os.environ["GPUSCIPY_CACHE_DIR"] = str(tmp_path_factory.mktemp("kernels"))
    yield
