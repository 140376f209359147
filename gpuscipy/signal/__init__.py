"""Signal processing on the GPU (``scipy.signal``'s names and signatures).

Filter design runs on the host through SciPy and returns device arrays;
filtering, convolution, resampling, spectral estimation and peak finding
run on the GPU.
"""
