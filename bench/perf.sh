#!/usr/bin/env bash
# perf.sh - `make bench`: every benchmark program (build/bench/perf_*), each
# measuring cuk against its reference in one process, then the table of
# ratios they printed ("ratio NAME VALUE target ..."), last, so that the end
# of the output is the summary. Logs go to $OUT, if set, or ./bench-logs.
# Needs a GPU for everything but the host benchmarks.
set -u
# NCCL (mode multi) never with NVLink multicast: on a shared host it can
# take every GPU out of service. cuk sets it too; this covers what it runs.
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")/.." || exit 1
: "${BUILD:=build}" "${CUK:=./cuk}"
export CUK BUILD
out=${OUT:-bench-logs}
mkdir -p "$out"
all="$out/perf.log"
: >"$all"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null | tee -a "$all"
for prog in "$BUILD"/bench/perf_*; do
    [ -x "$prog" ] || continue
    name=$(basename "$prog")
    echo "== $name" | tee -a "$all"
    "$prog" 2>&1 | tee "$out/$name.log" >>"$all"
    echo "   status $?: $(grep -c '^ratio' "$out/$name.log") ratios" | tee -a "$all"
done
for py in bench/perf_*.py; do
    [ -f "$py" ] || continue
    name=$(basename "$py")
    echo "== $name" | tee -a "$all"
    PYTHONUNBUFFERED=1 python3 "$py" 2>&1 | tee "$out/$name.log" >>"$all"
done
echo
echo "== ratios (cuk / reference, each pair measured in one run)"
grep -h '^ratio' "$all" | sed 's/^ratio //'
