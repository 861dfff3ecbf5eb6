#!/usr/bin/env bash
# terminal.sh - the interactive REPL driven through a real terminal (tmux
# send-keys / capture-pane): the prompt, continuation lines, history kept
# across a restart, Tab completion, Ctrl-C at the prompt and during a long
# command (also inside one row of a product, a transpose, rand and a BLAS
# call), Ctrl-D. Skipped where tmux is not installed.
if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP terminal: tmux not installed"
    exit 0
fi
. "$(dirname "$0")/lib.sh"
unset CUK_HISTORY # the history file under HOME is part of what is tested
readline=1
"$cuk" --version | grep -q 'no readline' && readline=0

# Start cuk in a fresh 100x30 terminal, with its own HOME (history file).
start() {
    tm kill-server 2>/dev/null
    sleep 0.3 # a tmux server whose last session ended may still be going away
    tm new-session -d -s t -x 100 -y 30 "env HOME='$work' TERM=xterm '$cuk' $*"
    wait_for 'cuk\[[a-z]+\]>' 10
}

# The last line that is not blank.
last_line() { screen | sed '/^[[:space:]]*$/d' | tail -n 1; }


# Until cuk has ended and its session closed (5 s at most); 0 if it did.
wait_exit() {
    local end=$((SECONDS + 5))
    while tm has-session -t t 2>/dev/null && [ $SECONDS -le $end ]; do sleep 0.1; done
    ! tm has-session -t t 2>/dev/null
}

start --no-panel
result term_prompt $? "no prompt: $(screen | head -c 200)"

tm send-keys -t t 'keep = 42' Enter
wait_for '^keep = 42$' 5
result term_assign $? "no result"

tm send-keys -t t 'M = [1 2' Enter
wait_for '^ +\.\.\.$' 5 && tm send-keys -t t '3 4]' Enter && wait_for '^M = 2x2' 5
result term_continuation $? "no continuation line or no result"

tm send-keys -t t 'myvariable_long = 5' Enter
wait_for '^myvariable_long = 5$' 5
if [ $readline = 1 ]; then
    tm send-keys -t t 'myvar' Tab
    wait_for 'cuk\[[a-z]+\]> myvariable_long' 5
    result term_tab_completes_variable $? "Tab did not complete the name"
    tm send-keys -t t ' + 1' Enter
    wait_for '^ans = 6$' 5
    result term_completed_line_runs $? "the completed line did not run"
    # After `set`: the switches (not the functions), then the switch's values.
    tm send-keys -t t -l 'set '
    tm send-keys -t t Tab Tab
    wait_for '^align +atile +coalesce +pad +reduce +spread +tc +tile *$' 5 && ! screen | grep -qE '(^| )randn( |$)'
    result term_tab_set_switches $? "set <Tab> does not list the switches alone"
    tm send-keys -t t -l 'ati'
    tm send-keys -t t Tab
    tm send-keys -t t -l 'tr'
    tm send-keys -t t Tab
    wait_for 'cuk\[[a-z]+\]> set atile transposed *$' 5
    result term_tab_set_values $? "set ati<Tab> tr<Tab> did not complete to set atile transposed"
    tm send-keys -t t C-c
else
    echo "SKIP term_tab_completes_variable: cuk was built without readline"
fi

tm send-keys -t t 'this line is abandoned'
wait_for 'abandoned' 5 && tm send-keys -t t C-c && sleep 0.3
tm send-keys -t t 'keep' Enter
wait_for '^keep = 42$' 5 && ! screen | grep -q 'abandonedkeep'
result term_ctrl_c_clears_line $? "Ctrl-C did not clear the line"

# Ctrl-C during a long CPU product: the prompt is back within a second,
# and what was defined before is intact.
tm send-keys -t t 'mode cpu; C = rand(3000,3000) @ rand(3000,3000)' Enter
sleep 1.5
running=0
last_line | grep -qE '^cuk\[cpu\]>$' || running=1
t0=$(date +%s.%N)
tm send-keys -t t C-c
wait_for '^interrupted$' 5
back=$?
t1=$(date +%s.%N)
elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
last_line | grep -qE '^cuk\[cpu\]>$'
prompt=$?
[ $running = 1 ] && [ $back = 0 ] && [ $prompt = 0 ] && awk -v e="$elapsed" 'BEGIN { exit !(e < 1.0) }'
result term_ctrl_c_cancels_command $? "running=$running interrupted=$back prompt=$prompt after ${elapsed}s"
echo "   Ctrl-C during the product: prompt back after ${elapsed}s"
# Ctrl-C inside long loops, not only between rows: one row of a cpu
# product that is the whole product (1x14000 @ 14000x14000, seconds of
# work), a BLAS product (run in panels with a check between them), a
# transpose and rand of 14000x14000. Each time the prompt is back within a
# second (a generous guard: the loops check every ~0.1 s; 3 s under the
# sanitizers) and the interrupted command assigned nothing.
transcript() { tm capture-pane -p -S -32768 -t t 2>/dev/null; }
count() { transcript | grep -cE -- "$1"; }
# wait_more REGEX N SECONDS: until more than N lines of the transcript match.
wait_more() {
    local end=$((SECONDS + $3))
    while [ $SECONDS -le "$end" ]; do
        [ "$(count "$1")" -gt "$2" ] && return 0
        sleep 0.1
    done
    return 1
}
# cancel_inside NAME STATEMENT VAR: Ctrl-C 0.5 s after STATEMENT starts.
# Under the sanitizers (make asan) freeing the half-made 784 MB result
# alone takes a good part of a second: the guard is 3 s there.
limit=1.0
[ -n "${SAN_LOG:-}" ] && limit=3.0
cancel_inside() {
    local before undefined running=0 back prompt t0 t1 elapsed
    before=$(count '^interrupted$')
    undefined=$(count "'$3' is not defined")
    tm send-keys -t t -l "$2"
    tm send-keys -t t Enter
    sleep 0.5
    last_line | grep -qE '^cuk\[[a-z]+\]>$' || running=1
    t0=$(date +%s.%N)
    tm send-keys -t t C-c
    wait_more '^interrupted$' "$before" 5
    back=$?
    t1=$(date +%s.%N)
    elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    last_line | grep -qE '^cuk\[[a-z]+\]>$'
    prompt=$?
    [ $running = 1 ] && [ $back = 0 ] && [ $prompt = 0 ] && awk -v e="$elapsed" -v l="$limit" 'BEGIN { exit !(e < l) }'
    result "$1" $? "running=$running interrupted=$back prompt=$prompt after ${elapsed}s (limit ${limit}s)"
    echo "   Ctrl-C inside $2: prompt back after ${elapsed}s"
    tm send-keys -t t -l "$3"
    tm send-keys -t t Enter
    wait_more "'$3' is not defined" "$undefined" 5
    result "$1_assigned_nothing" $? "$3 was defined by the interrupted command"
}
tm send-keys -t t 'mode cpu; x = ones(1, 14000); B = ones(14000, 14000); ready = 7' Enter
wait_for '^ready = 7$|error: out of host memory' 30
if screen | grep -q 'error: out of host memory'; then
    echo "SKIP term_ctrl_c_inside: not enough free memory for two 14000x14000 matrices"
elif screen | grep -q '^ready = 7$'; then
    cancel_inside term_ctrl_c_inside_cpu_row 'Crow = x @ B' Crow
    cancel_inside term_ctrl_c_inside_transpose 'T = B'"'" T
    cancel_inside term_ctrl_c_inside_rand 'R = rand(14000, 14000)' R
    if "$cuk" -e 'mode blas' >/dev/null 2>&1; then
        tm send-keys -t t 'mode blas' Enter
        cancel_inside term_ctrl_c_inside_blas_product 'Cblas = B @ B' Cblas
        tm send-keys -t t 'mode cpu' Enter
    else
        echo "SKIP term_ctrl_c_inside_blas_product: no mode blas in this build"
    fi
else
    result term_ctrl_c_inside_setup 1 "could not make the 14000x14000 operands"
fi
tm send-keys -t t 'clear x B' Enter
# Type on only at a bare prompt: without readline the terminal echoes what
# is typed while a command runs, and an echoed line would match too early.
for _ in $(seq 300); do last_line | grep -qE '^cuk\[[a-z]+\]>$' && break; sleep 0.1; done
tm send-keys -t t 'cleared = 8' Enter
wait_for '^cleared = 8$' 10 # a Ctrl-D typed while a command runs is lost
for _ in $(seq 300); do last_line | grep -qE '^cuk\[[a-z]+\]>$' && break; sleep 0.1; done

# The variables from before the cancels hold their values, and the
# cancelled product defined no C: each answer one line, at the prompt.
tm send-keys -t t 'intact = keep * 100 + myvariable_long' Enter
wait_for '^intact = 4205$' 5 && tm send-keys -t t 'C' Enter && wait_for "'C' is not defined" 5
result term_workspace_intact_after_cancel $? "variables lost or C half-made"

tm send-keys -t t C-d
wait_exit
result term_ctrl_d_exits $? "cuk still running after Ctrl-D"

# History survives a restart.
if [ $readline = 1 ]; then
    start --no-panel
    tm send-keys -t t Up
    wait_for 'cuk\[[a-z]+\]> C$' 5
    result term_history_survives_restart $? "Up did not bring back the last line of the previous session"
    tm send-keys -t t C-c
    tm send-keys -t t 'quit' Enter
else
    echo "SKIP term_history_survives_restart: cuk was built without readline"
fi

# The panel (the default on a terminal): it shows the mode, the last
# commands and the workspace; typing, completion, Ctrl-C, resizing and
# switching it off and on all work under it.
if "$cuk" --version | grep -q 'no ncurses'; then
    echo "SKIP term_panel: cuk was built without ncurses"
    exit 0
fi
send() { tm send-keys -t t -l "$1"; tm send-keys -t t Enter; }
tm kill-server 2>/dev/null
sleep 0.3 # a tmux server whose last session ended may still be going away
tm new-session -d -s t -x 100 -y 30 "env HOME='$work' TERM=xterm '$cuk'"
wait_for '^ cuk \| mode [a-z]+ \| .* \| ready' 10 && wait_for 'last commands' 2
result term_panel_shows $? "no panel"
send 'keep = 42'
wait_for '^keep = 42$' 5 && wait_for 'workspace: .*keep 1x1' 5
result term_panel_output_and_workspace $? "no output or workspace line"
send 'mode cpu'
send 'A = rand(200, 300), B = rand(300, 100), C = A @ B'
wait_for '^  C = A @ B +cpu .*FLOP/s' 5
result term_panel_last_commands $? "the product is not in the last commands"
# A bench is one row per mode (its median), not one per run; the title
# keeps the user's mode; a failed command says so.
send 'bench cpu blas: A @ B'
wait_for '^  bench cpu blas: A @ B +blas\* ' 30 && screen | grep -qE '^  bench cpu blas: A @ B +cpu\* ' &&
    [ "$(screen | grep -cE '^  bench cpu blas: A @ B ')" -eq 2 ] && screen | head -n 1 | grep -q '^ cuk | mode cpu'
result term_panel_bench_one_row_per_mode $? "not one row per mode, or the title changed mode"
send 'x = nosuch'
wait_for '^  x = nosuch +cpu .* error ' 5
result term_panel_error_row $? "the failed command does not say error"
send 'myvariable_long = 5'
tm send-keys -t t -l 'myvar'
tm send-keys -t t Tab
wait_for '^cuk\[cpu\]> myvariable_long' 5
result term_panel_tab_completion $? "Tab did not complete under the panel"
tm send-keys -t t C-c
# File names inside quotes, listed under the panel in columns as wide as
# the longest name shown (without its folder), never run together.
mkdir -p lessons && touch lessons/1-memory.cuk lessons/4-coalescing.cuk lessons/5-bank-conflicts.cuk lessons/8-x.cuk
tm send-keys -t t -l 'run "lessons/'
tm send-keys -t t Tab Tab
wait_for '^1-memory\.cuk +4-coalescing\.cuk +5-bank-conflicts\.cuk +8-x\.cuk *$' 5 && ! screen | grep -q 'cuklessons/'
result term_panel_tab_files $? "the file names are not listed apart"
tm send-keys -t t C-c
send 'C = rand(3000,3000) @ rand(3000,3000)'
wait_for '\| running [0-9.]+ s: C = rand' 5
running=$?
tm send-keys -t t C-c
wait_for '^interrupted$' 3 && wait_for '\| ready' 3 && [ $running = 0 ]
result term_panel_ctrl_c $? "not shown running, or not interrupted"
wait_for '^  C = rand\(3000,3000\) @ rand.* stopped ' 3
result term_panel_stopped_row $? "the interrupted command does not say stopped"
tm resize-window -t t -x 80 -y 24
sleep 0.3
send '1 + 1'
wait_for '^ans = 2$' 5 && screen | head -n 1 | grep -q '^ cuk | mode cpu'
result term_panel_resize $? "the panel broke after a resize"
send 'panel off'
wait_for '^cuk\[cpu\]>' 5 && sleep 0.3 && ! screen | grep -q 'last commands'
result term_panel_off $? "the panel is still up"
send 'panel on'
wait_for 'last commands' 5
result term_panel_on $? "the panel did not come back"
tm send-keys -t t C-d
wait_exit
result term_panel_ctrl_d_exits $? "cuk still running after Ctrl-D"

sleep 0.3
tm new-session -d -s t -x 100 -y 30 "env HOME='$work' TERM=dumb '$cuk'"
wait_for '^cuk\[[a-z]+\]>' 5 && ! screen | grep -q 'last commands'
result term_dumb_has_no_panel $? "a panel on TERM=dumb"
tm kill-session -t t 2>/dev/null
