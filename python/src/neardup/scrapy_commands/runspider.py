"""``scrapy runspider``, exiting 1 when the crawl closed as ``neardup_unavailable``."""

from __future__ import annotations

from neardup_scrapy.commands import runspider


class Command(runspider.Command):
    """:class:`neardup_scrapy.commands.runspider.Command` (Scrapy finds a command
    only in a class defined in its module)."""
