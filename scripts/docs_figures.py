#!/usr/bin/env python3
"""Rewrites the measured figures in README.md and docs/*.md from the last
run of the make targets that measure them.

A measured block sits between markers that name its target:

    <!-- figures: make bench-serve -->
    …
    <!-- /figures -->

Each `make bench-*` target that feeds the docs tees its report (standard
output) into .cache/figures/TARGET.md, with a first line that names the
command, the commit and the date. This script puts that file between the
target's markers, as it is (a report with a Markdown table) or in a code
block (a tool's plain-text report). Targets with no file are left as they are, and
said so.

Usage: scripts/docs_figures.py [TARGET ...]   (default: every target found)
"""

import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIGURES = os.path.join(ROOT, ".cache", "figures")
BLOCK = re.compile(r"(<!-- figures: make ([a-z0-9-]+) -->\n)(.*?)(<!-- /figures -->)", re.S)


def render(path):
    """The block's new content: the stamp line, then the report."""
    with open(path, encoding="utf-8") as f:
        stamp, _, report = f.read().partition("\n")
    report = report.strip("\n")
    if not any(line.startswith("|") for line in report.splitlines()):
        report = "```\n" + report + "\n```"
    return stamp + "\n\n" + report + "\n"


def main():
    wanted = set(sys.argv[1:])
    files = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    seen, missing = set(), set()
    for doc in files:
        with open(doc, encoding="utf-8") as f:
            text = f.read()

        def replace(m):
            target = m.group(2)
            seen.add(target)
            src = os.path.join(FIGURES, target + ".md")
            if (wanted and target not in wanted) or not os.path.exists(src):
                if not wanted or target in wanted:
                    missing.add(target)
                return m.group(0)
            return m.group(1) + render(src) + m.group(4)

        new = BLOCK.sub(replace, text)
        if new != text:
            with open(doc, "w", encoding="utf-8") as f:
                f.write(new)
            print(f"rewrote {os.path.relpath(doc, ROOT)}")
    for target in sorted(missing):
        print(f"left as it was: no .cache/figures/{target}.md (run make {target})", file=sys.stderr)
    unknown = wanted - seen
    if unknown:
        raise SystemExit(f"no figures block names: {', '.join(sorted(unknown))}")


if __name__ == "__main__":
    main()
