#!/usr/bin/env python3
"""Regenerates testdata/robots/google_cases.rs from Google's robots_test.cc.

Usage:
    curl -sSfo /tmp/robots_test.cc \\
        https://raw.githubusercontent.com/google/robotstxt/master/robots_test.cc
    python3 scripts/robots-google-cases.py /tmp/robots_test.cc COMMIT \\
        > testdata/robots/google_cases.rs
    cargo test --test robots_google -- --nocapture

COMMIT is the google/robotstxt commit the file was taken from (recorded in
the generated file's header). The test prints how many cases of each suite
it ran.

The script does not pattern-match the C++ text: it interprets the body of
every `TEST(RobotsUnittest, Name) { ... }`, a small subset of C++ (string
and integer declarations, adjacent string literals, `absl::StrAppend`,
`absl::StrCat`, `+ - *`, `.length()`/`.size()`, `while` loops, blocks) and
records each expectation it meets:

- `EXPECT_TRUE/FALSE(IsUserAgentAllowed(robots, agent, url))`
- `EXPECT_TRUE/FALSE(RobotsMatcher::IsValidUserAgentToObey(agent))`
- `googlebot::ParseRobotsTxt(body, &report)` and the `EXPECT_EQ`s on the
  report's `valid_directives()`, `unknown_directives()`,
  `last_line_seen()` and `sitemap()` that follow it
- `TestPath(url, path)` (GetPathParamsQuery)
- `TestEscape(pattern, escaped)` (MaybeEscapePattern)

Anything else inside a test (a new helper, a new kind of statement) stops
the script with the file's line number, so an upstream change that the
generated table would silently miss is noticed. Only the test data are
copied; the C++ file itself is not kept in this repository.
"""

import re
import sys

# ---------------------------------------------------------------- lexing

TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/|\#[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<number>\d+)
  | (?P<ident>[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)
  | (?P<punct>::|[-+*/<>=&(){}\[\];,.!])
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)


class Tok:
    def __init__(self, kind, text, line):
        self.kind, self.text, self.line = kind, text, line

    def __repr__(self):
        return f"{self.text!r} (line {self.line})"


def lex(src):
    toks, pos, line = [], 0, 1
    while pos < len(src):
        m = TOKEN.match(src, pos)
        if not m:
            sys.exit(f"line {line}: cannot lex {src[pos:pos + 20]!r}")
        kind = m.lastgroup
        text = m.group()
        if kind not in ("ws", "comment"):
            toks.append(Tok(kind, text, line))
        line += text.count("\n")
        pos = m.end()
    return toks


def unescape(literal, line):
    """The bytes of a C++ string literal (source text is UTF-8)."""
    body = literal[1:-1]
    out = bytearray()
    i = 0
    simple = {"n": 10, "r": 13, "t": 9, "\\": 92, '"': 34, "'": 39, "0": 0}
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        e = body[i + 1]
        if e == "x":
            j = i + 2
            while j < len(body) and body[j] in "0123456789abcdefABCDEF":
                j += 1
            value = int(body[i + 2:j], 16)
            if value > 0xFF:
                sys.exit(f"line {line}: hex escape out of range in {literal}")
            out.append(value)
            i = j
        elif e in simple and not (e == "0" and body[i + 2:i + 3].isdigit()):
            out.append(simple[e])
            i += 2
        else:
            sys.exit(f"line {line}: unsupported escape \\{e} in {literal}")
    return bytes(out)


# ---------------------------------------------------------- interpreting


class Call:
    """A call whose meaning is given by the statement around it."""

    def __init__(self, name, args, line):
        self.name, self.args, self.line = name, args, line


class ReportField:
    def __init__(self, name):
        self.name = name


REPORT_FIELDS = ("valid_directives", "unknown_directives", "last_line_seen", "sitemap")
TYPES = ("absl::string_view", "std::string", "size_t", "int", "char", "RobotsStatsReporter")


class Test:
    """Interprets one TEST body, collecting expectations into `out`."""

    def __init__(self, name, toks, out):
        self.name, self.toks, self.i, self.out = name, toks, 0, out
        self.scopes = [{}]
        self.stats = None  # the current ParseRobotsTxt case

    # -- token helpers
    def peek(self, k=0):
        return self.toks[self.i + k] if self.i + k < len(self.toks) else None

    def take(self, text=None):
        t = self.peek()
        if t is None or (text is not None and t.text != text):
            where = t.line if t else "end"
            sys.exit(f"{self.name}: line {where}: expected {text!r}, got {t!r}")
        self.i += 1
        return t

    def fail(self, what):
        t = self.peek()
        sys.exit(f"{self.name}: line {t.line if t else '?'}: {what}: {t!r}")

    # -- variables
    def lookup(self, name):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope
        self.fail(f"unknown variable {name}")

    # -- statements
    def block(self):
        self.take("{")
        self.scopes.append({})
        while self.peek().text != "}":
            self.statement()
        self.take("}")
        self.scopes.pop()

    def statement(self):
        t = self.peek()
        if t.text == "{":
            self.block()
        elif t.text == "while":
            self.take("while")
            self.take("(")
            start = self.i
            while True:
                self.i = start
                if not self.condition():
                    break
                self.take(")")
                self.block()
            # Skip the loop body once more without running it.
            self.take(")")
            depth = 0
            while True:
                tok = self.take()
                depth += {"{": 1, "}": -1}.get(tok.text, 0)
                if depth == 0:
                    break
        elif t.text in ("static", "const") or t.text in TYPES:
            self.declaration()
        else:
            value = self.expr()
            self.take(";")
            self.effect(value)

    def declaration(self):
        while self.peek().text in ("static", "const"):
            self.take()
        ty = self.take().text
        if ty not in TYPES:
            self.fail(f"unsupported type {ty}")
        name = self.take().text
        if self.peek().text == "[":
            self.take("[")
            self.take("]")
        if ty == "RobotsStatsReporter":
            value = None
        elif self.peek().text == "=":
            self.take("=")
            value = self.expr()
        else:
            value = b"" if ty in ("std::string", "absl::string_view") else 0
        self.take(";")
        self.scopes[-1][name] = value

    def condition(self):
        left = self.expr()
        self.take("<")
        right = self.expr()
        return left < right

    def effect(self, v):
        if not isinstance(v, Call):
            self.fail("statement without effect")
        where = f"{self.name}: line {v.line}"
        if v.name in ("EXPECT_TRUE", "EXPECT_FALSE"):
            (inner,) = v.args
            want = v.name == "EXPECT_TRUE"
            if isinstance(inner, Call) and inner.name == "IsUserAgentAllowed":
                robots, agent, url = inner.args
                self.out["allowed"].append((self.name, robots, agent, url, want))
            elif isinstance(inner, Call) and inner.name == "RobotsMatcher::IsValidUserAgentToObey":
                (agent,) = inner.args
                self.out["agents"].append((self.name, agent, want))
            else:
                sys.exit(f"{where}: unknown expectation in {v.name}")
        elif v.name == "EXPECT_EQ":
            want, got = v.args
            if not isinstance(got, ReportField) or self.stats is None:
                sys.exit(f"{where}: EXPECT_EQ on something other than a parse report")
            self.stats["expect"][got.name] = want
        elif v.name == "googlebot::ParseRobotsTxt":
            body, _report = v.args
            self.stats = {"test": self.name, "body": body, "expect": {}}
            self.out["stats"].append(self.stats)
        elif v.name == "absl::StrAppend":
            target, *parts = v.args
            scope = self.lookup(target)
            scope[target] = scope[target] + b"".join(parts)
        elif v.name == "TestPath":
            self.out["paths"].append((self.name, *v.args))
        elif v.name == "TestEscape":
            self.out["escapes"].append((self.name, *v.args))
        else:
            sys.exit(f"{where}: unknown call {v.name}")

    # -- expressions
    def expr(self):
        value = self.term()
        while self.peek().text in ("+", "-"):
            op = self.take().text
            rhs = self.term()
            value = value + rhs if op == "+" else value - rhs
        return value

    def term(self):
        value = self.primary()
        while self.peek().text == "*":
            self.take("*")
            value = value * self.primary()
        return value

    def args(self):
        self.take("(")
        out = []
        while self.peek().text != ")":
            if self.peek().text == "&":
                self.take("&")
                out.append(self.take().text)  # a variable passed by pointer
            else:
                out.append(self.expr())
            if self.peek().text == ",":
                self.take(",")
        self.take(")")
        return out

    def primary(self):
        t = self.peek()
        if t.kind == "ident" and t.text == "report" and self.peek(1).text == ".":
            self.take()
            self.take(".")
            field = self.take().text
            self.take("(")
            self.take(")")
            if field not in REPORT_FIELDS:
                self.fail(f"unknown report field {field}")
            return ReportField(field)
        value = self.atom()
        while self.peek().text == ".":
            self.take(".")
            method = self.take().text
            self.take("(")
            self.take(")")
            if method not in ("length", "size") or not isinstance(value, bytes):
                self.fail(f"unsupported method .{method}()")
            value = len(value)
        return value

    def atom(self):
        t = self.take()
        if t.kind == "string":
            value = unescape(t.text, t.line)
            while self.peek().kind == "string":
                nxt = self.take()
                value += unescape(nxt.text, nxt.line)
            return value
        if t.kind == "number":
            return int(t.text)
        if t.text == "(":
            value = self.expr()
            self.take(")")
            return value
        if t.kind != "ident":
            self.fail(f"unexpected {t.text!r}")
        name = t.text
        if name in ("std::string", "absl::string_view"):
            args = self.args()
            return args[0] if args else b""
        if name == "absl::StrCat":
            return b"".join(self.args())
        if self.peek().text == "(":
            return Call(name, self.args(), t.line)
        return self.lookup(name)[name]


def tests_of(toks):
    """(name, body tokens) of each TEST(RobotsUnittest, name) { ... }."""
    out, i = [], 0
    while i < len(toks):
        if toks[i].text == "TEST" and toks[i + 1].text == "(":
            name = toks[i + 4].text
            j = i + 6
            if toks[j].text != "{":
                sys.exit(f"line {toks[j].line}: TEST {name} without a body")
            depth, k = 0, j
            while True:
                depth += {"{": 1, "}": -1}.get(toks[k].text, 0)
                k += 1
                if depth == 0:
                    break
            out.append((name, toks[j + 1:k - 1]))
            i = k
        else:
            i += 1
    return out


# --------------------------------------------------------------- emitting


def rust_str(b, as_bytes=False):
    """A Rust literal for `b`: a &str when it is UTF-8, else a byte string."""
    if not as_bytes:
        try:
            text = b.decode("utf-8")
        except UnicodeDecodeError:
            sys.exit(f"not UTF-8 where a string is needed: {b[:40]!r}")
        out = []
        for ch in text:
            if ch == "\\":
                out.append("\\\\")
            elif ch == '"':
                out.append('\\"')
            elif ch == "\n":
                out.append("\\n")
            elif ch == "\r":
                out.append("\\r")
            elif ch == "\t":
                out.append("\\t")
            elif ord(ch) < 0x20 or ord(ch) == 0x7F:
                out.append(f"\\u{{{ord(ch):x}}}")
            else:
                out.append(ch)
        return '"' + "".join(out) + '"'
    out = []
    for byte in b:
        ch = chr(byte)
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\x{byte:02X}")
    return 'b"' + "".join(out) + '"'


RUN = re.compile(rb"(.)\1{63,}", re.DOTALL)


def rust_string(b):
    """A Rust `String` expression for `b`; long runs of one byte (the
    long-line cases) are written as `.repeat(n)`."""
    parts, pos = [], 0
    for m in RUN.finditer(b):
        if m.start() > pos:
            parts.append(f"{rust_str(b[pos:m.start()])}.to_owned()")
        parts.append(f"{rust_str(m.group(1))}.repeat({len(m.group())})")
        pos = m.end()
    if pos < len(b) or not parts:
        parts.append(f"{rust_str(b[pos:])}.to_owned()")
    if len(parts) == 1:
        return parts[0]
    return "[" + ", ".join(parts) + "].concat()"


HEADER = """\
// @generated by scripts/robots-google-cases.py from google/robotstxt
// robots_test.cc at commit {commit}: do not edit by hand, rerun the
// script on the current file (see its docstring).
//
// The test data below are Google's, from robots_test.cc:
//   Copyright 2019 Google LLC
//   Licensed under the Apache License, Version 2.0 (the "License");
//   you may not use this file except in compliance with the License.
//   You may obtain a copy of the License at
//       https://www.apache.org/licenses/LICENSE-2.0
//   Unless required by applicable law or agreed to in writing, software
//   distributed under the License is distributed on an "AS IS" BASIS,
//   WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
//   See the License for the specific language governing permissions and
//   limitations under the License.
//
// Included by `tests/robots_google.rs` and `benches/robots.rs`.
// Counts: {counts}.

/// An `IsUserAgentAllowed` case: (test name, robots.txt, product token,
/// URL, allowed).
pub type Case = (&'static str, String, &'static str, String, bool);

/// A `ParseRobotsTxt` case: the body (bytes: some are not UTF-8) and what
/// Google's `RobotsStatsReporter` counts for it (`None`: not checked).
#[allow(dead_code)]
pub struct ParseCase {{
    pub test: &'static str,
    pub body: Vec<u8>,
    pub valid_directives: Option<u32>,
    pub unknown_directives: Option<u32>,
    pub last_line_seen: Option<u32>,
    pub sitemap: Option<String>,
}}
"""


def emit(out, commit):
    counts = ", ".join(
        f"{len(out[k])} {label}"
        for k, label in (
            ("allowed", "IsUserAgentAllowed"),
            ("agents", "IsValidUserAgentToObey"),
            ("stats", "ParseRobotsTxt"),
            ("paths", "GetPathParamsQuery"),
            ("escapes", "MaybeEscapePattern"),
        )
    )
    print(HEADER.format(commit=commit, counts=counts), end="")

    print("\n/// Every `IsUserAgentAllowed` case, in file order.")
    print("pub fn google_cases() -> Vec<Case> {")
    print("    let mut c: Vec<Case> = Vec::new();")
    last_test, bodies = None, {}
    for test, robots, agent, url, want in out["allowed"]:
        if test != last_test:
            print(f"\n    // {test}")
            last_test, bodies = test, {}
        if robots not in bodies:
            bodies[robots] = f"r{len(bodies)}"
            print(f"    let {bodies[robots]}: String = {rust_string(robots)};")
        print(
            f"    c.push(({rust_str(test.encode())}, {bodies[robots]}.clone(), "
            f"{rust_str(agent)}, {rust_string(url)}, {str(want).lower()}));"
        )
    print("    c\n}")

    print("\n/// `IsValidUserAgentToObey` cases: (test name, token, valid).")
    print("#[allow(dead_code)]")
    print("pub fn google_valid_user_agents() -> Vec<(&'static str, &'static str, bool)> {")
    print("    vec![")
    for test, agent, want in out["agents"]:
        print(f"        ({rust_str(test.encode())}, {rust_str(agent)}, {str(want).lower()}),")
    print("    ]\n}")

    def opt(v, kind):
        if v is None:
            return "None"
        if kind == "int":
            return f"Some({v})"
        return f"Some({rust_string(v)})"

    print("\n/// `ParseRobotsTxt` cases, in file order.")
    print("#[allow(dead_code)]")
    print("pub fn google_parse_cases() -> Vec<ParseCase> {")
    print("    vec![")
    for s in out["stats"]:
        e = s["expect"]
        unknown = set(e) - set(REPORT_FIELDS)
        if unknown:
            sys.exit(f"{s['test']}: unknown report fields {unknown}")
        print("        ParseCase {")
        print(f"            test: {rust_str(s['test'].encode())},")
        print(f"            body: {rust_str(s['body'], as_bytes=True)}.to_vec(),")
        for field in ("valid_directives", "unknown_directives", "last_line_seen"):
            print(f"            {field}: {opt(e.get(field), 'int')},")
        print(f"            sitemap: {opt(e.get('sitemap'), 'str')},")
        print("        },")
    print("    ]\n}")

    for fn, key, doc in (
        ("google_paths", "paths", "`GetPathParamsQuery` cases: (test name, URL, path)."),
        ("google_escapes", "escapes", "`MaybeEscapePattern` cases: (test name, pattern, escaped)."),
    ):
        print(f"\n/// {doc}")
        print("#[allow(dead_code)]")
        print(f"pub fn {fn}() -> Vec<(&'static str, &'static str, &'static str)> {{")
        print("    vec![")
        for test, a, b in out[key]:
            print(f"        ({rust_str(test.encode())}, {rust_str(a)}, {rust_str(b)}),")
        print("    ]\n}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, commit = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        toks = lex(f.read())
    out = {"allowed": [], "agents": [], "stats": [], "paths": [], "escapes": []}
    tests = tests_of(toks)
    for name, body in tests:
        t = Test(name, body + [Tok("punct", "}", 0)], out)
        while t.peek().text != "}" or t.i < len(body):
            t.statement()
    emit(out, commit)
    print(
        f"{len(tests)} tests: " + ", ".join(f"{len(v)} {k}" for k, v in out.items()),
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
