#!/usr/bin/env bash
# gpu-honest.sh - the figures that show whether cuk's measurements can be
# trusted, measured on a GPU machine and printed to stdout. It builds nothing:
#
#   bench/gpu-honest.sh [path/to/cuk]     (default build/cuk; python3 needed)
#
#   1. first and second timed C = A @ B at 1037x1055x1031 in each GPU mode,
#      each mode in a fresh process (within 1.2x?), and the one-time costs
#      `info` lists;
#   2. bench A @ B at that size: kernel and end-to-end times, runs, spread,
#      and the end-to-end cpu/GPU ratios beside the lecture's 39x;
#   3. ladder A @ B for n in 256..4096 (under 60 s? cpu cells estimated and
#      marked?), then `why` after naive, tiled and cublas products and after
#      two sums, and the roofline;
#   4. save bench in .json/.csv/.md and `cuk --json`, read back by Python;
#      `record` keeping what was shown;
#   5. if tests/gpu_test sits beside the binary (make test builds it): its
#      structural cases for timing (set-up outside the first product's
#      times, bench's end-to-end copies), with --quick.
# The machine may be shared: every comparison here is within this one run.
set -u
cuk=${1:-build/cuk}
if [ ! -x "$cuk" ]; then
    echo "usage: $0 path/to/cuk (no executable at '$cuk')" >&2
    exit 2
fi
cuk=$(cd "$(dirname "$cuk")" && pwd)/$(basename "$cuk")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export CUK_HISTORY=/dev/null
ref='seed 1; A = rand(1037, 1055); B = rand(1055, 1031);'
"$cuk" --version
"$cuk" -e 'info' | sed -n '1,6p'

echo
echo "== 1. first vs second timed C = A @ B at 1037x1055x1031, a fresh process per mode"
for mode in naive tiled cublas; do
    "$cuk" --json -e "$ref mode $mode; time on; C = A @ B; C = A @ B; time off; info" >"$mode.jsonl" 2>&1
done
python3 - <<'PY'
import json
for mode in ("naive", "tiled", "cublas"):
    lines = [json.loads(l) for l in open(mode + ".jsonl") if l.startswith("{")]
    times = [t for t in lines if t["table"] == "time" and t["stmt"] == "C = A @ B"]
    info = [t for t in lines if t["table"] == "info"]
    if len(times) != 2 or not info:
        print(f"  {mode}: FAIL, no timings: {open(mode + '.jsonl').read()[:300]}")
        continue
    first, second = times[0]["kernel_ms"], times[1]["kernel_ms"]
    ratio = first / second if second > 0 else float("inf")
    verdict = "OK (within 1.2x)" if ratio <= 1.2 else "FAIL (over 1.2x)"
    print(f"  {mode:7s} first {first:.4f} ms, second {second:.4f} ms: first/second = {ratio:.3f}  {verdict}")
    print(f"          walls {times[0]['wall_ms']:.3f} / {times[1]['wall_ms']:.3f} ms; set-up kept out of the "
          f"first: {times[0]['setup_ms']:.3f} ms")
    for o in info[0]["onetime"]:
        print(f"          one-time: {o['ms']:9.3f} ms  {o['what']}")
PY

echo
echo "== 2. bench A @ B at 1037x1055x1031 (the lecture's 39x was cpu / naive GPU, copies included)"
"$cuk" -e "$ref bench A @ B; save bench \"bench.json\"; save bench \"bench.csv\"; save bench \"bench.md\"; why"
python3 - <<'PY'
import json
t = json.load(open("bench.json"))
lecture = {"naive": 39.3, "tiled": 27.5}
print("  end to end (fresh host operands in, kernel, result back), against the lecture:")
for r in t["rows"]:
    if not r["available"]:
        print(f"    {r['mode']:7s} unavailable: {r['why']}")
        continue
    e, k = r["e2e_ms"], r["kernel_ms"]
    x, xk = r["x_cpu_e2e"], r["x_cpu"]
    fmt = lambda q: "~1x (noise)" if q["noise"] else (f"{q['ratio']:.1f}x" if q["ratio"] else "-")
    classic = f"   lecture: {lecture[r['mode']]}x" if r["mode"] in lecture else ""
    print(f"    {r['mode']:7s} e2e {e['median']:9.3f} ms [{e['min']:.3f}-{e['max']:.3f}] ({e['runs']} runs), "
          f"cpu/{r['mode']} e2e {fmt(x):>11s}, kernel {k['median']:.4f} ms ({k['runs']} runs), "
          f"cpu/{r['mode']} kernel {fmt(xk)}{classic}")
    if r["h2d_bytes"]:
        print(f"            copies per run: {r['h2d_bytes']/1e6:.1f} MB in {r['h2d_ms']:.2f} ms, "
              f"{r['d2h_bytes']/1e6:.1f} MB out in {r['d2h_ms']:.2f} ms")
PY

echo
echo "== 3a. ladder A @ B for n in 256 512 1024 2048 4096 (must take under 60 s)"
start=$(date +%s.%N)
"$cuk" -e 'seed 1; ladder A @ B for n in 256 512 1024 2048 4096; save bench "ladder.json"'
end=$(date +%s.%N)
python3 - "$start" "$end" <<'PY'
import json, sys
took = float(sys.argv[2]) - float(sys.argv[1])
t = json.load(open("ladder.json"))
est = [f"{r['mode']}@{r['n']}" for r in t["rows"] if r["estimated"]]
cells = [r for r in t["rows"] if r["available"]]
print(f"  the whole ladder took {took:.1f} s: {'OK (under 60 s)' if took < 60 else 'FAIL (60 s or more)'}; "
      f"{len(cells)} cells, estimated: {', '.join(est) or 'none'}")
PY

echo
echo "== 3b. why after naive, tiled and cublas products, after a small and a large sum; the roofline"
"$cuk" -e "$ref mode naive; C = A @ B; why; mode tiled; C = A @ B; why; mode cublas; C = A @ B; why;
           mode tiled; s = sum(A); why; x = rand(1, 268435456); s = sum(x); why; roofline"

echo
echo "== 4. save bench in three formats and cuk --json, read back by Python; record"
"$cuk" --json -e "$ref who; modes; info; timeit 20 C = A @ B; time on; C = A @ B; time off;
                  bench naive cublas: A @ B; ladder naive cublas: A @ B for n in 256 512" >tables.jsonl 2>&1
"$cuk" -e "record \"session.log\"; $ref C = A @ B, mode cublas, D = A @ B, record off, E = A" >shown.txt 2>&1
python3 - <<'PY'
import csv, json
ok = True
def check(what, cond):
    global ok
    ok &= bool(cond)
    print(f"  {'OK  ' if cond else 'FAIL'} {what}")
t = json.load(open("bench.json"))
rows = list(csv.DictReader(open("bench.csv")))
check("bench.json and bench.csv hold the same rows", [r["mode"] for r in t["rows"]] == [r["mode"] for r in rows])
same = all(abs(float(c["kernel_ms_median"]) - j["kernel_ms"]["median"]) <= 1e-6 * j["kernel_ms"]["median"]
           for j, c in zip(t["rows"], rows) if j["available"])
check("their medians agree", same)
check("the machine and versions are recorded", t["device"]["name"] and t["versions"]["cuda_runtime"])
md = open("bench.md").read()
check("bench.md has a row per mode", all(f"| {r['mode']} |" in md for r in t["rows"]))
lines = open("tables.jsonl").read().splitlines()
for l in lines:
    if not l.startswith("{"):
        print(f"  (not a JSON line: {l[:100]})")
tables = [json.loads(l)["table"] for l in lines if l.startswith("{")]
check(f"cuk --json gives one object per table: {' '.join(tables)}",
      tables == ["who", "modes", "info", "timeit", "time", "bench", "ladder"])
log, shown = open("session.log").read(), open("shown.txt").read()
check("record kept what was shown, until record off", "C = 1037x1031" in log and "E = " not in log and "E = " in shown)
print("  all OK" if ok else "  SOME FAILED")
PY

gpu_test=$(dirname "$cuk")/tests/gpu_test
echo
if [ -x "$gpu_test" ]; then
    echo "== 5. $gpu_test --quick: the timing cases, and the summary"
    "$gpu_test" --quick >gpu_test.txt 2>&1
    echo "  exit status $?"
    grep -E 'first_product_warmed|bench_end_to_end|^FAIL' gpu_test.txt | sed 's/^/  /'
    echo "  $(grep -c '^PASS' gpu_test.txt) passed, $(grep -c '^FAIL' gpu_test.txt) failed, $(grep -c '^SKIP' gpu_test.txt) skipped"
else
    echo "== 5. (no $gpu_test beside the binary: make test builds it)"
fi
