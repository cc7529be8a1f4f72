"""Scrapy's ``crawl`` and ``runspider`` commands, with an exit status of 1
when a crawl ends with ``finish_reason`` ``neardup_unavailable``.

The commands of :mod:`neardup_scrapy.commands` (both middlewares count such
crawls in one place, :func:`neardup_scrapy.base.unavailable_crawls`), under
this wheel's name for projects that use ``neardup.scrapy``::

    COMMANDS_MODULE = "neardup.scrapy_commands"

Scrapy (2.11 to 2.19 at least) exits 0 from ``scrapy crawl`` whatever the
finish reason; these exit 1 if a crawl of the run closed as
``neardup_unavailable`` (the index failed and ``NEARDUP_FAIL_OPEN`` is off).
"""

from __future__ import annotations

from neardup_scrapy.commands import exit_status

__all__ = ["exit_status"]
