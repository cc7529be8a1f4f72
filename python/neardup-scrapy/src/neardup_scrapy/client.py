"""The HTTP client for ``neardup serve``.

Only the standard library is used. Every call blocks, so the middleware runs
it in a thread. (The circuit breaker in front of it is
:class:`neardup_scrapy.base.CircuitBreaker`.)
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any


class SidecarError(Exception):
    """A call to the sidecar failed.

    ``sidecar_down`` is true when the failure says the sidecar cannot be
    used (connection refused, timeout, 5xx, 401/403: a wrong token) and
    false when it answered with a 4xx about this one page (e.g. 413
    ``payload_too_large``).
    """

    def __init__(self, message: str, *, sidecar_down: bool, status: int | None = None):
        super().__init__(message)
        self.sidecar_down = sidecar_down
        self.status = status


@dataclass
class SidecarClient:
    """Blocking client for ``POST /v1/check``, ``POST /v1/check/raw`` and
    the health endpoints."""

    base_url: str
    token: str | None = None
    timeout: float = 5.0
    health_timeout: float = 5.0

    def __post_init__(self) -> None:
        self.base_url = self.base_url.rstrip("/")

    def check(self, payload: dict[str, Any]) -> dict[str, Any]:
        """POSTs one page to ``/v1/check`` (JSON, the page as text) and
        returns the verdict."""
        body = json.dumps(payload).encode("utf-8")
        return self._check("/v1/check", body, "application/json")

    def check_raw(self, url: str, body: bytes, content_type: str) -> dict[str, Any]:
        """POSTs one page to ``/v1/check/raw`` as it was fetched: ``body`` is
        the response body (without content codings) and ``content_type``
        the response's Content-Type, whose charset the server decodes it
        with. Returns the verdict. A server older than the endpoint answers
        404 (a :class:`SidecarError` with ``status`` 404)."""
        path = "/v1/check/raw?" + urllib.parse.urlencode({"url": url})
        return self._check(path, body, content_type)

    def _check(self, path: str, body: bytes, content_type: str) -> dict[str, Any]:
        req = urllib.request.Request(
            self.base_url + path,
            data=body,
            headers={"Content-Type": content_type},
            method="POST",
        )
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        verdict = self._send(req, self.timeout)
        if not isinstance(verdict, dict) or "kind" not in verdict:
            raise SidecarError(f"unexpected answer: {verdict!r:.200}", sidecar_down=True)
        return verdict

    def health(self) -> str:
        """Asks ``/readyz`` (if the server has it, else ``/healthz``) whether
        the sidecar can take checks, then, with a token, whether the server
        accepts it (``/v1/stats``); returns the endpoint that said ready."""
        ready = self._ready()
        if self.token:
            req = urllib.request.Request(self.base_url + "/v1/stats", method="GET")
            req.add_header("Authorization", "Bearer " + self.token)
            self._send(req, self.health_timeout)
        return ready

    def _ready(self) -> str:
        for path in ("/readyz", "/healthz"):
            req = urllib.request.Request(self.base_url + path, method="GET")
            try:
                self._send(req, self.health_timeout)
                return path
            except SidecarError as err:
                if err.status == 404 and path == "/readyz":
                    continue  # an older server: only /healthz
                raise
        raise AssertionError("unreachable")

    @staticmethod
    def _send(req: urllib.request.Request, timeout: float) -> Any:
        """Sends ``req``; returns the decoded JSON answer or raises SidecarError."""
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as err:
            detail = _error_detail(err)
            raise SidecarError(
                f"HTTP {err.code} from {req.full_url}: {detail}",
                # 401/403: a wrong token fails every page, not this one.
                sidecar_down=err.code >= 500 or err.code in (401, 403, 408, 429),
                status=err.code,
            ) from err
        except (urllib.error.URLError, OSError) as err:
            reason = getattr(err, "reason", err)
            raise SidecarError(f"{req.full_url}: {reason}", sidecar_down=True) from err
        try:
            return json.loads(raw)
        except ValueError as err:
            raise SidecarError(f"{req.full_url}: answer is not JSON", sidecar_down=True) from err


def _error_detail(err: urllib.error.HTTPError) -> str:
    """The ``error.code: message`` of a neardup error body, or the reason."""
    try:
        body = json.loads(err.read() or b"{}")
        e = body["error"]
        return f"{e['code']}: {e['message']}"
    except Exception:  # noqa: BLE001 - any unreadable body
        return str(err.reason)
