#!/usr/bin/env bash
# lead's second GPU call of 2026-12-02: sum variants, getrs streams, bench, new GPU tests
(cd .prebuilt && find . -name '*.so' -exec cp --parents {} .. \;)
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 GPUSCIPY_CACHE_DIR=/tmp/gsc
H=gpuscipy_core/_kernel/include/gpuscipy/reduction.cuh
cp $H /tmp/red.cuh
for v in "4 0" "4 1" "8 1"; do
  set -- $v
  cp /tmp/red.cuh $H
  sed -i "s/#define GS_RED_VEC_UNROLL 4/#define GS_RED_VEC_UNROLL $1/; s/#define GS_RED_VEC_LANES 1/#define GS_RED_VEC_LANES $2/" $H
  timeout 60 python tools/probes/sum_variants.py "U$1-L$2" 2>&1 | grep -v Warn
done
cp /tmp/red.cuh $H
timeout 60 python tools/probes/getrs_streams.py 2>&1 | grep -v Warn
timeout 150 python -m benchmarks.bench_outside_check 2>&1 | grep -v Warn | tee $OUT/bench.log | grep -E "^(PASS|FAIL|bars)|ecg"
timeout 200 python -m pytest -q -p no:cacheprovider -n 8 tests/fft/test_fft_gpu.py tests/signal/test_filtfilt_fast.py tests/linalg/test_inv_large.py tests/core/test_reduction.py 2>&1 | tail -12
