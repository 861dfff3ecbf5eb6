#!/usr/bin/env bash
# honest.sh - the measuring commands through the real binary, checked for
# structure, never for speed (no clock decides a case): bench subsets and
# unavailable rows, the noise rule for identical code, the table at 80
# columns, ladder's estimates, why and roofline, one-time costs in info,
# save bench in three formats and `cuk --json` read back by Python's json and
# csv modules, and `record`.
. "$(dirname "$0")/lib.sh"
# Short budgets: these cases check what is shown, not how fast.
export CUK_BENCH_SHARE_MS=40 CUK_LADDER_SHARE_MS=20 CUK_TIMEIT_BUDGET_MS=20

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

# expect NAME 'PATTERN' TEXT: an extended regex that must match a line.
expect() {
    if grep -qE -- "$2" <<<"$3"; then pass "$1"; else fail "$1" "no line matches /$2/ in: $(head -c 600 <<<"$3")"; fi
}
refuse() {
    if grep -qE -- "$2" <<<"$3"; then fail "$1" "a line matches /$2/: $(grep -E -- "$2" <<<"$3" | head -3)"; else pass "$1"; fi
}

gpu=0
"$cuk" -e 'modes' | grep -E '^[ *] tiled +GPU' | grep -vq unavailable && gpu=1
setup='seed 1; A = rand(40, 50); B = rand(50, 30); C = rand(40, 50);'

out=$("$cuk" -e "$setup bench cpu blas: A @ B" 2>&1)
expect bench_subset_cpu '^  cpu +[0-9]+ ' "$out"
expect bench_subset_blas '^  blas +[0-9]+ ' "$out"
refuse bench_subset_only_those '^  (naive|tiled|fast|cublas) ' "$out"
expect bench_error_float64 'float64' "$out"

out=$("$cuk" -e "$setup bench A @ B" 2>&1)
expect bench_lists_fast '^  fast +unavailable: ' "$out"
if [ $gpu = 0 ]; then
    expect bench_lists_gpu_modes '^  cublas +unavailable: ' "$out"
fi
too_wide=$(python3 -c 'import sys; print(max(len(l) for l in sys.stdin.read().splitlines()))' <<<"$out")
if [ "$too_wide" -le 80 ]; then pass bench_fits_80; else fail bench_fits_80 "a line of $too_wide columns"; fi

out=$("$cuk" -e "$setup bench cpu nosuch: A @ B" 2>&1)
expect bench_unknown_mode "unknown mode 'nosuch'" "$out"

# blas borrows cpu's concatenation (copy2d), and cpu against itself is the
# same code too: never a speedup, whatever the clock said.
out=$("$cuk" --json -e "$setup bench cpu blas cpu: [A C]" 2>&1)
noise=$(python3 -c '
import json, sys
t = json.loads(sys.stdin.readline())
rows = [r for r in t["rows"] if r["available"]]
print(all(r["x_cpu"]["noise"] for r in rows[1:]) and all(r["same_code_as_cpu"] for r in rows))' <<<"$out")
[ "$noise" = True ] && pass bench_same_code_is_noise || fail bench_same_code_is_noise "$out"
out=$("$cuk" -e "$setup bench cpu blas cpu: [A C]" 2>&1)
expect bench_noise_shown '^  blas +.* ~1x \(noise\)' "$out"

out=$(CUK_LADDER_RUN_LIMIT_MS=0.0001 "$cuk" -e 'ladder cpu blas: A @ B for n in 4 8 16 32' 2>&1)
# Past a limit nothing can meet, every cell is an estimate, marked, never
# printed as a measurement: blas's first size is measured (nothing predicts
# it), cpu's is predicted (a cpu product's time is known before it runs).
expect ladder_measured_then_estimated '^  blas +[0-9.]+ .?s +~[0-9.]+ .?s\* +~[0-9.]+ .?s\* +~[0-9.]+ .?s\*$' "$out"
expect ladder_first_size_predicted '^  cpu +~[0-9.]+ .?s\* +~[0-9.]+ .?s\* +~[0-9.]+ .?s\* +~[0-9.]+ .?s\*$' "$out"
expect ladder_e2e_table '^  end to end ' "$out"
out=$("$cuk" -e 'A = 1; ladder cpu: A @ B for n in 4 8; who' 2>&1)
expect ladder_leaves_workspace '^  A +1x1 ' "$out"
refuse ladder_adds_nothing '^  (B|n) ' "$out"
out=$("$cuk" -e 'ladder cpu: A @ B for n in 8 4' 2>&1)
expect ladder_sizes_grow 'the sizes must grow' "$out"

out=$("$cuk" -e "$setup mode cpu; D = A @ B; why" 2>&1)
expect why_work '^  work +2\*m\*n\*k = 2\*40\*30\*50 = 120 KFLOP' "$out"
expect why_requested '^  requested +two floats loaded per multiply-add' "$out"
expect why_verdict '^  verdict +bound by ' "$out"
out=$("$cuk" -e "$setup mode cpu; D = A @ B; mode blas; D = A @ B; s = sum(A); roofline" 2>&1)
rows=$(wc -l <<<"$out")
too_wide=$(python3 -c 'import sys; print(max(len(l) for l in sys.stdin.read().splitlines()))' <<<"$out")
[ "$rows" -le 24 ] && [ "$too_wide" -le 80 ] && pass roofline_fits_80x24 || fail roofline_fits_80x24 "$rows rows, $too_wide columns"
expect roofline_points '^  [0-9] cpu +matmul ' "$out"

out=$("$cuk" -e "$setup mode blas; D = A @ B; info" 2>&1)
expect info_onetime 'mode blas: each operation once' "$out"
expect info_host_peak '^host FP32: [0-9]+ cores x [0-9]+ lanes' "$out"

out=$("$cuk" -e "$setup mode cpu; time on; D = A @ B" 2>&1)
expect time_on_wall '^  cpu: kernels .*, wall ' "$out"

# save bench in three formats: every figure readable by Python, the same in each.
"$cuk" -e "$setup bench cpu blas: A @ B; save bench \"t.json\"; save bench \"t.csv\"; save bench \"t.md\";
           ladder cpu blas: A @ B for n in 8 16; save bench \"l.json\"; save bench \"l.csv\"; save bench \"l.md\"" \
    >/dev/null 2>&1
check=$(python3 - <<'PY'
import csv, json
t = json.load(open("t.json"))
rows = list(csv.DictReader(open("t.csv")))
assert t["table"] == "bench" and t["expr"] == "A @ B" and t["seed"] == 1, t
assert {"device", "host", "versions", "rows"} <= set(t), sorted(t)
assert [r["mode"] for r in t["rows"]] == [r["mode"] for r in rows]
for j, c in zip(t["rows"], rows):
    if not j["available"]:
        assert c["available"] == "0" and c["why"] == j["why"]
        continue
    assert j["kernel_ms"]["runs"] >= 3 and j["e2e_ms"]["runs"] >= 3
    for key in ("median", "min", "max", "q1", "q3"):
        assert abs(float(c["kernel_ms_" + key]) - j["kernel_ms"][key]) <= 1e-6 * j["kernel_ms"][key]
        assert abs(float(c["e2e_ms_" + key]) - j["e2e_ms"][key]) <= 1e-6 * j["e2e_ms"][key]
    assert j["kernel_ms"]["min"] <= j["kernel_ms"]["median"] <= j["kernel_ms"]["max"]
    assert j["rel_err"] < 1e-5 and int(c["kernel_runs"]) == j["kernel_ms"]["runs"]
md = open("t.md").read()
assert "| cpu |" in md and "| blas |" in md and "seed: 1" in md
def md_table(text): # the header's cells, and each row's, as many as the header's
    lines = [l for l in text.splitlines() if l.startswith("|")]
    cells = [[c.strip() for c in l.strip("|").split("|")] for l in lines]
    assert all(len(c) == len(cells[0]) for c in cells), lines
    return cells[0], cells[2:]
head, rows = md_table(md) # a bench has one size, in its heading: no n column
assert head[:3] == ["mode", "runs", "kernel"] and "n" not in head, head
assert all(r[1] not in ("", "0") for r in rows if "unavailable" not in r[2]), rows
head, rows = md_table(open("l.md").read())
assert head[:3] == ["mode", "n", "runs"] and {r[1] for r in rows} == {"8", "16"}, (head, rows)
l = json.load(open("l.json"))
assert l["table"] == "ladder" and l["var"] == "n" and sorted({r["n"] for r in l["rows"]}) == [8, 16]
assert len(list(csv.DictReader(open("l.csv")))) == len(l["rows"])
print("ok")
PY
)
[ "$check" = ok ] && pass save_bench_formats || fail save_bench_formats "$check"
out=$("$cuk" -e 'save bench "x.json"' 2>&1)
expect save_bench_none 'no bench or ladder has run yet' "$out"
out=$("$cuk" -e "$setup bench cpu: A @ B; save bench \"x.txt\"" 2>&1)
expect save_bench_format "use .json, .csv or .md" "$out"

# cuk --json: every table a script prints is one JSON object on its own line.
out=$("$cuk" --json -e "$setup who; modes; info; timeit 3 D = A @ B; time on; D = A @ B; time off;
                         bench cpu blas: A @ B; ladder cpu: A @ B for n in 4 8" 2>&1)
tables=$(python3 -c '
import json, sys
seen = []
for line in sys.stdin.read().splitlines():
    t = json.loads(line)
    seen.append(t["table"])
    if t["table"] == "timeit":
        assert t["runs"] == 3 and t["kernel_ms"]["min"] <= t["kernel_ms"]["median"]
    if t["table"] == "who":
        assert {r["name"] for r in t["rows"]} == {"A", "B", "C"}
print(" ".join(seen))' <<<"$out" 2>&1)
[ "$tables" = "who modes info timeit time bench ladder" ] && pass json_tables || fail json_tables "$tables"

# timeit: a kernel median never passes the wall median. On the host every
# run gives both, one set; on the device the walls come from the runs
# without the gate and the kernels from the others, and the report says
# so. Poisoned in advance: a median the JSON lacks fails the comparison.
timeit_agrees() { # MODE STATEMENTS: the timeit's JSON line, checked
    "$cuk" --json -e "$setup mode $1; $2" 2>/dev/null | python3 -c '
import json, sys
t = [json.loads(l) for l in sys.stdin.read().splitlines() if l.startswith("{")][-1]
w, k = t.get("wall_ms", {}).get("median", -1), t.get("kernel_ms", {}).get("median", 1e300)
same = t["wall_runs"] == t["kernel_runs"] == t["runs"]
split = t["wall_runs"] + t["kernel_runs"] == t["runs"] and t["wall_runs"] > 0 and t["kernel_runs"] > 0
want = sys.argv[1]
if want == "same" and not (same and 0 <= k <= w):
    print("kernels %g ms, wall %g ms, runs %d/%d/%d" % (k, w, t["wall_runs"], t["kernel_runs"], t["runs"]))
elif want == "split" and not split:
    print("runs %d/%d/%d" % (t["wall_runs"], t["kernel_runs"], t["runs"]))
else:
    print("ok")' "$3"
}
for stmt in 'timeit 25 D = A @ B' 'A2 = rand(300); timeit 9 C2 = A2 @ A2' 'timeit s = sum(A)'; do
    got=$(timeit_agrees cpu "$stmt" same)
    [ "$got" = ok ] || break
done
[ "$got" = ok ] && pass timeit_kernel_within_wall || fail timeit_kernel_within_wall "$stmt: $got"
out=$("$cuk" -e "$setup mode cpu; timeit 4 D = A @ B" 2>&1)
refuse timeit_host_one_set 'without kernel timing' "$out"
if [ $gpu = 1 ]; then
    got=$(timeit_agrees tiled 'timeit 8 D = A @ B' split)
    [ "$got" = ok ] && pass timeit_device_halves || fail timeit_device_halves "$got"
    out=$("$cuk" -e "$setup mode tiled; timeit 8 D = A @ B" 2>&1)
    expect timeit_device_says_which '^8 runs: median .* per run, .* in the 4 without kernel timing; kernels .* in the other 4' "$out"
else
    echo "SKIP timeit_device_halves: no GPU"
fi

# why for the textbook loop's 400^2 product, which the caches hold: judged
# against them, and bound by its instructions' latency, not "by memory";
# and a slice of five floats is too short to time (no rate: no "MB/s").
out=$("$cuk" -e 'mode cpu; seed 1; A = rand(400); B = rand(400); time on; C = A @ B; why' 2>&1)
expect why_cache_resident_cpu '^  verdict +bound by instruction latency: it is far below every ceiling' "$out"
expect why_cache_ceiling '^  ceilings +one core of the host: .* within the caches' "$out"
refuse why_cache_not_memory 'bound by memory' "$out"
out=$("$cuk" -e "$setup mode blas; time on; s = A[0:1, 0:5]; why" 2>&1)
expect why_too_short '^  verdict +too short to time: ' "$out"
expect time_on_too_short '^  blas +slice +1x5 +[0-9.]+ (µs|ns) +too short to time$' "$out"
refuse rate_too_short '[0-9.]+ [kM]?B/s' "$out"

# record: a transcript of what was shown, until `record off`.
out=$("$cuk" -e 'x = 1, record "s.log", y = 2, z = nosuch' 2>&1)
log=$(cat s.log)
expect record_keeps_output '^y = 2$' "$log"
expect record_keeps_errors "error: 'nosuch' is not defined" "$log"
refuse record_starts_there '^x = 1$' "$log"
"$cuk" -e 'record "t.log", a = 1, record off, b = 2' >/dev/null 2>&1
log=$(cat t.log)
expect record_on '^a = 1$' "$log"
refuse record_off '^b = 2$' "$log"
out=$("$cuk" -e 'record "/nonexistent/x.log"' 2>&1)
expect record_bad_file "record: cannot write '/nonexistent/x.log'" "$out"

# Mode blas on the reference BLAS (Debian's libblas3, which CUK_BLAS can
# name): a warning the first time the mode is chosen, once, naming the
# package that gives a fast one, and a note under each bench that ran it;
# on an optimised BLAS, neither.
refblas=$(ls /usr/lib/*/blas/libblas.so.3 /usr/lib/libblas.so.3 2>/dev/null | head -n 1)
if [ -z "$refblas" ] || ! "$cuk" -e 'modes' | grep -qE '^[ *] blas +host'; then
    echo "SKIP blas_reference_warning: the reference BLAS (libblas3) is not installed, or this build has no mode blas"
else
    out=$(CUK_BLAS="$refblas" "$cuk" -e "$setup mode blas; D = A @ B; mode cpu; mode blas; bench cpu blas: A @ B" 2>&1)
    n=$(grep -c '^warning: mode blas runs on the reference BLAS (libblas\.so\.3)' <<<"$out")
    [ "$n" = 1 ] && grep -qE '(libopenblas0|libopenblas-dev)' <<<"$(sed -n '/^warning: mode blas/,/sees$/p' <<<"$out")" &&
        pass blas_reference_warning || fail blas_reference_warning "$n warnings, or no package named, in: $(head -c 600 <<<"$out")"
    expect blas_reference_bench_note '^  note: mode blas runs on the reference BLAS' "$out"
fi
if "$cuk" -e 'modes' | grep -qE '^[ *] blas .*here the reference BLAS'; then
    echo "SKIP blas_optimised_no_warning: the default BLAS here is the reference one"
else
    refuse blas_optimised_no_warning 'reference BLAS' "$("$cuk" -e "$setup mode blas; bench cpu blas: A @ B" 2>&1)"
fi
