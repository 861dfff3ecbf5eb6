#!/usr/bin/env bash
# deep.sh - cuk under a 1 MiB stack (ulimit -s 1024, an eighth of the usual
# 8 MiB): chains of 50,000 links evaluate, brackets nested to the limit
# (200) evaluate, and brackets nested past it, just past or 50,000 deep, are
# the one error "expression too complex", never a crash.
. "$(dirname "$0")/lib.sh"
limit=200
far=50000
setup='mode cpu
A = 3; Z = 0; O = 1; P = [0 1; 1 0]; R = [1 2 3];'

# rep TEXT N: TEXT written N times
rep() { yes -- "$1" | head -n "$2" | tr -d '\n'; }

# Run a script of setup + the line "x = $1" under a 1 MiB stack.
run_deep() {
    { printf '%s\n' "$setup"; printf 'x = %s\n' "$1"; } >deep.cuk
    (ulimit -s 1024 && exec "$cuk" deep.cuk) >out.txt 2>&1
}

# ok NAME WANT EXPR: x = EXPR prints WANT (its first line).
ok() {
    run_deep "$3"
    local rc=$? got
    got=$(grep -m1 '^x = ' out.txt)
    if [ "$rc" -ne 0 ]; then
        echo "FAIL deep_$1: exit status $rc: $(head -c 200 out.txt)"
    elif [ "$got" != "x = $2" ]; then
        echo "FAIL deep_$1: got '$got', want 'x = $2'"
    else
        echo "PASS deep_$1"
    fi
}

# too_deep NAME EXPR: exit status 1 and the nesting error, on line 3.
too_deep() {
    run_deep "$2"
    local rc=$? first
    first=$(head -n 1 out.txt)
    if [ "$rc" -ne 1 ]; then
        echo "FAIL deep_$1: exit status $rc, want 1: $(head -c 200 out.txt)"
    elif [[ "$first" != "deep.cuk:3:"*": error: expression too complex (nested more than $limit deep)" ]]; then
        echo "FAIL deep_$1: got '${first:0:200}'"
    elif [ "$(wc -l <out.txt)" -ne 3 ]; then
        echo "FAIL deep_$1: want 3 lines of output: $(head -c 300 out.txt)"
    else
        echo "PASS deep_$1"
    fi
}

# Chains: any length.
ok chain_sum "$far" "0$(rep +1 $far)"
ok chain_difference "-$far" "0$(rep -1 $far)"
ok chain_quote "3x1 (host)" "R$(rep "'" $((far + 1)))"
ok chain_dot_t "1x3 (host)" "R$(rep .T $far)"
ok chain_matmul "2x2 (host)" "P$(rep @P $far)"
ok chain_index "3" "A$(rep '[0]' $far)"
ok chain_slice "3" "R[0, -1:]$(rep '[-1:, :]' $far)"
ok chain_minus "-3" "$(rep - $((far + 1)))A"
ok chain_minus_blanks "3" "$(rep '- ' $far)A"

# Brackets: up to the limit they work; past it, one error.
nest_case() { # NAME OPEN MIDDLE CLOSE WANT
    ok "$1_at_limit" "$5" "$(rep "$2" $limit)$3$(rep "$4" $limit)"
    too_deep "$1_past_limit" "$(rep "$2" $((limit + 1)))$3$(rep "$4" $((limit + 1)))"
    too_deep "$1_far_past_limit" "$(rep "$2" $far)$3$(rep "$4" $far)"
    too_deep "$1_far_never_closed" "$(rep "$2" $far)$3"
}
nest_case parens '(' 1 ')' 1
nest_case parens_sum '1+(' 1 ')' $((limit + 1))
nest_case literal '[' 7 ']' 7
nest_case literal_negated '[-' 7 ']' 7
nest_case index 'Z[' 0 ']' 0
nest_case slice 'O[0:' 1 ']' 1
nest_case call 'abs(' -2 ')' 2
nest_case call_dims 'ones(' 1 ')' 1
nest_case call_third_argument 'fill(1, 1, ' 5 ')' 5
nest_case transposed '(-' 2 ")'" 2
