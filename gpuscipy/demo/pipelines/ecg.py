"""ECG: MIT-BIH record 208 through a Pan-Tompkins style beat detector.

The chain, on one channel (300 s at 360 Hz, 108,000 samples) and then on a
batch of channels made from it:

1. baseline-wander removal: 4th-order Butterworth high-pass at 0.5 Hz as
   second-order sections, ``sosfiltfilt``;
2. mains removal: ``iirnotch(60, 30)``, ``filtfilt``;
3. QRS band-pass: 3rd-order Butterworth 5-15 Hz, ``sosfiltfilt``;
4. derivative: the five-point kernel ``[1, 2, 0, -2, -1] * fs / 8``;
5. squaring;
6. moving-window integration over 150 ms (54 samples);
7. R-peak detection: ``find_peaks`` on the integrated signal with
   ``height = 0.1 q``, ``prominence = 0.05 q`` and ``distance`` = 200 ms,
   where ``q`` is the 99th-percentile sample (an order statistic: the
   ``k``-th smallest value, ``k = int(0.99 (n - 1))``, selected by
   ``partition`` on each side, so no interpolation arithmetic);
8. refinement: each beat moves to the largest ``|ECG|`` of the
   baseline-free, notch-filtered signal within +-75 ms (premature
   ventricular beats of record 208 point downwards);
9. heart rate ``60 fs / diff(peaks)`` in beats per minute;
10. ``welch`` PSD, ``spectrogram``, ``resample_poly`` 360 -> 500 Hz (25/18).

The detector follows Pan J, Tompkins WJ, "A real-time QRS detection
algorithm", IEEE Trans Biomed Eng 32(3):230-236 (1985), with SciPy's
``find_peaks`` in place of its adaptive thresholds.

Exact peaks. Steps 7 and 8 must return the same indices as SciPy. The two
chains differ by rounding only, so a peak can move only where a decision
sits closer to its threshold than that rounding. Measured here, relative to
``q``: a 1e-13 relative perturbation of the high-passed signal moves the
integrated signal by 1.7e-13; FFT against direct convolution by 1e-15. The
closest decisions on record 208 are: the gap between a local maximum above
the height threshold and its neighbour (1.9e-7; below it the maximum would
move by one sample), a maximum's distance to the height threshold (2.1e-5),
two candidate heights within ``distance`` (1.9e-5), a prominence's distance
to its threshold (4.3e-2); the refinement's top two ``|ECG|`` values differ
by 8e-5 of the largest. On 43 sampled synthetic channels the smallest
margin is the neighbour gap, 1.8e-10: still three orders above the
rounding, though over 4096 channels a flip cannot be ruled out entirely
(probability of order 1e-3 per full run by this estimate).
``tests/demo/test_demo_ecg.py`` recomputes these margins and perturbs the
integrated signal by 1e-9 to show the indices do not move.

The batch (4096 channels; 512 with ``--quick``) is built from the record
by a deterministic recipe: per channel a cyclic shift, a gain, white noise
(one of 16 stored realisations), a slow sinusoidal drift (one of 8), 60 Hz
mains (one of 6 phases) and an offset, each added by a separate
correctly rounded operation, so the GPU and NumPy builds are bit-identical
(the first batch step checks that exactly). SciPy runs the batch chain on
every channel in a full run and on 8 evenly spaced channels with
``--quick``, its time then scaled by channels / 8 (marked in the table);
the GPU result is checked on the channels SciPy ran.

Data: MIT-BIH Arrhythmia Database record 208 (PhysioNet, ODC-By 1.0):
Moody GB, Mark RG, IEEE Eng Med Biol 20(3):45-50 (2001); Goldberger AL et
al., Circulation 101(23):e215-e220 (2000).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .. import (Options, Pipeline, Plot, Step, allclose, close, custom, exact,
                register)

__all__ = ["build", "load_ecg", "FS"]

FS = 360.0
HP_ORDER, HP_CUTOFF = 4, 0.5
NOTCH_F0, NOTCH_Q = 60.0, 30.0
BP_ORDER, BP_BAND = 3, (5.0, 15.0)
DERIVATIVE = np.array([1.0, 2.0, 0.0, -2.0, -1.0]) * (FS / 8.0)
MWI_LEN = int(round(0.150 * FS))            # 54 samples
BOXCAR = np.full(MWI_LEN, 1.0 / MWI_LEN)
DISTANCE = int(round(0.200 * FS))           # 72 samples
QUANTILE, HEIGHT_FRAC, PROMINENCE_FRAC = 0.99, 0.1, 0.05
REFINE_HALF = int(round(0.075 * FS))        # 27 samples each side
WELCH_NPERSEG = 2048
SPEC_NPERSEG, SPEC_NOVERLAP = 256, 128
UP, DOWN = 25, 18                           # 360 Hz * 25 / 18 = 500 Hz
CHANNELS, CHANNELS_QUICK, CPU_CHANNELS_QUICK = 4096, 512, 8
SEED = 208
TOL = 1e-9                                  # norm-wise, see the module notes
EXCERPT_S = (50.0, 60.0)                    # the plotted 10 s


def load_ecg() -> np.ndarray:
    """Record 208 in millivolts: float64, shape (108000,), 360 Hz.

    From ``gpuscipy.datasets.electrocardiogram()``; a device array is
    copied to the host (both sides start from the same samples).
    """
    from gpuscipy import datasets

    x = datasets.electrocardiogram()
    if not isinstance(x, np.ndarray):
        import gpuscipy_core as gp
        x = gp.asnumpy(x)
    return np.ascontiguousarray(x, dtype=np.float64)


# ---------------------------------------------------------------------------
# the batch recipe
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class BatchPlan:
    """Per-channel parameters and shared tables of the synthetic batch."""

    channels: int
    shift: np.ndarray       # (C,) int64, cyclic shift in samples
    gain: np.ndarray        # (C,) float64
    sigma: np.ndarray       # (C,) noise standard deviation, mV
    drift: np.ndarray       # (C,) drift amplitude, mV
    mains: np.ndarray       # (C,) 60 Hz amplitude, mV
    offset: np.ndarray      # (C,) mV
    noise_table: np.ndarray  # (16, n) standard normal
    drift_table: np.ndarray  # (8, n) unit sinusoids, 0.05-0.35 Hz
    mains_table: np.ndarray  # (6, n) unit 60 Hz sinusoids, 6 phases

    def tables(self):
        return (self.noise_table, self.drift_table, self.mains_table)


@functools.lru_cache(maxsize=4)
def batch_plan(n: int, channels: int) -> BatchPlan:
    """The deterministic recipe for ``channels`` channels of ``n`` samples.

    Each per-channel parameter comes from its own stream, so the first
    ``c`` channels are the same whatever ``channels`` is (the quick batch is
    the start of the full one).
    """
    tables, shift, gain, sigma, drift, mains, offset = (
        np.random.default_rng(s) for s in np.random.SeedSequence(SEED).spawn(7))
    c = channels
    t = np.arange(n) / FS
    f = tables.uniform(0.05, 0.35, 8)
    phi = tables.uniform(0, 2 * np.pi, 8)
    drift_table = np.sin(2 * np.pi * f[:, None] * t + phi[:, None])
    mains_table = np.sin(2 * np.pi * NOTCH_F0 * t
                         + (np.pi / 3) * np.arange(6)[:, None])
    noise_table = tables.standard_normal((16, n))
    return BatchPlan(
        channels=c,
        shift=shift.integers(0, n, c, dtype=np.int64),
        gain=gain.uniform(0.6, 1.4, c),
        sigma=sigma.uniform(0.005, 0.04, c),
        drift=drift.uniform(0.1, 1.0, c),
        mains=mains.uniform(0.0, 0.3, c),
        offset=offset.uniform(-1.0, 1.0, c),
        noise_table=noise_table, drift_table=drift_table,
        mains_table=mains_table)


def make_batch(xp, ecg, tables, plan: BatchPlan, rows: np.ndarray):
    """Rows ``rows`` of the batch, built with array namespace ``xp``.

    ``ecg`` and ``tables`` live in ``xp``'s memory. Every operation is a
    gather or one correctly rounded multiply or add, in the same order for
    NumPy and gpuscipy_core, so both give the same bits.
    """
    noise, drift, mains = tables
    n = ecg.shape[0]

    def col(v):
        return xp.asarray(np.ascontiguousarray(v[rows])[:, None])

    idx = xp.arange(n, dtype=np.int64)[None, :] + col(plan.shift)
    idx = idx % n
    x = xp.take(ecg, idx)
    del idx
    x *= col(plan.gain)
    for table, amp, k in ((noise, plan.sigma, 16), (drift, plan.drift, 8),
                          (mains, plan.mains, 6)):
        t = xp.take(table, xp.asarray(rows % k), axis=0)
        t *= col(amp)
        x += t
        del t
    x += col(plan.offset)
    return x


# ---------------------------------------------------------------------------
# the chain, written once for both sides
# ---------------------------------------------------------------------------

def design(sig) -> dict:
    """Filter coefficients from ``sig`` (gpuscipy.signal or scipy.signal)."""
    return {
        "sos_hp": sig.butter(HP_ORDER, HP_CUTOFF, "highpass", fs=FS,
                             output="sos"),
        "notch_ba": tuple(sig.iirnotch(NOTCH_F0, NOTCH_Q, fs=FS)),
        "sos_bp": sig.butter(BP_ORDER, list(BP_BAND), "bandpass", fs=FS,
                             output="sos"),
    }


def _order_statistic_index(n: int) -> int:
    return int(QUANTILE * (n - 1))


@functools.lru_cache(maxsize=128)
def _heart_rate_kernel(xp):
    """``hr = c / (later - earlier)`` (beats per minute) as one kernel."""
    return xp.ElementwiseKernel("int64 later, int64 earlier, float64 c",
                                "float64 hr", "hr = c / (double)(later - earlier)",
                                "gs_demo_heart_rate")


class Chain:
    """The chain's operations for one side.

    Parameters
    ----------
    sig : module
        ``gpuscipy.signal`` or ``scipy.signal``.
    xp : module
        ``gpuscipy_core`` or ``numpy``.
    host : callable
        Array to NumPy (``gpuscipy_core.asnumpy`` or ``numpy.asarray``).
    """

    def __init__(self, sig, xp, host, joined_peaks=False):
        self.sig, self.xp, self.host = sig, xp, host
        self.joined_peaks = joined_peaks

    # filters (any leading shape; time is the last axis)
    def baseline(self, x, sos):
        return self.sig.sosfiltfilt(sos, x, axis=-1)

    def notch(self, x, ba):
        return self.sig.filtfilt(ba[0], ba[1], x, axis=-1)

    def bandpass(self, x, sos):
        return self.sig.sosfiltfilt(sos, x, axis=-1)

    def square(self, x):
        return self.xp.multiply(x, x)

    # one channel
    def convolve(self, x, h):
        return self.sig.convolve(x, h, mode="same")

    def thresholds(self, mwi):
        k = _order_statistic_index(mwi.shape[-1])
        q = float(self.host(self.xp.partition(mwi, k)[k]))
        return HEIGHT_FRAC * q, PROMINENCE_FRAC * q

    def detect(self, mwi):
        height, prominence = self.thresholds(mwi)
        peaks, _ = self.sig.find_peaks(mwi, height=height, distance=DISTANCE,
                                       prominence=prominence)
        return peaks

    def refine(self, peaks, x):
        xp = self.xp
        n = x.shape[-1]
        offsets = xp.arange(-REFINE_HALF, REFINE_HALF + 1, dtype=np.int64)
        idx = xp.clip(peaks[:, None] + offsets[None, :], 0, n - 1)
        # the indices are in range: mode='clip' takes them without the
        # bounds check (on the GPU, a read back) of the default 'raise'
        best = xp.argmax(xp.abs(xp.take(x, idx, mode="clip")), axis=1)
        # idx[i, best[i]], without a second gather
        return xp.clip(peaks + (best - REFINE_HALF), 0, n - 1)

    def heart_rate(self, peaks):
        xp = self.xp
        if xp is np:
            return (60.0 * FS) / np.diff(peaks)
        # on the GPU, diff and divide fused into one kernel: for a few
        # hundred beats the work is nothing and each launch is ~5 us of host
        # time (written as a CuPy user would, with an ElementwiseKernel)
        return _heart_rate_kernel(xp)(peaks[1:], peaks[:-1], 60.0 * FS)

    def welch(self, x):
        return tuple(self.sig.welch(x, fs=FS, nperseg=WELCH_NPERSEG, axis=-1))

    def spectrogram(self, x):
        return tuple(self.sig.spectrogram(x, fs=FS, nperseg=SPEC_NPERSEG,
                                          noverlap=SPEC_NOVERLAP, axis=-1))

    def resample(self, x):
        return self.sig.resample_poly(x, UP, DOWN, axis=-1)

    # a batch (channels, time)
    def batch_convolve(self, x, h):
        return self.sig.oaconvolve(x, h[None, :], mode="same", axes=-1)

    def batch_detect(self, mwi):
        """Peaks of every channel: ``(flat indices, bounds)``, CSR-style.

        Channel ``c``'s peaks are ``flat[bounds[c]:bounds[c + 1]]``;
        ``bounds`` is a NumPy array (lengths are known on the host).
        ``find_peaks`` on each channel, or (``joined_peaks``) all channels
        at once: ``find_peaks_batch`` with per-channel thresholds where the
        signal module has it (gpuscipy's), else :meth:`_batch_detect_joined`.
        """
        xp = self.xp
        k = _order_statistic_index(mwi.shape[-1])
        if self.joined_peaks and hasattr(self.sig, "find_peaks_batch"):
            # thresholds stay on the device: one value per channel
            q = xp.partition(mwi, k, axis=-1)[:, k]
            flat, bounds, _ = self.sig.find_peaks_batch(
                mwi, height=HEIGHT_FRAC * q, distance=DISTANCE,
                prominence=PROMINENCE_FRAC * q)
            return flat, bounds
        q = self.host(xp.partition(mwi, k, axis=-1)[:, k])
        if self.joined_peaks:
            return self._batch_detect_joined(mwi, q)
        found = []
        for c in range(mwi.shape[0]):
            qc = float(q[c])
            peaks, _ = self.sig.find_peaks(
                mwi[c], height=HEIGHT_FRAC * qc, distance=DISTANCE,
                prominence=PROMINENCE_FRAC * qc)
            found.append(peaks)
        bounds = np.zeros(len(found) + 1, dtype=np.int64)
        bounds[1:] = np.cumsum([int(p.shape[0]) for p in found])
        flat = (xp.concatenate(found) if found
                else xp.zeros(0, dtype=np.int64))
        return flat, bounds

    def _batch_detect_joined(self, mwi, q):
        """``find_peaks(mwi[c], height=HEIGHT_FRAC q[c], distance=DISTANCE,
        prominence=PROMINENCE_FRAC q[c])`` for every channel ``c`` in a few
        passes over all channels, with SciPy's stages in SciPy's order.

        The channels are laid end to end with one ``+inf`` sample after
        each. Within a channel nothing changes: its first and last samples
        border a higher value, so (as at a signal's ends) they are no peaks,
        and a prominence's base search stops at the channel's edge as
        SciPy's stops at the signal's. The ``+inf`` samples are peaks
        themselves and are dropped by position. Stages: local maxima above
        the smallest height threshold (one ``find_peaks`` call); each
        channel's own height threshold; ``distance`` per channel on the host
        (its tie order is that of NumPy's argsort of that channel's heights,
        as SciPy's); ``peak_prominences`` of the survivors against each
        channel's threshold.
        """
        from gpuscipy.signal._peak_finding import select_by_peak_distance
        xp = self.xp
        nch, n = mwi.shape
        w = n + 1
        sep = xp.full((nch, 1), np.inf, dtype=mwi.dtype)
        joined = xp.concatenate((mwi, sep), axis=1).reshape(-1)
        hq, pq = HEIGHT_FRAC * q, PROMINENCE_FRAC * q
        cand, props = self.sig.find_peaks(joined, height=float(hq.min()))
        cand_h = self.host(cand)
        heights = self.host(props["peak_heights"])
        ch, pos = np.divmod(cand_h, w)
        ok = (pos < n) & (heights >= hq[ch])
        cand_h, ch, heights = cand_h[ok], ch[ok], heights[ok]
        starts = np.searchsorted(ch, np.arange(nch + 1))
        keep = np.ones(cand_h.size, dtype=bool)
        for c in range(nch):
            a, b = starts[c], starts[c + 1]
            if b - a > 1:
                keep[a:b] = select_by_peak_distance(cand_h[a:b] - c * w, heights[a:b],
                                                    DISTANCE)
        kept = cand_h[keep]
        prom = self.host(self.sig.peak_prominences(joined, xp.asarray(kept))[0])
        final = kept[prom >= pq[kept // w]]
        ch = final // w
        bounds = np.searchsorted(ch, np.arange(nch + 1)).astype(np.int64)
        return xp.asarray(final - ch * w), bounds

    def batch_refine(self, peaks, x):
        xp = self.xp
        flat, bounds = peaks
        n = x.shape[-1]
        rows = np.repeat(np.arange(x.shape[0], dtype=np.int64), np.diff(bounds))
        offsets = xp.arange(-REFINE_HALF, REFINE_HALF + 1, dtype=np.int64)
        idx = xp.clip(flat[:, None] + offsets[None, :], 0, n - 1)
        linear = idx + xp.asarray((rows * n)[:, None])
        best = xp.argmax(xp.abs(xp.take(x, linear, mode="clip")), axis=1)
        return xp.clip(flat + (best - REFINE_HALF), 0, n - 1), bounds


# ---------------------------------------------------------------------------
# checks and selections of the batch
# ---------------------------------------------------------------------------

def _same_peaks(rows):
    """Exact check of batch peaks on the channels SciPy ran."""

    def check(gpu, cpu):
        gflat, gb = (np.asarray(a) for a in gpu)
        cflat, cb = (np.asarray(a) for a in cpu)
        differ, total = [], 0
        for j, r in enumerate(rows):
            g = gflat[gb[r]:gb[r + 1]]
            c = cflat[cb[j]:cb[j + 1]]
            total += c.size
            if g.shape != c.shape or not np.array_equal(g, c):
                differ.append(int(r))
        if differ:
            return False, (f"channels {differ[:4]}{' ...' if len(differ) > 4 else ''}"
                           f": {len(differ)} of {len(rows)} differ")
        return True, f"exact ({total:,} beats, {len(rows)} ch)"

    return custom(check, kind="exact")


def _row_select(rows, channels, item=None):
    """Select ``rows`` of a GPU batch output (of tuple item ``item``)."""
    if len(rows) == channels:
        return None

    def select(value):
        import gpuscipy_core as gp

        r = gp.asarray(rows)
        if item is None:
            return gp.take(value, r, axis=0)
        value = list(value)
        value[item] = gp.take(value[item], r, axis=0)
        return tuple(value)

    return select


# ---------------------------------------------------------------------------
# plots and facts
# ---------------------------------------------------------------------------

def _draw_beats(fig, out):
    clean = out.get("clean")
    raw = out.get("ecg")
    t0, t1 = EXCERPT_S
    a, b = int(t0 * FS), int(t1 * FS)
    t = np.arange(a, b) / FS
    ax = fig.subplots()
    if raw is not None:
        ax.plot(t, raw[a:b], color="0.75", lw=0.8, label="raw (MLII)")
    ax.plot(t, clean[a:b], color="C0", lw=0.9, label="filtered (GPU)")
    for key, side, style in (("r_peaks", out.gpu, dict(marker="x", color="C3",
                                                       s=40, label="beats, GPU")),
                             ("r_peaks", out.cpu, dict(marker="o", s=90,
                                                       facecolors="none",
                                                       edgecolors="k",
                                                       label="beats, SciPy"))):
        p = side(key)
        if p is None:
            continue
        p = np.asarray(p)
        p = p[(p >= a) & (p < b)]
        ax.scatter(p / FS, clean[p], zorder=3, **style)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("mV")
    ax.set_title(f"MIT-BIH record 208, {t0:g}-{t1:g} s: detected beats")
    # Outside the axes: inside, it hid the beats near the window's end.
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=4,
              fontsize="small", frameon=False)


def _draw_psd(fig, out):
    ax = fig.subplots()
    for side, style, label in ((out.gpu, dict(color="C0", lw=1.2), "GPU"),
                               (out.cpu, dict(color="k", lw=0.8, ls="--"),
                                "SciPy")):
        v = side("psd")
        if v is not None:
            f, p = v
            ax.semilogy(f, p, label=f"welch, {label}", **style)
    ax.set_xlabel("frequency (Hz)")
    ax.set_ylabel("PSD (mV$^2$/Hz)")
    ax.set_xlim(0, FS / 2)
    ax.set_title("Filtered ECG: Welch PSD (nperseg 2048), 60 Hz notched")
    ax.legend(loc="upper right", fontsize="small")


def _draw_heart_rate(fig, out):
    r, hr = out.get("r_peaks"), out.get("hr")
    ax = fig.subplots()
    ax.plot(np.asarray(r)[1:] / FS, hr, ".-", lw=0.6, ms=3)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("beats per minute")
    ax.set_title("Heart rate from the detected beats (60 fs / RR)")


def _draw_spectrogram(fig, out):
    f, t, s = out.get("spec")
    keep = f <= 50
    ax = fig.subplots()
    img = ax.pcolormesh(t, f[keep], 10 * np.log10(s[keep] + 1e-12),
                        shading="auto", cmap="viridis")
    fig.colorbar(img, ax=ax, label="dB (mV$^2$/Hz)")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("frequency (Hz)")
    ax.set_title("Spectrogram of the filtered ECG (nperseg 256, overlap 128)")


def _facts(out) -> dict:
    facts = {}
    for label, side in (("GPU", out.gpu), ("SciPy", out.cpu)):
        r = side("r_peaks")
        if r is not None:
            facts[f"beats ({label})"] = int(np.asarray(r).size)
    hr = out.get("hr")
    if hr is not None and np.size(hr):
        facts["mean heart rate (bpm)"] = round(float(np.mean(hr)), 1)
    b = out.gpu("b_r_peaks")
    if b is None:
        b = out.cpu("b_r_peaks")
    if b is not None:
        counts = np.diff(np.asarray(b[1]))
        facts["batch beats per channel (min/median/max)"] = (
            f"{counts.min()}/{int(np.median(counts))}/{counts.max()}"
            if counts.size else "-")
    return facts


# ---------------------------------------------------------------------------
# the pipeline
# ---------------------------------------------------------------------------

@register("ecg", title="ECG beat detection, MIT-BIH record 208 (300 s, 360 Hz) "
                       "and a batch of channels", order=10)
def build(options: Options, *, channels: int | None = None,
          cpu_channels: int | None = None) -> Pipeline:
    """The ECG pipeline.

    Parameters
    ----------
    options : Options
    channels : int, optional
        Channels of the batch steps (default 4096, 512 with ``quick``).
    cpu_channels : int, optional
        Channels SciPy runs in the batch steps (default: all, 8 with
        ``quick``), evenly spaced.
    """
    C = int(channels or (CHANNELS_QUICK if options.quick else CHANNELS))
    m = int(cpu_channels or (min(C, CPU_CHANNELS_QUICK) if options.quick else C))
    m = max(1, min(m, C))
    rows = np.unique(np.linspace(0, C - 1, m).round().astype(np.int64))
    all_rows = np.arange(C, dtype=np.int64)
    scale = C / rows.size
    note = (f"SciPy ran on {rows.size} of {C} channels; its time is scaled "
            f"by {scale:g}" if rows.size < C else "")

    def setup_gpu():
        import gpuscipy_core as gp
        from gpuscipy import signal

        ecg = load_ecg()
        st = {"ecg": gp.asarray(ecg)}
        st.update(design(signal))
        st["derivative"] = gp.asarray(DERIVATIVE)
        st["boxcar"] = gp.asarray(BOXCAR)
        st["b_tables"] = tuple(gp.asarray(t) for t in
                               batch_plan(ecg.size, C).tables())
        st["chain"] = Chain(signal, gp, gp.asnumpy, joined_peaks=True)
        return st

    def setup_cpu():
        import scipy.signal

        ecg = load_ecg()
        st = {"ecg": ecg}
        st.update(design(scipy.signal))
        st["derivative"] = DERIVATIVE
        st["boxcar"] = BOXCAR
        st["b_tables"] = batch_plan(ecg.size, C).tables()
        st["chain"] = Chain(scipy.signal, np, np.asarray)
        return st

    # Each callable takes the side's Chain first (a state entry), so one
    # definition serves both sides.
    def both(method):
        def call(chain, *args):
            return getattr(chain, method)(*args)
        return call

    def build_gpu(chain, ecg, tables):
        return make_batch(chain.xp, ecg, tables, batch_plan(ecg.shape[0], C),
                          all_rows)

    def build_cpu(chain, ecg, tables):
        return make_batch(np, ecg, tables, batch_plan(ecg.shape[0], C), rows)

    def step(name, out, method, *inputs, check, batch=False, select=None,
             repeat=None):
        fn = both(method)
        return Step(name, out, ("chain",) + inputs, gpu=fn, cpu=fn, check=check,
                    select=select, cpu_scale=scale if batch else 1.0,
                    note=note if batch else "", repeat=repeat)

    sel = _row_select(rows, C)
    bt = f"batch {C} ch:"
    steps = [
        step("baseline: sosfiltfilt, 0.5 Hz high-pass", "hp", "baseline",
             "ecg", "sos_hp", check=close(TOL)),
        step("mains: filtfilt, 60 Hz iirnotch Q=30", "clean", "notch",
             "hp", "notch_ba", check=close(TOL)),
        step("QRS band-pass: sosfiltfilt, 5-15 Hz", "qrs", "bandpass",
             "clean", "sos_bp", check=close(TOL)),
        step("derivative: convolve, 5 taps", "deriv", "convolve",
             "qrs", "derivative", check=close(TOL)),
        step("squaring", "sq", "square", "deriv", check=close(TOL)),
        step("integration: convolve, 150 ms boxcar", "mwi", "convolve",
             "sq", "boxcar", check=close(TOL)),
        step("R peaks: find_peaks (height, distance, prom.)", "peaks", "detect",
             "mwi", check=exact()),
        step("refine R: argmax |ECG| within 75 ms", "r_peaks", "refine",
             "peaks", "clean", check=exact()),
        step("heart rate: 60 fs / diff(peaks)", "hr", "heart_rate",
             "r_peaks", check=allclose(rtol=1e-12, atol=0.0)),
        step("PSD: welch, nperseg 2048", "psd", "welch", "clean",
             check=close(TOL)),
        step("spectrogram: nperseg 256, overlap 128", "spec", "spectrogram",
             "clean", check=close(TOL)),
        step("resample_poly 360 -> 500 Hz (25/18)", "res", "resample",
             "clean", check=close(TOL)),
        Step(f"{bt} build from record 208", "b_raw",
             ("chain", "ecg", "b_tables"), gpu=build_gpu, cpu=build_cpu,
             check=exact(), select=sel, cpu_scale=scale, note=note),
        step(f"{bt} sosfiltfilt high-pass", "b_hp", "baseline", "b_raw",
             "sos_hp", check=close(TOL), batch=True, select=sel),
        step(f"{bt} filtfilt 60 Hz notch", "b_clean", "notch", "b_hp",
             "notch_ba", check=close(TOL), batch=True, select=sel),
        step(f"{bt} sosfiltfilt 5-15 Hz", "b_qrs", "bandpass", "b_clean",
             "sos_bp", check=close(TOL), batch=True, select=sel),
        step(f"{bt} derivative, oaconvolve", "b_deriv", "batch_convolve",
             "b_qrs", "derivative", check=close(TOL), batch=True, select=sel),
        step(f"{bt} squaring", "b_sq", "square", "b_deriv", check=close(TOL),
             batch=True, select=sel),
        step(f"{bt} integration, oaconvolve", "b_mwi", "batch_convolve",
             "b_sq", "boxcar", check=close(TOL), batch=True, select=sel),
        step(f"{bt} R peaks, find_peaks", "b_peaks", "batch_detect",
             "b_mwi", check=_same_peaks(rows), batch=True, repeat=3),
        step(f"{bt} refine R peaks", "b_r_peaks", "batch_refine", "b_peaks",
             "b_clean", check=_same_peaks(rows), batch=True),
        step(f"{bt} welch", "b_psd", "welch", "b_clean", check=close(TOL),
             batch=True, select=_row_select(rows, C, item=1)),
        step(f"{bt} spectrogram", "b_spec", "spectrogram", "b_clean",
             check=close(TOL), batch=True, select=_row_select(rows, C, item=2)),
        step(f"{bt} resample_poly 25/18", "b_res", "resample", "b_clean",
             check=close(TOL), batch=True, select=sel),
    ]
    return Pipeline(
        name="ecg",
        title=(f"MIT-BIH record 208, 300 s at 360 Hz; batch of {C} channels "
               f"x 108,000 samples"),
        steps=steps, setup_gpu=setup_gpu, setup_cpu=setup_cpu,
        plots=[Plot("ecg_beats.png", _draw_beats, (12.0, 4.0)),
               Plot("ecg_psd.png", _draw_psd, (8.0, 4.5)),
               Plot("ecg_heart_rate.png", _draw_heart_rate, (10.0, 3.5)),
               Plot("ecg_spectrogram.png", _draw_spectrogram, (10.0, 4.0))],
        facts=_facts,
        keep=("ecg", "clean", "r_peaks", "hr", "psd", "spec", "b_r_peaks"),
        description=__doc__.split("\n\n")[0])
