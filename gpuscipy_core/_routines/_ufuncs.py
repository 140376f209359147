"""The ufunc objects (one per NumPy ufunc gpuscipy implements)."""

from .._elementwise import ufunc
from .._kernel._ufunc_names import ALIASES, UFUNC_NAMES

__all__ = list(UFUNC_NAMES) + sorted(ALIASES)

for _name in UFUNC_NAMES:
    globals()[_name] = ufunc(_name)
for _alias, _target in ALIASES.items():
    globals()[_alias] = globals()[_target]
del _name, _alias, _target
