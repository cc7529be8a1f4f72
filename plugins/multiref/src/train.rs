//! The genetic algorithm of section 3.6: a population of reference texts
//! (chromosomes = sequences of 3-grams), single-cut crossover, mutation of
//! 10% of a child's 3-grams drawn from the corpus's highest tf-idf
//! 3-grams, fitness = mean absolute error between the multi-reference
//! estimate and the true 3-gram cosine over all pairs of a fixed sample of
//! training documents (Eq. 1), elitist selection of the best `population`
//! of parents and children.
//!
//! Reproducible: every random draw comes from one SplitMix64 stream seeded
//! by `seed` and made on one thread in a fixed order; only the fitness
//! evaluations run in parallel (rayon), and they are pure, so the same
//! seed and corpus give the same reference on any number of threads.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::signer::{grams, signature_cosine, Reference, Signer, TfVector};

/// Options of [`train`].
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// Seed of every random draw.
    pub seed: u64,
    /// Generations to run (the paper: about 50).
    pub generations: usize,
    /// Reference texts per generation (the paper: 100).
    pub population: usize,
    /// Parts per reference (signature length; the paper: 150).
    pub parts: usize,
    /// 3-grams per reference (the paper: 1000).
    pub length: usize,
    /// Highest tf-idf 3-grams the initial population and mutations draw
    /// from (the paper: 9000).
    pub pool: usize,
    /// Documents sampled from each split for the fitness (all pairs).
    pub sample: usize,
    /// Share of the corpus used for training; the rest is the holdout.
    pub train_share: f64,
}

impl Default for TrainOptions {
    fn default() -> TrainOptions {
        TrainOptions {
            seed: 1,
            generations: 50,
            population: 20,
            parts: 150,
            length: 1000,
            pool: 9000,
            sample: 80,
            train_share: 0.8,
        }
    }
}

/// The outcome of [`train`].
#[derive(Clone, Debug)]
pub struct TrainReport {
    /// The best reference of the last generation.
    pub reference: Reference,
    /// Its mean absolute error on the training sample.
    pub train_mae: f64,
    /// Its mean absolute error on the holdout sample (the number to quote).
    pub holdout_mae: f64,
    /// Best training error after each generation (index 0: initial).
    pub history: Vec<f64>,
    /// Pairs in the training and holdout samples.
    pub pairs: (usize, usize),
}

/// The trainer's generator: SplitMix64, tiny, fast and stable across
/// versions (a dependency's RNG could change its stream between releases
/// and break reproducibility); shared with the tests and benchmarks.
pub use neardup_api::SplitMix64 as Rng;

/// The `n` 3-grams with the highest tf-idf summed over documents (tf
/// normalized by document length), ties broken by the gram: the pool of
/// section 3.6.1.
pub fn tfidf_pool(docs: &[Vec<String>], n: usize) -> Vec<String> {
    let mut df: HashMap<&str, u32> = HashMap::new();
    let per_doc: Vec<HashMap<&str, u32>> = docs
        .iter()
        .map(|grams| {
            let mut tf: HashMap<&str, u32> = HashMap::new();
            for g in grams {
                *tf.entry(g.as_str()).or_insert(0) += 1;
            }
            tf
        })
        .collect();
    for tf in &per_doc {
        for g in tf.keys() {
            *df.entry(g).or_insert(0) += 1;
        }
    }
    let nd = docs.len() as f64;
    let mut score: HashMap<&str, f64> = HashMap::new();
    for (tf, grams) in per_doc.iter().zip(docs) {
        let len = grams.len().max(1) as f64;
        for (g, c) in tf {
            let idf = (nd / f64::from(df.get(g).copied().unwrap_or(1))).ln() + 1.0;
            *score.entry(g).or_insert(0.0) += f64::from(*c) / len * idf;
        }
    }
    let mut ranked: Vec<(&str, f64)> = score.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    ranked
        .into_iter()
        .take(n)
        .map(|(g, _)| g.to_owned())
        .collect()
}

/// A fixed sample of documents with all their pairwise true cosines.
struct Sample {
    tfs: Vec<TfVector>,
    truth: Vec<f64>,
}

impl Sample {
    fn new(tfs: Vec<TfVector>) -> Sample {
        let mut truth = Vec::new();
        for i in 0..tfs.len() {
            for j in i + 1..tfs.len() {
                if let (Some(a), Some(b)) = (tfs.get(i), tfs.get(j)) {
                    truth.push(a.cosine(b));
                }
            }
        }
        Sample { tfs, truth }
    }

    /// Eq. 1: mean |estimate - cosine| over all pairs.
    fn mae(&self, reference: &Reference) -> f64 {
        let signer = Signer::new(reference);
        let sigs: Vec<Vec<f32>> = self.tfs.iter().map(|t| signer.signature(t)).collect();
        let mut sum = 0.0;
        let mut k = 0;
        for i in 0..sigs.len() {
            for j in i + 1..sigs.len() {
                if let (Some(a), Some(b), Some(t)) = (sigs.get(i), sigs.get(j), self.truth.get(k)) {
                    sum += (signature_cosine(a, b) - t).abs();
                }
                k += 1;
            }
        }
        if self.truth.is_empty() {
            0.0
        } else {
            sum / self.truth.len() as f64
        }
    }
}

/// The mean absolute error (Eq. 1) of `reference` over all pairs of the
/// documents whose normalized words are `docs`.
pub fn mean_absolute_error(reference: &Reference, docs: &[Vec<String>]) -> f64 {
    Sample::new(docs.iter().map(TfVector::of_words).collect()).mae(reference)
}

/// Runs the genetic algorithm over documents given as normalized words.
///
/// # Errors
/// Fewer than 4 documents with 3-grams, a pool smaller than `length`, or
/// options out of range.
pub fn train(docs: &[Vec<String>], o: &TrainOptions) -> Result<TrainReport, String> {
    if o.population < 2 {
        return Err("population must be at least 2".into());
    }
    if o.parts == 0 || o.parts > o.length {
        return Err(format!("parts must be in 1..=length ({})", o.length));
    }
    if !(o.train_share > 0.0 && o.train_share < 1.0) {
        return Err("train share must be in (0, 1)".into());
    }
    let mut rng = Rng::new(o.seed);
    // Shuffle (Fisher-Yates), then split train/holdout.
    let mut order: Vec<usize> = (0..docs.len())
        .filter(|&i| docs.get(i).is_some_and(|w| !grams(w).is_empty()))
        .collect();
    if order.len() < 4 {
        return Err(format!(
            "need at least 4 documents with text, got {}",
            order.len()
        ));
    }
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let n_train = ((order.len() as f64 * o.train_share).round() as usize).clamp(2, order.len() - 2);
    let (train_ids, hold_ids) = order.split_at(n_train);
    let words = |ids: &[usize]| -> Vec<Vec<String>> {
        ids.iter().filter_map(|&i| docs.get(i).cloned()).collect()
    };
    let (train_docs, hold_docs) = (words(train_ids), words(hold_ids));

    let train_grams: Vec<Vec<String>> = train_docs.iter().map(grams).collect();
    let pool = tfidf_pool(&train_grams, o.pool);
    if pool.len() < o.parts {
        return Err(format!(
            "the corpus has only {} distinct 3-grams, fewer than {} parts",
            pool.len(),
            o.parts
        ));
    }
    let tf = |ds: &[Vec<String>]| -> Vec<TfVector> {
        ds.iter().take(o.sample).map(TfVector::of_words).collect()
    };
    let train_sample = Sample::new(tf(&train_docs));
    let hold_sample = Sample::new(tf(&hold_docs));

    let to_reference = |genes: &[u32]| -> Result<Reference, String> {
        let grams = genes
            .iter()
            .filter_map(|&g| pool.get(g as usize).cloned())
            .collect();
        Reference::new(grams, o.parts)
    };
    let fitness = |pop: &[Vec<u32>]| -> Result<Vec<f64>, String> {
        pop.par_iter()
            .map(|genes| to_reference(genes).map(|r| train_sample.mae(&r)))
            .collect()
    };

    let pool_n = pool.len();
    let mut population: Vec<Vec<u32>> = (0..o.population)
        .map(|_| (0..o.length).map(|_| rng.below(pool_n) as u32).collect())
        .collect();
    let mut scores = fitness(&population)?;
    let mut history = vec![scores.iter().copied().fold(f64::INFINITY, f64::min)];
    for _ in 0..o.generations {
        // Intermediate population: pairs of random parents, single-cut
        // crossover (both children), then 10% of each child's 3-grams
        // replaced by random pool 3-grams.
        let mut children = Vec::with_capacity(o.population);
        while children.len() < o.population {
            let (pa, pb) = (rng.below(o.population), rng.below(o.population));
            let (Some(a), Some(b)) = (population.get(pa), population.get(pb)) else {
                continue;
            };
            let cut = 1 + rng.below(o.length.saturating_sub(1).max(1));
            let cut = cut.min(o.length);
            for (x, y) in [(a, b), (b, a)] {
                let mut child: Vec<u32> = x
                    .iter()
                    .take(cut)
                    .chain(y.iter().skip(cut))
                    .copied()
                    .collect();
                let mutations = (o.length as f64 * 0.1).round() as usize;
                for _ in 0..mutations {
                    let pos = rng.below(o.length);
                    if let Some(g) = child.get_mut(pos) {
                        *g = rng.below(pool_n) as u32;
                    }
                }
                children.push(child);
            }
        }
        let child_scores = fitness(&children)?;
        // Elitist selection over parents and children by error (ties: the
        // earlier one, so the order is deterministic).
        let mut all: Vec<(f64, Vec<u32>)> = scores
            .into_iter()
            .zip(population)
            .chain(child_scores.into_iter().zip(children))
            .collect();
        all.sort_by(|a, b| a.0.total_cmp(&b.0));
        all.truncate(o.population);
        scores = all.iter().map(|a| a.0).collect();
        population = all.into_iter().map(|a| a.1).collect();
        history.push(scores.first().copied().unwrap_or(f64::NAN));
    }
    let best = population.first().ok_or("empty population")?;
    let reference = to_reference(best)?;
    Ok(TrainReport {
        train_mae: train_sample.mae(&reference),
        holdout_mae: hold_sample.mae(&reference),
        reference,
        history,
        pairs: (train_sample.truth.len(), hold_sample.truth.len()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_api::conformance::words;

    fn corpus() -> Vec<Vec<String>> {
        (0..24)
            .map(|i| {
                // Groups of 4 documents share most words, so true cosines
                // spread over 0..1.
                let mut w = words(i / 4, 120);
                w.extend(words(1000 + i, 40));
                w
            })
            .collect()
    }

    fn options(seed: u64) -> TrainOptions {
        TrainOptions {
            seed,
            generations: 8,
            population: 6,
            parts: 10,
            length: 60,
            pool: 400,
            sample: 30,
            train_share: 0.8,
        }
    }

    #[test]
    fn same_seed_same_reference_other_seed_differs() {
        let docs = corpus();
        let a = train(&docs, &options(5)).unwrap();
        let b = train(&docs, &options(5)).unwrap();
        assert_eq!(a.reference, b.reference);
        assert_eq!(a.history, b.history);
        let c = train(&docs, &options(6)).unwrap();
        assert_ne!(a.reference, c.reference);
    }

    #[test]
    fn same_result_on_one_thread_and_two() {
        let docs = corpus();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let a = one.install(|| train(&docs, &options(9)).unwrap());
        let b = two.install(|| train(&docs, &options(9)).unwrap());
        assert_eq!(a.reference, b.reference);
    }

    #[test]
    fn elitism_never_worsens_and_shape_is_kept() {
        let r = train(&corpus(), &options(3)).unwrap();
        assert_eq!(r.history.len(), 9);
        assert!(
            r.history.windows(2).all(|w| w[1] <= w[0]),
            "{:?}",
            r.history
        );
        assert_eq!(r.reference.grams().len(), 60);
        assert_eq!(r.reference.parts(), 10);
        // The reported training error is the fitness of the best.
        assert!((r.train_mae - r.history[8]).abs() < 1e-12);
        assert!((0.0..=1.0).contains(&r.holdout_mae));
    }

    #[test]
    fn pool_ranks_by_summed_tfidf() {
        let docs = vec![
            vec!["aaa".to_owned(), "xyz".to_owned()],
            vec!["aaa".to_owned(), "xyz".to_owned()],
            vec!["aaa".to_owned(), "qqq".to_owned()],
        ];
        let pool = tfidf_pool(&docs, 10);
        // Scores (tf = 1/2 in each doc, idf = ln(3/df) + 1): aaa 3 * 0.5 *
        // 1 = 1.5, xyz 2 * 0.5 * (ln 1.5 + 1) = 1.405, qqq 0.5 * (ln 3 + 1)
        // = 1.049.
        assert_eq!(pool, vec!["aaa", "xyz", "qqq"]);
        assert_eq!(tfidf_pool(&docs, 2), vec!["aaa", "xyz"]);
    }

    #[test]
    fn rejects_tiny_corpus() {
        assert!(train(&corpus()[..3], &options(1)).is_err());
    }
}
