"""gpuscipy's environment variables: every one is read here, one way.

Each value is the variable's text with surrounding white space removed; an
unset or empty variable means its default. Choice variables are compared
case-insensitively and raise ``ValueError`` naming the variable for any
other value. Nothing is cached: a variable changed at run time (tests do)
takes effect at its next read; ``GPUSCIPY_ALLOCATOR`` is read once, when
the memory pool module is imported. docs/configuration.md lists them for
users.

=========================  =================================  ==============================
variable                   default                            effect
=========================  =================================  ==============================
``GPUSCIPY_CACHE_DIR``     ``~/.cache/gpuscipy/kernels``      folder of the compiled-kernel
                                                              cache
``GPUSCIPY_ALLOCATOR``     ``pool``                           ``cuda_malloc``: every array
                                                              its own cuMemAlloc (for
                                                              compute-sanitizer)
``GPUSCIPY_BATCHED_LU``    ``v2``                             batched small-matrix LU kernel
                                                              (``v1``: LAPACK's full
                                                              condition estimate per system)
``CUDA_PATH``,             unset                              CUDA toolkit roots searched
``CUDA_HOME``                                                 (in this order, then
                                                              ``/usr/local/cuda``) for
                                                              libraries and CCCL headers
                                                              the wheels do not provide
=========================  =================================  ==============================
"""

import os

__all__ = ["VARIABLES", "value", "choice", "cache_dir", "allocator", "batched_lu",
           "cuda_roots", "path_list"]

#: name -> (default, choices or None, effect)
VARIABLES = {
    "GPUSCIPY_CACHE_DIR": ("~/.cache/gpuscipy/kernels", None,
                           "folder of the compiled-kernel cache"),
    "GPUSCIPY_ALLOCATOR": ("pool", ("pool", "cuda_malloc"),
                           "cuda_malloc: every array its own cuMemAlloc/cuMemFree "
                           "(read at import)"),
    "GPUSCIPY_BATCHED_LU": ("v2", ("v1", "v2"),
                            "the batched small-matrix LU kernel"),
    "CUDA_PATH": ("", None, "a CUDA toolkit root, searched first"),
    "CUDA_HOME": ("", None, "a CUDA toolkit root, searched after CUDA_PATH"),
    "LD_LIBRARY_PATH": ("", None, "folders the vendor-library fallback also searches"),
    "GPUSCIPY_VENDOR_INCLUDE": ("", None, "tests only: folders of the vendor headers the "
                                "prototype check reads (os.pathsep-separated)"),
}


def value(name):
    """The variable's text (stripped), or its default when unset or empty.

    Raises
    ------
    KeyError
        For a name that is not in :data:`VARIABLES`.
    """
    default = VARIABLES[name][0]
    v = os.environ.get(name, "").strip()
    return v if v else default


def choice(name):
    """:func:`value` of a choice variable, lower-cased and checked.

    Raises
    ------
    ValueError
        If the value is not one of the variable's choices.
    """
    choices = VARIABLES[name][1]
    v = value(name).lower()
    if v not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {os.environ.get(name)!r}")
    return v


def cache_dir():
    """``GPUSCIPY_CACHE_DIR``, with ``~`` expanded."""
    return os.path.expanduser(value("GPUSCIPY_CACHE_DIR"))


def allocator():
    """``GPUSCIPY_ALLOCATOR``: ``"pool"`` or ``"cuda_malloc"``."""
    return choice("GPUSCIPY_ALLOCATOR")


def batched_lu():
    """``GPUSCIPY_BATCHED_LU``: ``"v2"`` or ``"v1"``."""
    return choice("GPUSCIPY_BATCHED_LU")


def cuda_roots():
    """CUDA toolkit roots to search, in order: ``CUDA_PATH``, ``CUDA_HOME``,
    ``/usr/local/cuda`` (duplicates dropped)."""
    return list(dict.fromkeys(d for d in (value("CUDA_PATH"), value("CUDA_HOME"),
                                          "/usr/local/cuda") if d))


def path_list(name):
    """An ``os.pathsep``-separated variable as a list of its non-empty parts."""
    return [d for d in value(name).split(os.pathsep) if d]
