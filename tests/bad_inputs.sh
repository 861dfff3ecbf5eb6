#!/usr/bin/env bash
# bad_inputs.sh - every input of tests/bad_inputs.txt as line 6 of a script:
# exit status 1, and exactly three lines of output: FILE:LINE:COL: error:
# with the message, the source line, the caret.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cuk=$(cd "$(dirname "$CUK")" && pwd)/$(basename "$CUK")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
printf 'not numpy' >corrupt.npy
printf '\x93NUMPY\x01\x00\x10\x00{garbage: 1}  \n' >header.npy
setup='mode cpu
A = ones(1037, 1055);
B = ones(1031, 1055);
v = [1 2 3];
s = 5;'
n=0
while IFS=$'\t' read -r col says input; do
    case "$col" in ''|'#'*) continue ;; esac
    n=$((n + 1))
    name=$(printf 'bad_script_%02d' "$n")
    {
        printf '%s\n' "$setup"
        if [ "$input" = "@MB@" ]; then
            printf 'x = '; yes '1+' | head -n 499998 | tr -d '\n'; printf '*'
        else
            printf '%b' "$input"
        fi
        printf '\nq = 1\n'
    } >bad.cuk
    "$cuk" bad.cuk >out.txt 2>&1
    rc=$?
    first=$(head -n 1 out.txt)
    lines=$(wc -l <out.txt)
    if [ "$rc" -ne 1 ]; then
        echo "FAIL $name: exit status $rc, want 1 ($input)"
    elif [ "$lines" -ne 3 ]; then
        echo "FAIL $name: $lines lines of output, want 3: $(head -c 300 out.txt)"
    elif [[ "$first" != "bad.cuk:6:$col: error: "* ]] || [[ "$first" != *"$says"* ]]; then
        echo "FAIL $name: got '${first:0:200}', want 'bad.cuk:6:$col: error: ...$says'"
    else
        echo "PASS $name"
    fi
done <"$here/bad_inputs.txt"
