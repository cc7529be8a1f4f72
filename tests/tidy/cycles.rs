//! No crate's modules use each other in a circle. The nodes are a crate's
//! root (`crate`: `lib.rs` or `main.rs`) and its top-level modules (a
//! nested module belongs to its top-level one). Module A uses B when a
//! `use` tree or a path in A's code (outside tests) names an item that B
//! defines; a path through a re-export is followed to the module that
//! defines the item (`crate::Config` re-exported from `config` is a use of
//! `config`, not of the root). Declaring a child (`mod foo;`) is not a use.
//!
//! Inside a module's folder (`content/mod.rs` and the files of
//! `content/`) the same graph is drawn among the folder's children and its
//! `mod.rs` (`self`), and must have no cycle either: a `mod.rs` that
//! dispatches to its files does not also hold what they share (that is a
//! file of its own, as `content/thresholds.rs` or `cli/setup.rs`).

use std::collections::{BTreeMap, BTreeSet};

use crate::modtree::{Crate, ModPath};

/// A node's name among the children of `parent`: the child `path` is in,
/// or `self` for `parent` itself (`crate` at the root); `None` outside
/// `parent`.
fn node(parent: &[String], path: &ModPath) -> Option<String> {
    if !path.starts_with(parent) {
        return None;
    }
    Some(match path.get(parent.len()) {
        Some(child) => child.clone(),
        None if parent.is_empty() => "crate".to_owned(),
        None => "self".to_owned(),
    })
}

/// Edges between the nodes of `krate`, each with one witness (`file uses
/// path`) for the message.
type Graph = BTreeMap<String, BTreeMap<String, String>>;

/// The graph between `parent` and its children (each child with its
/// descendants); the crate's top level for `parent` = `[]`.
fn module_graph(krate: &Crate, parent: &[String]) -> Graph {
    let mut graph: Graph = BTreeMap::new();
    for (path, module) in &krate.modules {
        let Some(from) = node(parent, path) else {
            continue;
        };
        graph.entry(from.clone()).or_default();
        for used in &module.uses {
            let Some(target) = krate.resolve(used) else {
                continue;
            };
            let Some(to) = node(parent, &target) else {
                continue;
            };
            if to != from {
                let witness = format!(
                    "{} uses crate::{}",
                    crate::shown(&module.file),
                    used.join("::")
                );
                graph
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_insert(witness);
            }
        }
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

/// Every cycle of `graph` found by taking out one edge of each cycle found
/// until none is left, each edge with its witness.
fn cycles(graph: &Graph) -> Vec<String> {
    let mut plain: BTreeMap<String, BTreeSet<String>> = graph
        .iter()
        .map(|(k, v)| (k.clone(), v.keys().cloned().collect()))
        .collect();
    let mut out = Vec::new();
    while let Some(cycle) = find_cycle(&plain) {
        let mut text = cycle.join(" -> ");
        for pair in cycle.windows(2) {
            text.push_str(&format!("\n    {}", graph[&pair[0]][&pair[1]]));
        }
        out.push(text);
        if let Some(edges) = plain.get_mut(&cycle[0]) {
            edges.remove(&cycle[1]);
        }
        if out.len() > 20 {
            break;
        }
    }
    out
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

/// A planted cycle through the crate root (the root re-exports `state`'s
/// type and defines one that `state` uses), one through nested `use`
/// braces, one through `super::` in a nested module, one through an inline
/// path, and a clean crate whose modules use each other's items through the
/// root's re-exports only.
#[test]
fn module_cycles_are_found_through_the_root_braces_super_and_paths() {
    let root_cycle = Crate::from_source(
        "pub use state::State;
         pub struct Outputs;
         mod state { use crate::Outputs; pub struct State; }",
    );
    let found = cycles(&module_graph(&root_cycle, &[]));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("crate -> state -> crate"), "{found:?}");

    let braces = Crate::from_source(
        "mod a { use crate::{c::{X, y}, b}; pub struct A; }
         mod b { pub fn f() {} }
         mod c { pub struct X; pub fn y() {} pub fn g() { crate::a::A; } }",
    );
    let found = cycles(&module_graph(&braces, &[]));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("a -> c -> a"), "{found:?}");

    let sup = Crate::from_source(
        "mod a { pub struct A; mod inner { fn f() { super::super::b::g(); } } }
         mod b { pub fn g() {} fn h() { let _ = super::a::A; } }",
    );
    let found = cycles(&module_graph(&sup, &[]));
    assert_eq!(found.len(), 1, "{found:?}");

    let in_macro = Crate::from_source(
        "mod a { pub struct A; fn f() { let _ = vec![crate::b::g()]; } }
         mod b { pub fn g() {} fn h() { crate::a::A; } }",
    );
    assert_eq!(cycles(&module_graph(&in_macro, &[])).len(), 1);

    let clean = Crate::from_source(
        "pub use config::Config;
         pub use deduper::Deduper;
         mod config { pub struct Config; }
         mod deduper { use crate::Config; pub struct Deduper(Config); }
         #[cfg(test)]
         mod tests { use crate::Deduper; }",
    );
    let graph = module_graph(&clean, &[]);
    assert!(cycles(&graph).is_empty());
    assert!(graph["deduper"].contains_key("config"), "{graph:?}");
    assert!(graph["crate"].contains_key("deduper"), "{graph:?}");
    assert!(!graph.contains_key("tests"), "{graph:?}");
}

#[test]
fn no_crate_uses_its_modules_in_a_circle() {
    let mut bad = Vec::new();
    let (mut crates, mut modules) = (0, 0);
    for (name, root, krate) in crate::crates() {
        crates += 1;
        modules += krate.modules.len();
        for cycle in cycles(&module_graph(krate, &[])) {
            bad.push(format!("{name} ({}): {cycle}", crate::shown(root)));
        }
    }
    assert!(crates >= 18, "only {crates} crate roots read");
    assert!(modules >= 120, "only {modules} modules read");
    assert!(
        bad.is_empty(),
        "modules use each other in a circle:\n{}",
        bad.join("\n")
    );
}

/// Every cycle among the children of a module folder (`parent`: the
/// folder's path; `self` its `mod.rs`), as `parent: cycle`.
fn nested_cycles(krate: &Crate) -> Vec<String> {
    let parents: BTreeSet<ModPath> = krate
        .modules
        .keys()
        .filter(|p| p.len() >= 2)
        .map(|p| p[..p.len() - 1].to_vec())
        .collect();
    let mut out = Vec::new();
    for parent in parents {
        for cycle in cycles(&module_graph(krate, &parent)) {
            out.push(format!("{}: {cycle}", parent.join("::")));
        }
    }
    out
}

/// A planted cycle inside a folder (its `mod.rs` re-exports a child's
/// item and holds a constant the child reads) is found, with its edges;
/// the same folder with the constant in a child of its own is clean.
#[test]
fn cycles_inside_a_module_folder_are_found() {
    let planted = Crate::from_source(
        "mod content {
             pub use page::Page;
             pub const MAX: u32 = 8;
             mod page { pub struct Page(u32); fn f() -> u32 { super::MAX } }
         }",
    );
    let found = nested_cycles(&planted);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("content: page -> self -> page"),
        "{found:?}"
    );
    assert!(found[0].contains("uses crate::content::MAX"), "{found:?}");

    let clean = Crate::from_source(
        "mod content {
             pub use page::Page;
             mod limits { pub const MAX: u32 = 8; }
             mod page { pub struct Page(u32); fn f() -> u32 { super::limits::MAX } }
         }",
    );
    assert!(
        nested_cycles(&clean).is_empty(),
        "{:?}",
        nested_cycles(&clean)
    );
    assert!(cycles(&module_graph(&clean, &[])).is_empty());
}

#[test]
fn no_module_folder_uses_its_files_in_a_circle() {
    let mut bad = Vec::new();
    let mut folders = BTreeSet::new();
    for (name, root, krate) in crate::crates() {
        let nested = krate.modules.keys().filter(|p| p.len() >= 2);
        folders.extend(nested.map(|p| format!("{name} {}", p[..p.len() - 1].join("::"))));
        for cycle in nested_cycles(krate) {
            bad.push(format!("{name} ({}) {cycle}", crate::shown(root)));
        }
    }
    assert!(
        folders.len() >= 12,
        "only {} module folders read",
        folders.len()
    );
    assert!(
        bad.is_empty(),
        "modules inside a folder use each other in a circle (move what the \
         folder's files share out of its mod.rs into a file of its own):\n{}",
        bad.join("\n")
    );
}
