"""gpuscipy_core.random: Philox4x32-10 against the Random123 known answers
and a NumPy reference, reproducibility, independence from the launch
configuration, statistics, ranges, dtypes and NumPy's errors.

The CPU tests (no marker) cover the reference implementation, the NVRTC
compile of every kernel variant and the argument checks that raise before
any device work; the rest carries the ``gpu`` marker.
"""

import numpy as np
import pytest

import gpuscipy_core as gp
from gpuscipy_core.random import Generator, Philox, default_rng
from gpuscipy_core.random import _kernels as K

gpu = pytest.mark.gpu

# ------------------------------------------------------------- reference

_M32 = np.uint64(0xFFFFFFFF)


def philox_ref(counters, key):
    """Philox4x32-10 in NumPy: ``counters`` (N, 4) words, ``key`` (k0, k1)
    -> (N, 4) uint32 words."""
    c = [np.asarray(counters, dtype=np.uint64)[:, i].copy() for i in range(4)]
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    m0, m1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    w0, w1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)
    for r in range(10):
        if r:
            k0 = (k0 + w0) & _M32
            k1 = (k1 + w1) & _M32
        p0 = m0 * c[0]
        p1 = m1 * c[2]
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ k0, p1 & _M32,
             (p0 >> np.uint64(32)) ^ c[3] ^ k1, p0 & _M32]
    return np.stack(c, axis=1).astype(np.uint32)


def stream_ref(key, counter, nblocks):
    """Blocks ``counter .. counter + nblocks - 1`` of the stream of ``key``."""
    ctr = [counter + j for j in range(nblocks)]
    words = np.array([[(c >> (32 * i)) & 0xFFFFFFFF for i in range(4)] for c in ctr],
                     dtype=np.uint64)
    return philox_ref(words, (key & 0xFFFFFFFF, key >> 32))


def uniform_f64_ref(w):
    w = w.astype(np.uint64).reshape(-1, 2)
    return ((w[:, 0] >> np.uint64(5)).astype(np.float64) * 67108864.0
            + (w[:, 1] >> np.uint64(6)).astype(np.float64)) * 2.0 ** -53


def uniform_f32_ref(w):
    return ((w.astype(np.uint32) >> np.uint32(8)).astype(np.float32)
            * np.float32(2.0 ** -24))


def box_muller_ref(u, turns):
    """Exact (float64) Box-Muller of radius uniforms ``u`` and angles
    ``turns`` (fractions of a full turn): interleaved (r cos, r sin)."""
    r = np.sqrt(-2.0 * np.log(u))
    th = 2 * np.pi * turns
    return np.stack([r * np.cos(th), r * np.sin(th)], axis=1).reshape(-1)


def normal_f32_ref(w):
    """The float32 normals of words ``w`` (pairs (radius word, angle word)):
    u = ((a >> 8) | 1) 2^-24, angle (b & ~0xff) 2^-32 turns."""
    w = w.astype(np.uint64).reshape(-1, 2)
    u = ((w[:, 0] >> np.uint64(8)) | np.uint64(1)).astype(np.float64) * 2.0 ** -24
    turns = (w[:, 1] & np.uint64(0xFFFFFF00)).astype(np.float64) * 2.0 ** -32
    return box_muller_ref(u, turns)


def normal_f64_ref(w):
    """The float64 normals of words ``w`` (blocks of 4): u = (2K + 1) 2^-53,
    K = (w1 >> 12 : w0); angle (w3 : w2) with its low 11 bits dropped."""
    w = w.astype(np.uint64).reshape(-1, 4)
    k = ((w[:, 1] >> np.uint64(12)) << np.uint64(32)) | w[:, 0]
    u = (2 * k + 1).astype(np.float64) * 2.0 ** -53          # exact: < 2^53
    a = ((w[:, 3] << np.uint64(32)) | w[:, 2]) >> np.uint64(11)
    turns = a.astype(np.float64) * 2.0 ** -53                 # exact: 53 bits
    return box_muller_ref(u, turns)


def lemire_ref(words, attempt, rng_size, max_attempts=200):
    """One element of ``integers``: the two candidates of its block, then
    those of the retry blocks ``attempt(1), attempt(2), ...`` (computed
    lazily: for a range just above 2**63 a candidate is rejected with
    probability ~1/2, so long retry chains occur in a few hundred draws)."""
    def cands(w):
        return [int(w[0]) | (int(w[1]) << 32), int(w[2]) | (int(w[3]) << 32)]
    a = 0
    while a <= max_attempts:
        for x in cands(words):
            if rng_size == 0:
                return x
            m = x * rng_size
            lo = m & ((1 << 64) - 1)
            if lo < rng_size and lo < ((1 << 64) - rng_size) % rng_size:
                continue
            return m >> 64
        a += 1
        words = attempt(a)
    raise AssertionError("reference ran out of attempts")


KAT = [  # Random123 kat_vectors: counter[4], key[2] -> output[4]
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


def _ctr_key(ctr, key):
    c = ctr[0] | (ctr[1] << 32) | (ctr[2] << 64) | (ctr[3] << 96)
    return c, key[0] | (key[1] << 32)


# ------------------------------------------------------------- CPU tests

@pytest.mark.parametrize("ctr,key,expected", KAT)
def test_reference_matches_kat(ctr, key, expected):
    out = philox_ref(np.array([ctr]), key)
    assert tuple(int(v) for v in out[0]) == expected


def test_kernels_compile():
    # every instance the generator launches, compiled as it is loaded: one
    # program per name expression of the one source (NVRTC only, no GPU)
    from gpuscipy_core._kernel._nvrtc import compile_program
    from gpuscipy_core._kernel._ufunc_names import ctype
    variants = K.variants()
    names = [name for _, name in variants]
    assert len(set(names)) == len(names) == 2 * len(K.UNIT) + 9 + 1 + 4
    assert len({src for src, _ in variants}) == 1
    listed = set(variants)
    for kind, code in K.UNIT:
        for vec in (False, True):
            assert K.philox_source(kind, code, vec) in listed
    for dt in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
               "uint32", "uint64"):
        dt = np.dtype(dt)
        assert K.integers_source(ctype(dt), dt.str[1:]) in listed
    assert K.choice_p_source() in listed
    for w in (1, 2, 4, 8):
        assert K.take_rows_source(w) in listed
    for src, name in variants:
        _, lowered = compile_program(src, "random", name_expressions=(name,))
        assert lowered[name]


def test_every_template_of_the_header_is_instantiated():
    # each unit<Kind, T> specialisation and each kernel template of
    # _kernels.cuh appears in some launched name expression
    import os
    import re
    from gpuscipy_core._kernel._nvrtc import read_source
    cuh = read_source(os.path.join(os.path.dirname(K.__file__), "_kernels.cuh"))
    names = [name for _, name in K.variants()]
    units = re.findall(r"template <> struct unit<(\w+), ([\w ]+)>", cuh)
    assert len(units) == len(K.UNIT)
    for kind, t in units:
        assert any(n.startswith(f"gs::random::fill<gs::random::{kind}, {t}, ")
                   for n in names), (kind, t)
    kernels = re.findall(r"__launch_bounds__\(BLOCK\)\n(\w+)\(", cuh)
    assert sorted(kernels) == ["choice_p", "fill", "integers", "take_rows"]
    assert cuh.count("__global__") == len(kernels)
    for k in kernels:
        assert any(n.startswith(f"gs::random::{k}<") for n in names), k


def test_launch_config_checks_block_against_launch_bound():
    # the kernels carry __launch_bounds__(256): a larger block cannot launch
    for bad in ({"block": 257}, {"block": 1024}, {"block": 0}, {"grid": 0}):
        with pytest.raises(ValueError):
            with K.launch_config(**bad):
                pass
    with K.launch_config(block=256, grid=1):
        assert K._launch_override == {"block": 256, "grid": 1}
    assert K._launch_override == {"block": None, "grid": None}
    src = K.philox_source("uniform", "f4", True)[0]
    assert f"enum : int {{ BLOCK = {K._BLOCK} }};" in src
    assert src.count("__launch_bounds__(BLOCK)") == src.count("__global__") == 4


def test_lemire_reference_follows_long_retry_chains():
    # range just above 2**63: each candidate is rejected with probability
    # ~1/2, so some of 300 elements need more than 4 retry blocks
    rng_size = 2 ** 63 + 12335
    key, ctr = 0x1234, 77
    blocks = stream_ref(key, ctr, 300)
    depth = []
    for i in range(300):
        calls = []

        def retry(a, i=i):
            calls.append(a)
            return stream_ref(key, ctr + i + (a << 96), 1)[0]
        r = lemire_ref(blocks[i], retry, rng_size)
        assert 0 <= r < rng_size
        depth.append(len(calls))
    assert max(depth) > 0 and np.mean(depth) < 1.0


def test_sources_are_pure_and_distinct():
    a = K.philox_source("normal", "f4", True)
    assert a == K.philox_source("normal", "f4", True)
    names = {K.philox_source(k, c, v)[1] for k, c in K.UNIT for v in (0, 1)}
    assert len(names) == 2 * len(K.UNIT)
    # the header's text is inside the source (so the cache key covers it)
    assert "philox4x32_10" in a[0]


def test_seeding_uses_seedsequence():
    bg = Philox(12345)
    w = np.random.SeedSequence(12345).generate_state(2, np.uint32)
    assert bg.state["state"]["key"] == int(w[0]) | (int(w[1]) << 32)
    assert bg.state["state"]["counter"] == 0
    assert Philox(12345).state == bg.state
    assert Philox(12346).state != bg.state
    assert Philox().state != Philox().state          # OS entropy
    ss = np.random.SeedSequence(7)
    assert Philox(ss).seed_seq is ss


def test_state_advance_jumped_spawn():
    bg = Philox(1)
    bg.advance(5)
    assert bg.state["state"]["counter"] == 5
    bg.advance(2 ** 128 - 6)
    assert bg.state["state"]["counter"] == 2 ** 128 - 1
    st = bg.state
    other = Philox(2)
    other.state = st
    assert other.state == st
    with pytest.raises(ValueError):
        other.state = {"bit_generator": "PCG64", "state": {}}
    j = Philox(1).jumped(2)
    assert j.state["state"]["counter"] == 2 << 64
    kids = Philox(3).spawn(3)
    keys = {k.state["state"]["key"] for k in kids}
    assert len(keys) == 3 and Philox(3).state["state"]["key"] not in keys
    assert Philox(key=0xABC, counter=7).state["state"] == {"counter": 7, "key": 0xABC}
    with pytest.raises(ValueError):
        Philox(1, key=2)
    g = default_rng(4)
    assert default_rng(g) is g
    assert isinstance(default_rng(Philox(1)), Generator)
    assert len(g.spawn(2)) == 2
    with pytest.raises(TypeError):
        Generator(np.random.PCG64())


def test_take_advances_counter():
    bg = Philox(key=1, counter=2 ** 64 - 1)
    key, lo, hi = bg._take(10)
    assert (int(key), int(lo), int(hi)) == (1, 2 ** 64 - 1, 0)
    assert bg.state["state"]["counter"] == 2 ** 64 + 9


def _np_gen():
    return np.random.default_rng(0)


# Bad input that NumPy rejects before doing anything; ours raises before any
# device work, so these run without a GPU.
BAD = [
    (lambda g: g.integers(5, 5), "low >= high"),
    (lambda g: g.integers(5, 3), "low >= high"),
    (lambda g: g.integers(3, 2, endpoint=True), "low > high"),
    (lambda g: g.integers(-1), "high <= 0"),
    (lambda g: g.integers(-1, endpoint=True), "high < 0"),
    (lambda g: g.integers(-1, 3, dtype=np.uint8), "low is out of bounds for uint8"),
    (lambda g: g.integers(0, 300, dtype=np.uint8), "high is out of bounds for uint8"),
    (lambda g: g.integers(-200, 0, dtype=np.int8), "low is out of bounds for int8"),
    (lambda g: g.integers(0, 3, dtype=bool), "high is out of bounds for bool"),
    (lambda g: g.integers(0, 2 ** 64, dtype=np.uint64, endpoint=True), "high is out of"),
    (lambda g: g.integers(0, 10, dtype=np.float64), "Unsupported dtype"),
    (lambda g: g.random(dtype=np.int32), r"Unsupported dtype dtype\('int32'\) for random"),
    (lambda g: g.standard_normal(dtype=np.float16), "for standard_normal"),
    (lambda g: g.random(-1), "negative dimensions"),
    (lambda g: g.random((2, -1)), "negative dimensions"),
    (lambda g: g.random(1.5), "expected a sequence of integers"),
    (lambda g: g.normal(0, -1), "scale < 0"),
    (lambda g: g.uniform(0, np.inf), "high - low range exceeds valid bounds"),
    (lambda g: g.choice(-1), "a must be a positive integer"),
    (lambda g: g.choice(0, 3), "a must be a positive integer"),
    (lambda g: g.choice(3.5), "a must be a sequence or an integer"),
    (lambda g: g.choice(5, p=[0.5, 0.5]), "a and p must have same size"),
    (lambda g: g.choice(3, p=[0.5, 0.6, -0.1]), "Probabilities are not non-negative"),
    (lambda g: g.choice(3, p=[0.5, 0.6, 0.1]), "Probabilities do not sum to 1"),
    (lambda g: g.choice(3, p=[0.5, 0.5, np.nan]), "Probabilities contain NaN"),
    (lambda g: g.choice(3, p=[[1.0, 0, 0]]), "p must be 1-dimensional"),
    (lambda g: g.choice(3, 4, replace=False), "Cannot take a larger sample"),
    (lambda g: g.choice(3, 2, replace=False, p=[1.0, 0, 0]),
     "Fewer non-zero entries in p than size"),
]


@pytest.mark.parametrize("call,match", BAD, ids=[m for _, m in BAD])
def test_bad_input_like_numpy(call, match):
    from tests.core._parity import assert_raises_like
    g = default_rng(0)
    assert_raises_like(lambda: call(_np_gen()), lambda: call(g), match=match)


# ------------------------------------------------------------- GPU tests

def _state(g):
    st = g.bit_generator.state["state"]
    return st["key"], st["counter"]


@gpu
@pytest.mark.parametrize("ctr,key,expected", KAT)
def test_device_kat(ctr, key, expected):
    c, k = _ctr_key(ctr, key)
    bg = Philox(key=k, counter=c)
    words = gp.empty((4,), np.uint32)
    bg._fill("raw", words)
    assert tuple(int(v) for v in gp.asnumpy(words)) == expected
    assert bg.state["state"]["counter"] == (c + 1) % 2 ** 128


@gpu
@pytest.mark.parametrize("n", [1, 3, 4, 5, 1000, 4099])
def test_raw_words_match_reference(n):
    bg = Philox(key=0x0123456789ABCDEF, counter=2 ** 64 - 3)   # crosses the carry
    words = gp.empty((n,), np.uint32)
    bg._fill("raw", words)
    ref = stream_ref(0x0123456789ABCDEF, 2 ** 64 - 3, -(-n // 4)).reshape(-1)[:n]
    np.testing.assert_array_equal(gp.asnumpy(words), ref)
    assert bg.state["state"]["counter"] == 2 ** 64 - 3 + -(-n // 4)


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 7, 4096])
def test_random_matches_reference(dtype, n):
    g = default_rng(42)
    key, ctr = _state(g)
    x = g.random(n, dtype=dtype)
    assert x.dtype == dtype and x.shape == (n,)
    per = 4 if dtype == np.float32 else 2
    w = stream_ref(key, ctr, -(-n // per)).reshape(-1)
    ref = uniform_f32_ref(w) if dtype == np.float32 else uniform_f64_ref(w)
    np.testing.assert_array_equal(gp.asnumpy(x), ref[:n])


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 3, 2001, 4096 * 2 + 5])
def test_standard_normal_matches_reference(dtype, n):
    # against the exact transform of the same words: float32 within a few
    # ulp (|err| <= 1e-6 + 1e-6 |z|; z is at most 5.77), float64 within 1e-14
    g = default_rng(7)
    key, ctr = _state(g)
    z = g.standard_normal(n, dtype=dtype)
    assert z.dtype == dtype and z.shape == (n,)
    per = 4 if dtype == np.float32 else 2
    w = stream_ref(key, ctr, -(-n // per)).reshape(-1)
    if dtype == np.float32:
        ref, tol = normal_f32_ref(w)[:n], 1e-6
    else:
        ref, tol = normal_f64_ref(w)[:n], 1e-14
    got = gp.asnumpy(z)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)
    assert _state(g)[1] == ctr + -(-n // per)


@gpu
def test_standard_normal_extremes():
    # radius uniforms lie in [2^-24, 1 - 2^-24] (float32) / [2^-53, 1 - 2^-53]:
    # every value finite, |z| <= sqrt(-2 ln 2^-24) = 5.7681 (sqrt(-2 ln 2^-53)
    # = 8.5717 in float64)
    g = default_rng(31)
    z = gp.asnumpy(g.standard_normal(1 << 20, dtype=np.float32))
    assert np.isfinite(z).all() and np.abs(z).max() <= 5.7686
    z = gp.asnumpy(g.standard_normal(1 << 20))
    assert np.isfinite(z).all() and np.abs(z).max() <= 8.5718


@gpu
def test_random_raw_and_sort_keys_are_the_word_stream():
    bg = Philox(key=0x0123456789ABCDEF, counter=2 ** 64 - 1)
    x = bg.random_raw(7)
    assert x.dtype == np.uint64 and x.shape == (7,)
    ref = stream_ref(0x0123456789ABCDEF, 2 ** 64 - 1, 4).reshape(-1)[:14]
    ref = ref.astype(np.uint64)
    np.testing.assert_array_equal(gp.asnumpy(x), ref[0::2] | (ref[1::2] << np.uint64(32)))
    assert bg.state["state"]["counter"] == 2 ** 64 - 1 + 4
    assert Philox(1).random_raw().shape == ()


@gpu
@pytest.mark.parametrize("low,high,dtype", [
    (0, 10, np.int64), (-5, 5, np.int8), (0, 256, np.uint8), (0, 2, np.bool_),
    (-2 ** 63, 2 ** 63, np.int64), (0, 2 ** 64, np.uint64), (3, 2 ** 40 + 7, np.int64),
    (10, 2 ** 63 + 12345, np.uint64), (-1000, 1000, np.int16), (0, 2 ** 32, np.uint32)])
def test_integers_match_reference(low, high, dtype):
    n = 300
    g = default_rng(3)
    key, ctr = _state(g)
    x = g.integers(low, high, size=n, dtype=dtype)
    assert x.dtype == np.dtype(dtype) and x.shape == (n,)
    blocks = stream_ref(key, ctr, n)
    rng_size = (high - low) % 2 ** 64
    ref = []
    for i in range(n):
        def retry(a, i=i):
            # the kernel adds ``a`` to the top 32-bit word of the counter
            c = ctr + i
            top = ((c >> 96) + a) & 0xFFFFFFFF
            return stream_ref(key, (c & ((1 << 96) - 1)) | (top << 96), 1)[0]
        r = lemire_ref(blocks[i], retry, rng_size)
        ref.append((low + r) % 2 ** 64)
    ref = np.array(ref, dtype=np.uint64).astype(np.dtype(dtype))
    np.testing.assert_array_equal(gp.asnumpy(x), ref)
    assert _state(g)[1] == ctr + n


@gpu
def test_reproducible_and_advancing():
    a, b = default_rng(123), default_rng(123)
    x1, x2 = a.random(1000), a.random(1000)
    y1 = b.random(1000)
    np.testing.assert_array_equal(gp.asnumpy(x1), gp.asnumpy(y1))
    assert not np.array_equal(gp.asnumpy(x1), gp.asnumpy(x2))
    # two calls of 1000 (multiples of the unit) == one call of 2000
    c = default_rng(123).random(2000)
    np.testing.assert_array_equal(gp.asnumpy(c),
                                  np.concatenate([gp.asnumpy(x1), gp.asnumpy(x2)]))
    assert not np.array_equal(gp.asnumpy(default_rng(124).random(10)),
                              gp.asnumpy(default_rng(123).random(10)))


@gpu
@pytest.mark.parametrize("method", ["random32", "random64", "normal32", "normal64",
                                    "integers", "choice_p", "permutation"])
def test_independent_of_launch_configuration(method):
    def draw():
        g = default_rng(99)
        if method == "random32":
            return g.random(10001, dtype=np.float32)
        if method == "random64":
            return g.random(10001)
        if method == "normal32":
            return g.standard_normal(10001, dtype=np.float32)
        if method == "normal64":
            return g.standard_normal(10001)
        if method == "integers":
            return g.integers(0, 1000, size=10001)
        if method == "choice_p":
            return g.choice(4, size=10001, p=[0.1, 0.2, 0.3, 0.4])
        return g.permutation(5000)
    ref = gp.asnumpy(draw())
    # blocks up to the kernels' launch bound (256), a non-power-of-two
    # block, one tiny grid and grids beyond the work
    for block, grid in [(32, 1), (64, 3), (96, 5), (256, 7), (128, 10000), (1, 2)]:
        with K.launch_config(block=block, grid=grid):
            np.testing.assert_array_equal(gp.asnumpy(draw()), ref,
                                          err_msg=f"block={block} grid={grid}")


@gpu
def test_unaligned_out_uses_scalar_path():
    base = gp.empty((1001,), np.float32)
    out = base[1:]                      # 4-byte aligned, not 16
    default_rng(5).random(out=out, dtype=np.float32)
    ref = default_rng(5).random(1000, dtype=np.float32)
    np.testing.assert_array_equal(gp.asnumpy(out), gp.asnumpy(ref))


@gpu
def test_out_and_size_none():
    g = default_rng(0)
    x = g.random()
    assert isinstance(x, gp.ndarray) and x.shape == () and 0 <= float(x) < 1
    out = gp.empty((3, 4), np.float32)
    r = g.standard_normal(dtype=np.float32, out=out)
    assert r is out
    with pytest.raises(TypeError, match="wrong type"):
        g.random(out=gp.empty(4, np.float32))
    with pytest.raises(ValueError, match="size must match"):
        g.random(size=3, out=gp.empty(4))
    with pytest.raises(ValueError, match="contiguous"):
        g.random(out=gp.empty((4, 4))[:, ::2])
    assert g.random(0).shape == (0,)
    assert g.integers(0, 5, size=(2, 0)).shape == (2, 0)


@gpu
def test_uniform_statistics_and_ks():
    from scipy import stats
    g = default_rng(2024)
    for dt in (np.float32, np.float64):
        x = gp.asnumpy(g.random(200_000, dtype=dt))
        assert x.min() >= 0 and x.max() < 1
        assert abs(x.mean() - 0.5) < 5 * np.sqrt(1 / 12 / x.size)
        assert abs(x.var() - 1 / 12) < 0.002
        assert stats.kstest(x, "uniform").pvalue > 1e-4
    u = gp.asnumpy(g.uniform(-3.0, 5.0, size=100_000))
    assert u.min() >= -3 and u.max() < 5 and abs(u.mean() - 1.0) < 0.05


@gpu
def test_normal_statistics_and_ks():
    from scipy import stats
    g = default_rng(77)
    for dt in (np.float32, np.float64):
        z = gp.asnumpy(g.standard_normal(200_000, dtype=dt)).astype(np.float64)
        assert abs(z.mean()) < 5 / np.sqrt(z.size)
        assert abs(z.var() - 1) < 0.02
        assert abs(stats.skew(z)) < 0.05 and abs(stats.kurtosis(z)) < 0.1
        assert stats.kstest(z, "norm").pvalue > 1e-4
        # consecutive pairs (one Box-Muller pair) uncorrelated
        assert abs(np.corrcoef(z[0::2], z[1::2])[0, 1]) < 0.02
    x = gp.asnumpy(g.normal(3.0, 2.0, size=100_000))
    assert abs(x.mean() - 3) < 0.05 and abs(x.std() - 2) < 0.05
    loc = gp.asarray(np.array([0.0, 100.0]))
    y = gp.asnumpy(g.normal(loc, 1.0, size=(50_000, 2)))
    assert abs(y[:, 0].mean()) < 0.05 and abs(y[:, 1].mean() - 100) < 0.05
    with pytest.raises(ValueError, match="scale < 0"):
        g.normal(0.0, gp.asarray(np.array([1.0, -1.0])))


@gpu
@pytest.mark.parametrize("low,high", [(0, 7), (-3, 3), (0, 2 ** 31 + 1)])
def test_integers_uniformity(low, high):
    from scipy import stats
    g = default_rng(11)
    x = gp.asnumpy(g.integers(low, high, size=210_000))
    assert x.min() >= low and x.max() < high
    if high - low <= 10:
        counts = np.bincount(x - low, minlength=high - low)
        assert stats.chisquare(counts).pvalue > 1e-4
    else:
        # the top bit half/half and 16 equal bins
        counts = np.bincount((x - low) * 16 // (high - low), minlength=16)
        assert stats.chisquare(counts).pvalue > 1e-4


@gpu
def test_integers_endpoint_and_dtypes():
    g = default_rng(1)
    x = gp.asnumpy(g.integers(0, 3, size=10_000, endpoint=True, dtype=np.uint8))
    assert set(np.unique(x)) == {0, 1, 2, 3}
    b = g.integers(0, 2, size=1000, dtype=bool)
    assert b.dtype == np.bool_ and 300 < int(gp.asnumpy(b).sum()) < 700
    s = g.integers(5)
    assert s.shape == () and 0 <= int(s) < 5
    assert int(g.integers(7, 8)) == 7


@gpu
def test_choice_with_replacement():
    from scipy import stats
    g = default_rng(5)
    x = g.choice(10, size=(100, 50))
    assert x.shape == (100, 50) and x.dtype == np.int64
    h = gp.asnumpy(x)
    assert h.min() >= 0 and h.max() < 10
    p = np.array([0.1, 0.0, 0.2, 0.3, 0.4])
    y = gp.asnumpy(g.choice(5, size=100_000, p=p))
    counts = np.bincount(y, minlength=5)
    assert counts[1] == 0
    assert stats.chisquare(counts[p > 0], 100_000 * p[p > 0]).pvalue > 1e-4
    pd = gp.asarray(p)
    y = gp.asnumpy(g.choice(5, size=100_000, p=pd))
    counts = np.bincount(y, minlength=5)
    assert counts[1] == 0
    assert stats.chisquare(counts[p > 0], 100_000 * p[p > 0]).pvalue > 1e-4


@gpu
def test_choice_without_replacement_and_axis():
    g = default_rng(6)
    x = gp.asnumpy(g.choice(1000, size=500, replace=False))
    assert len(np.unique(x)) == 500 and x.min() >= 0 and x.max() < 1000
    full = gp.asnumpy(g.choice(50, size=50, replace=False))
    np.testing.assert_array_equal(np.sort(full), np.arange(50))
    p = np.zeros(20)
    p[[2, 5, 7]] = [0.5, 0.3, 0.2]
    w = gp.asnumpy(g.choice(20, size=3, replace=False, p=p))
    np.testing.assert_array_equal(np.sort(w), [2, 5, 7])
    # the heaviest item comes first most often
    first = [int(gp.asnumpy(g.choice(20, 2, replace=False, p=p))[0]) for _ in range(200)]
    assert 70 < first.count(2) < 130
    a = np.arange(24.0).reshape(2, 3, 4)
    da = gp.asarray(a)
    r = gp.asnumpy(g.choice(da, size=(5,), axis=1))
    assert r.shape == (2, 5, 4)
    for j in range(5):      # every sampled slice is a slice of a along axis 1
        assert any(np.array_equal(r[:, j, :], a[:, k, :]) for k in range(3))
    r = gp.asnumpy(g.choice(da, axis=2))
    assert r.shape == (2, 3)
    assert any(np.array_equal(r, a[:, :, k]) for k in range(4))
    r = gp.asnumpy(g.choice(da, 2, replace=False))
    assert r.shape == (2, 3, 4) and not np.array_equal(r[0], r[1])
    assert g.choice(5, 0, replace=False).shape == (0,)
    assert g.choice(0, 0).shape == (0,)


@gpu
def test_permutation_and_shuffle():
    g = default_rng(8)
    p = gp.asnumpy(g.permutation(1000))
    np.testing.assert_array_equal(np.sort(p), np.arange(1000))
    assert not np.array_equal(p, np.arange(1000))
    assert g.permutation(0).shape == (0,) and g.permutation(-1).shape == (0,)
    a = np.arange(30).reshape(5, 6)
    q = gp.asnumpy(g.permutation(gp.asarray(a)))
    np.testing.assert_array_equal(np.sort(q[:, 0]), a[:, 0])
    np.testing.assert_array_equal(q - q[:, :1], a - a[:, :1])     # whole rows move
    q = gp.asnumpy(g.permutation(gp.asarray(a), axis=1))
    np.testing.assert_array_equal(q - q[:1], a - a[:1])           # whole columns
    x = gp.asarray(a.astype(np.complex64))
    g.shuffle(x, axis=1)
    h = gp.asnumpy(x)
    assert h.dtype == np.complex64
    np.testing.assert_array_equal(np.sort(h[0].real), a[0])
    # positions are uniform: element 0 of a permutation of 4 over many draws
    firsts = np.array([int(gp.asnumpy(g.permutation(4))[0]) for _ in range(400)])
    assert all(60 < (firsts == k).sum() < 140 for k in range(4))
    with pytest.raises(np.exceptions.AxisError):
        g.permutation(gp.asarray(np.float64(3.0)))
    with pytest.raises(TypeError):
        g.shuffle(gp.asarray(np.ones(())))
