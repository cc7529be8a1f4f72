"""End-to-end test: a real ``neardup serve``, a local web site served by
http.server, and a real Scrapy crawl with the middleware.

Needs Scrapy (``pip install scrapy``) and the neardup binary: ``NEARDUP_BIN``
or ``target/{release,debug}/neardup`` from the repository root. Run with
``examples/scrapy/run-tests.sh``.
"""

import functools
import http.server
import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import tempfile
import threading
import unittest
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent

STORY = (
    "Researchers at the harbour institute measured how quickly the tide returned after "
    "the storm, comparing sensor logs from twelve buoys with satellite images taken every "
    "hour, and found that the water rose faster near the old pier than anywhere else along "
    "the northern coast of the bay during that week. The team now plans a second survey "
    "in the spring, when the river carries melt water from the mountains into the harbour."
)
OTHER = (
    "The village council approved a new budget for the public library after a long debate "
    "about opening hours, the salaries of the staff and the cost of repairing the roof before "
    "the winter. Volunteers offered to run a reading club for children on Saturday mornings, "
    "and the bakery across the square promised bread for the opening of the new wing."
)


def page(title, text):
    return (
        f"<html><head><title>{title}</title></head><body>"
        f"<article><h1>{title}</h1><p>{text}</p></article></body></html>"
    )


def neardup_bin():
    env = os.environ.get("NEARDUP_BIN")
    if env:
        return env
    for profile in ("release", "debug"):
        for target in (os.environ.get("CARGO_TARGET_DIR"), ROOT / "target"):
            if target and (pathlib.Path(target) / profile / "neardup").exists():
                return str(pathlib.Path(target) / profile / "neardup")
    raise unittest.SkipTest("no neardup binary: build it or set NEARDUP_BIN")


class Server:
    """``neardup serve`` on a free port, its index (redb, the default store)
    in a fresh temporary directory."""

    def __init__(self):
        self.dir = tempfile.TemporaryDirectory()
        index = str(pathlib.Path(self.dir.name, "index.redb"))
        self.proc = subprocess.Popen(
            [neardup_bin(), "serve", "--listen", "127.0.0.1:0", "--index", index],
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stderr.readline()
        m = re.search(r"listening on (http://\S+)", line)
        if not m:
            self.proc.kill()
            raise RuntimeError(f"neardup serve did not start: {line!r}")
        self.url = m.group(1)

    def stats(self):
        with urllib.request.urlopen(self.url + "/v1/stats", timeout=10) as r:
            return json.loads(r.read())

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.proc.stderr.close()
        self.dir.cleanup()


class Site:
    """A static site on a free port."""

    def __init__(self, files):
        self.dir = tempfile.TemporaryDirectory()
        for name, body in files.items():
            pathlib.Path(self.dir.name, name).write_text(body, encoding="utf-8")
        handler = functools.partial(QuietHandler, directory=self.dir.name)
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.dir.cleanup()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def crawl(start, neardup_url):
    out = subprocess.run(
        [sys.executable, str(HERE / "crawl_fixture.py"), start, neardup_url],
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


SITE = {
    "index.html": "<html><body><ul><li><a href='a.html'>a</a></li><li><a href='b.html'>b</a>"
    "</li><li><a href='c.html'>c</a></li></ul></body></html>",
    "a.html": page("Tide study", STORY),
    # The same story in other markup: an exact duplicate after extraction.
    "b.html": "<html><body><div class='wrap'><article><h1>Tide study</h1><p>"
    + STORY
    + "</p></article></div><footer>(c) mirror</footer></body></html>",
    "c.html": page("Library budget", OTHER),
}


class NeardupMiddlewareTest(unittest.TestCase):
    def setUp(self):
        self.server = Server()
        self.site = Site(SITE)

    def tearDown(self):
        self.site.stop()
        self.server.stop()

    def test_duplicate_page_is_dropped(self):
        result = crawl(self.site.url, self.server.url)
        parsed = [u.rsplit("/", 1)[-1] for u in result["parsed"]]
        # Exactly one of the two copies reaches the spider (which one depends
        # on download order); the distinct page and the index always do.
        self.assertEqual(len(parsed), 3, result)
        self.assertIn("c.html", parsed)
        self.assertEqual(len({"a.html", "b.html"} & set(parsed)), 1, result)
        self.assertEqual(result["stats"].get("neardup/duplicate"), 1, result)
        self.assertEqual(result["stats"].get("neardup/unique"), 3, result)
        stats = self.server.stats()
        self.assertEqual(stats["checked"], 4)
        self.assertEqual(stats["duplicates"], 1)

    def test_unreachable_server_keeps_pages(self):
        # Fail open: the middleware points at a port nothing listens on.
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
        s.close()
        result = crawl(self.site.url, closed)
        self.assertEqual(len(result["parsed"]), 4, result)
        self.assertEqual(result["stats"].get("neardup/errors"), 4, result)
        self.assertEqual(self.server.stats()["checked"], 0)


if __name__ == "__main__":
    unittest.main()
