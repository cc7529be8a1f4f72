"""neardup.spark in local mode: a small site and WARC file with known copies,
and the dev benchmark scored against neardup dedup."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys

import pytest
from conftest import SHARED, article, dev_bench, html, missing, neardup_bin

import neardup
import neardup.spark


@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None:
        missing("Java (a JRE 17+ for Spark: apt-get install default-jre-headless)")
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        missing("pyspark (pip install pyspark)")
    import os

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("neardup-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def site(tmp_path):
    """A manifest of 10 pages: article 0 and two copies of it (one in other
    chrome, one with an edit), article 1 and its copy, five distinct ones."""
    docs = tmp_path / "docs"
    docs.mkdir()
    a0, a1 = article(0, 300), article(1, 300)
    pages = [
        ("p0", html("Zero", a0)),
        ("p1", html("One", a1)),
        ("p2", html("Zero", a0, "<nav><a href='/'>Home</a> <a href='/x'>Other site</a></nav>")),
        ("p3", html("Two", article(2, 300))),
        ("p4", html("Zero", a0.replace("harbour", "harbor", 2))),
        ("p5", html("Three", article(3, 300))),
        ("p6", html("One", a1)),
        ("p7", html("Four", article(4, 300))),
        ("p8", html("Five", article(5, 300))),
        ("p9", html("Six", article(6, 300))),
    ]
    lines = ["doc_id\turl\tpath"]
    for key, body in pages:
        (docs / f"{key}.html").write_bytes(body)
        lines.append(f"{key}\thttps://{key}.example/page\tdocs/{key}.html")
    (tmp_path / "manifest.tsv").write_text("\n".join(lines) + "\n")
    return tmp_path / "manifest.tsv", dict(pages)


EXPECTED = {"p0": "p0", "p2": "p0", "p4": "p0", "p1": "p1", "p6": "p1"}


def clusters(spark, out):
    rows = spark.read.parquet(str(out / "pages")).collect()
    return {r["key"]: r["cluster_id"] for r in rows}, {r["key"]: r["first"] for r in rows}


def test_a_small_site_clusters_as_expected(spark, tmp_path):
    manifest, pages = site(tmp_path)
    out = tmp_path / "out"
    summary = neardup.spark.run(spark, out=out, manifest=manifest, partitions=3, tsv=True)
    got, first = clusters(spark, out)
    assert got == {k: EXPECTED.get(k, k) for k in pages}
    assert {k for k, f in first.items() if not f} == {"p2", "p4", "p6"}
    assert summary["pages"] == 10 and summary["kept"] == 7 and summary["dropped"] == 3
    assert summary["verified_pairs"] >= 3
    assert json.loads((out / "summary.json").read_text()) == summary
    tsv = (out / "clusters.tsv").read_text().splitlines()
    assert tsv[0] == "doc_id\tcluster_id" and tsv[1:] == [f"{k}\t{EXPECTED.get(k, k)}" for k in pages]
    pairs = spark.read.parquet(str(out / "pairs")).collect()
    by_later = {r["later"]: r for r in pairs}
    # p6 (seq 6) is an exact copy of p1 (seq 1).
    assert by_later[6]["earlier"] == 1 and by_later[6]["kind"] == "duplicate"


def online_clusters(pages: list[tuple[str, str, bytes]]) -> dict[str, str]:
    """``key -> cluster`` as ``Deduper.check`` decides the pages in order: a
    dropped page joins the cluster of the page it matched."""
    d = neardup.Deduper()
    key_of, cluster = {}, {}
    for key, url, body in pages:
        v = d.check(url, body, "text/html; charset=utf-8")
        cluster[key] = cluster[key_of[v.matched_url]] if v.is_drop else key
        key_of[url] = key
    return cluster


def hub_site(tmp_path):
    """The issue's example: json.html, csv.html, all.html (holding both
    articles), then a copy of each of the first two."""
    docs = tmp_path / "docs"
    docs.mkdir()
    a_json, a_csv = article(20, 300), article(21, 300)
    both = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>All formats</title></head><body><article>"
        f"<h1>JSON</h1><p>{a_json}</p><h1>CSV</h1><p>{a_csv}</p></article></body></html>"
    ).encode()
    bodies = [
        ("json", html("JSON", a_json)),
        ("csv", html("CSV", a_csv)),
        ("all", both),
        ("json-copy", html("JSON", a_json)),
        ("csv-copy", html("CSV", a_csv)),
    ]
    pages, lines = [], ["doc_id\turl\tpath"]
    for key, body in bodies:
        url = f"https://{key}.example/formats"
        (docs / f"{key}.html").write_bytes(body)
        lines.append(f"{key}\t{url}\tdocs/{key}.html")
        pages.append((key, url, body))
    (tmp_path / "manifest.tsv").write_text("\n".join(lines) + "\n")
    return tmp_path / "manifest.tsv", pages


def test_a_page_holding_two_others_is_kept_as_online(spark, tmp_path):
    """Connected components of the pairs would make all five one cluster
    (all.html is a partner of both copies); online, and so on Spark, the
    three first pages are kept and each copy joins its own page."""
    manifest, pages = hub_site(tmp_path)
    want = {"json": "json", "csv": "csv", "all": "all", "json-copy": "json", "csv-copy": "csv"}
    assert online_clusters(pages) == want
    out = tmp_path / "out"
    summary = neardup.spark.run(spark, out=out, manifest=manifest, partitions=2, tsv=True)
    got, first = clusters(spark, out)
    assert got == want
    assert {k for k, f in first.items() if f} == {"json", "csv", "all"}
    assert summary["kept"] == 3 and summary["dropped"] == 2
    # The hub: each copy was verified against all.html too, so the pairs
    # alone would join the five pages; and all.html is no copy of either.
    pairs = {(r["earlier"], r["later"]) for r in spark.read.parquet(str(out / "pairs")).collect()}
    assert {(0, 3), (2, 3), (1, 4), (2, 4)} <= pairs
    assert not {(0, 2), (1, 2)} & pairs


def sequential(n: int, pairs: list[tuple], index_near: bool) -> dict[int, int]:
    """The online rule, page after page: ``seq -> label`` for pages 0..n-1."""
    chain = ["exact", "simhash", "chunks"]

    def order(p):
        earlier, _, kind, detector, similarity, covered = p
        if detector == "content":
            return (len(chain), 0, -covered, earlier)
        return (chain.index(detector), -(kind == "duplicate"), -similarity, earlier)

    indexed, label = {}, {}
    for page in range(n):
        matches = sorted((p for p in pairs if p[1] == page and indexed[p[0]]), key=order)
        if matches:
            m = matches[0]
            label[page], indexed[page] = label[m[0]], index_near and m[2] == "near_duplicate"
        else:
            label[page], indexed[page] = page, True
    return label


def test_settle_decides_pages_as_check_does_in_input_order(spark):
    """The rounds of step 4 against the online rule run page after page, on
    made-up pairs: a chain (a page matching only a dropped page is kept),
    a hub, ties broken as check ranks matches, and a random graph."""
    import random

    def pair(earlier, later, kind="near_duplicate", detector="simhash", similarity=0.9, covered=1.0):
        return (earlier, later, kind, detector, similarity, covered)

    made = [
        # Chain 0 ~ 1 ~ 2 ~ 3: 1 dropped, 2 kept (1 is not in the index), 3 dropped into 2.
        pair(0, 1),
        pair(1, 2),
        pair(2, 3),
        # Hub 4, 5, 6 (holds both), copies 7 and 8: 6 kept, the copies join 4 and 5.
        pair(4, 7, "duplicate", "exact", 1.0),
        pair(6, 7, "near_duplicate", "chunks", 0.95),
        pair(5, 8, "duplicate", "exact", 1.0),
        pair(6, 8, "near_duplicate", "chunks", 0.95),
        # 11 matches 9 and 10 (both kept): the stronger simhash match wins,
        # then an earlier detector of the chain, then the fallback last.
        pair(9, 11, similarity=0.91),
        pair(10, 11, similarity=0.97),
        pair(9, 12, "near_duplicate", "chunks", 0.99),
        pair(10, 12, "near_duplicate", "simhash", 0.9),
        pair(9, 13, "duplicate", "content", 0.8, covered=0.9),
        pair(10, 13, "near_duplicate", "chunks", 0.9),
    ]
    rng = random.Random(28)
    n = 60
    drawn = {(a, b) for b in range(14, n) for a in range(14, b) if rng.random() < 0.08}
    kinds = ("duplicate", "near_duplicate")
    made += [pair(a, b, rng.choice(kinds), rng.choice(["simhash", "chunks"]), rng.random()) for a, b in sorted(drawn)]
    df = spark.createDataFrame(made, neardup.spark._PAIRS)
    conf = neardup.Deduper().config()
    assert conf["decide"]["detectors"] == ["exact", "simhash", "chunks"]
    chain, hub, ties = {0: 0, 1: 0, 2: 2, 3: 2}, {4: 4, 5: 5, 6: 6, 7: 4, 8: 5}, {9: 9, 10: 10, 11: 10, 12: 10, 13: 10}
    assert sequential(14, made, False) == chain | hub | ties
    # Near duplicates in the index: 2 matches 1, which is.
    assert sequential(4, made, True) == {0: 0, 1: 0, 2: 0, 3: 0}
    for index_near in (False, True):
        conf["decide"]["index_near_duplicates"] = index_near
        labels, rounds = neardup.spark.settle(df, conf)
        got = {r["seq"]: r["label"] for r in labels.collect()}
        assert set(got) == {s for p in made for s in p[:2]}
        want = sequential(n, made, index_near)
        assert got == {s: want[s] for s in got}, index_near
        assert rounds >= (3 if not index_near else 1)


def test_the_result_does_not_depend_on_partitioning(spark, tmp_path):
    manifest, _ = site(tmp_path)
    runs = []
    for n in (1, 5):
        out = tmp_path / f"out{n}"
        neardup.spark.run(spark, out=out, manifest=manifest, partitions=n)
        runs.append(clusters(spark, out))
    assert runs[0] == runs[1]


def test_warc_input(spark, tmp_path):
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    _, pages = site(tmp_path)
    path = tmp_path / "crawl.warc.gz"
    with path.open("wb") as f:
        writer = WARCWriter(f, gzip=True)
        for key, body in pages.items():
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1")
            rec = writer.create_warc_record(
                f"https://{key}.example/page", "response", payload=io.BytesIO(body), http_headers=headers
            )
            writer.write_record(rec)
        # Not a page: skipped.
        headers = StatusAndHeaders("200 OK", [("Content-Type", "image/png")], protocol="HTTP/1.1")
        writer.write_record(
            writer.create_warc_record(
                "https://img.example/x.png", "response", payload=io.BytesIO(b"\x89PNG"), http_headers=headers
            )
        )
    out = tmp_path / "out"
    summary = neardup.spark.run(spark, out=out, warcs=[str(path)], partitions=2)
    assert summary["pages"] == 10
    rows = spark.read.parquet(str(out / "pages")).collect()
    by_url = {r["url"]: r for r in rows}
    cluster_url = {r["key"]: r["url"] for r in rows}
    for key in pages:
        r = by_url[f"https://{key}.example/page"]
        want = EXPECTED.get(key, key)
        assert cluster_url[r["cluster_id"]] == f"https://{want}.example/page", key


def test_warc_and_output_by_uri_go_through_spark_file_systems(spark, tmp_path):
    """hdfs:// or s3a:// on a cluster; file:// takes the same path here."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    _, pages = site(tmp_path)
    uris = []
    for part, keys in enumerate((list(pages)[:5], list(pages)[5:])):
        path = tmp_path / f"part{part}.warc"
        with path.open("wb") as f:
            writer = WARCWriter(f, gzip=False)
            for key in keys:
                headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
                writer.write_record(
                    writer.create_warc_record(
                        f"https://{key}.example/page", "response", payload=io.BytesIO(pages[key]), http_headers=headers
                    )
                )
        uris.append(path.as_uri())
    out = (tmp_path / "out").as_uri()
    summary = neardup.spark.run(spark, out=out, warcs=uris, partitions=2)
    assert summary["pages"] == 10 and summary["kept"] == 7
    rows = spark.read.parquet(f"{out}/pages").collect()
    url_of = {r["key"]: r["url"] for r in rows}
    got = {r["url"]: url_of[r["cluster_id"]] for r in rows}
    assert got == {f"https://{k}.example/page": f"https://{EXPECTED.get(k, k)}.example/page" for k in pages}
    # Input order is file order, then record order: p0 is the first page.
    assert min(rows, key=lambda r: r["seq"])["url"] == "https://p0.example/page"
    assert json.loads("".join(spark.sparkContext.textFile(f"{out}/summary.json").collect())) == summary
    with pytest.raises(ValueError, match="not a local folder"):
        neardup.spark.run(spark, out=out, warcs=uris, tsv=True)


def test_the_command_line_reports_bad_input(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("id\tfile\nx\ty\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "neardup.spark",
            "--manifest",
            str(bad),
            "--out",
            str(tmp_path / "o"),
            "--master",
            "local[1]",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2
    assert "must name the columns doc_id and path" in proc.stderr


def test_dev_benchmark_pair_f1_is_within_0005_of_neardup_dedup(spark, tmp_path):
    dev = dev_bench()
    score = SHARED / "bench" / "score.py"
    cli = tmp_path / "cli"
    subprocess.run(
        [neardup_bin(), "dedup", str(dev / "manifest.tsv"), "--out", str(cli), "--no-report"],
        check=True,
        capture_output=True,
    )
    out = tmp_path / "spark"
    neardup.spark.run(spark, out=out, manifest=dev / "manifest.tsv", tsv=True)

    def pair_f1(pred):
        last = (
            subprocess.run(
                [sys.executable, str(score), str(dev / "labels.tsv"), str(pred)],
                check=True,
                capture_output=True,
                text=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        return float(re.search(r"pairF1=([0-9.]+)", last).group(1))

    cli_f1, spark_f1 = pair_f1(cli / "clusters.tsv"), pair_f1(out / "clusters.tsv")
    print(f"pairF1: neardup dedup {cli_f1:.4f}, neardup.spark {spark_f1:.4f}")
    assert cli_f1 > 0.95
    assert abs(spark_f1 - cli_f1) <= 0.005
