"""The ECG pipeline: its SciPy chain on the CPU, the margins behind the exact
peak check, the batch recipe; on a GPU, the pipeline and ``--quick``.

Record 208 comes from ``gpuscipy.datasets.electrocardiogram()`` or, while
that is not importable, from ``shared/data/ecg_mitbih208.npz`` beside the
repository (mV = (ecg - 1024) / 200).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.signal as ss

from gpuscipy.demo import Options, Runner
from gpuscipy.demo import _report, _timing
from gpuscipy.demo.pipelines import ecg as E

REPO = Path(__file__).resolve().parents[2]


def _load_record():
    try:
        return E.load_ecg()
    except Exception:
        pass
    path = REPO.parent / "shared" / "data" / "ecg_mitbih208.npz"
    if not path.exists():
        pytest.skip("record 208 not found: neither gpuscipy.datasets nor "
                    f"{path}")
    z = np.load(path)
    return (z["ecg"].astype(np.int64) - int(z["adc_zero"])) / float(z["adc_gain"])


@pytest.fixture(scope="module")
def record():
    x = _load_record()
    assert x.shape == (108000,) and x.dtype == np.float64
    return x


@pytest.fixture
def patched(record, monkeypatch):
    monkeypatch.setattr(E, "load_ecg", lambda: record.copy())
    return record


def once(fn, args, repeat, budget_s):
    return _timing.Timed(fn(*args), 1e-3, 1e-3, 1, 1e-3)


def cpu_run(channels=6, cpu_channels=3):
    opts = Options(quick=True, gpu=False)
    p = E.build(opts, channels=channels, cpu_channels=cpu_channels)
    return p, Runner(opts, cpu_timer=once, progress=None).run(p)


# ---------------------------------------------------------------------------
# the SciPy chain
# ---------------------------------------------------------------------------

def test_scipy_chain_finds_the_beats(patched):
    p, res = cpu_run()
    assert res.ok, res.problems()
    assert all(s.cpu.status == "ok" and s.gpu.status == "off" for s in res.steps)
    # Record 208 has 2955 annotated beats in 30 min (98 per minute); this
    # 300 s excerpt has about 7 s of signal loss, so some 480 beats.
    beats = res.facts["beats (SciPy)"]
    assert 470 <= beats <= 510, beats
    r = res.outputs.cpu("r_peaks")
    rr = np.diff(r) / E.FS
    assert 0.5 < np.median(rr) < 0.7                   # 86-120 bpm
    assert rr.min() >= E.DISTANCE / E.FS - 2 * E.REFINE_HALF / E.FS
    # refined beats sit on the largest |ECG| of their window
    clean = res.outputs.cpu("clean")
    assert np.all(np.abs(clean[r]) >= 0.3)
    lo, hi, med = (int(v) for v in
                   res.facts["batch beats per channel (min/median/max)"].split("/"))
    assert 470 <= lo <= med <= hi <= 510
    f, pxx = res.outputs.cpu("psd")
    assert f.shape == (E.WELCH_NPERSEG // 2 + 1,)
    # the notch took out 60 Hz: the PSD there is far below its neighbours
    i60 = np.argmin(np.abs(f - 60.0))
    assert pxx[i60] < 0.05 * np.median(pxx[i60 - 20:i60 - 5])
    assert p.steps[-1].cpu_scale == 2.0                # 6 channels, 3 on SciPy


def test_frame_with_scipy_on_both_sides(patched, monkeypatch):
    """The whole ECG pipeline through the runner, SciPy standing in for the
    GPU side: every check passes, and the row selection of the batch checks
    (GPU: all channels, SciPy: some) lines up."""
    import gpuscipy_core as gp

    monkeypatch.setattr(gp, "take", np.take)
    monkeypatch.setattr(gp, "asarray", np.asarray)
    opts = Options(quick=True)
    p = E.build(opts, channels=6, cpu_channels=3)
    p.setup_gpu = p.setup_cpu
    for s in p.steps:
        if s.name.endswith("build from record 208"):
            s.gpu = lambda chain, ecg, tables: E.make_batch(
                np, ecg, tables, E.batch_plan(ecg.shape[0], 6), np.arange(6))
    res = Runner(opts, gpu_timer=once, cpu_timer=once, to_host=lambda v: v,
                 gpu_sync=lambda: None, progress=None).run(p)
    assert res.ok, res.problems()
    summaries = [s.check_summary for s in res.steps]
    assert summaries[6] == summaries[7] == "exact"
    assert summaries[12] == "exact"
    assert summaries[19].startswith("exact (") and summaries[19].endswith(", 3 ch)")
    assert all(s.check is not None for s in res.steps)
    assert res.facts["beats (GPU)"] == res.facts["beats (SciPy)"]


def test_batch_plan_and_rows():
    n = 1000
    a, b = E.batch_plan(n, 8), E.batch_plan(n, 16)
    for k in ("shift", "gain", "sigma", "drift", "mains", "offset"):
        np.testing.assert_array_equal(getattr(a, k), getattr(b, k)[:8])
    x = np.sin(np.arange(n) / 7.0)
    full = E.make_batch(np, x, b.tables(), b, np.arange(16))
    rows = np.array([0, 5, 15])
    part = E.make_batch(np, x, b.tables(), b, rows)
    assert full.shape == (16, n) and full.dtype == np.float64
    np.testing.assert_array_equal(part, full[rows])     # bit for bit
    c = 5
    expect = (x[(np.arange(n) + b.shift[c]) % n] * b.gain[c]
              + b.sigma[c] * b.noise_table[c % 16]
              + b.drift[c] * b.drift_table[c % 8]
              + b.mains[c] * b.mains_table[c % 6] + b.offset[c])
    np.testing.assert_allclose(full[c], expect, rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------
# why the peak indices can be checked exactly
# ---------------------------------------------------------------------------

def _scipy_front(x, chain, design):
    clean = chain.notch(chain.baseline(x, design["sos_hp"]), design["notch_ba"])
    qrs = chain.bandpass(clean, design["sos_bp"])
    if x.ndim == 1:
        mwi = chain.convolve(chain.square(chain.convolve(qrs, E.DERIVATIVE)),
                             E.BOXCAR)
    else:
        mwi = chain.batch_convolve(
            chain.square(chain.batch_convolve(qrs, E.DERIVATIVE)), E.BOXCAR)
    return clean, mwi


def margins(mwi, clean):
    """Distance of every find_peaks decision from flipping, relative to q."""
    n = mwi.size
    k = int(E.QUANTILE * (n - 1))
    q = np.partition(mwi, k)[k]
    height, prominence = E.HEIGHT_FRAC * q, E.PROMINENCE_FRAC * q
    lm, _ = ss.find_peaks(mwi)                                 # all local maxima
    above = lm[mwi[lm] > height]
    gaps = []
    for i in range(len(above)):
        j = i + 1
        while j < len(above) and above[j] - above[i] < E.DISTANCE:
            gaps.append(abs(mwi[above[i]] - mwi[above[j]]))
            j += 1
    cand, _ = ss.find_peaks(mwi, height=height, distance=E.DISTANCE)
    peaks = E.Chain(ss, np, np.asarray).detect(mwi)
    offsets = np.arange(-E.REFINE_HALF, E.REFINE_HALF + 1)
    win = np.sort(np.abs(clean[np.clip(peaks[:, None] + offsets, 0, n - 1)]), axis=1)
    return {
        "height": np.min(np.abs(mwi[lm] - height)) / q,
        "neighbour": np.min(np.minimum(mwi[above] - mwi[above - 1],
                                       mwi[above] - mwi[above + 1])) / q,
        "distance": (min(gaps) / q) if gaps else np.inf,
        "prominence": np.min(np.abs(ss.peak_prominences(mwi, cand)[0]
                                    - prominence)) / q,
        "refine": np.min(win[:, -1] - win[:, -2]) / np.max(np.abs(clean)),
    }


@pytest.fixture(scope="module")
def fronts(record):
    chain, design = E.Chain(ss, np, np.asarray), E.design(ss)
    one = _scipy_front(record, chain, design)
    plan = E.batch_plan(record.size, E.CHANNELS_QUICK)
    rows = np.unique(np.linspace(0, E.CHANNELS_QUICK - 1,
                                 E.CPU_CHANNELS_QUICK).round().astype(np.int64))
    batch = E.make_batch(np, record, plan.tables(), plan, rows)
    return chain, one, _scipy_front(batch, chain, design)


def test_peak_decision_margins(fronts):
    # The GPU chain differs from SciPy's by rounding: of order 1e-13 of q for
    # the integrated signal (see the ecg module's notes). Every decision of
    # find_peaks and of the refinement must be much farther from flipping.
    _, (clean, mwi), (bclean, bmwi) = fronts
    m = margins(mwi, clean)
    assert min(m.values()) > 1e-7, m                          # record 208
    assert m["prominence"] > 1e-2
    for c in range(bmwi.shape[0]):                            # the quick channels
        mc = margins(bmwi[c], bclean[c])
        assert min(mc.values()) > 1e-11, (c, mc)


def test_peaks_do_not_move_under_perturbation(fronts):
    chain, (clean, mwi), (bclean, bmwi) = fronts
    ref = chain.detect(mwi)
    ref_r = chain.refine(ref, clean)
    q = np.max(mwi)
    rng = np.random.default_rng(0)
    for _ in range(5):
        # 1e-9 of the peak value: 1e4 times the expected GPU-SciPy difference
        m2 = mwi + 1e-9 * q * rng.standard_normal(mwi.size)
        c2 = clean + 1e-9 * rng.standard_normal(clean.size)
        p2 = chain.detect(m2)
        np.testing.assert_array_equal(p2, ref)
        np.testing.assert_array_equal(chain.refine(p2, c2), ref_r)
    flat, bounds = chain.batch_detect(bmwi)
    for _ in range(3):
        scale = np.max(bmwi, axis=1, keepdims=True)
        f2, b2 = chain.batch_detect(bmwi + 1e-12 * scale
                                    * rng.standard_normal(bmwi.shape))
        np.testing.assert_array_equal(b2, bounds)
        np.testing.assert_array_equal(f2, flat)


def test_batch_detect_matches_single_channel(fronts):
    chain, _, (bclean, bmwi) = fronts
    flat, bounds = chain.batch_detect(bmwi)
    refined, rb = chain.batch_refine((flat, bounds), bclean)
    np.testing.assert_array_equal(rb, bounds)
    for c in range(bmwi.shape[0]):
        p = chain.detect(bmwi[c])
        np.testing.assert_array_equal(flat[bounds[c]:bounds[c + 1]], p)
        np.testing.assert_array_equal(refined[bounds[c]:bounds[c + 1]],
                                      chain.refine(p, bclean[c]))


def test_joined_batch_detect_is_per_channel_find_peaks(fronts):
    """The GPU chain's one-pass batch detection (channels end to end,
    ``+inf`` between them), run here with SciPy's functions, gives every
    channel's own ``find_peaks`` result; also on channels with equal
    heights (distance ties), a peak at a channel's first sample, and a
    channel without peaks."""
    chain, _, (bclean, bmwi) = fronts
    joined = E.Chain(ss, np, np.asarray, joined_peaks=True)
    for x in (bmwi, _tricky_batch(bmwi.shape[1])):
        flat, bounds = chain.batch_detect(x)
        f2, b2 = joined.batch_detect(x)
        np.testing.assert_array_equal(b2, bounds)
        np.testing.assert_array_equal(f2, flat)
        assert f2.dtype == flat.dtype


def _tricky_batch(n):
    rng = np.random.default_rng(5)
    x = np.zeros((5, n))
    t = np.arange(n)
    x[0] = np.round(3 * np.sin(t / 9.0))            # plateaus and equal heights
    x[1] = rng.random(n)                              # dense, noise-like maxima
    x[1, 0] = 50.0                                    # a maximum at the start
    x[2] = 0.0                                        # no peak at all
    x[3] = np.round(4 * rng.random(n)) * (t % 80 == 40)  # isolated, tied heights
    x[4] = x[0][::-1]
    return x


def test_exact_peak_check(fronts):
    chain, _, (bclean, bmwi) = fronts
    flat, bounds = chain.batch_detect(bmwi)
    rows = np.array([1, 3])
    check = E._same_peaks(rows)
    sub = (np.concatenate([flat[bounds[r]:bounds[r + 1]] for r in rows]),
           np.concatenate([[0], np.cumsum(np.diff(bounds)[rows])]))
    r = check((flat, bounds), sub)
    assert r.ok and r.kind == "exact" and "2 ch" in r.detail
    moved = flat.copy()
    moved[bounds[3]] += 1
    r = check((moved, bounds), sub)
    assert not r.ok and "channels [3]" in r.detail


@pytest.mark.skipif(_report.matplotlib_missing() is not None,
                    reason="matplotlib is not installed here")
def test_ecg_plots(patched, tmp_path):
    p, res = cpu_run(channels=2, cpu_channels=2)
    files, errors = _report.write_plots(p.plots, res.outputs, str(tmp_path))
    assert errors == {}
    assert files == ["ecg_beats.png", "ecg_psd.png", "ecg_heart_rate.png",
                     "ecg_spectrogram.png"]
    for f in files:
        assert (tmp_path / f).read_bytes()[:4] == b"\x89PNG"


# ---------------------------------------------------------------------------
# on a GPU
# ---------------------------------------------------------------------------

@pytest.mark.gpu
def test_gpu_pipeline_agrees_with_scipy(patched):
    opts = Options(quick=True)
    p = E.build(opts, channels=24, cpu_channels=5)
    res = Runner(opts, progress=None).run(p)
    try:
        assert res.ok, "\n".join(res.problems())
        assert res.facts["beats (GPU)"] == res.facts["beats (SciPy)"]
        for s in res.steps:
            assert s.gpu.median_s is not None and s.gpu.median_s > 0, s.name
    finally:
        res.outputs.release()


@pytest.mark.gpu
def test_time_gpu_measures():
    import gpuscipy_core as gp

    x = gp.arange(1 << 22, dtype=np.float64)
    t = _timing.time_gpu(lambda a: a * 2.0, (x,), repeat=5, budget_s=10.0)
    assert t.n == 5 and 0 < t.min_s <= t.median_s < 1.0
    assert float(t.value[3]) == 6.0


@pytest.mark.gpu
def test_demo_quick_command(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    rep = tmp_path / "demo-report"
    r = subprocess.run([sys.executable, "-m", "gpuscipy.demo", "--quick",
                        "--report-dir", str(rep)], capture_output=True,
                       text=True, env=env, cwd=str(tmp_path), timeout=600)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-6000:]
    doc = json.loads((rep / "report.json").read_text())
    assert doc["ok"] is True
    (ecg,) = [p for p in doc["pipelines"] if p["name"] == "ecg"]
    assert all(s["status"] == "ok" for s in ecg["steps"])
    assert "[ecg  1/" in r.stderr and "speed-up" in r.stdout
