//! What a page is called: the hashed words of its title, of its host
//! and of its URL's place and file name; and the lowercasing every word
//! hash of the content evidence goes through ([`lowercase_into`]).

use neardup_api::hash64;

/// Stable hashes of the words of `text` as the page's blocks hash them
/// (lowercased, Unicode words, symbols-only tokens left out).
pub fn word_hashes(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for_each_hashed_word(text, |_, hash| out.push(hash));
    out
}

/// Calls `f` with each word of `text` as [`word_hashes`] counts it
/// (lowercased; a word without a letter or digit only if ASCII) and its
/// hash.
pub(super) fn for_each_hashed_word(text: &str, mut f: impl FnMut(&str, u32)) {
    let mut lower = String::new();
    lowercase_into(text, &mut lower);
    neardup_text::for_each_word(&lower, |w| {
        if w.is_ascii() || w.chars().any(neardup_text::is_alphanumeric) {
            f(w, hash64(w.as_bytes()) as u32);
        }
    });
}

/// Title segment separators: `Headline | Site`, `Item - Book`.
pub(super) const TITLE_SEPARATORS: [&str; 8] = [
    " | ",
    " - ",
    " \u{2013} ",
    " \u{2014} ",
    " :: ",
    " \u{b7} ",
    " \u{bb} ",
    " / ",
];

/// Most words of a title segment that may be a site's name.
pub(super) const TITLE_EDGE_WORDS: usize = 4;

/// The words of `title` found only in its first or last segment when
/// that segment is short (at most [`TITLE_EDGE_WORDS`] words) and another
/// segment is the longer one (at least 3 words), or the first is as long
/// and it is the last: a site's name around a headline. Sorted and
/// distinct. Only set aside while the site's common
/// title words are not known ([`OwnContent::new`]): a syndicated copy
/// carries another site's name, a page's version or item name sits in a
/// middle segment or is the longest.
pub(super) fn title_edges(title: &str) -> Vec<u32> {
    let segments = title_segments(title);
    if segments.len() < 2 {
        return Vec::new();
    }
    let words: Vec<Vec<u32>> = segments
        .iter()
        .map(|s| word_hashes(s))
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() < 2 {
        return Vec::new();
    }
    let longest = words.iter().map(Vec::len).max().unwrap_or(0);
    let last = words.len() - 1;
    // Of two edge segments as long as each other and as any, the last is
    // the site's name (`Part II: Querying — TinyORM 3.11 documentation`):
    // titles put the page first far more often than the site.
    let tied_last = |i: usize| i == last && words[0].len() == longest;
    let edge = |i: usize| {
        (i == 0 || i == last)
            && words[i].len() <= TITLE_EDGE_WORDS
            && (words[i].len() < longest || tied_last(i))
    };
    if longest < 3 {
        return Vec::new();
    }
    let mut inner: Vec<u32> = (0..words.len())
        .filter(|&i| !edge(i))
        .flat_map(|i| words[i].iter().copied())
        .collect();
    inner.sort_unstable();
    let mut out: Vec<u32> = (0..words.len())
        .filter(|&i| edge(i))
        .flat_map(|i| words[i].iter().copied())
        .filter(|w| inner.binary_search(w).is_err())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// `title` split at each of [`TITLE_SEPARATORS`] in turn. Only those it
/// holds are split at ([`neardup_text::separators_in`]: most titles hold
/// none, and a piece of a title holds no separator the title does not).
pub(super) fn title_segments(title: &str) -> Vec<&str> {
    let present = neardup_text::separators_in(title, &TITLE_SEPARATORS);
    let mut segments: Vec<&str> = vec![title];
    for (sep, _) in TITLE_SEPARATORS.iter().zip(present).filter(|&(_, p)| p) {
        segments = segments.iter().flat_map(|s| s.split(sep)).collect();
    }
    segments
}

/// A kept page's URL with its [`page_name`](super::page_name) (made with
/// it) and its [`place_words`] and [`file_words`] (each made when first
/// asked). A kept page is a candidate of many later pages (on dev2, 260
/// kept URLs were asked 2,488 times), and splitting and hashing a URL's
/// words costs more than reading them: a deduper keeps these in its
/// [`KeptUrls`] and hands each comparison one.
#[derive(Debug)]
pub struct KeptUrl {
    url: Box<str>,
    page_name: u64,
    place: std::sync::OnceLock<Vec<u32>>,
    file: std::sync::OnceLock<Vec<u32>>,
}

impl KeptUrl {
    /// `url`, its words not made yet.
    pub fn new(url: &str) -> KeptUrl {
        KeptUrl {
            url: url.into(),
            page_name: super::page_name(url),
            place: std::sync::OnceLock::new(),
            file: std::sync::OnceLock::new(),
        }
    }

    /// The URL.
    pub fn as_str(&self) -> &str {
        &self.url
    }

    /// Its [`page_name`](super::page_name).
    pub fn page_name(&self) -> u64 {
        self.page_name
    }

    /// Its [`place_words`].
    pub fn place(&self) -> &[u32] {
        self.place.get_or_init(|| place_words(&self.url))
    }

    /// Its [`file_words`].
    pub fn file(&self) -> &[u32] {
        self.file.get_or_init(|| file_words(&self.url))
    }
}

/// The [`KeptUrl`]s of the kept pages last compared, by URL: at most
/// [`KeptUrls::CAPACITY`], all forgotten when full (a crawl's candidates
/// come and go with its sites; a map that only grew would hold every
/// kept URL). Shared by the comparisons of one deduper, which may run on
/// several threads.
#[derive(Debug, Default)]
pub struct KeptUrls {
    map: std::sync::Mutex<hashbrown::HashMap<u64, std::sync::Arc<KeptUrl>>>,
}

impl KeptUrls {
    /// Most URLs held (a few hundred kilobytes).
    pub const CAPACITY: usize = 4096;

    /// The held [`KeptUrl`] of `url`, or a new one, held from now on.
    pub fn get(&self, url: &str) -> std::sync::Arc<KeptUrl> {
        // A poisoned map only lost what a panicking comparison added.
        let mut map = self
            .map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = hash64(url.as_bytes());
        if let Some(held) = map.get(&key).filter(|k| k.as_str() == url) {
            return std::sync::Arc::clone(held);
        }
        if map.len() >= Self::CAPACITY {
            map.clear();
        }
        let new = std::sync::Arc::new(KeptUrl::new(url));
        map.insert(key, std::sync::Arc::clone(&new));
        new
    }
}

/// Words of where a page lives, not what it is called: its host's labels
/// and the folders of its URL path (not its file name). A module path, a
/// version folder or a language folder in the title says where the page
/// is, so the same item re-exported elsewhere keeps its name. Sorted and
/// distinct.
pub fn place_words(url: &str) -> Vec<u32> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split(['#', '?']).next().unwrap_or_default();
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let folders = path.rsplit_once('/').map_or("", |(folders, _)| folders);
    let decoded = percent_encoding::percent_decode_str(folders).decode_utf8_lossy();
    let mut out = word_hashes(&host.replace('.', " "));
    out.extend(word_hashes(&decoded.replace(['/', '.', '-', '_'], " ")));
    out.extend(word_hashes(&decoded.replace('/', " ")));
    out.sort_unstable();
    out.dedup();
    out
}

/// The words of `url`'s file name (its last path segment, or its folder's
/// for an `index.*` page; an extension of up to five letters left out),
/// split as [`word_hashes`] splits a title and also at `-`, `_` and `.`.
/// Sorted and distinct. A title segment spelled in the file name names
/// the page (`tinyorm.fields.IntegerField.html`), whatever its length.
pub fn file_words(url: &str) -> Vec<u32> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split(['#', '?']).next().unwrap_or_default();
    let path = rest.split_once('/').map_or("", |(_, p)| p);
    let mut segments = path.split('/').filter(|s| !s.is_empty()).rev();
    let mut file = segments.next().unwrap_or_default();
    if file.starts_with("index.") {
        file = segments.next().unwrap_or_default();
    }
    let stem = match file.rsplit_once('.') {
        Some((stem, ext))
            if !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.bytes().all(|b| b.is_ascii_alphabetic()) =>
        {
            stem
        }
        _ => file,
    };
    let decoded = percent_encoding::percent_decode_str(stem).decode_utf8_lossy();
    let mut out = word_hashes(&decoded);
    out.extend(word_hashes(&decoded.replace(['.', '-', '_'], " ")));
    out.sort_unstable();
    out.dedup();
    out
}

/// The words that name a page wherever it lives, from its `title` and
/// `url` alone: the title's words (as `word_hashes` splits them) less its URL's
/// `place_words` (host labels, folders) and the words spelled inside a
/// label of its host (the site's name, `PageContent::title_host`).
/// Sorted and distinct. The drop policy's name (`OwnContent`) also
/// leaves out the words its section's titles commonly share, which only
/// an index knows; the report compares this one between the pages a
/// URL-pattern hint would merge.
pub fn title_name(title: &str, url: &str) -> Vec<u32> {
    let host = host_words(title, url);
    let place = place_words(url);
    let mut out: Vec<u32> = word_hashes(title)
        .into_iter()
        .filter(|w| place.binary_search(w).is_err() && host.binary_search(w).is_err())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// A language's ISO 639-3 code as stored with a page (0: unknown).
pub fn lang_code(lang: &str) -> u32 {
    if lang.is_empty() || lang == "und" {
        0
    } else {
        (hash64(lang.as_bytes()) as u32).max(1)
    }
}

/// The sorted, distinct hashes of the words of `title` (3 characters or
/// more) spelled inside a label of `url`'s host: the site's name in the
/// title (`PageContent::title_host`).
pub(super) fn host_words(title: &str, url: &str) -> Vec<u32> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default()
        .to_lowercase();
    let labels: Vec<&str> = host.split('.').filter(|l| l.len() >= 3).collect();
    let mut lower = String::new();
    lowercase_into(title, &mut lower);
    let mut out = Vec::new();
    neardup_text::for_each_word(&lower, |w| {
        if w.chars().count() >= 3 && labels.iter().any(|l| l.contains(w)) {
            out.push(hash64(w.as_bytes()) as u32);
        }
    });
    out.sort_unstable();
    out.dedup();
    out
}

/// `text` lowercased char by char (`char::to_lowercase`, so hashes do not
/// depend on context rules such as a final sigma) into `out`, replacing it.
/// ASCII runs are lowercased in bulk, and scripts without case (kana, Han,
/// Hangul, Yi) are copied as they are: most of a page's characters never
/// reach the Unicode case tables.
pub(super) fn lowercase_into(text: &str, out: &mut String) {
    out.clear();
    let bytes = text.as_bytes();
    let mut from = 0;
    while from < bytes.len() {
        // An ASCII run, in bulk...
        let wide = bytes
            .get(from..)
            .and_then(neardup_text::first_non_ascii)
            .map_or(bytes.len(), |k| from + k);
        let start = out.len();
        out.push_str(text.get(from..wide).unwrap_or_default());
        if let Some(run) = out.get_mut(start..) {
            run.make_ascii_lowercase();
        }
        // ...then the non-ASCII characters up to the next ASCII byte.
        let end = bytes
            .get(wide..)
            .and_then(|b| b.iter().position(u8::is_ascii))
            .map_or(bytes.len(), |k| wide + k);
        for c in text.get(wide..end).unwrap_or_default().chars() {
            if has_no_case(c) {
                out.push(c);
            } else {
                out.extend(c.to_lowercase());
            }
        }
        from = end;
    }
}

/// Returns true for characters of the caseless blocks from Hiragana to
/// Vai (U+3040..U+A63F: kana, Bopomofo, Hangul Jamo, Han, Yi, Lisu, Vai)
/// and the Hangul syllables: `to_lowercase` maps each to itself (a test
/// checks every one).
#[inline]
pub(super) fn has_no_case(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{A63F}' | '\u{AC00}'..='\u{D7A3}')
}
