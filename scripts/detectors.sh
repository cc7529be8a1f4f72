#!/bin/sh
# Regenerates the numbers of docs/detectors.md: each detector chain with
# its settings on the dev benchmark (pairF1, dropF1, the median pages/s of
# three single-thread eval runs end to end: decode, extract, normalize,
# sign, decide; and per kind, pair recall and false-positive pairs), the
# signature and index bytes per page of each detector, and the
# Clough-Stevenson graded comparison (`neardup compare`).
#
# Usage: scripts/detectors.sh [--write] [BENCH_DIR] [NEARDUP_BINARY] [CLOUGH_DIR]
# Without --write the tables go to stdout; with it they replace the blocks
# between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->` in
# docs/detectors.md (accuracy, kinds, sizes, graded).
# Defaults: ../shared/bench/neardup-dev, target/release/neardup (build with
# `cargo build --release` first), ../shared/datasets/clough-stevenson/data.
set -eu
write=""
if [ "${1:-}" = "--write" ]; then
    write=1
    shift
fi
here=$(cd "$(dirname "$0")/.." && pwd)
# Relative defaults from the repo root, so the paths printed into the
# docs are the portable ones.
cd "$here"
bench=${1:-../shared/bench/neardup-dev}
bin=${2:-${CARGO_TARGET_DIR:-target}/release/neardup}
clough=${3:-../shared/datasets/clough-stevenson/data}
for d in "$bench" "$clough"; do
    [ -d "$d" ] || { echo "no data at $d" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "no binary at $bin (cargo build --release)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# row CHAIN SHOWN SETTINGS: SETTINGS is TOML (may be empty), CHAIN
# space-separated, SHOWN how the settings column reads. Appends to
# accuracy.md and kinds.md.
row() {
    chain=$1
    shown=$2
    printf '%s\n' "$3" >"$tmp/c.toml"
    args=""
    for d in $chain; do args="$args --detector $d"; done
    # Three runs on one thread: verdicts are deterministic, pages/s is the
    # median (the machine may be shared).
    : >"$tmp/pps"
    for _ in 1 2 3; do
        # shellcheck disable=SC2086
        "$bin" --threads 1 --config "$tmp/c.toml" eval "$bench" $args -q >"$tmp/out" 2>/dev/null
        grep '^throughput' "$tmp/out" | sed 's/.* \([0-9]*\) pages\/s.*/\1/' >>"$tmp/pps"
    done
    last=$(tail -n 1 "$tmp/out")
    pair=$(printf '%s' "$last" | sed 's/.*pairF1=\([0-9.]*\).*/\1/')
    drop=$(printf '%s' "$last" | sed 's/.*dropF1=\([0-9.]*\).*/\1/')
    pps=$(sort -n "$tmp/pps" | sed -n 2p)
    name=$(echo "$chain" | sed 's/ / -> /g')
    printf '| %s | %s | %s | %s | %s |\n' "$name" "$shown" "$pair" "$drop" "$pps" >>"$tmp/accuracy.md"
    # Per kind: "recall (fp-pairs)" from eval's kind table.
    awk '/^kind /{on=1; next} /^throughput/{on=0} on && NF==4 {print $1, $3, $4}' "$tmp/out" >"$tmp/kinds"
    if [ ! -s "$tmp/kinds.md" ]; then
        printf '| chain | settings |' >"$tmp/kinds.md"
        awk '{printf " %s |", $1}' "$tmp/kinds" >>"$tmp/kinds.md"
        printf '\n|---|---|' >>"$tmp/kinds.md"
        awk '{printf "---|"}' "$tmp/kinds" >>"$tmp/kinds.md"
        printf '\n' >>"$tmp/kinds.md"
    fi
    printf '| %s | %s |' "$name" "$shown" >>"$tmp/kinds.md"
    awk '{printf " %s (%s) |", $2, $3}' "$tmp/kinds" >>"$tmp/kinds.md"
    printf '\n' >>"$tmp/kinds.md"
}

echo "| chain | settings | pairF1 | dropF1 | pages/s |" >"$tmp/accuracy.md"
echo "|---|---|---|---|---|" >>"$tmp/accuracy.md"
: >"$tmp/kinds.md"
row "exact simhash chunks" "defaults (the default chain)" ""
row "exact simhash" "defaults" ""
row "exact chunks" "defaults" ""
row "exact minhash" "defaults (word 5-shingles, 128 OPH, b=32 r=4, near 0.4)" ""
row "exact minhash" '`unit = "byte"`, `shingle = 20`' "[plugins.minhash]
unit = \"byte\"
shingle = 20"
row "exact minhash" '`scheme = "seeds"` (128 seeded xxh3)' "[plugins.minhash]
scheme = \"seeds\""
row "exact min_n" "defaults (word 5-shingles, n=128, near 0.5)" ""
row "exact mod_n" "defaults (word 5-shingles, n=8, near 0.4, containment 0.8)" ""
row "exact bsw" "defaults (40-byte window, n=32, near 0.4, containment 0.8)" ""
row "exact sentence" "defaults (allowed 20%, sentences of >= 4 words)" ""
row "exact multiref" "defaults (shipped reference, t1 0.99, t2 0.98)" ""
row "exact simhash minhash" "defaults" ""

"$bin" --threads 1 compare --bench "$bench" >"$tmp/sizes.md"
"$bin" --threads 1 compare --clough "$clough" >"$tmp/graded.md"

if [ -z "$write" ]; then
    for b in accuracy kinds sizes graded; do
        cat "$tmp/$b.md"
        echo
    done
    exit 0
fi
doc=$here/docs/detectors.md
for b in accuracy kinds sizes graded; do
    grep -q "^<!-- generated:$b -->" "$doc" || { echo "no <!-- generated:$b --> marker in $doc" >&2; exit 1; }
    awk -v name="$b" -v file="$tmp/$b.md" '
        $0 == "<!-- generated:" name " -->" { print; while ((getline l < file) > 0) print l; skip = 1; next }
        $0 == "<!-- /generated:" name " -->" { skip = 0 }
        !skip { print }
    ' "$doc" >"$tmp/doc" && cp "$tmp/doc" "$doc"
done
echo "updated $doc"
