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
import re
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

#: The Content-Types ``/v1/check/raw`` decodes and extracts as HTML.
HTML_TYPES = ("text/html", "application/xhtml+xml")
_CHARSET = re.compile(r"""charset\s*=\s*["']?([A-Za-z0-9._:+-]+)""", re.IGNORECASE)


class NeardupMiddleware(DedupMiddleware):
    """Drops responses that ``neardup serve`` judges duplicates of another page.

    A page unchanged since the last crawl (a ``duplicate`` of itself, detector
    ``same_url``) is passed on to the spider, so its links are followed.
    """

    backend = "the sidecar"
    check_error = SidecarError

    def __init__(
        self,
        crawler: Crawler,
        client: SidecarClient,
        breaker: CircuitBreaker,
        *,
        raw: bool = True,
        **options: Any,
    ):
        super().__init__(crawler, breaker, **options)
        self.client = client
        #: Send pages as fetched (``/v1/check/raw``); false after a server
        #: without that endpoint answered 404, or with ``NEARDUP_RAW`` off.
        self.raw = raw

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
        mw = cls(
            crawler,
            client,
            CircuitBreaker.from_settings(s),
            raw=s.getbool("NEARDUP_RAW", True),
            **cls.options(s),
        )
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
        """The page as fetched to ``POST /v1/check/raw`` (the server decodes
        it as ``neardup crawl`` would), or, with ``NEARDUP_RAW`` off or a
        server older than that endpoint, as text (Scrapy's decoding) to
        ``POST /v1/check``."""
        if self.raw:
            self._inc("sent/raw")
            content_type = _raw_content_type(_header(response, b"Content-Type"))
            try:
                return await maybe_deferred_to_future(
                    threads.deferToThread(self.client.check_raw, response.url, body, content_type)
                )
            except SidecarError as err:
                if err.status != 404:
                    raise
                if self.raw:  # once, though checks in flight see the 404 too
                    self._fall_back_to_json(err)
        self._inc("sent/json")
        html = response.text if body is response.body else response.replace(body=body).text
        payload = {
            "url": response.url,
            "html": html,
            "headers": {"content-type": _header(response, b"Content-Type")},
        }
        verdict: dict[str, Any] = await maybe_deferred_to_future(threads.deferToThread(self.client.check, payload))
        return verdict

    def _fall_back_to_json(self, err: SidecarError) -> None:
        self.raw = False
        self._inc("sent/raw_unsupported")
        logger.warning(
            "neardup: the sidecar at %s has no /v1/check/raw (%s: an older neardup serve); "
            "sending pages as JSON text, decoded by Scrapy, from now on",
            self.client.base_url,
            err,
            extra=self._extra(),
        )

    def _is_down(self, err: Exception) -> bool:
        """A page the sidecar answered with a 4xx about does not count against it."""
        return bool(getattr(err, "sidecar_down", True))


def _raw_content_type(header: str) -> str:
    """The Content-Type to send a page Scrapy took for HTML with: the
    response's own when it names an HTML type (its charset is the page's
    declaration), else ``text/html`` with the response's charset parameter
    if it has one (Scrapy takes a page served without a type, or as
    ``application/octet-stream``, for HTML when its body looks like it)."""
    if not all(c == "\t" or " " <= c <= "~" for c in header):
        header = ""  # the server takes visible ASCII only (415)
    media, _, params = header.partition(";")
    if media.strip().lower() in HTML_TYPES:
        return header
    m = _CHARSET.search(params)
    return "text/html; charset=" + m.group(1) if m else "text/html"
