#!/usr/bin/env bash
# Speed of two neardup binaries, per core, in one run: the figure every
# change to the check path quotes (issue 27).
#
# For each benchmark (neardup-dev and neardup-dev2 under ../shared/bench),
# runs `BIN dedup MANIFEST --threads 1 --no-report` pinned to one core,
# BASE and NEW alternately, RUNS times each (the machine is shared:
# alternating spreads its drift over both), and prints each binary's median
# MB/s of HTML per core (the pages' bytes over wall seconds; the figure the
# targets are set in) and MB per CPU second (over the run's user + system
# time: without the waits for the output files' fsyncs and for the disk,
# the steadier figure for a small change), with NEW's ratios to BASE. It
# also checks that both binaries gave the same clusters.tsv (a speed change
# must not move a verdict) and says so.
#
# With SERVE=1 it then runs scripts/serve-load.sh (redb index, text share
# 0.1) for each binary and prints median checks/s, p99 and server CPU per
# check, with NEW's ratio.
#
# usage: scripts/eval-speed.sh BASE NEW [RUNS] [-- DEDUP ARGS...]
#   e.g. scripts/eval-speed.sh /tmp/main/neardup target/release/neardup 7
# Env: CPU (the core to pin to; default 1), BENCHES (default
# "neardup-dev neardup-dev2"), SERVE (1 to add the serve load), SERVE_RUNS
# (default 3), SERVE_REQUESTS (default 20000), SERVE_CLIENTS (default 32).
set -euo pipefail
usage="usage: scripts/eval-speed.sh BASE NEW [RUNS] [-- DEDUP ARGS...]"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
base=$1 new=$2; shift 2
runs=7
if [ $# -gt 0 ] && [ "$1" != -- ]; then runs=$1; shift; fi
[ "${1:-}" = -- ] && shift
for bin in "$base" "$new"; do
    [ -x "$bin" ] || { echo "not an executable: $bin" >&2; exit 2; }
done
root=$(cd "$(dirname "$0")/.." && pwd)
shared=$root/../shared/bench
cpu=${CPU:-1}
benches=${BENCHES:-neardup-dev neardup-dev2}
command -v taskset >/dev/null || { echo "eval-speed: taskset (util-linux) is needed to pin to one core" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Bytes of HTML a manifest names (its third column, relative to the bench).
html_bytes() {
    python3 - "$1" <<'PY'
import os, sys
bench = sys.argv[1]
total = 0
with open(os.path.join(bench, "manifest.tsv")) as f:
    next(f)
    for line in f:
        path = line.rstrip("\n").split("\t")[2]
        total += os.path.getsize(os.path.join(bench, path))
print(total)
PY
}

# One pinned run: prints its wall microseconds and its CPU (user + system)
# microseconds; its verdicts go to $3.
timed_run() {
    local bin=$1 manifest=$2 out=$3
    shift 3
    rm -rf "$out"
    local t0 t1 cpu_s
    t0=$(date +%s%N)
    # bash's `time` gives the command's own user and system seconds.
    cpu_s=$( { TIMEFORMAT='%3U %3S'; time taskset -c "$cpu" "$bin" dedup "$manifest" --out "$out" -q --no-report --threads 1 "$@" >/dev/null 2>"$out.err"; } 2>&1 ) \
        || { echo "$bin dedup $manifest failed:" >&2; cat "$out.err" >&2; exit 1; }
    t1=$(date +%s%N)
    echo "$(( (t1 - t0) / 1000 )) $(awk '{ printf "%d", ($1 + $2) * 1e6 }' <<<"$cpu_s")"
}

for name in $benches; do
    bench=$shared/$name
    [ -f "$bench/manifest.tsv" ] || { echo "eval-speed: no benchmark at $bench" >&2; exit 1; }
    bytes=$(html_bytes "$bench")
    : >"$tmp/$name.times"
    for _ in $(seq "$runs"); do
        echo "base $(timed_run "$base" "$bench/manifest.tsv" "$tmp/base" "$@")" >>"$tmp/$name.times"
        echo "new $(timed_run "$new" "$bench/manifest.tsv" "$tmp/new" "$@")" >>"$tmp/$name.times"
    done
    if cmp -s "$tmp/base/clusters.tsv" "$tmp/new/clusters.tsv"; then same=same; else same=DIFFERENT; fi
    python3 - "$name" "$bytes" "$tmp/$name.times" "$same" <<'PY'
import statistics, sys
name, total, path, same = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
runs = {"base": [], "new": []}
cpu = {"base": [], "new": []}
for line in open(path):
    who, wall_us, cpu_us = line.split()
    runs[who].append(int(wall_us) / 1e6)
    cpu[who].append(max(int(cpu_us), 1) / 1e6)
mbs = {who: statistics.median(total / 1e6 / s for s in secs) for who, secs in runs.items()}
mbc = {who: statistics.median(total / 1e6 / s for s in secs) for who, secs in cpu.items()}
print(f"{name}: {total / 1e6:.1f} MB, {len(runs['new'])} runs each, one core")
print(f"  base  median {mbs['base']:6.1f} MB/s per core   {mbc['base']:6.1f} MB per CPU second")
print(f"  new   median {mbs['new']:6.1f} MB/s per core   {mbc['new']:6.1f} MB per CPU second   "
      f"{mbs['new'] / mbs['base']:.3f}x / {mbc['new'] / mbc['base']:.3f}x base")
print(f"  clusters.tsv: {same}")
PY
done

[ "${SERVE:-0}" = 1 ] || exit 0
for who in base new; do
    bin=$base
    [ "$who" = new ] && bin=$new
    NEARDUP_BIN=$bin KINDS=redb SHARES=0.1 "$root/scripts/serve-load.sh" \
        "${SERVE_RUNS:-3}" "${SERVE_REQUESTS:-20000}" "${SERVE_CLIENTS:-32}" >"$tmp/serve-$who.tsv"
done
python3 - "$tmp/serve-base.tsv" "$tmp/serve-new.tsv" <<'PY'
import csv, statistics, sys
def load(path):
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    med = lambda k: statistics.median(float(r[k]) for r in rows)
    return {k: med(k) for k in ("checks_per_sec", "p99_ms", "server_cpu_us")}, len(rows)
(base, n), (new, _) = load(sys.argv[1]), load(sys.argv[2])
print(f"serve (redb, text share 0.1): medians of {n} runs each")
for who, r in (("base", base), ("new", new)):
    print(f"  {who:5} {r['checks_per_sec']:8.0f} checks/s  p99 {r['p99_ms']:6.2f} ms  {r['server_cpu_us']:6.0f} us server CPU per check")
print(f"  new/base checks/s {new['checks_per_sec'] / base['checks_per_sec']:.3f}x")
PY
