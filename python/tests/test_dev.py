"""The package decides as the CLI does: ``check`` over the dev benchmark in
manifest order gives ``neardup dedup``'s clusters.tsv, line for line."""

from __future__ import annotations

import csv
import subprocess

from conftest import dev_bench, missing, neardup_bin, page

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


def test_signatures_are_the_columns_neardup_export_writes(tmp_path):
    try:
        import pyarrow.parquet as pq
    except ImportError:
        missing("pyarrow (the test extra)")
    docs = tmp_path / "docs"
    docs.mkdir()
    pages = {"a": ("https://a.example/x", "article.html"), "u": ("https://u.example/y", "unrelated.html")}
    lines = ["doc_id\turl\tpath"]
    for key, (url, name) in pages.items():
        (docs / name).write_bytes(page(name))
        lines.append(f"{key}\t{url}\tdocs/{name}")
    (tmp_path / "m.tsv").write_text("\n".join(lines) + "\n")
    index, out = tmp_path / "i.redb", tmp_path / "x.parquet"
    binary = neardup_bin()
    subprocess.run(
        [binary, "dedup", str(tmp_path / "m.tsv"), "--out", str(tmp_path / "o"), "--index", str(index), "--no-report"],
        check=True,
        capture_output=True,
    )
    subprocess.run([binary, "export", "--index", str(index), "--out", str(out)], check=True, capture_output=True)
    rows = pq.read_table(out).to_pylist()
    assert sorted(r["key"] for r in rows) == ["a", "u"]
    d = neardup.Deduper()
    for r in rows:
        url, name = pages[r["key"]]
        s = d.signatures(url, page(name), key=r["key"])
        for column in ("key", "url", "site", "exact", "simhash", "chunks"):
            assert s[column] == r[column], (r["key"], column)
