#!/usr/bin/env python3
"""Keeps the commands of README.md and docs/*.md true: CI runs this.

Usage: scripts/doc-commands.py [--list] [--bin DIR] [FILE.md ...]

Three checks, over README.md, docs/*.md and the Python packages' READMEs
(or the files given):

1. **Every fenced block says what it is**: ```` ```sh ```` for commands,
   ```` ```text ```` (or a language: rust, python, toml, json, sql) for
   the rest. An untagged fence fails, so a new command cannot slip past
   as plain text.
2. **Every `neardup` command line is one the binary takes**: in every
   fenced block and every inline code span, each `neardup SUB ...` (also
   `target/release/neardup`, `cargo run --release -- SUB`) names a
   subcommand of `neardup --help`, and each of its flags is one of that
   subcommand's `--help` (global flags of `neardup --help` before it).
   Repository paths named by a command (`scripts/...`, `testdata/...`,
   `python/...`, `configs/...`) must exist. This covers the commands that
   cannot run here too: a renamed flag or a moved script fails.
3. **Every `sh` block runs**: from the repository root, with `bash -e -o
   pipefail`, the binaries of `--bin` (default `target/release`, which CI
   has just built) first on PATH, `SHARED` set to the shared datasets
   (`../shared` beside the checkout, as CI has it) and a fresh `TMPDIR`;
   a non-zero exit fails. A block that cannot run here is opted out by
   the line right above its fence, with a reason:

       <!-- doc-commands: skip (needs a YARN cluster) -->

   (an HTML comment: not shown by Markdown renderers). A run must not
   change the checkout (`git status` before and after).

`--list` prints every sh block and whether it runs, without running any.
Exit status 0 when every check passes, 1 otherwise (each failure printed).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

ROOT = pathlib.Path(__file__).resolve().parent.parent
SKIP = re.compile(r"^<!--\s*doc-commands:\s*skip\s*\((?P<reason>[^)]+)\)\s*-->$")
COMMAND_LANGS = {"sh", "bash", "shell"}
#: Seconds one block may run.
TIMEOUT = 180
#: Repository folders whose paths, named in a command, must exist.
REPO_DIRS = ("scripts/", "testdata/", "python/", "configs/")
#: Shell words that end the arguments of a command.
SHELL_STOPS = {"|", "||", "&&", ";", "&", ">", ">>", "<", "2>", "2>&1", "#"}


@dataclass
class Block:
    """One fenced block of a Markdown file."""

    path: pathlib.Path
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    skip: str | None  # the opt-out reason, if any

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


@dataclass
class Help:
    """What `neardup --help` and each subcommand's `--help` allow."""

    binary: str
    commands: set[str] = field(default_factory=set)
    flags: dict[str, set[str]] = field(default_factory=dict)  # "" is the top level
    takes_value: dict[str, set[str]] = field(default_factory=dict)

    def load(self, sub: str) -> bool:
        """Reads `neardup [SUB] --help`; False if there is no such subcommand."""
        if sub in self.flags:
            return True
        if sub and sub not in self.commands:
            return False
        args = [self.binary, *([sub] if sub else []), "--help"]
        out = subprocess.run(args, capture_output=True, text=True, check=False).stdout
        flags, valued = set(), set()
        section = ""
        for line in out.splitlines():
            if re.match(r"^\S.*:$", line):
                section = line
                continue
            if section == "Commands:" and not sub:
                m = re.match(r"^  (\S+)", line)
                if m:
                    self.commands.add(m.group(1))
            m = re.match(r"^\s+((?:-\w, )?--[\w-]+|-\w)(?: <[^>]+>)?", line)
            if m:
                for name in re.findall(r"--?[\w-]+", m.group(1)):
                    flags.add(name)
                    if "<" in m.group(0):
                        valued.add(name)
        self.flags[sub], self.takes_value[sub] = flags, valued
        return True


def blocks_of(path: pathlib.Path) -> tuple[list[Block], list[str]]:
    """The fenced blocks of a Markdown file, and its untagged fences."""
    lines = path.read_text().splitlines()
    blocks, untagged = [], []
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(```+)\s*(\S*)", lines[i])
        if not m:
            i += 1
            continue
        fence, lang, start = m.group(2), m.group(3), i
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            j += 1
        prev = lines[start - 1].strip() if start > 0 else ""
        skip = SKIP.match(prev)
        text = "\n".join(line[len(m.group(1)) :] for line in lines[start + 1 : j])
        if not lang:
            untagged.append(f"{path.relative_to(ROOT)}:{start + 1}")
        blocks.append(Block(path, start + 1, lang, text, skip.group("reason").strip() if skip else None))
        i = j + 1
    return blocks, untagged


def inline_spans(path: pathlib.Path) -> list[tuple[int, str]]:
    """Inline code spans outside fenced blocks, with their line numbers."""
    out, fenced = [], False
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            out.extend((n, span) for span in re.findall(r"`([^`]+)`", line))
    return out


def command_lines(text: str) -> list[str]:
    """The lines of a block with backslash continuations joined."""
    joined, current = [], ""
    for line in text.splitlines():
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
            continue
        if joined and not current and re.match(r"^\s+[\[-]", line):
            joined[-1] += " " + line.strip()  # a synopsis continued on an indented line
            continue
        joined.append(current + line)
        current = ""
    if current:
        joined.append(current)
    return joined


def words(line: str) -> list[str]:
    """Shell words of a line (plain split if it does not parse), up to a comment."""
    line = re.sub(r"(^|\s)#.*$", "", line.lstrip("$ ").strip())
    try:
        return shlex.split(line)
    except ValueError:
        return line.split()


#: Words after which `neardup` is a name, not the command: a crate
#: (`cargo add neardup`, `-p neardup`), a binary (`--bin neardup`).
NAME_AFTER = {"-p", "--package", "--bin", "add", "install", "tree"}


def neardup_invocations(line: str) -> list[list[str]]:
    """The argument lists of each `neardup` invocation in a line: the
    binary as a command (not as an argument of a script or of cargo), or
    the root package run by `cargo run --release -- ARGS`."""
    w = words(line)
    found = []
    command = 0  # where the current command starts
    for i, word in enumerate(w):
        if word in SHELL_STOPS:
            command = i + 1
            continue
        before = w[command:i]
        if word == "neardup" or word.endswith(("/release/neardup", "/debug/neardup")):
            argument = any(b.endswith((".py", ".sh")) or b in ("python", "python3", "cargo") for b in before)
            if not argument and not (before and before[-1] in NAME_AFTER):
                found.append(w[i + 1 :])
        elif word == "--" and before[:2] == ["cargo", "run"] and set(before[2:]) <= {"--release", "-q", "--quiet"}:
            found.append(w[i + 1 :])
    return [args for args in found if args]


def check_invocation(help_: Help, args: list[str]) -> list[str]:
    """Problems with one `neardup ARGS...`: unknown subcommand or flags."""
    problems = []
    sub, i = "", 0
    # Global flags, then the subcommand.
    while i < len(args):
        a = args[i].strip("[]()")
        if a in SHELL_STOPS or not a:
            return problems
        if a.startswith("-"):
            name = a.split("=", 1)[0]
            if name not in help_.flags[""]:
                problems.append(f"`neardup {name}`: no such global flag")
            i += 2 if name in help_.takes_value[""] and "=" not in a else 1
            continue
        sub = a
        break
    if not sub:
        return problems
    if not re.fullmatch(r"[a-z][a-z-]*", sub):
        return problems  # a placeholder (`neardup SUBCOMMAND`) or prose
    if not help_.load(sub):
        return [f"`neardup {sub}`: no such subcommand"]
    depth = 0  # inside a synopsis' [...], `|` separates alternatives
    for word in args[i + 1 :]:
        if depth == 0 and (word in SHELL_STOPS or word.startswith((">", "|", "2>"))):
            break
        depth += word.count("[") - word.count("]")
        for alt in word.split("|"):
            a = alt.strip("[](),.;")
            if re.fullmatch(r"--?[A-Za-z][\w-]*(=.*)?", a):
                name = a.split("=", 1)[0]
                if name not in help_.flags[sub] and name not in help_.flags[""]:
                    problems.append(f"`neardup {sub} {name}`: no such flag")
    return problems


#: Python modules of the repository a doc may run with `python -m`.
PYTHON_MODULES = {"neardup.spark": "python/src/neardup/spark.py"}


def python_flags(line: str) -> list[str]:
    """Flags given to the repository's Python programs (`python -m
    neardup.spark`, `python python/bench/speed.py`) that their argparse
    parser does not define (read from the source: the package need not be
    installed)."""
    problems = []
    w = words(line)
    for i, word in enumerate(w):
        if word not in ("python", "python3") and not word.endswith(("/python", "/python3")):
            continue
        rest = w[i + 1 :]
        if rest[:1] == ["-m"] and len(rest) > 1 and rest[1] in PYTHON_MODULES:
            source, args = ROOT / PYTHON_MODULES[rest[1]], rest[2:]
        elif rest and rest[0].endswith(".py") and (ROOT / rest[0]).exists():
            source, args = ROOT / rest[0], rest[1:]
        else:
            continue
        defined = set(re.findall(r"add_argument\(\s*\"(--?[\w-]+)\"", source.read_text())) | {"-h", "--help"}
        for arg in args:
            if arg in SHELL_STOPS:
                break
            a = arg.strip("[]")
            if re.fullmatch(r"--?[A-Za-z][\w-]*(=.*)?", a) and a.split("=", 1)[0] not in defined:
                problems.append(f"`{source.relative_to(ROOT)} {a.split('=', 1)[0]}`: no such flag")
    return problems


def check_paths(line: str) -> list[str]:
    """Repository paths a command line names that do not exist."""
    problems = []
    for word in words(line):
        for part in re.split(r"[=:]", word):
            part = part.strip("[](),;\"'")
            literal = part.startswith(REPO_DIRS) and not any(c in part for c in "*$<{")
            if literal and not (ROOT / part).exists():
                problems.append(f"`{part}` does not exist")
    return problems


def run_block(block: Block, env: dict[str, str]) -> str | None:
    """Runs one sh block; the failure, or None."""
    start = time.monotonic()
    try:
        out = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", block.text],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"did not finish in {TIMEOUT} s (opt it out with a reason if it cannot be faster)"
    took = time.monotonic() - start
    print(f"  ran {block.where} in {took:.1f} s (exit {out.returncode})")
    if out.returncode != 0:
        tail = "\n".join((out.stdout + out.stderr).strip().splitlines()[-15:])
        return f"exit {out.returncode}:\n{tail}"
    return None


SELF_TEST = """
```
untagged
```

Inline: `neardup dedup INPUT --out DIR --no-such-flag`.

<!-- doc-commands: skip (never runs) -->
```sh
target/release/neardup --threads 1 nosuchcommand
false
```

```sh
neardup dedup testdata/pages --out "$TMPDIR/x" --no-report --quiet
python3 python/bench/speed.py m.tsv neardup --runz 3
scripts/no-such-script.sh
```
"""

#: The problems SELF_TEST must give, in order (the runs are not part of it).
SELF_TEST_EXPECTED = [
    "a fence without a language",
    "`neardup nosuchcommand`: no such subcommand",
    "`python/bench/speed.py --runz`: no such flag",
    "`scripts/no-such-script.sh` does not exist",
    "`neardup dedup --no-such-flag`: no such flag",
]


def self_test(help_: Help) -> list[str]:
    """Checks the checker: a made-up Markdown file with one of each problem
    must give exactly those problems (so a parser change cannot make the
    checks pass by finding nothing)."""
    with tempfile.TemporaryDirectory(dir=ROOT / "target", prefix="doc-commands-") as tmp:
        path = pathlib.Path(tmp, "self-test.md")
        path.write_text(SELF_TEST)
        found, runnable, _ = check_files([path], help_)
    if len(found) != len(SELF_TEST_EXPECTED) or not all(want in got for want, got in zip(SELF_TEST_EXPECTED, found)):
        return [f"self-test: expected {SELF_TEST_EXPECTED}, got {found}"]
    if [b.skip for b in runnable] != [None]:
        return [f"self-test: expected one runnable block, got {runnable}"]
    return []


def check_files(files: list[pathlib.Path], help_: Help) -> tuple[list[str], list[Block], int]:
    """The static checks of `files`: the problems, the sh blocks to run, and
    how many neardup command lines were checked."""
    failures: list[str] = []
    runnable: list[Block] = []
    checked = 0
    for path in files:
        blocks, untagged = blocks_of(path)
        failures += [f"{at}: a fence without a language (sh for commands, text for the rest)" for at in untagged]
        for block in blocks:
            for line in command_lines(block.text):
                for args in neardup_invocations(line):
                    checked += 1
                    failures += [f"{block.where}: {p}" for p in check_invocation(help_, args)]
                failures += [f"{block.where}: {p}" for p in python_flags(line)]
                if block.lang in COMMAND_LANGS:
                    failures += [f"{block.where}: {p}" for p in check_paths(line)]
            if block.lang in COMMAND_LANGS and block.skip is None:
                runnable.append(block)
        for n, span in inline_spans(path):
            for args in neardup_invocations(span):
                checked += 1
                failures += [f"{path.relative_to(ROOT)}:{n}: {p}" for p in check_invocation(help_, args)]
    return failures, runnable, checked


def git_status() -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=pathlib.Path)
    parser.add_argument("--bin", type=pathlib.Path, default=ROOT / "target" / "release")
    parser.add_argument("--list", action="store_true", help="list the sh blocks, run nothing")
    opts = parser.parse_args()
    files = [f.resolve() for f in opts.files] or [
        ROOT / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
        ROOT / "python" / "README.md",
        ROOT / "python" / "neardup-scrapy" / "README.md",
    ]
    binary = opts.bin.resolve() / "neardup"
    if not binary.exists():
        print(f"doc-commands: {binary} is missing (cargo build --release, or --bin DIR)", file=sys.stderr)
        return 1

    help_ = Help(str(binary))
    help_.load("")
    failures = self_test(help_)
    found, runnable, checked = check_files(files, help_)
    failures += found
    if opts.list:
        for path in files:
            for block in blocks_of(path)[0]:
                if block.lang in COMMAND_LANGS:
                    print(f"{block.where}: {'skip (' + block.skip + ')' if block.skip else 'runs'}")

    if not opts.list:
        before = git_status()
        with tempfile.TemporaryDirectory(prefix="doc-commands-") as tmp:
            env = {
                **os.environ,
                "PATH": f"{binary.parent}{os.pathsep}{os.environ.get('PATH', '')}",
                "SHARED": os.environ.get("SHARED", str(ROOT.parent / "shared")),
                "TMPDIR": tmp,
            }
            for block in runnable:
                problem = run_block(block, env)
                if problem:
                    failures.append(f"{block.where}: {problem}")
        if git_status() != before:
            failures.append("the commands changed the checkout (git status differs)")

    for failure in failures:
        print(f"doc-commands: {failure}", file=sys.stderr)
    ran = "" if opts.list else f", {len(runnable)} sh blocks run"
    print(f"doc-commands: {len(files)} files, {checked} neardup command lines checked{ran}, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
