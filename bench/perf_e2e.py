"""perf_e2e.py - what a user gets: the product at every shape of perf_gemm's
suite through cuk's own statement path, against cuBLAS's, in one piped cuk
session. A section is N lines `C = A @ B;` and then `s = sum(C)`, timed
from writing it to reading the printed `s = `; the same section with no
product lines, timed the same way, is taken off, and what is left over N is
what one line costs. N is sized so that a section takes about 0.4 s. The
modes take turns, three rounds; medians and spreads. Beside each line cost,
the kernel's median from `timeit` in the same session, so that the ratio
through the statement path stands next to the kernel's.

    python3 bench/perf_e2e.py [SHAPE ...]      e.g. 4096x4096x4096 1x4096x4096

Shapes are M x K x N. E2E_MODES="cublas fast tf32x3 ozaki" names the modes,
the reference first; targets: fast >= 0.8, tf32x3 >= 0.95 and ozaki >= 1.0
of cuBLAS (ozaki >= 2.5 at 4096^3 and 3.0 at 8192^3)."""
import os
import re
import select
import statistics
import subprocess
import sys
import time

CUK = os.environ.get("CUK", "./cuk")
MODES = os.environ.get("E2E_MODES", "cublas fast tf32x3 ozaki").split()
TARGET = {"fast": 0.8, "tf32x3": 0.95, "ozaki": 1.0}
SHAPE_TARGET = {("ozaki", (4096, 4096, 4096)): 2.5, ("ozaki", (8192, 8192, 8192)): 3.0}
ROUNDS = 3
SECTION_S = 0.4
UNIT = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "\u00b5s": 1e-6, "ns": 1e-9}


def suite():
    """perf_gemm.c's ragged suite and its headline shapes, M x K x N."""
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "perf_gemm.c")).read()
    body = src[src.index("static const shape suite[]"):]
    body = body[: body.index("};")]
    heads = [(8192, 8192, 8192), (4096, 4096, 4096), (2048, 2048, 2048), (1037, 1055, 1031)]
    rest = [tuple(int(x) for x in t) for t in re.findall(r"\{(\d+),\s*(\d+),\s*(\d+)\}", body)]
    return heads + [s for s in rest if s not in heads]


class Session:
    """One cuk reading its statements from a pipe."""

    def __init__(self):
        env = dict(os.environ, CUK_HISTORY="/dev/null")
        self.p = subprocess.Popen([CUK], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, env=env, bufsize=0)
        self.buf = b""

    def line(self, deadline):
        """The next line cuk prints, or exit if none comes by deadline."""
        while b"\n" not in self.buf:
            left = deadline - time.perf_counter()
            ready = select.select([self.p.stdout], [], [], max(left, 0))[0]
            chunk = os.read(self.p.stdout.fileno(), 65536) if ready else b""
            if not chunk:
                sys.exit(f"perf_e2e: cuk stopped answering (so far: {self.buf.decode(errors='replace')!r})")
            self.buf += chunk
        text, self.buf = self.buf.split(b"\n", 1)
        return text.decode(errors="replace")

    def ask(self, text, prefix, wait=300.0):
        """Write text; the seconds until a line starting with prefix comes
        back, and that line. A line with `error:` ends the run."""
        t = time.perf_counter()
        self.p.stdin.write(text.encode())
        self.p.stdin.flush()
        while True:
            got = self.line(t + wait)
            if "error:" in got:
                sys.exit(f"perf_e2e: cuk said: {got}")
            if got.startswith(prefix):
                return time.perf_counter() - t, got

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


def section(s, lines):
    """Seconds for `lines` products and the printed sum."""
    return s.ask("C = A @ B;\n" * lines + "s = sum(C)\n", "s = ")[0]


def line_cost(s, lines):
    """One product line's cost: a section less the sum-only one."""
    return (section(s, lines) - section(s, 0)) / lines


def kernel_seconds(s):
    """timeit's kernel median of the product, over 30 runs."""
    _, got = s.ask("timeit 30 C = A @ B;\n", "")
    m = re.search(r"kernels ([0-9.]+) (\S+)", got)
    if not m:
        sys.exit(f"perf_e2e: no kernel time in {got!r}")
    return float(m.group(1)) * UNIT[m.group(2)]


def spread(xs):
    return f"{statistics.median(xs) * 1e6:10.1f} us [{min(xs) * 1e6:.1f}-{max(xs) * 1e6:.1f}]"


def measure(s, shape, modes):
    """Each mode's line costs (ROUNDS, turn about) and kernel median."""
    m, k, n = shape
    s.ask(f"seed 7; A = randn({m}, {k}); B = randn({k}, {n}); C = A @ B; s = sum(C)\n", "s = ")
    lines = {}
    for mode in modes:
        s.ask(f"mode {mode}; C = A @ B; s = sum(C)\n", "s = ")  # its plan, outside the clock
        per = max(line_cost(s, 4), 1e-7)
        lines[mode] = max(4, min(200000, int(SECTION_S / per)))
    cost = {mode: [] for mode in modes}
    for _ in range(ROUNDS):
        for mode in modes:
            s.ask(f"mode {mode}; s = sum(C)\n", "s = ")
            cost[mode].append(line_cost(s, lines[mode]))
    kern = {}
    for mode in modes:
        s.ask(f"mode {mode}; s = sum(C)\n", "s = ")
        kern[mode] = kernel_seconds(s)
    return cost, kern, lines


def available(s, modes):
    """The modes `modes` does not list as unavailable; the others said."""
    s.p.stdin.write(b"modes\ns = 0\n")
    s.p.stdin.flush()
    listed = {}
    while True:
        got = s.line(time.perf_counter() + 60)
        if got.startswith("s = "):
            break
        words = got[2:].split(None, 2)
        if len(words) == 3:
            listed[words[0]] = words[2]
    keep = []
    for mode in modes:
        if listed.get(mode, "unavailable").startswith("unavailable"):
            print(f"# mode {mode} left out: {listed.get(mode, 'no such mode')}")
        else:
            keep.append(mode)
    return keep


def main():
    shapes = suite()
    if len(sys.argv) > 1:
        shapes = [tuple(int(x) for x in a.split("x")) for a in sys.argv[1:]]
    s = Session()
    modes = available(s, MODES)
    ref = modes[0]
    print(f"# perf_e2e: {len(shapes)} shapes, modes {' '.join(modes)}; a line `C = A @ B;` through a piped cuk, "
          f"{ROUNDS} rounds turn about; medians [min-max]")
    for shape in shapes:
        label = "x".join(str(x) for x in shape)
        cost, kern, lines = measure(s, shape, modes)
        row = " | ".join(f"{mode} {spread(cost[mode])} kernel {kern[mode] * 1e6:9.1f} us" for mode in modes)
        print(f"{label:<16} {row} | lines {'/'.join(str(lines[mode]) for mode in modes)}")
        for mode in modes[1:]:
            e2e = statistics.median(cost[ref]) / statistics.median(cost[mode])
            kr = kern[ref] / kern[mode]
            target = SHAPE_TARGET.get((mode, shape), TARGET.get(mode))
            verdict = "" if target is None else f"  target >= {target:.2f}{'  ok' if e2e >= target else '  MISSED'}"
            print(f"ratio {'e2e ' + mode + '/' + ref + ' ' + label:<44} {e2e:8.3f}{verdict}  (kernel {kr:.3f})")
        sys.stdout.flush()
    s.close()


if __name__ == "__main__":
    main()
