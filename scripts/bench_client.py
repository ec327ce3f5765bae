#!/usr/bin/env python3
"""Client CPU per command, side by side: tairbench, redis-benchmark,
memtier_benchmark and resp-benchmark on the same workloads against one
redis-server (server on core 0, every client on core 1 when there are two
cores).

CPU per command = the client's user+sys CPU (minus the tool's own start-up
CPU, measured once by a 1,000-command run of the same line) divided by the
commands the server processed (INFO total_commands_processed). Runs are
interleaved (each repetition goes through every row and tool, the tools'
order rotating), and each figure is the median of --reps runs. The last
column pairs the runs of each repetition: per peer, the median of
tairbench's CPU per command over the peer's, for the peer where it is
highest (the best peer).

The open-loop table (issue #26) runs GET of 100,000 preloaded keys at
fixed rates, 6 s each, 50 connections: tairbench's closed loop with the
same request count, tairbench --rate --send-grid 250us (constant and
Poisson arrivals), tairbench --rate (the default: every request woken at
its own start), memtier_benchmark --rate-limiting (per connection), and
a floor: scripts/floor_client.c, the least a client can do on the same
send grid (built with the system's C compiler), interleaved; it prints CPU per request, the share of tairbench's requests
sent within 1 ms of their intended start, and the paired ratios against
the bars, on the grid's runs (open ≤ 1.3× closed and ≤ 1.0× memtier at
20,000 and 50,000/s; ≥ 99 % on schedule at every rate, both arrivals).

The memory rows (1,000 connections and one) give max RSS and its
anonymous part; beside them, tools/libfloor's peak: a Go program that sets
up the libraries tairbench is built on and connects nowhere (go build).

Usage: scripts/bench_client.py [--bin bin/tairbench] [--reps 3] [--rows set-p1,...] [--open-rates 20000,50000]
"""

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, ".cache")
MEMTIER = os.path.join(CACHE, "peers", "memtier_benchmark")
RESP_DIR = os.path.join(CACHE, "respbench")
RESP = os.path.join(RESP_DIR, "bin", "resp-benchmark")
RESP_VERSION = "0.2.5"
# The floor: the least a client can do to send the same requests the same way (scripts/floor_client.c),
# in the -P 1 rows and on the open loop's send grid.
FLOOR_SRC = os.path.join(ROOT, "scripts", "floor_client.c")
FLOOR = os.path.join(CACHE, "peers", "floor_client")
# The memory floor: a Go program that sets up the libraries tairbench is built on and connects nowhere (tools/libfloor).
LIBFLOOR = os.path.join(CACHE, "peers", "libfloor")

KEYS = 100_000  # SET and GET keys
BITS = 10_000   # SETBIT: keys and offsets


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pinned(cpu, argv):
    return (["taskset", "-c", cpu] if cpu else []) + argv


class Server:
    """A redis-server on a free port (below max_port when given), with extra
    arguments (a cluster node's, for example)."""

    def __init__(self, cpu, extra=(), max_port=65535):
        self.port = free_port()
        while self.port > max_port:
            self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="bench-client-")
        self.proc = subprocess.Popen(pinned(cpu, [
            "redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--dir", self.dir, "--maxclients", "10100", "--logfile", os.path.join(self.dir, "redis.log")] + list(extra)))
        for _ in range(100):
            if self.cli("PING") == "PONG":
                return
            time.sleep(0.05)
        raise SystemExit("redis-server did not start")

    def cli(self, *args):
        r = subprocess.run(["redis-cli", "-p", str(self.port)] + list(args), capture_output=True, text=True)
        return r.stdout.strip()

    def processed(self):
        for line in self.cli("INFO", "stats").splitlines():
            if line.startswith("total_commands_processed:"):
                return int(line.split(":")[1])
        raise SystemExit("no total_commands_processed in INFO")

    def cpu_seconds(self):
        """The server's CPU time so far (user + system)."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


# Each row: name, description, and per tool a function (port, n) -> argv,
# or None where the tool cannot express the workload.
def rows(bin_path, many=1000):
    """The rows; many is the connections of the conns1000 row (1 for the
    single-connection memory figures)."""
    def tb(cmd, conns=50, pipeline=1, batching=0, r1=KEYS, r2=KEYS, window=0):
        def argv(port, n):
            a = [bin_path, "redis", "-port", str(port), "-p", str(conns), "-c", str(n), "-r", str(r1), "-r2", str(r2),
                 "--data-size", "64", "-q", "--no-server-stats", "--allow-errors", "-command", cmd]
            if pipeline > 1:
                a += ["-P", str(pipeline)]
            if window:
                a += ["-window", str(window)]
            if batching:
                a += ["--batching", str(batching)]
            return a
        return argv

    def rb(args, conns=50, pipeline=1, r=KEYS):
        return lambda port, n: ["redis-benchmark", "-p", str(port), "-c", str(conns), "-n", str(n), "-r", str(r),
                                "-d", "64", "-P", str(pipeline), "-q"] + args

    def mt(args, conns=50, pipeline=1, kmax=KEYS - 1):
        # Arbitrary --command lines take their key pattern from --command-key-pattern (R by default).
        pattern = [] if "--command" in args else ["--key-pattern", "R:R"]
        return lambda port, n: [MEMTIER, "-s", "127.0.0.1", "-p", str(port), "-t", "1", "-c", str(conns),
                                "-n", str(max(1, n // conns)), "--pipeline", str(pipeline), "-d", "64",
                                "--key-minimum", "1", "--key-maximum", str(kmax), "--hide-histogram"] + pattern + args

    def rs(cmd, conns=50, pipeline=1):
        return lambda port, n: [sys.executable, RESP, "-p", str(port), "-c", str(conns), "-n", str(n), "-P", str(pipeline),
                                "--cores", "1" if os.cpu_count() >= 2 else "0", cmd]

    def fl(cmd, conns=50):
        # A closed loop (rate 0): one request outstanding per connection.
        return lambda port, n: [FLOOR, str(port), str(conns), "0", "0", str(n), str(KEYS), cmd]

    setbit_mt = ["--key-prefix", "", "--command", "SETBIT bit:__key__ __key__ 1"]
    multi_mt = ["--command", "MULTI", "--command-ratio", "1", "--command", "SET __key__ __data__", "--command-ratio", "10",
                "--command", "EXEC", "--command-ratio", "1"]
    return [
        ("set-p1", "SET, 50 connections, -P 1", 300_000, {
            "tairbench": tb("SET key:__RAND__ __DATA__"), "redis-benchmark": rb(["-t", "set"]),
            "memtier": mt(["--ratio", "1:0"]), "resp-benchmark": rs(f"SET {{key uniform {KEYS}}} {{value 64}}"),
            "floor": fl("set")}),
        ("get-p1", "GET, 50 connections, -P 1", 300_000, {
            "tairbench": tb("GET key:__RAND__"), "redis-benchmark": rb(["-t", "get"]),
            "memtier": mt(["--ratio", "0:1"]), "resp-benchmark": rs(f"GET {{key uniform {KEYS}}}"),
            "floor": fl("get")}),
        ("set-p16", "SET, 50 connections, -P 16", 2_000_000, {
            "tairbench": tb("SET key:__RAND__ __DATA__", pipeline=16), "redis-benchmark": rb(["-t", "set"], pipeline=16),
            "memtier": mt(["--ratio", "1:0"], pipeline=16),
            "resp-benchmark": rs(f"SET {{key uniform {KEYS}}} {{value 64}}", pipeline=16)}),
        ("get-p16", "GET, 50 connections, -P 16", 2_000_000, {
            "tairbench": tb("GET key:__RAND__", pipeline=16), "redis-benchmark": rb(["-t", "get"], pipeline=16),
            "memtier": mt(["--ratio", "0:1"], pipeline=16), "resp-benchmark": rs(f"GET {{key uniform {KEYS}}}", pipeline=16)}),
        # The window rows also compare the load one client core puts on
        # redis-server (cmds/s): memtier's connections then draw their own
        # keys (--distinct-client-seed), as tairbench's do.
        ("set-w16", "SET, 50 connections, 16 in flight per connection (a window: memtier's --pipeline)", 2_000_000, {
            "tairbench": tb("SET key:__RAND__ __DATA__", window=16), "redis-benchmark": None,
            "memtier": mt(["--ratio", "1:0", "--distinct-client-seed"], pipeline=16), "resp-benchmark": None}),
        ("get-w16", "GET, 50 connections, 16 in flight per connection (a window: memtier's --pipeline)", 2_000_000, {
            "tairbench": tb("GET key:__RAND__", window=16), "redis-benchmark": None,
            "memtier": mt(["--ratio", "0:1", "--distinct-client-seed"], pipeline=16), "resp-benchmark": None}),
        ("setbit", f"SETBIT KEY OFFSET 1, both random below {BITS:,}, 50 connections, -P 1", 300_000, {
            "tairbench": tb("SETBIT bit:__RAND__ __RAND2__ 1", r1=BITS, r2=BITS),
            "redis-benchmark": None,
            "memtier": mt(setbit_mt, kmax=BITS - 1), "resp-benchmark": rs(f"SETBIT bit:{{key uniform {BITS}}} {{rand {BITS}}} 1")}),
        ("multi10", "MULTI, 10 SET, EXEC, 50 connections (not like for like: tairbench sends each transaction as one request, memtier as 12 round trips)", 360_000, {
            "tairbench": tb("SET key:__RAND__ __DATA__", batching=10), "redis-benchmark": None,
            "memtier": mt(multi_mt), "resp-benchmark": None}),
        ("conns1000", "GET, 1,000 connections, -P 1", 300_000, {
            "tairbench": tb("GET key:__RAND__", conns=many), "redis-benchmark": rb(["-t", "get"], conns=many),
            "memtier": mt(["--ratio", "0:1"], conns=many),
            "resp-benchmark": rs(f"GET {{key uniform {KEYS}}}", conns=many), "floor": fl("get", conns=many)}),
    ]


SHARED = ("its connections share one key sequence (memtier's default, no --distinct-client-seed), which redis-server "
          "answers faster than random keys: its cmds/s is the server's, compare µs of client CPU per command")
NOTES = {
    ("set-p16", "memtier"): SHARED,
    ("get-p16", "memtier"): SHARED,
    ("set-w16", "redis-benchmark"): "sends 16 and waits for all 16 (a batch, the -P 16 rows), no window",
    ("set-w16", "resp-benchmark"): "sends 16 and waits for all 16 (a batch, the -P 16 rows), no window",
    ("get-w16", "redis-benchmark"): "sends 16 and waits for all 16 (a batch, the -P 16 rows), no window",
    ("get-w16", "resp-benchmark"): "sends 16 and waits for all 16 (a batch, the -P 16 rows), no window",
    ("setbit", "redis-benchmark"): "its `__rand_int__` is zero-padded to 12 digits, which Redis refuses as a bit offset",
    ("multi10", "memtier"): "MULTI, each SET and EXEC as separate round trips (its `--command` rotation)",
    ("multi10", "redis-benchmark"): "cannot batch commands in MULTI/EXEC",
    ("multi10", "resp-benchmark"): "cannot batch commands in MULTI/EXEC",
}


def ensure_peers():
    missing = {}
    if not os.access(MEMTIER, os.X_OK):
        peers = os.environ.get("TAIRBENCH_PEERS", os.path.join(ROOT, "..", "shared", "peers"))
        script = os.path.join(peers, "build-memtier.sh")
        if os.path.exists(script):
            print(f"building memtier_benchmark from {peers} …", file=sys.stderr)
            subprocess.run(["bash", script, os.path.dirname(MEMTIER)], check=True, stdout=sys.stderr)
        else:
            missing["memtier"] = f"memtier_benchmark's source is not in {peers} (set TAIRBENCH_PEERS)"
    if not os.path.exists(RESP):
        print(f"installing resp-benchmark {RESP_VERSION} from PyPI into {RESP_DIR} …", file=sys.stderr)
        r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--target", RESP_DIR, f"resp-benchmark=={RESP_VERSION}"],
                           stdout=sys.stderr)
        if r.returncode != 0:
            missing["resp-benchmark"] = "pip could not install resp-benchmark"
    if not shutil.which("redis-benchmark"):
        missing["redis-benchmark"] = "redis-benchmark is not installed (redis-tools)"
    if not os.access(FLOOR, os.X_OK) or os.path.getmtime(FLOOR) < os.path.getmtime(FLOOR_SRC):
        cc = shutil.which("cc") or shutil.which("gcc")
        if not cc:
            missing["floor"] = "no C compiler to build scripts/floor_client.c"
        else:
            os.makedirs(os.path.dirname(FLOOR), exist_ok=True)
            if subprocess.run([cc, "-O2", "-o", FLOOR, FLOOR_SRC], stdout=sys.stderr).returncode != 0:
                missing["floor"] = f"{cc} could not build scripts/floor_client.c"
    return missing


def build_libfloor():
    """Builds tools/libfloor as make build builds tairbench (go build is a
    no-op when nothing changed); returns the failure's text, or None."""
    r = subprocess.run(["go", "build", "-trimpath", "-ldflags", "-s -w", "-o", LIBFLOOR, "./tools/libfloor"], cwd=ROOT,
                       env=dict(os.environ, CGO_ENABLED="0"), stdout=sys.stderr, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        return f"go build ./tools/libfloor failed: {(r.stderr.strip().splitlines() or ['?'])[-1]}"
    return None


def run_once(server, cpu, tool, argv):
    """Runs argv pinned to cpu; returns (commands, seconds, cpu seconds, max RSS in MB)."""
    cmds, secs, user, sys_, rss = run_split(server, cpu, tool, argv)
    return cmds, secs, user + sys_, rss


def run_split(server, cpu, tool, argv):
    """As run_once, with the CPU split: (commands, seconds, user seconds, system seconds, max RSS in MB).

    seconds is the wall time of the run, except for memtier_benchmark, whose
    main loop ends the process on a whole second (a 1.1 s run takes 2 s),
    and resp-benchmark, whose wall time includes Python's start: their time
    is the commands over their own final rate (Totals Ops/sec; qps)."""
    env = dict(os.environ)
    if tool == "resp-benchmark":
        env["PYTHONPATH"] = RESP_DIR
        cmd = argv  # it pins itself (--cores); under taskset it panics
    else:
        cmd = pinned(cpu, argv)
    before = server.processed()
    srv0 = server.cpu_seconds()
    t0 = time.monotonic()
    # Files, not pipes: a chatty tool must not block on its output.
    with tempfile.TemporaryFile("w+") as outf, tempfile.TemporaryFile("w+") as errf:
        p = subprocess.Popen(cmd, env=env, stdout=outf, stderr=errf)
        status, ru, hwm, anon = wait_peak(p.pid)
        p.returncode = os.waitstatus_to_exitcode(status)
        secs = time.monotonic() - t0
        outf.seek(0)
        out = outf.read()
        errf.seek(0)
        err = errf.read()
    code = os.waitstatus_to_exitcode(status)
    server.busy_cpu = server.cpu_seconds() - srv0
    after = server.processed()
    if code != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({code}): {err.strip()[-400:]}")
    cmds = after - before - getattr(server, "info_calls", 1)  # processed() before the run counts in after
    if tool == "resp-benchmark":  # its own final rate, without Python's start
        for line in reversed(out.splitlines()):
            m = re.search(r"qps: (\d+), conn", line)
            if m and int(m.group(1)) > 0:
                secs = cmds / int(m.group(1))
                break
    if tool == "memtier":
        for line in out.splitlines():
            f = line.split()
            if len(f) > 1 and f[0] == "Totals":
                try:
                    secs = cmds / float(f[1])
                except (ValueError, ZeroDivisionError):
                    pass
    return cmds, secs, ru.ru_utime, ru.ru_stime, PeakMB(hwm / 1024, anon / 1024)


class PeakMB(float):
    """A peak resident size in MB, with .anon: the peak of its anonymous
    part in MB (RssAnon: heap, stacks, buffers), what the process holds of
    its own, without the pages of its binary and libraries, which the page
    cache shares and whose count depends on what of the file is cached."""

    def __new__(cls, mb, anon):
        v = super().__new__(cls, mb)
        v.anon = anon
        return v


def head_commit():
    """The checkout's commit (7 digits), for the tables' stamp lines."""
    out = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=7", "HEAD"], capture_output=True, text=True).stdout
    return out.strip() or "?"


def wait_peak(pid):
    """Waits for pid; returns its wait status, its rusage (CPU to the
    microsecond, its children's included) and its peak RSS in KB: its own
    (VmHWM), or the peak sum over it and its child processes (a tool that
    forks workers), read from /proc every 10 ms. Not ru_maxrss: the kernel
    keeps there the peak of the memory the child had before its exec, a
    copy of this Python process (about 17 MB), so every tool would weigh
    at least that. Also the peak of the anonymous part (RssAnon), summed
    the same way."""
    peak = peak_anon = 0
    while True:
        done, status, ru = os.wait4(pid, os.WNOHANG)
        if done:
            return status, ru, peak, peak_anon
        own, total, anon = 0, 0, 0
        for p in [pid] + descendants(pid):
            own_p, rss_p, anon_p = proc_memory(p)
            total += rss_p
            anon += anon_p
            if p == pid:
                own = own_p
        peak = max(peak, own, total)
        peak_anon = max(peak_anon, anon)
        time.sleep(0.01)


def proc_memory(pid):
    """A process's (VmHWM, VmRSS, RssAnon) in KB; zeros once it is gone."""
    hwm = rss = anon = 0
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
                elif line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("RssAnon:"):
                    anon = int(line.split()[1])
    except OSError:
        pass
    return hwm, rss, anon


def evict_page_cache(paths):
    """Drops each file's pages from the page cache (written back first), so
    that every compiled tool's binary next enters it the same way: read from disk by
    its first run. The file-backed part of a process's RSS depends on how
    its binary's pages came into the cache: the same tairbench binary has
    measured 18 MB and 30 MB max RSS at one connection, the difference all
    RssFile. A page some process has mapped stays; a file that is not there
    is passed over."""
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        except OSError:
            pass
        finally:
            os.close(fd)


def descendants(pid):
    """pid's child processes, and theirs."""
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                for c in f.read().split():
                    out += [int(c)] + descendants(int(c))
    except OSError:
        pass
    return out


OPEN_SECONDS = 6
OPEN_GRID_US = 250
OPEN_GRID = f"{OPEN_GRID_US}us"  # tairbench's --send-grid in the grid's columns
OPEN_BARS = (1.3, 1.0)  # tairbench --rate over its closed loop, over memtier --rate-limiting
OPEN_CPU_BAR_RATES = (20_000, 50_000)  # the rates the CPU bars apply to
ON_SCHEDULE_BAR = 0.99  # share of requests sent within 1 ms of their intended start


OPEN_TOOLS = ("closed", "open", "poisson", "exact", "window", "burst", "coarse", "memtier", "floor")
OPEN_WINDOW = 4  # -window in the window column: commands in flight per connection
BURST_GRID = "20ms"  # memtier --rate-limiting's burst period: the like-for-like column
COARSE_GRID = "1ms"  # a coarser grid than the bars' runs: what a quarter of the wakes costs


def pair_ratios(a, b):
    """Each repetition's figure in a over the same repetition's in b: runs
    minutes apart at most, so that the machine's drift cancels."""
    return [x / y for x, y in zip(a, b)]


def spread(pairs):
    """Paired ratios as 'median (min–max)'."""
    return f"{statistics.median(pairs):.2f} ({min(pairs):.2f}–{max(pairs):.2f})"


def floor_beside(samples, rate, peer):
    """The floor client's paired ratio to peer at rate, for a failed bar's line ("" without one)."""
    pairs = pair_ratios(samples.get((rate, "floor"), []), samples.get((rate, peer), []))
    return f"; the floor client on the same grid: {statistics.median(pairs):.2f}×" if pairs else ""


def floor_table(rates, samples, paired, stamp):
    """The floor table's lines: what the grid costs a client that does nothing else, beside tairbench's grid."""
    if not any(samples.get((rate, "floor")) for rate in rates):
        return []
    lines = ["", f"The floor ({stamp}): scripts/floor_client.c, a C client that only sends these GETs on the "
             f"{OPEN_GRID} grid (a timerfd wake a tick; for each request due, its connection's last reply read "
             "without blocking, then the request written) and times nothing. Client CPU per request; paired ratios.", "",
             f"| rate | floor client, {OPEN_GRID} grid | tairbench --send-grid {OPEN_GRID} ÷ floor | floor ÷ tairbench's closed "
             "loop (the bar for tairbench: 1.3) | floor ÷ memtier --rate-limiting (the bar: 1.0) |", "|---|---|---|---|---|"]
    for rate in rates:
        s = samples.get((rate, "floor"), [])
        cell = f"{statistics.median(s):.2f} µs ({min(s):.2f}–{max(s):.2f})" if s else "n/a"
        lines.append(f"| {rate:,}/s | {cell} | {paired(rate, 'open', 'floor')} | {paired(rate, 'floor', 'closed')} | "
                     f"{paired(rate, 'floor', 'memtier')} |")
    lines += ["", "- Where the floor is above a bar, no client that sends on this grid meets that bar on this machine: "
              "each tick is a sleep and a wake of the client, and each request spaced out on it finds redis-server "
              "asleep and wakes it, which the sender pays for. The closed loop and memtier's 20 ms bursts keep both busy."]
    return lines


def coarse_table(rates, cell, sched, paired, stamp):
    """The coarser grid's lines: its CPU per request beside the closed loop
    and memtier, at the cost of a longer wait for each request's tick."""
    if not any(cell(rate, "coarse") != "n/a" for rate in rates):
        return []
    lines = ["", f"A coarser grid ({stamp}): tairbench --rate --send-grid {COARSE_GRID}, a quarter of the "
             f"{OPEN_GRID} grid's wakes. Client CPU per request; paired ratios.", "",
             f"| rate | tairbench --send-grid {COARSE_GRID} | on schedule (sent ≤ 1 ms after its tick) | that ÷ closed loop (paired) "
             f"| that ÷ memtier --rate-limiting (paired) | that ÷ --send-grid {OPEN_GRID} (paired) |", "|---|---|---|---|---|---|"]
    for rate in rates:
        lines.append(f"| {rate:,}/s | {cell(rate, 'coarse')} | {sched(rate, 'coarse')} | {paired(rate, 'coarse', 'closed')} | "
                     f"{paired(rate, 'coarse', 'memtier')} | {paired(rate, 'coarse', 'open')} |")
    lines += ["", f"- Not the bars' runs: each request waits up to {COARSE_GRID} for its tick, not {OPEN_GRID}, and the "
              "latency from its intended start counts that wait (its service time is exact; late counts from the tick). "
              "Each tick is a sleep and a wake of the client whatever it sends, so fewer ticks cost less per request."]
    return lines


def open_get(bin_path, port, conns, n, rate, js=None, extra=()):
    """tairbench's open-loop line: n GETs of the preloaded keys at rate
    (0: closed loop), with extra words and a JSON result when js is given."""
    a = [bin_path, "redis", "-port", str(port), "-p", str(conns), "-c", str(n), "-r", str(KEYS), "-q",
         "--no-server-stats", "--allow-errors", "-command", "GET key:__RAND__"]
    if rate:
        a += ["--rate", str(rate)] + list(extra)
    if js:
        a += ["--json", js]
    return a


def open_loop(bin_path, rates, reps, cli_cpu, srv_cpu, missing):
    """The open-loop table: returns (lines, failures)."""
    server = Server(srv_cpu, extra=("--enable-debug-command", "local"))
    # POPULATE names its keys PREFIX:N: key:0 ... key:99999, the keys both
    # tools GET (with the prefix "key:" they were key::N, and every GET missed).
    server.cli("DEBUG", "POPULATE", str(KEYS), "key", "64")
    if server.cli("EXISTS", "key:1", f"key:{KEYS - 1}") != "2":
        raise SystemExit("DEBUG POPULATE did not make the keys the GETs read")
    conns = 50
    out = tempfile.mkdtemp(prefix="bench-open-")

    def tb(n, rate, js=None, extra=()):
        return open_get(bin_path, server.port, conns, n, rate, js, extra)

    def floor(n, rate):
        return [FLOOR, str(server.port), str(conns), str(rate), str(OPEN_GRID_US), str(n), str(KEYS)]

    def mt(n, rate):
        return [MEMTIER, "-s", "127.0.0.1", "-p", str(server.port), "-t", "1", "-c", str(conns), "-n", str(max(1, n // conns)),
                "--ratio", "0:1", "--key-pattern", "R:R", "--key-minimum", "1", "--key-maximum", str(KEYS - 1), "--key-prefix", "key:",
                "-d", "64", "--hide-histogram", "--rate-limiting", str(max(1, rate // conns))]

    samples = {}  # (rate, tool) -> [µs per request]
    onsched = {}  # (rate, tool) -> [share of tairbench's requests sent on schedule]
    latesplit = {}  # (rate, tool) -> [(share behind, share client lags)]
    grid_us = set()
    try:
        starts = [("closed", tb(1000, 0)), ("memtier", mt(1000, 100_000)), ("floor", floor(1000, 100_000))]
        start = {t: run_once(server, cli_cpu, t, a)[2] for t, a in starts if t not in missing}
        for rep in range(reps):
            for rate in rates:
                n = rate * OPEN_SECONDS
                js = {t: os.path.join(out, f"open-{rate}-{rep}-{t}.json") for t in OPEN_TOOLS if t not in ("closed", "memtier", "floor")}
                runs = [("closed", tb(n, 0)), ("open", tb(n, rate, js["open"], ["--send-grid", OPEN_GRID])),
                        ("poisson", tb(n, rate, js["poisson"], ["--send-grid", OPEN_GRID, "--arrivals", "poisson"])),
                        ("exact", tb(n, rate, js["exact"])),
                        ("window", tb(n, rate, js["window"], ["-window", str(OPEN_WINDOW)])),
                        ("burst", tb(n, rate, js["burst"], ["--send-grid", BURST_GRID])),
                        ("coarse", tb(n, rate, js["coarse"], ["--send-grid", COARSE_GRID]))]
                if "memtier" not in missing:
                    runs.append(("memtier", mt(n, rate)))
                if "floor" not in missing:
                    runs.append(("floor", floor(n, rate)))
                for tool, argv in runs[rep % len(runs):] + runs[:rep % len(runs)]:
                    cmds, secs, cpu_s, _ = run_once(server, cli_cpu, tool, argv)
                    us = max(cpu_s - start[tool if tool in ("memtier", "floor") else "closed"], 0) * 1e6 / max(cmds, 1)
                    samples.setdefault((rate, tool), []).append(us)
                    print(f"open rep {rep + 1} {rate:7d}/s {tool:8s} {cmds:8d} reqs {cmds / secs:8.0f}/s {us:7.3f} µs CPU/req", file=sys.stderr)
                for tool in ("open", "poisson", "exact", "window", "coarse"):
                    with open(js[tool]) as f:
                        tot = json.load(f)["totals"]
                    sc = tot.get("schedule") or {}
                    late = sc.get("behind", 0) + sc.get("client_lags", 0)
                    onsched.setdefault((rate, tool), []).append(1 - late / max(tot["requests"], 1))
                    latesplit.setdefault((rate, tool), []).append((sc.get("behind", 0) / max(tot["requests"], 1),
                                                                   sc.get("client_lags", 0) / max(tot["requests"], 1)))
                    if tool in ("open", "poisson"):
                        grid_us.add(sc.get("send_grid_us", 0))
    finally:
        server.stop()
        shutil.rmtree(out, ignore_errors=True)
    commit = head_commit()
    lines = [f"Open loop (the same run: commit {commit}, {time.strftime('%Y-%m-%d', time.gmtime())}): GET of {KEYS:,} preloaded keys, {conns} connections, {OPEN_SECONDS} s at each rate; client CPU per request, "
             f"medians of {reps} interleaved runs (spread in brackets).", "",
             f"| rate | tairbench closed loop, same count | tairbench --rate --send-grid {OPEN_GRID} | on schedule (≤ 1 ms late) "
             "| the same, --arrivals poisson | on schedule | tairbench --rate (each request at its own start) | on schedule "
             f"| tairbench --rate -window {OPEN_WINDOW} | on schedule | that ÷ own start (paired) "
             f"| memtier --rate-limiting | grid ÷ closed (paired; bar 1.3) | grid ÷ memtier (paired; bar 1.0) "
             f"| tairbench --send-grid {BURST_GRID} (memtier's burst period) | that ÷ memtier (paired) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    fails = []

    def cell(rate, tool):
        s = samples.get((rate, tool))
        if not s:
            return "n/a"
        return f"{statistics.median(s):.2f} µs ({min(s):.2f}–{max(s):.2f})"

    def sched(rate, tool):
        s = onsched.get((rate, tool), [])
        return f"{100 * statistics.median(s):.2f} % ({100 * min(s):.2f}–{100 * max(s):.2f})" if s else "n/a"

    def paired(rate, a_tool, b_tool):
        pairs = pair_ratios(samples.get((rate, a_tool), []), samples.get((rate, b_tool), []))
        return spread(pairs) if pairs else "—"

    for rate in rates:
        ratios = []
        for peer, bar in zip(("closed", "memtier"), OPEN_BARS):
            pairs = pair_ratios(samples.get((rate, "open"), []), samples.get((rate, peer), []))
            if pairs:
                r = statistics.median(pairs)
                ratios.append(spread(pairs))
                if r > bar and rate in OPEN_CPU_BAR_RATES:  # three digits: 1.004 is over a bar of 1.0
                    fails.append(f"--rate {rate}: {r:.3f}× {'the closed loop' if peer == 'closed' else 'memtier'} (bar {bar})"
                                 + floor_beside(samples, rate, peer))
            else:
                ratios.append("—")
        for tool in ("open", "poisson"):
            s = onsched.get((rate, tool), [])
            if s and statistics.median(s) < ON_SCHEDULE_BAR:
                fails.append(f"--rate {rate} ({'poisson' if tool == 'poisson' else 'constant'}): "
                             f"{100 * statistics.median(s):.2f} % on schedule (bar {100 * ON_SCHEDULE_BAR:.0f} %)")
        lines.append(f"| {rate:,}/s | {cell(rate, 'closed')} | {cell(rate, 'open')} | {sched(rate, 'open')} | "
                     f"{cell(rate, 'poisson')} | {sched(rate, 'poisson')} | {cell(rate, 'exact')} | {sched(rate, 'exact')} | "
                     f"{cell(rate, 'window')} | {sched(rate, 'window')} | {paired(rate, 'window', 'exact')} | "
                     f"{cell(rate, 'memtier')} | {ratios[0]} | {ratios[1]} | {cell(rate, 'burst')} | {paired(rate, 'burst', 'memtier')} |")
    stamp = f"the same run: commit {commit}, {time.strftime('%Y-%m-%d', time.gmtime())}"
    lines += floor_table(rates, samples, paired, stamp)
    lines += coarse_table(rates, cell, sched, paired, stamp)
    lines += ["", f"Late requests by cause ({stamp}), medians: behind (held up by a reply still outstanding: the server, or a "
              "client too busy to read it) / client lags (the client late with no reply outstanding).", "",
              f"| rate | --send-grid {OPEN_GRID} | the same, poisson | --rate (own start) | --rate -window {OPEN_WINDOW} |", "|---|---|---|---|---|"]
    for rate in rates:
        cells = []
        for tool in ("open", "poisson", "exact", "window"):
            s = latesplit.get((rate, tool), [])
            cells.append(f"{100 * statistics.median(x[0] for x in s):.2f} % / {100 * statistics.median(x[1] for x in s):.2f} %"
                         if s else "n/a")
        lines.append(f"| {rate:,}/s | " + " | ".join(cells) + " |")
    lines += ["", "- memtier's --rate-limiting is not a schedule: each connection sends ceil(rate/50) requests back to back, then "
              "waits for a timer (memtier_benchmark.cpp: \"event every >= 20 ms\"; at 400/s a connection, 8 requests every 20 ms), "
              "and it times each request from its send. Its cost per request is that of 20 ms bursts; tairbench --rate spaces "
              "every request at its own intended start and measures from it.",
              f"- tairbench --send-grid {OPEN_GRID} (the result says {'/'.join(f'{g:.0f}' for g in sorted(grid_us)) or '?'} µs) sends each request "
              "at the first tick at or after its intended start: one goroutine per client core wakes once a tick (one timer, "
              "armed at the tick's absolute time) and sends for every worker due in it, on connections taken out of Go's "
              "poller so that replies do not wake the process; a reply is read at its worker's next tick and timed by the kernel's receive "
              "timestamp (SO_TIMESTAMPNS), so the service time is exact and the latency from the intended start includes the "
              "wait for the tick (late counts from the tick). tairbench --rate alone sends every request at its own start: "
              "the same groups, each woken at its earliest worker's intended start rather than a tick, so that one wake "
              "serves only the requests due by then.",
              "- The bars apply to the grid's runs: CPU at 20,000 and 50,000/s, on schedule (99 %) at every rate, constant "
              "and Poisson.",
              f"- tairbench --rate -window {OPEN_WINDOW} keeps up to {OPEN_WINDOW} commands in flight per connection, each sent at "
              "its own intended start (memtier's --pipeline with --rate-limiting): a reply still outstanding does not hold the "
              "next command up. Each connection has a goroutine that reads each reply as it comes; no groups, no grid. It is "
              "not a bar; its paired ratio is to tairbench --rate (own start) in the same repetition.",
              f"- --send-grid {BURST_GRID} wakes as often as memtier's limiter does (every 20 ms): its column compares the "
              f"clients' cost per request at the same number of wake-ups, which at {OPEN_GRID} is 80 times memtier's. It is "
              "not a bar: a 20 ms grid moves requests by up to 20 ms, which the latency from the intended start counts."]
    return lines, fails


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "bin", "tairbench"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rows", default="", help="comma-separated row names (default all)")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every row's command count")
    ap.add_argument("--memory-only", action="store_true", help="only tairbench's memory check")
    ap.add_argument("--open-rates", default="20000,50000,100000", help="open-loop rates (requests/s), comma-separated; empty: none")
    ap.add_argument("--open-only", action="store_true", help="only the open-loop table")
    ap.add_argument("--skip-peer", action="append", default=[], choices=["redis-benchmark", "memtier", "resp-benchmark", "floor"],
                    help="leave this peer out (its cells then say so); a peer that is missing otherwise fails the run")
    args = ap.parse_args()
    if args.memory_only:
        sys.exit(memory_check(os.path.abspath(args.bin)))
    missing = ensure_peers()
    unasked = {t: why for t, why in missing.items() if t not in args.skip_peer}
    if unasked:
        for t, why in unasked.items():
            print(f"FAIL: {t}: {why}; install it, or leave it out knowingly with --skip-peer {t}", file=sys.stderr)
        sys.exit(2)
    for t in args.skip_peer:
        missing.setdefault(t, "left out with --skip-peer")
    two = (os.cpu_count() or 1) >= 2
    srv_cpu, cli_cpu = ("0", "1") if two else ("", "")
    rates = [int(x) for x in args.open_rates.split(",") if x]
    if args.open_only:
        lines, fails = open_loop(os.path.abspath(args.bin), rates, args.reps, cli_cpu, srv_cpu, missing)
        print("\n".join(lines))
        for f in fails:
            print(f"FAIL: {f}")
        sys.exit(1 if fails else 0)
    if why := build_libfloor():
        print(f"FAIL: {why}", file=sys.stderr)
        sys.exit(2)
    evict_page_cache([p for p in (os.path.abspath(args.bin), MEMTIER, FLOOR, LIBFLOOR, shutil.which("redis-benchmark")) if p])
    server = Server(srv_cpu)
    all_rows = rows(os.path.abspath(args.bin))
    if args.rows:
        wanted = args.rows.split(",")
        all_rows = [r for r in all_rows if r[0] in wanted]
    tools = ["tairbench", "redis-benchmark", "memtier", "resp-benchmark", "floor"]
    samples = {}  # (row, tool) -> [(cpu per cmd µs, cmds/s, rss MB, server core share)]
    startup = {}  # (row, tool) -> start-up CPU seconds
    one = {}  # tool -> max RSS in MB with one connection
    try:
        for name, _, n, by_tool in all_rows:
            for tool in tools:
                mk = by_tool.get(tool)
                if mk is None or tool in missing:
                    continue
                _, _, cpu_s, _ = run_once(server, cli_cpu, tool, mk(server.port, 1000))
                startup[(name, tool)] = cpu_s
        for rep in range(args.reps):
            order = tools[rep % len(tools):] + tools[:rep % len(tools)]
            for name, _, n, by_tool in all_rows:
                n = int(n * args.scale)
                for tool in order:
                    mk = by_tool.get(tool)
                    if mk is None or tool in missing:
                        continue
                    cmds, secs, cpu_s, rss = run_once(server, cli_cpu, tool, mk(server.port, n))
                    us = max(cpu_s - startup[(name, tool)], 0) * 1e6 / max(cmds, 1)
                    busy = server.busy_cpu / secs  # the share of its core the server used
                    samples.setdefault((name, tool), []).append((us, cmds / secs, rss, busy))
                    print(f"rep {rep + 1} {name:9s} {tool:15s} {cmds:9d} cmds {cmds / secs:9.0f}/s {us:7.3f} µs CPU/cmd {rss:7.1f} MB",
                          file=sys.stderr)
        # Each tool's memory with one connection, so that the 1,000-connection
        # row shows what the connections add to what the process costs anyway.
        if any(r[0] == "conns1000" for r in all_rows):
            for tool, mk in next(r for r in rows(os.path.abspath(args.bin), many=1) if r[0] == "conns1000")[3].items():
                if tool not in missing:
                    one[tool] = run_once(server, cli_cpu, tool, mk(server.port, 20_000))[3]
            # Up 300 ms: the peak is read every 10 ms.
            lib = [run_once(server, cli_cpu, "libfloor", [LIBFLOOR, "300ms"])[3] for _ in range(args.reps)]
            one["libfloor"] = PeakMB(statistics.median(lib), statistics.median(x.anon for x in lib))
    finally:
        server.stop()

    ver = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout.split()
    print(f"Client CPU per command, medians of {args.reps} interleaved runs; redis-server {ver[2].split('=')[1] if len(ver) > 2 else '?'}"
          f" on core 0, each client on core 1 ({os.cpu_count()} cores); start-up CPU subtracted.")
    print()
    print("| workload | " + " | ".join(f"{t} µs/cmd (cmds/s)" for t in tools)
          + " | tairbench ÷ best peer, median (pairs' spread) | floor ÷ best peer (paired) |")
    print("|---|" + "---|" * (len(tools) + 2))
    above, margin = [], []
    for name, desc, _, by_tool in all_rows:
        cells, med = [], {}
        for tool in tools:
            s = samples.get((name, tool))
            if by_tool.get(tool) is None:
                cells.append("—")
            elif tool in missing:
                cells.append("skipped")
            elif not s:
                cells.append("n/a")
            else:
                us = statistics.median(x[0] for x in s)
                qps = statistics.median(x[1] for x in s)
                med[tool] = us
                cells.append(f"{us:.3f} ({qps / 1000:.0f} K)")
        # The ratio pairs runs of the same repetition (run minutes apart at
        # most), so that the machine's drift between repetitions cancels:
        # per peer, the median over repetitions of tairbench's CPU per
        # command over the peer's; the best peer is the one with the lowest.
        ratios = []  # per peer: (median, each pair's ratio, the peer)
        for t in med:
            if t not in ("tairbench", "floor") and "tairbench" in med:
                pairs = pair_ratios([x[0] for x in samples[(name, "tairbench")]], [x[0] for x in samples[(name, t)]])
                ratios.append((statistics.median(pairs), pairs, t))
        ratio, floor = "—", "—"
        if ratios:
            worst, pairs, best = max(ratios)
            if "floor" in med:
                floor = spread(pair_ratios([x[0] for x in samples[(name, "floor")]], [x[0] for x in samples[(name, best)]]))
            ratio = spread(pairs)
            if worst > 1.0:
                above.append(desc)
            elif worst > CLOSED_BAR:
                margin.append(f"{desc} ({worst:.3f})")  # three digits: 0.803 is over 0.8
        print(f"| {desc} | " + " | ".join(cells) + f" | {ratio} | {floor} |")
    if any(r[0] == "conns1000" for r in all_rows):
        for label, part, fmt in (("client memory (max RSS)", float, ".0f"),
                                 ("its anonymous part (heap, stacks, buffers; max RssAnon)", lambda m: m.anon, ".1f")):
            cells = []
            for tool in tools:
                s = samples.get(("conns1000", tool))
                cells.append(f"{statistics.median(part(x[2]) for x in s):{fmt}} MB" if s else "n/a")
            print(f"| {label}, 1,000 connections | " + " | ".join(cells) + " | | |")
            cells = [f"{part(one[t]):{fmt}} MB" if t in one else "n/a" for t in tools]
            print(f"| {label}, 1 connection: the process before its connections (binary, runtime) | " + " | ".join(cells) + " | | |")
    notes = [f"{t}, {r}: {v}" for (r, t), v in NOTES.items() if any(x[0] == r for x in all_rows)]
    if any(by_tool.get("floor") for _, _, _, by_tool in all_rows):
        notes.append("floor: scripts/floor_client.c, not a peer: a C client that sends the same requests with one "
                     "outstanding per connection (a write and a read a request, one epoll_wait for the replies that came "
                     "together, as tairbench's groups do) and times nothing: no clock, no receive timestamps, no histogram. "
                     "Its CPU is little more than the kernel's work for these requests on this machine; the last column puts it "
                     "beside the bar of 0.8")
    if any(r[0] == "conns1000" for r in all_rows):
        notes.append("client memory: the binaries of tairbench, memtier, redis-benchmark and the floor client were dropped "
                     "from the page cache before the first run (resp-benchmark runs in Python), so that each one's pages came in the same way, read from disk (the file-backed part of max RSS depends on "
                     "that: the same tairbench binary has measured 18 MB and 30 MB max RSS with one connection, see docs/redis.md). The anonymous "
                     "part is the tool's own")
        if "libfloor" in one:
            notes.append(f"tools/libfloor, not a peer: a Go program that sets up the libraries tairbench is built on as tairbench "
                         f"does (a go-redis client, an Elasticsearch client, a Prometheus registry, a fasthttp client, a cobra "
                         f"command, an HdrHistogram, a roaring bitmap), built as tairbench is, and connects nowhere: "
                         f"{one['libfloor']:.1f} MB max RSS, {one['libfloor'].anon:.1f} MB of it anonymous (median of {args.reps} runs); "
                         f"the rest is pages of its {os.path.getsize(LIBFLOOR) / 1e6:.0f} MB binary that starting touched")
    notes += [f"{t}: {why}" for t, why in missing.items()]
    if notes:
        print()
        for n in notes:
            print(f"- {n}")
    print()
    load_fails = window_load(all_rows, samples)
    open_fails = []
    if rates:
        lines, open_fails = open_loop(os.path.abspath(args.bin), rates, args.reps, cli_cpu, srv_cpu, missing)
        print("\n".join(lines))
        print()
    failed = memory_check(os.path.abspath(args.bin))
    for f in open_fails:
        print(f"FAIL: open loop: {f}")
        failed = 1
    if above:
        print(f"FAIL: tairbench used more client CPU per command than the best peer in: {'; '.join(above)}")
        failed = 1
    if margin:
        print(f"FAIL: closed loop above {CLOSED_BAR}× the best peer's client CPU per command (issue #26) in: {'; '.join(margin)}")
        failed = 1
    for f in load_fails:
        print(f"FAIL: window load: {f}")
        failed = 1
    if mem := memory_vs_peer(samples, one.get("libfloor")):
        print(f"FAIL: {mem}")
        failed = 1
    sys.exit(failed)


def memory_vs_peer(samples, libfloor=None):
    """Issue #26's memory bar: tairbench's max RSS at 1,000 connections at
    most redis-benchmark's (medians of the conns1000 runs); the failure's
    text, with the memory floor's peak (tools/libfloor) when it was run, or
    None when it holds or a side was not run."""
    tb, rb = samples.get(("conns1000", "tairbench")), samples.get(("conns1000", "redis-benchmark"))
    if not tb or not rb:
        return None
    rss = [statistics.median(float(x[2]) for x in s) for s in (tb, rb)]
    anon = [statistics.median(x[2].anon for x in s) for s in (tb, rb)]
    if rss[0] <= rss[1]:
        return None
    floor = f"; tools/libfloor, tairbench's libraries set up and unused: {libfloor:.0f} MB" if libfloor is not None else ""
    return (f"client memory at 1,000 connections above redis-benchmark's (issue #26): {rss[0]:.0f} MB against "
            f"{rss[1]:.0f} MB max RSS (anonymous {anon[0]:.1f} MB against {anon[1]:.1f} MB){floor}")


CLOSED_BAR = 0.8  # issue #26: closed-loop client CPU per command over the best peer's
SERVER_BOUND = 0.95  # the share of its core at which redis-server is the limit


def window_load(all_rows, samples):
    """Prints, for the window rows, the load one client core put on
    redis-server: tairbench's cmds/s over memtier's, paired by repetition,
    with the server's core share under each (issue #26: at least memtier's).
    When the server's core is full under both, both reach its limit and the
    ratio is its noise; otherwise a median below 1 fails. Returns the
    failures."""
    fails, head = [], False
    for name, desc, _, _ in all_rows:
        a, b = samples.get((name, "tairbench")), samples.get((name, "memtier"))
        if not name.endswith("-w16") or not a or not b:
            continue
        ratios = [x[1] / y[1] for x, y in zip(a, b)]
        r = statistics.median(ratios)
        busy_a, busy_b = statistics.median(x[3] for x in a), statistics.median(x[3] for x in b)
        per_core = statistics.median(y[0] / x[0] for x, y in zip(a, b))
        bound = busy_a >= SERVER_BOUND and busy_b >= SERVER_BOUND
        spread = ", ".join(f"{x:.2f}" for x in ratios)
        if not head:
            commit = head_commit()
            print(f"The window rows' load on redis-server (the same run: commit {commit}, {time.strftime('%Y-%m-%d', time.gmtime())}):")
            print()
            print("| window rows | tairbench ÷ memtier cmds/s on redis-server, median (each pair) "
                  "| redis-server's core busy: tairbench, memtier | commands one client core can send: tairbench ÷ memtier |")
            print("|---|---|---|---|")
            head = True
        print(f"| {desc} | {r:.2f} ({spread}){' — the server is the limit under both' if bound else ''} "
              f"| {100 * busy_a:.0f} %, {100 * busy_b:.0f} % | {per_core:.2f} |")
        if r < 1.0 and not bound:
            fails.append(f"{name}: tairbench's cmds/s is {r:.2f}× memtier's (bar: at least 1.0)")
    if head:
        print()
    return fails


# Client memory bars (issue #14): at most 100 MB at 1,000 connections and
# 400 MB at 10,000, with a template that carries a 64-byte __DATA__ value.
MEMORY_BARS = [(1000, 100), (10_000, 400)]


def memory_check(bin_path):
    """Runs tairbench alone at each connection count against a redis-server
    that takes them, prints max RSS against the bar; returns 1 if one is over."""
    server = Server("0" if (os.cpu_count() or 1) >= 2 else "")
    failed = 0
    evict_page_cache([bin_path])

    def argv(conns):
        # At least 20,000 commands: the peak is read every 10 ms while it runs.
        return [bin_path, "redis", "-port", str(server.port), "-p", str(conns), "-c", str(max(conns * 20, 20_000)), "-r", "100000",
                "--data-size", "64", "-q", "--no-server-stats", "--allow-errors", "-command", "SET key:__RAND__ __DATA__"]
    try:
        # One connection: what the process costs before connections (the
        # binary's resident pages, the runtime), so that each one's share shows.
        _, _, _, base = run_once(server, "", "tairbench", argv(1))
        print(f"tairbench client memory, 1 connection: {base:.0f} MB max RSS, {base.anon:.1f} MB of it anonymous")
        for conns, bar in MEMORY_BARS:
            cmds, _, _, rss = run_once(server, "", "tairbench", argv(conns))
            ok = rss <= bar and cmds >= conns * 20
            failed |= not ok
            print(f"tairbench client memory, {conns:,} connections: {rss:.0f} MB max RSS ({(rss - base) * 1024 / (conns - 1):.1f} KB "
                  f"a connection over 1 connection; anonymous {rss.anon:.1f} MB, {(rss.anon - base.anon) * 1024 / (conns - 1):.1f} KB a connection), "
                  f"{cmds} commands (bar {bar} MB) {'PASS' if ok else 'FAIL'}")
    finally:
        server.stop()
    return int(failed)


if __name__ == "__main__":
    main()
