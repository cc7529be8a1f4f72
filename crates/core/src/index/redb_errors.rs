//! How the redb store names what went wrong: each failure becomes an
//! [`Error::Store`] of the [`StoreError`] a caller can act on (a damaged
//! file, one this build does not read, one held by another process, or the
//! backend failing), with the file's path.

use std::path::Path;

use crate::{Error, Result, StoreError};

/// The backend (the file system or redb) failed on the index at `path`.
pub(super) fn err(path: &Path, message: impl std::fmt::Display) -> Error {
    Error::store(path, StoreError::Backend(message.to_string()))
}

/// The index at `path` is damaged.
pub(super) fn corrupt(path: &Path, message: impl std::fmt::Display) -> Error {
    Error::store(path, StoreError::Corrupt(message.to_string()))
}

/// A failure redb reported on the index at `path`: damage it found
/// (a checksum, a page that does not decode) is [`StoreError::Corrupt`],
/// anything else the backend's.
pub(super) fn redb_error(path: &Path, e: redb::Error) -> Error {
    match e {
        redb::Error::Corrupted(why) => corrupt(path, format!("{why}: {DAMAGED_HINT}")),
        other => err(path, other),
    }
}

/// The file at `path` is not an index this build reads.
pub(super) fn unsupported(path: &Path, message: impl std::fmt::Display) -> Error {
    Error::store(path, StoreError::Unsupported(message.to_string()))
}

/// What a damaged file's error says the user can do (docs/usage.md, "When the
/// index file is damaged").
pub(super) const DAMAGED_HINT: &str =
    "the index file is damaged (truncated by a full disk or a partial \
     copy, or overwritten); it cannot be read: move it aside and rebuild it (run `neardup dedup \
     --index` over the inputs again, or crawl without --resume), or restore a copy";

/// Refuses what redb cannot open as a database without touching it: a
/// directory, a FIFO or device (opening would block or read forever), an
/// empty file. A file shorter than any redb header is named damaged.
pub(super) fn check_file(path: &Path) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|e| err(path, format!("cannot open: {e}")))?;
    if !meta.is_file() {
        return Err(unsupported(path, "not a regular file: cannot be an index"));
    }
    if meta.len() == 0 {
        return Err(corrupt(
            path,
            format!("empty file (0 bytes): {DAMAGED_HINT}"),
        ));
    }
    Ok(())
}

/// The message of a panic of redb on the file.
pub(super) fn panicked(what: &str) -> String {
    format!("redb failed on it ({what}): {DAMAGED_HINT}")
}

/// The error for a file redb cannot open.
pub(super) fn open_error(path: &Path, e: redb::DatabaseError) -> Error {
    match e {
        redb::DatabaseError::DatabaseAlreadyOpen => Error::store(
            path,
            StoreError::InUse(format!("cannot open: {e} (another neardup uses it)")),
        ),
        redb::DatabaseError::UpgradeRequired(_) => unsupported(path, format!("cannot open: {e}")),
        _ => corrupt(path, format!("cannot open: {e}: {DAMAGED_HINT}")),
    }
}
