//! Snowball stemming that survives a stemmer panic, with a per-thread cache.
//!
//! rust-stemmers 1.2 is unmaintained and some of its generated stemmers panic
//! on some inputs (the Greek one slices out of bounds on words such as
//! "ισα", snowballstem/snowball#204, fixed upstream but not in the crate).
//! Every stemmer call runs under `catch_unwind`; a word whose stemming
//! panicked is kept unstemmed. The outcome depends on the word alone, so
//! terms stay deterministic whatever order pages arrive in.
//!
//! The panic hook is global and not ours to change, so each panic prints
//! one message on stderr. To keep that to about one message per distinct bad
//! word per process (not one per occurrence), bad words are remembered in the
//! per-thread cache and in a process-wide set shared by all threads.
//!
//! Requires `panic = "unwind"` (the default); under `panic = "abort"` a
//! stemmer panic ends the process.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxBuildHasher;

/// Entries per language in one thread's cache before it is emptied. A web
/// crawl's vocabulary is Zipfian: the most frequent few ten thousand words
/// are most occurrences, and clearing (rather than LRU) is cheap and simple.
const CACHE_CAP: usize = 1 << 16;

/// Words longer than this (bytes) are not cached: rare, and they would only
/// push out frequent entries.
const MAX_CACHED_LEN: usize = 48;

/// A stemmer for one language, safe to call on any input.
pub(crate) struct SafeStemmer {
    /// Index of the language in the cache (`0..32`), also its bit in
    /// [`PANICKED_LANGS`].
    slot: usize,
    /// The language, for warnings.
    algorithm: Algorithm,
    /// The Snowball stemmer (a function pointer: `Send + Sync`).
    stemmer: Stemmer,
}

impl std::fmt::Debug for SafeStemmer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SafeStemmer")
            .field("algorithm", &self.algorithm)
            .finish()
    }
}

/// Bit `slot` is set once a language's stemmer has panicked in this
/// process; only then is [`BAD_WORDS`] consulted.
static PANICKED_LANGS: AtomicU32 = AtomicU32::new(0);

/// Words whose stemming panicked, by language slot, shared by all threads.
static BAD_WORDS: Mutex<BTreeSet<(usize, Box<str>)>> = Mutex::new(BTreeSet::new());

/// What is known about one word of one language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CachedTerm {
    /// The word is on the language's stop list.
    pub stop: bool,
    /// The stem, inline when short.
    stem: StemText,
}

/// A stem stored without a pointer to chase when it is short (most are),
/// so a cache hit touches only the table's own memory.
#[derive(Clone, Debug, PartialEq, Eq)]
enum StemText {
    /// `bytes[..len]` is the stem.
    Inline { len: u8, bytes: [u8; INLINE] },
    /// A longer stem.
    Heap(Box<str>),
    /// The stemmer panicked on the word.
    Failed,
}

/// Bytes of a stem stored inline (the enum stays 24 bytes).
const INLINE: usize = 22;

impl CachedTerm {
    fn new(stop: bool, stem: Option<String>) -> CachedTerm {
        let stem = match stem {
            None => StemText::Failed,
            Some(s) if s.len() <= INLINE => {
                let mut bytes = [0u8; INLINE];
                if let Some(dst) = bytes.get_mut(..s.len()) {
                    dst.copy_from_slice(s.as_bytes());
                }
                StemText::Inline {
                    len: s.len() as u8,
                    bytes,
                }
            }
            Some(s) => StemText::Heap(s.into_boxed_str()),
        };
        CachedTerm { stop, stem }
    }

    /// The stem, or `None` when the stemmer failed on the word.
    pub(crate) fn stem(&self) -> Option<&str> {
        match &self.stem {
            StemText::Inline { len, bytes } => bytes
                .get(..usize::from(*len))
                .and_then(|b| std::str::from_utf8(b).ok()),
            StemText::Heap(s) => Some(s),
            StemText::Failed => None,
        }
    }
}

/// Cache key of a word of at most 16 bytes: its bytes, zero padded, as one
/// integer (words never contain NUL). Hashing and comparing it costs no
/// pointer chase and no `memcmp`, the main cost of a `String`-keyed map.
fn short_key(word: &str) -> Option<u128> {
    let b = word.as_bytes();
    if b.len() > 16 {
        return None;
    }
    let mut buf = [0u8; 16];
    buf.get_mut(..b.len())?.copy_from_slice(b);
    Some(u128::from_le_bytes(buf))
}

/// One language's cache: short words by packed key, longer ones by string.
#[derive(Default)]
struct LangCache {
    short: hashbrown::HashMap<u128, CachedTerm, FxBuildHasher>,
    long: hashbrown::HashMap<String, CachedTerm, FxBuildHasher>,
}

/// One thread's word -> (stop?, stem) maps, one per language slot. Stop
/// words are looked up through the same map, so a frequent word costs one
/// hash lookup.
#[derive(Default)]
pub(crate) struct StemCache {
    maps: Vec<LangCache>,
}

thread_local! {
    static CACHE: RefCell<StemCache> = RefCell::new(StemCache::default());
}

/// Runs `f` with this thread's stem cache (a fresh empty one if the cache is
/// already borrowed, which only re-entrant use could cause).
pub(crate) fn with_cache<R>(f: impl FnOnce(&mut StemCache) -> R) -> R {
    CACHE.with(|c| match c.try_borrow_mut() {
        Ok(mut cache) => f(&mut cache),
        Err(_) => f(&mut StemCache::default()),
    })
}

/// Result of stemming one word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stemmed {
    /// The stem.
    Stem(String),
    /// The stemmer panicked on this word (now or earlier); keep the word.
    Failed,
}

impl SafeStemmer {
    /// The stemmer for `algorithm`; `slot` must be unique per language and
    /// below 32.
    pub(crate) fn new(slot: usize, algorithm: Algorithm) -> SafeStemmer {
        SafeStemmer {
            slot: slot % 32,
            algorithm,
            stemmer: Stemmer::create(algorithm),
        }
    }

    /// The language's name, for warnings.
    pub(crate) fn language(&self) -> String {
        format!("{:?}", self.algorithm)
    }

    /// Looks up a lowercase word in `cache`, stemming it on a miss;
    /// `is_stop` says whether it is a stop word (asked on a miss only).
    /// Words longer than `MAX_CACHED_LEN` bytes are computed every time, in
    /// `scratch`.
    pub(crate) fn lookup<'c>(
        &self,
        word: &str,
        is_stop: impl Fn(&str) -> bool,
        cache: &'c mut StemCache,
        scratch: &'c mut Option<CachedTerm>,
    ) -> &'c CachedTerm {
        let compute = |w: &str| {
            let stem = match self.stem_uncached(w) {
                Stemmed::Stem(s) => Some(s),
                Stemmed::Failed => None,
            };
            CachedTerm::new(is_stop(w), stem)
        };
        if word.len() > MAX_CACHED_LEN {
            return scratch.insert(compute(word));
        }
        if cache.maps.len() <= self.slot {
            cache.maps.resize_with(self.slot + 1, Default::default);
        }
        let Some(lang) = cache.maps.get_mut(self.slot) else {
            return scratch.insert(compute(word));
        };
        if lang.short.len() + lang.long.len() >= CACHE_CAP {
            lang.short.clear();
            lang.long.clear();
        }
        // One hash lookup on a hit; nothing allocated.
        match short_key(word) {
            Some(key) => lang.short.entry(key).or_insert_with(|| compute(word)),
            None => lang.long.entry_ref(word).or_insert_with(|| compute(word)),
        }
    }

    fn stem_uncached(&self, word: &str) -> Stemmed {
        let bit = 1u32 << self.slot;
        if PANICKED_LANGS.load(Ordering::Relaxed) & bit != 0 && is_known_bad(self.slot, word) {
            return Stemmed::Failed;
        }
        let stemmer = &self.stemmer;
        match catch_unwind(AssertUnwindSafe(|| stemmer.stem(word).into_owned())) {
            Ok(stem) => Stemmed::Stem(stem),
            Err(_) => {
                BAD_WORDS
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .insert((self.slot, word.into()));
                PANICKED_LANGS.fetch_or(bit, Ordering::Relaxed);
                Stemmed::Failed
            }
        }
    }
}

fn is_known_bad(slot: usize, word: &str) -> bool {
    BAD_WORDS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .contains(&(slot, Box::<str>::from(word)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stem(s: &SafeStemmer, word: &str, cache: &mut StemCache) -> Option<String> {
        let mut scratch = None;
        let t = s.lookup(word, |_| false, cache, &mut scratch);
        t.stem().map(str::to_owned)
    }

    #[test]
    fn english_stems_and_caches() {
        let s = SafeStemmer::new(0, Algorithm::English);
        let mut cache = StemCache::default();
        assert_eq!(stem(&s, "running", &mut cache).as_deref(), Some("run"));
        // Second call is served by the cache and gives the same answer.
        assert_eq!(stem(&s, "running", &mut cache).as_deref(), Some("run"));
        assert_eq!(cache.maps.first().map(|m| m.short.len()), Some(1));
        assert_eq!(stem(&s, "systems", &mut cache).as_deref(), Some("system"));
        // Long words bypass the cache but are still stemmed.
        let long = "internationalization".repeat(3);
        assert!(stem(&s, &long, &mut cache).is_some());
        assert_eq!(cache.maps.first().map(|m| m.short.len()), Some(2));
        // A 17..=48-byte word goes to the string-keyed map, same answer.
        assert_eq!(
            stem(&s, "internationalizations", &mut cache).as_deref(),
            Some("internation")
        );
        assert_eq!(cache.maps.first().map(|m| m.long.len()), Some(1));
    }

    #[test]
    fn greek_panic_is_caught_and_remembered() {
        // "ισαισα" makes the Greek Snowball stemmer slice out of bounds
        // (snowballstem/snowball#204; rust-stemmers 1.2 has the old code).
        let s = SafeStemmer::new(7, Algorithm::Greek);
        let mut cache = StemCache::default();
        assert_eq!(stem(&s, "ισαισα", &mut cache), None);
        assert!(PANICKED_LANGS.load(Ordering::Relaxed) & (1 << 7) != 0);
        assert!(is_known_bad(7, "ισαισα"));
        // A fresh cache (another thread) does not call the stemmer again.
        assert_eq!(stem(&s, "ισαισα", &mut StemCache::default()), None);
        // Ordinary Greek words still stem.
        assert!(stem(&s, "ανθρωποι", &mut cache).is_some());
    }
}
