#!/usr/bin/env bash
# svg.sh - `save plot` read back: the SVG of a bench, a ladder and a
# roofline (cpu and blas, so that no GPU is needed) parses as XML, carries
# its title, device line, date and axis units, escapes what the user typed,
# and a real browser (headless Chromium) renders it with every plotted
# series in the plot area: each series' colour found among the pixels
# there, and a colour no series has found nowhere. Skipped, by name, where
# Chromium is not installed (.ci/run installs Debian's chromium).
. "$(dirname "$0")/lib.sh"
cases="svg_bench_renders svg_ladder_renders svg_roofline_renders"

export CUK_BENCH_SHARE_MS=20 CUK_LADDER_SHARE_MS=10
"$cuk" -e "A = rand(120, 120); bench cpu blas: A @ A; save plot \"bench.svg\"
           ladder cpu blas: X @ Y for n in 16 32 64 128; save plot \"ladder.svg\"
           mode cpu; C = A @ A; s = sum(A); mode blas; C = A @ A; roofline; save plot \"roof.svg\"
           save A \"a<&'\\\">.npy\"; bench cpu blas: load(\"a<&'\\\">.npy\") + A; save plot \"escaped.svg\"" \
    >out.txt 2>&1
status=$?
[ $status = 0 ] && [ -s bench.svg ] && [ -s ladder.svg ] && [ -s roof.svg ]
result_plain() { if [ "$2" -eq 0 ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi; }
result_plain svg_save_plot_writes $? "exit $status: $(head -c 400 out.txt)"

# What the files say, read as XML: title, subtitle, axes, series.
python3 - "$work" <<'EOF'
import os, re, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
def texts(root):
    return [("".join(t.itertext())) for t in root.iter(ns + "text")]
def check(name, ok, why):
    print(("PASS %s" % name) if ok else ("FAIL %s: %s" % (name, why)))
want = {"bench.svg": ("bench A @ A", "ms"), "ladder.svg": ("ladder X @ Y", "n (size)"),
        "roof.svg": ("roofline", "FLOP/B")}
for f, (title, unit) in want.items():
    try:
        root = ET.parse(os.path.join(sys.argv[1], f)).getroot()
    except Exception as e:
        check("svg_%s_parses" % f[:-4], False, e)
        continue
    t = texts(root)
    series = [g.get("data-series") for g in root.iter(ns + "g") if g.get("class") == "series"]
    ok = (any(x.startswith(title) for x in t) and any(re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", x) for x in t)
          and any(unit in x for x in t) and {"cpu", "blas"} <= {s.split()[0] for s in series if s})
    check("svg_%s_labelled" % f[:-4], ok, "title, date, unit %r or series cpu and blas missing: %s %s"
          % (unit, t[:8], series))
try:
    root = ET.parse(os.path.join(sys.argv[1], "escaped.svg")).getroot()
    title = [x for x in texts(root) if x.startswith("bench ")][0]
    check("svg_escapes_user_text", "load(\"a<&'\\\">.npy\") + A" in title, "title read back as %r" % title)
except Exception as e:
    check("svg_escapes_user_text", False, e)
EOF

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    for c in $cases; do echo "SKIP $c: chromium is not installed"; done
    exit 0
fi

# render FILE: FILE.png, a 960x540 screenshot of the SVG in headless Chromium.
render() {
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
        --force-device-scale-factor=1 --user-data-dir="$(mktemp -d -p "$work")" \
        --window-size=960,540 --screenshot="$work/$1.png" "file://$work/$1" >/dev/null 2>&1
}

for f in bench.svg ladder.svg roof.svg; do
    name=$(sed 's/bench.svg/svg_bench_renders/; s/ladder.svg/svg_ladder_renders/; s/roof.svg/svg_roofline_renders/' <<<"$f")
    if ! render "$f" || [ ! -s "$f.png" ]; then
        echo "FAIL $name: chromium wrote no screenshot"
        continue
    fi
    python3 "$tests/png_series.py" "$f" "$f.png" "$name"
done
