#!/usr/bin/env bash
# Client CPU per command: tairbench vs redis-benchmark, same SET workload
# (50 connections, 64-byte values, random keys over 1,000,000) against one
# redis-server. Server on core 0, client on core 1 when there are two cores.
# CPU = user+sys of the client process / commands the server processed.
set -euo pipefail
BIN=${BIN:-bin/tairbench}
PORT=${PORT:-6399}
N1=${N1:-500000}     # commands at -P 1
N16=${N16:-2000000}  # commands at -P 16

srv_cpu="" cli_cpu=""
if [ "$(nproc)" -ge 2 ]; then srv_cpu="taskset -c 0"; cli_cpu="taskset -c 1"; fi
dir=$(mktemp -d)
$srv_cpu redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" --daemonize no \
  --logfile "$dir/redis.log" & pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done

processed() { redis-cli -p "$PORT" info stats | tr -d '\r' | awk -F: '/^total_commands_processed/ {print $2}'; }

# measure NAME CMD...: prints µs CPU per command and commands/s
measure() {
  local name=$1; shift
  redis-cli -p "$PORT" flushall >/dev/null
  redis-cli -p "$PORT" config resetstat >/dev/null
  local t0 t1 before after
  before=$(processed)
  local start=$(date +%s.%N)
  TIMEFORMAT='%U %S'
  local times
  times=$( { time "$@" >/dev/null 2>&1; } 2>&1 )
  local end=$(date +%s.%N)
  after=$(processed)
  local cmds=$((after - before - 1))
  awk -v n="$name" -v t="$times" -v c="$cmds" -v s="$start" -v e="$end" 'BEGIN {
    split(t, a, " "); cpu = a[1] + a[2];
    printf "%-24s %9d cmds %9.0f cmds/s %7.3f us-CPU/cmd\n", n, c, c / (e - s), cpu * 1e6 / c }'
}

echo "client CPU per command (server: redis-server $(redis-server --version | awk '{print $3}'), $(nproc) cores)"
for P in 1 16; do
  N=$N1; [ "$P" = 16 ] && N=$N16
  rb=$(measure "redis-benchmark -P $P" $cli_cpu redis-benchmark -p "$PORT" -c 50 -n "$N" -r 1000000 -d 64 -t set -P "$P" -q)
  tb=$(measure "tairbench -P $P" $cli_cpu "$BIN" redis -port "$PORT" -p 50 -c "$N" -r 1000000 --data-size 64 -P "$P" -q \
    --command "SET key:__RAND__ __DATA__")
  echo "$rb"; echo "$tb"
  awk -v a="$(echo "$tb" | awk '{print $(NF-1)}')" -v b="$(echo "$rb" | awk '{print $(NF-1)}')" -v p="$P" \
    'BEGIN { r = a / b; printf "  -P %s: tairbench uses %.2fx the client CPU per command of redis-benchmark (bar: 2.00) %s\n", p, r, (r <= 2 ? "PASS" : "FAIL") }'
done
