"""gpuscipy.signal's public names: SciPy's names, signatures and docstrings."""

import inspect

import pytest
import scipy.signal as ss

import gpuscipy.signal as gs

EXTENSIONS = ["find_peaks_batch"]        # gpuscipy's own additions, not in SciPy
NAMES = [n for n in gs.__all__ if n != "windows" and n not in EXTENSIONS]


def _params(f):
    return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()
            if p.name not in ("xp", "device")]


@pytest.mark.parametrize("name", NAMES)
def test_signature_docstring_and_module(name):
    f = getattr(gs, name)
    assert _params(f) == _params(getattr(ss, name))
    doc = f.__doc__ or ""
    assert "Parameters" in doc and "Returns" in doc, name
    assert f.__module__.startswith("gpuscipy.signal")


@pytest.mark.parametrize("name", EXTENSIONS)
def test_extensions_are_documented_as_such(name):
    f = getattr(gs, name)
    assert not hasattr(ss, name)
    doc = f.__doc__ or ""
    assert "gpuscipy extension" in doc and "Parameters" in doc and "Returns" in doc
    assert f.__module__ == "gpuscipy.signal"


def test_issue_slice_is_complete():
    # the first slice of scipy.signal that gpuscipy.signal promises
    wanted = """butter cheby1 cheby2 ellip bessel iirnotch iirpeak iirfilter firwin
    firwin2 sos2tf tf2sos zpk2sos lfilter lfilter_zi lfiltic filtfilt sosfilt
    sosfilt_zi sosfiltfilt convolve correlate convolve2d correlate2d fftconvolve
    oaconvolve choose_conv_method correlation_lags upfirdn resample resample_poly
    decimate hilbert detrend find_peaks peak_prominences peak_widths argrelmin
    argrelmax argrelextrema welch periodogram csd coherence spectrogram stft istft
    get_window medfilt savgol_filter""".split()
    assert sorted(set(wanted) - set(gs.__all__)) == []
    assert set(ss.windows.__all__) <= set(dir(gs.windows))


def test_import_does_not_import_scipy_signal():
    """scipy.signal (most of a second to import) is imported only when a
    host helper first needs it; windows and get_window load on first use."""
    import subprocess
    import sys
    code = ("import sys, gpuscipy.signal as g; "
            "assert 'scipy.signal' not in sys.modules, 'eager'; "
            "assert 'windows' in dir(g) and 'get_window' in dir(g); "
            "w = g.windows; assert g.get_window is w.get_window; "
            "assert 'scipy.signal' in sys.modules; "
            "from gpuscipy.signal import *; "
            "from gpuscipy.signal._peak_finding import PeakPropertyWarning as P; "
            "import scipy.signal._peak_finding_utils as u; assert P is u.PeakPropertyWarning")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        gs.nope
