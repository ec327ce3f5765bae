#!/usr/bin/env python3
"""Embedded server against redis-server: TR.GETBIT on `tairbench serve`
against GETBIT on redis-server, same client (tairbench), connections and
duration, server pinned to core 0 and client to core 1 when there are two.

The servers take turns (each repetition runs one, then the other, the order
alternating), every repetition reloads its server, and the verdict is the
median over repetitions of the paired ratio embedded ÷ redis-server, with
the spread (min–max) printed beside it. Bar (issue #14): the median ratio is
at least 1.0 at -P 1 and at -P 16; the exit status is 1 when it is not.

Usage: scripts/bench_serve.py [--bin bin/tairbench] [--reps 3] [--duration 10]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_client import Server, free_port, pinned  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIPELINES = (1, 16)


class Embedded:
    """tairbench serve on a free port, pinned like redis-server."""

    def __init__(self, bin_path, cpu):
        self.port = free_port()
        self.proc = subprocess.Popen(pinned(cpu, [bin_path, "serve", "--port", str(self.port)]),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            r = subprocess.run(["redis-cli", "-p", str(self.port), "PING"], capture_output=True, text=True)
            if r.stdout.strip() == "PONG":
                return
            time.sleep(0.05)
        raise SystemExit("tairbench serve did not start")

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def qps(bin_path, cpu, port, cmd, pipeline, duration, conns):
    """One run's commands per second."""
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run(pinned(cpu, [bin_path, "redis", "-port", str(port), "-p", str(conns), "-d", str(duration),
                                    "-r", "10000000", "-P", str(pipeline), "-q", "--no-server-stats",
                                    "--command", cmd, "--json", f.name]),
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return json.load(open(f.name))["totals"]["ops_per_sec"]


def measure(kind, bin_path, srv_cpu, cli_cpu, duration, conns):
    """Starts one server, loads 200,000 random bits into one key, runs each pipeline."""
    if kind == "redis":
        server, cmd, load = Server(srv_cpu), "GETBIT foo __RAND__", "SETBIT foo __RAND__ 1"
    else:
        server, cmd, load = Embedded(bin_path, srv_cpu), "TR.GETBIT foo __RAND__", "TR.SETBIT foo __RAND__ 1"
    try:
        subprocess.run([bin_path, "redis", "-port", str(server.port), "-p", "8", "-c", "200000", "-r", "10000000",
                        "-P", "64", "-q", "--no-server-stats", "--command", load],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return {p: qps(bin_path, cli_cpu, server.port, cmd, p, duration, conns) for p in PIPELINES}
    finally:
        server.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "bin", "tairbench"))
    ap.add_argument("--reps", type=int, default=3, help="repetitions (at least 3)")
    ap.add_argument("--duration", type=float, default=10, help="seconds per run")
    ap.add_argument("--conns", type=int, default=50)
    args = ap.parse_args()
    if args.reps < 3:
        raise SystemExit("--reps must be at least 3: a verdict needs a median")
    bin_path = os.path.abspath(args.bin)
    srv_cpu, cli_cpu = ("0", "1") if (os.cpu_count() or 1) >= 2 else ("", "")
    runs = {"redis": [], "embedded": []}
    for rep in range(args.reps):
        order = ["redis", "embedded"] if rep % 2 == 0 else ["embedded", "redis"]
        for kind in order:
            r = measure(kind, bin_path, srv_cpu, cli_cpu, args.duration, args.conns)
            runs[kind].append(r)
            print(f"rep {rep + 1} {kind:9s} " + "  ".join(f"-P {p}: {r[p]:10.0f}/s" for p in PIPELINES), file=sys.stderr)
    ver = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout.split()
    print(f"Embedded TR.GETBIT against redis-server {ver[2].split('=')[1] if len(ver) > 2 else '?'} GETBIT: "
          f"{args.conns} connections, {args.duration:g} s runs, {args.reps} interleaved repetitions, "
          f"server on core 0 and client on core 1 ({os.cpu_count()} cores); medians, with min–max")
    print()
    print("| pipeline | redis-server commands/s | embedded commands/s | embedded ÷ redis (paired) | verdict (bar 1.00) |")
    print("|---|---|---|---|---|")
    failed = 0
    for p in PIPELINES:
        red = [r[p] for r in runs["redis"]]
        emb = [r[p] for r in runs["embedded"]]
        ratios = [e / r for e, r in zip(emb, red)]
        med = statistics.median(ratios)
        verdict = "PASS" if med >= 1.0 else "FAIL"
        failed |= med < 1.0
        print(f"| -P {p} | {statistics.median(red):,.0f} ({min(red):,.0f}–{max(red):,.0f}) "
              f"| {statistics.median(emb):,.0f} ({min(emb):,.0f}–{max(emb):,.0f}) "
              f"| {med:.2f} ({min(ratios):.2f}–{max(ratios):.2f}) | {verdict} |")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
