//! `neardup extract FILE...`: the text neardup compares, per page.

use std::io::Write as _;
use std::process::ExitCode;

use neardup::Deduper;
use neardup::ExtractMode;
use neardup::MemoryStore;

use super::args::{Args, ExtractArgs, ModeArg};

/// Runs the command. A file that cannot be read is reported and skipped;
/// the exit status is then 2.
pub fn run(args: &Args, a: &ExtractArgs) -> anyhow::Result<ExitCode> {
    let mut config = super::setup::load_config(args.config.as_deref(), &[])?;
    if let Some(mode) = a.mode {
        config.extract.mode = match mode {
            ModeArg::Main => ExtractMode::Main,
            ModeArg::Full => ExtractMode::Full,
        };
    }
    if let Some(dir) = &a.eval {
        return eval(dir, &config.extract);
    }
    // The deduper's own analysis: the same decoding, binary check, size
    // limit, extraction and normalization that dedup uses.
    let mut deduper = Deduper::with_registry(
        config,
        &neardup::plugins::registry(),
        Box::<MemoryStore>::default(),
    )?;
    let mut out = std::io::stdout().lock();
    let mut failed = false;
    let many = a.files.len() > 1;
    for (i, file) in a.files.iter().enumerate() {
        // gzip files are decompressed (to the same cap as dedup's); a FIFO
        // is refused instead of blocking.
        let body = match neardup_batch::input::read_page_file(
            file,
            neardup_batch::input::Limits::default(),
        ) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("neardup: error: {e}");
                failed = true;
                continue;
            }
        };
        let name = file.display().to_string();
        // A file URL: the files are one site, their folders its sections.
        let url = std::path::absolute(file)
            .ok()
            .and_then(|p| url::Url::from_file_path(p).ok())
            .map(String::from)
            .unwrap_or_default();
        let analyzed = deduper.analyze(&name, &url, &body, None);
        if a.json {
            // Roles as this page would be judged after the earlier files;
            // deciding it then teaches the template to the later ones.
            let (basis, roles) = deduper.content_roles(&analyzed);
            // What else the drop policy reads: name, language, size
            // (docs/usage.md, `extract`).
            let policy = deduper.content_facts(&analyzed);
            let e = &analyzed.extracted;
            let title_role = roles.iter().find(|(source, _)| *source == 0).map(|r| r.1);
            let block_roles = neardup_output::block_roles(e.blocks.len(), &roles);
            let blocks: Vec<serde_json::Value> = e
                .blocks
                .iter()
                .zip(block_roles)
                .map(|(b, role)| {
                    serde_json::json!({
                        "text": b.text,
                        "tag": b.tag,
                        "link_density": b.link_density,
                        "main": b.is_main,
                        "role": role,
                    })
                })
                .collect();
            let obj = serde_json::json!({
                "file": name,
                "title": e.title,
                "title_role": title_role,
                "basis": basis.as_str(),
                "policy": policy,
                "language": analyzed.doc.lang,
                "canonical": e.canonical,
                // A redirect stub's target (absent otherwise), as in
                // verdicts.jsonl's `redirect_to` / `redirect_kind`.
                "redirect_to": e.redirect.as_ref().map(|r| &r.to),
                "redirect_kind": e.redirect.as_ref().map(|r| r.kind.as_str()),
                "robots": e.robots,
                "links": e.links.len(),
                "text": analyzed.doc.text,
                "warnings": analyzed.warnings,
                "blocks": blocks,
            });
            writeln!(out, "{obj}")?;
            deduper.decide(analyzed)?;
        } else {
            if many {
                if i > 0 {
                    writeln!(out)?;
                }
                writeln!(out, "==> {name} <==")?;
            }
            writeln!(out, "{}", analyzed.doc.text)?;
            for w in &analyzed.warnings {
                eprintln!("neardup: warning: {name}: {w}");
            }
        }
    }
    Ok(if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

/// `neardup extract --eval DIR`: token P/R/F1 of the main text against the
/// expected articles, worst pages first, then the macro averages.
fn eval(dir: &std::path::Path, config: &neardup::ExtractConfig) -> anyhow::Result<ExitCode> {
    let report = super::quality::evaluate_dir(dir, config)?;
    let mut pages: Vec<_> = report.pages.iter().collect();
    pages.sort_by(|a, b| a.f1.total_cmp(&b.f1).then_with(|| a.name.cmp(&b.name)));
    let mut out = std::io::stdout().lock();
    writeln!(out, "{:<48} {:>6} {:>6} {:>6}", "page", "P", "R", "F1")?;
    for p in &pages {
        writeln!(
            out,
            "{:<48} {:>6.3} {:>6.3} {:>6.3}",
            p.name, p.precision, p.recall, p.f1
        )?;
    }
    writeln!(
        out,
        "pages={} macroP={:.4} macroR={:.4} macroF1={:.4}",
        report.pages.len(),
        report.precision,
        report.recall,
        report.f1
    )?;
    Ok(ExitCode::SUCCESS)
}
