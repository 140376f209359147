"""Advanced indexing and index routines: take, put, take_along_axis, ..."""

__all__ = []
