"""Small helpers shared by the signal modules: a thread-safe LRU cache of
host-side set-up (designed filters, windows, their device copies) and a
hashability test for cache keys."""

import collections
import threading

__all__ = ["hashable", "LRUCache"]


def hashable(obj):
    """Whether ``hash(obj)`` succeeds."""
    try:
        hash(obj)
    except TypeError:
        return False
    return True


class LRUCache:
    """At most ``size`` entries, least recently used dropped first; safe to
    share between threads. A key of None is never stored; neither is an
    unhashable one (``get`` answers None, ``put`` passes)."""

    def __init__(self, size):
        self._size = size
        self._data = collections.OrderedDict()
        self._lock = threading.Lock()

    def __len__(self):
        return len(self._data)

    def get(self, key):
        """The value under ``key`` (marked most recent), or None."""
        if key is None:
            return None
        try:
            with self._lock:
                v = self._data.get(key)
                if v is not None:
                    self._data.move_to_end(key)
                return v
        except TypeError:          # unhashable key (a tuple holding a list)
            return None

    def put(self, key, value):
        """Store ``value`` under ``key`` (unless None or unhashable) and
        return it."""
        if key is None:
            return value
        try:
            with self._lock:
                self._data[key] = value
                while len(self._data) > self._size:
                    self._data.popitem(last=False)
        except TypeError:
            pass
        return value
