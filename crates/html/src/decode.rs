//! Bytes to UTF-8 text.
//!
//! Order of evidence: byte-order mark, the HTTP `Content-Type` charset, a
//! `<meta charset>` / `http-equiv` declaration in the first 1024 bytes
//! (a WHATWG-like prescan), then statistical detection (chardetng).
//! A declaration the bytes contradict (declared UTF-8 but invalid UTF-8, or
//! declared legacy but the bytes are valid non-ASCII UTF-8) is overruled by
//! the bytes, with a warning naming both. Invalid bytes become U+FFFD; this
//! never panics.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};

use crate::extract::tokenizer::Attrs;

/// A decoded body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded<'a> {
    /// The text: borrowed from the body when it is valid UTF-8 without
    /// NULs (most of the web), so that case costs one validation and no
    /// copy.
    pub text: Cow<'a, str>,
    /// The encoding used (WHATWG name, e.g. `UTF-8`, `windows-1252`).
    pub encoding: &'static str,
    /// Problems worth telling the user (a declared charset that was wrong,
    /// malformed bytes replaced).
    pub warnings: Vec<String>,
}

/// How many bytes the `<meta>` prescan looks at (WHATWG says 1024).
const PRESCAN_BYTES: usize = 1024;

/// How many bytes (of blocks holding non-ASCII bytes) chardetng sees.
/// Detection only runs on pages that are not valid UTF-8 or contradict their
/// declaration; 64 KiB of non-ASCII-bearing text is far more than it needs
/// to be confident, and bounds the cost on huge pages.
const DETECT_BYTES: usize = 64 * 1024;

/// Granularity at which pure-ASCII stretches are skipped before detection.
const DETECT_BLOCK: usize = 4096;

/// Where a charset declaration came from (for warnings).
#[derive(Clone, Copy)]
enum Source {
    Http,
    Meta,
}

impl Source {
    fn name(self) -> &'static str {
        match self {
            Source::Http => "HTTP Content-Type",
            Source::Meta => "<meta> charset",
        }
    }
}

/// Decodes `bytes` to text. `content_type` is the HTTP header value, if any.
/// NUL characters are removed from the text (with a warning).
pub fn decode<'a>(bytes: &'a [u8], content_type: Option<&str>) -> Decoded<'a> {
    strip_nul(decode_raw(bytes, content_type))
}

/// [`decode`] without the NUL removal.
fn decode_raw<'a>(bytes: &'a [u8], content_type: Option<&str>) -> Decoded<'a> {
    let mut warnings = Vec::new();

    // 1. A BOM wins over everything (WHATWG "decode").
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        let body = bytes.get(bom_len..).unwrap_or_default();
        return finish(enc, body, warnings);
    }

    // 2./3. Declarations.
    let declared = content_type
        .and_then(charset_from_content_type)
        .and_then(|l| Encoding::for_label(l.as_bytes()))
        .map(|e| (e, Source::Http))
        .or_else(|| {
            let head = bytes.get(..PRESCAN_BYTES.min(bytes.len())).unwrap_or(bytes);
            prescan_meta(head).map(|e| (e, Source::Meta))
        });

    // Fast path: UTF-8 (declared or not) that validates: borrowed, no
    // detection. Every page is validated whole, so with SIMD (simdutf8's
    // basic check: the same answer as `std::str::from_utf8`, several
    // times faster on long input).
    let utf8 = simdutf8::basic::from_utf8(bytes).ok();
    match (declared, utf8) {
        (None, Some(text)) => return utf8_borrowed(text, warnings),
        (Some((enc, _)), Some(text)) if enc == UTF_8 => return utf8_borrowed(text, warnings),
        _ => {}
    }

    match declared {
        Some((enc, source)) => {
            if enc == UTF_8 {
                // Declared UTF-8 but it is not: trust the bytes.
                let detected = detect(bytes);
                if detected != UTF_8 {
                    warnings.push(format!(
                        "declared charset {} ({}) does not match the bytes (invalid {}); decoded as detected {}",
                        enc.name(),
                        source.name(),
                        enc.name(),
                        detected.name()
                    ));
                    return finish(detected, bytes, warnings);
                }
                return finish(enc, bytes, warnings);
            }
            if let Some(text) = utf8.filter(|_| !bytes.is_ascii()) {
                // Valid non-ASCII UTF-8 is practically never legacy text
                // that happens to validate: the declaration is stale.
                warnings.push(format!(
                    "declared charset {} ({}) does not match the bytes; decoded as detected UTF-8",
                    enc.name(),
                    source.name()
                ));
                return utf8_borrowed(text, warnings);
            }
            let (text, had_errors) = enc.decode_without_bom_handling(bytes);
            if had_errors {
                let detected = detect(bytes);
                if detected != enc {
                    let (alt, alt_errors) = detected.decode_without_bom_handling(bytes);
                    if !alt_errors {
                        warnings.push(format!(
                            "declared charset {} ({}) does not match the bytes (malformed {}); decoded as detected {}",
                            enc.name(),
                            source.name(),
                            enc.name(),
                            detected.name()
                        ));
                        return Decoded {
                            text: alt,
                            encoding: detected.name(),
                            warnings,
                        };
                    }
                }
                warnings.push(format!(
                    "malformed {} bytes replaced with U+FFFD",
                    enc.name()
                ));
            }
            Decoded {
                text,
                encoding: enc.name(),
                warnings,
            }
        }
        None => {
            let detected = detect(bytes);
            finish(detected, bytes, warnings)
        }
    }
}

/// How many leading bytes [`binary_reason`] judges (git looks at 8,000).
const SNIFF_BYTES: usize = 8 * 1024;

/// Share of control bytes in the sniffed prefix above which a body is
/// binary. Text (HTML in any ASCII-compatible charset) has practically none
/// besides tab, LF, FF and CR; uniformly random bytes have 28 in 256
/// (about 11%), compressed or encrypted data likewise; a page with a stray
/// NUL or two stays far below.
const MAX_CONTROL_SHARE: f64 = 0.05;

/// File signatures of formats that are never a page, with their names.
const MAGIC: &[(&[u8], &str)] = &[
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"\x1f\x8b", "gzip-compressed data"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data"),
    (b"BZh", "bzip2-compressed data"),
    (b"\xfd7zXZ\x00", "xz-compressed data"),
    (b"\x7fELF", "an ELF executable"),
    (b"\x00asm", "a WebAssembly module"),
    (b"wOFF", "a WOFF font"),
    (b"wOF2", "a WOFF2 font"),
];

/// Why `body` is binary rather than text or HTML, or `None` for text.
///
/// One NUL byte does not make a body binary (a copy of a page with
/// `<!-- \0 -->` in its head is still that page; [`decode`] removes the
/// NUL). A body is binary when
/// - it starts with the signature of a known non-text format (images,
///   PDF, archives and compressed data, executables, fonts), or
/// - more than 5% of its first 8 KiB are control bytes (C0 other than tab,
///   LF, FF, CR and ESC, plus DEL), as random and compressed data are.
///
/// A UTF-16 byte-order mark makes it text (half of its bytes are NUL).
pub fn binary_reason(body: &[u8]) -> Option<String> {
    if body.starts_with(&[0xFF, 0xFE]) || body.starts_with(&[0xFE, 0xFF]) {
        return None;
    }
    if let Some((_, name)) = MAGIC.iter().find(|(magic, _)| body.starts_with(magic)) {
        return Some(format!("body is binary ({name}), not HTML or text"));
    }
    let head = body.get(..body.len().min(SNIFF_BYTES)).unwrap_or(body);
    if head.is_empty() {
        return None;
    }
    // Bytes below 0x20 and DEL bound the control bytes from above, in two
    // comparisons a byte instead of seven: a page with few of them (nearly
    // every page) is text without the exact count.
    let low = count_in_lanes(head, |b| u8::from(b < 0x20) + u8::from(b == 0x7F));
    if low as f64 / head.len() as f64 <= MAX_CONTROL_SHARE {
        return None;
    }
    let control = control_bytes(head);
    let share = control as f64 / head.len() as f64;
    (share > MAX_CONTROL_SHARE).then(|| {
        format!(
            "body looks binary: {control} of its first {} bytes are control bytes (over {:.0}%), \
             not HTML or text",
            head.len(),
            MAX_CONTROL_SHARE * 100.0
        )
    })
}

/// How many of `bytes` are control bytes other than whitespace and escape
/// (below 0x20 but tab, line feed, form feed, carriage return and ESC;
/// and DEL).
fn control_bytes(bytes: &[u8]) -> usize {
    count_in_lanes(bytes, |b| {
        // The allowed bytes are all below 0x20: no underflow.
        u8::from(b < 0x20) - u8::from(matches!(b, b'\t' | b'\n' | 0x0C | b'\r' | 0x1B))
            + u8::from(b == 0x7F)
    })
}

/// The sum of `one(b)` (0 or 1) over `bytes`, counted in `u8` lanes over
/// chunks of 240 bytes, which the compiler vectorizes: six times faster
/// than a filtered count, and every page checked pays it. A chunk is at
/// most 255 bytes (no lane overflows) and a whole number of 16-byte
/// vectors (no byte-by-byte tail in each: 255-byte chunks ran 17% more
/// instructions).
#[inline(always)]
fn count_in_lanes(bytes: &[u8], one: impl Fn(u8) -> u8 + Copy) -> usize {
    bytes
        .chunks(240)
        .map(|chunk| chunk.iter().map(|&b| one(b)).fold(0u8, u8::wrapping_add) as usize)
        .sum()
}

/// Removes NUL characters from decoded text (a stray NUL in a page is
/// noise: text never means one), with a warning saying how many.
fn strip_nul(mut d: Decoded<'_>) -> Decoded<'_> {
    // memchr's vector scan: `str::contains(char)` goes through the
    // standard library's word-at-a-time one, 1.9% of `dedup` for this
    // one check of every page.
    if memchr::memchr(0, d.text.as_bytes()).is_some() {
        let before = d.text.len();
        d.text.to_mut().retain(|c| c != '\0');
        d.warnings.push(format!(
            "{} NUL character(s) removed from the text",
            before - d.text.len()
        ));
    }
    d
}

/// Validated UTF-8, borrowed as it is.
fn utf8_borrowed(text: &str, warnings: Vec<String>) -> Decoded<'_> {
    Decoded {
        text: Cow::Borrowed(text),
        encoding: UTF_8.name(),
        warnings,
    }
}

fn finish<'a>(enc: &'static Encoding, bytes: &'a [u8], mut warnings: Vec<String>) -> Decoded<'a> {
    let (text, had_errors) = enc.decode_without_bom_handling(bytes);
    if had_errors {
        warnings.push(format!(
            "malformed {} bytes replaced with U+FFFD",
            enc.name()
        ));
    }
    Decoded {
        // Borrows `bytes` when they needed no conversion.
        text,
        encoding: enc.name(),
        warnings,
    }
}

fn detect(bytes: &[u8]) -> &'static Encoding {
    let mut det = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    // chardetng scores non-ASCII bytes; pure-ASCII stretches (markup, scripts,
    // CSS) carry no evidence but cost as much to feed. So feed only the blocks
    // that hold non-ASCII bytes, up to DETECT_BYTES of them: the evidence of
    // the whole page at a fraction of the cost (40 MB/s -> GB/s on pages
    // that are mostly markup; `cargo bench --bench extract -- decode`).
    let mut fed = 0;
    for block in bytes.chunks(DETECT_BLOCK) {
        if block.is_ascii() {
            continue;
        }
        det.feed(block, false);
        fed += block.len();
        if fed >= DETECT_BYTES {
            break;
        }
    }
    det.feed(&[], true);
    det.guess(None, chardetng::Utf8Detection::Allow)
}

/// The `charset` parameter of a `Content-Type` value.
fn charset_from_content_type(ct: &str) -> Option<&str> {
    let lower = ct.to_ascii_lowercase();
    let at = lower.find("charset")?;
    let rest = ct.get(at + "charset".len()..)?.trim_start();
    let rest = rest.strip_prefix('=')?.trim_start();
    let rest = rest.trim_start_matches(['"', '\'']);
    let end = rest
        .find(|c: char| c == ';' || c == '"' || c == '\'' || c.is_ascii_whitespace())
        .unwrap_or(rest.len());
    let label = rest.get(..end)?;
    (!label.is_empty()).then_some(label)
}

/// WHATWG-like prescan of the first bytes for `<meta charset>` or
/// `<meta http-equiv=content-type content="...charset=...">`. Comments are
/// skipped. UTF-16 declared in a meta means UTF-8 and `x-user-defined`
/// means windows-1252, as the spec says.
fn prescan_meta(head: &[u8]) -> Option<&'static Encoding> {
    let mut i = 0;
    while i < head.len() {
        let lt = memchr::memchr(b'<', head.get(i..)?)? + i;
        let rest = head.get(lt..)?;
        if rest.starts_with(b"<!--") {
            let close = memchr::memmem::find(rest.get(4..)?, b"-->")?;
            i = lt + 4 + close + 3;
            continue;
        }
        let is_meta = rest.len() > 5
            && rest
                .get(1..5)
                .is_some_and(|n| n.eq_ignore_ascii_case(b"meta"))
            && rest
                .get(5)
                .is_some_and(|&b| b.is_ascii_whitespace() || b == b'/');
        if !is_meta {
            i = lt + 1;
            continue;
        }
        let attrs_start = lt + 5;
        let attrs = head.get(attrs_start..)?;
        let mut charset = None;
        let mut http_equiv_ct = false;
        let mut content = None;
        let mut it = Attrs::new(attrs);
        for (name, value) in it.by_ref() {
            if name.eq_ignore_ascii_case(b"charset") && charset.is_none() {
                charset = Some(value);
            } else if name.eq_ignore_ascii_case(b"http-equiv") {
                http_equiv_ct = trim(value).eq_ignore_ascii_case(b"content-type");
            } else if name.eq_ignore_ascii_case(b"content") && content.is_none() {
                content = Some(value);
            }
        }
        let label = match (charset, http_equiv_ct, content) {
            (Some(c), _, _) => Some(c),
            (None, true, Some(c)) => std::str::from_utf8(c)
                .ok()
                .and_then(charset_from_content_type)
                .map(str::as_bytes),
            _ => None,
        };
        if let Some(enc) = label.and_then(|l| Encoding::for_label(trim(l))) {
            if enc == encoding_rs::UTF_16BE || enc == encoding_rs::UTF_16LE {
                return Some(UTF_8);
            }
            if enc == encoding_rs::X_USER_DEFINED {
                return Some(WINDOWS_1252);
            }
            return Some(enc);
        }
        i = attrs_start + it.consumed().max(1);
    }
    None
}

fn trim(b: &[u8]) -> &[u8] {
    b.trim_ascii()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_utf8_is_borrowed_not_copied() {
        let body = "<meta charset=utf-8><p>héllo".as_bytes();
        for ct in [
            None,
            Some("text/html; charset=UTF-8"),
            Some("text/html; charset=iso-8859-1"),
        ] {
            let d = decode(body, ct);
            assert!(matches!(d.text, Cow::Borrowed(_)), "{ct:?}");
            assert_eq!(d.text.as_ptr(), body.as_ptr(), "{ct:?}");
        }
        // Text that needed changing is owned: a legacy charset, NULs.
        assert!(matches!(decode(b"caf\xe9", None).text, Cow::Owned(_)));
        let d = decode(b"a\0b", None);
        assert_eq!(d.text, "ab");
        assert!(matches!(d.text, Cow::Owned(_)));
    }

    #[test]
    fn plain_utf8_fast_path() {
        let d = decode("héllo wörld".as_bytes(), None);
        assert_eq!(d.text, "héllo wörld");
        assert_eq!(d.encoding, "UTF-8");
        assert!(d.warnings.is_empty());
    }

    #[test]
    fn utf16_bom() {
        // "hé" in UTF-16LE with BOM.
        let bytes = [0xFF, 0xFE, b'h', 0, 0xE9, 0];
        let d = decode(&bytes, Some("text/html; charset=iso-8859-1"));
        assert_eq!(d.text, "hé");
        assert_eq!(d.encoding, "UTF-16LE");
        let be = [0xFE, 0xFF, 0, b'h', 0, 0xE9];
        assert_eq!(decode(&be, None).text, "hé");
    }

    #[test]
    fn utf8_bom_is_stripped() {
        let d = decode(b"\xEF\xBB\xBFabc", None);
        assert_eq!(d.text, "abc");
    }

    #[test]
    fn meta_windows_1252() {
        let mut page = b"<html><head><meta charset=\"windows-1252\"></head><body>caf".to_vec();
        page.push(0xE9); // é in windows-1252
        page.extend_from_slice(b" \x93quoted\x94</body></html>");
        let d = decode(&page, None);
        assert_eq!(d.encoding, "windows-1252");
        assert!(d.text.contains("café \u{201C}quoted\u{201D}"), "{}", d.text);
    }

    #[test]
    fn meta_http_equiv() {
        let mut page =
            b"<!-- <meta charset=utf-8> --><meta http-equiv=\"Content-Type\" content=\"text/html; charset=ISO-8859-1\"><p>"
                .to_vec();
        page.push(0xFC); // ü
        let d = decode(&page, None);
        // ISO-8859-1 is windows-1252 in WHATWG.
        assert_eq!(d.encoding, "windows-1252");
        assert!(d.text.ends_with('ü'), "{}", d.text);
    }

    #[test]
    fn http_charset_beats_meta() {
        let mut page = b"<meta charset=utf-8><p>".to_vec();
        page.push(0xE9);
        let d = decode(&page, Some("text/html; charset=\"iso-8859-15\""));
        assert_eq!(d.encoding, "ISO-8859-15");
        assert!(d.text.ends_with('é'));
    }

    #[test]
    fn wrong_declared_utf8_uses_detection_and_warns() {
        // Shift_JIS text declared as UTF-8.
        let (sjis, _, _) = encoding_rs::SHIFT_JIS
            .encode("日本語のテキストです。これはテストの文章で、文字コードの判定を確かめます。");
        let mut page = b"<meta charset=utf-8><p>".to_vec();
        page.extend_from_slice(&sjis);
        let d = decode(&page, None);
        assert_eq!(d.encoding, "Shift_JIS");
        assert!(d.text.contains("日本語のテキスト"), "{}", d.text);
        let w = d.warnings.join("|");
        assert!(w.contains("UTF-8") && w.contains("Shift_JIS"), "{w}");
    }

    #[test]
    fn stale_legacy_declaration_on_utf8_bytes() {
        let d = decode("<meta charset=iso-8859-1><p>naïve café".as_bytes(), None);
        assert_eq!(d.encoding, "UTF-8");
        assert!(d.text.contains("naïve café"));
        assert!(d.warnings.iter().any(|w| w.contains("windows-1252")));
    }

    #[test]
    fn invalid_utf8_without_declaration_is_detected() {
        let mut page =
            b"<p>Les \xE9l\xE8ves de l'\xE9cole ont r\xE9ussi leurs examens d'\xE9t\xE9".to_vec();
        page.extend_from_slice(b" tr\xE8s bien.");
        let d = decode(&page, None);
        assert_eq!(d.encoding, "windows-1252");
        assert!(d.text.contains("élèves de l'école"), "{}", d.text);
    }

    #[test]
    fn invalid_utf8_declared_utf8_replaced_when_detection_agrees() {
        // A lone invalid byte in otherwise ASCII text: detection cannot
        // name a better encoding than UTF-8 for mostly-ASCII... it may say
        // windows-1252; either way no panic and the text survives.
        let d = decode(b"<meta charset=utf-8>abc\xFFdef", None);
        assert!(d.text.contains("abc") && d.text.contains("def"));
        assert!(!d.warnings.is_empty());
    }

    #[test]
    fn gbk_detection() {
        let (gbk, _, _) = encoding_rs::GBK.encode(
            "中华人民共和国是世界上人口最多的国家之一，这段文字用于测试字符编码的自动检测功能是否正常。",
        );
        let d = decode(&gbk, None);
        assert_eq!(d.encoding, "GBK");
        assert!(d.text.contains("中华人民共和国"), "{}", d.text);
    }

    #[test]
    fn content_type_parsing() {
        assert_eq!(
            charset_from_content_type("text/html; Charset = \"UTF-8\" ; x=y"),
            Some("UTF-8")
        );
        assert_eq!(charset_from_content_type("text/html"), None);
        assert_eq!(charset_from_content_type("text/html; charset="), None);
    }

    #[test]
    fn a_stray_nul_is_text_and_is_removed() {
        let page = b"<html><head><!-- \0 --><title>t</title></head><body><p>a\0b</p></body></html>";
        assert_eq!(binary_reason(page), None);
        let d = decode(page, None);
        assert!(!d.text.contains('\0'), "{:?}", d.text);
        assert!(d.text.contains("<p>ab</p>"), "{:?}", d.text);
        assert!(
            d.warnings.iter().any(|w| w.contains("2 NUL")),
            "{:?}",
            d.warnings
        );
    }

    #[test]
    fn binary_formats_and_random_bytes_are_binary_with_a_reason() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        assert!(binary_reason(png).is_some_and(|r| r.contains("PNG")));
        let gz = b"\x1f\x8b\x08\0\0\0\0\0";
        assert!(binary_reason(gz).is_some_and(|r| r.contains("gzip")));
        // xorshift bytes: about 11% control bytes.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let random: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        let reason = binary_reason(&random).unwrap_or_default();
        assert!(reason.contains("control bytes"), "{reason:?}");
        // UTF-16 with a BOM is text although half its bytes are NUL.
        assert_eq!(binary_reason(&[0xFF, 0xFE, b'h', 0, b'i', 0]), None);
        assert_eq!(binary_reason(b""), None);
    }

    #[test]
    fn whitespace_below_the_share_is_never_binary_and_control_bytes_over_it_are() {
        // 1,000 bytes: tabs and newlines (low bytes, not control) far over
        // 5% are text; control bytes just over 5% are binary, just under
        // (with many newlines beside them) are not.
        let page = |control: usize, newlines: usize| -> Vec<u8> {
            let mut b = vec![b'a'; 1000];
            b[..control].fill(0x01);
            b[control..control + newlines].fill(b'\n');
            b
        };
        assert_eq!(binary_reason(&page(0, 600)), None);
        assert_eq!(binary_reason(&page(50, 500)), None);
        let reason = binary_reason(&page(51, 0)).unwrap_or_default();
        assert!(reason.contains("51 of its first 1000"), "{reason:?}");
        let reason = binary_reason(&page(51, 500)).unwrap_or_default();
        assert!(reason.contains("51 of its first 1000"), "{reason:?}");
    }

    #[test]
    fn control_bytes_are_counted_byte_by_byte() {
        // Each byte value alone, then runs longer than a 255-byte chunk.
        for b in 0..=255u8 {
            let control =
                (b < 0x20 && !matches!(b, b'\t' | b'\n' | 0x0C | b'\r' | 0x1B)) || b == 0x7F;
            assert_eq!(control_bytes(&[b]), usize::from(control), "{b:#x}");
        }
        assert_eq!(control_bytes(&[0x01; 1000]), 1000);
        assert_eq!(control_bytes(&[b'\n'; 1000]), 0);
        let mixed: Vec<u8> = (0..2000u32)
            .map(|i| if i % 3 == 0 { 0x7F } else { b'a' })
            .collect();
        assert_eq!(control_bytes(&mixed), 667);
    }

    proptest::proptest! {
        /// The fast path's UTF-8 check gives std's answer: on text of any
        /// script, long enough for the SIMD loop, with one byte changed.
        #[test]
        fn the_simd_utf8_check_agrees_with_std(text in "\\PC{0,300}",
                                               at in 0usize..1500,
                                               byte in proptest::num::u8::ANY) {
            let mut bytes = text.into_bytes().repeat(4);
            if let Some(b) = bytes.get_mut(at) {
                *b = byte;
            }
            proptest::prop_assert_eq!(
                simdutf8::basic::from_utf8(&bytes).is_ok(),
                std::str::from_utf8(&bytes).is_ok()
            );
        }

        #[test]
        fn decode_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..2048),
                               ct in proptest::option::of(".{0,40}")) {
            let d = decode(&bytes, ct.as_deref());
            // Without any declaration, ASCII is UTF-8 and comes back as is.
            if ct.is_none() && bytes.is_ascii() {
                let lower = bytes.to_ascii_lowercase();
                if memchr::memmem::find(&lower, b"<meta").is_none() {
                    proptest::prop_assert_eq!(d.text.as_bytes(), &bytes[..]);
                }
            }
        }
    }
}
