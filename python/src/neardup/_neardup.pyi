"""Type stubs for the extension module (crates/python/src/lib.rs)."""

import os
from typing import Any, Literal, Self, TypeAlias, TypedDict

__version__: str

class NeardupError(Exception):
    """Base class of the errors neardup raises, with the library's message."""

class ConfigError(NeardupError):
    """The configuration is invalid: a key out of range, an unknown detector, bad TOML."""

class StoreError(NeardupError):
    """The index cannot be used: it cannot be opened or written, is corrupt, or was built with another chain."""

Kind: TypeAlias = Literal["unique", "duplicate", "near_duplicate"]

class Stats(TypedDict):
    checked: int  # unique + duplicates + near_duplicates
    unique: int
    duplicates: int  # every duplicate verdict, the unchanged ones included
    unchanged: int  # duplicates of themselves (same URL, unchanged since indexed)
    near_duplicates: int
    indexed: int

class PairMatch(TypedDict):
    kind: Literal["duplicate", "near_duplicate"]
    detector: str
    similarity: float
    resemblance: float
    containment: float
    covered: float | None
    reason: str

class Verdict:
    """The verdict on one page."""

    @property
    def kind(self) -> Kind: ...
    @property
    def is_drop(self) -> bool:
        """True for a duplicate or a near duplicate."""
    @property
    def unchanged(self) -> bool:
        """The URL's page is unchanged since it was indexed (a recrawl, not a copy)."""
    @property
    def matched_url(self) -> str | None: ...
    @property
    def matched_key(self) -> str | None: ...
    @property
    def matched_id(self) -> int | None: ...
    @property
    def detector(self) -> str | None:
        """exact, simhash, chunks, a plugin, or canonical, redirect, same_url, content."""
    @property
    def similarity(self) -> float | None: ...
    @property
    def resemblance(self) -> float | None: ...
    @property
    def containment(self) -> float | None: ...
    @property
    def covered(self) -> float | None:
        """Share of this page's own content found in the matched page."""
    @property
    def reason(self) -> str | None: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def indexed_as(self) -> int | None: ...
    @property
    def contained_in(self) -> str | None:
        """URL of the earlier page holding this kept page's content and 4x as much, 6x for an article (a part of an all-in-one page)."""
    @property
    def redirect(self) -> str | None:
        """The target when the page is a redirect stub."""
    def to_dict(self) -> dict[str, Any]:
        """The verdict as the sidecar's JSON (``neardup serve``'s ``/v1/check``), key for key."""

class Deduper:
    """The near-duplicate detector: checks pages and remembers the kept ones.

    ``config``: None (defaults), a TOML file's path, or a dict shaped like the TOML.
    ``index``: None (in memory), a redb file's path, or a ``redis://`` URL.
    Thread-safe; the GIL is released while a page is analyzed.
    """

    def __init__(
        self,
        config: str | os.PathLike[str] | dict[str, Any] | None = None,
        index: str | os.PathLike[str] | None = None,
    ) -> None: ...
    def check(self, url: str, body: bytes | str, content_type: str | None = None) -> Verdict:
        """Checks one page and indexes it if it is kept."""
    def extract(self, body: bytes | str, content_type: str | None = None, url: str = "") -> str:
        """The main text of a page as the detectors see it, one block per line."""
    def stats(self) -> Stats: ...
    def remove(self, url: str | None = None, *, id: int | None = None) -> bool:
        """Removes an indexed page by URL or index id; returns whether one was removed."""
    def flush(self) -> None:
        """Makes every change so far durable."""
    def close(self) -> None:
        """Flushes and closes the index; the deduper cannot be used after."""
    def __enter__(self) -> Self: ...
    def __exit__(self, *args: object) -> bool: ...
    def config(self) -> dict[str, Any]:
        """The configuration in force, defaults filled in, shaped like the TOML."""
    @property
    def detectors(self) -> list[str]: ...
    def signatures(
        self, url: str, body: bytes | str, content_type: str | None = None, key: str | None = None
    ) -> dict[str, Any]:
        """The page's export columns, candidate keys (posted, probed) and comparable bytes."""
    def compare(self, earlier: bytes, later: bytes) -> PairMatch | None:
        """Judges ``later`` against ``earlier`` (comparable bytes) as check() would."""
