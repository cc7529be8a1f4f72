//! `crawl --warc-out FILE`: the fetched responses as WARC/1.1, with
//! duplicates as `revisit` records the way archival crawlers write them.
//!
//! Records, in crawl order:
//! - one `warcinfo` record at the start;
//! - every HTTP answer (any status, not fetch errors or robots skips) as a
//!   `response` record: `application/http; msgtype=response`, an HTTP head
//!   rebuilt from what the fetcher keeps (status line, `Content-Type`,
//!   `Content-Length`) and the decompressed body (so no
//!   `Content-Encoding`), `WARC-Payload-Digest` = `sha1:` + base32 of the
//!   body's SHA-1;
//! - a page found a duplicate whose body has the same payload digest as
//!   the kept page's: a `revisit` record instead, with
//!   `WARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest`,
//!   `WARC-Refers-To-Target-URI`, `WARC-Refers-To-Date` and
//!   `WARC-Refers-To` of the kept page's response record, and only the
//!   HTTP head as its block: a replay tool serves the kept payload;
//! - any other duplicate or near duplicate (the bytes differ: a tracking
//!   parameter in a link, a date, an added paragraph): the full `response`
//!   record, because replay needs this page's own bytes (a revisit would
//!   replay another page's body under this URL), followed by a `metadata`
//!   record (`WARC-Concurrent-To` the response, `application/warc-fields`)
//!   naming the verdict, the page it matched (`neardup-of`, and
//!   `neardup-of-record` when that page has a record) and the evidence.
//!
//! With a name ending in `.gz` each record is its own gzip member (the
//! usual `.warc.gz` layout: readers can seek to a record). Record ids are
//! `urn:uuid:` built from a SHA-1 of the URL, the date and a counter.
//! With `--resume` the file is truncated to the length the checkpoint
//! recorded, like `pages.jsonl`.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};

use crate::error::{CrawlError, Result};
use crate::fetch::FetchOutcome;
use neardup::Error;
use neardup::{Verdict, VerdictKind};

/// The revisit profile for a payload identical to the referred record's.
pub const IDENTICAL_PAYLOAD: &str =
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";

/// A response record written for a page that later duplicates can refer to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    /// `WARC-Record-ID` (with angle brackets).
    pub record_id: String,
    /// `WARC-Date`.
    pub date: String,
    /// `WARC-Payload-Digest`.
    pub digest: String,
    /// `WARC-Target-URI`.
    pub url: String,
}

/// What a checkpoint records of the WARC file.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct WarcState {
    /// The file (absolute).
    pub path: PathBuf,
    /// Its length at the checkpoint.
    pub len: u64,
    /// Records written so far (for record ids).
    pub records: u64,
    /// Page key -> its response record.
    pub kept: BTreeMap<String, Kept>,
}

/// The WARC writer of a crawl.
#[derive(Debug)]
pub struct WarcOut {
    file: File,
    gzip: bool,
    state: WarcState,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

/// `sha1:` + base32 of the SHA-1 of `payload` (the WARC convention).
pub fn payload_digest(payload: &[u8]) -> String {
    let d = Sha1::digest(payload);
    format!("sha1:{}", data_encoding::BASE32.encode(d.as_slice()))
}

/// Now as a WARC date (`YYYY-MM-DDThh:mm:ssZ`).
fn warc_date() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

impl WarcOut {
    /// Starts `path` (truncated) with a `warcinfo` record.
    ///
    /// # Errors
    /// If the file cannot be created or written.
    pub fn create(path: &Path) -> Result<WarcOut> {
        let file = File::create(path).map_err(io(path))?;
        let abs = std::fs::canonicalize(path).map_err(io(path))?;
        let mut w = WarcOut {
            file,
            gzip: is_gz(path),
            state: WarcState {
                path: abs,
                ..WarcState::default()
            },
        };
        let info = format!(
            "software: neardup {}\r\nformat: WARC File Format 1.1\r\nconformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n",
            env!("CARGO_PKG_VERSION")
        );
        let id = w.record_id("warcinfo");
        w.record(
            &[
                ("WARC-Type", "warcinfo"),
                ("WARC-Record-ID", &id),
                ("WARC-Date", &warc_date()),
                ("Content-Type", "application/warc-fields"),
            ],
            info.as_bytes(),
        )?;
        Ok(w)
    }

    /// Reopens the file of `state`, truncated to its recorded length.
    ///
    /// # Errors
    /// If the file is missing or shorter than recorded.
    pub fn resume(state: WarcState) -> Result<WarcOut> {
        let path = state.path.clone();
        let file = OpenOptions::new()
            .write(true)
            .open(&path)
            .map_err(io(&path))?;
        let actual = file.metadata().map_err(io(&path))?.len();
        if actual < state.len {
            return Err(CrawlError::Checkpoint {
                path,
                message: format!(
                    "{actual} bytes, the checkpoint recorded {}: the file was cut",
                    state.len
                ),
            });
        }
        file.set_len(state.len).map_err(io(&path))?;
        drop(file);
        let file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(io(&path))?;
        Ok(WarcOut {
            file,
            gzip: is_gz(&path),
            state,
        })
    }

    /// Syncs the file and returns what a checkpoint records.
    ///
    /// # Errors
    /// If the file cannot be synced.
    pub fn sync(&mut self) -> Result<WarcState> {
        let path = self.state.path.clone();
        self.file.sync_data().map_err(io(&path))?;
        self.state.len = self.file.metadata().map_err(io(&path))?.len();
        Ok(self.state.clone())
    }

    fn record_id(&mut self, url: &str) -> String {
        self.state.records += 1;
        let mut h = Sha1::new();
        h.update(url.as_bytes());
        h.update(warc_date().as_bytes());
        h.update(self.state.records.to_le_bytes());
        let d = h.finalize();
        let b = d.as_slice();
        let hex: String = b.iter().take(16).map(|x| format!("{x:02x}")).collect();
        format!(
            "<urn:uuid:{}-{}-{}-{}-{}>",
            &hex[0..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..32]
        )
    }

    /// Writes one record: header fields (Content-Length added) and block.
    fn record(&mut self, fields: &[(&str, &str)], block: &[u8]) -> Result<()> {
        let mut rec = Vec::with_capacity(block.len() + 512);
        rec.extend_from_slice(b"WARC/1.1\r\n");
        for (k, v) in fields {
            rec.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
        }
        rec.extend_from_slice(format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes());
        rec.extend_from_slice(block);
        rec.extend_from_slice(b"\r\n\r\n");
        let path = self.state.path.clone();
        if self.gzip {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            gz.write_all(&rec).map_err(io(&path))?;
            rec = gz.finish().map_err(io(&path))?;
        }
        Ok(self.file.write_all(&rec).map_err(io(&path))?)
    }

    /// Writes the records for one HTTP answer: `verdict` is the page's
    /// verdict when it was checked for duplicates. See the module doc.
    ///
    /// # Errors
    /// If the file cannot be written.
    pub fn answer(
        &mut self,
        key: &str,
        outcome: &FetchOutcome,
        verdict: Option<&Verdict>,
    ) -> Result<()> {
        let url = outcome.final_url.as_str().to_owned();
        let body = &outcome.body;
        let digest = payload_digest(body);
        let reason = reqwest::StatusCode::from_u16(outcome.status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("");
        let mut head = format!("HTTP/1.1 {} {reason}\r\n", outcome.status);
        if let Some(ct) = &outcome.content_type {
            head.push_str(&format!("Content-Type: {ct}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        let date = warc_date();
        let matched = verdict.and_then(|v| v.matched.as_ref().map(|m| (v.kind, m)));
        let referred = matched.and_then(|(_, m)| self.state.kept.get(&m.key).cloned());
        if let (Some((VerdictKind::Duplicate, _)), Some(kept)) = (matched, &referred) {
            if kept.digest == digest {
                let id = self.record_id(&url);
                return self.record(
                    &[
                        ("WARC-Type", "revisit"),
                        ("WARC-Record-ID", &id),
                        ("WARC-Date", &date),
                        ("WARC-Target-URI", &url),
                        ("WARC-Payload-Digest", &digest),
                        ("WARC-Profile", IDENTICAL_PAYLOAD),
                        ("WARC-Refers-To-Target-URI", &kept.url),
                        ("WARC-Refers-To-Date", &kept.date),
                        ("WARC-Refers-To", &kept.record_id),
                        ("Content-Type", "application/http; msgtype=response"),
                    ],
                    head.as_bytes(),
                );
            }
        }
        let id = self.record_id(&url);
        let mut block = head.into_bytes();
        block.extend_from_slice(body);
        self.record(
            &[
                ("WARC-Type", "response"),
                ("WARC-Record-ID", &id),
                ("WARC-Date", &date),
                ("WARC-Target-URI", &url),
                ("WARC-Payload-Digest", &digest),
                ("Content-Type", "application/http; msgtype=response"),
            ],
            &block,
        )?;
        match matched {
            None => {
                if verdict.is_some() {
                    self.state.kept.insert(
                        key.to_owned(),
                        Kept {
                            record_id: id,
                            date,
                            digest,
                            url,
                        },
                    );
                }
                Ok(())
            }
            Some((kind, m)) => {
                if kind == VerdictKind::NearDuplicate {
                    // A near duplicate is kept in the index too: later
                    // pages may match it.
                    self.state.kept.insert(
                        key.to_owned(),
                        Kept {
                            record_id: id.clone(),
                            date: date.clone(),
                            digest,
                            url: url.clone(),
                        },
                    );
                }
                let mut fields = format!(
                    "neardup-verdict: {}\r\nneardup-of: {}\r\n",
                    kind.as_str(),
                    m.url
                );
                if let Some(k) = &referred {
                    fields.push_str(&format!("neardup-of-record: {}\r\n", k.record_id));
                }
                fields.push_str(&format!(
                    "neardup-detector: {}\r\nneardup-similarity: {:.4}\r\nneardup-containment: {:.4}\r\nneardup-reason: {}\r\n",
                    m.basis,
                    m.similarity,
                    m.containment,
                    m.reason.replace(['\r', '\n'], " ")
                ));
                let meta_id = self.record_id(&url);
                self.record(
                    &[
                        ("WARC-Type", "metadata"),
                        ("WARC-Record-ID", &meta_id),
                        ("WARC-Date", &date),
                        ("WARC-Target-URI", &url),
                        ("WARC-Concurrent-To", &id),
                        ("Content-Type", "application/warc-fields"),
                    ],
                    fields.as_bytes(),
                )
            }
        }
    }
}

fn is_gz(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_digest_is_base32_sha1() {
        // SHA-1("abc") = a9993e36 4706816a ba3e2571 7850c26c 9cd0d89d
        // (FIPS 180-1 example), in base32.
        assert_eq!(
            payload_digest(b"abc"),
            "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5"
        );
    }

    #[test]
    fn warc_date_has_the_iso_shape() {
        let d = warc_date();
        assert_eq!(d.len(), 20, "{d}");
        assert!(
            d.starts_with("20") && d.ends_with('Z') && &d[10..11] == "T",
            "{d}"
        );
    }
}
