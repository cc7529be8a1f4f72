//! The texts behind the report's side-by-side view: `DIR/texts.jsonl`.
//!
//! During a run every page's extracted blocks are spooled to an anonymous
//! temporary file in the output directory, in a binary form that needs no
//! escaping (only an offset and a length per page stay in memory: 12 bytes
//! a page). When the run finishes, the blocks
//! of the pages the report shows are copied out: for every cluster of two
//! or more pages, its representative and its first [`MAX_MEMBERS`] other
//! members. Each page's text is capped at [`MAX_TEXT_BYTES`] (later blocks
//! are dropped and the page is marked `truncated`). The spool is removed by
//! the OS when it is closed, also after a crash.
//!
//! `texts.jsonl`: one JSON object per page, in processing order:
//! `{"doc_id", "url", "truncated", "blocks": [{"text", "tag", "main",
//! "role"}]}`; `main` is false for blocks the extractor classified as
//! boilerplate, `role` says what the block counted as when the page was
//! judged (see [`TextBlock::role`]).

use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::record::PageRecord;
use neardup::{Error, Result};

/// Members (besides the representative) whose text is kept per cluster.
pub const MAX_MEMBERS: usize = 20;
/// Text kept per page, in bytes of UTF-8.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

/// One block of a page's text in `texts.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextBlock {
    /// The block's text.
    pub text: String,
    /// Its HTML tag (`p`, `li`, `h2`...).
    pub tag: String,
    /// Main content (true) or boilerplate (false).
    pub main: bool,
    /// What it counted as when the page was judged: `template` (repeated
    /// on many pages of its site, never compared), `chrome` (outside the
    /// page's article) or `compared`; absent when not known (a block
    /// without words, a page matched by redirect or canonical, an older
    /// output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<neardup::Role>,
}

/// One page's line in `texts.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PageText {
    /// The page's key.
    pub doc_id: String,
    /// Its URL.
    pub url: String,
    /// Whether blocks were dropped to stay under [`MAX_TEXT_BYTES`].
    pub truncated: bool,
    /// Blocks in document order.
    pub blocks: Vec<TextBlock>,
}

/// [`PageText`] borrowed from a page record: the spool serializes every
/// page, so its blocks are written without copying their text. Same
/// fields, same order, same JSON.
#[derive(Serialize)]
struct PageTextRef<'a> {
    doc_id: &'a str,
    url: &'a str,
    truncated: bool,
    blocks: Vec<TextBlockRef<'a>>,
}

/// [`TextBlock`] borrowed.
#[derive(Clone, Copy, Serialize)]
struct TextBlockRef<'a> {
    text: &'a str,
    tag: &'a str,
    main: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<neardup::Role>,
}

impl<'a> PageTextRef<'a> {
    /// The page's blocks in order, cut at [`MAX_TEXT_BYTES`] of text (on a
    /// character boundary; the page is then `truncated`).
    fn of(page: &'a PageRecord) -> PageTextRef<'a> {
        let mut left = MAX_TEXT_BYTES;
        let mut truncated = false;
        let mut blocks = Vec::with_capacity(page.blocks.len());
        for (i, b) in page.blocks.iter().enumerate() {
            let role = page.roles.get(i).copied().flatten();
            let mut text = b.text.as_str();
            if text.len() > left {
                truncated = true;
                text = text
                    .get(..floor_char_boundary(text, left))
                    .unwrap_or_default();
            }
            left -= text.len();
            if !text.is_empty() || !truncated {
                blocks.push(TextBlockRef {
                    text,
                    tag: b.tag,
                    main: b.is_main,
                    role,
                });
            }
            if truncated {
                break;
            }
        }
        PageTextRef {
            doc_id: &page.key,
            url: &page.url,
            truncated,
            blocks,
        }
    }
}

impl PageTextRef<'_> {
    /// Appends the page's JSON: what `serde_json::to_writer` writes for
    /// it, with the strings escaped by [`crate::json::string`] (serde_json
    /// escaping the blocks' text was 2.2% of `dedup`'s instructions).
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        out.extend_from_slice(b"{\"doc_id\":");
        crate::json::string(out, self.doc_id);
        out.extend_from_slice(b",\"url\":");
        crate::json::string(out, self.url);
        out.extend_from_slice(if self.truncated {
            b",\"truncated\":true,\"blocks\":["
        } else {
            b",\"truncated\":false,\"blocks\":["
        });
        for (i, b) in self.blocks.iter().enumerate() {
            out.extend_from_slice(if i == 0 {
                b"{\"text\":"
            } else {
                b",{\"text\":"
            });
            crate::json::string(out, b.text);
            out.extend_from_slice(b",\"tag\":");
            crate::json::string(out, b.tag);
            out.extend_from_slice(if b.main {
                b",\"main\":true"
            } else {
                b",\"main\":false"
            });
            if let Some(role) = b.role {
                out.extend_from_slice(b",\"role\":");
                serde_json::to_writer(&mut *out, &role)?;
            }
            out.push(b'}');
        }
        out.extend_from_slice(b"]}");
        Ok(())
    }
}

/// The spool's record of a page: each string as a little-endian `u32`
/// length and its bytes; `truncated` and `main` one byte each; a block's
/// role one byte (0 none, then [`ROLES`] in order).
impl<'a> PageTextRef<'a> {
    fn encode(&self, out: &mut Vec<u8>) {
        put_str(out, self.doc_id);
        put_str(out, self.url);
        out.push(u8::from(self.truncated));
        out.extend_from_slice(&(self.blocks.len() as u32).to_le_bytes());
        for b in &self.blocks {
            put_str(out, b.text);
            put_str(out, b.tag);
            out.push(u8::from(b.main));
            let role = b
                .role
                .and_then(|r| ROLES.iter().position(|&x| x == r))
                .map_or(0, |i| i as u8 + 1);
            out.push(role);
        }
    }

    /// The page [`PageTextRef::encode`] wrote into `bytes`, or `None` if
    /// they are not one whole record.
    fn decode(bytes: &'a [u8]) -> Option<PageTextRef<'a>> {
        let mut r = bytes;
        let doc_id = take_str(&mut r)?;
        let url = take_str(&mut r)?;
        let truncated = take_bool(&mut r)?;
        let n = u32::from_le_bytes(take(&mut r, 4)?.try_into().ok()?) as usize;
        // Each block takes at least 10 bytes: no allocation past the data.
        let mut blocks = Vec::with_capacity(n.min(r.len() / 10));
        for _ in 0..n {
            let text = take_str(&mut r)?;
            let tag = take_str(&mut r)?;
            let main = take_bool(&mut r)?;
            let role = match *take(&mut r, 1)?.first()? {
                0 => None,
                i => Some(*ROLES.get(usize::from(i) - 1)?),
            };
            blocks.push(TextBlockRef {
                text,
                tag,
                main,
                role,
            });
        }
        r.is_empty().then_some(PageTextRef {
            doc_id,
            url,
            truncated,
            blocks,
        })
    }
}

/// Block roles by their spool code less one.
const ROLES: [neardup::Role; 3] = [
    neardup::Role::Template,
    neardup::Role::Chrome,
    neardup::Role::Compared,
];

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn take<'a>(r: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    let (head, rest) = r.split_at_checked(n)?;
    *r = rest;
    Some(head)
}

fn take_bool(r: &mut &[u8]) -> Option<bool> {
    match take(r, 1)? {
        [0] => Some(false),
        [1] => Some(true),
        _ => None,
    }
}

fn take_str<'a>(r: &mut &'a [u8]) -> Option<&'a str> {
    let n = u32::from_le_bytes(take(r, 4)?.try_into().ok()?) as usize;
    // simdutf8's vector check: the standard library's was 0.5% of
    // `dedup`, re-checking every spooled block as it is written out.
    simdutf8::basic::from_utf8(take(r, n)?).ok()
}

/// Spools every page's blocks during a run; see the module doc.
#[derive(Debug)]
pub struct EvidenceSpool {
    /// Anonymous file (already unlinked), so nothing is left behind.
    spool: BufWriter<File>,
    /// Where the spool lives, for error messages.
    dir: PathBuf,
    /// `(offset, length)` of each page's line, by position.
    spans: Vec<(u64, u32)>,
    written: u64,
    /// Position of the first spooled page: a resumed crawl spools only the
    /// pages it decides itself.
    first: usize,
    /// One page's record, reused.
    buf: Vec<u8>,
}

impl EvidenceSpool {
    /// File name of the output.
    pub const FILE: &'static str = "texts.jsonl";

    /// Starts a spool in `dir` (same filesystem as the output).
    ///
    /// # Errors
    /// If the temporary file cannot be created.
    pub fn create(dir: &Path) -> Result<EvidenceSpool> {
        let file = tempfile::tempfile_in(dir).map_err(|e| Error::io(dir, e))?;
        Ok(EvidenceSpool {
            spool: BufWriter::new(file),
            dir: dir.to_owned(),
            spans: Vec::new(),
            written: 0,
            first: 0,
            buf: Vec::new(),
        })
    }

    /// The same spool for a run whose first page has position `first`
    /// (a resumed crawl); earlier pages have no text in the output.
    pub fn starting_at(mut self, first: usize) -> EvidenceSpool {
        self.first = first;
        self
    }

    /// Spools one page (pages come in processing order).
    ///
    /// # Errors
    /// Write errors on the spool.
    pub fn page(&mut self, page: &PageRecord) -> Result<()> {
        // The spool holds every page, the output only the clustered ones:
        // pages are spooled in a binary form (no JSON escaping) and turned
        // into JSON lines when they are written out.
        self.buf.clear();
        PageTextRef::of(page).encode(&mut self.buf);
        self.spool.write_all(&self.buf).map_err(|e| self.err(e))?;
        // A record is at most 64 KB of text plus its framing.
        let len = u32::try_from(self.buf.len()).unwrap_or(u32::MAX);
        self.spans.push((self.written, len));
        self.written += self.buf.len() as u64;
        Ok(())
    }

    /// Writes `dir/texts.jsonl` (atomically) with the pages the report
    /// shows of `clusters`: [`needed_positions`] of their
    /// [`neardup::assign`] roots.
    ///
    /// # Errors
    /// Read errors of the spool, write errors of the file.
    pub fn write_for_clusters(&mut self, dir: &Path, clusters: &crate::ClusterSink) -> Result<()> {
        let roots = neardup::assign(clusters.members());
        let needed = needed_positions(&roots);
        let mut file = crate::AtomicFile::create(&dir.join(Self::FILE))?;
        self.write_selected(&needed, &mut file)?;
        file.commit()
    }

    /// Writes the lines of the pages at `positions` (sorted, deduplicated
    /// by the caller or not: both are handled) to `out`.
    ///
    /// # Errors
    /// Read errors on the spool, write errors on `out`.
    pub fn write_selected(&mut self, positions: &[usize], out: &mut dyn Write) -> Result<()> {
        self.spool.flush().map_err(|e| self.err(e))?;
        let mut sorted = positions.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let file = self.spool.get_mut();
        let mut buf = Vec::new();
        let mut line = Vec::new();
        for p in sorted {
            let Some(&(offset, len)) = p.checked_sub(self.first).and_then(|i| self.spans.get(i))
            else {
                continue;
            };
            file.seek(SeekFrom::Start(offset))
                .map_err(|e| Error::io(&self.dir, e))?;
            buf.resize(len as usize, 0);
            file.read_exact(&mut buf)
                .map_err(|e| Error::io(&self.dir, e))?;
            // The spool is this process's own anonymous file: a record
            // that does not decode means the disk returned other bytes.
            let page = PageTextRef::decode(&buf).ok_or_else(|| {
                spool_error(
                    &self.dir,
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("spooled page at offset {offset} does not decode"),
                    ),
                )
            })?;
            line.clear();
            page.write_json(&mut line)
                .map_err(|e| spool_error(&self.dir, e.into()))?;
            line.push(b'\n');
            out.write_all(&line)
                .map_err(|e| Error::io(self.dir.join(Self::FILE), e))?;
        }
        // Later pages append at the end again.
        file.seek(SeekFrom::End(0))
            .map_err(|e| Error::io(&self.dir, e))?;
        Ok(())
    }

    fn err(&self, e: std::io::Error) -> Error {
        spool_error(&self.dir, e)
    }
}

/// An I/O error on the spool of the output directory `dir` (a field of
/// its own, so it can be named while the spool file is borrowed).
fn spool_error(dir: &Path, e: std::io::Error) -> Error {
    Error::io(dir.join("<texts spool>"), e)
}

/// Drops the text of `blocks` that [`EvidenceSpool::page`] would not keep
/// (past [`MAX_TEXT_BYTES`]), so a crawler holding a page until its turn
/// to be decided does not hold a multi-megabyte page's text. The spooled
/// line is the same with or without trimming: the block that crosses the
/// cap is kept, cut just past the cap (the spool cuts it and marks the
/// page truncated), later blocks are dropped.
pub fn trim_blocks(blocks: &mut Vec<neardup_html::Block>) {
    let mut left = MAX_TEXT_BYTES;
    for (i, b) in blocks.iter_mut().enumerate() {
        if b.text.len() > left {
            // Keep one more character than fits, so the spool still sees
            // a crossing block.
            let mut cut = left + 1;
            while cut < b.text.len() && !b.text.is_char_boundary(cut) {
                cut += 1;
            }
            b.text.truncate(cut);
            b.text.shrink_to_fit();
            blocks.truncate(i + 1);
            blocks.shrink_to_fit();
            return;
        }
        left -= b.text.len();
    }
}

/// Positions whose text the report needs, given each page's cluster root
/// (see [`neardup::assign`]): the representative and up to
/// [`MAX_MEMBERS`] other members of every cluster of two or more pages.
pub fn needed_positions(roots: &[usize]) -> Vec<usize> {
    let mut taken = vec![0usize; roots.len()];
    let mut out = Vec::new();
    for (i, &r) in roots.iter().enumerate() {
        if r != i {
            let Some(t) = taken.get_mut(r) else { continue };
            if *t == 0 {
                out.push(r);
            }
            if *t < MAX_MEMBERS {
                *t += 1;
                out.push(i);
            }
        }
    }
    out.sort_unstable();
    out
}

/// Reads `texts.jsonl`; a malformed line is an error naming its number.
///
/// # Errors
/// Read errors and malformed lines.
pub fn read_texts(path: &Path) -> Result<Vec<PageText>> {
    use std::io::BufRead as _;
    // Line by line: the file can be tens of megabytes.
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut out = Vec::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| Error::io(path, e))?;
        let line = line.as_str();
        if line.trim().is_empty() {
            continue;
        }
        let page: PageText = serde_json::from_str(line).map_err(|e| Error::Input {
            path: path.to_owned(),
            message: format!("line {}: {e}", n + 1),
        })?;
        out.push(page);
    }
    Ok(out)
}

/// One line of `texts.jsonl` as written: its page's key, and the line
/// itself, checked to be a [`PageText`].
#[derive(Debug)]
pub struct PageTextLine {
    /// The page's key (`doc_id`).
    pub doc_id: String,
    /// The line's JSON, as in the file.
    pub json: Box<serde_json::value::RawValue>,
}

/// [`PageText`]'s shape, borrowing its strings where the JSON has no
/// escapes: [`read_text_lines`] checks a line with it without copying the
/// texts. It must accept exactly what [`PageText`] accepts, with the same
/// messages (so the same names: serde's messages name the Rust type); a
/// test compares the two on valid and invalid lines.
mod check {
    use serde::Deserialize;
    use std::borrow::Cow;

    #[derive(Deserialize)]
    pub(super) struct PageText<'a> {
        #[serde(borrow)]
        pub(super) doc_id: Cow<'a, str>,
        #[serde(borrow, rename = "url")]
        _url: Cow<'a, str>,
        #[serde(rename = "truncated")]
        _truncated: bool,
        #[serde(borrow, rename = "blocks")]
        _blocks: Vec<TextBlock<'a>>,
    }

    #[derive(Deserialize)]
    struct TextBlock<'a> {
        #[serde(borrow, rename = "text")]
        _text: Cow<'a, str>,
        #[serde(borrow, rename = "tag")]
        _tag: Cow<'a, str>,
        #[serde(rename = "main")]
        _main: bool,
        #[serde(default, rename = "role")]
        _role: Option<neardup::Role>,
    }
}

/// Reads `texts.jsonl` as its lines: each is checked as [`read_texts`]
/// checks it (the same errors), and kept as written, so that a report
/// embedding the texts copies them instead of serializing them again
/// (most of a large report's bytes are these texts). The lines are read
/// in turn and checked on one thread per core, a run of lines each; the
/// result, and the error (the first bad line's), do not depend on how
/// many.
///
/// # Errors
/// A read error, or a line that is not a [`PageText`] (its number given).
pub fn read_text_lines(path: &Path) -> Result<Vec<PageTextLine>> {
    use std::io::BufRead as _;
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut lines = Vec::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| Error::io(path, e))?;
        if !line.trim().is_empty() {
            lines.push((n + 1, line));
        }
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_thread = lines.len().div_ceil(threads).max(1);
    let mut runs: Vec<Vec<(usize, String)>> = Vec::new();
    while lines.len() > per_thread {
        let rest = lines.split_off(per_thread);
        runs.push(std::mem::replace(&mut lines, rest));
    }
    runs.push(lines);
    let check_run = |run: Vec<(usize, String)>| -> Result<Vec<PageTextLine>> {
        run.into_iter()
            .map(|(n, line)| check_text_line(path, n, line))
            .collect()
    };
    let checked: Vec<Result<Vec<PageTextLine>>> = std::thread::scope(|scope| {
        let mut runs = runs.into_iter();
        let first = runs.next();
        let others: Vec<_> = runs
            .map(|run| scope.spawn(move || check_run(run)))
            .collect();
        let mut checked = vec![first.map_or_else(|| Ok(Vec::new()), check_run)];
        checked.extend(others.into_iter().map(|h| {
            h.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        }));
        checked
    });
    let mut out = Vec::new();
    for run in checked {
        out.extend(run?);
    }
    Ok(out)
}

/// Line `n` of `texts.jsonl` at `path`, checked to be a [`PageText`].
fn check_text_line(path: &Path, n: usize, line: String) -> Result<PageTextLine> {
    let bad = |e: serde_json::Error| Error::Input {
        path: path.to_owned(),
        message: format!("line {n}: {e}"),
    };
    let page: check::PageText<'_> = serde_json::from_str(&line).map_err(bad)?;
    let doc_id = page.doc_id.into_owned();
    let json = serde_json::value::RawValue::from_string(line).map_err(bad)?;
    Ok(PageTextLine { doc_id, json })
}

/// The largest char boundary `<= at`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut i = at.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spooled(blocks: Vec<neardup_html::Block>) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let mut spool = EvidenceSpool::create(dir.path()).unwrap();
        spool
            .page(&PageRecord {
                position: 0,
                key: "k".into(),
                url: "u".into(),
                site: "s".into(),
                bytes: 0,
                title: String::new(),
                verdict: neardup::Verdict {
                    kind: neardup::VerdictKind::Unique,
                    contained_in: None,
                    matched: None,
                    indexed_as: None,
                    stored_as: None,
                    redirect: None,
                    warnings: Vec::new(),
                },
                of: None,
                roles: vec![Some(neardup::Role::Compared); blocks.len()],
                blocks,
            })
            .unwrap();
        let mut out = Vec::new();
        spool.write_selected(&[0], &mut out).unwrap();
        out
    }

    #[test]
    fn text_lines_are_checked_as_page_texts_and_kept_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(EvidenceSpool::FILE);
        let block = |text: &str| neardup_html::Block {
            text: text.into(),
            tag: "p",
            link_density: 0.0,
            is_main: true,
        };
        let line = spooled(vec![block("a \"quoted\" <b> é"), block("two")]);
        let line = String::from_utf8(line).unwrap();
        // A blank line is skipped, as `read_texts` skips it.
        std::fs::write(&path, format!("{line}\n{line}")).unwrap();
        let lines = read_text_lines(&path).unwrap();
        let pages = read_texts(&path).unwrap();
        assert_eq!(lines.len(), 2);
        for (l, p) in lines.iter().zip(&pages) {
            assert_eq!(l.doc_id, p.doc_id);
            // Embedding the line writes what serializing the page would.
            assert_eq!(l.json.get(), line.trim_end());
            assert_eq!(l.json.get(), serde_json::to_string(p).unwrap());
        }
        // A line of JSON that is not a page text is refused with its
        // number, as by `read_texts`.
        for bad in [
            r#"{"doc_id":"k","url":"u","truncated":false}"#,
            r#"{"doc_id":"k","url":"u","truncated":0,"blocks":[]}"#,
            r#"{"doc_id":"k","url":"u","truncated":false,"blocks":[{"text":"t","tag":"p"}]}"#,
            r#"{"doc_id":"k","url":"u","truncated":false,"blocks":[{"text":"t","tag":"p","main":true,"role":"x"}]}"#,
            r#"{"doc_id":"k","url":"u","truncated":false,"blocks":[]} x"#,
            "{\"doc_id\":",
            "[]",
        ] {
            std::fs::write(&path, format!("{line}{bad}\n")).unwrap();
            let e = read_text_lines(&path).unwrap_err().to_string();
            assert!(e.contains("line 2"), "{e}");
            assert_eq!(e, read_texts(&path).unwrap_err().to_string());
        }
        // Of several bad lines (checked on different threads), the first.
        let lines = format!("{line}[]\n{line}[]\n{line}");
        std::fs::write(&path, lines).unwrap();
        let e = read_text_lines(&path).unwrap_err().to_string();
        assert!(e.contains("line 2:"), "{e}");
    }

    #[test]
    fn trimmed_blocks_spool_the_same_line() {
        let block = |text: String| neardup_html::Block {
            text,
            tag: "p",
            link_density: 0.0,
            is_main: true,
        };
        // Under the cap, just over it inside a multibyte character, and
        // far over it with later blocks.
        let cases = vec![
            vec![block("short".into()), block("text".into())],
            vec![block("a".repeat(MAX_TEXT_BYTES - 1)), block("éé".into())],
            vec![
                block("b".repeat(1000)),
                block("€".repeat(MAX_TEXT_BYTES)),
                block("later".into()),
            ],
        ];
        for blocks in cases {
            let mut trimmed = blocks.clone();
            trim_blocks(&mut trimmed);
            let kept: usize = trimmed.iter().map(|b| b.text.len()).sum();
            assert!(kept <= MAX_TEXT_BYTES + 4, "{kept}");
            assert_eq!(spooled(trimmed), spooled(blocks));
        }
    }

    #[test]
    fn spooled_line_is_a_page_text_cut_at_the_cap() {
        let block = |text: String| neardup_html::Block {
            text,
            tag: "li",
            link_density: 0.0,
            is_main: false,
        };
        let text_block = |text: String| TextBlock {
            text,
            tag: "li".into(),
            main: false,
            role: Some(neardup::Role::Compared),
        };
        let line = |blocks| -> PageText {
            let out = spooled(blocks);
            serde_json::from_slice(out.strip_suffix(b"\n").unwrap()).unwrap()
        };
        let page = |blocks, truncated| PageText {
            doc_id: "k".into(),
            url: "u".into(),
            truncated,
            blocks,
        };
        // Whole; an empty block kept; cut inside a later block on a
        // character boundary (each euro sign is 3 bytes), the rest dropped.
        assert_eq!(
            line(vec![block("one \"two\"".into()), block(String::new())]),
            page(
                vec![text_block("one \"two\"".into()), text_block(String::new())],
                false
            )
        );
        let cut = (MAX_TEXT_BYTES - 1000) / 3 * 3;
        assert_eq!(
            line(vec![
                block("b".repeat(1000)),
                block("€".repeat(MAX_TEXT_BYTES)),
                block("later".into()),
            ]),
            page(
                vec![
                    text_block("b".repeat(1000)),
                    text_block("€".repeat(cut / 3)),
                ],
                true
            )
        );
        // A cut that leaves nothing of the block drops it.
        assert_eq!(
            line(vec![
                block("a".repeat(MAX_TEXT_BYTES - 1)),
                block("éé".into())
            ]),
            page(vec![text_block("a".repeat(MAX_TEXT_BYTES - 1))], true)
        );
    }

    #[test]
    fn a_spool_record_decodes_to_its_page_and_a_cut_one_to_nothing() {
        let roles = [
            None,
            Some(neardup::Role::Template),
            Some(neardup::Role::Chrome),
            Some(neardup::Role::Compared),
        ];
        let blocks: Vec<TextBlockRef<'_>> = roles
            .iter()
            .enumerate()
            .map(|(i, &role)| TextBlockRef {
                text: ["", "é\"x\"", "line\nbreak", "plain"][i],
                tag: ["p", "li", "h2", "pre"][i],
                main: i % 2 == 0,
                role,
            })
            .collect();
        let page = PageTextRef {
            doc_id: "id",
            url: "https://example.com/a",
            truncated: true,
            blocks,
        };
        let mut bytes = Vec::new();
        page.encode(&mut bytes);
        let back = PageTextRef::decode(&bytes).unwrap();
        assert_eq!(
            serde_json::to_string(&back).unwrap(),
            serde_json::to_string(&page).unwrap()
        );
        // The hand-written line is serde_json's, with and without blocks
        // and truncation.
        for (truncated, n) in [(true, 4), (false, 1), (false, 0)] {
            let page = PageTextRef {
                doc_id: "id\\1",
                url: "https://example.com/a?q=\"x\"",
                truncated,
                blocks: back.blocks[..n].to_vec(),
            };
            let mut line = Vec::new();
            page.write_json(&mut line).unwrap();
            assert_eq!(
                String::from_utf8(line).unwrap(),
                serde_json::to_string(&page).unwrap()
            );
        }
        for cut in 0..bytes.len() {
            assert!(PageTextRef::decode(&bytes[..cut]).is_none(), "{cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(PageTextRef::decode(&longer).is_none());
        // A role code past the known roles is refused, not mapped.
        let last = bytes.len() - 1;
        bytes[last] = 4;
        assert!(PageTextRef::decode(&bytes).is_none());
    }

    #[test]
    fn needed_positions_cap_members_and_skip_singletons() {
        // 0 alone; 1 is the root of 2..=25 (24 members).
        let mut roots = vec![0, 1];
        roots.extend(std::iter::repeat_n(1, 24));
        let got = needed_positions(&roots);
        assert_eq!(got.first(), Some(&1));
        assert!(!got.contains(&0));
        assert_eq!(got.len(), 1 + MAX_MEMBERS);
        assert_eq!(got.last(), Some(&(1 + MAX_MEMBERS)));
    }

    #[test]
    fn cut_is_on_a_char_boundary() {
        assert_eq!(floor_char_boundary("aé", 2), 1);
        assert_eq!(floor_char_boundary("aé", 3), 3);
    }
}
