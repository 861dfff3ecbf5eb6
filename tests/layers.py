#!/usr/bin/env python3
"""layers.py - the layering ARCHITECTURE.md promises, checked on the tree and
the built objects: base/ includes only base/; kernels/ nothing from engine/
or repl/; engine/ nothing from repl/; repl/ nothing from kernels/; no
include loop or call loop among the files of engine/ (calls read from the
objects' symbol tables with nm), nor among its rooms (its subfolders).
One PASS/FAIL line per rule.

usage: layers.py BUILD_DIR"""
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
FORBIDDEN = {"base": ("engine", "kernels", "repl"), "kernels": ("engine", "repl"),
             "engine": ("repl",), "repl": ("kernels",)}


def sources(folder):
    """Every .c, .h, .cu and .cuh under folder, its rooms (subfolders) included."""
    found = []
    for d, _, names in os.walk(os.path.join(ROOT, folder)):
        rel = os.path.relpath(d, ROOT)
        found += [os.path.join(rel, f) for f in names if re.search(r"\.(c|h|cu|cuh)$", f)]
    return sorted(found)


def includes(path):
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    return re.findall(r'^\s*#\s*include\s+"([a-z]+(?:/[a-z_]+)*/[A-Za-z0-9_]+\.(?:h|cuh))"', text, re.M)


def room(path):
    """engine/values/matrix.c -> values: the part of engine/ a file belongs to."""
    return path.split("/")[1]


def report(name, problems):
    if problems:
        print("FAIL %s: %s" % (name, "; ".join(problems[:6])))
    else:
        print("PASS %s" % name)


def find_cycle(graph):
    """A cycle in {node: set(nodes)} as a list, or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if not state.get(m):
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if not state.get(n):
            c = visit(n)
            if c:
                return c
    return None


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBR":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def main():
    for folder, banned in FORBIDDEN.items():
        bad = ["%s includes %s" % (f, i) for f in sources(folder) for i in includes(f) if i.split("/")[0] in banned]
        report("layers_%s_includes" % folder, bad)

    engine = [f for f in sources("engine")]
    graph = {}
    for f in engine:
        stem = os.path.splitext(f)[0]
        for i in includes(f):
            target = os.path.splitext(i)[0]
            if i.startswith("engine/") and target != stem:
                graph.setdefault(stem, set()).add(target)
    cycle = find_cycle(graph)
    report("layers_engine_no_include_loop", ["include loop " + " -> ".join(cycle)] if cycle else [])

    objs = {}
    for f in engine:
        if f.endswith(".c"):
            obj = os.path.join(BUILD, os.path.splitext(f)[0] + ".o")
            if not os.path.exists(obj):
                print("FAIL layers_engine_no_call_loop: %s is not built" % obj)
                return
            objs[os.path.splitext(f)[0]] = symbols(obj)
    owner = {s: stem for stem, (defined, _) in objs.items() for s in defined}
    calls = {stem: {owner[s] for s in used if s in owner and owner[s] != stem} for stem, (_, used) in objs.items()}
    cycle = find_cycle(calls)
    report("layers_engine_no_call_loop", ["call loop " + " -> ".join(cycle)] if cycle else [])

    # The rooms stack too: no loop among engine/'s folders, by includes or calls.
    rooms = lambda g: {room(a): {room(b) for b in bs if room(b) != room(a)} for a, bs in g.items()}
    merged = {}
    for g in (rooms(graph), rooms(calls)):
        for a, bs in g.items():
            merged.setdefault(a, set()).update(bs)
    cycle = find_cycle(merged)
    report("layers_engine_rooms_stack", ["room loop " + " -> ".join(cycle)] if cycle else [])


if __name__ == "__main__":
    main()
