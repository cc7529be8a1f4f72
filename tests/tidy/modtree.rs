//! A crate's module tree, read with `syn` from its root file through its
//! `mod` declarations: which files are test code (`#[cfg(test)] mod x;`
//! makes `x.rs` and everything below it test code), and for every other
//! module what it defines, what it imports and which paths its code names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::{self, Visit};

use crate::is_test;

/// A module's path from the crate root (`[]` is the root).
pub type ModPath = Vec<String>;

/// How a flattened `use` path is bound.
#[derive(Clone, Debug, PartialEq)]
pub enum Bind {
    /// `use a::b;` or `use a::b as c;`: the name it binds.
    Name(String),
    /// `use a::*;`
    Glob,
    /// `use a::B as _;`
    Anon,
}

/// Every path of a `use` tree, braces flattened: `use a::{b::{C, d}, self}`
/// is `a::b::C`, `a::b::d` and `a`. A leading `::` is kept as an empty
/// first segment (an external crate).
pub fn flatten_use(tree: &syn::UseTree, leading_colon: bool) -> Vec<(Vec<String>, Bind)> {
    fn walk(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, Bind)>) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                walk(&p.tree, prefix, out);
                prefix.pop();
            }
            syn::UseTree::Name(n) if n.ident == "self" => {
                let name = prefix.last().cloned().unwrap_or_default();
                out.push((prefix.clone(), Bind::Name(name)));
            }
            syn::UseTree::Name(n) => {
                let mut path = prefix.clone();
                path.push(n.ident.to_string());
                out.push((path, Bind::Name(n.ident.to_string())));
            }
            syn::UseTree::Rename(r) => {
                let mut path = prefix.clone();
                if r.ident != "self" {
                    path.push(r.ident.to_string());
                }
                let bind = if r.rename == "_" {
                    Bind::Anon
                } else {
                    Bind::Name(r.rename.to_string())
                };
                out.push((path, bind));
            }
            syn::UseTree::Glob(_) => out.push((prefix.clone(), Bind::Glob)),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    walk(t, prefix, out);
                }
            }
        }
    }
    let mut prefix = if leading_colon {
        vec![String::new()]
    } else {
        Vec::new()
    };
    let mut out = Vec::new();
    walk(tree, &mut prefix, &mut out);
    out
}

/// Collects, from code outside tests and outside nested modules, every
/// `use` (also inside function bodies) and every path of two or more
/// segments (`crate::state::X::new`, `super::foo::bar`), also inside macro
/// calls whose arguments parse as expressions (`format!`, `vec!`, ...).
#[derive(Default)]
pub struct PathCollector {
    /// Flattened `use` paths, as written.
    pub uses: Vec<(Vec<String>, Bind)>,
    /// Paths written in code, as written (a leading `::` as "").
    pub paths: Vec<Vec<String>>,
    /// The function each path or use is in ("" outside functions), in the
    /// order of `uses` then `paths`.
    pub use_fns: Vec<String>,
    /// See `use_fns`.
    pub path_fns: Vec<String>,
    fn_stack: Vec<String>,
}

impl PathCollector {
    fn current_fn(&self) -> String {
        self.fn_stack.last().cloned().unwrap_or_default()
    }
}

impl<'ast> Visit<'ast> for PathCollector {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if let syn::Item::Mod(_) = item {
            return; // a module of its own
        }
        if item_is_test(item) {
            return;
        }
        if let syn::Item::Use(u) = item {
            for flat in flatten_use(&u.tree, u.leading_colon.is_some()) {
                self.uses.push(flat);
                self.use_fns.push(self.current_fn());
            }
            return;
        }
        visit::visit_item(self, item);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.fn_stack.push(f.sig.ident.to_string());
        visit::visit_item_fn(self, f);
        self.fn_stack.pop();
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        if let syn::ImplItem::Fn(f) = item {
            if is_test(&f.attrs) {
                return;
            }
            self.fn_stack.push(f.sig.ident.to_string());
            visit::visit_impl_item(self, item);
            self.fn_stack.pop();
            return;
        }
        visit::visit_impl_item(self, item);
    }

    fn visit_trait_item(&mut self, item: &'ast syn::TraitItem) {
        if let syn::TraitItem::Fn(f) = item {
            if is_test(&f.attrs) {
                return;
            }
            self.fn_stack.push(f.sig.ident.to_string());
            visit::visit_trait_item(self, item);
            self.fn_stack.pop();
            return;
        }
        visit::visit_trait_item(self, item);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let mut segs: Vec<String> = Vec::new();
        if path.leading_colon.is_some() {
            segs.push(String::new());
        }
        segs.extend(path.segments.iter().map(|s| s.ident.to_string()));
        if segs.len() >= 2 {
            self.paths.push(segs);
            self.path_fns.push(self.current_fn());
        }
        visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        use syn::punctuated::Punctuated;
        let args = mac.parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated);
        if let Ok(args) = args {
            for expr in &args {
                self.visit_expr(expr);
            }
        }
        visit::visit_macro(self, mac);
    }
}

/// The attributes of an item, if it has any.
pub fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// Whether an item is test code.
pub fn item_is_test(item: &syn::Item) -> bool {
    is_test(item_attrs(item))
}

/// The name an item defines in its module's namespace, if any.
fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::ExternCrate(i) => i.rename.as_ref().map_or(&i.ident, |r| &r.1),
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::TraitAlias(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

/// One module of a crate (outside tests).
#[derive(Debug, Default)]
pub struct Module {
    /// The file it is in (an inline module: its parent's file).
    pub file: PathBuf,
    /// Its child modules.
    pub children: BTreeSet<String>,
    /// Names of the items it defines (not modules, not imports).
    pub items: BTreeSet<String>,
    /// Its module-level imports: bound name -> path from the crate root.
    pub imports: BTreeMap<String, ModPath>,
    /// Its module-level glob imports, as paths from the crate root.
    pub globs: Vec<ModPath>,
    /// Every path it uses (`use` trees and paths in code, also inside
    /// functions) that starts in this crate, from the crate root.
    pub uses: Vec<ModPath>,
}

/// A crate's modules and its files of test code.
#[derive(Debug, Default)]
pub struct Crate {
    /// Every module outside tests, by path.
    pub modules: BTreeMap<ModPath, Module>,
    /// Files that are test code (out-of-line `#[cfg(test)]` modules and
    /// what they declare).
    pub test_files: BTreeSet<PathBuf>,
}

impl Crate {
    /// Reads the crate whose root file is `root`.
    pub fn load(root: &Path) -> Crate {
        let mut krate = Crate::default();
        let file = crate::parse_file(root);
        let dir = root.parent().expect("root folder").to_path_buf();
        krate.add(Vec::new(), root, &dir, &file.items);
        krate
    }

    /// A crate from one in-memory source string (its root), for the
    /// self-tests: inline modules only.
    pub fn from_source(text: &str) -> Crate {
        let file = syn::parse_file(text).expect("parse sample");
        let mut krate = Crate::default();
        krate.add(Vec::new(), Path::new("lib.rs"), Path::new(""), &file.items);
        krate
    }

    /// Adds the module at `path` (in `file`; its out-of-line children in
    /// `dir`) with its `items`, then its children.
    fn add(&mut self, path: ModPath, file: &Path, dir: &Path, items: &[syn::Item]) {
        let mut module = Module {
            file: file.to_path_buf(),
            ..Module::default()
        };
        let mut children = Vec::new();
        for item in items {
            if let syn::Item::Mod(m) = item {
                let test = is_test(&m.attrs);
                let name = m.ident.to_string();
                if !test {
                    module.children.insert(name.clone());
                }
                children.push((m, test));
            } else if !item_is_test(item) {
                if let Some(name) = item_name(item) {
                    module.items.insert(name);
                }
            }
        }
        let mut collector = PathCollector::default();
        for item in items {
            collector.visit_item(item);
        }
        // Module-level imports bind names; a `use` inside a function does
        // not, but it is a use all the same.
        let top_uses: Vec<(Vec<String>, Bind)> = items
            .iter()
            .filter(|i| !item_is_test(i))
            .filter_map(|i| match i {
                syn::Item::Use(u) => Some(flatten_use(&u.tree, u.leading_colon.is_some())),
                _ => None,
            })
            .flatten()
            .collect();
        let known: BTreeSet<String> = module
            .children
            .iter()
            .chain(&module.items)
            .cloned()
            .chain(top_uses.iter().filter_map(|(_, b)| match b {
                Bind::Name(n) => Some(n.clone()),
                _ => None,
            }))
            .collect();
        for (segs, bind) in &top_uses {
            let Some(abs) = absolute(segs, &path, &known) else {
                continue;
            };
            match bind {
                Bind::Name(n) => {
                    module.imports.insert(n.clone(), abs);
                }
                Bind::Glob => module.globs.push(abs),
                Bind::Anon => {}
            }
        }
        let written = collector
            .uses
            .iter()
            .map(|(s, _)| s)
            .chain(&collector.paths);
        module.uses = written.filter_map(|s| absolute(s, &path, &known)).collect();
        self.modules.insert(path.clone(), module);
        for (m, test) in children {
            let mut child = path.clone();
            child.push(m.ident.to_string());
            let child_dir = dir.join(m.ident.to_string());
            match &m.content {
                Some((_, inner)) if !test => self.add(child, file, &child_dir, inner),
                Some(_) => {}
                None => {
                    let Some(child_file) = child_file(dir, m) else {
                        continue; // declared but missing: rustc says so
                    };
                    if test {
                        self.add_test_file(&child_file);
                    } else {
                        let parsed = crate::parse_file(&child_file);
                        let dir = children_dir(&child_file);
                        self.add(child, &child_file, &dir, &parsed.items);
                    }
                }
            }
        }
    }

    /// Marks `file` and the files of every module it declares as tests.
    fn add_test_file(&mut self, file: &Path) {
        if !self.test_files.insert(file.to_path_buf()) {
            return;
        }
        let Ok(text) = std::fs::read_to_string(file) else {
            return;
        };
        let Ok(parsed) = syn::parse_file(&text) else {
            return;
        };
        let dir = children_dir(file);
        for item in &parsed.items {
            if let syn::Item::Mod(m) = item {
                if m.content.is_none() {
                    if let Some(f) = child_file(&dir, m) {
                        self.add_test_file(&f);
                    }
                }
            }
        }
    }

    /// The module that defines what the crate-relative `path` names (the
    /// module itself if it names a module), following imports and
    /// re-exports; `None` if it leaves the crate or names nothing known.
    pub fn resolve(&self, path: &[String]) -> Option<ModPath> {
        self.resolve_at(path, 0)
    }

    fn resolve_at(&self, path: &[String], depth: usize) -> Option<ModPath> {
        if depth > 16 {
            return None; // an import cycle through globs
        }
        let mut cur: ModPath = Vec::new();
        for (i, seg) in path.iter().enumerate() {
            let module = self.modules.get(&cur)?;
            if module.children.contains(seg) {
                cur.push(seg.clone());
                continue;
            }
            if module.items.contains(seg) {
                return Some(cur);
            }
            if let Some(target) = module.imports.get(seg) {
                let mut p = target.clone();
                p.extend(path[i + 1..].iter().cloned());
                return self.resolve_at(&p, depth + 1);
            }
            for glob in &module.globs {
                let mut p = glob.clone();
                p.extend(path[i..].iter().cloned());
                if let Some(found) = self.resolve_at(&p, depth + 1) {
                    return Some(found);
                }
            }
            return None;
        }
        Some(cur)
    }
}

/// `segs`, as written in the module at `here` whose names are `known`, as
/// a path from the crate root; `None` for a path outside the crate (an
/// external crate, `std`, `Self`, a generic parameter, a local item).
pub fn absolute(segs: &[String], here: &[String], known: &BTreeSet<String>) -> Option<ModPath> {
    let first = segs.first()?;
    match first.as_str() {
        "" => None,
        "crate" => Some(segs[1..].to_vec()),
        "self" => Some(here.iter().chain(&segs[1..]).cloned().collect()),
        "super" => {
            let mut base = here.to_vec();
            let mut rest = segs;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
            if rest.first().is_some_and(|s| s == "self") {
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            Some(base)
        }
        _ if known.contains(first) => Some(here.iter().chain(segs).cloned().collect()),
        _ => None,
    }
}

/// The file of the out-of-line module `m` declared with children in
/// `dir`: `#[path]`, else `dir/m.rs`, else `dir/m/mod.rs`.
fn child_file(dir: &Path, m: &syn::ItemMod) -> Option<PathBuf> {
    for attr in &m.attrs {
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if nv.path.is_ident("path") {
                if let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &nv.value
                {
                    return Some(dir.join(s.value()));
                }
            }
        }
    }
    let name = m.ident.to_string();
    [
        dir.join(format!("{name}.rs")),
        dir.join(&name).join("mod.rs"),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

/// Where the out-of-line children of the module in `file` live: beside a
/// `mod.rs`, `lib.rs` or `main.rs`, else in a folder named after the file.
fn children_dir(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new(""));
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    if matches!(stem, "mod" | "lib" | "main") {
        parent.to_path_buf()
    } else {
        parent.join(stem)
    }
}

#[test]
fn use_trees_are_flattened() {
    let item: syn::ItemUse =
        syn::parse_str("use crate::{a::{B, c as d}, self, e::*, f::G as _};").expect("parse use");
    let flat = flatten_use(&item.tree, false);
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        flat,
        vec![
            (s(&["crate", "a", "B"]), Bind::Name("B".into())),
            (s(&["crate", "a", "c"]), Bind::Name("d".into())),
            (s(&["crate"]), Bind::Name("crate".into())),
            (s(&["crate", "e"]), Bind::Glob),
            (s(&["crate", "f", "G"]), Bind::Anon),
        ]
    );
}

#[test]
fn paths_resolve_through_re_exports_and_super() {
    let krate = Crate::from_source(
        "pub use config::Config;
         pub struct Shared;
         mod config { pub struct Config; }
         mod deduper {
             use crate::Config;
             fn f() { super::config::Config; crate::Shared; }
             mod inner { fn g() { super::super::config::Config; } }
         }",
    );
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    assert_eq!(krate.resolve(&s(&["Config"])), Some(s(&["config"])));
    assert_eq!(krate.resolve(&s(&["Shared"])), Some(s(&[])));
    let deduper = &krate.modules[&s(&["deduper"])];
    let targets: Vec<_> = deduper.uses.iter().map(|u| krate.resolve(u)).collect();
    assert_eq!(
        targets,
        vec![Some(s(&["config"])), Some(s(&["config"])), Some(s(&[]))]
    );
    let inner = &krate.modules[&s(&["deduper", "inner"])];
    assert_eq!(inner.uses, vec![s(&["config", "Config"])]);
}

#[test]
fn an_out_of_line_test_module_makes_its_file_test_code() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    };
    write("lib.rs", "mod a;\n#[cfg(test)]\nmod fixtures;\nfn f() {}\n");
    write("a.rs", "pub fn g() {}\n");
    write("fixtures.rs", "mod more;\n");
    write("fixtures/more.rs", "fn h() {}\n");
    let krate = Crate::load(&dir.path().join("lib.rs"));
    let files: Vec<_> = krate.test_files.iter().cloned().collect();
    assert_eq!(
        files,
        vec![
            dir.path().join("fixtures/more.rs"),
            dir.path().join("fixtures.rs")
        ]
    );
    assert!(krate.modules.contains_key(&vec!["a".to_owned()]));
    assert!(krate.modules[&Vec::new()].items.contains("f"));
}
