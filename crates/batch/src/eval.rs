//! Benchmark scoring, as `../shared/bench/score.py` defines it.
//!
//! Two views of a clustering against gold labels:
//! - pairwise: precision/recall/F1 over all doc pairs, a pair being
//!   positive if and only if both docs are in the same cluster;
//! - crawl-order drop: walking `order.txt`, a doc should be dropped if and
//!   only if an earlier doc is in its cluster; precision/recall/F1 (and
//!   accuracy) of that decision, which is what a crawler feels.
//!
//! Plus a per-kind table (docs, share of gold partners found, false-positive
//! pairs). Docs missing from the predictions are singletons; predicted ids
//! not in the labels are ignored. [`Score::report`] prints the same text as
//! score.py, digit for digit, so the two can be compared.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use neardup::{Error, Result};

/// Gold labels: doc -> cluster, and doc -> kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Labels {
    /// Gold cluster of each doc, sorted by doc id.
    pub gold: BTreeMap<String, String>,
    /// How each doc was made (`kind` column; `?` when the column is absent).
    pub kind: BTreeMap<String, String>,
}

impl Labels {
    /// Number of distinct gold clusters.
    pub fn clusters(&self) -> usize {
        let mut ids: Vec<&str> = self.gold.values().map(String::as_str).collect();
        ids.sort_unstable();
        ids.dedup();
        ids.len()
    }

    /// Labeled docs that `pred` (doc -> cluster) does not name: the
    /// scorer counts each as a singleton.
    pub fn missing_from<V>(&self, pred: &HashMap<String, V>) -> usize {
        self.gold.keys().filter(|d| !pred.contains_key(*d)).count()
    }
}

fn bad(path: &Path, line: usize, message: impl std::fmt::Display) -> Error {
    Error::Input {
        path: path.to_owned(),
        message: format!("line {line}: {message}"),
    }
}

fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| Error::io(path, e))
}

/// Reads `labels.tsv`: tab-separated with a header naming at least `doc_id`
/// and `cluster_id` (any order; `kind` optional), blank lines skipped.
///
/// # Errors
/// I/O errors, a header without those columns, a row too short to hold
/// them.
pub fn read_labels(path: &Path) -> Result<Labels> {
    parse_labels(&read_text(path)?, path)
}

/// [`read_labels`] on text; `path` only labels errors.
///
/// # Errors
/// As [`read_labels`].
pub fn parse_labels(text: &str, path: &Path) -> Result<Labels> {
    // score.py strips only the newline: fields are taken as written.
    let mut lines = text.split_inclusive('\n');
    let header: Vec<&str> = lines
        .next()
        .unwrap_or_default()
        .trim_end_matches('\n')
        .split('\t')
        .collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (Some(doc_col), Some(cluster_col)) = (col("doc_id"), col("cluster_id")) else {
        return Err(bad(path, 1, "header must contain doc_id and cluster_id"));
    };
    let kind_col = col("kind");
    let mut labels = Labels::default();
    for (i, line) in lines.enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.trim_end_matches('\n').split('\t').collect();
        let (Some(doc), Some(cluster)) = (fields.get(doc_col), fields.get(cluster_col)) else {
            return Err(bad(path, i + 2, "row lacks the doc_id or cluster_id field"));
        };
        let kind = match kind_col {
            None => "?",
            Some(k) => fields.get(k).copied().unwrap_or_default(),
        };
        labels.gold.insert((*doc).to_owned(), (*cluster).to_owned());
        labels.kind.insert((*doc).to_owned(), kind.to_owned());
    }
    Ok(labels)
}

/// Reads `order.txt`: one doc id per line, surrounding whitespace trimmed,
/// blank lines skipped.
///
/// # Errors
/// I/O errors.
pub fn read_order(path: &Path) -> Result<Vec<String>> {
    Ok(read_text(path)?
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect())
}

/// Reads predictions: TSV `doc_id<TAB>cluster_id` (header optional, extra
/// columns ignored) or JSON lines `{"doc_id": .., "cluster_id": ..}`,
/// told apart by the first non-blank line.
///
/// # Errors
/// I/O errors, a TSV line without two fields, a JSON line without both keys.
pub fn read_predictions(path: &Path) -> Result<HashMap<String, String>> {
    parse_predictions(&read_text(path)?, path)
}

/// [`read_predictions`] on text; `path` only labels errors.
///
/// # Errors
/// As [`read_predictions`].
pub fn parse_predictions(text: &str, path: &Path) -> Result<HashMap<String, String>> {
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.trim().is_empty())
        .collect();
    let mut pred = HashMap::new();
    let is_json = lines
        .first()
        .is_some_and(|l| l.trim_start().starts_with('{'));
    for (i, line) in lines.iter().enumerate() {
        if is_json {
            let v: serde_json::Value =
                serde_json::from_str(line).map_err(|e| bad(path, i + 1, e))?;
            let field = |k: &str| match v.get(k) {
                Some(serde_json::Value::String(s)) => Some(s.clone()),
                Some(other) if !other.is_null() => Some(other.to_string()),
                _ => None,
            };
            let (Some(doc), Some(cluster)) = (field("doc_id"), field("cluster_id")) else {
                return Err(bad(path, i + 1, "expected doc_id and cluster_id keys"));
            };
            pred.insert(doc, cluster);
        } else {
            let fields: Vec<&str> = line.split('\t').collect();
            if i == 0 && fields.first().map(|f| f.trim()) == Some("doc_id") {
                continue;
            }
            let (Some(doc), Some(cluster)) = (fields.first(), fields.get(1)) else {
                return Err(bad(path, i + 1, "expected doc_id<TAB>cluster_id"));
            };
            pred.insert(doc.trim().to_owned(), cluster.trim().to_owned());
        }
    }
    Ok(pred)
}

/// Precision, recall and F1 from counts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Prf {
    /// True positives.
    pub tp: u64,
    /// Predicted positives.
    pub predicted: u64,
    /// Gold positives.
    pub gold: u64,
    /// tp / predicted (0 when nothing is predicted).
    pub precision: f64,
    /// tp / gold (0 when there is no gold positive).
    pub recall: f64,
    /// Harmonic mean of precision and recall (0 when both are 0).
    pub f1: f64,
}

impl Prf {
    /// Computes the ratios the way score.py does.
    pub fn new(tp: u64, predicted: u64, gold: u64) -> Prf {
        let precision = if predicted > 0 {
            tp as f64 / predicted as f64
        } else {
            0.0
        };
        let recall = if gold > 0 {
            tp as f64 / gold as f64
        } else {
            0.0
        };
        let f1 = if precision + recall > 0.0 {
            2.0 * precision * recall / (precision + recall)
        } else {
            0.0
        };
        Prf {
            tp,
            predicted,
            gold,
            precision,
            recall,
            f1,
        }
    }
}

/// Per-kind row of the report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KindRow {
    /// Docs of this kind.
    pub docs: u64,
    /// Gold partners of these docs (other docs of their gold cluster).
    pub partners: u64,
    /// Of those, partners predicted in the same cluster.
    pub found: u64,
    /// Pairs a doc of this kind takes part in that are predicted together
    /// but are not together in the gold.
    pub fp_pairs: u64,
}

/// Every number score.py prints.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Score {
    /// Pairwise counts and ratios.
    pub pairs: Prf,
    /// Crawl-order drop counts and ratios.
    pub drop: Prf,
    /// Share of docs in the order whose drop decision is right.
    pub accuracy: f64,
    /// Per kind, sorted by kind.
    pub per_kind: BTreeMap<String, KindRow>,
}

fn pairs_in(n: u64) -> u64 {
    n * n.saturating_sub(1) / 2
}

/// Scores `pred` against `labels`, walking `order` for the drop decision.
pub fn score(labels: &Labels, pred: &HashMap<String, String>, order: &[String]) -> Score {
    // A predicted cluster of a labeled doc; missing docs are singletons. The
    // prefixes keep predicted ids and singleton ids from clashing.
    let pc: HashMap<&str, String> = labels
        .gold
        .keys()
        .map(|d| {
            let c = match pred.get(d) {
                Some(c) => format!("P:{c}"),
                None => format!("S:{d}"),
            };
            (d.as_str(), c)
        })
        .collect();
    let mut gsz: HashMap<&str, u64> = HashMap::new();
    let mut psz: HashMap<&str, u64> = HashMap::new();
    let mut both: HashMap<(&str, &str), u64> = HashMap::new();
    for (d, g) in &labels.gold {
        let p = pc[d.as_str()].as_str();
        *gsz.entry(g).or_default() += 1;
        *psz.entry(p).or_default() += 1;
        *both.entry((g, p)).or_default() += 1;
    }
    let sum_pairs = |m: &mut dyn Iterator<Item = u64>| m.map(pairs_in).sum::<u64>();
    let pairs = Prf::new(
        sum_pairs(&mut both.values().copied()),
        sum_pairs(&mut psz.values().copied()),
        sum_pairs(&mut gsz.values().copied()),
    );

    // Drop decisions; a doc listed twice in the order keeps its last
    // decision, as in score.py's dicts.
    let mut seen_g: std::collections::HashSet<&str> = Default::default();
    let mut seen_p: std::collections::HashSet<&str> = Default::default();
    let mut decisions: HashMap<&str, (bool, bool)> = HashMap::new();
    for d in order {
        let Some(g) = labels.gold.get(d) else {
            continue;
        };
        let p = pc[d.as_str()].as_str();
        decisions.insert(d, (seen_g.contains(g.as_str()), seen_p.contains(p)));
        seen_g.insert(g);
        seen_p.insert(p);
    }
    let count = |f: fn(&(bool, bool)) -> bool| decisions.values().filter(|x| f(x)).count() as u64;
    let dtp = count(|&(g, p)| g && p);
    let ngold = count(|&(g, _)| g);
    let npred = count(|&(_, p)| p);
    let right = count(|&(g, p)| g == p);
    let drop = Prf::new(dtp, npred, ngold);
    let accuracy = right as f64 / decisions.len().max(1) as f64;

    let mut per_kind: BTreeMap<String, KindRow> = BTreeMap::new();
    for (d, g) in &labels.gold {
        let p = pc[d.as_str()].as_str();
        let kind = labels.kind.get(d).map_or("?", String::as_str);
        let row = per_kind.entry(kind.to_owned()).or_default();
        let together = both[&(g.as_str(), p)];
        row.docs += 1;
        row.partners += gsz[g.as_str()] - 1;
        row.found += together - 1;
        row.fp_pairs += psz[p] - together;
    }
    Score {
        pairs,
        drop,
        accuracy,
        per_kind,
    }
}

impl Score {
    /// The report score.py prints, without its last line
    /// ([`Score::last_line`]): `name` names the predictions, `labels_path`
    /// is shown as given.
    pub fn report(&self, name: &str, labels_path: &str, labels: &Labels) -> String {
        let mut s = String::new();
        let (p, d) = (&self.pairs, &self.drop);
        // Writing to a String cannot fail.
        let _ = writeln!(
            s,
            "{name} on {labels_path}: {} docs, {} gold clusters",
            labels.gold.len(),
            labels.clusters()
        );
        let _ = writeln!(
            s,
            "{:<6} {:>6} {:>7} {:>6} {:>6} {:>6} {:>6}",
            "metric", "tp", "pred", "gold", "P", "R", "F1"
        );
        let _ = writeln!(
            s,
            "{:<6} {:>6} {:>7} {:>6} {:>6.3} {:>6.3} {:>6.3}",
            "pairs", p.tp, p.predicted, p.gold, p.precision, p.recall, p.f1
        );
        let _ = writeln!(
            s,
            "{:<6} {:>6} {:>7} {:>6} {:>6.3} {:>6.3} {:>6.3}  acc={:.3}",
            "drop", d.tp, d.predicted, d.gold, d.precision, d.recall, d.f1, self.accuracy
        );
        let _ = writeln!(
            s,
            "{:<11} {:>5} {:>11} {:>8}",
            "kind", "docs", "pair-recall", "fp-pairs"
        );
        for (kind, r) in &self.per_kind {
            let recall = if r.partners > 0 {
                format!("{:.3}", r.found as f64 / r.partners as f64)
            } else {
                "-".to_owned()
            };
            let _ = writeln!(s, "{kind:<11} {:>5} {recall:>11} {:>8}", r.docs, r.fp_pairs);
        }
        s
    }

    /// score.py's last line: `pairF1=<x> dropF1=<y>`, 4 decimals.
    pub fn last_line(&self) -> String {
        format!("pairF1={:.4} dropF1={:.4}", self.pairs.f1, self.drop.f1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(rows: &[(&str, &str, &str)]) -> Labels {
        let mut text = String::from("doc_id\tcluster_id\tkind\n");
        for (d, c, k) in rows {
            text.push_str(&format!("{d}\t{c}\t{k}\n"));
        }
        parse_labels(&text, Path::new("l.tsv")).unwrap()
    }

    fn pred(rows: &[(&str, &str)]) -> HashMap<String, String> {
        rows.iter()
            .map(|(d, c)| ((*d).to_owned(), (*c).to_owned()))
            .collect()
    }

    fn order(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| (*s).to_owned()).collect()
    }

    // Gold: {a, b, c} and {d}, {e}. Hand-counted below.
    fn gold() -> Labels {
        labels(&[
            ("a", "g1", "original"),
            ("b", "g1", "print"),
            ("c", "g1", "edited"),
            ("d", "g2", "negative"),
            ("e", "g3", "negative"),
        ])
    }

    #[test]
    fn perfect_prediction_scores_one() {
        let l = gold();
        let p = pred(&[("a", "x"), ("b", "x"), ("c", "x"), ("d", "y"), ("e", "z")]);
        let s = score(&l, &p, &order(&["c", "d", "a", "e", "b"]));
        assert_eq!((s.pairs.tp, s.pairs.predicted, s.pairs.gold), (3, 3, 3));
        assert_eq!(s.pairs.f1, 1.0);
        // c comes first: a and b should be dropped.
        assert_eq!((s.drop.tp, s.drop.predicted, s.drop.gold), (2, 2, 2));
        assert_eq!(s.accuracy, 1.0);
        assert_eq!(s.last_line(), "pairF1=1.0000 dropF1=1.0000");
    }

    #[test]
    fn hand_counted_mixed_prediction() {
        let l = gold();
        // {a, b, d} predicted together, c missing (singleton), e alone.
        let p = pred(&[("a", "x"), ("b", "x"), ("d", "x"), ("e", "z"), ("zz", "x")]);
        let s = score(&l, &p, &order(&["d", "a", "b", "c", "e"]));
        // Predicted pairs ab, ad, bd (3); gold pairs ab, ac, bc (3); tp ab.
        assert_eq!((s.pairs.tp, s.pairs.predicted, s.pairs.gold), (1, 3, 3));
        assert!((s.pairs.precision - 1.0 / 3.0).abs() < 1e-12);
        assert!((s.pairs.f1 - 1.0 / 3.0).abs() < 1e-12);
        // Order d a b c e. Gold drops: b, c. Predicted drops: a (after d), b.
        assert_eq!((s.drop.tp, s.drop.predicted, s.drop.gold), (1, 2, 2));
        // Right: d (keep/keep), b (drop/drop), e (keep/keep); wrong: a, c.
        assert!((s.accuracy - 3.0 / 5.0).abs() < 1e-12);
        let o = &s.per_kind["original"];
        // a: partners b, c; found b; fp with d.
        assert_eq!((o.docs, o.partners, o.found, o.fp_pairs), (1, 2, 1, 1));
        let n = &s.per_kind["negative"];
        // d: no partners, fp with a and b; e: nothing.
        assert_eq!((n.docs, n.partners, n.found, n.fp_pairs), (2, 0, 0, 2));
        let e = &s.per_kind["edited"];
        assert_eq!((e.partners, e.found, e.fp_pairs), (2, 0, 0));
    }

    #[test]
    fn report_matches_score_py_layout() {
        let l = gold();
        let p = pred(&[("a", "x"), ("b", "x"), ("d", "x"), ("e", "z")]);
        let s = score(&l, &p, &order(&["d", "a", "b", "c", "e"]));
        let r = s.report("p.tsv", "l.tsv", &l);
        let lines: Vec<&str> = r.lines().collect();
        assert_eq!(lines[0], "p.tsv on l.tsv: 5 docs, 3 gold clusters");
        assert_eq!(
            lines[1],
            "metric     tp    pred   gold      P      R     F1"
        );
        assert_eq!(
            lines[2],
            "pairs       1       3      3  0.333  0.333  0.333"
        );
        assert_eq!(
            lines[3],
            "drop        1       2      2  0.500  0.500  0.500  acc=0.600"
        );
        assert_eq!(lines[4], "kind         docs pair-recall fp-pairs");
        assert_eq!(lines[5], "edited          1       0.000        0");
        assert_eq!(lines[6], "negative        2           -        2");
    }

    #[test]
    fn predictions_read_tsv_with_or_without_header_and_jsonl() {
        let p = Path::new("p");
        let a = parse_predictions("doc_id\tcluster_id\nx\t1\ny\t 1 \n", p).unwrap();
        let b = parse_predictions("x\t1\n\ny\t1\n", p).unwrap();
        let c = parse_predictions(
            "{\"doc_id\": \"x\", \"cluster_id\": 1}\n{\"doc_id\":\"y\",\"cluster_id\":\"1\"}\n",
            p,
        )
        .unwrap();
        let want = pred(&[("x", "1"), ("y", "1")]);
        assert_eq!(a, want);
        assert_eq!(b, want);
        assert_eq!(c, want);
        let err = parse_predictions("x\t1\ny\n", p).unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
    }

    #[test]
    fn labels_columns_by_header() {
        let l = parse_labels(
            "kind\tcluster_id\tdoc_id\nprint\tc1\td1\n\n",
            Path::new("l"),
        )
        .unwrap();
        assert_eq!(l.gold["d1"], "c1");
        assert_eq!(l.kind["d1"], "print");
        let no_kind = parse_labels("doc_id\tcluster_id\nd1\tc1\n", Path::new("l")).unwrap();
        assert_eq!(no_kind.kind["d1"], "?");
        let err = parse_labels("doc\tcluster_id\n", Path::new("l")).unwrap_err();
        assert!(err.to_string().contains("doc_id"), "{err}");
    }
}
