"""Real Scrapy crawls of a site served by nginx (gzip, brotli) with the
middleware asking a real ``neardup serve`` (or a fake one: broken, or recording what it is sent).

Each crawl runs in a subprocess (tests/crawl.py). Every crawl is also checked
for ScrapyDeprecationWarning in its log and for stats that add up.
"""

from __future__ import annotations

import json
import pathlib
import re
import tempfile
import unittest
import urllib.parse
import urllib.request
from typing import Any

import testsite
from support import (
    CrawlResult,
    FakeSidecar,
    NeardupServer,
    Nginx,
    closed_port_url,
    crawl,
    missing,
    scrapy_command,
)

ALL_PAGES = sorted(testsite.FILES)
# The middleware sees every page but the seed (dont_filter, Scrapy's default for start URLs).
CHECKABLE = len(testsite.FILES) - 1
DROPPED_PAIRS = (*testsite.PAIRS, testsite.NEAR)
DROP_LINE = r"dropped \S+/(\w)\.html: (\w+) of \S+/(\w)\.html \(detector (\w+), similarity ([0-9.]+)\)"


class CrawlTestCase(unittest.TestCase):
    """One nginx for the class; a fresh neardup index per test."""

    nginx: Nginx
    site_dir: tempfile.TemporaryDirectory

    #: Added to nginx's ``server`` block.
    nginx_extra = ""

    @classmethod
    def write_site(cls, root: pathlib.Path) -> None:
        """Writes the site nginx serves."""
        testsite.write(root)

    @classmethod
    def setUpClass(cls) -> None:
        cls.site_dir = tempfile.TemporaryDirectory(prefix="neardup-site-")
        root = pathlib.Path(cls.site_dir.name)
        root.chmod(0o755)
        cls.write_site(root)
        cls.nginx = Nginx(root, cls.nginx_extra)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.nginx.stop()
        cls.site_dir.cleanup()

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="neardup-index-")
        self.index = pathlib.Path(self.tmp.name, "index.redb")
        self.servers: list[Any] = []

    def tearDown(self) -> None:
        for server in self.servers:
            server.stop()
        self.tmp.cleanup()

    def serve(self, token: str | None = None) -> NeardupServer:
        server = NeardupServer(self.index, token)
        self.servers.append(server)
        return server

    def fake(self, mode: str, fail_first: int | None = None) -> FakeSidecar:
        sidecar = FakeSidecar(mode, fail_first)
        self.servers.append(sidecar)
        return sidecar

    def crawl(self, settings: dict[str, Any], **kw: Any) -> CrawlResult:
        """A crawl of the nginx site, checked for warnings and for stats that add up."""
        result = crawl(self.nginx.url, settings, **kw)
        self.assertNotIn("ScrapyDeprecationWarning", result.log, result)
        self.assertNotIn("Traceback", result.log, result)
        self.assert_stats_add_up(result)
        return result

    def assert_stats_add_up(self, r: CrawlResult) -> None:
        """responses = skipped + checked + errors + breaker_open, and the parts."""
        skipped = sum(r.stat(k) for k in r.stats if k.startswith("neardup/skipped/"))
        self.assertEqual(r.stat("neardup/skipped"), skipped, r)
        checked = sum(r.stat("neardup/" + k) for k in ("unique", "unchanged", "duplicate", "near_duplicate"))
        self.assertEqual(r.stat("neardup/checked"), checked, r)
        parts = r.stat("neardup/skipped") + checked + r.stat("neardup/errors") + r.stat("neardup/breaker_open")
        self.assertEqual(r.stat("neardup/responses"), parts, r)

    def assert_one_of_each_pair(self, r: CrawlResult, pairs: tuple[set[str], ...] = DROPPED_PAIRS) -> None:
        """Every page reached the spider except one of each copied pair."""
        pages = set(r.pages())
        for pair in pairs:
            self.assertEqual(len(pair & pages), 1, r)
        self.assertEqual(len(pages), len(testsite.FILES) - len(pairs), r)

    def assert_dropped_copies(self, r: CrawlResult) -> None:
        """Two exact copies and one near copy dropped."""
        self.assert_one_of_each_pair(r)
        self.assertEqual(r.stat("neardup/duplicate"), 2, r)
        self.assertEqual(r.stat("neardup/near_duplicate"), 1, r)
        self.assertEqual(r.stat("neardup/dropped"), 3, r)


class CompressionTest(CrawlTestCase):
    def test_nginx_serves_gzip_and_brotli(self) -> None:
        encoding, body = self.nginx.fetch("a.html", "gzip")
        self.assertEqual(encoding, "gzip")
        self.assertTrue(body.startswith(b"\x1f\x8b"))
        if not self.nginx.brotli:
            raise missing("nginx brotli module (apt-get install libnginx-mod-http-brotli-filter)")
        encoding, body = self.nginx.fetch("a.html", "br")
        self.assertEqual(encoding, "br")
        self.assertNotIn(b"Tide", body)

    def test_brotli_pages_are_deduplicated(self) -> None:
        if not self.nginx.brotli:
            raise missing("nginx brotli module (apt-get install libnginx-mod-http-brotli-filter)")
        server = self.serve()
        r = self.crawl({"NEARDUP_URL": server.url, "DEFAULT_REQUEST_HEADERS": {"Accept-Encoding": "br"}})
        self.assert_dropped_copies(r)
        self.assertEqual(r.stat("httpcompression/response_count"), len(testsite.FILES), r)
        self.assertEqual(server.stats()["duplicates"], 2)
        self.assertEqual(server.stats()["near_duplicates"], 1)

    def test_misplaced_middleware_decompresses_itself(self) -> None:
        """Above HttpCompressionMiddleware (the old documented 950) the body is
        still compressed: the middleware decodes it itself, and warns."""
        encodings = ["gzip"] + (["br"] if self.nginx.brotli else [])
        for encoding in encodings:
            with self.subTest(encoding=encoding):
                self.index = pathlib.Path(self.tmp.name, f"index-{encoding}.redb")
                server = self.serve()
                r = self.crawl(
                    {
                        "NEARDUP_URL": server.url,
                        "DOWNLOADER_MIDDLEWARES": {"neardup_scrapy.NeardupMiddleware": 950},
                        "DEFAULT_REQUEST_HEADERS": {"Accept-Encoding": encoding},
                    }
                )
                self.assert_dropped_copies(r)
                self.assertEqual(r.stat("neardup/skipped/undecodable"), 0, r)
                self.assertIn("use priority 580", r.log)


class RecrawlTest(CrawlTestCase):
    def test_second_crawl_follows_unchanged_pages_and_drops_duplicates(self) -> None:
        """The acceptance test: two crawls of the gzip site against one
        persistent ``serve``."""
        server = self.serve()
        first = self.crawl({"NEARDUP_URL": server.url, "NEARDUP_DEBUG": True})
        self.assert_dropped_copies(first)
        self.assertEqual(first.stat("httpcompression/response_count"), len(testsite.FILES), first)
        self.assertEqual(first.stat("neardup/unique"), CHECKABLE - 3, first)
        self.assertEqual(first.stat("neardup/unchanged"), 0, first)
        # Pages go to the server as fetched (its /metrics counts them).
        self.assertEqual(server.requests("/v1/check/raw"), CHECKABLE)
        self.assertEqual(server.requests("/v1/check"), 0)
        self.assertEqual(first.stat("neardup/sent/raw"), CHECKABLE, first)
        self.assertEqual(first.stat("item_scraped_count"), len(first.pages()), first)
        # Dropped responses still count in Scrapy's downloader stats.
        self.assertEqual(first.stat("downloader/response_count"), first.stat("neardup/responses"), first)
        # NEARDUP_DEBUG: one line per drop, naming the page it matched.
        drops = [line for line in first.log.splitlines() if "neardup: dropped" in line]
        self.assertEqual(len(drops), 3, first)
        for line in drops:
            m = re.search(DROP_LINE, line)
            self.assertIsNotNone(m, line)
            pair = {m.group(1) + ".html", m.group(3) + ".html"}
            if m.group(2) == "duplicate":
                self.assertIn(pair, testsite.PAIRS, line)
                self.assertEqual((m.group(4), m.group(5)), ("exact", "1.000"), line)
            else:
                self.assertEqual((m.group(2), pair), ("near_duplicate", testsite.NEAR), line)
                self.assertLess(float(m.group(5)), 1.0, line)
        self.assertTrue(self.index.exists())

        second = self.crawl({"NEARDUP_URL": server.url})
        self.assertEqual(second.pages(), first.pages(), second)
        self.assertEqual(second.stat("neardup/unchanged"), CHECKABLE - 3, second)
        self.assertEqual(second.stat("neardup/unique"), 0, second)
        self.assertEqual(second.stat("neardup/duplicate"), 2, second)
        self.assertEqual(second.stat("neardup/near_duplicate"), 1, second)
        for page in second.parsed:
            if not page["url"].endswith("/"):  # the seed is not checked
                self.assertTrue(page["neardup"]["unchanged"], page)
                self.assertEqual(page["neardup"]["matched"]["detector"], "same_url", page)
        # Without NEARDUP_DEBUG: only the first drop is logged, with the hint.
        drops = [line for line in second.log.splitlines() if "neardup: dropped" in line]
        self.assertEqual(len(drops), 1, second)
        self.assertIn("see NEARDUP_DEBUG", drops[0])
        stats = server.stats()
        # The kept pages and the near duplicate (decide.index_near_duplicates
        # is on by default, so a later variant can match it); exact
        # duplicates are not indexed.
        self.assertEqual(stats["indexed"], CHECKABLE - 2)

    def test_opt_outs_are_not_checked(self) -> None:
        server = self.serve()
        r = self.crawl({"NEARDUP_URL": server.url}, skip_meta=["b.html"], dont_filter=["e.html"])
        self.assert_one_of_each_pair(r, (testsite.NEAR,))
        self.assertEqual(r.stat("neardup/skipped/meta"), 1, r)
        self.assertEqual(r.stat("neardup/skipped/dont_filter"), 2, r)  # the seed and e.html
        self.assertEqual(r.stat("neardup/duplicate"), 0, r)
        self.assertEqual(server.stats()["checked"], CHECKABLE - 2)

    def test_near_duplicates_are_kept_with_drop_near_off(self) -> None:
        server = self.serve()
        r = self.crawl({"NEARDUP_URL": server.url, "NEARDUP_DROP_NEAR": False})
        self.assert_one_of_each_pair(r, testsite.PAIRS)
        self.assertEqual(r.stat("neardup/near_duplicate"), 1, r)
        self.assertEqual(r.stat("neardup/dropped"), 2, r)
        near = [p["neardup"] for p in r.parsed if p["neardup"] and p["neardup"]["kind"] == "near_duplicate"]
        self.assertEqual(len(near), 1, r)
        self.assertIn(near[0]["matched"]["url"].rsplit("/", 1)[-1], testsite.NEAR)


class RawTest(CrawlTestCase):
    """What the middleware sends: each page as fetched to ``/v1/check/raw``
    (recorded by a fake sidecar), JSON text to ``/v1/check`` on a server
    without that endpoint or with ``NEARDUP_RAW`` off."""

    def test_pages_are_sent_as_fetched(self) -> None:
        sidecar = self.fake("ok")
        r = self.crawl({"NEARDUP_URL": sidecar.url})
        self.assertEqual(r.pages(), ALL_PAGES, r)
        self.assertEqual(len(sidecar.requests), CHECKABLE, sidecar.requests)
        self.assertEqual(r.stat("httpcompression/response_count"), len(testsite.FILES), r)
        sent = set()
        for path, content_type, body in sidecar.requests:
            route, _, query = path.partition("?")
            self.assertEqual(route, "/v1/check/raw", path)
            (url,) = urllib.parse.parse_qs(query, strict_parsing=True)["url"]
            name = url.rsplit("/", 1)[-1]
            sent.add(name)
            # nginx's Content-Type, and the body as on disk (gzip undone).
            self.assertEqual(content_type, "text/html", path)
            self.assertEqual(body, testsite.FILES[name].encode("utf-8"), path)
        self.assertEqual(sent, set(ALL_PAGES) - {"index.html"})
        self.assertEqual(r.stat("neardup/sent/raw"), CHECKABLE, r)
        self.assertEqual(r.stat("neardup/sent/json"), 0, r)

    def test_a_server_without_raw_checks_gets_json(self) -> None:
        sidecar = self.fake("old")
        r = self.crawl({"NEARDUP_URL": sidecar.url})
        self.assertEqual(r.pages(), ALL_PAGES, r)
        # Every page checked, none failed: the ones sent raw before the
        # first 404 came back are sent again as JSON.
        self.assertEqual(r.stat("neardup/errors"), 0, r)
        self.assertEqual(r.stat("neardup/unique"), CHECKABLE, r)
        self.assertEqual(r.stat("neardup/sent/raw_unsupported"), 1, r)
        self.assertEqual(r.stat("neardup/sent/json"), CHECKABLE, r)
        self.assertEqual(r.log.count("has no /v1/check/raw"), 1, r)
        raw = [req for req in sidecar.requests if req[0].startswith("/v1/check/raw")]
        self.assertEqual(len(raw), r.stat("neardup/sent/raw"), r)
        self.assert_sent_as_json([req for req in sidecar.requests if req not in raw])

    def test_raw_off_sends_json(self) -> None:
        sidecar = self.fake("ok")
        r = self.crawl({"NEARDUP_URL": sidecar.url, "NEARDUP_RAW": False})
        self.assertEqual(r.stat("neardup/sent/raw"), 0, r)
        self.assert_sent_as_json(sidecar.requests)

    def assert_sent_as_json(self, requests: list[tuple[str, str, bytes]]) -> None:
        """One JSON ``/v1/check`` per checkable page, with its text."""
        self.assertEqual(len(requests), CHECKABLE, requests)
        for path, content_type, body in requests:
            self.assertEqual((path, content_type), ("/v1/check", "application/json"))
            payload = json.loads(body)
            self.assertEqual(payload["html"], testsite.FILES[payload["url"].rsplit("/", 1)[-1]])


# French words, half of them with an "oe" ligature and most accented, so a
# page decoded in the wrong charset has other words.
FRENCH = ("café", "élève", "forêt", "cœur", "sœur", "œuvre", "bœuf", "vœu", "œil", "nœud", "manœuvre", "décembre")
FRENCH_TEXT = " ".join(FRENCH[(i * 7 + i // 5) % len(FRENCH)] for i in range(160))


class CharsetTest(CrawlTestCase):
    """Pages whose bytes only the server's decoding reads right.

    One article three times, served by nginx with a charset parameter:
    ``u.html`` in UTF-8 declared ``utf-8``; ``l.html`` in ISO-8859-15
    (Latin-9, the only Latin charset with "œ") declared so; ``m.html`` in
    UTF-8 but declared ``iso-8859-1``, a common misconfiguration. Sent as
    fetched, the server decodes each by its declaration and overrules the
    one its bytes contradict (valid UTF-8 declared Latin-1), as ``neardup
    crawl`` does: all three are one text. Scrapy decodes ``m.html`` as
    Latin-1, so sent as its text, that page has other words."""

    nginx_extra = (
        "location = /u.html { charset utf-8; } "
        "location = /l.html { charset iso-8859-15; } "
        "location = /m.html { charset iso-8859-1; }"
    )

    @classmethod
    def write_site(cls, root: pathlib.Path) -> None:
        article = f"<html><head><title>Notes</title></head><body><article><p>{FRENCH_TEXT}</p></article></body></html>"
        links = "".join(f"<a href='{n}'>{n}</a> " for n in ("u.html", "l.html", "m.html"))
        (root / "index.html").write_text(f"<html><body>{links}</body></html>", encoding="utf-8")
        (root / "u.html").write_bytes(article.encode("utf-8"))
        (root / "l.html").write_bytes(article.encode("iso-8859-15"))
        (root / "m.html").write_bytes(article.encode("utf-8"))

    def crawl(self, settings: dict[str, Any], **kw: Any) -> CrawlResult:
        self.server = self.serve()
        r = super().crawl({"NEARDUP_URL": self.server.url, "NEARDUP_DROP_NEAR": False, **settings}, **kw)
        self.assertEqual(r.stat("neardup/checked"), 3, r)
        return r

    def test_nginx_declares_the_charsets(self) -> None:
        for name, charset in (("u.html", "utf-8"), ("l.html", "iso-8859-15"), ("m.html", "iso-8859-1")):
            with urllib.request.urlopen(self.nginx.url + name, timeout=10) as resp:
                self.assertEqual(resp.headers["Content-Type"], "text/html; charset=" + charset)

    def test_sent_as_fetched_the_three_are_one_page(self) -> None:
        r = self.crawl({})
        self.assertEqual(r.stat("neardup/unique"), 1, r)
        self.assertEqual(r.stat("neardup/duplicate"), 2, r)
        self.assertEqual(len(r.pages()), 2, r)  # the seed and the first of the three
        self.assertEqual(self.server.requests("/v1/check/raw"), 3)

    def test_sent_as_scrapys_text_the_mislabeled_page_differs(self) -> None:
        r = self.crawl({"NEARDUP_RAW": False})
        self.assertIn("m.html", r.pages(), r)
        self.assertEqual(r.stat("neardup/duplicate"), 1, r)  # u.html and l.html
        self.assertEqual(self.server.requests("/v1/check"), 3)


class FailureTest(CrawlTestCase):
    def test_unavailable_sidecar_fail_closed_closes_the_spider(self) -> None:
        r = self.crawl({"NEARDUP_URL": closed_port_url(), "NEARDUP_FAIL_OPEN": False})
        self.assertEqual(r.stats.get("finish_reason"), "neardup_unavailable", r)
        self.assertEqual(r.pages(), [], r)
        self.assertRegex(r.log, r"\[neardup_scrapy\.middleware\] ERROR: neardup sidecar at \S+ is unavailable")
        self.assertEqual(r.stats.get("neardup/health"), "unavailable", r)

    def test_unavailable_sidecar_fail_open_warns_and_keeps_pages(self) -> None:
        r = self.crawl(
            {
                "NEARDUP_URL": closed_port_url(),
                "NEARDUP_BREAKER_THRESHOLD": 2,
                "CONCURRENT_REQUESTS": 1,
            }
        )
        self.assertEqual(r.stats.get("finish_reason"), "finished", r)
        self.assertEqual(r.pages(), ALL_PAGES, r)
        self.assertRegex(r.log, r"WARNING: neardup sidecar at \S+ is unavailable")
        self.assertEqual(r.stat("neardup/errors"), 2, r)
        self.assertEqual(r.stat("neardup/breaker_open"), CHECKABLE - 2, r)

    def test_hung_sidecar_is_not_called_after_the_breaker_opens(self) -> None:
        sidecar = self.fake("hang")
        r = self.crawl(
            {
                "NEARDUP_URL": sidecar.url,
                "NEARDUP_TIMEOUT": 0.5,
                "NEARDUP_BREAKER_THRESHOLD": 2,
                "NEARDUP_BREAKER_COOLDOWN": 600,
                "CONCURRENT_REQUESTS": 1,
            }
        )
        self.assertEqual(sidecar.checks, 2)
        self.assertEqual(r.pages(), ALL_PAGES, r)
        self.assertEqual(r.stats.get("neardup/health"), "ok", r)
        self.assertEqual(r.stat("neardup/errors"), 2, r)
        self.assertEqual(r.stat("neardup/breaker_opened"), 1, r)
        self.assertEqual(r.stat("neardup/breaker_open"), CHECKABLE - 2, r)
        self.assertIn("2 consecutive failures; not checking pages for 600 s", r.log)

    def test_breaker_probes_after_cooldown_and_closes_when_the_sidecar_answers(self) -> None:
        sidecar = self.fake("error", fail_first=2)
        r = self.crawl(
            {
                "NEARDUP_URL": sidecar.url,
                "NEARDUP_BREAKER_THRESHOLD": 2,
                "NEARDUP_BREAKER_COOLDOWN": 0,
                "CONCURRENT_REQUESTS": 1,
            }
        )
        # Open after 2 failures; with no cool-down the next page is the probe,
        # it succeeds, and every later page is checked again.
        self.assertEqual(sidecar.checks, CHECKABLE)
        self.assertEqual(r.stat("neardup/errors"), 2, r)
        self.assertEqual(r.stat("neardup/breaker_opened"), 1, r)
        self.assertEqual(r.stat("neardup/breaker_open"), 0, r)
        self.assertEqual(r.stat("neardup/unique"), CHECKABLE - 2, r)
        self.assertEqual(r.log.count("the sidecar answers again"), 1, r)

    def test_failing_sidecar_fail_closed_closes_the_spider(self) -> None:
        sidecar = self.fake("error")
        r = self.crawl(
            {
                "NEARDUP_URL": sidecar.url,
                "NEARDUP_FAIL_OPEN": False,
                "NEARDUP_BREAKER_THRESHOLD": 2,
                "CONCURRENT_REQUESTS": 1,
            }
        )
        self.assertEqual(sidecar.checks, 2)
        self.assertEqual(r.stats.get("finish_reason"), "neardup_unavailable", r)
        self.assertEqual(r.pages(), ["index.html"], r)  # the seed only (not checked)
        self.assertEqual(r.stat("neardup/dropped/no_verdict"), r.stat("neardup/dropped"), r)
        self.assertEqual(r.stat("neardup/dropped"), r.stat("neardup/errors") + r.stat("neardup/breaker_open"), r)
        self.assertRegex(r.log, r"ERROR: neardup: dropped \S+ without a verdict \(HTTP 500")
        self.assertIn("ERROR: neardup: 2 consecutive failures and NEARDUP_FAIL_OPEN is off", r.log)
        self.assertIn("HTTP 500", r.log)

    def test_token_is_sent_and_a_wrong_one_closes_the_spider(self) -> None:
        server = self.serve(token="s3cret")
        good = self.crawl({"NEARDUP_URL": server.url, "NEARDUP_TOKEN": "s3cret"})
        self.assert_dropped_copies(good)
        bad = self.crawl({"NEARDUP_URL": server.url, "NEARDUP_TOKEN": "wrong", "NEARDUP_FAIL_OPEN": False})
        self.assertEqual(bad.stats.get("finish_reason"), "neardup_unavailable", bad)
        self.assertEqual(bad.pages(), [], bad)
        self.assertIn("HTTP 401", bad.log)
        self.assertEqual(server.stats()["checked"], CHECKABLE)


class ExitStatusTest(CrawlTestCase):
    """A real ``scrapy crawl`` / ``scrapy runspider`` in a project, as cron runs it."""

    COMMANDS = {"COMMANDS_MODULE": "neardup_scrapy.commands"}

    def command(self, command: str, settings: dict[str, Any]) -> tuple[int, str]:
        return scrapy_command(self.nginx.url, command, settings, pathlib.Path(self.tmp.name, "project"))

    def test_unavailable_sidecar_exits_1_with_the_commands(self) -> None:
        for command in ("crawl", "runspider"):
            with self.subTest(command=command):
                self.tmp.cleanup()
                self.tmp = tempfile.TemporaryDirectory(prefix="neardup-index-")
                settings = {**self.COMMANDS, "NEARDUP_URL": closed_port_url(), "NEARDUP_FAIL_OPEN": False}
                rc, log = self.command(command, settings)
                self.assertIn("Spider closed (neardup_unavailable)", log)
                self.assertIn("the crawl failed (finish_reason neardup_unavailable): scrapy crawl exits 1", log)
                self.assertEqual(rc, 1, log[-3000:])

    def test_breaker_closing_the_spider_exits_1_with_the_commands(self) -> None:
        sidecar = self.fake("error")
        settings = {
            **self.COMMANDS,
            "NEARDUP_URL": sidecar.url,
            "NEARDUP_FAIL_OPEN": False,
            "NEARDUP_BREAKER_THRESHOLD": 2,
            "CONCURRENT_REQUESTS": 1,
        }
        rc, log = self.command("crawl", settings)
        self.assertIn("Spider closed (neardup_unavailable)", log)
        self.assertEqual(rc, 1, log[-3000:])

    def test_a_finished_crawl_exits_0_with_the_commands(self) -> None:
        server = self.serve()
        rc, log = self.command("crawl", {**self.COMMANDS, "NEARDUP_URL": server.url, "NEARDUP_FAIL_OPEN": False})
        self.assertIn("Spider closed (finished)", log)
        self.assertNotIn("the crawl failed", log)
        self.assertEqual(rc, 0, log[-3000:])

    def test_without_the_commands_the_log_says_how_to_get_an_exit_status(self) -> None:
        rc, log = self.command("crawl", {"NEARDUP_URL": closed_port_url(), "NEARDUP_FAIL_OPEN": False})
        self.assertIn("Spider closed (neardup_unavailable)", log)
        self.assertIn("set COMMANDS_MODULE = 'neardup_scrapy.commands' for an exit status of 1", log)


if __name__ == "__main__":
    unittest.main()
