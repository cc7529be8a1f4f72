"""What the two neardup downloader middlewares share.

There are two ways to ask neardup about a page from Scrapy: this package's
:class:`neardup_scrapy.NeardupMiddleware` asks a running ``neardup serve``
over HTTP, and ``neardup.scrapy.NeardupMiddleware`` (in the ``neardup``
wheel, which depends on this package for it) checks in-process. They differ
only in how one page is checked and in what they open and close; the rules
are the same and live here, once: which responses are checked, how a still
encoded body is decoded, how a verdict is applied (kept, kept as unchanged,
dropped), the circuit breaker and fail-open / fail-closed on errors, the
``neardup/*`` stats and ``request.meta["neardup"]``.

A subclass sets :attr:`DedupMiddleware.backend` and
:attr:`DedupMiddleware.check_error` and implements
:meth:`DedupMiddleware._check`.
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Callable
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse, Request, Response
from scrapy.settings import BaseSettings
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.misc import load_object

logger = logging.getLogger(__name__)

#: The priority to enable a middleware with: below HttpCompressionMiddleware
#: (590), so bodies arrive decompressed, and below DownloaderStats (850), so
#: dropped responses are still counted in ``downloader/response_count``.
PRIORITY = 580

#: The reason the spider closes with when checks fail and
#: ``NEARDUP_FAIL_OPEN`` is off.
UNAVAILABLE = "neardup_unavailable"

STATS_PREFIX = "neardup/"

#: The ``COMMANDS_MODULE`` values whose commands exit 1 after such a crawl.
COMMANDS_MODULES = ("neardup_scrapy.commands", "neardup.scrapy_commands")

#: Crawls of this process that ended with ``finish_reason``
#: ``neardup_unavailable`` (see :func:`unavailable_crawls`).
_unavailable_crawls = 0


def unavailable_crawls() -> int:
    """How many crawls in this process closed with ``finish_reason``
    ``neardup_unavailable``, whichever middleware closed them.

    Scrapy (2.11 to 2.19 at least) gives a component no way to set the exit
    status of ``scrapy crawl``, which exits 0 whatever a crawl's finish
    reason; the commands of :mod:`neardup_scrapy.commands` read this to
    exit 1 instead (``COMMANDS_MODULE = "neardup_scrapy.commands"``).
    """
    return _unavailable_crawls


class CircuitBreaker:
    """Stops checking pages against a failing backend for a cool-down period.

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

    @classmethod
    def from_settings(cls, s: BaseSettings) -> CircuitBreaker:
        """``NEARDUP_BREAKER_THRESHOLD`` (5) and ``NEARDUP_BREAKER_COOLDOWN`` (30 s)."""
        return cls(s.getint("NEARDUP_BREAKER_THRESHOLD", 5), s.getfloat("NEARDUP_BREAKER_COOLDOWN", 30.0))

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


class DedupMiddleware:
    """Drops responses that neardup judges duplicates of another page.

    A page unchanged since it was indexed (a ``duplicate`` of itself,
    detector ``same_url``) is passed on to the spider, so recrawls still
    follow its links. The verdict (as the sidecar's JSON, plus
    ``unchanged``) is ``request.meta["neardup"]``.
    """

    #: What answers the checks, for log lines (``"the sidecar"``).
    backend = "the backend"
    #: What a failed check raises.
    check_error: type[Exception] = Exception
    #: The ``COMMANDS_MODULE`` to suggest for an exit status of 1, and where
    #: it is documented.
    commands_module = ("neardup_scrapy.commands", "see the neardup-scrapy README")

    def __init__(
        self,
        crawler: Crawler,
        breaker: CircuitBreaker,
        *,
        drop_near: bool = True,
        fail_open: bool = True,
        debug: bool = False,
        max_body: int = 0,
    ):
        self.crawler = crawler
        self.breaker = breaker
        self.drop_near = drop_near
        self.fail_open = fail_open
        self.debug = debug
        self.max_body = max_body
        self._logged_drop = False
        self._closing = False
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @staticmethod
    def options(s: BaseSettings) -> dict[str, Any]:
        """The keyword arguments of ``__init__`` from the ``NEARDUP_*`` settings."""
        return {
            "drop_near": s.getbool("NEARDUP_DROP_NEAR", True),
            "fail_open": s.getbool("NEARDUP_FAIL_OPEN", True),
            "debug": s.getbool("NEARDUP_DEBUG", False),
            "max_body": s.getint("DOWNLOAD_MAXSIZE", 0),
        }

    # -- what a subclass provides -------------------------------------------

    async def _check(self, response: Response, body: bytes) -> dict[str, Any]:
        """The verdict on one response whose body (decoded from its content
        codings) is ``body``, as the sidecar's JSON; raises
        :attr:`check_error` if there is none."""
        raise NotImplementedError

    def _is_down(self, err: Exception) -> bool:
        """Whether a failed check counts against the backend (the breaker),
        rather than against the page."""
        return True

    # -- signals -------------------------------------------------------------

    async def spider_opened(self) -> None:
        """Nothing to open by default."""

    async def spider_closed(self, reason: str = "") -> None:
        """Counts a crawl closed as ``neardup_unavailable`` for the exit
        status (:func:`unavailable_crawls`) and says how it shows."""
        if reason != UNAVAILABLE:
            return
        global _unavailable_crawls
        _unavailable_crawls += 1
        module = self.crawler.settings.get("COMMANDS_MODULE")
        if module in COMMANDS_MODULES:
            how = f"scrapy crawl exits 1 (COMMANDS_MODULE {module})"
        else:
            suggested, docs = self.commands_module
            how = f"Scrapy still exits 0; set COMMANDS_MODULE = '{suggested}' for an exit status of 1 ({docs})"
        logger.error("neardup: the crawl failed (finish_reason %s): %s", UNAVAILABLE, how, extra=self._extra())

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
        assert body is not None
        if not self.breaker.allow():
            self._inc("breaker_open")
            return self._on_failure(request, response, "circuit breaker open")
        try:
            verdict = await self._check(response, body)
        except self.check_error as err:
            self._inc("errors")
            self._on_check_error(err, response)
            return self._on_failure(request, response, str(err))
        self._on_answer()
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
        """The body without its content codings: decompressed here if still
        encoded (the middleware placed above HttpCompressionMiddleware, or
        that one off). None if undecodable."""
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

    def _on_answer(self) -> None:
        """The backend answered: closes the breaker, saying so if it was open."""
        if self.breaker.state != CircuitBreaker.CLOSED:
            logger.info("neardup: %s answers again; checking pages", self.backend, extra=self._extra())
        self.breaker.record_success()

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
            self._drop(response, str(kind), matched)
        return response

    def _drop(self, response: Response, kind: str, matched: dict[str, Any]) -> None:
        """Counts and logs a dropped page, then raises IgnoreRequest."""
        self._inc("dropped")
        message = (
            f"neardup: dropped {response.url}: {kind} of {matched.get('url') or '?'} "
            f"(detector {matched.get('detector') or '?'}, "
            f"similarity {float(matched.get('similarity') or 0):.3f})"
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

    def _on_check_error(self, err: Exception, response: Response) -> None:
        """Feeds a failed check to the breaker (unless the page was the
        problem) and logs it."""
        if not self._is_down(err):
            self._on_answer()  # it answered: the page was the problem
            logger.warning("neardup: check of %s rejected: %s", response.url, err, extra=self._extra())
            return
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


def _header(response: Response, name: bytes) -> str:
    """One response header as text ('' if missing)."""
    value = response.headers.get(name)
    return value.decode("latin-1") if value else ""


def _priority(mws: Any, cls: type) -> int | None:
    """The priority ``cls`` is enabled with in a DOWNLOADER_MIDDLEWARES dict."""
    for key, prio in mws.items():
        if key is cls:
            return prio
        if isinstance(key, str):
            try:
                # The path a project wrote may be a re-export
                # (``neardup_scrapy.NeardupMiddleware``).
                if load_object(key) is cls:
                    return prio
            except Exception:  # noqa: BLE001, S112 - another component's path that does not load
                continue
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
