"""Docstring paragraphs shared by the public functions of gpuscipy.fft.

A docstring asks for a paragraph with a line that holds nothing but its
placeholder, indented where the paragraph belongs::

    Parameters
    ----------
    {x_any}
    {n_in}
        A remark of this function only, extending the ``n`` entry.

    Returns
    -------
    out : gpuscipy_core.ndarray
        The transform, ...
        {dtype_c2c}

``fill_doc`` replaces each such line by the paragraph of that name from
``PARAGRAPHS``, indented to the placeholder's column (the mechanism is the
package's shared one, ``gpuscipy._docs``). Only whole-line placeholders are
touched; an unknown name raises ``KeyError`` at import time.

Two kinds of paragraph:

* entries (parameters): a numpydoc entry, name line and indented
  description, placed at the entry column;
* fragments (names starting with ``dtype_``, ``returns_``, ``raises_``,
  ``notes_`` and ``references_``): text placed inside a description (the
  dtype rules, a remark on the result, the causes of an exception under its
  name in Raises) or as a whole paragraph of Notes or References.
"""

from .. import _docs as _shared

__all__ = ["PARAGRAPHS", "fill", "fill_doc"]

_RAW = {
    # ---- Parameters: the input
    "x_any": """
        x : array_like
            Input array, real or complex. A ``gpuscipy_core.ndarray`` is
            used where it is; anything else that NumPy reads as an array of
            numbers (a NumPy array, a list, a scalar) is first converted
            with ``gpuscipy_core.asarray``, i.e. copied to the current
            device. See Returns for the dtype the transform computes in.
        """,
    "x_real": """
        x : array_like
            Real input array (bool, integer or floating dtype; complex
            input raises ``TypeError``). Device arrays are used where they
            are, other array_likes are copied to the current device first.
        """,
    "x_half": """
        x : array_like
            The first half (indices ``0`` to ``n//2``) of a
            Hermitian-symmetric sequence along the transformed axis, the
            other half being implied by ``y[n - k] = conj(y[k])``. Complex
            or real (real input is read as complex with zero imaginary
            part). Device arrays are used where they are, other array_likes
            are copied to the current device first.
        """,
    # ---- Parameters: lengths and axes
    "n_in": """
        n : int, optional
            Number of points of the transform along ``axis``: the input is
            cut to its first ``n`` points, or zero-padded at the end to
            ``n``. Default: the length of ``x`` along ``axis``.
        """,
    "n_out": """
        n : int, optional
            Length of the real output along ``axis``. The input is first cut
            or zero-padded to ``n//2 + 1`` points along ``axis``. Default
            ``2*(m - 1)`` for an input of length ``m`` along ``axis``, so an
            odd output length has to be given; ``n=0`` gives one point, as
            in SciPy.
        """,
    "axis": """
        axis : int, optional
            Axis over which to compute the transform. Default -1, the last
            axis.
        """,
    "s_in": """
        s : int or sequence of ints, optional
            Number of points of the transform along each axis of ``axes``:
            the input is cut, or zero-padded at the end, to these lengths;
            an entry of -1 keeps the length of ``x`` along that axis.
            Default: the shape of ``x`` along ``axes``. Given without
            ``axes``, ``s`` refers to the last ``len(s)`` axes.
        """,
    "s_out": """
        s : int or sequence of ints, optional
            Shape of the real output along ``axes``. Along the last of
            ``axes`` the input is cut or zero-padded to ``s[-1]//2 + 1``
            points, along the others to ``s``; an entry of -1 takes the
            length of ``x`` along that axis. Default: the shape of ``x``
            along ``axes``, except ``2*(m - 1)`` (at least 1) along the last
            of them for an input of length ``m`` there. Given without
            ``axes``, ``s`` refers to the last ``len(s)`` axes.
        """,
    "axes_all": """
        axes : int or sequence of ints, optional
            Axes over which to compute the transform, without repetitions.
            Default: all axes, or the last ``len(s)`` axes when ``s`` is
            given.
        """,
    "axes_2d": """
        axes : int or sequence of ints, optional
            Axes over which to compute the transform, without repetitions.
            Default ``(-2, -1)``, the last two axes; any number of axes is
            accepted (this function is its n-D counterpart with another
            default).
        """,
    # ---- Parameters: options
    "norm": """
        norm : {"backward", "ortho", "forward"}, optional
            Normalization mode, ``None`` meaning "backward" (the default):
            "backward" leaves the forward transform unscaled and scales the
            inverse by ``1/n``; "forward" scales the forward transform by
            ``1/n`` and leaves the inverse unscaled; "ortho" scales both by
            ``1/sqrt(n)``, which makes the transform unitary. ``n`` is the
            logical length of the transform (the product of the lengths
            along all transformed axes for the n-D ones, the real length for
            the real transforms). fft, rfft and hfft count as forward
            transforms, ifft, irfft and ihfft as inverse ones.
        """,
    "norm_r2r": """
        norm : {"backward", "ortho", "forward"}, optional
            Normalization mode, ``None`` meaning "backward" (the default):
            "backward" leaves the forward transform unscaled and scales the
            inverse by ``1/L``; "forward" scales the forward transform by
            ``1/L`` and leaves the inverse unscaled; "ortho" scales both by
            ``1/sqrt(L)``. ``L`` is the length of the extended sequence the
            transform implies, for ``N`` points along a transformed axis:
            ``2*N`` for types 2 to 4, ``2*(N - 1)`` for the type-1 DCT and
            ``2*(N + 1)`` for the type-1 DST (per axis, multiplied, for the
            n-D transforms). See also ``orthogonalize``.
        """,
    "overwrite_x": """
        overwrite_x : bool, optional
            Accepted for SciPy compatibility and ignored: ``x`` is never
            modified (cuFFT's complex-to-real transforms, which destroy
            their input, run on a private copy). Default False.
        """,
    "workers": """
        workers : int, optional
            SciPy's number of CPU threads. Checked as SciPy checks it
            (``ValueError`` for 0 or a value below ``-os.cpu_count()``,
            ``TypeError`` for a non-integer) and otherwise ignored: the
            transform runs on the GPU. Default None.
        """,
    "plan": """
        plan : None, optional
            Keyword only. Has to be None: precomputed plans are not
            supported (``NotImplementedError``, as in SciPy). gpuscipy
            makes and caches the cuFFT plans itself
            (``gpuscipy.fft.plan_cache``).
        """,
    "type_r2r": """
        type : {1, 2, 3, 4}, optional
            Type of the transform (see Notes). Default 2.
        """,
    "orthogonalize": """
        orthogonalize : bool, optional
            Whether to rescale the end samples so that, together with
            ``norm="ortho"``, the transform matrix is orthogonal: the first
            output of type 2 (DST: the last) by ``1/sqrt(2)``, the first
            input of type 3 (DST: the last) by ``sqrt(2)``, and for the
            type-1 DCT the first and last input by ``sqrt(2)`` and the first
            and last output by ``1/sqrt(2)``; no effect on type 4 and the
            type-1 DST. Default None: True when ``norm`` is "ortho", else
            False. Complex input always takes that default (as in SciPy,
            which transforms its real and imaginary parts separately
            without passing ``orthogonalize`` on).
        """,
    # ---- Parameters: the fast Hankel transform
    "dln": """
        dln : float
            Uniform logarithmic spacing of the input (and output) points.
        """,
    "mu": """
        mu : float
            Order of the Hankel transform, any real number.
        """,
    "offset": """
        offset : float, optional
            Offset of the logarithmic spacing of the output points from that
            of the input points, ``ln(k_c * r_c)`` for centre points ``r_c``
            and ``k_c``. Default 0 (see :func:`fhtoffset` for a low-ringing
            choice).
        """,
    "bias": """
        bias : float, optional
            Exponent ``q`` of the power-law bias of FFTLog, any real number:
            the input is multiplied by ``(r/r_c)**(-q)`` and the output by
            ``(k*r_c)**(-q)`` (the inverse transform undoes both), which
            changes the discretisation, not the continuous transform.
            Default 0, no bias.
        """,
    # ---- Parameters: helpers
    "n_window": """
        n : int
            Window length (number of samples).
        """,
    "d_spacing": """
        d : scalar, optional
            Sample spacing, the inverse of the sampling rate. Default 1.
        """,
    "xp_device": """
        xp, device : optional
            Keyword only; accepted for SciPy's array-API compatibility and
            ignored: the result is always a gpuscipy_core array on the
            current device.
        """,
    "x_shift": """
        x : array_like
            Input array; device arrays are used where they are, other
            array_likes are copied to the current device first.
        """,
    "axes_shift": """
        axes : int or sequence of ints, optional
            Axes over which to shift. Default None, all axes. An axis named
            twice is shifted twice, as in NumPy.
        """,
    "backend": """
        backend : {object, 'scipy'}
            A uarray backend of ``scipy.fft``: a module or object with
            ``__ua_domain__ == "numpy.scipy.fft"``, such as
            :mod:`gpuscipy.fft` itself, or the string 'scipy' for SciPy's
            own.
        """,
    # ---- dtype rules (inside a Returns description)
    "dtype_c2c": """
        Its dtype is complex64 for float16, float32 and complex64 input and
        complex128 for any other (bool, integers, float64, complex128).
        """,
    "dtype_r2c": """
        Its dtype is complex64 for float16 and float32 input and complex128
        for bool, integer and float64 input.
        """,
    "dtype_c2r": """
        Its dtype is float32 for float16, float32 and complex64 input and
        float64 for any other (bool, integers, float64, complex128).
        """,
    "dtype_r2r": """
        Its dtype is the one the transform computes in: float32 for
        float16 and float32 input, float64 for bool, integer and float64
        input; complex64 and complex128 input gives complex64 and
        complex128 (the real and imaginary parts transformed separately).
        """,
    # ---- inside a Returns description
    "returns_no_axes": """
        When there is no axis to transform (``axes=()``, or a 0-d ``x``
        with ``axes=None``), ``x`` itself is returned as a device array:
        nothing is transformed, converted or copied.
        """,
    # ---- causes of the exceptions (under the exception's name in Raises)
    "raises_value_n": """
        ``n`` is less than 1, or ``x`` is empty along ``axis`` and ``n`` is
        not given.
        """,
    "raises_value_n_out": """
        ``n`` is negative, or ``n`` is not given and ``x`` has length 0 or 1
        along ``axis`` (the default output length ``2*(m - 1)`` would be
        less than 1).
        """,
    "raises_value_s": """
        ``s`` or ``axes`` is not an integer or a sequence of integers; an
        axis is out of range or repeated; ``s`` and ``axes`` differ in
        length, or ``s`` has more entries than ``x`` has axes; a length of
        the transform is less than 1 (an empty transformed axis of ``x``
        included).
        """,
    "raises_value_no_axes": """
        ``axes`` is empty (a 0-d ``x`` with the default ``axes`` included):
        at least one axis has to be transformed.
        """,
    "raises_value_norm_workers": """
        ``norm`` is not None, "backward", "ortho" or "forward"; ``workers``
        is 0 or below ``-os.cpu_count()``.
        """,
    "raises_value_type": """
        ``type`` is an integer other than 1, 2, 3 and 4 (a bool included).
        """,
    "raises_index_axis": """
        ``axis`` is out of range (every ``axis`` is, for a 0-d ``x``), as in
        SciPy.
        """,
    "raises_type_x": """
        ``x`` cannot be read as an array of numbers (bool, integer,
        floating or complex).
        """,
    "raises_type_real": """
        ``x`` is complex ("x must be a real sequence").
        """,
    "raises_type_ints_1d": """
        ``n``, ``axis`` or ``workers`` is not an integer.
        """,
    "raises_type_workers": """
        ``workers`` is not an integer.
        """,
    "raises_type_type": """
        ``type`` is not an integer.
        """,
    "raises_plan": """
        ``plan`` is not None: precomputed plans are not supported, as in
        SciPy.
        """,
    "raises_runtime_dct1": """
        A type-1 DCT of length 1 (its extended sequence would have no
        points): the exception and message that the installed SciPy raises
        for it ("zero-length FFT requested" up to SciPy 1.17, ducc's "no
        zero-sized FFTs" from 1.18).
        """,
    "raises_zero_dln": """
        ``dln`` is a Python number equal to 0, or (with a Python number
        ``dln``) the last axis of the input is empty.
        """,
    "raises_value_fht_empty": """
        The last axis of the input is empty and ``dln`` is a NumPy scalar
        (the real FFT of no points).
        """,
    "raises_type_shift": """
        ``x`` cannot be read as an array of numbers, or an entry of
        ``axes`` is not an integer.
        """,
    "raises_axis_shift": """
        An entry of ``axes`` is out of range.
        """,
    "raises_target": """
        ValueError
            ``target`` is negative ("Target length must be positive").
        TypeError
            ``target`` is not an integer (a float included).
        """,
    "raises_backend_value": """
        ``backend`` is a string other than 'scipy' ("Unknown backend"), or
        an object whose ``__ua_domain__`` is not ``"numpy.scipy.fft"``.
        """,
    "raises_backend_attribute": """
        ``backend`` has no ``__ua_domain__``.
        """,
    # ---- Notes paragraphs
    "notes_dft": """
        For ``n`` points ``x[0], ..., x[n-1]`` along a transformed axis the
        forward transform is ``y[k] = sum_m x[m] * exp(-2j*pi*k*m/n)`` and
        the inverse ``x[m] = sum_k y[k] * exp(2j*pi*k*m/n)``, for ``k, m =
        0, ..., n-1``, each scaled as ``norm`` says (by default the inverse
        by ``1/n``). Index ``k`` holds frequency ``k/n`` (cycles per sample)
        for ``k < n/2`` and the negative frequency ``(k - n)/n`` above it
        (:func:`fftfreq`; :func:`fftshift` puts zero in the middle). The
        n-D transforms apply this along each axis of ``axes``.
        """,
    "notes_cufft": """
        Computed by NVIDIA's cuFFT library [3]_ (through
        ``gpuscipy_core.libs.cufft``) on the current device and stream.
        cuFFT splits the length into small factors, Cooley-Tukey style
        [1]_ (lengths ``2**a * 3**b * 5**c * 7**d`` are the fastest:
        :func:`next_fast_len`), and uses Bluestein's chirp-z algorithm [2]_
        for lengths with large prime factors. cuFFT does not normalise: the
        factor ``norm`` asks for is one in-place multiplication afterwards,
        skipped when it is 1. Plans are made once per device, stream,
        lengths, layout, batch and precision and kept in a per-thread cache
        (``gpuscipy.fft.plan_cache``).
        """,
    "notes_layout_1d": """
        ``x`` is brought to the compute dtype and cut or zero-padded to
        ``n`` points as a C-contiguous array; a C-contiguous input that needs
        none of this is read where it is. Along the last axis the transform
        is one batched cuFFT plan; along another axis it runs in cuFFT's
        strided layout, once per index of the axes before it when those hold
        at most 8 indices, otherwise through a transposed copy that moves
        the axis last and back.
        """,
    "notes_layout_nd": """
        ``x`` is brought to the compute dtype and cut or zero-padded to
        ``s`` as a C-contiguous array (read where it is when nothing needs
        changing). When ``axes`` are the last one to three axes, all of
        length greater than 1, the transform is a single cuFFT plan of that
        rank, batched over the leading axes; other axis sets are
        transformed one axis at a time with the layouts of :func:`fft`.
        """,
    "notes_order_r2cn": """
        Transformed one axis at a time, the real-to-complex transform runs
        along the last of ``axes`` first and complex transforms follow
        along the other axes. Unlike for the complex transforms, the order
        of ``axes`` matters: the last one is the halved axis of the output.
        """,
    "notes_order_c2rn": """
        Transformed one axis at a time, inverse complex transforms run
        along all but the last of ``axes`` first and the complex-to-real
        transform along the last one follows. cuFFT's complex-to-real
        transform destroys its input, so it always runs on a private copy.
        The order of ``axes`` matters: the last one is the halved axis of
        the input.
        """,
    "notes_rows_apart": """
        A real transform of odd length over more than one row (or plane)
        runs as a complex transform, at twice the arithmetic: cuFFT
        computes such rows two at a time as one complex transform, which
        lets a NaN or inf of one row spread into its partner, whereas SciPy
        keeps every row apart. Even lengths are not affected
        (``next_fast_len(n, real=True)`` is even above 6).
        """,
    "notes_dct_types": """
        For ``N`` points ``x[0], ..., x[N-1]`` along a transformed axis and
        ``k = 0, ..., N-1``, with ``norm="backward"`` and no
        ``orthogonalize``, the forward transforms are

        * type 1: ``y[k] = x[0] + (-1)**k x[N-1]
          + 2 sum_{m=1}^{N-2} x[m] cos(pi k m / (N-1))`` (``N >= 2``);
        * type 2: ``y[k] = 2 sum_{m=0}^{N-1} x[m] cos(pi k (2m+1) / (2N))``;
        * type 3: ``y[k] = x[0] + 2 sum_{m=1}^{N-1} x[m]
          cos(pi m (2k+1) / (2N))``;
        * type 4: ``y[k] = 2 sum_{m=0}^{N-1} x[m]
          cos(pi (2k+1) (2m+1) / (4N))``.

        Types 2 and 3 are each other's inverse up to the factor ``2N``,
        types 1 and 4 their own inverses up to ``2(N-1)`` and ``2N``; the
        inverse functions apply exactly that (``idct`` of type 2 is the
        type-3 transform with the opposite normalisation, and so on), so
        ``idct(dct(x, t), t)`` returns ``x`` for every type and norm.
        """,
    "notes_dst_types": """
        For ``N`` points ``x[0], ..., x[N-1]`` along a transformed axis and
        ``k = 0, ..., N-1``, with ``norm="backward"`` and no
        ``orthogonalize``, the forward transforms are

        * type 1: ``y[k] = 2 sum_{m=0}^{N-1} x[m]
          sin(pi (k+1) (m+1) / (N+1))``;
        * type 2: ``y[k] = 2 sum_{m=0}^{N-1} x[m] sin(pi (k+1) (2m+1) / (2N))``;
        * type 3: ``y[k] = (-1)**k x[N-1] + 2 sum_{m=0}^{N-2} x[m]
          sin(pi (2k+1) (m+1) / (2N))``;
        * type 4: ``y[k] = 2 sum_{m=0}^{N-1} x[m]
          sin(pi (2k+1) (2m+1) / (4N))``.

        Types 2 and 3 are each other's inverse up to the factor ``2N``,
        types 1 and 4 their own inverses up to ``2(N+1)`` and ``2N``; the
        inverse functions apply exactly that, so ``idst(dst(x, t), t)``
        returns ``x`` for every type and norm.
        """,
    "notes_r2r_method": """
        Each 1-D transform is a pre-processing kernel, one batched cuFFT
        transform and a post-processing kernel, with the normalisation
        folded into the kernels:

        * type 2: Makhoul's reordering [1]_ ``v = [x[0], x[2], x[4], ...,
          x[5], x[3], x[1]]`` (even samples forwards, odd ones backwards),
          the FFT ``V`` of ``v`` and the twiddle ``y[k] = 2 Re(exp(-1j*pi*k
          / (2N)) V[k])``. For even ``N >= 4`` the FFT is an ``N/2``-point
          complex one of ``v`` read as complex pairs, the split into the
          real FFT fused into the post-processing kernel; otherwise an
          ``N``-point real FFT.
        * type 3: the inverse of that [1]_: ``V[k] = exp(1j*pi*k / (2N))
          (x[k] - 1j*x[N-k])``, an ``N``-point complex-to-real FFT and the
          inverse reordering.
        * type 4: for even ``N`` an ``N/2``-point complex FFT of ``z[m] =
          (x[2m] + 1j*x[N-1-2m]) exp(-1j*pi*(4m+1) / (4N))`` followed by
          one more twiddle [2]_; for odd ``N`` a ``2N``-point complex FFT of
          the pre-twiddled, zero-padded input.
        * type 1: the even (DCT) or odd (DST) extension of the input, of
          length ``2(N-1)`` or ``2(N+1)``, and one real FFT.

        The DST of types 2 to 4 is the DCT of the sign-alternated or
        reversed input with the output reversed or sign-alternated; those
        index maps are part of the same kernels. Complex input is
        transformed as separate real and imaginary rows in the same
        launches. An odd-length real FFT over several rows runs as a
        complex one (cuFFT would pair the rows, letting a NaN or inf of one
        reach the other). When more than 8 elements follow the transformed
        axis in memory, the axis is moved last by a transposed copy first
        (and back afterwards); a transform of length 1 is one
        multiplication. The n-D transforms apply the 1-D one along each
        axis of ``axes`` in turn.
        """,
    "notes_fftlog": """
        With ``q = bias``, the input is multiplied by ``(r_j / r_c)**(-q)``;
        the transform on the logarithmic grid is then a convolution,
        computed as a real FFT, a multiplication by the FFTLog kernel
        coefficients ``u_m = 2**(q + 2j*y_m) * exp(-2j*y_m*offset) *
        Gamma((mu + 1 + q)/2 + 1j*y_m) / Gamma((mu + 1 - q)/2 - 1j*y_m)``,
        ``y_m = pi * m / (n * dln)`` for ``m = 0, ..., n//2`` (the Nyquist
        term made real for even ``n``), an inverse real FFT and a reversal;
        the result is multiplied by ``(k_j * r_c)**(-q)``. The ``n//2 + 1``
        coefficients need the gamma function of complex argument: they are
        computed on the host with :func:`scipy.special.loggamma` and copied
        to the device once per call; the FFTs (cuFFT, see :func:`rfft`) and
        the bias factors run on the GPU. The definition, and so the result,
        is SciPy's.
        """,
    "notes_shift": """
        The roll is planned on the host from the shape alone: along each
        rolled axis the output is two slices of the input (``out[k:] =
        x[:n-k]``, ``out[:k] = x[n-k:]``), so ``k`` rolled axes make ``2**k``
        strided device-to-device block copies into the new array (none for
        an empty array), with no host synchronisation.
        """,
    # ---- References paragraphs
    "references_fft": """
        .. [1] J. W. Cooley and J. W. Tukey, "An algorithm for the machine
           calculation of complex Fourier series", Math. Comp. 19(90),
           297-301, 1965.
        .. [2] L. Bluestein, "A linear filtering approach to the computation
           of discrete Fourier transform", IEEE Trans. Audio Electroacoust.
           18(4), 451-455, 1970.
        .. [3] NVIDIA, "cuFFT Library User's Guide",
           https://docs.nvidia.com/cuda/cufft/
        """,
    "references_r2r": """
        .. [1] J. Makhoul, "A fast cosine transform in one and two
           dimensions", IEEE Trans. Acoust., Speech, Signal Process. 28(1),
           27-34, 1980.
        .. [2] Z. Wang, "Fast algorithms for the discrete W transform and
           for the discrete Fourier transform", IEEE Trans. Acoust.,
           Speech, Signal Process. 32(4), 803-816, 1984.
        """,
    "references_fftlog": """
        .. [1] A. J. S. Hamilton, "Uncorrelated modes of the non-linear
           power spectrum", Mon. Not. R. Astron. Soc. 312, 257-284, 2000
           (Appendix B: FFTLog), arXiv:astro-ph/9905191.
        """,
}

#: name -> the dedented paragraph (no leading or trailing newline)
PARAGRAPHS = _shared.table(_RAW)
del _RAW

#: prefixes of the paragraphs that are not numpydoc entries
FRAGMENTS = ("dtype_", "returns_", "raises_", "notes_", "references_")


def fill(doc, where="docstring"):
    """``doc`` with every whole-line placeholder replaced by its paragraph
    of ``PARAGRAPHS`` (``KeyError`` for an unknown name; ``None`` is
    returned unchanged)."""
    return _shared.fill(doc, PARAGRAPHS, where)


def fill_doc(func):
    """Decorator: fill the placeholders of ``func.__doc__`` (``fill``) and
    return ``func`` itself (signature, identity and ``__module__``
    unchanged)."""
    return _shared.fill_doc(func, PARAGRAPHS)
