"""The test site: two hubs, three stories, and two copies (exact after
extraction) of two of them.

    index.html (seed) -> a.html, b.html (copy of a), c.html, list.html
    list.html (hub)   -> d.html, e.html (copy of d), a.html, f.html, g.html (near copy of f)
"""

from __future__ import annotations

import pathlib

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


FILES = {
    "index.html": page("County news", FRONT, ("a.html", "b.html", "c.html", "list.html")),
    "a.html": page("Tide study", TIDE),
    "b.html": mirror("Tide study", TIDE),
    "c.html": page("Library budget", LIBRARY),
    "list.html": page("Archive", ARCHIVE, ("d.html", "e.html", "a.html", "f.html", "g.html")),
    "d.html": page("Orchard frost", ORCHARD),
    "e.html": mirror("Orchard frost", ORCHARD),
    "f.html": page("Bus report", REPORT),
    "g.html": page("Bus report", REPORT_REVISED),
}
PAIRS = ({"a.html", "b.html"}, {"d.html", "e.html"})  # exact copies
NEAR = {"f.html", "g.html"}  # near copies


def write(root: pathlib.Path) -> None:
    """Writes the site's files into ``root``."""
    for name, body in FILES.items():
        (root / name).write_text(body, encoding="utf-8")


if __name__ == "__main__":
    import sys

    target = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "neardup-demo-site")
    target.mkdir(parents=True, exist_ok=True)
    write(target)
    print(f"wrote {len(FILES)} pages to {target}")
