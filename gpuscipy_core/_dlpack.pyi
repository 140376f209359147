"""Type stub for the DLPack capsule helpers (gpuscipy_core/_dlpack.pyx)."""

from typing import Any, Final, final

import numpy as np

kDLCPU: Final[int]  # 1
kDLCUDA: Final[int]  # 2
kDLCUDAHost: Final[int]  # 3
kDLCUDAManaged: Final[int]  # 13

kDLInt: Final[int]  # 0
kDLUInt: Final[int]  # 1
kDLFloat: Final[int]  # 2
kDLOpaqueHandle: Final[int]  # 3
kDLBfloat: Final[int]  # 4
kDLComplex: Final[int]  # 5
kDLBool: Final[int]  # 6

DLPACK_FLAG_BITMASK_READ_ONLY: Final[int]  # 1
DLPACK_FLAG_BITMASK_IS_COPIED: Final[int]  # 2
DLPACK_VERSION: Final[tuple[int, int]]  # (1, 0): stamped on exported versioned tensors

@final
class DLPackKeeper:
    """Owns a consumed DLPack tensor; its deallocation calls the producer's
    deleter exactly once. Created only by :func:`consume_capsule`."""

    @property
    def versioned(self) -> bool: ...
    @property
    def released(self) -> bool: ...

def make_capsule(
    owner: object,
    ptr: int,
    shape: tuple[int, ...],
    strides_in_elements: tuple[int, ...],
    dtype: np.dtype[Any] | type | str,
    device_type: int,
    device_id: int,
    versioned: bool,
    read_only: bool = False,
    copied: bool = False,
) -> Any:  # PyCapsule "dltensor" or "dltensor_versioned"
    ...

def consume_capsule(
    capsule: Any,
) -> tuple[
    int,  # ptr (data + byte_offset)
    tuple[int, ...],  # shape
    tuple[int, ...],  # strides, in elements
    np.dtype[Any],  # dtype
    int,  # device_type
    int,  # device_id
    DLPackKeeper,  # keeper: keep alive while the memory is used
    bool,  # read_only (versioned READ_ONLY flag; False for legacy)
]: ...
