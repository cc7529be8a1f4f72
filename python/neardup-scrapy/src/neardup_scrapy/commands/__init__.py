"""Scrapy's ``crawl`` and ``runspider`` commands, with an exit status of 1
when a crawl ends with ``finish_reason`` ``neardup_unavailable``.

Scrapy (2.11 to 2.19 at least) exits 0 from ``scrapy crawl`` whatever the
finish reason: only a crawl that could not start exits 1, and a component
has no way to change that. A project that wants cron (or any caller) to
notice a crawl that :class:`neardup_scrapy.NeardupMiddleware` closed because
the sidecar was unavailable (``NEARDUP_FAIL_OPEN = False``) replaces the two
commands with these, in ``settings.py``::

    COMMANDS_MODULE = "neardup_scrapy.commands"

They are Scrapy's own commands, then exit 1 if a crawl of the run closed as
``neardup_unavailable`` (:func:`neardup_scrapy.base.unavailable_crawls`).
"""

from __future__ import annotations

from neardup_scrapy.base import unavailable_crawls


def exit_status(status: int, unavailable_before: int) -> int:
    """The command's exit status: Scrapy's, or 1 if a crawl of this run
    closed as ``neardup_unavailable`` (and Scrapy said 0)."""
    if status == 0 and unavailable_crawls() > unavailable_before:
        return 1
    return status
