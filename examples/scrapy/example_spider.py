"""A runnable example: a spider that follows every link of one site, with
neardup-scrapy dropping duplicate pages (``pip install ./python/neardup-scrapy``).

    scrapy runspider examples/scrapy/example_spider.py -a start=http://127.0.0.1:8000/ -O pages.jsonl

Each item is a page that reached the spider, with the verdict on it:
``unchanged`` is true for a page indexed by an earlier crawl and not changed
since (it is still parsed, so its links are followed).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import scrapy
from scrapy.http import Response


class SiteSpider(scrapy.Spider):
    """Follows the links of the start page's site."""

    name = "site"
    custom_settings = {
        "NEARDUP_URL": "http://127.0.0.1:8686",
        # Below HttpCompressionMiddleware (590): see python/neardup-scrapy/README.md.
        "DOWNLOADER_MIDDLEWARES": {"neardup_scrapy.NeardupMiddleware": 580},
        "NEARDUP_DEBUG": True,
    }

    def __init__(self, start: str, **kw: Any):
        super().__init__(**kw)
        self.start_urls = [start]
        self.allowed_domains = [start.split("/")[2].split(":")[0]]

    def parse(self, response: Response) -> Iterator[Any]:
        verdict = response.meta.get("neardup") or {}
        yield {"url": response.url, "kind": verdict.get("kind"), "unchanged": verdict.get("unchanged", False)}
        yield from response.follow_all(css="a", callback=self.parse)
