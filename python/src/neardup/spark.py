"""Batch near-duplicate detection on Apache Spark.

    python -m neardup.spark --manifest pages.tsv --out OUT [--config neardup.toml]
    python -m neardup.spark --warc a.warc.gz b.warc.gz --out OUT
    spark-submit --archives neardup-env.tar.gz#environment .../neardup/spark.py ...

On a cluster the package (a compiled extension) is shipped to the executors
as a packed virtual environment, not with ``--py-files``: see
docs/python.md, "On a cluster".

The same decisions as ``neardup dedup``, computed the way a distributed
engine can (docs/scaling.md, "The offline batch path on an existing
engine"):

1. **Sign** (``mapPartitions``): each page is analyzed once by the
   package (:meth:`neardup.Deduper.signatures`): its ``exact`` hash, its
   candidate keys (the index's own: SimHash blocks, chunk samples), and
   its *comparable* bytes.
2. **Candidates** (joins): every earlier page that posted a key a later
   page probes with is a candidate for it; keys posted by more than
   ``chunks.max_postings`` pages (site chrome) are dropped, as the online
   index saturates them, and each page keeps its 64 candidates per
   detector that share the most keys with it, as the online index ranks
   and verifies them; SimHash candidates further than ``max_distance``
   bits are dropped, as the online index drops them while scanning. Pages with one ``exact`` hash are paired with the
   group's first page (a group of any size costs one pair per page).
3. **Verify** (``mapPartitions``): :meth:`neardup.Deduper.compare` judges
   each pair as ``check`` would (detector similarity and thresholds, the
   content gate); pairs it rejects are dropped.
4. **Decide** (rounds of joins): as ``neardup dedup`` decides page after
   page, a page is dropped if and only if a verified earlier partner of
   it is still in the online index (kept, or a near duplicate with
   ``decide.index_near_duplicates``); it joins the cluster of the first
   such partner in the order ``check`` ranks its matches, and a kept
   page starts its own cluster, named after it (:func:`settle`).

Output in ``OUT``: ``pages/`` (Parquet: ``seq``, ``key``, ``url``,
``site``, ``cluster_id``, ``first``: true for the page a cluster is named
after and kept), ``pairs/`` (Parquet: the verified pairs with kind,
detector and similarity), ``summary.json`` (counts and the time of each
step), and with ``--tsv`` also ``clusters.tsv`` (``doc_id``,
``cluster_id``, as ``neardup dedup`` writes it; collected on the driver).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import pathlib
import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any

import neardup

#: Candidates verified per detector and page, the most promising first (as
#: the online deduper's MAX_VERIFY, crates/core/src/deduper/decide.rs).
MAX_VERIFY = 64

#: Spark schema of the signed pages.
_SIGNED = (
    "seq LONG, key STRING, url STRING, site STRING, exact LONG, simhash LONG, "
    "posted MAP<STRING, ARRAY<LONG>>, probed MAP<STRING, ARRAY<LONG>>, comparable BINARY"
)

#: Spark schema of the verified pairs.
_PAIRS = "earlier LONG, later LONG, kind STRING, detector STRING, similarity DOUBLE, covered DOUBLE"


def read_manifest(path: str | os.PathLike[str]) -> list[tuple[int, str, str, str]]:
    """``(seq, key, url, path)`` for each page of a manifest TSV (``neardup
    dedup``'s input: a header naming ``doc_id`` and ``path``, ``url``
    optional; paths relative to the manifest's folder), in file order."""
    path = pathlib.Path(path)
    base = path.parent.resolve()
    rows = []
    seen: set[str] = set()
    with path.open(encoding="utf-8-sig", newline="") as f:
        reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = [h.strip() for h in next(reader, [])]
        if "doc_id" not in header or "path" not in header:
            raise ValueError(f"{path}: header {header!r} must name the columns doc_id and path (url optional)")
        col = {h: i for i, h in enumerate(header)}
        for line, row in enumerate(reader, start=2):
            if not row or not any(field.strip() for field in row):
                continue
            if len(row) <= max(col["doc_id"], col["path"]):
                print(f"{path}:{line}: too few fields; skipped", file=sys.stderr)
                continue
            key, rel = row[col["doc_id"]].strip(), row[col["path"]].strip()
            url = row[col["url"]].strip() if "url" in col and col["url"] < len(row) else ""
            if not key or not rel or key in seen:
                print(f"{path}:{line}: empty or repeated doc_id {key!r}; skipped", file=sys.stderr)
                continue
            seen.add(key)
            rows.append((len(rows), key, url or key, str(base / rel)))
    return rows


def _remote(path: str) -> bool:
    """A URI for one of Spark's file systems (``hdfs://``, ``s3a://``,
    ``file://``...): read and written through Spark, not by this process."""
    scheme, sep, _ = str(path).partition("://")
    return bool(sep) and len(scheme) > 1


def _index_of(order: dict[str, int], path: str) -> int:
    """The position of ``path`` in the input list, under the spelling Spark
    gives it (it may qualify the host or port)."""
    from urllib.parse import urlparse

    if path in order:
        return order[path]
    for given, i in order.items():
        if urlparse(path).path == urlparse(given).path:
            return i
    raise ValueError(f"{path}: not among the input files (give remote WARC files one by one, not folders or globs)")


def _warc_pages(index: int, path: str, data: bytes | None = None) -> Iterator[tuple[int, str, str, bytes, str | None]]:
    """``(seq, key, url, body, content_type)`` of each HTML response or
    resource record of one WARC file (read from ``path``, or ``data`` when
    given); ``seq`` orders files, then records."""
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") if data is None else io.BytesIO(data) as f:
        for n, record in enumerate(ArchiveIterator(f)):
            if record.rec_type not in ("response", "resource"):
                continue
            url = record.rec_headers.get_header("WARC-Target-URI") or ""
            if not url:
                continue
            if record.http_headers is not None:
                if record.http_headers.get_statuscode() != "200":
                    continue
                content_type = record.http_headers.get_header("Content-Type")
            else:
                content_type = record.rec_headers.get_header("Content-Type")
            if content_type and "html" not in content_type.lower():
                continue
            key = (record.rec_headers.get_header("WARC-Record-ID") or f"{path}@{n}").strip("<>")
            yield (index << 32 | n, key, url.strip("<>"), record.content_stream().read(), content_type)


def _sign(config: dict[str, Any]):
    """The ``mapPartitions`` function of step 1 (one deduper per partition)."""

    def sign(pages: Iterable[tuple]) -> Iterator[tuple]:
        dedup = neardup.Deduper(config)
        for seq, key, url, body, content_type in pages:
            s = dedup.signatures(url, body, content_type, key=key)
            yield (
                seq,
                key,
                s["url"],
                s["site"],
                s.get("exact"),
                s.get("simhash"),
                s["posted"],
                s["probed"],
                s["comparable"],
            )

    return sign


def _read_files(rows: Iterable[tuple[int, str, str, str]]) -> Iterator[tuple]:
    """Manifest rows to pages (a file that cannot be read is reported and skipped)."""
    for seq, key, url, path in rows:
        try:
            body = pathlib.Path(path).read_bytes()
        except OSError as err:
            print(f"neardup.spark: {key}: cannot read {path}: {err}; skipped", file=sys.stderr)
            continue
        yield (seq, key, url, body, None)


def _verify(config: dict[str, Any]):
    """The ``mapPartitions`` function of step 3."""

    def verify(pairs: Iterable[Any]) -> Iterator[tuple]:
        dedup = neardup.Deduper(config)
        for earlier, later, a, b in pairs:
            m = dedup.compare(a, b)
            if m is not None:
                yield (earlier, later, m["kind"], m["detector"], m["similarity"], m["covered"])

    return verify


def _match_order(conf: dict[str, Any]):
    """A struct column ranking a verified pair among the later page's
    others, smallest first, as ``check`` ranks the candidates it matched
    (``Deduper::find_match``, crates/core/src/deduper/decide.rs): the first
    detector of the chain (``decide.detectors``) that matched, then the
    duplicates before the near duplicates, then the strongest score, then
    the earliest page; the block fallback (detector ``content``) comes
    after the chain and takes the page covering most of this one's
    blocks."""
    from pyspark.sql import functions as F

    chain = list(conf.get("decide", {}).get("detectors", []))
    position = F.lit(len(chain))
    for i, name in reversed(list(enumerate(chain))):
        position = F.when(F.col("detector") == name, F.lit(i)).otherwise(position)
    fallback = F.col("detector") == "content"
    level = F.when(fallback, F.lit(0)).otherwise((F.col("kind") == "duplicate").cast("int"))
    score = F.coalesce(F.when(fallback, F.col("covered")).otherwise(F.col("similarity")), F.lit(0.0))
    return F.struct(
        position.alias("position"), (-level).alias("level"), (-score).alias("score"), F.col("earlier").alias("page")
    )


def settle(pairs, conf: dict[str, Any], checkpoint_every: int = 4):
    """Step 4: each page's fate as ``check`` decides it in input order, from
    the verified ``pairs`` (``earlier`` judged the kept side, ``later`` the
    candidate copy: ``compare`` is not symmetric).

    Online, a page is judged against the earlier pages still in the index:
    the kept ones (and the near duplicates, with
    ``decide.index_near_duplicates``). So a page is dropped if and only if
    one of its verified earlier partners is in the index, it matches the
    first such partner in :func:`_match_order` and joins that partner's
    cluster; a page with none is kept and starts its own. A page's fate
    depends only on earlier pages', so it is settled in rounds: each
    round, a page is settled once its partners are settled up to the
    first one in the index in match order (or all of them, none in the
    index). The earliest unsettled page always is, so every round settles
    at least one page; rounds are bounded by the longest chain of pairs
    (a page, the partner deciding it, that partner's...) and are few when
    copies cluster around their first page. Each round is one join of the
    open pairs with the settled pages and one group-by on the later page.

    Returns ``(seq, label)`` for every page in a pair, ``label`` the
    ``seq`` of its cluster's first page (the page itself when kept), and
    the number of rounds."""
    from pyspark.sql import functions as F

    index_near = bool(conf.get("decide", {}).get("index_near_duplicates", True))
    edges = pairs.select("earlier", "later", "kind", _match_order(conf).alias("order")).cache()
    laters = edges.select(F.col("later").alias("seq")).distinct()
    # Pages with no earlier partner are kept, each its own cluster.
    roots = edges.select(F.col("earlier").alias("seq")).distinct().join(laters, "seq", "left_anti")
    settled = roots.select("seq", F.lit(True).alias("indexed"), F.col("seq").alias("label")).localCheckpoint()
    pending, cached = edges, [edges]
    unsettled = laters.count()
    rounds = 0
    while unsettled:
        rounds += 1
        # Per open page, its first partner in match order not known to be
        # out of the index (unsettled, or in the index) decides; none
        # left (all settled, out of the index): the page is kept.
        looked = pending.join(settled.withColumnRenamed("seq", "earlier"), "earlier", "left")
        deciding = F.when(F.col("indexed").isNull() | F.col("indexed"), F.struct("order", "indexed", "label", "kind"))
        first = looked.groupBy("later").agg(F.min(deciding).alias("f"))
        kept = F.col("f").isNull()
        # A dropped page joins its match's cluster; it is in the index
        # only as a near duplicate, if they are.
        indexed = F.lit(index_near) & (F.col("f.kind") == "near_duplicate")
        new = (
            first.filter(kept | F.col("f.indexed").isNotNull())
            .select(
                F.col("later").alias("seq"),
                F.when(kept, F.lit(True)).otherwise(indexed).alias("indexed"),
                F.when(kept, F.col("later")).otherwise(F.col("f.label")).alias("label"),
            )
            .localCheckpoint()
        )
        n = new.count()
        if n == 0:
            raise RuntimeError("neardup.spark: a round settled no page (pairs not ordered earlier < later?)")
        unsettled -= n
        settled = settled.union(new)
        pending = pending.join(new.select(F.col("seq").alias("later")), "later", "left_anti")
        if rounds % checkpoint_every == 0:
            settled, pending = settled.localCheckpoint(), pending.localCheckpoint()
        else:
            pending = pending.cache()
            cached.append(pending)
    labels = settled.select("seq", "label").localCheckpoint()
    for df in cached:
        df.unpersist()
    return labels, rounds


def pages_of(sc, *, manifest=None, warcs=None, partitions: int):
    """The input as an RDD of ``(seq, key, url, body, content_type)``."""
    if manifest is not None:
        rows = read_manifest(manifest)
        return sc.parallelize(rows, max(1, min(partitions, len(rows)))).mapPartitions(_read_files)
    if any(_remote(p) for p in warcs):
        # hdfs://, s3a://...: Spark's own file systems read each file whole
        # (one task per file: size executor memory for the largest).
        order = {p: i for i, p in enumerate(warcs)}
        files = sc.binaryFiles(",".join(warcs), minPartitions=len(warcs))
        pages = files.flatMap(lambda f: _warc_pages(_index_of(order, f[0]), f[0], f[1]))
    else:
        files = [(i, str(pathlib.Path(p).resolve())) for i, p in enumerate(warcs)]
        pages = sc.parallelize(files, max(1, len(files))).flatMap(lambda f: _warc_pages(*f))
    return pages.repartition(partitions)


def sign(spark, pages, conf: dict[str, Any]):
    """Step 1: the signed pages (schema ``_SIGNED``), one row per page."""
    return spark.createDataFrame(pages.mapPartitions(_sign(conf)), _SIGNED)


def candidates(signed, conf: dict[str, Any]):
    """Step 2: candidate pairs ``(earlier, later)`` of the signed pages,
    distinct, ``earlier < later``."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    max_postings = int(conf.get("chunks", {}).get("max_postings", 0) or 0)
    max_distance = min(int(conf.get("simhash", {}).get("max_distance", 3)), 7)
    posted = signed.select("seq", F.explode("posted").alias("detector", "keys")).select(
        F.col("seq").alias("earlier"), "detector", F.explode("keys").alias("k")
    )
    if max_postings > 0:
        # Chunk hashes on more pages than the online index keeps postings
        # for are site chrome: the online index stops answering them.
        common = (
            posted.filter(F.col("detector") == "chunks")
            .groupBy("detector", "k")
            .count()
            .filter(F.col("count") > max_postings)
            .select("detector", "k")
        )
        posted = posted.join(common, ["detector", "k"], "left_anti")
    probed = signed.select("seq", F.explode("probed").alias("detector", "keys")).select(
        F.col("seq").alias("later"), "detector", F.explode("keys").alias("k")
    )
    # As the online index ranks a page's candidates (most shared keys
    # first, then the earliest page) and verifies at most MAX_VERIFY of
    # them per detector: a page sharing frequent chunks with thousands of
    # others costs 64 comparisons, not thousands.
    shared = (
        posted.join(probed, ["detector", "k"])
        .filter("earlier < later")
        .groupBy("detector", "earlier", "later")
        .agg(F.count("*").alias("shared"))
    )
    best = Window.partitionBy("detector", "later").orderBy(F.desc("shared"), "earlier")
    by_keys = shared.withColumn("rank", F.row_number().over(best)).filter(F.col("rank") <= MAX_VERIFY)
    # A SimHash block is 16 bits: at scale most pages sharing one are
    # strangers. The online index checks the Hamming distance as it scans
    # a bucket, before any record is read; so does this, before the
    # comparable bytes are joined in.
    fingerprints = signed.select("seq", "simhash")
    by_keys = (
        by_keys.join(fingerprints.withColumnRenamed("seq", "earlier").withColumnRenamed("simhash", "fa"), "earlier")
        .join(fingerprints.withColumnRenamed("seq", "later").withColumnRenamed("simhash", "fb"), "later")
        .filter((F.col("detector") != "simhash") | (F.bit_count(F.col("fa").bitwiseXOR(F.col("fb"))) <= max_distance))
        .select("earlier", "later")
    )
    # Exact copies: each page of a group paired with the group's first.
    with_exact = signed.filter(F.col("exact").isNotNull())
    firsts = with_exact.groupBy("exact").agg(F.min("seq").alias("earlier"))
    by_exact = with_exact.join(firsts, "exact").filter("seq != earlier").select("earlier", F.col("seq").alias("later"))
    return by_keys.union(by_exact).distinct()


def verify(spark, signed, pairs, conf: dict[str, Any]):
    """Step 3: the candidate ``pairs`` that ``compare`` confirms, with its
    judgement (schema ``_PAIRS``)."""
    bodies = signed.select("seq", "comparable")
    joined = pairs.join(bodies.withColumnRenamed("seq", "earlier").withColumnRenamed("comparable", "a"), "earlier")
    joined = joined.join(bodies.withColumnRenamed("seq", "later").withColumnRenamed("comparable", "b"), "later")
    joined = joined.select("earlier", "later", "a", "b")
    return spark.createDataFrame(joined.rdd.mapPartitions(_verify(conf)), _PAIRS)


def clusters(spark, signed, pairs, conf: dict[str, Any]):
    """Step 4: one row per page (``seq``, ``key``, ``url``, ``site``,
    ``cluster_id``, ``first``) and the number of rounds :func:`settle`
    took. A page in no verified pair is kept, its own cluster."""
    from pyspark.sql import functions as F

    labels, rounds = settle(pairs, conf)
    names = signed.select(F.col("seq").alias("label"), F.col("key").alias("cluster_id"))
    result = (
        signed.select("seq", "key", "url", "site")
        .join(labels, "seq", "left")
        .withColumn("label", F.coalesce("label", "seq"))
        .join(names, "label")
        .withColumn("first", F.col("seq") == F.col("label"))
        .select("seq", "key", "url", "site", "cluster_id", "first")
    )
    return result, rounds


def run(
    spark,
    *,
    out: str | os.PathLike[str],
    manifest: str | os.PathLike[str] | None = None,
    warcs: list[str] | None = None,
    config: str | os.PathLike[str] | dict[str, Any] | None = None,
    partitions: int | None = None,
    tsv: bool = False,
) -> dict[str, Any]:
    """Runs the job on ``spark`` (a SparkSession) and returns the summary
    it writes to ``OUT/summary.json``. The steps are the functions above,
    each timed; intermediate results are persisted (memory, then disk) so
    each is computed once."""
    from pyspark import StorageLevel

    if (manifest is None) == (not warcs):
        raise ValueError("give a manifest or WARC files (one of the two)")
    out = str(out)
    local = not _remote(out)
    if local:
        pathlib.Path(out).mkdir(parents=True, exist_ok=True)
    elif tsv:
        raise ValueError(f"--tsv writes clusters.tsv on the driver: {out} is not a local folder")
    # The config in force, as a dict: executors get it by value, so a TOML
    # file needs to exist on the driver only. Invalid config fails here.
    conf = neardup.Deduper(config).config()
    sc = spark.sparkContext
    partitions = partitions or sc.defaultParallelism * 4
    timings: dict[str, float] = {}
    t0 = time.perf_counter()

    def timed(step: str, df):
        t = time.perf_counter()
        df = df.persist(StorageLevel.MEMORY_AND_DISK)
        n = df.count()
        timings[step] = time.perf_counter() - t
        return df, n

    pages = pages_of(sc, manifest=manifest, warcs=warcs, partitions=partitions)
    signed, n_pages = timed("sign", sign(spark, pages, conf))
    found, n_candidates = timed("candidates", candidates(signed, conf))
    pairs, n_pairs = timed("verify", verify(spark, signed, found, conf))

    t = time.perf_counter()
    result, rounds = clusters(spark, signed, pairs, conf)
    result.orderBy("seq").write.mode("overwrite").parquet(f"{out}/pages")
    pairs.orderBy("later", "earlier").write.mode("overwrite").parquet(f"{out}/pairs")
    kept = spark.read.parquet(f"{out}/pages").filter("first").count()
    timings["cluster"] = time.perf_counter() - t
    if tsv:
        with (pathlib.Path(out) / "clusters.tsv").open("w", encoding="utf-8") as f:
            f.write("doc_id\tcluster_id\n")
            for row in spark.read.parquet(f"{out}/pages").orderBy("seq").toLocalIterator():
                f.write(f"{row['key']}\t{row['cluster_id']}\n")
    summary = {
        "pages": n_pages,
        "candidate_pairs": n_candidates,
        "verified_pairs": n_pairs,
        "kept": kept,
        "dropped": n_pages - kept,
        "rounds": rounds,
        "partitions": partitions,
        "seconds": {k: round(v, 3) for k, v in timings.items()},
        "total_seconds": round(time.perf_counter() - t0, 3),
    }
    text = json.dumps(summary, indent=2) + "\n"
    if local:
        (pathlib.Path(out) / "summary.json").write_text(text, encoding="utf-8")
    else:
        sc.parallelize([text], 1).saveAsTextFile(f"{out}/summary.json")
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m neardup.spark",
        description="Near-duplicate clusters of a manifest or WARC files on Apache Spark, written as Parquet.",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--manifest", help="TSV with a header naming doc_id and path (url optional), as neardup dedup reads"
    )
    src.add_argument("--warc", nargs="+", metavar="FILE", help="WARC files (.warc or .warc.gz)")
    p.add_argument("--out", required=True, help="output folder (pages/, pairs/, summary.json)")
    p.add_argument("--config", help="neardup TOML config (default: the built-in defaults)")
    p.add_argument("--partitions", type=int, help="partitions for signing and joins (default: 4 per core)")
    p.add_argument("--master", help="Spark master when not run by spark-submit (default: local[*])")
    p.add_argument("--tsv", action="store_true", help="also write clusters.tsv (doc_id, cluster_id) on the driver")
    p.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting, e.g. spark.driver.memory=4g (repeatable)",
    )
    args = p.parse_args(argv)
    conf = {}
    for item in args.conf:
        key, sep, value = item.partition("=")
        if not sep or not key:
            p.error(f"--conf {item!r}: expected KEY=VALUE")
        conf[key] = value

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("neardup")
    master = args.master
    if not master and not os.environ.get("SPARK_HOME") and "--master" not in os.environ.get("PYSPARK_SUBMIT_ARGS", ""):
        master = "local[*]"
    if master:
        builder = builder.master(master)
    if master and master.startswith("local"):
        # Local workers run this interpreter, the one neardup is installed
        # in (on a cluster, PYSPARK_PYTHON names the executors' own).
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    conf.setdefault("spark.ui.showConsoleProgress", "false")
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    try:
        summary = run(
            spark,
            out=args.out,
            manifest=args.manifest,
            warcs=args.warc,
            config=args.config,
            partitions=args.partitions,
            tsv=args.tsv,
        )
    except (neardup.NeardupError, ValueError, OSError) as err:
        print(f"neardup.spark: {err}", file=sys.stderr)
        return 2
    finally:
        spark.stop()
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
