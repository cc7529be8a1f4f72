#!/bin/sh
# Our MinHash + LSH plugin vs Python's datasketch (MinHash + MinHashLSH,
# num_perm = 128, bands 32 x rows 4 like the plugin's defaults) on the same
# word 5-shingle sets, in one run: prints both timings, the ratio and the
# overlap of the candidate pairs.
#
# Usage: scripts/datasketch-compare.sh [CORPUS_DIR...]
# (default: the PAN text-alignment corpus, suspicious and source documents,
# ../shared/datasets/pan-text-alignment/{susp,final_txt_files}).
# Creates a virtualenv under target/ (CARGO_TARGET_DIR if set) and
# installs datasketch into it with pip. Timed on both sides: hashing the
# shingle strings, the sketch, the LSH query and insert, per document; not
# timed: reading and parsing the shingle file.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$here/target}
if [ "$#" -eq 0 ]; then
    pan=$here/../shared/datasets/pan-text-alignment
    set -- "$pan/susp" "$pan/final_txt_files"
fi
for d in "$@"; do
    [ -d "$d" ] || { echo "no corpus directory $d" >&2; exit 1; }
done
venv=$target/datasketch-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -c 'import datasketch' 2>/dev/null ||
    "$venv/bin/pip" install -q datasketch
work=$target/datasketch-compare
mkdir -p "$work"
cd "$here"
cargo build -q --release --example minhash_bench
bin=$target/release/examples/minhash_bench
"$bin" export "$work/shingles.tsv" "$@"
rust=$("$bin" bench "$work/shingles.tsv" "$work/rust-pairs.tsv")
echo "$rust"
secs=$(printf '%s' "$rust" | sed 's/.*rust_seconds=\([0-9.]*\).*/\1/')
"$venv/bin/python" "$here/scripts/datasketch_compare.py" \
    "$work/shingles.tsv" "$work/rust-pairs.tsv" "$secs"
"$venv/bin/python" -c 'import importlib.metadata as m; print("datasketch", m.version("datasketch"), "numpy", m.version("numpy"))'
