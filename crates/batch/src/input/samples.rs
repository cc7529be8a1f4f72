//! Tests over the real WARC/ARC samples in `../shared/datasets/warc-samples`
//! (skipped when absent).

use std::path::{Path, PathBuf};

use super::{open, Item};

const SAMPLES: &str = "datasets/warc-samples";

fn samples_root() -> Option<PathBuf> {
    crate::skip::shared(SAMPLES)
}

/// Every `*.warc*` / `*.arc*` file under the samples, sorted.
fn sample_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let name = e.file_name().to_string_lossy().to_string();
                if name.contains(".warc") || name.contains(".arc") {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

struct Tally {
    pages: usize,
    warnings: Vec<String>,
    keys: Vec<String>,
}

fn tally(path: &Path) -> Result<Tally, String> {
    let items = open(path).map_err(|e| e.to_string())?;
    let mut t = Tally {
        pages: 0,
        warnings: Vec::new(),
        keys: Vec::new(),
    };
    for item in items {
        match item {
            Item::Page(p) => {
                t.pages += 1;
                t.keys.push(p.key);
            }
            Item::Warning(w) => t.warnings.push(w.to_string()),
        }
    }
    Ok(t)
}

#[test]
fn survey_all_samples() {
    let Some(root) = samples_root() else { return };
    let files = sample_files(&root);
    assert!(
        files.len() >= 20,
        "expected the sample files, found {}",
        files.len()
    );
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        match tally(f) {
            Ok(t) => {
                eprintln!("{rel}: {} pages, {} warnings", t.pages, t.warnings.len());
                for w in t.warnings.iter().take(5) {
                    eprintln!("    {w}");
                }
                // Every file either yields pages or says why not.
            }
            Err(e) => eprintln!("{rel}: ERR {e}"),
        }
    }
}

/// Expected pages per sample file, counted independently of this reader:
/// with warcio (HTML 2xx responses and HTML resources), with a separate
/// Python ARC parser, or with `zcat | grep` where warcio rejects the file
/// (ClueWeb09's LF-only headers). `warn` is a substring one of the
/// warnings must contain; None means the file must read without warnings.
const EXPECTED: &[(&str, usize, Option<&str>)] = &[
    // 48 responses (16 HTML 2xx) + 123 revisits: revisits are not pages.
    ("pywb/iana.warc.gz", 16, None),
    ("pywb/dupes.warc.gz", 1, None),
    ("pywb/example2.warc.gz", 1, None),
    ("resiliparse/tests/data/warcfile.warc", 16, None),
    ("resiliparse/tests/data/warcfile.warc.gz", 16, None),
    ("resiliparse/tests/data/warcfile.warc.lz4", 16, None),
    // ClueWeb09: Content-Encoding gzip on bodies stored decoded.
    ("resiliparse/tests/data/clueweb-quirk.warc.gz", 29, None),
    // One response in one gzip member cut at 75,657 of 88,xxx bytes.
    ("resiliparse/tests/data/clipped.warc.gz", 0, Some("truncated gzip member")),
    // Records of WARC-Type "unknown" sized to gzip/LZ4 block boundaries.
    ("resiliparse/tests/data/block-sized-records.warc", 0, None),
    ("resiliparse/tests/data/block-sized-records.warc.gz", 0, None),
    ("resiliparse/tests/data/block-sized-records.warc.lz4", 0, None),
    ("copycat/copycat-spark/src/test/resources/data/clueweb-09-sample/en0000/00.warc.gz", 23, None),
    ("copycat/copycat-spark/src/test/resources/data/clueweb-09-sample/en0001/00.warc.gz", 23, None),
    ("copycat/copycat-spark/src/test/resources/data/clueweb-12-sample/Disk1/ClueWeb12_00/0000tw/0000tw-00.warc.gz", 3, None),
    // Wayback responses without HTTP headers: the WARC Content-Type is text/html.
    ("copycat/case-studies/relevance-label-transfer/src/test/resources/sample-input/snapshot-wayback-topic-02.warc.gz", 128, None),
    // 232 text/plain CDX listings and 6 empty responses: no pages.
    ("copycat/case-studies/relevance-label-transfer/src/test/resources/sample-input/topic-1/topic-1--20201003083220753-00000.warc.gz", 0, None),
    // 145 records: 125 HTML 200, 6 PDFs, 14 HTML 3xx/4xx.
    ("copycat/small-sample-1213893279526_0.arc", 125, None),
    ("copycat/small-sample-1262850551027_8.arc", 8, None),
    ("warcio/test/data/example.warc", 1, None),
    ("warcio/test/data/example.warc.gz", 1, None),
    ("warcio/test/data/example.arc", 1, None),
    ("warcio/test/data/example.arc.gz", 1, None),
    ("warcio/test/data/example-iana.org-chunked.warc", 1, None),
    ("warcio/test/data/example-resource.warc.gz", 1, None),
    ("warcio/test/data/example-wget-bad-target-uri.warc.gz", 1, None),
    ("warcio/test/data/example-wrong-chunks.warc.gz", 1, None),
    ("warcio/test/data/example-bad-non-chunked.warc.gz", 1, None),
    // One 200 and one 302 HTML response.
    ("warcio/test/data/example-bad.warc.gz.bad", 1, None),
    ("warcio/test/data/example-digest.warc", 0, None),
    ("warcio/test/data/post-test.warc.gz", 0, None),
    ("warcio/test/data/example-space-in-target-uri.warc.gz", 0, None),
    // HTTP headers rewritten with LF only: 12 bytes short of Archive-length.
    ("warcio/test/data/example-space-in-url.arc", 0, Some("truncated record at offset 151")),
    // NUL padding after the record.
    ("warcio/test/data/example-trunc.warc", 1, Some("does not end at a record boundary")),
    // Archive-lengths of -1 and "abc".
    ("warcio/test/data/bad.arc", 0, Some("bad ARC record header")),
];

#[test]
fn samples_give_the_independently_counted_pages() {
    let Some(root) = samples_root() else { return };
    let files = sample_files(&root);
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        assert!(
            EXPECTED.iter().any(|(name, _, _)| *name == rel),
            "{rel}: sample without an expected count"
        );
    }
    for (name, want_pages, want_warning) in EXPECTED {
        let path = root.join(name);
        let t = tally(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(t.pages, *want_pages, "{name}: warnings {:?}", t.warnings);
        match want_warning {
            None => assert!(t.warnings.is_empty(), "{name}: {:?}", t.warnings),
            Some(w) => assert!(
                t.warnings.iter().any(|x| x.contains(w)),
                "{name}: no warning containing {w:?} in {:?}",
                t.warnings
            ),
        }
        let mut keys = t.keys.clone();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), t.keys.len(), "{name}: duplicate keys");
    }
}
