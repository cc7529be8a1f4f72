"""The downloader middleware: asks ``neardup serve`` about every HTML page.

What it shares with the in-process middleware of the ``neardup`` wheel
(which responses are checked, how verdicts and failures are applied, the
stats) is :class:`neardup_scrapy.base.DedupMiddleware`; this module adds the
sidecar: its client, the health check at start, and a page the sidecar
rejected not counting against it. See the package README for settings,
stats and placement.
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy.crawler import Crawler
from scrapy.exceptions import CloseSpider, NotConfigured
from scrapy.http import Response
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet import threads

from .base import PRIORITY, UNAVAILABLE, CircuitBreaker, DedupMiddleware, _header, unavailable_crawls
from .client import SidecarClient, SidecarError

logger = logging.getLogger(__name__)

__all__ = ["PRIORITY", "UNAVAILABLE", "NeardupMiddleware", "unavailable_crawls"]


class NeardupMiddleware(DedupMiddleware):
    """Drops responses that ``neardup serve`` judges duplicates of another page.

    A page unchanged since the last crawl (a ``duplicate`` of itself, detector
    ``same_url``) is passed on to the spider, so its links are followed.
    """

    backend = "the sidecar"
    check_error = SidecarError

    def __init__(self, crawler: Crawler, client: SidecarClient, breaker: CircuitBreaker, **options: Any):
        super().__init__(crawler, breaker, **options)
        self.client = client

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> NeardupMiddleware:
        """Builds the middleware from the ``NEARDUP_*`` settings."""
        s = crawler.settings
        url = s.get("NEARDUP_URL")
        if not url:
            raise NotConfigured("NEARDUP_URL is not set")
        client = SidecarClient(
            url,
            token=s.get("NEARDUP_TOKEN"),
            timeout=s.getfloat("NEARDUP_TIMEOUT", 5.0),
            health_timeout=s.getfloat("NEARDUP_HEALTH_TIMEOUT", 5.0),
        )
        mw = cls(crawler, client, CircuitBreaker.from_settings(s), **cls.options(s))
        mw._warn_about_placement()
        return mw

    async def spider_opened(self) -> None:
        """Health check: is the sidecar there before the first page?"""
        try:
            endpoint = await maybe_deferred_to_future(threads.deferToThread(self.client.health))
        except SidecarError as err:
            self._set("health", "unavailable")
            if self.fail_open:
                logger.warning(
                    "neardup sidecar at %s is unavailable (%s); NEARDUP_FAIL_OPEN is on, "
                    "so pages are kept unchecked until it answers",
                    self.client.base_url,
                    err,
                    extra=self._extra(),
                )
                return
            logger.error(
                "neardup sidecar at %s is unavailable (%s); NEARDUP_FAIL_OPEN is off: closing the spider (%s)",
                self.client.base_url,
                err,
                UNAVAILABLE,
                extra=self._extra(),
            )
            raise CloseSpider(UNAVAILABLE) from err
        self._set("health", "ok")
        logger.info("neardup sidecar at %s is ready (%s)", self.client.base_url, endpoint, extra=self._extra())

    async def _check(self, response: Response, body: bytes) -> dict[str, Any]:
        """``POST /v1/check`` with the page as text (Scrapy's decoding)."""
        html = response.text if body is response.body else response.replace(body=body).text
        payload = {
            "url": response.url,
            "html": html,
            "headers": {"content-type": _header(response, b"Content-Type")},
        }
        verdict: dict[str, Any] = await maybe_deferred_to_future(threads.deferToThread(self.client.check, payload))
        return verdict

    def _is_down(self, err: Exception) -> bool:
        """A page the sidecar answered with a 4xx about does not count against it."""
        return bool(getattr(err, "sidecar_down", True))
