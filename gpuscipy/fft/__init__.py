"""gpuscipy.fft: ``scipy.fft`` on the GPU (cuFFT). Filled in by the fft work."""

__all__ = []
