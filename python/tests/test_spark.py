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
