#!/usr/bin/env bash
# lecture.sh - the lecture's demo scripts on a GPU machine: each lesson in
# scripts/ run on its own as a plain script (stopping at the first error;
# --echo: each statement shown before its output),
# timed against the one-minute limit each must keep, its transcript kept in
# $OUT, if set, or ./lecture-logs. What each lesson shows is in
# docs/lectures.md.
#
#   bench/lecture.sh [CUK]     (default ./cuk; build it first: make)
set -u
cd "$(dirname "$0")/.." || exit 1
cuk=${1:-./cuk}
out=${OUT:-lecture-logs}
mkdir -p "$out"
"$cuk" --version | tee "$out/version.txt"
"$cuk" -e 'info' | tee "$out/info.txt"
failed=0
for f in scripts/[0-9]*.cuk; do
    name=$(basename "$f" .cuk)
    t0=$(date +%s.%N)
    "$cuk" --echo "$f" >"$out/$name.log" 2>&1
    rc=$?
    t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    verdict=ok
    [ "$rc" -ne 0 ] && verdict="FAILED (status $rc)"
    awk -v t="$t" 'BEGIN { exit !(t >= 60) }' && verdict="$verdict, OVER A MINUTE"
    [ "$verdict" = ok ] || failed=1
    printf '%-20s %6s s  %s\n' "$name" "$t" "$verdict" | tee -a "$out/summary.txt"
    [ "$rc" -ne 0 ] && tail -n 5 "$out/$name.log" | sed 's/^/    | /'
done
exit $failed
