#!/usr/bin/env bash
# The GPU loop: build + install, nvidia-smi, tests, benchmarks, summary.
# Run from the repository root on the GPU machine:   bash tools/gpu_check.sh
#
# Environment:
#   OUT=DIR            where logs/JSON go (default ./out)
#   SKIP_TESTS=1       skip pytest          SKIP_BENCH=1   skip benchmarks
#   PYTEST_ARGS="..."  extra pytest args (word-split), e.g. "-x -k sum"
#   TEST_PATHS="..."   what pytest runs (word-split; default "tests"), e.g.
#                      "tests/signal tests/demo" for the second call of a split run
#   DEMO=1             also run "gpuscipy-demo --quick" (report under $OUT/demo-report);
#                      DEMO=full runs the whole demo (4096 channels, SciPy on every
#                      channel: a few minutes of CPU)
#   PYTEST_XDIST=1     run tests with pytest-xdist "-n 4" (PYTEST_XDIST_N=8 for 8)
#   PYTEST_TIMEOUT=S   per-test timeout via pytest-timeout (default 300; 0 = off)
#   BENCH_ARGS="..."   extra args for every benchmarks.bench_* module, e.g. "--quick"
#   BENCH_ONLY="a b"   run only benchmarks/bench_a.py and bench_b.py
#   GPU_CHECK_CACHE_ROOT=DIR  base of the fresh kernel caches (default
#                      /tmp/gpuscipy_gpu_check; wiped at start)
#   SAVE_PREBUILT=1    after the build, pack the extension modules into
#                      $OUT/prebuilt.tgz (with the hash of their sources)
# Prebuilt extensions: when the tree holds .prebuilt/ (unpacked from an
# earlier prebuilt.tgz with tools/prebuilt.sh unpack, carried with the call)
# whose SOURCES hash matches the .pyx/.pxd/setup.py of this tree, they are
# copied into place and the ~100 s build is skipped (the tree is then used
# through PYTHONPATH instead of an editable install).
# Exit status: 0 all good; 1 tests failed; 2 install failed; 4 bench/bar
# failed (bits OR'ed: 5 = tests and bench failed).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
OUT="${OUT:-./out}"
mkdir -p "$OUT" || exit 2
OUT="$(cd "$OUT" && pwd)"
export PYTHONUNBUFFERED=1
PY="${PYTHON:-python3}"

CACHE_ROOT="${GPU_CHECK_CACHE_ROOT:-/tmp/gpuscipy_gpu_check}"
rm -rf -- "$CACHE_ROOT"
mkdir -p "$CACHE_ROOT/tests" "$CACHE_ROOT/bench"

rc=0
section() { printf '\n========== %s ==========\n' "$*"; }

# ---------------------------------------------------------------- install
section "install"
t0=$SECONDS
if [ -d .prebuilt ] && [ "$(cat .prebuilt/SOURCES 2>/dev/null)" = "$(bash tools/prebuilt.sh hash)" ]; then
    (cd .prebuilt && find . -name '*.so' -exec cp --parents {} .. \;)
    export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
    echo "prebuilt extensions copied from .prebuilt/ (build skipped)" | tee "$OUT/install.log"
    install_rc=0
else
    [ -d .prebuilt ] && echo "stale .prebuilt/ (sources changed): building"
    # Build the extensions in parallel first (pip builds them one by one).
    "$PY" setup.py build_ext --inplace -j "$(nproc)" > "$OUT/install.log" 2>&1
    "$PY" -m pip install --no-build-isolation --no-deps -e . 2>&1 | tee -a "$OUT/install.log"
    install_rc=${PIPESTATUS[0]}
    if [ "$install_rc" -eq 0 ] && [ "${SAVE_PREBUILT:-0}" = "1" ]; then
        bash tools/prebuilt.sh pack "$OUT/prebuilt.tgz" && echo "packed $OUT/prebuilt.tgz"
    fi
fi
if [ "$install_rc" -ne 0 ]; then
    echo
    echo "!!!!!!!!!! INSTALL FAILED (pip exit $install_rc) - see $OUT/install.log !!!!!!!!!!"
    grep -nE "error|Error" "$OUT/install.log" | tail -n 30
    exit 2
fi
echo "[install ok in $((SECONDS - t0)) s]"
"$PY" -c "import gpuscipy_core, sys; print('gpuscipy_core from', gpuscipy_core.__file__)" \
    || { echo "!!!!!!!!!! import gpuscipy_core FAILED after install !!!!!!!!!!"; exit 2; }

# ---------------------------------------------------------------- cuDSS
# The test machine has no cuDSS: when the caller carries .whl/cudss/
# libcudss.so.0.xz (from the nvidia-cudss-cu13 wheel), unpack it.
if [ -f .whl/cudss/libcudss.so.0.xz ]; then
    section "cuDSS"
    if cudss_dir="$("$PY" tools/unpack_cudss.py)"; then
        export LD_LIBRARY_PATH="$cudss_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        echo "libcudss.so.0 unpacked into $cudss_dir"
    fi
fi

# ---------------------------------------------------------------- device
section "nvidia-smi"
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=index,name,driver_version,memory.total,memory.used,clocks.max.sm,power.limit \
        --format=csv || true
    nvidia-smi | head -n 12 || true
else
    echo "nvidia-smi not found"
fi
"$PY" - <<'EOF' || true
import importlib
for m in ("numpy", "scipy", "cupy", "torch", "gpuscipy_core"):
    try:
        print(f"{m:14s}", getattr(importlib.import_module(m), "__version__", "?"))
    except Exception as e:
        print(f"{m:14s} n/a ({type(e).__name__}: {e})")
EOF

# ---------------------------------------------------------------- tests
pytest_summary="(tests skipped)"
if [ "${SKIP_TESTS:-0}" != "1" ]; then
    section "pytest"
    args=(-q -ra -p no:cacheprovider)
    if [ -n "${PYTEST_XDIST:-}" ] && [ "${PYTEST_XDIST}" != "0" ]; then
        args+=(-n "${PYTEST_XDIST_N:-4}")
    fi
    if [ "${PYTEST_TIMEOUT:-300}" != "0" ] && "$PY" -c "import pytest_timeout" 2>/dev/null; then
        args+=(--timeout="${PYTEST_TIMEOUT:-300}")
    fi
    # shellcheck disable=SC2206  # PYTEST_ARGS is word-split on purpose
    extra=(${PYTEST_ARGS:-})
    t0=$SECONDS
    # shellcheck disable=SC2206
    paths=(${TEST_PATHS:-tests})
    GPUSCIPY_CACHE_DIR="$CACHE_ROOT/tests" \
        "$PY" -m pytest "${args[@]}" "${paths[@]}" "${extra[@]}" 2>&1 | tee "$OUT/pytest.log"
    test_rc=${PIPESTATUS[0]}
    echo "[pytest exit $test_rc in $((SECONDS - t0)) s]"
    pytest_summary="$(grep -v '^\s*$' "$OUT/pytest.log" | tail -n 1)"
    if [ "$test_rc" -ne 0 ]; then
        rc=$((rc | 1))
        [ "$test_rc" -eq 5 ] && pytest_summary="$pytest_summary (no tests collected: counted as failure)"
    fi
fi

# ---------------------------------------------------------------- demo
demo_summary="(demo skipped)"
if [ "${DEMO:-0}" = "1" ] || [ "${DEMO:-0}" = "full" ]; then
    demo_args=(--quick)
    [ "${DEMO}" = "full" ] && demo_args=()
    section "gpuscipy-demo ${demo_args[*]:-(full)}"
    t0=$SECONDS
    GPUSCIPY_CACHE_DIR="$CACHE_ROOT/tests" \
        "$PY" -m gpuscipy.demo "${demo_args[@]}" --report-dir "$OUT/demo-report" 2>&1 | tee "$OUT/demo.log"
    demo_rc=${PIPESTATUS[0]}
    demo_summary="gpuscipy-demo ${demo_args[*]:-(full)} exit $demo_rc in $((SECONDS - t0)) s"
    [ "$demo_rc" -ne 0 ] && rc=$((rc | 1))
fi

# ---------------------------------------------------------------- bench
bars_summary="(benchmarks skipped)"
if [ "${SKIP_BENCH:-0}" != "1" ]; then
    section "benchmarks"
    # shellcheck disable=SC2206
    bargs=(${BENCH_ARGS:-})
    t0=$SECONDS
    # Every benchmarks/bench_*.py module, one after the other, in one log
    # (BENCH_ONLY="core fft" picks some). bench_core first, on a fresh, empty
    # kernel cache: its first_add_new_process case must compile, then hit.
    mods=()
    for f in benchmarks/bench_*.py; do
        m="$(basename "$f" .py)"; m="${m#bench_}"
        if [ -n "${BENCH_ONLY:-}" ] && [[ " ${BENCH_ONLY} " != *" $m "* ]]; then continue; fi
        [ "$m" = core ] && mods=(core "${mods[@]}") || mods+=("$m")
    done
    : > "$OUT/bench.log"
    mkdir -p "$CACHE_ROOT/json"
    for m in "${mods[@]}"; do
        section "bench_$m" | tee -a "$OUT/bench.log"
        GPUSCIPY_CACHE_DIR="$CACHE_ROOT/bench" \
            "$PY" -m "benchmarks.bench_$m" --json "$CACHE_ROOT/json/bench_$m.json" "${bargs[@]}" 2>&1 \
            | tee -a "$OUT/bench.log"
        bench_rc=${PIPESTATUS[0]}
        echo "[bench_$m exit $bench_rc in $((SECONDS - t0)) s]" | tee -a "$OUT/bench.log"
        [ "$bench_rc" -ne 0 ] && rc=$((rc | 4))
    done
    tar -czf "$OUT/bench_json.tgz" -C "$CACHE_ROOT/json" . 2>/dev/null || true
    bars_summary="$(grep -E '^(==========|  *(PASS|FAIL|pass|fail)|(PASS|FAIL) )' "$OUT/bench.log")"
    [ -n "$bars_summary" ] || bars_summary="(no bars section: bench crashed, exit $bench_rc)"
fi

# ---------------------------------------------------------------- summary
section "summary"
echo "pytest: $pytest_summary"
echo "demo: $demo_summary"
echo "$bars_summary"
echo "gpu_check exit status: $rc  (1 tests, 2 install, 4 bench/bars)"
exit "$rc"
