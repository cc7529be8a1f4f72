//! Joins of relative hrefs, remembered across the pages a thread extracts.
//!
//! Pages of one directory link the same relative hrefs: a documentation
//! sidebar, a navigation bar, a list of sibling items. Joining an href to
//! its base (`Url::join`, about 2,800 instructions) was a twelfth of a
//! crawl's work on rust-doc, though most joins repeat one a sibling page
//! made a moment before.
//!
//! **Invariant:** what an href comes to depends on the base only through
//! its *directory*, the base up to the last `/` of its path, whenever the
//! base is http(s) and the href (as joined: trimmed) is not empty and does
//! not start with `?`, `#` or a control or space byte. In the WHATWG URL
//! parser such an href is absolute, scheme-relative (`//host`), host-relative
//! (`/path`) or path-relative; the last takes the base's scheme, userinfo,
//! host, port and path without its last segment, and drops the base's query
//! and fragment. An href starting with `?` keeps the base's whole path, and
//! leading control and space bytes are trimmed by the parser, so those are
//! never looked up here. A hit therefore returns exactly what the join
//! would; the cache changes no output, only the time (a property test
//! checks it against joining every href).
//!
//! The cache is per thread (no lock, no sharing of what one page's thread
//! is doing with another's), bounded, and emptied when full.

use hashbrown::HashTable;
use std::cell::RefCell;
use std::hash::{BuildHasher, RandomState};
use url::Url;

/// Entries a thread keeps before it starts over: a directory's sidebar of
/// a large documentation site is a few hundred hrefs.
const MAX_ENTRIES: usize = 1024;

/// Longest href remembered: long ones are rare and rarely repeated.
const MAX_HREF: usize = 512;

/// One remembered join.
struct Entry {
    hash: u64,
    /// The directory's length in `key`.
    dir_len: u32,
    /// The directory, then the href.
    key: Box<str>,
    /// What the href came to, with its hash (`None`: no http(s) target).
    target: Option<(u64, Url)>,
}

/// A thread's remembered joins. The hash is keyed (SipHash): a page cannot
/// make its hrefs collide.
struct Joins {
    hasher: RandomState,
    table: HashTable<Entry>,
}

thread_local! {
    static JOINS: RefCell<Joins> = RefCell::new(Joins {
        hasher: RandomState::new(),
        table: HashTable::new(),
    });
}

/// The directory of `base` that a cacheable href's join depends on (see
/// the module's invariant), or None when `base` is not http(s).
pub(super) fn dir_of(base: &Url) -> Option<&str> {
    if !matches!(base.scheme(), "http" | "https") {
        return None;
    }
    let path = base.path();
    let in_path = path.rfind('/').map_or(0, |i| i + 1);
    let end = base[..url::Position::BeforePath].len() + in_path;
    base.as_str().get(..end)
}

/// Whether `href` (trimmed, as it will be joined to a base of scheme
/// `scheme`) depends on the base only through [`dir_of`], and is short
/// enough to remember. An href naming the base's own scheme (`https:x`) is
/// read by the parser as relative after its colon, so the test applies to
/// what follows the colon; an href with another scheme is absolute.
pub(super) fn cacheable(href: &str, scheme: &str) -> bool {
    if href.len() > MAX_HREF || href.bytes().any(|b| matches!(b, b'\t' | b'\n' | b'\r')) {
        return false;
    }
    let rest = match scheme_end(href) {
        Some(end) if href[..end].eq_ignore_ascii_case(scheme) => &href[end + 1..],
        Some(_) => return true,
        None => href,
    };
    rest.as_bytes()
        .first()
        .is_some_and(|&b| b > b' ' && b != b'?' && b != b'#')
}

/// Where the scheme of `href` ends (its colon), if it has one: an ASCII
/// letter, then letters, digits, `+`, `-` or `.`, then `:`.
fn scheme_end(href: &str) -> Option<usize> {
    let b = href.as_bytes();
    if !b.first()?.is_ascii_alphabetic() {
        return None;
    }
    let end = b
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')))?;
    (b[end] == b':').then_some(end)
}

/// What `href` (trimmed) joined to `base` comes to as a link: an http(s)
/// URL without its fragment, or None (an empty href is no link).
pub(super) fn target(base: &Url, href: &str) -> Option<Url> {
    if href.is_empty() {
        return None;
    }
    let mut u = base.join(href).ok()?;
    if !matches!(u.scheme(), "http" | "https") {
        return None;
    }
    u.set_fragment(None);
    Some(u)
}

/// The keys of the thread's hashes: a table hashed with them can keep
/// the hashes of remembered targets.
pub(super) fn hasher() -> RandomState {
    JOINS.with(|joins| joins.borrow().hasher.clone())
}

/// The part of a remembered join's key hash that is the directory's: the
/// key hash is the href's hash by [`hasher`] xor this.
pub(super) fn dir_hash(hasher: &RandomState, dir: &str) -> u64 {
    hasher.hash_one(dir).rotate_left(17)
}

/// What `href` (as written on the page) comes to in directory `dir`, with
/// the hash of the target by [`hasher`]: remembered under `key_hash` (the
/// href's hash by [`hasher`] xor [`dir_hash`]), or `resolve()`d. A
/// target is remembered only when `resolve` says it depends on the base
/// only through `dir` (see [`cacheable`]) and the href is short.
pub(super) fn remembered(
    hasher: &RandomState,
    dir: &str,
    key_hash: u64,
    href: &str,
    resolve: impl FnOnce() -> (Option<Url>, bool),
) -> Option<(u64, Url)> {
    let with_hash = |u: Url| (hasher.hash_one(u.as_str()), u);
    JOINS.with(|joins| {
        // Never borrowed twice (`resolve` extracts no page), but a miss is
        // only slower.
        let Ok(mut joins) = joins.try_borrow_mut() else {
            return resolve().0.map(with_hash);
        };
        let found = joins.table.find(key_hash, |e| {
            e.hash == key_hash
                && e.key.len() == dir.len() + href.len()
                && e.key.get(..e.dir_len as usize) == Some(dir)
                && e.key.get(e.dir_len as usize..) == Some(href)
        });
        if let Some(e) = found {
            return e.target.clone();
        }
        let (target, cacheable) = resolve();
        let target = target.map(with_hash);
        let Ok(dir_len) = u32::try_from(dir.len()) else {
            return target;
        };
        if !cacheable || href.len() > MAX_HREF {
            return target;
        }
        if joins.table.len() >= MAX_ENTRIES {
            joins.table.clear();
        }
        let mut key = String::with_capacity(dir.len() + href.len());
        key.push_str(dir);
        key.push_str(href);
        joins.table.insert_unique(
            key_hash,
            Entry {
                hash: key_hash,
                dir_len,
                key: key.into_boxed_str(),
                target: target.clone(),
            },
            |e| e.hash,
        );
        target
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn directory_is_the_base_up_to_its_paths_last_slash() {
        let dir = |s: &str| dir_of(&Url::parse(s).unwrap()).map(str::to_owned);
        assert_eq!(
            dir("http://u:p@e.com:81/a/b/c.html?x=/y#z/w").as_deref(),
            Some("http://u:p@e.com:81/a/b/")
        );
        assert_eq!(dir("https://e.com").as_deref(), Some("https://e.com/"));
        assert_eq!(dir("http://e.com/a/").as_deref(), Some("http://e.com/a/"));
        assert_eq!(dir("file:///a/b"), None);
    }

    #[test]
    fn only_hrefs_that_ignore_the_bases_last_segment_are_cacheable() {
        for yes in [
            "a.html",
            "../x",
            "/x",
            "//h/x",
            "http://h/",
            "x?q",
            "x#f",
            "HTTP:x",
            "https:",
            "mailto:a",
            "e.com:81",
        ] {
            assert!(cacheable(yes, "http"), "{yes}");
        }
        for no in [
            "", "?q", "#f", "\u{1}?q", " x", "\tx", "a\nb", "http:", "Http:?q", "http:#f",
        ] {
            assert!(!cacheable(no, "http"), "{no:?}");
        }
        assert!(!cacheable(&"a".repeat(MAX_HREF + 1), "http"));
    }

    /// Bases of one directory that differ after it (last segment, query,
    /// fragment), and hrefs of the characters that steer the URL parser.
    fn bases() -> impl Strategy<Value = Vec<String>> {
        let segment = "[a-z.%]{0,4}";
        (
            prop::sample::select(vec!["http", "https"]),
            prop::sample::select(vec!["e.com", "u:p@e.com:81", "[::1]", "E.com"]),
            prop::collection::vec(segment, 0..3),
            prop::collection::vec(
                ("[a-z.]{0,4}", "(\\?[a-z=/]{0,3})?", "(#[a-z/]{0,3})?"),
                1..4,
            ),
        )
            .prop_map(|(scheme, host, dirs, lasts)| {
                let mut dir = format!("{scheme}://{host}/");
                for d in dirs {
                    dir.push_str(&d);
                    dir.push('/');
                }
                lasts
                    .into_iter()
                    .map(|(last, q, f)| format!("{dir}{last}{q}{f}"))
                    .collect()
            })
    }

    fn href() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "a", "B", ".", "..", "/", "\\", "?", "#", ":", "%2e", "%", "\t", "\n", " ", "\u{1}",
            "http:", "https:", "HtTpS:", "file:", "//", "e.com", "@", "=", "é", "mailto:", "[::1]",
            "%2E.", "&#63;", "&amp;", "&#35;", "&#x9;",
        ]);
        prop::collection::vec(piece, 0..8).prop_map(|p| p.concat())
    }

    proptest! {
        /// Each href as the page writes it (entities included), looked up
        /// in each base of one directory in turn, comes to what resolving
        /// it against that base does.
        #[test]
        fn a_remembered_join_is_the_join(bases in bases(), hrefs in prop::collection::vec(href(), 1..12)) {
            let hasher = hasher();
            let bases: Vec<Url> = bases.iter().filter_map(|b| Url::parse(b).ok()).collect();
            for base in &bases {
                let Some(dir) = dir_of(base) else { continue };
                let mut fragment_target = base.clone();
                fragment_target.set_fragment(None);
                let never = |_: &str| -> Option<Url> { None };
                let resolved = |href: &str| {
                    super::super::resolve_link(href, &never, Some(base), Some(&fragment_target))
                };
                for href in &hrefs {
                    let key_hash = hasher.hash_one(href.as_str()) ^ dir_hash(&hasher, dir);
                    let got = remembered(&hasher, dir, key_hash, href, || resolved(href));
                    let want = resolved(href).0.map(|u| (hasher.hash_one(u.as_str()), u));
                    prop_assert_eq!(got, want, "{} + {:?}", base, href);
                }
            }
        }
    }
}
