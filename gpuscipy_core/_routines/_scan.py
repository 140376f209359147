"""Scans and counting: cumsum, cumprod, diff, bincount, histogram."""

__all__ = []
