//! Fuzz target: extraction and the whole check on arbitrary bytes.
//! The first byte picks a declared charset so charset handling is covered;
//! pages alternate between two dedupers so the index sees inserts and hits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use neardup::Config;
use neardup::Deduper;

const CHARSETS: [Option<&str>; 5] = [
    None,
    Some("text/html; charset=utf-8"),
    Some("text/html; charset=windows-1252"),
    Some("text/html; charset=shift_jis"),
    Some("text/html; charset=utf-16le"),
];

fuzz_target!(|data: &[u8]| {
    let Some((&first, body)) = data.split_first() else {
        return;
    };
    let content_type = CHARSETS[usize::from(first) % CHARSETS.len()];
    let mut dedup = Deduper::new(Config::default()).expect("default config is valid");
    let v1 = dedup.check("https://fuzz.example/a", body, content_type);
    let v2 = dedup.check("https://fuzz.example/b", body, content_type);
    // A page checked twice is never unique the second time if it had text.
    if v1.indexed_as.is_some() {
        assert!(v2.kind.is_drop(), "second copy of an indexed page must be dropped");
    }
});
