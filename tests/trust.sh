#!/usr/bin/env bash
# trust.sh - what cuk must not do in silence: replace a file that is not a
# regular one (a device, a pipe, a folder, through links), change a file's
# owner, group or mode, break hard links unsaid, or show control characters
# a user gave; take a line it could not read for the end of its input; lose
# a transcript it could not write; move the session's random numbers when
# it times something; apply `timeit N` more than N times; print a value
# other than the one it keeps and saves; run past the limits of ladder and
# bench; or say the machine's free memory where the process's own limit is
# what counts.
#
# Every file made here is in the scratch folder. The devices the links
# point at are made there too when run as root (mknod): a cuk with a bug
# could then replace only those copies, never the system's /dev/null; a
# user's links point at the system's, which a user cannot replace. After
# each such case the devices are checked to be as they were.
. "$(dirname "$0")/lib.sh"

# expect NAME WANT_STATUS GOT_STATUS OUTPUT 'PATTERN'...: the status is the
# one wanted and every extended regex PATTERN matches a line of OUTPUT; a
# pattern starting with ! matches none.
expect() {
    local name=$1 want=$2 got=$3 out=$4 p
    shift 4
    if [ "$got" -ne "$want" ]; then
        echo "FAIL $name: exit status $got, want $want: $(printf '%s' "$out" | tail -c 300)"
        return
    fi
    for p in "$@"; do
        if [[ "$p" == '!'* ]] && grep -qE -- "${p#!}" <<<"$out"; then
            echo "FAIL $name: a line matches /${p#!}/: $(grep -E -- "${p#!}" <<<"$out" | head -2)"
            return
        elif [[ "$p" != '!'* ]] && ! grep -qE -- "$p" <<<"$out"; then
            echo "FAIL $name: no line matches /$p/ in: $(printf '%s' "$out" | head -c 300)"
            return
        fi
    done
    echo "PASS $name"
}

# dev NAME MAJOR MINOR: the path of a character device that links may
# point at without risk (see above); empty where there is none.
dev() {
    if [ "$(id -u)" != 0 ]; then
        echo "/dev/$1"
    elif mknod "$work/dev_$1" c "$2" "$3" 2>/dev/null; then
        echo "$work/dev_$1"
    fi
}
null=$(dev null 1 3) full=$(dev full 1 7)

# The devices are as they were: a FAIL, and the test stops, if not.
devices_intact() {
    local d
    for d in /dev/null /dev/zero /dev/full $null $full; do
        if [ ! -c "$d" ]; then
            echo "FAIL devices_intact after $1: $d is no longer a character device"
            exit 1
        fi
    done
}

# ---- saving: only regular files, their owner, group and mode kept ----

if [ -n "$null" ] && [ -n "$full" ]; then
    ln -s "$null" null.npy
    out=$("$cuk" -e 'A = [1 2]; save A "null.npy"' 2>&1)
    expect save_link_to_dev_null 1 $? "$out" \
        "save: cannot write 'null.npy': it leads to '.*null', a character device; cuk writes only regular files"
    devices_intact save_link_to_dev_null
    [ -L null.npy ] && [ "$(readlink null.npy)" = "$null" ] && echo "PASS save_link_kept" ||
        echo "FAIL save_link_kept: null.npy is no longer the link to $null"
    ln -s "$null" null.json
    out=$(CUK_BENCH_SHARE_MS=1 "$cuk" -e 'bench cpu: [1 2] + 1; save bench "null.json"' 2>&1)
    expect save_bench_link_to_dev_null 1 $? "$out" "save bench: cannot write 'null.json': it leads to '.*null'"
    devices_intact save_bench_link_to_dev_null
    ln -s "$full" full.log
    out=$("$cuk" -e 'record "full.log"' 2>&1)
    expect record_link_to_dev_full 1 $? "$out" "record: cannot write 'full.log': it leads to '.*full', a character device"
    devices_intact record_link_to_dev_full
    out=$("$cuk" -e "record \"$full\"" 2>&1)
    expect record_dev_full 1 $? "$out" "record: cannot write '.*full': it is a character device"
    devices_intact record_dev_full
else
    echo "SKIP save_link_to_dev_null: as root without mknod, no device can be risked"
fi

mkfifo pipe.csv
ln -s pipe.csv to_pipe.csv
out=$("$cuk" -e 'A = [1 2]; save A "pipe.csv"' 2>&1)
expect save_named_pipe 1 $? "$out" "save: cannot write 'pipe.csv': it is a named pipe; cuk writes only regular files"
out=$("$cuk" -e 'A = [1 2]; save A "to_pipe.csv"' 2>&1)
expect save_link_to_pipe 1 $? "$out" "save: cannot write 'to_pipe.csv': it leads to 'pipe.csv', a named pipe"
[ -p pipe.csv ] && echo "PASS save_pipe_kept" || echo "FAIL save_pipe_kept: pipe.csv is no longer a named pipe"

mkdir folder.npy
out=$("$cuk" -e 'A = [1 2]; save A "folder.npy"' 2>&1)
expect save_folder 1 $? "$out" "save: cannot write 'folder.npy': it is a folder"


# The mode is kept; so are the owner and group, which only root can set.
echo old >mode.csv && chmod 640 mode.csv
out=$("$cuk" -e 'A = [1 2]; save A "mode.csv"' 2>&1)
expect save_keeps_mode 0 $? "$out"
[ "$(stat -c %a mode.csv)" = 640 ] && echo "PASS save_mode_640" || echo "FAIL save_mode_640: $(stat -c %a mode.csv)"
if [ "$(id -u)" = 0 ]; then
    echo old >theirs.csv && chown 1234:5678 theirs.csv && chmod 604 theirs.csv
    out=$("$cuk" -e 'A = [1 2]; save A "theirs.csv"' 2>&1)
    expect save_as_root 0 $? "$out"
    got=$(stat -c '%u:%g %a' theirs.csv)
    [ "$got" = "1234:5678 604" ] && echo "PASS save_keeps_owner" || echo "FAIL save_keeps_owner: $got, want 1234:5678 604"
else
    echo "SKIP save_keeps_owner: only root can make a file another user's"
fi

# Hard links: the name saved to is replaced, and cuk says the others keep
# the old contents.
echo old >linked.csv && ln linked.csv other.csv
out=$("$cuk" -e 'A = [1 2]; save A "linked.csv"' 2>&1)
expect save_hard_link_said 0 $? "$out" "^note: 'linked.csv' had 1 other name \(hard links\); it keeps the old contents$"
[ "$(cat other.csv)" = old ] && [ "$(cat linked.csv)" = 1,2 ] && echo "PASS save_hard_link_contents" ||
    echo "FAIL save_hard_link_contents: other.csv '$(cat other.csv)', linked.csv '$(cat linked.csv)'"

# What a user typed is quoted with its control characters escaped.
out=$("$cuk" -e "$(printf 'A = 1; save A "a\033[31mb.txt"')" 2>&1)
expect message_escapes_control 1 $? "$out" "don't know how to write 'a\\\\x1B\\[31mb.txt'" $'!\033'
out=$("$cuk" "$(printf -- '-\033[2J')" 2>&1)
expect argument_escapes_control 2 $? "$out" "unexpected argument '-\\\\x1B\\[2J'" $'!\033'

# ---- reading: a line that cannot be read is an error, not the end ----

# Sanitizers reserve terabytes of address space, so a cuk built with one
# cannot run under ulimit -v or -d: there the long lines are read without
# the limit (the cap stops them all the same), and the cases about running
# out of memory skip.
sanitized=0
ldd "$cuk" 2>/dev/null | grep -q 'lib[at]san' && sanitized=1
# under_limit KIB COMMAND...: COMMAND under ulimit -v KIB (without it when sanitized).
under_limit() {
    local kib=$1
    shift
    if [ $sanitized = 1 ]; then
        "$@"
    else
        (ulimit -v "$kib" && exec "$@")
    fi
}

# Lines of 150 MB under a 150 MB address-space limit: cuk stops at its cap
# (64 MiB) or when memory runs out, and names the file and the line.
{ printf 'A = 1\nB = '; head -c 150000000 /dev/zero | tr '\0' '1'; printf '\nC = 2\n'; } >long.cuk
{ printf '1,2\n'; head -c 150000000 /dev/zero | tr '\0' '1'; printf '\n3,4\n'; } >long.csv
out=$(under_limit 150000 "$cuk" long.cuk 2>&1)
expect read_script_long_line 1 $? "$out" '^A = 1$' '^cuk: long\.cuk:2: (line longer than 64 MiB|out of memory)' '!^C = '
out=$(under_limit 150000 "$cuk" <long.cuk 2>&1)
expect read_pipe_long_line 1 $? "$out" '^cuk: <stdin>:2: (line longer than 64 MiB|out of memory)' '!^C = '
out=$(under_limit 150000 "$cuk" -e 'run "long.cuk"' 2>&1)
expect read_run_long_line 1 $? "$out" 'error: long\.cuk:2: (line longer than 64 MiB|out of memory)' '!^C = '
out=$(under_limit 150000 "$cuk" -e 'X = load("long.csv")' 2>&1)
expect read_csv_long_line 1 $? "$out" 'error: load: long\.csv:2: (line longer than 64 MiB|out of memory)'
if [ $sanitized = 0 ]; then
    out=$( (ulimit -v 60000 && exec "$cuk" long.cuk) 2>&1)
    expect read_script_line_out_of_memory 1 $? "$out" '^cuk: long\.cuk:2: out of memory for a line of'
else
    echo "SKIP read_script_line_out_of_memory: cuk is built with a sanitizer, which cannot run under ulimit -v"
fi
rm -f long.cuk long.csv

# A .csv that never ends a line: an error at the cap, not memory without
# bound (the timeout only stops a cuk that would run on).
ln -s /dev/zero zero.csv # read only: the system's own is safe here
out=$(under_limit 200000 timeout 60 "$cuk" -e 'X = load("zero.csv")' 2>&1)
expect read_csv_dev_zero 1 $? "$out" "error: load: zero\.csv:1: line longer than 64 MiB"

# A .csv row too long for load is refused by save, so every .csv cuk
# writes loads back.
out=$("$cuk" -e 'x = rand(1, 7000000); save x "wide.csv"' 2>&1)
expect save_csv_line_capped 1 $? "$out" "save: a row of 7000000 values makes a \.csv line longer than 64 MiB"
[ ! -e wide.csv ] && echo "PASS save_csv_line_nothing_left" || echo "FAIL save_csv_line_nothing_left: wide.csv exists"

# ---- writing: a transcript that cannot be written is an error ----

# A file-size limit stands for a full disk: the write fails, the statement
# reports it, the script stops with status 1, and the old file stays.
echo old >small.log
out=$( (trap '' XFSZ && ulimit -f 1 &&
    exec "$cuk" -e 'record "small.log", A = rand(100), B = rand(100), C = rand(100), D = 1') 2>&1 >/dev/null)
expect record_write_fails 1 $? "$out" "record: cannot write 'small.log': File too large; the transcript is not kept"
[ "$(cat small.log)" = old ] && echo "PASS record_old_file_kept" || echo "FAIL record_old_file_kept: small.log changed"
out=$("$cuk" -e 'record "end.log", x = 7' 2>&1)
expect record_kept_at_exit 0 $? "$(cat end.log 2>&1)" '^x = 7$'

# ---- numbers that must not move ----

# Timing commands draw from streams of their own: the session's next random
# numbers are the same in every run, and the same as with no bench at all.
export CUK_BENCH_SHARE_MS=20 CUK_TIMEIT_BUDGET_MS=20 CUK_LADDER_SHARE_MS=5
want=$("$cuk" -e 'seed 5; X = rand(1, 2)' 2>&1)
same=1
for i in 1 2 3 4 5 6 7 8 9 10; do
    got=$("$cuk" -e 'seed 5; bench cpu blas: rand(30) + 1; X = rand(1, 2)' 2>&1 | grep -A1 '^X = ')
    [ "$got" = "$want" ] || same=0
done
[ $same = 1 ] && echo "PASS numbers_bench_keeps_draws" || echo "FAIL numbers_bench_keeps_draws: '$got', want '$want'"
got=$("$cuk" -e 'seed 5; timeit Y = rand(30) + 1; X = rand(1, 2)' 2>&1 | grep -A1 '^X = ')
[ "$got" = "$want" ] && echo "PASS numbers_timeit_keeps_draws" || echo "FAIL numbers_timeit_keeps_draws: '$got'"
got=$("$cuk" -e 'seed 5; ladder cpu: A + B for n in 4 8; X = rand(1, 2)' 2>&1 | grep -A1 '^X = ')
[ "$got" = "$want" ] && echo "PASS numbers_ladder_keeps_draws" || echo "FAIL numbers_ladder_keeps_draws: '$got'"

# bench's float64 reference is made from the operands the modes used.
errs=$("$cuk" --json -e 'seed 5; bench cpu blas: randn(300) + 1' 2>&1 |
    python3 -c 'import json, sys; print(" ".join("%g" % r["rel_err"] for r in json.loads(sys.stdin.readline())["rows"]))' 2>&1)
python3 -c 'import sys; v = [float(x) for x in sys.argv[1:]]; sys.exit(not v or max(v) > 1e-6)' $errs &&
    echo "PASS numbers_bench_error_float32" || echo "FAIL numbers_bench_error_float32: errors $errs, want below 1e-6"
unset CUK_BENCH_SHARE_MS CUK_TIMEIT_BUDGET_MS CUK_LADDER_SHARE_MS

out=$("$cuk" -e 'A = 0; timeit 3 A = A + 1; A' 2>&1)
expect numbers_timeit_applies_n 0 $? "$out" '^3 runs: ' '^A = 3$'

# One precision rule: float32 whatever the size, printed as kept and saved.
out=$("$cuk" -e 'F = 16777217, F - 16777216, abs(F) - 16777216, [F 1] - 16777216' 2>&1)
expect numbers_one_precision 0 $? "$out" '^F = 16777216$' '!^ans = 1$' '^ +0 +-16777215$'
out=$("$cuk" -e 'format long; G = 123456789, save G "g.csv"; H = load("g.csv")' 2>&1)
g=$(sed -n 's/^G = //p' <<<"$out") h=$(sed -n 's/^H = //p' <<<"$out")
[ -n "$g" ] && [ "$g" = "$h" ] && [ "$(cat g.csv)" = 123456792 ] && echo "PASS numbers_print_what_is_saved" ||
    echo "FAIL numbers_print_what_is_saved: G prints '$g', its save loads as '$h', g.csv holds '$(cat g.csv)'"
out=$("$cuk" -e 'x = zeros(16777217 - 16777216 + 1, 1), n = 16777217' 2>&1)
expect numbers_sizes_exact 0 $? "$out" '^x = 2x1 ' '^n = 16777216$'

# The same in the GPU modes, where there is a GPU: the draws, the float64
# reference of a sum and of a product, timeit's count, and the float32
# rule on values a GPU mode computed (a transpose and a slice of what
# size() gives live on the device, and are read back for a size).
if "$cuk" -e 'modes' | grep -E '^[ *] tiled +GPU' | grep -vq unavailable; then
    export CUK_BENCH_SHARE_MS=20
    got=$("$cuk" -e 'seed 5; bench naive tiled fast cublas: rand(30) + 1; X = rand(1, 2)' 2>&1 | grep -A1 '^X = ')
    [ "$got" = "$want" ] && echo "PASS numbers_gpu_bench_keeps_draws" ||
        echo "FAIL numbers_gpu_bench_keeps_draws: '$got', want '$want'"
    for e in 'randn(300) + 1' 'randn(200, 300) @ randn(300, 100)'; do
        errs=$("$cuk" --json -e "seed 5; bench cpu naive tiled fast cublas: $e" 2>&1 |
            python3 -c 'import json, sys; print(" ".join("%g" % r["rel_err"] for r in json.loads(sys.stdin.readline())["rows"]))' 2>&1)
        python3 -c 'import sys; v = [float(x) for x in sys.argv[1:]]; sys.exit(len(v) != 5 or max(v) > 1e-5)' $errs &&
            echo "PASS numbers_gpu_bench_error_float32 ($e)" ||
            echo "FAIL numbers_gpu_bench_error_float32: $e: errors $errs, want five below 1e-5"
    done
    unset CUK_BENCH_SHARE_MS
    out=$("$cuk" -e 'mode tiled; A = zeros(2, 2); timeit 3 A = A + 1; A[0, 0]' 2>&1)
    expect numbers_gpu_timeit_applies_n 0 $? "$out" '^ans = 3$'
    out=$("$cuk" -e 'mode tiled; F = 16777217, F - 16777216, abs(F) - 16777216, x = zeros(size(rand(3, 4))'"'"'[1, 0] + 1, 1)' 2>&1)
    expect numbers_gpu_one_precision 0 $? "$out" '^F = 16777216$' '!^ans = 1$' '^x = 5x1 '
else
    for c in bench_keeps_draws bench_error_float32 timeit_applies_n one_precision; do
        echo "SKIP numbers_gpu_$c: no GPU here (the GPU modes are unavailable)"
    done
fi

# ---- limits that hold ----

# The first size of a ladder is predicted where cuk can (a cpu product):
# 2000^3 at cpu's rate is far past the per-run limit, so it is not run.
out=$(timeout 120 "$cuk" -e 'ladder cpu: A @ B for n in 2000' 2>&1)
expect limits_ladder_first_size 0 $? "$out" '^  cpu +~[0-9.]+ (s|min)\*$'
# bench predicts a run too: past its limit a mode is not run, and says so.
out=$(CUK_BENCH_RUN_LIMIT_MS=1000 timeout 120 "$cuk" -e 'A = rand(1000); B = rand(1000); bench cpu: A @ B' 2>&1)
expect limits_bench_predicts 0 $? "$out" '^  cpu +0 +~[0-9.]+ s\*' 'not run: cuk predicts that one run would take longer'

# Out of memory under the process's own limits: what they leave is said
# (mode cpu: the matrix is made in host memory, GPU or not).
# What is left is under the 146 MiB limit, however much the libraries
# loaded already took (CUDA's take most of it on a GPU machine).
left='((1[0-4][0-9]|[0-9]{1,2})(\.[0-9]+)? MiB|[0-9.]+ (B|KiB))'
if [ $sanitized = 0 ]; then
    out=$( (ulimit -v 150000 && exec "$cuk" -e 'mode cpu; A = rand(20000)') 2>&1)
    expect limits_oom_address_space 1 $? "$out" \
        "out of host memory: needs 1\\.49 GiB, $left left under the address-space limit \\(ulimit -v\\)"
    out=$( (ulimit -d 150000 && exec "$cuk" -e 'mode cpu; A = rand(20000)') 2>&1)
    expect limits_oom_data 1 $? "$out" "out of host memory: needs 1\\.49 GiB, $left left under the data-size limit"
else
    echo "SKIP limits_oom_address_space: cuk is built with a sanitizer, which cannot run under ulimit -v"
    echo "SKIP limits_oom_data: cuk is built with a sanitizer, which cannot run under ulimit -d"
fi
devices_intact the_tests
