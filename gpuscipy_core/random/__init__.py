"""Random numbers on the GPU: ``default_rng(seed)`` returns a ``Generator``."""

__all__ = []
