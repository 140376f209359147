"""Readers for the file formats of the packaged data (NumPy and struct only).

- NIfTI-1 single-file images (``.nii`` bytes, already gunzipped),
- METIS graph files (text adjacency lists),
- Harwell-Boeing sparse matrices (fixed-width text, formats from the header).

Each reader takes the file's bytes and returns NumPy / SciPy host objects.
They validate what they rely on and raise ``ValueError`` naming the problem;
features the packaged files do not use and that are not implemented raise
``ValueError`` too, rather than returning something wrong.
"""

import re
import struct

import numpy as np
import scipy.sparse

__all__ = ["read_nifti1", "read_metis_graph", "parse_fortran_format",
           "read_harwell_boeing"]


# --------------------------------------------------------------- NIfTI-1 ---

# NIfTI-1 datatype code -> NumPy type (nifti1.h, "DT_*" codes).
_NIFTI_DTYPES = {2: np.uint8, 4: np.int16, 8: np.int32, 16: np.float32,
                 64: np.float64, 256: np.int8, 512: np.uint16, 768: np.uint32,
                 1024: np.int64, 1280: np.uint64}


def _qform_affine(raw, e, pixdim):
    """Voxel-to-world matrix from the quaternion fields (nifti1.h, method 2)."""
    b, c, d, qx, qy, qz = struct.unpack_from(e + "6f", raw, 256)
    a2 = 1.0 - (b * b + c * c + d * d)
    a = np.sqrt(a2) if a2 > 1e-7 else 0.0
    if a == 0.0:  # b, c, d describe a 180-degree rotation: renormalise
        s = np.sqrt(b * b + c * c + d * d)
        b, c, d = b / s, c / s, d / s
    r = np.array([
        [a * a + b * b - c * c - d * d, 2 * (b * c - a * d), 2 * (b * d + a * c)],
        [2 * (b * c + a * d), a * a + c * c - b * b - d * d, 2 * (c * d - a * b)],
        [2 * (b * d - a * c), 2 * (c * d + a * b), a * a + d * d - c * c - b * b],
    ])
    qfac = -1.0 if pixdim[0] < 0 else 1.0
    scale = np.array([pixdim[1], pixdim[2], qfac * pixdim[3]], dtype=np.float64)
    out = np.eye(4)
    out[:3, :3] = r * scale
    out[:3, 3] = (qx, qy, qz)
    return out


def read_nifti1(raw):
    """Decode a single-file NIfTI-1 image (magic ``n+1``) from its bytes.

    Parameters
    ----------
    raw : bytes
        The whole ``.nii`` file (gunzip a ``.nii.gz`` first).

    Returns
    -------
    data : ndarray
        The voxels in native byte order, indexed ``[x, y, z, ...]`` (the
        file stores x fastest), C-contiguous and writable.
    header : dict
        ``shape``, ``datatype`` (code), ``voxel_size`` (pixdim[1:4], in the
        file's spatial units), ``xyzt_units``, ``qform_code``,
        ``sform_code`` and ``affine``: the 4 x 4 float64 voxel-to-world
        matrix from the sform when ``sform_code > 0``, else from the qform
        when ``qform_code > 0``, else ``diag(voxel_size, 1)``.

    Raises
    ------
    ValueError
        Not a little- or big-endian NIfTI-1 header (``sizeof_hdr`` != 348),
        not a single-file image, an unsupported datatype, inconsistent
        ``bitpix``, bad dimensions, intensity scaling (``scl_slope`` other
        than 0 or 1, or ``scl_inter`` != 0), or truncated voxel data.
    """
    if len(raw) < 348:
        raise ValueError(f"NIfTI-1: {len(raw)} bytes is shorter than the "
                         "348-byte header")
    for e in "<>":
        if struct.unpack_from(e + "i", raw, 0)[0] == 348:
            break
    else:
        raise ValueError("NIfTI-1: sizeof_hdr is not 348 in either byte order")
    magic = bytes(raw[344:348])
    if magic != b"n+1\x00":
        raise ValueError(f"NIfTI-1: magic {magic!r} is not b'n+1\\x00' "
                         "(only single-file images are supported)")
    dim = struct.unpack_from(e + "8h", raw, 40)
    ndim = dim[0]
    if not 1 <= ndim <= 7 or min(dim[1:1 + ndim]) < 1:
        raise ValueError(f"NIfTI-1: invalid dim field {dim}")
    shape = tuple(int(n) for n in dim[1:1 + ndim])
    datatype, bitpix = struct.unpack_from(e + "hh", raw, 70)
    if datatype not in _NIFTI_DTYPES:
        raise ValueError(f"NIfTI-1: datatype code {datatype} is not supported")
    dtype = np.dtype(_NIFTI_DTYPES[datatype]).newbyteorder(e)
    if bitpix != 8 * dtype.itemsize:
        raise ValueError(f"NIfTI-1: bitpix {bitpix} does not match datatype "
                         f"{datatype} ({dtype.name})")
    pixdim = struct.unpack_from(e + "8f", raw, 76)
    vox_offset, scl_slope, scl_inter = struct.unpack_from(e + "3f", raw, 108)
    if scl_slope not in (0.0, 1.0) or scl_inter != 0.0:
        raise ValueError(f"NIfTI-1: intensity scaling (scl_slope={scl_slope}, "
                         f"scl_inter={scl_inter}) is not supported")
    xyzt_units = raw[123]
    qform_code, sform_code = struct.unpack_from(e + "hh", raw, 252)
    offset = int(vox_offset)
    count = int(np.prod(shape))
    if offset < 348 or offset + count * dtype.itemsize > len(raw):
        raise ValueError(f"NIfTI-1: {count} voxels of {dtype.itemsize} bytes "
                         f"at offset {offset} do not fit in {len(raw)} bytes")
    data = np.frombuffer(raw, dtype, count=count, offset=offset)
    data = np.ascontiguousarray(data.reshape(shape, order="F"),
                                dtype=dtype.newbyteorder("="))
    if sform_code > 0:
        affine = np.eye(4)
        affine[:3] = np.array(struct.unpack_from(e + "12f", raw, 280),
                              dtype=np.float64).reshape(3, 4)
    elif qform_code > 0:
        affine = _qform_affine(raw, e, pixdim)
    else:
        affine = np.diag([pixdim[1], pixdim[2], pixdim[3], 1.0])
    header = {"shape": shape, "datatype": datatype,
              "voxel_size": tuple(float(p) for p in pixdim[1:4]),
              "xyzt_units": xyzt_units, "qform_code": qform_code,
              "sform_code": sform_code, "affine": affine}
    return data, header


# ----------------------------------------------------------------- METIS ---

_POW10 = 10 ** np.arange(19, dtype=np.int64)
_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[9, 10, 11, 12, 13, 32]] = True


def _line_tokens(buf, line_of_byte, keep_line):
    """Unsigned decimal integers in the kept lines of ``buf``, vectorised.

    Returns ``(values, line)``: each token's value (int64) and the index of
    the line holding it, in file order. Bytes of lines that are not kept
    are ignored; any byte of a kept line other than a digit or whitespace
    raises ValueError.
    """
    kept = keep_line[line_of_byte]
    digit = (buf >= 48) & (buf <= 57)
    bad = kept & ~digit & ~_WHITESPACE[buf]
    if bad.any():
        pos = int(np.flatnonzero(bad)[0])
        raise ValueError(f"METIS graph: unexpected character {chr(buf[pos])!r} "
                         f"on line {int(line_of_byte[pos]) + 1}")
    where = np.flatnonzero(digit & kept)
    if where.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.intp)
    # Digits of one token are adjacent bytes; a gap starts a new token.
    starts = np.flatnonzero(np.diff(where, prepend=-2) != 1)
    lengths = np.diff(starts, append=where.size)
    if lengths.max() > 18:
        raise ValueError("METIS graph: integer with more than 18 digits")
    last = np.repeat(starts + lengths - 1, lengths)
    place = last - np.arange(where.size)          # 0 for the units digit
    digits = (buf[where] - 48).astype(np.int64)
    values = np.add.reduceat(digits * _POW10[place], starts)
    return values, line_of_byte[where[starts]]


def read_metis_graph(raw):
    """Parse a METIS graph file into a symmetric CSR adjacency.

    The format (METIS 5 manual, section 4.1.1): lines starting with ``%``
    are comments. The first other line is ``n m [fmt [ncon]]``: ``n``
    vertices, ``m`` undirected edges, and ``fmt``, three binary digits
    (leading zeros may be dropped) saying whether each vertex line starts
    with a vertex size, then ``ncon`` vertex weights, and whether each
    neighbour is followed by an edge weight. Then ``n`` lines, one per
    vertex: the 1-based indices of its neighbours (an empty line is an
    isolated vertex). Every edge appears in the lines of both end points.

    Parameters
    ----------
    raw : bytes
        The file's contents (gunzipped).

    Returns
    -------
    adjacency : scipy.sparse.csr_array
        ``(n, n)``, ``2 m`` stored entries, sorted column indices; data are
        the edge weights (float64), or ones for an unweighted graph. Vertex
        sizes and weights are counted (to locate the neighbours) and
        dropped.

    Raises
    ------
    ValueError
        Malformed header, characters other than digits and whitespace in a
        vertex line, a vertex line whose token count does not fit ``fmt``,
        a neighbour index outside ``1..n``, more than ``n`` non-empty vertex
        lines, or a neighbour count different from ``2 m``.
    """
    buf = np.frombuffer(raw, dtype=np.uint8)
    newline = np.flatnonzero(buf == 10)
    line_start = np.concatenate(([0], newline + 1))
    nlines = line_start.size
    if line_start[-1] == buf.size:                # file ends with "\n"
        nlines -= 1
        line_start = line_start[:-1]
    is_comment = np.zeros(nlines, dtype=bool)
    is_comment[:] = buf[np.minimum(line_start, buf.size - 1)] == ord("%")
    content = np.flatnonzero(~is_comment)
    if content.size == 0:
        raise ValueError("METIS graph: no header line")
    head_line = int(content[0])
    head_end = newline[head_line] if head_line < newline.size else buf.size
    head = bytes(buf[line_start[head_line]:head_end]).split()
    try:
        n, m = int(head[0]), int(head[1])
        fmt = head[2].decode("ascii") if len(head) > 2 else "0"
        ncon = int(head[3]) if len(head) > 3 else 1
    except (IndexError, ValueError, UnicodeDecodeError):
        raise ValueError(f"METIS graph: bad header line {head!r}; expected "
                         "'n m [fmt [ncon]]'") from None
    if len(fmt) > 3 or set(fmt) - {"0", "1"} or n < 0 or m < 0 or ncon < 1 \
            or len(head) > 4:
        raise ValueError(f"METIS graph: bad header line {head!r}")
    fmt = fmt.zfill(3)
    has_size, has_vwgt, has_ewgt = (c == "1" for c in fmt)
    lead = int(has_size) + (ncon if has_vwgt else 0)
    stride = 2 if has_ewgt else 1

    # Vertex lines: the first n non-comment lines after the header; further
    # lines may only be blank. Missing trailing lines are isolated vertices.
    body = content[1:]
    vertex_of_line = np.full(nlines, -1, dtype=np.int64)
    vertex_of_line[body[:n]] = np.arange(min(n, body.size))
    line_of_byte = np.zeros(buf.size, dtype=np.int64)
    line_of_byte[newline[newline + 1 < buf.size] + 1] = 1
    np.cumsum(line_of_byte, out=line_of_byte)
    if body.size > n:
        extra = np.zeros(nlines, dtype=bool)
        extra[body[n:]] = True
        tail = line_start[body[n]]
        _, extra_lines = _line_tokens(buf[tail:], line_of_byte[tail:], extra)
        if extra_lines.size:
            raise ValueError(f"METIS graph: more than n = {n} vertex lines "
                             f"(line {int(extra_lines[0]) + 1} is not empty)")

    values, tok_line = _line_tokens(buf, line_of_byte, vertex_of_line >= 0)
    tok_vertex = vertex_of_line[tok_line]
    count = np.bincount(tok_vertex, minlength=n)
    first = np.concatenate(([0], np.cumsum(count)[:-1]))
    nbr_count, rem = np.divmod(count - lead, stride)
    bad = (count < lead) | (rem != 0)
    if bad.any():
        v = int(np.flatnonzero(bad)[0])
        raise ValueError(f"METIS graph: vertex {v + 1} has {int(count[v])} "
                         f"numbers, which does not fit fmt={fmt!r}, ncon={ncon}")
    pos = np.arange(values.size) - first[tok_vertex]
    is_nbr = (pos >= lead) & ((pos - lead) % stride == 0)
    cols = values[is_nbr] - 1
    if cols.size != 2 * m:
        raise ValueError(f"METIS graph: {cols.size} neighbour entries, but "
                         f"the header says m = {m} edges (2 m = {2 * m})")
    if cols.size and (cols.min() < 0 or cols.max() >= n):
        raise ValueError(f"METIS graph: a neighbour index is outside 1..{n}")
    if has_ewgt:
        data = values[np.flatnonzero(is_nbr) + 1].astype(np.float64)
    else:
        data = np.ones(cols.size, dtype=np.float64)
    idx = np.int32 if max(n, cols.size) < 2**31 else np.int64
    indptr = np.zeros(n + 1, dtype=idx)
    np.cumsum(nbr_count, out=indptr[1:])
    adjacency = scipy.sparse.csr_array(
        (data, cols.astype(idx), indptr), shape=(n, n))
    adjacency.sort_indices()
    return adjacency


# -------------------------------------------------------- Harwell-Boeing ---

_FORTRAN_FORMAT = re.compile(
    r"^\(\s*(?:([+-]?\d+)\s*P\s*,?\s*)?(\d*)\s*([IEDFG])\s*(\d+)"
    r"(?:\s*\.\s*(\d+))?(?:\s*[ED]\s*\d+)?\s*\)$", re.IGNORECASE)


def parse_fortran_format(text):
    """``'(1P,3E26.18)'`` -> ``(3, 26, 'E', 18, 1)``.

    Returns fields per line, field width, kind (``'I'``, ``'E'``, ``'D'``,
    ``'F'`` or ``'G'``), digits after the decimal point (0 if absent) and
    the scale factor (0 if absent). Accepts the single repeated edit
    descriptor of Harwell-Boeing headers: ``rIw``, ``rEw.d``, ``rDw.d``,
    ``rFw.d``, ``rGw.d`` with an optional scale factor (``kP,`` or ``kP``)
    and exponent width (``Ee``); a missing repeat count means 1. Raises
    ValueError for anything else.
    """
    mobj = _FORTRAN_FORMAT.match(text.strip())
    if mobj is None:
        raise ValueError(f"Harwell-Boeing: unsupported Fortran format {text!r}")
    scale = int(mobj.group(1)) if mobj.group(1) else 0
    repeat = int(mobj.group(2)) if mobj.group(2) else 1
    width = int(mobj.group(4))
    decimals = int(mobj.group(5)) if mobj.group(5) else 0
    if repeat < 1 or width < 1:
        raise ValueError(f"Harwell-Boeing: bad Fortran format {text!r}")
    return repeat, width, mobj.group(3).upper(), decimals, scale


def _fixed_width(lines, fmt, count, what):
    """The first ``count`` non-blank fixed-width fields of ``lines`` as a
    NumPy array (int64 for I formats, float64 otherwise)."""
    per_line, width, kind, decimals, scale = parse_fortran_format(fmt)
    line_len = per_line * width
    if count == 0:
        return np.zeros(0, np.int64 if kind == "I" else np.float64)
    # Pad every line to a full record, cut it into fields, drop blank ones.
    table = np.array([ln[:line_len] for ln in lines], dtype=f"S{line_len}")
    chars = table.view(np.uint8).reshape(len(lines), line_len).copy()
    if kind != "I":
        chars[(chars == ord("D")) | (chars == ord("d"))] = ord("E")
    chars = chars.reshape(-1, width)
    blank = ((chars == 32) | (chars == 0)).all(axis=1)
    fields = chars[~blank]
    if fields.shape[0] < count:
        raise ValueError(f"Harwell-Boeing: {what}: {fields.shape[0]} fields "
                         f"found, {count} expected")
    fields = np.ascontiguousarray(fields[:count])
    if kind != "I":
        # Fortran input rules that a plain float parse would get wrong: a
        # field without a decimal point has d implied decimals, and with a
        # scale factor kP a field without an exponent is divided by 10**k.
        if decimals and not (fields == ord(".")).any(axis=1).all():
            raise ValueError(f"Harwell-Boeing: {what}: a field without a "
                             "decimal point (implied decimals are not "
                             "supported)")
        has_exp = ((fields == ord("E")) | (fields == ord("e"))).any(axis=1)
        if scale and not has_exp.all():
            raise ValueError(f"Harwell-Boeing: {what}: a field without an "
                             f"exponent under scale factor {scale}P is not "
                             "supported")
    strings = fields.view(f"S{width}").ravel()
    try:
        return strings.astype(np.int64 if kind == "I" else np.float64)
    except ValueError as exc:
        raise ValueError(f"Harwell-Boeing: {what}: {exc}") from None


def _header_ints(line, start, count):
    out = []
    for i in range(count):
        field = line[start + 14 * i:start + 14 * (i + 1)].strip()
        out.append(int(field) if field else 0)
    return out


def read_harwell_boeing(raw):
    """Parse an assembled real or pattern Harwell-Boeing matrix.

    Layout (Duff, Grimes and Lewis, "Users' guide for the Harwell-Boeing
    sparse matrix collection", 1992): line 1 title (a72) and key (a8);
    line 2 the line counts TOTCRD, PTRCRD, INDCRD, VALCRD, RHSCRD (5i14);
    line 3 the type (a3, e.g. ``RUA``), 11 blanks, NROW, NCOL, NNZERO,
    NELTVL (4i14); line 4 the Fortran formats of pointers, indices, values
    and right-hand sides (2a16, 2a20); line 5, only when RHSCRD > 0, the
    right-hand-side type (a3), 11 blanks, NRHS, NRHSIX (2i14). Then the
    column pointers, row indices, values and right-hand sides, each in
    fixed-width fields, 1-based.

    Parameters
    ----------
    raw : bytes
        The file's contents (gunzipped), ASCII.

    Returns
    -------
    matrix : scipy.sparse.csc_array
        ``(NROW, NCOL)`` float64, with every stored entry kept (explicit
        zeros included) in file order. Pattern matrices get ones.
    rhs : ndarray or None
        ``(NROW, NRHS)`` float64 full right-hand sides, or None.
    info : dict
        ``title``, ``key`` and ``type`` (e.g. ``'RUA'``).

    Raises
    ------
    ValueError
        Unsupported type (only real or pattern, unsymmetric or rectangular,
        assembled: ``RUA``, ``RRA``, ``PUA``, ``PRA``), unsupported
        right-hand-side type (only full, ``F``), unsupported Fortran
        formats, too few fields, or inconsistent pointers and indices.
    """
    lines = raw.decode("ascii").replace("\r\n", "\n").split("\n")
    if len(lines) < 4:
        raise ValueError("Harwell-Boeing: fewer than 4 header lines")
    title, key = lines[0][:72].strip(), lines[0][72:80].strip()
    _, ptrcrd, indcrd, valcrd, rhscrd = _header_ints(lines[1], 0, 5)
    mxtype = lines[2][:3].upper()
    nrow, ncol, nnz, _ = _header_ints(lines[2], 14, 4)
    if mxtype[0] not in "RP" or mxtype[1] not in "UR" or mxtype[2] != "A":
        raise ValueError(f"Harwell-Boeing: matrix type {mxtype!r} is not "
                         "supported (only RUA, RRA, PUA, PRA)")
    fmt_line = lines[3].ljust(72)
    ptrfmt, indfmt = fmt_line[:16], fmt_line[16:32]
    valfmt, rhsfmt = fmt_line[32:52], fmt_line[52:72]
    p, nrhs = 4, 0
    if rhscrd > 0:
        rhstyp = lines[4][:3].upper()
        nrhs = _header_ints(lines[4], 14, 1)[0]
        if rhstyp[:1] != "F":
            raise ValueError(f"Harwell-Boeing: right-hand-side type {rhstyp!r}"
                             " is not supported (only full, 'F')")
        p = 5
    sections = []
    for ncards in (ptrcrd, indcrd, valcrd, rhscrd):
        sections.append(lines[p:p + ncards])
        p += ncards
    ptr = _fixed_width(sections[0], ptrfmt, ncol + 1, "column pointers") - 1
    ind = _fixed_width(sections[1], indfmt, nnz, "row indices") - 1
    if ptr[0] != 0 or ptr[-1] != nnz or np.any(np.diff(ptr) < 0):
        raise ValueError("Harwell-Boeing: column pointers are not "
                         f"non-decreasing from 1 to NNZERO + 1 = {nnz + 1}")
    if nnz and (ind.min() < 0 or ind.max() >= nrow):
        raise ValueError(f"Harwell-Boeing: a row index is outside 1..{nrow}")
    if mxtype[0] == "P":
        val = np.ones(nnz, dtype=np.float64)
    else:
        val = _fixed_width(sections[2], valfmt, nnz, "values")
    rhs = None
    if nrhs:
        rhs = _fixed_width(sections[3], rhsfmt, nrow * nrhs,
                           "right-hand sides").reshape(nrhs, nrow).T.copy()
    idx = np.int32 if max(nrow, ncol, nnz) < 2**31 else np.int64
    matrix = scipy.sparse.csc_array(
        (val, ind.astype(idx), ptr.astype(idx)), shape=(nrow, ncol))
    return matrix, rhs, {"title": title, "key": key, "type": mxtype}
