//! The Clough-Stevenson graded comparison for multi-reference cosine: each
//! answer's estimated similarity (and true 3-gram cosine) to its task's
//! source article, summarized per grade (cut, light, heavy, non), and the
//! AUC of cut+light against non (the probability that a random cut/light
//! answer scores above a random non answer).
//!
//! `cargo run --release -p neardup-multiref --example clough_graded [DATA_DIR] [REFERENCE]`
//!
//! Words are lowercased alphanumeric runs (a stand-in for the core's
//! normalizer, which this crate cannot depend on).

use std::path::{Path, PathBuf};

use neardup_multiref::{signature_cosine, Reference, Signer, TfVector};

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn auc(pos: &[f64], neg: &[f64]) -> f64 {
    let mut wins = 0.0;
    for p in pos {
        for n in neg {
            wins += if p > n {
                1.0
            } else if p == n {
                0.5
            } else {
                0.0
            };
        }
    }
    wins / (pos.len() * neg.len()).max(1) as f64
}

fn summary(v: &mut [f64]) -> String {
    v.sort_by(f64::total_cmp);
    let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
    let q = |f: f64| {
        v.get(((v.len() - 1) as f64 * f) as usize)
            .copied()
            .unwrap_or(f64::NAN)
    };
    format!(
        "{:>3} | {mean:.3} | {:.3} | {:.3} | {:.3}",
        v.len(),
        q(0.0),
        q(0.5),
        q(1.0)
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let data = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "../shared/datasets/clough-stevenson/data".into()),
    );
    let reference = match args.next() {
        Some(p) => Reference::parse(&std::fs::read_to_string(p)?)?,
        None => Reference::shipped()?,
    };
    let signer = Signer::new(&reference);
    let read = |p: &Path| -> Result<TfVector, std::io::Error> {
        let bytes = std::fs::read(p)?;
        Ok(TfVector::of_words(words(&String::from_utf8_lossy(&bytes))))
    };
    let info = std::fs::read_to_string(data.join("file_information.csv"))?;
    let grades = ["cut", "light", "heavy", "non"];
    let mut est: Vec<Vec<f64>> = vec![Vec::new(); 4];
    let mut truth: Vec<Vec<f64>> = vec![Vec::new(); 4];
    for line in info.lines().skip(1) {
        let f: Vec<&str> = line.trim().split(',').collect();
        let (Some(file), Some(task), Some(cat)) = (f.first(), f.get(1), f.get(2)) else {
            continue;
        };
        let Some(g) = grades.iter().position(|x| x == cat) else {
            continue;
        };
        let answer = read(&data.join(file))?;
        let source = read(&data.join(format!("orig_task{task}.txt")))?;
        let (sa, ss) = (signer.signature(&answer), signer.signature(&source));
        est[g].push(signature_cosine(&sa, &ss));
        truth[g].push(answer.cosine(&source));
    }
    for (name, scores) in [
        ("multiref estimate", &mut est),
        ("true 3-gram cosine", &mut truth),
    ] {
        println!(
            "\n{name}\n\n| grade | n | mean | min | median | max |\n|---|---|---|---|---|---|"
        );
        for (g, v) in grades.iter().zip(scores.iter_mut()) {
            println!("| {g} | {} |", summary(v));
        }
        let pos: Vec<f64> = scores[0].iter().chain(&scores[1]).copied().collect();
        println!("\nAUC cut+light vs non: {:.3}", auc(&pos, &scores[3]));
    }
    Ok(())
}
