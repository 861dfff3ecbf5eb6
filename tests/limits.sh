#!/usr/bin/env bash
# limits.sh - legal shapes near 2^31 that need more memory than there is:
# cuk runs under `ulimit -v` (3 GiB of address space), so whether or not
# the machine has the memory, the allocation is refused with "out of host
# memory: needs X" and exit status 1, never a crash or a kill. Shapes past
# 2^31 - 1 are "too large" before any allocation.
. "$(dirname "$0")/lib.sh"

if ldd "$cuk" 2>/dev/null | grep -q 'lib[at]san'; then # sanitizers reserve terabytes of address space
    echo "SKIP limits: cuk is built with a sanitizer, which cannot run under ulimit -v"
    exit 0
fi

# refused NAME 'MESSAGE' STATEMENTS: the last statement fails with MESSAGE.
refused() {
    local out rc
    out=$( (ulimit -v 3145728 && exec "$cuk" -e "mode cpu; $3") 2>&1)
    rc=$?
    if [ "$rc" -ne 1 ]; then
        echo "FAIL limits_$1: exit status $rc, want 1: ${out:0:300}"
    elif [[ "$(head -n 1 <<<"$out")" != "-e:1:"*": error: $2"* ]]; then
        echo "FAIL limits_$1: got '${out:0:300}', want '...error: $2...'"
    else
        echo "PASS limits_$1"
    fi
}

refused zeros_rows 'out of host memory: needs 8.00 GiB' 'x = zeros(2147483647, 1)'
refused ones_cols 'out of host memory: needs 8.00 GiB' 'x = ones(1, 2147483647)'
refused rand_past_int_elements 'out of host memory: needs 8.00 GiB' 'x = rand(46341, 46341)'
refused eye 'out of host memory: needs 16.0 GiB' 'x = eye(65536)'
# a is 2^24 wide or high: 120 of them are 2^31 - 2^27, 128 are 2^31
refused literal_near_2_31 'out of host memory: needs 7.50 GiB' \
    "a = ones(1, 16777216); x = [$(yes 'a' | head -n 120 | tr '\n' ' ')]"
refused literal_stacked_near_2_31 'out of host memory: needs 7.50 GiB' \
    "a = ones(16777216, 1); x = [$(yes 'a' | head -n 120 | tr '\n' ';')]"
refused literal_at_2_31 'matrix literal: 1x2147483648 is too large' \
    "a = ones(1, 16777216); x = [$(yes 'a' | head -n 128 | tr '\n' ' ')]"
refused literal_wraps_int 'matrix literal: 1x4296015872 is too large' \
    "a = ones(1, 1048576); x = [$(yes 'a' | head -n 4097 | tr '\n' ' ')]"
refused zeros_2_31 'zeros: 2147483648x1 is too large' 'x = zeros(2147483648, 1)'
refused zeros_2_63 'zeros: 9.223372036854776e+18x1 is too large' 'x = zeros(9223372036854775807, 1)'
