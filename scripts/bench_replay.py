#!/usr/bin/env python3
"""Capture, fit and replay on this machine, with redis-server on core 0 and
tairbench on core 1 (when there are two).

1. A known workload (70 % GETs of 1,000 carts by Zipf 0.99, 20 % SETs of 500
   sessions uniformly with values of 100-300 bytes and TTLs of 60-600 s, 10 %
   SETs of log entries in sequence; 5,000 commands/s on 8 connections) runs
   against one redis-server while `tairbench capture` records it through
   MONITOR: what MONITOR cost the server, and what `tairbench fit` finds.
2. The trace replayed to a second redis-server at speed 1 and 2: the rate,
   the share of commands sent on schedule (within 1 ms), p99 from the
   intended start. Bar: at least 99 % on schedule at speed 2.
3. A 20,000 commands/s trace on 50 connections replayed at speed 5 (100,000
   commands/s) against `tairbench redis` at the same rate on the send grid,
   in turns (replay, grid, replay, grid, ...): the client's CPU per command,
   the median of the paired ratios. Bars: the replay sends at least 99 % of
   its 100,000/s, at a CPU per command at most 1.5x the grid's.
4. A one-hour trace of 100,000,000 commands written and read back from disk
   (BenchmarkStreamHour): the reader's peak heap. Bar: at most 64 MB.
5. A bitmap workload (SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP on 200 keys of
   100,000 bits, and plain GETs) captured, then replayed with --translate
   bitmaps=tairroaring: Redis bitmaps on redis-server beside TairRoaring on
   the embedded server (not Tair). Bar: every sampled answer agrees.

Prints a Markdown report; exits 1 when a bar is missed.

Usage: scripts/bench_replay.py [--bin bin/tairbench] [--reps 3]
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_client import Server, pinned  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, ".cache", "replay")

# The known workload, as TestRoundTrip runs it.
KNOWN = os.path.join(ROOT, "internal", "frontend", "replay", "testdata", "known.yaml")

MONITOR_LINE = re.compile(r"server before MONITOR: (\d+) commands/s, ([\d.]+) cores; during: (\d+) commands/s, "
                          r"([\d.]+) cores \(CPU per command ([+-]\d+) %\)")


def stamp():
    """The commit and date each table names."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    return f"(commit {commit or 'unknown'}, {time.strftime('%Y-%m-%d', time.gmtime())})"


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def capture_while(bin_path, cli, port, workload, seconds, rate, out):
    """Runs the workload at rate (a multiple) for seconds while capturing it;
    returns capture's stderr and stdout."""
    load = subprocess.Popen(pinned(cli, [bin_path, "redis", "-port", str(port), "--workload", workload, "--rate", rate,
                                         "-d", str(seconds + 2), "-q", "--no-server-stats", "--arrivals", "poisson"]),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    cap = run(pinned(cli, [bin_path, "capture", "-port", str(port), "-d", str(seconds), "-o", out, "--max-overhead", "0"]))
    load.wait()
    if cap.returncode != 0:
        raise SystemExit("capture failed: " + cap.stderr)
    return cap.stderr, cap.stdout


def replay(bin_path, cli, port, trace, speed, prefix):
    """One replay's result (JSON)."""
    out = os.path.join(WORK, "replay.json")
    r = run(pinned(cli, [bin_path, "replay", trace, "-port", str(port), "--speed", str(speed), "--key-prefix", prefix,
                         "-q", "--no-server-stats", "--json", out]))
    if r.returncode != 0:
        raise SystemExit("replay failed: " + r.stderr)
    return json.load(open(out))


def grid(bin_path, cli, port, rate, conns, seconds):
    """tairbench redis open loop on the send grid at rate: its result (JSON)."""
    out = os.path.join(WORK, "grid.json")
    r = run(pinned(cli, [bin_path, "redis", "-port", str(port), "-p", str(conns), "--rate", str(rate), "--send-grid", "250us",
                         "-d", str(seconds), "-r", "100000", "-q", "--no-server-stats", "--json", out,
                         "--command", "GET k-__RAND__"]))
    if r.returncode != 0:
        raise SystemExit("tairbench redis failed: " + r.stderr)
    return json.load(open(out))


def on_schedule(res):
    sc = res["totals"]["schedule"]
    return (sc["sent"] - sc["behind"] - sc["client_lags"]) / max(sc["sent"], 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "bin", "tairbench"))
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    two = os.cpu_count() >= 2
    srv_cpu, cli = ("0", "1") if two else (None, None)
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    known = KNOWN
    src, dst = Server(srv_cpu), Server(srv_cpu)
    failed = []
    try:
        trace = os.path.join(WORK, "known.tbt")
        err, _ = capture_while(a.bin, cli, src.port, known, 6, "1x", trace)
        m = MONITOR_LINE.search(err)
        print(f"MONITOR's cost to redis-server under the known workload (5,000 commands/s, 8 connections) {stamp()}:\n")
        print("| commands/s before | during | cores before | during | CPU per command |")
        print("|---:|---:|---:|---:|---:|")
        print(f"| {m.group(1)} | {m.group(3)} | {m.group(2)} | {m.group(4)} | {m.group(5)} % |" if m else "| ? | ? | ? | ? | ? |")
        fitted = os.path.join(WORK, "fitted.yaml")
        f = run([a.bin, "fit", trace, "-o", fitted])
        print("\n`tairbench fit` of that trace (the workload's truth: Zipf 0.99, uniform, sequential; 70/20/10;"
              f" values 100-300 B; TTLs 60-600 s) {stamp()}:\n")
        print("| pattern | share | keys | popularity | mix |")
        print("|---|---:|---:|---|---|")
        for line in f.stdout.splitlines():
            cols = re.split(r"\s{2,}", line.strip())
            if len(cols) >= 5 and "{" in cols[0]:
                print("| " + " | ".join(cols[:5]) + " |")
            elif line.startswith(" ") and ("values" in line or "TTLs" in line):
                print("| | | | " + line.strip() + " | |")
        ops = open(fitted).read().split("\nfitted:")[0]
        ops = ops[ops.index("format:"):]
        print(f"\nThe fitted file's operations (what `tairbench redis --workload` runs) {stamp()}:\n")
        print("```yaml\n" + ops.rstrip() + "\n```")
        print(f"\nReplayed to a second redis-server {stamp()}:\n")
        print("| speed | asked/s | sent/s | on schedule (1 ms) | p99 from the intended start | bar |")
        print("|---:|---:|---:|---:|---:|---|")
        for speed in (1, 2):
            res = replay(a.bin, cli, dst.port, trace, speed, f"s{speed}:")
            sc, share = res["totals"]["schedule"], on_schedule(res)
            ok = speed != 2 or share >= 0.99
            if not ok:
                failed.append(f"speed 2: {100 * share:.2f} % on schedule, below 99 %")
            p99 = res["totals"]["latency_corrected_us"]["p99"] / 1000
            print(f"| {speed} | {sc['rate']:.0f} | {sc['achieved_rate']:.0f} | {100 * share:.2f} % | {p99:.3f} ms | "
                  f"{'met' if ok else 'MISSED'}{' (≥ 99 %)' if speed == 2 else ''} |")
        failed += fast(a, cli, src, dst)
        failed += hour()
        failed += translated(a, cli, src)
    finally:
        src.stop()
        dst.stop()
    if failed:
        print("\nmissed: " + "; ".join(failed))
        sys.exit(1)


def fast(a, cli, src, dst):
    """The 100,000 commands/s replay against the grid, in turns."""
    trace = os.path.join(WORK, "fast.tbt")
    src.cli("FLUSHALL")
    wl = os.path.join(WORK, "fast.yaml")
    open(wl, "w").write("format: tairbench.workload/v1\nrate: 20000\nconnections: 50\noperations:\n"
                        "  - {name: get, command: GET k-__RAND__, weight: 1, ranges: {1: {size: 100000}}}\n")
    capture_while(a.bin, cli, src.port, wl, 10, "1x", trace)
    rows, ratios, failed = [], [], []
    for i in range(a.reps):
        r = replay(a.bin, cli, dst.port, trace, 5, f"f{i}:")
        g = grid(a.bin, cli, dst.port, 100000, 50, 2)
        ratios.append(r["client"]["cpu_per_op_us"] / g["client"]["cpu_per_op_us"])
        rows.append((r, g))
    print("\nA 20,000 commands/s capture (50 connections) replayed at speed 5, in turns with `tairbench redis`"
          f" at the same rate on a 250 µs send grid (client on one core) {stamp()}:\n")
    print("| run | replay sent/s | replay CPU/command | grid sent/s | grid CPU/command | ratio |")
    print("|---:|---:|---:|---:|---:|---:|")
    for i, ((r, g), x) in enumerate(zip(rows, ratios)):
        print(f"| {i + 1} | {r['totals']['schedule']['achieved_rate']:.0f} | {r['client']['cpu_per_op_us']:.2f} µs | "
              f"{g['totals']['schedule']['achieved_rate']:.0f} | {g['client']['cpu_per_op_us']:.2f} µs | {x:.2f} |")
    med = statistics.median(ratios)
    sent = statistics.median(r["totals"]["schedule"]["achieved_rate"] / r["totals"]["schedule"]["rate"] for r, _ in rows)
    print(f"\nmedian ratio {med:.2f} (bar ≤ 1.5: {'met' if med <= 1.5 else 'MISSED'}); replay sent {100 * sent:.1f} %"
          f" of its rate (bar ≥ 99 %: {'met' if sent >= 0.99 else 'MISSED'})")
    if med > 1.5:
        failed.append(f"CPU per command {med:.2f}x the grid's, above 1.5x")
    if sent < 0.99:
        failed.append(f"the replay sent {100 * sent:.1f} % of its rate")
    return failed


def hour():
    """BenchmarkStreamHour: a one-hour trace of 100,000,000 commands read
    back from disk, and the reader's peak heap."""
    r = run(["go", "test", "-run", "^$", "-bench", "StreamHour$", "-benchtime", "1x", "./internal/trace"], cwd=ROOT)
    m = re.search(r"BenchmarkStreamHour\S*\s+\d+\s+\d+ ns/op\s+(?P<metrics>.*)", r.stdout)
    if r.returncode != 0 or not m:
        return ["BenchmarkStreamHour did not run: " + (r.stderr or r.stdout)[-300:]]
    got = {unit: float(v) for v, unit in re.findall(r"([0-9.]+) (\S+)", m.group("metrics"))}
    peak = got.get("peak-heap-MB", float("inf"))
    print(f"\nA one-hour trace of 100,000,000 commands (1,000 connections, 1,000,000 keys) written and read back from"
          f" disk, BenchmarkStreamHour {stamp()}:\n")
    print("| file | read | reader's peak heap | bar |")
    print("|---:|---:|---:|---|")
    print(f"| {got.get('file-MB', 0):.0f} MB | {got.get('records/s', 0) / 1e6:.2f} M records/s | {peak:.1f} MB | "
          f"{'met' if peak <= 64 else 'MISSED'} (≤ 64 MB) |")
    return [] if peak <= 64 else [f"the reader's peak heap {peak:.1f} MB, above 64 MB"]


BITMAPS = """format: tairbench.workload/v1
rate: 3000
connections: 4
operations:
  - {name: setbit, command: "SETBIT user:__RAND{k}__:days __RAND2__ 1", weight: 3, ranges: {1: {size: 200, dist: zipf, theta: 0.9}, 2: {size: 100000}}}
  - {name: getbit, command: "GETBIT user:__RAND{k}__:days __RAND2__", weight: 5, ranges: {1: {size: 200, dist: zipf, theta: 0.9}, 2: {size: 100000}}}
  - {name: bitcount, command: "BITCOUNT user:__RAND{k}__:days", weight: 1, ranges: {1: {size: 200}}}
  - {name: bitpos, command: "BITPOS user:__RAND{k}__:days 1", weight: 1, ranges: {1: {size: 200}}}
  - {name: bitop, command: "BITOP OR user:__RAND{k}__:days user:__RAND{a}__:days user:__RAND{b}__:days", weight: 1, ranges: {1: {size: 200}}}
  - {name: get, command: "GET plain:__RAND{k}__", weight: 2, ranges: {1: {size: 100}}}
"""


def translated(a, cli, src):
    """A bitmap workload captured, then replayed as it was on redis-server
    and translated on the embedded server."""
    wl, trace = os.path.join(WORK, "bitmaps.yaml"), os.path.join(WORK, "bitmaps.tbt")
    open(wl, "w").write(BITMAPS)
    src.cli("FLUSHALL")
    capture_while(a.bin, cli, src.port, wl, 10, "1x", trace)
    out = os.path.join(WORK, "translated.json")
    r = run(pinned(cli, [a.bin, "replay", trace, "--embedded", "--redis", f"127.0.0.1:{src.port}", "--translate",
                         "bitmaps=tairroaring", "-q", "--json", out]))
    doc = json.load(open(out)) if os.path.exists(out) else None
    if doc is None:
        return ["the translated replay did not run: " + r.stderr[-300:]]
    table = r.stdout[r.stdout.index(os.path.basename(trace) + ", replayed"):] if ", replayed" in r.stdout else r.stdout
    print(f"\nA bitmap workload's capture (3,000 commands/s, 10 s) replayed as it was on redis-server and translated to"
          f" TairRoaring on the embedded server (not Tair), `replay --translate bitmaps=tairroaring` {stamp()}:\n")
    print("```\n" + table.rstrip() + "\n```")
    ag = doc["agreement"]
    return [] if ag["agreed"] == ag["commands"] and ag["commands"] > 0 else [
        f"{ag['commands'] - ag['agreed']} of {ag['commands']} sampled answers differ"]


if __name__ == "__main__":
    main()
