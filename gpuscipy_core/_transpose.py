"""Copies between layouts with different fastest axes, through shared-memory
tiles (the classic tiled transpose), so both sides are read and written
coalesced."""

from ._kernel._module import get_function

__all__ = ["transpose_source", "try_transpose_copy"]

_WORD = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
         8: "unsigned long long", 16: "gs::bytes16"}


def transpose_source(itemsize):
    """Source of the tiled copy kernel ``gs_transpose_copy_<itemsize>``."""
    t = _WORD[itemsize]
    return (
        "#include <gpuscipy/transpose.cuh>\n"
        f'extern "C" __global__ void __launch_bounds__(256) gs_transpose_copy_{itemsize}('
        f"const {t}* src, long long ss0, long long ss1, {t}* dst, long long ds0, "
        "long long ds1, long long n0, long long n1) {\n"
        "  gs::transpose_copy(src, ss0, ss1, dst, ds0, ds1, n0, n1);\n}\n")


def _layout2d(a, b):
    """Collapse (shape, strides of a, strides of b) to at most 2 axes, in elements."""
    shp, sa, sb = [], [], []
    for d, x, y in zip(a.shape, a.strides, b.strides):
        if d == 1:
            continue
        x //= a.itemsize
        y //= b.itemsize
        if shp and sa[-1] == x * d and sb[-1] == y * d:
            shp[-1] *= d
            sa[-1], sb[-1] = x, y
            continue
        shp.append(d)
        sa.append(x)
        sb.append(y)
    return shp, sa, sb


def try_transpose_copy(dst, src):
    """Copy ``src`` into ``dst`` (same shape and dtype) with the tiled kernel
    when the two layouts are a 2-D transpose of each other; return False
    when they are not."""
    if src.itemsize not in _WORD or any(s % src.itemsize for s in src.strides) \
            or any(s % dst.itemsize for s in dst.strides):
        return False
    shp, ss, ds = _layout2d(src, dst)
    if len(shp) != 2:
        return False
    if ss[1] == 1 and ds[0] == 1:
        shp, ss, ds = shp[::-1], ss[::-1], ds[::-1]
    if not (ss[0] == 1 and ds[1] == 1):
        return False
    n0, n1 = shp
    f = get_function(transpose_source(src.itemsize), f"gs_transpose_copy_{src.itemsize}")
    tile = 32 if src.itemsize > 8 else 64
    grid = ((n0 + tile - 1) // tile, min((n1 + tile - 1) // tile, 65535))
    f(grid, (32, 8), (src, ss[0], ss[1], dst, ds[0], ds[1], n0, n1))
    return True
