//! URL-pattern hints: what differs between the URLs of a cluster's pages
//! (a query parameter, a path segment, the host...), offered only between
//! pages that carry the same name.

use std::collections::{BTreeMap, HashMap};

use crate::model::Hint;

/// URL-pattern hints ([`url_hints`]) that merge only pages carrying the
/// same name. `pages` are `(url, title)`, `title` `None` when unknown (an
/// output written before verdict lines carried titles). Pages carry the
/// same name when their titles have the same distinct words once the words
/// of where each page lives are set aside ([`neardup::title_name`]: words
/// are lowercased Unicode words as neardup compares them; a URL's host
/// labels and folder names, and title words spelled inside a host label,
/// are left out): `Widget A` and `Widget B` are two names, `Vec in
/// std::vec` at `/std/vec/` and `Vec in alloc::vec` at `/alloc/vec/` one.
/// Two pages without a title carry the same (empty) name; so do two of
/// unknown title. Hints are computed within each group of pages of one
/// name and merged (the first of each key kept), so no hint rests on two
/// pages of different names.
pub fn named_url_hints(pages: &[(&str, Option<&str>)]) -> Vec<Hint> {
    let mut groups: Vec<Vec<&str>> = Vec::new();
    let mut by_name: HashMap<Option<Vec<u32>>, usize> = HashMap::new();
    for &(url, title) in pages {
        let name = title.map(|t| neardup::title_name(t, url));
        let i = *by_name.entry(name).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        if let Some(g) = groups.get_mut(i) {
            g.push(url);
        }
    }
    let mut hints: Vec<Hint> = Vec::new();
    for urls in groups.iter().filter(|g| g.len() > 1) {
        for h in url_hints(urls) {
            if !hints.iter().any(|x| x.key == h.key) {
                hints.push(h);
            }
        }
    }
    hints
}

/// What differs between the URLs of one cluster: hosts, schemes, query
/// parameters (varying values, or present on some URLs only), path
/// segments (by position when the paths have the same depth), trailing
/// slashes and letter case. URLs that do not parse are ignored.
pub fn url_hints(urls: &[&str]) -> Vec<Hint> {
    let parsed: Vec<url::Url> = urls
        .iter()
        .filter_map(|u| url::Url::parse(u).ok())
        .collect();
    let mut hints = Vec::new();
    if parsed.len() < 2 {
        return hints;
    }
    let distinct = |f: &dyn Fn(&url::Url) -> String| {
        let mut v: Vec<String> = parsed.iter().map(f).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let hosts = distinct(&|u| u.host_str().unwrap_or("").to_owned());
    if hosts.len() > 1 {
        hints.push(Hint {
            key: "host".into(),
            text: format!("host differs ({})", sample(&hosts)),
        });
    }
    if distinct(&|u| u.scheme().to_owned()).len() > 1 {
        hints.push(Hint {
            key: "scheme".into(),
            text: "scheme differs (http and https)".into(),
        });
    }
    // Query parameters: name -> value per URL (None when absent).
    let queries: Vec<BTreeMap<String, String>> = parsed
        .iter()
        .map(|u| {
            u.query_pairs()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect()
        })
        .collect();
    let mut names: Vec<&String> = queries.iter().flat_map(|q| q.keys()).collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        let present = queries.iter().filter(|q| q.contains_key(name)).count();
        if present < queries.len() {
            hints.push(Hint {
                key: format!("query:{name}"),
                text: format!("query parameter `{name}` on some URLs only"),
            });
            continue;
        }
        let mut values: Vec<&String> = queries.iter().filter_map(|q| q.get(name)).collect();
        values.sort_unstable();
        values.dedup();
        if values.len() > 1 {
            hints.push(Hint {
                key: format!("query:{name}"),
                text: format!("query parameter `{name}` varies ({} values)", values.len()),
            });
        }
    }
    let paths: Vec<&str> = parsed.iter().map(url::Url::path).collect();
    let mut trimmed: Vec<&str> = paths.iter().map(|p| p.trim_end_matches('/')).collect();
    let lower_equal = trimmed.windows(2).all(|w| w[0].eq_ignore_ascii_case(w[1]));
    let trailing_differs = paths.iter().any(|p| p.ends_with('/') && p.len() > 1)
        && paths.iter().any(|p| !p.ends_with('/'));
    if trailing_differs && trimmed.windows(2).all(|w| w[0] == w[1]) {
        hints.push(Hint {
            key: "path:trailing-slash".into(),
            text: "trailing slash differs".into(),
        });
        return hints;
    }
    if lower_equal && trimmed.windows(2).any(|w| w[0] != w[1]) {
        hints.push(Hint {
            key: "path:case".into(),
            text: "letter case of the path differs".into(),
        });
        return hints;
    }
    trimmed.sort_unstable();
    trimmed.dedup();
    if trimmed.len() < 2 {
        return hints;
    }
    let segs: Vec<Vec<&str>> = parsed
        .iter()
        .map(|u| {
            u.path()
                .trim_matches('/')
                .split('/')
                .filter(|s| !s.is_empty())
                .collect()
        })
        .collect();
    let depth = segs.first().map_or(0, Vec::len);
    if segs.iter().all(|s| s.len() == depth) {
        for i in 0..depth {
            let mut values: Vec<&str> = segs.iter().filter_map(|s| s.get(i).copied()).collect();
            values.sort_unstable();
            values.dedup();
            if values.len() > 1 {
                hints.push(Hint {
                    key: format!("path:{}", i + 1),
                    text: format!(
                        "path segment {} varies ({})",
                        i + 1,
                        sample(&values.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
                    ),
                });
            }
        }
    } else {
        // Different depths: the common leading segments, then "the rest".
        let common = (0..depth)
            .take_while(|&i| {
                let first = segs.first().and_then(|s| s.get(i));
                segs.iter().all(|s| s.get(i) == first)
            })
            .count();
        let prefix = segs
            .first()
            .map(|s| s.iter().take(common).copied().collect::<Vec<_>>().join("/"))
            .unwrap_or_default();
        hints.push(Hint {
            key: "path:depth".into(),
            text: format!("paths differ after /{prefix} (different depths)"),
        });
    }
    hints
}

/// Up to three values, then "…".
fn sample(values: &[String]) -> String {
    let mut s: Vec<String> = values.iter().take(3).map(|v| format!("`{v}`")).collect();
    if values.len() > 3 {
        s.push(format!("+{} more", values.len() - 3));
    }
    s.join(", ")
}
