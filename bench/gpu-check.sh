#!/usr/bin/env bash
# gpu-check.sh - everything that needs a GPU, in one go, on a GPU machine
# (docs/building-and-testing.md): build, the GPU tests (gpu_test, and the
# unit test programs, whose GPU cases skip elsewhere), compute-sanitizer
# memcheck and racecheck over gpu_test, the ratios of `make bench` and the
# benchmarks.
# Logs go to $OUT, if set, or ./gpu-check-logs. BUILD names the build
# folder (default build); with steps that leave out `build`, one built on
# another machine and copied here runs as it is.
#
#   bench/gpu-check.sh [build] [tests] [sanitize] [perf] [bench] [all]   (default: all)
#   SANITIZE_ARGS="--quick --fast-gemm" bench/gpu-check.sh tests sanitize
#                      the tests, and the sanitizers over fast's product alone
set -u
# NCCL (mode multi) never with NVLink multicast: on a shared host it can
# take every GPU out of service. cuk sets it too; this covers what it runs.
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-gpu-check-logs}
build=${BUILD:-build}
export BUILD=$build CUK=$build/cuk
mkdir -p "$out"
steps=${*:-all}
want() { [[ " $steps " == *" $1 "* || " $steps " == *" all "* ]]; }
summary=()
note() { summary+=("$1"); echo "== $1"; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/device.txt"

if want build; then
    t0=$SECONDS
    make -j"$(nproc)" BUILD="$build" cuk "$build/tests/gpu_test" "$build/tests/test_fast_plan" >"$out/build.log" 2>&1
    note "build: status $? in $((SECONDS - t0)) s; $("$CUK" --version)"
fi

if want tests; then
    t0=$SECONDS
    "$build/tests/gpu_test" >"$out/gpu_test.log" 2>&1
    note "gpu_test: status $? in $((SECONDS - t0)) s: $(grep -c '^PASS' "$out/gpu_test.log") passed, $(grep -c '^FAIL' "$out/gpu_test.log") failed, $(grep -c '^SKIP' "$out/gpu_test.log") skipped"
    grep -E '^(FAIL|  )' "$out/gpu_test.log" | head -20
    t0=$SECONDS
    for t in "$build"/tests/test_*; do
        [[ -x "$t" && "$t" != *test_fuzz_replay* ]] && "$t"
    done >"$out/units.log" 2>&1
    note "unit test programs: $(grep -c '^PASS' "$out/units.log") passed, $(grep -c '^FAIL' "$out/units.log") failed, $(grep -c '^SKIP' "$out/units.log") skipped in $((SECONDS - t0)) s"
    grep -E '^FAIL' "$out/units.log" | head -20
fi

# SANITIZE_ARGS: more gpu_test options under the sanitizers (e.g. --quick,
# which leaves out 1037x1055x1031 and 2048^3: each tool slows kernels by 10-100x).
# With two GPUs or more mode multi loads NCCL, whose set-up asks
# cudaFuncGetAttributes about kernels it has no image for on this GPU and
# handles the cudaErrorNoKernelImageForDevice: API errors, not memory ones,
# that memcheck would count (8 on two H200s); they are left out there.
api=""
[ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -gt 1 ] && api="--report-api-errors no"
if want sanitize; then
    for tool in memcheck racecheck; do
        t0=$SECONDS
        # shellcheck disable=SC2086
        compute-sanitizer --tool "$tool" --print-limit 20 $api "$build/tests/gpu_test" --sanitizer ${SANITIZE_ARGS:-} \
            >"$out/$tool.log" 2>&1
        note "compute-sanitizer $tool: status $?, $(grep -c '^PASS' "$out/$tool.log") cases passed, $(grep -c '^FAIL' "$out/$tool.log") failed, $(grep 'SUMMARY' "$out/$tool.log" | tail -n 1) ($((SECONDS - t0)) s)"
    done
fi

if want perf; then
    OUT=$out bench/perf.sh >"$out/perf-summary.log" 2>&1
    note "make bench: status $?; the ratios:"
    sed -n '/^== ratios/,$p' "$out/perf-summary.log"
fi

if want bench; then
    bench/gpu.sh 2>&1 | tee "$out/bench.log"
fi

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
