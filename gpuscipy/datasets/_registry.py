"""The data files shipped in ``gpuscipy/datasets/_data`` and their digests.

Every file is package data (``[tool.setuptools.package-data]`` in
``pyproject.toml``), so wheels, sdists and editable installs all carry it and
no download ever happens. The digests are checked by the test suite, not on
every load (hashing would add a few milliseconds per call for no benefit to a
correct installation; :func:`verify` does it on demand).
"""

import gzip
import hashlib
import importlib.resources

__all__ = ["SHA256", "SHA256_GUNZIPPED", "data_file", "read_bytes", "verify"]

# sha256 of each file exactly as shipped.
SHA256 = {
    "ecg_mitbih208.npz":
        "a4edf374497d665cb447ae3fd6d46e7b56bdcbcf2c414f44b391755e40ec55e0",
    "mni152_t1.nii.gz":
        "421a10e872fd6cadae7f61d358dffbcc1795a497d61ee76c5dda2503e1a1e9e6",
    "mni152_gm.nii.gz":
        "97a5ca69bd24db37a9cb7b32525e1733a209af904129bf1cd36da06d24243bed",
    "mni152_wm.nii.gz":
        "382d92812de4744f9c86c7a0e4f680dc317a0a50e4da1f0153618a6798c7b7db",
    "mdual.graph.gz":
        "55ed9afcbd5ae521b4033f0ad4af3f024602570b91d9045096b99324f5a784c3",
    "copter2.graph.gz":
        "35048694b4d0082d25407afa36ad540ed7335dd25cf48d21caa72fe36b58e790",
    "4elt.graph.gz":
        "e550e92012fc705c6b758583fae9b7eda5e2b1b9656f3d52646fefe3df98d45d",
    "add32.rua.gz":
        "4f0f4f00d89fff0183c89533157643d680461dcc942a7f027a77012d27ea9e4f",
    "cr_chest_1955x1841.npz":
        "84f341d91eb9491e6b5e7c046971460c97b5529e0a78d5b96f4c6b42f8ea8a36",
}

# sha256 of the decompressed payload of the files gzipped for gpuscipy
# (``gzip -9n``): these equal the digests of the members of the donor
# packages (Debian libmetis-doc 5.1.0.dfsg-7, libsuperlu-dist-dev
# 8.1.2+dfsg1-1+b1), so the content is unmodified.
SHA256_GUNZIPPED = {
    "mdual.graph.gz":
        "fed97c608a1611ae1a4604620913e32c16ecd815550df1c1819fe492986c27b0",
    "copter2.graph.gz":
        "e073b74b349eac2887e4b963cf21a89f4bcd6d2860265ef1c049101cf72fa778",
    "4elt.graph.gz":
        "8a5819a9d05133a8706ac44fd83919c6570ab838fba35b0fb5c78f0ee7803285",
    "add32.rua.gz":
        "cfaf152249717f7d320677f71783acb642de09adada960387325f7145323613f",
}


def data_file(name):
    """The packaged file ``name`` as an ``importlib.resources`` Traversable."""
    if name not in SHA256:
        raise KeyError(f"{name!r} is not a gpuscipy.datasets data file")
    return importlib.resources.files(__package__) / "_data" / name


def read_bytes(name, decompress=True):
    """Contents of the packaged file ``name``; ``.gz`` files are gunzipped
    unless ``decompress`` is False."""
    raw = data_file(name).read_bytes()
    if decompress and name.endswith(".gz"):
        return gzip.decompress(raw)
    return raw


def verify():
    """Check every packaged file against its sha256 (and the gunzipped
    payload of the files compressed here). Returns the list of mismatches
    as ``(name, kind, expected, actual)``; empty when all agree."""
    bad = []
    for name, expected in SHA256.items():
        raw = read_bytes(name, decompress=False)
        actual = hashlib.sha256(raw).hexdigest()
        if actual != expected:
            bad.append((name, "file", expected, actual))
        if name in SHA256_GUNZIPPED:
            actual = hashlib.sha256(gzip.decompress(raw)).hexdigest()
            if actual != SHA256_GUNZIPPED[name]:
                bad.append((name, "gunzipped", SHA256_GUNZIPPED[name], actual))
    return bad
