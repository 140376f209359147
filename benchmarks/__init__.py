"""Benchmarks of gpuscipy_core against CuPy (run ``python -m benchmarks.bench_core``)."""
