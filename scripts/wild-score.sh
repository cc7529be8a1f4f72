#!/usr/bin/env bash
# Drop precision of `neardup dedup` on a real documentation site, scored
# with ../shared/bench/wild/wild.py (a gold independent of neardup's
# extractor: a drop is correct when the dropped page's own content is in
# the page it matched).
#
# Usage: scripts/wild-score.sh SITE...        SITE: py (python3.11-doc), rust (rust-doc)
#        scripts/wild-score.sh --verdicts FILE SITE
#                                  score FILE (a crawl's verdicts.jsonl, as
#                                  scripts/crawl-bench.sh does) instead of
#                                  running `neardup dedup`
#
# For each site: builds the wild set once (Debian's package with
# `apt-get download`, via ../shared/bench/wild/build-sites.sh), runs
# `neardup dedup` over its manifest, prints wild.py's report and its last
# line `wrongDrops=N dropPrecision=P copyRecall=R`, and exits 1 when
# dropPrecision is below WILD_MIN_PRECISION.
#
# Environment:
#   NEARDUP             the binary (default: target/release/neardup, built if missing)
#   WILD_DIR            cache of sets, venv and outputs (default: target/wild)
#   WILD_MIN_PRECISION  least dropPrecision accepted (default 0.99; 0 only reports)
#   PY                  a Python with lxml and datasketch (default: a venv in WILD_DIR)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
wild_bench=$(cd "$repo/../shared/bench/wild" 2>/dev/null && pwd) || {
    echo "wild-score: ../shared/bench/wild not found beside the repository" >&2
    exit 2
}
verdicts=
if [ "${1:-}" = --verdicts ]; then
    [ $# -eq 3 ] || { echo "usage: scripts/wild-score.sh --verdicts FILE SITE" >&2; exit 2; }
    verdicts=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
    shift 2
fi
[ $# -gt 0 ] || { echo "usage: scripts/wild-score.sh SITE... (py, rust)" >&2; exit 2; }
cache=${WILD_DIR:-$repo/target/wild}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
min=${WILD_MIN_PRECISION:-0.99}

neardup=${NEARDUP:-$repo/target/release/neardup}
if [ -z "$verdicts" ] && [ ! -x "$neardup" ]; then
    (cd "$repo" && cargo build --release --quiet)
fi

if [ -z "${PY:-}" ]; then
    PY=$cache/venv/bin/python
    if ! "$PY" -c 'import lxml, datasketch' 2>/dev/null; then
        python3 -m venv "$cache/venv"
        "$cache/venv/bin/pip" install --quiet lxml datasketch
    fi
fi
export PY

status=0
for site in "$@"; do
    case $site in py | rust) ;; *) echo "wild-score: unknown site $site (py, rust)" >&2; exit 2 ;; esac
    if [ ! -s "$cache/$site/content.jsonl" ]; then
        "$wild_bench/build-sites.sh" "$cache" "$site"
    fi
    scored=$verdicts
    if [ -z "$scored" ]; then
        out=$cache/out-$site
        rm -rf "$out"
        "$neardup" dedup "$cache/$site/manifest.tsv" --out "$out" --quiet
        scored=$out/verdicts.jsonl
    fi
    report=$("$PY" "$wild_bench/wild.py" score "$cache/$site" "$scored")
    echo "== wild $site"
    echo "$report"
    line=$(echo "$report" | tail -n 1)
    if ! "$PY" - "$line" "$min" "$site" <<'PY'
import sys
line, least, site = sys.argv[1], float(sys.argv[2]), sys.argv[3]
scores = dict(kv.split("=") for kv in line.split())
precision = float(scores["dropPrecision"])
if precision < least:
    sys.exit(f"wild {site}: dropPrecision {precision} is below {least} ({line})")
PY
    then
        status=1
    fi
done
exit $status
