use hashbrown::HashMap;

use super::utils::{TrigramsWithPositions, get_trigrams_with_positions};
use super::{ARABIC_LANGS, CYRILLIC_LANGS, DEVANAGARI_LANGS, HEBREW_LANGS, LATIN_LANGS};
use super::{LangProfile, LangProfileList};
use super::{MAX_TOTAL_DISTANCE, MAX_TRIGRAM_DISTANCE, Trigram};
use crate::Lang;
use crate::core::{FilterList, Info, InternalQuery, Text, calculate_confidence};
use crate::scripts::grouping::MultiLangScript;

#[derive(Debug)]
pub struct RawOutcome {
    pub trigrams_count: usize,
    #[allow(dead_code)]
    pub raw_distances: Vec<(Lang, u32)>,
    pub scores: Vec<(Lang, f64)>,
}

#[inline]
pub fn detect(iquery: &InternalQuery) -> Option<Info> {
    let raw_outcome = raw_detect(iquery);
    let RawOutcome {
        trigrams_count,
        scores,
        ..
    } = raw_outcome;

    let mut raw_scores_iter = scores.into_iter();

    let opt_lang_score1 = raw_scores_iter.next();
    let opt_lang_score2 = raw_scores_iter.next();

    // TODO: Logic is duplicated in alphabets. Consider refactoring
    opt_lang_score1.map(|(lang1, score1)| {
        let script = iquery.multi_lang_script.to_script();
        let confidence = if let Some((_, score2)) = opt_lang_score2 {
            calculate_confidence(score1, score2, trigrams_count)
        } else {
            1.0
        };
        Info::new(script, lang1, confidence)
    })
}

#[inline]
pub fn raw_detect(iquery: &InternalQuery) -> RawOutcome {
    let lang_profile_list = script_to_lang_profile_list(iquery.multi_lang_script);
    calculate_scores_in_profiles(&iquery.text, iquery.filter_list, lang_profile_list)
}

fn script_to_lang_profile_list(script: MultiLangScript) -> LangProfileList {
    use MultiLangScript as MLS;
    match script {
        MLS::Latin => LATIN_LANGS,
        MLS::Cyrillic => CYRILLIC_LANGS,
        MLS::Arabic => ARABIC_LANGS,
        MLS::Devanagari => DEVANAGARI_LANGS,
        MLS::Hebrew => HEBREW_LANGS,
    }
}

#[inline]
fn calculate_scores_in_profiles(
    text: &Text,
    filter_list: &FilterList,
    lang_profile_list: LangProfileList,
) -> RawOutcome {
    let mut lang_distances: Vec<(Lang, u32)> = vec![];

    let TrigramsWithPositions {
        trigram_positions, ..
    } = get_trigrams_with_positions(&text.lowercase());
    let unique_trigrams_count = trigram_positions.len();

    // neardup: the distances come from one pass over the text's trigrams
    // through an index of the profiles (see `Inverted`), which gives every
    // language's `calculate_distance` at once.
    let distances: Vec<u32> = match Inverted::of(lang_profile_list) {
        Some(inverted) => inverted.distances(&trigram_positions),
        None => lang_profile_list
            .iter()
            .map(|&(_, lang_trigrams)| calculate_distance(lang_trigrams, &trigram_positions))
            .collect(),
    };
    for (&(lang, _), dist) in lang_profile_list.iter().zip(distances) {
        if !filter_list.is_allowed(lang) {
            continue;
        }
        lang_distances.push(((lang), dist));
    }

    // Sort languages by distance
    lang_distances.sort_unstable_by_key(|(_, dist)| *dist);

    let max_dist = unique_trigrams_count as u32 * MAX_TRIGRAM_DISTANCE;

    let raw_scores = lang_distances
        .iter()
        .map(|&(lang, distance)| (lang, distance_to_raw_score(distance, max_dist)))
        .collect();

    RawOutcome {
        trigrams_count: unique_trigrams_count,
        scores: raw_scores,
        raw_distances: lang_distances,
    }
}

// neardup: called only for a list that is none of the crate's own (there
// is none); `Inverted::distances` computes the same
// (crates/text/tests/whatlang.rs checks the two crates agree).
#[inline]
fn calculate_distance(lang_trigrams: LangProfile, text_trigrams: &HashMap<Trigram, u32>) -> u32 {
    let mut total_dist = 0u32;

    for (i, &trigram) in lang_trigrams.iter().enumerate() {
        let dist = match text_trigrams.get(&trigram) {
            Some(&n) => (n as i32 - i as i32).unsigned_abs(),
            None => MAX_TRIGRAM_DISTANCE,
        };
        total_dist += dist;
    }

    let count = text_trigrams.len() as u32;

    if MAX_TRIGRAM_DISTANCE > count {
        let delta = MAX_TRIGRAM_DISTANCE - count;
        total_dist -= delta * MAX_TRIGRAM_DISTANCE;
    }

    total_dist.clamp(0, MAX_TOTAL_DISTANCE)
}

/// neardup: the profiles of one script, indexed by trigram.
///
/// `calculate_distance` looks each of a profile's 300 trigrams up in the
/// text's, for every language of the script (about 12,000 lookups for a
/// Latin text, whatever its length). The same sum, taken the other way
/// round: each of the text's trigrams (at most `TEXT_TRIGRAMS_SIZE`) is
/// looked up once here, and adds `|position in the text - rank in the
/// profile|` to each language whose profile holds it; every trigram of a
/// profile that the text lacks adds `MAX_TRIGRAM_DISTANCE`. Integer sums
/// in another order are the same sums, so the distances are exactly
/// `calculate_distance`'s.
struct Inverted {
    /// Trigram -> (language's index in the list, the trigram's rank in its
    /// profile), for every occurrence in every profile.
    by_trigram: HashMap<Trigram, Vec<(u16, u16)>>,
    /// Each profile's length.
    lens: Vec<u32>,
}

impl Inverted {
    /// The index of `list`, built once per script on first use; `None`
    /// for a list that is none of the crate's.
    fn of(list: LangProfileList) -> Option<&'static Inverted> {
        use std::sync::OnceLock;
        static BUILT: [OnceLock<Inverted>; 5] = [const { OnceLock::new() }; 5];
        let lists = [
            LATIN_LANGS,
            CYRILLIC_LANGS,
            ARABIC_LANGS,
            DEVANAGARI_LANGS,
            HEBREW_LANGS,
        ];
        let slot = lists
            .iter()
            .position(|l| std::ptr::eq(l.as_ptr(), list.as_ptr()) && l.len() == list.len());
        let cell = BUILT.get(slot?)?;
        Some(cell.get_or_init(|| Inverted::new(list)))
    }

    fn new(list: LangProfileList) -> Inverted {
        let mut by_trigram: HashMap<Trigram, Vec<(u16, u16)>> = HashMap::new();
        for (l, &(_, trigrams)) in list.iter().enumerate() {
            for (rank, &trigram) in trigrams.iter().enumerate() {
                by_trigram
                    .entry(trigram)
                    .or_default()
                    .push((l as u16, rank as u16));
            }
        }
        Inverted {
            by_trigram,
            lens: list.iter().map(|&(_, t)| t.len() as u32).collect(),
        }
    }

    /// `calculate_distance` of every profile of the list, in list order.
    fn distances(&self, text_trigrams: &HashMap<Trigram, u32>) -> Vec<u32> {
        let mut near = vec![0u32; self.lens.len()];
        let mut found = vec![0u32; self.lens.len()];
        for (trigram, &n) in text_trigrams {
            if let Some(hits) = self.by_trigram.get(trigram) {
                for &(l, rank) in hits {
                    let l = l as usize;
                    near[l] += (n as i32 - rank as i32).unsigned_abs();
                    found[l] += 1;
                }
            }
        }
        let count = text_trigrams.len() as u32;
        self.lens
            .iter()
            .zip(near.iter().zip(&found))
            .map(|(&len, (&near, &found))| {
                let mut total_dist = near + (len - found) * MAX_TRIGRAM_DISTANCE;
                // As `calculate_distance`, overflow behaviour included.
                if MAX_TRIGRAM_DISTANCE > count {
                    let delta = MAX_TRIGRAM_DISTANCE - count;
                    total_dist -= delta * MAX_TRIGRAM_DISTANCE;
                }
                total_dist.clamp(0, MAX_TOTAL_DISTANCE)
            })
            .collect()
    }
}

#[inline]
fn distance_to_raw_score(distance: u32, max_distance: u32) -> f64 {
    let similarity = max_distance - distance;
    similarity as f64 / max_distance as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_when_german_is_given() {
        let text = "Die Ordnung muss für immer in diesem Codebase bleiben";
        let iq = InternalQuery {
            text: Text::new(text),
            filter_list: &FilterList::default(),
            multi_lang_script: MultiLangScript::Latin,
        };
        let raw_outcome = raw_detect(&iq);

        assert_eq!(raw_outcome.trigrams_count, 50);

        let &(first_lang, first_score) = raw_outcome.scores.first().unwrap();
        let &(_last_lang, last_score) = raw_outcome.scores.last().unwrap();

        assert_eq!(first_lang, Lang::Deu);

        assert!(first_score >= 0.0);
        assert!(first_score <= 1.0);

        assert!(last_score >= 0.0);
        assert!(last_score <= 1.0);
    }
}
