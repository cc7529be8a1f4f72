//! Signature throughput: the gear chunker vs the fastcdc crate (MB/s of
//! normalized text), chunk-set and SimHash signing (pages/s).
//!
//! `cargo bench --bench signature`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup::Detector;
use neardup::Document;
use neardup::GearChunker;
use neardup::{ChunkConfig, Chunker, SimhashConfig, TextConfig};
use neardup::{ChunkDetector, SimhashDetector};
use neardup_text::Normalizer;

#[path = "text_corpus.rs"]
mod corpus;

/// The pages as documents, and their terms joined by spaces (what the chunk
/// detector chunks).
fn documents() -> (Vec<Document>, Vec<Vec<u8>>, &'static str) {
    let (pages, real) = corpus::pages();
    let n = Normalizer::new(&TextConfig::default());
    let docs: Vec<Document> = pages
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
    let texts = docs
        .iter()
        .map(|d| d.terms.join(" ").into_bytes())
        .collect();
    (docs, texts, if real { "readability" } else { "generated" })
}

fn chunkers(c: &mut Criterion) {
    let (_, texts, source) = documents();
    let bytes: usize = texts.iter().map(Vec::len).sum();
    let gear = GearChunker::new(8, 32, 128, 16);
    let mut group = c.benchmark_group("chunker");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function(format!("{source}_gear_32"), |b| {
        b.iter(|| {
            let mut n = 0usize;
            for t in &texts {
                gear.for_each_chunk(black_box(t), |ch| n += ch.len());
            }
            assert_eq!(n, bytes);
        })
    });
    group.bench_function(format!("{source}_fastcdc_256"), |b| {
        b.iter(|| {
            let mut n = 0usize;
            for t in &texts {
                for ch in fastcdc::v2020::FastCDC::new(black_box(t), 64, 256, 1024) {
                    n += ch.length;
                }
            }
            assert_eq!(n, bytes);
        })
    });
    group.finish();
}

fn detectors(c: &mut Criterion) {
    let (docs, _, source) = documents();
    let mut group = c.benchmark_group("sign");
    group.throughput(Throughput::Elements(docs.len() as u64));
    let simhash = SimhashDetector::new(&SimhashConfig::default());
    let gear = ChunkDetector::new(&ChunkConfig::default());
    let fastcdc = ChunkDetector::new(&ChunkConfig {
        chunker: Chunker::Fastcdc,
        min_size: 64,
        avg_size: 256,
        max_size: 1024,
        ..ChunkConfig::default()
    });
    for (name, d) in [
        ("simhash", &simhash as &dyn Detector),
        ("chunks_gear", &gear),
        ("chunks_fastcdc", &fastcdc),
    ] {
        group.bench_function(format!("{source}_{name}_pages"), |b| {
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

criterion_group!(benches, chunkers, detectors);
criterion_main!(benches);
