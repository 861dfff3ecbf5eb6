#!/usr/bin/env bash
# footprint.sh - cuk starts small: the binary needs no CUDA library (cuBLAS
# is opened with dlopen when mode cublas is first wanted, the CUDA runtime is
# static), so it starts where the toolkit is absent; and `cuk -e 'x = 1'`
# stays under 20 MB of resident memory (it was 220 MB with cuBLAS linked).
# The start-up time is printed, not tested (measure/startup.sh measures it).
set -u
cuk=$CUK

if ldd "$cuk" | grep -qE 'libcublas|libcudart|libcuda\.so'; then
    echo "FAIL footprint_links_no_cuda: $(ldd "$cuk" | grep -E 'libcublas|libcudart|libcuda\.so' | tr -s ' \t' ' ')"
else
    echo "PASS footprint_links_no_cuda"
fi

if [ -n "${SAN_LOG:-}" ]; then
    echo "SKIP footprint_rss: sanitizers' shadow memory is not cuk's"
elif [ ! -x /usr/bin/time ]; then
    echo "SKIP footprint_rss: /usr/bin/time is not installed"
else
    kb=$(/usr/bin/time -f '%M' "$cuk" -e 'x = 1' 2>&1 >/dev/null | tail -n 1)
    if [ "$kb" -lt 20480 ]; then
        echo "PASS footprint_rss"
    else
        echo "FAIL footprint_rss: cuk -e 'x = 1' peaked at $kb KB resident"
    fi
    echo "   cuk -e 'x = 1': $((kb / 1024)) MB resident at most"
fi
