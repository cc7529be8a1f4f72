"""Shared helpers for the package's tests: where the repository, ../shared
and the neardup binary are, and the rule for missing tools (skip on a
developer's machine, fail under CI)."""

from __future__ import annotations

import os
import pathlib
import shutil
import socket
import subprocess
import time

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PAGES = ROOT / "testdata" / "pages"
SHARED = ROOT.parent / "shared"
DEV = SHARED / "bench" / "neardup-dev"


def missing(what: str) -> None:
    """A missing tool or dataset: fails under CI, skips elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(f"CI: {what} is missing (.ci/run provides it)")
    pytest.skip(f"{what} is missing")


def neardup_bin() -> str:
    """NEARDUP_BIN, or the repository's target/{release,debug}/neardup."""
    env = os.environ.get("NEARDUP_BIN")
    if env:
        return env
    for profile in ("release", "debug"):
        path = ROOT / "target" / profile / "neardup"
        if path.exists():
            return str(path)
    missing("the neardup binary (cargo build --release, or set NEARDUP_BIN)")
    raise AssertionError("unreachable")


def dev_bench() -> pathlib.Path:
    """../shared/bench/neardup-dev, the labeled dev benchmark."""
    if not (DEV / "manifest.tsv").exists():
        missing(f"the dev benchmark ({DEV})")
    return DEV


def page(name: str) -> bytes:
    """A fixture page of testdata/pages."""
    return (PAGES / name).read_bytes()


def article(n: int, words: int = 120) -> str:
    """A distinct article: its words drawn from n, so two n give unlike texts."""
    vocab = [
        "harbour",
        "market",
        "storm",
        "roof",
        "council",
        "budget",
        "river",
        "bridge",
        "school",
        "garden",
        "train",
        "station",
        "museum",
        "library",
        "festival",
        "weather",
        "forest",
        "mountain",
        "village",
        "factory",
        "engine",
        "report",
        "season",
        "harvest",
        "island",
        "ferry",
        "lantern",
        "castle",
    ]
    state = n * 2654435761 + 12345
    out = []
    for _ in range(words):
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        out.append(vocab[(state >> 33) % len(vocab)] + str((state >> 40) % 97))
    return " ".join(out)


def html(title: str, text: str, chrome: str = "") -> bytes:
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head>"
        f"<body>{chrome}<article><h1>{title}</h1><p>{text}</p></article></body></html>"
    ).encode()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redis_url(tmp_path):
    """A private redis-server on a free 127.0.0.1 port."""
    binary = shutil.which("redis-server")
    if binary is None:
        missing("redis-server")
    port = free_port()
    proc = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
