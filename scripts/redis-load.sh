#!/usr/bin/env bash
# Load and memory figures for the shared Redis index (docs/redis.md).
#
# Starts a private redis-server (no persistence) on 127.0.0.1, then for each
# index kind (redis, the embedded redb file, in memory) starts
# `neardup serve --index ...`, runs `neardup load` against it (10 KB pages,
# loopback only) and prints the load report. For Redis it also prints the
# server's memory before/after and per kept page (INFO memory,
# MEMORY USAGE of the log, LLEN).
#
# Usage: [ONLY_PAIR=1] scripts/redis-load.sh [REQUESTS] [CLIENTS]
# Needs: a release build (cargo build --release), redis-server, redis-cli.
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-20000}
clients=${2:-16}
bin=${NEARDUP_BIN:-${CARGO_TARGET_DIR:-target}/release/neardup}
[ -x "$bin" ] || { echo "build first: cargo build --release ($bin missing)" >&2; exit 2; }
command -v redis-server >/dev/null || { echo "redis-server not installed" >&2; exit 2; }

tmp=$(mktemp -d)
rport=$((20000 + RANDOM % 20000))
sport=$((rport + 1))
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" \
  >"$tmp/redis.log" 2>&1 &
pids+=($!)
rcli() { redis-cli -p "$rport" "$@"; }
for _ in $(seq 50); do rcli ping >/dev/null 2>&1 && break; sleep 0.1; done
used() { rcli info memory | awk -F: '/^used_memory:/ { print $2 + 0 }'; }

run_one() { # name index
  local name=$1 index=$2
  local args=(serve --listen "127.0.0.1:$sport")
  if [ -n "$index" ]; then args+=(--index "$index"); else args+=(--in-memory); fi
  "$bin" "${args[@]}" 2>"$tmp/serve-$name.log" &
  local spid=$!
  pids+=("$spid")
  for _ in $(seq 100); do
    curl -fsS "http://127.0.0.1:$sport/healthz" >/dev/null 2>&1 && break
    sleep 0.1
  done
  echo "== $name: neardup load --clients $clients --requests $requests --page-bytes 10000"
  "$bin" load --target "http://127.0.0.1:$sport" --clients "$clients" \
    --requests "$requests" --page-bytes 10000 --max-seconds 120
  kill -TERM "$spid"
  wait "$spid" 2>/dev/null || true
}

# ONLY_PAIR=1 runs only the two-worker part at the end.
if [ -z "${ONLY_PAIR:-}" ]; then
before=$(used)
run_one redis "redis://127.0.0.1:$rport/0?ns=load"
after=$(used)
entries=$(rcli llen '{nd:load}:log')
log_bytes=$(rcli memory usage '{nd:load}:log' samples 0)
echo "== redis memory: used_memory before $before, after $after; log entries $entries;"
echo "   MEMORY USAGE log = $log_bytes bytes"
echo "   per kept page: used_memory delta $(( (after - before) / entries )) B," \
  "log $(( log_bytes / entries )) B"

run_one redb "$tmp/index.redb"
echo "== redb file: $(stat -c %s "$tmp/index.redb") bytes"
run_one memory ""
fi

# Two workers on one namespace, each loaded by its own generator with the
# same seed: every page reaches both servers at about the same time, so
# each must be kept exactly once overall (compare LLEN with the single-
# server Redis run above, which kept the same page sequence once).
echo "== two serve workers on ns=pair, two generators with the same seed, concurrently"
ports=("$sport" "$((sport + 1))")
spids=()
for p in "${ports[@]}"; do
  "$bin" serve --listen "127.0.0.1:$p" --index "redis://127.0.0.1:$rport/0?ns=pair" \
    2>"$tmp/serve-pair-$p.log" &
  spids+=($!)
  pids+=($!)
done
for p in "${ports[@]}"; do
  for _ in $(seq 100); do
    curl -fsS "http://127.0.0.1:$p/healthz" >/dev/null 2>&1 && break
    sleep 0.1
  done
done
lpids=()
for p in "${ports[@]}"; do
  "$bin" load --target "http://127.0.0.1:$p" --clients $((clients / 2)) \
    --requests "$requests" --page-bytes 10000 --max-seconds 120 >"$tmp/load-$p.json" &
  lpids+=($!)
done
wait "${lpids[@]}"
for p in "${ports[@]}"; do
  echo "-- worker 127.0.0.1:$p"
  grep -E '"(ok|sent|transport_errors|checks_per_sec|p50_ms|p99_ms|unique|near_duplicate|duplicate|server_checked)"' "$tmp/load-$p.json"
done
echo "   log entries (pages kept overall): $(rcli llen '{nd:pair}:log')"
for s in "${spids[@]}"; do kill -TERM "$s" 2>/dev/null || true; done
