//! No function over 150 lines and no file over 1,000 lines outside its
//! tests, in every source folder of the workspace. Lengths come from
//! `syn`'s spans: a function from its `fn` line to its closing brace (a
//! nested function counts within its parent and on its own), every kind:
//! free, impl and trait methods with a body, any visibility, `const`,
//! `async`, `unsafe`. Test code is left out: items under `#[cfg(test)]`,
//! `#[test]` functions and the files of out-of-line `#[cfg(test)]` modules.

use std::collections::BTreeSet;
use std::path::PathBuf;

use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use crate::modtree::item_is_test;

/// Most lines of a function.
const MAX_FN_LINES: usize = 150;

/// Most lines of a source file outside its tests: a longer file holds more
/// than one concept (split it, as `content/` and `deduper/` are).
const MAX_FILE_LINES: usize = 1_000;

/// Functions of `file` (outside tests) and their lengths in lines.
#[derive(Default)]
struct Functions {
    found: Vec<(String, usize)>,
}

impl Functions {
    fn add(&mut self, name: &syn::Ident, fn_token: &syn::token::Fn, block: &syn::Block) {
        let start = fn_token.span.start().line;
        let end = block.brace_token.span.close().end().line;
        self.found.push((name.to_string(), end + 1 - start));
    }
}

impl<'ast> Visit<'ast> for Functions {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !item_is_test(item) {
            visit::visit_item(self, item);
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.add(&f.sig.ident, &f.sig.fn_token, &f.block);
        visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if crate::is_test(&f.attrs) {
            return;
        }
        self.add(&f.sig.ident, &f.sig.fn_token, &f.block);
        visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if crate::is_test(&f.attrs) {
            return;
        }
        if let Some(block) = &f.default {
            self.add(&f.sig.ident, &f.sig.fn_token, block);
        }
        visit::visit_trait_item_fn(self, f);
    }
}

/// Every function of `file` outside tests, with its length in lines.
fn functions(file: &syn::File) -> Vec<(String, usize)> {
    let mut f = Functions::default();
    f.visit_file(file);
    f.found
}

/// Lines of `text` outside its test items (`#[cfg(test)]` items and
/// `#[test]` functions, at any depth of inline modules), attributes and
/// doc comments of a test item included.
fn lines_outside_tests(text: &str, file: &syn::File) -> usize {
    fn test_lines(items: &[syn::Item], out: &mut BTreeSet<usize>) {
        for item in items {
            if item_is_test(item) {
                let span = item.span();
                out.extend(span.start().line..=span.end().line);
            } else if let syn::Item::Mod(m) = item {
                if let Some((_, inner)) = &m.content {
                    test_lines(inner, out);
                }
            }
        }
    }
    let mut tests = BTreeSet::new();
    test_lines(&file.items, &mut tests);
    text.lines().count() - tests.len()
}

/// Every source file outside tests, with its text and its parse, after
/// checking that each source folder gave at least one file and all of them
/// at least `floor`.
fn sources(floor: usize) -> Vec<(PathBuf, String, syn::File)> {
    let tests = crate::test_files();
    let mut out = Vec::new();
    for dir in crate::source_dirs() {
        let before = out.len();
        for path in crate::rust_files(&dir) {
            if tests.contains(&path) {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("read source");
            let file =
                syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", crate::shown(&path)));
            out.push((path, text, file));
        }
        assert!(out.len() > before, "{}: no source file", crate::shown(&dir));
    }
    assert!(out.len() >= floor, "only {} files scanned", out.len());
    out
}

#[test]
fn every_kind_of_function_is_measured_and_tests_are_not() {
    let body = "    x();\n".repeat(10);
    let text = format!(
        "fn short() {{\n{body}}}\n\
         pub(super) const fn a() {{\n{body}{body}}}\n\
         struct S;\n\
         impl S {{\n    pub(crate) async unsafe fn b(&self) {{\n{body}{body}    }}\n}}\n\
         trait T {{\n    fn c(&self) {{\n{body}{body}    }}\n    fn d(&self);\n}}\n\
         fn outer() {{\n    fn inner() {{\n{body}{body}    }}\n}}\n\
         #[test]\nfn a_test() {{\n{body}{body}}}\n\
         #[cfg(test)]\nmod tests {{\n    fn helper() {{\n{body}{body}    }}\n}}\n"
    );
    let file = syn::parse_file(&text).expect("parse sample");
    let long: Vec<(String, usize)> = functions(&file)
        .into_iter()
        .filter(|(_, n)| *n > 15)
        .collect();
    let want = [
        ("a", 22),
        ("b", 22),
        ("c", 22),
        ("outer", 24),
        ("inner", 22),
    ];
    let want: Vec<(String, usize)> = want.iter().map(|(n, l)| ((*n).into(), *l)).collect();
    assert_eq!(long, want);
}

#[test]
fn test_items_do_not_count_toward_a_file_s_lines() {
    let body = "fn f() {}\n".repeat(5);
    // An out-of-line test module's declaration is test code (its file is
    // left out by the module tree), and code after it still counts.
    let text =
        format!("#[cfg(test)]\nmod fixtures;\n{body}#[cfg(test)]\nmod tests {{\n{body}}}\n{body}");
    let file = syn::parse_file(&text).expect("parse sample");
    assert_eq!(lines_outside_tests(&text, &file), 10);
    // A planted violation: a file one line over the limit is caught.
    let long = "const X: u8 = 0;\n".repeat(MAX_FILE_LINES + 1);
    let file = syn::parse_file(&long).expect("parse sample");
    assert!(lines_outside_tests(&long, &file) > MAX_FILE_LINES);
}

#[test]
fn no_function_is_over_150_lines() {
    let mut bad = Vec::new();
    for (path, _, file) in sources(150) {
        for (name, len) in functions(&file) {
            if len > MAX_FN_LINES {
                bad.push(format!("{}: fn {name} is {len} lines", crate::shown(&path)));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn no_source_file_is_over_1000_lines_outside_tests() {
    let mut bad = Vec::new();
    for (path, text, file) in sources(150) {
        let n = lines_outside_tests(&text, &file);
        if n > MAX_FILE_LINES {
            bad.push(format!("{}: {n} lines outside tests", crate::shown(&path)));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
