"""Signal processing on the GPU (``scipy.signal``'s names and signatures).

Filter design and windows run on the host through SciPy and return device
arrays; filtering (``lfilter``, ``sosfilt`` and their forward-backward
forms, parallel over time and channels), convolution, resampling, spectral
estimation and peak finding run on the GPU. Methods and measurements:
``docs/signal-*.md``.

Filter design
    butter, cheby1, cheby2, ellip, bessel, iirfilter, iirnotch, iirpeak,
    firwin, firwin2, sos2tf, tf2sos, zpk2sos
Filtering
    lfilter, lfilter_zi, lfiltic, sosfilt, sosfilt_zi, filtfilt,
    sosfiltfilt, decimate
Convolution
    convolve, correlate, fftconvolve, oaconvolve, choose_conv_method,
    correlation_lags, convolve2d, correlate2d, hilbert, medfilt,
    medfilt2d, order_filter, savgol_filter
Multirate
    upfirdn, resample, resample_poly
Spectral analysis
    periodogram, welch, csd, coherence, spectrogram, stft, istft, detrend
Peak finding
    find_peaks, peak_prominences, peak_widths, argrelmin, argrelmax,
    argrelextrema; find_peaks_batch (a gpuscipy extension: find_peaks on
    every channel of a batch at once, results CSR-style)
Windows
    get_window and :mod:`gpuscipy.signal.windows`
"""

from ._convolve import (choose_conv_method, convolve, convolve2d, correlate,
                        correlate2d, correlation_lags, fftconvolve, hilbert,
                        medfilt, oaconvolve, savgol_filter)
from ._decimate import decimate
from ._detrend import detrend
from ._filter_design import (bessel, butter, cheby1, cheby2, ellip, firwin,
                             firwin2, iirfilter, iirnotch, iirpeak, sos2tf,
                             tf2sos, zpk2sos)
from ._filtfilt import filtfilt, sosfiltfilt
from ._iir import lfilter, lfilter_zi, lfiltic, sosfilt, sosfilt_zi
from ._order_filter import medfilt2d, order_filter
from ._peak_finding import (argrelextrema, argrelmax, argrelmin, find_peaks,
                            peak_prominences, peak_widths)
from ._peak_finding_batch import find_peaks_batch
from ._resample import resample, resample_poly
from ._spectral import (coherence, csd, istft, periodogram, spectrogram, stft,
                        welch)
from ._upfirdn import upfirdn

__all__ = [
    "butter", "cheby1", "cheby2", "ellip", "bessel", "iirfilter", "iirnotch",
    "iirpeak", "firwin", "firwin2", "sos2tf", "tf2sos", "zpk2sos",
    "lfilter", "lfilter_zi", "lfiltic", "sosfilt", "sosfilt_zi", "filtfilt",
    "sosfiltfilt", "decimate",
    "convolve", "correlate", "fftconvolve", "oaconvolve", "choose_conv_method",
    "correlation_lags", "convolve2d", "correlate2d", "hilbert", "medfilt",
    "medfilt2d", "order_filter", "savgol_filter",
    "upfirdn", "resample", "resample_poly",
    "periodogram", "welch", "csd", "coherence", "spectrogram", "stft", "istft",
    "detrend",
    "find_peaks", "peak_prominences", "peak_widths", "argrelmin", "argrelmax",
    "argrelextrema", "find_peaks_batch",
    "get_window", "windows",
]

for _name in __all__:
    _f = globals().get(_name)
    if callable(_f) and getattr(_f, "__module__", "").startswith(__name__ + "._"):
        _f.__module__ = __name__
del _name, _f

_LAZY = ("windows", "get_window")


def __getattr__(name):
    # ``windows`` builds its wrappers from scipy.signal.windows, whose import
    # (all of scipy.signal, ~0.8 s) waits until a window is asked for
    if name in _LAZY:
        import importlib
        windows = importlib.import_module(__name__ + ".windows")
        globals().update(windows=windows, get_window=windows.get_window)
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
