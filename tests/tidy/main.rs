//! Tidy checks, as rust-analyzer's `xtask/src/tidy.rs`: the architecture
//! in ARCHITECTURE.md as tests, so a change that breaks a rule fails here
//! instead of in review. Sources are parsed with `syn`, never matched as
//! text, and every check has a self-test that plants a violation.
//!
//! - `layers`: the crate graph goes one way (each workspace crate depends
//!   only on crates of a lower layer); the pure crates' manifests name no
//!   I/O crate.
//! - `cycles`: no crate's modules, its root (`lib.rs`, `main.rs`) included,
//!   use each other in a circle.
//! - `lengths`: no function over 150 lines and no file over 1,000 lines
//!   outside its tests, in every crate: the libraries, the binary
//!   (`src/`), the plugins and `experiments/`.
//! - `io`: no file, network, process, environment or HTTP code in the pure
//!   layers; the core's I/O only in its stores and `Config::from_file`; a
//!   plugin's only where multiref reads its reference file.
//!
//! `modtree` reads a crate's module tree (which files are test code, what
//! each module defines and imports) for the checks.

mod cycles;
mod io;
mod layers;
mod lengths;
mod modtree;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace's root folder.
pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Manifests of the workspace members, by package name: the root package,
/// `experiments/`, and every folder of `crates/` and `plugins/` with a
/// `Cargo.toml`.
pub fn manifests() -> BTreeMap<String, (PathBuf, toml::Table)> {
    let root = workspace();
    let mut dirs = vec![root.clone(), root.join("experiments")];
    for group in ["crates", "plugins"] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(group))
            .expect("read workspace folder")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("Cargo.toml").is_file())
            .collect();
        found.sort();
        dirs.extend(found);
    }
    let mut out = BTreeMap::new();
    for dir in dirs {
        let text = std::fs::read_to_string(dir.join("Cargo.toml")).expect("read Cargo.toml");
        let table: toml::Table = text.parse().expect("parse Cargo.toml");
        let name = table["package"]["name"]
            .as_str()
            .expect("package name")
            .to_owned();
        out.insert(name, (dir, table));
    }
    out
}

/// The root files of a package's library and binaries: `[lib] path` and
/// `[[bin]] path` of its manifest, else `src/lib.rs` and `src/main.rs`.
pub fn crate_roots(dir: &Path, manifest: &toml::Table) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    let lib = manifest
        .get("lib")
        .and_then(|l| l.get("path"))
        .and_then(|p| p.as_str())
        .map_or_else(|| dir.join("src/lib.rs"), |p| dir.join(p));
    if lib.is_file() {
        roots.push(lib);
    }
    let bins: Vec<PathBuf> = manifest
        .get("bin")
        .and_then(|b| b.as_array())
        .into_iter()
        .flatten()
        .filter_map(|b| b.get("path").and_then(|p| p.as_str()))
        .map(|p| dir.join(p))
        .collect();
    if bins.is_empty() {
        let main = dir.join("src/main.rs");
        if main.is_file() {
            roots.push(main);
        }
    } else {
        roots.extend(bins);
    }
    roots
}

/// Every source folder the length checks scan: `src/`, `experiments/src`,
/// `crates/*/src` and `plugins/*/src`.
pub fn source_dirs() -> Vec<PathBuf> {
    let root = workspace();
    let mut dirs = vec![root.join("src"), root.join("experiments/src")];
    for group in ["crates", "plugins"] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(group))
            .expect("read workspace folder")
            .filter_map(|e| e.ok().map(|e| e.path().join("src")))
            .filter(|p| p.is_dir())
            .collect();
        found.sort();
        dirs.extend(found);
    }
    dirs
}

/// The `.rs` files under `dir`, sorted.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read source folder").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A source file parsed by `syn`; a file it cannot parse fails the check.
pub fn parse_file(path: &Path) -> syn::File {
    let text = std::fs::read_to_string(path).expect("read source");
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Whether an item with these attributes is test code: `#[cfg(test)]`
/// (or `cfg(all(test, ...))`), `#[test]`, or a `#[...::test]` attribute
/// such as `#[tokio::test]`.
pub fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let path = a.path();
        if path.is_ident("cfg") {
            let tokens = match &a.meta {
                syn::Meta::List(list) => list.tokens.to_string().replace(' ', ""),
                _ => String::new(),
            };
            tokens == "test" || tokens.starts_with("all(test,")
        } else {
            path.segments.last().is_some_and(|s| s.ident == "test")
        }
    })
}

/// A path's path relative to the workspace, for messages.
pub fn shown(path: &Path) -> String {
    path.strip_prefix(workspace())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Every crate root of the workspace read once (package name, root file,
/// module tree), shared by the checks.
pub fn crates() -> &'static [(String, PathBuf, modtree::Crate)] {
    static CRATES: std::sync::OnceLock<Vec<(String, PathBuf, modtree::Crate)>> =
        std::sync::OnceLock::new();
    CRATES.get_or_init(|| {
        let mut out = Vec::new();
        for (name, (dir, manifest)) in manifests() {
            for root in crate_roots(&dir, &manifest) {
                let krate = modtree::Crate::load(&root);
                out.push((name.clone(), root, krate));
            }
        }
        out
    })
}

/// The files of test code of every crate (see `modtree`).
pub fn test_files() -> BTreeSet<PathBuf> {
    crates()
        .iter()
        .flat_map(|(_, _, k)| k.test_files.iter().cloned())
        .collect()
}
