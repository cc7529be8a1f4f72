//! Clusters: union-find over accepted matches, and per-site aggregation.
//!
//! Cluster ids are deterministic: a cluster is named after its
//! representative, the member that was processed first.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::verdict::{VerdictCounts, VerdictKind};

/// One page's outcome, as the clustering needs it.
#[derive(Clone, Debug)]
pub struct Member {
    /// The caller's key (doc_id).
    pub key: String,
    /// The page URL.
    pub url: String,
    /// The page's site.
    pub site: String,
    /// Its verdict.
    pub kind: VerdictKind,
    /// Position (in processing order) of the page it matched, if any.
    pub of: Option<usize>,
    /// Similarity to that page.
    pub similarity: f64,
    /// Containment of the smaller page in the larger.
    pub containment: f64,
    /// The detector that fired.
    pub detector: Option<String>,
}

/// Union-find over positions `0..n` with path halving; the root of a set is
/// always its smallest position, so the representative is the first member.
#[derive(Clone, Debug)]
pub struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    /// `n` singletons.
    pub fn new(n: usize) -> UnionFind {
        UnionFind {
            parent: (0..n).collect(),
        }
    }

    /// The smallest position in `x`'s set.
    pub fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Merges the sets of `a` and `b`.
    pub fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[hi] = lo;
        }
    }
}

/// Cluster assignment of a run: for each member (in processing order), the
/// position of its cluster's representative.
pub fn assign(members: &[Member]) -> Vec<usize> {
    let mut uf = UnionFind::new(members.len());
    for (i, m) in members.iter().enumerate() {
        if let Some(j) = m.of {
            if j < members.len() {
                uf.union(i, j);
            }
        }
    }
    (0..members.len()).map(|i| uf.find(i)).collect()
}

/// A cluster of two or more pages, for `clusters.json`.
#[derive(Clone, Debug, Serialize)]
pub struct ClusterSummary {
    /// Deterministic id: the representative's key.
    pub id: String,
    /// Pages in the cluster, the representative included.
    pub size: usize,
    /// The representative (first page seen).
    pub representative: String,
    /// The representative's URL.
    pub representative_url: String,
    /// The representative's site.
    pub representative_site: String,
    /// Members other than the representative, in processing order.
    pub members: Vec<ClusterMember>,
    /// The sites the cluster spans, sorted (more than one: mirrors,
    /// syndication).
    pub sites: Vec<String>,
}

/// A member of a cluster.
#[derive(Clone, Debug, Serialize)]
pub struct ClusterMember {
    /// Key (doc_id).
    pub doc_id: String,
    /// URL.
    pub url: String,
    /// Site.
    pub site: String,
    /// `duplicate` or `near_duplicate`.
    pub verdict: VerdictKind,
    /// Key of the page it matched.
    pub of: String,
    /// Similarity to that page.
    pub similarity: f64,
    /// Containment of the smaller page in the larger.
    pub containment: f64,
    /// Detector that fired.
    pub detector: String,
}

/// Per-site counts and clusters, for `clusters.json`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SiteSummary {
    /// Pages of this site.
    pub pages: usize,
    /// Its verdicts by kind (`duplicates`: a copy up to trivial changes,
    /// whichever detector found it; the exact detector's share is in
    /// `detectors`).
    #[serde(flatten)]
    pub verdicts: VerdictCounts,
    /// Dropped / pages.
    pub duplicate_rate: f64,
    /// Clusters whose pages are all on this site, largest first.
    pub clusters: Vec<ClusterSummary>,
}

/// Clusters of a run grouped for reporting: per site, and the clusters that
/// span several sites (mirrors, syndication) on their own, since they belong
/// to no single site.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ClusterReport {
    /// Per-site counts and single-site clusters, by site name.
    pub sites: BTreeMap<String, SiteSummary>,
    /// Clusters spanning more than one site, largest first.
    pub cross_site: Vec<ClusterSummary>,
}

/// Builds the per-site summary from members and their cluster assignment
/// (`roots` as returned by [`assign`]; a root out of range is ignored).
pub fn summarize(members: &[Member], roots: &[usize]) -> ClusterReport {
    let mut report = ClusterReport::default();
    for m in members {
        let s = report.sites.entry(m.site.clone()).or_default();
        s.pages += 1;
        s.verdicts.add(m.kind);
    }
    let mut by_root: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, &r) in roots.iter().enumerate().take(members.len()) {
        by_root.entry(r).or_default().push(i);
    }
    for (root, list) in by_root {
        let Some(rep) = members.get(root) else {
            continue;
        };
        if list.len() < 2 {
            continue;
        }
        let mut sites: Vec<String> = list.iter().map(|&i| members[i].site.clone()).collect();
        sites.sort_unstable();
        sites.dedup();
        let summary = ClusterSummary {
            id: rep.key.clone(),
            size: list.len(),
            representative: rep.key.clone(),
            representative_url: rep.url.clone(),
            representative_site: rep.site.clone(),
            members: list
                .iter()
                .filter(|&&i| i != root)
                .map(|&i| {
                    let m = &members[i];
                    ClusterMember {
                        doc_id: m.key.clone(),
                        url: m.url.clone(),
                        site: m.site.clone(),
                        verdict: m.kind,
                        of: m
                            .of
                            .and_then(|j| members.get(j))
                            .map(|o| o.key.clone())
                            .unwrap_or_default(),
                        similarity: m.similarity,
                        containment: m.containment,
                        detector: m.detector.clone().unwrap_or_default(),
                    }
                })
                .collect(),
            sites,
        };
        if summary.sites.len() > 1 {
            report.cross_site.push(summary);
        } else if let Some(s) = report.sites.get_mut(&rep.site) {
            s.clusters.push(summary);
        }
    }
    let by_size =
        |a: &ClusterSummary, b: &ClusterSummary| b.size.cmp(&a.size).then(a.id.cmp(&b.id));
    for s in report.sites.values_mut() {
        s.duplicate_rate = if s.pages == 0 {
            0.0
        } else {
            s.verdicts.dropped() as f64 / s.pages as f64
        };
        s.clusters.sort_by(by_size);
    }
    report.cross_site.sort_by(by_size);
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn representative_is_first_member_whatever_the_union_order() {
        let mut uf = UnionFind::new(5);
        uf.union(4, 3);
        uf.union(3, 1);
        uf.union(2, 0);
        assert_eq!(uf.find(4), 1);
        assert_eq!(uf.find(3), 1);
        assert_eq!(uf.find(2), 0);
        uf.union(4, 2);
        assert_eq!(uf.find(1), 0);
    }

    fn member(key: &str, site: &str, kind: VerdictKind, of: Option<usize>) -> Member {
        Member {
            key: key.into(),
            url: format!("https://{site}/{key}"),
            site: site.into(),
            kind,
            of,
            similarity: if of.is_some() { 0.9 } else { 0.0 },
            containment: 0.0,
            detector: of.map(|_| "chunks".to_owned()),
        }
    }

    #[test]
    fn summary_splits_single_site_and_cross_site_clusters() {
        use VerdictKind::*;
        let members = vec![
            member("a", "x.com", Unique, None),
            member("b", "x.com", Duplicate, Some(0)),
            member("c", "y.com", Unique, None),
            member("d", "z.com", NearDuplicate, Some(2)),
            member("e", "y.com", NearDuplicate, Some(3)),
            member("f", "x.com", Unique, None),
        ];
        let roots = assign(&members);
        assert_eq!(roots, vec![0, 0, 2, 2, 2, 5]);
        let r = summarize(&members, &roots);
        let x = &r.sites["x.com"];
        assert_eq!(
            (x.pages, x.verdicts.unique, x.verdicts.duplicates),
            (3, 2, 1)
        );
        assert_eq!(x.verdicts.near_duplicates, 0);
        assert!((x.duplicate_rate - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(x.clusters.len(), 1);
        assert_eq!(x.clusters[0].id, "a");
        assert_eq!(x.clusters[0].members[0].of, "a");
        // c, d, e span y.com and z.com: listed once, as cross-site, not under y.com.
        assert!(r.sites["y.com"].clusters.is_empty());
        assert_eq!(r.cross_site.len(), 1);
        let c = &r.cross_site[0];
        assert_eq!((c.id.as_str(), c.size), ("c", 3));
        assert_eq!(c.sites, vec!["y.com".to_owned(), "z.com".to_owned()]);
        let ofs: Vec<&str> = c.members.iter().map(|m| m.of.as_str()).collect();
        assert_eq!(ofs, vec!["c", "d"]);
    }
}
