"""The downloader middleware: asks ``neardup serve`` about every HTML page.

See the package README for settings, stats and placement.
"""

from __future__ import annotations

import logging
import zlib
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import CloseSpider, IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse, Request, Response
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet import threads

from .client import CircuitBreaker, SidecarClient, SidecarError

logger = logging.getLogger(__name__)

#: The priority to enable the middleware with: below HttpCompressionMiddleware
#: (590), so bodies arrive decompressed, and below DownloaderStats (850), so
#: dropped responses are still counted in ``downloader/response_count``.
PRIORITY = 580

#: The reason the spider closes with when the sidecar is unavailable and
#: ``NEARDUP_FAIL_OPEN`` is off.
UNAVAILABLE = "neardup_unavailable"

STATS_PREFIX = "neardup/"

#: Crawls of this process that ended with ``finish_reason``
#: ``neardup_unavailable`` (see :func:`unavailable_crawls`).
_unavailable_crawls = 0


def unavailable_crawls() -> int:
    """How many crawls in this process closed with ``finish_reason``
    ``neardup_unavailable``.

    Scrapy (2.11 to 2.19 at least) gives a component no way to set the exit
    status of ``scrapy crawl``, which exits 0 whatever a crawl's finish
    reason; the commands of :mod:`neardup_scrapy.commands` read this to
    exit 1 instead (``COMMANDS_MODULE = "neardup_scrapy.commands"``).
    """
    return _unavailable_crawls


class NeardupMiddleware:
    """Drops responses that ``neardup serve`` judges duplicates of another page.

    A page unchanged since the last crawl (a ``duplicate`` of itself, detector
    ``same_url``) is passed on to the spider, so its links are followed.
    """

    def __init__(
        self,
        crawler: Crawler,
        client: SidecarClient,
        breaker: CircuitBreaker,
        *,
        drop_near: bool = True,
        fail_open: bool = True,
        debug: bool = False,
        max_body: int = 0,
    ):
        self.crawler = crawler
        self.client = client
        self.breaker = breaker
        self.drop_near = drop_near
        self.fail_open = fail_open
        self.debug = debug
        self.max_body = max_body
        self._logged_drop = False
        self._closing = False
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

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
        breaker = CircuitBreaker(
            s.getint("NEARDUP_BREAKER_THRESHOLD", 5),
            s.getfloat("NEARDUP_BREAKER_COOLDOWN", 30.0),
        )
        mw = cls(
            crawler,
            client,
            breaker,
            drop_near=s.getbool("NEARDUP_DROP_NEAR", True),
            fail_open=s.getbool("NEARDUP_FAIL_OPEN", True),
            debug=s.getbool("NEARDUP_DEBUG", False),
            max_body=s.getint("DOWNLOAD_MAXSIZE", 0),
        )
        mw._warn_about_placement()
        return mw

    # -- signals -------------------------------------------------------------

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

    def spider_closed(self, reason: str = "") -> None:
        """Counts a crawl closed as ``neardup_unavailable`` for the exit
        status (:func:`unavailable_crawls`) and says how it shows."""
        if reason != UNAVAILABLE:
            return
        global _unavailable_crawls
        _unavailable_crawls += 1
        if self.crawler.settings.get("COMMANDS_MODULE") == "neardup_scrapy.commands":
            how = "scrapy crawl exits 1 (COMMANDS_MODULE neardup_scrapy.commands)"
        else:
            how = (
                "Scrapy still exits 0; set COMMANDS_MODULE = 'neardup_scrapy.commands' "
                "for an exit status of 1 (see the neardup-scrapy README)"
            )
        logger.error("neardup: the crawl failed (finish_reason %s): %s", UNAVAILABLE, how, extra=self._extra())

    # -- the middleware ------------------------------------------------------

    async def process_response(self, request: Request, response: Response) -> Response:
        """Checks one response; raises IgnoreRequest to drop it."""
        self._inc("responses")
        reason = self._skip_reason(request, response)
        html = None if reason else self._html(response)
        if reason is None and html is None:
            reason = "undecodable"
        if reason is not None:
            self._inc("skipped")
            self._inc("skipped/" + reason)
            return response
        if not self.breaker.allow():
            self._inc("breaker_open")
            return self._on_failure(request, response, "circuit breaker open")
        payload = {
            "url": response.url,
            "html": html,
            "headers": {"content-type": _header(response, b"Content-Type")},
        }
        try:
            verdict = await maybe_deferred_to_future(threads.deferToThread(self.client.check, payload))
        except SidecarError as err:
            self._inc("errors")
            self._on_call_error(err, response)
            return self._on_failure(request, response, str(err))
        self._on_answer()
        return self._on_verdict(request, response, verdict)

    def _on_answer(self) -> None:
        """The sidecar answered: closes the breaker, saying so if it was open."""
        if self.breaker.state != CircuitBreaker.CLOSED:
            logger.info("neardup: the sidecar answers again; checking pages", extra=self._extra())
        self.breaker.record_success()

    # -- steps ---------------------------------------------------------------

    @staticmethod
    def _skip_reason(request: Request, response: Response) -> str | None:
        """Why this response is not checked, or None if it is."""
        if request.meta.get("neardup_skip"):
            return "meta"
        if request.dont_filter:
            return "dont_filter"
        if response.status != 200:
            return "status"
        if not isinstance(response, HtmlResponse):
            return "not_html"
        return None

    def _html(self, response: HtmlResponse) -> str | None:
        """The page as text; decompresses a body that is still encoded (the
        middleware placed above HttpCompressionMiddleware, or that one off)."""
        encodings = [e.strip().lower() for e in _header(response, b"Content-Encoding").split(",") if e.strip()]
        if not encodings or encodings == ["identity"]:
            return response.text
        body = response.body
        try:
            for encoding in reversed(encodings):
                body = _decode(body, encoding, self.max_body)
        except Exception as err:  # noqa: BLE001 - zlib.error, brotli.error, a size cap...
            logger.warning("neardup: cannot decode %s (%s); not checked", response.url, err, extra=self._extra())
            return None
        return response.replace(body=body).text

    def _on_verdict(self, request: Request, response: Response, verdict: dict[str, Any]) -> Response:
        """Applies a verdict: keep, keep as unchanged, or drop."""
        kind = verdict.get("kind")
        matched = verdict.get("matched") or {}
        unchanged = kind == "duplicate" and matched.get("detector") == "same_url"
        request.meta["neardup"] = dict(verdict, unchanged=unchanged)
        self._inc("checked")
        if unchanged:
            self._inc("unchanged")
            logger.debug("neardup: %s is unchanged since it was indexed", response.url, extra=self._extra())
            return response
        self._inc(str(kind))
        if verdict.get("redirect"):
            # A redirect stub (meta refresh, one-link "moved" page) is never
            # dropped, even when its text repeats another stub's: Scrapy's
            # MetaRefreshMiddleware (580, after this one) follows a meta
            # refresh, the spider a one-link stub's link.
            self._inc("redirect_stub")
            return response
        if kind == "duplicate" or (kind == "near_duplicate" and self.drop_near):
            self._drop(response, kind, matched)
        return response

    def _drop(self, response: Response, kind: str, matched: dict[str, Any]) -> None:
        """Counts and logs a dropped page, then raises IgnoreRequest."""
        self._inc("dropped")
        message = (
            f"neardup: dropped {response.url}: {kind} of {matched.get('url', '?')} "
            f"(detector {matched.get('detector', '?')}, similarity {float(matched.get('similarity', 0)):.3f})"
        )
        if self.debug:
            logger.info(message, extra=self._extra())
        elif not self._logged_drop:
            logger.info(
                message + " - no more drops will be shown (see NEARDUP_DEBUG to show all)",
                extra=self._extra(),
            )
        self._logged_drop = True
        raise IgnoreRequest(message)

    def _on_call_error(self, err: SidecarError, response: Response) -> None:
        """Feeds a failed check to the breaker and logs it."""
        if not err.sidecar_down:
            self._on_answer()  # it answered: the page was the problem
            logger.warning("neardup: check of %s rejected: %s", response.url, err, extra=self._extra())
            return
        logger.warning("neardup: check of %s failed: %s", response.url, err, extra=self._extra())
        if not self.breaker.record_failure():
            return
        self._inc("breaker_opened")
        if self.fail_open:
            logger.error(
                "neardup: %d consecutive failures; not calling the sidecar for %.0f s, "
                "pages are kept unchecked meanwhile (NEARDUP_FAIL_OPEN)",
                self.breaker.failures,
                self.breaker.cooldown,
                extra=self._extra(),
            )
            return
        logger.error(
            "neardup: %d consecutive failures and NEARDUP_FAIL_OPEN is off: closing the spider (%s)",
            self.breaker.failures,
            UNAVAILABLE,
            extra=self._extra(),
        )
        self._close_spider()

    def _on_failure(self, request: Request, response: Response, why: str) -> Response:
        """No verdict: keep the page (fail open) or drop it (fail closed)."""
        request.meta["neardup"] = {"kind": None, "unchanged": False, "error": why}
        if self.fail_open:
            return response
        self._inc("dropped")
        self._inc("dropped/no_verdict")
        # ERROR, not WARNING: the page and the links on it are lost.
        logger.error(
            "neardup: dropped %s without a verdict (%s): NEARDUP_FAIL_OPEN is off",
            response.url,
            why,
            extra=self._extra(),
        )
        raise IgnoreRequest(f"neardup: no verdict for {response.url} ({why}) and NEARDUP_FAIL_OPEN is off")

    # -- helpers -------------------------------------------------------------

    def _close_spider(self) -> None:
        """Closes the spider once, with reason ``neardup_unavailable``."""
        if self._closing or self.crawler.engine is None:
            return
        self._closing = True
        d = deferred_from_coro(self.crawler.engine.close_spider_async(reason=UNAVAILABLE))
        d.addErrback(lambda f: logger.error("neardup: closing the spider failed: %s", f.value))

    def _warn_about_placement(self) -> None:
        """Warns if the middleware sees responses before they are decompressed."""
        mws = self.crawler.settings.getwithbase("DOWNLOADER_MIDDLEWARES")
        own = _priority(mws, type(self))
        comp = mws.get("scrapy.downloadermiddlewares.httpcompression.HttpCompressionMiddleware")
        if own is not None and comp is not None and own > comp:
            logger.warning(
                "neardup: NeardupMiddleware has priority %s, above HttpCompressionMiddleware (%s): "
                "it sees compressed bodies and decompresses them itself, and dropped pages are "
                "missing from the downloader stats; use priority %d",
                own,
                comp,
                PRIORITY,
            )

    def _inc(self, key: str) -> None:
        self.crawler.stats.inc_value(STATS_PREFIX + key)

    def _set(self, key: str, value: Any) -> None:
        self.crawler.stats.set_value(STATS_PREFIX + key, value)

    def _extra(self) -> dict[str, Any]:
        return {"spider": self.crawler.spider}


def _header(response: Response, name: bytes) -> str:
    """One response header as text ('' if missing)."""
    value = response.headers.get(name)
    return value.decode("latin-1") if value else ""


def _priority(mws: Any, cls: type) -> int | None:
    """The priority ``cls`` is enabled with in a DOWNLOADER_MIDDLEWARES dict."""
    for key, prio in mws.items():
        name = key if isinstance(key, str) else f"{key.__module__}.{key.__qualname__}"
        if key is cls or name.endswith("." + cls.__name__):
            return prio
    return None


def _decode(body: bytes, encoding: str, max_size: int) -> bytes:
    """Undoes one content coding; at most ``max_size`` bytes out (0: no cap)."""
    if encoding in ("gzip", "x-gzip", "deflate"):
        # wbits 47 reads gzip or zlib; raw deflate as a fallback.
        try:
            out = zlib.decompressobj(47).decompress(body, max_size)
        except zlib.error:
            out = zlib.decompressobj(-15).decompress(body, max_size)
    elif encoding == "br":
        try:
            import brotli  # type: ignore[import-not-found]
        except ImportError:
            try:
                import brotlicffi as brotli  # type: ignore[import-not-found,no-redef]
            except ImportError:
                raise ValueError("body is brotli-compressed: pip install brotli") from None
        out = brotli.decompress(body)
    else:
        raise ValueError(f"unsupported Content-Encoding {encoding!r}")
    if max_size and len(out) >= max_size:
        raise ValueError(f"decompressed body exceeds DOWNLOAD_MAXSIZE ({max_size} B)")
    return out
