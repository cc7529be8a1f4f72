"""datasketch MinHash + MinHashLSH on neardup's exported shingle sets.

Usage: python datasketch_compare.py SHINGLES.tsv RUST_PAIRS.tsv RUST_SECONDS

Reads SHINGLES.tsv (key<TAB>shingle<TAB>..., written by
`cargo run --release --example minhash_bench -- export`), encodes the
shingles to bytes (not timed: the Rust side times from parsed strings
too), then times, per document in file order: MinHash(num_perm=128) over
the shingles (update_batch, datasketch's default SHA-1 hashing), an LSH
query and the insert, with MinHashLSH(num_perm=128, params=(32, 4)): the
banding of our minhash plugin's defaults (b=32, r=4, threshold ~0.42).

Prints the timing, the speed ratio against RUST_SECONDS, and how the two
candidate pair sets overlap, with the exact Jaccard of the shingle sets of
the pairs only one side found.
"""

import sys
import time

from datasketch import MinHash, MinHashLSH

NUM_PERM = 128
BANDS, ROWS = 32, 4


def read_docs(path):
    docs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            docs.append((fields[0], [s.encode("utf-8") for s in fields[1:]]))
    return docs


def read_pairs(path):
    pairs = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            a, b = line.rstrip("\n").split("\t")
            pairs.add(frozenset((a, b)))
    return pairs


def jaccard(a, b):
    return len(a & b) / max(1, len(a | b))


def main():
    shingles_path, rust_pairs_path, rust_seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    docs = read_docs(shingles_path)

    start = time.perf_counter()
    lsh = MinHashLSH(num_perm=NUM_PERM, params=(BANDS, ROWS))
    pairs = set()
    for key, shingles in docs:
        m = MinHash(num_perm=NUM_PERM)
        m.update_batch(shingles)
        for other in lsh.query(m):
            pairs.add(frozenset((key, other)))
        lsh.insert(key, m)
    py_seconds = time.perf_counter() - start

    rust = read_pairs(rust_pairs_path)
    sets = {k: set(v) for k, v in docs}
    both = pairs & rust
    only_py = pairs - rust
    only_rust = rust - pairs

    def high(ps, t=0.5):
        return sum(1 for p in ps if jaccard(*(sets[k] for k in p)) >= t)

    print(f"docs={len(docs)} shingles={sum(len(v) for _, v in docs)}")
    print(f"datasketch_seconds={py_seconds:.3f} rust_seconds={rust_seconds:.4f} "
          f"ratio={py_seconds / rust_seconds:.1f}x")
    print(f"candidate_pairs datasketch={len(pairs)} rust={len(rust)} both={len(both)} "
          f"only_datasketch={len(only_py)} only_rust={len(only_rust)} "
          f"jaccard_of_pair_sets={len(both) / max(1, len(pairs | rust)):.3f}")
    print(f"pairs with exact shingle Jaccard >= 0.5: both={high(both)} "
          f"only_datasketch={high(only_py)} only_rust={high(only_rust)}")


if __name__ == "__main__":
    main()
