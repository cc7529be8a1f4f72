//! `neardup export`: the index's records as a Parquet file, for the offline
//! batch path on an engine such as Spark, DataFusion or DuckDB
//! (docs/scaling.md, "The offline batch path on an existing engine").
//!
//! # Schema
//! One row per indexed page, in doc-id order (ids are given out in
//! insertion order, so this is the order the pages were kept in):
//!
//! | column | Parquet type | from the record |
//! |---|---|---|
//! | `doc_id` | INT32 (UINT_32) | the index id |
//! | `key`, `url`, `site` | BYTE_ARRAY (STRING) | [`DocRecord`] |
//! | `fetched_at` | INT64 | last fetch, Unix seconds (0: unknown) |
//! | `exact`, `simhash` | optional INT64 | the detector's 64-bit fingerprint, bit for bit (signed: Spark has no unsigned 64-bit type); null for [`Signature::Empty`] |
//! | `chunks` | optional `LIST<INT32 (UINT_32)>` | the chunk set, sorted ascending; null for [`Signature::Empty`] |
//! | any other detector | optional group { `fingerprint` INT64, `hashes` `LIST<UINT_32>`, `vector` `LIST<FLOAT>` } | the signature, in the one field its kind uses; the group is null for [`Signature::Empty`] |
//!
//! A detector column exists only if the detector is in the index's chain
//! and is named after it, in chain order. Built-in columns are typed by
//! detector name (`exact` and `simhash` hold fingerprints, `chunks` a set);
//! a record whose signature does not have that kind is a corrupt index.
//!
//! # Memory and output
//! Records are read one at a time ([`DocStore::for_each`]) and buffered
//! column by column into one row group of at most [`Options::batch_rows`]
//! rows (or [`Options::batch_bytes`] bytes), which is then encoded and
//! written: memory is bounded by one row group whatever the index size.
//! The file is written to a temporary file in the output's directory and
//! renamed over `out` only once complete, so a failed export leaves no
//! partial file. The output is a function of the records alone: exporting
//! the same index twice gives byte-identical files.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use neardup_api::{DocId, Signature};
use parquet::basic::{Compression, LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{ByteArray, ByteArrayType, DataType, FloatType, Int32Type, Int64Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::file::writer::{SerializedFileWriter, SerializedRowGroupWriter};
use parquet::schema::types::{ColumnPath, Type, TypePtr};

use neardup::Result;
use neardup::{DocRecord, DocStore, StoreIdentity};
use neardup::{Error, StoreError};

/// Columns every export has, before the detector columns.
pub const BASE_COLUMNS: [&str; 5] = ["doc_id", "key", "url", "site", "fetched_at"];

/// How an export is written.
#[derive(Clone, Debug)]
pub struct Options {
    /// Rows per row group: the unit buffered in memory and the unit an
    /// engine reads in parallel.
    pub batch_rows: usize,
    /// A row group is also closed once its buffered values reach this many
    /// bytes (pages with very large chunk sets).
    pub batch_bytes: usize,
}

impl Default for Options {
    /// 8,192 rows or 64 MiB per row group, whichever comes first.
    fn default() -> Self {
        Options {
            batch_rows: 8192,
            batch_bytes: 64 << 20,
        }
    }
}

/// What an export wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Rows (indexed pages).
    pub rows: u64,
    /// Row groups.
    pub row_groups: u64,
    /// Size of the file in bytes.
    pub bytes: u64,
}

/// How a detector's signatures become columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// One optional INT64 (`exact`, `simhash`).
    Fingerprint,
    /// One optional list of UINT_32 (`chunks`).
    Set,
    /// A group that holds any signature (plugins).
    Any,
}

fn kind_of(detector: &str) -> Kind {
    match detector {
        "exact" | "simhash" => Kind::Fingerprint,
        "chunks" => Kind::Set,
        _ => Kind::Any,
    }
}

/// Values and levels of one leaf column of a row group.
#[derive(Debug, Default)]
struct Leaf<T> {
    values: Vec<T>,
    def: Vec<i16>,
    rep: Vec<i16>,
}

impl<T: Copy> Leaf<T> {
    /// An optional scalar whose null has definition level `null_def`.
    fn push_opt(&mut self, value: Option<T>, null_def: i16) {
        match value {
            Some(v) => {
                self.values.push(v);
                self.def.push(null_def + 1);
            }
            None => self.def.push(null_def),
        }
    }

    /// An optional list (3-level LIST layout) whose null has definition
    /// level `null_def`: an empty list is `null_def + 1`, an element
    /// `null_def + 2`; the first element of a row repeats at level 0.
    fn push_list(&mut self, list: Option<&[T]>, null_def: i16) {
        match list {
            None => {
                self.def.push(null_def);
                self.rep.push(0);
            }
            Some([]) => {
                self.def.push(null_def + 1);
                self.rep.push(0);
            }
            Some(items) => {
                self.values.extend_from_slice(items);
                self.def
                    .extend(std::iter::repeat_n(null_def + 2, items.len()));
                self.rep.push(0);
                self.rep.extend(std::iter::repeat_n(1, items.len() - 1));
            }
        }
    }

    fn clear(&mut self) {
        self.values.clear();
        self.def.clear();
        self.rep.clear();
    }
}

/// The buffered columns of one detector.
#[derive(Debug)]
enum DetectorColumn {
    Fingerprint(Leaf<i64>),
    Set(Leaf<i32>),
    Any {
        fingerprint: Leaf<i64>,
        hashes: Leaf<i32>,
        vector: Leaf<f32>,
    },
}

/// What a signature is, for error messages.
fn kind_name(sig: &Signature) -> &'static str {
    match sig {
        Signature::Fingerprint(_) => "a fingerprint",
        Signature::Set(_) => "a set",
        Signature::Sketch(_) => "a sketch",
        Signature::Vector(_) => "a vector",
        Signature::Empty => "nothing",
    }
}

/// A u32 feature hash as Parquet stores UINT_32: the same bits in an i32.
fn bits32(v: &[u32]) -> Vec<i32> {
    v.iter().map(|&x| x as i32).collect()
}

impl DetectorColumn {
    fn new(kind: Kind) -> DetectorColumn {
        match kind {
            Kind::Fingerprint => DetectorColumn::Fingerprint(Leaf::default()),
            Kind::Set => DetectorColumn::Set(Leaf::default()),
            Kind::Any => DetectorColumn::Any {
                fingerprint: Leaf::default(),
                hashes: Leaf::default(),
                vector: Leaf::default(),
            },
        }
    }

    /// Buffers one signature; `Err` names what was expected when the
    /// signature does not fit the column.
    fn push(&mut self, sig: &Signature) -> std::result::Result<usize, &'static str> {
        match (self, sig) {
            (DetectorColumn::Fingerprint(leaf), Signature::Fingerprint(fp)) => {
                leaf.push_opt(Some(*fp as i64), 0);
                Ok(8)
            }
            (DetectorColumn::Fingerprint(leaf), Signature::Empty) => {
                leaf.push_opt(None, 0);
                Ok(0)
            }
            (DetectorColumn::Fingerprint(_), _) => Err("a fingerprint"),
            (DetectorColumn::Set(leaf), Signature::Set(set)) => {
                leaf.push_list(Some(&bits32(set)), 0);
                Ok(set.len() * 4)
            }
            (DetectorColumn::Set(leaf), Signature::Empty) => {
                leaf.push_list(None, 0);
                Ok(0)
            }
            (DetectorColumn::Set(_), _) => Err("a set"),
            (
                DetectorColumn::Any {
                    fingerprint,
                    hashes,
                    vector,
                },
                sig,
            ) => {
                // Definition levels: 0 = group null; within the group a
                // field null is 1, a present scalar 2, an empty list 2 and
                // a list element 3.
                let (fp, hs, vs, bytes) = match sig {
                    Signature::Empty => {
                        fingerprint.push_opt(None, 0);
                        hashes.push_list(None, 0);
                        vector.push_list(None, 0);
                        return Ok(0);
                    }
                    Signature::Fingerprint(fp) => (Some(*fp as i64), None, None, 8),
                    Signature::Set(s) | Signature::Sketch(s) => {
                        (None, Some(bits32(s)), None, s.len() * 4)
                    }
                    Signature::Vector(v) => (None, None, Some(v.as_slice()), v.len() * 4),
                };
                fingerprint.push_opt(fp, 1);
                hashes.push_list(hs.as_deref(), 1);
                vector.push_list(vs, 1);
                Ok(bytes)
            }
        }
    }

    fn clear(&mut self) {
        match self {
            DetectorColumn::Fingerprint(l) => l.clear(),
            DetectorColumn::Set(l) => l.clear(),
            DetectorColumn::Any {
                fingerprint,
                hashes,
                vector,
            } => {
                fingerprint.clear();
                hashes.clear();
                vector.clear();
            }
        }
    }
}

/// One row group being buffered.
#[derive(Debug)]
struct Batch {
    doc_id: Vec<i32>,
    key: Vec<ByteArray>,
    url: Vec<ByteArray>,
    site: Vec<ByteArray>,
    fetched_at: Vec<i64>,
    detectors: Vec<DetectorColumn>,
    rows: usize,
    bytes: usize,
}

impl Batch {
    fn new(kinds: &[Kind]) -> Batch {
        Batch {
            doc_id: Vec::new(),
            key: Vec::new(),
            url: Vec::new(),
            site: Vec::new(),
            fetched_at: Vec::new(),
            detectors: kinds.iter().map(|&k| DetectorColumn::new(k)).collect(),
            rows: 0,
            bytes: 0,
        }
    }

    /// Buffers one record; `Err` describes a signature that does not fit
    /// its column (the batch is then unusable and the export fails).
    fn push(
        &mut self,
        id: DocId,
        rec: &DocRecord,
        signatures: &[Signature],
        names: &[String],
    ) -> std::result::Result<(), String> {
        if signatures.len() != self.detectors.len() {
            return Err(format!(
                "record {id} has {} signatures for a chain of {} detectors",
                signatures.len(),
                self.detectors.len()
            ));
        }
        for ((column, sig), name) in self.detectors.iter_mut().zip(signatures).zip(names) {
            self.bytes += column.push(sig).map_err(|expected| {
                format!(
                    "record {id}: detector `{name}` stored {}, expected {expected}",
                    kind_name(sig)
                )
            })?;
        }
        self.doc_id.push(id as i32);
        self.key.push(ByteArray::from(rec.key.as_bytes().to_vec()));
        self.url.push(ByteArray::from(rec.url.as_bytes().to_vec()));
        self.site
            .push(ByteArray::from(rec.site.as_bytes().to_vec()));
        self.fetched_at.push(rec.fetched_at as i64);
        self.rows += 1;
        self.bytes += 32 + rec.key.len() + rec.url.len() + rec.site.len();
        Ok(())
    }

    fn clear(&mut self) {
        self.doc_id.clear();
        self.key.clear();
        self.url.clear();
        self.site.clear();
        self.fetched_at.clear();
        for d in &mut self.detectors {
            d.clear();
        }
        self.rows = 0;
        self.bytes = 0;
    }

    /// Encodes the buffered rows as one row group, leaf columns in schema
    /// order.
    fn write<W: Write + Send>(
        &self,
        file: &mut SerializedFileWriter<W>,
    ) -> parquet::errors::Result<()> {
        let mut rg = file.next_row_group()?;
        leaf::<Int32Type, W>(&mut rg, &self.doc_id, None, None)?;
        leaf::<ByteArrayType, W>(&mut rg, &self.key, None, None)?;
        leaf::<ByteArrayType, W>(&mut rg, &self.url, None, None)?;
        leaf::<ByteArrayType, W>(&mut rg, &self.site, None, None)?;
        leaf::<Int64Type, W>(&mut rg, &self.fetched_at, None, None)?;
        for column in &self.detectors {
            match column {
                DetectorColumn::Fingerprint(l) => {
                    leaf::<Int64Type, W>(&mut rg, &l.values, Some(&l.def), None)?;
                }
                DetectorColumn::Set(l) => {
                    leaf::<Int32Type, W>(&mut rg, &l.values, Some(&l.def), Some(&l.rep))?;
                }
                DetectorColumn::Any {
                    fingerprint,
                    hashes,
                    vector,
                } => {
                    leaf::<Int64Type, W>(
                        &mut rg,
                        &fingerprint.values,
                        Some(&fingerprint.def),
                        None,
                    )?;
                    leaf::<Int32Type, W>(
                        &mut rg,
                        &hashes.values,
                        Some(&hashes.def),
                        Some(&hashes.rep),
                    )?;
                    leaf::<FloatType, W>(
                        &mut rg,
                        &vector.values,
                        Some(&vector.def),
                        Some(&vector.rep),
                    )?;
                }
            }
        }
        rg.close()?;
        Ok(())
    }
}

/// Writes the next leaf column of a row group.
fn leaf<T: DataType, W: Write + Send>(
    rg: &mut SerializedRowGroupWriter<'_, W>,
    values: &[T::T],
    def: Option<&[i16]>,
    rep: Option<&[i16]>,
) -> parquet::errors::Result<()> {
    let Some(mut column) = rg.next_column()? else {
        return Err(parquet::errors::ParquetError::General(
            "more buffered columns than the schema has".into(),
        ));
    };
    column.typed::<T>().write_batch(values, def, rep)?;
    column.close()
}

fn primitive(
    name: &str,
    physical: PhysicalType,
    repetition: Repetition,
    logical: Option<LogicalType>,
) -> parquet::errors::Result<TypePtr> {
    Ok(Arc::new(
        Type::primitive_type_builder(name, physical)
            .with_repetition(repetition)
            .with_logical_type(logical)
            .build()?,
    ))
}

/// An optional list in the standard 3-level layout:
/// `optional group NAME (LIST) { repeated group list { required ELEMENT element } }`.
fn list(
    name: &str,
    physical: PhysicalType,
    logical: Option<LogicalType>,
) -> parquet::errors::Result<TypePtr> {
    let element = primitive("element", physical, Repetition::REQUIRED, logical)?;
    let repeated = Type::group_type_builder("list")
        .with_repetition(Repetition::REPEATED)
        .with_fields(vec![element])
        .build()?;
    Ok(Arc::new(
        Type::group_type_builder(name)
            .with_repetition(Repetition::OPTIONAL)
            .with_logical_type(Some(LogicalType::List))
            .with_fields(vec![Arc::new(repeated)])
            .build()?,
    ))
}

/// The file schema for a detector chain (see the module docs).
fn schema(detectors: &[String]) -> parquet::errors::Result<TypePtr> {
    let string = || Some(LogicalType::String);
    let u32_type = || Some(LogicalType::integer(32, false));
    let mut fields = vec![
        primitive(
            "doc_id",
            PhysicalType::INT32,
            Repetition::REQUIRED,
            u32_type(),
        )?,
        primitive(
            "key",
            PhysicalType::BYTE_ARRAY,
            Repetition::REQUIRED,
            string(),
        )?,
        primitive(
            "url",
            PhysicalType::BYTE_ARRAY,
            Repetition::REQUIRED,
            string(),
        )?,
        primitive(
            "site",
            PhysicalType::BYTE_ARRAY,
            Repetition::REQUIRED,
            string(),
        )?,
        primitive(
            "fetched_at",
            PhysicalType::INT64,
            Repetition::REQUIRED,
            None,
        )?,
    ];
    for name in detectors {
        fields.push(match kind_of(name) {
            Kind::Fingerprint => primitive(name, PhysicalType::INT64, Repetition::OPTIONAL, None)?,
            Kind::Set => list(name, PhysicalType::INT32, u32_type())?,
            Kind::Any => Arc::new(
                Type::group_type_builder(name)
                    .with_repetition(Repetition::OPTIONAL)
                    .with_fields(vec![
                        primitive(
                            "fingerprint",
                            PhysicalType::INT64,
                            Repetition::OPTIONAL,
                            None,
                        )?,
                        list("hashes", PhysicalType::INT32, u32_type())?,
                        list("vector", PhysicalType::FLOAT, None)?,
                    ])
                    .build()?,
            ),
        });
    }
    Ok(Arc::new(
        Type::group_type_builder("neardup_docs")
            .with_fields(fields)
            .build()?,
    ))
}

/// Snappy everywhere (every engine reads it; the codec is small and fast),
/// format 1.0 data pages (the most widely read), dictionary encoding only
/// where values repeat (`site`; hashes and URLs are nearly all distinct).
fn properties(identity: &StoreIdentity, names: &[String]) -> WriterProperties {
    WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_1_0)
        .set_compression(Compression::SNAPPY)
        .set_dictionary_enabled(false)
        .set_column_dictionary_enabled(ColumnPath::from("site"), true)
        .set_key_value_metadata(Some(vec![
            KeyValue::new("neardup.detectors".to_owned(), names.join(",")),
            KeyValue::new(
                "neardup.fingerprint".to_owned(),
                format!("{:016x}", identity.fingerprint()),
            ),
        ]))
        .build()
}

fn output_error(path: &Path, message: impl std::fmt::Display) -> Error {
    Error::io(path, std::io::Error::other(message.to_string()))
}

/// Writes every record of `store` to the Parquet file `out` (see the module
/// docs for the schema, memory bound and atomicity). `index` names the
/// store in error messages. `identity` is the store's: its detector names
/// name and type the signature columns, and both its fields are recorded
/// in the file's key-value metadata (`neardup.detectors`,
/// `neardup.fingerprint`).
///
/// # Errors
/// [`Error::Io`] if `out` cannot be created or written (nothing is left at
/// `out` then, and an existing file there is untouched);
/// [`Error::Store`] if the store cannot be read or a record does not fit
/// the chain (a corrupt index); [`Error::Config`] if a detector name
/// collides with a base column or appears twice in the chain.
pub fn write_parquet(
    store: &dyn DocStore,
    index: &Path,
    identity: &StoreIdentity,
    out: &Path,
    options: &Options,
) -> Result<Summary> {
    // One column per detector of the chain; the content evidence stored
    // beside the signatures (`neardup::content`) is not exported.
    let names = identity.chain();
    for (i, name) in names.iter().enumerate() {
        if BASE_COLUMNS.contains(&name.as_str()) || names[..i].contains(name) {
            return Err(Error::Config {
                key: "decide.detectors".into(),
                value: names.join(", "),
                allowed: format!(
                    "`{name}` cannot be a column of the export (a base column or a repeated detector)"
                ),
            });
        }
    }
    let schema = schema(names).map_err(|e| output_error(out, format!("parquet schema: {e}")))?;
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".neardup-export.").suffix(".tmp");
    // Temporary files are owner-only; the export gets the usual mode of
    // created files (0666 less the umask).
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(&dir).map_err(|e| {
        Error::io(
            out,
            std::io::Error::new(
                e.kind(),
                // The kind only: the error's own text names the random
                // temporary name, which means nothing to the user.
                format!(
                    "cannot create a file in {}: {}",
                    dir.display(),
                    std::io::Error::from(e.kind())
                ),
            ),
        )
    })?;
    let sink = BufWriter::with_capacity(1 << 20, tmp.as_file_mut());
    let mut writer = SerializedFileWriter::new(sink, schema, Arc::new(properties(identity, names)))
        .map_err(|e| output_error(out, e))?;

    let kinds: Vec<Kind> = names.iter().map(|n| kind_of(n)).collect();
    let mut batch = Batch::new(&kinds);
    let mut rows = 0u64;
    let mut row_groups = 0u64;
    // `for_each` cannot stop early: after a failure the remaining records
    // are skipped and the first error is returned.
    let mut failure: Option<Error> = None;
    let batch_rows = options.batch_rows.max(1);
    store.for_each(&mut |id, rec| {
        if failure.is_some() {
            return;
        }
        // A page that was not kept, stored for its site's template only.
        if !rec.kind.is_indexed() {
            return;
        }
        if let Err(message) = batch.push(id, rec, &rec.signatures, names) {
            failure = Some(Error::store(
                index,
                StoreError::Corrupt(format!("{message}: corrupt index")),
            ));
            return;
        }
        if batch.rows >= batch_rows || batch.bytes >= options.batch_bytes {
            match batch.write(&mut writer) {
                Ok(()) => {
                    rows += batch.rows as u64;
                    row_groups += 1;
                    batch.clear();
                }
                Err(e) => failure = Some(output_error(out, e)),
            }
        }
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    if batch.rows > 0 {
        batch.write(&mut writer).map_err(|e| output_error(out, e))?;
        rows += batch.rows as u64;
        row_groups += 1;
    }
    let sink = writer.into_inner().map_err(|e| output_error(out, e))?;
    let file = sink
        .into_inner()
        .map_err(|e| Error::io(out, e.into_error()))?;
    file.sync_all().map_err(|e| Error::io(out, e))?;
    let bytes = file.metadata().map_err(|e| Error::io(out, e))?.len();
    tmp.persist(out).map_err(|e| Error::io(out, e.error))?;
    // Make the rename itself durable.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(Summary {
        rows,
        row_groups,
        bytes,
    })
}
