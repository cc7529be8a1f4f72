"""``scrapy runspider``, exiting 1 when the crawl closed as ``neardup_unavailable``."""

from __future__ import annotations

from typing import Any

from scrapy.commands import runspider

from neardup_scrapy.base import unavailable_crawls
from neardup_scrapy.commands import exit_status


class Command(runspider.Command):
    def run(self, args: list[str], opts: Any) -> None:
        before = unavailable_crawls()
        super().run(args, opts)
        self.exitcode = exit_status(self.exitcode, before)
