#!/usr/bin/env bash
# screen80.sh - cuk on a lecturer's 80x24 terminal, driven through tmux
# (send-keys / capture-pane) without the panel: after `bench` in every mode
# the table's header row and every available mode's row are on the screen,
# each unavailable mode on one line; the bench legend once a session; the
# ladder and roofline charts whole on the screen with every axis label;
# long lines broken at words, never inside one; colour only without
# NO_COLOR; the roofline's rows one line each. Skipped where tmux is not
# installed.
if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP screen80: tmux not installed"
    exit 0
fi
. "$(dirname "$0")/lib.sh"

# start [VAR=value...]: cuk in a fresh 80x24 terminal, quick measurements.
start() {
    tm kill-server 2>/dev/null
    sleep 0.3 # a tmux server whose last session ended may still be going away
    tm new-session -d -s t -x 80 -y 24 "env HOME='$work' TERM=xterm-256color LANG=C.UTF-8 \
        CUK_BENCH_SHARE_MS=30 CUK_LADDER_SHARE_MS=10 $* '$cuk' --no-panel"
    wait_for 'cuk\[[a-z]+\]>' 10
}

# run STATEMENT SECONDS: type it, wait until it has finished (a bare
# prompt after it); 0 if it did.
run() {
    local before
    before=$(history_of | grep -cE '^cuk\[[a-z]+\]>')
    tm send-keys -t t -l "$1"
    tm send-keys -t t Enter
    local end=$((SECONDS + $2))
    while [ $SECONDS -le $end ]; do
        [ "$(history_of | grep -cE '^cuk\[[a-z]+\]>')" -gt "$before" ] &&
            history_of | sed '/^[[:space:]]*$/d' | tail -n 1 | grep -qE '^cuk\[[a-z]+\]>$' && return 0
        sleep 0.2
    done
    return 1
}
history_of() { tm capture-pane -p -S -3000 -t t 2>/dev/null; }

# The modes available in this build, from the build itself.
available=$("$cuk" -e modes | grep -v 'unavailable' | sed -E 's/^[* ] ([a-z0-9_]+) .*/\1/')

start
run 'A = rand(120, 120);' 10
run 'bench A @ A' 120
s=$(screen)
ok=0 why=""
grep -qE '^  mode +runs +kernel' <<<"$s" || { ok=1; why="no header row"; }
for m in $available; do
    grep -qE "^  $m +[0-9]" <<<"$s" || { ok=1; why="$why; no row of $m"; }
done
if grep -qE '^ {11}' <<<"$s"; then ok=1; why="$why; a line wrapped under a mode"; fi
result screen80_bench_rows_on_screen $ok "${why#; }"
n=$("$cuk" -e modes | grep -c unavailable)
[ "$(grep -c 'unavailable: ' <<<"$s")" -eq "$n" ]
result screen80_unavailable_one_line_each $? "$n unavailable modes, not one line each"

run 'bench cpu blas: A + A' 60
[ "$(history_of | grep -c 'times: medians')" -eq 1 ] && screen | grep -qE '^  blas +[0-9]'
result screen80_legend_once $? "the legend shown $(history_of | grep -c 'times: medians') times"

run 'ladder cpu blas: X @ Y for n in 16 32 64 128' 120
s=$(screen)
grep -qE '^ladder X @ Y: kernel time against n' <<<"$s" && grep -qE '^kernel time$' <<<"$s" &&
    [ "$(grep -cE '^ *[0-9.]+[nµm]?s ┤' <<<"$s")" -ge 2 ] && grep -qE '^ +└─.*┬' <<<"$s" &&
    grep -qE '^ +20 .* 50 .* 100 .*n \(size\)$' <<<"$s" && grep -qE '^  ● cpu  ■ blas$' <<<"$s"
result screen80_ladder_chart_whole $? "a part of the chart or an axis label is not on the screen"

run 'mode cpu; C = A @ A; s = sum(A); mode blas; C = A @ A; roofline' 60
s=$(screen)
grep -qE '^roofline: ' <<<"$s" && grep -qE '^FLOP/s$' <<<"$s" && [ "$(grep -cE '^ *[0-9.]+[kMGT]? ┤' <<<"$s")" -ge 3 ] &&
    grep -qE '^ +0.01 .* 1000$' <<<"$s" && grep -qE 'FLOP/B$' <<<"$s" && grep -qE '^  host: ' <<<"$s" &&
    grep -qE '^  1 blas +matmul' <<<"$s" && grep -qE '^  3 cpu +matmul' <<<"$s"
result screen80_roofline_chart_whole $? "a part of the chart or an axis label is not on the screen"
# each point's row on one line, whatever its numbers (a wrapped row hangs
# its last words far to the right, in lower case)
! grep -qE '^ {20,}[a-z]' <<<"$s"
result screen80_roofline_rows_unwrapped $? "a point's row wrapped: $(grep -E '^ {20,}[a-z]' <<<"$s" | head -1)"
tm capture-pane -e -p -t t | grep -q $'\e\\[3[0-9]m'
result screen80_colour $? "no colour in the chart on a colour terminal"

# Long lines broken at words: every word of what a script prints (no
# wrapping there) is whole on the screen, and no line is wider than it.
words_whole() {
    local name=$1 stmt=$2 want got
    want=$("$cuk" -e "$stmt" | tr -s ' *\n' '\n\n\n' | grep -v '^$')
    run "$stmt" 10
    got=$(history_of | awk -v cmd="$stmt" '/^cuk\[[a-z]+\]>/ { on = substr($0, index($0, "> ") + 2) == cmd; next }
                                           on' | tr -s ' *\n' '\n\n\n' | grep -v '^$')
    [ -n "$want" ] && [ "$want" = "$got" ]
    result "$name" $? "a word cut: $(diff <(echo "$want") <(echo "$got") | head -4 | tr '\n' ' ')"
}
words_whole screen80_help_commands_at_words 'help commands'
words_whole screen80_modes_at_words 'modes'
words_whole screen80_set_at_words 'set'
words_whole screen80_help_scripts_at_words 'help scripts'

start NO_COLOR=1
run 'A = rand(60, 60); mode cpu; C = A @ A; roofline' 60
! tm capture-pane -e -p -t t | grep -q $'\e\\[3[0-9]m' && screen | grep -qE '^  1 cpu +matmul'
result screen80_no_colour $? "colour with NO_COLOR set"
