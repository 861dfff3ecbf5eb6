"""perf_launch.py - the launch floor: a piped script
of 100,000 lines `C = A @ B;` at 64x64 in mode cublas, then a printed
sum(C), against PyTorch's `x @ y` 100,000 times without synchronising (one
synchronise at the end), in the same run. cuk's cost per line is the whole
process's wall time less that of the same script with no product lines
(start, set-up, the first product and the printed sum); PyTorch's is its
loop's. Three rounds, turn about; medians and spreads."""
import os
import statistics
import subprocess
import sys
import tempfile
import time

LINES = 100_000
CUK = os.environ.get("CUK", "./cuk")
TAIL = "sum(C)\n"
# Where a line's cost goes, beside the measured case (no target): another
# mode's product (fast: one launch of cuk's own kernel), a smaller product
# (less device work, the same host work), an elementwise launch, and no
# launch at all (the engine alone).
CASES = [
    ("cublas", 64, "C = A @ B;"),
    ("fast", 64, "C = A @ B;"),
    ("cublas", 8, "C = A @ B;"),
    ("cublas", 64, "C = A + B;"),
    ("cublas", 64, "C = A;"),
]


def script(path, mode, n, line, lines):
    with open(path, "w") as f:
        f.write(f"mode {mode}; seed 1; A = rand({n}, {n}); B = rand({n}, {n}); C = A @ B;\n")
        f.write((line + "\n") * lines)
        f.write(TAIL)


def cuk_seconds(path):
    with open(path) as f:
        t = time.perf_counter()
        out = subprocess.run([CUK], stdin=f, capture_output=True, text=True)
        dt = time.perf_counter() - t
    if out.returncode != 0 or "ans" not in out.stdout:
        sys.exit(f"perf_launch: cuk failed: {out.stdout}{out.stderr}")
    return dt


def torch_us(torch, x, y, n):
    for _ in range(1000):
        x @ y
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        x @ y
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e6


def spread(xs):
    return f"median {statistics.median(xs):.2f} us (min {min(xs):.2f}, max {max(xs):.2f}, n={len(xs)})"


def main():
    import torch

    x = torch.rand(64, 64, device="cuda")
    y = torch.rand(64, 64, device="cuda")
    per = {c: [] for c in CASES}
    torch_per = []
    with tempfile.TemporaryDirectory() as tmp:
        for c in CASES:
            script(f"{tmp}/{c[0]}{c[1]}{len(c[2])}full.cuk", *c, LINES)
            script(f"{tmp}/{c[0]}{c[1]}{len(c[2])}empty.cuk", *c, 0)
        for _ in range(3):
            for c in CASES:
                base = cuk_seconds(f"{tmp}/{c[0]}{c[1]}{len(c[2])}empty.cuk")
                whole = cuk_seconds(f"{tmp}/{c[0]}{c[1]}{len(c[2])}full.cuk")
                per[c].append((whole - base) / LINES * 1e6)
            torch_per.append(torch_us(torch, x, y, LINES))
    for c in CASES:
        print(f"cuk, a piped line `{c[2]}` at {c[1]}x{c[1]} in {c[0]}: {spread(per[c])}")
    print(f"PyTorch x @ y without synchronising, 64x64: {spread(torch_per)}")
    cuk_us = per[CASES[0]]
    r = statistics.median(cuk_us) / statistics.median(torch_per)
    print(f"ratio {'launch floor: cuk line / PyTorch product':<44} {r:8.3f}  target <= 0.60{'  ok' if r <= 0.6 else '  MISSED'}")


if __name__ == "__main__":
    main()
