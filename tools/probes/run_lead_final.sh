#!/usr/bin/env bash
# lead's final GPU call of 2026-12-02: the GPU tests of this change, then the benchmarks
(cd .prebuilt && find . -name '*.so' -exec cp --parents {} .. \;)
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 GPUSCIPY_CACHE_DIR=/tmp/gsc
timeout 170 python -m pytest -q -p no:cacheprovider -n 14 --timeout=120 \
  tests/core/test_kernel_api.py tests/core/test_cupy_doc_kernels.py tests/linalg/test_solvers.py \
  tests/linalg/test_inv_large.py tests/demo tests/signal/test_peak_finding_batch.py \
  tests/signal/test_peak_finding.py tests/signal/test_filtfilt_fast.py tests/signal/test_medfilt_gpu.py \
  tests/test_notebooks.py tests/fft/test_fft_gpu.py tests/core/test_ufuncs.py -k clip 2>&1 | tee $OUT/pytest.log | tail -25
timeout 110 python -m benchmarks.bench_outside_check 2>&1 | grep -v Warn | tee $OUT/bench_outside.log | grep -E "^(PASS|FAIL|bars)|  ecg|  [a-z_0-9^]+ +(gpuscipy|cupy|scipy)"
timeout 60 python -m benchmarks.bench_signal --only medfilt_1M_k31 find_peaks_batch_4096 2>&1 | grep -v Warn | tee $OUT/bench_signal.log | tail -14
