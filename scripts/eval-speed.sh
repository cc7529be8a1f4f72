#!/usr/bin/env bash
# Compares the end-to-end speed of two neardup binaries on the dev
# benchmark: runs `BIN eval ../shared/bench/neardup-dev` alternately, RUNS
# times each (the machine is shared: alternation spreads its noise over
# both), and prints each binary's median MB/s and its ratio to the first.
#
# usage: scripts/eval-speed.sh BEFORE AFTER [RUNS] [-- EVAL ARGS...]
#   e.g. scripts/eval-speed.sh /tmp/old/neardup target/release/neardup 15
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: scripts/eval-speed.sh BEFORE AFTER [RUNS] [-- EVAL ARGS...]" >&2; exit 2; }
before=$1 after=$2; shift 2
runs=11
if [ $# -gt 0 ] && [ "$1" != -- ]; then runs=$1; shift; fi
[ "${1:-}" = -- ] && shift
dev=$(cd "$(dirname "$0")/.." && pwd)/../shared/bench/neardup-dev
[ -d "$dev" ] || { echo "no dev benchmark at $dev" >&2; exit 1; }
for _ in $(seq "$runs"); do
    for bin in "$before" "$after"; do
        mbs=$("$bin" eval "$dev" "$@" 2>&1 | grep -o '= [0-9.]* MB/s' | grep -o '[0-9.]*' || true)
        [ -n "$mbs" ] || { echo "$bin eval printed no throughput" >&2; exit 1; }
        echo "$bin $mbs"
    done
done | python3 -c '
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in sys.stdin:
    name, mbs = line.rsplit(" ", 1)
    runs[name].append(float(mbs))
names = list(runs)
first = statistics.median(runs[names[0]])
for name in names:
    m = statistics.median(runs[name])
    print(f"{name}: median {m:.1f} MB/s over {len(runs[name])} runs, {m / first:.2f}x the first")
'
