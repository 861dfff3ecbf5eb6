#!/usr/bin/env bash
# fuzz/run.sh BUILD SECONDS TARGET... - run each libFuzzer target built in
# BUILD/fuzz/ for SECONDS (`make fuzz SECONDS=N` builds them and calls this).
#
# Each target grows its corpus in BUILD/corpus/TARGET/ from the starting
# corpus: fuzz/corpus/TARGET/ and the inputs that once crashed it
# (tests/fuzz/regressions/TARGET/); the session target also takes every
# golden script, every line of tests/bad_inputs.txt and the scripts/, each
# as a script and as REPL lines. A crash, leak, timeout or out-of-memory
# input lands in BUILD/artifacts/TARGET/; once fixed, copy it into
# tests/fuzz/regressions/TARGET/ so that `make test` replays it. The last
# lines say, per target: executions, coverage (cov: edges, ft: features),
# corpus size, and what was found. Exit status 1 if anything was found.
set -u
cd "$(dirname "$0")/.." || exit 1
# Absolute paths only: the targets work in their sandbox folder.
build=$(cd "$1" && pwd) seconds=$2 src=$(pwd)
shift 2

# Inputs for fuzz_session made from the tests, in BUILD/from-tests/session/.
session_inputs() {
    local dir=$build/from-tests/session i=0 f line
    rm -rf "$dir" && mkdir -p "$dir"
    for f in tests/golden/*.cuk scripts/*.cuk; do
        [ -f "$f" ] || continue
        cp "$f" "$dir/$(basename "$f")"
        { echo '#!repl'; cat "$f"; } >"$dir/repl_$(basename "$f")"
    done
    while IFS= read -r line; do
        case "$line" in '' | '#'*) continue ;; esac
        i=$((i + 1))
        printf '%s\n' "$line" >"$dir/bad_$i.cuk"
    done <tests/bad_inputs.txt
    echo "$dir"
}

dict_of() { case $1 in session) echo "$src/fuzz/cuk.dict" ;; *) echo "$src/fuzz/$1.dict" ;; esac; }

found=0 summary=()
for t in "$@"; do
    corpus=$build/corpus/$t artifacts=$build/artifacts/$t/ log=$build/fuzz-$t.log
    mkdir -p "$corpus" "$artifacts" "tests/fuzz/regressions/$t"
    start=("$src/fuzz/corpus/$t" "$src/tests/fuzz/regressions/$t")
    [ "$t" = session ] && start+=("$(session_inputs)")
    before=$(ls "$artifacts" | wc -l)
    echo "== fuzz_$t for ${seconds}s (log: $log)"
    OPENBLAS_NUM_THREADS=1 \
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$build/fuzz/fuzz_$t" "$corpus" "${start[@]}" -dict="$(dict_of "$t")" -max_len=65536 \
        -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -artifact_prefix="$artifacts" \
        -print_final_stats=1 >"$log" 2>&1
    rc=$?
    new=$(($(ls "$artifacts" | wc -l) - before))
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)
    [ -n "$done_line" ] || done_line=$(grep -E '^#[0-9]+[[:space:]]' "$log" | tail -n 1)
    execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
    summary+=("fuzz_$t: ${execs:-?} executions; ${done_line:-no status line}; exit $rc; $new new artifact(s)")
    if [ "$rc" -ne 0 ] || [ "$new" -gt 0 ]; then
        found=1
        grep -E '^==[0-9]+==ERROR|SUMMARY|^artifact_prefix|Test unit written|runtime error' "$log" | head -n 8 | sed 's/^/   | /'
    fi
done
echo
printf '%s\n' "${summary[@]}"
exit $found
