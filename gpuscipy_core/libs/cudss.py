"""cudss bindings: every bound function under its C name, and the enum constants.

See gpuscipy_core.libs for the conventions (pointers and handles are
ints, output scalars are returned, failures raise LibraryError).
"""

from . import _cudss
from ._cudss import __all__

globals().update({_name: getattr(_cudss, _name) for _name in __all__})
