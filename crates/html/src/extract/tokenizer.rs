//! A small, allocation-free HTML tokenizer over bytes.
//!
//! Why hand-written: extraction is the hot path (target well above
//! 100 MB/s per core). A full HTML5 tree builder (html5ever via scraper)
//! runs at ~65 MB/s here; this tokenizer only finds tags, text, comments and
//! raw-text elements with `memchr`, and leaves tree repair to a few implied
//! end-tag rules in the builder. It follows the WHATWG tokenizer where it
//! matters for text extraction: comments (`<!-- -->`, bogus comments),
//! doctype, quoted attribute values containing `>`, raw-text elements
//! (`script`, `style`, ...) whose content is never parsed as markup, a `<`
//! that does not start a tag is text, and EOF inside a tag drops the tag.
//! A tag's attributes are parsed once, by the same scan that finds the
//! tag's end, into a list the tokenizer reuses ([`Tokenizer::attributes`]);
//! that list is its only allocation. It never panics.

use memchr::{memchr, memchr2, memmem};
use std::sync::LazyLock;

use super::scan::find_byte;

/// The searchers for raw text and comments, built once per process rather
/// than per element (building one costs more than a short search).
static END_TAG_OPEN: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("</"));
static COMMENT_OPEN: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("<!--"));
static COMMENT_CLOSE: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("-->"));

/// One token. Slices borrow the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token<'a> {
    /// `<name attrs>`; `attrs` is the raw attribute text for [`Attrs`].
    Start {
        /// Tag name as written (compare case-insensitively).
        name: &'a str,
        /// Raw attribute text.
        attrs: &'a [u8],
        /// Ends in `/>`.
        self_closing: bool,
    },
    /// `</name>`.
    End {
        /// Tag name as written.
        name: &'a str,
    },
    /// Character data (entities not yet decoded).
    Text(&'a str),
    /// Content of a raw-text element (`script`, `style`, `title`, ...).
    Raw(&'a str),
}

/// Elements whose content is not markup; the tokenizer jumps to `</name`.
fn raw_text_kind(name: &str) -> bool {
    const RAW: [&str; 10] = [
        "script",
        "style",
        "title",
        "textarea",
        "xmp",
        "iframe",
        "noembed",
        "noframes",
        "noscript",
        "plaintext",
    ];
    name.len() <= 9 && RAW.iter().any(|r| r.eq_ignore_ascii_case(name))
}

/// Streaming tokenizer: an iterator of [`Token`]s.
pub struct Tokenizer<'a> {
    src: &'a str,
    pos: usize,
    /// After a raw-text start tag: the name whose end tag closes it.
    raw_until: Option<&'a str>,
    /// A pending end tag to emit after a raw text token.
    pending_end: Option<&'a str>,
    /// The attributes of the last start tag, in source order.
    attrs: Vec<Attr<'a>>,
}

/// At most this many attributes of a tag are kept: a hostile page of
/// `<a b b b ...` would otherwise turn each two bytes into a 32-byte pair
/// (256 MB for a 16 MB body). Real tags have a few; html5ever keeps all.
pub const MAX_ATTRIBUTES: usize = 256;

/// One attribute: its name as written and its raw value (quotes removed,
/// entities not decoded; empty when it has none).
pub type Attr<'a> = (&'a [u8], &'a [u8]);

impl<'a> Tokenizer<'a> {
    /// Tokenizes `src`.
    pub fn new(src: &'a str) -> Self {
        Tokenizer {
            src,
            pos: 0,
            raw_until: None,
            pending_end: None,
            attrs: Vec::new(),
        }
    }

    /// The attributes of the [`Token::Start`] last returned, parsed while
    /// its end was found: the pairs [`Attrs`] yields for its raw `attrs`,
    /// the first [`MAX_ATTRIBUTES`] of them. Empty after any other token.
    pub fn attributes(&self) -> &[Attr<'a>] {
        &self.attrs
    }

    fn bytes(&self) -> &'a [u8] {
        self.src.as_bytes()
    }

    /// A slice of the source between two positions that are ASCII
    /// delimiters (so always char boundaries); empty if not.
    fn s(&self, a: usize, b: usize) -> &'a str {
        self.src.get(a..b).unwrap_or("")
    }

    fn raw_text(&mut self, name: &'a str) -> Option<Token<'a>> {
        let bytes = self.bytes();
        let start = self.pos;
        if name.eq_ignore_ascii_case("plaintext") {
            self.pos = bytes.len();
            return Some(Token::Raw(self.s(start, bytes.len())));
        }
        let finder = &*END_TAG_OPEN;
        let mut from = start;
        // A script's `<!-- ... <script> ... </script> ... -->` does not end
        // at the inner `</script>` (WHATWG "script data double escaped"):
        // tracked only for scripts that hold a `<!--` at all.
        let mut escapes = (name.eq_ignore_ascii_case("script")
            && COMMENT_OPEN
                .find(bytes.get(start..).unwrap_or_default())
                .is_some())
        .then(|| ScriptEscapes::new(start));
        loop {
            let Some(rel) = bytes.get(from..).and_then(|h| finder.find(h)) else {
                // Unclosed: the rest of the document is raw text.
                self.pos = bytes.len();
                return Some(Token::Raw(self.s(start, bytes.len())));
            };
            let lt = from + rel;
            let name_start = lt + 2;
            let name_end = name_start + name.len();
            let matches = bytes
                .get(name_start..name_end)
                .is_some_and(|n| n.eq_ignore_ascii_case(name.as_bytes()))
                && bytes
                    .get(name_end)
                    .is_none_or(|&b| b.is_ascii_whitespace() || b == b'/' || b == b'>');
            let double_escaped = escapes
                .as_mut()
                .is_some_and(|e| matches && e.double_escaped_at(bytes, lt));
            if matches && !double_escaped {
                // Skip to the end of the end tag.
                let close = memchr(b'>', bytes.get(name_end..).unwrap_or_default())
                    .map_or(bytes.len(), |i| name_end + i + 1);
                self.pos = close;
                self.pending_end = Some(name);
                return Some(Token::Raw(self.s(start, lt)));
            }
            from = lt + 2;
        }
    }

    /// Parses a tag's attributes from `i` (just after its name) into
    /// `self.attrs` and returns the index of the `>` that ends the tag, or
    /// `None` at EOF. [`Attrs`] is the one definition of the attribute
    /// syntax: the tag ends where it stops, at a `>` outside a quoted
    /// value (WHATWG 13.2.5.32 ff.), so `attrs` re-parsed later yields
    /// the same pairs.
    fn scan_attributes(&mut self, i: usize) -> Option<usize> {
        let rest = self.bytes().get(i..)?;
        // Most tags end right after their name (`</div>`, `<p>`): no
        // attribute iterator for them.
        if rest.first() == Some(&b'>') {
            return Some(i);
        }
        let mut it = Attrs::new(rest);
        for pair in it.by_ref() {
            // Past the cap, only the tag's end is wanted.
            if self.attrs.len() < MAX_ATTRIBUTES {
                self.attrs.push(pair);
            }
        }
        let end = it.consumed();
        (rest.get(end) == Some(&b'>')).then_some(i + end)
    }
}

impl<'a> Iterator for Tokenizer<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        self.attrs.clear();
        if let Some(name) = self.pending_end.take() {
            return Some(Token::End { name });
        }
        if let Some(name) = self.raw_until.take() {
            return self.raw_text(name);
        }
        let bytes = self.bytes();
        loop {
            let start = self.pos;
            if start >= bytes.len() {
                return None;
            }
            let Some(rel) = find_byte(b'<', bytes.get(start..)?) else {
                self.pos = bytes.len();
                return Some(Token::Text(self.s(start, bytes.len())));
            };
            let lt = start + rel;
            if lt > start {
                // Emit the text first; the tag is handled on the next call.
                self.pos = lt;
                return Some(Token::Text(self.s(start, lt)));
            }
            let next = bytes.get(lt + 1).copied();
            match next {
                Some(b'!') => {
                    let rest = bytes.get(lt..).unwrap_or_default();
                    if rest.starts_with(b"<!--") {
                        // `<!-->` and `<!--->` are complete (empty) comments.
                        let body = lt + 4;
                        if rest.get(4) == Some(&b'>') {
                            self.pos = body + 1;
                        } else if rest.get(4..6) == Some(b"->") {
                            self.pos = body + 2;
                        } else {
                            self.pos = COMMENT_CLOSE
                                .find(bytes.get(body..).unwrap_or_default())
                                .map_or(bytes.len(), |i| body + i + 3);
                        }
                    } else {
                        // Doctype, CDATA (a bogus comment in HTML content).
                        self.pos = memchr(b'>', bytes.get(lt..).unwrap_or_default())
                            .map_or(bytes.len(), |i| lt + i + 1);
                    }
                    continue;
                }
                Some(b'?') => {
                    self.pos = memchr(b'>', bytes.get(lt..).unwrap_or_default())
                        .map_or(bytes.len(), |i| lt + i + 1);
                    continue;
                }
                Some(b'/') => {
                    match bytes.get(lt + 2) {
                        Some(b) if b.is_ascii_alphabetic() => {
                            let name_start = lt + 2;
                            let name_end = name_start
                                + bytes
                                    .get(name_start..)
                                    .unwrap_or_default()
                                    .iter()
                                    .position(|&b| {
                                        b.is_ascii_whitespace() || b == b'/' || b == b'>'
                                    })
                                    .unwrap_or(bytes.len() - name_start);
                            let Some(gt) = self.scan_attributes(name_end) else {
                                // EOF in a tag: dropped.
                                self.pos = bytes.len();
                                return None;
                            };
                            // An end tag's attributes are a parse error,
                            // ignored.
                            self.attrs.clear();
                            self.pos = gt + 1;
                            return Some(Token::End {
                                name: self.s(name_start, name_end),
                            });
                        }
                        Some(b'>') => {
                            self.pos = lt + 3;
                            continue;
                        }
                        Some(_) => {
                            // Bogus comment.
                            self.pos = memchr(b'>', bytes.get(lt..).unwrap_or_default())
                                .map_or(bytes.len(), |i| lt + i + 1);
                            continue;
                        }
                        None => {
                            self.pos = bytes.len();
                            return Some(Token::Text(self.s(lt, bytes.len())));
                        }
                    }
                }
                Some(b) if b.is_ascii_alphabetic() => {
                    let name_start = lt + 1;
                    let name_end = name_start
                        + bytes
                            .get(name_start..)
                            .unwrap_or_default()
                            .iter()
                            .position(|&b| b.is_ascii_whitespace() || b == b'/' || b == b'>')
                            .unwrap_or(bytes.len() - name_start);
                    let Some(gt) = self.scan_attributes(name_end) else {
                        self.pos = bytes.len();
                        return None;
                    };
                    self.pos = gt + 1;
                    let name = self.s(name_start, name_end);
                    let attrs = bytes.get(name_end..gt).unwrap_or_default();
                    let self_closing = gt > name_start && bytes.get(gt - 1) == Some(&b'/');
                    if raw_text_kind(name) && !self_closing {
                        self.raw_until = Some(name);
                    }
                    return Some(Token::Start {
                        name,
                        attrs,
                        self_closing,
                    });
                }
                _ => {
                    // A '<' that starts no tag is text: emit it with what
                    // follows up to the next '<'.
                    let after = lt + 1;
                    let end = memchr(b'<', bytes.get(after..).unwrap_or_default())
                        .map_or(bytes.len(), |i| after + i);
                    self.pos = end;
                    return Some(Token::Text(self.s(lt, end)));
                }
            }
        }
    }
}

/// Iterator over `(name, value)` attribute pairs of a tag's raw attribute
/// text. Values are raw (entities not decoded, quotes removed).
pub struct Attrs<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Attrs<'a> {
    /// Attributes of the raw text `b` (what follows the tag name).
    pub fn new(b: &'a [u8]) -> Self {
        Attrs { b, i: 0 }
    }

    /// Bytes consumed so far (the prescan uses it to continue after a tag).
    pub fn consumed(&self) -> usize {
        self.i
    }
}

impl<'a> Iterator for Attrs<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.b;
        // Skip whitespace and stray slashes.
        while let Some(&c) = b.get(self.i) {
            if c.is_ascii_whitespace() || c == b'/' {
                self.i += 1;
            } else {
                break;
            }
        }
        let c = *b.get(self.i)?;
        if c == b'>' {
            return None;
        }
        let name_start = self.i;
        // The first character may be '=' (spec: part of the name).
        self.i += 1;
        while let Some(&c) = b.get(self.i) {
            if c.is_ascii_whitespace() || c == b'/' || c == b'>' || c == b'=' {
                break;
            }
            self.i += 1;
        }
        let name = b.get(name_start..self.i).unwrap_or_default();
        let mut j = self.i;
        while b.get(j).is_some_and(|c| c.is_ascii_whitespace()) {
            j += 1;
        }
        if b.get(j) != Some(&b'=') {
            return Some((name, b""));
        }
        j += 1;
        while b.get(j).is_some_and(|c| c.is_ascii_whitespace()) {
            j += 1;
        }
        match b.get(j) {
            Some(&q @ (b'"' | b'\'')) => {
                let vs = j + 1;
                let ve = find_byte(q, b.get(vs..).unwrap_or_default()).map_or(b.len(), |k| vs + k);
                self.i = (ve + 1).min(b.len());
                Some((name, b.get(vs..ve).unwrap_or_default()))
            }
            Some(_) => {
                let vs = j;
                let mut ve = j;
                while b
                    .get(ve)
                    .is_some_and(|&c| !c.is_ascii_whitespace() && c != b'>')
                {
                    ve += 1;
                }
                self.i = ve;
                Some((name, b.get(vs..ve).unwrap_or_default()))
            }
            None => {
                self.i = j;
                Some((name, b""))
            }
        }
    }
}

/// The escape states of script data (WHATWG 13.2.5.4 ff.), advanced lazily
/// up to each candidate `</script`: `<!--` escapes, `<script` inside an
/// escape double-escapes, `</script` there (or `-->` anywhere) steps back.
struct ScriptEscapes {
    /// Scanned up to here.
    pos: usize,
    state: Escape,
}

#[derive(Clone, Copy, PartialEq)]
enum Escape {
    None,
    Escaped,
    Double,
}

impl ScriptEscapes {
    fn new(start: usize) -> ScriptEscapes {
        ScriptEscapes {
            pos: start,
            state: Escape::None,
        }
    }

    /// Whether the `</script` at `lt` is inside a double escape, where it
    /// does not end the script; the states are advanced past it.
    fn double_escaped_at(&mut self, bytes: &[u8], lt: usize) -> bool {
        let tag_at = |i: usize, tag: &[u8]| {
            bytes
                .get(i..i + tag.len())
                .is_some_and(|t| t.eq_ignore_ascii_case(tag))
                && bytes
                    .get(i + tag.len())
                    .is_some_and(|&b| b.is_ascii_whitespace() || b == b'/' || b == b'>')
        };
        let mut i = self.pos;
        while i < lt {
            // Only a `<` (`<!--`, `<script`, `</script`) or a `-` (`-->`)
            // can change the state: jump to the next one.
            let ahead = bytes.get(i..lt).unwrap_or_default();
            let next = match self.state {
                Escape::None => memchr(b'<', ahead),
                Escape::Escaped | Escape::Double => memchr2(b'<', b'-', ahead),
            };
            let Some(skip) = next else { break };
            i += skip;
            match (self.state, bytes.get(i..i + 4)) {
                (Escape::None, Some(b"<!--")) => {
                    self.state = Escape::Escaped;
                    i += 4;
                    continue;
                }
                (Escape::Escaped | Escape::Double, Some(w)) if w.starts_with(b"-->") => {
                    self.state = Escape::None;
                    i += 3;
                    continue;
                }
                (Escape::Escaped, _) if tag_at(i, b"<script") => self.state = Escape::Double,
                (Escape::Double, _) if tag_at(i, b"</script") => self.state = Escape::Escaped,
                _ => {}
            }
            i += 1;
        }
        let double = self.state == Escape::Double;
        if double {
            // This `</script` steps back to escaped; scanning resumes after it.
            self.state = Escape::Escaped;
        }
        self.pos = lt + 2;
        double
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Token<'_>> {
        Tokenizer::new(s).collect()
    }

    #[test]
    fn basic_tags_and_text() {
        let t = toks("<p class=x>Hi <b>there</b></p>");
        assert_eq!(t.len(), 6);
        assert!(matches!(t[0], Token::Start { name: "p", .. }));
        assert_eq!(t[1], Token::Text("Hi "));
        assert_eq!(t[5], Token::End { name: "p" });
    }

    #[test]
    fn quoted_gt_in_attribute() {
        let t = toks(r#"<a title="a>b" href='x'>t</a>"#);
        let Token::Start { attrs, .. } = t[0] else {
            panic!("{t:?}")
        };
        let a: Vec<_> = Attrs::new(attrs).collect();
        assert_eq!(
            a,
            vec![(&b"title"[..], &b"a>b"[..]), (&b"href"[..], &b"x"[..])]
        );
        assert_eq!(t[1], Token::Text("t"));
    }

    /// The WHATWG rule html5ever follows (found by tests/html_oracle.rs on
    /// readability's `comment-inside-script-parsing` page): inside a
    /// script's `<!--`, a `<script>` double-escapes, and the `</script>`
    /// after it does not end the script; `-->` ends the escape.
    #[test]
    fn a_double_escaped_script_ends_at_its_own_end_tag() {
        let t =
            toks("<script><!-- document.write('<script>x()</script>'); --></script><p>after</p>");
        assert_eq!(
            t[1],
            Token::Raw("<!-- document.write('<script>x()</script>'); -->")
        );
        assert_eq!(t[2], Token::End { name: "script" });
        // An escape alone does not hide the end tag, nor does a `<script`
        // outside one.
        let t = toks("<script><!-- a </script><p>b</p>");
        assert_eq!(t[1], Token::Raw("<!-- a "));
        let t = toks("<script>var s = '<script>'; </script>after");
        assert_eq!(t[1], Token::Raw("var s = '<script>'; "));
        // Unclosed double escape: the rest is script.
        let t = toks("<script><!--<script></script>");
        assert_eq!(t[1], Token::Raw("<!--<script></script>"));
    }

    /// The escape scan as it was written first, one byte at a time: the
    /// reference for the scan that jumps between `<` and `-`.
    fn double_escaped_bytewise(e: &mut ScriptEscapes, bytes: &[u8], lt: usize) -> bool {
        let tag_at = |i: usize, tag: &[u8]| {
            bytes
                .get(i..i + tag.len())
                .is_some_and(|t| t.eq_ignore_ascii_case(tag))
                && bytes
                    .get(i + tag.len())
                    .is_some_and(|&b| b.is_ascii_whitespace() || b == b'/' || b == b'>')
        };
        let mut i = e.pos;
        while i < lt {
            match (e.state, bytes.get(i..i + 4)) {
                (Escape::None, Some(b"<!--")) => {
                    e.state = Escape::Escaped;
                    i += 4;
                    continue;
                }
                (Escape::Escaped | Escape::Double, Some(w)) if w.starts_with(b"-->") => {
                    e.state = Escape::None;
                    i += 3;
                    continue;
                }
                (Escape::Escaped, _) if tag_at(i, b"<script") => e.state = Escape::Double,
                (Escape::Double, _) if tag_at(i, b"</script") => e.state = Escape::Escaped,
                _ => {}
            }
            i += 1;
        }
        let double = e.state == Escape::Double;
        if double {
            e.state = Escape::Escaped;
        }
        e.pos = lt + 2;
        double
    }

    proptest::proptest! {
        /// Script bodies made of the pieces that move the escape states
        /// (and near misses) give the same answer at every `</`, and leave
        /// the same state, as the byte-at-a-time scan.
        #[test]
        fn the_escape_scan_agrees_with_the_bytewise_one(
            pieces in proptest::collection::vec(0usize..12, 0..40)
        ) {
            const PIECES: [&str; 12] = [
                "<!--", "-->", "<script>", "</script>", "<SCRIPT ", "</script/", "-", "--",
                "<", "x", " <scrip", "<!-",
            ];
            let body: String = pieces.iter().map(|&p| PIECES[p]).collect();
            let bytes = body.as_bytes();
            let (mut fast, mut slow) = (ScriptEscapes::new(0), ScriptEscapes::new(0));
            for lt in memmem::find_iter(bytes, b"</") {
                if lt < fast.pos {
                    continue;
                }
                let a = fast.double_escaped_at(bytes, lt);
                let b = double_escaped_bytewise(&mut slow, bytes, lt);
                proptest::prop_assert_eq!(a, b, "at {} of {:?}", lt, body);
                proptest::prop_assert!(fast.state == slow.state && fast.pos == slow.pos);
            }
        }
    }

    #[test]
    fn script_is_raw_and_comments_skipped() {
        let t = toks("<script>if (a<b) { x = '</div>'; }</script ><!-- <p>no</p> -->after");
        assert_eq!(t[1], Token::Raw("if (a<b) { x = '</div>'; }"));
        assert_eq!(t[2], Token::End { name: "script" });
        assert_eq!(t[3], Token::Text("after"));
        assert_eq!(t.len(), 4);
    }

    #[test]
    fn stray_lt_is_text_and_eof_in_tag_dropped() {
        assert_eq!(toks("a < b"), vec![Token::Text("a "), Token::Text("< b")]);
        assert_eq!(toks("x<div class=\"unterminated"), vec![Token::Text("x")]);
    }

    /// Each start tag with the attributes the tokenizer parsed for it.
    fn starts_with_attributes(s: &str) -> Vec<(Token<'_>, Vec<Attr<'_>>)> {
        let mut tokens = Tokenizer::new(s);
        let mut out = Vec::new();
        while let Some(tok) = tokens.next() {
            if matches!(tok, Token::Start { .. }) {
                out.push((tok, tokens.attributes().to_vec()));
            } else {
                assert!(tokens.attributes().is_empty(), "{tok:?} has attributes");
            }
        }
        out
    }

    #[test]
    fn attributes_come_with_their_start_tag() {
        let t = starts_with_attributes(
            r#"<p class="a b" hidden>x</p id=no><img src=i.png alt='a>b'/><br>"#,
        );
        let a: Vec<_> = t.iter().map(|(_, a)| a.clone()).collect();
        assert_eq!(
            a,
            vec![
                vec![(&b"class"[..], &b"a b"[..]), (&b"hidden"[..], &b""[..])],
                vec![(&b"src"[..], &b"i.png"[..]), (&b"alt"[..], &b"a>b"[..])],
                vec![],
            ]
        );
        assert!(matches!(
            t[1].0,
            Token::Start {
                self_closing: true,
                ..
            }
        ));
    }

    #[test]
    fn attributes_past_the_cap_are_dropped_and_the_tag_still_ends() {
        let html = format!("<a{} c=d>text</a>", " b".repeat(MAX_ATTRIBUTES + 10));
        let mut tokens = Tokenizer::new(&html);
        assert!(matches!(
            tokens.next(),
            Some(Token::Start { name: "a", .. })
        ));
        assert_eq!(tokens.attributes().len(), MAX_ATTRIBUTES);
        assert!(tokens.attributes().iter().all(|&(k, _)| k == b"b"));
        assert_eq!(tokens.next(), Some(Token::Text("text")));
    }

    /// WHATWG "attribute value (unquoted) state": a quote there is part of
    /// the value, and `>` ends the tag even after it.
    #[test]
    fn a_quote_inside_an_unquoted_value_does_not_hide_the_end() {
        let t = toks(r#"<a b=x="y>z">w"#);
        assert_eq!(t[1], Token::Text(r#"z">w"#));
        let t = starts_with_attributes(r#"<a b=x="y>z">w"#);
        assert_eq!(t[0].1, vec![(&b"b"[..], &br#"x="y"#[..])]);
    }

    proptest::proptest! {
        /// The attributes parsed with the tag are what [`Attrs`] yields
        /// for its raw attribute text, on tag soup.
        #[test]
        fn attributes_match_a_reparse_of_the_raw_text(
            s in r#"(<[ab]|[ =/>'"]|x|</a|\n){0,40}"#,
        ) {
            for (tok, parsed) in starts_with_attributes(&s) {
                let Token::Start { attrs, .. } = tok else { unreachable!() };
                proptest::prop_assert_eq!(parsed, Attrs::new(attrs).collect::<Vec<_>>());
                proptest::prop_assert!(!attrs.contains(&b'>') || attrs.contains(&b'"') || attrs.contains(&b'\''));
            }
        }
    }

    #[test]
    fn unquoted_and_valueless_attrs() {
        let a: Vec<_> = Attrs::new(b" hidden id=main data-x = 'y' /").collect();
        assert_eq!(
            a,
            vec![
                (&b"hidden"[..], &b""[..]),
                (&b"id"[..], &b"main"[..]),
                (&b"data-x"[..], &b"y"[..])
            ]
        );
    }
}
