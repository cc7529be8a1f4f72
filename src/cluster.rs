//! Clusters: union-find over accepted matches, and per-site aggregation.
//!
//! Cluster ids are deterministic: a cluster is named after its
//! representative, the member that was processed first.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::verdict::VerdictKind;

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
    /// The representative (first page seen).
    pub representative: String,
    /// The representative's URL.
    pub representative_url: String,
    /// Members other than the representative.
    pub members: Vec<ClusterMember>,
    /// Number of sites the cluster spans (more than one: mirrors, syndication).
    pub sites: usize,
}

/// A member of a cluster.
#[derive(Clone, Debug, Serialize)]
pub struct ClusterMember {
    /// Key (doc_id).
    pub doc_id: String,
    /// URL.
    pub url: String,
    /// `duplicate` or `near_duplicate`.
    pub verdict: VerdictKind,
    /// Key of the page it matched.
    pub of: String,
    /// Similarity to that page.
    pub similarity: f64,
    /// Detector that fired.
    pub detector: String,
}

/// Per-site counts and clusters, for `clusters.json`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SiteSummary {
    /// Pages of this site.
    pub pages: usize,
    /// Unique pages.
    pub unique: usize,
    /// Exact or near-exact duplicates.
    pub duplicates: usize,
    /// Near duplicates.
    pub near_duplicates: usize,
    /// Dropped / pages.
    pub duplicate_rate: f64,
    /// Clusters whose representative is on this site.
    pub clusters: Vec<ClusterSummary>,
}

/// Builds the per-site summary from members and their cluster assignment.
pub fn summarize(members: &[Member], roots: &[usize]) -> BTreeMap<String, SiteSummary> {
    let mut sites: BTreeMap<String, SiteSummary> = BTreeMap::new();
    for m in members {
        let s = sites.entry(m.site.clone()).or_default();
        s.pages += 1;
        match m.kind {
            VerdictKind::Unique => s.unique += 1,
            VerdictKind::Duplicate => s.duplicates += 1,
            VerdictKind::NearDuplicate => s.near_duplicates += 1,
        }
    }
    let mut by_root: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, &r) in roots.iter().enumerate() {
        by_root.entry(r).or_default().push(i);
    }
    for (root, list) in by_root {
        if list.len() < 2 {
            continue;
        }
        let rep = &members[root];
        let mut site_set: Vec<&str> = list.iter().map(|&i| members[i].site.as_str()).collect();
        site_set.sort_unstable();
        site_set.dedup();
        let summary = ClusterSummary {
            id: rep.key.clone(),
            representative: rep.key.clone(),
            representative_url: rep.url.clone(),
            members: list
                .iter()
                .filter(|&&i| i != root)
                .map(|&i| {
                    let m = &members[i];
                    ClusterMember {
                        doc_id: m.key.clone(),
                        url: m.url.clone(),
                        verdict: m.kind,
                        of: m.of.map(|j| members[j].key.clone()).unwrap_or_default(),
                        similarity: m.similarity,
                        detector: m.detector.clone().unwrap_or_default(),
                    }
                })
                .collect(),
            sites: site_set.len(),
        };
        if let Some(s) = sites.get_mut(&rep.site) {
            s.clusters.push(summary);
        }
    }
    for s in sites.values_mut() {
        s.duplicate_rate = if s.pages == 0 {
            0.0
        } else {
            (s.duplicates + s.near_duplicates) as f64 / s.pages as f64
        };
        s.clusters
            .sort_by(|a, b| b.members.len().cmp(&a.members.len()).then(a.id.cmp(&b.id)));
    }
    sites
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
}
