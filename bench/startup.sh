#!/usr/bin/env bash
# bench/startup.sh - what starting cuk costs: the libraries the binary
# needs (no CUDA library, no BLAS), its peak resident memory and the median
# wall time of `cuk -e 'x = 1'` over N runs, beside /bin/true's; then the
# same for the first use of mode blas (the BLAS is loaded) and, if a GPU is
# usable, of mode tiled (the driver's context) and mode cublas (cuBLAS).
#
#   bench/startup.sh [BINARY] [RUNS]      (default build/cuk, 50 runs)
set -u
bin=${1:-build/cuk}
runs=${2:-50}
[ -x "$bin" ] || { echo "no binary $bin (make first)"; exit 1; }

echo "binary: $bin"
echo "libraries it needs:"
ldd "$bin" | sed 's/ (0x.*//; s/^/  /'
if ldd "$bin" | grep -qE 'libcublas|libcudart|libcuda\.so'; then
    echo "  !! links a CUDA library: it will not start where the toolkit is absent"
fi

# peak RSS in KB of one run of the statements $1
peak_kb() {
    /usr/bin/time -f '%M' "$bin" -e "$1" 2>&1 >/dev/null | tail -n 1
}

# median wall milliseconds of $runs runs of the command "$@"
median_ms() {
    python3 - "$runs" "$@" <<'PY'
import statistics, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
times = []
for _ in range(runs):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times.append((time.perf_counter() - t) * 1000)
times.sort()
print("%.1f ms median (min %.1f, max %.1f, %d runs)" % (statistics.median(times), times[0], times[-1], runs))
PY
}

report() { # LABEL STATEMENTS
    printf '%-34s max RSS %6.1f MB, %s\n' "$1" "$(awk -v k="$(peak_kb "$2")" 'BEGIN { print k / 1024 }')" \
        "$(median_ms "$bin" -e "$2")"
}

# What starting any process costs here, to read the figures against.
printf '%-34s %s\n' "/bin/true, for comparison:" "$(median_ms /bin/true)"
report "start, x = 1:" 'x = 1'
report "first BLAS use, mode blas:" 'mode blas; x = ones(2, 2) @ ones(2, 2)'
if "$bin" -e 'mode tiled' >/dev/null 2>&1; then
    report "first GPU use, mode tiled:" 'mode tiled; x = ones(2, 2) @ ones(2, 2)'
    report "first cuBLAS use, mode cublas:" 'mode cublas; x = ones(2, 2) @ ones(2, 2)'
else
    echo "no usable GPU here: $("$bin" -e 'mode tiled' 2>&1 | head -n 1)"
fi
