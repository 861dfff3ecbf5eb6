#!/usr/bin/env bash
# counters.sh - `count`'s hardware counters and the panel's live GPU state,
# checked on a GPU machine in one go (a few minutes): the counter tests
# (tests/unit/test_counters.c: sectors per request, bank conflicts, DRAM
# bytes, occupancy, a statement with no kernel, cuBLAS, mode multi on two
# GPUs, a denied driver), the coalescing, bank-conflict and dot lessons with
# their counter tables, the panel in a pseudo-terminal while `ladder` runs
# (bench/panel_capture.py), and, with BASE_CUK naming a cuk built without
# counters, the launch floor of both binaries turn about. Logs go to $OUT or
# ./counters-logs; the summary comes last.
#
#   BUILD=build [BASE_CUK=build-main/cuk] bench/counters.sh [tests] [lessons] [panel] [floor]   (default: all)
set -u
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-counters-logs}
build=${BUILD:-build}
cuk=$build/cuk
mkdir -p "$out"
steps=${*:-tests lessons panel floor}
want() { [[ " $steps " == *" $1 "* ]]; }
summary=()
note() { summary+=("$1"); echo "== $1"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
    --format=csv,noheader 2>&1 | tee "$out/device.txt"

if want tests; then
    t0=$SECONDS
    "$build/tests/test_counters" >"$out/test_counters.log" 2>&1
    note "test_counters: status $? in $((SECONDS - t0)) s: $(grep -c '^PASS' "$out/test_counters.log") passed, $(grep -c '^FAIL' "$out/test_counters.log") failed, $(grep -c '^SKIP' "$out/test_counters.log") skipped"
    grep -E '^(FAIL|SKIP|   )' "$out/test_counters.log"
fi

if want lessons; then
    for lesson in 4-coalescing 5-bank-conflicts 6-dot; do
        t0=$SECONDS
        "$cuk" "scripts/$lesson.cuk" >"$out/$lesson.log" 2>&1
        note "$lesson: status $? in $((SECONDS - t0)) s, $(grep -c '^count: ' "$out/$lesson.log") counter tables"
        # each table: its heading, kernel rows and the words under it
        awk '/^count: /{p=1} p&&/^[^ ]/&&!/^count: /{p=0} p' "$out/$lesson.log"
    done
fi

if want panel; then
    t0=$SECONDS
    python3 bench/panel_capture.py "$cuk" "$out/panel" >"$out/panel.log" 2>&1
    note "panel: status $? in $((SECONDS - t0)) s; $(tail -n 1 "$out/panel.log")"
    cat "$out/panel/running.txt" 2>/dev/null
fi

# The launch floor (PERF.md, ## The launch floor): a piped script of
# 100,000 lines `C = A @ B;` at 64x64 in mode cublas, less the same script
# without them, per line; this build and BASE_CUK's, turn about, 3 rounds.
floor_us() {
    python3 - "$1" "$out" <<'PY'
import subprocess, sys, time
def run(path):
    with open(path) as f:
        t = time.perf_counter()
        subprocess.run([sys.argv[1]], stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - t
empty = run(sys.argv[2] + "/floor-empty.cuk")
full = run(sys.argv[2] + "/floor-full.cuk")
print("%.2f" % ((full - empty) / 100000 * 1e6))
PY
}
if want floor && [ -n "${BASE_CUK:-}" ]; then
    head='mode cublas; seed 1; A = rand(64, 64); B = rand(64, 64); C = A @ B;'
    printf '%s\nsum(C)\n' "$head" >"$out/floor-empty.cuk"
    { echo "$head"; yes 'C = A @ B;' | head -n 100000; echo 'sum(C)'; } >"$out/floor-full.cuk"
    mine=() base=()
    for round in 1 2 3; do
        base+=("$(floor_us "$BASE_CUK")")
        mine+=("$(floor_us "$cuk")")
    done
    note "launch floor, us a line (3 rounds each, turn about): this build ${mine[*]}; BASE_CUK ${base[*]}"
elif want floor; then
    note "launch floor: skipped (BASE_CUK names no binary built without counters)"
fi

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
