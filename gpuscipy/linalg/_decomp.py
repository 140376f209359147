"""Part of gpuscipy.linalg (see the package docstring)."""

__all__ = []
