#!/usr/bin/env bash
# lab-check.sh - user kernels on a GPU machine (`kernel "file.cu"`, the lab of
# scripts/lab/), in one go; logs go to $OUT (or ./lab-check-logs). BUILD
# names a build folder made elsewhere and carried here (default build); it
# needs build/cuk and build/tests/test_user_kernels (make BUILD=...
# cuk BUILD/tests/test_user_kernels).
#
#   1. test_user_kernels --gpu: the lab's solutions at 1x1x1, 17x65x33 and
#      1037x1055x1031; its skeletons failing with their message; the four
#      faulty kernels in one session holding matrices made before (each an
#      error within the timeout + 5 s; then every earlier matrix exact,
#      tiled and cublas right, the mode loaded again fixed); kernels, why,
#      the panel's record and save bench for a user mode.
#   2. each exercise's check.cuk as a student runs it: as shipped it must
#      stop with a message saying what is wrong; with the solution in place
#      it must pass and bench the solution beside tiled and cublas.
#   3. compute-sanitizer memcheck over each solution at ragged shapes,
#      following the helper process (--target-processes all).
#
# The last lines say PASS or FAIL for each; the exit status is the count of
# FAILs.
set -u
cd "$(dirname "$0")/.." || exit 1
root=$(pwd)
out=${OUT:-lab-check-logs}
build=${BUILD:-build}
cuk=$root/$build/cuk
mkdir -p "$out"
out=$(cd "$out" && pwd)
export CUK_HISTORY=/dev/null CUK_BENCH_SHARE_MS=${CUK_BENCH_SHARE_MS:-400}
sanitizer=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
results=()
failed=0
verdict() { # NAME OK WHY
    if [ "$2" = 1 ]; then results+=("PASS $1"); else results+=("FAIL $1: $3"); failed=$((failed + 1)); fi
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/device.txt" 2>&1
"$cuk" --version >>"$out/device.txt" 2>&1

# 1. the unit test's GPU cases
t0=$SECONDS
"$build/tests/test_user_kernels" --gpu >"$out/test_user_kernels.log" 2>&1
rc=$?
pass=$(grep -c '^PASS' "$out/test_user_kernels.log")
fail=$(grep -c '^FAIL' "$out/test_user_kernels.log")
skip=$(grep -c '^SKIP' "$out/test_user_kernels.log")
verdict "test_user_kernels --gpu ($pass passed, $fail failed, $skip skipped, $((SECONDS - t0)) s)" \
    "$([ $rc = 0 ] && [ "$fail" = 0 ] && [ "$skip" = 0 ] && echo 1)" "see test_user_kernels.log"

# 2. each exercise as a student meets it
for ex in scripts/lab/*/; do
    name=$(basename "$ex")
    work=$out/lab/$name
    rm -rf "$work" && mkdir -p "$work" && cp "$ex"*.cu "$ex"check.cuk "$work"/
    (cd "$work" && "$cuk" check.cuk) >"$out/$name-skeleton.log" 2>&1
    rc=$?
    verdict "$name skeleton fails its check with a message" \
        "$([ $rc = 1 ] && grep -q 'gave a wrong result at .*: .*' "$out/$name-skeleton.log" && echo 1)" \
        "status $rc: $(tail -n 3 "$out/$name-skeleton.log" | tr '\n' ' ')"
    cp "$ex"solution/*.cu "$work"/
    mode=$(basename "$ex"solution/*.cu .cu)
    (cd "$work" && "$cuk" check.cuk) >"$out/$name-solution.log" 2>&1
    rc=$?
    verdict "$name solution passes at every shape and benches beside tiled and cublas" \
        "$([ $rc = 0 ] && grep -qE "^  $mode " "$out/$name-solution.log" &&
            grep -qE '^  tiled ' "$out/$name-solution.log" && grep -qE '^  cublas ' "$out/$name-solution.log" &&
            echo 1)" \
        "status $rc: $(tail -n 3 "$out/$name-solution.log" | tr '\n' ' ')"
done

# 3. memcheck over the solutions, in the helper process too. First a probe
# that memcheck follows the helper at all: a kernel there that writes far
# outside every buffer must be reported (a run with no report would
# otherwise read as clean).
cat >"$out/probe_wild.cu" <<'CU'
extern "C" __global__ void cuk_matmul(float *C, const float *A, const float *B, int m, int n, int k)
{
    if (threadIdx.x == 0 && blockIdx.x == 0 && blockIdx.y == 0)
        C[(size_t)1 << 36] = 1.0f;
}
CU
"$sanitizer" --tool memcheck --target-processes all --print-limit 5 "$cuk" \
    -e "kernel \"$out/probe_wild.cu\"; mode probe_wild; A = rand(8, 8); B = rand(8, 8); C = A @ B;" \
    >"$out/probe-memcheck.log" 2>&1
verdict "memcheck follows the kernel helper (a wild write there is reported)" \
    "$(grep -q 'Invalid __global__ write' "$out/probe-memcheck.log" && echo 1)" \
    "$(grep 'ERROR SUMMARY' "$out/probe-memcheck.log" | tr '\n' ' ')"
for ex in scripts/lab/*/; do
    name=$(basename "$ex")
    src=$(ls "$ex"solution/*.cu)
    mode=$(basename "$src" .cu)
    case $name in
    *reduce*) stmt='s = sum(A);' ;;
    *transpose*) stmt="T = A';" ;;
    *) stmt='C = A @ B;' ;;
    esac
    script="kernel \"$root/$src\"; mode $mode; seed 5"
    for s in "1 1 1" "17 65 33" "257 131 67"; do
        set -- $s
        script="$script; A = rand($1, $2); B = rand($2, $3); $stmt"
    done
    t0=$SECONDS
    "$sanitizer" --tool memcheck --target-processes all --print-limit 20 "$cuk" -e "$script" \
        >"$out/$name-memcheck.log" 2>&1
    rc=$?
    summaries=$(grep -c 'ERROR SUMMARY' "$out/$name-memcheck.log")
    dirty=$(grep 'ERROR SUMMARY' "$out/$name-memcheck.log" | grep -vc 'ERROR SUMMARY: 0 errors')
    verdict "$name solution: memcheck clean in session and helper ($((SECONDS - t0)) s)" \
        "$([ $rc = 0 ] && [ "$summaries" -ge 1 ] && [ "$dirty" = 0 ] && echo 1)" \
        "status $rc: $(grep 'ERROR SUMMARY' "$out/$name-memcheck.log" | tr '\n' ' ')"
done

printf '%s\n' "${results[@]}" | tee "$out/summary.txt"
echo "$failed failed"
exit "$failed"
