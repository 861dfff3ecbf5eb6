#!/usr/bin/env bash
# valgrind.sh - `make valgrind`: Valgrind's memcheck over every golden
# script (run as golden.sh runs them, in a scratch copy of the folder; their
# output is golden.sh's business) and over the replay of the fuzz
# regressions and the starting corpus. A case passes when memcheck reports no
# error and no leak that cuk could free ("definitely" or "indirectly" lost;
# what readline and ncurses keep until exit is "still reachable"). Prints
# each run's ERROR SUMMARY line.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cuk=$(cd "$(dirname "$CUK")" && pwd)/$(basename "$CUK")
: "${BUILD:=build}"
if ! command -v valgrind >/dev/null 2>&1; then
    echo "SKIP valgrind: valgrind is not installed (apt-get install valgrind)"
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here"/golden/*.cuk "$work"/

# memcheck NAME COMMAND...: run under memcheck; PASS if it found nothing.
memcheck() {
    local name=$1 log="$work/$1.vg"
    shift
    OPENBLAS_NUM_THREADS=1 CUK_HISTORY=/dev/null valgrind --tool=memcheck --error-exitcode=99 \
        --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
        --track-origins=yes --log-file="$log" "$@" >"$work/$name.out" 2>&1
    local rc=$? summary
    summary=$(grep -h 'ERROR SUMMARY' "$log" | tail -n 1 | sed 's/^==[0-9]*== //')
    if [ "$rc" -eq 99 ] || ! grep -q 'ERROR SUMMARY: 0 errors' "$log"; then
        echo "FAIL valgrind_$name: $summary"
        grep -A12 -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|[0-9,]+ bytes in)' "$log" |
            head -40 | sed 's/^/   | /'
        return 1
    fi
    echo "PASS valgrind_$name"
    echo "   $name: $summary"
}

failed=0
cd "$work" || exit 1
for script in "$here"/golden/*.cuk; do
    name=$(basename "$script" .cuk)
    [[ "$name" == _* ]] && continue
    memcheck "golden_$name" "$cuk" "$name.cuk" || failed=1
done
cd "$root" || exit 1
for t in "$BUILD"/tests/test_fuzz_replay_*; do
    if [ -x "$t" ] && [ "${t%.d}" = "$t" ]; then
        memcheck "$(basename "$t")" "$t" || failed=1
    fi
done
exit $failed
