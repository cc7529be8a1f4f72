"""Speed through the binding: Deduper.check over a manifest in order, against
``neardup dedup`` on the same manifest, both on one analysis thread.

    python bench/speed.py MANIFEST NEARDUP_BIN [--runs 3] [--threads 2]

Prints one JSON object: MB/s of each run and their medians (the CLI's
figure is the one it prints; the binding's counts the same body bytes over
its own wall time, reading the files included), their ratio, and the
binding's MB/s with ``--threads`` Python threads sharing one Deduper.
Runs alternate (CLI, binding, threads) so machine noise hits all alike.
"""

from __future__ import annotations

import argparse
import csv
import json
import pathlib
import re
import statistics
import subprocess
import tempfile
import threading
import time

import neardup


def pages(manifest: pathlib.Path) -> list[tuple[str, pathlib.Path]]:
    with manifest.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [(r.get("url") or r["doc_id"], manifest.parent / r["path"]) for r in rows]


def cli(binary: str, manifest: pathlib.Path) -> float:
    with tempfile.TemporaryDirectory() as out:
        err = subprocess.run(
            [binary, "dedup", str(manifest), "--out", out, "--no-report", "--threads", "1"],
            check=True,
            capture_output=True,
            text=True,
        ).stderr
    return float(re.search(r"= ([0-9.]+) MB/s", err).group(1))


def binding(items: list[tuple[str, pathlib.Path]], threads: int) -> float:
    d = neardup.Deduper()
    total = 0
    lock = threading.Lock()

    def work(share):
        nonlocal total
        n = 0
        for url, path in share:
            body = path.read_bytes()
            n += len(body)
            d.check(url, body)
        with lock:
            total += n

    start = time.perf_counter()
    if threads == 1:
        work(items)
    else:
        ts = [threading.Thread(target=work, args=(items[i::threads],)) for i in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    return total / 1e6 / (time.perf_counter() - start)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("manifest", type=pathlib.Path)
    p.add_argument("neardup_bin")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    items = pages(args.manifest)
    runs: dict[str, list[float]] = {"cli": [], "binding": [], "binding_threads": []}
    for _ in range(args.runs):
        runs["cli"].append(cli(args.neardup_bin, args.manifest))
        runs["binding"].append(binding(items, 1))
        runs["binding_threads"].append(binding(items, args.threads))
    med = {k: statistics.median(v) for k, v in runs.items()}
    print(
        json.dumps(
            {
                "pages": len(items),
                "runs_mb_per_s": runs,
                "median_mb_per_s": med,
                "binding_over_cli": round(med["binding"] / med["cli"], 3),
                "threads": args.threads,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
