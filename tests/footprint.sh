#!/usr/bin/env bash
# footprint.sh - cuk starts small: the binary needs no CUDA library and no
# BLAS (cuBLAS and the BLAS are opened with dlopen when their mode is first
# wanted; the CUDA runtime is static), so it starts where they are absent,
# without OpenBLAS's thread per core; without a GPU, `cuk -e 'x = 1'` stays
# under 20 MB of resident memory (it was 220 MB with cuBLAS linked); and a BLAS that cannot
# be loaded makes mode blas unavailable with the reason. The start-up time
# is printed, not tested (bench/startup.sh measures it).
set -u
cuk=$CUK

lazy='libcublas|libcudart|libcuda\.so|blas'
if ldd "$cuk" | grep -qE "$lazy"; then
    echo "FAIL footprint_links_no_cuda_no_blas: $(ldd "$cuk" | grep -E "$lazy" | tr -s ' \t' ' ')"
else
    echo "PASS footprint_links_no_cuda_no_blas"
fi

# What the loader opens for `x = 1` (LD_DEBUG=files lists each library).
# The driver, libcuda.so.1, is looked for at start: the default mode is
# tiled if there is a GPU.
opened=$(LD_DEBUG=files "$cuk" -e 'x = 1' 2>&1 >/dev/null | grep -oE 'file=[^ ]+' | sort -u)
if grep -qE 'libcublas|libcudart|blas' <<<"$opened"; then
    echo "FAIL footprint_nothing_loaded_early: $(grep -E 'libcublas|libcudart|blas' <<<"$opened" | tr '\n' ' ')"
else
    echo "PASS footprint_nothing_loaded_early"
fi

if "$cuk" -e 'modes' | grep -qE '^  blas .*unavailable: cuk was built without'; then
    echo "SKIP footprint_missing_blas_explained: cuk was built without BLAS support"
else
    out=$(CUK_BLAS=/nonexistent/libblas.so.3 "$cuk" -e 'mode blas' 2>&1)
    if [ $? -eq 1 ] && grep -q 'mode blas is unavailable: cannot load a BLAS: /nonexistent/libblas.so.3' <<<"$out"; then
        echo "PASS footprint_missing_blas_explained"
    else
        echo "FAIL footprint_missing_blas_explained: $out"
    fi
fi

gpu=0
"$cuk" -e 'modes' | grep -E '^[ *] tiled +GPU' | grep -vq unavailable && gpu=1
if [ -n "${SAN_LOG:-}" ]; then
    echo "SKIP footprint_rss: sanitizers' shadow memory is not cuk's"
elif [ $gpu = 1 ]; then
    echo "SKIP footprint_rss: a GPU is usable, and its CUDA context is part of the start"
    [ -x /usr/bin/time ] && echo "   cuk -e 'x = 1': $(($(/usr/bin/time -f '%M' "$cuk" -e 'x = 1' 2>&1 >/dev/null | tail -n 1) / 1024)) MB resident at most"
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
