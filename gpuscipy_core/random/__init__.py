"""Random numbers on the GPU: ``default_rng(seed)`` returns a ``Generator``.

Generator
---------
default_rng, Generator (random, uniform, normal, standard_normal, integers,
choice, permutation, shuffle, spawn, bit_generator)

Bit generator
-------------
Philox (Philox4x32-10, counter based: reproducible for a seed and
independent of the launch configuration)
"""

from ._generator import Generator, Philox, default_rng

__all__ = ["default_rng", "Generator", "Philox"]

for _o in (Generator, Philox, default_rng):
    _o.__module__ = "gpuscipy_core.random"
del _o
