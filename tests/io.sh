#!/usr/bin/env bash
# io.sh - input and output as a Unix tool should do them: scripts streamed
# statement by statement in bounded memory, output that cannot be written
# reported (never lost silently), saves that survive signals and follow
# links, and file names in a script relative to the script's folder.
. "$(dirname "$0")/lib.sh"

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

# expect NAME WANT_STATUS GOT_STATUS OUTPUT 'PATTERN'...: the status is the
# one wanted and every extended regex PATTERN matches a line of OUTPUT.
expect() {
    local name=$1 want=$2 rc=$3 out=$4
    shift 4
    if [ "$rc" -ne "$want" ]; then
        fail "$name" "exit status $rc, want $want: $(printf '%s' "$out" | head -c 300)"
        return 1
    fi
    for p in "$@"; do
        if ! grep -qE -- "$p" <<<"$out"; then
            fail "$name" "no line matches /$p/ in: $(printf '%s' "$out" | head -c 300)"
            return 1
        fi
    done
    pass "$name"
}

# ---- streaming: each statement runs as its line arrives ----

# A conversation through pipes: cuk must answer each statement before the
# next is written, while its input is still open. A cuk that read its input
# whole would never answer; the read timeouts only stop such a test hanging.
# (coproc's stdin/stdout are pipes, so this is also the `cmd | cuk` case.)
# start_cuk: cuk as a coprocess, with its pipes copied to to_cuk and
# from_cuk (bash closes the coprocess's own once it exits, unread output too).
start_cuk() {
    coproc CUK { exec timeout 60 "$cuk" 2>&1; }
    cuk_pid=$CUK_PID
    exec {to_cuk}>&"${CUK[1]}" {from_cuk}<&"${CUK[0]}"
}
# stop_cuk: its exit status, once it has ended.
stop_cuk() {
    exec {to_cuk}>&-
    wait "$cuk_pid"
    local rc=$?
    exec {from_cuk}<&-
    return $rc
}
say() { printf '%s\n' "$1" >&"$to_cuk"; }
hear() {
    local line
    IFS= read -r -t 20 line <&"$from_cuk" || line="(nothing within 20 s)"
    printf '%s' "$line"
}
converse() {
    local got
    start_cuk
    say 'mode cpu;'
    say 'x = 1'
    got=$(hear)
    [ "$got" = "x = 1" ] || { fail stream_each_statement "first answer '$got'"; stop_cuk; return; }
    say 'y = x + 1'
    got=$(hear)
    [ "$got" = "y = 2" ] || { fail stream_each_statement "second answer '$got'"; stop_cuk; return; }
    pass stream_each_statement
    say 'z = (x +'                      # open: nothing may run yet
    say '  10)'
    got=$(hear)
    [ "$got" = "z = 11" ] || { fail stream_multiline "answer '$got'"; stop_cuk; return; }
    say 'A = [1 2'
    say '     3 4];'
    say 'size(A)'
    got=$(hear)
    [ "$got" = "ans = 1x2 (host)" ] || { fail stream_multiline "answer '$got' to size(A)"; stop_cuk; return; }
    hear >/dev/null                     # the values row
    pass stream_multiline
    say 'w = nope'                      # line 9: the error ends cuk though input is open
    got=$(hear)
    [ "$got" = "<stdin>:9:5: error: 'nope' is not defined" ] || { fail stream_error_ends "answer '$got'"; stop_cuk; return; }
    local ended rc
    timeout 20 cat <&"$from_cuk" >/dev/null # ends when cuk does: its input is still open
    ended=$?
    stop_cuk
    rc=$?
    [ "$ended" = 0 ] && [ "$rc" = 1 ] && pass stream_error_ends ||
        fail stream_error_ends "cuk went on after the error (ended: $ended), exit status $rc, want 1"
}
converse

# quit ends cuk while its input is still open.
quit_open() {
    start_cuk
    say 'a = 1'
    say 'quit'
    local got rest ended rc
    got=$(hear)
    rest=$(timeout 20 cat <&"$from_cuk") # ends when cuk does: its input is still open
    ended=$?
    stop_cuk
    rc=$?
    [ "$got" = "a = 1" ] && [ -z "$rest" ] && [ "$ended" = 0 ] && [ "$rc" = 0 ] && pass stream_quit_open ||
        fail stream_quit_open "got '$got' then '$rest', ended: $ended, status $rc"
}
quit_open
out=$(printf 'a = 1\nquit\nb = 2\n' | "$cuk" 2>&1)
expect stream_quit_rest 0 $? "$out" '^a = 1$' && grep -q 'b = ' <<<"$out" && fail stream_quit_rest "b ran after quit"

# Line numbers count the lines of statements that spanned several.
cat >lines.cuk <<'EOF'
#!/usr/bin/env cuk
x = 1;
A = [1 2
     3 4];
y = (A +
  nope)
EOF
out=$("$cuk" lines.cuk 2>&1)
expect stream_error_line 1 $? "$out" '^lines.cuk:6:3: error: .nope. is not defined$' '^    nope\)$'
printf 'x = 1\ny = 2\nz = (1 +\n' >open.cuk
out=$("$cuk" open.cuk 2>&1)
expect stream_open_at_end 1 $? "$out" '^x = 1$' '^y = 2$' "^open.cuk:3:5: error: unterminated '\(': missing '\)'$"
printf 'x = 1\ny = 2 +\nz = 3\n' >syntax.cuk
out=$("$cuk" syntax.cuk 2>&1)
expect stream_syntax_error 1 $? "$out" '^x = 1$' '^syntax.cuk:2:8: error: ' && grep -q '^z' <<<"$out" &&
    fail stream_syntax_error "ran on after the error"
out=$(printf 'p = 1;\nq = (2,\n' | "$cuk" 2>&1)
expect stream_pipe_open_at_end 1 $? "$out" "^<stdin>:2:5: error: unterminated '\('"

# A literal written one row a line, long: parsing it again at every line
# (quadratic) would take minutes; streamed it takes well under a second.
{
    echo 'A = ['
    for i in $(seq 30000); do echo "$i 2 3"; done
    echo '];'
    echo 'size(A)'
    echo 's = sum(A)'
} >rows.cuk
out=$(timeout 20 "$cuk" rows.cuk 2>&1)
expect stream_long_statement 0 $? "$out" '^ +30000 +3$' '^s = 4\.50[0-9]{2}e\+08$'

out=$("$cuk" "$work" 2>&1)
expect script_is_directory 1 $? "$out" "^cuk: cannot open '$work': Is a directory$"
out=$("$cuk" <"$work" 2>&1)
expect stdin_is_directory 1 $? "$out" "^cuk: cannot open '<stdin>': Is a directory$"
out=$("$cuk" <&- 2>&1)
expect stdin_closed 1 $? "$out" "^cuk: <stdin>:1: cannot read: Bad file descriptor$"

# ---- memory: bounded by the longest statement, not the script's length ----

# Under AddressSanitizer freed memory waits in a quarantine (256 MB): turn it
# off, so that what is measured is what cuk holds.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"

# Peak resident memory (KiB) of a command, from /usr/bin/time.
peak_kib() { /usr/bin/time -f 'peak %M' "$@" 2>&1 >/dev/null | sed -n 's/^peak //p' | tail -1; }
if [ -x /usr/bin/time ]; then
    yes 'x = 1;' | head -n 1000000 >million.cuk
    # The bound is over an idle cuk's own peak: where a GPU is usable, every
    # process holds the CUDA context (about 100 MB) from its start.
    idle=$(peak_kib "$cuk" -e 'x=1')
    limit=$(( ${idle:-0} + 65536 ))
    for how in file stdin pipe; do
        case $how in
        file) kib=$(peak_kib "$cuk" million.cuk) ;;
        stdin) kib=$(peak_kib sh -c "'$cuk' < million.cuk") ;;
        pipe) kib=$(peak_kib sh -c "yes 'x = 1;' | head -n 1000000 | '$cuk'") ;;
        esac
        if [ -n "$kib" ] && [ "$kib" -lt "$limit" ]; then
            pass "memory_million_lines_$how"
            echo "   million lines ($how): peak $kib KiB (idle cuk: $idle KiB)"
        else
            fail "memory_million_lines_$how" "peak resident memory '$kib' KiB, want < 64 MiB over an idle cuk's $idle KiB"
        fi
    done
else
    echo "SKIP memory_million_lines: no /usr/bin/time"
fi
# An endless generator: cuk reads it for a while in constant memory. Its
# lines are long (100 bytes, padded by a comment) so that much goes through
# fast: the bytes read and the peak come from /proc while cuk still runs,
# once 100 MB have gone through (a cuk that kept its input would hold more
# than 64 MiB by then, over an idle cuk's peak), or after 30 s at most.
if [ -r /proc/self/io ]; then
    idle=$(peak_kib "$cuk" -e 'x=1' 2>/dev/null)
    limit=$(( ${idle:-0} + 65536 ))
    yes "x = 1;  # $(printf '%089d' 0)" | "$cuk" &
    cpid=$!
    read_bytes=0 hwm=
    for _ in $(seq 300); do
        read_bytes=$(sed -n 's/^rchar: //p' "/proc/$cpid/io" 2>/dev/null) || break
        hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$cpid/status" 2>/dev/null)
        [ "${read_bytes:-0}" -gt 100000000 ] && break
        sleep 0.1
    done
    kill "$cpid" 2>/dev/null
    wait "$cpid" 2>/dev/null
    if [ "${read_bytes:-0}" -gt 100000000 ] && [ "${hwm:-999999}" -lt "$limit" ]; then
        pass memory_endless_pipe
        echo "   endless pipe: $((read_bytes / 100)) lines read, peak $hwm KiB"
    else
        fail memory_endless_pipe "read ${read_bytes:-0} bytes of the pipe, peak ${hwm:-?} KiB (want 100 MB read, < 64 MiB over an idle cuk's ${idle:-?} KiB)"
    fi
else
    echo "SKIP memory_endless_pipe: no /proc/PID/io"
fi

# ---- output: what cannot be written is reported, never lost silently ----

out=$("$cuk" -e 'x = 1' 2>&1 >/dev/full)
expect out_disk_full 1 $? "$out" '^cuk: cannot write standard output: No space left on device$'
out=$("$cuk" -e 'x = 1' 2>&1 >&-)
expect out_closed 1 $? "$out" '^cuk: cannot write standard output: Bad file descriptor$'
out=$("$cuk" -e 'x = 1;' 2>&1 >&-)
expect out_closed_nothing_written 0 $? "$out"
out=$("$cuk" --version 2>&1 >/dev/full)
expect out_version_disk_full 1 $? "$out" '^cuk: cannot write standard output: No space left on device$'
# Found at the statement's end: the script stops there, the save never runs.
printf 'x = 1\nsave x "after.npy"\n' >full.cuk
out=$("$cuk" full.cuk 2>&1 >/dev/full)
expect out_full_stops_script 1 $? "$out" '^cuk: cannot write standard output: No space left on device$' &&
    [ -e after.npy ] && fail out_full_stops_script "the statement after the lost output ran"
[ "$(grep -c 'cannot write' <<<"$out")" = 1 ] && pass out_reported_once || fail out_reported_once "$out"
# A pipe nobody reads: SIGPIPE ends cuk quietly, as it ends cat or yes (the
# shell sees status 141); where SIGPIPE is ignored, the write fails with
# EPIPE and cuk says so, as cat does.
if env --default-signal=PIPE true 2>/dev/null; then
    out=$(yes 'x = 1' | env --default-signal=PIPE "$cuk" 2>"$work/err" | head -1; echo "status ${PIPESTATUS[1]}")
    expect out_pipe_closed_quiet 0 0 "$out" '^x = 1$' '^status 141$' && [ -s "$work/err" ] &&
        fail out_pipe_closed_quiet "it said: $(cat "$work/err")"
    out=$(yes 'x = 1' | env --ignore-signal=PIPE "$cuk" 2>"$work/err" | head -1; echo "status ${PIPESTATUS[1]}")
    expect out_pipe_closed_ignored 0 0 "$out
$(cat "$work/err")" '^x = 1$' '^status 1$' \
        '^cuk: cannot write standard output: Broken pipe$'
else
    echo "SKIP out_pipe_closed: env has no --default-signal"
fi

# ---- saving: links, long names, signals ----

# loads NAME FILE ROWS COLS: FILE loads as a ROWSxCOLS matrix.
loads() {
    "$cuk" -e "B = load(\"$2\"); size(B)" 2>&1 | grep -qE "^ +$3 +$4\$"
}

mkdir -p links/data
echo old >links/data/t.npy
ln -s data/t.npy links/l.npy                       # relative, into a folder
ln -s "$work/links/data/t.npy" links/abs.npy       # absolute
ln -s l.npy links/chain.npy                        # a link to a link
ln -s data/new.npy links/dangling.npy
"$cuk" -e 'A = ones(2, 3); save A "links/l.npy"' &&
    [ -L links/l.npy ] && loads l links/data/t.npy 2 3 && pass save_link_relative ||
    fail save_link_relative "$(ls -l links links/data)"
"$cuk" -e 'A = ones(4, 3); save A "links/abs.npy"' &&
    [ -L links/abs.npy ] && loads a links/data/t.npy 4 3 && pass save_link_absolute ||
    fail save_link_absolute "$(ls -l links links/data)"
"$cuk" -e 'A = ones(5, 3); save A "links/chain.npy"' &&
    [ -L links/chain.npy ] && [ -L links/l.npy ] && loads c links/data/t.npy 5 3 && pass save_link_chain ||
    fail save_link_chain "$(ls -l links links/data)"
"$cuk" -e 'A = ones(6, 3); save A "links/dangling.npy"' &&
    [ -L links/dangling.npy ] && loads d links/data/new.npy 6 3 && pass save_link_dangling ||
    fail save_link_dangling "$(ls -l links links/data)"
[ -z "$(ls -A links/data | grep '^\.')$(ls -A links | grep '^\.')" ] && pass save_link_no_temp ||
    fail save_link_no_temp "$(ls -A links links/data)"
ln -s loop2.npy links/loop1.npy
ln -s loop1.npy links/loop2.npy
out=$("$cuk" -e 'A = 1; save A "links/loop1.npy"' 2>&1)
expect save_link_loop 1 $? "$out" "save: cannot write 'links/loop1.npy': Too many levels of symbolic links"

# Names up to NAME_MAX (255) save, though ".NAME.XXXXXX" would not fit.
for len in 247 250 255; do
    name=$(printf "%0$((len - 4))d.npy" 0)
    "$cuk" -e "A = ones(2, 2); save A \"$name\"" && loads n "$name" 2 2 && pass "save_long_name_$len" ||
        fail "save_long_name_$len" "cannot save or load a name of $len bytes"
    rm -f "$name"
done
name=$(printf "%0252d.npy" 0)
out=$("$cuk" -e "A = ones(2, 2); save A \"$name\"" 2>&1)
expect save_name_too_long 1 $? "$out" 'File name too long'
[ -z "$(ls -A | grep '^\.')" ] && pass save_long_name_no_temp || fail save_long_name_no_temp "$(ls -A)"

# A kill during a save leaves no temporary, and any a.npy is whole. Each
# round waits for the temporary to appear (so the signal lands inside a
# save), then a little longer, different each round, so that the signal
# lands at different points: writing, syncing, renaming, between saves.
if env --default-signal=INT true 2>/dev/null; then
    mkdir -p kill
    { echo 'mode cpu'; echo 'A = rand(4000, 4000);'; for i in $(seq 100); do echo 'save A "a.npy"'; done; } >kill/s.cuk
    bad=
    for round in 1 2 3 4; do
        sig=$([ $((round % 2)) = 1 ] && echo INT || echo TERM)
        (cd kill && exec env --default-signal=INT,TERM "$cuk" s.cuk) &
        pid=$!
        seen=
        for _ in $(seq 1000); do    # the temporary appears, 10 s at most
            ls -A kill | grep -q '^\.a\.npy\.' && seen=1 && break
            sleep 0.01
        done
        [ -n "$seen" ] || bad="$bad round $round: no save seen;"
        sleep "0.0$((RANDOM % 10))"
        kill -s "$sig" "$pid"
        wait "$pid"
        rc=$?
        want=$([ "$sig" = INT ] && echo 130 || echo 143)
        [ "$rc" = "$want" ] || bad="$bad round $round: status $rc after SIG$sig, want $want;"
        left=$(ls -A kill | grep '^\.')
        [ -z "$left" ] || bad="$bad round $round: left $left;"
        [ ! -e kill/a.npy ] || loads k kill/a.npy 4000 4000 || bad="$bad round $round: a.npy is not whole;"
        [ "$round" = 2 ] && rm -f kill/a.npy   # a first save again, then saves over a file
    done
    [ -z "$bad" ] && pass save_killed_no_temp || fail save_killed_no_temp "$bad"
else
    echo "SKIP save_killed_no_temp: env has no --default-signal"
fi

# ---- file names in a script are relative to the script's folder ----

mkdir -p proj/sub proj/data elsewhere
"$cuk" -e 'A = [1 2; 3 4]; save A "proj/data/in.npy"'
cat >proj/main.cuk <<'X'
A = load("data/in.npy");
save A "out.npy"
run "sub/inner.cuk"
X
cat >proj/sub/inner.cuk <<'X'
B = load("../data/in.npy");
save B "inner.npy"
C = load("../out.npy");
X
(cd elsewhere && "$cuk" ../proj/main.cuk) && [ -f proj/out.npy ] && [ -f proj/sub/inner.npy ] &&
    [ -z "$(ls elsewhere)" ] && pass path_script_folder || fail path_script_folder "$(ls -R proj elsewhere)"
out=$(cd elsewhere && "$cuk" "$work/proj/main.cuk" 2>&1)
expect path_script_absolute 0 $? "$out"
out=$(cd elsewhere && "$cuk" -e 'A = load("../proj/data/in.npy"); save A "e.npy"' 2>&1)
expect path_e_current_dir 0 $? "$out" && [ -f elsewhere/e.npy ] || fail path_e_current_dir "no elsewhere/e.npy"
out=$(cd elsewhere && printf 'A = load("../proj/data/in.npy");\nsave A "stdin.npy"\n' | "$cuk" 2>&1)
expect path_stdin_current_dir 0 $? "$out" && [ -f elsewhere/stdin.npy ] || fail path_stdin_current_dir "no elsewhere/stdin.npy"
out=$(cd elsewhere && "$cuk" -e "A = load(\"$work/proj/data/in.npy\"); run \"../proj/sub/inner.cuk\"" 2>&1)
expect path_run_from_e 0 $? "$out"
printf 'Z = load("missing.npy")\n' >proj/sub/miss.cuk
out=$(cd elsewhere && "$cuk" ../proj/sub/miss.cuk 2>&1)
expect path_error_names_file 1 $? "$out" "^../proj/sub/miss.cuk:1:10: error: load: cannot open '../proj/sub/missing.npy': No such file"

# ---- at the prompt: Ctrl-C during a save cancels it, cuk goes on ----

if command -v tmux >/dev/null 2>&1; then
    sock="cuk-io-$$"
    tm() { tmux -L "$sock" -f /dev/null "$@"; }
    # until: wait for a condition (a command), 20 s at most.
    until_ok() {
        local end=$((SECONDS + 20))
        until "$@"; do [ $SECONDS -gt $end ] && return 1; sleep 0.05; done
    }
    on_screen() { tm capture-pane -p -t t 2>/dev/null | grep -qE -- "$1"; }
    temp_there() { ls -A prompt | grep -q '^\.a\.csv\.'; }
    mkdir -p prompt
    tm new-session -d -s t -x 100 -y 30 -c "$work/prompt" "env HOME='$work' TERM=xterm '$cuk' --no-panel"
    why=
    until_ok on_screen 'cuk\[[a-z]+\]>' || why="no prompt"
    [ -z "$why" ] && tm send-keys -t t 'A = rand(4000, 4000); save A "a.csv"' Enter
    [ -z "$why" ] && { until_ok temp_there || why="no temporary appeared: $(tm capture-pane -p -t t | grep -v "^$")"; }
    [ -z "$why" ] && tm send-keys -t t C-c
    [ -z "$why" ] && { until_ok on_screen '^interrupted$' || why="no 'interrupted'"; }
    [ -z "$why" ] && tm send-keys -t t 'x = 5' Enter
    [ -z "$why" ] && { until_ok on_screen '^x = 5$' || why="no prompt after the interrupt"; }
    [ -z "$why" ] && [ -n "$(ls -A prompt)" ] && why="left $(ls -A prompt)"
    tm kill-server 2>/dev/null
    [ -z "$why" ] && pass save_interrupt_prompt || fail save_interrupt_prompt "$why"
else
    echo "SKIP save_interrupt_prompt: tmux not installed"
fi
