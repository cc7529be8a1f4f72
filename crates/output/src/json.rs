//! JSON strings written by hand for the one large output, texts.jsonl.
//!
//! serde_json escapes a string a byte at a time through a table: on
//! `neardup dedup`, writing the pages' texts that way was 2.2% of all
//! instructions (callgrind, neardup-dev2). Text is mostly bytes that need
//! no escape, so [`string`] looks for the next byte that does a chunk at
//! a time (a loop the compiler vectorizes) and copies the runs between.
//! The output is byte-for-byte what serde_json writes: the tests hold it
//! to serde_json on every byte value and on random strings.

/// Bytes looked at per step of the scan for a byte to escape.
const CHUNK: usize = 32;

/// Whether `b` is escaped inside a JSON string: `"`, `\` and the
/// control characters below U+0020 (DEL and non-ASCII are not).
#[inline]
fn escaped(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Index of the first byte of `bytes` at or after `from` that is escaped.
#[inline]
fn next_escaped(bytes: &[u8], mut from: usize) -> Option<usize> {
    while let Some(chunk) = bytes.get(from..from + CHUNK) {
        // Branch-free over the chunk: one test per chunk, not per byte.
        if chunk.iter().fold(false, |any, &b| any | escaped(b)) {
            break;
        }
        from += CHUNK;
    }
    bytes
        .get(from..)?
        .iter()
        .position(|&b| escaped(b))
        .map(|i| from + i)
}

/// Appends `s` as a JSON string, quotes included, escaped as serde_json
/// escapes it: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, and `\u00XX`
/// (lowercase hex) for the other control characters.
pub(crate) fn string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    while let Some(i) = next_escaped(bytes, start) {
        out.extend_from_slice(bytes.get(start..i).unwrap_or_default());
        let b = bytes.get(i).copied().unwrap_or_default();
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0C => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xF)],
            ]),
        }
        start = i + 1;
    }
    out.extend_from_slice(bytes.get(start..).unwrap_or_default());
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ours(s: &str) -> String {
        let mut out = Vec::new();
        string(&mut out, s);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_ascii_byte_is_written_as_serde_json_writes_it() {
        for b in 0u8..=0x7F {
            // Alone, and inside runs longer than a chunk on either side.
            let c = char::from(b);
            for s in [
                c.to_string(),
                format!("{}{c}{}", "a".repeat(40), "b".repeat(40)),
            ] {
                assert_eq!(
                    ours(&s),
                    serde_json::to_string(&s).unwrap(),
                    "byte {b:#04x}"
                );
            }
        }
    }

    #[test]
    fn escapes_at_chunk_edges_are_found() {
        for at in [0, 1, 30, 31, 32, 33, 63, 64, 65, 95] {
            let mut s = "x".repeat(100);
            s.replace_range(at..at + 1, "\"");
            assert_eq!(ours(&s), serde_json::to_string(&s).unwrap(), "at {at}");
        }
        assert_eq!(ours(""), "\"\"");
    }

    proptest! {
        #[test]
        fn random_strings_match_serde_json(s in "(\\PC|[\\x00-\\x1f\"\\\\\\x7f]){0,200}") {
            prop_assert_eq!(ours(&s), serde_json::to_string(&s).unwrap());
        }
    }
}
