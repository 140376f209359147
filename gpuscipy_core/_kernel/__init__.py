"""Kernel synthesis: source generation, NVRTC compile, caching and launch."""

from ._cache import cache_dir, clear, stats
from ._module import Function, get_function, load_module
from ._nvrtc import NVRTCError, compile_cubin, read_source

__all__ = ["cache_dir", "clear", "stats", "Function", "get_function",
           "load_module", "NVRTCError", "compile_cubin", "read_source"]
