"""Agreement checks between a GPU step's output and SciPy's.

A check is called as ``check(gpu, cpu)`` with both values on the host (the
GPU output copied with ``gpuscipy_core.asnumpy``) and returns a
:class:`CheckResult`. Values may be arrays, scalars, or tuples/lists of
them (``welch`` returns ``(f, Pxx)``); tuples are compared item by item.

- :func:`close`: norm-wise, ``max|gpu - cpu| <= tol * max|cpu|``. The
  error it reports is that ratio. Scale-free, so one tolerance serves
  millivolts and squared derivatives alike, and FFT-based results (whose
  rounding error is relative to the largest value, not to each element)
  are judged fairly.
- :func:`allclose`: element-wise, NumPy's ``allclose`` rule
  ``|gpu - cpu| <= atol + rtol * |cpu|``; reports the largest absolute
  error.
- :func:`exact`: same shape, dtype kind and values (indices, counts).
- :func:`custom`: any function returning a :class:`CheckResult` or
  ``(ok, detail)``.

NaNs compare equal to NaNs in the same places.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

__all__ = ["CheckResult", "Check", "close", "allclose", "exact", "custom"]


@dataclass
class CheckResult:
    """Outcome of one check.

    Attributes
    ----------
    ok : bool
    kind : str
        ``"close"``, ``"allclose"``, ``"exact"`` or ``"custom"``.
    error : float or None
        The measured error (``close``: norm-wise relative; ``allclose``:
        largest absolute), None for exact and custom checks.
    detail : str
        A short human reading ("exact", "498 peaks", "3 of 498 differ").
    tolerance : dict
        The tolerance the check applied.
    """

    ok: bool
    kind: str
    error: float | None = None
    detail: str = ""
    tolerance: dict = field(default_factory=dict)

    def summary(self) -> str:
        """What the table prints: ``1.2e-16 rel``, ``exact``, ``FAIL ...``."""
        if self.kind == "close" and self.error is not None:
            text = f"{self.error:.1e} rel"
        elif self.kind == "allclose" and self.error is not None:
            text = f"{self.error:.1e} abs"
        else:
            text = self.detail or ("ok" if self.ok else "mismatch")
        if self.ok:
            return text
        limit = self.tolerance.get("tol", self.tolerance.get("atol"))
        if limit is not None and self.kind in ("close", "allclose"):
            text += f" > {limit:.0e}"
        if self.detail and self.kind in ("close", "allclose"):
            text += f" ({self.detail})"
        return "FAIL " + text


Check = Callable[[Any, Any], CheckResult]


def _items(gpu, cpu):
    """Pair up the leaves of two values (tuples/lists item by item)."""
    if isinstance(cpu, (tuple, list)):
        if not isinstance(gpu, (tuple, list)) or len(gpu) != len(cpu):
            raise _Mismatch(f"structure differs: {type(gpu).__name__} of "
                            f"{_len(gpu)} vs {type(cpu).__name__} of {len(cpu)}")
        out = []
        for g, c in zip(gpu, cpu):
            out += _items(g, c)
        return out
    g, c = np.asarray(gpu), np.asarray(cpu)
    if g.shape != c.shape:
        raise _Mismatch(f"shape {g.shape} vs SciPy's {c.shape}")
    return [(g, c)]


def _len(v):
    try:
        return len(v)
    except TypeError:
        return "-"


class _Mismatch(Exception):
    pass


def _nan_mismatch(g, c):
    if g.dtype.kind not in "fc" and c.dtype.kind not in "fc":
        return False
    return bool(np.any(np.isnan(g) != np.isnan(c)))


def close(tol: float) -> Check:
    """Norm-wise check: ``max|gpu - cpu| <= tol * max|cpu|`` (per item).

    Parameters
    ----------
    tol : float
        Largest accepted error relative to the largest magnitude of SciPy's
        result.
    """
    tol = float(tol)

    def check(gpu, cpu):
        try:
            pairs = _items(gpu, cpu)
        except _Mismatch as e:
            return CheckResult(False, "close", None, str(e), {"tol": tol})
        worst = 0.0
        for g, c in pairs:
            if g.size == 0:
                continue
            if _nan_mismatch(g, c):
                return CheckResult(False, "close", None, "NaNs differ",
                                   {"tol": tol})
            gf = np.nan_to_num(g.astype(np.result_type(g, c, np.float64)))
            cf = np.nan_to_num(c.astype(gf.dtype))
            scale = float(np.max(np.abs(cf)))
            err = float(np.max(np.abs(gf - cf)))
            rel = err / scale if scale > 0 else (0.0 if err == 0 else np.inf)
            worst = max(worst, rel)
        return CheckResult(bool(worst <= tol), "close", worst, "", {"tol": tol})

    check.kind = "close"
    return check


def allclose(rtol: float = 1e-7, atol: float = 0.0) -> Check:
    """Element-wise check with NumPy's rule ``|gpu - cpu| <= atol + rtol*|cpu|``."""
    rtol, atol = float(rtol), float(atol)
    tolerance = {"rtol": rtol, "atol": atol}

    def check(gpu, cpu):
        try:
            pairs = _items(gpu, cpu)
        except _Mismatch as e:
            return CheckResult(False, "allclose", None, str(e), tolerance)
        worst, ok = 0.0, True
        for g, c in pairs:
            if g.size == 0:
                continue
            if _nan_mismatch(g, c):
                return CheckResult(False, "allclose", None, "NaNs differ",
                                   tolerance)
            ok &= bool(np.allclose(g, c, rtol=rtol, atol=atol, equal_nan=True))
            d = np.abs(np.nan_to_num(g.astype(np.result_type(g, c, np.float64)))
                       - np.nan_to_num(c.astype(np.result_type(g, c, np.float64))))
            worst = max(worst, float(np.max(d)))
        return CheckResult(ok, "allclose", worst, "", tolerance)

    check.kind = "allclose"
    return check


def exact() -> Check:
    """Exact check: same shapes and equal values (NaN equal to NaN)."""

    def check(gpu, cpu):
        try:
            pairs = _items(gpu, cpu)
        except _Mismatch as e:
            return CheckResult(False, "exact", None, str(e))
        total = differ = 0
        for g, c in pairs:
            total += c.size
            if _family(g.dtype) != _family(c.dtype):
                return CheckResult(False, "exact", None,
                                   f"dtype {g.dtype} vs SciPy's {c.dtype}")
            if g.size == 0:
                continue
            if g.dtype.kind in "fc" or c.dtype.kind in "fc":
                same = (g == c) | (np.isnan(g) & np.isnan(c))
            else:
                same = g == c
            differ += int(np.size(same) - np.count_nonzero(same))
        if differ:
            return CheckResult(False, "exact", None,
                               f"{differ} of {total} values differ")
        return CheckResult(True, "exact", None, "exact")

    check.kind = "exact"
    return check


def _family(dtype):
    k = np.dtype(dtype).kind
    return "int" if k in "iu" else k


def custom(fn: Callable[[Any, Any], Any], kind: str = "custom") -> Check:
    """Wrap ``fn(gpu, cpu)`` returning a CheckResult or ``(ok, detail)``."""

    def check(gpu, cpu):
        r = fn(gpu, cpu)
        if isinstance(r, CheckResult):
            return r
        ok, detail = r
        return CheckResult(bool(ok), kind, None, str(detail))

    check.kind = kind
    return check
