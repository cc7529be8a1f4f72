//! `neardup extract FILE...`: the text neardup compares, per page.

use std::io::Write as _;
use std::process::ExitCode;

use neardup::config::ExtractMode;
use neardup::Deduper;

use super::args::{Args, ExtractArgs, ModeArg};

/// Runs the command. A file that cannot be read is reported and skipped;
/// the exit status is then 2.
pub fn run(args: &Args, a: &ExtractArgs) -> anyhow::Result<ExitCode> {
    let mut config = super::load_config(args.config.as_deref(), &[])?;
    if let Some(mode) = a.mode {
        config.extract.mode = match mode {
            ModeArg::Main => ExtractMode::Main,
            ModeArg::Full => ExtractMode::Full,
        };
    }
    // The deduper's own analysis: the same decoding, binary check, size
    // limit, extraction and normalization that dedup uses.
    let deduper = Deduper::new(config)?;
    let mut out = std::io::stdout().lock();
    let mut failed = false;
    let many = a.files.len() > 1;
    for (i, file) in a.files.iter().enumerate() {
        let body = match std::fs::read(file) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("neardup: error: {}: {e}", file.display());
                failed = true;
                continue;
            }
        };
        let name = file.display().to_string();
        let analyzed = deduper.analyze(&name, "", &body, None);
        if a.json {
            let e = &analyzed.extracted;
            let blocks: Vec<serde_json::Value> = e
                .blocks
                .iter()
                .map(|b| {
                    serde_json::json!({
                        "text": b.text,
                        "tag": b.tag,
                        "link_density": b.link_density,
                        "main": b.is_main,
                    })
                })
                .collect();
            let obj = serde_json::json!({
                "file": name,
                "title": e.title,
                "language": analyzed.doc.lang,
                "canonical": e.canonical,
                "robots": e.robots,
                "links": e.links.len(),
                "text": analyzed.doc.text,
                "warnings": analyzed.warnings,
                "blocks": blocks,
            });
            writeln!(out, "{obj}")?;
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
