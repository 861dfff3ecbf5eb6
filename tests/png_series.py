#!/usr/bin/env python3
"""png_series.py - whether a rendering of one of cuk's SVG charts shows its
series: every series' colour (data-colour of the SVG's series groups) is
found among the pixels inside the plot area (the rect#plot-area), and a
palette colour no series has is found there in none, so the check can fail.
The PNG is decoded here with zlib alone (8-bit RGB or RGBA, any filter).
Prints one PASS or FAIL line under NAME.

usage: png_series.py FILE.svg FILE.png NAME"""
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#17becf", "#ff7f0e",
           "#8c564b", "#e377c2", "#bcbd22", "#393b79", "#0b6e4f", "#843c39"]
TOLERANCE = 6     # per channel: the browser's colour handling
MIN_PIXELS = 25   # a bar, a line or a mark, not a stray antialiased edge


def decode(path):
    """(width, height, rows of (r, g, b) tuples)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, head = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = head
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("PNG of depth %d, colour type %d, interlace %d" % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def rgb(hexcolour):
    return tuple(int(hexcolour[i:i + 2], 16) for i in (1, 3, 5))


def count(rows, box, colour):
    x0, y0, x1, y1 = box
    return sum(1 for row in rows[y0:y1] for p in row[x0:x1]
               if all(abs(p[k] - colour[k]) <= TOLERANCE for k in range(3)))


def main():
    svg, png, name = sys.argv[1:4]
    root = ET.parse(svg).getroot()
    area = [r for r in root.iter(NS + "rect") if r.get("id") == "plot-area"][0]
    box = [int(float(area.get(k))) for k in ("x", "y")]
    box += [box[0] + int(float(area.get("width"))), box[1] + int(float(area.get("height")))]
    series = {}
    for g in root.iter(NS + "g"):
        if g.get("class") == "series" and g.get("data-series") != "(end to end)":
            series[g.get("data-series")] = g.get("data-colour")
    _, _, rows = decode(png)
    problems = ["series %s (%s): %d pixels" % (s, c, n) for s, c in series.items()
                for n in [count(rows, box, rgb(c))] if n < MIN_PIXELS]
    unused = [c for c in PALETTE if c not in series.values()]
    if unused and count(rows, box, rgb(unused[0])) >= MIN_PIXELS:
        problems.append("colour %s, which no series has, is in the plot" % unused[0])
    if not series:
        problems.append("no series in the SVG")
    if problems:
        print("FAIL %s: %s" % (name, "; ".join(problems)))
    else:
        print("%d series found in the plot: %s" % (len(series), ", ".join(sorted(series))))
        print("PASS %s" % name)


if __name__ == "__main__":
    main()
