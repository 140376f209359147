"""NumPy model of the blocked IIR algorithm of ``_iir.cuh``.

The same chunks, the same matrices (built from unit-state steps, binary
powering with the kernels' product order), the same Brent-Kung scan levels,
Horner folds and double-double carry (:class:`DD`, :class:`CDD`: the
kernels' operations, Dekker's exact product in place of fma; the kernels'
compensated sums of products in the matrix products) as the
kernels, vectorised over chunks and channels. The CPU tests check it against ``scipy.signal`` so the algorithm
is verified without a GPU; :func:`model_filter` follows the same
:func:`~gpuscipy.signal._iir_kernels.plan` as the launches.

Arrays: ``x`` (channels, n) and ``zi`` (channels, D) in the compute dtype;
``coefs`` as :func:`~gpuscipy.signal._iir_kernels.pack` takes them.
"""

import math

import numpy

from ._iir_kernels import carry_threads, fused_threads, plan, state_size

__all__ = ["DD", "CDD", "Health", "LIMITS", "widen", "narrow", "step", "step_matrix", "mat_mul", "mat_pow",
           "run_chunks", "model_serial", "model_fused", "model_scan", "model_filter"]

_SPLIT = 134217729.0  # 2^27 + 1


def _split(a):
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def _two_prod(a, b):
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _quick_two_sum(a, b):
    s = a + b
    return s, b - (s - a)


class DD:
    """Arrays of double-double numbers (hi + lo), with the kernels' +, -, *
    and NumPy-style indexing."""

    __array_ufunc__ = None  # NumPy operands defer to these operators

    def __init__(self, hi, lo=None):
        self.hi = numpy.asarray(hi, numpy.float64)
        self.lo = numpy.zeros_like(self.hi) if lo is None else numpy.asarray(lo, numpy.float64)

    @staticmethod
    def zeros(shape):
        return DD(numpy.zeros(shape))

    @property
    def shape(self):
        return self.hi.shape

    def copy(self):
        return DD(self.hi.copy(), self.lo.copy())

    def reshape(self, shape):
        return DD(self.hi.reshape(shape), self.lo.reshape(shape))

    def __getitem__(self, k):
        return DD(self.hi[k], self.lo[k])

    def __setitem__(self, k, v):
        v = _dd(v)
        self.hi[k] = v.hi
        self.lo[k] = v.lo

    def __add__(self, o):
        o = _dd(o)
        s, e = _two_sum(self.hi, o.hi)
        t, f = _two_sum(self.lo, o.lo)
        e = e + t
        s, e = _quick_two_sum(s, e)
        e = e + f
        return DD(*_quick_two_sum(s, e))

    __radd__ = __add__

    def __neg__(self):
        return DD(-self.hi, -self.lo)

    def __sub__(self, o):
        return self + (-_dd(o))

    def __rsub__(self, o):
        return _dd(o) + (-self)

    def __mul__(self, o):
        o = _dd(o)
        p, e = _two_prod(self.hi, o.hi)
        e = e + (self.hi * o.lo + self.lo * o.hi)
        return DD(*_quick_two_sum(p, e))

    __rmul__ = __mul__


class CDD:
    """Complex double-double arrays (re, im :class:`DD`)."""

    __array_ufunc__ = None

    def __init__(self, re, im=None):
        self.re = _dd(re)
        self.im = DD.zeros(self.re.shape) if im is None else _dd(im)

    @staticmethod
    def zeros(shape):
        return CDD(DD.zeros(shape), DD.zeros(shape))

    @property
    def shape(self):
        return self.re.shape

    def copy(self):
        return CDD(self.re.copy(), self.im.copy())

    def reshape(self, shape):
        return CDD(self.re.reshape(shape), self.im.reshape(shape))

    def __getitem__(self, k):
        return CDD(self.re[k], self.im[k])

    def __setitem__(self, k, v):
        v = _cdd(v)
        self.re[k] = v.re
        self.im[k] = v.im

    def __add__(self, o):
        o = _cdd(o)
        return CDD(self.re + o.re, self.im + o.im)

    __radd__ = __add__

    def __sub__(self, o):
        o = _cdd(o)
        return CDD(self.re - o.re, self.im - o.im)

    def __rsub__(self, o):
        return _cdd(o) - self

    def __mul__(self, o):
        o = _cdd(o)
        return CDD(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)

    __rmul__ = __mul__


def _dd(v):
    return v if isinstance(v, DD) else DD(v)


def _cdd(v):
    if isinstance(v, CDD):
        return v
    if isinstance(v, DD):
        return CDD(v)
    v = numpy.asarray(v)
    return CDD(DD(v.real), DD(v.imag))


def widen(a):
    """The exact double-double (complex: CDD) value of a NumPy array."""
    a = numpy.asarray(a)
    if a.dtype.kind == "c":
        return CDD(DD(a.real.astype(numpy.float64)), DD(a.imag.astype(numpy.float64)))
    return DD(a.astype(numpy.float64))


def narrow(v, dtype):
    """Round a carried value to ``dtype`` (the kernels take the high parts)."""
    if isinstance(v, CDD):
        return (v.re.hi + 1j * v.im.hi).astype(dtype)
    return v.hi.astype(dtype)


def _czeros(shape, dtype):
    return CDD.zeros(shape) if numpy.dtype(dtype).kind == "c" else DD.zeros(shape)


def step(kind, order, c, x, z):
    """One sample through the filter for a batch: ``x`` (B,), ``z`` (B, D)
    updated in place; returns y (B,). SciPy's expressions and order."""
    if kind == "ba":
        n = order
        b, a = c[:n + 1], c[n + 1:]
        y = z[:, 0] + b[0] * x
        for i in range(n - 1):
            z[:, i] = z[:, i + 1] + x * b[i + 1] - y * a[i + 1]
        z[:, n - 1] = x * b[n] - y * a[n]
        return y
    for s in range(order):
        q = c[5 * s:5 * s + 5]
        y = q[0] * x + z[:, 2 * s]
        z[:, 2 * s] = q[1] * x - q[3] * y + z[:, 2 * s + 1]
        z[:, 2 * s + 1] = q[2] * x - q[4] * y
        x = y
    return x


def step_matrix(kind, order, c):
    """A: column j is one zero-input step from the unit state e_j.

    ``c``: NumPy coefficients (A in their dtype) or :func:`widen` of them
    (A in double-double)."""
    d = state_size(kind, order)
    if isinstance(c, (DD, CDD)):
        z = widen(numpy.eye(d, dtype=numpy.complex128 if isinstance(c, CDD) else None))
        x = widen(numpy.zeros(d, numpy.complex128 if isinstance(c, CDD) else None))
        step(kind, order, c, x, z)
        t = _czeros((d, d), numpy.complex128 if isinstance(c, CDD) else numpy.float64)
        for j in range(d):
            t[:, j] = z[j, :]
        return t
    z = numpy.eye(d, dtype=c.dtype)
    step(kind, order, c, numpy.zeros(d, c.dtype), z)
    return numpy.ascontiguousarray(z.T)


def _mag(a):
    if isinstance(a, CDD):
        return numpy.maximum(numpy.abs(a.re.hi), numpy.abs(a.im.hi))
    return numpy.abs(a.hi if isinstance(a, DD) else a)


class Health:
    """The kernels' `bad` flag: set when a matrix entry exceeds ``limit``
    (lfilter: 1e8, sosfilt: not finite; see _iir.cuh)."""

    def __init__(self, kind):
        self.limit = LIMITS[kind]
        self.bad = False

    def check(self, a):
        m = _mag(a)
        if not (m <= self.limit).all():
            self.bad = True
        return a


LIMITS = {"ba": 1e8, "sos": numpy.finfo(numpy.float64).max}


def _acc_prod(s, c, a, b):
    """The kernels' ``acc_prod`` on double arrays: ``(s, c) += a b`` for DD
    ``a``, ``b`` (compensated: ``s`` the running sum, ``c`` the errors)."""
    p, e = _two_prod(a.hi, b.hi)
    e = e + (a.hi * b.lo + a.lo * b.hi)
    t = s + p
    bb = t - s
    return t, c + (((s - (t - bb)) + (p - bb)) + e)


def _acc(start, terms):
    """``start + sum(a b for a, b in terms)`` as the kernels' compensated
    sum (acc_start, acc_prod in order, acc_done); DD or CDD values."""
    if isinstance(start, CDD) or any(isinstance(a, CDD) or isinstance(b, CDD)
                                     for a, b in terms):
        start = _cdd(start)
        re, im = (start.re.hi, start.re.lo), (start.im.hi, start.im.lo)
        for a, b in terms:
            a, b = _cdd(a), _cdd(b)
            re = _acc_prod(*_acc_prod(*re, a.re, b.re), -a.im, b.im)
            im = _acc_prod(*_acc_prod(*im, a.re, b.im), a.im, b.re)
        return CDD(DD(*_quick_two_sum(*re)), DD(*_quick_two_sum(*im)))
    start = _dd(start)
    sc = (start.hi, start.lo)
    for a, b in terms:
        sc = _acc_prod(*sc, _dd(a), _dd(b))
    return DD(*_quick_two_sum(*sc))


def mat_mul(a, b, health=None):
    """a b with the kernels' compensated sums in k order (k = 0, 1, ...)."""
    d = a.shape[1]
    zero = _czeros((a.shape[0], b.shape[1]),
                   numpy.complex128 if isinstance(a, CDD) else numpy.float64)
    s = _acc(zero, [(a[:, k:k + 1], b[k:k + 1, :]) for k in range(d)])
    return s if health is None else health.check(s)


def mat_pow(a, e, health=None):
    """a^e (e >= 1) by the kernels' binary powering."""
    out = None
    while True:
        if e & 1:
            out = a.copy() if out is None else mat_mul(out, a, health)
        e >>= 1
        if e == 0:
            return out
        a = mat_mul(a, a, health)


def _mat_vec_add(acc, m, v):
    """acc + m v over the last axis (compensated row sums in k order),
    batched."""
    out = acc.copy()
    for r in range(m.shape[0]):
        out[..., r] = _acc(acc[..., r], [(m[r, k], v[..., k]) for k in range(m.shape[1])])
    return out


def _block_scan(v, mats):
    """Inclusive scan over axis -2 (the block's threads) in the kernels'
    Brent-Kung order: up-sweep, then down-sweep (``block_scan``)."""
    v = v.copy()
    nt = v.shape[-2]
    levels = [(i, numpy.arange(2 * (1 << i) - 1, nt, 2 * (1 << i))) for i in range(len(mats))]
    levels += [(i, numpy.arange(3 * (1 << i) - 1, nt, 2 * (1 << i)))
               for i in range(len(mats) - 2, -1, -1)]
    for i, t in levels:
        if t.size:
            v[..., t, :] = _mat_vec_add(v[..., t, :], mats[i], v[..., t - (1 << i), :])
    return v


def _levels(m0, k, health=None):
    mats = [m0]
    for _ in range(1, k):
        mats.append(mat_mul(mats[-1], mats[-1], health))
    return mats


def run_chunks(kind, order, c, xs, lens, z, write=True):
    """Filter a batch of chunks: ``xs`` (B, L), valid lengths ``lens`` (B,),
    states ``z`` (B, D) updated in place; returns the outputs (B, L) (zero
    past each length) or None."""
    B, L = xs.shape
    y = numpy.zeros_like(xs) if write else None
    for j in range(L):
        active = j < lens
        if not active.any():
            break
        zn = z.copy()
        o = step(kind, order, c, xs[:, j], zn)
        z[active] = zn[active]
        if write:
            y[active, j] = o[active]
    return y


def _chunked(x, L, G):
    nch, n = x.shape
    xp = numpy.zeros((nch, G * L), x.dtype)
    xp[:, :n] = x
    lens = numpy.clip(n - numpy.arange(G) * L, 0, L)
    return xp.reshape(nch * G, L), numpy.tile(lens, nch)


def model_serial(kind, order, c, x, zi=None):
    """One thread per channel over all samples (the 'serial' plan)."""
    nch, n = x.shape
    d = state_size(kind, order)
    z = numpy.zeros((nch, d), x.dtype) if zi is None else zi.astype(x.dtype, copy=True)
    y = run_chunks(kind, order, c, x, numpy.full(nch, n), z)
    return y, z


def model_fused(kind, order, c, x, zi=None, nt=None):
    """The fused kernel: ``nt`` chunks of ceil(n / nt) samples per channel,
    carried states scanned across the block (Brent-Kung)."""
    nch, n = x.shape
    d = state_size(kind, order)
    nt = nt or fused_threads(d)
    L = -(-n // nt)
    cc = widen(c)
    xs, lens = _chunked(x, L, nt)
    z = numpy.zeros((nch * nt, d), x.dtype)
    run_chunks(kind, order, c, xs, lens, z, write=False)
    health = Health(kind)
    A = health.check(step_matrix(kind, order, cc))
    mats = _levels(mat_pow(A, L, health), int(math.log2(nt)), health)
    if health.bad:
        return model_serial(kind, order, c, x, zi)
    e = widen(z.reshape(nch, nt, d))
    zc = _czeros((nch, d), x.dtype) if zi is None else widen(zi)
    if zi is not None:  # chunk 0 starts from zi (the kernel skips a zero zi)
        e[:, 0] = _mat_vec_add(e[:, 0], mats[0], zc)
    inc = _block_scan(e, mats)
    s = narrow(inc, x.dtype)
    z = numpy.concatenate([narrow(zc, x.dtype)[:, None], s[:, :-1]], axis=1)
    z = z.reshape(nch * nt, d)
    y = run_chunks(kind, order, c, xs, lens, z).reshape(nch, nt * L)[:, :n]
    last = (n - 1) // L
    return y, z.reshape(nch, nt, d)[:, last].copy()


def _carry_states(ep, phi, mats, zc, nt, m):
    """The carry kernel on a batch of segments: ``ep`` (B, nt m, D) widened
    zero-state chunk finals (zero past the segment), ``zc`` (B, D) the
    segment's start. Returns the state entering every chunk (B, nt m, D)
    and the state after the last one (B, D), widened."""
    B, _, d = ep.shape
    ep = ep.reshape((B, nt, m, d))
    a = type(ep).zeros((B, nt, d))
    a[:, 0] = zc
    # Horner folds: thread j over chunks [j m, (j + 1) m)
    for i in range(m):
        a = _mat_vec_add(ep[:, :, i], phi, a)
    inc = _block_scan(a, mats)
    s = type(ep).zeros((B, nt, d))
    s[:, 0] = zc
    s[:, 1:] = inc[:, :-1]
    st = type(ep).zeros((B, nt, m, d))
    for i in range(m):
        st[:, :, i] = s
        s = _mat_vec_add(ep[:, :, i], phi, s)
    return st.reshape((B, nt * m, d)), s[:, nt - 1]


def _carry_matrices(kind, order, cc, L, m, nt):
    """(Phi = A^L, the scan's matrices (Phi^m)^(2^i), Health) as a carry
    block builds them."""
    health = Health(kind)
    phi = mat_pow(health.check(step_matrix(kind, order, cc)), L, health)
    mats = _levels(mat_pow(phi.copy(), m, health), int(math.log2(nt)), health)
    return phi, mats, health


def _padded(z, G, width):
    """(nch, G, D) chunk finals, zero-padded to ``width`` chunks, widened."""
    nch, _, d = z.shape
    ep = numpy.zeros((nch, width, d), z.dtype)
    ep[:, :G] = z
    return widen(ep)


def model_scan(kind, order, c, x, zi=None, L=None, nt=None, S=0):
    """The scan plan: chunk states, carry (each of ``nt`` threads folds m
    chunks, a Brent-Kung scan across threads, walk), apply. ``S``: chunks
    per carry segment (0 or >= G: one carry block per channel); segmented,
    the carry runs as segment totals, the totals carried as chunks of L S
    samples, and a walk of every segment from its incoming state."""
    nch, n = x.shape
    d = state_size(kind, order)
    nt = nt or carry_threads(d)
    G = -(-n // L)
    cc = widen(c)
    xs, lens = _chunked(x, L, G)
    z = numpy.zeros((nch * G, d), x.dtype)
    run_chunks(kind, order, c, xs, lens, z, write=False)
    z = z.reshape(nch, G, d)
    zc = _czeros((nch, d), x.dtype) if zi is None else widen(zi)
    if not S or S >= G:
        m = -(-G // nt)
        phi, mats, health = _carry_matrices(kind, order, cc, L, m, nt)
        if health.bad:
            return model_serial(kind, order, c, x, zi)
        st, _ = _carry_states(_padded(z, G, nt * m), phi, mats, zc, nt, m)
        st = narrow(st, x.dtype)[:, :G]
    else:
        m, nb = S // nt, -(-G // S)
        phi, mats, health = _carry_matrices(kind, order, cc, L, m, nt)
        if health.bad:     # then the middle carry is unhealthy too
            return model_serial(kind, order, c, x, zi)
        ep_seg = _padded(z, G, nb * S).reshape((nch * nb, S, d))
        zero = _czeros((nch * nb, d), x.dtype)
        _, totals = _carry_states(ep_seg, phi, mats, zero, nt, m)
        mt = -(-nb // nt)
        phi_t, mats_t, health_t = _carry_matrices(kind, order, cc, L * S, mt, nt)
        if health_t.bad:   # segment starts by the serial recursion
            starts = numpy.empty((nch, nb, d), x.dtype)
            zs = numpy.zeros((nch, d), x.dtype) if zi is None else zi.astype(x.dtype, copy=True)
            xp = numpy.zeros((nch, nb * S * L), x.dtype)
            xp[:, :n] = x
            for k in range(nb):
                starts[:, k] = zs
                if k + 1 < nb:
                    run_chunks(kind, order, c, xp[:, k * S * L:(k + 1) * S * L],
                               numpy.full(nch, S * L), zs, write=False)
            seg_in = widen(starts)
        else:
            tot = _czeros((nch, nt * mt, d), x.dtype)
            tot[:, :nb] = totals.reshape((nch, nb, d))
            seg_in, _ = _carry_states(tot, phi_t, mats_t, zc, nt, mt)
            seg_in = seg_in[:, :nb]
        st, _ = _carry_states(ep_seg, phi, mats, seg_in.reshape((nch * nb, d)), nt, m)
        st = narrow(st, x.dtype).reshape(nch, nb * S, d)[:, :G]
    z = st.reshape(nch * G, d)
    y = run_chunks(kind, order, c, xs, lens, z).reshape(nch, G * L)[:, :n]
    return y, z.reshape(nch, G, d)[:, G - 1].copy()


def model_filter(kind, order, c, x, zi=None, staged=True):
    """What the launches compute for this input (same plan)."""
    nch, n = x.shape
    p = plan(nch, n, state_size(kind, order), staged)
    if p.path == "serial":
        return model_serial(kind, order, c, x, zi)
    if p.path == "fused":
        return model_fused(kind, order, c, x, zi, nt=p.nt)
    return model_scan(kind, order, c, x, zi, L=p.L, nt=p.nt, S=p.S)
