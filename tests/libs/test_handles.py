"""The handle cache logic of gpuscipy_core.libs.get_handle, with fake libraries."""

import threading

import pytest

from gpuscipy_core.libs import _handles, CUBLASError


class FakeLibrary:
    def __init__(self):
        self.created = []
        self.bound = []        # (handle, stream)
        self.destroyed = []
        self.fail_set_stream = 0

    def create(self):
        h = 1000 + len(self.created)
        self.created.append(h)
        return h

    def set_stream(self, handle, stream):
        if self.fail_set_stream:
            self.fail_set_stream -= 1
            raise CUBLASError("cublasSetStream_v2", 7)
        self.bound.append((handle, stream))

    def destroy(self, handle):
        self.destroyed.append(handle)


@pytest.fixture
def fake(monkeypatch):
    lib = FakeLibrary()
    state = {"device": 0, "stream": 0}
    monkeypatch.setattr(_handles, "_apis", {"cublas": (lib.create, lib.set_stream,
                                                       lib.destroy)})
    monkeypatch.setattr(_handles, "_tls", threading.local())
    monkeypatch.setattr(_handles, "_registry", [])
    monkeypatch.setattr(_handles, "ensure_context", lambda d: d)
    monkeypatch.setattr(_handles, "get_device_id", lambda: state["device"])
    monkeypatch.setattr(_handles, "get_current_stream_ptr", lambda: state["stream"])
    return lib, state


def test_created_once_and_bound_to_stream(fake):
    lib, state = fake
    h = _handles.get_handle("cublas")
    assert lib.created == [h] and lib.bound == [(h, 0)]
    assert _handles.get_handle("cublas") == h
    assert lib.bound == [(h, 0)]            # same stream: no SetStream call
    state["stream"] = 0xABC
    assert _handles.get_handle("cublas") == h
    assert lib.bound == [(h, 0), (h, 0xABC)]
    assert _handles.get_handle("cublas") == h
    assert len(lib.bound) == 2
    state["stream"] = 0
    _handles.get_handle("cublas")
    assert lib.bound[-1] == (h, 0) and len(lib.created) == 1


def test_one_handle_per_device(fake):
    lib, state = fake
    h0 = _handles.get_handle("cublas")
    state["device"] = 1
    h1 = _handles.get_handle("cublas")
    assert h0 != h1 and lib.created == [h0, h1]
    state["device"] = 0
    assert _handles.get_handle("cublas") == h0


def test_one_handle_per_thread(fake):
    lib, _ = fake
    main = _handles.get_handle("cublas")
    got = []
    t = threading.Thread(target=lambda: got.append(_handles.get_handle("cublas")))
    t.start()
    t.join()
    assert got and got[0] != main
    assert _handles.get_handle("cublas") == main
    assert len(lib.created) == 2


def test_set_stream_failure_on_creation(fake):
    lib, _ = fake
    lib.fail_set_stream = 1
    with pytest.raises(CUBLASError, match="cublasSetStream_v2 failed"):
        _handles.get_handle("cublas")
    assert lib.destroyed == lib.created[:1]      # the half-made handle is not leaked
    h = _handles.get_handle("cublas")            # the next call works
    assert h == lib.created[-1] and lib.bound[-1] == (h, 0)


def test_set_stream_failure_keeps_handle_usable(fake):
    lib, state = fake
    h = _handles.get_handle("cublas")
    state["stream"] = 5
    lib.fail_set_stream = 1
    with pytest.raises(CUBLASError):
        _handles.get_handle("cublas")
    assert _handles.get_handle("cublas") == h    # retried: binds now
    assert lib.bound[-1] == (h, 5) and lib.destroyed == []


def test_destroy_all_at_exit(fake):
    lib, state = fake
    state["stream"] = 5                         # bound to a side stream
    h0 = _handles.get_handle("cublas")
    state["device"] = 1
    h1 = _handles.get_handle("cublas")
    assert lib.bound[-1] == (h1, 5)
    _handles._destroy_all()
    assert sorted(lib.destroyed) == sorted([h0, h1])
    # each back on the legacy stream before it goes (the side stream may be gone)
    assert sorted(lib.bound[-2:]) == sorted([(h0, 0), (h1, 0)])
    _handles._destroy_all()                     # idempotent
    assert len(lib.destroyed) == 2


def test_unknown_library():
    with pytest.raises(ValueError, match="unknown library 'cublasLt'"):
        _handles._api("cublasLt")
