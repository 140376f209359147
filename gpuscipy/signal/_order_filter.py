"""``order_filter`` and ``medfilt2d``: SciPy's argument rules around the
rank-selection kernels of ``_convolve_medfilt`` (methods and measurements:
docs/signal-convolve.md, "medfilt, medfilt2d, order_filter")."""

import math
import operator

import numpy

from . import _convolve_direct as D
from . import _convolve_medfilt as M

__all__ = ["order_filter", "medfilt2d"]

# a window's keys are counted in 32-bit ints
_MAX_WINDOW = (1 << 31) - 1


def _host(xp, a):
    """A host (NumPy) copy of a small argument that may be a device array."""
    if xp is not numpy and isinstance(a, getattr(xp, "ndarray", ())):
        return xp.asnumpy(a)
    return numpy.asarray(a)


def _supported(dt):
    return dt.kind in "iu" or dt in (numpy.dtype(numpy.float32), numpy.dtype(numpy.float64))


def _order_filter(xp, a, domain, rank):
    domain = _host(xp, domain)
    for dimsize in domain.shape:
        if (dimsize % 2) != 1:
            raise ValueError("Each dimension of domain argument "
                             "should have an odd number of elements.")
    a = xp.asarray(a)
    if not _supported(a.dtype):
        raise ValueError(f"dtype={a.dtype} is not supported by order_filter")
    mask = numpy.asarray(domain, dtype=bool)
    if mask.ndim != a.ndim:
        raise RuntimeError(f"footprint.ndim ({mask.ndim}) must match len(axes) ({a.ndim})")
    k = int(mask.sum())
    rank = operator.index(rank)
    if rank < 0:
        rank += k
    if rank < 0 or rank >= k:
        raise RuntimeError("rank not within filter footprint size")
    if a.ndim == 0:
        out = M.run_order(xp, a.reshape(1), mask.reshape(1), rank)
        return out.reshape(())
    return M.run_order(xp, a, mask, rank)


def order_filter(a, domain, rank):
    """Perform an order filter on an N-D array.

    The nonzero elements of ``domain``, centred on each element of ``a``,
    select the window (zero outside ``a``); the output is the window's
    ``rank``-th smallest value.

    Parameters
    ----------
    a : array_like
        N-d input of an integer dtype, float32 or float64.
    domain : array_like
        Mask with ``a.ndim`` axes, each of odd length (host or device array;
        nonzero entries, NaN included, select).
    rank : int
        0 for the smallest value of the window, 1 for the next, ...;
        negative counts from the largest (-1 for the largest), as
        ``scipy.ndimage.rank_filter``.

    Returns
    -------
    out : gpuscipy_core.ndarray
        Same shape and dtype as ``a``.

    Raises
    ------
    ValueError
        A ``domain`` axis of even length (checked first), an unsupported
        dtype ("dtype=... is not supported by order_filter"), more than 8
        dimensions.
    RuntimeError
        ``domain.ndim != a.ndim``; ``rank`` outside the window's count.
    TypeError
        ``rank`` not an integer.

    Notes
    -----
    The kernels of ``medfilt`` with the rank and the mask as parameters:
    a full box of up to 49 values (25 for 64-bit dtypes) over at most three
    axes where the rank can be placed at the middle of the network by
    padding: Batcher's odd-even merge network [1]_ in registers; a full box
    along one axis: the sliding ring (one pass per output); any other mask:
    the sliding refinement over the mask's offset list (one pass per
    distinct key the rank moves by from the previous output's answer). NaN
    sorts above +inf (NumPy's order).

    Differences from SciPy: ``rank`` must be an integer (SciPy also takes
    the floats 0.0 and count - 1); 1-D domains with zeros select the masked
    window (SciPy 1.17's 1-D path ignores the zeros of the domain for ranks
    other than the smallest and the largest); NaN as in ``medfilt``.

    References
    ----------
    .. [1] K. E. Batcher, "Sorting networks and their applications",
           AFIPS Spring Joint Computer Conference, 1968.
    """
    return _order_filter(D.device_xp(), a, domain, rank)


_MEDFILT2D_DTYPES = (numpy.dtype(numpy.uint8), numpy.dtype(numpy.float32),
                     numpy.dtype(numpy.float64))


def _medfilt2d(xp, image, kernel_size):
    image = xp.asarray(image)
    # as SciPy: other dtypes take medfilt, with its rules (any ndim, the
    # warning for windows longer than the volume, its dtype errors)
    if image.dtype not in _MEDFILT2D_DTYPES:
        return M._medfilt(xp, image, kernel_size)
    if kernel_size is None:
        kernel_size = [3] * 2
    ks = numpy.asarray(kernel_size)
    if ks.shape == ():
        ks = numpy.repeat(ks.item(), 2)
    for size in ks:
        if (size % 2) != 1:
            raise ValueError("Each element of kernel_size should be odd.")
    if image.ndim < 2:
        raise ValueError("object of too small depth for desired array")
    if image.ndim > 2:
        raise ValueError("object too deep for desired array")
    if ks.ndim != 1 or ks.shape[0] < 2:
        raise ValueError("Size must be a length two sequence")
    if not numpy.can_cast(ks.dtype, numpy.int64, "safe"):
        raise TypeError(f"Cannot cast array data from {ks.dtype!r} to "
                        f"dtype('int64') according to the rule 'safe'")
    ksize = [int(ks[0]), int(ks[1])]
    if min(ksize) < 0:
        raise ValueError("negative dimensions are not allowed")
    if math.prod(ksize) > _MAX_WINDOW:
        raise ValueError(f"kernel_size {tuple(ksize)} holds more than {_MAX_WINDOW} values")
    return M.run(xp, image, ksize)


def medfilt2d(input, kernel_size=3):
    """Median filter a 2-dimensional array.

    Zero-padded windows of odd size ``kernel_size``; the output is each
    window's median.

    Parameters
    ----------
    input : array_like
        2-d input of dtype uint8, float32 or float64. Other dtypes are
        passed to `medfilt`, as SciPy does (any ndim, medfilt's dtypes and
        errors).
    kernel_size : array_like, optional
        Odd window size for both axes, or a sequence of (at least) two odd
        sizes, rows first (default 3: a 3 x 3 window).

    Returns
    -------
    out : gpuscipy_core.ndarray
        Same shape and dtype as ``input``.

    Raises
    ------
    ValueError
        An even size ("Each element of kernel_size should be odd."), input
        of other than 2 dimensions (uint8, float32, float64), fewer than two
        sizes, a negative size.
    TypeError
        Sizes of a dtype that does not cast safely to int64 (floats).

    Notes
    -----
    The kernels of `medfilt` (a Batcher network in registers for windows of
    up to 49 values, 25 for float64; a sliding ring for windows along one
    axis; the sliding refinement over the window otherwise). NaN sorts above
    +inf.

    Differences from SciPy: negative sizes raise ``ValueError`` (SciPy's
    C path returns uninitialised memory for -1); NaN as in `medfilt`
    (SciPy's NaN results depend on its quickselect's order).
    """
    return _medfilt2d(D.device_xp(), input, kernel_size)
