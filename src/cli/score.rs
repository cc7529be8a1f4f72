//! `neardup score LABELS PRED`: score.py's report for a predictions file.

use std::collections::HashSet;
use std::io::Write as _;
use std::process::ExitCode;

use neardup_batch::eval;

use super::args::ScoreArgs;

/// Runs the command.
pub fn run(a: &ScoreArgs) -> anyhow::Result<ExitCode> {
    let labels = eval::read_labels(&a.labels)?;
    let order_path = match &a.order {
        Some(p) => p.clone(),
        None => a
            .labels
            .parent()
            .unwrap_or(std::path::Path::new("."))
            .join("order.txt"),
    };
    let order = eval::read_order(&order_path)?;
    let in_order: HashSet<&str> = order.iter().map(String::as_str).collect();
    let not_in_order = labels
        .gold
        .keys()
        .filter(|d| !in_order.contains(d.as_str()))
        .count();
    if not_in_order > 0 {
        eprintln!(
            "warning: {not_in_order} labeled docs not in {}",
            order_path.display()
        );
    }
    let pred = eval::read_predictions(&a.pred)?;
    let unknown = pred
        .keys()
        .filter(|d| !labels.gold.contains_key(*d))
        .count();
    if unknown > 0 {
        eprintln!("warning: {unknown} predicted doc_ids not in labels (ignored)");
    }
    note_missing(&labels, &pred);
    let name = a
        .pred
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let score = eval::score(&labels, &pred, &order);
    let mut out = std::io::stdout().lock();
    write!(
        out,
        "{}",
        score.report(&name, &a.labels.display().to_string(), &labels)
    )?;
    writeln!(out, "{}", score.last_line())?;
    Ok(ExitCode::SUCCESS)
}

/// Says how many labeled docs the predictions leave out (scored as
/// singletons), for `score` and `eval` alike.
pub(super) fn note_missing(
    labels: &eval::Labels,
    pred: &std::collections::HashMap<String, String>,
) {
    let missing = labels.missing_from(pred);
    if missing > 0 {
        eprintln!("note: {missing} labeled docs missing from predictions (singletons)");
    }
}
