"""The local site the Scrapy tests crawl, and a server for it (127.0.0.1 only).

    index.html (seed) -> a.html, b.html (copy of a), c.html, list.html,
                         notes.txt (text/plain), missing.html (404),
                         moved.html, gone.html (two redirect stubs, same text)
    list.html (hub)   -> d.html, e.html (copy of d), a.html, f.html, g.html (near copy of f)

The server gzips a page when the request accepts gzip (Scrapy's
HttpCompressionMiddleware asks for it), as a real server would.
"""

from __future__ import annotations

import gzip
import http.server
import threading
from typing import Any

TIDE = (
    "Researchers at the harbour institute measured how quickly the tide returned after "
    "the storm, comparing sensor logs from twelve buoys with satellite images taken every "
    "hour, and found that the water rose faster near the old pier than anywhere else along "
    "the northern coast of the bay during that week. The team now plans a second survey "
    "in the spring, when the river carries melt water from the mountains into the harbour."
)
LIBRARY = (
    "The village council approved a new budget for the public library after a long debate "
    "about opening hours, the salaries of the staff and the cost of repairing the roof before "
    "the winter. Volunteers offered to run a reading club for children on Saturday mornings, "
    "and the bakery across the square promised bread for the opening of the new wing."
)
ORCHARD = (
    "An orchard on the southern slope lost most of its apple blossom to a late frost, so the "
    "growers covered the young trees with fleece and lit small stoves between the rows at night. "
    "By June the surviving fruit had set well, and the cooperative expects a smaller harvest of "
    "larger apples, which it will press into cider instead of selling at the weekly market."
)
FRONT = (
    "Welcome to the county news desk. Every morning our editors collect reports from the coast, "
    "the valleys and the market towns, check them with the people involved and publish the ones "
    "that matter to readers here. Send tips to the newsroom by post or leave a note at the front "
    "office of the town hall, which is open on weekdays until five in the afternoon."
)
ARCHIVE = (
    "The archive lists older stories by season. Farming, weather and local politics are kept "
    "apart from sport and culture, and each entry links to the full article as it was printed, "
    "with corrections added at the bottom when a reader pointed out a mistake in names, dates "
    "or figures. Bound volumes of the printed paper can be read in the reading room."
)
# A long report, and a revision of it with a few words changed: a near
# duplicate (the short stories above are too short for one).
REPORT = (
    "The regional transport authority published its annual report on the bus network on Monday. "
    "Ridership grew for the third year in a row, mostly on the routes that connect the hospital, "
    "the university campus and the railway station, where buses now run every ten minutes during "
    "the day. Rural lines fared worse: two evening services in the hill villages were cut after "
    "drivers could not be hired, and the authority admits that timetables there are hard to read. "
    "The report proposes a new card that works on buses, trams and the ferry, to be tested by a "
    "thousand volunteers next autumn before it is offered to everyone. Fares will stay the same "
    "until then, although the cost of diesel rose sharply over the winter. Electric buses are "
    "another chapter: the first twelve arrived in March and have been charged overnight in the "
    "depot by the river, but the batteries lost range in the cold weeks of January and February, "
    "so the older buses were kept in service as a reserve. Passengers were asked what they would "
    "change, and most answers named shelters at the stops, reliable information screens, and "
    "buses that wait for late trains at the station in the evening. The authority will answer "
    "the survey in detail at a public meeting in the town hall next month, where residents can "
    "also comment on the plan to move the central bus station closer to the market square."
)
REPORT_REVISED = REPORT.replace("every ten minutes", "every twelve minutes").replace("next autumn", "next spring")


def page(title: str, text: str, links: tuple[str, ...] = ()) -> str:
    """A plain article page, with an optional link list."""
    nav = "".join(f"<li><a href='{href}'>{href}</a></li>" for href in links)
    return (
        f"<html><head><meta charset='utf-8'><title>{title}</title></head><body>"
        f"<article><h1>{title}</h1><p>{text}</p></article><ul>{nav}</ul></body></html>"
    )


def mirror(title: str, text: str) -> str:
    """The same article in other markup: an exact duplicate after extraction."""
    return (
        f"<html><head><title>{title}</title></head><body><div class='wrap'><article><h1>{title}</h1>"
        f"<p>{text}</p></article></div><footer>(c) mirror</footer></body></html>"
    )


def stub(target: str) -> str:
    """A redirect stub: a meta refresh to ``target``; its text is the same for every target."""
    return (
        f"<html><head><meta http-equiv='refresh' content='0; url={target}'><title>Moved</title></head>"
        "<body><p>This page has moved to its new address.</p></body></html>"
    )


HTML = "text/html; charset=utf-8"

#: path -> (status, Content-Type, body)
FILES: dict[str, tuple[int, str, str]] = {
    "index.html": (
        200,
        HTML,
        page(
            "County news",
            FRONT,
            ("a.html", "b.html", "c.html", "list.html", "notes.txt", "missing.html", "moved.html", "gone.html"),
        ),
    ),
    "a.html": (200, HTML, page("Tide study", TIDE)),
    "b.html": (200, HTML, mirror("Tide study", TIDE)),
    "c.html": (200, HTML, page("Library budget", LIBRARY)),
    "list.html": (200, HTML, page("Archive", ARCHIVE, ("d.html", "e.html", "a.html", "f.html", "g.html"))),
    "d.html": (200, HTML, page("Orchard frost", ORCHARD)),
    "e.html": (200, HTML, mirror("Orchard frost", ORCHARD)),
    "f.html": (200, HTML, page("Bus report", REPORT)),
    "g.html": (200, HTML, page("Bus report", REPORT_REVISED)),
    # The tide story again, as plain text: not HTML, so never checked.
    "notes.txt": (200, "text/plain; charset=utf-8", TIDE),
    "missing.html": (404, HTML, mirror("Tide study", TIDE)),
    "moved.html": (200, HTML, stub("c.html")),
    "gone.html": (200, HTML, stub("d.html")),
}

PAIRS = ({"a.html", "b.html"}, {"d.html", "e.html"})  # exact copies
NEAR = {"f.html", "g.html"}  # near copies
STUBS = {"moved.html", "gone.html"}  # redirect stubs with the same text
#: The pages the middleware checks in a default crawl: HTML, 200, not the
#: seed (Scrapy's start requests are dont_filter).
CHECKED = sorted(n for n, (status, ctype, _) in FILES.items() if status == 200 and ctype == HTML and n != "index.html")
#: The pages a spider parses without the middleware: the stubs become
#: requests for their targets (MetaRefreshMiddleware), the 404 is filtered
#: out (HttpErrorMiddleware).
PARSED = sorted(n for n, (status, _, _) in FILES.items() if status == 200 and n not in STUBS)


class Site:
    """The site on a free port of 127.0.0.1, in a thread; counts requests by path."""

    def __init__(self) -> None:
        self.requests: dict[str, int] = {}
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                name = self.path.split("?", 1)[0].lstrip("/") or "index.html"
                outer.requests[name] = outer.requests.get(name, 0) + 1
                status, ctype, text = FILES.get(name, (404, HTML, "<html><body>not found</body></html>"))
                body = text.encode("utf-8")
                gzipped = "gzip" in self.headers.get("Accept-Encoding", "")
                if gzipped:
                    body = gzip.compress(body)
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                if gzipped:
                    self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=5)


if __name__ == "__main__":
    import time

    site = Site()
    print(f"serving {len(FILES)} pages at {site.url} (Ctrl-C stops)")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        site.stop()
