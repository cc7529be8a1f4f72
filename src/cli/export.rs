//! `neardup export`: opens an existing index with the config's detector
//! chain and writes its records with [`neardup_batch::export::write_parquet`].

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use neardup::{DocStore, IndexLocation, RedbStore, RedisStore};

use super::args::{Args, ExportArgs};

/// RAM for the redb store's caches while exporting: records are read in one
/// pass that bypasses the record cache, so only redb's page cache (a
/// quarter of this) is used.
const EXPORT_CACHE_BYTES: usize = 64 << 20;

/// Exports the index and prints what was written.
pub fn run(args: &Args, a: &ExportArgs) -> anyhow::Result<ExitCode> {
    let config = super::setup::load_config(args.config.as_deref(), &a.detectors.detectors)?;
    let registry = neardup::plugins::registry();
    let identity = neardup::store_identity(&config, &registry)?;
    let shown = a.index.to_string();
    let store: Box<dyn DocStore> = match &a.index {
        IndexLocation::Redis(location) => {
            let mut store = RedisStore::open(location, &identity)?;
            // The log is read into memory, as every worker of a shared
            // index holds it (docs/redis.md).
            store
                .sync(&mut |_| {})
                .with_context(|| format!("read the index {shown}"))?;
            Box::new(store)
        }
        IndexLocation::File(path) => {
            check_index_file(path)?;
            Box::new(RedbStore::open_with(path, &identity, EXPORT_CACHE_BYTES)?)
        }
    };
    let summary = neardup_batch::export::write_parquet(
        store.as_ref(),
        Path::new(&shown),
        &identity,
        &a.out,
        &neardup_batch::export::Options::default(),
    )
    .with_context(|| format!("export {shown} to {}", a.out.display()))?;
    eprintln!(
        "neardup: exported {} pages ({} row groups, {} bytes) to {}",
        summary.rows,
        summary.row_groups,
        summary.bytes,
        a.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// An export reads an index and never creates one (opening a redb path
/// that does not exist would): a missing path or a directory is an error.
fn check_index_file(path: &Path) -> anyhow::Result<()> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            anyhow::bail!("no index at {}: the file does not exist", path.display())
        }
        Err(e) => return Err(e).with_context(|| format!("index {}", path.display())),
    };
    if meta.is_dir() {
        let hint = if path.join("index.redb").is_file() {
            format!(
                " (a crawl keeps its index in {})",
                path.join("index.redb").display()
            )
        } else {
            String::new()
        };
        anyhow::bail!(
            "index {} is a directory, not an index file{hint}",
            path.display()
        );
    }
    Ok(())
}
