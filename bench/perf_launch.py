"""perf_launch.py - the launch floor (issue 10, Done-when 3): a piped script
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
HEAD = "mode cublas; seed 1; A = rand(64, 64); B = rand(64, 64); C = A @ B;\n"
TAIL = "sum(C)\n"


def script(path, lines):
    with open(path, "w") as f:
        f.write(HEAD)
        f.write("C = A @ B;\n" * lines)
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
    with tempfile.TemporaryDirectory() as tmp:
        full, empty = f"{tmp}/full.cuk", f"{tmp}/empty.cuk"
        script(full, LINES)
        script(empty, 0)
        cuk_us, torch_per = [], []
        for _ in range(3):
            base = cuk_seconds(empty)
            whole = cuk_seconds(full)
            cuk_us.append((whole - base) / LINES * 1e6)
            torch_per.append(torch_us(torch, x, y, LINES))
    print(f"cuk, a piped line `C = A @ B;` at 64x64 in cublas: {spread(cuk_us)}")
    print(f"PyTorch x @ y without synchronising, 64x64:        {spread(torch_per)}")
    r = statistics.median(cuk_us) / statistics.median(torch_per)
    print(f"ratio {'launch floor: cuk line / PyTorch product':<44} {r:8.3f}  target <= 0.60{'  ok' if r <= 0.6 else '  MISSED'}")


if __name__ == "__main__":
    main()
