//! Reading one local file as a page, whatever it turns out to be: a
//! regular file within the size limit (gzip undone), never a FIFO or a
//! device; and the `file://` URL a page file gets.

use std::path::Path;

use super::item::Limits;
use super::{http, stream};

/// Whether `meta` is a FIFO (named pipe).
pub(super) fn is_fifo(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        meta.file_type().is_fifo()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// What a path that is neither a directory nor a regular file is.
pub(super) fn not_regular(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO (named pipe), not a regular file: not read (it could block forever)";
        }
        if t.is_socket() {
            return "a socket, not a regular file: not read";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device, not a regular file: not read";
        }
    }
    let _ = meta;
    "not a regular file: not read"
}

/// Reads one page file (directory entry, manifest line, `neardup extract`
/// argument): a regular file of at most `limits.max_record` bytes,
/// decompressed when it starts with the gzip magic bytes (whatever its
/// name), to at most `limits.max_body` bytes, the cap WARC bodies and
/// HTTP responses have. A gzip bomb stops at that cap and the file is
/// refused with a message saying so.
///
/// # Errors
/// [`neardup::Error::Input`] with the reason: not a regular file (a FIFO is
/// refused before it is opened), unreadable, over a limit, corrupt gzip.
pub fn read_page_file(path: &Path, limits: Limits) -> neardup::Result<Vec<u8>> {
    read_page(path, limits).map_err(|message| neardup::Error::Input {
        path: path.to_owned(),
        message,
    })
}

/// [`read_page_file`] with the message alone.
pub(super) fn read_page(path: &Path, limits: Limits) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(if meta.is_dir() {
            "a directory, not a page file".into()
        } else {
            not_regular(&meta).into()
        });
    }
    let body = read_capped(path, meta.len(), limits.max_record)?;
    if !body.starts_with(&stream::GZIP_MAGIC) {
        return Ok(body);
    }
    let (out, res) = http::inflate_capped(
        flate2::read::MultiGzDecoder::new(&body[..]),
        limits.max_body,
    );
    match res {
        Ok(()) => Ok(out),
        Err(e) if e.contains("cap") => Err(format!(
            "gzip-compressed file decompresses to more than the {}-byte limit (a gzip bomb?); skipped",
            limits.max_body
        )),
        Err(e) => Err(format!("gzip-compressed file is corrupt ({e}); skipped")),
    }
}

/// Reads a whole file of at most `max` bytes (for directory and manifest
/// pages), `len` long by its metadata (a file that grew meanwhile is still
/// read to its end or the cap).
fn read_capped(path: &Path, len: u64, max: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    // Sized from the file's length up front: growing a buffer by doubling
    // copied and re-faulted each page's bytes several times (8% of a
    // single-core `dedup` in perf).
    let expected = len.min(max);
    let mut body = Vec::with_capacity(usize::try_from(expected).unwrap_or(0).saturating_add(1));
    file.take(max.saturating_add(1))
        .read_to_end(&mut body)
        .map_err(|e| e.to_string())?;
    if body.len() as u64 > max {
        return Err(format!("file larger than the {max}-byte limit; skipped"));
    }
    Ok(body)
}

/// `file://` URL for a local file (absolute; falls back to the path as
/// given when it cannot be made absolute).
pub(super) fn file_url(path: &Path) -> String {
    let abs = std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_owned());
    url::Url::from_file_path(&abs)
        .map(|u| u.to_string())
        .unwrap_or_else(|()| format!("file://{}", abs.display()))
}
