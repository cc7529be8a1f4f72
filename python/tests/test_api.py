"""The Python API: checks, verdicts, config, indexes, errors."""

from __future__ import annotations

import json
import pathlib
import socket
import subprocess
import time
import urllib.request

import pytest
from conftest import article, free_port, html, neardup_bin, page

import neardup

ARTICLE = "https://news.example/harbor"


def test_a_copy_is_dropped_and_names_the_page_it_copies():
    d = neardup.Deduper()
    first = d.check(ARTICLE, page("article.html"), "text/html; charset=utf-8")
    assert first.kind == "unique" and not first.is_drop
    assert first.matched_url is None and first.detector is None
    assert first.indexed_as == 0

    copy = d.check("https://mirror.example/harbor", page("copy.html"))
    assert copy.kind == "duplicate" and copy.is_drop
    assert copy.matched_url == ARTICLE
    assert copy.matched_id == 0
    assert copy.detector in ("exact", "simhash", "chunks")
    assert 0.9 <= copy.similarity <= 1.0
    assert copy.reason and copy.covered is not None
    assert copy.indexed_as is None

    other = d.check("https://garden.example/tomatoes", page("unrelated.html"))
    assert other.kind == "unique"
    assert d.stats() == {"checked": 3, "unique": 2, "duplicates": 1, "unchanged": 0, "near_duplicates": 0, "indexed": 2}


def test_to_dict_is_the_sidecar_json():
    d = neardup.Deduper()
    d.check(ARTICLE, page("article.html"))
    v = d.check("https://mirror.example/harbor", page("copy.html"))
    j = v.to_dict()
    assert j["kind"] == v.kind
    assert j["matched"]["url"] == ARTICLE
    assert j["matched"]["detector"] == v.detector
    assert j["matched"]["similarity"] == pytest.approx(v.similarity)
    assert j["warnings"] == v.warnings
    assert 'Verdict(kind="duplicate"' in repr(v)


STUB = (
    b"<html><head><meta http-equiv='refresh' content='0; url=https://news.example/harbor'>"
    b"<title>Moved</title></head><body><p>This page has moved to "
    b"<a href='https://news.example/harbor'>the harbour story</a>.</p></body></html>"
)

#: Pages checked in this order by test_to_dict_is_what_neardup_serve_answers:
#: unique, duplicate, print and near copies, unrelated, an unchanged
#: recrawl, short, empty and broken pages, two redirect stubs.
SERVE_PAGES = [
    (ARTICLE, page("article.html")),
    ("https://mirror.example/harbor", page("copy.html")),
    ("https://news.example/harbor?print=1", page("print.html")),
    ("https://other.example/harbour-story", page("near.html")),
    ("https://garden.example/tomatoes", page("unrelated.html")),
    (ARTICLE, page("article.html")),
    ("https://a.example/short", page("short.html")),
    ("https://a.example/empty", page("empty.html")),
    ("https://a.example/bad", page("invalid-utf8.html")),
    ("https://a.example/old", STUB),
    ("https://b.example/old", STUB),
]


def _serve() -> tuple[subprocess.Popen, str]:
    """A `neardup serve --in-memory` on a free 127.0.0.1 port, ready."""
    port = free_port()
    proc = subprocess.Popen(
        [neardup_bin(), "serve", "--listen", f"127.0.0.1:{port}", "--in-memory"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError("neardup serve did not start") from None
            time.sleep(0.05)


def test_to_dict_is_what_neardup_serve_answers():
    """Verdict.to_dict() equals, key for key, the JSON a real `neardup serve`
    answers on /v1/check for the same pages in the same order (no
    `stored_as`, `redirect` only for a stub, `matched` with the same keys)."""
    proc, url = _serve()
    try:
        d = neardup.Deduper()
        content_type = "text/html; charset=utf-8"
        kinds, redirects = set(), 0
        for page_url, body in SERVE_PAGES:
            text = body.decode("utf-8", errors="replace")
            payload = {"url": page_url, "html": text, "headers": {"content-type": content_type}}
            request = urllib.request.Request(
                url + "/v1/check", json.dumps(payload).encode(), {"content-type": "application/json"}
            )
            with urllib.request.urlopen(request, timeout=30) as answer:
                served = json.load(answer)
            v = d.check(page_url, text, content_type)
            assert v.to_dict() == served, (page_url, v.to_dict(), served)
            kinds.add((v.kind, v.unchanged))
            redirects += "redirect" in served
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    # The pages covered every kind of answer.
    assert {("unique", False), ("duplicate", False), ("duplicate", True), ("near_duplicate", False)} <= kinds, kinds
    assert redirects == 2


def test_a_recrawl_of_an_unchanged_page_is_reported_unchanged():
    d = neardup.Deduper()
    d.check(ARTICLE, page("article.html"))
    again = d.check(ARTICLE, page("article.html"))
    assert again.kind == "duplicate" and again.unchanged and again.detector == "same_url"
    copy = d.check("https://mirror.example/harbor", page("copy.html"))
    assert copy.is_drop and not copy.unchanged
    # stats(): the unchanged recrawl is a duplicate, and counted as unchanged too.
    stats = d.stats()
    assert stats["duplicates"] == 2 and stats["unchanged"] == 1, stats
    assert stats["checked"] == stats["unique"] + stats["duplicates"] + stats["near_duplicates"] == 3, stats


def test_body_as_str_and_bytes_in_another_charset():
    d = neardup.Deduper()
    text = "Über die Straße gehen Fußgänger täglich " * 10
    latin1 = html("Straße", text).replace(b"charset='utf-8'", b"charset='iso-8859-1'").decode().encode("latin-1")
    extracted = d.extract(latin1, "text/html; charset=iso-8859-1")
    assert "Über die Straße gehen Fußgänger" in extracted
    assert d.extract(html("Straße", text).decode()) == extracted
    first = d.check("https://a.example/1", latin1, "text/html; charset=iso-8859-1")
    same = d.check("https://b.example/1", html("Straße", text).decode())
    assert first.kind == "unique" and same.kind == "duplicate" and same.matched_url == "https://a.example/1"


def test_extract_returns_the_main_text_without_navigation():
    text = neardup.Deduper().extract(page("article.html"))
    assert "old fish market on the north quay" in text
    assert "Sport" not in text.split("\n")


def test_bad_pages_get_warnings_not_exceptions():
    d = neardup.Deduper()
    binary = bytes(range(256)) * 64
    v = d.check("https://a.example/blob", binary, "application/octet-stream")
    assert v.kind == "unique" and v.indexed_as is None
    assert v.warnings, "a binary body says why it was not compared"
    v = d.check("https://a.example/bad", page("invalid-utf8.html"))
    assert v.kind == "unique"
    assert d.check("https://a.example/empty", b"").kind == "unique"


def test_bad_arguments_raise_type_and_value_errors():
    d = neardup.Deduper()
    with pytest.raises(TypeError, match="body must be bytes or str"):
        d.check("https://a.example/", 42)
    with pytest.raises(ValueError, match="either url or id"):
        d.remove()
    with pytest.raises(TypeError, match="config must be"):
        neardup.Deduper(config=42)


def test_config_as_dict_and_as_toml_file(tmp_path):
    d = neardup.Deduper({"decide": {"detectors": ["exact", "simhash"]}, "simhash": {"max_distance": 5}})
    assert d.detectors == ["exact", "simhash"]
    assert d.config()["simhash"]["max_distance"] == 5
    toml = tmp_path / "neardup.toml"
    toml.write_text('[decide]\ndetectors = ["exact"]\n')
    assert neardup.Deduper(toml).detectors == ["exact"]
    assert neardup.Deduper(str(toml)).detectors == ["exact"]
    # The config in force round-trips as a dict.
    full = neardup.Deduper().config()
    assert neardup.Deduper(full).config() == full


def test_invalid_config_raises_config_error_with_the_library_message(tmp_path):
    with pytest.raises(neardup.ConfigError, match="unknown detector `nope`"):
        neardup.Deduper({"decide": {"detectors": ["exact", "nope"]}})
    with pytest.raises(neardup.ConfigError, match="min_coverage"):
        neardup.Deduper({"decide": {"min_coverage": 7.5}})
    with pytest.raises(neardup.ConfigError, match="unknown field `max_distanse`"):
        neardup.Deduper({"simhash": {"max_distanse": 3}})
    bad = tmp_path / "bad.toml"
    bad.write_text("[decide\n")
    with pytest.raises(neardup.ConfigError, match="bad.toml"):
        neardup.Deduper(bad)
    with pytest.raises(neardup.NeardupError, match="missing.toml"):
        neardup.Deduper(tmp_path / "missing.toml")
    assert issubclass(neardup.ConfigError, neardup.NeardupError)


@pytest.mark.parametrize(
    ("config", "key", "message"),
    [
        ({"simhash": {"max_distanse": 3}}, "simhash.max_distanse", "unknown field `max_distanse`"),
        ({"decide": {"min_terms": "many"}}, "decide.min_terms", 'invalid type: string "many"'),
        ({"chunkz": {}}, "chunkz", "unknown field `chunkz`"),
        ({"extract": {"mode": "everything"}}, "extract.mode", "unknown variant `everything`"),
    ],
)
def test_a_bad_dict_config_names_the_dict_and_the_key(config, key, message):
    """A dict config's error says it was a dict and names the dotted key, not
    a line of TOML the caller never wrote."""
    with pytest.raises(neardup.ConfigError) as err:
        neardup.Deduper(config)
    text = str(err.value)
    assert text.startswith(f"config (a dict): `{key}`: "), text
    assert message in text, text
    assert "TOML" not in text and "line" not in text, text


def test_plugin_detectors_are_available():
    d = neardup.Deduper({"decide": {"detectors": ["exact", "minhash"]}})
    assert d.detectors == ["exact", "minhash"]
    text = article(1)
    d.check("https://a.example/1", html("One", text))
    v = d.check("https://b.example/1", html("One", text.replace("harbour", "harbor", 1) + " extra words here"))
    assert v.is_drop and v.detector == "minhash"


def test_remove_by_url_and_by_id():
    d = neardup.Deduper()
    a = d.check(ARTICLE, page("article.html"))
    assert d.remove(url=ARTICLE) is True
    assert d.remove(url=ARTICLE) is False
    assert d.check("https://mirror.example/harbor", page("copy.html")).kind == "unique"
    b = d.check("https://garden.example/t", page("unrelated.html"))
    assert d.remove(id=b.indexed_as) is True
    assert d.stats()["indexed"] == 1
    assert a.indexed_as == 0


def test_a_redb_index_persists_across_dedupers(tmp_path):
    path = tmp_path / "pages.redb"
    with neardup.Deduper(index=path) as d:
        assert d.check(ARTICLE, page("article.html")).kind == "unique"
        assert "pages.redb" in repr(d)
    with pytest.raises(neardup.NeardupError, match="closed"):
        d.check(ARTICLE, page("article.html"))
    d.close()  # twice is fine

    again = neardup.Deduper(index=str(path))
    assert again.stats()["indexed"] == 1
    v = again.check("https://mirror.example/harbor", page("copy.html"))
    assert v.is_drop and v.matched_url == ARTICLE
    again.close()


def test_an_index_built_with_another_chain_is_refused(tmp_path):
    path = tmp_path / "pages.redb"
    neardup.Deduper(index=path).close()
    with pytest.raises(neardup.StoreError, match="exact"):
        neardup.Deduper({"decide": {"detectors": ["exact"]}}, index=path)


def test_an_index_that_is_not_redb_is_refused(tmp_path):
    path = tmp_path / "junk.redb"
    path.write_bytes(b"not a database" * 100)
    with pytest.raises(neardup.StoreError, match="junk.redb"):
        neardup.Deduper(index=path)


def test_a_redis_index_is_shared_by_two_dedupers(redis_url):
    a = neardup.Deduper(index=redis_url)
    b = neardup.Deduper(index=redis_url)
    assert a.check(ARTICLE, page("article.html")).kind == "unique"
    v = b.check("https://mirror.example/harbor", page("copy.html"))
    assert v.is_drop and v.matched_url == ARTICLE


def test_signatures_are_the_export_columns_and_compare_judges_pairs():
    d = neardup.Deduper()
    a = d.signatures(ARTICLE, page("article.html"))
    b = d.signatures("https://mirror.example/harbor", page("copy.html"), key="copy")
    c = d.signatures("https://garden.example/t", page("unrelated.html"))
    assert d.stats()["checked"] == 0, "signatures() does not touch the index"
    assert (b["key"], b["url"], b["site"]) == ("copy", "https://mirror.example/harbor", "mirror.example")
    assert a["exact"] == b["exact"] != c["exact"]
    assert isinstance(a["simhash"], int) and -(2**63) <= a["simhash"] < 2**63
    assert a["chunks"] == sorted(set(a["chunks"])) and a["terms"] > 50
    assert set(a["posted"]) == {"simhash", "chunks"} == set(a["probed"])
    assert set(a["posted"]["chunks"]) <= set(a["probed"]["chunks"])
    # The copy shares a SimHash block key with the article.
    assert set(a["posted"]["simhash"]) & set(b["probed"]["simhash"])

    m = d.compare(a["comparable"], b["comparable"])
    assert m is not None and m["kind"] == "duplicate" and m["similarity"] > 0.9
    # The same judgement as check().
    v = neardup.Deduper()
    v.check(ARTICLE, page("article.html"))
    got = v.check("https://mirror.example/harbor", page("copy.html"))
    assert (m["kind"], m["detector"]) == (got.kind, got.detector)
    assert d.compare(a["comparable"], c["comparable"]) is None


def test_comparable_bytes_of_another_chain_are_refused():
    a = neardup.Deduper().signatures(ARTICLE, page("article.html"))["comparable"]
    other = neardup.Deduper({"simhash": {"shingle": 5}})
    with pytest.raises(neardup.NeardupError, match="another detector chain"):
        other.compare(a, a)
    with pytest.raises(neardup.NeardupError, match="comparable page"):
        neardup.Deduper().compare(a[:10], a)


def test_type_stubs_cover_the_module():
    stub = (pathlib.Path(neardup.__file__).parent / "_neardup.pyi").read_text()
    for name in ("check", "extract", "stats", "remove", "signatures", "compare", "flush", "close", "config"):
        assert hasattr(neardup.Deduper, name)
        assert f"def {name}(" in stub, name
    assert neardup.__version__ == "0.1.0"
