#!/bin/sh
# Prints the detector comparison table of docs/detectors.md: each detector
# chain with its settings on the dev benchmark (pairF1, dropF1, and the
# median pages/s of three single-thread eval runs, end to end: decode,
# extract, normalize, sign, decide).
#
# Usage: scripts/detectors.sh [BENCH_DIR] [NEARDUP_BINARY]
# (defaults: ../shared/bench/neardup-dev and target/release/neardup; build
# with `cargo build --release` first.)
set -eu
bench=${1:-../shared/bench/neardup-dev}
bin=${2:-${CARGO_TARGET_DIR:-target}/release/neardup}
if [ ! -d "$bench" ]; then
    echo "no benchmark at $bench" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# row CHAIN SETTINGS: SETTINGS is TOML (may be empty), CHAIN space-separated.
row() {
    chain=$1
    settings=$2
    printf '%s\n' "$settings" >"$tmp/c.toml"
    args=""
    for d in $chain; do args="$args --detector $d"; done
    # Three runs on one thread: verdicts are deterministic, pages/s is the
    # median (the machine may be shared).
    : >"$tmp/pps"
    for _ in 1 2 3; do
        # shellcheck disable=SC2086
        out=$("$bin" --threads 1 --config "$tmp/c.toml" eval "$bench" $args -q 2>/dev/null)
        printf '%s\n' "$out" | grep '^throughput' | sed 's/.* \([0-9]*\) pages\/s.*/\1/' >>"$tmp/pps"
    done
    last=$(printf '%s\n' "$out" | tail -n 1)
    pair=$(printf '%s' "$last" | sed 's/.*pairF1=\([0-9.]*\).*/\1/')
    drop=$(printf '%s' "$last" | sed 's/.*dropF1=\([0-9.]*\).*/\1/')
    pps=$(sort -n "$tmp/pps" | sed -n 2p)
    shown=$(printf '%s' "$settings" | tr '\n' ' ' | sed 's/ *$//')
    [ -n "$shown" ] || shown="defaults"
    printf '| %s | %s | %s | %s | %s |\n' "$(echo "$chain" | sed 's/ / -> /g')" "$shown" "$pair" "$drop" "$pps"
}

echo "| chain | settings | pairF1 | dropF1 | pages/s |"
echo "|---|---|---|---|---|"
row "exact simhash chunks" ""
row "exact simhash" ""
row "exact chunks" ""
row "exact minhash" ""
row "exact minhash" "[plugins.minhash]
unit = \"byte\"
shingle = 20"
row "exact minhash" "[plugins.minhash]
scheme = \"seeds\""
row "exact min_n" ""
row "exact mod_n" ""
row "exact bsw" ""
row "exact sentence" ""
row "exact simhash minhash" ""
