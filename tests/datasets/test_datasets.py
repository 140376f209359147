"""gpuscipy.datasets: packaged files, readers and loaders (CPU only).

The loaders return host (NumPy / SciPy) objects, so everything here runs
without a GPU. Expected values (shapes, counts, digests of the donor files)
come from /work/shared/data/README.md, not from the loader module, except
where a test checks the module's own constants.
"""

import fnmatch
import gzip
import hashlib
import importlib.resources
import io
import os
import pathlib
import struct
import subprocess
import sys
import tempfile

import numpy as np
import pytest
import scipy.io
import scipy.sparse
import scipy.sparse.csgraph
import scipy.sparse.linalg

from gpuscipy import datasets
from gpuscipy.datasets import _formats, _registry

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = importlib.resources.files("gpuscipy.datasets") / "_data"

# sha256 of each payload as published with the donor package (README.md):
# the file itself for byte-for-byte copies, the gunzipped content for the
# files compressed with gzip -9n.
UPSTREAM_SHA256 = {
    "ecg_mitbih208.npz":
        "a4edf374497d665cb447ae3fd6d46e7b56bdcbcf2c414f44b391755e40ec55e0",
    "mni152_t1.nii.gz":
        "421a10e872fd6cadae7f61d358dffbcc1795a497d61ee76c5dda2503e1a1e9e6",
    "mni152_gm.nii.gz":
        "97a5ca69bd24db37a9cb7b32525e1733a209af904129bf1cd36da06d24243bed",
    "mni152_wm.nii.gz":
        "382d92812de4744f9c86c7a0e4f680dc317a0a50e4da1f0153618a6798c7b7db",
    "mdual.graph.gz":
        "fed97c608a1611ae1a4604620913e32c16ecd815550df1c1819fe492986c27b0",
    "copter2.graph.gz":
        "e073b74b349eac2887e4b963cf21a89f4bcd6d2860265ef1c049101cf72fa778",
    "4elt.graph.gz":
        "8a5819a9d05133a8706ac44fd83919c6570ab838fba35b0fb5c78f0ee7803285",
    "add32.rua.gz":
        "cfaf152249717f7d320677f71783acb642de09adada960387325f7145323613f",
    "cr_chest_1955x1841.npz":
        "84f341d91eb9491e6b5e7c046971460c97b5529e0a78d5b96f4c6b42f8ea8a36",
}
# Files compressed for gpuscipy (their upstream digest is of the content).
COMPRESSED_HERE = {"mdual.graph.gz", "copter2.graph.gz", "4elt.graph.gz",
                   "add32.rua.gz"}

LICENCE_FILES = ["ATTRIBUTION.md", "Apache-2.0.txt", "BSD-3-Clause-GDCM.txt",
                 "BSD-3-Clause-SuperLU_DIST.txt", "MIT-pydicom-data.txt",
                 "MNI-ICBM152-notice.txt", "ODC-By-1.0-MIT-BIH.txt"]


def _raw(name):
    return (DATA / name).read_bytes()


# ------------------------------------------------------- shipped files ---

def test_shipped_files_are_the_registry():
    shipped = {p.name for p in DATA.iterdir() if p.is_file()}
    assert shipped == set(_registry.SHA256) == set(UPSTREAM_SHA256)
    assert set(_registry.SHA256_GUNZIPPED) == COMPRESSED_HERE


@pytest.mark.parametrize("name", sorted(UPSTREAM_SHA256))
def test_sha256(name):
    raw = _raw(name)
    assert hashlib.sha256(raw).hexdigest() == _registry.SHA256[name]
    if name in COMPRESSED_HERE:
        content = gzip.decompress(raw)
        digest = hashlib.sha256(content).hexdigest()
        assert digest == _registry.SHA256_GUNZIPPED[name]
        assert digest == UPSTREAM_SHA256[name]
    else:
        assert _registry.SHA256[name] == UPSTREAM_SHA256[name]


def test_verify(monkeypatch):
    assert _registry.verify() == []
    monkeypatch.setitem(_registry.SHA256, "4elt.graph.gz", "0" * 64)
    monkeypatch.setitem(_registry.SHA256_GUNZIPPED, "add32.rua.gz", "1" * 64)
    bad = {(name, kind) for name, kind, _, _ in _registry.verify()}
    assert bad == {("4elt.graph.gz", "file"), ("add32.rua.gz", "gunzipped")}


def test_data_file_rejects_unknown_name():
    with pytest.raises(KeyError):
        _registry.data_file("flower_2268x1512.pgm.gz")


@pytest.mark.parametrize("name", LICENCE_FILES)
def test_licence_copies_match(name):
    packaged = (DATA / "LICENSES" / name).read_bytes()
    assert len(packaged) > 500
    root = REPO / "LICENSES" / name
    if not root.exists():
        pytest.skip("not a source checkout")
    assert root.read_bytes() == packaged


def test_attribution_names_every_file_and_licence():
    text = (DATA / "LICENSES" / "ATTRIBUTION.md").read_text(encoding="utf-8")
    for name in UPSTREAM_SHA256:
        assert f"`{name}`" in text or name.split(".")[0] in text, name
    for name in LICENCE_FILES[1:]:
        assert f"`{name}`" in text, name
    assert {p.name for p in (DATA / "LICENSES").iterdir()} == set(LICENCE_FILES)


def test_package_data_covers_the_files():
    pyproject = REPO / "pyproject.toml"
    if not pyproject.exists():
        pytest.skip("not a source checkout")
    import tomllib
    table = tomllib.loads(pyproject.read_text())["tool"]["setuptools"]
    patterns = table["package-data"]["gpuscipy.datasets"]
    files = [f"_data/{name}" for name in UPSTREAM_SHA256]
    files += [f"_data/LICENSES/{name}" for name in LICENCE_FILES]
    for path in files:
        assert any(fnmatch.fnmatchcase(path, p) for p in patterns), path


# ---------------------------------------------------------------- public ---

def test_public_names():
    assert sorted(datasets.__all__) == sorted(
        ["electrocardiogram", "mni152", "chest_xray", "mesh_graph", "add32"])
    for name in datasets.__all__:
        obj = getattr(datasets, name)
        assert obj.__module__ == "gpuscipy.datasets", name
        for section in ("Returns", "Notes", "References", "Examples"):
            assert section in obj.__doc__, (name, section)
    assert datasets.MNI152Template.__module__ == "gpuscipy.datasets"


def test_import_needs_no_gpu_core():
    code = ("import sys, gpuscipy.datasets; "
            "print(any(m.startswith('gpuscipy_core') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------- ECG ---

def test_electrocardiogram():
    ecg = datasets.electrocardiogram()
    assert ecg.shape == (108000,) and ecg.dtype == np.float64
    with np.load(io.BytesIO(_raw("ecg_mitbih208.npz"))) as z:
        raw = z["ecg"]
        assert raw.dtype == np.uint16 and int(z["fs"]) == 360
        assert int(z["adc_zero"]) == 1024 and float(z["adc_gain"]) == 200.0
    np.testing.assert_array_equal(ecg, (raw.astype(np.float64) - 1024) / 200)
    # Values quoted by SciPy's docstring for the same record.
    assert abs(ecg.mean() - -0.16510875) < 1e-9
    assert abs(ecg.std() - 0.599247) < 1e-6
    ecg[:] = 0  # the caller owns the array
    assert datasets.electrocardiogram().std() > 0.5


def test_electrocardiogram_matches_scipy_cache():
    # scipy.datasets needs pooch and a downloaded ecg.dat; compare with the
    # cached file when there is one (never download here).
    root = os.environ.get("XDG_CACHE_HOME",
                          os.path.join(os.path.expanduser("~"), ".cache"))
    path = os.path.join(root, "scipy-data", "ecg.dat")
    if not os.path.exists(path):
        pytest.skip("scipy.datasets' ecg.dat is not cached on this machine")
    with np.load(path) as z:
        ref = (z["ecg"].astype(int) - 1024) / 200.0
    np.testing.assert_array_equal(datasets.electrocardiogram(), ref)


# ---------------------------------------------------------------- MNI152 ---

AFFINE = np.array([[1, 0, 0, -98], [0, 1, 0, -134], [0, 0, 1, -72],
                   [0, 0, 0, 1]], dtype=np.float64)


@pytest.fixture(scope="module")
def mni():
    return datasets.mni152()


def test_mni152(mni):
    assert type(mni).__name__ == "MNI152Template"
    assert mni._fields == ("t1", "gm", "wm", "affine", "voxel_size")
    nonzero = {"t1": 1886539, "gm": 1961850, "wm": 1679097}
    for kind, count in nonzero.items():
        vol = getattr(mni, kind)
        assert vol.shape == (197, 233, 189) and vol.dtype == np.uint8
        assert vol.flags.c_contiguous and vol.flags.writeable
        assert np.count_nonzero(vol) == count
        assert vol.max() == 255
    assert mni.affine.dtype == np.float64
    np.testing.assert_array_equal(mni.affine, AFFINE)
    assert mni.voxel_size == (1.0, 1.0, 1.0)
    # Probabilities of grey and white matter sum to at most 1.
    assert (mni.gm.astype(np.int32) + mni.wm).max() <= 255


def test_mni152_orientation(mni):
    # The symmetric template mirrors exactly about x = 0 (voxel i = 98):
    # axis 0 is x; flipping y or z gives something else.
    t1 = mni.t1
    np.testing.assert_array_equal(t1, t1[::-1])
    assert not np.array_equal(t1, t1[:, ::-1])
    assert not np.array_equal(t1, t1[:, :, ::-1])
    # An independent decode: x varies fastest on disk (NIfTI order).
    raw = gzip.decompress(_raw("mni152_t1.nii.gz"))
    flat = np.frombuffer(raw, np.uint8, offset=352)
    assert flat.size == 197 * 233 * 189
    i, j, k = 150, 40, 100
    assert t1[i, j, k] == flat[i + 197 * (j + 233 * k)]
    np.testing.assert_array_equal(t1.ravel(order="F"), flat)


@pytest.mark.parametrize("kind", ["t1", "gm", "wm"])
def test_mni152_kind(mni, kind):
    np.testing.assert_array_equal(datasets.mni152(kind), getattr(mni, kind))


@pytest.mark.parametrize("kind", ["T1", "csf", 1, ""])
def test_mni152_bad_kind(kind):
    with pytest.raises(ValueError, match="kind must be None, 't1', 'gm' or"):
        datasets.mni152(kind)


def _nifti(data, *, endian="<", datatype=4, bitpix=16, sform=None,
           qform=None, pixdim=(1.0, 2.0, 3.0, 4.0), slope=0.0, inter=0.0,
           magic=b"n+1\x00"):
    """A minimal single-file NIfTI-1 image in ``endian`` byte order."""
    hdr = bytearray(352)
    e = endian
    struct.pack_into(e + "i", hdr, 0, 348)
    dim = [data.ndim, *data.shape] + [1] * (7 - data.ndim)
    struct.pack_into(e + "8h", hdr, 40, *dim)
    struct.pack_into(e + "hh", hdr, 70, datatype, bitpix)
    struct.pack_into(e + "8f", hdr, 76, *pixdim, 0, 0, 0, 0)
    struct.pack_into(e + "3f", hdr, 108, 352.0, slope, inter)
    if qform is not None:
        struct.pack_into(e + "h", hdr, 252, 1)
        struct.pack_into(e + "6f", hdr, 256, *qform)
    if sform is not None:
        struct.pack_into(e + "h", hdr, 254, 2)
        struct.pack_into(e + "12f", hdr, 280, *np.ravel(sform[:3]))
    hdr[344:348] = magic
    body = np.asarray(data).astype(np.dtype(data.dtype).newbyteorder(e))
    return bytes(hdr) + body.tobytes(order="F")


@pytest.mark.parametrize("endian", ["<", ">"])
def test_nifti_synthetic(endian):
    data = np.arange(24, dtype=np.int16).reshape(2, 3, 4) - 7
    vol, hdr = _formats.read_nifti1(_nifti(data, endian=endian))
    np.testing.assert_array_equal(vol, data)
    assert vol.dtype == np.int16 and vol.dtype.isnative
    assert hdr["voxel_size"] == (2.0, 3.0, 4.0)
    np.testing.assert_array_equal(hdr["affine"], np.diag([2.0, 3.0, 4.0, 1.0]))


def test_nifti_qform():
    # 90 degrees about z: quaternion (a, b, c, d) = (cos 45, 0, 0, sin 45).
    s = np.sqrt(0.5)
    data = np.zeros((2, 2, 2), np.int16)
    _, hdr = _formats.read_nifti1(
        _nifti(data, qform=(0.0, 0.0, s, 10.0, 20.0, 30.0),
               pixdim=(-1.0, 2.0, 3.0, 4.0)))
    expected = np.array([[0, -3, 0, 10], [2, 0, 0, 20], [0, 0, -4, 30],
                         [0, 0, 0, 1]], dtype=np.float64)
    np.testing.assert_allclose(hdr["affine"], expected, atol=1e-6)
    # The sform wins when both are present.
    sform = np.array([[0.5, 0, 0, 1], [0, 0.5, 0, 2], [0, 0, 0.5, 3]])
    _, hdr = _formats.read_nifti1(
        _nifti(data, qform=(0.0, 0.0, s, 10.0, 20.0, 30.0), sform=sform))
    np.testing.assert_array_equal(hdr["affine"][:3], sform)


def _patched(raw, fmt, offset, *values):
    out = bytearray(raw)
    struct.pack_into(fmt, out, offset, *values)
    return bytes(out)


@pytest.mark.parametrize("change, match", [
    (("<i", 0, 540), "sizeof_hdr"),
    (("<h", 70, 99), "datatype code 99"),
    (("<h", 72, 8), "bitpix 8"),
    (("<h", 40, 9), "invalid dim"),
    (("<h", 42, 0), "invalid dim"),
    (("<f", 112, 2.0), "scaling"),
    (("<f", 116, 1.0), "scaling"),
    (("<f", 108, 400.0), "do not fit"),
    (("<4s", 344, b"ni1\x00"), "single-file"),
])
def test_nifti_errors(change, match):
    raw = _nifti(np.zeros((2, 3, 4), np.int16))
    with pytest.raises(ValueError, match=match):
        _formats.read_nifti1(_patched(raw, *change))
    with pytest.raises(ValueError, match="shorter than"):
        _formats.read_nifti1(raw[:100])


# ----------------------------------------------------------- METIS graphs ---

GRAPHS = [  # name, n, m, min degree, max degree (README.md)
    ("4elt", 7434, 43031, 3, 17),
    ("copter2", 55476, 352238, 3, 44),
    ("mdual", 258569, 513132, 3, 4),
]


@pytest.mark.parametrize("name, n, m, dmin, dmax", GRAPHS)
def test_mesh_graph(name, n, m, dmin, dmax):
    a = datasets.mesh_graph(name)
    assert isinstance(a, scipy.sparse.csr_array)
    assert a.shape == (n, n) and a.nnz == 2 * m and a.dtype == np.float64
    assert np.all(a.data == 1.0)
    assert a.has_canonical_format
    assert a.indices.dtype == np.int32
    assert (a != a.T).nnz == 0                      # symmetric
    assert not a.diagonal().any()                   # no self loops
    degree = np.diff(a.indptr)
    assert degree.min() == dmin and degree.max() == dmax
    ncomp, _ = scipy.sparse.csgraph.connected_components(a, directed=False)
    assert ncomp == 1


def test_mesh_graph_matches_line_by_line_reader():
    # A plain reader (one Python loop per line) for the small graph.
    text = gzip.decompress(_raw("4elt.graph.gz")).decode()
    lines = [ln for ln in text.split("\n") if not ln.startswith("%")]
    n, _ = map(int, lines[0].split())
    rows, cols = [], []
    for v, line in enumerate(lines[1:1 + n]):
        for w in line.split():
            rows.append(v)
            cols.append(int(w) - 1)
    ref = scipy.sparse.coo_array((np.ones(len(rows)), (rows, cols)),
                                 shape=(n, n)).tocsr()
    got = datasets.mesh_graph("4elt")
    np.testing.assert_array_equal(got.indptr, ref.indptr)
    np.testing.assert_array_equal(got.indices, ref.indices)


@pytest.mark.parametrize("name", ["MDUAL", "4elt.graph", "flower", "", 4, None])
def test_mesh_graph_bad_name(name):
    with pytest.raises(ValueError,
                       match="valid names are 'mdual', 'copter2', '4elt'"):
        datasets.mesh_graph(name)


# Small METIS files: (text, expected dense adjacency).
METIS_CASES = {
    "plain": ("3 2\n2\n1 3\n2\n", [[0, 1, 0], [1, 0, 1], [0, 1, 0]]),
    "comments": ("% a comment\n3 2\n% inside\n2\n1 3\n%\n2\n",
                 [[0, 1, 0], [1, 0, 1], [0, 1, 0]]),
    "isolated-middle": ("3 1\n3\n\n1\n", [[0, 0, 1], [0, 0, 0], [1, 0, 0]]),
    "isolated-last-missing": ("3 1\n2\n1\n", [[0, 1, 0], [1, 0, 0], [0, 0, 0]]),
    "trailing-blank-lines": ("2 1\n2\n1\n\n  \n", [[0, 1], [1, 0]]),
    "crlf-tabs": ("2 1\r\n\t2 \r\n1\r\n", [[0, 1], [1, 0]]),
    "no-final-newline": ("2 1\n2\n1", [[0, 1], [1, 0]]),
    "edge-weights": ("3 2 1\n2 5\n1 5 3 7\n2 7\n",
                     [[0, 5, 0], [5, 0, 7], [0, 7, 0]]),
    "fmt-001": ("3 2 001\n2 5\n1 5 3 7\n2 7\n",
                [[0, 5, 0], [5, 0, 7], [0, 7, 0]]),
    "vertex-weights-ncon2": ("3 2 10 2\n4 4 2\n1 1 1 3\n9 9 2\n",
                             [[0, 1, 0], [1, 0, 1], [0, 1, 0]]),
    "size-vwgt-ewgt": ("2 1 111\n8 3 2 6\n8 3 1 6\n", [[0, 6], [6, 0]]),
    "empty-graph": ("2 0\n\n\n", [[0, 0], [0, 0]]),
}


@pytest.mark.parametrize("case", sorted(METIS_CASES))
def test_metis_parser(case):
    text, expected = METIS_CASES[case]
    a = _formats.read_metis_graph(text.encode())
    assert isinstance(a, scipy.sparse.csr_array) and a.has_canonical_format
    np.testing.assert_array_equal(a.toarray(), np.array(expected, float))


@pytest.mark.parametrize("text, match", [
    ("3 3\n2\n1 3\n2\n", "2 m = 6"),
    ("2 1\n0\n1\n", "outside 1..2"),
    ("2 1\n3\n1\n", "outside 1..2"),
    ("2 1\n-2\n1\n", "unexpected character '-'"),
    ("2 1\n2.0\n1\n", "unexpected character '.'"),
    ("2 1\n2\n1\n1\n", "more than n = 2"),
    ("2 1 2\n2\n1\n", "bad header"),
    ("2 1 0001\n2\n1\n", "bad header"),
    ("2\n2\n1\n", "bad header"),
    ("x y\n", "bad header"),
    ("% only a comment\n", "no header"),
    ("", "no header"),
    ("2 1 1\n2\n1\n", "does not fit fmt='001'"),
    ("2 1 10 2\n5\n5 5 1\n", "vertex 1 has 1 numbers"),
    ("2 1\n1234567890123456789\n1\n", "more than 18 digits"),
])
def test_metis_parser_errors(text, match):
    with pytest.raises(ValueError, match=match):
        _formats.read_metis_graph(text.encode())


# ----------------------------------------------------------------- add32 ---

@pytest.fixture(scope="module")
def add32_rhs():
    return datasets.add32(return_rhs=True)


def test_add32(add32_rhs):
    a, b = add32_rhs
    assert isinstance(a, scipy.sparse.csc_array)
    assert a.shape == (4960, 4960) and a.dtype == np.float64
    assert a.nnz == 23884
    assert np.count_nonzero(a.data == 0) == 4036      # explicit zeros kept
    assert a.has_sorted_indices
    assert np.all(a.diagonal() != 0)
    pattern = scipy.sparse.csc_array(
        (np.ones(a.nnz), a.indices, a.indptr), shape=a.shape)
    assert (pattern != pattern.T).nnz == 0            # structurally symmetric
    assert b.shape == (4960,) and b.dtype == np.float64
    assert 0 < np.abs(b).max() <= 1.3e-14
    plain = datasets.add32()
    np.testing.assert_array_equal(plain.data, a.data)
    x_true = np.random.default_rng(0).standard_normal(a.shape[0])
    x = scipy.sparse.linalg.spsolve(a, a @ x_true)
    assert np.linalg.norm(x - x_true) <= 1e-10 * np.linalg.norm(x_true)


def test_add32_matches_plain_reader(add32_rhs):
    # Field by field with Python slicing, widths from the file's header
    # (13i6) (16i5) (3e26.18) (3e26.18).
    lines = gzip.decompress(_raw("add32.rua.gz")).decode().split("\n")
    assert lines[3].split() == ["(13i6)", "(16i5)", "(3e26.18)", "(3e26.18)"]
    cards = [int(lines[1][14 * i:14 * i + 14]) for i in range(1, 5)]

    def fields(chunk, width):
        return [ln[k:k + width] for ln in chunk
                for k in range(0, len(ln), width) if ln[k:k + width].strip()]
    p = 5
    ptr = [int(s) - 1 for s in fields(lines[p:p + cards[0]], 6)]
    p += cards[0]
    ind = [int(s) - 1 for s in fields(lines[p:p + cards[1]], 5)]
    p += cards[1]
    val = [float(s) for s in fields(lines[p:p + cards[2]], 26)]
    p += cards[2]
    rhs = [float(s) for s in fields(lines[p:p + cards[3]], 26)]
    a, b = add32_rhs
    np.testing.assert_array_equal(a.indptr, ptr)
    np.testing.assert_array_equal(a.indices, ind)
    np.testing.assert_array_equal(a.data, val)
    np.testing.assert_array_equal(b, rhs)


def test_add32_scipy_hb_read(add32_rhs):
    # SciPy refuses the file (it has a right-hand side); should a future
    # SciPy read it, it must agree.
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "add32.rua")
        with open(path, "wb") as f:
            f.write(gzip.decompress(_raw("add32.rua.gz")))
        try:
            ref = scipy.io.hb_read(path)
        except ValueError as exc:
            assert "right hand side" in str(exc)
            return
    a, _ = add32_rhs
    assert (abs(scipy.sparse.csc_array(ref) - a)).max() == 0


# --------------------------------------------------- Harwell-Boeing reader ---

@pytest.mark.parametrize("text, expected", [
    ("(13i6)", (13, 6, "I", 0, 0)),
    ("(16I5)", (16, 5, "I", 0, 0)),
    ("( 3e26.18 )", (3, 26, "E", 18, 0)),
    ("(1P,4E20.12)", (4, 20, "E", 12, 1)),
    ("(1P4D20.12)", (4, 20, "D", 12, 1)),
    ("(5E16.8E3)", (5, 16, "E", 8, 0)),
    ("(10F8.3)", (10, 8, "F", 3, 0)),
    ("(4G20.12)", (4, 20, "G", 12, 0)),
    ("(I8)", (1, 8, "I", 0, 0)),
])
def test_fortran_format(text, expected):
    assert _formats.parse_fortran_format(text) == expected


@pytest.mark.parametrize("text", ["(13A6)", "13I6", "(2(3I4))", "(0I4)",
                                  "(3E0.2)", ""])
def test_fortran_format_errors(text):
    with pytest.raises(ValueError, match="Fortran format"):
        _formats.parse_fortran_format(text)


def _hb(mxtype="RUA", values=None, valfmt="(2D12.5)", width=12, rhs=None,
        ptr=None):
    """A 3 x 3 Harwell-Boeing file: [[1, 0, -2.5], [0, 3e-7, 0], [4, 0, 0]]
    plus an explicit zero stored at (1, 2). The default values are 12
    characters wide with a sign, so fields abut with no blank between them
    (only fixed-width slicing reads them) and use 'D' exponents."""
    ptr = ptr or "    1    3    4    6"
    ind = "    1    3    2    1    2"
    values = values or ["+0.10000D+01", "+0.40000D+01", "+0.30000D-06",
                        "-0.25000D+01", "+0.00000D+00"]
    vlines = ["".join(v.rjust(width) for v in values[i:i + 2])
              for i in range(0, len(values), 2)]
    rlines = []
    if rhs is not None:
        rlines = ["".join(f"{x:13.5E}" for x in rhs[i:i + 2])
                  for i in range(0, len(rhs), 2)]
    counts = [1, 1, 0 if mxtype[0] == "P" else len(vlines), len(rlines)]
    header = [
        f"{'small test':72s}{'KEY':8s}",
        f"{sum(counts):14d}" + "".join(f"{c:14d}" for c in counts),
        f"{mxtype:3s}{'':11s}{3:14d}{3:14d}{5:14d}{0:14d}",
        f"{'(4I5)':16s}{'(5I5)':16s}{valfmt:20s}{'(2E13.5)':20s}",
    ]
    if rhs is not None:
        header.append(f"{'F':3s}{'':11s}{1:14d}{0:14d}")
    body = [ptr, ind] + ([] if mxtype[0] == "P" else vlines) + rlines
    return ("\n".join(header + body) + "\n").encode()


def test_harwell_boeing_synthetic():
    expected = np.array([[1, 0, -2.5], [0, 3e-7, 0], [4, 0, 0]])
    a, rhs, info = _formats.read_harwell_boeing(_hb(rhs=[1.0, -2.0, 3.5]))
    assert info == {"title": "small test", "key": "KEY", "type": "RUA"}
    assert isinstance(a, scipy.sparse.csc_array)
    assert a.nnz == 5                                # explicit zero kept
    assert a[1, 2] == 0 and 1 in a.indices[a.indptr[2]:a.indptr[3]]
    np.testing.assert_array_equal(a.toarray(), expected)
    np.testing.assert_array_equal(rhs, [[1.0], [-2.0], [3.5]])
    # Without a right-hand side (4 header lines); fields abut.
    raw = _hb()
    assert raw.split(b"\n")[7] == b"+0.30000D-06-0.25000D+01"
    a, rhs, _ = _formats.read_harwell_boeing(raw)
    assert rhs is None
    np.testing.assert_array_equal(a.toarray(), expected)
    # Pattern matrix: ones at the stored positions (the zero included).
    a, _, info = _formats.read_harwell_boeing(_hb("PUA"))
    pattern = (expected != 0).astype(float)
    pattern[1, 2] = 1.0
    assert info["type"] == "PUA"
    np.testing.assert_array_equal(a.toarray(), pattern)


def test_harwell_boeing_matches_scipy_hb_read():
    # A valid fixed-width file without a right-hand side, written here, read
    # by both readers. (Files written by scipy.io.hb_write are not used:
    # SciPy 1.17 declares E25.16 but writes 24-character fields, which a
    # fixed-width reader, like Fortran, rejects.)
    a = scipy.sparse.random(40, 30, density=0.2, random_state=3,
                            format="csc")
    a.data -= 0.5

    def cards(values, per_line, fmt):
        return ["".join(fmt.format(v) for v in values[i:i + per_line])
                for i in range(0, len(values), per_line)]
    ptr = cards(a.indptr + 1, 10, "{:8d}")
    ind = cards(a.indices + 1, 10, "{:8d}")
    val = cards(a.data, 3, "{:26.16E}")
    lines = [
        f"{'random':72s}{'RND':8s}",
        "".join(f"{c:14d}" for c in
                (len(ptr) + len(ind) + len(val), len(ptr), len(ind),
                 len(val), 0)),
        f"RUA{'':11s}{40:14d}{30:14d}{a.nnz:14d}{0:14d}",
        f"{'(10I8)':16s}{'(10I8)':16s}{'(3E26.16)':20s}{'':20s}",
    ] + ptr + ind + val
    raw = ("\n".join(lines) + "\n").encode()
    got, rhs, info = _formats.read_harwell_boeing(raw)
    assert rhs is None and info["type"] == "RUA"
    np.testing.assert_array_equal(got.toarray(), a.toarray())
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.rua")
        with open(path, "wb") as f:
            f.write(raw)
        ref = scipy.io.hb_read(path)
    np.testing.assert_array_equal(got.toarray(), ref.toarray())


@pytest.mark.parametrize("kwargs, match", [
    ({"mxtype": "RSA"}, "type 'RSA' is not supported"),
    ({"mxtype": "CUA"}, "type 'CUA' is not supported"),
    ({"mxtype": "RUE"}, "type 'RUE' is not supported"),
    ({"values": ["1.0", "4.0", "3", "2.0", "0.0"], "valfmt": "(2F13.2)",
      "width": 13}, "without a decimal point"),
    ({"values": ["1.0", "4.0", "3.0", "2.0", "0.0"], "valfmt": "(1P,2E13.5)",
      "width": 13}, "without an exponent"),
    ({"values": ["1.0X", "4.0", "3.0", "2.0", "0.0"], "valfmt": "(2E13.5)",
      "width": 13}, "values: could not convert"),
    ({"valfmt": "(2A13)"}, "Fortran format"),
    ({"ptr": "    1    3    4    7"}, "column pointers"),
    ({"ptr": "    1    3"}, "column pointers: 2 fields found, 4 expected"),
])
def test_harwell_boeing_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        _formats.read_harwell_boeing(_hb(**kwargs))


def test_harwell_boeing_bad_index():
    raw = _hb().replace(b"    1    3    2    1    2", b"    1    4    2    1    2")
    with pytest.raises(ValueError, match="row index is outside 1..3"):
        _formats.read_harwell_boeing(raw)


# ------------------------------------------------------------ chest X-ray ---

def test_chest_xray():
    img = datasets.chest_xray()
    assert img.shape == (1955, 1841) and img.dtype == np.uint16
    assert img.min() == 803 and img.max() == 26512 and img.max() < 2**15
    with np.load(io.BytesIO(_raw("cr_chest_1955x1841.npz"))) as z:
        np.testing.assert_array_equal(img, z["image"])
    img2, meta = datasets.chest_xray(return_metadata=True)
    np.testing.assert_array_equal(img2, img)
    assert meta["photometric_interpretation"] == "MONOCHROME1"
    assert meta["bits_stored"] == 15
    assert meta["window_center"] == 15000.0
    assert meta["window_width"] == 30000.0
    assert meta["pixel_spacing"] is None
    assert meta["lossy_image_compression"] == "01"
    assert "irreversible" in meta["derivation_description"]
    assert all(isinstance(v, (str, int, float, type(None)))
               for v in meta.values())
