"""A Deduper shared by threads: the same decisions as one thread, nothing lost."""

from __future__ import annotations

import threading

import pytest
from conftest import article, html

import neardup


def corpus(n_articles: int, copies: int) -> list[tuple[str, bytes, int]]:
    """``(url, body, article)``: each article once on its own site, then
    ``copies`` exact copies of it in other chrome on other sites."""
    pages = []
    for i in range(n_articles):
        text = article(i)
        pages.append((f"https://site{i % 7}.example/a/{i}", html(f"Article {i}", text), i))
        for c in range(copies):
            chrome = f"<nav><a href='/'>Mirror {c}</a></nav>"
            pages.append((f"https://mirror{c}.example/{i}", html(f"Article {i}", text, chrome), i))
    return pages


def run_threads(d: neardup.Deduper, pages, threads: int) -> dict[str, neardup.Verdict]:
    """Checks ``pages`` split round-robin over ``threads`` threads."""
    verdicts: dict[str, neardup.Verdict] = {}
    errors: list[BaseException] = []
    lock = threading.Lock()

    def work(share):
        try:
            for url, body, _ in share:
                v = d.check(url, body, "text/html")
                with lock:
                    verdicts[url] = v
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    workers = [threading.Thread(target=work, args=(pages[t::threads],)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors, errors
    return verdicts


def test_a_thousand_pages_on_two_threads():
    pages = corpus(250, 3)
    assert len(pages) == 1000
    d = neardup.Deduper()
    verdicts = run_threads(d, pages, threads=2)
    assert len(verdicts) == 1000
    stats = d.stats()
    assert stats["checked"] == 1000
    # Whichever thread checked a copy first, each article is kept exactly
    # once and every other copy of it names a page of the same article.
    kept: dict[int, int] = {}
    article_of = {url: a for url, _, a in pages}
    for url, _, a in pages:
        v = verdicts[url]
        if v.is_drop:
            assert article_of[v.matched_url] == a, (url, v)
        else:
            kept[a] = kept.get(a, 0) + 1
    assert kept == {a: 1 for a in range(250)}
    assert stats["unique"] == 250 and stats["indexed"] == 250
    assert stats["duplicates"] + stats["near_duplicates"] == 750


def test_two_threads_decide_as_one_on_distinct_pages():
    pages = corpus(200, 0)
    one = neardup.Deduper()
    sequential = {url: one.check(url, body).kind for url, body, _ in pages}
    two = neardup.Deduper()
    parallel = {url: v.kind for url, v in run_threads(two, pages, threads=2).items()}
    assert parallel == sequential
    assert set(sequential.values()) == {"unique"}


def test_closing_while_threads_check_loses_nothing_and_fails_cleanly():
    pages = corpus(150, 1)
    d = neardup.Deduper()
    results: list[object] = []
    started = threading.Event()

    def work():
        for url, body, _ in pages:
            started.set()
            try:
                results.append(d.check(url, body))
            except neardup.NeardupError as err:
                results.append(err)

    t = threading.Thread(target=work)
    t.start()
    started.wait()
    d.close()
    t.join()
    assert len(results) == len(pages)
    errors = [r for r in results if isinstance(r, Exception)]
    assert all("closed" in str(e) for e in errors)
    # Every check after the close failed; none before it did.
    first_error = next((i for i, r in enumerate(results) if isinstance(r, Exception)), len(results))
    assert all(isinstance(r, Exception) for r in results[first_error:])
    with pytest.raises(neardup.NeardupError, match="closed"):
        d.stats()


def test_the_gil_is_released_while_a_page_is_analyzed():
    """Another Python thread runs during a check. With a switch interval of
    a second, a thread holding the GIL through a call gives it up to no
    one during it (a call holding it, like json.dumps, moves the count by
    exactly 0); a check that releases it lets the other thread count.

    Six checks of a few milliseconds each: a check holding the GIL could
    let the spinner count only by a forced switch at a bytecode boundary
    beside the call, once per second of the main thread's running, so at
    most one of the six; a check releasing it lets the spinner count on
    nearly every call (a call may still end before the OS wakes the
    spinner, as happened once on a loaded 2-core machine)."""
    import sys

    body = html("Big", " ".join(article(n, 400) for n in range(60)))
    d = neardup.Deduper()
    count = 0
    stop = threading.Event()

    def spin():
        nonlocal count
        while not stop.is_set():
            count += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        moved = []
        for i in range(6):
            before = count
            d.check(f"https://big.example/{i}", body)
            moved.append(count - before)
    finally:
        stop.set()
        spinner.join()
        sys.setswitchinterval(interval)
    assert sum(m > 0 for m in moved) >= 4, moved
