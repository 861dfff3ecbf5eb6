"""docs.py - the README stays a page a newcomer reads in five minutes, and
the documentation's links hold: README.md at most 250 lines, its sentences
short (median at most 20 words, none over 35), no table cell over 40 words,
the Debian packages .ci/run installs named in its set-up, every docs/ page
linked from it, and every relative link in README.md, ARCHITECTURE.md and
docs/ pointing at a file that exists. One PASS or FAIL line per check;
`--stats` also prints the figures."""
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_LINES, MAX_MEDIAN, MAX_SENTENCE, MAX_CELL = 250, 20, 35, 40


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def report(name, problems):
    if problems:
        print(f"FAIL {name}: " + "; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""))
    else:
        print(f"PASS {name}")
    return not problems


def outside_code(text):
    """The lines of a Markdown text outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def plain(text):
    """Inline code as one word, links as their text, HTML comments gone."""
    text = re.sub(r"`[^`]*`", "CODE", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"<!--.*?-->", "", text)


def prose_blocks(text):
    """Paragraphs and list items: prose, without headings and tables."""
    blocks, cur = [], []
    for line in outside_code(text):
        s = line.strip()
        starts_item = re.match(r"^([-*]|\d+\.)\s", s)
        if not s or s.startswith(("#", "|", "<!--")) or starts_item:
            if cur:
                blocks.append(" ".join(cur))
            cur = [re.sub(r"^([-*]|\d+\.)\s+", "", s)] if starts_item else []
        else:
            cur.append(s)
    if cur:
        blocks.append(" ".join(cur))
    return [plain(b) for b in blocks if b]


def words(text):
    return [w for w in text.split() if re.search(r"[A-Za-z0-9]", w)]


def sentences(text):
    out = []
    for block in prose_blocks(text):
        block = re.sub(r"\b(e\.g|i\.e|etc)\.", r"\1", block)
        out += [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(`\"']|CODE)", block) if words(s)]
    return out


def table_cells(text):
    cells = []
    for line in outside_code(text):
        s = line.strip()
        if s.startswith("|") and not re.match(r"^\|[\s:|-]+\|$", s):
            cells += [c.strip() for c in re.split(r"(?<!\\)\|", s.strip("|"))]
    return cells


def links(text):
    return re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)


def main():
    readme = read("README.md")
    ok = report("readme_lines", [f"{n} lines, want at most {MAX_LINES}"] if (n := len(readme.splitlines())) > MAX_LINES else [])

    lengths = [(len(words(s)), s) for s in sentences(readme)]
    median = statistics.median(n for n, _ in lengths) if lengths else 0
    long = [f"{n} words: '{s[:60]}...'" for n, s in lengths if n > MAX_SENTENCE]
    ok &= report("readme_sentence_median", [f"median {median} words, want at most {MAX_MEDIAN}"] if median > MAX_MEDIAN else [])
    ok &= report("readme_sentence_longest", long)

    cell_words = [(len(words(plain(c))), c) for c in table_cells(readme)]
    ok &= report("readme_table_cells", [f"{n} words: '{c[:50]}...'" for n, c in cell_words if n > MAX_CELL])
    if "--stats" in sys.argv:
        print(f"README.md: {len(readme.splitlines())} lines, {len(lengths)} sentences, median {median} words, "
              f"longest {max(lengths)[0] if lengths else 0}, widest table cell {max(cell_words)[0] if cell_words else 0} words")

    setup = readme.split("## Set-up", 1)[-1].split("\n## ", 1)[0]
    ci = re.search(r"packages=\(([^)]*)\)", read(".ci/run"))
    wanted = ["build-essential"] + (ci.group(1).split() if ci else ["(no packages=(...) in .ci/run)"])
    ok &= report("readme_packages", [f"set-up does not name {p}" for p in wanted if p not in setup])

    pages = sorted(f"docs/{p}" for p in os.listdir(os.path.join(ROOT, "docs")) if p.endswith(".md"))
    ok &= report("readme_links_docs", [f"README.md does not link {p}" for p in pages if p not in links(readme)])

    broken = []
    for path in ["README.md", "ARCHITECTURE.md"] + pages:
        for target in links(read(path)):
            if "://" in target:
                continue
            if not os.path.exists(os.path.join(ROOT, os.path.dirname(path), target)):
                broken.append(f"{path} links {target}, which does not exist")
    ok &= report("docs_links_resolve", broken)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
