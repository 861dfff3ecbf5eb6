# lib.sh - what the shell tests share; each sources it first
# (`. "$(dirname "$0")/lib.sh"`): cuk's absolute path in $cuk, a scratch
# folder $work that is the current directory and is removed at exit (with
# the tests' tmux server), no history file, `check` for a command's exit
# status and output, and the tmux driver of the terminal tests (tm, screen,
# wait_for, result). $tests is the folder of the test scripts.
set -u
tests=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cuk=$(cd "$(dirname "$CUK")" && pwd)/$(basename "$CUK")
work=$(mktemp -d)
sock="cuk-test-$$"
tm() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'command -v tmux >/dev/null 2>&1 && tm kill-server 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1
export CUK_HISTORY=/dev/null

# check NAME WANT_STATUS 'PATTERN...' -- COMMAND...: every extended regex
# PATTERN must match some line of the output (stdout and stderr); a pattern
# starting with ! must match none.
check() {
    local name=$1 want=$2
    shift 2
    local pats=()
    while [ "$1" != "--" ]; do pats+=("$1"); shift; done
    shift
    local out rc
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL $name: exit status $rc, want $want: $(printf '%s' "$out" | tail -c 400)"
        return
    fi
    for p in "${pats[@]}"; do
        if [[ "$p" == '!'* ]]; then
            if grep -qE -- "${p#!}" <<<"$out"; then
                echo "FAIL $name: a line matches /${p#!}/: $(grep -E -- "${p#!}" <<<"$out" | head -3)"
                return
            fi
        elif ! grep -qE -- "$p" <<<"$out"; then
            echo "FAIL $name: no line matches /$p/ in: $(printf '%s' "$out" | head -c 400)"
            return
        fi
    done
    echo "PASS $name"
}

# The screen of the tmux session t, and waiting for it.
screen() { tm capture-pane -p -t t 2>/dev/null; }

# wait_for REGEX SECONDS: until some line of the screen matches.
wait_for() {
    local end=$((SECONDS + $2))
    while [ $SECONDS -le "$end" ]; do
        screen | grep -qE -- "$1" && return 0
        sleep 0.1
    done
    return 1
}

# result NAME STATUS WHY: a terminal case passes when STATUS is 0; when it
# fails, the end of the screen shows what was there.
result() {
    if [ "$2" -eq 0 ]; then echo "PASS $1"; else echo "FAIL $1: $3"; screen | sed '/^[[:space:]]*$/d' | tail -n 10 | sed 's/^/   | /'; fi
}
