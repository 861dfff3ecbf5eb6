#!/usr/bin/env bash
# golden.sh - each tests/golden/NAME.cuk runs as a script in a scratch copy
# of the folder; its output (stdout and stderr, in order) and exit status
# must equal NAME.out, whose last line is "[exit N]". Scripts named _*.cuk
# are only there for others to `run`.
# UPDATE=1 rewrites the .out files from the current output (review the diff!).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cuk=$(cd "$(dirname "$CUK")" && pwd)/$(basename "$CUK")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here"/golden/*.cuk "$work"/
cd "$work" || exit 1
for script in "$here"/golden/*.cuk; do
    name=$(basename "$script" .cuk)
    want="$here/golden/$name.out"
    [[ "$name" == _* ]] && continue
    # Which BLAS this machine has is no part of a script's output: mode
    # blas's warning on the reference BLAS is left out (honest.sh checks it).
    got=$( (CUK_HISTORY=/dev/null "$cuk" "$name.cuk" 2>&1; echo "[exit $?]") |
        sed '/^warning: mode blas runs on the reference BLAS/,/a CPU user sees$/d')
    if [ "${UPDATE:-0}" = 1 ]; then
        printf '%s\n' "$got" >"$want"
    fi
    if [ -f "$want" ] && [ "$got" = "$(cat "$want")" ]; then
        echo "PASS golden_$name"
    else
        echo "FAIL golden_$name: output differs from tests/golden/$name.out"
        diff <(printf '%s\n' "$got") "$want" | head -20
    fi
done
