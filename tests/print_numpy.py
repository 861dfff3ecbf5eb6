#!/usr/bin/env python3
"""print_numpy.py - cuk prints values the NumPy way: for each of a few
hundred float32 arrays (fixed cases such as [0.001 1000], [0.00012 1],
[1e-8 1], mixed signs, and random ones over 17 decades, never zero), in
format short and long:

- scientific notation exactly when NumPy uses it (NumPy's rule: smallest
  non-zero |value| below 1e-4, or largest over 1000 times the smallest),
  except from 1e5 on, where cuk switches earlier than NumPy's 1e8, and for
  whole numbers, which cuk prints as integers;
- no non-zero value prints as 0, and every printed value is the float32 it
  shows rounded to the digits printed.

Arrays over 1000 elements are summarised: only the edge items decide the
format, in both. Usage: CUK=./cuk python3 tests/print_numpy.py
"""
import os
import random
import re
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("SKIP print_numpy: python3 with numpy not found")
    sys.exit(0)

CUK = os.path.abspath(os.environ.get("CUK", "./cuk"))


def fixed_cases():
    f = np.float32
    rows = [
        [0.001, 1000], [0.00012, 1], [1e-8, 1], [-0.001, 1000], [0.001, -1000],
        [-1e-8, -1], [0.5, -600], [1.5, 1000], [1.5, 999], [1.001, 1000],
        [0.0001, 0.1], [0.00011, 0.11], [0.0002, 0.2], [0.00012, 0.12], [0.001, 1.0000001],
        [0.25, 0.5], [3.14159, -2.71828], [99999.5, 100], [12345.6, 0.5],
        [1e-30, 1e30], [7e-5, 0.05], [0, 0.001, 1000], [0, 0.5, 0.25], [0, -0.0001, 0.05],
        [0.1], [0.00001], [-123.456], [1e-45], [3.4e38], [16777217.5, 1.5], [123456, 1.5],
    ]
    cases = [np.array([r], dtype=f) for r in rows]
    cases.append(np.array([[1e-6, 1], [2, 3]], dtype=f))
    cases.append(np.array([[0.001], [1000]], dtype=f))
    cases.append(np.array([[1, 2, 3], [4, 5, 1e6]], dtype=f))  # whole: integers in cuk
    big = np.full((40, 40), 0.5, dtype=f)
    big[20, 20] = 1e-9  # hidden by the summary: fixed in both
    cases.append(big)
    big = big.copy()
    big[0, 0] = 1e-9  # shown: scientific in both
    cases.append(big)
    big = big.copy()
    big[-1, -1] = 2000.5
    big[0, 0] = 0.5
    cases.append(big)
    return cases


def random_cases(n, rng):
    cases = []
    for _ in range(n):
        rows, cols = rng.randint(1, 3), rng.randint(1, 6)
        lo = rng.uniform(-9, 6)
        hi = min(lo + rng.choice([0.5, 1, 2, 3, 4, 6, 9]), 7.5)
        vals = []
        for _ in range(rows * cols):
            mag = 10 ** rng.uniform(lo, hi)
            v = mag if rng.random() < 0.6 else -mag
            if rng.random() < 0.1:
                v = float(round(v)) or 1.0  # some whole numbers, never zero
            vals.append(v)
        cases.append(np.array(vals, dtype=np.float32).reshape(rows, cols))
    return cases


NUM = re.compile(r"^-?(\d+(\.\d*)?([eE][-+]?\d+)?|inf|nan)$")


def parse_output(text):
    """{name: [tokens in row-major order]} from cuk's output of `cN = load(...)`;
    a wide matrix comes in blocks of columns (" columns a to b:")."""
    values, name, blocks = {}, None, []

    def flush():
        if name is not None and blocks:
            values[name] = [t for r in range(len(blocks[0])) for b in blocks for t in b[r]]

    for line in text.splitlines():
        m = re.match(r"^(c\d+) = (.*)$", line)
        if m:
            flush()
            name, blocks = m.group(1), [[]]
            if "(host)" not in m.group(2):
                blocks = [[[m.group(2)]]]
            continue
        if name is None:
            continue
        if line.startswith(" columns"):
            if blocks[-1]:
                blocks.append([])
            continue
        row = [t for t in line.split() if t != "..."]
        if row:
            blocks[-1].append(row)
    flush()
    return values


def half_unit(token):
    """Half a unit of the last digit the token shows."""
    mant, _, exp = token.partition("e")
    decimals = len(mant.partition(".")[2])
    return 0.5 * 10.0 ** (int(exp or 0) - decimals)


def check_case(arr, tokens, long_format):
    """None if cuk's tokens print arr right, else why not."""
    shown = arr if arr.size <= 1000 else None
    edge = arr if shown is not None else np.concatenate(
        [arr[:3, :3].ravel(), arr[:3, -3:].ravel(), arr[-3:, :3].ravel(), arr[-3:, -3:].ravel()])
    finite = np.abs(edge[np.isfinite(edge)]).astype(np.float64)
    nonzero = finite[finite > 0]
    whole = bool(np.all(finite == np.floor(finite))) and (finite.max(initial=0) <= 2 ** 24)
    cuk_sci = any("e" in t for t in tokens if t not in ("inf", "-inf", "nan"))
    if any(not NUM.match(t) for t in tokens):
        return "unparsable tokens %s" % tokens[:8]
    if whole:
        if cuk_sci or any("." in t for t in tokens):
            return "whole numbers not printed as integers: %s" % tokens[:8]
    else:
        np_sci = "e" in np.array2string(arr, threshold=1000, edgeitems=3).replace("inf", "").replace("nan", "")
        big = nonzero.size and nonzero.max() >= 1e5
        # NumPy 1.x compares the smallest value with 1e-4 in float64, newer
        # versions in the array's own float32: a value that rounds to
        # float32(1e-4) is scientific in one and fixed in the other, so at
        # that border either answer is NumPy's.
        border = nonzero.size and np.float32(nonzero.min()) == np.float32(1e-4)
        if not border and np_sci and not cuk_sci:
            return "NumPy uses scientific notation, cuk does not: %s" % tokens[:8]
        if not border and cuk_sci != (np_sci or big):
            return "cuk uses scientific notation, NumPy does not: %s" % tokens[:8]
    if shown is None:
        return None
    if len(tokens) != shown.size:
        return "%d values printed, want %d" % (len(tokens), shown.size)
    for t, v in zip(tokens, shown.ravel().astype(np.float64)):
        p = float(t)
        if v != 0 and p == 0:
            return "non-zero %r printed as %s" % (v, t)
        if np.isfinite(v) and abs(p - v) > half_unit(t) + 1e-12 * abs(v):  # a tie may round either way
            return "%r printed as %s" % (v, t)
    return None


def main():
    rng = random.Random(7)
    cases = fixed_cases() + random_cases(300, rng)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        script = ["mode cpu"]
        for i, a in enumerate(cases):
            np.save(os.path.join(tmp, "c%d.npy" % i), a)
            script.append('c%d = load("c%d.npy")' % (i, i))
        for fmt in ("short", "long"):
            path = os.path.join(tmp, "p.cuk")
            with open(path, "w") as f:
                f.write("format %s\n" % fmt + "\n".join(script) + "\n")
            run = subprocess.run([CUK, path], cwd=tmp, capture_output=True, text=True)
            if run.returncode != 0:
                print("FAIL print_numpy_%s: cuk exited with %d: %s" % (fmt, run.returncode, run.stderr[:300]))
                failed += 1
                continue
            out = parse_output(run.stdout)
            bad = []
            for i, a in enumerate(cases):
                why = check_case(a, out.get("c%d" % i, []), fmt == "long")
                if why:
                    bad.append("c%d %s: %s" % (i, np.array2string(a.ravel()[:6], separator=" "), why))
            if bad:
                print("FAIL print_numpy_%s: %d of %d cases; %s" % (fmt, len(bad), len(cases), " | ".join(bad[:3])))
                failed += 1
            else:
                print("PASS print_numpy_%s (%d arrays)" % (fmt, len(cases)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
