//! What the unit tests of the sinks share: a page record and a run.

use neardup::{Match, Result, Verdict, VerdictKind};

use crate::record::{InputWarning, PageRecord, Summary};
use crate::sink::Sink;

/// A page `key` of `site` at `position`: a duplicate of `of` (position,
/// key) when given, else unique; page `c` carries a warning.
pub(crate) fn record(
    position: usize,
    key: &str,
    site: &str,
    of: Option<(usize, &str)>,
) -> PageRecord {
    let matched = of.map(|(_, k)| Match {
        id: None,
        key: k.into(),
        url: format!("https://{site}/{k}"),
        basis: neardup::MatchBasis::Detector("exact".into()),
        similarity: 1.0,
        resemblance: 1.0,
        containment: 0.5,
        reason: "same words".into(),
        covered: None,
    });
    PageRecord {
        position,
        key: key.into(),
        url: format!("https://{site}/{key}"),
        site: site.into(),
        bytes: 10,
        title: String::new(),
        verdict: Verdict {
            kind: if of.is_some() {
                VerdictKind::Duplicate
            } else {
                VerdictKind::Unique
            },
            indexed_as: of.is_none().then_some(position as u32),
            contained_in: None,
            matched,
            stored_as: None,
            redirect: None,
            warnings: if key == "c" {
                vec!["w1".into()]
            } else {
                vec![]
            },
        },
        of: of.map(|(p, _)| p),
        blocks: Vec::new(),
        roles: Vec::new(),
    }
}

/// Three pages and, between the second and the third, an unreadable
/// record given to `input_error` (the sink's own method).
pub(crate) fn feed<S: Sink>(
    sink: &mut S,
    input_error: impl Fn(&mut S, &InputWarning) -> Result<()>,
) {
    sink.begin().unwrap();
    sink.page(&record(0, "a", "x.com", None)).unwrap();
    sink.page(&record(1, "b", "y.com", Some((0, "a")))).unwrap();
    input_error(
        sink,
        &InputWarning {
            location: "m.tsv:4".into(),
            message: "gone".into(),
        },
    )
    .unwrap();
    sink.page(&record(2, "c", "x.com", None)).unwrap();
    sink.finish(&Summary::default()).unwrap();
}
