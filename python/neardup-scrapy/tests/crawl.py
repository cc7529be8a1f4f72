"""One Scrapy crawl with the neardup middleware, for the tests.

Usage: ``crawl.py CONFIG_JSON`` with ``start`` (URL), ``settings`` (merged
over the defaults below), ``skip_meta`` and ``dont_filter`` (file names whose
requests get ``meta["neardup_skip"]`` or ``dont_filter=True``). Logs go to
stderr; the last stdout line is JSON: every parsed page with its
``neardup`` verdict, and the crawl stats.
"""

from __future__ import annotations

import json
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

    def __init__(self, start: str, skip_meta: list[str], dont_filter: list[str], **kw: Any):
        super().__init__(**kw)
        self.start_urls = [start]
        self.skip_meta = set(skip_meta)
        self.dont_filter = set(dont_filter)
        self.parsed: list[dict[str, Any]] = []

    def parse(self, response: Response) -> Iterator[Any]:
        verdict = response.meta.get("neardup")
        self.parsed.append({"url": response.url, "neardup": verdict})
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
        "DOWNLOADER_MIDDLEWARES": {"neardup_scrapy.NeardupMiddleware": 580},
        "LOG_LEVEL": "INFO",
        "ROBOTSTXT_OBEY": False,
        "TELNETCONSOLE_ENABLED": False,
        **config["settings"],
    }
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(SiteSpider)
    process.crawl(
        crawler,
        start=config["start"],
        skip_meta=config["skip_meta"],
        dont_filter=config["dont_filter"],
    )
    process.start()
    stats = {k: (v if isinstance(v, (int, float, str)) else str(v)) for k, v in crawler.stats.get_stats().items()}
    print(json.dumps({"parsed": crawler.spider.parsed, "stats": stats}))


if __name__ == "__main__":
    main()
