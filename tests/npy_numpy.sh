#!/usr/bin/env bash
# npy_numpy.sh - checks cuk's .npy and .csv files against real NumPy: what
# cuk writes, NumPy reads with the same float32 bits; what NumPy writes
# (float32/float64, C/Fortran order, either byte order, 0-D/1-D/2-D, format
# versions 1.0 to 3.0), cuk reads. Skips when no python3 has numpy.
#
#   CUK=./cuk tests/npy_numpy.sh
#
# Prints "PASS name" or "FAIL name: why" per check; exits 1 if any failed.
set -u

CUK=${CUK:-./cuk}

py=
for cand in python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import numpy' >/dev/null 2>&1; then
        py=$cand
        break
    fi
done
if [ -z "$py" ]; then
    echo "SKIP npy_numpy: python3 with numpy not found"
    exit 0
fi
if [ ! -x "$CUK" ]; then
    echo "FAIL npy_numpy: no cuk binary at '$CUK' (set CUK)"
    exit 1
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/cuk_npy.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
failed=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }

# run_cuk NAME STMTS: run statements in cuk; on failure, fail check NAME
# with cuk's last line of output and return 1.
run_cuk() {
    local out
    if ! out=$("$CUK" -e "$2" 2>&1); then
        fail "$1" "cuk -e failed: $(printf '%s\n' "$out" | tail -n 1)"
        return 1
    fi
}

# check NAME ARGS...: run the Python checker; it prints nothing and exits 0,
# or prints what differs and exits 1.
check() {
    local name=$1 out
    shift
    if out=$("$py" "$dir/npycheck.py" "$@" 2>&1); then
        pass "$name"
    else
        fail "$name" "$(printf '%s\n' "$out" | tail -n 1)"
    fi
}

cat >"$dir/npycheck.py" <<'EOF'
# The NumPy side of npy_numpy.sh: `make DIR` writes NumPy's files and the
# float32 values cuk should read from each; `cukfile NPY CSV ROWS COLS` and
# `same NPY REF` check what cuk wrote.
import os
import sys
import warnings

import numpy as np
import numpy.lib.format as fmt


def fail(msg):
    print(msg)
    sys.exit(1)


def same(got, want, what):
    """Same shape, NaNs in the same places, and the same bits elsewhere
    (so -0 and 0 differ; NaN payloads may not survive a .csv)."""
    if got.shape != want.shape:
        fail(f"{what}: shape {got.shape}, want {want.shape}")
    gn, wn = np.isnan(got), np.isnan(want)
    if not np.array_equal(gn, wn):
        fail(f"{what}: NaN in different places")
    g = np.ascontiguousarray(got[~gn], dtype="<f4").view("<u4")
    w = np.ascontiguousarray(want[~wn], dtype="<f4").view("<u4")
    bad = np.flatnonzero(g != w)
    if bad.size:
        i = bad[0]
        fail(f"{what}: {bad.size} values differ, first "
             f"{got[~gn][i]!r} vs {want[~wn][i]!r}")


def load_cuk_npy(path, shape):
    """A .npy cuk wrote: version 1.0, data 64-byte aligned, '<f4', C order."""
    with open(path, "rb") as f:
        version = fmt.read_magic(f)
        if version != (1, 0):
            fail(f"{path}: version {version}, want (1, 0)")
        hshape, fortran, dtype = fmt.read_array_header_1_0(f)
        start = f.tell()
    if start % 64:
        fail(f"{path}: data starts at byte {start}, not a multiple of 64")
    if dtype.str != "<f4" or fortran or hshape != shape:
        fail(f"{path}: header says {dtype.str} fortran_order={fortran} "
             f"shape={hshape}, want <f4 False {shape}")
    size = os.path.getsize(path)
    if size != start + 4 * shape[0] * shape[1]:
        fail(f"{path}: {size} bytes, want {start + 4 * shape[0] * shape[1]}")
    return np.load(path, allow_pickle=False)


def cukfile(npy, csv, rows, cols):
    a = load_cuk_npy(npy, (int(rows), int(cols)))
    c = np.loadtxt(csv, delimiter=",", dtype=np.float64, ndmin=2)
    same(a, c.astype(np.float32), f"{npy} vs {csv}")


def make(d):
    """NumPy's files np_NAME.npy / np_NAME.csv and ref_NAME.npy, the values
    cuk should load from each: float32, 2-D (a 1-D array of n is 1xn, a
    0-D one 1x1). Prints the case names."""
    rng = np.random.default_rng(20240611)
    x64 = rng.standard_normal((17, 33))
    # Values float32 cannot hold: beyond its range (inf), below it (0),
    # denormal; plus inf, -inf, NaN and -0 as they are.
    x64.flat[[0, 5, 9, 14, 20, 27, 33, 40]] = [
        1e300, -1e-50, 1e-40, np.inf, -np.inf, np.nan, -0.0, 1 / 3]
    big = rng.standard_normal((700, 450))      # spans several read chunks
    v = rng.standard_normal(40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # the float32 overflow to inf
        x32 = x64.astype(np.float32)
    cases = {
        "f4_c": x32,
        "f4_fortran": np.asfortranarray(x32),
        "f8_c": x64,
        "f8_fortran": np.asfortranarray(x64),
        "f4_big_endian": x32.astype(">f4"),
        "f8_big_endian_fortran": np.asfortranarray(x64.astype(">f8")),
        "f4_1d": v.astype(np.float32),
        "f8_1d": v,
        "f4_0d": np.array(2.5, dtype=np.float32),
        "f8_0d": np.array(np.pi),
        "f4_column": v.astype(np.float32).reshape(40, 1),
        "f4_row": v.astype(np.float32).reshape(1, 40),
        "f4_1x1": np.array([[7.0]], dtype=np.float32),
        "f8_fortran_700x450": np.asfortranarray(big),
        "f4_version2": x32,
        "f8_version3": x64,
    }
    versions = {"f4_version2": (2, 0), "f8_version3": (3, 0)}
    for name, a in cases.items():
        path = os.path.join(d, f"np_{name}.npy")
        if name in versions:
            with open(path, "wb") as f:
                fmt.write_array(f, a, version=versions[name])
        else:
            np.save(path, a)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = np.asarray(a, dtype=np.float32)
        ref = ref.reshape((1, -1) if ref.ndim < 2 else ref.shape)
        np.save(os.path.join(d, f"ref_{name}.npy"), np.ascontiguousarray(ref, "<f4"))
        print(name)
    # .csv as NumPy writes it: float64 with %.18e, float32 with %.9g.
    csvs = {"csv_float64": (x64, "%.18e"), "csv_float32": (x32, "%.9g"),
            "csv_row": (v.reshape(1, -1), "%.18e"), "csv_1x1": (np.array([[-0.0]]), "%g")}
    for name, (a, f) in csvs.items():
        np.savetxt(os.path.join(d, f"np_{name}.csv"), a, fmt=f, delimiter=",")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.save(os.path.join(d, f"ref_{name}.npy"), a.astype("<f4"))
        print(name)


def same_file(out, ref):
    want = np.load(ref)
    same(load_cuk_npy(out, want.shape), want, out)


cmd, args = sys.argv[1], sys.argv[2:]
{"make": make, "cukfile": cukfile, "same": same_file}[cmd](*args)
EOF

# (a) What cuk writes: NumPy reads its .npy as float32 C order, with the
# same values as cuk's own .csv of the same matrix.
stmts="seed 3"
shapes="17x33 1x1 1x40 40x1"
for s in $shapes; do
    r=${s%x*}
    c=${s#*x}
    stmts="$stmts; A$s = randn($r, $c); save A$s \"$dir/cuk_$s.npy\"; save A$s \"$dir/cuk_$s.csv\""
done
if run_cuk cuk_writes_npy "$stmts"; then
    for s in $shapes; do
        check "cuk_writes_npy_$s" cukfile "$dir/cuk_$s.npy" "$dir/cuk_$s.csv" "${s%x*}" "${s#*x}"
    done
fi
if run_cuk cuk_writes_special "S = [1, -0, inf, -inf; nan, 1e-40, 3.4e38, 0.1]; save S \"$dir/cuk_special.npy\"; save S \"$dir/cuk_special.csv\""; then
    check cuk_writes_special cukfile "$dir/cuk_special.npy" "$dir/cuk_special.csv" 2 4
fi

# (b) What NumPy writes: cuk loads each file and saves it back as .npy,
# which must hold the original values cast to float32, exactly.
if ! names=$("$py" "$dir/npycheck.py" make "$dir" 2>&1); then
    fail numpy_writes "the NumPy side failed: $(printf '%s\n' "$names" | tail -n 1)"
else
    for name in $names; do
        ext=npy
        case $name in csv_*) ext=csv ;; esac
        if run_cuk "numpy_$name" "B = load(\"$dir/np_$name.$ext\"); save B \"$dir/out_$name.npy\""; then
            check "numpy_$name" same "$dir/out_$name.npy" "$dir/ref_$name.npy"
        fi
    done
fi

exit $failed
