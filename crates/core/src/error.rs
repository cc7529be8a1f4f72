//! The library's error type.

use std::path::PathBuf;

use crate::identity::StoreIdentity;

/// Everything that can go wrong in the library. Per-page problems that do
/// not stop a run (a bad charset, an empty page) are warnings on the verdict,
/// not errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A configuration key has a value outside its allowed range.
    #[error("config: `{key}` = {value}: {allowed}")]
    Config {
        /// Dotted key, e.g. `chunks.avg_size`.
        key: String,
        /// The offending value as written.
        value: String,
        /// What is allowed, e.g. "must be in 8..=4096".
        allowed: String,
    },
    /// The configuration file could not be parsed.
    #[error("config file {path}: {message}")]
    ConfigParse {
        /// The file.
        path: PathBuf,
        /// The parser's message (names the line and the key).
        message: String,
    },
    /// A detector name that no registered detector has.
    #[error("unknown detector `{0}` (known: {1})")]
    UnknownDetector(String, String),
    /// An input file could not be read or is malformed as a whole.
    #[error("{path}: {message}")]
    Input {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// The document store failed, or an index cannot be used; `kind` says
    /// which, so a caller can tell a damaged index (restore or rebuild)
    /// from one built by another configuration (open it with that one)
    /// from a backend that failed (retry).
    #[error("index {path}: {kind}")]
    Store {
        /// The index file or location (`<memory>` for in-memory stores).
        path: PathBuf,
        /// What went wrong. Deliberately not an error `source`: its text is
        /// the message, and a report printing the chain would repeat it.
        kind: StoreError,
    },
    /// A runtime failure of this process, not of its input: a thread or
    /// thread pool could not be started, or a thread or async task
    /// panicked or was cancelled before it finished.
    #[error("{task}: {message}")]
    Runtime {
        /// What was running, e.g. "analysis thread pool", "decider thread".
        task: String,
        /// What went wrong.
        message: String,
    },
    /// A lock was poisoned: a thread panicked while holding it, so the data
    /// behind it may be half-updated and is not used again.
    #[error("{lock} lock poisoned by an earlier panic")]
    Poisoned {
        /// Which lock, e.g. "deduper".
        lock: String,
    },
    /// A value given to the library that is not a file or a config key is
    /// invalid (a URL to connect to, an option).
    #[error("{name}: {message}")]
    Argument {
        /// The argument, e.g. "target".
        name: String,
        /// What is wrong with it.
        message: String,
    },
    /// An I/O error with the path it happened on. The cause is part of
    /// the message and deliberately not an error `source`: a report that
    /// prints the chain (anyhow's `{:#}`) would print it twice.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        cause: std::io::Error,
    },
}

/// Why a document store failed or refused an index. Every variant's text
/// is a whole message; [`Error::Store`] adds the index's path.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The index, or a record in it, is damaged (a torn file, bytes that
    /// do not decode, metadata missing): restore a copy or rebuild it.
    /// Nothing was changed.
    #[error("{0}")]
    Corrupt(String),
    /// The index was built with another detector chain or other signature
    /// settings: its signatures are not comparable with this
    /// configuration's. Both identities are given; `why` names the
    /// differences.
    #[error("{why}")]
    Incompatible {
        /// What differs, with both values, and what to do instead.
        why: String,
        /// The identity the index records. An index written before
        /// settings were recorded has only its chain and
        /// `legacy_fingerprint`.
        stored: Box<StoreIdentity>,
        /// The identity this configuration gives.
        wanted: Box<StoreIdentity>,
    },
    /// Not an index this build can read: another on-disk format, or not a
    /// neardup index at all.
    #[error("{0}")]
    Unsupported(String),
    /// Another process holds the index open.
    #[error("{0}")]
    InUse(String),
    /// The index is full: no document id is left.
    #[error("{0}")]
    Full(String),
    /// The storage backend (the file system, redb, Redis) failed or cannot
    /// be reached; the index itself may be intact and a retry may succeed.
    #[error("{0}")]
    Backend(String),
}

impl Error {
    /// A [`Error::Store`] failure of the index at `path`.
    pub fn store(path: impl Into<PathBuf>, kind: StoreError) -> Error {
        Error::Store {
            path: path.into(),
            kind,
        }
    }

    /// A [`Error::Runtime`] failure of `task`.
    pub fn runtime(task: impl Into<String>, message: impl std::fmt::Display) -> Error {
        Error::Runtime {
            task: task.into(),
            message: message.to_string(),
        }
    }

    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            cause: source,
        }
    }
}

impl From<neardup_api::SettingError> for Error {
    fn from(e: neardup_api::SettingError) -> Error {
        Error::Config {
            key: e.key,
            value: e.value,
            allowed: e.allowed,
        }
    }
}

/// The library's result type.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    /// A report printing the whole chain (the CLI's `{:#}`) names the
    /// cause once, after the path.
    #[test]
    fn io_errors_name_path_and_cause_once() {
        let e = Error::io(
            "/no/such/file",
            std::io::Error::new(std::io::ErrorKind::NotFound, "gone"),
        );
        let mut chain = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            chain.push_str(&format!(": {s}"));
            source = s.source();
        }
        assert_eq!(chain, "/no/such/file: gone");
    }

    /// A panic while the shared deduper is locked is reported as what it
    /// is, not as a problem with an input file.
    #[test]
    fn a_panic_under_the_deduper_lock_is_a_poisoned_error() {
        let shared = crate::SharedDeduper::new(
            crate::Deduper::new(crate::Config::default()).expect("default config"),
        );
        let other = shared.clone();
        let panicked = std::thread::spawn(move || other.with(|_| panic!("boom"))).join();
        assert!(panicked.is_err());
        let e = shared.with(|d| d.stats().indexed).unwrap_err();
        assert!(
            matches!(&e, Error::Poisoned { lock } if lock == "deduper"),
            "{e:?}"
        );
        assert_eq!(e.to_string(), "deduper lock poisoned by an earlier panic");
    }

    #[test]
    fn runtime_errors_name_the_task() {
        let e = Error::runtime("analysis thread pool", "cannot start 4 threads: no memory");
        assert!(matches!(e, Error::Runtime { .. }));
        assert_eq!(
            e.to_string(),
            "analysis thread pool: cannot start 4 threads: no memory"
        );
    }
}
