#!/usr/bin/env bash
# gpu.sh - the GPU benchmarks, each against a reference measured in
# the same run: the matrix-product ladder (naive, tiled, cublas against the
# cpu and blas modes and reference figures from an H200), the cost of one command against
# PyTorch and CuPy doing the same product, and the reductions.
set -u
cd "$(dirname "$0")/.." || exit 1
cuk=${CUK:-./cuk}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== the device, a timed command, residency, and the kernels a mode launched"
"$cuk" -e 'info; mode tiled; seed 1; A = rand(1037, 1055); B = rand(1055, 1031); time on; C = A @ B; s = sum(C), time off; mode cpu; D = A * 2; who; mode tiled; kernels'

echo "== the product ladder at 1037x1055x1031 (reference, H200: naive 0.389 ms, tiled 0.301 ms, cuBLAS 0.079 ms)"
"$cuk" -e 'seed 1; A = rand(1037, 1055); B = rand(1055, 1031); bench A @ B'

for n in 2048 4096; do
    echo "== ${n}^3 (reference GFLOP/s on an H200 at 2048: naive 5,470, tiled 8,144, cuBLAS 49,573; at 4096: 5,346, 8,108, 51,102)"
    for mode in naive tiled cublas; do
        printf '  %-7s ' "$mode"
        "$cuk" -e "mode $mode; seed 1; A = rand($n, $n); B = rand($n, $n); timeit 20 C = A @ B"
    done
done

echo "== one command, end to end: a piped script of 10,000 lines 'C = A @ B;' at 64x64 in mode cublas,"
echo "   against PyTorch and CuPy doing x @ y + synchronize 10,000 times; 5 interleaved rounds, the best of each"
head='mode cublas; A = rand(64, 64); B = rand(64, 64); C = A @ B; who'
{ echo "$head"; echo who; } >"$tmp/lines0.cuk"
{ echo "$head"; for _ in $(seq 10000); do echo 'C = A @ B;'; done; echo who; } >"$tmp/lines10k.cuk"
python3 - "$cuk" "$tmp" <<'PY'
import subprocess, sys, time
cuk, tmp = sys.argv[1], sys.argv[2]

def script_s(name):
    with open(f"{tmp}/{name}") as f:
        t = time.perf_counter()
        out = subprocess.run([cuk], stdin=f, capture_output=True, text=True, check=True).stdout
        return time.perf_counter() - t, out

def loop_us(mm, sync, x, y, n=10000):
    for _ in range(1000):
        mm(x, y); sync()
    t = time.perf_counter()
    for _ in range(n):
        mm(x, y); sync()
    return (time.perf_counter() - t) / n * 1e6

refs = {}
try:
    import torch
    tx, ty = torch.rand(64, 64, device="cuda"), torch.rand(64, 64, device="cuda")
    refs["PyTorch"] = lambda: loop_us(lambda a, b: a @ b, torch.cuda.synchronize, tx, ty)
except Exception as e:
    print("  PyTorch not measured:", e)
try:
    import cupy
    cx = cupy.random.rand(64, 64, dtype=cupy.float32); cy = cupy.random.rand(64, 64, dtype=cupy.float32)
    refs["CuPy"] = lambda: loop_us(lambda a, b: a @ b, cupy.cuda.Device().synchronize, cx, cy)
except Exception as e:
    print("  CuPy not measured:", e)

best = {"cuk": 1e9, **{k: 1e9 for k in refs}}
for _ in range(5):
    t0, _ = script_s("lines0.cuk")
    t1, out = script_s("lines10k.cuk")
    best["cuk"] = min(best["cuk"], (t1 - t0) / 10000 * 1e6)
    for k, f in refs.items():
        best[k] = min(best[k], f())
allocs = [l.split("device allocations")[0].split(",")[-1].strip() for l in out.splitlines() if "device allocations" in l]
print(f"  cuk: {best['cuk']:.2f} µs per line; pool device allocations after line 1 and at the end: {' '.join(allocs)}")
for k in refs:
    print(f"  {k}: {best[k]:.2f} µs per call; cuk / {k} = {best['cuk'] / best[k]:.2f}")
PY

echo "== reductions over 2^28 floats (reference, H200: cublasSdot 4,246 GB/s; copy 4,269 GB/s)"
"$cuk" -e 'seed 2; x = rand(1, 268435456); bench sum(x); bench dot(x, x)'
