"""Tests of gpuscipy.linalg._lu_large (tournament-pivoted blocked LU).

CPU: the NumPy model of the kernels' exact algorithm (chunks, tree, pivots,
row moves) against LAPACK, and NVRTC compiles of every kernel variant.
GPU: getrf_large's factor against the model's reconstruction criteria and
cusolverDnXgetrs solves.
"""

import numpy
import pytest
import scipy.linalg

from gpuscipy.linalg import _lu_large as M


def _perm_apply(a, ipiv):
    pa = numpy.array(a, copy=True)
    for i, p in enumerate(numpy.asarray(ipiv) - 1):
        if p != i:
            pa[[i, p]] = pa[[p, i]]
    return pa


def _recon_err(a, lu, ipiv):
    n = a.shape[0]
    L = numpy.tril(lu, -1) + numpy.eye(n, dtype=lu.dtype)
    U = numpy.triu(lu)
    return numpy.abs(_perm_apply(a, ipiv) - L @ U).max() / max(numpy.abs(a).max(), 1e-300)


def _rand(rng, n, dtype):
    a = rng.standard_normal((n, n))
    if numpy.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal((n, n))
    return a.astype(dtype)


_EPS = {"f": 1.2e-7, "d": 2.2e-16, "F": 1.2e-7, "D": 2.2e-16}


# ------------------------------------------------------------------ model (CPU)

@pytest.mark.parametrize("kind", ["random", "graded", "illcond", "rowscaled"])
@pytest.mark.parametrize("n,nb,rows", [(200, 16, 64), (333, 32, 128)])
def test_model_reconstruction_and_solve(kind, n, nb, rows):
    rng = numpy.random.default_rng(n + len(kind))
    a = rng.standard_normal((n, n))
    if kind == "graded":
        a = a * numpy.logspace(0, -12, n)[None, :]
    elif kind == "illcond":
        u, _ = numpy.linalg.qr(rng.standard_normal((n, n)))
        v, _ = numpy.linalg.qr(rng.standard_normal((n, n)))
        a = (u * numpy.logspace(0, -10, n)) @ v.T
    elif kind == "rowscaled":
        a = a * numpy.logspace(0, 8, n)[:, None]
    lu, ipiv, info = M.model_getrf(a, nb, rows)
    assert info == 0
    assert ipiv.min() >= 1 and ipiv.max() <= n
    assert all(ipiv[i] >= i + 1 for i in range(n))
    assert _recon_err(a, lu, ipiv) < 200 * n * 2.2e-16
    assert numpy.abs(numpy.tril(lu, -1)).max() < 20          # CALU: small |L|
    b = rng.standard_normal(n)
    x = scipy.linalg.lu_solve((lu, ipiv.astype(numpy.int32) - 1), b)
    xr = scipy.linalg.solve(a, b)
    res = numpy.abs(a @ x - b).max() / (numpy.abs(a).max() * numpy.abs(x).max() * n)
    res_ref = numpy.abs(a @ xr - b).max() / (numpy.abs(a).max() * numpy.abs(xr).max() * n)
    assert res < 50 * max(res_ref, 2.2e-16)


def test_model_tree_depth_three():
    # 5 leaves of 64 rows, fan-in 4 -> two merge levels; last leaf short.
    rng = numpy.random.default_rng(3)
    n = 300
    a = rng.standard_normal((n, n))
    assert M._depth(n, 16, 64) == 3
    lu, ipiv, info = M.model_getrf(a, 16, 64)
    assert info == 0 and _recon_err(a, lu, ipiv) < 1e-12


def test_model_complex():
    rng = numpy.random.default_rng(4)
    a = _rand(rng, 150, numpy.complex128)
    lu, ipiv, info = M.model_getrf(a, 16, 64)
    assert info == 0 and _recon_err(a, lu, ipiv) < 1e-12


@pytest.mark.parametrize("col", [0, 37, 149])
def test_model_singular_zero_column(col):
    rng = numpy.random.default_rng(col)
    a = rng.standard_normal((150, 150))
    a[:, col] = 0
    lu, ipiv, info = M.model_getrf(a, 16, 64)
    assert info == col + 1
    assert lu[col, col] == 0
    assert _recon_err(a, lu, ipiv) < 1e-12


def test_model_zero_matrix():
    a = numpy.zeros((70, 70))
    lu, ipiv, info = M.model_getrf(a, 16, 64)
    assert info == 1 and numpy.all(lu == 0)
    assert numpy.array_equal(ipiv, numpy.arange(1, 71))


def test_model_first_max_ties():
    # identical rows: ties go to the smallest row, as LAPACK's i?amax
    a = numpy.ones((40, 40)) + numpy.diag(numpy.arange(40.0))
    lu, ipiv, info = M.model_getrf(a, 16, 64)
    assert _recon_err(a, lu, ipiv) < 1e-12


def test_available_and_configs():
    assert M.available(4096, numpy.float64)
    assert M.available(1024, numpy.complex64)
    assert not M.available(1000, numpy.float64)
    assert not M.available(4096, numpy.int64)
    assert not M.available(4096, numpy.float16)
    for ch, cfgs in M.CONFIGS.items():
        for nb, rows in cfgs:
            assert rows % 32 == 0 and rows % nb == 0 and rows // nb <= 32
            assert M._panel_smem(ch, nb, rows) <= 99 * 1024


# ------------------------------------------------------------ NVRTC (CPU)

def _variants():
    return [pytest.param(ch, nb, rows, id=f"{ch}-{nb}-{rows}")
            for ch, cfgs in M.CONFIGS.items() for nb, rows in cfgs]


def _ptxas_report(src):
    """(cubin bytes, ptxas -v lines) of ``src`` compiled by NVRTC."""
    from cuda.bindings import nvrtc
    from gpuscipy_core._kernel._nvrtc import include_dir
    opts = [b"--gpu-architecture=sm_90", b"-std=c++17",
            f"-I{include_dir()}".encode(), b"--ptxas-options=-v"]
    err, prog = nvrtc.nvrtcCreateProgram(src.encode(), b"k.cu", 0, [], [])
    try:
        err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        _, csize = nvrtc.nvrtcGetCUBINSize(prog)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    return csize, log.decode(errors="replace").splitlines()


@pytest.mark.parametrize("ch", "fdFD")
def test_default_config_compact_and_no_spills(ch):
    # the default panel kernel keeps its rows in registers without spilling
    # and its step loops rolled: fully unrolled loops made 0.24-0.57 MB of
    # code fetched cold once per panel (~2-4 us per step on an H200)
    nb, rows = M.config(ch)
    size, lines = _ptxas_report(M.panel_source(ch, nb, rows)[0])
    spills = [ln for ln in lines if "spill" in ln]
    if not spills:
        pytest.skip("this NVRTC's ptxas -v reports no spill line")
    assert all(" 0 bytes spill stores" in ln for ln in spills), spills
    assert size < 200_000
    size, _ = _ptxas_report(M.swap_source(ch, nb)[0])
    assert size < 60_000


@pytest.mark.parametrize("ch,nb,rows", _variants())
def test_nvrtc_panel(ch, nb, rows):
    from gpuscipy_core._kernel._nvrtc import compile_cubin
    src, name = M.panel_source(ch, nb, rows)
    assert name in src
    assert compile_cubin(src, name, ())


@pytest.mark.parametrize("ch", "fdFD")
@pytest.mark.parametrize("which", [0, -1])
def test_nvrtc_swap(ch, which):
    from gpuscipy_core._kernel._nvrtc import compile_cubin
    nb = M.CONFIGS[ch][which][0]
    src, name = M.swap_source(ch, nb)
    assert compile_cubin(src, name, ())


def test_bad_config():
    with pytest.raises(ValueError):
        M.panel_source("d", 64, 512)
    with pytest.raises(TypeError):
        M.panel_source("i", 64, 256)


# ------------------------------------------------------------------ GPU

def _gpu_factor(a_host, **kw):
    import gpuscipy_core as gp
    a = gp.asarray(numpy.asfortranarray(a_host))
    if not a.strides[0] == a.itemsize:
        a = gp.asfortranarray(a)
    ipiv, info = M.getrf_large(a, **kw)
    return gp.asnumpy(a), gp.asnumpy(ipiv), int(gp.asnumpy(info)[0]), a, ipiv


def _gpu_solve(lu_dev, ipiv_dev, b_host):
    import gpuscipy_core as gp
    from gpuscipy.linalg import _solve_dense
    b = gp.asarray(numpy.asfortranarray(b_host))
    _solve_dense.getrs(lu_dev, ipiv_dev, b)
    return gp.asnumpy(b)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
@pytest.mark.parametrize("n", [1024, 1500, 4096])
def test_gpu_reconstruction_and_solve(dtype, n):
    if n == 4096 and dtype in "FD":
        n = 2048      # keep the host-side check quick
    rng = numpy.random.default_rng(n)
    a = _rand(rng, n, dtype)
    lu, ipiv, info, lu_dev, ipiv_dev = _gpu_factor(a)
    assert info == 0
    assert ipiv.dtype == numpy.int64 and ipiv.shape == (n,)
    assert ipiv.min() >= 1 and ipiv.max() <= n
    assert numpy.all(ipiv >= numpy.arange(1, n + 1)), "ipiv must be a LAPACK swap sequence"
    eps = _EPS[dtype]
    err = _recon_err(a.astype(numpy.complex128 if dtype in "FD" else numpy.float64),
                     lu.astype(numpy.complex128 if dtype in "FD" else numpy.float64), ipiv)
    assert err < 5 * n * eps, f"reconstruction {err:.3g}"
    assert numpy.abs(numpy.tril(lu, -1)).max() < 50
    b = _rand(rng, n, dtype)[:, 0]
    x = _gpu_solve(lu_dev, ipiv_dev, b)
    ad = a.astype(numpy.complex128 if dtype in "FD" else numpy.float64)
    xr = numpy.linalg.solve(ad, b)
    res = numpy.abs(ad @ x - b).max() / (numpy.abs(ad).max() * numpy.abs(x).max() * n)
    assert res < 10 * eps, f"backward error {res:.3g}"
    assert numpy.abs(x - xr).max() / numpy.abs(xr).max() < 1e4 * n * eps


@pytest.mark.gpu
def test_gpu_matches_model_exactly_structured():
    # pivots are a pure function of the algorithm: the model's pivots must be
    # the GPU's on a matrix whose pivot choices are not near ties
    n = 1024
    rng = numpy.random.default_rng(11)
    a = rng.standard_normal((n, n)) * numpy.logspace(0, 3, n)[:, None]
    rng.shuffle(a)
    lu, ipiv, info, _, _ = _gpu_factor(a)
    nb, rows = M.config("d")
    # (the full model at n=1024 is slow on the host; compare the first panel)
    P = numpy.array(a[:, :nb], order="F")
    seq, piv, disp, zero = M._model_panel(P, nb, nb, rows)
    assert numpy.array_equal(ipiv[:nb], numpy.asarray(seq) + 1)
    # later panels' interchanges move whole rows, the first nb columns of L
    # included (LAPACK's laswp): apply them to the model's panel
    for i in range(nb, n):
        j = int(ipiv[i]) - 1
        if j != i:
            P[[i, j]] = P[[j, i]]
    assert numpy.allclose(lu[:, :nb], P, rtol=1e-10, atol=1e-12 * numpy.abs(a).max())
    assert info == 0


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["d", "F"])
@pytest.mark.parametrize("col", [0, 700, 1499])
def test_gpu_singular_zero_column(dtype, col):
    n = 1500
    rng = numpy.random.default_rng(col)
    a = _rand(rng, n, dtype)
    a[:, col] = 0
    lu, ipiv, info, _, _ = _gpu_factor(a)
    assert info == col + 1
    assert lu[col, col] == 0
    assert not numpy.isnan(lu).any()


@pytest.mark.gpu
def test_gpu_zero_matrix():
    lu, ipiv, info, _, _ = _gpu_factor(numpy.zeros((1024, 1024)))
    assert info == 1 and numpy.all(lu == 0)
    assert numpy.array_equal(ipiv, numpy.arange(1, 1025))


@pytest.mark.gpu
@pytest.mark.parametrize("ch", "fdFD")
def test_gpu_every_config(ch):
    n = 1100
    rng = numpy.random.default_rng(5)
    a = _rand(rng, n, ch)
    for nb, rows in M.CONFIGS[ch]:
        lu, ipiv, info, _, _ = _gpu_factor(a, nb=nb, rows=rows)
        assert info == 0
        big = numpy.complex128 if ch in "FD" else numpy.float64
        err = _recon_err(a.astype(big), lu.astype(big), ipiv)
        assert err < 5 * n * _EPS[ch], (nb, rows, err)


@pytest.mark.gpu
def test_gpu_repeated_calls_and_padded_lda():
    # a column-major view with lda > n, twice in a row (workspace counters reset)
    import gpuscipy_core as gp
    n = 1030
    rng = numpy.random.default_rng(9)
    big = numpy.asfortranarray(rng.standard_normal((n + 7, n)))
    for _ in range(2):
        d = gp.asarray(big)
        view = d[:n, :]
        ipiv, info = M.getrf_large(view)
        lu = gp.asnumpy(d)[:n, :]
        assert int(gp.asnumpy(info)[0]) == 0
        assert _recon_err(big[:n], lu, gp.asnumpy(ipiv)) < 5 * n * 2.2e-16
        assert numpy.array_equal(gp.asnumpy(d)[n:], big[n:])
