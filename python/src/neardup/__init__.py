"""neardup: near-duplicate web page detection for crawlers, in-process.

The deduper is the Rust library behind the ``neardup`` command, loaded as
an extension module::

    import neardup

    dedup = neardup.Deduper()                 # in memory; index="pages.redb" persists
    verdict = dedup.check("https://example.com/a", html_bytes)
    if verdict.is_drop:
        print(verdict.kind, "of", verdict.matched_url, "by", verdict.detector)

Also here: :mod:`neardup.scrapy` (a Scrapy downloader middleware using the
deduper in-process) and :mod:`neardup.spark` (batch dedup on Apache Spark).
"""

from ._neardup import ConfigError, Deduper, NeardupError, StoreError, Verdict, __version__

__all__ = ["ConfigError", "Deduper", "NeardupError", "StoreError", "Verdict", "__version__"]
