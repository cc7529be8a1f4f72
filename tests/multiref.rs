//! Multi-reference cosine: the detector through the binary, the
//! `train-reference` command's reproducibility, and the candidate index's
//! recall against a brute-force scan on the Clough-Stevenson texts.

use neardup_api::{Detector, Signature};
use neardup_multiref::{signature_cosine, MultirefDetector, Reference, Settings};

use crate::util::{read_verdicts, verdict, Dir};

#[test]
fn multiref_alone_finds_the_near_copy() {
    let dir = Dir::new();
    dir.copy_testdata("pages", "pages");
    dir.run(&[
        "dedup",
        "pages",
        "--out",
        "out",
        "--detector",
        "multiref",
        "-q",
    ])
    .expect_code(0);
    let verdicts = read_verdicts(&dir.read("out/verdicts.jsonl"));
    let near = verdict(&verdicts, "near");
    assert!(
        near["verdict"] == "near_duplicate" || near["verdict"] == "duplicate",
        "{near}"
    );
    assert_eq!(near["of"], "article", "{near}");
    assert_eq!(near["detector"], "multiref", "{near}");
    assert_eq!(verdict(&verdicts, "unrelated")["verdict"], "unique");
}

/// A small text corpus: 5 topics of 6 documents each, every document the
/// topic's sentences with some words of its own, so pairs range from
/// unrelated to close.
fn write_corpus(dir: &Dir) {
    let vocab: Vec<String> = (0..400)
        .map(|i| format!("w{}x{}", i * 7919 % 1000, i % 13))
        .collect();
    for topic in 0..5usize {
        for d in 0..6usize {
            let words: Vec<&str> = (0..150)
                .map(|k| {
                    let i = if k % 5 == d % 5 {
                        200 + (k * 31 + d * 17) % 200
                    } else {
                        (topic * 40 + k) % 200
                    };
                    vocab.get(i).map_or("x", String::as_str)
                })
                .collect();
            dir.write(&format!("corpus/t{topic}d{d}.txt"), words.join(" "));
        }
    }
}

fn train(dir: &Dir, seed: &str, out: &str) -> String {
    dir.run(&[
        "train-reference",
        "--text",
        "corpus",
        "--out",
        out,
        "--seed",
        seed,
        "--generations",
        "6",
        "--population",
        "8",
        "--parts",
        "20",
        "--length",
        "120",
    ])
    .expect_code(0);
    dir.read(out)
}

#[test]
fn train_reference_is_reproducible_and_loadable() {
    let dir = Dir::new();
    write_corpus(&dir);
    let a = train(&dir, "7", "a.txt");
    let b = train(&dir, "7", "b.txt");
    assert_eq!(a, b, "same seed, same corpus: same file");
    let c = train(&dir, "8", "c.txt");
    let (ra, rc) = (Reference::parse(&a).unwrap(), Reference::parse(&c).unwrap());
    assert_ne!(ra, rc, "another seed gives another reference");
    assert_eq!(ra.grams().len(), 120);
    assert_eq!(ra.parts(), 20);
    assert!(a.contains("# command: neardup train-reference --text corpus --seed 7"));
    // The file works as the detector's reference.
    let settings = format!(
        "[plugins.multiref]\nreference = \"{}\"\n",
        dir.join("a.txt").display()
    );
    dir.write("mr.toml", settings);
    dir.copy_testdata("pages", "pages");
    dir.run(&[
        "--config",
        "mr.toml",
        "dedup",
        "pages",
        "--out",
        "out",
        "--detector",
        "multiref",
        "-q",
    ])
    .expect_code(0);
}

#[test]
fn index_finds_every_pair_above_t2_on_clough_stevenson() {
    let Some(data) = crate::skip::shared("datasets/clough-stevenson/data") else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&data)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let normalizer = neardup_text::Normalizer::new(&neardup::Config::default().text);
    let d = MultirefDetector::new(Settings::default()).unwrap();
    let t2 = Settings::default().t2;
    let sigs: Vec<Signature> = files
        .iter()
        .map(|p| {
            let text = String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
            let words = normalizer.normalize(&text, None).words;
            d.sign(&neardup_api::Document {
                words,
                ..Default::default()
            })
        })
        .collect();
    // Online order: each document against the ones before it.
    let mut index = d.new_index();
    let (mut above, mut found, mut candidates, mut compared) = (0, 0, 0usize, 0usize);
    for (i, s) in sigs.iter().enumerate() {
        let mut out = Vec::new();
        index.candidates(s, &mut out);
        candidates += out.len();
        compared += i;
        for (j, e) in sigs.iter().enumerate().take(i) {
            let (Signature::Vector(a), Signature::Vector(b)) = (s, e) else {
                continue;
            };
            if signature_cosine(a, b) >= t2 {
                above += 1;
                found += usize::from(out.contains(&(j as u32)));
            }
        }
        index.insert(i as u32, s);
    }
    eprintln!(
        "multiref index: {found}/{above} pairs >= t2 found; {candidates} candidates of {compared} earlier documents"
    );
    assert!(above >= 5, "the corpus has copied answers: {above}");
    assert_eq!(found, above);
}
