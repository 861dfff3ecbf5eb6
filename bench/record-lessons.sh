#!/usr/bin/env bash
# record-lessons.sh - records what every lesson prints on this machine's GPU,
# for rehearsals on machines without one (engine/lecture/recorded.h): runs
# scripts/lecture.cuk, and with it every lesson, with --transcripts; checks
# that it ran without an error and that the recordings cover every
# statement a rehearsal without a GPU cannot run (a rehearsal of the
# lecture with the GPU hidden, CUDA_VISIBLE_DEVICES=, and the recordings in
# place); and packs them into recorded.tar in $OUT (the device tool's
# folder) or ./lesson-recordings, with the run's log. Then, in the source
# tree:
#
#   tar -xf recorded.tar -C scripts/      # scripts/recorded/NAME.txt, one per script
#
#   bench/record-lessons.sh [CUK]     (default ./cuk; build it first: make)
#
# About the lecture's minute on an H200, and the rehearsal's few seconds.
set -u
cd "$(dirname "$0")/.." || exit 1
cuk=$(cd "$(dirname "${1:-./cuk}")" && pwd)/$(basename "${1:-./cuk}")
out=${OUT:-lesson-recordings}
mkdir -p "$out" && out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "record-lessons: $*" | tee -a "$out/summary.txt"; exit 1; }

: >"$out/summary.txt"
"$cuk" --version | tee -a "$out/summary.txt"
"$cuk" -e 'modes' | grep -E '^[ *] tiled +GPU' | grep -vq unavailable ||
    fail "no GPU here: the lessons must be recorded where their GPU modes run"

# The recording: the lecture as a plain script, stopping at the first error.
mkdir -p "$work/recorded"
t0=$(date +%s)
"$cuk" --transcripts "$work/recorded" scripts/lecture.cuk >"$out/lecture.log" 2>&1
rc=$?
echo "the lecture, recorded: status $rc in $(($(date +%s) - t0)) s" | tee -a "$out/summary.txt"
[ "$rc" -eq 0 ] || { tail -n 20 "$out/lecture.log"; fail "the lecture stopped with status $rc (see lecture.log)"; }
for f in scripts/*.cuk; do
    name=$(basename "$f" .cuk)
    [ -s "$work/recorded/$name.txt" ] || fail "no recording of $name.cuk"
    printf '  %-20s %5d statements, %6d lines\n' "$name" "$(grep -c '^>>> ' "$work/recorded/$name.txt")" \
        "$(wc -l <"$work/recorded/$name.txt")" | tee -a "$out/summary.txt"
done
if grep -l '^! ' "$work"/recorded/*.txt >/dev/null; then
    grep -n '^! ' "$work"/recorded/*.txt | head -n 20 | tee -a "$out/summary.txt"
    fail "a lesson printed an error while it was recorded (the lines above)"
fi

# The check: the recordings beside a copy of the lessons, the GPU hidden.
mkdir -p "$work/scripts"
cp scripts/*.cuk "$work/scripts/" && cp -r "$work/recorded" "$work/scripts/"
CUDA_VISIBLE_DEVICES= "$cuk" --rehearse "$work/scripts/lecture.cuk" >"$out/rehearsal.log" 2>&1
rc=$?
missing=$(grep -c '^  no recording' "$out/rehearsal.log")
shown=$(grep -c '^  recorded on ' "$out/rehearsal.log")
echo "the rehearsal without a GPU: status $rc, $shown recordings shown, $missing missing" | tee -a "$out/summary.txt"
[ "$rc" -eq 0 ] && [ "$missing" -eq 0 ] && [ "$shown" -gt 0 ] ||
    { grep -B 1 '^  no recording' "$out/rehearsal.log" | head -n 20; fail "the rehearsal does not show every recording"; }

tar -C "$work" -cf "$out/recorded.tar" recorded || fail "cannot write $out/recorded.tar"
echo "recorded.tar: $(tar -tf "$out/recorded.tar" | grep -c '\.txt$') recordings, $(wc -c <"$out/recorded.tar") bytes" |
    tee -a "$out/summary.txt"
