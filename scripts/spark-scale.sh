#!/usr/bin/env bash
# Sizes neardup.spark on generated pages (docs/scaling.md, "Spark"):
# generates PAGES pages in FILES WARC files (python/bench/generate.py, kept
# in DATA and reused), runs `python -m neardup.spark` on them in local mode
# with the given Spark settings, and samples the total RSS of the job's
# process tree (the driver, its JVM and the Python workers) every second.
# Prints the job's summary, wall time, peak RSS and pairF1 against the
# generator's labels.
#
#   PY=/path/to/venv/bin/python scripts/spark-scale.sh [PAGES] [FILES] [MASTER]
set -euo pipefail
PAGES=${1:-200000}
FILES=${2:-16}
MASTER=${3:-local[2]}
PY=${PY:-python3}
DATA=${DATA:-/tmp/neardup-spark-$PAGES}
OUT=${OUT:-$DATA-out}
CONF=${CONF:-spark.driver.memory=4g}
here=$(cd "$(dirname "$0")/.." && pwd)

[ -e "$DATA/labels.tsv" ] || "$PY" "$here/python/bench/generate.py" --pages "$PAGES" --files "$FILES" --out "$DATA"
du -sh "$DATA"
rm -rf "$OUT"
conf_args=()
for c in $CONF; do conf_args+=(--conf "$c"); done

start=$(date +%s.%N)
"$PY" -m neardup.spark --warc "$DATA"/*.warc.gz --out "$OUT" --tsv --master "$MASTER" "${conf_args[@]}" \
  > "$OUT.summary" 2> "$OUT.log" &
job=$!
peak=0
# Total RSS (KiB) of the job and all its descendants.
tree_rss() {
  local pids=$1 all=$1 next
  while [ -n "$pids" ]; do
    next=$(for p in $pids; do cat "/proc/$p/task/"*/children 2>/dev/null; done | tr '\n' ' ')
    all="$all $next"
    pids=$(echo $next)
  done
  for p in $all; do awk '/^VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null; done | awk '{s += $1} END {print s + 0}'
}
while kill -0 "$job" 2>/dev/null; do
  rss=$(tree_rss "$job")
  [ "$rss" -gt "$peak" ] && peak=$rss
  sleep 1
done
wait "$job" || { tail -n 30 "$OUT.log"; exit 1; }
end=$(date +%s.%N)
cat "$OUT.summary"
echo "wall $(echo "$end - $start" | bc) s, peak RSS of the process tree $((peak / 1024)) MiB"
python3 "$here/../shared/bench/score.py" "$DATA/labels.tsv" "$OUT/clusters.tsv" --order /dev/null 2>/dev/null | tail -n 1 || true
