"""gpuscipy_core.cuda: devices, streams, events, the memory pool, pinned memory."""

import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpuscipy_core as gp
from gpuscipy_core import cuda

gpu = pytest.mark.gpu


# ------------------------------------------------------------------ no GPU

@pytest.mark.skipif(gp.is_available(), reason="checks the behaviour without a GPU")
def test_without_gpu_first_device_use_raises_runtime_error():
    assert gp.is_available() is False
    assert cuda.get_device_count() == 0
    with pytest.raises(RuntimeError, match="needs an NVIDIA GPU"):
        gp.zeros(3)


# ------------------------------------------------------------------ devices

@gpu
def test_is_available():
    assert gp.is_available() is True
    assert cuda.is_available() is True
    assert cuda.runtime_is_available() is True


@gpu
def test_device_count():
    n = cuda.get_device_count()
    assert isinstance(n, int)
    assert n >= 1


@gpu
def test_current_device_defaults_to_zero():
    assert cuda.get_device_id() == 0
    assert cuda.Device() == cuda.Device(0)
    assert int(cuda.Device()) == 0


@gpu
def test_device_properties():
    d = cuda.Device(0)
    props = d.properties
    assert set(props) >= {"name", "compute_capability", "total_memory",
                          "multiprocessor_count", "max_threads_per_block",
                          "max_shared_memory_per_block", "warp_size",
                          "l2_cache_size", "clock_rate_khz",
                          "memory_clock_rate_khz", "global_memory_bus_width"}
    assert isinstance(props["name"], str) and props["name"]
    cc = d.compute_capability
    assert isinstance(cc, str) and cc.isdigit() and len(cc) >= 2
    assert d.arch == f"sm_{cc}"
    assert props["total_memory"] == d.total_memory > 0
    assert props["multiprocessor_count"] == d.multiprocessor_count > 0
    assert props["warp_size"] == 32
    assert props["max_threads_per_block"] >= 1024
    assert d.attribute("WARP_SIZE") == 32
    assert d.attribute("warp_size") == 32
    free, total = d.mem_info
    assert 0 < free <= total
    assert total == d.total_memory


@gpu
def test_device_attribute_unknown_name_raises():
    with pytest.raises(AttributeError):
        cuda.Device(0).attribute("NO_SUCH_ATTRIBUTE")


@gpu
def test_device_equality_hash_repr():
    a, b = cuda.Device(0), cuda.Device(0)
    assert a == b and hash(a) == hash(b)
    assert a != 0  # a Device is not an int
    assert cuda.Device(a) == a
    assert "0" in repr(a)


@gpu
def test_device_context_manager():
    with cuda.Device(0) as d:
        assert isinstance(d, cuda.Device)
        assert cuda.get_device_id() == 0
        x = gp.arange(4)
        assert x.device == d
        with cuda.Device(0):  # nesting
            assert cuda.get_device_id() == 0
        assert cuda.get_device_id() == 0
    assert cuda.get_device_id() == 0
    np.testing.assert_array_equal(gp.asnumpy(x), np.arange(4))


@gpu
@pytest.mark.skipif(not gp.is_available() or cuda.get_device_count() < 2,
                    reason="needs two GPUs")
def test_device_context_manager_second_device():
    with cuda.Device(1):
        assert cuda.get_device_id() == 1
        x = gp.arange(5.0) * 2
        assert x.device == cuda.Device(1)
        np.testing.assert_array_equal(gp.asnumpy(x), np.arange(5.0) * 2)
    assert cuda.get_device_id() == 0
    assert gp.arange(3).device == cuda.Device(0)


@gpu
def test_invalid_device_raises_and_current_device_is_unchanged():
    n = cuda.get_device_count()
    with pytest.raises(ValueError, match="invalid device id"):
        cuda.Device(n).use()
    assert cuda.get_device_id() == 0
    np.testing.assert_array_equal(gp.asnumpy(gp.ones(3)), np.ones(3))


@gpu
def test_device_synchronize():
    x = gp.ones(1 << 20)
    y = x * 3
    cuda.Device().synchronize()
    assert float(y[-1]) == 3.0


# ------------------------------------------------------------------ streams

@gpu
def test_default_current_stream_is_the_legacy_default_stream():
    s = cuda.get_current_stream()
    assert isinstance(s, cuda.Stream)
    assert s.ptr == 0


@gpu
@pytest.mark.parametrize("non_blocking", [False, True])
def test_stream_with_switches_the_current_stream(non_blocking):
    s = cuda.Stream(non_blocking=non_blocking)
    assert s.ptr != 0
    assert s.non_blocking is non_blocking
    assert cuda.get_current_stream().ptr == 0
    with s as entered:
        assert entered is s
        assert cuda.get_current_stream() == s
        s2 = cuda.Stream()
        with s2:
            assert cuda.get_current_stream() == s2
        assert cuda.get_current_stream() == s
    assert cuda.get_current_stream().ptr == 0


@gpu
@pytest.mark.parametrize("non_blocking", [False, True])
def test_work_is_ordered_on_a_stream(non_blocking):
    # A chain of dependent in-place kernels on one stream, then a read on
    # the same stream: every step must see the previous one.
    s = cuda.Stream(non_blocking=non_blocking)
    n = 1 << 22
    with s:
        x = gp.zeros(n, dtype=gp.float32)
        for _ in range(50):
            x += 1
        x *= 2
        host = gp.asnumpy(x)
    s.synchronize()
    assert s.done
    np.testing.assert_array_equal(host, np.full(n, 100, np.float32))
    np.testing.assert_array_equal(gp.asnumpy(x[:5]), np.full(5, 100, np.float32))
    del x  # before the stream goes (see test_arrays_may_outlive_their_stream)


@gpu
def test_stream_use_sets_the_current_stream():
    s = cuda.Stream()
    try:
        assert s.use() is s
        assert cuda.get_current_stream() == s
        y = gp.arange(10) + 1
        s.synchronize()
    finally:
        cuda.Stream(null=True).use()
    assert cuda.get_current_stream().ptr == 0
    np.testing.assert_array_equal(gp.asnumpy(y), np.arange(10) + 1)
    del y


@gpu
def test_stream_wait_event_orders_two_streams():
    s1 = cuda.Stream(non_blocking=True)
    s2 = cuda.Stream(non_blocking=True)
    n = 1 << 22
    with s1:
        x = gp.zeros(n, dtype=gp.float64)
        for _ in range(20):
            x += 1.5
        ev = s1.record()
    assert isinstance(ev, cuda.Event)
    s2.wait_event(ev)
    with s2:
        y = x * 2
        host = gp.asnumpy(y)
    np.testing.assert_array_equal(host, np.full(n, 60.0))
    del x, y


@gpu
def test_stream_priority_and_null_stream():
    s = cuda.Stream(priority=-1)
    with s:
        np.testing.assert_array_equal(gp.asnumpy(gp.arange(3) * 2), [0, 2, 4])
    null = cuda.Stream(null=True)
    assert null.ptr == 0
    null.synchronize()
    assert null.done


_OUTLIVE = textwrap.dedent('''
    import gc
    import numpy as np
    import gpuscipy_core as gp
    s = gp.cuda.Stream()
    with s:
        x = gp.arange(1000.0) * 2      # allocated (and freed) on s
    s.synchronize()
    del s
    gc.collect()
    y = gp.asnumpy(x + 1)
    del x
    gc.collect()
    gp.cuda.Device().synchronize()
    assert (y == np.arange(1000.0) * 2 + 1).all()
    print("ok")
''')


@gpu
def test_arrays_may_outlive_the_stream_they_were_allocated_on():
    # Memory blocks are freed stream-ordered on the stream they were
    # allocated on; that stream may be gone by then. Run in a subprocess:
    # the failure mode is a crash of the interpreter.
    root = os.path.dirname(os.path.dirname(os.path.abspath(gp.__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", _OUTLIVE], capture_output=True, text=True,
                       timeout=300, cwd=root, env=env)
    assert r.returncode == 0 and "ok" in r.stdout, (
        f"exit status {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}")


@gpu
def test_stream_eq_hash_repr():
    s = cuda.Stream()
    assert s == s and hash(s) == hash(s)
    assert s != cuda.Stream()
    assert f"{s.ptr:#x}" in repr(s)


# ------------------------------------------------------------------ events

@gpu
@pytest.mark.parametrize("block", [False, True])
def test_event_record_synchronize_done(block):
    e = cuda.Event(block=block)
    x = gp.ones(1 << 20)
    y = x + x
    e.record()
    e.synchronize()
    assert e.done
    assert float(y[0]) == 2.0


@gpu
def test_event_elapsed_time():
    start, end = cuda.Event(), cuda.Event()
    s = cuda.Stream()
    start.record(s)
    with s:
        x = gp.ones(1 << 24, dtype=gp.float32)
        for _ in range(10):
            x = x * 1.0001
    end.record(s)
    end.synchronize()
    del x
    t = start.elapsed_time(end)
    assert isinstance(t, float)
    assert t > 0
    assert cuda.get_elapsed_time(start, end) == pytest.approx(t)
    assert end.elapsed_time(start) == pytest.approx(-t)


@gpu
def test_event_without_timing_cannot_time():
    a, b = cuda.Event(disable_timing=True), cuda.Event(disable_timing=True)
    a.record()
    b.record()
    b.synchronize()
    with pytest.raises(cuda.CUDAError) as info:
        a.elapsed_time(b)
    assert info.value.call == "cuEventElapsedTime"
    assert info.value.name.startswith("CUDA_ERROR_")
    assert isinstance(info.value, RuntimeError)


# ------------------------------------------------------------------ errors

@gpu
def test_cuda_error_names_call_and_status():
    e = cuda.CUDAError("cuMemAlloc", 2)
    assert e.call == "cuMemAlloc"
    assert e.status == 2
    assert e.name == "CUDA_ERROR_OUT_OF_MEMORY"
    assert "cuMemAlloc" in str(e) and "CUDA_ERROR_OUT_OF_MEMORY" in str(e)


# ------------------------------------------------------------------ memory

@gpu
def test_memory_pool_is_per_device_singleton():
    pool = gp.get_default_memory_pool()
    assert isinstance(pool, cuda.MemoryPool)
    assert pool is cuda.get_default_memory_pool()
    assert pool is gp.get_default_memory_pool(0)
    assert pool.device_id == 0


@gpu
def test_memory_pool_used_and_total_bytes():
    pool = gp.get_default_memory_pool()
    cuda.Device().synchronize()
    used0 = pool.used_bytes()
    nbytes = 64 << 20
    x = gp.empty(nbytes, dtype=gp.uint8)
    cuda.Device().synchronize()
    assert pool.used_bytes() >= used0 + nbytes
    assert pool.total_bytes() >= pool.used_bytes()
    assert pool.free_bytes() == pool.total_bytes() - pool.used_bytes()
    del x
    gc.collect()
    cuda.Device().synchronize()
    assert pool.used_bytes() <= used0
    assert pool.total_bytes() >= nbytes  # the freed block is cached
    pool.free_all_blocks()
    assert pool.total_bytes() - pool.used_bytes() < nbytes
    # the pool still works after trimming
    np.testing.assert_array_equal(gp.asnumpy(gp.arange(5)), np.arange(5))


@gpu
def test_views_keep_memory_alive():
    x = gp.arange(1000.0)
    v = x[10:20]
    del x
    gc.collect()
    gp.empty(1 << 20)  # reuse pool memory
    np.testing.assert_array_equal(gp.asnumpy(v), np.arange(10.0, 20.0))


@gpu
def test_absurd_allocation_raises_memory_error_naming_the_bytes():
    with pytest.raises(MemoryError) as info:
        gp.empty(10**15, dtype=gp.uint8)
    msg = str(info.value)
    assert "1,000,000,000,000,000" in msg or "1000000000000000" in msg
    assert "device 0" in msg
    # the device and the pool keep working
    x = gp.ones(1000)
    np.testing.assert_array_equal(gp.asnumpy(x + 1), np.full(1000, 2.0))
    assert gp.get_default_memory_pool().used_bytes() < 10**15


@gpu
def test_absurd_allocation_through_creation_functions():
    for make in (lambda: gp.zeros((10**8, 10**7)), lambda: gp.ones(10**14)):
        with pytest.raises(MemoryError):
            make()
    np.testing.assert_array_equal(gp.asnumpy(gp.zeros(3)), np.zeros(3))


@gpu
def test_shape_whose_byte_size_overflows_raises_value_error():
    # NumPy: "array is too big; `arr.size * arr.dtype.itemsize` is larger
    # than the maximum possible size." (no wrap-around, no allocation)
    with pytest.raises(ValueError):
        np.empty((10**10,) * 3)
    with pytest.raises(ValueError, match="too big"):
        gp.empty((10**10,) * 3)
    with pytest.raises(ValueError, match="too big"):
        gp.empty((2**62, 4), dtype=gp.uint8)


@gpu
def test_zero_size_allocation():
    x = gp.empty(0)
    assert x.size == 0 and x.nbytes == 0
    np.testing.assert_array_equal(gp.asnumpy(x), np.empty(0))


# ------------------------------------------------------------------ pinned

@gpu
def test_pinned_memory_round_trip():
    n = 4096
    p = cuda.alloc_pinned_memory(n * 4)
    assert isinstance(p, cuda.PinnedMemory)
    assert p.size == n * 4 and p.ptr != 0
    raw = np.asarray(p)
    assert raw.dtype == np.uint8 and raw.shape == (n * 4,)
    h = raw.view(np.float32)
    h[:] = np.arange(n, dtype=np.float32)
    g = gp.asarray(h)
    np.testing.assert_array_equal(gp.asnumpy(g), np.arange(n, dtype=np.float32))
    # device -> pinned destination
    out = np.asarray(cuda.PinnedMemory(n * 4)).view(np.float32)
    res = (g * 2).get(out=out)
    assert res is out
    np.testing.assert_array_equal(out, np.arange(n, dtype=np.float32) * 2)


@gpu
def test_pinned_memory_zero_bytes():
    p = cuda.PinnedMemory(0)
    assert p.size == 0
    assert np.asarray(p).shape == (0,)
