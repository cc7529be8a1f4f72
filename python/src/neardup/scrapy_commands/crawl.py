"""``scrapy crawl``, exiting 1 when the crawl closed as ``neardup_unavailable``."""

from __future__ import annotations

from neardup_scrapy.commands import crawl


class Command(crawl.Command):
    """:class:`neardup_scrapy.commands.crawl.Command` (Scrapy finds a command
    only in a class defined in its module)."""
