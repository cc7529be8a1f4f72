//! `neardup export`: a real redb index built through the library, exported
//! by the binary and read back with the parquet crate's own reader; row
//! count, order and every column against what the library computed;
//! byte-identical repeated exports; plugin-shaped signatures through the
//! generic column; clear errors that leave no file behind.

use std::collections::BTreeMap;
use std::path::Path;

use neardup::Config;
use neardup::Deduper;
use neardup::Registry;
use neardup::VerdictKind;
use neardup::{DocRecord, DocStore, Evidence, MemoryStore, RecordKind, RedbStore, StoreIdentity};
use neardup_api::Signature;
use neardup_batch::export::{write_parquet, Options};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

use crate::util::Dir;

/// A page whose text is `n` pseudo-random words from `seed`.
fn page(seed: u64, n: usize) -> Vec<u8> {
    format!(
        "<html><head><title>t{seed}</title></head><body><article><p>{}</p></article></body></html>",
        crate::util::pseudo_words(seed, n, 5000)
    )
    .into_bytes()
}

/// A kept page: its URL and the signatures the library computed for it.
struct Kept {
    url: String,
    site: String,
    signatures: Vec<Signature>,
}

/// Builds a redb index at `path` from 6 distinct pages and one exact copy
/// (not indexed); returns the kept pages in id order.
fn build_index(path: &Path) -> Vec<Kept> {
    let mut d = Deduper::open(Config::default(), &Registry::default(), path).unwrap();
    fill(&mut d)
}

/// Checks the pages of [`build_index`] with `d` and flushes.
fn fill(d: &mut Deduper) -> Vec<Kept> {
    let mut kept = Vec::new();
    let pages: Vec<(String, Vec<u8>)> = (0..6)
        .map(|i| (format!("https://s{}.example/p/{i}", i % 2), page(i, 300)))
        .chain([("https://copy.example/x".to_owned(), page(3, 300))])
        .collect();
    for (url, body) in &pages {
        let analyzed = d.analyze(url, url, body, Some("text/html"));
        let signatures = analyzed.signatures.clone();
        let site = analyzed.doc.site.clone();
        let verdict = d.decide(analyzed).unwrap();
        if verdict.kind == VerdictKind::Unique {
            kept.push(Kept {
                url: url.clone(),
                site,
                signatures,
            });
        } else {
            assert_eq!(url, "https://copy.example/x", "only the copy is dropped");
        }
    }
    assert_eq!(kept.len(), 6);
    d.flush().unwrap();
    kept
}

/// Every row of a Parquet file as column name -> field.
fn read_rows(path: &Path) -> Vec<BTreeMap<String, Field>> {
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| {
            row.unwrap()
                .get_column_iter()
                .map(|(name, field)| (name.clone(), field.clone()))
                .collect()
        })
        .collect()
}

fn list_u32(field: &Field) -> Vec<u32> {
    let Field::ListInternal(list) = field else {
        panic!("not a list: {field:?}");
    };
    list.elements()
        .iter()
        .map(|e| match e {
            Field::UInt(v) => *v,
            other => panic!("not a UINT_32: {other:?}"),
        })
        .collect()
}

fn fingerprint(sig: &Signature) -> i64 {
    match sig {
        Signature::Fingerprint(v) => *v as i64,
        other => panic!("not a fingerprint: {other:?}"),
    }
}

#[test]
fn export_has_one_row_per_kept_page_with_the_library_signatures() {
    let dir = Dir::new();
    let index = dir.join("index.redb");
    let kept = build_index(&index);
    let run = dir.run(&["export", "--index", "index.redb", "--out", "docs.parquet"]);
    assert!(run.output.status.success(), "{}", run.stderr());
    assert!(
        run.stderr().contains("exported 6 pages"),
        "{}",
        run.stderr()
    );

    let reader =
        SerializedFileReader::new(std::fs::File::open(dir.join("docs.parquet")).unwrap()).unwrap();
    let meta = reader.metadata().file_metadata();
    assert_eq!(meta.num_rows(), 6);
    let columns: Vec<&str> = meta
        .schema_descr()
        .root_schema()
        .get_fields()
        .iter()
        .map(|f| f.name())
        .collect();
    assert_eq!(
        columns,
        [
            "doc_id",
            "key",
            "url",
            "site",
            "fetched_at",
            "exact",
            "simhash",
            "chunks"
        ]
    );
    let kv: BTreeMap<&str, &str> = meta
        .key_value_metadata()
        .unwrap()
        .iter()
        .map(|kv| (kv.key.as_str(), kv.value.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(kv["neardup.detectors"], "exact,simhash,chunks");

    let rows = read_rows(&dir.join("docs.parquet"));
    assert_eq!(rows.len(), kept.len());
    for (i, (row, page)) in rows.iter().zip(&kept).enumerate() {
        assert_eq!(row["doc_id"], Field::UInt(i as u32), "doc-id order");
        assert_eq!(row["url"], Field::Str(page.url.clone()));
        assert_eq!(
            row["key"],
            Field::Str(page.url.clone()),
            "key defaults to the URL"
        );
        assert_eq!(row["site"], Field::Str(page.site.clone()));
        assert!(matches!(row["fetched_at"], Field::Long(t) if t > 1_700_000_000));
        assert_eq!(row["exact"], Field::Long(fingerprint(&page.signatures[0])));
        assert_eq!(
            row["simhash"],
            Field::Long(fingerprint(&page.signatures[1]))
        );
        let Signature::Set(set) = &page.signatures[2] else {
            panic!("chunks is a set");
        };
        let chunks = list_u32(&row["chunks"]);
        assert_eq!(&chunks, set);
        assert!(chunks.len() > 16, "a 300-word page has many chunks");
        assert!(chunks.windows(2).all(|w| w[0] < w[1]), "sorted, distinct");
    }
    // The exact copy of page 3 was not indexed, so no row repeats a URL.
    assert!(!rows
        .iter()
        .any(|r| r["url"] == Field::Str("https://copy.example/x".into())));
}

#[test]
fn exporting_twice_gives_identical_files_and_row_groups_split_cleanly() {
    let dir = Dir::new();
    let index = dir.join("index.redb");
    build_index(&index);
    for out in ["a.parquet", "b.parquet"] {
        let run = dir.run(&["export", "--index", "index.redb", "--out", out]);
        assert!(run.output.status.success(), "{}", run.stderr());
    }
    let a = std::fs::read(dir.join("a.parquet")).unwrap();
    assert_eq!(a, std::fs::read(dir.join("b.parquet")).unwrap());
    assert_eq!(&a[..4], b"PAR1");

    // Row groups of 4 rows: 6 rows become 4 + 2, with the same rows.
    let config = Config::default();
    let identity = neardup::store_identity(&config, &Registry::default()).unwrap();
    let store = RedbStore::open(&index, &identity).unwrap();
    let small = Options {
        batch_rows: 4,
        ..Options::default()
    };
    let out = dir.join("small.parquet");
    let summary = write_parquet(&store, &index, &identity, &out, &small).unwrap();
    assert_eq!((summary.rows, summary.row_groups), (6, 2));
    assert_eq!(summary.bytes, std::fs::metadata(&out).unwrap().len());
    let reader = SerializedFileReader::new(std::fs::File::open(&out).unwrap()).unwrap();
    let sizes: Vec<i64> = reader
        .metadata()
        .row_groups()
        .iter()
        .map(|g| g.num_rows())
        .collect();
    assert_eq!(sizes, [4, 2]);
    assert_eq!(read_rows(&out), read_rows(&dir.join("a.parquet")));
    // No temporary file is left beside the outputs.
    let leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".neardup-export."))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

fn record(n: u32, custom: Signature) -> DocRecord {
    DocRecord {
        key: format!("k{n}"),
        url: format!("https://x.example/{n}"),
        site: "x.example".into(),
        signatures: vec![
            if n == 2 {
                Signature::Empty
            } else {
                Signature::Fingerprint(u64::MAX - u64::from(n))
            },
            if n == 2 {
                Signature::Empty
            } else {
                Signature::Set(vec![n, n + 10, u32::MAX])
            },
            custom,
        ],
        kind: RecordKind::Kept,
        evidence: Evidence::default(),
        fetched_at: u64::from(n),
    }
}

#[test]
fn plugin_signatures_of_every_kind_fit_the_generic_column() {
    let dir = Dir::new();
    let identity = StoreIdentity {
        detectors: vec!["exact".into(), "chunks".into(), "custom".into()],
        ..StoreIdentity::default()
    };
    let mut store = MemoryStore::default();
    let customs = [
        Signature::Fingerprint(1 << 63),
        Signature::Sketch(vec![5, 6, 7]),
        Signature::Empty,
        Signature::Vector(vec![0.5, -1.0]),
        Signature::Set(Vec::new()),
    ];
    for (n, custom) in (0..).zip(customs) {
        store.insert(record(n, custom)).unwrap();
    }
    // A removed record leaves a gap in the ids, and no row; so does an
    // observation (a page stored for its site's template only).
    store.remove(1).unwrap();
    let observed = store
        .insert(DocRecord {
            kind: RecordKind::Observation,
            signatures: Vec::new(),
            ..record(9, Signature::Empty)
        })
        .unwrap();
    assert_eq!(observed, 5);
    let out = dir.join("p.parquet");
    let summary = write_parquet(
        &store,
        Path::new("<memory>"),
        &identity,
        &out,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(summary.rows, 4);
    let rows = read_rows(&out);
    let ids: Vec<&Field> = rows.iter().map(|r| &r["doc_id"]).collect();
    assert_eq!(
        ids,
        [
            &Field::UInt(0),
            &Field::UInt(2),
            &Field::UInt(3),
            &Field::UInt(4)
        ]
    );
    // Built-in columns: the fingerprint's bits as a signed int64, null for
    // an empty signature; a set with u32::MAX stays unsigned.
    assert_eq!(rows[0]["exact"], Field::Long(-1));
    assert_eq!(list_u32(&rows[0]["chunks"]), [0, 10, u32::MAX]);
    assert_eq!(rows[1]["exact"], Field::Null);
    assert_eq!(rows[1]["chunks"], Field::Null);
    assert_eq!(rows[1]["fetched_at"], Field::Long(2));

    let group = |row: &BTreeMap<String, Field>| -> BTreeMap<String, Field> {
        match &row["custom"] {
            Field::Group(g) => g
                .get_column_iter()
                .map(|(n, f)| (n.clone(), f.clone()))
                .collect(),
            other => panic!("custom is a group: {other:?}"),
        }
    };
    let g0 = group(&rows[0]);
    assert_eq!(g0["fingerprint"], Field::Long(i64::MIN));
    assert_eq!((&g0["hashes"], &g0["vector"]), (&Field::Null, &Field::Null));
    assert_eq!(rows[1]["custom"], Field::Null, "Empty: the group is null");
    let g3 = group(&rows[2]);
    assert_eq!(g3["fingerprint"], Field::Null);
    let Field::ListInternal(v) = &g3["vector"] else {
        panic!("vector is a list");
    };
    assert_eq!(v.elements(), [Field::Float(0.5), Field::Float(-1.0)]);
    let g4 = group(&rows[3]);
    assert_eq!(
        list_u32(&g4["hashes"]),
        Vec::<u32>::new(),
        "empty set, not null"
    );

    // The removed record 1 held the sketch: write it back under a new id.
    store
        .insert(record(5, Signature::Sketch(vec![5, 6, 7])))
        .unwrap();
    write_parquet(
        &store,
        Path::new("<memory>"),
        &identity,
        &out,
        &Options::default(),
    )
    .unwrap();
    let rows = read_rows(&out);
    assert_eq!(list_u32(&group(&rows[4])["hashes"]), [5, 6, 7]);

    // An empty index is a valid file with no rows.
    let empty = dir.join("empty.parquet");
    let summary = write_parquet(
        &MemoryStore::default(),
        Path::new("<memory>"),
        &identity,
        &empty,
        &Options::default(),
    )
    .unwrap();
    assert_eq!((summary.rows, summary.row_groups), (0, 0));
    assert!(read_rows(&empty).is_empty());

    // A signature of the wrong kind for a built-in column is a corrupt
    // index, and nothing is written.
    let mut bad = MemoryStore::default();
    let mut rec = record(0, Signature::Empty);
    rec.signatures[0] = Signature::Set(vec![1]);
    bad.insert(rec).unwrap();
    let err = write_parquet(
        &bad,
        Path::new("<memory>"),
        &identity,
        &dir.join("bad.parquet"),
        &Options::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("detector `exact` stored a set, expected a fingerprint"),
        "{err}"
    );
    assert!(!dir.join("bad.parquet").exists());
}

#[test]
fn missing_corrupt_or_mismatched_index_and_unwritable_output_are_clear_errors() {
    let dir = Dir::new();
    build_index(&dir.join("index.redb"));
    dir.write("out.parquet", "previous export");

    let fails = |args: &[&str], expected: &str| {
        let run = dir.run(args);
        assert_eq!(
            run.output.status.code(),
            Some(2),
            "{args:?}: {}",
            run.stderr()
        );
        assert!(
            run.stderr().contains(expected),
            "{args:?}: {}",
            run.stderr()
        );
        // The earlier file at --out is untouched.
        assert_eq!(dir.read("out.parquet"), "previous export");
    };
    fails(
        &["export", "--index", "nothing.redb", "--out", "out.parquet"],
        "no index at nothing.redb",
    );
    assert!(
        !dir.join("nothing.redb").exists(),
        "export never creates an index"
    );
    dir.write("garbage.redb", vec![0xAB; 8192]);
    fails(
        &["export", "--index", "garbage.redb", "--out", "out.parquet"],
        "index garbage.redb: cannot open",
    );
    std::fs::create_dir(dir.join("crawl")).unwrap();
    std::fs::copy(dir.join("index.redb"), dir.join("crawl/index.redb")).unwrap();
    fails(
        &["export", "--index", "crawl", "--out", "out.parquet"],
        "a crawl keeps its index in crawl/index.redb",
    );
    fails(
        &[
            "export",
            "--index",
            "index.redb",
            "--out",
            "out.parquet",
            "--detector",
            "exact",
        ],
        "built with detector chain [exact, simhash, chunks], opened with [exact]",
    );
    // The output's directory is a file: nothing can be created there.
    fails(
        &[
            "export",
            "--index",
            "index.redb",
            "--out",
            "out.parquet/x.parquet",
        ],
        "cannot create a file in out.parquet: not a directory",
    );
    let leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".neardup-export."))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // The index still opens and exports after all that.
    let run = dir.run(&["export", "--index", "index.redb", "--out", "out.parquet"]);
    assert!(run.output.status.success(), "{}", run.stderr());
    assert_eq!(read_rows(&dir.join("out.parquet")).len(), 6);
}

#[test]
fn a_shared_redis_index_exports_like_a_file() {
    let Some(server) = crate::redis::RedisServer::start() else {
        return;
    };
    let url = server.url("export");
    let location = neardup::RedisLocation::parse(&url).unwrap();
    let mut d = Deduper::open_redis(Config::default(), &Registry::default(), &location).unwrap();
    let kept = fill(&mut d);
    drop(d);
    let dir = Dir::new();
    let run = dir.run(&["export", "--index", &url, "--out", "r.parquet"]);
    assert!(run.output.status.success(), "{}", run.stderr());
    let rows = read_rows(&dir.join("r.parquet"));
    assert_eq!(rows.len(), kept.len());
    for (i, (row, page)) in rows.iter().zip(&kept).enumerate() {
        assert_eq!(row["doc_id"], Field::UInt(i as u32));
        assert_eq!(row["url"], Field::Str(page.url.clone()));
        assert_eq!(
            row["fetched_at"],
            Field::Long(0),
            "a Redis log keeps no times"
        );
        assert_eq!(
            row["simhash"],
            Field::Long(fingerprint(&page.signatures[1]))
        );
        let Signature::Set(set) = &page.signatures[2] else {
            panic!("chunks is a set");
        };
        assert_eq!(&list_u32(&row["chunks"]), set);
    }
}

#[test]
fn a_plugin_detector_chain_exports_its_signatures_in_a_group() {
    let dir = Dir::new();
    for i in 0..3 {
        dir.write(&format!("pages/p{i}.html"), page(100 + i, 300));
    }
    let chain = ["--detector", "exact", "--detector", "minhash"];
    let mut args = vec![
        "dedup",
        "pages",
        "--out",
        "out",
        "--index",
        "i.redb",
        "--no-report",
    ];
    args.extend(chain);
    let run = dir.run(&args);
    assert!(run.output.status.success(), "{}", run.stderr());
    let mut args = vec!["export", "--index", "i.redb", "--out", "m.parquet"];
    args.extend(chain);
    let run = dir.run(&args);
    assert!(run.output.status.success(), "{}", run.stderr());
    let rows = read_rows(&dir.join("m.parquet"));
    assert_eq!(rows.len(), 3);
    let mut sketches = Vec::new();
    for row in &rows {
        assert!(matches!(row["exact"], Field::Long(_)));
        assert!(!row.contains_key("simhash") && !row.contains_key("chunks"));
        let Field::Group(g) = &row["minhash"] else {
            panic!("minhash is a group: {:?}", row["minhash"]);
        };
        let fields: BTreeMap<String, Field> = g
            .get_column_iter()
            .map(|(n, f)| (n.clone(), f.clone()))
            .collect();
        assert_eq!(fields["fingerprint"], Field::Null);
        assert_eq!(fields["vector"], Field::Null);
        sketches.push(list_u32(&fields["hashes"]));
    }
    // A MinHash sketch: one minimum per hash function, the same length for
    // every page, different for different pages.
    assert!(sketches[0].len() >= 16, "{}", sketches[0].len());
    assert!(sketches.iter().all(|s| s.len() == sketches[0].len()));
    assert_ne!(sketches[0], sketches[1]);
}
