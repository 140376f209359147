"""
Real data sets for tests, demos and benchmarks (:mod:`gpuscipy.datasets`)
========================================================================

Measured and recorded data shipped inside the package, in the spirit of
``scipy.datasets``: each loader returns host objects (NumPy arrays or SciPy
sparse arrays), so it works without a GPU; move the result to the device
with ``gpuscipy_core.asarray``. The files are package data: nothing is
downloaded (no pooch), and nothing is cached (each call decodes the file
again and returns arrays the caller owns).

Signals
-------
electrocardiogram
    5 minutes of ECG (MIT-BIH record 208, lead MLII), 360 Hz, mV,
    float64 (108000,). Same values as ``scipy.datasets.electrocardiogram``.

Images and volumes
------------------
mni152
    MNI ICBM152 2009a brain template: T1, grey- and white-matter maps,
    uint8 (197, 233, 189) [x, y, z], 1 mm voxels, with the affine.
chest_xray
    Computed-radiography chest X-ray, uint16 (1955, 1841), MONOCHROME1,
    15 bits stored (lossy JPEG 2000 history), with optional metadata.

Sparse matrices and graphs
--------------------------
mesh_graph
    METIS finite-element mesh graphs 'mdual' (258,569 vertices),
    'copter2' (55,476) and '4elt' (7,434) as symmetric CSR adjacency.
add32
    SuiteSparse Hamm/add32 circuit matrix, 4960 x 4960 CSC, 23,884
    stored entries, with its right-hand side on request.

Each loader's docstring gives shapes, dtypes, units, provenance, licence
and citations; ``docs/datasets.md`` has the table, and
``LICENSES/ATTRIBUTION.md`` (also shipped as
``gpuscipy/datasets/_data/LICENSES/ATTRIBUTION.md``) the notices that must
travel with the data.
"""

from ._loaders import (MNI152Template, add32, chest_xray, electrocardiogram,
                       mesh_graph, mni152)

__all__ = ["electrocardiogram", "mni152", "chest_xray", "mesh_graph",
           "add32"]

# Public functions report their public home.
for _name in __all__:
    globals()[_name].__module__ = __name__
MNI152Template.__module__ = __name__
del _name
