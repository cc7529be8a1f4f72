//! Which files of a directory are pages: ripgrep-style globs over the
//! relative path, with a default for directories of saved pages.
//!
//! Default (no glob given): files with an HTML-ish or text extension
//! ([`PAGE_EXTENSIONS`]), files without an extension (wget mirrors and
//! crawl dumps save pages so), and any of those compressed with gzip
//! (`page.html.gz`, `page.gz`). So metadata (`.json`), documentation
//! (`LICENSE.md`), images and styles are not taken for pages.
//!
//! Globs (`--glob`/`-g`, as ripgrep's): `*` and `?` match within one path
//! component, `**` across components, `[abc]` a set; a glob without `/`
//! matches the file name at any depth, one with `/` the path relative to
//! the directory. A glob starting with `!` excludes. With at least one
//! including glob, a file is a page when it matches one of them (the
//! default no longer applies); excluding globs only remove files, from
//! the default set when no including glob is given.

use regex::Regex;

/// Extensions of files taken as pages by default (case-insensitive).
pub const PAGE_EXTENSIONS: &[&str] = &[
    "html", "htm", "xhtml", "xht", "shtml", "php", "asp", "aspx", "jsp", "cfm", "txt",
];

/// One parsed glob.
#[derive(Clone, Debug)]
struct Glob {
    /// Anchored regex of the glob.
    regex: Regex,
    /// Matches the relative path (the glob has a `/`) instead of the name.
    whole_path: bool,
    /// A `!` glob.
    exclude: bool,
}

/// A filter over file paths relative to a directory input.
#[derive(Clone, Debug, Default)]
pub struct PageFilter {
    globs: Vec<Glob>,
}

impl PageFilter {
    /// The filter of `globs` (empty: the default).
    ///
    /// # Errors
    /// [`neardup::Error::Config`] naming a glob that cannot be compiled.
    pub fn new(globs: &[String]) -> neardup::Result<PageFilter> {
        let mut parsed = Vec::with_capacity(globs.len());
        for g in globs {
            let (exclude, pattern) = match g.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, g.as_str()),
            };
            let pattern = pattern.strip_prefix('/').unwrap_or(pattern);
            let regex =
                Regex::new(&glob_to_regex(pattern)).map_err(|e| neardup::Error::Config {
                    key: "--glob".into(),
                    value: g.clone(),
                    allowed: format!("a glob (`*`, `?`, `**`, `[...]`, leading `!`): {e}"),
                })?;
            parsed.push(Glob {
                regex,
                whole_path: pattern.contains('/'),
                exclude,
            });
        }
        Ok(PageFilter { globs: parsed })
    }

    /// Whether the file at `rel` (relative path, `/`-separated) is a page.
    pub fn is_page(&self, rel: &str) -> bool {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let hit = |g: &Glob| g.regex.is_match(if g.whole_path { rel } else { name });
        if self.globs.iter().any(|g| g.exclude && hit(g)) {
            return false;
        }
        let mut includes = self.globs.iter().filter(|g| !g.exclude).peekable();
        if includes.peek().is_none() {
            return default_is_page(name);
        }
        includes.any(hit)
    }
}

/// The default rule (see the module docs).
pub fn default_is_page(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let inner = lower.strip_suffix(".gz").unwrap_or(&lower);
    match inner.rsplit_once('.') {
        None => true,
        Some(("", _)) => true,
        Some((_, ext)) => PAGE_EXTENSIONS.contains(&ext),
    }
}

/// Translates a glob to an anchored regex.
fn glob_to_regex(glob: &str) -> String {
    let mut re = String::from("^");
    let chars: Vec<char> = glob.chars().collect();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            '*' if chars.get(i + 1) == Some(&'*') => {
                // `**/` matches zero or more directories; `**` anything.
                if chars.get(i + 2) == Some(&'/') {
                    re.push_str("(?:.*/)?");
                    i += 3;
                } else {
                    re.push_str(".*");
                    i += 2;
                }
                continue;
            }
            '*' => re.push_str("[^/]*"),
            '?' => re.push_str("[^/]"),
            '[' => match chars
                .get(i + 1..)
                .and_then(|r| r.iter().position(|&c| c == ']'))
            {
                Some(len) if len > 0 => {
                    let set: String = chars
                        .get(i + 1..i + 1 + len)
                        .unwrap_or_default()
                        .iter()
                        .collect();
                    let set = set
                        .strip_prefix('!')
                        .map_or(set.clone(), |s| format!("^{s}"));
                    re.push('[');
                    re.push_str(&set.replace('\\', "\\\\"));
                    re.push(']');
                    i += len + 2;
                    continue;
                }
                _ => re.push_str("\\["),
            },
            c => re.push_str(&regex::escape(&c.to_string())),
        }
        i += 1;
    }
    re.push('$');
    re
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(globs: &[&str]) -> PageFilter {
        PageFilter::new(&globs.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn default_takes_pages_and_leaves_metadata() {
        let d = f(&[]);
        for yes in [
            "a.html",
            "b/c.HTM",
            "page",
            "x/page.html.gz",
            "p.gz",
            "notes.txt",
            "q.php",
        ] {
            assert!(d.is_page(yes), "{yes}");
        }
        for no in [
            "meta.json",
            "LICENSE.md",
            "s.css",
            "i.png",
            "a.tar.gz",
            "data.json.gz",
        ] {
            assert!(!d.is_page(no), "{no}");
        }
    }

    #[test]
    fn globs_include_exclude_and_anchor() {
        let g = f(&["*.json"]);
        assert!(g.is_page("x/y.json") && !g.is_page("a.html"));
        let g = f(&["!drafts/**"]);
        assert!(!g.is_page("drafts/a/b.html"));
        assert!(g.is_page("posts/a.html"));
        assert!(!g.is_page("posts/a.json"), "default still applies");
        let g = f(&["blog/*.htm[l]", "!blog/old*"]);
        assert!(g.is_page("blog/a.html"));
        assert!(!g.is_page("blog/sub/a.html"), "`*` stays in one component");
        assert!(!g.is_page("blog/old1.html"));
        let g = f(&["**/*.md"]);
        assert!(g.is_page("README.md") && g.is_page("a/b/c.md"));
        assert!(
            PageFilter::new(&["a(".to_string()]).is_ok(),
            "regex characters are literal"
        );
    }
}
