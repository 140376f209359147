"""Array manipulation: concatenate, stack, split, pad, flip, roll, ..."""

__all__ = []
