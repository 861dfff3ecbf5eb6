#!/usr/bin/env bash
# charts.sh - on a GPU machine: the charts with every mode available. From
# the repository root, with the build folder carried there:
#
#   CUK=build/cuk bench/charts.sh        # about 2 minutes on an H200
#
# Writes under $OUT (default charts-out/): charts.txt, what bench, ladder
# and roofline print at 80 columns (the bench table, the ladder's tables and
# chart, the roofline chart); bench.svg, ladder.svg, roofline.svg from save
# plot; screen80.txt, tests/screen80.sh in tmux at 80x24 with the GPU modes
# available. Prints one PASS or FAIL line per check: each SVG names the
# GPU modes that ran, and screen80's cases.
set -u
cd "$(dirname "$0")/.." || exit 1
cuk=$(cd "$(dirname "${CUK:-build/cuk}")" && pwd)/$(basename "${CUK:-build/cuk}")
out=${OUT:-charts-out}
mkdir -p "$out" && out=$(cd "$out" && pwd)

"$cuk" -e "
A = rand(1037, 1055); B = rand(1055, 1031);
bench A @ B
save plot \"$out/bench.svg\"
ladder A @ B for n in 128 512 1024 2048 4096
save plot \"$out/ladder.svg\"
mode naive; C = A @ B; mode tiled; C = A @ B; mode fast; C = A @ B; mode cublas; C = A @ B; s = sum(A)
roofline
save plot \"$out/roofline.svg\"
" >"$out/charts.txt" 2>&1
echo "cuk exited $? (charts.txt)"

# Each SVG names the GPU modes that ran (its series groups).
for f in bench ladder roofline; do
    series=$(grep -o 'data-series="[^"]*"' "$out/$f.svg" 2>/dev/null | sed 's/data-series="//; s/"$//' | sort -u |
        tr '\n' ',')
    want="naive tiled cublas"
    [ $f != roofline ] && want="cpu blas naive tiled fast cublas tf32 tf32x3"
    miss=""
    for m in $want; do grep -qE "(^|,)$m( [a-z]+)?," <<<"$series" || miss="$miss $m"; done
    if [ -z "$miss" ]; then echo "PASS charts_${f}_svg_gpu_modes"; else echo "FAIL charts_${f}_svg_gpu_modes: missing$miss (has: $series)"; fi
done

CUK="$cuk" BUILD="$(dirname "$cuk")" tests/screen80.sh >"$out/screen80.txt" 2>&1
grep -E '^(PASS|FAIL|SKIP) ' "$out/screen80.txt"
