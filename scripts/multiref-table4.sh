#!/bin/sh
# Table 4 of Mohammadi & Khasteh (2020): holdout mean absolute error of the
# multi-reference cosine estimate vs reference length and number of parts,
# trained by `neardup train-reference` (population 100, 50 generations,
# seed 1) on the Clough-Stevenson texts. Prints a markdown table.
# Usage: scripts/multiref-table4.sh [NEARDUP_BINARY] [CORPUS_DIR]
set -eu
BIN=${1:-target/release/neardup}
CORPUS=${2:-../shared/datasets/clough-stevenson/data}
if [ ! -d "$CORPUS" ]; then
    echo "corpus $CORPUS not found; skipping" >&2
    exit 0
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "| length (3-grams) | parts | train MAE, generation 0 (random) | train MAE, generation 50 | holdout MAE |"
echo "|---|---|---|---|---|"
for len in 450 600 1000; do
    for parts in 100 150 300; do
        "$BIN" train-reference --text "$CORPUS" --out "$TMP/ref.txt" \
            --population 100 --generations 50 --seed 1 \
            --length "$len" --parts "$parts" 2>/dev/null |
            awk -F'\t' '{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $5, $3, $4 }'
    done
done
