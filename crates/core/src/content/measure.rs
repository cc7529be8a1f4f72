//! How much of a page's compared blocks a kept page holds, counted in
//! words: an edited word costs itself, not the three shingles around it,
//! and a kept page stored as a sample of its shingles is measured in
//! words too.

/// The share of the words of the compared blocks (`spans`: first word's
/// position, words) that lie in a word-3-shingle of the kept page, given
/// which of the page's distinct `shingles` (`rank_at`: per word position,
/// the index of the shingle starting there) the kept page has (`hit`); a
/// block of one or two words counts when the kept page has it as a block.
/// For prose this is the share of the text that is there: an edited word
/// costs itself, not the three shingles around it.
///
/// When the kept page stores only its shingles `0 mod m` (`m > 1`; `hit`
/// can be true only for those), each block is measured on its words
/// under a sampled shingle, and weighed by its words over its chance to
/// have one (blocks without one are not measured). Counting the sampled
/// shingles found (times `m`) instead would count shingles, not words, and
/// a block of `n` words has fewer than `n` of them: a record of short
/// fields (two shingles to four words) wholly here would measure two
/// thirds here. With `m == 1` every shingle is sampled and each block
/// weighs its words.
pub(super) fn words_covered(
    spans: &[(u32, u32)],
    rank_at: &[u32],
    shingles: &[u32],
    hit: &[bool],
    m: u32,
) -> f64 {
    let (mut total, mut found) = (0.0f64, 0.0f64);
    for b in measured_blocks(spans, rank_at, shingles, hit, m) {
        total += b.weight;
        found += b.weight * b.found;
    }
    if total > 0.0 {
        found / total
    } else {
        0.0
    }
}

/// The share of the words of the compared blocks (measured and weighed as
/// in [`words_covered`]) that are new words inside a block the kept page
/// partly has: a block of which at least [`REVISED_FROM`] and less than
/// [`REVISED_BELOW`] is found, with a sentence of the kept page in it
/// ([`REVISED_MIN_RUN`] words in one run), is one of the kept page's
/// paragraphs rewritten (new sentences in it, an annotation run into it),
/// and its words not found are counted here. A copy's edits leave most of
/// each block found (a word in twenty changed leaves about 85% of a
/// block's words under a found shingle); what a copy adds around the kept
/// text (comments, a table, a box of key facts, photo captions) are blocks
/// of its own, which share at most a phrase with the kept text.
pub(super) fn words_revised(
    spans: &[(u32, u32)],
    rank_at: &[u32],
    shingles: &[u32],
    hit: &[bool],
    m: u32,
) -> f64 {
    let (mut total, mut revised) = (0.0f64, 0.0f64);
    for b in measured_blocks(spans, rank_at, shingles, hit, m) {
        total += b.weight;
        if (REVISED_FROM..REVISED_BELOW).contains(&b.found) && b.run >= REVISED_MIN_RUN {
            revised += b.weight * (1.0 - b.found);
        }
    }
    if total > 0.0 {
        revised / total
    } else {
        0.0
    }
}

/// Words of the paragraphs among the compared blocks (`paras`, by block)
/// that are sentences of this page's own: a paragraph of at least
/// [`OWN_SENTENCE_MIN_WORDS`] words of which less than
/// [`OWN_SENTENCE_FOUND_BELOW`] is found in the kept page (measured as in
/// [`words_covered`]; with a sampled kept page, only the paragraphs that
/// can be measured). An item's page says what the item is in sentences;
/// the same item under another folder says it in the same sentences (what
/// differs there is a path in a signature, a platform in a note), while a
/// namesake says its own (`An iterator over the escaped version of a
/// byte.` against `... of a char.`).
pub(super) fn own_sentence_words(
    spans: &[(u32, u32)],
    rank_at: &[u32],
    shingles: &[u32],
    hit: &[bool],
    m: u32,
    paras: &[bool],
) -> u32 {
    measured_blocks(spans, rank_at, shingles, hit, m)
        .filter(|b| paras.get(b.index).copied().unwrap_or(false))
        .filter_map(|b| spans.get(b.index).map(|s| (s.1, b.found)))
        .filter(|&(words, found)| {
            words >= OWN_SENTENCE_MIN_WORDS && found < OWN_SENTENCE_FOUND_BELOW
        })
        .map(|(words, _)| words)
        .sum()
}

/// A paragraph of at least this many words is a sentence
/// ([`own_sentence_words`])...
pub(super) const OWN_SENTENCE_MIN_WORDS: u32 = 6;
/// ...of the page's own when less than this share of it is found in the
/// kept page: an edit (a name, a path) leaves most of a sentence found.
pub(super) const OWN_SENTENCE_FOUND_BELOW: f64 = 0.6;

/// A block of which at least this share is found in the kept page...
pub(super) const REVISED_FROM: f64 = 0.25;
/// ...and less than this share is a rewritten paragraph
/// ([`words_revised`])...
pub(super) const REVISED_BELOW: f64 = 0.6;
/// ...when it carries at least this many of the kept page's words in one
/// run (a sentence of it).
pub(super) const REVISED_MIN_RUN: usize = 12;

/// One compared block as measured against a kept page: its weight (its
/// words, or over its chance of having a sampled shingle) and the share of
/// its measured words that the kept page has.
struct MeasuredBlock {
    /// Its index among the compared blocks.
    index: usize,
    weight: f64,
    found: f64,
    /// The longest run of its words under found shingles, with no
    /// measured shingle that is not found inside it.
    run: usize,
}

/// Each compared block that can be measured against the kept page (all of
/// them when `m == 1`; those with a sampled shingle otherwise), in order:
/// see [`words_covered`].
fn measured_blocks<'a>(
    spans: &'a [(u32, u32)],
    rank_at: &'a [u32],
    shingles: &'a [u32],
    hit: &'a [bool],
    m: u32,
) -> impl Iterator<Item = MeasuredBlock> + 'a {
    let sampled =
        move |r: u32| m == 1 || shingles.get(r as usize).is_some_and(|s| s & (m - 1) == 0);
    let is_hit = |r: u32| hit.get(r as usize).copied().unwrap_or(false);
    spans
        .iter()
        .enumerate()
        .filter_map(move |(index, &(start, len))| {
            let (start, len) = (start as usize, len as usize);
            let block = rank_at
                .get(start..start + shingle_count(len as u32))
                .unwrap_or_default();
            // The words under a sampled shingle, and those under a sampled
            // shingle the kept page has.
            let (mut under, mut under_found, mut run) = (0usize, 0usize, 0usize);
            if len < 3 {
                if let Some(&r) = block.first().filter(|&&r| sampled(r)) {
                    under = len;
                    under_found = if is_hit(r) { len } else { 0 };
                    run = under_found;
                }
            } else {
                // Shingle `i` covers words `i..i + 3`; words before `until`
                // are already counted.
                let (mut until, mut until_found) = (0, 0);
                let mut run_from = None;
                for (i, &r) in block.iter().enumerate() {
                    if !sampled(r) {
                        continue;
                    }
                    under += i + 3 - i.max(until);
                    until = i + 3;
                    if is_hit(r) {
                        under_found += i + 3 - i.max(until_found);
                        until_found = i + 3;
                        let from = *run_from.get_or_insert(i);
                        run = run.max(i + 3 - from);
                    } else {
                        run_from = None;
                    }
                }
            }
            let weight = if m == 1 {
                len as f64
            } else if under > 0 {
                // A block has a sampled shingle with chance `1 - (1 - 1/m)^c`
                // (`c` shingles): short blocks are measured less often and
                // stand for those that were not, so that long blocks do not
                // outweigh them.
                let c = i32::try_from(block.len()).unwrap_or(i32::MAX);
                len as f64 / (1.0 - (1.0 - 1.0 / f64::from(m)).powi(c))
            } else {
                return None;
            };
            let found = if under > 0 {
                under_found as f64 / under as f64
            } else {
                0.0
            };
            Some(MeasuredBlock {
                index,
                weight,
                found,
                run,
            })
        })
}

/// For each of the sorted, distinct `own` shingles, whether the sorted
/// `kept` holds it ([`neardup_api::membership`]).
pub(super) fn found_in(own: &[u32], kept: &[u32]) -> Vec<bool> {
    neardup_api::membership(own, kept)
}

/// How many shingles `block_shingles` (in `page`) takes from a block of `words`
/// words.
pub(super) fn shingle_count(words: u32) -> usize {
    match words {
        0 => 0,
        1 | 2 => 1,
        n => n as usize - 2,
    }
}
