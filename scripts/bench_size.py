#!/usr/bin/env python3
"""The binary's size and start-up memory against an earlier commit's:
each binary's size in bytes and the peak resident memory of `tairbench
version` as GNU time reports it (%M), run REPS times in turn (new, base,
new, base, ...), medians. Informs; gates nothing. (Python's own fork
would count its memory in the child's peak: GNU time's is small.)

Usage: bench_size.py --bin NEW --base BASE --base-name COMMIT [--reps N]
"""
import argparse
import os
import statistics
import subprocess


def peak_kib(binary):
    p = subprocess.run(["/usr/bin/time", "-f", "%M", binary, "version"], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"bench_size: {binary} version exited {p.returncode}: {p.stderr.strip()}")
    return int(p.stderr.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--base", required=True)
    ap.add_argument("--base-name", required=True)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    peaks = {a.bin: [], a.base: []}
    for _ in range(a.reps):
        for b in (a.bin, a.base):
            peaks[b].append(peak_kib(b))
    rows = [(a.base_name, a.base), ("this commit", a.bin)]
    print(f"| binary (-trimpath -s -w) | size | peak memory of `tairbench version` (median of {a.reps}) |")
    print("|---|---:|---:|")
    for name, b in rows:
        print(f"| {name} | {os.path.getsize(b) / 1e6:.1f} MB | {statistics.median(peaks[b]):,.0f} KiB |")
    size = os.path.getsize(a.bin) / os.path.getsize(a.base)
    mem = statistics.median(peaks[a.bin]) / statistics.median(peaks[a.base])
    print(f"\nthis commit ÷ {a.base_name}: size {size:.2f}, start-up memory {mem:.2f}")


if __name__ == "__main__":
    main()
