"""``numpy.lib.stride_tricks`` for device arrays."""

from .._ndarray import _strided_view, ndarray

__all__ = ["as_strided"]


def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    """A view of ``x``'s memory with the given shape and byte strides.

    Parameters
    ----------
    x : gpuscipy_core.ndarray
        The array whose memory (from its first element) the view reads.
    shape, strides : sequence of int, optional
        Default: ``x``'s.
    subok, writeable : bool
        Accepted for NumPy's signature (device views are always writeable
        ndarrays).

    Returns
    -------
    gpuscipy_core.ndarray
        A view sharing ``x``'s memory and keeping it alive.

    Raises
    ------
    TypeError
        If ``x`` is not a device array.
    ValueError
        If ``shape`` and ``strides`` differ in length or ``shape`` has a
        negative extent.

    Notes
    -----
    As with NumPy, nothing checks that the view stays inside ``x``'s
    memory: an overlapping or out-of-bounds view is the caller's to avoid.
    """
    if not isinstance(x, ndarray):
        raise TypeError(f"as_strided needs a gpuscipy_core.ndarray, not {type(x).__name__}")
    shape = tuple(int(n) for n in (x.shape if shape is None else shape))
    strides = tuple(int(s) for s in (x.strides if strides is None else strides))
    if len(shape) != len(strides):
        raise ValueError(f"shape {shape} and strides {strides} differ in length")
    if any(n < 0 for n in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return _strided_view(x, shape, strides, x.ptr)
