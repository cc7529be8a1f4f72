#!/usr/bin/env bash
# Load figures for `neardup serve` (docs/serve.md, "Load"): for each index
# kind and text share, starts a fresh server on loopback, runs
# `neardup load`, and prints one TSV line per run with throughput, latency
# and the CPU time of the server and of the load generator per request
# (server: utime+stime from /proc/PID/stat over the run; generator: its
# own report, CPU of its one thread while the clock ran).
#
#   scripts/serve-load.sh [RUNS] [REQUESTS] [CLIENTS]
#
# Env: NEARDUP_BIN (default $CARGO_TARGET_DIR/release/neardup), LOAD_BIN (the
# generator; default NEARDUP_BIN), KINDS (default
# "redb memory"), SHARES (default "0.1 1.0"), WORDS (english or pseudo, the
# generated text; default english), RAW (1: send pages with `load --raw` to
# POST /v1/check/raw instead of JSON to /v1/check).
set -euo pipefail
runs=${1:-3}
requests=${2:-20000}
clients=${3:-16}
bin=${NEARDUP_BIN:-${CARGO_TARGET_DIR:-target}/release/neardup}
load_bin=${LOAD_BIN:-$bin}
kinds=${KINDS:-redb memory}
words=${WORDS:-english}
shares=${SHARES:-0.1 1.0}
raw=()
[ "${RAW:-0}" = 1 ] && raw=(--raw)
tmp=$(mktemp -d)
spid=
cleanup() {
  [ -n "$spid" ] && kill "$spid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
tick=$(getconf CLK_TCK)
cpu_of() { awk '{ print $14 + $15 }' "/proc/$1/stat"; } # clock ticks

printf 'run\tindex\ttext_share\tchecks_per_sec\tp50_ms\tp99_ms\tok\tsent\tserver_checked\tserver_cpu_us\tclient_cpu_us\tchecks_per_commit\tloadavg\n'
for run in $(seq "$runs"); do
  for share in $shares; do
    for kind in $kinds; do
      rm -f "$tmp/index.redb"
      # A fresh log: an old one would still name the previous server.
      log="$tmp/serve-$run-$share-$kind.log"
      if [ "$kind" = redb ]; then idx=(--index "$tmp/index.redb"); else idx=(--in-memory); fi
      "$bin" serve --listen 127.0.0.1:0 "${idx[@]}" 2>"$log" &
      spid=$!
      addr=
      for _ in $(seq 200); do
        addr=$(sed -n 's/^neardup: listening on //p' "$log")
        [ -n "$addr" ] && break
        sleep 0.05
      done
      [ -n "$addr" ] || { cat "$log" >&2; exit 1; }
      before=$(cpu_of "$spid")
      "$load_bin" load --target "$addr" --clients "$clients" --requests "$requests" \
        --page-bytes 10000 --text-share "$share" --words "$words" --max-seconds 300 "${raw[@]}" >"$tmp/report.json"
      after=$(cpu_of "$spid")
      commits=$(curl -fsS "$addr/metrics" | awk '/^neardup_index_commits_total / { print $2 }')
      load=$(cut -d' ' -f1 /proc/loadavg)
      kill -TERM "$spid"
      wait "$spid" || true
      spid=
      python3 - "$tmp/report.json" "$before" "$after" "$tick" \
        "$run" "$kind" "$share" "$load" "${commits:-0}" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
before, after, tick = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
run, kind, share, load, commits = sys.argv[5:10]
n = max(rep["ok"], 1)
server_us = (after - before) / tick / n * 1e6
client_us = rep["client_cpu_us_per_check"] or 0
print("\t".join(map(str, [run, kind, share, round(rep["checks_per_sec"]), rep["p50_ms"],
      rep["p99_ms"], rep["ok"], rep["sent"], rep["server_checked"],
      round(server_us), round(client_us),
      round(n / max(float(commits), 1), 1), load])))
EOF
    done
  done
done
