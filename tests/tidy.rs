//! Tidy checks, as rust-analyzer's `xtask/src/tidy.rs`: the architecture
//! in ARCHITECTURE.md as tests, so a change that breaks a layering rule
//! fails here instead of in review.
//!
//! - The crate graph goes one way: each workspace crate depends (normal
//!   dependencies) only on crates of a lower layer.
//! - The HTML, text and signature code does no I/O: no file, network,
//!   process or HTTP imports outside its tests, and no such crates in the
//!   manifests of `neardup-html` and `neardup-text`.
//! - No crate's modules import each other in a circle.
//! - No function of a library crate is longer than 150 lines.
//! - No source file is longer than 1,000 lines outside its tests, in any
//!   crate: the libraries, the binary (`src/`), the plugins and
//!   `experiments/`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Each workspace crate's layer: a crate may depend only on crates of a
/// strictly lower layer (plugins sit beside the text crate, on the API).
const LAYERS: &[(&str, u32)] = &[
    ("neardup-api", 0),
    ("neardup-text", 1),
    ("neardup-minhash", 1),
    ("neardup-bsw", 1),
    ("neardup-sentence", 1),
    ("neardup-allpairs", 1),
    ("neardup-multiref", 1),
    ("neardup-html", 2),
    ("neardup", 3),
    ("neardup-output", 4),
    ("neardup-serve", 4),
    ("neardup-batch", 5),
    ("neardup-report", 5),
    ("neardup-crawl", 5),
    ("neardup-cli", 6),
    ("neardup-python", 6),
    ("neardup-experiments", 6),
];

/// Manifests of the workspace members, by package name.
fn manifests() -> BTreeMap<String, (PathBuf, toml::Table)> {
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

fn normal_deps(manifest: &toml::Table) -> BTreeSet<String> {
    let mut deps = BTreeSet::new();
    if let Some(t) = manifest.get("dependencies").and_then(|d| d.as_table()) {
        deps.extend(t.keys().cloned());
    }
    if let Some(targets) = manifest.get("target").and_then(|d| d.as_table()) {
        for target in targets.values() {
            if let Some(t) = target.get("dependencies").and_then(|d| d.as_table()) {
                deps.extend(t.keys().cloned());
            }
        }
    }
    deps
}

#[test]
fn crates_depend_only_downward() {
    let layers: BTreeMap<&str, u32> = LAYERS.iter().copied().collect();
    let manifests = manifests();
    assert!(manifests.len() >= 10, "found only {:?}", manifests.keys());
    let mut bad = Vec::new();
    for (name, (_, manifest)) in &manifests {
        let Some(&mine) = layers.get(name.as_str()) else {
            bad.push(format!("{name}: not in tidy.rs's LAYERS; give it a layer"));
            continue;
        };
        for dep in normal_deps(manifest) {
            if let Some(&theirs) = layers.get(dep.as_str()) {
                if theirs >= mine {
                    bad.push(format!(
                        "{name} (layer {mine}) depends on {dep} (layer {theirs}): not downward"
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Crates the pure layers must not depend on: HTTP, network, async
/// runtimes, storage.
const IO_CRATES: &[&str] = &[
    "reqwest",
    "hyper",
    "hyper-util",
    "axum",
    "tower",
    "tokio",
    "redis",
    "redb",
    "tempfile",
    "parquet",
    "indicatif",
    "clap",
];

#[test]
fn html_and_text_crates_have_no_io_dependencies() {
    let manifests = manifests();
    for name in ["neardup-api", "neardup-text", "neardup-html"] {
        let (_, manifest) = &manifests[name];
        let io: Vec<String> = normal_deps(manifest)
            .into_iter()
            .filter(|d| IO_CRATES.contains(&d.as_str()))
            .collect();
        assert!(io.is_empty(), "{name} depends on {io:?}");
    }
}

/// The source of a file without its `#[cfg(test)]` modules (by convention
/// at the end of the file) and without comments.
fn code_of(text: &str) -> String {
    let cut = text.find("#[cfg(test)]\nmod ").unwrap_or(text.len());
    text[..cut]
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("//") || t.starts_with("#[cfg(test)]"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
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

/// What a pure layer must not name in its code.
const IO_PATHS: &[&str] = &[
    "std::fs",
    "std::net",
    "std::process",
    "File::open",
    "File::create",
    "OpenOptions",
    "TcpStream",
    "UdpSocket",
    "reqwest::",
    "hyper::",
    "axum::",
    "tokio::",
];

#[test]
fn html_text_and_signature_code_does_no_io() {
    let root = workspace();
    let mut bad = Vec::new();
    let dirs = [
        root.join("crates/html/src"),
        root.join("crates/text/src"),
        root.join("crates/core/src/signature"),
        root.join("plugins/api/src"),
    ];
    let mut files = 0;
    for dir in dirs {
        for file in rust_files(&dir) {
            if file.file_name().is_some_and(|n| n == "tests.rs") {
                continue; // a test module in its own file
            }
            files += 1;
            let code = code_of(&std::fs::read_to_string(&file).expect("read source"));
            for needle in IO_PATHS {
                if code.contains(needle) {
                    bad.push(format!("{}: names `{needle}`", file.display()));
                }
            }
        }
    }
    assert!(files >= 10, "only {files} files checked");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The top-level modules of the crate at `src` and which others each one
/// names (`crate::other`), outside tests and comments.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(src) {
        let rel = file.strip_prefix(src).expect("under src");
        let top = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .unwrap_or_default()
            .trim_end_matches(".rs")
            .to_owned();
        if top == "lib" || top == "main" {
            continue; // the crate root re-exports everything
        }
        if file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(&file).expect("read source"));
        let edges = graph.entry(top.clone()).or_default();
        let mut rest = code.as_str();
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            if rest.starts_with('{') {
                // `crate::{a, b::c}`: every first segment inside the braces.
                let end = rest.find('}').unwrap_or(rest.len());
                for item in rest[1..end].split(',') {
                    let name: String = item
                        .trim()
                        .chars()
                        .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
                        .collect();
                    if !name.is_empty() && name != top {
                        edges.insert(name);
                    }
                }
                continue;
            }
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
                .collect();
            if !name.is_empty() && name != top {
                edges.insert(name);
            }
        }
    }
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for edges in graph.values_mut() {
        edges.retain(|e| modules.contains(e));
    }
    graph
}

/// A cycle in `graph`, if there is one (depth-first search).
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let start = path.iter().position(|n| n == node).unwrap_or(0);
                let mut cycle = path[start..].to_vec();
                cycle.push(node.to_owned());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(node.to_owned(), Mark::Open);
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, marks, path) {
                return Some(c);
            }
        }
        path.pop();
        marks.insert(node.to_owned(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in graph.keys() {
        if let Some(c) = visit(node, graph, &mut marks, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

#[test]
fn find_cycle_finds_a_cycle_and_only_a_cycle() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry((*a).into()).or_default().insert((*b).into());
            g.entry((*b).into()).or_default();
        }
        g
    };
    assert_eq!(
        find_cycle(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])),
        None
    );
    let cycle = find_cycle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])).expect("a cycle");
    assert_eq!(cycle.first(), cycle.last());
    assert_eq!(cycle.len(), 4, "{cycle:?}");
}

#[test]
fn no_crate_imports_its_modules_in_a_circle() {
    let mut checked = 0;
    for (name, (dir, _)) in manifests() {
        let src = dir.join("src");
        if !src.is_dir() {
            continue;
        }
        let graph = module_graph(&src);
        checked += graph.len();
        if let Some(cycle) = find_cycle(&graph) {
            panic!(
                "{name}: modules import each other in a circle: {}",
                cycle.join(" -> ")
            );
        }
    }
    assert!(checked >= 30, "only {checked} modules seen");
}

/// Functions longer than `max` lines in `text`: a `fn` line, then up to
/// the line at its own indentation that closes it.
fn long_functions(text: &str, max: usize) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let indent = line.len() - t.len();
        let is_fn = [
            "fn ",
            "pub fn ",
            "pub(crate) fn ",
            "async fn ",
            "pub async fn ",
        ]
        .iter()
        .any(|p| t.starts_with(p))
            || (t.starts_with("pub(crate) async fn "));
        if !is_fn || t.ends_with(';') {
            continue;
        }
        let close = " ".repeat(indent) + "}";
        if let Some(len) = lines[i + 1..].iter().position(|l| *l == close) {
            if len + 2 > max {
                let name = t
                    .split("fn ")
                    .nth(1)
                    .unwrap_or_default()
                    .split(['(', '<'])
                    .next()
                    .unwrap_or_default()
                    .to_owned();
                out.push((name, len + 2));
            }
        }
    }
    out
}

#[test]
fn long_functions_are_found() {
    let body = "    x();\n".repeat(10);
    let text = format!("fn short() {{\n{body}}}\n\npub fn long() {{\n{body}{body}}}\n");
    assert_eq!(long_functions(&text, 15), vec![("long".to_owned(), 22)]);
}

#[test]
fn no_library_function_is_over_150_lines() {
    let root = workspace();
    let mut bad = Vec::new();
    for group in ["crates", "plugins"] {
        let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join(group))
            .expect("read workspace folder")
            .filter_map(|e| e.ok().map(|e| e.path().join("src")))
            .filter(|p| p.is_dir())
            .collect();
        crates.sort();
        for file in crates.iter().flat_map(|src| rust_files(src)) {
            let text = std::fs::read_to_string(&file).expect("read source");
            let code = &text[..text.find("#[cfg(test)]\nmod ").unwrap_or(text.len())];
            for (name, len) in long_functions(code, 150) {
                bad.push(format!("{}: fn {name} is {len} lines", file.display()));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Most lines of a source file outside its `#[cfg(test)]` module: a
/// longer file holds more than one concept (split it, as `content/` and
/// `deduper/` are).
const MAX_FILE_LINES: usize = 1_000;

/// Lines of `text` before its test module (`#[cfg(test)]` then `mod NAME
/// {`, by convention at the end of a file; `#[cfg(test)] mod NAME;` is an
/// out-of-line module whose file is measured on its own and is not cut).
fn lines_outside_tests(text: &str) -> usize {
    let mut lines = 0;
    let mut all = text.lines().peekable();
    while let Some(line) = all.next() {
        if line.trim() == "#[cfg(test)]" {
            let next = all.peek().map(|l| l.trim()).unwrap_or_default();
            if next.starts_with("mod ") && next.ends_with('{') {
                break;
            }
        }
        lines += 1;
    }
    lines
}

#[test]
fn lines_outside_tests_stops_at_an_inline_test_module_only() {
    let body = "fn f() {}\n".repeat(5);
    let inline = format!("{body}#[cfg(test)]\nmod tests {{\n{body}}}\n");
    assert_eq!(lines_outside_tests(&inline), 5);
    let out_of_line = format!("#[cfg(test)]\nmod fixtures;\n{body}");
    assert_eq!(lines_outside_tests(&out_of_line), 7);
    // A planted violation: a file one line over the limit is caught.
    let long = "const X: u8 = 0;\n".repeat(MAX_FILE_LINES + 1);
    assert!(lines_outside_tests(&long) > MAX_FILE_LINES);
}

#[test]
fn no_source_file_is_over_1000_lines_outside_tests() {
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
    let mut bad = Vec::new();
    let mut scanned = 0;
    for file in dirs.iter().flat_map(|src| rust_files(src)) {
        let text = std::fs::read_to_string(&file).expect("read source");
        scanned += 1;
        let n = lines_outside_tests(&text);
        if n > MAX_FILE_LINES {
            bad.push(format!("{}: {n} lines outside tests", file.display()));
        }
    }
    assert!(scanned >= 120, "only {scanned} files scanned");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
