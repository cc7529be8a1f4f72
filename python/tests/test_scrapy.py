"""Real Scrapy crawls of a local site (tests/scrapy_site.py, 127.0.0.1 only)
with ``neardup.scrapy.NeardupMiddleware`` checking pages in-process.

Each crawl runs in a subprocess (tests/scrapy_crawl.py: Twisted's reactor
cannot be restarted); every one is checked for ScrapyDeprecationWarning and
tracebacks in its log and for stats that add up. Scrapy missing skips the
module on a developer's machine and fails it when CI is set.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

try:
    import scrapy
    import scrapy_site as site_files

    import neardup
    import neardup.scrapy
except ImportError as err:
    if os.environ.get("CI"):
        raise RuntimeError(f"CI: {err.name} is missing ({err}); pip install 'neardup[scrapy]' pytest") from err
    pytest.skip(f"{err.name} is missing ({err})", allow_module_level=True)

HERE = pathlib.Path(__file__).resolve().parent
DROP_LINE = r"dropped \S+/(\w+\.html): (\w+) of \S+/(\w+\.html) \(detector (\w+), similarity ([0-9.]+)\)"
#: Pages kept by a default crawl: one of each copied pair, one stub.
KEPT = len(site_files.CHECKED) - len(site_files.PAIRS) - 1 - 1
#: Pages indexed: those kept and the near copy (decide.index_near_duplicates).
INDEXED = KEPT + 1


class CrawlResult:
    """What one crawl subprocess reported, and its log."""

    def __init__(self, returncode: int, stdout: str, log: str):
        self.returncode = returncode
        self.log = log
        lines = stdout.strip().splitlines()
        self.progress = [json.loads(line[len("parsed ") :]) for line in lines if line.startswith("parsed ")]
        last = json.loads(lines[-1]) if lines and not lines[-1].startswith("parsed ") else {}
        self.error: str | None = last.get("error")
        self.parsed: list[dict[str, Any]] = last.get("parsed", self.progress)
        self.stats: dict[str, Any] = last.get("stats", {})
        self.reopened: dict[str, Any] | None = last.get("reopened")

    def pages(self) -> list[str]:
        """The parsed pages' file names, sorted."""
        return sorted(_name(p["url"]) for p in self.parsed)

    def stat(self, key: str) -> int:
        return int(self.stats.get(key, 0))

    def drops(self) -> list[str]:
        return [line for line in self.log.splitlines() if "neardup: dropped" in line]

    def __repr__(self) -> str:
        return f"CrawlResult(rc={self.returncode}, pages={self.pages()}, stats={self.stats})\n{self.log[-4000:]}"


def _name(url: str) -> str:
    return url.rsplit("/", 1)[-1] or "index.html"


@pytest.fixture(scope="module")
def site() -> Iterator[site_files.Site]:
    s = site_files.Site()
    yield s
    s.stop()


def run_crawl(site: site_files.Site, settings: dict[str, Any], *, expect_rc: int = 0, **config: Any) -> CrawlResult:
    """Runs tests/scrapy_crawl.py: one Scrapy crawl of the site."""
    config = {"start": site.url, "settings": settings, **config}
    out = subprocess.run(
        [sys.executable, str(HERE / "scrapy_crawl.py"), json.dumps(config)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    r = CrawlResult(out.returncode, out.stdout, out.stderr)
    assert out.returncode == expect_rc, r
    assert "ScrapyDeprecationWarning" not in r.log, r
    if expect_rc == 0:
        assert "Traceback" not in r.log, r
        assert_stats_add_up(r)
    return r


def assert_stats_add_up(r: CrawlResult) -> None:
    """responses = skipped + checked + errors + breaker_open, and the parts."""
    skipped = sum(r.stat(k) for k in r.stats if k.startswith("neardup/skipped/"))
    assert r.stat("neardup/skipped") == skipped, r
    checked = sum(r.stat("neardup/" + k) for k in ("unique", "unchanged", "duplicate", "near_duplicate"))
    assert r.stat("neardup/checked") == checked, r
    parts = r.stat("neardup/skipped") + checked + r.stat("neardup/errors") + r.stat("neardup/breaker_open")
    assert r.stat("neardup/responses") == parts, r


def assert_one_of_each(r: CrawlResult, groups: tuple[set[str], ...]) -> None:
    """The spider parsed every page but one of each group of copies."""
    pages = set(r.pages())
    for group in groups:
        assert len(group & pages) == 1, r
    assert len(pages) == len(site_files.PARSED) - len(groups), r


def assert_drop_lines(r: CrawlResult, count: int) -> None:
    """``count`` drop lines, each naming the page its page copies."""
    drops = r.drops()
    assert len(drops) == count, r
    for line in drops:
        m = re.search(DROP_LINE, line)
        assert m, line
        pair = {m.group(1), m.group(3)}
        if m.group(2) == "duplicate":
            assert pair in site_files.PAIRS, line
            assert (m.group(4), m.group(5)) == ("exact", "1.000"), line
        else:
            assert (m.group(2), pair) == ("near_duplicate", site_files.NEAR), line
            assert float(m.group(5)) < 1.0, line


# -- dropping ----------------------------------------------------------------


def test_crawl_drops_copies_naming_the_page_they_copy(site: site_files.Site) -> None:
    r = run_crawl(site, {"NEARDUP_DEBUG": True})
    assert_one_of_each(r, (*site_files.PAIRS, site_files.NEAR))
    # Checked: the 200 HTML pages but the seed; 2 exact copies, 1 near copy
    # and 1 redirect stub repeating the other's text.
    assert r.stat("neardup/responses") == len(site_files.FILES), r
    assert r.stat("neardup/checked") == len(site_files.CHECKED), r
    assert r.stat("neardup/duplicate") == 3, r
    assert r.stat("neardup/near_duplicate") == 1, r
    assert r.stat("neardup/unique") == KEPT, r
    assert r.stat("neardup/unchanged") == 0, r
    assert r.stat("neardup/dropped") == 3, r
    assert r.stat("neardup/redirect_stub") == 2, r  # both stubs, neither dropped
    assert r.stat("neardup/skipped/dont_filter") == 1, r  # the seed
    assert r.stat("neardup/skipped/status") == 1, r  # missing.html
    assert r.stat("neardup/skipped/not_html") == 1, r  # notes.txt
    assert r.stat("neardup/errors") == 0, r
    assert r.stat("neardup/indexed") == INDEXED, r
    # The stubs were followed (MetaRefreshMiddleware runs after this one).
    assert r.stat("downloader/response_count") == len(site_files.FILES), r
    assert r.stat("downloader/response_count") == r.stat("neardup/responses"), r
    assert r.stat("httpcompression/response_count") == len(site_files.FILES), r
    assert_drop_lines(r, 3)
    # request.meta["neardup"]: the verdict dict (as the sidecar's) plus unchanged.
    for p in r.parsed:
        if _name(p["url"]) in site_files.CHECKED:
            v = p["neardup"]
            assert v["kind"] == "unique" and v["unchanged"] is False and v["matched"] is None, p
            assert isinstance(v["indexed_as"], int) and isinstance(v["warnings"], list), p
        else:
            assert p["neardup"] is None, p


def test_near_duplicates_are_kept_with_drop_near_off(site: site_files.Site) -> None:
    r = run_crawl(site, {"NEARDUP_DROP_NEAR": False})
    assert_one_of_each(r, site_files.PAIRS)
    assert r.stat("neardup/near_duplicate") == 1, r
    assert r.stat("neardup/dropped") == 2, r
    near = [p for p in r.parsed if p["neardup"] and p["neardup"]["kind"] == "near_duplicate"]
    assert len(near) == 1, r
    v = near[0]["neardup"]
    assert {_name(near[0]["url"]), _name(v["matched"]["url"])} == site_files.NEAR, r
    assert v["matched"]["detector"] in ("simhash", "chunks") and v["matched"]["similarity"] < 1.0, r
    # Without NEARDUP_DEBUG only the first drop is logged, with the hint.
    assert len(r.drops()) == 1 and "see NEARDUP_DEBUG" in r.drops()[0], r


def test_config_from_a_toml_file_is_used(site: site_files.Site, tmp_path: pathlib.Path) -> None:
    """NEARDUP_CONFIG as a TOML path: with redirect stubs not recognized, the
    second stub is an ordinary duplicate and dropped (meta refresh not followed)."""
    config = tmp_path / "neardup.toml"
    config.write_text("[extract]\nredirect_stubs = false\n")
    r = run_crawl(site, {"NEARDUP_CONFIG": str(config), "NEARDUP_DEBUG": True})
    assert r.stat("neardup/redirect_stub") == 0, r
    assert r.stat("neardup/duplicate") == 3, r
    assert r.stat("neardup/dropped") == 4, r
    stub_drops = [line for line in r.drops() if re.search(r"dropped \S+/(moved|gone)\.html: duplicate of", line)]
    assert len(stub_drops) == 1, r


def test_skip_rules(site: site_files.Site) -> None:
    """meta neardup_skip, dont_filter, non-200 and non-HTML responses are not
    checked, so neither copy of a pair with one skipped is dropped."""
    r = run_crawl(site, {}, skip_meta=["b.html"], dont_filter=["e.html"])
    assert_one_of_each(r, (site_files.NEAR,))
    assert r.stat("neardup/skipped/meta") == 1, r
    assert r.stat("neardup/skipped/dont_filter") == 2, r  # the seed and e.html
    assert r.stat("neardup/skipped/status") == 1, r
    assert r.stat("neardup/skipped/not_html") == 1, r
    assert r.stat("neardup/skipped") == 5, r
    assert r.stat("neardup/checked") == len(site_files.CHECKED) - 2, r
    assert r.stat("neardup/duplicate") == 1, r  # the second redirect stub, kept
    assert r.stat("neardup/dropped") == 1, r  # the near copy
    for p in r.parsed:
        if _name(p["url"]) in ("b.html", "e.html", "notes.txt"):
            assert p["neardup"] is None, p


def test_misplaced_middleware_decompresses_gzip_itself(site: site_files.Site) -> None:
    """Above HttpCompressionMiddleware the body is still gzipped: the
    middleware decodes it itself (else every page would look unique), and warns."""
    r = run_crawl(site, {"DOWNLOADER_MIDDLEWARES": {"neardup.scrapy.NeardupMiddleware": 950}})
    assert_one_of_each(r, (*site_files.PAIRS, site_files.NEAR))
    assert r.stat("neardup/dropped") == 3, r
    assert r.stat("neardup/skipped/undecodable") == 0, r
    assert "use priority 580" in r.log, r


def test_disabled_middleware_is_not_configured(site: site_files.Site) -> None:
    r = run_crawl(site, {"NEARDUP_ENABLED": False})
    assert r.pages() == site_files.PARSED, r
    assert not [k for k in r.stats if k.startswith("neardup/")], r
    assert "neardup.scrapy.NeardupMiddleware" not in r.log.split("Enabled downloader middlewares", 1)[1], r


# -- recrawls ----------------------------------------------------------------


def test_second_crawl_against_the_same_redb_index(site: site_files.Site, tmp_path: pathlib.Path) -> None:
    index = tmp_path / "pages.redb"
    first = run_crawl(site, {"NEARDUP_INDEX": str(index)})
    assert_one_of_each(first, (*site_files.PAIRS, site_files.NEAR))
    assert first.stat("neardup/unique") == KEPT, first
    # The middleware closed (flushed) the index when the spider closed: the
    # crawl's process could open it again, with the pages indexed in it.
    assert first.reopened == {"indexed": INDEXED}, first

    second = run_crawl(site, {"NEARDUP_INDEX": str(index), "NEARDUP_DEBUG": True})
    # The same pages reach the spider: unchanged pages pass, links followed.
    assert second.pages() == first.pages(), second
    assert second.stat("neardup/unchanged") == KEPT, second
    assert second.stat("neardup/unique") == 0, second
    assert second.stat("neardup/duplicate") == 3, second  # 2 copies, 1 stub
    assert second.stat("neardup/near_duplicate") == 1, second
    assert second.stat("neardup/dropped") == 3, second
    assert second.stat("neardup/redirect_stub") == 1, second  # the unchanged one counts as unchanged
    assert second.stat("neardup/indexed") == INDEXED, second
    assert_drop_lines(second, 3)
    for p in second.parsed:
        if _name(p["url"]) in site_files.CHECKED:
            v = p["neardup"]
            assert v["unchanged"] is True and v["kind"] == "duplicate", p
            assert v["matched"]["detector"] == "same_url" and v["matched"]["url"] == p["url"], p
    # The index file holds the pages indexed (the crawl closed it).
    with neardup.Deduper(index=str(index)) as dedup:
        assert dedup.stats()["indexed"] == INDEXED


def test_crash_keeps_what_the_periodic_flush_wrote(site: site_files.Site, tmp_path: pathlib.Path) -> None:
    """NEARDUP_FLUSH_INTERVAL: a crawl killed without cleanup (os._exit) has
    its pages checked before the last flush in the redb index."""
    index = tmp_path / "pages.redb"
    settings = {
        "NEARDUP_INDEX": str(index),
        "NEARDUP_FLUSH_INTERVAL": 0.1,
        "CONCURRENT_REQUESTS": 1,
        "DOWNLOAD_DELAY": 0.2,
    }
    # Crash 0.8 s after the 4th page is parsed, long before the crawl ends.
    r = run_crawl(site, settings, expect_rc=3, exit_after=[4, 0.8])
    before = [p for p in r.progress[:4] if p["neardup"] and p["neardup"]["kind"] == "unique"]
    assert before, r
    assert len(r.progress) < len(site_files.PARSED), r  # it did crash mid-crawl
    with neardup.Deduper(index=str(index)) as dedup:
        assert dedup.stats()["indexed"] >= len(before), r
        for p in before:
            _, ctype, text = site_files.FILES[_name(p["url"])]
            v = dedup.check(p["url"], text.encode("utf-8"), ctype)
            assert v.unchanged, (p, v.to_dict())


# -- failures ----------------------------------------------------------------


def test_index_failure_fail_open_keeps_pages(site: site_files.Site) -> None:
    """Every check after the seed raises the library's NeardupError (the
    spider closed the deduper): pages are kept, and after 2 failures the
    breaker stops checking."""
    settings = {"CONCURRENT_REQUESTS": 1, "NEARDUP_BREAKER_THRESHOLD": 2, "NEARDUP_BREAKER_COOLDOWN": 600}
    r = run_crawl(site, settings, close_index_on_seed=True)
    assert r.stats.get("finish_reason") == "finished", r
    assert r.pages() == site_files.PARSED, r
    assert r.stat("neardup/errors") == 2, r
    assert r.stat("neardup/breaker_opened") == 1, r
    assert r.stat("neardup/breaker_open") == len(site_files.CHECKED) - 2, r
    assert r.stat("neardup/dropped") == 0, r
    assert len(re.findall(r"WARNING: neardup: check of \S+ failed: the deduper is closed", r.log)) == 2, r
    assert "2 consecutive failures; not checking pages for 600 s" in r.log, r
    for p in r.parsed:
        if _name(p["url"]) in site_files.CHECKED:
            assert p["neardup"]["kind"] is None and p["neardup"]["error"], p


def test_index_failure_fail_closed_drops_and_closes_the_spider(site: site_files.Site) -> None:
    settings = {"CONCURRENT_REQUESTS": 1, "NEARDUP_BREAKER_THRESHOLD": 2, "NEARDUP_FAIL_OPEN": False}
    r = run_crawl(site, settings, close_index_on_seed=True)
    assert r.stats.get("finish_reason") == "neardup_unavailable", r
    assert not set(r.pages()) & set(site_files.CHECKED), r
    assert r.stat("neardup/errors") == 2, r
    assert r.stat("neardup/dropped/no_verdict") == r.stat("neardup/dropped") == 2, r
    assert re.search(r"ERROR: neardup: dropped \S+ without a verdict \(the deduper is closed\)", r.log), r
    assert "ERROR: neardup: 2 consecutive failures and NEARDUP_FAIL_OPEN is off" in r.log, r


PROJECT_SETTINGS = """
SPIDER_MODULES = ["proj.spiders"]
DOWNLOADER_MIDDLEWARES = {"neardup.scrapy.NeardupMiddleware": 580}
ROBOTSTXT_OBEY = False
TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "INFO"
CONCURRENT_REQUESTS = 1
NEARDUP_BREAKER_THRESHOLD = 2
NEARDUP_FAIL_OPEN = False
"""

PROJECT_SPIDER = """
import json

from scrapy_crawl import SiteSpider as Base


class SiteSpider(Base):
    def __init__(self, config="{}", **kw):
        super().__init__(json.loads(config), **kw)
"""


def scrapy_command(
    site: site_files.Site, tmp_path: pathlib.Path, command: str, extra: str, **config: Any
) -> CrawlResult:
    """Runs ``scrapy crawl site`` or ``scrapy runspider`` (the spider's file)
    in a project made in tmp_path (PROJECT_SETTINGS plus ``extra``), as cron would."""
    project = tmp_path / "project"
    (project / "proj" / "spiders").mkdir(parents=True)
    (project / "scrapy.cfg").write_text("[settings]\ndefault = proj.settings\n")
    (project / "proj" / "__init__.py").write_text("")
    (project / "proj" / "spiders" / "__init__.py").write_text("")
    settings = PROJECT_SETTINGS + extra
    if tuple(int(x) for x in scrapy.__version__.split(".")[:2]) < (2, 12):
        settings += 'REQUEST_FINGERPRINTER_IMPLEMENTATION = "2.7"\n'
    (project / "proj" / "settings.py").write_text(settings)
    spider = project / "proj" / "spiders" / "site_spider.py"
    spider.write_text(PROJECT_SPIDER)
    target = ["crawl", "site"] if command == "crawl" else ["runspider", str(spider)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(project), str(HERE)])}
    env.pop("SCRAPY_SETTINGS_MODULE", None)
    out = subprocess.run(
        [sys.executable, "-m", "scrapy", *target, "-a", "config=" + json.dumps({"start": site.url, **config})],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return CrawlResult(out.returncode, out.stdout, out.stderr)


@pytest.mark.parametrize("command", ["crawl", "runspider"])
def test_scrapy_commands_exit_1_when_the_index_is_unavailable(
    site: site_files.Site, tmp_path: pathlib.Path, command: str
) -> None:
    """With COMMANDS_MODULE = "neardup.scrapy_commands", a real `scrapy crawl`
    (or `runspider`) whose index fails with NEARDUP_FAIL_OPEN off exits 1."""
    r = scrapy_command(
        site, tmp_path, command, 'COMMANDS_MODULE = "neardup.scrapy_commands"\n', close_index_on_seed=True
    )
    assert "Spider closed (neardup_unavailable)" in r.log, r
    assert "ERROR: neardup: the crawl failed (finish_reason neardup_unavailable): scrapy crawl exits 1" in r.log, r
    assert r.returncode == 1, r


def test_scrapy_crawl_command_exits_0_when_the_crawl_finishes(site: site_files.Site, tmp_path: pathlib.Path) -> None:
    r = scrapy_command(site, tmp_path, "crawl", 'COMMANDS_MODULE = "neardup.scrapy_commands"\n')
    assert "Spider closed (finished)" in r.log, r
    assert "the crawl failed" not in r.log, r
    assert r.returncode == 0, r


def test_without_the_commands_the_log_says_how_to_get_an_exit_status(
    site: site_files.Site, tmp_path: pathlib.Path
) -> None:
    r = scrapy_command(site, tmp_path, "crawl", "", close_index_on_seed=True)
    assert "Spider closed (neardup_unavailable)" in r.log, r
    assert "set COMMANDS_MODULE = 'neardup.scrapy_commands' for an exit status of 1" in r.log, r


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"NEARDUP_CONFIG": {"decide": {"detectors": ["nope"]}}}, "ConfigError: unknown detector `nope`"),
        ({"NEARDUP_CONFIG": '{"simhash": {"threshold": 3}}'}, "unknown field `threshold`"),
        ({"NEARDUP_INDEX": "/nonexistent/neardup/pages.redb"}, "StoreError: index /nonexistent/neardup/pages.redb"),
    ],
    ids=["dict", "json-text", "index"],
)
def test_bad_config_fails_the_crawl_with_the_library_message(
    site: site_files.Site, setting: dict[str, Any], message: str
) -> None:
    requests = sum(site.requests.values())
    r = run_crawl(site, setting, expect_rc=1)
    assert r.error and message in r.error, r
    assert message in r.log, r
    assert "Spider opened" not in r.log, r
    assert sum(site.requests.values()) == requests, r  # nothing was fetched


def test_bad_toml_file_fails_the_crawl(site: site_files.Site, tmp_path: pathlib.Path) -> None:
    config = tmp_path / "neardup.toml"
    config.write_text("[simhash]\nthreshold = 3\n")
    r = run_crawl(site, {"NEARDUP_CONFIG": str(config)}, expect_rc=1)
    assert r.error and "ConfigError" in r.error and "unknown field `threshold`" in r.error, r
