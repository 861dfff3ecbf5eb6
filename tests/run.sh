#!/usr/bin/env bash
# run.sh - runs every test program and script, each printing one line per
# case ("PASS name", "FAIL name: why", "SKIP name: why"), and ends with
# "N passed, N failed, N skipped". Called by `make test` with CUK (the
# binary) and BUILD (the build folder) set. `make asan` also sets SAN_LOG,
# the folder its sanitizers write their reports to: each report found there
# after a test program is one failure of that program.
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
    sanitizer_reports "$name"
}

# With SAN_LOG set: a FAIL per sanitizer report written since the last look,
# even by a program whose output no test reads (the terminal tests' cuk).
sanitizer_reports() {
    [ -n "${SAN_LOG:-}" ] || return 0
    local r
    for r in "$SAN_LOG"/*; do
        [ -f "$r" ] || continue
        echo "FAIL $1: sanitizer report $(basename "$r")"
        sed 's/^/   | /' "$r" | head -40
        failed=$((failed + 1))
        mkdir -p "$SAN_LOG/seen" && mv "$r" "$SAN_LOG/seen/"
    done
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] && run "$(basename "$t")" "$t"
done
run layers python3 tests/layers.py "$BUILD"
run docs python3 tests/docs.py
run names python3 tests/names.py "$CUK"
run golden tests/golden.sh
run bad_inputs tests/bad_inputs.sh
run deep tests/deep.sh
run limits tests/limits.sh
run commands tests/commands.sh
run honest tests/honest.sh
run io tests/io.sh
run trust tests/trust.sh
run footprint tests/footprint.sh
run npy_numpy tests/npy_numpy.sh
run print_numpy tests/print_numpy.sh
run terminal tests/terminal.sh
run lecture tests/lecture.sh
run panel tests/panel.sh
run screen80 tests/screen80.sh
run svg tests/svg.sh
run deb tests/deb.sh
run gpu_test "$BUILD/tests/gpu_test"
if [ -n "${SAN_LOG:-}" ]; then
    sleep 1 # a terminal test's cuk may still be writing its report
    sanitizer_reports "after the tests"
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
