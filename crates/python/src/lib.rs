//! `neardup._neardup`: the deduper as a Python extension module.
//!
//! The Python package (`python/`, built by maturin) wraps this module; its
//! docs and type stubs (`python/src/neardup/_neardup.pyi`) are the user's
//! reference. This crate only translates: Python values in, the core's
//! [`neardup::Deduper`] does the work, Python values out.
//!
//! # Threads and the GIL
//! A `Deduper` is shared by any number of Python threads. A check releases
//! the GIL for its whole Rust part: the page is analyzed (decode, extract,
//! sign: the costly half) under no lock at all, on the calling thread, then
//! decided under the deduper's write lock, one page at a time, as the core's
//! `SharedDeduper` does. No Rust lock is ever held while the GIL is taken,
//! so the two cannot deadlock.

#![forbid(unsafe_code)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use neardup::{Comparable, Config, IndexLocation, MemoryStore, Signature};
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

pyo3::create_exception!(
    neardup,
    NeardupError,
    PyException,
    "Base class of the errors neardup raises, with the library's message."
);
pyo3::create_exception!(
    neardup,
    ConfigError,
    NeardupError,
    "The configuration is invalid: a key out of range, an unknown detector, bad TOML."
);
pyo3::create_exception!(
    neardup,
    StoreError,
    NeardupError,
    "The index cannot be used: it cannot be opened or written, is corrupt, or was built with another detector chain."
);

/// The library's error as the Python exception of its kind.
fn py_err(e: neardup::Error) -> PyErr {
    use neardup::Error as E;
    let message = e.to_string();
    match e {
        E::Config { .. } | E::ConfigParse { .. } | E::UnknownDetector(..) => {
            ConfigError::new_err(message)
        }
        E::Store { .. } | E::Io { .. } => StoreError::new_err(message),
        _ => NeardupError::new_err(message),
    }
}

fn closed() -> PyErr {
    NeardupError::new_err("the deduper is closed")
}

fn poisoned() -> PyErr {
    NeardupError::new_err("the deduper's lock was poisoned by an earlier panic")
}

/// A page body: `bytes` as they came off the wire (the charset is found
/// from the content type, the page and the bytes), or `str` (UTF-8).
fn body_of<'a>(body: &'a Bound<'_, PyAny>) -> PyResult<&'a [u8]> {
    if let Ok(b) = body.cast::<PyBytes>() {
        return Ok(b.as_bytes());
    }
    if let Ok(s) = body.cast::<PyString>() {
        return Ok(s.to_str()?.as_bytes());
    }
    Err(PyTypeError::new_err(format!(
        "body must be bytes or str, not {}",
        body.get_type().name()?
    )))
}

/// A path argument: `str` or any `os.PathLike`.
fn path_of(value: &Bound<'_, PyAny>) -> PyResult<String> {
    let os = value.py().import("os")?;
    let path = os.call_method1("fspath", (value,))?;
    let path = os.call_method1("fsdecode", (path,))?;
    path.extract()
}

/// A Python value as TOML (a config given as a dict).
fn toml_of(value: &Bound<'_, PyAny>, at: &str) -> PyResult<toml::Value> {
    if let Ok(d) = value.cast::<PyDict>() {
        let mut table = toml::Table::new();
        for (k, v) in d.iter() {
            let k: String = k.extract().map_err(|_| {
                ConfigError::new_err(format!("config: keys must be strings (in `{at}`)"))
            })?;
            let path = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            if v.is_none() {
                continue;
            }
            table.insert(k, toml_of(&v, &path)?);
        }
        return Ok(toml::Value::Table(table));
    }
    if let Ok(b) = value.extract::<bool>() {
        return Ok(toml::Value::Boolean(b));
    }
    if let Ok(i) = value.extract::<i64>() {
        return Ok(toml::Value::Integer(i));
    }
    if let Ok(f) = value.extract::<f64>() {
        return Ok(toml::Value::Float(f));
    }
    if let Ok(s) = value.extract::<String>() {
        return Ok(toml::Value::String(s));
    }
    // Lists and tuples (a str, also a sequence, was taken above).
    if let Ok(items) = value.extract::<Vec<Bound<'_, PyAny>>>() {
        let items = items
            .iter()
            .map(|v| toml_of(v, at))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(toml::Value::Array(items));
    }
    Err(ConfigError::new_err(format!(
        "config: `{at}` = {} is not a TOML value (use str, int, float, bool, list or dict)",
        value.repr()?
    )))
}

/// The `config` argument: `None` (the defaults), a TOML file's path, or a
/// dict shaped like the TOML.
fn config_of(config: Option<&Bound<'_, PyAny>>) -> PyResult<Config> {
    let Some(config) = config.filter(|c| !c.is_none()) else {
        return Ok(Config::default());
    };
    if config.is_instance_of::<PyDict>() {
        return config_of_dict(config);
    }
    let path = path_of(config)
        .map_err(|_| PyTypeError::new_err("config must be None, a TOML file's path or a dict"))?;
    Config::from_file(std::path::Path::new(&path)).map_err(py_err)
}

/// A config given as a dict: deserialized from its values directly (not
/// through TOML text, whose line numbers would mean nothing to the caller),
/// so an error says the config was a dict and names the dotted key, e.g.
/// "config (a dict): `simhash.max_distanse`: unknown field ...".
fn config_of_dict(config: &Bound<'_, PyAny>) -> PyResult<Config> {
    let table = toml_of(config, "")?;
    let config: Config = serde_path_to_error::deserialize(table).map_err(|e| {
        let key = e.path().to_string();
        ConfigError::new_err(format!("config (a dict): `{key}`: {}", e.inner().message()))
    })?;
    config.validate().map_err(py_err)?;
    Ok(config)
}

/// A JSON value as the Python value `json.loads` would give.
fn py_of<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value as V;
    Ok(match value {
        V::Null => py.None().into_bound(py),
        V::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        V::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        V::String(s) => s.into_pyobject(py)?.into_any(),
        V::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(py_of(py, item)?)?;
            }
            list.into_any()
        }
        V::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, py_of(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// The verdict on one page.
///
/// `kind` is `"unique"`, `"duplicate"` or `"near_duplicate"`; for the two
/// drops, the `matched_*` fields, `detector`, `similarity` and `reason`
/// say which earlier page it copies and why.
#[pyclass(frozen, module = "neardup._neardup")]
struct Verdict {
    verdict: neardup::Verdict,
}

#[pymethods]
impl Verdict {
    /// `"unique"`, `"duplicate"` or `"near_duplicate"`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.verdict.kind.as_str()
    }

    /// True for a duplicate or a near duplicate.
    #[getter]
    fn is_drop(&self) -> bool {
        self.verdict.kind.is_drop()
    }

    /// True when the page is unchanged since this URL was indexed (a
    /// `duplicate` of itself, detector `same_url`): a recrawl, not a copy.
    #[getter]
    fn unchanged(&self) -> bool {
        self.verdict
            .matched
            .as_ref()
            .is_some_and(|m| m.basis.name() == neardup::SAME_URL)
    }

    /// URL of the earlier page this one copies.
    #[getter]
    fn matched_url(&self) -> Option<&str> {
        self.verdict.matched.as_ref().map(|m| m.url.as_str())
    }

    /// Key of the earlier page (its URL unless a key was given).
    #[getter]
    fn matched_key(&self) -> Option<&str> {
        self.verdict.matched.as_ref().map(|m| m.key.as_str())
    }

    /// Index id of the earlier page.
    #[getter]
    fn matched_id(&self) -> Option<u32> {
        self.verdict.matched.as_ref().and_then(|m| m.id)
    }

    /// The detector that matched (`exact`, `simhash`, `chunks`, a plugin),
    /// or `canonical`, `redirect`, `same_url`, `content`.
    #[getter]
    fn detector(&self) -> Option<&str> {
        self.verdict.matched.as_ref().map(|m| m.basis.name())
    }

    /// The detector's score for the pair (`0.0..=1.0`).
    #[getter]
    fn similarity(&self) -> Option<f64> {
        self.verdict.matched.as_ref().map(|m| m.similarity)
    }

    /// Resemblance of the pair (Jaccard, or the detector's estimate).
    #[getter]
    fn resemblance(&self) -> Option<f64> {
        self.verdict.matched.as_ref().map(|m| m.resemblance)
    }

    /// Share of this page's features found in the earlier page.
    #[getter]
    fn containment(&self) -> Option<f64> {
        self.verdict.matched.as_ref().map(|m| m.containment)
    }

    /// Share of this page's own content found in the earlier page.
    #[getter]
    fn covered(&self) -> Option<f64> {
        self.verdict.matched.as_ref().and_then(|m| m.covered)
    }

    /// Why the pages match, in words.
    #[getter]
    fn reason(&self) -> Option<&str> {
        self.verdict.matched.as_ref().map(|m| m.reason.as_str())
    }

    /// Problems with the page that did not stop the check.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.verdict.warnings.clone()
    }

    /// The id this page got in the index, if it was kept.
    #[getter]
    fn indexed_as(&self) -> Option<u32> {
        self.verdict.indexed_as
    }

    /// The target when the page is a redirect stub (meta refresh, a
    /// one-link "moved" page): follow it as an HTTP redirect.
    /// URL of the earlier, much larger page holding this kept page's
    /// content (a part of an all-in-one page), or `None`.
    #[getter]
    fn contained_in(&self) -> Option<&str> {
        self.verdict.contained_in.as_ref().map(|m| m.url.as_str())
    }

    #[getter]
    fn redirect(&self) -> Option<&str> {
        self.verdict.redirect.as_ref().map(|r| r.to.as_str())
    }

    /// The verdict as the sidecar's JSON (`neardup serve`'s `/v1/check`),
    /// key for key: `kind`, `matched` (or `None`), `indexed_as`,
    /// `warnings`, `contained_in` only for a part of a larger page, and
    /// `redirect` only for a redirect stub.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut value = serde_json::to_value(&self.verdict)
            .map_err(|e| NeardupError::new_err(e.to_string()))?;
        if let Some(verdict) = value.as_object_mut() {
            // A crawl's checkpoint bookkeeping, not part of the API.
            verdict.remove("stored_as");
            // serve leaves out an id it does not have rather than send null.
            if let Some(matched) = verdict.get_mut("matched").and_then(|m| m.as_object_mut()) {
                if matched.get("id").is_some_and(serde_json::Value::is_null) {
                    matched.remove("id");
                }
            }
        }
        py_of(py, &value)
    }

    fn __repr__(&self) -> String {
        match &self.verdict.matched {
            Some(m) => format!(
                "Verdict(kind={:?}, matched_url={:?}, detector={:?}, similarity={:.3})",
                self.verdict.kind.as_str(),
                m.url,
                m.basis.name(),
                m.similarity
            ),
            None => format!("Verdict(kind={:?})", self.verdict.kind.as_str()),
        }
    }
}

/// The near-duplicate detector: checks pages and remembers the kept ones.
///
/// `config` is `None` (the defaults), a TOML file's path, or a dict shaped
/// like the TOML (`{"decide": {"detectors": ["exact", "simhash"]}}`).
/// `index` is `None` (in memory, lost at exit), a redb file's path
/// (created if missing; durable at `flush()` and `close()`) or a
/// `redis://` URL (shared by every process that opens it).
///
/// Safe to share between threads: pages are analyzed in parallel with the
/// GIL released, decided one at a time.
#[pyclass(frozen, module = "neardup._neardup")]
struct Deduper {
    inner: RwLock<Option<neardup::Deduper>>,
    index: Option<String>,
    /// Checks that found the page unchanged since its URL was indexed
    /// (counted under `duplicates` by the core too).
    unchanged: AtomicU64,
}

impl Deduper {
    /// Runs `f` on the open deduper, for reading.
    fn read<R>(&self, f: impl FnOnce(&neardup::Deduper) -> R) -> PyResult<R> {
        let guard = self.inner.read().map_err(|_| poisoned())?;
        guard.as_ref().map(f).ok_or_else(closed)
    }

    /// Runs `f` on the open deduper, for writing.
    fn write<R>(&self, f: impl FnOnce(&mut neardup::Deduper) -> R) -> PyResult<R> {
        let mut guard = self.inner.write().map_err(|_| poisoned())?;
        guard.as_mut().map(f).ok_or_else(closed)
    }

    fn analyzer(&self) -> PyResult<Arc<neardup::Analyzer>> {
        self.read(neardup::Deduper::analyzer)
    }
}

/// A detector's signature as a column value: fingerprints as signed 64-bit
/// integers (bit for bit, as `neardup export` writes them), sets and
/// sketches as lists, vectors as lists of floats, an empty signature as
/// `None`.
fn signature_py<'py>(py: Python<'py>, sig: &Signature) -> PyResult<Bound<'py, PyAny>> {
    Ok(match sig {
        Signature::Fingerprint(f) => (*f as i64).into_pyobject(py)?.into_any(),
        Signature::Set(s) | Signature::Sketch(s) => PyList::new(py, s)?.into_any(),
        Signature::Vector(v) => PyList::new(py, v)?.into_any(),
        Signature::Empty => py.None().into_bound(py),
    })
}

#[pymethods]
impl Deduper {
    #[new]
    #[pyo3(signature = (config=None, index=None))]
    fn new(
        py: Python<'_>,
        config: Option<&Bound<'_, PyAny>>,
        index: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Deduper> {
        let config = config_of(config)?;
        let index = match index.filter(|i| !i.is_none()) {
            None => None,
            Some(i) => Some(path_of(i).map_err(|_| {
                PyTypeError::new_err("index must be None, a redb file's path or a redis:// URL")
            })?),
        };
        let registry = neardup::plugins::registry();
        let deduper = py
            .detach(|| match &index {
                None => neardup::Deduper::with_registry(
                    config,
                    &registry,
                    Box::<MemoryStore>::default(),
                ),
                Some(text) => IndexLocation::parse(text)
                    .and_then(|at| neardup::Deduper::open_at(config, &registry, &at)),
            })
            .map_err(py_err)?;
        Ok(Deduper {
            inner: RwLock::new(Some(deduper)),
            index,
            unchanged: AtomicU64::new(0),
        })
    }

    /// Checks one page and indexes it if it is kept.
    ///
    /// `body` is the response body as `bytes` (its charset found from
    /// `content_type`, the page and the bytes) or `str`. Never raises for
    /// a bad page (binary, huge, malformed: see `Verdict.warnings`); raises
    /// `StoreError` if a persistent index fails.
    #[pyo3(signature = (url, body, content_type=None))]
    fn check(
        &self,
        py: Python<'_>,
        url: &str,
        body: &Bound<'_, PyAny>,
        content_type: Option<&str>,
    ) -> PyResult<Verdict> {
        let body = body_of(body)?;
        let verdict = py.detach(|| {
            let analyzed = self.analyzer()?.analyze(url, url, body, content_type);
            self.write(|d| d.decide(analyzed))?.map_err(py_err)
        })?;
        let verdict = Verdict { verdict };
        if verdict.unchanged() {
            self.unchanged.fetch_add(1, Ordering::Relaxed);
        }
        Ok(verdict)
    }

    /// The main text of a page as the detectors see it: one block per
    /// line, boilerplate removed (`extract.mode = "main"`, the default).
    #[pyo3(signature = (body, content_type=None, url=""))]
    fn extract(
        &self,
        py: Python<'_>,
        body: &Bound<'_, PyAny>,
        content_type: Option<&str>,
        url: &str,
    ) -> PyResult<String> {
        let body = body_of(body)?;
        let analyzer = self.analyzer()?;
        Ok(py.detach(|| analyzer.analyze(url, url, body, content_type).doc.text))
    }

    /// Counters since this deduper was made, and the pages indexed now:
    /// `checked`, `unique`, `duplicates`, `unchanged`, `near_duplicates`,
    /// `indexed`. `duplicates` counts every `duplicate` verdict, the
    /// `unchanged` ones (a recrawl of an unchanged URL) included:
    /// `checked` = `unique` + `duplicates` + `near_duplicates`.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.read(neardup::Deduper::stats)?;
        let d = PyDict::new(py);
        d.set_item("checked", s.checked)?;
        d.set_item("unique", s.verdicts.unique)?;
        d.set_item("duplicates", s.verdicts.duplicates)?;
        d.set_item("unchanged", self.unchanged.load(Ordering::Relaxed))?;
        d.set_item("near_duplicates", s.verdicts.near_duplicates)?;
        d.set_item("indexed", s.indexed)?;
        Ok(d)
    }

    /// Removes an indexed page, by `url` (any spelling that canonicalizes
    /// to it) or by index `id`; returns whether one was removed.
    #[pyo3(signature = (url=None, *, id=None))]
    fn remove(&self, py: Python<'_>, url: Option<&str>, id: Option<u32>) -> PyResult<bool> {
        py.detach(|| match (url, id) {
            (Some(url), None) => Ok(self
                .write(|d| d.remove_url(url))?
                .map_err(py_err)?
                .is_some()),
            (None, Some(id)) => self.write(|d| d.remove(id))?.map_err(py_err),
            _ => Err(PyValueError::new_err("remove() takes either url or id")),
        })
    }

    /// Makes every change so far durable (a redb index; a no-op in memory
    /// and on Redis, where each write is).
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.write(neardup::Deduper::flush)?.map_err(py_err))
    }

    /// Flushes and closes the index; the deduper cannot be used after.
    /// Closing twice is allowed.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| {
            let mut guard = self.inner.write().map_err(|_| poisoned())?;
            let result = match guard.as_mut() {
                Some(d) => d.flush().map_err(py_err),
                None => Ok(()),
            };
            *guard = None;
            result
        })
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    /// The configuration in force (every section, defaults filled in), as
    /// a dict shaped like the TOML.
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let value = self.read(|d| serde_json::to_value(d.config()))?;
        py_of(
            py,
            &value.map_err(|e| NeardupError::new_err(e.to_string()))?,
        )
    }

    /// The detector chain, in order.
    #[getter]
    fn detectors(&self) -> PyResult<Vec<String>> {
        self.read(neardup::Deduper::detector_names)
    }

    /// The page's signatures, for a batch engine: the columns `neardup
    /// export` writes (`key`, `url`, `site`, one per detector), `terms`,
    /// the candidate keys the indexes file the page under (`posted`,
    /// `probed`: per detector, signed 64-bit keys; see `neardup.spark`), and `comparable` (bytes for
    /// `compare`). Does not touch the index.
    #[pyo3(signature = (url, body, content_type=None, key=None))]
    fn signatures<'py>(
        &self,
        py: Python<'py>,
        url: &str,
        body: &Bound<'py, PyAny>,
        content_type: Option<&str>,
        key: Option<&str>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let body = body_of(body)?;
        let (names, page, keys, bytes) = py.detach(|| {
            self.read(|d| {
                let analyzed = d.analyze(key.unwrap_or(url), url, body, content_type);
                let page = d.comparable(&analyzed);
                let keys = d.join_keys(&page);
                let bytes = page.to_bytes(d).map_err(py_err)?;
                Ok::<_, PyErr>((d.detector_names(), page, keys, bytes))
            })?
        })?;
        let out = PyDict::new(py);
        out.set_item("key", &page.key)?;
        out.set_item("url", &page.url)?;
        out.set_item("site", &page.site)?;
        out.set_item("terms", page.terms)?;
        for (name, sig) in names.iter().zip(&page.signatures) {
            out.set_item(name, signature_py(py, sig)?)?;
        }
        let signed = |v: &[u64]| v.iter().map(|&k| k as i64).collect::<Vec<i64>>();
        let (posted, probed) = (PyDict::new(py), PyDict::new(py));
        for k in &keys {
            posted.set_item(&k.detector, signed(&k.posted))?;
            probed.set_item(&k.detector, signed(&k.probed))?;
        }
        out.set_item("posted", posted)?;
        out.set_item("probed", probed)?;
        out.set_item("comparable", PyBytes::new(py, &bytes))?;
        Ok(out)
    }

    /// Judges the page `later` against the page `earlier` (both the
    /// `comparable` bytes of `signatures()`) as `check` would judge it
    /// against `earlier` kept in the index, without site templates.
    /// Returns `None`, or the match: `kind`, `detector`, `similarity`,
    /// `resemblance`, `containment`, `covered`, `reason`.
    fn compare<'py>(
        &self,
        py: Python<'py>,
        earlier: &[u8],
        later: &[u8],
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let found = py.detach(|| {
            self.read(|d| {
                let a = Comparable::from_bytes(d, earlier).map_err(py_err)?;
                let b = Comparable::from_bytes(d, later).map_err(py_err)?;
                Ok::<_, PyErr>(d.compare(&a, &b))
            })?
        })?;
        let Some(found) = found else {
            return Ok(None);
        };
        let m = &found.matched;
        let out = PyDict::new(py);
        out.set_item("kind", found.kind.as_str())?;
        out.set_item("detector", m.basis.name())?;
        out.set_item("similarity", m.similarity)?;
        out.set_item("resemblance", m.resemblance)?;
        out.set_item("containment", m.containment)?;
        out.set_item("covered", m.covered)?;
        out.set_item("reason", &m.reason)?;
        Ok(Some(out))
    }

    fn __repr__(&self) -> String {
        let detectors = self
            .read(neardup::Deduper::detector_names)
            .map_or_else(|_| "closed".to_owned(), |d| d.join(", "));
        match &self.index {
            Some(at) => format!("Deduper(index={at:?}, detectors=[{detectors}])"),
            None => format!("Deduper(index=None, detectors=[{detectors}])"),
        }
    }
}

#[pymodule]
fn _neardup(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<Deduper>()?;
    m.add_class::<Verdict>()?;
    m.add("NeardupError", py.get_type::<NeardupError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("StoreError", py.get_type::<StoreError>())?;
    Ok(())
}
