"""Real local servers for the tests: ``neardup serve``, nginx (gzip and
brotli), and a fake sidecar (broken, or recording); plus one Scrapy crawl per subprocess (Twisted's
reactor cannot be restarted). Everything listens on 127.0.0.1 only.
"""

from __future__ import annotations

import http.server
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
BROTLI_MODULE = pathlib.Path("/usr/lib/nginx/modules/ngx_http_brotli_filter_module.so")


def missing(what: str) -> unittest.SkipTest:
    """A missing tool skips a test on a developer's machine and fails in CI."""
    if os.environ.get("CI"):
        raise RuntimeError(f"CI: {what} is missing (run-tests.sh installs it)")
    return unittest.SkipTest(f"{what} is missing")


def neardup_bin() -> str:
    """NEARDUP_BIN, or the repository's target/{release,debug}/neardup."""
    env = os.environ.get("NEARDUP_BIN")
    if env:
        return env
    for profile in ("release", "debug"):
        for target in (os.environ.get("CARGO_TARGET_DIR"), ROOT / "target"):
            if target and (pathlib.Path(target) / profile / "neardup").exists():
                return str(pathlib.Path(target) / profile / "neardup")
    raise missing("the neardup binary (cargo build, or set NEARDUP_BIN)")


def free_port() -> int:
    """A port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, what: str) -> None:
    """Waits until something accepts connections on 127.0.0.1:port."""
    for _ in range(200):
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on {port}")


class NeardupServer:
    """``neardup serve`` on a free port with its index in ``index`` (kept
    after stop: a later server can reopen it)."""

    def __init__(self, index: pathlib.Path, token: str | None = None):
        args = [neardup_bin(), "serve", "--listen", "127.0.0.1:0", "--index", str(index)]
        self.token = token
        self.proc = subprocess.Popen(
            args + (["--token", token] if token else []),
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stderr.readline()
        m = re.search(r"listening on (http://\S+)", line)
        if not m:
            self.proc.kill()
            raise RuntimeError(f"neardup serve did not start: {line!r}")
        self.url = m.group(1)
        # Keep reading stderr so the server never blocks on a full pipe.
        self._drain = threading.Thread(target=self.proc.stderr.read, daemon=True)
        self._drain.start()

    def stats(self) -> dict[str, Any]:
        req = urllib.request.Request(self.url + "/v1/stats")
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def requests(self, endpoint: str, status: int = 200) -> int:
        """How many requests to ``endpoint`` the server answered with
        ``status`` (its ``/metrics``)."""
        req = urllib.request.Request(self.url + "/metrics")
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        with urllib.request.urlopen(req, timeout=10) as r:
            text = r.read().decode()
        line = f'neardup_http_requests_total{{endpoint="{endpoint}",status="{status}"}} '
        return sum(int(x[len(line) :]) for x in text.splitlines() if x.startswith(line))

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)
        self._drain.join(timeout=5)
        self.proc.stderr.close()


class Nginx:
    """Debian's nginx serving ``root`` on a free port with gzip on, and
    brotli when the module is installed (libnginx-mod-http-brotli-filter);
    ``extra`` is added to its ``server`` block (e.g. ``location``s)."""

    def __init__(self, root: pathlib.Path, extra: str = ""):
        exe = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
        if exe is None:
            raise missing("nginx (apt-get install nginx)")
        self.brotli = BROTLI_MODULE.exists()
        self.dir = tempfile.TemporaryDirectory(prefix="neardup-nginx-")
        d = pathlib.Path(self.dir.name)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.access_log = d / "access.log"
        conf = d / "nginx.conf"
        conf.write_text(self._conf(d, root, extra))
        self.proc = subprocess.Popen(
            [exe, "-p", str(d), "-e", str(d / "error.log"), "-c", str(conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, self.proc, "nginx")

    def _conf(self, d: pathlib.Path, root: pathlib.Path, extra: str) -> str:
        load = f"load_module {BROTLI_MODULE};\n" if self.brotli else ""
        br = "brotli on; brotli_min_length 20;\n" if self.brotli else ""
        return f"""{load}daemon off;
master_process off;
worker_processes 1;
pid {d}/nginx.pid;
events {{ worker_connections 64; }}
http {{
    types {{ text/html html; }}
    default_type application/octet-stream;
    access_log {self.access_log};
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    gzip on;
    gzip_min_length 20;
    {br}
    server {{
        listen 127.0.0.1:{self.port};
        root {root};
        {extra}
    }}
}}
"""

    def fetch(self, path: str, accept_encoding: str) -> tuple[str, bytes]:
        """GETs one file: (Content-Encoding, raw body)."""
        req = urllib.request.Request(self.url + path, headers={"Accept-Encoding": accept_encoding})
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.headers.get("Content-Encoding", ""), r.read()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.dir.cleanup()


class FakeSidecar:
    """A sidecar that is up (``/healthz`` answers 200, ``/readyz`` 404 like
    the current server) but whose checks fail: ``mode`` ``"hang"`` never
    answers them (until stop), ``"error"`` answers 500. With ``fail_first``,
    only that many checks fail and later ones answer ``unique``. Mode
    ``"ok"`` answers every check ``unique``; ``"old"`` too, but answers
    ``/v1/check/raw`` 404 like a server from before that endpoint. Counts
    the checks and records each one's path, Content-Type and body."""

    def __init__(self, mode: str, fail_first: int | None = None):
        self.checks = 0
        self.requests: list[tuple[str, str, bytes]] = []
        self.released = threading.Event()
        outer = self
        unique = b'{"kind":"unique","matched":null,"indexed_as":1,"warnings":[]}'

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._answer(200 if self.path == "/healthz" else 404, b'{"status":"ok"}')

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.requests.append((self.path, self.headers.get("Content-Type", ""), body))
                if mode == "old" and self.path.startswith("/v1/check/raw"):
                    self._answer(404, b'{"error":{"code":"not_found","message":"no such endpoint"}}')
                    return
                outer.checks += 1
                if mode in ("ok", "old") or (fail_first is not None and outer.checks > fail_first):
                    self._answer(200, unique)
                    return
                if mode == "hang":
                    outer.released.wait(60)
                    return
                self._answer(500, b'{"error":{"code":"internal","message":"index backend down"}}')

            def _answer(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.released.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens."""
    return f"http://127.0.0.1:{free_port()}"


class CrawlResult:
    """What one crawl subprocess reported, and its log."""

    def __init__(self, data: dict[str, Any], log: str):
        self.parsed: list[dict[str, Any]] = data["parsed"]
        self.stats: dict[str, Any] = data["stats"]
        self.log = log

    def pages(self) -> list[str]:
        """The parsed pages' file names, sorted."""
        return sorted(p["url"].rsplit("/", 1)[-1] or "index.html" for p in self.parsed)

    def stat(self, key: str) -> int:
        return int(self.stats.get(key, 0))

    def __repr__(self) -> str:
        return f"CrawlResult(pages={self.pages()}, stats={self.stats})\n{self.log[-3000:]}"


def crawl(
    start: str, settings: dict[str, Any], *, skip_meta: list[str] | None = None, dont_filter: list[str] | None = None
) -> CrawlResult:
    """Runs tests/crawl.py: one Scrapy crawl from ``start``."""
    config = {
        "start": start,
        "settings": settings,
        "skip_meta": skip_meta or [],
        "dont_filter": dont_filter or [],
    }
    out = subprocess.run(
        [sys.executable, str(HERE / "crawl.py"), json.dumps(config)],
        capture_output=True,
        text=True,
        timeout=180,
    )
    if out.returncode != 0:
        raise AssertionError(f"crawl failed ({out.returncode}):\n{out.stderr[-5000:]}")
    return CrawlResult(json.loads(out.stdout.strip().splitlines()[-1]), out.stderr)


PROJECT_SPIDER = """
from crawl import SiteSpider as Base


class SiteSpider(Base):
    def __init__(self, start, **kw):
        super().__init__(start, [], [], **kw)
"""


def scrapy_command(start: str, command: str, settings: dict[str, Any], project: pathlib.Path) -> tuple[int, str]:
    """Runs ``scrapy crawl site`` or ``scrapy runspider`` (the spider's file)
    from ``start`` in a Scrapy project made in ``project`` with ``settings``,
    as cron would; returns the exit status and the log."""
    (project / "proj" / "spiders").mkdir(parents=True)
    (project / "scrapy.cfg").write_text("[settings]\ndefault = proj.settings\n")
    (project / "proj" / "__init__.py").write_text("")
    (project / "proj" / "spiders" / "__init__.py").write_text("")
    base = {
        "SPIDER_MODULES": ["proj.spiders"],
        "DOWNLOADER_MIDDLEWARES": {"neardup_scrapy.NeardupMiddleware": 580},
        "LOG_LEVEL": "INFO",
        "ROBOTSTXT_OBEY": False,
        "TELNETCONSOLE_ENABLED": False,
    }
    lines = [f"{k} = {v!r}" for k, v in {**base, **settings}.items()]
    (project / "proj" / "settings.py").write_text("\n".join(lines) + "\n")
    spider = project / "proj" / "spiders" / "site_spider.py"
    spider.write_text(PROJECT_SPIDER)
    target = ["crawl", "site"] if command == "crawl" else ["runspider", str(spider)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(project), str(HERE)])}
    env.pop("SCRAPY_SETTINGS_MODULE", None)
    out = subprocess.run(
        [sys.executable, "-m", "scrapy", *target, "-a", "start=" + start],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    return out.returncode, out.stderr
