#!/usr/bin/env python3
"""Checks Go benchmark output (stdin) against bars given as NAME=LIMIT
(LIMIT in ns, us, ms or s): prints each benchmark's median time per
operation over its -count runs beside its bar, and exits 1 when one
misses its bar or is absent."""
import re
import statistics
import sys

UNITS = {"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}


def parse_limit(text):
    m = re.fullmatch(r"([0-9.]+)\s*(ns|us|µs|ms|s)", text)
    if not m:
        sys.exit(f"bench_bars: bar {text!r}: want a number and ns, us, ms or s")
    return float(m.group(1)) * UNITS[m.group(2)]


def main():
    bars = {}
    for arg in sys.argv[1:]:
        name, _, limit = arg.partition("=")
        bars[name] = (limit, parse_limit(limit))
    times = {}
    for line in sys.stdin:
        m = re.match(r"Benchmark(\S+?)(-\d+)?\s+\d+\s+([0-9.]+) ns/op", line)
        if m:
            times.setdefault(m.group(1), []).append(float(m.group(3)))
    missed = 0
    print("| benchmark | median per operation | runs | bar | |")
    print("|---|---:|---:|---:|---|")
    for name, (text, limit) in bars.items():
        got = times.get(name)
        if not got:
            print(f"| {name} | (not run) | 0 | {text} | MISSED |")
            missed += 1
            continue
        med = statistics.median(got)
        ok = med < limit
        missed += not ok
        print(f"| {name} | {med / 1e6:.1f} ms | {len(got)} | {text} | {'met' if ok else 'MISSED'} |")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
