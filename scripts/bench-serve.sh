#!/usr/bin/env bash
# Embedded server vs redis-server: TR.GETBIT on the embedded server against
# GETBIT on redis-server, same client (tairbench), connections and duration.
# Each server is pinned to core 0 and the client to core 1 when there are two.
# Bar (issue #14, raised from #3's 70%): embedded TR.GETBIT >= 100% of redis-server GETBIT, at -P 1 and -P 16.
set -euo pipefail
BIN=${BIN:-bin/tairbench}
PORT=${PORT:-6398}
DUR=${DUR:-10}
CONNS=${CONNS:-50}
srv_cpu="" cli_cpu=""
if [ "$(nproc)" -ge 2 ]; then srv_cpu="taskset -c 0"; cli_cpu="taskset -c 1"; fi
dir=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
wait_up() { for _ in $(seq 100); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && return 0; sleep 0.1; done; echo "server did not start" >&2; exit 1; }
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }

# qps NAME TEMPLATE PIPELINE: prints commands/s
qps() {
  $cli_cpu "$BIN" redis -port "$PORT" -p "$CONNS" -d "$DUR" -r 10000000 -P "$2" -q --command "$1" --json "$dir/r.json" >/dev/null 2>&1
  awk -F': ' '/"ops_per_sec"/ {gsub(/,/, "", $2); print $2; exit}' "$dir/r.json"
}
load() { "$BIN" redis -port "$PORT" -p 8 -c 200000 -r 10000000 -P 64 -q --command "$1" >/dev/null 2>&1; }

declare -A res
echo "server            pipeline  commands/s"
$srv_cpu redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" --logfile "$dir/r.log" & pid=$!
wait_up
load "SETBIT foo __RAND__ 1"
for P in 1 16; do res[redis,$P]=$(qps "GETBIT foo __RAND__" $P); printf "redis-server GETBIT  -P %-3s %12.0f\n" $P "${res[redis,$P]}"; done
stop
$srv_cpu "$BIN" serve --port "$PORT" 2>/dev/null & pid=$!
wait_up
load "TR.SETBIT foo __RAND__ 1"
for P in 1 16; do res[emb,$P]=$(qps "TR.GETBIT foo __RAND__" $P); printf "embedded TR.GETBIT  -P %-3s %12.0f\n" $P "${res[emb,$P]}"; done
stop
fail=0
for P in 1 16; do
  awk -v a="${res[emb,$P]}" -v b="${res[redis,$P]}" -v p="$P" 'BEGIN { r = a / b;
    printf "-P %s: embedded/redis = %.0f%% (bar 100%%) %s\n", p, 100 * r, (r >= 1 ? "PASS" : "FAIL"); exit (r >= 1 ? 0 : 1) }' || fail=1
done
exit $fail
