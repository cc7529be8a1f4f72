//! Where I/O may be, as ARCHITECTURE.md states it ("Cross-cutting
//! decisions"): none in the pure layers (html, text, the core's
//! signatures, the plugin API); in the core only in its stores and
//! `Config::from_file`; in a plugin only where multiref reads the
//! reference file its settings name (`MultirefDetector::new`).
//!
//! A file's `use` trees (braces flattened: `use std::{fs, io}` is
//! `std::fs` and `std::io`) and the paths in its code (expanded through
//! its imports: `io::stdin()` after `use std::io`) are matched against
//! the I/O paths below, outside test code.

use std::collections::BTreeMap;

use syn::visit::Visit;

use crate::modtree::{item_is_test, Bind, PathCollector};

/// Paths (and their prefixes) that do I/O anywhere.
const IO_PATHS: &[&str] = &[
    "std::fs",
    "std::net",
    "std::process",
    "std::io::stdin",
    "std::io::stdout",
    "std::env::var",
    "std::env::var_os",
    "std::env::vars",
    "tokio::fs",
    "tokio::net",
    "tokio::process",
    "tokio::io",
    "reqwest",
    "hyper",
    "axum",
    "redis",
    "redb",
];

/// A path that starts with one of these names does I/O (`File::open`
/// after `use std::fs::File`, which is itself caught); a variant such as
/// `IndexLocation::File` does not.
const IO_NAMES: &[&str] = &[
    "File",
    "OpenOptions",
    "TcpStream",
    "TcpListener",
    "UdpSocket",
];

/// The pure layers also name no async runtime.
const PURE_ONLY: &[&str] = &["tokio"];

/// `path` (segments) does I/O: it starts with one of `IO_PATHS` (or of
/// `PURE_ONLY` when `pure`) or with one of `IO_NAMES`.
fn is_io(path: &[String], pure: bool) -> bool {
    let joined = path.join("::");
    let starts = |p: &&str| joined == *p || joined.starts_with(&format!("{p}::"));
    IO_PATHS.iter().any(starts)
        || (pure && PURE_ONLY.iter().any(starts))
        || path.first().is_some_and(|s| IO_NAMES.contains(&s.as_str()))
}

/// The I/O of `file` outside test code: (function it is in, or "" outside
/// functions; the path as expanded).
fn io_of(file: &syn::File, pure: bool) -> Vec<(String, String)> {
    fn collect(items: &[syn::Item], c: &mut PathCollector) {
        for item in items {
            if item_is_test(item) {
                continue;
            }
            match item {
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        collect(inner, c);
                    }
                }
                _ => c.visit_item(item),
            }
        }
    }
    let mut c = PathCollector::default();
    collect(&file.items, &mut c);
    let strip = |p: &[String]| -> Vec<String> {
        let p = if p.first().is_some_and(|s| s.is_empty()) {
            &p[1..]
        } else {
            p
        };
        p.to_vec()
    };
    let aliases: BTreeMap<String, Vec<String>> = c
        .uses
        .iter()
        .filter_map(|(p, b)| match b {
            Bind::Name(n) => Some((n.clone(), strip(p))),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for ((path, _), func) in c.uses.iter().zip(&c.use_fns) {
        let path = strip(path);
        if is_io(&path, pure) {
            out.push((func.clone(), path.join("::")));
        }
    }
    for (path, func) in c.paths.iter().zip(&c.path_fns) {
        let mut path = strip(path);
        if let Some(full) = path.first().and_then(|f| aliases.get(f)) {
            path = full.iter().chain(&path[1..]).cloned().collect();
        }
        if is_io(&path, pure) {
            out.push((func.clone(), path.join("::")));
        }
    }
    out
}

/// Where I/O is allowed: a file (relative to the workspace) and the one
/// function in it, or `None` for the whole file.
const ALLOWED_IO: &[(&str, Option<&str>)] = &[
    ("crates/core/src/config.rs", Some("from_file")),
    ("crates/core/src/index/redb_store.rs", None),
    ("crates/core/src/index/redb_file.rs", None),
    ("crates/core/src/index/redb_errors.rs", None),
    ("crates/core/src/index/redb_group.rs", None),
    ("crates/core/src/index/redis_store.rs", None),
    ("plugins/multiref/src/lib.rs", Some("new")),
];

fn allowed(file: &str, func: &str) -> bool {
    ALLOWED_IO
        .iter()
        .any(|(f, only)| *f == file && only.is_none_or(|o| o == func))
}

/// The I/O found in every non-test file under `dirs` that `ALLOWED_IO`
/// does not allow, and how many files were read.
fn io_under(dirs: &[&str], pure: bool) -> (Vec<String>, usize) {
    let root = crate::workspace();
    let tests = crate::test_files();
    let (mut bad, mut files) = (Vec::new(), 0);
    for dir in dirs {
        let before = files;
        for path in crate::rust_files(&root.join(dir)) {
            if tests.contains(&path) {
                continue;
            }
            files += 1;
            let shown = crate::shown(&path);
            for (func, io) in io_of(&crate::parse_file(&path), pure) {
                if pure || !allowed(&shown, &func) {
                    bad.push(format!("{shown}: fn `{func}` names `{io}`"));
                }
            }
        }
        assert!(files > before, "{dir}: no source file");
    }
    (bad, files)
}

/// Plants I/O in every form the check must catch, and checks a clean
/// sample and test code pass.
#[test]
fn io_is_found_in_every_form() {
    let found = |src: &str, pure: bool| {
        let file = syn::parse_file(src).expect("parse sample");
        io_of(&file, pure)
    };
    let one = |f: &str, p: &str| vec![(f.to_owned(), p.to_owned())];
    assert_eq!(found("use std::{fs, io};", true), one("", "std::fs"));
    assert_eq!(
        found("use std::io; fn f() { io::stdin(); }", true),
        one("f", "std::io::stdin")
    );
    assert_eq!(
        found("fn g() { let _ = std::env::var(\"X\"); }", true),
        one("g", "std::env::var")
    );
    assert_eq!(
        found("fn h() { File::open(\"x\"); }", false),
        one("h", "File::open")
    );
    assert_eq!(
        found("mod m { fn k() { tokio::spawn(async {}); } }", true),
        one("k", "tokio::spawn")
    );
    assert!(found("fn k() { tokio::task::spawn_blocking(|| ()); }", false).is_empty());
    assert!(found("fn m() { Location::File(1); }", true).is_empty());
    assert_eq!(
        found(
            "fn l() { format!(\"{}\", ::std::fs::read(\"x\").is_ok()); }",
            true
        ),
        one("l", "std::fs::read")
    );
    assert_eq!(
        found(
            "struct S; impl S { fn from_file() { std::fs::read(\"x\"); } }",
            false
        ),
        one("from_file", "std::fs::read")
    );
    let clean = "use std::io::Write; use std::collections::HashMap;
                 fn f(w: &mut impl Write) { let _ = HashMap::<u8, u8>::new(); }
                 #[cfg(test)] mod tests { use std::fs; }
                 #[test] fn t() { std::fs::read(\"x\"); }";
    assert!(found(clean, true).is_empty());
    assert!(allowed("crates/core/src/config.rs", "from_file"));
    assert!(!allowed("crates/core/src/config.rs", "validate"));
    assert!(!allowed("plugins/minhash/src/lib.rs", "new"));
}

#[test]
fn the_pure_layers_do_no_io() {
    let dirs = [
        "crates/html/src",
        "crates/text/src",
        "crates/core/src/signature",
        "plugins/api/src",
    ];
    let (bad, files) = io_under(&dirs, true);
    assert!(files >= 20, "only {files} files checked");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_core_does_io_only_in_its_stores_and_config_from_file() {
    let (bad, files) = io_under(&["crates/core/src"], false);
    assert!(files >= 30, "only {files} files checked");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn plugins_do_no_io_but_multiref_reading_its_reference() {
    let root = crate::workspace();
    let mut dirs: Vec<String> = std::fs::read_dir(root.join("plugins"))
        .expect("read plugins")
        .filter_map(|e| e.ok().map(|e| e.path().join("src")))
        .filter(|p| p.is_dir())
        .map(|p| crate::shown(&p))
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 6, "only {dirs:?}");
    let dirs: Vec<&str> = dirs.iter().map(String::as_str).collect();
    let (bad, files) = io_under(&dirs, false);
    assert!(files >= 15, "only {files} files checked");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
