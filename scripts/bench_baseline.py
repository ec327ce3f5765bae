#!/usr/bin/env python3
"""tairbench against an earlier tairbench, on make bench-client's rows.

Answers one question: did a change make tairbench's client cost more? It
runs tairbench's line of every closed-loop row of scripts/bench_client.py
(client CPU per command, and max RSS) and its open-loop lines (client CPU
per request at each rate: the send grid with constant and Poisson
arrivals, each request at its own start, a window) with two binaries
against one redis-server, interleaved (A B, then B A), and prints per row
the median of each and the paired ratio new ÷ base (median, and the
pairs' range). A ratio's range that holds 1.0 is within this machine's
noise. No bar: it informs a closing note, it gates nothing.

Usage: scripts/bench_baseline.py --bin bin/tairbench --base OLD-BINARY [--reps 5] [--rows set-p1,...]
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_client as bc  # noqa: E402  (the rows and the runner are bench-client's)

# The open-loop lines: (name, extra words); each at every rate.
OPEN_LINES = [
    ("grid", ["--send-grid", bc.OPEN_GRID]),
    ("grid, poisson", ["--send-grid", bc.OPEN_GRID, "--arrivals", "poisson"]),
    ("own start", []),
    (f"window {bc.OPEN_WINDOW}", ["-window", str(bc.OPEN_WINDOW)]),
]


def paired(server, cpu, lines, reps, name, n):
    """Runs each binary's argv (lines: {"new": mk, "base": mk}) reps times,
    interleaved; returns {tool: [(µs per command, max RSS MB)]}."""
    start = {t: bc.run_once(server, cpu, name, mk(1000))[2] for t, mk in lines.items()}
    out = {}
    for rep in range(reps):
        order = ["new", "base"] if rep % 2 == 0 else ["base", "new"]
        for t in order:
            cmds, secs, cpu_s, rss = bc.run_once(server, cpu, name, lines[t](n))
            us = max(cpu_s - start[t], 0) * 1e6 / max(cmds, 1)
            out.setdefault(t, []).append((us, rss))
            print(f"rep {rep + 1} {name:22s} {t:4s} {cmds:9d} cmds {cmds / secs:9.0f}/s {us:7.3f} µs CPU/cmd {rss:7.1f} MB",
                  file=sys.stderr)
    return out


def row(label, s, rss=False):
    """One table line: each binary's median µs/cmd and the paired ratio."""
    a, b = [x[0] for x in s["new"]], [x[0] for x in s["base"]]
    cells = [label, f"{statistics.median(a):.3f}", f"{statistics.median(b):.3f}", bc.spread(bc.pair_ratios(a, b))]
    if rss:
        ra, rb = [float(x[1]) for x in s["new"]], [float(x[1]) for x in s["base"]]
        cells.append(f"{statistics.median(ra):.0f} MB ÷ {statistics.median(rb):.0f} MB: {bc.spread(bc.pair_ratios(ra, rb))}")
    else:
        cells.append("")
    return "| " + " | ".join(cells) + " |"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(bc.ROOT, "bin", "tairbench"))
    ap.add_argument("--base", required=True, help="the earlier tairbench binary")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rows", default="", help="closed-loop rows (default all)")
    ap.add_argument("--open-rates", default="20000,50000,100000", help="open-loop rates; empty: none")
    args = ap.parse_args()
    two = (os.cpu_count() or 1) >= 2
    srv_cpu, cli_cpu = ("0", "1") if two else ("", "")
    new, base = bc.rows(os.path.abspath(args.bin)), bc.rows(os.path.abspath(args.base))
    wanted = [r for r in args.rows.split(",") if r]
    lines = []
    server = bc.Server(srv_cpu)
    try:
        for (name, desc, n, tools), (_, _, _, old) in zip(new, base):
            if wanted and name not in wanted:
                continue
            mk = {"new": lambda c, f=tools["tairbench"]: f(server.port, c), "base": lambda c, f=old["tairbench"]: f(server.port, c)}
            lines.append(row(desc, paired(server, cli_cpu, mk, args.reps, name, n), rss=name == "conns1000"))
    finally:
        server.stop()
    rates = [int(x) for x in args.open_rates.split(",") if x]
    if rates:
        server = bc.Server(srv_cpu, extra=("--enable-debug-command", "local"))
        server.cli("DEBUG", "POPULATE", str(bc.KEYS), "key", "64")
        try:
            for rate in rates:
                for label, extra in OPEN_LINES:
                    mk = {t: lambda c, b=b, rate=rate, extra=extra: bc.open_get(b, server.port, 50, c, rate, extra=extra)
                          for t, b in (("new", os.path.abspath(args.bin)), ("base", os.path.abspath(args.base)))}
                    s = paired(server, cli_cpu, mk, args.reps, f"open {rate} {label}", rate * bc.OPEN_SECONDS)
                    lines.append(row(f"GET --rate {rate}, {label}, 50 connections", s))
        finally:
            server.stop()
    print(f"tairbench ({bc.head_commit()}) against {args.base}, {time.strftime('%Y-%m-%d', time.gmtime())}, "
          f"{os.cpu_count()} cores: client CPU per command, medians of {args.reps} interleaved runs.")
    print()
    print("| make bench-client row | new µs/cmd | base µs/cmd | new ÷ base, paired (range) | max RSS, new ÷ base |")
    print("|---|---|---|---|---|")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
