//! Where pages come from in batch runs: a directory of HTML files, a
//! manifest TSV, or WARC/ARC files.
//!
//! Everything streams: [`open`] returns an iterator that reads one record
//! (or file) at a time, so a WARC of many gigabytes needs memory for one
//! record only. Problems with one record come back as [`Item::Warning`]
//! (with the file and the byte offset or line) and reading goes on with the
//! next record wherever the format allows resynchronizing; only an input
//! that cannot be opened at all is an `Err`.
//!
//! Which reader is used:
//! - a directory: [`dir`] (recursive, sorted by relative path; which files
//!   are pages: [`filter`]);
//! - a file ending in `.tsv`: a manifest ([`manifest`]);
//! - any other file: sniffed by content. gzip and LZ4 compression are
//!   detected by magic bytes; then `WARC/` at the start means WARC
//!   ([`warc`]), `filedesc://` means ARC ([`arc`]); when the start is
//!   unreadable the name decides (`.warc`/`.arc` anywhere in it).
//!
//! Limits ([`Limits`]) keep memory bounded whatever a file's length fields
//! say: bigger records are skipped with a warning.

use std::path::Path;

pub mod arc;
pub mod dir;
mod file;
pub mod filter;
pub(crate) mod http;
mod item;
pub mod manifest;
pub(crate) mod record;
pub(crate) mod stream;
pub mod warc;

pub use file::read_page_file;
use file::{is_fifo, not_regular};
pub use item::{Item, Limits, Page};

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod samples;

/// The iterator [`open`] returns.
pub type Items = Box<dyn Iterator<Item = Item> + Send>;

/// Opens `path` for streaming with the default [`Limits`]: a directory, a
/// manifest (`.tsv`), or a WARC/ARC file (plain, gzip or LZ4).
///
/// # Errors
/// Only when the input as a whole cannot be opened (missing, unreadable,
/// not a recognized format, a manifest without the required columns);
/// per-record problems come back as [`Item::Warning`].
pub fn open(path: &Path) -> neardup::Result<Items> {
    open_with(path, Limits::default())
}

/// [`open`] with explicit limits.
///
/// # Errors
/// As [`open`].
pub fn open_with(path: &Path, limits: Limits) -> neardup::Result<Items> {
    open_filtered(path, limits, &filter::PageFilter::default())
}

/// [`open_with`] with the filter that chooses which files of a directory
/// are pages.
///
/// An input named on the command line may be a FIFO (a manifest or WARC
/// written by another process, `<(...)` in a shell): it is streamed, and
/// opening it waits for its writer. A socket or device is refused. Page
/// files named inside a directory or a manifest are another matter: a FIFO
/// there is refused unopened ([`read_page_file`]), so a stray pipe in a
/// tree cannot block a run.
///
/// # Errors
/// As [`open`].
pub fn open_filtered(
    path: &Path,
    limits: Limits,
    filter: &filter::PageFilter,
) -> neardup::Result<Items> {
    let meta = std::fs::metadata(path).map_err(|e| neardup::Error::io(path, e))?;
    if meta.is_dir() {
        return Ok(Box::new(dir::DirReader::open(path, limits, filter)?));
    }
    if !meta.is_file() && !is_fifo(&meta) {
        return Err(neardup::Error::Input {
            path: path.to_owned(),
            message: not_regular(&meta).into(),
        });
    }
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("tsv"))
    {
        return Ok(Box::new(manifest::ManifestReader::open(path, limits)?));
    }
    let file = std::fs::File::open(path).map_err(|e| neardup::Error::io(path, e))?;
    let (mut stream, _compression) =
        stream::Stream::new(Box::new(file)).map_err(|e| neardup::Error::io(path, e))?;
    let mut first_warnings = Vec::new();
    let head: Vec<u8> = match stream.peek(16) {
        Ok(h) => h.to_vec(),
        Err(e) => {
            first_warnings.push(Item::warning(
                format!("{}: offset 0", path.display()),
                e.to_string(),
            ));
            Vec::new()
        }
    };
    let trimmed = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .and_then(|i| head.get(i..))
        .unwrap_or(&[]);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let kind = if trimmed.starts_with(b"WARC/") {
        Some(Kind::Warc)
    } else if trimmed.starts_with(b"filedesc://") {
        Some(Kind::Arc)
    } else if name.contains(".warc") {
        Some(Kind::Warc)
    } else if name.contains(".arc") {
        Some(Kind::Arc)
    } else {
        None
    };
    match kind {
        Some(Kind::Warc) => Ok(Box::new(warc::WarcReader::new(
            path,
            stream,
            limits,
            first_warnings,
        ))),
        Some(Kind::Arc) => Ok(Box::new(arc::ArcReader::new(
            path,
            stream,
            limits,
            first_warnings,
        ))),
        None => Err(neardup::Error::Input {
            path: path.to_owned(),
            message: "not a directory, manifest (.tsv), WARC or ARC file".into(),
        }),
    }
}

/// The manifest on standard input (`neardup dedup -`): a manifest TSV as
/// [`manifest`] reads from a file, with relative paths taken from the
/// current directory and `<stdin>:LINE` in warnings.
///
/// # Errors
/// As [`open`] for a manifest.
pub fn open_stdin(limits: Limits) -> neardup::Result<Items> {
    Ok(Box::new(manifest::ManifestReader::from_reader(
        Path::new("<stdin>"),
        std::path::PathBuf::new(),
        Box::new(std::io::stdin()),
        limits,
    )?))
}

/// How many items `path` will give, when that is cheap to know first: the
/// page files of a directory (names only: the tree is walked once more)
/// or the non-empty lines after a manifest's header (a bound: lines that
/// turn out bad still count, as their warnings do). `None` for archives,
/// whose records are only known by reading them.
pub fn count_items(path: &Path, filter: &filter::PageFilter) -> Option<u64> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_dir() {
        let mut files = Vec::new();
        let mut warnings = std::collections::VecDeque::new();
        dir::walk(path, &mut Vec::new(), &mut files, &mut warnings, filter);
        return u64::try_from(files.len() + warnings.len()).ok();
    }
    let manifest = meta.is_file()
        && path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("tsv"));
    if !manifest {
        return None;
    }
    use std::io::BufRead as _;
    let file = std::io::BufReader::new(std::fs::File::open(path).ok()?);
    let mut n = 0u64;
    for line in file.split(b'\n').skip(1) {
        if !line.ok()?.trim_ascii().is_empty() {
            n += 1;
        }
    }
    Some(n)
}

enum Kind {
    Warc,
    Arc,
}

/// Reads every item of `path` into memory (convenience for small inputs and
/// tests; batch runs should iterate [`open`] instead).
///
/// # Errors
/// As [`open`].
pub fn read(path: &Path) -> neardup::Result<Vec<Item>> {
    Ok(open(path)?.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_format_is_an_error_missing_file_too() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("notes.txt");
        std::fs::write(&p, "hello").unwrap();
        assert!(matches!(open(&p), Err(neardup::Error::Input { .. })));
        assert!(matches!(
            open(&dir.path().join("missing.warc")),
            Err(neardup::Error::Io { .. })
        ));
    }
}
