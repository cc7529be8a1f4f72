"""Runs one Scrapy crawl of a local site with the middleware enabled and
prints the parsed URLs and the crawl stats as JSON (one process per crawl:
Twisted's reactor cannot be restarted)."""

import json
import sys

import scrapy
from scrapy.crawler import CrawlerProcess


class SiteSpider(scrapy.Spider):
    name = "site"

    def __init__(self, start, **kw):
        super().__init__(**kw)
        self.start_urls = [start]
        self.parsed = []

    def parse(self, response):
        self.parsed.append(response.url)
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, self.parse)


def main():
    start, neardup_url = sys.argv[1], sys.argv[2]
    settings = {
        "NEARDUP_URL": neardup_url,
        "DOWNLOADER_MIDDLEWARES": {"neardup_scrapy.NeardupMiddleware": 950},
        "LOG_LEVEL": "WARNING",
        "ROBOTSTXT_OBEY": False,
        "TELNETCONSOLE_ENABLED": False,
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
    }
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(SiteSpider)
    process.crawl(crawler, start=start)
    process.start()
    stats = {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("neardup/")}
    print(json.dumps({"parsed": sorted(crawler.spider.parsed), "stats": stats}))


if __name__ == "__main__":
    main()
