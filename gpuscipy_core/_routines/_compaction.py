"""Stream compaction: nonzero, argwhere, flatnonzero, extract, compress, place."""

__all__ = []
