"""A Scrapy downloader middleware that drops duplicate and near-duplicate
pages with the deduper in-process (no sidecar to run).

Enable it with::

    # settings.py
    DOWNLOADER_MIDDLEWARES = {"neardup.scrapy.NeardupMiddleware": 580}
    NEARDUP_INDEX = "pages.redb"        # None (the default): in memory

Every HTML response (status 200, not ``dont_filter``, not
``meta["neardup_skip"]``) is checked by :meth:`neardup.Deduper.check` in a
thread of the reactor's pool (the GIL is released while the page is
analyzed), so the reactor is never blocked. Duplicates and near duplicates
of *other* pages are dropped with :class:`~scrapy.exceptions.IgnoreRequest`
before the spider parses them; a page unchanged since it was indexed (a
``duplicate`` of itself, detector ``same_url``) is passed on, so recrawls
still follow its links.

This is the in-process twin of ``neardup_scrapy.NeardupMiddleware`` (the
``python/neardup-scrapy`` package, which asks a running ``neardup serve``):
both are :class:`neardup_scrapy.base.DedupMiddleware`, so the skip rules,
stats, breaker and ``request.meta["neardup"]`` are one code. The ``scrapy``
extra of this wheel installs that package. See ``python/README.md`` for the
settings.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

from neardup_scrapy.base import (
    PRIORITY,
    UNAVAILABLE,
    CircuitBreaker,
    DedupMiddleware,
    _header,
    unavailable_crawls,
)
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet import task, threads

from ._neardup import Deduper, NeardupError

logger = logging.getLogger(__name__)

__all__ = ["PRIORITY", "UNAVAILABLE", "NeardupMiddleware", "unavailable_crawls"]


class NeardupMiddleware(DedupMiddleware):
    """Drops responses that the in-process deduper judges duplicates of another page.

    Built by :meth:`from_crawler` from the ``NEARDUP_*`` settings; the
    :class:`neardup.Deduper` it opens is :attr:`deduper` (a spider may use it,
    e.g. ``remove(url=...)`` for a page it rejects). The index is flushed
    every ``NEARDUP_FLUSH_INTERVAL`` seconds and closed (flushed) when the
    spider closes.
    """

    backend = "the index"
    check_error = NeardupError
    commands_module = ("neardup.scrapy_commands", "python/README.md")

    def __init__(
        self,
        crawler: Crawler,
        deduper: Deduper,
        breaker: CircuitBreaker,
        *,
        flush_interval: float = 0.0,
        **options: Any,
    ):
        super().__init__(crawler, breaker, **options)
        #: The :class:`neardup.Deduper` pages are checked against.
        self.deduper = deduper
        self.flush_interval = flush_interval
        self._closed = False
        self._flushing = False
        self._flusher: task.LoopingCall | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> NeardupMiddleware:
        """Opens the deduper from the ``NEARDUP_*`` settings.

        Raises NotConfigured if ``NEARDUP_ENABLED`` is false. A bad
        ``NEARDUP_CONFIG`` (:class:`neardup.ConfigError`) or an index that
        cannot be opened (:class:`neardup.StoreError`) is raised as is, with
        the library's message: the crawl does not start.
        """
        s = crawler.settings
        if not s.getbool("NEARDUP_ENABLED", True):
            raise NotConfigured("NEARDUP_ENABLED is off")
        config = _config_setting(s.get("NEARDUP_CONFIG"))
        index = s.get("NEARDUP_INDEX") or None
        if index is not None:
            index = os.fspath(index)  # a pathlib.Path in settings.py
        breaker = CircuitBreaker.from_settings(s)
        deduper = Deduper(config, index)
        mw = cls(
            crawler,
            deduper,
            breaker,
            flush_interval=s.getfloat("NEARDUP_FLUSH_INTERVAL", 60.0),
            **cls.options(s),
        )
        logger.info(
            "neardup: in-process deduper, index %s, detectors %s",
            _describe_index(index),
            ", ".join(deduper.detectors),
        )
        mw._warn_about_placement()
        return mw

    # -- signals -------------------------------------------------------------

    async def spider_opened(self) -> None:
        """Starts the periodic flush (``NEARDUP_FLUSH_INTERVAL``)."""
        if self.flush_interval > 0:
            self._flusher = task.LoopingCall(self._flush)
            self._flusher.start(self.flush_interval, now=False)

    async def spider_closed(self, reason: str = "") -> None:
        """Stops the periodic flush, records ``neardup/indexed`` and closes
        (flushes) the index, in a thread; the spider closes after it. A
        crawl closed as ``neardup_unavailable`` is counted for the exit
        status (:func:`unavailable_crawls`)."""
        if self._flusher is not None and self._flusher.running:
            self._flusher.stop()
        self._closed = True
        await super().spider_closed(reason)

        def close() -> int | None:
            try:
                indexed: int | None = self.deduper.stats()["indexed"]
            except NeardupError:
                indexed = None  # already closed
            self.deduper.close()
            return indexed

        try:
            indexed = await maybe_deferred_to_future(threads.deferToThread(close))
        except NeardupError as err:
            self._inc("flush_errors")
            logger.error(
                "neardup: closing the index failed, changes since the last flush are lost: %s",
                err,
                extra=self._extra(),
            )
            return
        if indexed is not None:
            self._set("indexed", indexed)

    def _flush(self) -> None:
        """Makes the index durable so far, in a thread (skipped while one runs)."""
        if self._flushing or self._closed:
            return
        self._flushing = True

        def failed(failure: Any) -> None:
            self._inc("flush_errors")
            logger.error("neardup: flushing the index failed: %s", failure.value, extra=self._extra())

        def finished(_: Any) -> None:
            self._flushing = False

        d = threads.deferToThread(self.deduper.flush)
        d.addErrback(failed)
        d.addBoth(finished)
        # The LoopingCall is not given the Deferred: it would wait for a
        # slow flush, and a failed one must not stop the next.

    # -- the check -----------------------------------------------------------

    async def _check(self, response: Response, body: bytes) -> dict[str, Any]:
        """:meth:`neardup.Deduper.check` in a thread of the reactor's pool
        (the GIL is released while the page is analyzed), with the body's
        bytes: the deduper finds their charset."""
        content_type = _header(response, b"Content-Type") or None

        def check() -> dict[str, Any]:
            verdict: dict[str, Any] = self.deduper.check(response.url, body, content_type).to_dict()
            return verdict

        result: dict[str, Any] = await maybe_deferred_to_future(threads.deferToThread(check))
        return result


def _config_setting(value: Any) -> Any:
    """``NEARDUP_CONFIG`` as ``Deduper`` takes it: None, a TOML file's path,
    or a dict (also given as JSON text, e.g. ``-s NEARDUP_CONFIG='{...}'``)."""
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            return json.loads(value)
        except ValueError as err:
            raise ValueError(f"NEARDUP_CONFIG looks like JSON but is not: {err}") from None
    if hasattr(value, "copy_to_dict"):  # a scrapy BaseSettings
        return value.copy_to_dict()
    if isinstance(value, dict):
        return value
    return os.fspath(value)


def _describe_index(index: str | None) -> str:
    """The index for the log, without a Redis URL's password."""
    if index is None:
        return "in memory"
    if "://" in index and "@" in index:
        scheme, rest = index.split("://", 1)
        return f"{scheme}://***@{rest.rsplit('@', 1)[1]}"
    return index
