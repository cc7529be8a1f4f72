"""Scrapy downloader middleware: asks a running ``neardup serve`` whether each
HTML response is new, and drops duplicates and near duplicates before the
spider parses them (so their links are not followed either).

Settings:

- ``NEARDUP_URL`` (required, else the middleware is disabled), e.g.
  ``http://127.0.0.1:8686``;
- ``NEARDUP_TOKEN``: bearer token, if the server has one;
- ``NEARDUP_TIMEOUT``: seconds per check (default 10);
- ``NEARDUP_DROP_NEAR``: drop near duplicates too (default True);
- ``NEARDUP_FAIL_OPEN``: when the server cannot be reached or answers an
  error, keep the page (default True) instead of dropping it.

Enable it with::

    DOWNLOADER_MIDDLEWARES = {"neardup_scrapy.NeardupMiddleware": 950}

The verdict is stored in ``request.meta["neardup"]`` (``response.meta``);
the crawl stats count ``neardup/unique``, ``neardup/duplicate``, ``neardup/near_duplicate`` and
``neardup/errors``. The HTTP call runs in a thread, so the reactor is never
blocked; only the standard library is used for it.
"""

import json
import urllib.error
import urllib.request

from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet import threads


class NeardupMiddleware:
    """Drops responses that ``neardup serve`` judges duplicates."""

    def __init__(self, url, token=None, timeout=10.0, drop_near=True, fail_open=True, stats=None):
        self.endpoint = url.rstrip("/") + "/v1/check"
        self.token = token
        self.timeout = timeout
        self.drop_near = drop_near
        self.fail_open = fail_open
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        url = s.get("NEARDUP_URL")
        if not url:
            raise NotConfigured("NEARDUP_URL is not set")
        return cls(
            url,
            token=s.get("NEARDUP_TOKEN"),
            timeout=s.getfloat("NEARDUP_TIMEOUT", 10.0),
            drop_near=s.getbool("NEARDUP_DROP_NEAR", True),
            fail_open=s.getbool("NEARDUP_FAIL_OPEN", True),
            stats=crawler.stats,
        )

    def _inc(self, key):
        if self.stats is not None:
            self.stats.inc_value(key)

    def _check(self, payload):
        """POSTs one page; returns the verdict dict. Runs in a thread."""
        req = urllib.request.Request(
            self.endpoint,
            data=json.dumps(payload).encode("utf-8"),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            return json.loads(resp.read())

    async def process_response(self, request, response, spider):
        if not isinstance(response, HtmlResponse) or response.status != 200:
            return response
        content_type = response.headers.get("Content-Type", b"").decode("latin-1")
        payload = {
            "url": response.url,
            # Scrapy has already decoded the body (HTTP charset, BOM, meta).
            "html": response.text,
            "headers": {"content-type": content_type},
        }
        try:
            verdict = await maybe_deferred_to_future(threads.deferToThread(self._check, payload))
        except (urllib.error.URLError, OSError, ValueError) as err:
            self._inc("neardup/errors")
            if self.fail_open:
                spider.logger.warning("neardup check failed for %s: %s", response.url, err)
                return response
            raise IgnoreRequest(f"neardup check failed: {err}") from err
        kind = verdict.get("kind", "unique")
        self._inc(f"neardup/{kind}")
        request.meta["neardup"] = verdict
        if kind == "duplicate" or (kind == "near_duplicate" and self.drop_near):
            matched = (verdict.get("matched") or {}).get("url", "?")
            raise IgnoreRequest(f"neardup: {response.url} is a {kind} of {matched}")
        return response
