"""Loaders of the real data sets shipped with gpuscipy.

Like ``scipy.datasets``, every loader returns host objects (NumPy arrays,
SciPy sparse arrays), so they work without a GPU; move them to the device
with ``gpuscipy_core.asarray`` (or the sparse module's constructors). Unlike
``scipy.datasets`` nothing is downloaded: the files are package data.
Nothing is cached either: each call reads and decodes the file again and
returns new, writable arrays that the caller owns.
"""

import io
from typing import NamedTuple

import numpy as np

from ._formats import read_harwell_boeing, read_metis_graph, read_nifti1
from ._registry import read_bytes

__all__ = ["electrocardiogram", "mni152", "mesh_graph", "add32",
           "chest_xray", "MNI152Template"]


def _npz(name):
    return np.load(io.BytesIO(read_bytes(name)), allow_pickle=False)


# ------------------------------------------------------------------- ECG ---

def electrocardiogram():
    """Load a 5-minute electrocardiogram (ECG) recorded at 360 Hz.

    The same data and values as ``scipy.datasets.electrocardiogram()``
    (and the former ``scipy.misc.electrocardiogram()``), read from the
    package instead of downloaded.

    Returns
    -------
    ecg : ndarray, shape (108000,), float64
        The ECG in millivolts (mV), sampled at 360 Hz: 300 s of record 208
        of the MIT-BIH Arrhythmia Database, lead MLII, from 19:35 to
        24:35 of the record. The file stores the 11-bit ADC counts
        ``raw`` (uint16); the result is ``(raw - 1024) / 200``
        (ADC zero 1024, gain 200 counts per mV).

    Notes
    -----
    The excerpt contains normal beats, premature ventricular
    contractions (PVCs) and stretches of noise, which makes it a useful
    test signal for filtering, peak finding and spectral analysis (see
    PhysioNet's notes on record 208 for the beat annotations). The mean
    is -0.16510875 mV and the standard deviation 0.599247 mV.

    Data: MIT-BIH Arrhythmia Database, distributed by PhysioNet
    (https://physionet.org/content/mitdb/1.0.0/) under the Open Data
    Commons Attribution License v1.0 (ODC-By 1.0). Taken from SciPy 1.9.3
    (``scipy/misc/ecg.dat``). Attribution: ``LICENSES/ODC-By-1.0-MIT-BIH.txt``.

    References
    ----------
    .. [1] G. B. Moody and R. G. Mark, "The impact of the MIT-BIH
           Arrhythmia Database", IEEE Eng. in Med. and Biol. 20(3):45-50
           (May-June 2001). PMID: 11446209.
    .. [2] A. L. Goldberger, L. A. N. Amaral, L. Glass, J. M. Hausdorff,
           P. Ch. Ivanov, R. G. Mark, J. E. Mietus, G. B. Moody, C.-K.
           Peng and H. E. Stanley, "PhysioBank, PhysioToolkit, and
           PhysioNet: Components of a New Research Resource for Complex
           Physiologic Signals", Circulation 101(23):e215-e220 (2000).

    Examples
    --------
    >>> from gpuscipy import datasets
    >>> ecg = datasets.electrocardiogram()
    >>> ecg.shape, ecg.dtype
    ((108000,), dtype('float64'))
    >>> fs = 360  # Hz
    >>> ecg.size / fs  # seconds
    300.0
    """
    with _npz("ecg_mitbih208.npz") as z:
        raw = z["ecg"]
        adc_zero = int(z["adc_zero"])
        adc_gain = float(z["adc_gain"])
    return (raw.astype(np.int64) - adc_zero) / adc_gain


# ----------------------------------------------------------------- MNI152 ---

class MNI152Template(NamedTuple):
    """The MNI ICBM152 2009a template returned by :func:`mni152`.

    Attributes
    ----------
    t1 : ndarray, shape (197, 233, 189), uint8
        T1-weighted template, skull-stripped, intensities 0-255
        (arbitrary units).
    gm : ndarray, shape (197, 233, 189), uint8
        Grey-matter probability map; probability = ``gm / 255``.
    wm : ndarray, shape (197, 233, 189), uint8
        White-matter probability map; probability = ``wm / 255``.
    affine : ndarray, shape (4, 4), float64
        Voxel index ``(i, j, k, 1)`` to MNI coordinates in mm.
    voxel_size : tuple of 3 float
        ``(1.0, 1.0, 1.0)`` mm.
    """
    t1: np.ndarray
    gm: np.ndarray
    wm: np.ndarray
    affine: np.ndarray
    voxel_size: tuple


_MNI152_KINDS = ("t1", "gm", "wm")


def _mni152_volume(kind):
    return read_nifti1(read_bytes(f"mni152_{kind}.nii.gz"))


def mni152(kind=None):
    """Load the MNI ICBM152 2009a brain template (T1, grey and white matter).

    Parameters
    ----------
    kind : {None, 't1', 'gm', 'wm'}, optional
        None (default) loads all three volumes and returns an
        :class:`MNI152Template`; a name loads and returns only that volume.

    Returns
    -------
    template : MNI152Template or ndarray
        With ``kind=None``, a named tuple ``(t1, gm, wm, affine,
        voxel_size)``:

        - ``t1``: T1-weighted template, skull-stripped, uint8 0-255
          (arbitrary units, rescaled by nilearn),
        - ``gm``, ``wm``: grey- and white-matter probability maps, uint8
          0-255 (probability = value / 255),
        - ``affine``: (4, 4) float64 matrix from voxel index ``(i, j, k,
          1)`` to MNI coordinates in mm (the files' sform), here
          ``(x, y, z) = (i - 98, j - 134, k - 72)``,
        - ``voxel_size``: ``(1.0, 1.0, 1.0)`` mm.

        Each volume has shape (197, 233, 189), indexed ``[x, y, z]`` in
        RAS orientation (x grows to the subject's right, y to anterior, z
        to superior), as C-contiguous uint8. With ``kind`` given, only
        that (197, 233, 189) uint8 volume.

    Raises
    ------
    ValueError
        If ``kind`` is not None, 't1', 'gm' or 'wm'.

    Notes
    -----
    The ICBM 2009a nonlinear symmetric template (an unbiased average of
    152 adult MRI scans registered nonlinearly; "symmetric" means it is
    mirror-symmetric about the mid-sagittal plane x = 0, i.e. voxel
    column i = 98), 1 mm isotropic, as packaged by nilearn 0.14.1
    (``mni_icbm152_{t1,gm,wm}_tal_nlin_sym_09a_converted.nii.gz``). The
    NIfTI-1 files are decoded here with NumPy (no nibabel needed); each
    volume is 8.7 MB in memory, about 45 ms to decode.

    Licence: "Copyright (C) 1993-2009 Louis Collins, McConnell Brain
    Imaging Centre, Montreal Neurological Institute, McGill University.
    Permission to use, copy, modify, and distribute this software and its
    documentation for any purpose and without fee is hereby granted,
    provided that the above copyright notice appear in all copies. ..."
    (full notice: ``LICENSES/MNI-ICBM152-notice.txt``).

    References
    ----------
    .. [1] V. S. Fonov, A. C. Evans, R. C. McKinstry, C. R. Almli and
           D. L. Collins, "Unbiased nonlinear average age-appropriate brain
           templates from birth to adulthood", NeuroImage 47, Suppl. 1,
           S102 (2009).
    .. [2] V. S. Fonov, A. C. Evans, K. Botteron, C. R. Almli,
           R. C. McKinstry, D. L. Collins and BDCG, "Unbiased average
           age-appropriate atlases for pediatric studies", NeuroImage
           54(1), 313-327 (2011).
    .. [3] D. L. Collins, A. P. Zijdenbos, W. F. C. Baare and A. C. Evans,
           "ANIMAL+INSECT: improved cortical structure segmentation",
           IPMI 1999.

    Examples
    --------
    >>> from gpuscipy import datasets
    >>> mni = datasets.mni152()
    >>> mni.t1.shape, mni.t1.dtype
    ((197, 233, 189), dtype('uint8'))
    >>> mni.affine @ [98, 134, 72, 1]  # the voxel at the origin of MNI space
    array([0., 0., 0., 1.])
    >>> gm_probability = datasets.mni152('gm') / 255.0
    """
    if kind is not None:
        if kind not in _MNI152_KINDS:
            raise ValueError(f"mni152: kind must be None, 't1', 'gm' or 'wm', "
                             f"not {kind!r}")
        return _mni152_volume(kind)[0]
    volumes = {}
    for name in _MNI152_KINDS:
        volumes[name], header = _mni152_volume(name)
    return MNI152Template(affine=header["affine"],
                          voxel_size=header["voxel_size"], **volumes)


# ------------------------------------------------------------ METIS mesh ---

_MESH_GRAPHS = {"mdual": "mdual.graph.gz", "copter2": "copter2.graph.gz",
                "4elt": "4elt.graph.gz"}


def mesh_graph(name):
    """Load a finite-element mesh graph from the METIS examples.

    Parameters
    ----------
    name : {'mdual', 'copter2', '4elt'}
        Which graph:

        ========= ========= ========= ============= ======== ==============
        name      vertices  edges     stored (2 m)  degree   mesh
        ========= ========= ========= ============= ======== ==============
        'mdual'   258,569   513,132   1,026,264     3-4      dual of a 3-D
                                                             mesh
        'copter2' 55,476    352,238   704,476       3-44     3-D mesh
                                                             (helicopter)
        '4elt'    7,434     43,031    86,062        3-17     2-D mesh
        ========= ========= ========= ============= ======== ==============

    Returns
    -------
    adjacency : scipy.sparse.csr_array, shape (n, n), float64
        The symmetric adjacency matrix: entry (i, j) is 1.0 when vertices
        i and j share an edge; no diagonal. Canonical format (sorted
        column indices, no duplicates), int32 indices. Every graph is one
        connected component; none has weights or coordinates.

    Raises
    ------
    ValueError
        If ``name`` is not one of the names above.

    Notes
    -----
    The graphs ship with METIS 5.1.0 (``examples/graphs/*.graph``; METIS's
    README: "small to medium size graphs corresponding to 2D and 3D finite
    element mesh"), taken from Debian's libmetis-doc 5.1.0.dfsg-7. Typical
    uses: graph partitioning and reordering (reverse Cuthill-McKee,
    nested dissection), graph Laplacians and sparse matrix-vector
    products with realistic sparsity patterns. The METIS text format is
    parsed with vectorised NumPy (about 0.2 s for 'mdual').

    Licence: METIS, Copyright 1995-2013, Regents of the University of
    Minnesota, Apache License 2.0 (``LICENSES/Apache-2.0.txt``).

    References
    ----------
    .. [1] G. Karypis and V. Kumar, "A fast and high quality multilevel
           scheme for partitioning irregular graphs", SIAM J. Sci.
           Comput. 20(1), 359-392 (1998).
    .. [2] G. Karypis, "METIS: A Software Package for Partitioning
           Unstructured Graphs, Partitioning Meshes, and Computing
           Fill-Reducing Orderings of Sparse Matrices, Version 5.1.0",
           University of Minnesota (2013), section 4.1.1 (graph file
           format).

    Examples
    --------
    >>> from gpuscipy import datasets
    >>> a = datasets.mesh_graph('4elt')
    >>> a.shape, a.nnz
    ((7434, 7434), 86062)
    >>> int(a.sum(axis=1).max())  # largest vertex degree
    17
    """
    if not isinstance(name, str) or name not in _MESH_GRAPHS:
        raise ValueError(f"mesh_graph: unknown graph {name!r}; valid names "
                         "are 'mdual', 'copter2', '4elt'")
    return read_metis_graph(read_bytes(_MESH_GRAPHS[name]))


# ----------------------------------------------------------------- add32 ---

def add32(return_rhs=False):
    """Load the sparse matrix add32 (a 32-bit adder circuit), 4960 x 4960.

    Parameters
    ----------
    return_rhs : bool, optional
        Also return the right-hand side stored in the file (default False).

    Returns
    -------
    a : scipy.sparse.csc_array, shape (4960, 4960), float64
        Real unsymmetric matrix with 23,884 stored entries, kept exactly as
        the file stores them: 4,036 of them are explicit zeros, which stay
        stored (call ``a.eliminate_zeros()`` to drop them; 19,848 entries
        are non-zero). Row indices are sorted within each column. The
        pattern of stored entries is structurally symmetric, the whole
        diagonal is non-zero, and the 2-norm condition number is about
        137.
    b : ndarray, shape (4960,), float64
        Only with ``return_rhs=True``: the file's right-hand side. All its
        entries are tiny (``abs(b) <= 1.3e-14``), so for solver tests
        build your own (e.g. ``b = a @ x_true``).

    Notes
    -----
    SuiteSparse Matrix Collection matrix Hamm/add32 (circuit simulation,
    Steve Hamm, Motorola), as the file ``EXAMPLE/big.rua`` of SuperLU_DIST
    8.1.2 (Debian libsuperlu-dist-dev 8.1.2+dfsg1-1+b1). Its Harwell-Boeing
    text is parsed here from the Fortran formats in its header
    (``(13i6) (16i5) (3e26.18) (3e26.18)``); ``scipy.io.hb_read`` refuses
    this file because it carries a right-hand side.

    Licence: SuperLU_DIST, BSD-3-Clause, Copyright (c) 2003-2017 Xiaoye
    Sherry Li; Copyright (c) 1999, 2003, The Regents of the University of
    California, through Lawrence Berkeley National Laboratory (full text:
    ``LICENSES/BSD-3-Clause-SuperLU_DIST.txt``).

    References
    ----------
    .. [1] T. A. Davis and Y. Hu, "The University of Florida Sparse Matrix
           Collection", ACM Transactions on Mathematical Software 38(1),
           1:1-1:25 (2011).
    .. [2] I. S. Duff, R. G. Grimes and J. G. Lewis, "Users' guide for the
           Harwell-Boeing sparse matrix collection (Release I)", Technical
           Report TR/PA/92/86, CERFACS (1992).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.sparse.linalg import spsolve
    >>> from gpuscipy import datasets
    >>> a = datasets.add32()
    >>> a.shape, a.nnz
    ((4960, 4960), 23884)
    >>> x_true = np.ones(a.shape[0])
    >>> x = spsolve(a, a @ x_true)
    >>> bool(np.allclose(x, x_true))
    True
    """
    matrix, rhs, _ = read_harwell_boeing(read_bytes("add32.rua.gz"))
    if return_rhs:
        return matrix, rhs[:, 0].copy()
    return matrix


# ------------------------------------------------------------- chest X-ray ---

def chest_xray(return_metadata=False):
    """Load a computed-radiography chest X-ray (PA view), 1955 x 1841 uint16.

    Parameters
    ----------
    return_metadata : bool, optional
        Also return the display attributes and provenance as a dict
        (default False).

    Returns
    -------
    image : ndarray, shape (1955, 1841), uint16
        Pixel values indexed ``[row, column]``, 15 bits stored (range
        803-26512; arbitrary detector units). The photometric
        interpretation is MONOCHROME1: LOW values are displayed WHITE
        (invert for a conventional view). No physical pixel spacing is
        known (the DICOM PixelSpacing tag reads 0).
    metadata : dict
        Only with ``return_metadata=True``:
        ``photometric_interpretation`` ('MONOCHROME1'), ``bits_stored``
        (15), ``window_center`` (15000.0), ``window_width`` (30000.0),
        ``pixel_spacing`` (None), ``lossy_image_compression`` ('01'),
        ``derivation_description`` ('JPEG 2000 irreversible (lossy)
        10:1'), ``source`` (a sentence naming the original file).

    Notes
    -----
    NEMA DICOM WG04 sample image ``RG1_UNCI``, from pydicom-data 1.0.0
    (``data_store/data/RG1_UNCI.dcm``, written by GDCM 2.8.4), decoded with
    pydicom 3.0.2. Lossy history: ``UNCI`` is the uncompressed copy of the
    *irreversibly* compressed version of the image (JPEG 2000, 10:1), so
    it carries compression artefacts; it is real data, not a pristine
    detector readout. Suitable for filtering, windowing, histogram and
    morphology work on a large 16-bit image.

    Licence: pydicom-data, MIT, Copyright (c) 2020 Dicom in Python
    (``LICENSES/MIT-pydicom-data.txt``); GDCM, BSD-3-Clause, Copyright (c)
    2006-2016 Mathieu Malaterre, Copyright (c) 1993-2005 CREATIS
    (``LICENSES/BSD-3-Clause-GDCM.txt``).

    References
    ----------
    .. [1] NEMA DICOM Working Group 04 (Compression) test image set,
           ftp://medical.nema.org/MEDICAL/Dicom/DataSets/WG04 (image
           RG1, versions UNCR/UNCI/J2KR/J2KI).

    Examples
    --------
    >>> import numpy as np
    >>> from gpuscipy import datasets
    >>> img, meta = datasets.chest_xray(return_metadata=True)
    >>> img.shape, img.dtype, meta['photometric_interpretation']
    ((1955, 1841), dtype('uint16'), 'MONOCHROME1')
    >>> lo = meta['window_center'] - meta['window_width'] / 2
    >>> view = 1 - np.clip((img - lo) / meta['window_width'], 0, 1)  # white bone
    """
    with _npz("cr_chest_1955x1841.npz") as z:
        image = z["image"]
        if not return_metadata:
            return image
        metadata = {
            "photometric_interpretation": str(z["photometric"]),
            "bits_stored": int(z["bits_stored"]),
            "window_center": float(z["window_center"]),
            "window_width": float(z["window_width"]),
            "pixel_spacing": None,
            "lossy_image_compression": "01",
            "derivation_description": "JPEG 2000 irreversible (lossy) 10:1",
            "source": ("NEMA DICOM WG04 RG1_UNCI.dcm (pydicom-data 1.0.0), "
                       "written by GDCM 2.8.4"),
        }
    return image, metadata
