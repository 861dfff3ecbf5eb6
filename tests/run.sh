#!/usr/bin/env bash
# run.sh - runs every test program and script, each printing one line per
# case ("PASS name", "FAIL name: why", "SKIP name: why"), and ends with
# "N passed, N failed, N skipped". Called by `make test` with CUK (the
# binary) and BUILD (the build folder) set.
set -u
cd "$(dirname "$0")/.." || exit 1
: "${CUK:=./cuk}" "${BUILD:=build}"
export CUK BUILD

passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Run one test program; count its lines; a crash without a FAIL line is one.
run() {
    local name=$1
    shift
    echo "== $name"
    "$@" >"$log" 2>&1
    local rc=$?
    grep -E '^(PASS|FAIL|SKIP) ' "$log" || true
    grep -vE '^(PASS|FAIL|SKIP) ' "$log" | sed 's/^/   | /' | head -40
    local p f s
    p=$(grep -c '^PASS ' "$log")
    f=$(grep -c '^FAIL ' "$log")
    s=$(grep -c '^SKIP ' "$log")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $name: exited with status $rc"
        f=1
    fi
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] && run "$(basename "$t")" "$t"
done
run layers python3 tests/layers.py "$BUILD"
run golden tests/golden.sh
run bad_inputs tests/bad_inputs.sh
run commands tests/commands.sh
run io tests/io.sh
run npy_numpy tests/npy_numpy.sh
run terminal tests/terminal.sh
run gpu_test "$BUILD/tests/gpu_test"

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
