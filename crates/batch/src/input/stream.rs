//! Byte-level plumbing shared by the readers: a decompression layer that
//! survives corrupt gzip members, and a small buffered stream with bounded
//! line reads and offsets.
//!
//! We keep our own buffer instead of `std::io::BufReader` because the record
//! parsers need to peek a few bytes ahead (format sniffing, record trailers)
//! and need the exact stream offset of every record for warnings.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};

/// gzip magic bytes (RFC 1952).
pub(crate) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// LZ4 frame magic number, little endian (used by resiliparse's `.warc.lz4`).
pub(crate) const LZ4_MAGIC: [u8; 4] = [0x04, 0x22, 0x4d, 0x18];

/// The compression detected from a file's first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compression {
    /// Not compressed.
    None,
    /// One or more gzip members.
    Gzip,
    /// One or more LZ4 frames.
    Lz4,
}

impl Compression {
    /// Detects compression from magic bytes (never from the file name: a
    /// `.warc` file may well be gzipped and vice versa).
    pub(crate) fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&GZIP_MAGIC) {
            Compression::Gzip
        } else if head.starts_with(&LZ4_MAGIC) {
            Compression::Lz4
        } else {
            Compression::None
        }
    }
}

/// A `BufRead` that counts how many bytes were consumed, so that we know the
/// compressed offset at which each gzip member starts.
struct Counting<R> {
    inner: R,
    consumed: u64,
}

impl<R: BufRead> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.consumed += amt as u64;
        self.inner.consume(amt);
    }
}

/// The raw file, buffered.
type Raw = io::BufReader<Box<dyn Read + Send>>;
type Inner = Counting<Raw>;

enum GzState {
    /// Between members (or before the first one).
    Between(Inner),
    /// Inside a member.
    Member(flate2::bufread::GzDecoder<Inner>),
    /// Only while switching states.
    Poisoned,
}

/// Most member offsets we remember for locating records (older ones are
/// dropped; they only serve warnings).
const MAX_MEMBER_LOG: usize = 4096;

/// Reads concatenated gzip members one by one (like flate2's
/// `MultiGzDecoder`), but a corrupt or truncated member does not end the
/// stream: `read` returns one `InvalidData` error naming the member, then
/// continues with the next gzip header found after it. Record parsers turn
/// that error into a warning and resynchronize on the next record.
pub(crate) struct GzMembers {
    state: GzState,
    /// Decompressed bytes produced so far.
    out_pos: u64,
    /// (decompressed offset, compressed offset) of recent member starts.
    members: VecDeque<(u64, u64)>,
    /// Compressed offset of the member being decoded.
    member_start: u64,
    /// After an error, skip at least one byte before looking for the next
    /// gzip header, so that a bad header cannot be retried forever.
    skip_one: bool,
}

impl GzMembers {
    fn new(inner: io::BufReader<Box<dyn Read + Send>>) -> GzMembers {
        GzMembers {
            state: GzState::Between(Counting { inner, consumed: 0 }),
            out_pos: 0,
            members: VecDeque::new(),
            member_start: 0,
            skip_one: false,
        }
    }

    /// Compressed offset of the gzip member holding decompressed offset `pos`
    /// (for warnings). Forgets members that start before it: callers ask in
    /// increasing order.
    pub(crate) fn member_at(&mut self, pos: u64) -> Option<u64> {
        while self.members.len() > 1 && self.members.get(1).is_some_and(|m| m.0 <= pos) {
            self.members.pop_front();
        }
        self.members.front().filter(|m| m.0 <= pos).map(|m| m.1)
    }

    /// Skips to the next gzip header. Returns the number of bytes skipped
    /// and whether a header candidate was found (false: end of input).
    fn seek_magic(inner: &mut Inner, skip_one: bool) -> io::Result<(u64, bool)> {
        let mut skipped = 0u64;
        if skip_one {
            let n = inner.fill_buf()?.len().min(1);
            inner.consume(n);
            skipped += n as u64;
        }
        loop {
            let buf = inner.fill_buf()?;
            if buf.is_empty() {
                return Ok((skipped, false));
            }
            // Look for 1f 8b; a match on the last byte of the buffer is
            // checked again after the next fill.
            match memchr::memchr(GZIP_MAGIC[0], buf) {
                Some(i) if i + 1 < buf.len() => {
                    // The third header byte is the method, always 8
                    // (deflate): checking it makes false matches inside
                    // compressed data 256 times rarer.
                    if buf.get(i + 1) == Some(&GZIP_MAGIC[1])
                        && buf.get(i + 2).is_none_or(|&m| m == 8)
                    {
                        inner.consume(i);
                        return Ok((skipped + i as u64, true));
                    }
                    inner.consume(i + 1);
                    skipped += i as u64 + 1;
                }
                Some(i) => {
                    // 1f at the very end of the buffer: BufReader cannot
                    // show the next byte without consuming this one, so
                    // treat it as a candidate; the gzip decoder validates
                    // the header and we skip on if it is not one.
                    inner.consume(i);
                    return Ok((skipped + i as u64, true));
                }
                None => {
                    let n = buf.len();
                    inner.consume(n);
                    skipped += n as u64;
                }
            }
        }
    }
}

impl Read for GzMembers {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match std::mem::replace(&mut self.state, GzState::Poisoned) {
                GzState::Poisoned => return Ok(0),
                GzState::Between(mut inner) => {
                    let at = inner.consumed;
                    let skip_one = std::mem::take(&mut self.skip_one);
                    let (skipped, found) = match Self::seek_magic(&mut inner, skip_one) {
                        Ok(r) => r,
                        Err(e) => {
                            // A read error from the file itself: give up.
                            return Err(e);
                        }
                    };
                    let here = inner.consumed;
                    if found {
                        self.member_start = here;
                        if self.members.len() >= MAX_MEMBER_LOG {
                            self.members.pop_front();
                        }
                        self.members.push_back((self.out_pos, here));
                        self.state = GzState::Member(flate2::bufread::GzDecoder::new(inner));
                    } else {
                        self.state = GzState::Between(inner);
                    }
                    if skipped > 0 && !skip_one {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!("{skipped} bytes of non-gzip data at compressed offset {at} skipped"),
                        ));
                    }
                    if !found {
                        return Ok(0);
                    }
                }
                GzState::Member(mut dec) => match dec.read(buf) {
                    Ok(0) => self.state = GzState::Between(dec.into_inner()),
                    Ok(n) => {
                        self.out_pos += n as u64;
                        self.state = GzState::Member(dec);
                        return Ok(n);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                        self.state = GzState::Member(dec);
                    }
                    Err(e) => {
                        self.state = GzState::Between(dec.into_inner());
                        self.skip_one = true;
                        let what = if e.kind() == io::ErrorKind::UnexpectedEof {
                            "truncated"
                        } else {
                            "corrupt"
                        };
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!(
                                "{what} gzip member at compressed offset {}: {e}",
                                self.member_start
                            ),
                        ));
                    }
                },
            }
        }
    }
}

/// Ends the stream after the first error: for sources that cannot
/// resynchronize (a failing disk, a corrupt LZ4 frame), so that a caller
/// retrying after an error can never loop.
struct Fuse<R> {
    inner: R,
    failed: bool,
}

impl<R: Read> Read for Fuse<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.failed {
            return Ok(0);
        }
        match self.inner.read(buf) {
            Err(e) if e.kind() != io::ErrorKind::Interrupted => {
                self.failed = true;
                Err(e)
            }
            r => r,
        }
    }
}

enum Source {
    Plain(Fuse<Raw>),
    Gzip(Box<GzMembers>),
    Lz4(Box<Fuse<lz4_flex::frame::FrameDecoder<Raw>>>),
}

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Source::Plain(r) => r.read(buf),
            Source::Gzip(r) => r.read(buf),
            Source::Lz4(r) => {
                // Bounded so a decoder that stops making progress cannot
                // spin forever.
                for _ in 0..1024 {
                    // The frame decoder reports 0 at the end of each frame;
                    // more input behind it means another frame follows.
                    let n = r.read(buf)?;
                    if n > 0 || buf.is_empty() || r.failed {
                        return Ok(n);
                    }
                    if r.inner.get_mut().fill_buf()?.is_empty() {
                        return Ok(0);
                    }
                }
                Ok(0)
            }
        }
    }
}

/// What `read_line` found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A line, without its `\n` (a `\r` before it is kept).
    Text(Vec<u8>),
    /// A line longer than the limit; it was skipped up to its end.
    TooLong(u64),
    /// End of the stream.
    Eof,
}

/// Read chunk size and the smallest buffer we keep.
const CHUNK: usize = 64 * 1024;

/// A decompressed byte stream with a peekable buffer and its offset.
pub(crate) struct Stream {
    src: Source,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Stream offset of `buf[start]`.
    pos: u64,
    eof: bool,
}

impl Stream {
    /// Wraps `raw`, detecting gzip/LZ4 by magic bytes.
    pub(crate) fn new(raw: Box<dyn Read + Send>) -> io::Result<(Stream, Compression)> {
        let mut raw = io::BufReader::with_capacity(CHUNK, raw);
        let head = loop {
            match raw.fill_buf() {
                Ok(b) => break b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        let compression = Compression::sniff(head);
        let src = match compression {
            Compression::None => Source::Plain(Fuse {
                inner: raw,
                failed: false,
            }),
            Compression::Gzip => Source::Gzip(Box::new(GzMembers::new(raw))),
            Compression::Lz4 => Source::Lz4(Box::new(Fuse {
                inner: lz4_flex::frame::FrameDecoder::new(raw),
                failed: false,
            })),
        };
        Ok((
            Stream {
                src,
                buf: vec![0; CHUNK],
                start: 0,
                end: 0,
                pos: 0,
                eof: false,
            },
            compression,
        ))
    }

    /// Offset (in the decompressed stream) of the next unread byte.
    pub(crate) fn pos(&self) -> u64 {
        self.pos
    }

    /// Where a record starting at decompressed offset `pos` is, in words:
    /// "offset N", plus the gzip member's compressed offset for gzip input.
    pub(crate) fn describe(&mut self, pos: u64) -> String {
        match &mut self.src {
            Source::Gzip(g) => match g.member_at(pos) {
                Some(m) => format!("offset {pos} (gzip member at byte {m})"),
                None => format!("offset {pos}"),
            },
            _ => format!("offset {pos}"),
        }
    }

    fn buffered(&self) -> &[u8] {
        self.buf.get(self.start..self.end).unwrap_or(&[])
    }

    /// Reads more data behind the buffered bytes. Returns false at end of
    /// stream. Grows the buffer only up to `limit` buffered bytes.
    fn fill_more(&mut self, limit: usize) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.start > 0 && (self.end == self.buf.len() || self.start >= CHUNK) {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            if self.buf.len() >= limit.max(CHUNK) {
                return Ok(true);
            }
            let new_len = (self.buf.len() * 2).min(limit.max(CHUNK));
            self.buf.resize(new_len, 0);
        }
        loop {
            let slot = match self.buf.get_mut(self.end..) {
                Some(s) => s,
                None => return Ok(false),
            };
            match self.src.read(slot) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    fn consume(&mut self, n: usize) {
        let n = n.min(self.end - self.start);
        self.start += n;
        self.pos += n as u64;
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
    }

    /// Up to `n` bytes ahead without consuming them (fewer only at the end
    /// of the stream).
    pub(crate) fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        while self.end - self.start < n {
            if !self.fill_more(n)? {
                break;
            }
        }
        let avail = (self.end - self.start).min(n);
        Ok(self.buf.get(self.start..self.start + avail).unwrap_or(&[]))
    }

    /// Reads one line of at most `max` bytes. Longer lines are skipped to
    /// their end without being stored.
    pub(crate) fn read_line(&mut self, max: usize) -> io::Result<Line> {
        let mut scanned = 0usize;
        loop {
            let avail = self.buffered();
            if let Some(i) = memchr::memchr(b'\n', avail.get(scanned..).unwrap_or(&[])) {
                let i = scanned + i;
                let line = avail.get(..i).unwrap_or(&[]).to_vec();
                self.consume(i + 1);
                return Ok(Line::Text(line));
            }
            scanned = avail.len();
            if scanned > max {
                return self.skip_line().map(Line::TooLong);
            }
            if !self.fill_more(max + 1)? {
                let rest = self.buffered().to_vec();
                self.consume(rest.len());
                return Ok(if rest.is_empty() {
                    Line::Eof
                } else {
                    Line::Text(rest)
                });
            }
        }
    }

    /// Discards bytes up to and including the next `\n`.
    fn skip_line(&mut self) -> io::Result<u64> {
        let mut skipped = 0u64;
        loop {
            let avail = self.buffered();
            if let Some(i) = memchr::memchr(b'\n', avail) {
                self.consume(i + 1);
                return Ok(skipped + i as u64 + 1);
            }
            let n = avail.len();
            self.consume(n);
            skipped += n as u64;
            if !self.fill_more(CHUNK)? {
                return Ok(skipped);
            }
        }
    }

    /// Reads exactly `n` bytes into `out` (appending). Returns how many
    /// bytes were read: fewer than `n` only at the end of the stream. The
    /// caller caps `n`; memory grows with the data actually read, never
    /// with a length field up front.
    pub(crate) fn read_into(&mut self, n: u64, out: &mut Vec<u8>) -> io::Result<u64> {
        let mut got = 0u64;
        while got < n {
            if self.start == self.end && !self.fill_more(CHUNK)? {
                break;
            }
            let avail = self.buffered();
            let take = avail
                .len()
                .min(usize::try_from(n - got).unwrap_or(usize::MAX));
            out.extend_from_slice(avail.get(..take).unwrap_or(&[]));
            self.consume(take);
            got += take as u64;
        }
        Ok(got)
    }

    /// Discards exactly `n` bytes; returns how many were there.
    pub(crate) fn skip(&mut self, n: u64) -> io::Result<u64> {
        let mut got = 0u64;
        while got < n {
            if self.start == self.end && !self.fill_more(CHUNK)? {
                break;
            }
            let avail = self.end - self.start;
            let take = avail.min(usize::try_from(n - got).unwrap_or(usize::MAX));
            self.consume(take);
            got += take as u64;
        }
        Ok(got)
    }

    /// Skips `\r`, `\n` (and other ASCII whitespace) bytes; returns how many.
    pub(crate) fn skip_blank(&mut self) -> io::Result<u64> {
        let mut skipped = 0u64;
        loop {
            if self.start == self.end && !self.fill_more(CHUNK)? {
                return Ok(skipped);
            }
            let avail = self.buffered();
            let n = avail.iter().take_while(|b| b.is_ascii_whitespace()).count();
            let whole = n == avail.len();
            self.consume(n);
            skipped += n as u64;
            if !whole {
                return Ok(skipped);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).ok();
        e.finish().unwrap_or_default()
    }

    fn read_all(s: &mut Stream) -> (Vec<u8>, Vec<String>) {
        let mut out = Vec::new();
        let mut errs = Vec::new();
        for _ in 0..100 {
            match s.read_into(1 << 20, &mut out) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => errs.push(e.to_string()),
            }
        }
        (out, errs)
    }

    #[test]
    fn corrupt_member_is_skipped_and_next_member_read() {
        let mut bytes = gz(b"first;");
        let mut bad = gz(b"second member that will be corrupted;");
        // Flip bytes in the deflate data (after the 10-byte header).
        for b in bad.iter_mut().skip(12).take(6) {
            *b ^= 0x5a;
        }
        bytes.extend_from_slice(&bad);
        bytes.extend_from_slice(&gz(b"third;"));
        let (mut s, c) = Stream::new(Box::new(io::Cursor::new(bytes))).unwrap();
        assert_eq!(c, Compression::Gzip);
        let (out, errs) = read_all(&mut s);
        let text = String::from_utf8_lossy(&out);
        assert!(text.starts_with("first;"), "{text}");
        assert!(text.ends_with("third;"), "{text}");
        assert!(!text.contains("second member that will"), "{text}");
        assert!(!errs.is_empty());
        assert!(errs
            .iter()
            .any(|e| e.contains("gzip member at compressed offset")));
    }

    #[test]
    fn truncated_gzip_reports_truncation() {
        let mut bytes = gz(b"first;");
        let second = gz(&[b'x'; 5000]);
        bytes.extend_from_slice(second.get(..second.len() / 2).unwrap_or(&[]));
        let (mut s, _) = Stream::new(Box::new(io::Cursor::new(bytes))).unwrap();
        let (out, errs) = read_all(&mut s);
        assert!(out.starts_with(b"first;"));
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].contains("truncated gzip member"), "{errs:?}");
    }

    #[test]
    fn garbage_between_members_is_reported_once() {
        let mut bytes = gz(b"a;");
        bytes.extend_from_slice(b"not gzip at all");
        bytes.extend_from_slice(&gz(b"b;"));
        let (mut s, _) = Stream::new(Box::new(io::Cursor::new(bytes))).unwrap();
        let (out, errs) = read_all(&mut s);
        assert_eq!(out, b"a;b;");
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].contains("15 bytes of non-gzip data"), "{errs:?}");
    }

    #[test]
    fn long_lines_are_skipped_not_stored() {
        let mut data = vec![b'a'; 300_000];
        data.extend_from_slice(b"\nshort\n");
        let (mut s, _) = Stream::new(Box::new(io::Cursor::new(data))).unwrap();
        assert_eq!(s.read_line(1000).unwrap(), Line::TooLong(300_001));
        assert_eq!(s.read_line(1000).unwrap(), Line::Text(b"short".to_vec()));
        assert_eq!(s.pos(), 300_007);
        assert_eq!(s.read_line(1000).unwrap(), Line::Eof);
    }

    #[test]
    fn lz4_frames_are_decoded() {
        let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
        enc.write_all(b"hello lz4 ").ok();
        let mut bytes = enc.finish().unwrap_or_default();
        let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
        enc.write_all(b"second frame").ok();
        bytes.extend_from_slice(&enc.finish().unwrap_or_default());
        let (mut s, c) = Stream::new(Box::new(io::Cursor::new(bytes))).unwrap();
        assert_eq!(c, Compression::Lz4);
        let (out, errs) = read_all(&mut s);
        assert_eq!(out, b"hello lz4 second frame");
        assert!(errs.is_empty());
    }
}
