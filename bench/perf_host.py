#!/usr/bin/env python3
"""perf_host.py - mode blas's product against NumPy's, on the same host and
cores, in one run: NumPy's a @ b (float32, the BLAS NumPy bundles) and cuk's
blas product (build/bench/perf_host --serve, the mode table's entry point)
timed turn about in blocks, each side's runs on its own monotonic clock;
medians of at least 21 runs each, and of at least SECONDS of work a side
(1037x1055x1031 takes ~2.5 ms, and this host's runs of it spread over a
factor of 10: a few hundred runs make the median steady). Each pairing is
made ROUNDS times; the ratio printed is the median round's, with the
others beside it, so the noise between rounds shows. Twice: each product into a new result
(a @ b; `C = A @ B` in cuk), which maps the result's pages inside the
time, and into one kept result (matmul(a, b, out=c)): the BLAS call alone.
Also NumPy's sum, dot and x + y over 2^26 floats, beside perf_host's own
figures for the same operations.

Between blocks both sides rest REST seconds: a BLAS's threads spin for a
while after a call, and a block must not share the cores with the other
process's spinning threads."""
import os
import subprocess
import sys
import time

import numpy as np

SHAPES = [(1037, 1055, 1031), (4096, 4096, 4096)]
BLOCKS, MIN_RUNS, SECONDS, ROUNDS, REST = 7, 21, 1.0, 3, 0.3


def numpy_threads():
    try:
        import threadpoolctl
        return "; ".join(f"{i['internal_api']} {i['version']} {i['num_threads']} threads ({os.path.basename(i['filepath'])})"
                         for i in threadpoolctl.threadpool_info())
    except ImportError:
        return "threadpoolctl not installed"


def stats(ms):
    ms = sorted(ms)
    return ms[len(ms) // 2], ms[0], ms[-1]


def numpy_times(a, b, c, runs):
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        if c is None:
            a @ b
        else:
            np.matmul(a, b, out=c)
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def cuk_times(proc, m, k, n, runs, fresh):
    proc.stdin.write(f"{m} {k} {n} {runs} {int(fresh)}\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    if not line:
        sys.exit("perf_host --serve stopped")
    return [float(x) for x in line.split()]


def round_pair(proc, a, b, c, m, k, n, fresh):
    """One round: NumPy's and cuk's medians (ms) with their extremes, turn
    about in BLOCKS blocks, as many runs as MIN_RUNS and SECONDS ask."""
    warm = numpy_times(a, b, c, 3)  # warm-ups: threads started, pages touched
    cuk_times(proc, m, k, n, 3, fresh)
    runs = max(MIN_RUNS, int(SECONDS * 1e3 / max(min(warm), 1e-3)))
    per_block = -(-runs // BLOCKS)
    np_ms, cuk_ms = [], []
    for _ in range(BLOCKS):
        time.sleep(REST)
        np_ms += numpy_times(a, b, c, per_block)
        time.sleep(REST)
        cuk_ms += cuk_times(proc, m, k, n, per_block, fresh)
    return stats(np_ms), stats(cuk_ms), len(np_ms)


def product_pair(proc, m, k, n, fresh):
    rng = np.random.default_rng(1)
    a = rng.random((m, k), dtype=np.float32)
    b = rng.random((k, n), dtype=np.float32)
    c = None if fresh else np.empty((m, n), dtype=np.float32)
    flops = 2.0 * m * n * k
    how, tag = ("a @ b", "") if fresh else ("out=c", "_out")
    ratios = []
    for r in range(ROUNDS):
        (nm, nlo, nhi), (cm, clo, chi), runs = round_pair(proc, a, b, c, m, k, n, fresh)
        print(f"numpy {how} {m}x{k}x{n} round {r + 1}: {nm:.3f} ms ({nlo:.3f} .. {nhi:.3f}) = "
              f"{flops / nm / 1e6:.0f} GFLOP/s, {runs} runs")
        print(f"cuk   {how} {m}x{k}x{n} round {r + 1}: {cm:.3f} ms ({clo:.3f} .. {chi:.3f}) = "
              f"{flops / cm / 1e6:.0f} GFLOP/s, {runs} runs")
        ratios.append(nm / cm)
    ratios.sort()
    mid = ratios[len(ratios) // 2]
    name = f"host_blas_vs_numpy_matmul{tag}_{m}x{k}x{n}"
    rounds = ", ".join(f"{x:.3f}" for x in ratios)
    print(f"ratio {name:<44} {mid:8.3f}  target >= 1.00{'  ok' if mid >= 1 else '  MISSED'} (rounds: {rounds})")


def numpy_streams():
    n = 1 << 26
    rng = np.random.default_rng(2)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    z = np.empty_like(x)
    for name, f, arrays in [("copy", lambda: np.copyto(z, x), 2), ("sum", lambda: x.sum(), 1),
                            ("dot", lambda: np.dot(x, y), 2), ("add", lambda: np.add(x, y, out=z), 3)]:
        f()
        ms = []
        for _ in range(21):
            t0 = time.perf_counter()
            f()
            ms.append((time.perf_counter() - t0) * 1e3)
        md, lo, hi = stats(ms)
        print(f"numpy {name:<4} 2^26 floats: {md:8.3f} ms ({lo:.3f} .. {hi:.3f}) = {arrays * 4 * n / md / 1e6:6.1f} GB/s")


def main():
    build = os.environ.get("BUILD", "build")
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", build, "bench", "perf_host")
    if not os.access(exe, os.X_OK):
        sys.exit(f"perf_host.py: {exe} not built (make bench)")
    print(f"# numpy {np.__version__}: {numpy_threads()}; {os.cpu_count()} CPUs, {len(os.sched_getaffinity(0))} usable")
    proc = subprocess.Popen([exe, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        for m, k, n in SHAPES:
            for fresh in (True, False):
                product_pair(proc, m, k, n, fresh)
    finally:
        proc.stdin.close()
        proc.wait()
    numpy_streams()


if __name__ == "__main__":
    main()
