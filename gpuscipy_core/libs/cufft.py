"""cufft bindings: every bound function under its C name, and the enum constants.

See gpuscipy_core.libs for the conventions (pointers and handles are
ints, output scalars are returned, failures raise LibraryError).
"""

from . import _cufft
from ._cufft import __all__

globals().update({_name: getattr(_cufft, _name) for _name in __all__})
