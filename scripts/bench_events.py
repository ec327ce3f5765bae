#!/usr/bin/env python3
"""Events inside runs on this machine: redis-servers (and Sentinels) started
here, tairbench pinned to core 1 when there are two.

1. A Sentinel failover repeated 5 times under 20,000 writes/s open loop on 20
   connections, each write an INCR of the write ledger with WAIT 1, then
   without WAIT: per cycle the stretch with no reply, the time to recover, p99
   inside; the ledger. Bar: with WAIT 1, no acknowledged write lost (without,
   what is lost is reported).
2. A reshard of 1,000 slots between two of a 3-shard cluster's primaries under
   20,000 SETs/s: the MOVED and ASK replies followed, the keys moved, errors.
   Bar: no error and no lost request.
3. The persistence suite (tairbench suite persistence): persistence off, AOF
   everysec and always, a BGSAVE and an AOF rewrite in mid-run.
4. 50,000 SETs/s on one client core (taskset) with a BGSAVE in mid-run: the
   share of requests sent on schedule outside the event's window (its issue to
   its recovery). Bar: at least 99 %.

Prints a Markdown report; exits 1 when a bar is missed.

Usage: scripts/bench_events.py [--bin bin/tairbench] [--cycles 5]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_client import Server, pinned  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, ".cache", "events")


def stamp():
    """The commit and date each table names."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    return f"(commit {commit or 'unknown'}, {time.strftime('%Y-%m-%d', time.gmtime())})"


def run(argv, check=True):
    r = subprocess.run(argv, capture_output=True, text=True)
    if check and r.returncode not in (0, 3, 99):
        sys.exit(f"{' '.join(argv)} failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r


def topology(tb, kind, *extra, name=None):
    d = os.path.join(WORK, name or kind)
    run([tb, "topology", "down", "--dir", d], check=False)
    run([tb, "topology", "up", kind, "--dir", d] + list(extra))
    with open(os.path.join(d, "topology.json")) as f:
        return d, json.load(f)


def by_class(window):
    """A window's errors by class, most first."""
    kinds = sorted(window["errors_by_class"].items(), key=lambda kv: (-kv[1], kv[0]))
    return "(" + ", ".join(f"{k} {n}" for k, n in kinds) + ")"


def ms(us):
    return "—" if us is None else f"{us / 1000:.3f}"


def failover(tb, cpu, cycles, wait):
    d, topo = topology(tb, "sentinel", name=f"sentinel-wait{wait}")  # its logs kept apart
    try:
        sentinels = [n["addr"] for n in topo["nodes"] if n["role"] == "sentinel"]
        out = os.path.join(WORK, f"failover-wait{wait}.json")
        words = ["-p", "20", "-d", str(10 + 20 * cycles), "--rate", "20000", "--verify-writes", "--wait-replicas", str(wait),
                 "--event", "at=10s failover", "--cycles", str(cycles), "--every", "20s", "--threshold", "lost_writes<1000000000"]
        argv = [tb, "redis", "--master-name", "mymaster"] + [w for s in sentinels for w in ("--sentinel", s)] + words + \
            ["--allow-errors", "--json", out, "-q"]
        run(pinned(cpu, argv))
        with open(out) as f:
            r = json.load(f)
    finally:
        run([tb, "topology", "down", "--dir", d], check=False)
    shown = "tairbench redis --sentinel S1 --sentinel S2 --sentinel S3 --master-name mymaster " + " ".join(
        f"'{w}'" if " " in w else w for w in words)
    how = "WAIT 1 after each" if wait else "no WAIT: acknowledged by the primary alone"
    print(f"### Sentinel failover, {cycles} cycles, under 20,000 writes/s ({how}) {stamp()}\n")
    print(f"`{shown}` against `tairbench topology up sentinel` (redis-server {r['config']['target']['server']['version']}, not Tair)\n")
    print("| cycle | issued s | done s | no reply ms | recovered s | p99 before ms | p99 inside ms | max inside ms | errors inside |")
    print("|---|---|---|---|---|---|---|---|---|")
    for e in r["events"]["events"]:
        sc = e.get("score") or {}
        ins, bef = sc.get("inside", {}), sc.get("before", {})
        rec = sc.get("recovered_s")
        print(f"| {e.get('cycle', 0)} | {e['issued_s']:.3f} | {e['completed_s'] if e['completed_s'] is not None else '—'} | "
              f"{sc.get('no_reply_ms', 0):.0f} | {'—' if rec is None else rec} | {ms(bef.get('p99_us'))} | {ms(ins.get('p99_us'))} | "
              f"{ms(ins.get('max_us'))} | {ins.get('errors', 0) + ins.get('connect_failures', 0)}{' ' + by_class(ins) if ins.get('errors_by_class') else ''} |")
    for c in r["events"].get("cycles", []):
        u = c["no_reply_ms"]
        print(f"\nOver {c['cycles']} cycles, no reply min / median / max: {u['min']:.0f} / {u['median']:.0f} / {u['max']:.0f} ms.")
    led = r["ledger"]
    print(f"\nWrite ledger: {led['sent']} writes, {led['acknowledged']} acknowledged ({'primary and 1 replica' if wait else 'primary'}), "
          f"{led['unacknowledged']} unacknowledged, {led['refused']} refused; read back: {led['lost_acknowledged']} acknowledged "
          f"writes lost, {led['unacknowledged_applied']} unacknowledged applied, {led['applied_twice']} applied twice.\n")
    if not wait:  # what Redis loses without WAIT is reported, not held to a bar
        return not led.get("read_error")
    return led["lost_acknowledged"] == 0 and not led.get("read_error")


def reshard(tb, cpu):
    d, topo = topology(tb, "cluster", "--shards", "3", "--replicas", "0")
    try:
        masters = [n["addr"] for n in topo["nodes"]]
        out = os.path.join(WORK, "reshard.json")
        argv = [tb, "redis", "--cluster", "-h", masters[0], "-p", "16", "-d", "30", "--rate", "20000", "-r", "1000000",
                "-command", "SET k-__RAND__ __DATA__", "--event", f"at=5s reshard 1000 slots from {masters[0]} to {masters[1]}",
                "--json", out, "-q"]
        run(pinned(cpu, argv))
        with open(out) as f:
            r = json.load(f)
    finally:
        run([tb, "topology", "down", "--dir", d], check=False)
    e = r["events"]["events"][0]
    sc, cl = e.get("score") or {}, r.get("cluster") or {}
    print(f"### A reshard of 1,000 slots under 20,000 SETs/s {stamp()}\n")
    print("`tairbench redis --cluster -h A -p 16 -d 30 --rate 20000 -r 1000000 -command 'SET k-__RAND__ __DATA__' "
          "--event 'at=5s reshard 1000 slots from A to B'` against `tairbench topology up cluster --shards 3 --replicas 0` (not Tair)\n")
    print("| slots | keys moved | took s | MOVED followed | ASK followed | no reply ms | p99 before ms | p99 inside ms | errors | lost |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    took = (e["completed_s"] - e["issued_s"]) if e.get("completed_s") is not None else None
    lost = r["totals"].get("lost_ops", 0)
    print(f"| {e['signals'].get('slots_moved')} | {e['signals'].get('keys_moved')} | {'—' if took is None else f'{took:.1f}'} | "
          f"{cl.get('moved', 0)} | {cl.get('asked', 0)} | {sc.get('no_reply_ms', 0):.0f} | {ms(sc.get('before', {}).get('p99_us'))} | "
          f"{ms(sc.get('inside', {}).get('p99_us'))} | {r['totals']['errors']} | {lost} |\n")
    return e.get("completed_s") is not None and r["totals"]["errors"] == 0 and lost == 0


def persistence(tb, cpu):
    out = os.path.join(WORK, "persistence.json")
    argv = [tb, "suite", "persistence", "--json", out]
    r = run(pinned(cpu, argv))
    print(f"### The persistence suite {stamp()}\n")
    print("`tairbench suite persistence` (1,000,000 keys of 256 bytes, each case 20 s at half the capacity measured first)\n")
    print("```")
    print(r.stdout.split("\npersistence off:\n")[0].rstrip())
    print("```\n")
    return True


def one_core(tb, cpu):
    srv = Server("0" if cpu else None, ["--enable-debug-command", "yes"])
    try:
        srv.cli("DEBUG", "POPULATE", "1000000", "key", "128")
        out = os.path.join(WORK, "onecore.json")
        argv = [tb, "redis", "-h", "127.0.0.1", "-port", str(srv.port), "-p", "50", "-d", "20", "--rate", "50000", "-r", "1000000",
                "-command", "SET key:__RAND__ __DATA__", "--data-size", "128", "--event", "at=10s bgsave", "--json", out, "-q"]
        run(pinned(cpu, argv))
        with open(out) as f:
            r = json.load(f)
    finally:
        srv.proc.kill()
        srv.proc.wait()
        shutil.rmtree(srv.dir, ignore_errors=True)
    sc = r["totals"]["schedule"]
    e = r["events"]["events"][0]
    ins = (e.get("score") or {}).get("inside", {})
    window = range(ins.get("from_s", 0), ins.get("to_s", 0))
    outside = [iv for iv in r["series"] if iv["second"] not in window and not iv.get("span_s")]
    reqs = sum(iv["requests"] for iv in outside)
    on = 1 - sum(iv.get("behind", 0) for iv in outside) / max(reqs, 1)
    whole = 1 - sc["behind"] / max(sc["sent"], 1)
    print(f"### 50,000 SETs/s from one client core, a BGSAVE in mid-run {stamp()}\n")
    print("`taskset -c 1 tairbench redis -p 50 -d 20 --rate 50000 -command 'SET key:__RAND__ __DATA__' --data-size 128 "
          "--event 'at=10s bgsave'` against a redis-server on core 0 holding 1,000,000 keys\n")
    print("| sent/s | on schedule outside the event's window | whole run | event window s | fork ms | p99 before ms | p99 inside ms | bar |")
    print("|---|---|---|---|---|---|---|---|")
    fork = e.get("signals", {}).get("latest_fork_usec")
    scr = e.get("score") or {}
    ok = on >= 0.99
    print(f"| {sc['achieved_rate']:.0f} | {100 * on:.2f} % | {100 * whole:.2f} % | {ins.get('from_s')}–{ins.get('to_s')} | "
          f"{'—' if fork is None else f'{int(fork) / 1000:.1f}'} | "
          f"{ms(scr.get('before', {}).get('p99_us'))} | {ms(scr.get('inside', {}).get('p99_us'))} | "
          f"{'met' if ok else 'MISSED'}: ≥ 99 % |\n")
    print("On schedule: requests that did not start behind their intended start (the series' per-second `behind`), "
          "in the whole seconds outside the event's window (its issue to its recovery).\n")
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "bin", "tairbench"))
    ap.add_argument("--cycles", type=int, default=5)
    a = ap.parse_args()
    os.makedirs(WORK, exist_ok=True)
    cpu = "1" if os.cpu_count() and os.cpu_count() > 1 else None
    print("## make bench-events\n")
    results = {
        "failover with WAIT 1": failover(a.bin, cpu, a.cycles, 1),
        "failover without WAIT": failover(a.bin, cpu, a.cycles, 0),
        "reshard": reshard(a.bin, cpu),
        "persistence": persistence(a.bin, cpu),
        "one core at 50,000/s": one_core(a.bin, cpu),
    }
    missed = [k for k, ok in results.items() if not ok]
    if missed:
        print("Bars missed: " + ", ".join(missed))
        sys.exit(1)
    print("Every bar met.")


if __name__ == "__main__":
    main()
