#!/usr/bin/env python3
"""names.py - mode names and switch values are data. The mode table
(kernels/modes.c) and the switch table (kernels/variants.c) define them;
the rest of the code takes what it needs from the tables (a row's role, a
value's constant, VAR_TILE_8) and never compares a string with them. The
names and values are read from the binary (`cuk --json -e modes`, `cuk -e
set`), then looked for in the sources; one PASS/FAIL line per rule.

usage: names.py CUK"""
import json
import os
import re
import subprocess
import sys

from layers import ROOT, report, sources as folder_sources

CUK = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CUK", "./cuk")
PROGRAM = ("base", "engine", "kernels", "repl")
ALL = PROGRAM + ("tests", "bench", "fuzz")
MODE_TABLE, SWITCH_TABLE = "kernels/modes.c", "kernels/variants.c"
COMPARE_CALL = re.compile(r"\b(strcmp|strncmp|strcasecmp|strncasecmp|memcmp)\s*\(")


def cuk(*args):
    """The binary's output (stdout, then stderr) and exit status, run with args."""
    env = dict(os.environ, CUK_HISTORY="/dev/null")
    p = subprocess.run([CUK] + list(args), capture_output=True, text=True, env=env)
    return p.stdout + p.stderr, p.returncode


def modes():
    out, _ = cuk("--json", "-e", "modes")
    return [r["mode"] for r in json.loads(out)["rows"]]


def switches():
    """[(switch, [values], affects)] from the `set` listing, in its order."""
    out, _ = cuk("-e", "set")
    rows = [re.split(r"\s{2,}", line.strip()) for line in out.splitlines()[1:] if line.startswith("  ")]
    return [(r[0], r[2].split(), r[3]) for r in rows]


def kernel_switches(table, names):
    """The rows of `set` that variants.c defines: those whose affects line
    names modes ("tiled, cublas: sum ..."), not a setting of the session's
    (counters)."""
    modes_of = lambda affects: re.findall(r"(?:^|;)\s*([^:;]+):", affects)
    return [(sw, values) for sw, values, affects in table
            if modes_of(affects) and all(m.strip() in names for ms in modes_of(affects) for m in ms.split(","))]


def command_words():
    """The words the commands take (`panel on|off`: on, off), from their usage."""
    out, _ = cuk("-e", "help commands")
    usages = [re.split(r"\s{2,}", line.strip())[0] for line in out.splitlines()[1:]]
    return {w for u in usages for w in re.findall(r"[a-z]+", u.split(None, 1)[1] if " " in u else "")}


def sources(folders):
    return [path for folder in folders for path in folder_sources(folder)]


def masked(path):
    """The file with comments blanked and each run of adjacent string
    literals ("a" "b") replaced by @N@; the literals' texts by N."""
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    out, lits, i, n, after_lit = [], [], 0, len(text), False
    while i < n:
        c = text[i]
        if text.startswith("/*", i) or text.startswith("//", i):
            block = text[i + 1] == "*"
            end = text.find("*/" if block else "\n", i + 2)
            end = n if end < 0 else end + 2 if block else end  # not closed: to the end
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            if c == "'":
                out.append(text[i:j + 1])
            elif after_lit:  # "a" "b" is one string
                lits[-1] += text[i + 1:j]
            else:
                out.append("@%d@" % len(lits))
                lits.append(text[i + 1:j])
            after_lit = c == '"'
            i = j + 1
            continue
        out.append(c)
        after_lit = after_lit and c.isspace()
        i += 1
    return "".join(out), lits


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def args_of(text, open_paren):
    """The top-level arguments of the call whose '(' is at open_paren."""
    depth, start, args = 0, open_paren + 1, []
    for k in range(open_paren, len(text)):
        if text[k] in "([{":
            depth += 1
        elif text[k] in ")]}":
            depth -= 1
            if depth == 0:
                return args + [text[start:k].strip()]
        elif text[k] == "," and depth == 1:
            args.append(text[start:k].strip())
            start = k + 1
    return args


def comparisons(text):
    """(position, literal index) of every literal compared: an argument of a
    comparing call, or a side of == or !=."""
    for m in COMPARE_CALL.finditer(text):
        for a in args_of(text, m.end() - 1):
            if re.fullmatch(r"@\d+@", a):
                yield m.start(), int(a[1:-1])
    for m in re.finditer(r"@(\d+)@\s*[!=]=|[!=]=\s*@(\d+)@", text):
        yield m.start(), int(m.group(1) or m.group(2))


def csv_heading_spans(text):
    """Where the initializers of CSV headings (csv_head[] = {...}) lie."""
    for m in re.finditer(r"csv_head\w*\s*\[\]\s*=\s*\{", text):
        yield m.end(), text.index("}", m.end())


def file_format_key(text, pos):
    """A literal at pos that names a JSON member or a CSV column (a library's
    version in a saved bench file), not a mode."""
    if re.search(r"json_\w+\(\s*[\w.>-]+\s*,\s*$", text[:pos]):
        return True
    return any(a <= pos < b for a, b in csv_heading_spans(text))


def help_lists_every_mode(names):
    out, _ = cuk("-e", "help")
    words = set(re.findall(r"[\w]+", out))
    report("help_lists_every_mode", ["`help` does not name mode %s" % m for m in names if m not in words])


def literals(folders, tables):
    """For each source under folders but the tables: its path, its masked
    text, the (position, text) of each string in it, and the strings."""
    for path in sources(folders):
        if path not in tables:
            text, lits = masked(path)
            yield path, text, [(m.start(), lits[int(m.group(1))]) for m in re.finditer(r"@(\d+)@", text)], lits


def place(path, text, pos, what):
    return "%s:%d: %s" % (path, line_of(text, pos), what)


def mode_names_only_in_table(names):
    problems = [place(path, text, pos, '"%s"' % lit)
                for path, text, found, _ in literals(PROGRAM, (MODE_TABLE,))
                for pos, lit in found if lit in names and not file_format_key(text, pos)]
    report("mode_names_only_in_table", problems)


def switch_values_read_as_constants(values):
    """No statement that reads a switch (names VAR_SWITCH, or calls a
    variant_ function other than variant_set, which parses typed text)
    holds one of its values as a string."""
    problems = []
    for path, text, found, _ in literals(PROGRAM, (SWITCH_TABLE,)):
        for st in re.finditer(r"[^;{}]+", text):
            if re.search(r"\bVAR_[A-Z]+\b|\bvariant_(?!set\b)\w+\s*\(", st.group()):
                problems += [place(path, text, pos, '"%s"' % lit) for pos, lit in found
                             if st.start() <= pos < st.end() and lit in values]
    report("switch_values_read_as_constants", problems)


def no_comparison_with_names(names, values, words):
    problems = []
    for path, text, _, lits in literals(ALL, (MODE_TABLE, SWITCH_TABLE)):
        for pos, k in comparisons(text):
            if lits[k] in names or (lits[k] in values and lits[k] not in words):
                problems.append(place(path, text, pos, 'compares with "%s"' % lits[k]))
    report("no_comparison_with_names", problems)


def value_constants_match_table(table):
    """Each value's constant, VAR_SWITCH_VALUE, places it in its row of the
    table and is declared in the header in the table's order."""
    rows = open(os.path.join(ROOT, SWITCH_TABLE), encoding="utf-8").read()
    header = open(os.path.join(ROOT, "kernels/variants.h"), encoding="utf-8").read()
    problems = []
    for sw, values in table:
        consts = ["VAR_%s_%s" % (sw.upper(), v.upper()) for v in values]
        for c, v in zip(consts, values):
            if not re.search(r'\[%s\]\s*=\s*\{\s*"%s"' % (c, re.escape(v)), rows):
                problems.append('%s does not place "%s" in %s' % (c, v, SWITCH_TABLE))
        if not re.search(r"enum\s*\{\s*%s\s*\}" % r"\s*,\s*".join(consts), header):
            problems.append("kernels/variants.h lacks enum { %s }" % ", ".join(consts))
    report("value_constants_match_table", problems)


def bad_values_list_the_choices(table):
    """`set tile 12`, `set atile sideways` and a wrong value of every switch:
    an error that lists the values the table allows."""
    problems = []
    for sw, values in table:
        for bad in (["12", "sideways"] if sw in ("tile", "atile") else ["sideways"]):
            out, rc = cuk("-e", "set %s %s" % (sw, bad))
            allowed = values[0] if len(values) == 1 else ", ".join(values[:-1]) + " or " + values[-1]
            want = "error: set: %s can be %s, not '%s'" % (sw, allowed, bad)
            if rc != 1 or want not in out:
                problems.append("set %s %s: exit %d, %r" % (sw, bad, rc, out.strip()[:120]))
    report("bad_values_list_the_choices", problems)


def main():
    names, table = modes(), switches()
    values = {v for _, vs, _ in table for v in vs}
    kernels = kernel_switches(table, names)
    if not names or not kernels:
        report("names_read_from_the_binary", ["%s printed no modes or no switches" % CUK])
        return 1
    help_lists_every_mode(names)
    mode_names_only_in_table(names)
    switch_values_read_as_constants(values)
    no_comparison_with_names(names, values, command_words())
    value_constants_match_table(kernels)
    bad_values_list_the_choices([(sw, vs) for sw, vs, _ in table])
    return 0


if __name__ == "__main__":
    sys.exit(main())
