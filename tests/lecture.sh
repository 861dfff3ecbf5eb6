#!/usr/bin/env bash
# lecture.sh - the lecture kit: every demo script in scripts/ opens with its
# one-sentence `#:` line and is run by lecture.cuk; `--rehearse` runs the
# lecture without a GPU, listing what it skips, and exits 0; `#:` headings in
# script runs; rehearsal's rules (a lacking mode, the names it made, real
# errors); `run "f" step|rehearse`; and `--step` driven through a real
# terminal (tmux): the echo, Enter, `# pause`, headings, q. The terminal
# cases are skipped where tmux is not installed.
. "$(dirname "$0")/lib.sh"
here=$(cd "$tests/.." && pwd)

gpu=0
"$cuk" -e 'modes' | grep -E '^[ *] tiled +GPU' | grep -vq unavailable && gpu=1

# ---- the scripts ----

# Each lesson opens with its one-sentence description (help lessons shows
# it), and lecture.cuk runs every lesson.
problems=""
for f in "$here"/scripts/*.cuk; do
    first=$(grep -v '^[[:space:]]*$' "$f" | head -n 1)
    [[ "$first" == '#: '* ]] || problems+=" $(basename "$f") opens without a '#:' line;"
    [ "$(basename "$f")" = lecture.cuk ] && continue
    grep -q "^run \"$(basename "$f")\"" "$here/scripts/lecture.cuk" || problems+=" lecture.cuk does not run $(basename "$f");"
done
[ -z "$problems" ] && echo "PASS lecture_scripts_described_and_run" || echo "FAIL lecture_scripts_described_and_run:$problems"

# The whole lecture rehearsed: on a machine without a GPU the GPU parts are
# listed as skipped and the rest runs; status 0. With a GPU it would run
# for minutes (bench/lecture.sh does that): CUDA_VISIBLE_DEVICES= hides it.
# Before the lessons are recorded, the benches of GPU modes run their cpu
# rows here; after, they are skipped and their recordings shown.
nogpu() { CUDA_VISIBLE_DEVICES= "$@"; }
cpu_rows=('^  cpu +[0-9]+ +[0-9.]+ (s|ms) ' '^  cpu .*~[0-9.]+ s\*$')
ls "$here"/scripts/recorded/*.txt >/dev/null 2>&1 && cpu_rows=()
check lecture_rehearsed 0 '^#: Lesson 1, ' '^#: Lesson 8, ' '^skipped \(no GPU\): mode tiled$' \
    '^skipped \(no GPU\): timeit G = D @ E$' '^skipped \(C was skipped\): s = sum\(C\)$' \
    "${cpu_rows[@]}" '^d = 2\.572356[0-9]e\+13$' '!error: ' -- nogpu "$cuk" --rehearse "$here/scripts/lecture.cuk"

# A rehearsal shows, for each statement it cannot run, what it printed
# when the lesson was recorded on a GPU, marked with the GPU and the date
# (tests/rehearse/: a lesson and a made-up recording); by its occurrence
# (the second `kernels` shows the second's); "no recording" for one
# edited since.
mark='^  recorded on NVIDIA H200 \(fixture\), 2025-06-02:$'
out=$(nogpu "$cuk" --rehearse "$here/tests/rehearse/lesson.cuk" 2>&1)
rc=$?
got=$(python3 -c '
import sys
lines, mark = sys.stdin.read().splitlines(), "  recorded on NVIDIA H200 (fixture), 2025-06-02:"
def after(stmt):
    i = lines.index(stmt)
    return lines[i + 1:i + 3]
want = {
    "skipped (no GPU): timeit C = A @ A": [mark, "9999 runs: median 5.1 µs per run (fixture)"],
    "skipped (no GPU): x = sum(C)": [mark, "x = 4.2 (fixture)"],
    "skipped (no GPU): bench cpu naive: A @ A": [mark, "bench A @ A  4x4 @ 4x4 (fixture)"],
}
bad = [s for s, w in want.items() if s not in lines or after(s) != w]
kernels = [i for i, l in enumerate(lines) if l == "skipped (no GPU): kernels"]
if len(kernels) != 2 or lines[kernels[0] + 2] != "kernels of mode naive (fixture, the first)" or \
   lines[kernels[1] + 2] != "kernels of mode tiled (fixture, the second)":
    bad.append("the two kernels")
if "skipped (no GPU): z = 1" not in lines or not after("skipped (no GPU): z = 1")[0].startswith("  no recording: re-record the lesson"):
    bad.append("z = 1 without a recording")
if not any(l.startswith("y = ") and "fixture" not in l for l in lines):
    bad.append("y, which runs here")
print("ok" if not bad else "; ".join(bad))' <<<"$out")
[ $rc = 0 ] && [ "$got" = ok ] && echo "PASS rehearse_plays_recording" ||
    echo "FAIL rehearse_plays_recording: status $rc, $got: $(head -c 600 <<<"$out")"
check rehearse_recorded_error_line 0 'an error line \(fixture\)$' -- nogpu "$cuk" --rehearse "$here/tests/rehearse/lesson.cuk"
cp "$here/tests/rehearse/lesson.cuk" bare.cuk
check rehearse_no_recording 0 '^  no recording: re-record the lesson \(there is no recorded/bare\.txt\)$' \
    "!$mark" -- nogpu "$cuk" --rehearse bare.cuk

# The lessons' own recordings (scripts/recorded/, made on a GPU by
# bench/record-lessons.sh): the lecture rehearsed without a GPU shows one
# for every statement it cannot run, and every lesson shows some.
if ! ls "$here"/scripts/recorded/*.txt >/dev/null 2>&1; then
    echo "SKIP lecture_rehearsal_recorded: scripts/recorded/ is empty (the lessons are recorded on a GPU: bench/record-lessons.sh)"
else
    out=$(nogpu "$cuk" --rehearse "$here/scripts/lecture.cuk" 2>&1)
    rc=$?
    got=$(python3 -c '
import re, sys
lines, missing, lessons, current = sys.stdin.read().splitlines(), [], {}, None
for i, l in enumerate(lines):
    m = re.match(r"#: Lesson (\d+),", l)
    if m:
        current = m.group(1)
        lessons[current] = 0
    if l.startswith("  no recording"):
        missing.append(lines[i - 1])
    if re.match(r"  recorded on .+, \d{4}-\d\d-\d\d:$", l) and current:
        lessons[current] += 1
bare = sorted(k for k, v in lessons.items() if v == 0)
print("ok" if not missing and not bare and len(lessons) >= 8 else
      "no recording for: %s; lessons with none: %s; lessons seen: %d" % (missing[:5], bare, len(lessons)))' <<<"$out")
    [ $rc = 0 ] && [ "$got" = ok ] && echo "PASS lecture_rehearsal_recorded" ||
        echo "FAIL lecture_rehearsal_recorded: status $rc, $got"
fi

# help lessons lists lecture.cuk and each lesson with its sentence, read
# from the scripts beside the binary (the source tree's scripts/ here).
pats=('^the demo scripts, in /' '^  lecture\.cuk$' '^      The lecture: ' '^step through it: +cuk --step /')
for f in "$here"/scripts/[0-9]*.cuk; do
    pats+=("^  $(basename "$f")\$" "^      $(sed -n '1s/^#: \(.\{20\}\).*/\1/p' "$f" | sed 's/[][\.*^$()+?{}|]/\\&/g')")
done
check help_lessons 0 "${pats[@]}" -- "$cuk" -e 'help lessons'
check help_scripts 0 '^  #: text ' '^  # pause ' '^  cuk --step FILE\.cuk ' '^  cuk --rehearse FILE ' -- "$cuk" -e 'help scripts'
cp "$cuk" lonely-cuk
check help_lessons_not_found 1 'help lessons: the demo scripts are not beside cuk' -- ./lonely-cuk -e 'help lessons'

# ---- headings and rehearsal's rules ----

cat >h.cuk <<'EOF'
#: What this script shows.
x = 1
  #: An indented heading.
y = [1
#: inside a statement: a comment
2]
z = 3 #: after a statement: a comment
EOF
check heading_plain_run 0 '^#: What this script shows\.$' '^#: An indented heading\.$' '!inside a statement' \
    '!after a statement' '^z = 3$' -- "$cuk" h.cuk
check heading_not_in_e 0 '^x = 1$' '!^#:' -- "$cuk" -e '#: not a script file
x = 1'

cat >r.cuk <<'EOF'
mode cpu
A = rand(3);
mode tiled
C = A @ A;
set tile 32
seed 4
bench A @ A
mode cpu
s = sum(C)
B = C + 1;
t = sum(B)
set
u = sum(A)
C = ones(2)
v = sum(C)
EOF
if [ $gpu = 0 ]; then
    check rehearse_skips_gpu 0 '^skipped \(no GPU\): mode tiled$' '^skipped \(no GPU\): C = A @ A$' \
        '^skipped \(no GPU\): bench A @ A$' '^  tile +32 ' '^skipped \(C was skipped\): s = sum\(C\)$' \
        '^skipped \(C was skipped\): B = C \+ 1$' '^skipped \(B was skipped\): t = sum\(B\)$' '^u = ' \
        '^v = 4$' -- "$cuk" --rehearse r.cuk
    check plain_run_stops_at_gpu 1 'r.cuk:3:6: error: mode tiled is unavailable' '!^u = ' -- "$cuk" r.cuk
    check rehearse_e 0 '^skipped \(no GPU\): mode naive$' '^skipped \(no GPU\): x = 1$' '^y = 2$' -- \
        "$cuk" --rehearse -e 'mode naive; x = 1; mode blas; y = 2'
    check run_rehearse 0 '^skipped \(no GPU\): mode tiled$' '^v = 4$' -- "$cuk" -e 'run "r.cuk" rehearse'
    check run_rehearse_ends 1 '^skipped \(no GPU\): mode tiled$' 'mode tiled is unavailable' -- \
        "$cuk" -e 'run "r.cuk" rehearse; mode tiled'
else
    check rehearse_runs_gpu 0 '^v = 4$' '!skipped' -- "$cuk" --rehearse r.cuk
fi
check rehearse_unknown_mode 1 "unknown mode 'tield'" -- "$cuk" --rehearse -e 'mode tield'
check rehearse_real_error 1 "'nothere' is not defined" '!^after' -- "$cuk" --rehearse -e 'mode cpu; x = nothere; after = 1'
check echo_transcript 0 '^#: What this script shows\.$' '^cuk\[[a-z]+\]> x = 1$' '^x = 1$' '^cuk\[[a-z]+\]> y = \[1$' \
    '^ +\.\.\. 2\]$' '^cuk\[[a-z]+\]> z = 3 #: after a statement: a comment$' -- "$cuk" --echo h.cuk
# Headings and comments wrap at words, to the width of the output (80 in a
# script's): every line fits, and the words are all there, in order.
long="alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau"
printf '#: %s %s\nx = 1   # %s %s\n' "$long" "$long" "$long" "$long" >w.cuk
got=$("$cuk" --echo w.cuk | python3 -c '
import sys
text, long = sys.stdin.read(), sys.argv[1]
lines = [l for l in text.splitlines() if l]
flat = " ".join(text.split())
ok = all(len(l) <= 79 for l in lines) and len(lines) >= 6
ok = ok and ("#: %s %s" % (long, long)) in flat and ("cuk[cpu]> x = 1 # %s %s" % (long, long)) in flat
ok = ok and lines[1].startswith("   ") and lines[0].startswith("#: alpha") and not lines[0].endswith(" ")
print("ok" if ok else text)' "$long")
[ "$got" = ok ] && echo "PASS wrap_at_words" || echo "FAIL wrap_at_words: $got"
check run_bad_word 1 "run: expected step or rehearse after the file name, got 'fast'" -- "$cuk" -e 'run "r.cuk" fast'
check step_without_terminal 2 'cuk: --step: step mode reads its keys from the terminal, and there is none' -- \
    setsid -w "$cuk" --step h.cuk
if command -v script >/dev/null 2>&1; then # a terminal on stdin: the interactive calculator, not a script
    check step_flag_needs_script 2 'cuk: --step, --echo and --rehearse run a script' -- script -qec "'$cuk' --step" /dev/null
else
    echo "SKIP step_flag_needs_script: script (util-linux) not installed"
fi

# ---- step mode in a real terminal ----

if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP step_terminal: tmux not installed"
    exit 0
fi
start() { # ARGS: cuk in a fresh terminal (with the variables in $with set); its status is printed when it ends
    tm kill-server 2>/dev/null
    sleep 0.3
    tm new-session -d -s t -x 100 -y 30 "cd '$work' && env TERM=xterm ${with:-} '$cuk' $*; echo \"[exit \$?]\"; sleep 60"
}

cat >s.cuk <<'EOF'
#: Step by step.
a = 40 + 2   # the answer
b = [1 2
3 4];
# pause
#: The second part.
c = a + 1
d = 5
EOF
start --step s.cuk
wait_for '^cuk\[[a-z]+\]> a = 40 \+ 2   # the answer$' 5 && sleep 0.5 && ! screen | grep -q '^a = 42'
result step_echo_waits $? "the first statement was not echoed, or ran before Enter"
screen | grep -q '^#: Step by step\.$'
result step_heading $? "no heading before the first statement"
tm send-keys -t t Enter
wait_for '^a = 42$' 5 && wait_for '^cuk\[[a-z]+\]> b = \[1 2$' 5 && wait_for '^ +\.\.\. 3 4\];$' 5
result step_enter_runs $? "Enter did not run the statement, or the next was not echoed with its second line"
tm send-keys -t t Enter
sleep 0.5
screen | sed '/^[[:space:]]*$/d' | tail -n 1 | grep -qE '^cuk\[[a-z]+\]>$' && ! screen | grep -q '^#: The second part'
result step_pause_waits $? "# pause did not wait at an empty prompt"
tm send-keys -t t Enter
wait_for '^#: The second part\.$' 5 && wait_for '^cuk\[[a-z]+\]> c = a \+ 1$' 5
result step_pause_goes_on $? "Enter at the pause did not go on"
tm send-keys -t t q Enter
wait_for '^\[exit 0\]$' 5 && ! screen | grep -qE '^(c = 43|d = 5)'
result step_q_stops $? "q did not end the script with status 0 before running c"

# At the prompt: `run "s.cuk" step`, then q: the run ends, the session goes on.
start --no-panel
wait_for '^cuk\[[a-z]+\]> $' 5
tm send-keys -t t -l 'run "s.cuk" step'
tm send-keys -t t Enter
wait_for '^cuk\[[a-z]+\]> a = 40 \+ 2' 5 && tm send-keys -t t Enter && wait_for '^a = 42$' 5
tm send-keys -t t q Enter
sleep 0.5
tm send-keys -t t -l 'a + 1'
tm send-keys -t t Enter
wait_for '^ans = 43$' 5
result step_run_at_prompt $? "run \"s.cuk\" step at the prompt, then q, did not return to the session"
tm send-keys -t t C-d

# Keys pressed while a statement runs are thrown away: Enter twice during
# a cpu product of about 2 s runs nothing after it, which waits at its
# prompt; then s skips, b shows the one before again, ? lists the keys.
cat >k.cuk <<'EOF2'
mode cpu
A = rand(1400);
C = A @ A;
d = 1
e = 2
f = 3
EOF2
start --no-panel --step k.cuk
wait_for '^cuk\[[a-z]+\]> mode cpu$' 5 && tm send-keys -t t Enter &&
    wait_for '^cuk\[cpu\]> A = rand\(1400\);' 5 && tm send-keys -t t Enter &&
    wait_for '^cuk\[cpu\]> C = A @ A;$' 5 && tm send-keys -t t Enter && sleep 0.3 &&
    tm send-keys -t t Enter && sleep 0.2 && tm send-keys -t t Enter &&
    wait_for '^cuk\[cpu\]> d = 1$' 60 && sleep 1 && ! screen | grep -qE '^(d = 1|e = 2)$'
result step_keys_during_statement_dropped $? "Enter pressed during the product ran the statements after it"
tm send-keys -t t Enter
wait_for '^d = 1$' 5 && wait_for '^cuk\[cpu\]> e = 2$' 5 && sleep 0.5 && ! screen | grep -q '^e = 2$'
result step_enter_runs_one $? "Enter did not run d alone"
tm send-keys -t t s
wait_for '^cuk\[cpu\]> e = 2 +\(skipped\)$' 5 && wait_for '^cuk\[cpu\]> f = 3$' 5 && ! screen | grep -q '^e = 2$'
result step_s_skips $? "s did not skip e"
tm send-keys -t t b
wait_for '^cuk\[cpu\]> f = 3 +\(back\)$' 5 && [ "$(screen | grep -c '^cuk\[cpu\]> e = 2')" = 2 ]
result step_b_back $? "b did not show e again"
tm send-keys -t t '?'
wait_for '^  Enter or space +run it ' 5 && wait_for '^  g N Enter +go to lesson N ' 5
result step_keys_listed $? "? did not list the keys"
tm send-keys -t t Enter
wait_for '^e = 2$' 5 && wait_for '^cuk\[cpu\]> f = 3$' 5
result step_b_runs_again $? "Enter after b did not run e"
tm send-keys -t t q
wait_for '^\[exit 0\]$' 5 && ! screen | grep -q '^f = 3$'
result step_q_quits $? "q did not end the run before f"

# g N: the lessons are the scripts a lecture runs, or a lesson's headings.
printf '#: Lesson one.\nx1 = 1\n#: Part two of one.\ny1 = 2\n' >l1.cuk
printf '#: Lesson two.\nx2 = 1\n' >l2.cuk
printf '#: Lesson three.\nx3 = 1\n' >l3.cuk
printf '#: A lecture.\nrun "l1.cuk"\nrun "l2.cuk"\nrun "l3.cuk"\nlast = 9\n' >lec.cuk
start --no-panel --step lec.cuk
wait_for '^cuk\[[a-z]+\]> run "l1.cuk"$' 5 && tm send-keys -t t Enter && wait_for '^cuk\[[a-z]+\]> x1 = 1$' 5 &&
    tm send-keys -t t g 3 Enter && wait_for '^#: Lesson three\.$' 5 || wait_for '^cuk\[[a-z]+\]> run "l3.cuk"$' 5
tm send-keys -t t Enter
wait_for '^#: Lesson three\.$' 5 && wait_for '^cuk\[[a-z]+\]> x3 = 1$' 5 && ! screen | grep -qE '^(#: Lesson two|x1 = 1$)'
result step_g_jumps_to_lesson $? "g 3 inside lesson 1 did not go to lesson 3"
tm send-keys -t t g 9 Enter
wait_for '^  there is no lesson 9: the lessons are 1 to 3$' 5 && wait_for '^cuk\[[a-z]+\]> x3 = 1$' 5
result step_g_no_such_lesson $? "g 9 of 3 lessons was not refused"
tm send-keys -t t g 1 Enter
wait_for '^cuk\[[a-z]+\]> run "l1.cuk"$' 5 && tm send-keys -t t Enter && wait_for '^cuk\[[a-z]+\]> x1 = 1$' 5
result step_g_back_to_lesson $? "g 1 did not go back to lesson 1"
tm send-keys -t t q
wait_for '^\[exit 0\]$' 5
start --no-panel --step l1.cuk
wait_for '^cuk\[[a-z]+\]> x1 = 1$' 5 && tm send-keys -t t g 2 Enter && wait_for '^#: Part two of one\.$' 5 &&
    wait_for '^cuk\[[a-z]+\]> y1 = 2$' 5 && ! screen | grep -q '^x1 = 1$'
result step_g_heading $? "in a script that runs none, g 2 did not go to its second heading"
tm send-keys -t t q

# Under the panel (the default on a terminal): the panel's title, and the
# end waits for a key before the panel and its transcript go.
start --step l2.cuk
wait_for '^ cuk \| mode [a-z]+ \| ' 10 && wait_for '^cuk\[[a-z]+\]> x2 = 1$' 5
result step_panel_shown $? "no panel in step mode"
tm send-keys -t t Enter
wait_for '^-- the end of l2\.cuk: a key leaves --' 5 && ! screen | grep -q '^\[exit'
result step_panel_end_waits $? "the end of the script did not wait under the panel"
tm send-keys -t t Enter
wait_for '^\[exit 0\]$' 5
result step_panel_leaves $? "a key at the end did not leave"
printf 'mode cpu\nA = rand(1400);\nC = A @ A;\n' >p.cuk
start --step p.cuk
for s in 'mode cpu' 'A = rand\(1400\);' 'C = A @ A;'; do
    wait_for "^cuk\\[[a-z]+\\]> $s\$" 10 && tm send-keys -t t Enter
done
wait_for '\| running [0-9.]+ s.*: C = A @ A$' 10
result step_panel_running $? "the panel's title did not show the stepped statement running"
wait_for '^-- the end of p\.cuk' 60 && tm send-keys -t t q

# Without a GPU (hidden: CUDA_VISIBLE_DEVICES=), --step stops at the first
# statement that needs one and says how to rehearse instead; with
# --rehearse it goes on, each skip on a line of its own.
printf '#: Needs a GPU.\nmode cpu\nmode naive\nA = rand(4);\n' >g.cuk
with=CUDA_VISIBLE_DEVICES= start --no-panel --step g.cuk
wait_for '^cuk\[cpu\]> mode cpu$' 5 && tm send-keys -t t Enter && wait_for '^cuk\[cpu\]> mode naive$' 5 &&
    tm send-keys -t t Enter && wait_for 'mode naive needs a GPU, and there is none here' 5 &&
    wait_for 'cuk --step --rehearse g\.cuk' 5 && wait_for '^\[exit 1\]$' 5
result step_without_gpu_suggests_rehearse $? "--step without a GPU did not suggest --rehearse"
with=CUDA_VISIBLE_DEVICES= start --no-panel --step --rehearse g.cuk
wait_for '^cuk\[cpu\]> mode cpu$' 5 && tm send-keys -t t Enter && wait_for '^cuk\[cpu\]> mode naive$' 5 &&
    tm send-keys -t t Enter && wait_for '^skipped \(no GPU\): mode naive$' 5 &&
    wait_for '^cuk\[naive\]> A = rand\(4\);$' 5
result step_rehearse_skip_line $? "the skip is not a line of its own"
tm send-keys -t t q

# Stepping a rehearsal: a statement shown again with b still finds its
# own recording (the second `kernels` of the fixture, twice).
cp "$here/tests/rehearse/lesson.cuk" . && mkdir -p recorded && cp "$here/tests/rehearse/recorded/lesson.txt" recorded/
with=CUDA_VISIBLE_DEVICES= start --no-panel --step --rehearse lesson.cuk
for i in $(seq 12); do
    wait_for '^cuk\[[a-z]+\]> ' 5 && sleep 0.2 && tm send-keys -t t Enter
done
wait_for 'kernels of mode naive \(fixture, the first\)$' 5 && wait_for '^cuk\[tiled\]> kernels$' 5 &&
    tm send-keys -t t Enter && wait_for '^cuk\[tiled\]> bench cpu naive: A @ A$' 5 && tm send-keys -t t b &&
    sleep 0.3 && tm send-keys -t t Enter && wait_for '^cuk\[tiled\]> bench cpu naive: A @ A$' 5 && sleep 0.3 &&
    [ "$(screen | grep -c '^kernels of mode tiled (fixture, the second)$')" = 2 ]
result step_rehearse_occurrence $? "the second kernels, shown again, did not find its recording"
tm send-keys -t t q

# A long cpu product: the note before it, and under the panel the title's
# percentage and time left; Ctrl-C stops it.
if "$cuk" --version | grep -q 'no ncurses'; then
    echo "SKIP progress_in_panel: cuk was built without ncurses"
    exit 0
fi
start
wait_for '\| ready' 10
tm send-keys -t t -l 'mode cpu; C = rand(2600) @ rand(2600)'
tm send-keys -t t Enter
wait_for '^note: this cpu product will take about [0-9]+ s \(Ctrl-C stops it\)$' 5
result progress_note_before $? "no note before a product estimated at 35 s"
wait_for '\| running [0-9.]+ s .*[0-9]+%, about [0-9]+ (s|min) left: mode cpu; C = rand' 10
result progress_in_panel $? "the panel's title shows no percentage and time left"
tm send-keys -t t C-c
wait_for '^interrupted$' 5 && wait_for '\| ready' 5
result progress_ctrl_c $? "Ctrl-C did not stop the product"
tm send-keys -t t C-d
