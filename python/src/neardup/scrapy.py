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
same skip rules, stats and ``request.meta["neardup"]``. The ``neardup``
wheel does not depend on that package; the few helpers both need are copied
here (``_header``, ``_decode``, ``CircuitBreaker``; ``python/tests`` checks
that the copies stay in sync). See ``python/README.md`` for the settings.
"""

from __future__ import annotations

import json
import logging
import os
import time
import zlib
from collections.abc import Callable
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse, Request, Response
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet import task, threads

from ._neardup import Deduper, NeardupError, Verdict

logger = logging.getLogger(__name__)

__all__ = ["PRIORITY", "UNAVAILABLE", "NeardupMiddleware", "unavailable_crawls"]

#: The priority to enable the middleware with: below HttpCompressionMiddleware
#: (590), so bodies arrive decompressed, and below DownloaderStats (850), so
#: dropped responses are still counted in ``downloader/response_count``.
PRIORITY = 580

#: The reason the spider closes with when the index fails and
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
    reason; the commands of :mod:`neardup.scrapy_commands` read this to
    exit 1 instead (``COMMANDS_MODULE = "neardup.scrapy_commands"``).
    """
    return _unavailable_crawls


class NeardupMiddleware:
    """Drops responses that the in-process deduper judges duplicates of another page.

    Built by :meth:`from_crawler` from the ``NEARDUP_*`` settings; the
    :class:`neardup.Deduper` it opens is :attr:`deduper` (a spider may use it,
    e.g. ``remove(url=...)`` for a page it rejects). The index is flushed
    every ``NEARDUP_FLUSH_INTERVAL`` seconds and closed (flushed) when the
    spider closes.
    """

    def __init__(
        self,
        crawler: Crawler,
        deduper: Deduper,
        breaker: CircuitBreaker,
        *,
        drop_near: bool = True,
        fail_open: bool = True,
        debug: bool = False,
        max_body: int = 0,
        flush_interval: float = 0.0,
    ):
        #: The :class:`neardup.Deduper` pages are checked against.
        self.deduper = deduper
        self.crawler = crawler
        self.breaker = breaker
        self.drop_near = drop_near
        self.fail_open = fail_open
        self.debug = debug
        self.max_body = max_body
        self.flush_interval = flush_interval
        self._logged_drop = False
        self._closing = False
        self._closed = False
        self._flushing = False
        self._flusher: task.LoopingCall | None = None
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

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
        breaker = CircuitBreaker(
            s.getint("NEARDUP_BREAKER_THRESHOLD", 5),
            s.getfloat("NEARDUP_BREAKER_COOLDOWN", 30.0),
        )
        deduper = Deduper(config, index)
        mw = cls(
            crawler,
            deduper,
            breaker,
            drop_near=s.getbool("NEARDUP_DROP_NEAR", True),
            fail_open=s.getbool("NEARDUP_FAIL_OPEN", True),
            debug=s.getbool("NEARDUP_DEBUG", False),
            max_body=s.getint("DOWNLOAD_MAXSIZE", 0),
            flush_interval=s.getfloat("NEARDUP_FLUSH_INTERVAL", 60.0),
        )
        logger.info(
            "neardup: in-process deduper, index %s, detectors %s",
            _describe_index(index),
            ", ".join(deduper.detectors),
        )
        mw._warn_about_placement()
        return mw

    # -- signals -------------------------------------------------------------

    def spider_opened(self) -> None:
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
        if reason == UNAVAILABLE:
            _count_unavailable(self.crawler)

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

    # -- the middleware ------------------------------------------------------

    async def process_response(self, request: Request, response: Response, spider: Any = None) -> Response:
        """Checks one response; raises IgnoreRequest to drop it.

        ``spider`` is only passed by older Scrapy versions (optional, so newer
        versions neither pass it nor warn)."""
        self._inc("responses")
        reason = self._skip_reason(request, response)
        body = None if reason else self._body(response)
        if reason is None and body is None:
            reason = "undecodable"
        if reason is not None:
            self._inc("skipped")
            self._inc("skipped/" + reason)
            return response
        if not self.breaker.allow():
            self._inc("breaker_open")
            return self._on_failure(request, response, "circuit breaker open")
        content_type = _header(response, b"Content-Type") or None
        try:
            verdict = await maybe_deferred_to_future(
                threads.deferToThread(self.deduper.check, response.url, body, content_type)
            )
        except NeardupError as err:
            self._inc("errors")
            self._on_check_error(err, response)
            return self._on_failure(request, response, str(err))
        if self.breaker.state != CircuitBreaker.CLOSED:
            logger.info("neardup: the index answers again; checking pages", extra=self._extra())
        self.breaker.record_success()
        return self._on_verdict(request, response, verdict)

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

    def _body(self, response: Response) -> bytes | None:
        """The body as it came off the wire, the deduper finding its charset;
        decompressed here if still encoded (the middleware placed above
        HttpCompressionMiddleware, or that one off). None if undecodable."""
        encodings = [e.strip().lower() for e in _header(response, b"Content-Encoding").split(",") if e.strip()]
        body = response.body
        if not encodings or encodings == ["identity"]:
            return body
        try:
            for encoding in reversed(encodings):
                body = _decode(body, encoding, self.max_body)
        except Exception as err:  # noqa: BLE001 - zlib.error, brotli.error, a size cap...
            logger.warning("neardup: cannot decode %s (%s); not checked", response.url, err, extra=self._extra())
            return None
        return body

    def _on_verdict(self, request: Request, response: Response, verdict: Verdict) -> Response:
        """Applies a verdict: keep, keep as unchanged, or drop."""
        unchanged = verdict.unchanged
        request.meta["neardup"] = dict(verdict.to_dict(), unchanged=unchanged)
        self._inc("checked")
        if unchanged:
            self._inc("unchanged")
            logger.debug("neardup: %s is unchanged since it was indexed", response.url, extra=self._extra())
            return response
        self._inc(verdict.kind)
        if verdict.redirect:
            # A redirect stub (meta refresh, one-link "moved" page) is never
            # dropped, even when its text repeats another stub's: Scrapy's
            # MetaRefreshMiddleware (580, after this one) follows a meta
            # refresh, the spider a one-link stub's link.
            self._inc("redirect_stub")
            return response
        if verdict.kind == "duplicate" or (verdict.kind == "near_duplicate" and self.drop_near):
            self._drop(response, verdict)
        return response

    def _drop(self, response: Response, verdict: Verdict) -> None:
        """Counts and logs a dropped page, then raises IgnoreRequest."""
        self._inc("dropped")
        message = (
            f"neardup: dropped {response.url}: {verdict.kind} of {verdict.matched_url or '?'} "
            f"(detector {verdict.detector or '?'}, similarity {float(verdict.similarity or 0):.3f})"
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

    def _on_check_error(self, err: NeardupError, response: Response) -> None:
        """Feeds a failed check to the breaker and logs it."""
        logger.warning("neardup: check of %s failed: %s", response.url, err, extra=self._extra())
        if not self.breaker.record_failure():
            return
        self._inc("breaker_opened")
        if self.fail_open:
            logger.error(
                "neardup: %d consecutive failures; not checking pages for %.0f s, "
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
        engine = self.crawler.engine
        if self._closing or engine is None:
            return
        self._closing = True
        close_async = getattr(engine, "close_spider_async", None)
        if close_async is not None:  # Scrapy 2.14+
            d = deferred_from_coro(close_async(reason=UNAVAILABLE))
        else:
            d = engine.close_spider(self.crawler.spider, UNAVAILABLE)
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


def _count_unavailable(crawler: Crawler) -> None:
    """Counts a crawl closed as ``neardup_unavailable`` and says how its
    exit status shows it."""
    global _unavailable_crawls
    _unavailable_crawls += 1
    if crawler.settings.get("COMMANDS_MODULE") == "neardup.scrapy_commands":
        how = "scrapy crawl exits 1 (COMMANDS_MODULE neardup.scrapy_commands)"
    else:
        how = (
            "Scrapy still exits 0; set COMMANDS_MODULE = 'neardup.scrapy_commands' "
            "for an exit status of 1 (python/README.md)"
        )
    logger.error("neardup: the crawl failed (finish_reason %s): %s", UNAVAILABLE, how)


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


def _priority(mws: Any, cls: type) -> int | None:
    """The priority ``cls`` is enabled with in a DOWNLOADER_MIDDLEWARES dict."""
    own = f"{cls.__module__}.{cls.__qualname__}"
    for key, prio in mws.items():
        name = key if isinstance(key, str) else f"{key.__module__}.{key.__qualname__}"
        if key is cls or name == own:
            return prio
    return None


# -- copied from neardup_scrapy (python/neardup-scrapy): keep in sync --------


def _header(response: Response, name: bytes) -> str:
    """One response header as text ('' if missing)."""
    value = response.headers.get(name)
    return value.decode("latin-1") if value else ""


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


class CircuitBreaker:
    """Stops checking pages against a failing index for a cool-down period.

    Closed: every call goes through; ``threshold`` consecutive failures open
    it. Open: no call goes through until ``cooldown`` seconds have passed;
    then it is half open and lets exactly one probe through: success closes
    it, failure opens it again for another cool-down. Touched only from the
    reactor thread.
    """

    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"

    def __init__(self, threshold: int, cooldown: float, clock: Callable[[], float] = time.monotonic):
        if threshold < 1:
            raise ValueError("threshold must be >= 1")
        self.threshold = threshold
        self.cooldown = cooldown
        self.clock = clock
        self.state = self.CLOSED
        self.failures = 0
        self.opened_at = 0.0
        self.opened_count = 0

    def allow(self) -> bool:
        """True if a call may be made now."""
        if self.state == self.CLOSED:
            return True
        if self.state == self.OPEN and self.clock() - self.opened_at >= self.cooldown:
            self.state = self.HALF_OPEN
            return True  # the one probe
        return False

    def record_success(self) -> None:
        """The call succeeded: close the breaker."""
        self.state = self.CLOSED
        self.failures = 0

    def record_failure(self) -> bool:
        """The call failed; returns True if this failure opened the breaker."""
        self.failures += 1
        if self.state == self.OPEN:
            return False  # a call started before it opened
        if self.state == self.HALF_OPEN or self.failures >= self.threshold:
            self.state = self.OPEN
            self.opened_at = self.clock()
            self.opened_count += 1
            return True
        return False
