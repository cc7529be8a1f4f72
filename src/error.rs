//! The library's error type.

use std::path::PathBuf;

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
    /// The document store failed, or an index file cannot be used (corrupt,
    /// another format, built with another detector chain).
    #[error("index {path}: {message}")]
    Store {
        /// The index file (`<memory>` for in-memory stores).
        path: PathBuf,
        /// What went wrong.
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

impl Error {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            cause: source,
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
}
