//! `neardup compare`: the detector comparison tables of docs/detectors.md
//! that `neardup eval` does not print.
//!
//! - `--bench DIR`: bytes per page of each detector's signature (postcard,
//!   as the redb store writes it) and of its in-memory index, after
//!   checking every page of the benchmark's manifest with that detector
//!   alone.
//! - `--clough DIR`: the Clough-Stevenson graded corpus (answers graded
//!   cut, light, heavy, non against a source article): each detector's
//!   resemblance between answer and source through the public
//!   `Detector::sign` + `Detector::similarity`, summarized per grade, and
//!   how well it separates cut+light from non (AUC and best-threshold
//!   accuracy).
//!
//! Output is Markdown, ready to paste (scripts/detectors.sh does).

use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context as _};
use neardup::Config;
use neardup::Deduper;
use neardup::MemoryStore;
use neardup_batch::input::Item;

use super::args::{Args, CompareArgs};

/// The grades of the Clough-Stevenson corpus, most to least copied.
const GRADES: [&str; 4] = ["cut", "light", "heavy", "non"];

/// Runs the command.
pub fn run(args: &Args, a: &CompareArgs) -> anyhow::Result<ExitCode> {
    if a.bench.is_none() && a.clough.is_none() {
        bail!("nothing to compare: give --bench DIR and/or --clough DIR");
    }
    let base = super::setup::load_config(args.config.as_deref(), &[])?;
    let registry = neardup::plugins::registry();
    let names: Vec<String> = if a.detectors.detectors.is_empty() {
        registry.names().iter().map(|s| (*s).to_owned()).collect()
    } else {
        a.detectors.detectors.clone()
    };
    let mut out = std::io::stdout().lock();
    if let Some(bench) = &a.bench {
        writeln!(out, "{}", sizes_table(bench, &base, &names)?)?;
    }
    if let Some(clough) = &a.clough {
        writeln!(out, "{}", graded_tables(clough, &base, &names)?)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The config with `name` as the whole chain (its `[plugins.NAME]` and
/// built-in settings kept).
fn alone(base: &Config, name: &str) -> anyhow::Result<Config> {
    let mut c = base.clone();
    c.decide.detectors = vec![name.to_owned()];
    // A built-in turned off in the config file would leave an empty chain.
    match name {
        "simhash" => c.simhash.enabled = true,
        "chunks" => c.chunks.enabled = true,
        _ => {}
    }
    c.validate()
        .with_context(|| format!("configuration with detector {name} alone"))?;
    Ok(c)
}

fn deduper_for(base: &Config, name: &str) -> anyhow::Result<Deduper> {
    Deduper::with_registry(
        alone(base, name)?,
        &neardup::plugins::registry(),
        Box::<MemoryStore>::default(),
    )
    .with_context(|| format!("building detector {name}"))
}

/// Signature and index bytes per page on a benchmark's manifest.
fn sizes_table(bench: &Path, base: &Config, names: &[String]) -> anyhow::Result<String> {
    let manifest = bench.join("manifest.tsv");
    let items = neardup_batch::input::read(&manifest)
        .with_context(|| format!("reading {}", manifest.display()))?;
    let pages: Vec<_> = items
        .into_iter()
        .filter_map(|i| match i {
            Item::Page(p) => Some(p),
            Item::Warning(w) => {
                eprintln!("warning: {}: {}", w.location, w.message);
                None
            }
        })
        .collect();
    if pages.is_empty() {
        bail!("no readable page in {}", manifest.display());
    }
    let mut s = format!(
        "Sizes on {} pages of {}: signature = postcard-encoded bytes per checked page \
         (as stored by the redb store); index = the detector's in-memory index heap and \
         store = the document store heap (all signatures, keys, URLs), per indexed page.\n\n\
         | detector | signature B/page | index B/page | store B/page | indexed pages |\n\
         |---|---|---|---|---|\n",
        pages.len(),
        bench.display()
    );
    for name in names {
        let mut d = deduper_for(base, name)?;
        let mut sig_bytes = 0usize;
        for p in &pages {
            let analyzed = d.analyze(&p.key, &p.url, &p.body, p.content_type.as_deref());
            if let Some(sig) = analyzed.signatures.first() {
                sig_bytes += postcard::to_allocvec(sig)
                    .with_context(|| format!("encoding a {name} signature"))?
                    .len();
            }
            d.decide(analyzed)
                .with_context(|| format!("checking {} with {name}", p.key))?;
        }
        let indexed = d.stats().indexed.max(1) as f64;
        let mem = d.memory();
        let tier = |t: &str| {
            mem.iter()
                .find(|(n, _)| n == t)
                .map_or(0.0, |(_, b)| *b as f64)
        };
        s.push_str(&format!(
            "| {name} | {:.0} | {:.0} | {:.0} | {} |\n",
            sig_bytes as f64 / pages.len() as f64,
            tier(name) / indexed,
            tier("store") / indexed,
            d.stats().indexed
        ));
    }
    Ok(s)
}

/// One graded answer: its file, task letter and grade index into `GRADES`.
struct Answer {
    file: String,
    task: String,
    grade: usize,
}

/// Reads `file_information.csv` (`File,Task,Category`), skipping the
/// header and the source rows (category `orig`).
fn read_answers(dir: &Path) -> anyhow::Result<Vec<Answer>> {
    let path = dir.join("file_information.csv");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let mut answers = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let (Some(file), Some(task), Some(cat)) = (f.first(), f.get(1), f.get(2)) else {
            bail!("{}:{}: expected File,Task,Category", path.display(), n + 1);
        };
        match GRADES.iter().position(|g| g == cat) {
            Some(grade) => answers.push(Answer {
                file: (*file).to_owned(),
                task: (*task).to_owned(),
                grade,
            }),
            None if *cat == "orig" => {}
            None => bail!(
                "{}:{}: unknown category {cat:?} (expected one of {})",
                path.display(),
                n + 1,
                GRADES.join(", ")
            ),
        }
    }
    if answers.is_empty() {
        bail!("no graded answer in {}", path.display());
    }
    Ok(answers)
}

/// Reads a corpus text file; the corpus has a few Latin-1 bytes, so
/// decode lossily rather than fail.
fn read_text(path: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Per-grade score distributions and separation for every detector.
fn graded_tables(dir: &Path, base: &Config, names: &[String]) -> anyhow::Result<String> {
    let answers = read_answers(dir)?;
    let registry = neardup::plugins::registry();
    let mut dist = String::from(
        "Resemblance of each answer to its source, per grade: min / q1 / median / q3 / max.\n\n\
         | detector | cut | light | heavy | non |\n|---|---|---|---|---|\n",
    );
    let mut sep = String::from(
        "Separation of cut+light (positive) from non (negative), heavy left out: AUC \
         (probability that a random positive scores above a random negative, ties half) \
         and the best accuracy of one threshold (score >= t is positive).\n\n\
         | detector | AUC | best accuracy | at t | AUC on containment |\n|---|---|---|---|---|\n",
    );
    for name in names {
        let d = deduper_for(base, name)?;
        let detector = registry.build(name, &alone(base, name)?)?;
        let sign = |file: &str| -> anyhow::Result<neardup::Signature> {
            let text = read_text(&dir.join(file))?;
            let analyzed = d.analyze_text(file, &format!("file:///{file}"), &text);
            Ok(analyzed
                .signatures
                .into_iter()
                .next()
                .unwrap_or(neardup::Signature::Empty))
        };
        let mut res: Vec<Vec<f64>> = vec![Vec::new(); GRADES.len()];
        let mut con: Vec<Vec<f64>> = vec![Vec::new(); GRADES.len()];
        for a in &answers {
            let answer = sign(&a.file)?;
            let source = sign(&format!("orig_task{}.txt", a.task))?;
            let s = detector.similarity(&answer, &source);
            if let (Some(r), Some(c)) = (res.get_mut(a.grade), con.get_mut(a.grade)) {
                r.push(s.resemblance);
                c.push(s.containment);
            }
        }
        let cells: Vec<String> = res.iter().map(|v| five_numbers(v)).collect();
        dist.push_str(&format!("| {name} | {} |\n", cells.join(" | ")));
        let split = |v: &[Vec<f64>]| -> (Vec<f64>, Vec<f64>) {
            let pos = v.iter().take(2).flatten().copied().collect();
            let neg = v.get(3).cloned().unwrap_or_default();
            (pos, neg)
        };
        let (pos, neg) = split(&res);
        let (cpos, cneg) = split(&con);
        let (acc, t) = best_threshold(&pos, &neg);
        sep.push_str(&format!(
            "| {name} | {:.3} | {:.3} | {t:.3} | {:.3} |\n",
            auc(&pos, &neg),
            acc,
            auc(&cpos, &cneg)
        ));
    }
    let counts: Vec<String> = GRADES
        .iter()
        .enumerate()
        .map(|(g, name)| format!("{name} {}", answers.iter().filter(|a| a.grade == g).count()))
        .collect();
    Ok(format!(
        "Clough-Stevenson answers ({}), each against its task's source article.\n\n{dist}\n{sep}",
        counts.join(", ")
    ))
}

/// Quantile by linear interpolation between order statistics (type 7, as
/// numpy and R default); `sorted` must be ascending and non-empty.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let Some(last) = sorted.len().checked_sub(1) else {
        return f64::NAN;
    };
    let pos = q.clamp(0.0, 1.0) * last as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let (Some(a), Some(b)) = (sorted.get(lo), sorted.get(hi)) else {
        return f64::NAN;
    };
    a + (b - a) * (pos - lo as f64)
}

/// `min / q1 / median / q3 / max`, two decimals; `-` for no values.
fn five_numbers(v: &[f64]) -> String {
    if v.is_empty() {
        return "-".into();
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    [0.0, 0.25, 0.5, 0.75, 1.0]
        .iter()
        .map(|q| format!("{:.2}", quantile(&s, *q)))
        .collect::<Vec<_>>()
        .join(" / ")
}

/// Area under the ROC curve: the share of (positive, negative) pairs where
/// the positive scores higher, ties counting half. NaN without pairs.
fn auc(pos: &[f64], neg: &[f64]) -> f64 {
    if pos.is_empty() || neg.is_empty() {
        return f64::NAN;
    }
    let mut wins = 0.0;
    for p in pos {
        for n in neg {
            wins += match p.total_cmp(n) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Less => 0.0,
            };
        }
    }
    wins / (pos.len() * neg.len()) as f64
}

/// The best accuracy of the rule "score >= t is positive" over every
/// threshold, and the lowest `t` reaching it (a threshold above every
/// score, calling everything negative, is a candidate too: reported as
/// infinity).
fn best_threshold(pos: &[f64], neg: &[f64]) -> (f64, f64) {
    let total = (pos.len() + neg.len()) as f64;
    if total == 0.0 {
        return (f64::NAN, f64::NAN);
    }
    let mut candidates: Vec<f64> = pos.iter().chain(neg).copied().collect();
    candidates.push(f64::INFINITY);
    candidates.sort_by(f64::total_cmp);
    candidates.dedup();
    let mut best = (-1.0, f64::INFINITY);
    for t in candidates {
        let tp = pos.iter().filter(|s| **s >= t).count();
        let tn = neg.iter().filter(|s| **s < t).count();
        let acc = (tp + tn) as f64 / total;
        if acc > best.0 {
            best = (acc, t);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auc_counts_wins_and_half_ties() {
        // Pairs: (0.9,0.1) win, (0.9,0.5) win, (0.5,0.1) win, (0.5,0.5) tie.
        assert_eq!(auc(&[0.9, 0.5], &[0.1, 0.5]), 3.5 / 4.0);
        assert_eq!(auc(&[0.2], &[0.3]), 0.0);
        assert!(auc(&[], &[0.3]).is_nan());
    }

    #[test]
    fn best_threshold_finds_the_separating_cut() {
        // Perfectly separable at 0.6: every positive >= 0.6, negatives below.
        assert_eq!(best_threshold(&[0.6, 0.8], &[0.1, 0.5]), (1.0, 0.6));
        // Overlap: pos {0.4, 0.9}, neg {0.5}. t=0.9 gives 2/3 (0.9 pos, 0.5
        // neg, 0.4 wrongly neg); t=0.4 gives 2/3 too; the lowest t wins.
        assert_eq!(best_threshold(&[0.4, 0.9], &[0.5]), (2.0 / 3.0, 0.4));
        // Negatives above every positive: calling all negative is best.
        assert_eq!(
            best_threshold(&[0.1], &[0.7, 0.8]),
            (2.0 / 3.0, f64::INFINITY)
        );
    }

    #[test]
    fn quartiles_interpolate() {
        let s = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile(&s, 0.25), 2.0);
        assert_eq!(quantile(&[0.0, 1.0], 0.25), 0.25);
        assert_eq!(
            five_numbers(&[3.0, 1.0, 2.0]),
            "1.00 / 1.50 / 2.00 / 2.50 / 3.00"
        );
        assert_eq!(five_numbers(&[]), "-");
    }
}
