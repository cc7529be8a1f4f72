"""The package decides as the CLI does: ``check`` over the dev benchmark in
manifest order gives ``neardup dedup``'s clusters.tsv, line for line."""

from __future__ import annotations

import csv
import subprocess

from conftest import dev_bench, neardup_bin

import neardup


def manifest(dev):
    with (dev / "manifest.tsv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [(r["doc_id"], r["url"], dev / r["path"]) for r in rows]


def test_check_over_the_dev_benchmark_gives_the_clusters_of_neardup_dedup(tmp_path):
    dev = dev_bench()
    out = tmp_path / "cli"
    subprocess.run(
        [neardup_bin(), "dedup", str(dev / "manifest.tsv"), "--out", str(out), "--no-report"],
        check=True,
        capture_output=True,
    )
    expected = (out / "clusters.tsv").read_text(encoding="utf-8").splitlines()

    d = neardup.Deduper()
    cluster: dict[str, str] = {}
    lines = ["doc_id\tcluster_id"]
    drops = 0
    for doc_id, url, path in manifest(dev):
        # The manifest's key is the doc id; the binding keys pages by URL.
        v = d.check(url, path.read_bytes())
        if v.is_drop:
            drops += 1
            key = cluster[v.matched_url]
        else:
            key = doc_id
        cluster[url] = key
        lines.append(f"{doc_id}\t{key}")
    assert drops > 100, "the dev benchmark holds many copies"
    assert lines == expected
