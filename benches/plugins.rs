//! Plugin detectors: signing (pages/s) and their candidate indexes (insert
//! every page, then look every page up), on the readability pages' main
//! text (generated text when ../shared is absent), beside the built-in
//! chunk detector for scale. `allpairs` (not a detector: an exact batch
//! join) joins the same pages' word 5-shingle sets at J = 0.5 and 0.9;
//! `benches/allpairs.rs` scales it to 100,000 generated documents.
//!
//! `cargo bench --bench plugins`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup::ChunkDetector;
use neardup::Detector;
use neardup::Document;
use neardup::{ChunkConfig, TextConfig};
use neardup_text::Normalizer;

#[path = "text_corpus.rs"]
mod corpus;

fn documents() -> (Vec<Document>, &'static str) {
    let (pages, real) = corpus::pages();
    let n = Normalizer::new(&TextConfig::default());
    let docs = pages
        .iter()
        .map(|p| {
            let norm = n.normalize(p, None);
            Document {
                text: p.clone(),
                lang: norm.lang,
                words: norm.words,
                terms: norm.terms,
                ..Document::default()
            }
        })
        .collect();
    (docs, if real { "readability" } else { "generated" })
}

fn detectors() -> Vec<Box<dyn Detector>> {
    let minhash_seeds = neardup_minhash::MinhashSettings {
        scheme: neardup_minhash::Scheme::Seeds,
        ..Default::default()
    };
    let built: Vec<Result<Box<dyn Detector>, neardup_api::SettingError>> = vec![
        Ok(Box::new(ChunkDetector::new(&ChunkConfig::default()))),
        neardup_minhash::MinhashDetector::new(Default::default()).map(|d| Box::new(d) as _),
        neardup_minhash::MinhashDetector::new(minhash_seeds).map(|d| Box::new(d) as _),
        neardup_minhash::MinNDetector::new(Default::default()).map(|d| Box::new(d) as _),
        neardup_minhash::ModNDetector::new(Default::default()).map(|d| Box::new(d) as _),
        neardup_bsw::BswDetector::new(Default::default()).map(|d| Box::new(d) as _),
        neardup_sentence::SentenceDetector::new(Default::default()).map(|d| Box::new(d) as _),
        neardup_multiref::MultirefDetector::new(Default::default()).map(|d| Box::new(d) as _),
    ];
    built.into_iter().map(|d| d.unwrap()).collect()
}

/// Bench name of a detector: the seeded MinHash variant gets a suffix.
fn label(i: usize, d: &dyn Detector) -> String {
    if i == 2 {
        format!("{}_seeds", d.name())
    } else {
        d.name().to_owned()
    }
}

fn sign(c: &mut Criterion) {
    let (docs, source) = documents();
    let mut group = c.benchmark_group("plugin_sign");
    group.throughput(Throughput::Elements(docs.len() as u64));
    for (i, d) in detectors().iter().enumerate() {
        group.bench_function(format!("{source}_{}", label(i, d.as_ref())), |b| {
            b.iter(|| {
                let mut features = 0usize;
                for doc in &docs {
                    features += usize::from(!d.sign(black_box(doc)).is_empty());
                }
                assert!(features > 0);
            })
        });
    }
    group.finish();
}

fn index(c: &mut Criterion) {
    let (docs, source) = documents();
    let mut group = c.benchmark_group("plugin_index");
    group.throughput(Throughput::Elements(docs.len() as u64));
    for (i, d) in detectors().iter().enumerate() {
        let sigs: Vec<_> = docs.iter().map(|doc| d.sign(doc)).collect();
        group.bench_function(
            format!("{source}_{}_insert_and_lookup", label(i, d.as_ref())),
            |b| {
                b.iter(|| {
                    let mut index = d.new_index();
                    let mut out = Vec::new();
                    for (id, s) in sigs.iter().enumerate() {
                        out.clear();
                        index.candidates(black_box(s), &mut out);
                        index.insert(id as u32, s);
                    }
                    assert!(!index.is_empty());
                })
            },
        );
    }
    group.finish();
}

/// Exact all-pairs Jaccard over the pages' word 5-shingle sets (the
/// `neardup pairs` join), shingling included.
fn allpairs(c: &mut Criterion) {
    use neardup_allpairs::{all_pairs, shingle_ids, DocSet, Options};
    let (docs, source) = documents();
    let mut group = c.benchmark_group("plugin_allpairs");
    group.throughput(Throughput::Elements(docs.len() as u64));
    for threshold in [0.5, 0.9] {
        group.bench_function(format!("{source}_allpairs_j{threshold}"), |b| {
            b.iter(|| {
                let sets: Vec<DocSet> = docs
                    .iter()
                    .map(|d| {
                        let terms: Vec<&str> = d.terms.iter().collect();
                        DocSet::from_shingles(shingle_ids(black_box(&terms), 5))
                    })
                    .collect();
                let options = Options {
                    threshold,
                    count_unfiltered: false,
                    ..Options::default()
                };
                let outcome = all_pairs(&sets, &options);
                assert!(outcome.is_ok());
                outcome
            })
        });
    }
    group.finish();
}

criterion_group!(benches, sign, index, allpairs);
criterion_main!(benches);
