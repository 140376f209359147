"""Sorting and searching: sort, argsort, partition, searchsorted, unique, lexsort."""

__all__ = []
