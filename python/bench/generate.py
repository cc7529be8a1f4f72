"""Generates a large WARC input with known near-duplicate clusters, for
sizing ``neardup.spark`` (docs/scaling.md).

    python bench/generate.py --pages 200000 --files 8 --out DIR

Writes ``DIR/pages-NN.warc.gz`` (HTTP 200 ``response`` records, one HTML
page each) and ``DIR/labels.tsv`` (``doc_id``, ``cluster_id``, ``kind``:
the score.py format, keyed by WARC-Record-ID). Deterministic for a given
``--seed``. Of the pages, about 60% are distinct articles on 500 sites
(each site with its own navigation and footer; running text of English
function words and Zipf-distributed content words), and the rest are copies of
an earlier article: the same text on another site (``syndicated``), with
about 2% of its words changed and a dated byline (``edited``), or with the
chrome stripped (``print``).
"""

from __future__ import annotations

import argparse
import io
import pathlib
import random
import uuid

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ne",
    "ru",
    "sa",
    "te",
    "vo",
    "zi",
    "pa",
    "be",
    "do",
    "fu",
    "gi",
    "ha",
    "ja",
    "ku",
    "la",
    "mo",
    "ni",
    "po",
    "ra",
    "se",
    "ti",
    "vu",
    "wa",
    "xo",
    "ye",
    "zu",
    "an",
    "el",
    "in",
    "or",
    "ul",
]


def vocabulary(rng: random.Random, n: int) -> list[str]:
    words = set()
    while len(words) < n:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 4))))
    return sorted(words)


#: Function words: about 45% of running English text, dropped by neardup's
#: stop-word filter before signatures are made.
STOP = [
    "the",
    "of",
    "and",
    "to",
    "a",
    "in",
    "that",
    "is",
    "was",
    "he",
    "for",
    "it",
    "with",
    "as",
    "his",
    "on",
    "be",
    "at",
    "by",
    "i",
    "this",
    "had",
    "not",
    "are",
    "but",
    "from",
    "or",
    "have",
    "an",
    "they",
    "which",
    "one",
    "you",
    "were",
    "her",
    "all",
    "she",
    "there",
    "would",
    "their",
    "we",
    "him",
    "been",
    "has",
    "when",
    "who",
    "will",
    "more",
    "no",
    "if",
    "out",
    "so",
    "said",
]


def zipf(n: int, offset: int) -> list[float]:
    """Cumulative weights 1 / (rank + offset) of n ranks: Zipf's law for
    content words, whose most frequent ones rank after the function words."""
    out, total = [], 0.0
    for i in range(n):
        total += 1.0 / (i + offset)
        out.append(total)
    return out


def article(rng: random.Random, vocab: list[str], cum: list[float]) -> list[list[str]]:
    """Paragraphs of running text: function words and Zipf-distributed
    content words."""
    paragraphs = []
    for _ in range(rng.randint(3, 8)):
        n = rng.randint(30, 90)
        content = rng.choices(vocab, cum_weights=cum, k=n)
        paragraphs.append([rng.choice(STOP) if rng.random() < 0.45 else w for w in content])
    return paragraphs


def render(site: int, title: str, paragraphs: list[list[str]], chrome: bool, byline: str = "") -> bytes:
    body = "".join(f"<p>{' '.join(p)}.</p>" for p in paragraphs)
    if not chrome:
        return f"<html><head><title>{title}</title></head><body><h1>{title}</h1>{body}</body></html>".encode()
    nav = "".join(f"<a href='/s{site}/section{i}'>Section {site} {i}</a> " for i in range(8))
    foot = f"<footer><p>Copyright site {site}. All rights reserved. Contact us at desk{site}.</p></footer>"
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title} | Site {site}</title></head>"
        f"<body><nav>{nav}</nav><article><h1>{title}</h1>{byline}{body}</article>"
        f"<aside><a href='/s{site}/more'>More from site {site}</a></aside>{foot}</body></html>"
    ).encode()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--pages", type=int, default=200_000)
    p.add_argument("--files", type=int, default=8)
    p.add_argument("--sites", type=int, default=500)
    p.add_argument("--seed", type=int, default=20261126)
    p.add_argument("--out", type=pathlib.Path, required=True)
    args = p.parse_args()
    rng = random.Random(args.seed)
    vocab = vocabulary(rng, 50_000)
    cum = zipf(len(vocab), len(STOP))
    args.out.mkdir(parents=True, exist_ok=True)
    per_file = -(-args.pages // args.files)
    originals: list[tuple[str, str, list[list[str]], int]] = []  # (doc id, title, text, site)
    labels = ["doc_id\tcluster_id\tkind"]
    n = 0
    for f in range(args.files):
        with (args.out / f"pages-{f:02d}.warc.gz").open("wb") as out:
            writer = WARCWriter(out, gzip=True)
            for _ in range(min(per_file, args.pages - n)):
                site = rng.randrange(args.sites)
                if originals and rng.random() < 0.4:
                    cluster, title, text, src_site = rng.choice(originals)
                    kind = rng.choice(["syndicated", "edited", "print"])
                    if kind == "edited":
                        text = [[rng.choice(vocab) if rng.random() < 0.02 else w for w in para] for para in text]
                        body = render(
                            src_site,
                            title,
                            text,
                            True,
                            f"<p class='byline'>Updated 2026-11-{rng.randint(1, 28):02d}</p>",
                        )
                    elif kind == "print":
                        body = render(src_site, title, text, False)
                    else:
                        body = render(site if site != src_site else (site + 1) % args.sites, title, text, True)
                else:
                    title = " ".join(rng.choices(vocab, k=rng.randint(3, 8))).capitalize()
                    text = article(rng, vocab, cum)
                    body = render(site, title, text, True)
                    kind, cluster = "original", None
                record_id = f"urn:uuid:{uuid.UUID(int=rng.getrandbits(128))}"
                if cluster is None:
                    cluster = record_id
                    originals.append((record_id, title, text, site))
                url = f"https://site{site}.example/{kind}/{n}"
                headers = StatusAndHeaders(
                    "200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1"
                )
                rec = writer.create_warc_record(
                    url,
                    "response",
                    payload=io.BytesIO(body),
                    http_headers=headers,
                    warc_headers_dict={"WARC-Record-ID": f"<{record_id}>"},
                )
                writer.write_record(rec)
                labels.append(f"{record_id}\t{cluster}\t{kind}")
                n += 1
    (args.out / "labels.tsv").write_text("\n".join(labels) + "\n", encoding="utf-8")
    print(f"{n} pages, {len(originals)} originals, in {args.files} WARC files under {args.out}")


if __name__ == "__main__":
    main()
