"""One Scrapy crawl with ``neardup.scrapy.NeardupMiddleware``, for test_scrapy.py.

Usage: ``scrapy_crawl.py CONFIG_JSON`` with ``start`` (URL), ``settings``
(merged over the defaults below), ``skip_meta`` and ``dont_filter`` (file
names whose requests get ``meta["neardup_skip"]`` or ``dont_filter=True``),
and for the failure tests ``close_index_on_seed`` (the spider closes the
middleware's deduper when it parses the seed: every later check raises the
library's "the deduper is closed") and ``exit_after`` (``[pages, seconds]``:
``os._exit(3)`` that many seconds after the spider parsed that many pages, a
crash without any cleanup). Logs go to stderr. On stdout, ``parsed JSON``
lines as pages are parsed, then a last line of JSON: every parsed page with
its ``neardup`` meta and the crawl stats (and with a redb
``NEARDUP_INDEX``, ``reopened``: the index opened again after the crawl, in
the same process), or ``{"error": ...}`` when the crawl could not start
(exit status 1, like ``scrapy crawl``).
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.exceptions import ScrapyDeprecationWarning
from scrapy.http import Response

# Like `python -W error::scrapy.exceptions.ScrapyDeprecationWarning`: a
# deprecated API fails the crawl (the tests also look for the warning in the log).
warnings.filterwarnings("error", category=ScrapyDeprecationWarning)


class SiteSpider(scrapy.Spider):
    """Follows every link; yields one item per parsed page."""

    name = "site"

    def __init__(self, config: dict[str, Any], **kw: Any):
        super().__init__(**kw)
        self.start_urls = [config["start"]]
        self.skip_meta = set(config.get("skip_meta", []))
        self.dont_filter = set(config.get("dont_filter", []))
        self.close_index_on_seed = config.get("close_index_on_seed", False)
        self.exit_after = config.get("exit_after")
        self.parsed: list[dict[str, Any]] = []

    def parse(self, response: Response) -> Iterator[Any]:
        seen = {"url": response.url, "neardup": response.meta.get("neardup")}
        self.parsed.append(seen)
        # One line per page as it is parsed: what a crashed crawl did.
        print("parsed " + json.dumps(seen), flush=True)
        if self.close_index_on_seed and len(self.parsed) == 1:
            (mw,) = [m for m in self.crawler.engine.downloader.middleware.middlewares if hasattr(m, "deduper")]
            mw.deduper.close()
        if self.exit_after and len(self.parsed) == self.exit_after[0]:
            from twisted.internet import reactor

            reactor.callLater(self.exit_after[1], os._exit, 3)
        yield {"url": response.url}
        for href in response.css("a::attr(href)").getall():
            name = href.rsplit("/", 1)[-1]
            yield response.follow(
                href,
                self.parse,
                meta={"neardup_skip": True} if name in self.skip_meta else None,
                dont_filter=name in self.dont_filter,
            )


def main() -> None:
    config = json.loads(sys.argv[1])
    settings = {
        "DOWNLOADER_MIDDLEWARES": {"neardup.scrapy.NeardupMiddleware": 580},
        "LOG_LEVEL": "INFO",
        "ROBOTSTXT_OBEY": False,
        "TELNETCONSOLE_ENABLED": False,
        **config["settings"],
    }
    if tuple(int(x) for x in scrapy.__version__.split(".")[:2]) < (2, 12):
        # What `scrapy startproject` sets; else a deprecation warning (an error here).
        settings.setdefault("REQUEST_FINGERPRINTER_IMPLEMENTATION", "2.7")
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(SiteSpider)
    failures: list[str] = []

    def failed(failure: Any) -> None:
        failures.append(failure.getTraceback())

    process.crawl(crawler, config=config).addErrback(failed)
    process.start()
    if failures:
        print(failures[0], file=sys.stderr)
        print(json.dumps({"error": failures[0]}))
        sys.exit(1)
    stats = {k: (v if isinstance(v, (int, float, str)) else str(v)) for k, v in crawler.stats.get_stats().items()}
    out: dict[str, Any] = {"parsed": crawler.spider.parsed, "stats": stats}
    index = settings.get("NEARDUP_INDEX")
    if index and "://" not in index:
        # Still in the crawl's process: the index can only be opened again
        # if the middleware closed it when the spider closed.
        import neardup

        try:
            with neardup.Deduper(index=index) as dedup:
                out["reopened"] = {"indexed": dedup.stats()["indexed"]}
        except neardup.NeardupError as err:
            out["reopened"] = {"error": str(err)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
